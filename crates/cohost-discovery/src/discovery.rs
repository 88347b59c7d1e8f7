//! Where a provider is: explicit path from config, then known install
//! locations, then `PATH`; for model servers, an endpoint probe. Then a
//! bounded `--version` probe and warnings (two installs, untested version).

use cohost_agents::catalog::{CliEntry, ServerEntry};
use cohost_agents::process::{find_on_path, probe, EnvPolicy, Version};
use cohost_core::{CohostError, Sanitizer};
use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::env::{DiscoveryEnv, Timeouts};
use crate::error::DiscoveryError;
use crate::probe_http;

/// Where the command was found (seed 002 `commandSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    /// The path set in cohost's config.
    Explicit,
    /// A known install location (npm global, `~/.local/bin`, vendor dirs...).
    KnownPath,
    /// Found on `PATH`.
    Path,
    /// A model server answered on its endpoint.
    Server,
    /// Not found.
    Missing,
}

/// What discovery found for one provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Discovery {
    /// Provider id.
    pub provider_id: String,
    /// Whether the command or server was found.
    pub installed: bool,
    /// Where it was found.
    pub command_source: CommandSource,
    /// The executable (CLIs).
    #[serde(skip)]
    pub command: Option<PathBuf>,
    /// The executable or endpoint, for display (sanitized, `~` for home).
    pub command_display: Option<String>,
    /// Parsed version.
    #[serde(skip)]
    pub version: Option<Version>,
    /// What the version probe printed (first line, sanitized).
    pub version_display: Option<String>,
    /// Why the version probe failed, when it did.
    pub version_error: Option<CohostError>,
    /// Base URL of a model server.
    pub endpoint: Option<String>,
    /// Models a server lists.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// Things the user should know (sanitized).
    pub warnings: Vec<String>,
}

impl Discovery {
    fn missing(id: &str) -> Self {
        Discovery {
            provider_id: id.into(),
            installed: false,
            command_source: CommandSource::Missing,
            command: None,
            command_display: None,
            version: None,
            version_display: None,
            version_error: None,
            endpoint: None,
            models: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// The npm global `bin` dir, computed without spawning npm:
/// `NPM_CONFIG_PREFIX`, else `prefix=` in `~/.npmrc`, else npm's default
/// (the prefix of the `node` on PATH, whose `bin` holds `node` itself).
pub fn npm_global_bin(env: &DiscoveryEnv) -> Option<PathBuf> {
    let from_env = env
        .var("NPM_CONFIG_PREFIX")
        .or_else(|| env.var("npm_config_prefix"))
        .map(PathBuf::from);
    let from_rc = || {
        let text = std::fs::read_to_string(env.home_join(".npmrc")?).ok()?;
        text.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "prefix").then(|| expand_home(v.trim(), env))
        })
    };
    if let Some(prefix) = from_env.or_else(from_rc) {
        return Some(prefix.join("bin"));
    }
    find_on_path("node", env.path.as_deref()).and_then(|n| n.parent().map(Path::to_path_buf))
}

fn expand_home(p: &str, env: &DiscoveryEnv) -> PathBuf {
    match (p.strip_prefix("~/"), &env.home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(p),
    }
}

/// Known install directories for a CLI, most specific first.
pub fn known_dirs(entry: &CliEntry, env: &DiscoveryEnv) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = entry
        .vendor_dirs
        .iter()
        .filter_map(|d| env.home_join(d))
        .collect();
    dirs.extend(npm_global_bin(env));
    for rel in [".local/bin", ".npm-global/bin", ".cargo/bin", ".bun/bin"] {
        dirs.extend(env.home_join(rel));
    }
    // pipx puts each app in its own venv.
    if let Some(venvs) = env.home_join(".local/pipx/venvs") {
        if let Ok(rd) = std::fs::read_dir(venvs) {
            let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path().join("bin")).collect();
            v.sort();
            dirs.extend(v);
        }
    }
    dirs.extend(env.system_dirs.iter().cloned());
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Every install of `entry` (explicit first), with its source, deduplicated
/// by canonical path.
pub fn candidates(
    entry: &CliEntry,
    explicit: Option<&Path>,
    env: &DiscoveryEnv,
) -> Vec<(CommandSource, PathBuf)> {
    let mut out = Vec::new();
    if let Some(p) = explicit {
        let p = expand_home(&p.to_string_lossy(), env);
        if executable(&p) {
            out.push((CommandSource::Explicit, p));
        }
    }
    for dir in known_dirs(entry, env) {
        for bin in entry.binaries {
            let p = dir.join(bin);
            if executable(&p) {
                out.push((CommandSource::KnownPath, p));
            }
        }
    }
    for bin in entry.binaries {
        if let Some(p) = find_on_path(bin, env.path.as_deref()) {
            out.push((CommandSource::Path, p));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|(_, p)| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    out
}

/// Find a CLI and probe its version. An explicit path that is not an
/// executable is a warning, and discovery goes on with the other sources.
/// What it shows (paths, the version line, warnings) passes `sanitizer`
/// (the host's).
pub async fn discover_cli(
    entry: &CliEntry,
    explicit: Option<&Path>,
    env: &DiscoveryEnv,
    timeouts: &Timeouts,
    sanitizer: &Sanitizer,
) -> Discovery {
    let mut d = Discovery::missing(entry.id);
    let found = candidates(entry, explicit, env);
    if let Some(p) = explicit {
        if found.first().map(|c| c.0) != Some(CommandSource::Explicit) {
            d.warnings.push(clean(
                sanitizer,
                &format!(
                    "configured binary `{}` is not an executable file; looked elsewhere",
                    p.display()
                ),
            ));
        }
    }
    let Some((source, path)) = found.first().cloned() else {
        return d;
    };
    if found.len() > 1 {
        let list: Vec<String> = found
            .iter()
            .map(|(s, p)| format!("{} ({})", p.display(), source_name(*s)))
            .collect();
        d.warnings.push(clean(
            sanitizer,
            &format!(
                "{} installs found: {}; using the first",
                found.len(),
                list.join(", ")
            ),
        ));
    }
    d.installed = true;
    d.command_source = source;
    d.command_display = Some(clean(sanitizer, &path.display().to_string()));
    d.command = Some(path.clone());
    if entry.version_args.is_empty() {
        // No `--version` (an ACP wrapper would start serving instead): an
        // npm install still says which version it is.
        if let Some(v) = package_version(&path) {
            d.version_display = Some(format!("{v} (package.json)"));
            d.version = Some(v);
            warn_outside_tested_range(entry, v, &mut d);
        }
        return d;
    }
    // Clean answers are remembered by binary identity (the probe cache).
    let mut policy = EnvPolicy::with_prefixes(entry.env_prefixes.iter().copied());
    policy.extend(env.child_overlay().iter());
    let probed = probe(
        entry.id,
        &path,
        entry.version_args,
        &policy,
        timeouts.version,
    )
    .await
    .map(|out| (out.text, out.success));
    match probed {
        Ok((text, success)) => {
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            d.version_display = Some(clean(sanitizer, &version_line(&text)));
            match Version::find_in(&text).filter(|_| success) {
                Some(v) => {
                    d.version = Some(v);
                    warn_outside_tested_range(entry, v, &mut d);
                }
                None => {
                    d.version_error = Some(
                        DiscoveryError::NoVersion {
                            path: path.clone(),
                            args: entry.version_args.join(" "),
                            printed: if first.is_empty() { "(nothing)" } else { first }.into(),
                            install_hint: entry.install_hint,
                        }
                        .into(),
                    );
                }
            }
        }
        Err(e) => d.version_error = Some(e.into()),
    }
    d
}

fn warn_outside_tested_range(entry: &CliEntry, v: Version, d: &mut Discovery) {
    if let Some(range) = entry.tested_range() {
        if !range.contains(v) {
            d.warnings.push(format!(
                "version {v} is outside the tested range {range}; it may work, but cohost was not tested with it"
            ));
        }
    }
}

/// The version of the npm package a binary belongs to: the `package.json`
/// of the package root the (symlink-resolved) file sits in, at most a few
/// folders up and never above the `node_modules` holding it. `None` for
/// anything not installed by npm.
fn package_version(binary: &Path) -> Option<Version> {
    let real = std::fs::canonicalize(binary).ok()?;
    for dir in real.ancestors().skip(1).take(4) {
        if dir.file_name().is_some_and(|n| n == "node_modules") {
            return None;
        }
        // A package root sits right in `node_modules` or in a scope there.
        let parent = dir.parent()?;
        let in_node_modules = parent.file_name().is_some_and(|n| n == "node_modules")
            || (parent
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('@'))
                && parent
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == "node_modules"));
        if !in_node_modules {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        return Version::find_in(json.get("version")?.as_str()?);
    }
    None
}

/// The line of a `--version` answer that holds the version (codex warns
/// first), without the sentence's full stop (`GitHub Copilot CLI 1.0.102.`).
fn version_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = lines
        .clone()
        .find(|l| Version::find_in(l).is_some())
        .or_else(|| lines.next())
        .unwrap_or("");
    line.trim_end_matches('.').trim_end().to_string()
}

/// Probe a model server: the configured endpoint, else the vendor's
/// variable (`OLLAMA_HOST`), else the default port on loopback. What it
/// shows passes `sanitizer` (the host's).
pub async fn discover_server(
    entry: &ServerEntry,
    endpoint: Option<&str>,
    env: &DiscoveryEnv,
    timeouts: &Timeouts,
    sanitizer: &Sanitizer,
) -> Discovery {
    let mut d = Discovery::missing(entry.id);
    let raw = endpoint
        .map(str::to_string)
        .or_else(|| entry.host_env.and_then(|v| env.var(v)).map(str::to_string))
        .unwrap_or_else(|| entry.default_base.to_string());
    let default_port = probe_http::host_port(entry.default_base, 80).map_or(80, |h| h.1);
    let Some((host, port)) = probe_http::host_port(&raw, default_port) else {
        d.warnings.push(clean(
            sanitizer,
            &format!("endpoint `{raw}` cannot be probed (only http:// is)"),
        ));
        return d;
    };
    let base = format!("http://{host}:{port}");
    d.endpoint = Some(clean(sanitizer, &base));
    match probe_http::get(&host, port, entry.probe_path, timeouts.server).await {
        Some((200, body)) => {
            d.installed = true;
            d.command_source = CommandSource::Server;
            d.command_display = Some(clean(sanitizer, &base));
            d.models = model_names(&body);
        }
        Some((status, _)) => d
            .warnings
            .push(format!("{base}{} answered HTTP {status}", entry.probe_path)),
        None => {}
    }
    d
}

/// Model names from Ollama `/api/tags` (`models[].name`) or an
/// OpenAI-style `/v1/models` (`data[].id`).
fn model_names(body: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return Vec::new();
    };
    let list = |key: &str, field: &str| -> Vec<String> {
        v.get(key)
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.get(field)?.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut names = list("models", "name");
    names.extend(list("data", "id"));
    names
}

/// The wire name of a source.
pub fn source_name(s: CommandSource) -> &'static str {
    match s {
        CommandSource::Explicit => "explicit",
        CommandSource::KnownPath => "known_path",
        CommandSource::Path => "path",
        CommandSource::Server => "server",
        CommandSource::Missing => "missing",
    }
}

/// `text` through `sanitizer`, owned (what a [`Discovery`] keeps).
fn clean(sanitizer: &Sanitizer, text: &str) -> String {
    sanitizer.sanitize(text).into_owned()
}
