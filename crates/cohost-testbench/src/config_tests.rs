use super::*;

const URL: &str = "http://127.0.0.1:4242";

fn layout() -> Layout {
    Layout::under(Path::new("/scratch/x"))
}

#[test]
fn every_cli_is_pointed_at_the_fake_server_and_stays_in_the_scratch_root() {
    let l = layout();
    for cli in AgentCli::ALL {
        let s = offline_setup(cli, &l, URL);
        assert_eq!(s.env["HOME"], "/scratch/x/home", "{cli}");
        assert_eq!(s.env["CODEX_HOME"], "/scratch/x/home/.codex", "{cli}");
        let in_env = s.env.values().any(|v| v.starts_with(URL));
        let in_files = s.files.iter().any(|(_, c)| c.contains(URL));
        assert!(in_env || in_files, "{cli}: base URL nowhere");
        for (path, contents) in &s.files {
            assert!(
                path.starts_with(&l.root),
                "{cli}: {} escapes",
                path.display()
            );
            if path.extension().is_some_and(|e| e == "json" || e == "yaml") {
                let parsed: serde_json::Value = serde_json::from_str(contents)
                    .unwrap_or_else(|e| panic!("{cli}: {} not JSON: {e}", path.display()));
                assert!(parsed.as_object().is_some_and(|o| !o.is_empty()));
            }
        }
        // Nothing from the developer's machine: PATH and the marker come later.
        assert!(!s.env.contains_key("PATH"));
        for v in s.env.values() {
            assert!(
                !v.contains("/root/") && !v.starts_with("/home/"),
                "{cli}: {v}"
            );
        }
    }
}

#[test]
fn claude_env_is_exactly_what_agents_md_lists() {
    let s = offline_setup(AgentCli::Claude, &layout(), URL);
    assert_eq!(s.env["ANTHROPIC_BASE_URL"], URL);
    assert_eq!(s.env["ANTHROPIC_API_KEY"], FAKE_API_KEY);
    for k in [
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_AUTOUPDATER",
        "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING",
    ] {
        assert_eq!(s.env[k], "1", "{k}");
    }
    assert!(s.files.is_empty());
    assert!(!s.env.contains_key("IS_SANDBOX"));
    let acp = offline_setup(AgentCli::ClaudeCodeAcp, &layout(), URL);
    assert_eq!(acp.env["IS_SANDBOX"], "1");
    assert_eq!(acp.env["CLAUDE_CODE_DISABLE_FAST_MODE"], "1");
}

#[test]
fn codex_config_uses_the_responses_wire_and_disables_analytics() {
    for cli in [AgentCli::Codex, AgentCli::CodexAcp] {
        let s = offline_setup(cli, &layout(), URL);
        assert_eq!(s.env["FAKE_API_KEY"], FAKE_API_KEY);
        let (path, toml) = &s.files[0];
        assert_eq!(path, Path::new("/scratch/x/home/.codex/config.toml"));
        for needle in [
            "model_provider = \"fake\"",
            "[model_providers.fake]",
            "base_url = \"http://127.0.0.1:4242/v1\"",
            "env_key = \"FAKE_API_KEY\"",
            "wire_api = \"responses\"",
            "[analytics]\nenabled = false",
            "check_for_update_on_startup = false",
            "[features]\nplugins = false\napps = false",
        ] {
            assert!(toml.contains(needle), "missing {needle:?} in\n{toml}");
        }
    }
}

#[test]
fn gemini_and_qwen_settings_turn_telemetry_and_updates_off() {
    for (cli, file, auth) in [
        (AgentCli::Gemini, ".gemini/settings.json", "gemini-api-key"),
        (AgentCli::Qwen, ".qwen/settings.json", "openai"),
    ] {
        let s = offline_setup(cli, &layout(), URL);
        let (path, body) = &s.files[0];
        assert!(path.ends_with(file));
        let v: serde_json::Value = serde_json::from_str(body).expect("settings are JSON");
        assert_eq!(v["telemetry"]["enabled"], false);
        assert_eq!(v["privacy"]["usageStatisticsEnabled"], false);
        assert_eq!(v["general"]["enableAutoUpdate"], false);
        assert_eq!(v["security"]["auth"]["selectedType"], auth);
    }
}

#[test]
fn aider_price_map_is_pre_seeded_with_non_empty_json() {
    let s = offline_setup(AgentCli::Aider, &layout(), URL);
    let (path, body) = s
        .files
        .iter()
        .find(|(p, _)| p.ends_with(".aider/caches/model_prices_and_context_window.json"))
        .expect("price map written");
    assert!(path.starts_with("/scratch/x/home"));
    let v: serde_json::Value = serde_json::from_str(body).expect("JSON");
    assert!(v.get("openai/fake-model").is_some());
    assert_eq!(s.env["OPENAI_API_BASE"], "http://127.0.0.1:4242/v1");
}

#[test]
fn opencode_and_copilot_switches() {
    let s = offline_setup(AgentCli::OpenCode, &layout(), URL);
    assert_eq!(s.env["OPENCODE_DISABLE_AUTOUPDATE"], "1");
    let v: serde_json::Value = serde_json::from_str(&s.files[0].1).expect("JSON");
    assert_eq!(
        v["provider"]["fake"]["options"]["baseURL"],
        "http://127.0.0.1:4242/v1"
    );
    assert_eq!(v["model"], "fake/fake-model");
    let c = offline_setup(AgentCli::Copilot, &layout(), URL);
    assert_eq!(
        c.env["COPILOT_PROVIDER_BASE_URL"],
        "http://127.0.0.1:4242/v1"
    );
    assert_eq!(c.env["COPILOT_MODEL"], FAKE_MODEL);
    assert_eq!(c.env["COPILOT_AUTO_UPDATE"], "false");
}

#[test]
fn kilo_gets_only_the_fake_provider_and_no_daemon() {
    let s = offline_setup(AgentCli::Kilo, &layout(), URL);
    assert_eq!(s.env["KILO_NO_DAEMON"], "1");
    assert_eq!(s.env["KILO_DISABLE_AUTOUPDATE"], "1");
    assert_eq!(s.env["KILO_TELEMETRY_LEVEL"], "off");
    let (path, body) = &s.files[0];
    assert!(path.ends_with(".config/kilo/kilo.json"), "{path:?}");
    let v: serde_json::Value = serde_json::from_str(body).expect("JSON");
    assert_eq!(v["enabled_providers"], serde_json::json!(["fake"]));
    assert_eq!(
        v["provider"]["fake"]["options"]["baseURL"],
        "http://127.0.0.1:4242/v1"
    );
    assert_eq!(v["model"], "fake/fake-model");
}

#[test]
fn cline_points_at_the_fake_server_without_a_hub() {
    let s = offline_setup(AgentCli::Cline, &layout(), URL);
    assert_eq!(s.env["CLINE_SESSION_BACKEND_MODE"], "local");
    assert_eq!(s.env["CLINE_PROVIDER"], "openai-compatible");
    let providers = s
        .files
        .iter()
        .find(|(p, _)| p.ends_with(".cline/data/settings/providers.json"))
        .expect("providers.json");
    let v: serde_json::Value = serde_json::from_str(&providers.1).expect("JSON");
    let p = &v["providers"]["openai-compatible"];
    assert_eq!(p["settings"]["baseUrl"], "http://127.0.0.1:4242/v1");
    assert!(p["updatedAt"].is_string());
    assert_eq!(s.files.len(), 3);
}

#[test]
fn vibe_uses_only_the_fake_provider_with_telemetry_and_updates_off() {
    let s = offline_setup(AgentCli::Vibe, &layout(), URL);
    assert_eq!(s.files.len(), 1);
    let (path, toml) = &s.files[0];
    assert!(path.ends_with(".vibe/config.toml"), "{path:?}");
    assert_eq!(s.env["FAKE_API_KEY"], FAKE_API_KEY);
    for line in [
        "active_model = \"fake-model\"",
        "api_base = \"http://127.0.0.1:4242/v1\"",
        "api_key_env_var = \"FAKE_API_KEY\"",
        "api_style = \"openai\"",
        "enable_telemetry = false",
        "enable_update_checks = false",
        "enable_auto_update = false",
    ] {
        assert!(toml.lines().any(|l| l == line), "{line} missing: {toml}");
    }
    assert_eq!(toml.matches("[[providers]]").count(), 1, "{toml}");
}

#[test]
fn continue_fetches_are_confined_to_loopback_by_a_preload() {
    let s = offline_setup(AgentCli::Continue, &layout(), URL);
    let opts = &s.env["NODE_OPTIONS"];
    assert_eq!(opts, "--require \"/scratch/x/node/offline-fetch.cjs\"");
    let (_, js) = s
        .files
        .iter()
        .find(|(p, _)| p.ends_with("node/offline-fetch.cjs"))
        .expect("preload written");
    assert!(js.contains("globalThis.fetch = function"));
    assert_eq!(
        offline_setup(AgentCli::Aider, &layout(), URL).env["LITELLM_LOCAL_MODEL_COST_MAP"],
        "True"
    );
}
