//! The factory every [`CliDriver`] gets: [`oneshot_factory!`] declares the
//! driver's public unit-struct factory (its name and doc stay the driver's
//! public API) and forwards to the generic functions here.

use cohost_core::{AdapterConfig, AgentAdapter, ProviderDescriptor};

use super::adapter::{CliDriver, OneShotAdapter};
use super::turn::{Parser, TurnNormalizer};
use crate::process::find_on_path;

/// The descriptor a driver's factory reports.
pub(crate) fn descriptor<D: CliDriver + Default>() -> ProviderDescriptor {
    D::default().descriptor()
}

/// A fresh adapter over a fresh driver (drivers may keep per-session state,
/// such as aider's "a turn has run" flag).
pub(crate) fn create<D: CliDriver + Default>() -> Box<dyn AgentAdapter> {
    Box::new(OneShotAdapter::new(D::default()))
}

/// Whether the driver's command is on the host's `PATH`.
pub(crate) fn is_available<D: CliDriver>() -> bool {
    find_on_path(D::SPEC.command(), std::env::var_os("PATH").as_deref()).is_some()
}

/// The [`Parser`] of driver `D`: its normalizer as a first turn (or a turn
/// of session `id`) under the default configuration would build it.
pub(crate) const fn parser_of<D: CliDriver + Default>() -> Parser {
    Parser(make_parser::<D>)
}

fn make_parser<D: CliDriver + Default>(session: Option<&str>) -> Box<dyn TurnNormalizer> {
    Box::new(D::default().normalizer(&AdapterConfig::default(), session))
}

/// Declare `$vis struct $name;` implementing `AdapterFactory` over the
/// `CliDriver` type `$driver` (which must implement `Default`): `pub` for a
/// driver the crate exports, nothing for one only the provider list names.
macro_rules! oneshot_factory {
    ($(#[$doc:meta])* $vis:vis $name:ident => $driver:ty) => {
        $(#[$doc])*
        #[derive(Debug, Default, Clone, Copy)]
        $vis struct $name;

        impl cohost_core::AdapterFactory for $name {
            fn descriptor(&self) -> cohost_core::ProviderDescriptor {
                $crate::process::oneshot::factory::descriptor::<$driver>()
            }

            fn create(&self) -> Box<dyn cohost_core::AgentAdapter> {
                $crate::process::oneshot::factory::create::<$driver>()
            }

            fn is_available(&self) -> bool {
                $crate::process::oneshot::factory::is_available::<$driver>()
            }
        }
    };
}
pub(crate) use oneshot_factory;
