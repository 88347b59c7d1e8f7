//! The example adapter components of `examples/wasm-adapter-goose/`,
//! built for `wasm32-wasip2` by the tests that use them: the Goose adapter,
//! the hostile component and the one that imports WASI. Built once per test
//! process (cargo's own lock serializes parallel test processes; a rebuild
//! with nothing changed takes a fraction of a second), into
//! `target/wasm-examples/` of this workspace.
//!
//! Without the `wasm32-wasip2` target (`rustup target add wasm32-wasip2`,
//! which `scripts/test.sh` runs) the tests skip loudly, or fail on CI
//! ([`crate::skip`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Paths of the built components.
#[derive(Debug, Clone)]
pub struct WasmExamples {
    /// The Goose adapter (`wasm_adapter_goose.wasm`).
    pub goose: PathBuf,
    /// The hostile component.
    pub hostile: PathBuf,
    /// The component that imports WASI (refused at load).
    pub imports_fs: PathBuf,
}

/// The examples' source directory.
pub fn examples_dir() -> PathBuf {
    workspace_root().join("examples/wasm-adapter-goose")
}

fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or(here)
}

/// Where the components are built.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
        .join("wasm-examples")
}

fn has_wasip2_target() -> bool {
    let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Path::new(&sysroot)
        .join("lib/rustlib/wasm32-wasip2")
        .is_dir()
}

fn cargo_build(dir: &Path, target: &Path) -> Result<(), String> {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(dir)
        .args([
            "build",
            "--release",
            "--locked",
            "--target",
            "wasm32-wasip2",
        ])
        .env("CARGO_TARGET_DIR", target)
        // The test's own build settings are not the components'.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo build --release --target wasm32-wasip2` in {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn build() -> Result<WasmExamples, String> {
    if !has_wasip2_target() {
        return Err("the wasm32-wasip2 target is not installed: rustup target add wasm32-wasip2 (scripts/test.sh does it)".into());
    }
    let dir = examples_dir();
    let target = target_dir();
    cargo_build(&dir, &target)?;
    cargo_build(&dir.join("imports-fs"), &target)?;
    let out = target.join("wasm32-wasip2/release");
    Ok(WasmExamples {
        goose: out.join("wasm_adapter_goose.wasm"),
        hostile: out.join("wasm_adapter_hostile.wasm"),
        imports_fs: out.join("wasm_adapter_imports_fs.wasm"),
    })
}

/// The built components, or `None` after a loud skip (on CI: a panic).
/// A build failure with the target installed is a test failure.
///
/// # Panics
///
/// When the components do not build, or on CI without the target.
pub fn wasm_examples() -> Option<WasmExamples> {
    static BUILT: OnceLock<Result<WasmExamples, String>> = OnceLock::new();
    match BUILT.get_or_init(build) {
        Ok(paths) => Some(paths.clone()),
        Err(why) if why.contains("rustup target add") => {
            crate::skip::skip_or_fail(why);
            None
        }
        Err(why) => panic!("{why}"),
    }
}
