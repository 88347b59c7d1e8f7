//! The provider spec every CLI driver declares ([`CliEntry`]), the types it
//! is made of, and [`Catalog`], the lookups over a list of them.
//!
//! The list itself (`cohost_agents::catalog::CLIS`) names every driver, so
//! it lives with the drivers; what runs them (the supervisor's sandbox, the
//! one-shot runner, the ACP client) gets it as a [`Catalog`] value instead
//! of importing it, which keeps the arrows pointing down.
//!
//! Facts marked "fixture-only" come from public docs and were never run on a
//! test machine.

pub mod acp;
pub mod config_env;
mod flags;
mod pins;

pub use flags::{ArgTemplate, FlagTable, PromptArg, QueryArgs, NO_FLAGS};
pub use pins::{pinned_version, PINS_FILE};

use cohost_core::{AdapterFactory, Capabilities, CohostError, ProviderDescriptor, ProviderKind};
use std::sync::Arc;

use crate::oneshot::Parser;
use crate::{Version, VersionRange};
use acp::AcpSpec;

/// A provider spec: the same type as a catalog entry.
pub type ProviderSpec = CliEntry;

/// No credential detection at all.
pub const NO_AUTH: AuthSpec = AuthSpec {
    env_vars: &[],
    credential_files: &[],
    status_args: None,
};

/// How a credential is looked for, without spending model quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthSpec {
    /// Any of these set (non-empty) counts as configured credentials.
    pub env_vars: &'static [&'static str],
    /// Credential files relative to `$HOME`; any existing one counts.
    pub credential_files: &'static [&'static str],
    /// A local command (arguments after the binary) that exits 0 when logged
    /// in and non-zero when not, e.g. `claude auth status`. Never a model call.
    pub status_args: Option<&'static [&'static str]>,
}

impl AuthSpec {
    /// Whether there is any way to tell if the user is authenticated.
    pub fn is_checkable(&self) -> bool {
        !self.env_vars.is_empty() || !self.credential_files.is_empty() || self.status_args.is_some()
    }
}

/// How sure we are about a CLI's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Installed by `tests/agents/install.sh` and run on a test machine.
    Tested,
    /// From public docs only (not installable here).
    FixtureOnly,
}

/// One known agent CLI: its provider spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliEntry {
    /// Provider id users type (`claude`, `cursor`...).
    pub id: &'static str,
    /// Human label.
    pub label: &'static str,
    /// Executable names, preferred first.
    pub binaries: &'static [&'static str],
    /// Vendor install directories relative to `$HOME` (`.claude/local`).
    pub vendor_dirs: &'static [&'static str],
    /// Arguments that print the version; empty when the tool has none (ACP
    /// wrappers), in which case discovery does not probe it.
    pub version_args: &'static [&'static str],
    /// Key in `tests/agents/versions.env` holding the pinned version.
    pub pin_key: Option<&'static str>,
    /// Credential detection.
    pub auth: AuthSpec,
    /// Interactive login: arguments after the binary (`["auth", "login"]`).
    /// `None` when the tool logs in from inside its own TUI.
    pub login_args: Option<&'static [&'static str]>,
    /// Another binary that performs the login (ACP wrappers log in through
    /// the CLI they wrap); `None` = this CLI's own binary.
    pub login_binary: Option<&'static str>,
    /// What to tell a user who lacks the tool.
    pub install_hint: &'static str,
    /// Environment prefixes the vendor's users set (`ANTHROPIC_`), and the
    /// switches it documents without a prefix (`DISABLE_TELEMETRY`), which
    /// match the same way.
    pub env_prefixes: &'static [&'static str],
    /// Variables whose names (and, when not secret, values) change behaviour;
    /// they feed the smoke-test fingerprint.
    pub relevant_env: &'static [&'static str],
    /// Command-line flags.
    pub flags: FlagTable,
    /// Whether a headless run streams token deltas (the `assistant` slot
    /// needs it when no driver is registered to say so).
    pub token_streaming: bool,
    /// The HTTP provider id serving this vendor's models in `api` mode.
    pub api_provider: Option<&'static str>,
    /// Models the vendor documents; empty = any model name is accepted.
    pub models: &'static [&'static str],
    /// How sure we are.
    pub evidence: Evidence,
    /// What the driver's descriptor says about how cohost drives it,
    /// appended to the label in parentheses (`stream-json; fixture-only`).
    pub mode: &'static str,
    /// What the driver can do with the tested versions.
    pub capabilities: Capabilities,
    /// The versions the driver runs; it refuses others at start-up. `None`:
    /// no version probe (fixture-only tools, ACP wrappers). Always contains
    /// [`CliEntry::tested_range`] (checked by a test).
    pub accepted: Option<VersionRange>,
    /// Makes the driver's factory; `None` when the CLI is driven only over
    /// ACP ([`CliEntry::acp`] with the entry's own id).
    pub factory: Option<MakeFactory>,
    /// A check of the user's setup the CLI itself would only fail on after
    /// it started; run before every spawn and by `agents`/`doctor`.
    pub preflight: Option<Preflight>,
    /// The CLI's ACP mode, driven by the generic ACP client: a provider of
    /// its own (`gemini-acp`) that is found, checked and signed in through
    /// this entry, or this entry itself (same id) for a CLI cohost drives
    /// only over ACP (`claude-acp`, `cline`).
    pub acp: Option<AcpMode>,
    /// The one-shot driver's line parser, for the fuzz target and golden
    /// tests that cover every one-shot CLI without naming it; `None` for
    /// the other driver families.
    pub parser: Option<Parser>,
    /// How cohost's hook goes into the CLI's own settings (`cohost hooks
    /// install`), when the CLI has hooks cohost uses.
    pub hooks: Option<HookSpec>,
}

/// Where and how a CLI takes cohost's hook ([`CliEntry::hooks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    /// The shape of the settings file and of the hook in it.
    pub kind: HookKind,
    /// A variable naming the CLI's config directory, when it has one
    /// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`).
    pub dir_env: Option<&'static str>,
    /// The config directory under the home directory otherwise.
    pub home_dir: &'static str,
    /// The settings file in that directory.
    pub file: &'static str,
}

/// How a CLI's settings take a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    /// A JSON settings file whose `hooks` map runs a command on these
    /// events (Claude Code, Gemini CLI).
    JsonEvents(&'static [&'static str]),
    /// A TOML config whose `notify` program is run after each turn (Codex).
    TomlNotify,
}

/// A CLI's ACP mode ([`CliEntry::acp`]): its provider id and its launch spec.
#[derive(Clone, Copy)]
pub struct AcpMode {
    /// The provider id (`gemini-acp`); the entry's own id when the CLI has
    /// no other mode.
    pub id: &'static str,
    /// Builds the launch spec (owned data, as plugin manifests build theirs).
    pub spec: fn() -> AcpSpec,
}

impl std::fmt::Debug for AcpMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcpMode").field("id", &self.id).finish()
    }
}

impl PartialEq for AcpMode {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && std::ptr::fn_addr_eq(self.spec, other.spec)
    }
}

impl Eq for AcpMode {}

/// A variable of the environment the CLI would run with.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A pre-spawn check of the user's setup: the environment the CLI would see
/// and its working directory. `Err` says what the CLI would fail on and how
/// to fix it.
#[derive(Clone, Copy)]
pub struct Preflight(pub fn(EnvLookup<'_>, &std::path::Path) -> Result<(), CohostError>);

impl std::fmt::Debug for Preflight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Preflight")
    }
}

impl PartialEq for Preflight {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for Preflight {}

/// A function making a driver's factory, for the registry.
#[derive(Clone, Copy)]
pub struct MakeFactory(pub fn() -> Arc<dyn AdapterFactory>);

impl MakeFactory {
    /// The maker of a factory that is its type's default value (a unit
    /// struct such as `CursorFactory`).
    pub const fn of<F: AdapterFactory + Default + 'static>() -> Self {
        MakeFactory(make_default::<F>)
    }
}

fn make_default<F: AdapterFactory + Default + 'static>() -> Arc<dyn AdapterFactory> {
    Arc::new(F::default())
}

impl std::fmt::Debug for MakeFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MakeFactory")
    }
}

impl PartialEq for MakeFactory {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for MakeFactory {}

/// The defaults every spec starts from (`..catalog::BASE`).
pub const BASE: CliEntry = CliEntry {
    id: "",
    label: "",
    binaries: &[],
    vendor_dirs: &[],
    version_args: &["--version"],
    pin_key: None,
    auth: NO_AUTH,
    login_args: None,
    login_binary: None,
    install_hint: "",
    env_prefixes: &[],
    relevant_env: &[],
    flags: NO_FLAGS,
    token_streaming: false,
    api_provider: None,
    models: &[],
    evidence: Evidence::Tested,
    mode: "",
    capabilities: Capabilities::BASELINE,
    accepted: None,
    factory: None,
    preflight: None,
    acp: None,
    parser: None,
    hooks: None,
};

impl CliEntry {
    /// The tested version range: from the pinned version up to (not
    /// including) the next minor for 0.x tools, the next major otherwise.
    /// `None` when nothing is pinned (fixture-only tools).
    pub fn tested_range(&self) -> Option<VersionRange> {
        let pinned = pinned_version(self.pin_key?)?;
        let max_exclusive = if pinned.major == 0 {
            Version::new(0, pinned.minor + 1, 0)
        } else {
            Version::new(pinned.major + 1, 0, 0)
        };
        Some(VersionRange {
            min: pinned,
            max_exclusive,
        })
    }

    /// The command looked up on `PATH` (the preferred binary).
    pub fn command(&self) -> &'static str {
        self.binaries.first().copied().unwrap_or(self.id)
    }

    /// The fix for a missing or unsupported binary: the install command and
    /// the pinned version cohost was tested with.
    pub fn install_fix(&self) -> String {
        match self.pin_key.and_then(pinned_version) {
            Some(v) => format!("{} (tested with {v})", self.install_hint),
            None => self.install_hint.to_string(),
        }
    }

    /// The driver's descriptor: label (with [`CliEntry::mode`]),
    /// capabilities and install hint from this spec.
    pub fn descriptor(&self) -> ProviderDescriptor {
        let label = if self.mode.is_empty() {
            self.label.to_string()
        } else {
            format!("{} ({})", self.label, self.mode)
        };
        ProviderDescriptor {
            id: self.id.to_string(),
            label,
            kind: ProviderKind::AgentCli,
            capabilities: self.capabilities.clone(),
            install_hint: Some(self.install_hint.to_string()),
        }
    }

    /// The fix for a run that needs a login: `cohost login ID` and the
    /// command it runs, or the key variable, whichever the tool has.
    pub fn login_fix(&self) -> String {
        self.login_fix_as(self.id)
    }

    /// [`CliEntry::login_fix`] for `id`, a provider signed in through this
    /// CLI (`gemini-acp` through `gemini`).
    pub fn login_fix_as(&self, id: &str) -> String {
        let key = self.auth.env_vars.first().copied();
        match (self.login_command(), key) {
            (Some(cmd), Some(key)) => format!(
                "run `cohost login {id}` (runs `{}`), or set ${key}",
                cmd.join(" ")
            ),
            (Some(cmd), None) => format!("run `cohost login {id}` (runs `{}`)", cmd.join(" ")),
            (None, Some(_)) => format!("set ${}", self.auth.env_vars.join(" or $")),
            (None, None) => format!("sign in with `{id}` itself, then retry"),
        }
    }

    /// The login command line (binary name first), when the tool has one.
    pub fn login_command(&self) -> Option<Vec<String>> {
        let args = self.login_args?;
        let bin = self
            .login_binary
            .or_else(|| self.binaries.first().copied())?;
        Some(
            std::iter::once(bin)
                .chain(args.iter().copied())
                .map(String::from)
                .collect(),
        )
    }
}

/// How a local model server is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerEntry {
    /// Provider id (`ollama`, `lmstudio`).
    pub id: &'static str,
    /// Human label.
    pub label: &'static str,
    /// Variable that overrides the endpoint (`OLLAMA_HOST`), if any.
    pub host_env: Option<&'static str>,
    /// Default base URL.
    pub default_base: &'static str,
    /// Path that lists models and answers quickly (`/api/tags`).
    pub probe_path: &'static str,
    /// What to tell a user who lacks the server.
    pub install_hint: &'static str,
}

/// A list of CLI specs and the lookups over it, passed as a value to what
/// needs the whole list: the sandbox (whose credential files are whose) and
/// the error fixes (how to sign in to an ACP variant's base CLI).
#[derive(Clone, Copy)]
pub struct Catalog(pub &'static [CliEntry]);

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|e| e.id)).finish()
    }
}

impl PartialEq for Catalog {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Catalog {}

impl Catalog {
    /// No CLI at all: for tests and tools that run no known agent.
    pub const EMPTY: Catalog = Catalog(&[]);

    /// Every entry, in list order.
    pub fn entries(self) -> &'static [CliEntry] {
        self.0
    }

    /// Every CLI that takes cohost's hook, in list order.
    pub fn hook_clis(self) -> impl Iterator<Item = &'static CliEntry> {
        self.0.iter().filter(|e| e.hooks.is_some())
    }

    /// Every CLI with a one-shot parser, in list order.
    pub fn parsers(self) -> impl Iterator<Item = (&'static str, Parser)> {
        self.0.iter().filter_map(|e| e.parser.map(|p| (e.id, p)))
    }

    /// The CLI entry for a provider id.
    pub fn cli(self, id: &str) -> Option<&'static CliEntry> {
        self.0.iter().find(|e| e.id == id)
    }

    /// The CLI provider `id` runs: its own entry, or for an ACP variant its
    /// base CLI's ([`Catalog::acp_base`]).
    pub fn cli_of(self, id: &str) -> Option<&'static CliEntry> {
        self.cli(id).or_else(|| self.acp_base(id))
    }

    /// The fix for provider `id` needing a login ([`CliEntry::login_fix`]),
    /// ACP variants without an entry of their own included; `None` for ids
    /// the list does not know (plugins).
    pub fn login_fix(self, id: &str) -> Option<String> {
        self.cli(id)
            .map(CliEntry::login_fix)
            .or_else(|| self.acp_base(id).map(|base| base.login_fix_as(id)))
    }

    /// The base CLI of an ACP variant without an entry of its own
    /// (`gemini-acp` → `gemini`), found and signed in through that CLI.
    pub fn acp_base(self, id: &str) -> Option<&'static CliEntry> {
        self.acp_variants()
            .find(|(variant, _)| *variant == id)
            .and_then(|(_, base)| self.cli(base))
    }

    /// Every ACP variant and its base CLI (`("gemini-acp", "gemini")`), in
    /// list order: the entries whose [`CliEntry::acp`] mode has an id of its
    /// own.
    pub fn acp_variants(self) -> impl Iterator<Item = (&'static str, &'static str)> {
        self.0.iter().filter_map(|e| {
            e.acp
                .filter(|mode| mode.id != e.id)
                .map(|mode| (mode.id, e.id))
        })
    }

    /// The flag table of a CLI; all-`None` for an unknown id.
    pub fn flags(self, id: &str) -> FlagTable {
        self.cli(id).map_or(NO_FLAGS, |e| e.flags)
    }

    /// Every credential file of the list, relative to `$HOME`, with the
    /// provider it belongs to.
    pub fn credential_files(self) -> impl Iterator<Item = (&'static str, &'static str)> {
        self.0
            .iter()
            .flat_map(|e| e.auth.credential_files.iter().map(move |f| (e.id, *f)))
    }
}
