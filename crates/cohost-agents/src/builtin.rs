//! Registration of the built-in providers: the mock, the HTTP providers,
//! every CLI driver in the provider list ([`crate::catalog::CLIS`], each
//! spec names its factory) and the ACP family. The binary calls
//! [`register_all`].

use cohost_core::{CohostError, Registry};
use std::sync::Arc;

/// Register every built-in provider (the mock included) into `registry`.
pub fn register_all(registry: &mut Registry) -> Result<(), CohostError> {
    registry.register(Arc::new(crate::mock::MockFactory::default()))?;
    crate::http::register(registry)?;
    for spec in crate::catalog::CLIS {
        if let Some(make) = spec.factory {
            registry.register((make.0)())?;
        }
    }
    // The ACP family registers its six providers (two of them, the Zed
    // wrappers, have specs in the list without a factory).
    crate::acp::register(registry)?;
    Ok(())
}
