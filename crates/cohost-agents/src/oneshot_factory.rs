//! `oneshot_factory!`: the public factory of each one-shot driver, over the
//! generic functions of `cohost_process::oneshot::factory`, launching with
//! the provider list ([`crate::catalog::catalog`]).

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
                $crate::process::oneshot::factory::create::<$driver>($crate::catalog::catalog())
            }

            fn is_available(&self) -> bool {
                $crate::process::oneshot::factory::is_available::<$driver>()
            }
        }
    };
}
pub(crate) use oneshot_factory;
