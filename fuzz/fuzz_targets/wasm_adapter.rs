//! WebAssembly adapters (issue 35). The first byte picks the mode:
//!
//! - even: the rest is a component. Inspecting it (hash, world version,
//!   imports) and loading it (compile, type checks) must return a typed
//!   error or a component, never panic; a component that loads gets one
//!   turn of a few lines, whose calls must end in events or a typed error.
//! - odd: the rest is an agent's stdout, fed line by line (then an exit)
//!   to the Goose example component (`examples/wasm-adapter-goose`, built
//!   by scripts/fuzz.sh into target/wasm-examples). The example must never
//!   trap, break a limit or return a malformed event on any input: any
//!   error is a crash.
#![no_main]

use cohost_core::ErrorCode;
use cohost_wasm::{AdapterComponent, Classify, Exit, Limits, LoadOptions, Runtime, StartOptions};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn options(plugin: &str) -> LoadOptions {
    LoadOptions {
        plugin: plugin.into(),
        sha256: None,
        limits: Limits::default(),
        classify: Classify {
            class_of: |_| None::<ErrorCode>,
            fix_for: |_| "fuzz",
        },
    }
}

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| Runtime::shared().expect("a wasmtime engine on this host"))
}

/// The Goose example, built by scripts/fuzz.sh (or the test suite).
fn goose() -> &'static AdapterComponent {
    static GOOSE: OnceLock<AdapterComponent> = OnceLock::new();
    GOOSE.get_or_init(|| {
        let path = std::env::var_os("COHOST_FUZZ_WASM_ADAPTER")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../target/wasm-examples/wasm32-wasip2/release/wasm_adapter_goose.wasm")
            });
        AdapterComponent::load_file(runtime(), &path, options("goose")).unwrap_or_else(|e| {
            panic!(
                "{e}: build it with `cargo build --release --target wasm32-wasip2 --target-dir target/wasm-examples` in examples/wasm-adapter-goose (scripts/fuzz.sh does)"
            )
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        let _ = cohost_wasm::inspect("fuzz", rest, None);
        let loaded = AdapterComponent::load(runtime(), rest, options("fuzz"));
        // Every input is new: keep the compiled-component cache from
        // growing for the whole run.
        runtime().clear_cache();
        let Ok(c) = loaded else { return };
        let Ok(mut t) = c.instantiate() else { return };
        if t.start(StartOptions::default()).is_ok() {
            let _ = t.on_line("{}");
            let _ = t.on_exit(Exit::default());
        }
        return;
    }
    let mut t = goose()
        .instantiate()
        .expect("the goose example instantiates");
    t.start(StartOptions {
        session_id: Some("cohost-fuzz".into()),
        ..StartOptions::default()
    })
    .expect("the goose example starts");
    let text = String::from_utf8_lossy(rest);
    for line in text.split('\n') {
        if t.ended() {
            break;
        }
        if let Err(e) = t.on_line(line) {
            panic!("the goose example failed on {line:?}: {e}");
        }
    }
    if !t.ended() {
        if let Err(e) = t.on_exit(Exit {
            code: Some(1),
            ..Exit::default()
        }) {
            panic!("the goose example failed on exit: {e}");
        }
    }
});
