//! Every key `config.toml` understands, in one list: `cohost config set|get`
//! refuses anything else (with a did-you-mean), and the book's key table is
//! generated from [`KEYS`] (a test compares them, so they cannot drift).

use toml_edit::Value;

use crate::error::DiscoveryError;

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// A string.
    Str,
    /// `true` or `false`.
    Bool,
    /// A number (integer or decimal).
    Num,
    /// An array of strings.
    StrArray,
    /// A table of string values (`env`).
    StrTable,
}

impl KeyKind {
    /// How the book's configuration page and `cohost config keys` name it.
    pub fn name(self) -> &'static str {
        match self {
            KeyKind::Str => "string",
            KeyKind::Bool => "bool",
            KeyKind::Num => "number",
            KeyKind::StrArray => "array of strings",
            KeyKind::StrTable => "table of strings",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match self {
            KeyKind::Str => v.is_str(),
            KeyKind::Bool => v.is_bool(),
            KeyKind::Num => v.is_integer() || v.is_float(),
            KeyKind::StrArray => v.as_array().is_some_and(|a| a.iter().all(Value::is_str)),
            KeyKind::StrTable => v
                .as_inline_table()
                .is_some_and(|t| t.iter().all(|(_, v)| v.is_str())),
        }
    }
}

/// One documented key. In `pattern`, a `<...>` segment stands for any name.
#[derive(Debug, Clone, Copy)]
pub struct KeyDoc {
    /// Dotted pattern, e.g. `slots.<name>.provider`.
    pub pattern: &'static str,
    /// What it holds.
    pub kind: KeyKind,
    /// The value when unset.
    pub default: &'static str,
    /// What it does.
    pub doc: &'static str,
}

const fn key(
    pattern: &'static str,
    kind: KeyKind,
    default: &'static str,
    doc: &'static str,
) -> KeyDoc {
    KeyDoc {
        pattern,
        kind,
        default,
        doc,
    }
}

/// Every key cohost reads from `config.toml`.
pub const KEYS: &[KeyDoc] = &[
    key(
        "active_provider",
        KeyKind::Str,
        "(none)",
        "The provider the settings API (`cohost serve`) marks active.",
    ),
    key(
        "active_model",
        KeyKind::Str,
        "(none)",
        "The model the settings API marks active with `active_provider`.",
    ),
    key(
        "checkpoints",
        KeyKind::Bool,
        "`true`",
        "Record the working tree before and after every turn (git objects under `refs/cohost/`, or cohost's own store outside git): `file_changes` events, `cohost diff`, `cohost undo`. `--no-checkpoints` turns it off for one session.",
    ),
    key(
        "worktree",
        KeyKind::Bool,
        "`false`",
        "Run each new session in a git worktree of its own (branch `cohost/<session>`, from HEAD plus your uncommitted changes); `cohost worktree apply|merge|discard` brings its changes in or drops them. `--worktree` does it for one session.",
    ),
    key(
        "sandbox",
        KeyKind::Str,
        "`off` (`on` for `share`)",
        "Run agents in an OS sandbox (Landlock): writes only to the working tree, the agent's own state and a private temp dir; no reads of `~/.ssh`, `~/.aws`, `~/.gnupg`, other agents' credentials or cohost's keys; TCP connects only to the provider's ports. `off`, `on` (unconfined with a notice where the kernel has no Landlock) or `required` (refuse to start there). `--sandbox[=MODE]` sets it for one session; it applies to `serve`, `mcp` and `acp` sessions too.",
    ),
    key(
        "budget.usd",
        KeyKind::Num,
        "(no limit)",
        "Default budget of every session and room, in US dollars (priced by the model price table): a `budget` warning at 80%; at 100% the running turn stops with reason `budget` and prompts get `BUDGET_EXCEEDED` until `/budget` raises it. `--budget-usd` beats it.",
    ),
    key(
        "budget.tokens",
        KeyKind::Num,
        "(no limit)",
        "Default budget in tokens (prompt, output and cache tokens of every model, priced or not). `--budget-tokens` beats it.",
    ),
    key(
        "prices.<model>.input",
        KeyKind::Num,
        "the price table's",
        "US dollars per million prompt tokens of `<model>`, beating the pinned LiteLLM table (and `cohost prices refresh`); needs `output` too.",
    ),
    key(
        "prices.<model>.output",
        KeyKind::Num,
        "the price table's",
        "US dollars per million generated tokens of `<model>`.",
    ),
    key(
        "prices.<model>.cache_read",
        KeyKind::Num,
        "the input price",
        "US dollars per million prompt-cache read tokens of `<model>`.",
    ),
    key(
        "prices.<model>.cache_write",
        KeyKind::Num,
        "the input price",
        "US dollars per million prompt-cache write tokens of `<model>`.",
    ),
    key(
        "notify.webhook",
        KeyKind::Str,
        "(none)",
        "An ntfy-compatible URL (e.g. `https://ntfy.sh/YOUR-TOPIC`) that gets a short POST when a turn needs approval, ends, fails or nears its budget: a title and a line, sanitized, never the prompt. `--notify URL` sets it for one session.",
    ),
    key(
        "notify.terminal",
        KeyKind::Bool,
        "`true`",
        "OSC 9 / OSC 777 notifications and the bell from the terminal UI, only while the terminal reports it is not focused.",
    ),
    key(
        "notify.desktop",
        KeyKind::Bool,
        "`true`",
        "Desktop notifications through the freedesktop notification service (D-Bus session bus).",
    ),
    key(
        "providers.<id>.binary",
        KeyKind::Str,
        "found on PATH",
        "Explicit path of the agent's binary (skips discovery).",
    ),
    key(
        "providers.<id>.model",
        KeyKind::Str,
        "the agent's default",
        "Model to ask for.",
    ),
    key(
        "providers.<id>.enabled",
        KeyKind::Bool,
        "`true`",
        "`false` blocks the provider.",
    ),
    key(
        "providers.<id>.env",
        KeyKind::StrTable,
        "`{}`",
        "Extra variables for the agent's process, as a table.",
    ),
    key(
        "providers.<id>.env.<VAR>",
        KeyKind::Str,
        "(unset)",
        "One extra variable for the agent's process.",
    ),
    key(
        "providers.<id>.pass_env",
        KeyKind::StrArray,
        "`[]`",
        "Variables (`NAME`, or `PREFIX_*`) passed through from cohost's own environment.",
    ),
    key(
        "providers.<id>.endpoint",
        KeyKind::Str,
        "the vendor's",
        "Endpoint of a model server or user-defined API.",
    ),
    key(
        "providers.<id>.base_url",
        KeyKind::Str,
        "the vendor's",
        "Same as `endpoint` (read when `endpoint` is unset).",
    ),
    key(
        "providers.<id>.kind",
        KeyKind::Str,
        "(built-in provider)",
        "`api` declares a user-defined OpenAI-compatible provider.",
    ),
    key(
        "providers.<id>.key_env",
        KeyKind::Str,
        "(none)",
        "Variable holding a user-defined provider's API key.",
    ),
    key(
        "providers.<id>.models",
        KeyKind::StrArray,
        "`[]`",
        "Models a user-defined provider serves.",
    ),
    key(
        "slots.<name>.provider",
        KeyKind::Str,
        "`claude`",
        "Provider of a capability slot (`terminal`, `summary`, `analysis`, `assistant`, or your own).",
    ),
    key(
        "slots.<name>.mode",
        KeyKind::Str,
        "`cli`",
        "How the slot reaches its provider: `cli` (the agent CLI) or `api` (its model API).",
    ),
    key(
        "slots.<name>.model",
        KeyKind::Str,
        "the provider's",
        "Model of the slot.",
    ),
];

fn matches(pattern: &str, key: &[&str]) -> bool {
    let pat: Vec<&str> = pattern.split('.').collect();
    pat.len() == key.len()
        && pat
            .iter()
            .zip(key)
            .all(|(p, k)| p.starts_with('<') || p == k)
}

/// The documented key `key` is an instance of.
pub fn lookup(key: &str) -> Option<&'static KeyDoc> {
    let parts: Vec<&str> = key.split('.').collect();
    KEYS.iter().find(|d| matches(d.pattern, &parts))
}

/// `key` with the names of `pattern` filled in from `key` where they line up
/// (so a suggestion for `slots.summary.provdier` reads `slots.summary.provider`).
fn instantiate(pattern: &str, key: &[&str]) -> String {
    pattern
        .split('.')
        .enumerate()
        .map(|(i, p)| match key.get(i) {
            Some(k) if p.starts_with('<') => *k,
            _ => p,
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The closest documented key to an unknown one, when it is close enough to
/// be a typo.
pub fn did_you_mean(key: &str) -> Option<String> {
    let parts: Vec<&str> = key.split('.').collect();
    KEYS.iter()
        .map(|d| instantiate(d.pattern, &parts))
        .map(|cand| (strsim::damerau_levenshtein(key, &cand), cand))
        .filter(|(d, cand)| *d <= (cand.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, cand)| cand)
}

/// A key cohost does not know, with a did-you-mean.
pub fn unknown_key(key: &str) -> DiscoveryError {
    DiscoveryError::UnknownKey {
        key: key.to_owned(),
        did_you_mean: did_you_mean(key),
    }
}

/// Check `key` is documented and `value` (as `HostConfig::set` parses it) has
/// its kind.
pub fn check(key: &str, value: &Value) -> Result<(), DiscoveryError> {
    let doc = lookup(key).ok_or_else(|| unknown_key(key))?;
    if doc.kind.accepts(value) {
        return Ok(());
    }
    let example = match doc.kind {
        KeyKind::Str => "\"text\"",
        KeyKind::Bool => "true",
        KeyKind::Num => "2.5",
        KeyKind::StrArray => "'[\"A\", \"B\"]'",
        KeyKind::StrTable => "'{ NAME = \"value\" }'",
    };
    Err(DiscoveryError::WrongKind {
        key: key.to_owned(),
        kind: doc.kind.name(),
        value: value.to_string(),
        example,
    })
}

/// The book's key table (Markdown, in docs/book/src/configuration.md), generated from [`KEYS`].
pub fn markdown_table() -> String {
    let mut out = String::from("| Key | Type | Default | What it does |\n|---|---|---|---|\n");
    for d in KEYS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            d.pattern,
            d.kind.name(),
            d.default,
            d.doc
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::{CohostError, ErrorCode};

    #[test]
    fn known_keys_match_their_patterns() {
        assert!(lookup("slots.summary.provider").is_some());
        assert!(lookup("providers.my-proxy.key_env").is_some());
        assert!(lookup("providers.claude.env.FOO").is_some());
        assert!(lookup("active_provider").is_some());
        assert!(lookup("slots.summary.provdier").is_none());
        assert!(lookup("nosuch.key").is_none());
        assert!(lookup("slots.summary").is_none());
    }

    #[test]
    fn typos_get_the_key_they_meant() {
        assert_eq!(
            did_you_mean("slots.summary.provdier").as_deref(),
            Some("slots.summary.provider")
        );
        assert_eq!(
            did_you_mean("providers.codex.modle").as_deref(),
            Some("providers.codex.model")
        );
        assert_eq!(
            did_you_mean("active_provder").as_deref(),
            Some("active_provider")
        );
        assert_eq!(did_you_mean("nosuch.key"), None);
        let e = CohostError::from(unknown_key("nosuch.key"));
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert!(e.suggested_fix.unwrap().contains("cohost config keys"));
    }

    #[test]
    fn values_must_have_the_key_kind() {
        let v = |s: &str| s.parse::<Value>().unwrap();
        assert!(check("providers.claude.enabled", &v("false")).is_ok());
        let e = CohostError::from(check("providers.claude.enabled", &v("\"no\"")).unwrap_err());
        assert!(e.message.contains("bool"), "{}", e.message);
        assert!(check("providers.x.models", &v("[\"a\", \"b\"]")).is_ok());
        assert!(check("providers.x.models", &v("[1]")).is_err());
        assert!(check("providers.x.env", &v("{ A = \"b\" }")).is_ok());
        assert!(check("slots.summary.model", &v("\"haiku\"")).is_ok());
    }

    /// The book's table is this list: regenerate it with
    /// `INSTA_UPDATE=always cargo test -p cohost-discovery book_key_table`
    /// (a real document, not a snapshot: plain text, under insta's switch).
    #[test]
    fn book_key_table_is_the_code_list() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/book/src/configuration.md");
        cohost_testbench::snapshot::check_section(
            &path,
            "<!-- config-keys:start -->\n",
            "<!-- config-keys:end -->",
            &markdown_table(),
        );
    }
}
