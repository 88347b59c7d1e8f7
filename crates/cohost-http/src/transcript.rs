//! The conversation an HTTP provider keeps, and its atomic persistence.
//!
//! APIs are stateless: every request carries the whole conversation. cohost
//! keeps it in a vendor-neutral form (each wire renders it its own way) and
//! writes it after every turn to
//! `$XDG_STATE_HOME/cohost/transcripts/<native-id>.json` (fallback
//! `$HOME/.local/state/...`) with temp file + fsync + rename, so a crash
//! never leaves a half-written file and `resume = <native-id>` continues the
//! conversation in a new process.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use cohost_core::{CohostError, ErrorCode};
use serde::{Deserialize, Serialize};

/// A tool call the model made (never executed by an API provider).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    /// The vendor's call id (generated for vendors without one).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments.
    pub input: serde_json::Value,
}

/// One entry of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Item {
    /// What the user typed.
    User {
        /// Text.
        text: String,
        /// Attached images (each encoder sends its vendor's image part).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<cohost_core::PromptImage>,
    },
    /// What the model answered.
    Assistant {
        /// Answer text (may be empty when the model only called tools).
        #[serde(default)]
        text: String,
        /// Tool calls, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolUse>,
    },
    /// The result of a tool call, fed back to the model.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// The tool's name (Gemini and Ollama match results by name).
        name: String,
        /// Output text.
        output: String,
        /// Whether the tool failed (or did not run).
        #[serde(default)]
        is_error: bool,
    },
}

/// What the result of a call cohost did not run says to the model.
pub const NOT_EXECUTED: &str =
    "cohost: this provider only surfaces tool calls; the call was not executed.";

/// The conversation of one native session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// Format version.
    pub version: u32,
    /// The native session id (file name stem).
    pub id: String,
    /// Provider id that wrote it.
    pub provider: String,
    /// Model last used.
    #[serde(default)]
    pub model: Option<String>,
    /// The conversation, oldest first.
    #[serde(default)]
    pub items: Vec<Item>,
}

impl Transcript {
    /// An empty conversation.
    pub fn new(id: impl Into<String>, provider: impl Into<String>) -> Self {
        Transcript {
            version: 1,
            id: id.into(),
            provider: provider.into(),
            model: None,
            items: Vec::new(),
        }
    }

    /// Add the user's next prompt. Tool calls of the previous answer that
    /// have no result get a "not executed" result first: every vendor
    /// rejects a conversation with an unanswered call.
    pub fn push_user(&mut self, text: &str) {
        self.push_user_with(text, Vec::new());
    }

    /// [`Transcript::push_user`] with images.
    pub fn push_user_with(&mut self, text: &str, images: Vec<cohost_core::PromptImage>) {
        let mut answered: Vec<String> = Vec::new();
        let mut open: Vec<(String, String)> = Vec::new();
        for item in self.items.iter().rev() {
            match item {
                Item::ToolResult { call_id, .. } => answered.push(call_id.clone()),
                Item::Assistant { tool_calls, .. } => {
                    open = tool_calls
                        .iter()
                        .filter(|c| !answered.contains(&c.id))
                        .map(|c| (c.id.clone(), c.name.clone()))
                        .collect();
                    break;
                }
                Item::User { .. } => break,
            }
        }
        for (call_id, name) in open {
            self.items.push(Item::ToolResult {
                call_id,
                name,
                output: NOT_EXECUTED.into(),
                is_error: true,
            });
        }
        self.items.push(Item::User {
            text: text.into(),
            images,
        });
    }
}

/// Where transcripts live, from the adapter's env first, then the process env.
pub fn transcripts_dir(env: &BTreeMap<String, String>) -> Result<PathBuf, CohostError> {
    let var = |k: &str| {
        env.get(k)
            .cloned()
            .or_else(|| std::env::var(k).ok())
            .filter(|v| !v.is_empty())
    };
    let base = match (var("XDG_STATE_HOME"), var("HOME")) {
        (Some(state), _) => PathBuf::from(state),
        (None, Some(home)) => Path::new(&home).join(".local").join("state"),
        (None, None) => return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            "cannot tell where to keep the conversation: neither XDG_STATE_HOME nor HOME is set",
        )
        .with_fix("set HOME (or XDG_STATE_HOME) for cohost")),
    };
    Ok(base.join("cohost").join("transcripts"))
}

/// Native ids become file names: only a safe alphabet is accepted.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !id.starts_with('.')
}

fn path_of(dir: &Path, id: &str) -> Result<PathBuf, CohostError> {
    if !valid_id(id) {
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("`{id}` is not a valid session id for an HTTP provider"),
        )
        .with_fix("pass a session id printed by an earlier run (letters, digits, `-`, `_`, `.`)"));
    }
    Ok(dir.join(format!("{id}.json")))
}

/// Load a saved conversation.
pub fn load(dir: &Path, id: &str) -> Result<Transcript, CohostError> {
    let path = path_of(dir, id)?;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        let (code, fix) = if e.kind() == std::io::ErrorKind::NotFound {
            (
                ErrorCode::ConfigInvalid,
                "check the session id; HTTP providers keep conversations under $XDG_STATE_HOME/cohost/transcripts",
            )
        } else {
            (ErrorCode::ConfigInvalid, "check the file's permissions")
        };
        CohostError::new(
            code,
            format!("cannot resume session `{id}`: {}: {e}", path.display()),
        )
        .with_fix(fix)
    })?;
    serde_json::from_str(&text).map_err(|e| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("the transcript {} is not valid: {e}", path.display()),
        )
        .with_fix("start a new session; the file was edited or written by an incompatible cohost")
    })
}

/// Save atomically: write a temp file in the same directory, fsync it,
/// rename it over the target, fsync the directory.
pub fn save(dir: &Path, transcript: &Transcript) -> Result<(), CohostError> {
    let io_err = |what: &str, e: std::io::Error| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!(
                "cannot save the conversation ({what} in {}): {e}",
                dir.display()
            ),
        )
        .with_fix("make the state directory writable, or set XDG_STATE_HOME elsewhere")
    };
    let path = path_of(dir, &transcript.id)?;
    std::fs::create_dir_all(dir).map_err(|e| io_err("create directory", e))?;
    let json = serde_json::to_vec_pretty(transcript).map_err(|e| {
        CohostError::new(
            ErrorCode::InvalidOutput,
            format!("cannot encode the conversation: {e}"),
        )
    })?;
    let tmp = dir.join(format!(".{}.{}.tmp", transcript.id, std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        // Conversations can hold anything the user pasted: owner-only.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let mut f = opts.open(&tmp)?;
        f.write_all(&json)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        // The rename is durable only once the directory entry is.
        std::fs::File::open(dir)?.sync_all()
    };
    write().map_err(|e| {
        // A leftover temp file is harmless but untidy; nothing to report if
        // it is already gone.
        let _ignored = std::fs::remove_file(&tmp);
        io_err("write", e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_atomic_replace() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Transcript::new("anthropic-1", "anthropic");
        t.push_user("hi");
        t.items.push(Item::Assistant {
            text: "hello".into(),
            tool_calls: vec![ToolUse {
                id: "c1".into(),
                name: "bash".into(),
                input: serde_json::json!({"command": "ls"}),
            }],
        });
        save(dir.path(), &t).unwrap();
        t.push_user("next");
        save(dir.path(), &t).unwrap();
        let back = load(dir.path(), "anthropic-1").unwrap();
        assert_eq!(back, t);
        // The unanswered call got a result before the next user turn.
        assert!(
            matches!(&back.items[2], Item::ToolResult { call_id, is_error: true, .. } if call_id == "c1")
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("anthropic-1.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "owner-only");
        }
        assert_eq!(
            names,
            vec!["anthropic-1.json".to_string()],
            "no temp file left"
        );
    }

    #[test]
    fn bad_ids_and_missing_files_are_config_errors() {
        let dir = tempfile::tempdir().unwrap();
        for id in ["../x", "", ".hidden", "a/b"] {
            assert_eq!(
                load(dir.path(), id).unwrap_err().code,
                ErrorCode::ConfigInvalid
            );
        }
        assert_eq!(
            load(dir.path(), "nope").unwrap_err().code,
            ErrorCode::ConfigInvalid
        );
    }

    #[test]
    fn dir_prefers_adapter_env() {
        let mut env = BTreeMap::new();
        env.insert("XDG_STATE_HOME".to_string(), "/s".to_string());
        assert_eq!(
            transcripts_dir(&env).unwrap(),
            PathBuf::from("/s/cohost/transcripts")
        );
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), "/h".to_string());
        env.insert("XDG_STATE_HOME".to_string(), String::new());
        // An empty XDG_STATE_HOME counts as unset (per the XDG spec).
        if std::env::var("XDG_STATE_HOME")
            .map(|v| v.is_empty())
            .unwrap_or(true)
        {
            assert_eq!(
                transcripts_dir(&env).unwrap(),
                PathBuf::from("/h/.local/state/cohost/transcripts")
            );
        }
    }
}
