//! The plugin manifest: a TOML file declaring a custom agent, parsed
//! strictly (unknown keys are errors, so a typo is caught, not ignored) and
//! checked, with every problem reported as file + field + reason.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::PluginError;

/// How the agent talks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Agent Client Protocol over stdio (a long-lived process).
    Acp,
    /// One process per prompt printing JSON lines, mapped by `[jsonl]`.
    Jsonl,
    /// One process per prompt; every stdout line is answer text.
    Text,
    /// One interactive program per session, on a pseudo-terminal: the
    /// prompt is typed at its input prompt (`[pty] prompt`), what it prints
    /// until that prompt shows again is the answer.
    Pty,
    /// One process per prompt whose command line and stdout mapping come
    /// from a WebAssembly component (`[wasm] component`) implementing the
    /// `cohost:adapter` world, run in cohost's sandbox
    /// (`crates/cohost-wasm/wit/adapter.wit`).
    Wasm,
}

/// One name or several.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Names {
    /// `binary = "x"`.
    One(String),
    /// `binary = ["x", "x-cli"]`.
    Many(Vec<String>),
}

impl Names {
    /// As a list.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Names::One(s) => vec![s.clone()],
            Names::Many(v) => v.clone(),
        }
    }
}

/// A manifest as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Provider id users type.
    pub id: String,
    /// Human label (defaults to the id).
    #[serde(default)]
    pub label: Option<String>,
    /// Executable names to look for on PATH (or absolute paths).
    pub binary: Names,
    /// Arguments that print the version (empty: no probe).
    #[serde(default)]
    pub version_args: Vec<String>,
    /// Variables that must be set for the agent to work (checked before spawn).
    #[serde(default)]
    pub required_env: Vec<String>,
    /// Arguments. `{prompt}`, `{cwd}` and `{model}` are replaced; for jsonl
    /// and text agents without `{prompt}` the prompt is the last argument.
    /// A pty agent's prompt is typed, never an argument.
    #[serde(default)]
    pub args: Vec<String>,
    /// Arguments added when a model is chosen (`{model}` replaced).
    #[serde(default)]
    pub model_args: Vec<String>,
    /// Arguments added before `args` to continue a session (`{session_id}`).
    #[serde(default)]
    pub resume_args: Vec<String>,
    /// Non-secret variables for the child.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Prefixes of the user's variables the child inherits (`MYAGENT_`).
    #[serde(default)]
    pub env_prefixes: Vec<String>,
    /// Wire protocol.
    pub protocol: Protocol,
    /// Field mapping for `protocol = "jsonl"`.
    #[serde(default)]
    pub jsonl: Option<JsonlMapping>,
    /// Terminal settings for `protocol = "pty"`.
    #[serde(default)]
    pub pty: Option<PtySettings>,
    /// The component of `protocol = "wasm"`.
    #[serde(default)]
    pub wasm: Option<WasmSettings>,
}

/// `[wasm]`: the adapter component and its limits.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WasmSettings {
    /// The component file (`.wasm`), relative to the manifest's directory
    /// or absolute. [`parse`] makes it absolute.
    pub component: PathBuf,
    /// The component's sha256 (hex); when set, any other file is refused.
    #[serde(default)]
    pub sha256: Option<String>,
    /// cohost names a new session (`cohost-<uuid>`) for the first turn and
    /// passes it to the component, for CLIs that take a caller-chosen
    /// session name (goose `--name`).
    #[serde(default)]
    pub name_sessions: bool,
    /// Time limit of one call, in milliseconds (default 500).
    #[serde(default)]
    pub call_time_ms: Option<u64>,
    /// Memory limit of an instance, in MiB (default 64).
    #[serde(default)]
    pub memory_mib: Option<u64>,
    /// Events one call may return (default 10000).
    #[serde(default)]
    pub events_per_call: Option<u64>,
    /// Text one call may return, in KiB (default 4096).
    #[serde(default)]
    pub output_kib_per_call: Option<u64>,
}

/// `[pty]`: how cohost knows the program waits for input.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtySettings {
    /// The text the program prints when it waits for input, trailing space
    /// included, as it reads once colours and other escape sequences are
    /// stripped (`"> "`, `"toy> "`).
    pub prompt: String,
}

/// Where the events are in each JSON line. Paths are dotted (`a.b.0`) or
/// JSON pointers (`/a/b/0`); `when` is the value of the `type` field.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonlMapping {
    /// Path of the field that tells event kinds apart.
    #[serde(rename = "type")]
    pub type_path: String,
    /// Answer text deltas.
    #[serde(default)]
    pub text: Option<ValueRule>,
    /// Reasoning deltas.
    #[serde(default)]
    pub reasoning: Option<ValueRule>,
    /// Tool calls.
    #[serde(default)]
    pub tool_call: Option<ToolCallRule>,
    /// Tool results.
    #[serde(default)]
    pub tool_result: Option<ToolResultRule>,
    /// End of the turn (and its usage).
    #[serde(default)]
    pub end: Option<EndRule>,
    /// Native session id.
    #[serde(default)]
    pub session_id: Option<ValueRule>,
    /// Error message.
    #[serde(default)]
    pub error: Option<ValueRule>,
}

/// `{ when = "delta", path = "text" }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueRule {
    /// Type value this rule applies to.
    pub when: String,
    /// Path of the value.
    pub path: String,
}

/// `{ when = "tool", id = "id", name = "name", input = "args" }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallRule {
    /// Type value.
    pub when: String,
    /// Path of the call id.
    pub id: String,
    /// Path of the tool name.
    pub name: String,
    /// Path of the arguments.
    #[serde(default)]
    pub input: Option<String>,
}

/// `{ when = "tool_done", id = "id", output = "output", error = "failed" }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResultRule {
    /// Type value.
    pub when: String,
    /// Path of the call id.
    pub id: String,
    /// Path of the output.
    #[serde(default)]
    pub output: Option<String>,
    /// Path of a boolean that is true when the tool failed.
    #[serde(default)]
    pub error: Option<String>,
}

/// `{ when = "done", input_tokens = "usage.in", output_tokens = "usage.out" }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndRule {
    /// Type value.
    pub when: String,
    /// Path of input tokens.
    #[serde(default)]
    pub input_tokens: Option<String>,
    /// Path of output tokens.
    #[serde(default)]
    pub output_tokens: Option<String>,
}

/// Names that look like they hold secrets; their values belong in the
/// user's environment, not in a file that may be committed.
const SECRET_WORDS: [&str; 5] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"];

/// Parse and check one manifest file's text.
pub fn parse(file: &Path, text: &str) -> Result<Manifest, PluginError> {
    let m: Manifest = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    let err = |field: &str, reason: String| PluginError {
        file: file.to_path_buf(),
        field: Some(field.to_string()),
        line: None,
        column: None,
        reason,
    };
    let id_ok = !m.id.is_empty()
        && m.id.len() <= 64
        && m.id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !id_ok {
        return Err(err(
            "id",
            format!(
                "`{}` is not a valid id: use lower-case letters, digits, '-' and '_'",
                m.id
            ),
        ));
    }
    if m.binary.to_vec().iter().all(|b| b.trim().is_empty()) {
        return Err(err("binary", "names no executable".into()));
    }
    if let Some(name) = m.env.keys().find(|k| {
        SECRET_WORDS
            .iter()
            .any(|w| k.to_ascii_uppercase().contains(w))
    }) {
        return Err(err(
            &format!("env.{name}"),
            "looks like a secret; set it in your environment and list it in required_env".into(),
        ));
    }
    match (m.protocol, &m.jsonl) {
        (Protocol::Jsonl, None) => {
            return Err(err(
                "jsonl",
                "protocol = \"jsonl\" needs a [jsonl] table".into(),
            ))
        }
        (Protocol::Jsonl, Some(j)) if j.text.is_none() => {
            return Err(err(
                "jsonl.text",
                "missing: which lines carry the answer text".into(),
            ))
        }
        (Protocol::Acp | Protocol::Text | Protocol::Pty | Protocol::Wasm, Some(_)) => {
            return Err(err(
                "jsonl",
                "only allowed with protocol = \"jsonl\"".into(),
            ))
        }
        _ => {}
    }
    check_pty(&m).map_err(|(field, reason)| err(field, reason))?;
    let mut m = m;
    check_wasm(&mut m, file).map_err(|(field, reason)| err(field, reason))?;
    Ok(m)
}

/// The rules of `protocol = "wasm"` and its `[wasm]` table; makes the
/// component's path absolute (relative to the manifest's directory).
fn check_wasm(m: &mut Manifest, file: &Path) -> Result<(), (&'static str, String)> {
    let Protocol::Wasm = m.protocol else {
        return match m.wasm {
            Some(_) => Err(("wasm", "only allowed with protocol = \"wasm\"".into())),
            None => Ok(()),
        };
    };
    let Some(w) = m.wasm.as_mut() else {
        return Err((
            "wasm",
            "protocol = \"wasm\" needs a [wasm] table naming the adapter (component = \"my-adapter.wasm\")".into(),
        ));
    };
    for (field, set) in [
        ("args", !m.args.is_empty()),
        ("model_args", !m.model_args.is_empty()),
        ("resume_args", !m.resume_args.is_empty()),
    ] {
        if set {
            return Err((
                field,
                "a wasm adapter builds the command line itself; remove it".into(),
            ));
        }
    }
    if w.component.as_os_str().is_empty() {
        return Err(("wasm.component", "names no file".into()));
    }
    if w.component.is_relative() {
        let dir = file.parent().unwrap_or(Path::new("."));
        w.component = dir.join(&w.component);
    }
    if let Some(pin) = &w.sha256 {
        if pin.len() != 64 || !pin.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err((
                "wasm.sha256",
                "must be 64 hex digits (`sha256sum adapter.wasm`)".into(),
            ));
        }
    }
    let ranges: [(&'static str, Option<u64>, u64); 4] = [
        ("wasm.call_time_ms", w.call_time_ms, 60_000),
        ("wasm.memory_mib", w.memory_mib, 4096),
        ("wasm.events_per_call", w.events_per_call, 1_000_000),
        ("wasm.output_kib_per_call", w.output_kib_per_call, 1 << 20),
    ];
    for (field, value, max) in ranges {
        if value.is_some_and(|v| v == 0 || v > max) {
            return Err((field, format!("must be between 1 and {max}")));
        }
    }
    Ok(())
}

/// The rules of `protocol = "pty"` and its `[pty]` table.
fn check_pty(m: &Manifest) -> Result<(), (&'static str, String)> {
    let Protocol::Pty = m.protocol else {
        return match m.pty {
            Some(_) => Err(("pty", "only allowed with protocol = \"pty\"".into())),
            None => Ok(()),
        };
    };
    match &m.pty {
        None => {
            return Err((
                "pty",
                "protocol = \"pty\" needs a [pty] table with the program's input prompt (prompt = \"> \")".into(),
            ))
        }
        Some(p) if p.prompt.trim().is_empty() => {
            return Err((
                "pty.prompt",
                "must show something besides spaces, or any output would look like the prompt"
                    .into(),
            ))
        }
        Some(_) => {}
    }
    if m.args
        .iter()
        .chain(&m.model_args)
        .any(|a| a.contains("{prompt}"))
    {
        return Err((
            "args",
            "a pty agent's prompt is typed at its input prompt; `{prompt}` cannot be an argument"
                .into(),
        ));
    }
    if !m.resume_args.is_empty() {
        return Err((
            "resume_args",
            "a pty agent cannot resume: a terminal gives no session id".into(),
        ));
    }
    Ok(())
}

fn toml_error(file: &Path, text: &str, e: &toml::de::Error) -> PluginError {
    let (line, column) = match e.span() {
        Some(span) => line_col(text, span.start),
        None => (None, None),
    };
    let message = e.message().to_string();
    // serde names the field in backticks for missing/unknown fields; for a
    // bad value the key is the one on the error's line.
    let field = if message.starts_with("missing field") || message.starts_with("unknown field") {
        message.split('`').nth(1).map(str::to_string)
    } else {
        e.span().and_then(|s| key_before(text, s.start))
    };
    PluginError {
        file: file.to_path_buf(),
        field,
        line,
        column,
        reason: message.trim().to_string(),
    }
}

fn line_col(text: &str, offset: usize) -> (Option<usize>, Option<usize>) {
    let Some(before) = text.get(..offset.min(text.len())) else {
        return (None, None);
    };
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (Some(line), Some(column))
}

fn key_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset.min(text.len()))?;
    let line = before.rsplit('\n').next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty()).then(|| key.to_string())
}

/// Files a directory offers: `*.toml`, sorted.
pub fn manifest_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
        .collect();
    files.sort();
    files
}
