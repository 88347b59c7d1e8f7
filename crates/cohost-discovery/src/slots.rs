//! Capability slots (seed 001): each use of AI in cohost (`terminal`,
//! `summary`, `analysis`, `assistant`, or a user-defined name) is routed to
//! a provider, a mode (`cli` or `api`) and a model, kept under `[slots.NAME]`
//! in `config.toml`.

use cohost_core::{AdapterConfig, ProviderKind, StreamingGranularity};
use serde::{Deserialize, Serialize};

use crate::config::{config_error, HostConfig};
use crate::error::DiscoveryError;
use crate::host::{Host, ProviderFacts};

/// Slots cohost itself uses.
pub const BUILTIN_SLOTS: [&str; 4] = ["terminal", "summary", "analysis", "assistant"];

/// How a slot reaches its provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotMode {
    /// Run the agent CLI.
    Cli,
    /// Call the model API directly.
    Api,
}

impl SlotMode {
    /// Parse `cli` / `api`.
    pub fn parse(s: &str) -> Option<SlotMode> {
        match s {
            "cli" => Some(SlotMode::Cli),
            "api" => Some(SlotMode::Api),
            _ => None,
        }
    }

    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotMode::Cli => "cli",
            SlotMode::Api => "api",
        }
    }
}

/// What a slot is set to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotSpec {
    /// Provider id.
    pub provider: String,
    /// Mode.
    pub mode: SlotMode,
    /// Model; `None` = the provider's default.
    pub model: Option<String>,
}

/// A slot as `config get|list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SlotView {
    /// Slot name.
    pub name: String,
    /// Its setting (the default, `claude` + `cli`, when unset).
    pub spec: SlotSpec,
    /// Whether the config sets it.
    pub configured: bool,
}

/// A slot resolved to something the engine can run.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedSlot {
    /// Slot name.
    pub slot: String,
    /// The registry id to run (in `api` mode a CLI vendor maps to its HTTP
    /// provider, e.g. `claude` → `anthropic`).
    pub provider_id: String,
    /// Mode.
    pub mode: SlotMode,
    /// Adapter configuration (model, binary, env); `cwd` is the caller's.
    pub config: AdapterConfig,
}

fn default_spec() -> SlotSpec {
    SlotSpec {
        provider: "claude".into(),
        mode: SlotMode::Cli,
        model: None,
    }
}

fn read_spec(cfg: &HostConfig, name: &str) -> Option<Result<SlotSpec, DiscoveryError>> {
    let key = |k: &str| format!("slots.{name}.{k}");
    let provider = cfg.get_str(&key("provider"));
    let mode_raw = cfg.get_str(&key("mode"));
    if provider.is_none() && mode_raw.is_none() && cfg.line_of(&format!("slots.{name}")).is_none() {
        return None;
    }
    let Some(provider) = provider else {
        return Some(Err(config_error(
            cfg.path(),
            cfg.line_of(&format!("slots.{name}")),
            &format!("slot `{name}` has no `provider`"),
            &format!("run `cohost config set slots.{name}.provider ID` or remove the slot"),
        )));
    };
    let mode = match mode_raw.as_deref() {
        None => SlotMode::Cli,
        Some(m) => match SlotMode::parse(m) {
            Some(m) => m,
            None => {
                return Some(Err(config_error(
                    cfg.path(),
                    cfg.line_of(&key("mode")),
                    &format!("slot `{name}` has mode `{m}`"),
                    "mode is `cli` or `api`",
                )))
            }
        },
    };
    Some(Ok(SlotSpec {
        provider,
        mode,
        model: cfg.get_str(&key("model")),
    }))
}

/// Every built-in slot plus every configured one, validated.
pub fn list_slots(host: &Host, cfg: &HostConfig) -> Result<Vec<SlotView>, DiscoveryError> {
    let mut names: Vec<String> = BUILTIN_SLOTS.iter().map(|s| s.to_string()).collect();
    for n in cfg.slot_names() {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names.iter().map(|n| get_slot(host, cfg, n)).collect()
}

/// One slot, validated. An unknown provider or bad mode in the file is
/// CONFIG_INVALID naming the file and line.
pub fn get_slot(host: &Host, cfg: &HostConfig, name: &str) -> Result<SlotView, DiscoveryError> {
    match read_spec(cfg, name) {
        None => Ok(SlotView {
            name: name.into(),
            spec: default_spec(),
            configured: false,
        }),
        Some(spec) => {
            let spec = spec?;
            validate(host, cfg, name, &spec).map_err(|e| DiscoveryError::Slot {
                path: cfg.path().to_path_buf(),
                line: cfg.line_of(&format!("slots.{name}.provider")),
                name: name.to_owned(),
                source: Box::new(e),
            })?;
            Ok(SlotView {
                name: name.into(),
                spec,
                configured: true,
            })
        }
    }
}

/// Validate every slot in the config (for `cohost doctor` and startup).
pub fn validate_config(host: &Host, cfg: &HostConfig) -> Result<(), DiscoveryError> {
    list_slots(host, cfg).map(|_| ())
}

/// Set a slot after validating it (caller saves the config).
pub fn set_slot(
    host: &Host,
    cfg: &mut HostConfig,
    name: &str,
    spec: &SlotSpec,
) -> Result<(), DiscoveryError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(DiscoveryError::BadSlotName {
            name: name.to_owned(),
        });
    }
    validate(host, cfg, name, spec)?;
    cfg.set(
        &format!("slots.{name}.provider"),
        &format!("\"{}\"", spec.provider),
    )?;
    cfg.set(
        &format!("slots.{name}.mode"),
        &format!("\"{}\"", spec.mode.as_str()),
    )?;
    match &spec.model {
        Some(m) => cfg.set(&format!("slots.{name}.model"), &toml_string(m))?,
        None => {
            cfg.unset(&format!("slots.{name}.model"));
        }
    }
    Ok(())
}

fn toml_string(s: &str) -> String {
    toml_edit::Value::from(s).to_string().trim().to_string()
}

/// Remove a slot; whether it was set.
pub fn unset_slot(cfg: &mut HostConfig, name: &str) -> bool {
    cfg.unset(&format!("slots.{name}"))
}

fn supports(f: &ProviderFacts, mode: SlotMode) -> bool {
    match mode {
        SlotMode::Cli => f.kind == ProviderKind::AgentCli,
        SlotMode::Api => {
            f.kind != ProviderKind::AgentCli || f.cli.and_then(|c| c.api_provider).is_some()
        }
    }
}

/// Seed 001's checks: the provider exists and supports the mode,
/// `terminal` is CLI only, the model is one the provider lists (when it
/// lists any), and `assistant` needs token streaming.
pub fn validate(
    host: &Host,
    cfg: &HostConfig,
    name: &str,
    spec: &SlotSpec,
) -> Result<(), DiscoveryError> {
    let f = host.facts(cfg, &spec.provider)?;
    if name == "terminal" && spec.mode != SlotMode::Cli {
        return Err(DiscoveryError::TerminalNeedsCli);
    }
    if !supports(&f, spec.mode) {
        let other = if spec.mode == SlotMode::Cli {
            "api"
        } else {
            "cli"
        };
        return Err(DiscoveryError::NoSuchMode {
            provider: f.id,
            mode: spec.mode.as_str(),
            other,
        });
    }
    let listed: Vec<String> = if f.user_defined {
        cfg.provider(&f.id).models
    } else {
        f.cli
            .map(|c| c.models.iter().map(|m| m.to_string()).collect())
            .unwrap_or_default()
    };
    if let Some(model) = &spec.model {
        if !listed.is_empty() && !listed.contains(model) {
            return Err(DiscoveryError::ModelNotListed {
                provider: f.id,
                model: model.clone(),
                listed,
            });
        }
    }
    if name == "assistant" && !streams(host, cfg, &f, spec.mode) {
        return Err(DiscoveryError::AssistantNeedsStreaming {
            provider: f.id,
            mode: spec.mode.as_str(),
        });
    }
    Ok(())
}

fn streams(host: &Host, cfg: &HostConfig, f: &ProviderFacts, mode: SlotMode) -> bool {
    let target = match (mode, f.cli.and_then(|c| c.api_provider)) {
        (SlotMode::Api, Some(api)) => host.facts(cfg, api).ok(),
        _ => Some(f.clone()),
    };
    match target.as_ref().and_then(|t| t.descriptor.as_ref()) {
        Some(d) => d.capabilities.streaming == StreamingGranularity::TokenDeltas,
        // No driver registered: the catalog says for CLIs; APIs stream.
        None => match (mode, f.cli) {
            (SlotMode::Cli, Some(c)) => c.token_streaming,
            _ => mode == SlotMode::Api,
        },
    }
}

/// CONFIG_INVALID for a slot that is neither built in nor configured.
fn unknown_slot(cfg: &HostConfig, name: &str) -> DiscoveryError {
    let mut names: Vec<String> = BUILTIN_SLOTS.iter().map(|s| s.to_string()).collect();
    for n in cfg.slot_names() {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let near = names
        .iter()
        .min_by_key(|n| strsim::damerau_levenshtein(name, n))
        .filter(|n| strsim::damerau_levenshtein(name, n) <= 2)
        .cloned();
    DiscoveryError::NoSuchSlot {
        name: name.to_owned(),
        slots: names,
        near,
    }
}

/// Resolve a slot to the provider to run and its adapter settings.
pub fn resolve_slot(
    host: &Host,
    cfg: &HostConfig,
    name: &str,
) -> Result<ResolvedSlot, DiscoveryError> {
    let view = get_slot(host, cfg, name)?;
    if !view.configured && !BUILTIN_SLOTS.contains(&name) {
        return Err(unknown_slot(cfg, name));
    }
    let spec = view.spec;
    let f = host.facts(cfg, &spec.provider)?;
    let provider_id = match (spec.mode, f.cli.and_then(|c| c.api_provider)) {
        (SlotMode::Api, Some(api)) => api.to_string(),
        (SlotMode::Api, None) if f.user_defined => "openai".to_string(),
        _ => f.id.clone(),
    };
    let own = cfg.provider(&f.id);
    let target = cfg.provider(&provider_id);
    let mut config = AdapterConfig {
        model: spec.model.clone().or(own.model.clone()),
        ..Default::default()
    };
    if spec.mode == SlotMode::Cli {
        config.binary = own.binary.clone();
    }
    config.env.extend(target.env);
    config.env.extend(own.env.clone());
    if f.user_defined {
        // User-defined providers speak the OpenAI protocol (seed 001).
        if let Some(url) = &own.endpoint {
            config.env.insert("OPENAI_BASE_URL".into(), url.clone());
        }
        if let Some(key) = own.key_env.as_deref().and_then(|k| host.env.var(k)) {
            config.env.insert("OPENAI_API_KEY".into(), key.to_string());
        }
    }
    Ok(ResolvedSlot {
        slot: name.into(),
        provider_id,
        mode: spec.mode,
        config,
    })
}
