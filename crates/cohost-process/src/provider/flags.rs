//! The per-CLI flag table of seed 001, as one typed value per CLI, and the
//! one function that turns it into a command line ([`FlagTable::query_args`],
//! which every one-shot driver builds its argv with).

/// Arguments with `{id}` standing for a session id, e.g. `["--resume", "{id}"]`.
pub type ArgTemplate = &'static [&'static str];

/// How the prompt reaches the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptArg {
    /// The last positional argument.
    Positional,
    /// The value of a flag (`-p PROMPT`, `--message PROMPT`).
    Flag(&'static str),
    /// Joined to a flag with `=` (`--prompt=PROMPT`), so a prompt that starts
    /// with `-` cannot parse as a flag.
    Joined(&'static str),
    /// Typed into the terminal after spawn (PTY mode).
    InitialInput,
    /// Written to stdin (stream-json input modes).
    Stdin,
}

/// How one CLI spells the common options. `None` = the CLI has no such option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagTable {
    /// What makes a run non-interactive (`-p`, `exec`, `run`); may be empty
    /// when `query_prompt` is a flag that already does it (gemini `-p`).
    pub non_interactive: &'static [&'static str],
    /// Prompt passing in non-interactive (query) mode.
    pub query_prompt: PromptArg,
    /// Prompt passing in terminal (PTY) mode.
    pub terminal_prompt: PromptArg,
    /// Resume a session by id.
    pub resume: Option<ArgTemplate>,
    /// Continue the most recent session.
    pub continue_latest: Option<ArgTemplate>,
    /// Run tools without asking. Only used when the user's policy says so.
    pub skip_permissions: Option<ArgTemplate>,
    /// The model flag (`--model`).
    pub model: Option<&'static str>,
    /// One JSON document (or JSONL) at the end.
    pub json_output: Option<ArgTemplate>,
    /// Streaming JSON events.
    pub stream_json: Option<ArgTemplate>,
    /// A long-lived session speaking stream-json both ways (prompts on
    /// stdin, events on stdout), in the order the driver proved on the CLI.
    pub stream_session: Option<ArgTemplate>,
    /// Start a new session under a caller-chosen id (`--session-id {id}`).
    pub fresh_session: Option<ArgTemplate>,
}

/// A CLI with no known flags; specs override what their CLI has.
pub const NO_FLAGS: FlagTable = FlagTable {
    non_interactive: &[],
    query_prompt: PromptArg::Positional,
    terminal_prompt: PromptArg::Positional,
    resume: None,
    continue_latest: None,
    skip_permissions: None,
    model: None,
    json_output: None,
    stream_json: None,
    stream_session: None,
    fresh_session: None,
};

/// What a caller wants from one non-interactive run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryArgs {
    /// The prompt.
    pub prompt: String,
    /// Model, when not the CLI's default.
    pub model: Option<String>,
    /// Native session id to resume (wins over `continue_latest`).
    pub resume: Option<String>,
    /// Continue the most recent session.
    pub continue_latest: bool,
    /// Add the permission-bypass flag (the user's policy allowed it).
    pub skip_permissions: bool,
    /// Prefer streaming JSON over one JSON document.
    pub stream: bool,
    /// A new session under this caller-chosen id (when the CLI can; loses
    /// to `resume`).
    pub fresh_session: Option<String>,
    /// The driver's own arguments before the mode (global options).
    pub leading: Vec<String>,
    /// The driver's own arguments right after the output format.
    pub driver_args: Vec<String>,
    /// The driver's own arguments after model, permissions and session.
    pub driver_tail: Vec<String>,
    /// The user's extra arguments, last before the prompt.
    pub extra_args: Vec<String>,
    /// Put the prompt right after the mode instead of last.
    pub prompt_first: bool,
    /// Put `--` before a trailing prompt, so a prompt that starts with `-`
    /// cannot parse as a flag.
    pub end_of_options: bool,
}

fn fill(template: ArgTemplate, id: &str, out: &mut Vec<String>) {
    out.extend(template.iter().map(|a| a.replace("{id}", id)));
}

fn filled(template: Option<ArgTemplate>, id: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = template {
        fill(t, id, &mut out);
    }
    out
}

fn push_prompt(how: PromptArg, prompt: &str, out: &mut Vec<String>) {
    match how {
        PromptArg::Positional => out.push(prompt.to_string()),
        PromptArg::Flag(flag) => {
            out.push(flag.to_string());
            out.push(prompt.to_string());
        }
        PromptArg::Joined(flag) => out.push(format!("{flag}={prompt}")),
        PromptArg::InitialInput | PromptArg::Stdin => {}
    }
}

impl FlagTable {
    /// Arguments (after the binary) for a non-interactive run. Order:
    /// leading driver args, mode, (prompt when `prompt_first`), output
    /// format, driver args, model, permissions, session, driver tail, extra
    /// args, (`--`), prompt — the order every CLI here accepts (codex needs
    /// `resume ID` right before the prompt). A prompt passed by stdin or PTY
    /// is not in the arguments.
    pub fn query_args(&self, q: &QueryArgs) -> Vec<String> {
        let mut out = q.leading.clone();
        out.extend(self.non_interactive.iter().map(|s| s.to_string()));
        if q.prompt_first {
            push_prompt(self.query_prompt, &q.prompt, &mut out);
        }
        let format = if q.stream {
            self.stream_json.or(self.json_output)
        } else {
            self.json_output.or(self.stream_json)
        };
        if let Some(f) = format {
            fill(f, "", &mut out);
        }
        out.extend(q.driver_args.iter().cloned());
        self.common_args(q, &mut out);
        out.extend(q.driver_tail.iter().cloned());
        out.extend(q.extra_args.iter().cloned());
        if !q.prompt_first {
            if q.end_of_options {
                out.push("--".into());
            }
            push_prompt(self.query_prompt, &q.prompt, &mut out);
        }
        out
    }

    /// Arguments for an interactive (terminal) run, and the text to type
    /// after spawn when the CLI takes its prompt as PTY input.
    pub fn terminal_args(&self, q: &QueryArgs) -> (Vec<String>, Option<String>) {
        let mut out = Vec::new();
        self.common_args(q, &mut out);
        let mut initial = None;
        if !q.prompt.is_empty() {
            match self.terminal_prompt {
                PromptArg::InitialInput | PromptArg::Stdin => initial = Some(q.prompt.clone()),
                how => push_prompt(how, &q.prompt, &mut out),
            }
        }
        (out, initial)
    }

    /// The non-interactive mode arguments (`-p`, `exec`, `run`).
    pub fn non_interactive_args(&self) -> Vec<String> {
        self.non_interactive.iter().map(|s| s.to_string()).collect()
    }

    /// The prompt as the non-interactive mode takes it; empty when it goes
    /// by stdin or PTY.
    pub fn prompt_args(&self, prompt: &str) -> Vec<String> {
        let mut out = Vec::new();
        push_prompt(self.query_prompt, prompt, &mut out);
        out
    }

    /// `--model MODEL`; empty when the CLI has no model flag.
    pub fn model_args(&self, model: &str) -> Vec<String> {
        self.model
            .map(|f| vec![f.to_string(), model.to_string()])
            .unwrap_or_default()
    }

    /// Resume the native session `id`; empty when the CLI cannot.
    pub fn resume_args(&self, id: &str) -> Vec<String> {
        filled(self.resume, id)
    }

    /// Continue the most recent session; empty when the CLI cannot.
    pub fn continue_args(&self) -> Vec<String> {
        filled(self.continue_latest, "")
    }

    /// The permission-bypass flag. Callers add it only when the user's
    /// policy is auto-approve.
    pub fn bypass_args(&self) -> Vec<String> {
        filled(self.skip_permissions, "")
    }

    /// One JSON document (or JSONL) as output.
    pub fn json_args(&self) -> Vec<String> {
        filled(self.json_output, "")
    }

    /// Streaming JSON events as output.
    pub fn stream_json_args(&self) -> Vec<String> {
        filled(self.stream_json, "")
    }

    /// Stream-json in and out, for a long-lived session.
    pub fn stream_session_args(&self) -> Vec<String> {
        filled(self.stream_session, "")
    }

    fn common_args(&self, q: &QueryArgs, out: &mut Vec<String>) {
        if let (Some(flag), Some(model)) = (self.model, q.model.as_deref()) {
            out.push(flag.to_string());
            out.push(model.to_string());
        }
        if q.skip_permissions {
            if let Some(t) = self.skip_permissions {
                fill(t, "", out);
            }
        }
        match (q.resume.as_deref(), self.resume, self.continue_latest) {
            (Some(id), Some(t), _) => fill(t, id, out),
            (None, _, Some(t)) if q.continue_latest => fill(t, "", out),
            (None, _, _) => {
                if let (Some(id), Some(t)) = (q.fresh_session.as_deref(), self.fresh_session) {
                    fill(t, id, out);
                }
            }
            _ => {}
        }
    }
}
