//! The factory every [`CliDriver`] gets: `cohost_agents`' `oneshot_factory!`
//! declares the driver's public unit-struct factory (its name and doc stay
//! the driver's public API) and forwards to the generic functions here.

use cohost_core::{AdapterConfig, AgentAdapter, ProviderDescriptor};

use super::adapter::{CliDriver, OneShotAdapter};
use super::turn::{Parser, TurnNormalizer};
use crate::find_on_path;
use crate::provider::Catalog;

/// The descriptor a driver's factory reports.
pub fn descriptor<D: CliDriver + Default>() -> ProviderDescriptor {
    D::default().descriptor()
}

/// A fresh adapter over a fresh driver (drivers may keep per-session state,
/// such as aider's "a turn has run" flag), launching with `catalog`.
pub fn create<D: CliDriver + Default>(catalog: Catalog) -> Box<dyn AgentAdapter> {
    Box::new(OneShotAdapter::new(D::default(), catalog))
}

/// Whether the driver's command is on the host's `PATH`.
pub fn is_available<D: CliDriver>() -> bool {
    find_on_path(D::SPEC.command(), std::env::var_os("PATH").as_deref()).is_some()
}

/// The [`Parser`] of driver `D`: its normalizer as a first turn (or a turn
/// of session `id`) under the default configuration would build it.
pub const fn parser_of<D: CliDriver + Default>() -> Parser {
    Parser(make_parser::<D>)
}

fn make_parser<D: CliDriver + Default>(session: Option<&str>) -> Box<dyn TurnNormalizer> {
    Box::new(D::default().normalizer(&AdapterConfig::default(), session))
}
