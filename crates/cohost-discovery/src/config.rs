//! cohost's config file, `$XDG_CONFIG_HOME/cohost/config.toml`, edited with
//! `toml_edit` so the user's comments and formatting survive `config set`.
//!
//! ```toml
//! active_provider = "claude"
//!
//! [providers.claude]          # per-provider settings
//! binary = "~/bin/claude"     # explicit path (skips discovery)
//! model = "sonnet"
//! enabled = true
//! env = { ANTHROPIC_BASE_URL = "http://127.0.0.1:8080" }
//! pass_env = ["VAULT_TOKEN", "AWS_*"] # cohost's variables the agent gets
//!
//! [providers.my-proxy]        # a user-defined OpenAI-compatible API
//! kind = "api"
//! base_url = "http://127.0.0.1:4000/v1"
//! key_env = "MY_PROXY_KEY"
//! models = ["small", "large"]
//!
//! [slots.summary]             # capability slots (seed 001)
//! provider = "claude"
//! mode = "cli"
//! model = "haiku"
//! ```

use cohost_core::CohostError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Table, Value};

use crate::error::DiscoveryError;
use crate::fsutil::atomic_write;

/// Settings of one provider from `[providers.ID]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderSettings {
    /// Explicit binary path.
    pub binary: Option<PathBuf>,
    /// Default model.
    pub model: Option<String>,
    /// `false` blocks the provider.
    pub enabled: bool,
    /// Extra child environment.
    pub env: BTreeMap<String, String>,
    /// Endpoint override (model servers, user-defined APIs).
    pub endpoint: Option<String>,
    /// `api` for a user-defined OpenAI-compatible provider.
    pub kind: Option<String>,
    /// Variable holding a user-defined provider's key.
    pub key_env: Option<String>,
    /// Models a user-defined provider serves.
    pub models: Vec<String>,
    /// Variables of cohost's own environment passed to the agent: exact
    /// names, or `PREFIX_*` for every variable starting with `PREFIX_`.
    pub pass_env: Vec<String>,
}

/// The config file: its path, text and editable document.
#[derive(Debug, Clone)]
pub struct HostConfig {
    path: PathBuf,
    doc: DocumentMut,
}

/// A bad value in the config file, pointing at `path:line`.
pub fn config_error(path: &Path, line: Option<usize>, what: &str, fix: &str) -> DiscoveryError {
    DiscoveryError::Config {
        path: path.to_path_buf(),
        line,
        what: what.to_owned(),
        fix: fix.to_owned(),
    }
}

impl HostConfig {
    /// Load the file; a missing file is an empty config. Bad TOML is
    /// CONFIG_INVALID naming the file and line.
    pub fn load(path: &Path) -> Result<HostConfig, DiscoveryError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(DiscoveryError::io("read", path, e)),
        };
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|source| DiscoveryError::ConfigSyntax {
                path: path.to_path_buf(),
                line: source.span().map(|s| line_at(&text, s.start)),
                source: Box::new(source),
            })?;
        Ok(HostConfig {
            path: path.to_path_buf(),
            doc,
        })
    }

    /// An empty config for `path`: what checks go on with when the file
    /// itself cannot be read or parsed (the error is reported separately).
    pub fn empty(path: &Path) -> HostConfig {
        HostConfig {
            path: path.to_path_buf(),
            doc: DocumentMut::new(),
        }
    }

    /// The file this config came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The document as text (formatting preserved).
    pub fn to_text(&self) -> String {
        self.doc.to_string()
    }

    /// Save atomically.
    pub fn save(&self) -> Result<(), DiscoveryError> {
        atomic_write(&self.path, self.doc.to_string().as_bytes())
    }

    /// The 1-based line where dotted `key` is defined, when it is.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let text = self.doc.to_string();
        let doc = toml_edit::Document::parse(text.clone()).ok()?;
        let mut item: &Item = doc.as_item();
        for part in key.split('.') {
            item = item.get(part)?;
        }
        let span = item
            .span()
            .or_else(|| item.as_table().and_then(Table::span))?;
        Some(line_at(&text, span.start))
    }

    fn item(&self, key: &str) -> Option<&Item> {
        let mut item: &Item = self.doc.as_item();
        for part in key.split('.') {
            item = item.get(part)?;
        }
        Some(item)
    }

    /// The value at dotted `key`, rendered as TOML (strings unquoted).
    pub fn get(&self, key: &str) -> Option<String> {
        self.item(key).and_then(render)
    }

    /// Whether turns are recorded (`checkpoints`, default on).
    pub fn checkpoints(&self) -> bool {
        self.item("checkpoints")
            .and_then(Item::as_bool)
            .unwrap_or(true)
    }

    /// Whether new sessions run in a git worktree of their own
    /// (`worktree`, default off).
    pub fn worktree(&self) -> bool {
        self.item("worktree")
            .and_then(Item::as_bool)
            .unwrap_or(false)
    }

    /// The sandbox mode of `sandbox`, `None` when unset; a value that is
    /// no mode is CONFIG_INVALID naming the file.
    pub fn sandbox(&self) -> Result<Option<cohost_core::SandboxMode>, DiscoveryError> {
        let Some(v) = self.item("sandbox") else {
            return Ok(None);
        };
        let text = v.as_str().map(str::to_string).or_else(|| {
            // `sandbox = true` reads as what it plainly means.
            v.as_bool()
                .map(|b| if b { "on" } else { "off" }.to_string())
        });
        text.unwrap_or_default()
            .parse()
            .map(Some)
            .map_err(|source: CohostError| DiscoveryError::Sandbox {
                path: self.path.clone(),
                source,
            })
    }

    /// The string at dotted `key`.
    pub fn get_str(&self, key: &str) -> Option<String> {
        self.item(key)?.as_str().map(str::to_string)
    }

    /// Set dotted `key`. A value that parses as a TOML value (`true`, `3`,
    /// `["a"]`) keeps its type; anything else is a string. A key cohost does
    /// not know ([`crate::config_keys::KEYS`]), or a value of the wrong type,
    /// is CONFIG_INVALID with a did-you-mean.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), DiscoveryError> {
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(config_error(
                &self.path,
                None,
                &format!("`{key}` is not a valid key"),
                "use dotted keys such as `slots.summary.provider`",
            ));
        }
        let parsed: Value = value
            .parse::<Value>()
            .ok()
            .filter(|v| !v.is_str() || value.trim_start().starts_with(['"', '\'']))
            .unwrap_or_else(|| Value::from(value));
        crate::config_keys::check(key, &parsed)?;
        let (last, parents) = parts.split_last().unwrap_or((&"", &[]));
        let mut table: &mut Table = self.doc.as_table_mut();
        for p in parents {
            let entry = table.entry(p).or_insert_with(|| {
                let mut t = Table::new();
                t.set_implicit(true);
                Item::Table(t)
            });
            table = match entry.as_table_mut() {
                Some(t) => t,
                None => {
                    return Err(config_error(
                        &self.path,
                        None,
                        &format!("`{p}` in `{key}` is a value, not a table"),
                        &format!("unset `{p}` first"),
                    ))
                }
            };
        }
        // Keep the decoration (spacing, trailing comment) of a replaced value.
        match table.get_mut(last).and_then(Item::as_value_mut) {
            Some(old) => {
                let decor = old.decor().clone();
                *old = parsed;
                *old.decor_mut() = decor;
            }
            None => {
                table.insert(last, Item::Value(parsed));
            }
        }
        Ok(())
    }

    /// Remove dotted `key`; whether it existed. Empty implicit parents go too.
    pub fn unset(&mut self, key: &str) -> bool {
        let parts: Vec<&str> = key.split('.').collect();
        let Some((last, parents)) = parts.split_last() else {
            return false;
        };
        let mut table: &mut Table = self.doc.as_table_mut();
        for p in parents {
            match table.get_mut(p).and_then(Item::as_table_mut) {
                Some(t) => table = t,
                None => return false,
            }
        }
        table.remove(last).is_some()
    }

    /// Every leaf as `(dotted key, rendered value)`, in file order.
    pub fn list(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        flatten("", self.doc.as_table(), &mut out);
        out
    }

    /// `[providers.ID]` settings (defaults when absent).
    pub fn provider(&self, id: &str) -> ProviderSettings {
        let key = |k: &str| format!("providers.{id}.{k}");
        let env = self
            .item(&key("env"))
            .and_then(|i| i.as_table_like())
            .map(|t| {
                t.iter()
                    .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let strings = |k: &str| -> Vec<String> {
            self.item(&key(k))
                .and_then(Item::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let models = strings("models");
        ProviderSettings {
            binary: self.get_str(&key("binary")).map(PathBuf::from),
            model: self.get_str(&key("model")),
            enabled: self
                .item(&key("enabled"))
                .and_then(Item::as_bool)
                .unwrap_or(true),
            env,
            endpoint: self
                .get_str(&key("endpoint"))
                .or_else(|| self.get_str(&key("base_url"))),
            kind: self.get_str(&key("kind")),
            key_env: self.get_str(&key("key_env")),
            models,
            pass_env: strings("pass_env"),
        }
    }

    /// Ids under `[providers]` that declare `kind` (user-defined providers).
    pub fn user_defined_providers(&self) -> Vec<String> {
        self.item("providers")
            .and_then(|i| i.as_table_like())
            .map(|t| {
                t.iter()
                    .filter(|(_, v)| v.get("kind").is_some())
                    .map(|(k, _)| k.to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Names under `[slots]`.
    pub fn slot_names(&self) -> Vec<String> {
        self.item("slots")
            .and_then(|i| i.as_table_like())
            .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
            .unwrap_or_default()
    }
}

fn line_at(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

fn render(item: &Item) -> Option<String> {
    match item {
        Item::Value(Value::String(s)) => Some(s.value().clone()),
        Item::Value(v) => Some(v.to_string().trim().to_string()),
        Item::Table(_) | Item::ArrayOfTables(_) | Item::None => None,
    }
}

fn flatten(prefix: &str, table: &Table, out: &mut Vec<(String, String)>) {
    for (k, item) in table.iter() {
        let key = if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        };
        match item {
            Item::Table(t) => flatten(&key, t, out),
            Item::Value(Value::InlineTable(t)) => {
                for (ik, iv) in t.iter() {
                    out.push((
                        format!("{key}.{ik}"),
                        render(&Item::Value(iv.clone())).unwrap_or_default(),
                    ));
                }
            }
            other => out.extend(render(other).map(|v| (key, v))),
        }
    }
}
