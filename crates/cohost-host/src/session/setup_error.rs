//! Why a session could not be set up, and how each reason reads on the wire
//! (`From<SetupError> for CohostError`). The text of each is its wire
//! message; the fix says what to change. A usage error
//! ([`SetupError::is_usage`]) is one the command line itself got wrong (the
//! CLI exits 2 for it).

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};
use cohost_discovery::DiscoveryError;
use cohost_git::GitError;

use super::cwd::CwdError;
use crate::store::StoreError;
use crate::tools::ToolsError;

/// Why a session could not be prepared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// `--resume ID --agent A` where the stored session ran another agent.
    #[error("session {id} belongs to `{owner}`, not `{asked}`")]
    AnotherAgentsSession {
        /// The session asked for.
        id: String,
        /// The agent it ran.
        owner: String,
        /// The agent named.
        asked: String,
    },
    /// `--continue` with no earlier session in the directory.
    #[error(
        "no {}session has run in {} yet, so there is none to continue",
        agent.as_ref().map(|a| format!("`{a}` ")).unwrap_or_default(),
        dir.display()
    )]
    NothingToContinue {
        /// The agent named, if any.
        agent: Option<String>,
        /// The directory.
        dir: PathBuf,
    },
    /// An id that is neither a stored session nor a native id an agent was
    /// named to take.
    #[error("there is no cohost session `{id}`")]
    UnknownSession {
        /// The id given.
        id: String,
        /// The stored id nearest to it (a typo), if any.
        near: Option<String>,
        /// Whether it has cohost's shape (`s-…`).
        ours: bool,
    },
    /// Tools offered to an agent CLI, which runs its own.
    #[error("`{0}` runs its own tools; offered tools are for API providers")]
    ToolsForAgentCli(String),
    /// The offered tools are unreadable or invalid.
    #[error(transparent)]
    Tools(#[from] ToolsError),
    /// Arguments after `--` for a provider with no command line.
    #[error("`{0}` is not an agent CLI: there is no command line to pass arguments to")]
    NotAnAgentCli(String),
    /// Arguments after `--` that switch the agent's own permission checks
    /// off while cohost's policy still asks.
    #[error("`{flag}` would let `{agent}` run tools without asking, behind cohost's approvals")]
    PermissionBypass {
        /// The flag as the user would write it.
        flag: String,
        /// The agent.
        agent: String,
    },
    /// `--fork` with an agent that cannot fork.
    #[error("`{0}` cannot fork a session")]
    CannotFork(String),
    /// `--fork` of a session whose agent has not run a turn.
    #[error("that session has no agent session yet, so there is nothing to fork")]
    NothingToFork,
    /// `--system-prompt` with a provider that takes none.
    #[error("`{0}` takes no system prompt from cohost")]
    NoSystemPrompt(String),
    /// A variable the agent's `pass_env` names exactly is not set.
    #[error("agent `{agent}` needs `{var}` (pass_env), which is not set")]
    PassEnvUnset {
        /// The agent.
        agent: String,
        /// The variable.
        var: String,
        /// The config file whose `[providers.AGENT]` names it.
        config: PathBuf,
    },
    /// A worktree for a session that is not recorded.
    #[error("a worktree needs a recorded session (its id names the branch)")]
    WorktreeUnrecorded,
    /// The worktree could not be made.
    #[error(transparent)]
    Worktree(#[from] GitError),
    /// The working directory.
    #[error(transparent)]
    Cwd(#[from] CwdError),
    /// The session store could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The configuration, a slot or a provider's facts.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// One member of a room.
    #[error("{member}: {error}")]
    Member {
        /// The member's name.
        member: String,
        /// Why it could not be set up.
        #[source]
        error: Box<SetupError>,
    },
    /// Refused by a part that speaks the wire error already: the provider
    /// registry, the sandbox, the room's names.
    #[error(transparent)]
    Other(CohostError),
}

impl SetupError {
    /// Whether the command line asked for something impossible (offered
    /// tools, arguments for the agent): a usage error, exit code 2.
    pub fn is_usage(&self) -> bool {
        match self {
            SetupError::ToolsForAgentCli(_)
            | SetupError::Tools(_)
            | SetupError::NotAnAgentCli(_)
            | SetupError::PermissionBypass { .. } => true,
            SetupError::Member { error, .. } => error.is_usage(),
            _ => false,
        }
    }

    /// The same error, said of room member `member`.
    pub fn of_member(self, member: &str) -> SetupError {
        SetupError::Member {
            member: member.to_owned(),
            error: Box::new(self),
        }
    }
}

impl From<CohostError> for SetupError {
    fn from(e: CohostError) -> Self {
        SetupError::Other(e)
    }
}

impl From<SetupError> for CohostError {
    fn from(e: SetupError) -> Self {
        let message = e.to_string();
        let invalid =
            |fix: String| CohostError::new(ErrorCode::ConfigInvalid, message.clone()).with_fix(fix);
        match e {
            SetupError::AnotherAgentsSession { owner, .. } => {
                invalid(format!("drop --agent, or pass --agent {owner}"))
            }
            SetupError::NothingToContinue { .. } => invalid(
                "start one without --continue (cohost run \"...\"), or see `cohost sessions`"
                    .into(),
            ),
            SetupError::UnknownSession { near, ours, .. } => invalid(match near {
                Some(k) => format!("did you mean `{k}`? (every session: `cohost sessions`)"),
                None if ours => "see `cohost sessions` for the stored ones".into(),
                None => "to resume an agent's own session id, name the agent: \
                         --resume ID --agent AGENT; stored sessions: `cohost sessions`"
                    .into(),
            }),
            SetupError::ToolsForAgentCli(_) => {
                invalid("offer no tools, or pick an API provider (e.g. --agent anthropic)".into())
            }
            SetupError::NotAnAgentCli(_) => invalid(
                "drop the arguments after `--`, or pick an agent CLI (`cohost agents`)".into(),
            ),
            SetupError::PermissionBypass { .. } => {
                invalid("use --approve all to let the agent run tools without asking".into())
            }
            SetupError::CannotFork(_) => CohostError::new(ErrorCode::UnsupportedMode, message)
                .with_fix(
                    "resume it instead (--resume ID), or fork with an agent that can: \
                     claude, codex, claude-acp (`cohost agents --json`: driver.fork)",
                ),
            SetupError::NothingToFork => {
                invalid("resume it instead (--resume ID), or fork one that has run a turn".into())
            }
            SetupError::NoSystemPrompt(_) => CohostError::new(ErrorCode::UnsupportedMode, message)
                .with_fix(
                    "drop --system-prompt, or use a provider that takes one: claude, codex, \
                     an API provider such as anthropic or openai (`cohost agents --json`: \
                     driver.system_prompt)",
                ),
            SetupError::PassEnvUnset { agent, var, config } => {
                CohostError::new(ErrorCode::AuthRequired, message).with_fix(format!(
                    "export {var}=... before starting cohost, or remove it from pass_env \
                     under [providers.{agent}] in {}",
                    config.display()
                ))
            }
            SetupError::WorktreeUnrecorded => invalid("drop --worktree here".into()),
            SetupError::Tools(e) => e.into(),
            SetupError::Worktree(e) => e.into(),
            SetupError::Cwd(e) => e.into(),
            SetupError::Store(e) => e.into(),
            SetupError::Discovery(e) => e.into(),
            SetupError::Member { member, error } => {
                let mut wire = CohostError::from(*error);
                wire.message = format!("{member}: {}", wire.message);
                wire
            }
            SetupError::Other(e) => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(e: SetupError) -> CohostError {
        CohostError::from(e)
    }

    #[test]
    fn each_refusal_keeps_its_wire_code_message_and_fix() {
        let e = wire(SetupError::AnotherAgentsSession {
            id: "s-1".into(),
            owner: "codex".into(),
            asked: "claude".into(),
        });
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert_eq!(e.message, "session s-1 belongs to `codex`, not `claude`");
        assert_eq!(
            e.suggested_fix.as_deref(),
            Some("drop --agent, or pass --agent codex")
        );
        let e = wire(SetupError::NothingToContinue {
            agent: Some("gemini".into()),
            dir: "/w".into(),
        });
        assert_eq!(
            e.message,
            "no `gemini` session has run in /w yet, so there is none to continue"
        );
        let e = wire(SetupError::UnknownSession {
            id: "s-abd".into(),
            near: Some("s-abc".into()),
            ours: true,
        });
        assert!(e
            .suggested_fix
            .unwrap()
            .starts_with("did you mean `s-abc`?"));
        let e = wire(SetupError::CannotFork("aider".into()));
        assert_eq!(e.code, ErrorCode::UnsupportedMode);
        let e = wire(SetupError::PassEnvUnset {
            agent: "gemini".into(),
            var: "TOKEN_X".into(),
            config: "/c/config.toml".into(),
        });
        assert_eq!(e.code, ErrorCode::AuthRequired);
        assert_eq!(
            e.suggested_fix.as_deref(),
            Some(
                "export TOKEN_X=... before starting cohost, or remove it from pass_env \
                 under [providers.gemini] in /c/config.toml"
            )
        );
    }

    #[test]
    fn a_members_error_names_it_and_stays_a_usage_error_when_it_was_one() {
        let e = SetupError::ToolsForAgentCli("codex".into()).of_member("codex#2");
        assert!(e.is_usage());
        assert!(!SetupError::NothingToFork.of_member("a").is_usage());
        let e = wire(e);
        assert_eq!(
            e.message,
            "codex#2: `codex` runs its own tools; offered tools are for API providers"
        );
        assert!(e.suggested_fix.is_some());
    }
}
