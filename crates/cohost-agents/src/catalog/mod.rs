//! The provider list ([`CLIS`]) and the lookups over it.
//!
//! Each driver owns one static [`CliEntry`] (its provider spec: id, label,
//! binaries, install hint, credentials, tested versions, flag table,
//! environment prefixes, capabilities, factory) next to its code, e.g.
//! `crate::cursor::SPEC`; [`CLIS`] is the one list of them. Discovery,
//! status and login (in `cohost-discovery`), `cohost agents`, the registry
//! ([`crate::builtin`]) and the golden-argv tests all read that list, so a
//! fact about a vendor lives in exactly one place. The spec types live in
//! `cohost_process::provider` (the runners take a spec); the list names
//! every driver, so it lives here, and what runs the drivers gets it as a
//! value ([`catalog`]).

mod data;

pub use cohost_process::provider::{
    config_env, pinned_version, AcpMode, ArgTemplate, AuthSpec, Catalog, CliEntry, EnvLookup,
    Evidence, FlagTable, HookKind, HookSpec, MakeFactory, Preflight, PromptArg, ProviderSpec,
    QueryArgs, ServerEntry, BASE, NO_AUTH, NO_FLAGS, PINS_FILE,
};
pub use data::{CLIS, SERVERS};

use cohost_process::oneshot::Parser;

/// The provider list as a value, for what launches agents (the sandbox
/// needs every CLI's credential files) and maps their errors.
pub fn catalog() -> Catalog {
    Catalog(CLIS)
}

/// Every CLI that takes cohost's hook, in the provider list's order.
pub fn hook_clis() -> impl Iterator<Item = &'static CliEntry> {
    catalog().hook_clis()
}

/// Every CLI with a one-shot parser, in provider-list order.
pub fn parsers() -> impl Iterator<Item = (&'static str, Parser)> {
    catalog().parsers()
}

/// The CLI entry for a provider id.
pub fn cli(id: &str) -> Option<&'static CliEntry> {
    catalog().cli(id)
}

/// The CLI provider `id` runs: its own entry, or for an ACP variant its
/// base CLI's ([`acp_base`]).
pub fn cli_of(id: &str) -> Option<&'static CliEntry> {
    catalog().cli_of(id)
}

/// The fix for provider `id` needing a login ([`CliEntry::login_fix`]),
/// ACP variants without an entry of their own included; `None` for ids the
/// catalog does not know (plugins).
pub fn login_fix(id: &str) -> Option<String> {
    catalog().login_fix(id)
}

/// The base CLI of an ACP variant without an entry of its own
/// (`gemini-acp` → `gemini`), found and signed in through that CLI.
pub fn acp_base(id: &str) -> Option<&'static CliEntry> {
    catalog().acp_base(id)
}

/// Every ACP variant and its base CLI (`("gemini-acp", "gemini")`), in
/// provider-list order: the entries whose [`CliEntry::acp`] mode has an id
/// of its own.
pub fn acp_variants() -> impl Iterator<Item = (&'static str, &'static str)> {
    catalog().acp_variants()
}

/// The flag table of a CLI; all-`None` for an unknown id (the drivers'
/// golden-argv tests catch a driver whose id is missing).
pub fn flags(id: &str) -> FlagTable {
    catalog().flags(id)
}

/// The API-key variables of a built-in HTTP provider, as its spec reads
/// them (empty when it needs none, or `id` is no HTTP provider).
pub fn api_key_env(id: &str) -> Vec<String> {
    api_provider(id).map(|p| p.key_env).unwrap_or_default()
}

/// The spec of the built-in HTTP provider `id` (`openai`, `openrouter`).
pub fn api_provider(id: &str) -> Option<cohost_http::ProviderSpec> {
    cohost_http::providers::builtin()
        .into_iter()
        .find(|p| p.id == id)
}

/// Every built-in HTTP provider's spec.
pub fn api_providers() -> Vec<cohost_http::ProviderSpec> {
    cohost_http::providers::builtin()
}

/// The server entry for a provider id.
pub fn server(id: &str) -> Option<&'static ServerEntry> {
    SERVERS.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) mod driver_argv;
