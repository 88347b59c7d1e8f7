//! What each agent CLI writes besides its working tree, and which port its
//! provider listens on: the agent-specific half of the sandbox policy.
//!
//! The paths were found by running each real CLI sandboxed against the fake
//! model server and reading what failed (the sandbox tests under
//! `crates/cohost-cli/tests/it/sandbox_real.rs` do it on every CI run for
//! Claude Code and Codex); the others come from their documentation and
//! fail loudly (an `EACCES` in the agent's stderr) if one is missing.

use std::path::{Path, PathBuf};

use crate::provider::Catalog;

/// A place an agent keeps its state, relative to one of the user's roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Own {
    /// Under `$HOME`.
    Home(&'static str),
    /// Under `$XDG_CONFIG_HOME` (default `~/.config`).
    Config(&'static str),
    /// Under `$XDG_DATA_HOME` (default `~/.local/share`).
    Data(&'static str),
    /// Under `$XDG_STATE_HOME` (default `~/.local/state`).
    State(&'static str),
    /// Under `$XDG_CACHE_HOME` (default `~/.cache`).
    Cache(&'static str),
    /// The directory an environment variable names, when set.
    Env(&'static str),
}

/// Claude Code's places.
const CLAUDE: &[Own] = &[
    Own::Home(".claude"),
    // Claude Code rewrites its settings file atomically: a temporary file
    // beside it, then a rename over it. Both live in `$HOME` itself, so
    // the file is granted, and `CLAUDE_CONFIG_DIR` moves both elsewhere.
    Own::Home(".claude.json"),
    Own::Env("CLAUDE_CONFIG_DIR"),
    Own::Cache("claude"),
    Own::Cache("claude-cli-nodejs"),
    Own::Data("claude"),
    Own::State("claude"),
];
const CODEX: &[Own] = &[
    Own::Home(".codex"),
    Own::Env("CODEX_HOME"),
    Own::Cache("codex"),
];
const GEMINI: &[Own] = &[Own::Home(".gemini"), Own::Cache("gemini-cli")];
const QWEN: &[Own] = &[Own::Home(".qwen"), Own::Cache("qwen-code")];
const OPENCODE: &[Own] = &[
    Own::Config("opencode"),
    Own::Data("opencode"),
    Own::State("opencode"),
    Own::Cache("opencode"),
];
const KILO: &[Own] = &[
    Own::Config("kilo"),
    Own::Data("kilo"),
    Own::State("kilo"),
    Own::Cache("kilo"),
];
const COPILOT: &[Own] = &[
    Own::Home(".copilot"),
    Own::Config("github-copilot"),
    Own::State(".copilot"),
    Own::Env("COPILOT_HOME"),
];
const AIDER: &[Own] = &[Own::Home(".aider")];
const CLINE: &[Own] = &[Own::Home(".cline")];
const CONTINUE: &[Own] = &[Own::Home(".continue")];
const VIBE: &[Own] = &[Own::Home(".vibe"), Own::Env("VIBE_HOME")];
const GOOSE: &[Own] = &[
    Own::Config("goose"),
    Own::Data("goose"),
    Own::State("goose"),
];
const CURSOR: &[Own] = &[Own::Home(".cursor"), Own::Config("cursor")];
const KIRO: &[Own] = &[Own::Home(".kiro"), Own::Data("kiro-cli")];
const AGY: &[Own] = &[Own::Home(".gemini"), Own::Home(".antigravity")];

/// The state places of provider `id` (an ACP variant shares its base
/// CLI's); empty for providers cohost knows nothing about (a plugin): they
/// get their working tree and temp dir only.
pub(super) fn own_paths(id: &str, catalog: Catalog) -> &'static [Own] {
    let base = match id {
        "claude-acp" => "claude",
        "codex-acp" => "codex",
        _ => catalog.cli_of(id).map_or(id, |e| e.id),
    };
    match base {
        "claude" => CLAUDE,
        "codex" => CODEX,
        "gemini" => GEMINI,
        "qwen" => QWEN,
        "opencode" => OPENCODE,
        "kilo" => KILO,
        "copilot" => COPILOT,
        "aider" => AIDER,
        "cline" => CLINE,
        "continue" => CONTINUE,
        "vibe" => VIBE,
        "goose" => GOOSE,
        "cursor" => CURSOR,
        "kiro" => KIRO,
        "agy" => AGY,
        _ => &[],
    }
}

/// The user's roots, as the agent's environment sets them.
#[derive(Debug, Clone)]
pub(super) struct Roots {
    pub home: PathBuf,
    pub config: PathBuf,
    pub data: PathBuf,
    pub state: PathBuf,
    pub cache: PathBuf,
}

impl Roots {
    /// From the child's variables (`var`), with the XDG defaults.
    pub(super) fn new(home: &Path, var: &dyn Fn(&str) -> Option<String>) -> Roots {
        let xdg = |name: &str, default: &str| {
            var(name)
                .filter(|v| Path::new(v).is_absolute())
                .map_or_else(|| home.join(default), PathBuf::from)
        };
        Roots {
            home: home.to_path_buf(),
            config: xdg("XDG_CONFIG_HOME", ".config"),
            data: xdg("XDG_DATA_HOME", ".local/share"),
            state: xdg("XDG_STATE_HOME", ".local/state"),
            cache: xdg("XDG_CACHE_HOME", ".cache"),
        }
    }

    /// Where `own` is for this user.
    pub(super) fn resolve(
        &self,
        own: Own,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Option<PathBuf> {
        Some(match own {
            Own::Home(p) => self.home.join(p),
            Own::Config(p) => self.config.join(p),
            Own::Data(p) => self.data.join(p),
            Own::State(p) => self.state.join(p),
            Own::Cache(p) => self.cache.join(p),
            Own::Env(name) => PathBuf::from(var(name).filter(|v| Path::new(v).is_absolute())?),
        })
    }
}

/// Other people's secrets that are no agent's business, relative to
/// `$HOME`: keys, cloud and registry credentials, other tools' tokens.
pub(super) const SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".config/gh",
    ".config/gcloud",
    ".password-store",
];

/// The TCP ports the provider needs: 443 (every hosted API), and the port
/// of each endpoint the agent's environment or its config names (a local
/// model server, a proxy).
pub(super) fn provider_ports(env: &[(String, String)], config_urls: &[String]) -> Vec<u16> {
    let mut ports = vec![443];
    let endpoint_var = |k: &str| {
        let k = k.to_ascii_uppercase();
        k.ends_with("_BASE_URL")
            || k.ends_with("_API_BASE")
            || k.ends_with("_ENDPOINT")
            || k.ends_with("_HOST")
            || k.ends_with("_PROXY")
    };
    let urls = env
        .iter()
        .filter(|(k, _)| endpoint_var(k))
        .map(|(_, v)| v.as_str())
        .chain(config_urls.iter().map(String::as_str));
    for url in urls {
        if let Some(p) = url_port(url) {
            if !ports.contains(&p) {
                ports.push(p);
            }
        }
    }
    ports
}

/// The port of `http(s)://host[:port]/...` (the scheme's default when
/// none is written); `host:port` alone too (`OLLAMA_HOST`).
pub(super) fn url_port(url: &str) -> Option<u16> {
    let url = url.trim();
    let (default, rest) = match url.split_once("://") {
        Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
            "https" | "wss" => (Some(443), rest),
            "http" | "ws" => (Some(80), rest),
            _ => (None, rest),
        },
        None => (None, url),
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    // `[::1]:8080`: the port follows the bracket.
    let after_host = match host_port.rfind(']') {
        Some(i) => &host_port[i + 1..],
        None => host_port,
    };
    match after_host.rsplit_once(':') {
        Some((_, port)) if !port.is_empty() => port.parse().ok(),
        _ => default,
    }
}

/// The `base_url`s of a Codex `config.toml` (its model providers), where
/// Codex, unlike the others, names its endpoint.
pub(super) fn codex_base_urls(config_toml: &str) -> Vec<String> {
    config_toml
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "base_url").then(|| v.trim().trim_matches(['"', '\'']).to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_come_from_the_environment_and_config_with_443_always() {
        let env = vec![
            (
                "ANTHROPIC_BASE_URL".to_string(),
                "http://127.0.0.1:41234".to_string(),
            ),
            ("OLLAMA_HOST".to_string(), "localhost:11434".to_string()),
            ("HTTPS_PROXY".to_string(), "http://proxy:3128".to_string()),
            (
                "ANTHROPIC_API_KEY".to_string(),
                "http://not-a-url:1".to_string(),
            ),
        ];
        let cfg = codex_base_urls(
            "model = \"m\"\n[model_providers.fake]\nbase_url = \"http://127.0.0.1:5555/v1\"\n",
        );
        assert_eq!(
            provider_ports(&env, &cfg),
            vec![443, 41234, 11434, 3128, 5555]
        );
    }

    #[test]
    fn url_ports() {
        assert_eq!(url_port("https://api.anthropic.com"), Some(443));
        assert_eq!(url_port("http://127.0.0.1/v1"), Some(80));
        assert_eq!(url_port("http://u:p@[::1]:8080/x"), Some(8080));
        assert_eq!(url_port("api.example.com"), None);
        assert_eq!(url_port("http://h:notaport"), None);
    }

    #[test]
    fn a_plugin_has_no_state_places() {
        assert!(own_paths("my-plugin", Catalog::EMPTY).is_empty());
        assert!(!own_paths("claude-acp", Catalog::EMPTY).is_empty());
    }

    #[test]
    fn xdg_roots_follow_the_environment() {
        let home = Path::new("/h");
        let var = |k: &str| (k == "XDG_CACHE_HOME").then(|| "/c".to_string());
        let roots = Roots::new(home, &var);
        assert_eq!(roots.resolve(Own::Cache("x"), &var), Some("/c/x".into()));
        assert_eq!(
            roots.resolve(Own::Config("x"), &var),
            Some("/h/.config/x".into())
        );
        assert_eq!(roots.resolve(Own::Env("CODEX_HOME"), &var), None);
    }
}
