//! The host config loader (`config.toml`): no panic on any file, and every
//! reader of a loaded config works on it.
#![no_main]

use cohost_discovery::config::HostConfig;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn path() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        // Memory-backed when there is one: the target writes a file per input.
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("cohost-fuzz-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("config.toml")
    })
}

fuzz_target!(|data: &[u8]| {
    let p = path();
    std::fs::write(p, data).unwrap();
    let Ok(mut cfg) = HostConfig::load(p) else {
        return;
    };
    let listed = cfg.list();
    for (k, _) in &listed {
        let _ = (cfg.get(k), cfg.get_str(k), cfg.line_of(k));
    }
    for id in cfg.user_defined_providers() {
        let _ = cfg.provider(&id);
    }
    for id in ["claude", "codex", "ollama", "mock"] {
        let _ = cfg.provider(id);
    }
    let _ = cfg.slot_names();
    let _ = cfg.get_str("active_provider");
    // What cohost writes back still loads.
    let text = cfg.to_text();
    std::fs::write(p, &text).unwrap();
    assert!(
        HostConfig::load(p).is_ok(),
        "a loaded config did not reload:\n{text}"
    );
    if cfg.set("active_model", "\"fuzz\"").is_ok() {
        std::fs::write(p, cfg.to_text()).unwrap();
        assert!(HostConfig::load(p).is_ok());
    }
    let _ = cfg.unset("active_model");
});
