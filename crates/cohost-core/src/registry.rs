//! The registry of adapter factories, keyed by provider id.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{CohostError, ErrorCode};
use crate::port::AdapterFactory;
use crate::provider::ProviderDescriptor;

/// Adapter factories by provider id. Built by the composition root; the core
/// never names a concrete adapter.
#[derive(Default, Clone)]
pub struct Registry {
    factories: BTreeMap<String, Arc<dyn AdapterFactory>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.factories.keys()).finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a factory under its descriptor's id. A second registration
    /// with the same id is refused so a plugin cannot silently shadow a
    /// built-in driver.
    pub fn register(&mut self, factory: Arc<dyn AdapterFactory>) -> Result<(), CohostError> {
        let id = factory.descriptor().id;
        if !valid_id(&id) {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("provider id {id:?} is not valid"),
            )
            .with_fix("use lower-case letters, digits and '-' (e.g. `my-agent`)"));
        }
        if self.factories.contains_key(&id) {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("provider id `{id}` is registered twice"),
            )
            .with_fix("rename the plugin's id; built-in ids cannot be overridden"));
        }
        self.factories.insert(id, factory);
        Ok(())
    }

    /// The factory for `id`, or PROVIDER_NOT_FOUND listing the known ids.
    pub fn get(&self, id: &str) -> Result<Arc<dyn AdapterFactory>, CohostError> {
        self.factories.get(id).cloned().ok_or_else(|| {
            CohostError::new(ErrorCode::ProviderNotFound, format!("unknown agent `{id}`"))
                .with_fix(format!("known agents: {}", self.ids().join(", ")))
        })
    }

    /// Registered ids, sorted.
    pub fn ids(&self) -> Vec<String> {
        self.factories.keys().cloned().collect()
    }

    /// Descriptors of every registered provider, sorted by id.
    pub fn descriptors(&self) -> Vec<ProviderDescriptor> {
        self.factories.values().map(|f| f.descriptor()).collect()
    }
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::double::Factory;

    #[test]
    fn unknown_id_lists_known_ids() {
        let mut r = Registry::new();
        r.register(Arc::new(Factory::default())).unwrap();
        let err = r.get("nope").err().unwrap();
        assert_eq!(err.code, ErrorCode::ProviderNotFound);
        assert!(err.suggested_fix.unwrap().contains(crate::double::ID));
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let mut r = Registry::new();
        r.register(Arc::new(Factory::default())).unwrap();
        let err = r.register(Arc::new(Factory::default())).unwrap_err();
        assert_eq!(err.code, ErrorCode::ConfigInvalid);
    }

    #[test]
    fn ids_are_validated() {
        assert!(valid_id("gemini-acp"));
        assert!(!valid_id("Gemini"));
        assert!(!valid_id(""));
        assert!(!valid_id("a b"));
    }
}
