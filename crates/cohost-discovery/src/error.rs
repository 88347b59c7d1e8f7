//! What can go wrong reading how this machine is set up: files, the config
//! and its keys, slots, prices, hooks, logins. One enum for the crate (its
//! modules all read the same config and files), each variant with its data
//! and, where a library failed, that error as its `source()`. The wire
//! error is made from it where it leaves cohost: `From<DiscoveryError> for
//! CohostError` gives each variant its code, message and fix. Its text
//! (`Display`) is the wire message, the library's reason included, so a
//! front end that shows `{e}` says what users saw before these were typed.

use std::path::{Path, PathBuf};

use cohost_core::{CohostError, ErrorCode};

use crate::hooks::edit::EditError;

/// An error of discovery, the config or the files cohost keeps.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// A file or directory could not be read, written or locked.
    #[error(transparent)]
    Io(#[from] cohost_core::IoFailure),
    /// `config.toml` is not valid TOML.
    #[error("{}: not valid TOML: {}", at(path, *line), source.message())]
    ConfigSyntax {
        /// The config file.
        path: PathBuf,
        /// The 1-based line of the mistake, when the parser says.
        line: Option<usize>,
        /// The parser's error (boxed: it is large, and rare).
        #[source]
        source: Box<toml_edit::TomlError>,
    },
    /// A value in the config file is not what its key needs.
    #[error("{}: {what}", at(path, *line))]
    Config {
        /// The config file.
        path: PathBuf,
        /// The line of the value, when known.
        line: Option<usize>,
        /// What is wrong with it.
        what: String,
        /// How to put it right.
        fix: String,
    },
    /// `sandbox` in the config file names no mode.
    #[error("{}: sandbox: {}", path.display(), source.message)]
    Sandbox {
        /// The config file.
        path: PathBuf,
        /// The mode parser's refusal.
        #[source]
        source: CohostError,
    },
    /// A key cohost does not know.
    #[error("`{key}` is not a cohost config key")]
    UnknownKey {
        /// The key as given.
        key: String,
        /// The closest documented key, when one is close enough.
        did_you_mean: Option<String>,
    },
    /// A known key given a value of the wrong kind.
    #[error("`{key}` holds a {kind}, not `{value}`")]
    WrongKind {
        /// The key.
        key: String,
        /// What it holds ("number").
        kind: &'static str,
        /// The value given.
        value: String,
        /// A value of the right kind, as typed on the command line.
        example: &'static str,
    },
    /// A provider id neither registered, catalogued nor configured.
    #[error("unknown provider `{id}`")]
    UnknownProvider {
        /// The id asked for.
        id: String,
        /// Every id cohost knows.
        known: Vec<String>,
    },
    /// An agent's `--version` printed no version.
    #[error("`{} {args}` printed no version: {printed}", path.display())]
    NoVersion {
        /// The binary.
        path: PathBuf,
        /// The version arguments.
        args: String,
        /// Its first line of output ("(nothing)" when none).
        printed: String,
        /// How to install it.
        install_hint: &'static str,
    },
    /// A provider with no login command of its own.
    #[error("`{id}` has no login command; {instead}")]
    NoLogin {
        /// The provider.
        id: String,
        /// What to do instead ("set $OPENAI_API_KEY").
        instead: String,
    },
    /// A CLI that signs in only through its environment.
    #[error("`{id}` has no login command")]
    LoginByEnv {
        /// The provider.
        id: String,
        /// The variables it reads its credentials from.
        vars: Vec<&'static str>,
    },
    /// The program a login runs is not installed.
    #[error("`{program}` is not installed")]
    NotInstalled {
        /// The program.
        program: String,
        /// How to install it.
        install_hint: &'static str,
    },
    /// A slot name with characters cohost does not allow.
    #[error("`{name}` is not a valid slot name")]
    BadSlotName {
        /// The name given.
        name: String,
    },
    /// A slot neither built in nor configured.
    #[error("there is no slot `{name}`")]
    NoSuchSlot {
        /// The name given.
        name: String,
        /// The slots there are.
        slots: Vec<String>,
        /// The closest of them, when close enough to be a typo.
        near: Option<String>,
    },
    /// A configured slot that does not hold (its provider, mode or model).
    #[error("{}: slot `{name}`: {}", at(path, *line), source.message())]
    Slot {
        /// The config file.
        path: PathBuf,
        /// The line of the slot's provider, when known.
        line: Option<usize>,
        /// The slot.
        name: String,
        /// What does not hold.
        #[source]
        source: Box<DiscoveryError>,
    },
    /// The `terminal` slot set to `api` mode.
    #[error("the `terminal` slot runs a CLI in a terminal; it has no `api` mode")]
    TerminalNeedsCli,
    /// A provider without the slot's mode.
    #[error("provider `{provider}` has no `{mode}` mode")]
    NoSuchMode {
        /// The provider.
        provider: String,
        /// The mode asked for.
        mode: &'static str,
        /// The mode it has.
        other: &'static str,
    },
    /// A model the provider does not list.
    #[error("provider `{provider}` does not list model `{model}`")]
    ModelNotListed {
        /// The provider.
        provider: String,
        /// The model asked for.
        model: String,
        /// The models it lists.
        listed: Vec<String>,
    },
    /// The `assistant` slot given a provider that does not stream tokens.
    #[error(
        "the `assistant` slot needs token streaming; `{provider}` in `{mode}` mode does not stream"
    )]
    AssistantNeedsStreaming {
        /// The provider.
        provider: String,
        /// Its mode.
        mode: &'static str,
    },
    /// A stored price table that is not one.
    #[error("the price table {what} is not readable: {source}")]
    PriceTable {
        /// Which table (its path, or "pinned").
        what: String,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// A file given to `prices refresh` that is not LiteLLM's table.
    #[error("not LiteLLM's model_prices_and_context_window.json: {source}")]
    NotLiteLlm {
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// LiteLLM's table without a single usable chat price.
    #[error("the file has no chat model with input and output prices")]
    NoChatPrices,
    /// An agent no hooks are written for.
    #[error("cohost has no hooks for `{id}`")]
    NoHooks {
        /// The id given.
        id: String,
        /// The agents with hooks.
        supported: Vec<&'static str>,
    },
    /// An agent's settings file cohost cannot edit safely.
    #[error("`{}`: {source}; cohost left it unchanged", path.display())]
    HookSettings {
        /// The settings file.
        path: PathBuf,
        /// What is wrong with it.
        source: EditError,
    },
    /// An error of the domain or an adapter, passed on as it is.
    #[error(transparent)]
    Core(#[from] CohostError),
}

/// `path:line`, or the path alone.
fn at(path: &Path, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{}:{l}", path.display()),
        None => path.display().to_string(),
    }
}

impl DiscoveryError {
    /// An I/O failure: what cohost tried, on which path, and why.
    pub fn io(what: &'static str, path: &Path, source: std::io::Error) -> DiscoveryError {
        DiscoveryError::Io(cohost_core::IoFailure::new(what, path, source))
    }

    /// The wire code this error is reported under.
    pub fn code(&self) -> ErrorCode {
        use DiscoveryError::*;
        match self {
            Io(_)
            | ConfigSyntax { .. }
            | Config { .. }
            | Sandbox { .. }
            | UnknownKey { .. }
            | WrongKind { .. }
            | BadSlotName { .. }
            | NoSuchSlot { .. }
            | PriceTable { .. }
            | NotLiteLlm { .. }
            | NoChatPrices
            | HookSettings { .. } => ErrorCode::ConfigInvalid,
            UnknownProvider { .. } | NotInstalled { .. } => ErrorCode::ProviderNotFound,
            NoVersion { .. } => ErrorCode::VersionUnsupported,
            NoLogin { .. }
            | LoginByEnv { .. }
            | TerminalNeedsCli
            | NoSuchMode { .. }
            | AssistantNeedsStreaming { .. }
            | NoHooks { .. } => ErrorCode::UnsupportedMode,
            ModelNotListed { .. } => ErrorCode::ModelNotAvailable,
            // A slot naming an unknown provider is a mistake in the file.
            Slot { source, .. } => match source.code() {
                ErrorCode::ProviderNotFound => ErrorCode::ConfigInvalid,
                code => code,
            },
            Core(e) => e.code,
        }
    }

    /// The message users see: this error's own words, with the reason a
    /// library gave, where one did.
    pub fn message(&self) -> String {
        match self {
            DiscoveryError::Core(e) => e.message.clone(),
            _ => self.to_string(),
        }
    }

    /// What the user can do about it.
    pub fn fix(&self) -> Option<String> {
        use DiscoveryError::*;
        Some(match self {
            Io(_) => "check the file's permissions and that the disk is not full".into(),
            ConfigSyntax { path, .. } => format!("fix or delete that line in {}", path.display()),
            Config { fix, .. } => fix.clone(),
            Sandbox { .. } => "set it to off, on or required: cohost config set sandbox on".into(),
            UnknownKey { did_you_mean, .. } => match did_you_mean {
                Some(k) => format!("did you mean `{k}`? (every key: `cohost config keys`)"),
                None => "see `cohost config keys` for every key".into(),
            },
            WrongKind { key, example, .. } => format!("e.g. cohost config set {key} {example}"),
            UnknownProvider { known, .. } => format!("known providers: {}", known.join(", ")),
            NoVersion { install_hint, .. } => format!("reinstall it: {install_hint}"),
            NoLogin { instead, .. } => instead.clone(),
            LoginByEnv { vars, .. } => format!("set ${}", vars.join(" or $")),
            NotInstalled { install_hint, .. } => (*install_hint).into(),
            BadSlotName { .. } => "use lower-case letters, digits, '-' and '_'".into(),
            NoSuchSlot {
                name, slots, near, ..
            } => match near {
                Some(n) => format!("did you mean `--slot {n}`? Slots: {}", slots.join(", ")),
                None => format!(
                    "use one of: {} (or define it: cohost config set slots.{name}.provider ID)",
                    slots.join(", ")
                ),
            },
            TerminalNeedsCli => "cohost config set slots.terminal.mode cli".into(),
            NoSuchMode { other, .. } => format!("use mode `{other}` or another provider"),
            ModelNotListed { listed, .. } => format!("pick one of: {}", listed.join(", ")),
            AssistantNeedsStreaming { .. } => {
                "pick a provider that streams token deltas (see `cohost agents`)".into()
            }
            PriceTable { .. } => {
                "run `cohost prices refresh` again, or delete the file to use the pinned table"
                    .into()
            }
            NotLiteLlm { .. } => {
                "pass the JSON file from LiteLLM (its repository, or the PyPI litellm package)"
                    .into()
            }
            NoChatPrices => "pass LiteLLM's model_prices_and_context_window.json".into(),
            NoHooks { supported, .. } => format!("hooks exist for {}", supported.join(", ")),
            HookSettings { path, .. } => format!(
                "fix `{}` by hand (or move it aside), then rerun",
                path.display()
            ),
            Slot { source, .. } => return source.fix(),
            Core(e) => return e.suggested_fix.clone(),
        })
    }
}

impl From<DiscoveryError> for CohostError {
    fn from(e: DiscoveryError) -> CohostError {
        if let DiscoveryError::Core(e) = e {
            return e;
        }
        CohostError::new(e.code(), e.message()).with_optional_fix(e.fix())
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
