//! The price table budgets are counted with (the [`Prices`] port's
//! adapter): a pinned, trimmed copy of LiteLLM's
//! `model_prices_and_context_window.json` compiled in
//! (`data/model_prices.json`, its source and version in its header), or
//! the copy `cohost prices refresh` wrote next to `config.toml`, with
//! `prices.<model>.*` from the config beating both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cohost_core::budget::{ModelPrice, Prices};
use serde::{Deserialize, Serialize};

use crate::config::{config_error, HostConfig};
use crate::error::DiscoveryError;

/// The pinned copy, as compiled in.
pub const PINNED: &str = include_str!("../data/model_prices.json");

/// The file a refresh writes, next to `config.toml`.
pub const REFRESHED: &str = "model_prices.json";

/// The four fields cohost reads of a LiteLLM entry.
const FIELDS: [&str; 4] = [
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
];

/// Where LiteLLM keeps its table (a refresh without `--from`).
pub const UPSTREAM: &str =
    "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json";

/// cohost's trimmed table, as stored.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PriceFile {
    /// Where it came from.
    #[serde(rename = "_source", default)]
    pub source: String,
    /// Which release of it.
    #[serde(rename = "_version", default)]
    pub version: String,
    /// Prices by model name.
    pub models: BTreeMap<String, ModelPrice>,
}

impl PriceFile {
    /// Read a stored table; a broken one is CONFIG_INVALID naming `what`.
    pub fn parse(text: &str, what: &str) -> Result<PriceFile, DiscoveryError> {
        serde_json::from_str(text).map_err(|source| DiscoveryError::PriceTable {
            what: what.to_owned(),
            source,
        })
    }

    /// The table as stored: one model a line, sorted, so a refresh diffs well.
    pub fn to_text(&self) -> String {
        let mut out = String::from("{\n");
        out.push_str(&format!(
            "  \"_source\": {},\n  \"_version\": {},\n  \"models\": {{\n",
            json_str(&self.source),
            json_str(&self.version)
        ));
        let n = self.models.len();
        for (i, (k, v)) in self.models.iter().enumerate() {
            let price = serde_json::to_string(v).unwrap_or_else(|_| "{}".into());
            let comma = if i + 1 < n { "," } else { "" };
            out.push_str(&format!("    {}: {price}{comma}\n", json_str(k)));
        }
        out.push_str("  }\n}\n");
        out
    }
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// Vendors whose models agents report by their plain names.
const DIRECT: [&str; 4] = [
    "anthropic",
    "openai",
    "vertex_ai-language-models",
    "deepseek",
];
/// Prefixes of LiteLLM keys (`gemini/gemini-2.5-pro`) whose rest is the
/// plain name.
const PREFIXED: [&str; 4] = ["gemini", "deepseek", "mistral", "xai"];

/// Trim LiteLLM's full table (`json`) to what cohost reads: chat models of
/// the vendors' own APIs, by the names agents report, and four price fields.
pub fn trim_litellm(json: &str, source: &str, version: &str) -> Result<PriceFile, DiscoveryError> {
    let all: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(json).map_err(|source| DiscoveryError::NotLiteLlm { source })?;
    let mut models = BTreeMap::new();
    for (key, v) in &all {
        let mode = v.get("mode").and_then(|m| m.as_str());
        if !matches!(mode, Some("chat" | "responses")) {
            continue;
        }
        let provider = v
            .get("litellm_provider")
            .and_then(|p| p.as_str())
            .unwrap_or("");
        let name = match key.split_once('/') {
            None if !key.contains(':') && DIRECT.contains(&provider) => key.as_str(),
            Some((p, rest)) if PREFIXED.contains(&p) && !rest.contains(['/', ':']) => rest,
            _ => continue,
        };
        let mut entry = serde_json::Map::new();
        for f in FIELDS {
            if let Some(x) = v.get(f).filter(|x| x.is_number()) {
                entry.insert(f.to_owned(), x.clone());
            }
        }
        let Ok(price) = serde_json::from_value::<ModelPrice>(entry.into()) else {
            continue;
        };
        models.entry(name.to_owned()).or_insert(price);
    }
    if models.is_empty() {
        return Err(DiscoveryError::NoChatPrices);
    }
    Ok(PriceFile {
        source: source.to_owned(),
        version: version.to_owned(),
        models,
    })
}

/// The prices in force: the refreshed (else pinned) table, then the
/// config's `prices.<model>.*` (US dollars per million tokens).
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    models: BTreeMap<String, ModelPrice>,
    overrides: BTreeMap<String, ModelPrice>,
}

/// Where a refresh writes, beside `config.toml`.
pub fn refreshed_path(cfg: &HostConfig) -> PathBuf {
    cfg.path()
        .parent()
        .unwrap_or(Path::new("."))
        .join(REFRESHED)
}

impl PriceTable {
    /// The pinned table alone.
    pub fn pinned() -> PriceTable {
        let models = PriceFile::parse(PINNED, "compiled into cohost")
            .map(|f| f.models)
            .unwrap_or_default();
        PriceTable {
            models,
            overrides: BTreeMap::new(),
        }
    }

    /// The table for `cfg`: a refreshed copy beside it, else the pinned
    /// one; then its overrides. A broken refreshed copy or override is
    /// CONFIG_INVALID.
    pub fn load(cfg: &HostConfig) -> Result<PriceTable, DiscoveryError> {
        let path = refreshed_path(cfg);
        let mut table = match std::fs::read_to_string(&path) {
            Ok(text) => PriceTable {
                models: PriceFile::parse(&text, &path.display().to_string())?.models,
                overrides: BTreeMap::new(),
            },
            Err(_) => PriceTable::pinned(),
        };
        table.overrides = overrides(cfg)?;
        Ok(table)
    }

    /// How many models have a price.
    pub fn len(&self) -> usize {
        self.models.len() + self.overrides.len()
    }

    /// Whether no model has a price.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn find(map: &BTreeMap<String, ModelPrice>, model: &str) -> Option<ModelPrice> {
        if let Some(p) = map.get(model) {
            return Some(*p);
        }
        // `claude-sonnet-4-5-20250929` is priced as `claude-sonnet-4-5`:
        // the longest known name the model's name starts with, at a `-`.
        map.iter()
            .filter(|(k, _)| model.starts_with(k.as_str()) && model[k.len()..].starts_with('-'))
            .max_by_key(|(k, _)| k.len())
            .map(|(_, p)| *p)
    }
}

impl Prices for PriceTable {
    fn price(&self, model: &str) -> Option<ModelPrice> {
        let m = model.trim().to_ascii_lowercase();
        // `anthropic/claude-...`, `openai/gpt-5`: the plain name.
        let plain = m.rsplit('/').next().unwrap_or(&m).to_owned();
        let lookup = |name: &str| {
            PriceTable::find(&self.overrides, name).or_else(|| PriceTable::find(&self.models, name))
        };
        lookup(&m).or_else(|| lookup(&plain))
    }
}

/// `prices.<model>.input|output|cache_read|cache_write` (US dollars per
/// million tokens) as prices per token; a model without `input` and
/// `output` is CONFIG_INVALID.
fn overrides(cfg: &HostConfig) -> Result<BTreeMap<String, ModelPrice>, DiscoveryError> {
    let mut fields: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for (key, value) in cfg.list() {
        let Some(rest) = key.strip_prefix("prices.") else {
            continue;
        };
        let Some((model, field)) = rest.rsplit_once('.') else {
            continue;
        };
        let model = model.trim_matches('"').to_ascii_lowercase();
        let n: f64 = value.trim_matches('"').parse().map_err(|_| {
            config_error(
                cfg.path(),
                None,
                &format!("{key} is not a number: {value}"),
                &format!("cohost config set {key} 3.0   (US dollars per million tokens)"),
            )
        })?;
        fields
            .entry(model)
            .or_default()
            .insert(field.to_owned(), n / 1e6);
    }
    let mut out = BTreeMap::new();
    for (model, f) in fields {
        let (Some(input), Some(output)) = (f.get("input"), f.get("output")) else {
            return Err(config_error(
                cfg.path(),
                None,
                &format!("prices.{model} needs both input and output"),
                &format!(
                    "cohost config set prices.{model}.input 3.0 and prices.{model}.output 15.0 (US dollars per million tokens)"
                ),
            ));
        };
        out.insert(
            model,
            ModelPrice {
                input_cost_per_token: *input,
                output_cost_per_token: *output,
                cache_read_input_token_cost: f.get("cache_read").copied(),
                cache_creation_input_token_cost: f.get("cache_write").copied(),
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
