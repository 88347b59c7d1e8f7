//! The context every host service runs in: the provider registry, the
//! (injectable) environment, cohost's paths and time limits, and the
//! sanitizer every text a host service shows passes.

use cohost_agents::catalog;
use cohost_core::{ProviderDescriptor, ProviderKind, Registry, Sanitizer};
use std::sync::Arc;

use crate::config::HostConfig;
use crate::env::{DiscoveryEnv, HostPaths, Timeouts};
use crate::error::DiscoveryError;

/// Host services' context. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Host {
    /// Registered adapter factories (drivers).
    pub registry: Registry,
    /// The environment to discover in.
    pub env: DiscoveryEnv,
    /// cohost's files.
    pub paths: HostPaths,
    /// Time limits.
    pub timeouts: Timeouts,
    /// What every text a service or front end on this host shows passes:
    /// the composition root's one sanitizer ([`Host::with_sanitizer`]),
    /// never the process-wide one.
    pub sanitizer: Arc<Sanitizer>,
}

/// What cohost knows about one provider id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFacts {
    /// The id.
    pub id: String,
    /// Label for display.
    pub label: String,
    /// Its kind.
    pub kind: ProviderKind,
    /// The registered driver's descriptor, if any.
    pub descriptor: Option<ProviderDescriptor>,
    /// Catalog data for CLIs.
    pub cli: Option<&'static catalog::CliEntry>,
    /// Catalog data for model servers.
    pub server: Option<&'static catalog::ServerEntry>,
    /// Declared in `[providers.ID]` with a `kind` (user-defined API).
    pub user_defined: bool,
}

impl Host {
    /// A host over `registry` in environment `env`; paths follow XDG. Its
    /// sanitizer knows the secret-named variables of `env` and its home;
    /// the binary gives its own ([`Host::with_sanitizer`]).
    pub fn new(registry: Registry, env: DiscoveryEnv) -> Host {
        let paths = env.paths();
        let home = env.home.as_ref().map(|h| h.display().to_string());
        let sanitizer = Arc::new(Sanitizer::new(&env.vars, home));
        Host {
            registry,
            env,
            paths,
            timeouts: Timeouts::default(),
            sanitizer,
        }
    }

    /// This host with `sanitizer` (the composition root's, which also knows
    /// the config's and the credential files' secrets).
    pub fn with_sanitizer(mut self, sanitizer: Arc<Sanitizer>) -> Host {
        self.sanitizer = sanitizer;
        self
    }

    /// Load `config.toml` (empty when missing).
    pub fn config(&self) -> Result<HostConfig, DiscoveryError> {
        HostConfig::load(&self.paths.config_file)
    }

    /// Every provider id cohost knows: registered, in the catalog, or
    /// user-defined, sorted.
    pub fn known_ids(&self, cfg: &HostConfig) -> Vec<String> {
        let mut ids = self.registry.ids();
        ids.extend(catalog::CLIS.iter().map(|e| e.id.to_string()));
        ids.extend(catalog::SERVERS.iter().map(|e| e.id.to_string()));
        ids.extend(catalog::api_providers().into_iter().map(|p| p.id));
        ids.extend(cfg.user_defined_providers());
        ids.sort();
        ids.dedup();
        ids
    }

    /// Facts about `id`, or PROVIDER_NOT_FOUND listing known ids.
    pub fn facts(&self, cfg: &HostConfig, id: &str) -> Result<ProviderFacts, DiscoveryError> {
        let descriptor = self.registry.get(id).ok().map(|f| f.descriptor());
        // ACP variants are discovered and signed in through their base CLI.
        let cli = catalog::cli_of(id);
        let server = catalog::server(id);
        let user_defined = cfg.user_defined_providers().iter().any(|u| u == id);
        let api = catalog::api_provider(id);
        let kind = match (&descriptor, cli, server) {
            (Some(d), _, _) => d.kind,
            (None, Some(_), _) => ProviderKind::AgentCli,
            (None, None, Some(_)) => ProviderKind::LocalModelServer,
            (None, None, None) if user_defined => ProviderKind::ApiGateway,
            (None, None, None) => match &api {
                Some(p) => p.kind,
                None => {
                    return Err(DiscoveryError::UnknownProvider {
                        id: id.to_owned(),
                        known: self.known_ids(cfg),
                    })
                }
            },
        };
        let label = descriptor
            .as_ref()
            .map(|d| d.label.clone())
            .or_else(|| cli.map(|c| c.label.to_string()))
            .or_else(|| server.map(|s| s.label.to_string()))
            .unwrap_or_else(|| id.to_string());
        Ok(ProviderFacts {
            id: id.to_string(),
            label,
            kind,
            descriptor,
            cli,
            server,
            user_defined,
        })
    }
}
