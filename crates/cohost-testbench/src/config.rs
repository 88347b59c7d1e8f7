//! Exactly the environment and config files that point each CLI at the fake
//! server, with telemetry, update checks and every other outbound call off.
//!
//! Pure: a [`Layout`] and a base URL in, a [`Setup`] (variables and file
//! contents) out. [`crate::Bench`] writes the files; unit tests read them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli::AgentCli;

/// The model id every CLI is told to use; the fake server answers any id.
pub const FAKE_MODEL: &str = "fake-model";

/// The API key every CLI is given. Not a secret: the fake server accepts anything.
pub const FAKE_API_KEY: &str = "cohost-bench-not-a-secret";

/// Where a bench keeps one scratch user: every directory a CLI could write to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The scratch root (a temp dir); everything below lives in it.
    pub root: PathBuf,
    /// `HOME`.
    pub home: PathBuf,
    /// `XDG_CONFIG_HOME`.
    pub xdg_config: PathBuf,
    /// `XDG_DATA_HOME`.
    pub xdg_data: PathBuf,
    /// `XDG_CACHE_HOME`.
    pub xdg_cache: PathBuf,
    /// `XDG_STATE_HOME`.
    pub xdg_state: PathBuf,
    /// `CODEX_HOME`.
    pub codex_home: PathBuf,
    /// `TMPDIR`, so temp files die with the scratch root.
    pub tmp: PathBuf,
    /// The agent's working directory (a project with nothing in it).
    pub work: PathBuf,
}

impl Layout {
    /// The standard layout below `root`.
    pub fn under(root: &Path) -> Layout {
        let home = root.join("home");
        Layout {
            root: root.to_path_buf(),
            xdg_config: home.join(".config"),
            xdg_data: home.join(".local/share"),
            xdg_cache: home.join(".cache"),
            xdg_state: home.join(".local/state"),
            codex_home: home.join(".codex"),
            tmp: root.join("tmp"),
            work: root.join("work"),
            home,
        }
    }

    /// Every directory the layout names, to create before a run.
    pub fn dirs(&self) -> [&Path; 9] {
        [
            &self.root,
            &self.home,
            &self.xdg_config,
            &self.xdg_data,
            &self.xdg_cache,
            &self.xdg_state,
            &self.codex_home,
            &self.tmp,
            &self.work,
        ]
    }

    /// Variables every CLI gets: the scratch user and a plain, colourless terminal.
    fn base_env(&self) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        let mut put = |k: &str, v: &Path| {
            env.insert(k.to_string(), v.display().to_string());
        };
        put("HOME", &self.home);
        put("XDG_CONFIG_HOME", &self.xdg_config);
        put("XDG_DATA_HOME", &self.xdg_data);
        put("XDG_CACHE_HOME", &self.xdg_cache);
        put("XDG_STATE_HOME", &self.xdg_state);
        put("CODEX_HOME", &self.codex_home);
        put("TMPDIR", &self.tmp);
        for (k, v) in [
            ("NO_COLOR", "1"),
            ("TERM", "dumb"),
            ("LANG", "C.UTF-8"),
            // Loopback must never go through a proxy, whatever a CLI's HTTP stack assumes.
            ("NO_PROXY", "127.0.0.1,localhost"),
            ("no_proxy", "127.0.0.1,localhost"),
        ] {
            env.insert(k.to_string(), v.to_string());
        }
        env
    }
}

/// What one CLI needs besides the scratch user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Setup {
    /// Environment variables (the whole child environment except `PATH` and the marker).
    pub env: BTreeMap<String, String>,
    /// Config files to write before the run: absolute path and contents.
    pub files: Vec<(PathBuf, String)>,
}

impl Setup {
    fn set(&mut self, key: &str, value: impl Into<String>) {
        self.env.insert(key.to_string(), value.into());
    }

    fn file(&mut self, path: PathBuf, contents: String) {
        self.files.push((path, contents));
    }
}

/// The offline setup of `cli` for a fake server at `base_url`
/// (`http://127.0.0.1:PORT`, no trailing slash).
pub fn offline_setup(cli: AgentCli, layout: &Layout, base_url: &str) -> Setup {
    let mut s = Setup {
        env: layout.base_env(),
        files: Vec::new(),
    };
    let v1 = format!("{base_url}/v1");
    match cli {
        AgentCli::Claude | AgentCli::ClaudeCodeAcp => {
            claude_env(&mut s, base_url);
            if cli == AgentCli::ClaudeCodeAcp {
                // Its bundled Claude Code refuses some modes as root without it.
                s.set("IS_SANDBOX", "1");
                // The bundled Claude Code (2.1.44) asks api.anthropic.com for the
                // org's fast-mode status, ignoring ANTHROPIC_BASE_URL.
                s.set("CLAUDE_CODE_DISABLE_FAST_MODE", "1");
            }
        }
        AgentCli::Codex | AgentCli::CodexAcp => {
            s.set("FAKE_API_KEY", FAKE_API_KEY);
            s.file(layout.codex_home.join("config.toml"), codex_config(&v1));
        }
        AgentCli::Gemini => {
            s.set("GEMINI_API_KEY", FAKE_API_KEY);
            s.set("GOOGLE_GEMINI_BASE_URL", base_url);
            s.set("GEMINI_CLI_TRUST_WORKSPACE", "true");
            // One process instead of a re-spawned child: clean signals, no orphans.
            s.set("GEMINI_CLI_NO_RELAUNCH", "true");
            s.file(
                layout.home.join(".gemini/settings.json"),
                gemini_style_settings("gemini-api-key"),
            );
        }
        AgentCli::Qwen => {
            s.set("OPENAI_API_KEY", FAKE_API_KEY);
            s.set("OPENAI_BASE_URL", &v1);
            s.set("OPENAI_MODEL", FAKE_MODEL);
            s.set("QWEN_CODE_NO_RELAUNCH", "true");
            s.file(
                layout.home.join(".qwen/settings.json"),
                gemini_style_settings("openai"),
            );
        }
        AgentCli::OpenCode => {
            for switch in [
                "OPENCODE_DISABLE_AUTOUPDATE",
                "OPENCODE_DISABLE_MODELS_FETCH",
                "OPENCODE_DISABLE_SHARE",
                "OPENCODE_DISABLE_LSP_DOWNLOAD",
                // Default plugins are fetched from npm on first use.
                "OPENCODE_DISABLE_DEFAULT_PLUGINS",
            ] {
                s.set(switch, "1");
            }
            let dir = layout.xdg_config.join("opencode");
            s.file(dir.join("opencode.json"), opencode_config(&v1));
            // On every start opencode npm-installs `@opencode-ai/plugin` into each
            // writable config dir (from registry.npmjs.org) unless `node_modules/`
            // exists and package-lock.json already lists every wanted dependency.
            // Nothing imports it without user plugins, so a stub lock suffices.
            s.file(
                dir.join("package-lock.json"),
                json!({"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}})
                    .to_string(),
            );
            s.file(
                dir.join("node_modules/.cohost-bench"),
                "written by cohost-testbench so opencode skips its npm install\n".to_string(),
            );
        }
        AgentCli::Kilo => {
            // OpenCode's switches under Kilo's names, plus no daemon, no
            // telemetry and no session ingest.
            for switch in [
                "KILO_DISABLE_AUTOUPDATE",
                "KILO_DISABLE_MODELS_FETCH",
                "KILO_DISABLE_SHARE",
                "KILO_DISABLE_LSP_DOWNLOAD",
                "KILO_DISABLE_DEFAULT_PLUGINS",
                "KILO_DISABLE_SESSION_INGEST",
                "KILO_NO_DAEMON",
            ] {
                s.set(switch, "1");
            }
            s.set("KILO_TELEMETRY_LEVEL", "off");
            s.file(layout.xdg_config.join("kilo/kilo.json"), kilo_config(&v1));
        }
        AgentCli::Cline => {
            // The key in the environment spares ACP's `authenticate`; the
            // provider and model keep it off Cline's own gateway.
            s.set("CLINE_API_KEY", FAKE_API_KEY);
            s.set("CLINE_PROVIDER", "openai-compatible");
            s.set("CLINE_MODEL", FAKE_MODEL);
            s.set("CLINE_NO_AUTO_UPDATE", "1");
            s.set("CLINE_SESSION_BACKEND_MODE", "local");
            let dir = layout.home.join(".cline/data/settings");
            for (name, body) in cline_settings(&v1) {
                s.file(dir.join(name), body);
            }
        }
        AgentCli::Vibe => {
            // The provider in config.toml names this variable for its key.
            s.set("FAKE_API_KEY", FAKE_API_KEY);
            s.file(layout.home.join(".vibe/config.toml"), vibe_config(&v1));
        }
        AgentCli::Copilot => {
            s.set("COPILOT_PROVIDER_BASE_URL", &v1);
            s.set("COPILOT_PROVIDER_API_KEY", FAKE_API_KEY);
            s.set("COPILOT_MODEL", FAKE_MODEL);
            s.set("COPILOT_AUTO_UPDATE", "false");
            // No GitHub auth, telemetry, web tools, MCP or update checks.
            s.set("COPILOT_OFFLINE", "true");
        }
        AgentCli::Aider => {
            s.set("OPENAI_API_KEY", FAKE_API_KEY);
            s.set("OPENAI_API_BASE", &v1);
            s.set("AIDER_ANALYTICS", "false");
            s.set("AIDER_CHECK_UPDATE", "false");
            // litellm downloads its cost map from raw.githubusercontent.com on
            // import unless told to use the copy it ships.
            s.set("LITELLM_LOCAL_MODEL_COST_MAP", "True");
            // Any non-empty JSON here stops aider downloading litellm's price map.
            s.file(
                layout
                    .home
                    .join(".aider/caches/model_prices_and_context_window.json"),
                aider_model_metadata(),
            );
        }
        AgentCli::Continue => {
            s.set("CONTINUE_CLI_ENABLE_TELEMETRY", "0");
            s.set("CONTINUE_METRICS_ENABLED", "0");
            let global = layout.home.join(".continue");
            s.set("CONTINUE_GLOBAL_DIR", global.display().to_string());
            s.file(
                global.join("index/globalContext.json"),
                json!({"autoUpdateCli": false}).to_string(),
            );
            s.file(continue_config_path(layout), continue_config(&v1));
            // cn fetches https://api.continue.dev/cn/info (with a machine id) on
            // every start and has no switch for it; a preload refuses any fetch
            // that is not to loopback. Model calls go to 127.0.0.1 and pass.
            let guard = layout.root.join("node/offline-fetch.cjs");
            s.set("NODE_OPTIONS", format!("--require \"{}\"", guard.display()));
            s.file(guard, OFFLINE_FETCH_JS.to_string());
        }
    }
    s
}

/// The config file `cn --config` must be given (Continue has no env for its model).
pub fn continue_config_path(layout: &Layout) -> PathBuf {
    layout.home.join(".continue/config.yaml")
}

fn claude_env(s: &mut Setup, base_url: &str) {
    s.set("ANTHROPIC_BASE_URL", base_url);
    s.set("ANTHROPIC_API_KEY", FAKE_API_KEY);
    for switch in [
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_AUTOUPDATER",
        "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING",
    ] {
        s.set(switch, "1");
    }
}

/// Node preload that makes `fetch` reject every non-loopback URL.
const OFFLINE_FETCH_JS: &str = r#"'use strict';
// Written by cohost-testbench: tests must never leave 127.0.0.1.
const realFetch = globalThis.fetch;
if (typeof realFetch === 'function') {
  const local = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
  globalThis.fetch = function (input, init) {
    let host = '';
    try {
      const url = typeof input === 'string' || input instanceof URL ? input : input.url;
      host = new URL(url).hostname;
    } catch (_) {}
    if (!local.has(host)) {
      return Promise.reject(new TypeError('cohost-testbench blocked a fetch to ' + host));
    }
    return realFetch.call(this, input, init);
  };
}
"#;

fn codex_config(v1: &str) -> String {
    // TOML basic strings share JSON's escaping for what a URL can contain.
    let url = serde_json::Value::String(v1.to_string());
    format!(
        "model = \"{FAKE_MODEL}\"\n\
         model_provider = \"fake\"\n\
         check_for_update_on_startup = false\n\
         \n\
         [model_providers.fake]\n\
         name = \"cohost fake-llm\"\n\
         base_url = {url}\n\
         env_key = \"FAKE_API_KEY\"\n\
         wire_api = \"responses\"\n\
         \n\
         [analytics]\n\
         enabled = false\n\
         \n\
         # Plugin and app sync reach github.com and chatgpt.com on every start.\n\
         [features]\n\
         plugins = false\n\
         apps = false\n"
    )
}

/// Mistral Vibe's `~/.vibe/config.toml`: one OpenAI-style provider at the
/// fake server and its model as the active one; telemetry (which also
/// gates its GrowthBook experiments), update checks, self-update and
/// desktop notifications off.
fn vibe_config(v1: &str) -> String {
    // TOML basic strings share JSON's escaping for what a URL can contain.
    let url = serde_json::Value::String(v1.to_string());
    format!(
        "active_model = \"{FAKE_MODEL}\"\n\
         enable_telemetry = false\n\
         enable_update_checks = false\n\
         enable_auto_update = false\n\
         enable_notifications = false\n\
         \n\
         [[providers]]\n\
         name = \"fake\"\n\
         api_base = {url}\n\
         api_key_env_var = \"FAKE_API_KEY\"\n\
         api_style = \"openai\"\n\
         \n\
         [[models]]\n\
         name = \"{FAKE_MODEL}\"\n\
         provider = \"fake\"\n\
         alias = \"{FAKE_MODEL}\"\n"
    )
}

/// Gemini CLI and its fork Qwen Code share the settings schema.
fn gemini_style_settings(auth_type: &str) -> String {
    json!({
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "security": {"auth": {"selectedType": auth_type}},
    })
    .to_string()
}

fn opencode_config(v1: &str) -> String {
    opencode_family_config("https://opencode.ai/config.json", v1).to_string()
}

/// OpenCode's config under Kilo's schema, with only the fake provider
/// enabled (Kilo's own gateway provider is on by default).
fn kilo_config(v1: &str) -> String {
    let mut c = opencode_family_config("https://app.kilo.ai/config.json", v1);
    c["enabled_providers"] = json!(["fake"]);
    c.to_string()
}

/// The config of OpenCode and its forks: the fake server as an
/// OpenAI-compatible provider, updates and sharing off.
fn opencode_family_config(schema: &str, v1: &str) -> serde_json::Value {
    json!({
        "$schema": schema,
        "model": format!("fake/{FAKE_MODEL}"),
        "autoupdate": false,
        "share": "disabled",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "cohost fake-llm",
                "options": {"baseURL": v1, "apiKey": FAKE_API_KEY},
                "models": {FAKE_MODEL: {"name": FAKE_MODEL, "tool_call": true}},
            }
        },
    })
}

/// Cline's settings files: an OpenAI-compatible provider at the fake
/// server (Cline ignores a provider entry without `updatedAt`), its model,
/// and telemetry and update checks off.
fn cline_settings(v1: &str) -> [(&'static str, String); 3] {
    let providers = json!({
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": {"openai-compatible": {
            "settings": {"provider": "openai-compatible", "apiKey": FAKE_API_KEY, "model": FAKE_MODEL, "baseUrl": v1},
            "updatedAt": "2026-01-01T00:00:00.000Z",
            "tokenSource": "manual",
        }},
    });
    let models = json!({
        "version": 1,
        "providers": {"openai-compatible": {
            "provider": {"name": "OpenAI Compatible", "baseUrl": v1, "defaultModelId": FAKE_MODEL},
            "models": {FAKE_MODEL: {
                "id": FAKE_MODEL, "name": FAKE_MODEL, "contextWindow": 128000,
                "maxInputTokens": 128000, "capabilities": ["streaming", "tools"],
            }},
        }},
    });
    let global = json!({"telemetryOptOut": true, "autoUpdateEnabled": false});
    [
        ("providers.json", providers.to_string()),
        ("models.json", models.to_string()),
        ("global-settings.json", global.to_string()),
    ]
}

fn aider_model_metadata() -> String {
    json!({
        format!("openai/{FAKE_MODEL}"): {
            "max_input_tokens": 128000,
            "max_output_tokens": 8192,
            "input_cost_per_token": 0.0,
            "output_cost_per_token": 0.0,
            "litellm_provider": "openai",
            "mode": "chat",
        }
    })
    .to_string()
}

fn continue_config(v1: &str) -> String {
    // YAML is a superset of JSON, so a serde_json document is valid config.yaml.
    json!({
        "name": "cohost bench",
        "version": "1.0.0",
        "schema": "v1",
        "models": [{
            "name": FAKE_MODEL,
            "provider": "openai",
            "model": FAKE_MODEL,
            "apiBase": v1,
            "apiKey": FAKE_API_KEY,
            "roles": ["chat", "edit", "apply"],
        }],
    })
    .to_string()
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
