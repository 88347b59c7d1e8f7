use super::*;
use cohost_core::ErrorCode;

#[test]
fn the_pinned_table_prices_the_agents_models() {
    let t = PriceTable::pinned();
    assert!(t.len() > 100, "{}", t.len());
    let sonnet = t.price("claude-sonnet-4-5").unwrap();
    assert!(sonnet.input_cost_per_token > 0.0 && sonnet.output_cost_per_token > 0.0);
    // A dated name falls back to its family; a prefixed one to its plain name.
    assert_eq!(t.price("claude-sonnet-4-5-29991231"), Some(sonnet));
    assert_eq!(t.price("anthropic/claude-sonnet-4-5"), Some(sonnet));
    assert!(t.price("gpt-5").is_some());
    assert!(t.price("fake-model").is_none());
    let f = PriceFile::parse(PINNED, "pinned").unwrap();
    assert!(f.version.contains("litellm"), "{}", f.version);
    assert!(f.source.contains("model_prices_and_context_window"));
}

#[test]
fn trimming_keeps_direct_chat_models_and_four_fields() {
    let full = r#"{
      "sample_spec": {"mode": "chat"},
      "claude-x": {"mode": "chat", "litellm_provider": "anthropic", "input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "cache_read_input_token_cost": 1e-7, "max_tokens": 9},
      "gemini/gemini-x": {"mode": "chat", "litellm_provider": "gemini", "input_cost_per_token": 3e-6, "output_cost_per_token": 4e-6},
      "openrouter/claude-x": {"mode": "chat", "litellm_provider": "openrouter", "input_cost_per_token": 9, "output_cost_per_token": 9},
      "text-embedding-x": {"mode": "embedding", "litellm_provider": "openai", "input_cost_per_token": 1e-9, "output_cost_per_token": 0}
    }"#;
    let f = trim_litellm(full, "test", "1").unwrap();
    assert_eq!(
        f.models.keys().collect::<Vec<_>>(),
        vec!["claude-x", "gemini-x"]
    );
    assert_eq!(f.models["claude-x"].cache_read_input_token_cost, Some(1e-7));
    let again = PriceFile::parse(&f.to_text(), "round trip").unwrap();
    assert_eq!(again.models, f.models);
    assert_eq!(
        trim_litellm("[]", "t", "1").unwrap_err().code(),
        ErrorCode::ConfigInvalid
    );
}

#[test]
fn config_overrides_beat_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[prices.fake-model]\ninput = 1000.0\noutput = 2000.0\n\n[prices.\"claude-sonnet-4-5\"]\ninput = 1\noutput = 1\n",
    )
    .unwrap();
    let cfg = HostConfig::load(&path).unwrap();
    let t = PriceTable::load(&cfg).unwrap();
    let p = t.price("fake-model").unwrap();
    assert!((p.input_cost_per_token - 0.001).abs() < 1e-12);
    assert!((t.price("claude-sonnet-4-5").unwrap().input_cost_per_token - 1e-6).abs() < 1e-15);
    std::fs::write(&path, "[prices.half]\ninput = 1.0\n").unwrap();
    let cfg = HostConfig::load(&path).unwrap();
    assert_eq!(
        PriceTable::load(&cfg).unwrap_err().code(),
        ErrorCode::ConfigInvalid
    );
}
