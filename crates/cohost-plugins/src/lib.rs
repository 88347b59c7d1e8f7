//! Plugin manifests (seed 000 section 12): custom agents declared in TOML,
//! no Rust change needed; and the PTY tier ([`pty`]) they may run on. This
//! crate knows no built-in driver: the provider list comes in as a value
//! ([`load_plugins`]'s `catalog`, for the sandbox).
//!
//! Manifests live in the user's config dir (`$XDG_CONFIG_HOME/cohost/agents/
//! *.toml`, else `~/.config/cohost/agents/`) and the project's
//! `.cohost/agents/*.toml`. `protocol = "acp"` reuses the ACP driver;
//! `jsonl` maps JSON lines through declared field paths; `text` streams
//! stdout lines as answer text; `pty` runs an interactive program on the
//! PTY tier ([`crate::pty`]), typing each prompt at its `[pty] prompt`;
//! `wasm` runs a third-party adapter component in cohost's WebAssembly
//! sandbox ([`wasm`], `crates/cohost-wasm`). A bad manifest is reported and
//! skipped; it never stops cohost.
//!
//! ```toml
//! id = "my-agent"
//! label = "My agent"
//! binary = ["my-agent"]
//! protocol = "jsonl"
//! args = ["--json", "{prompt}"]
//! required_env = ["MY_AGENT_API_KEY"]
//! [jsonl]
//! type = "type"
//! text = { when = "delta", path = "text" }
//! end = { when = "done", input_tokens = "usage.input", output_tokens = "usage.output" }
//! ```

mod error;
pub(crate) mod jsonl;
pub mod manifest;
mod oneshot;
pub mod pty;
pub(crate) mod wasm;
#[cfg(feature = "wasm-plugins")]
mod wasm_adapter;
#[cfg(feature = "wasm-plugins")]
mod wasm_turn;

use cohost_core::{
    AdapterFactory, AgentAdapter, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::pty::{PtyFactory, PtySpec};
use cohost_acp::{AcpFactory, AcpSpec};
use cohost_process::provider::Catalog;
use manifest::{Manifest, Protocol};
pub(crate) use oneshot::OneShotAdapter;

pub use error::PluginError;
pub use jsonl::JsonlNormalizer;
pub use wasm::{wasm_plugins, WasmPluginInfo};

/// Where plugin manifests are looked for, in order: the user's config dir,
/// then the project's `.cohost/agents` under `cwd`.
pub fn default_plugin_dirs(cwd: &Path) -> Vec<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        });
    let mut dirs = Vec::new();
    if let Some(c) = config {
        dirs.push(c.join("cohost/agents"));
    }
    dirs.push(cwd.join(".cohost/agents"));
    dirs
}

/// Load every `*.toml` manifest in `dirs` (missing dirs are fine). Returns
/// the factories to register and the problems found; a problem in one file
/// never affects another. A second manifest with an id already loaded is an
/// error (built-in ids are refused when registering).
pub fn load_plugins(
    dirs: &[PathBuf],
    catalog: Catalog,
) -> (Vec<Arc<dyn AdapterFactory>>, Vec<PluginError>) {
    let mut factories: Vec<Arc<dyn AdapterFactory>> = Vec::new();
    let mut errors = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for dir in dirs {
        for file in manifest::manifest_files(dir) {
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    errors.push(PluginError {
                        file,
                        field: None,
                        line: None,
                        column: None,
                        reason: format!("could not read: {e}"),
                    });
                    continue;
                }
            };
            match manifest::parse(&file, &text) {
                Ok(m) if ids.contains(&m.id) => errors.push(PluginError {
                    file,
                    field: Some("id".into()),
                    line: None,
                    column: None,
                    reason: format!("`{}` is already defined by another plugin", m.id),
                }),
                Ok(m) => match make(m, &file, catalog) {
                    Ok((id, f)) => {
                        ids.push(id);
                        factories.push(f);
                    }
                    Err(e) => errors.push(e),
                },
                Err(e) => errors.push(e),
            }
        }
    }
    (factories, errors)
}

/// The factory of a parsed manifest from `file`, and its id; a wasm
/// plugin's component is inspected first (hash, world version, imports).
fn make(
    m: Manifest,
    file: &Path,
    catalog: Catalog,
) -> Result<(String, Arc<dyn AdapterFactory>), PluginError> {
    let id = m.id.clone();
    let f: Arc<dyn AdapterFactory> = match m.protocol {
        Protocol::Acp => Arc::new(AcpFactory::new(
            AcpSpec {
                label: m.label.clone().unwrap_or_else(|| m.id.clone()),
                id: m.id,
                binaries: m.binary.to_vec(),
                args: m.args,
                model_args: m.model_args,
                model_env: None,
                env_prefixes: m.env_prefixes,
                env: m.env.into_iter().collect(),
                root_env: Vec::new(),
                ask_env: Vec::new(),
                approval_modes: None,
                restart_after_cancel: false,
                required_env: m.required_env,
                // Decided at runtime by the agent's `loadSession` capability.
                resume: ResumeSupport::NativeId,
                reasoning: true,
                usage: false,
                tier: SupportTier::Structured,
                install_hint: "install the agent named in its plugin manifest".into(),
                text_errors: cohost_acp::spec::TextErrors::None,
            },
            catalog,
        )),
        Protocol::Jsonl | Protocol::Text => Arc::new(OneShotFactory {
            manifest: m,
            catalog,
        }),
        Protocol::Pty => Arc::new(pty_factory(m)),
        #[cfg(feature = "wasm-plugins")]
        Protocol::Wasm => wasm_adapter::factory(m, file, catalog)?,
        #[cfg(not(feature = "wasm-plugins"))]
        Protocol::Wasm => wasm::factory(m, file)?,
    };
    Ok((id, f))
}

/// A `pty` plugin: the PTY tier with the manifest's program and prompt.
fn pty_factory(m: Manifest) -> PtyFactory {
    let names = m.binary.to_vec();
    let mut descriptor =
        crate::pty::descriptor(m.id.clone(), m.label.unwrap_or_else(|| m.id.clone()));
    descriptor.install_hint = Some(format!(
        "install `{}` (plugin manifest)",
        names.join("` or `")
    ));
    PtyFactory::from_spec(
        descriptor,
        PtySpec {
            binaries: names,
            args: m.args,
            model_args: m.model_args,
            env: m.env,
            env_prefixes: m.env_prefixes,
            required_env: m.required_env,
            version_args: m.version_args,
            // `parse` refuses a pty manifest without one.
            prompt: m.pty.map(|p| p.prompt).unwrap_or_else(|| "> ".into()),
            install_hint: format!("install `{}` or fix `binary` in its plugin manifest", m.id),
        },
    )
}

/// Factory of a `jsonl` / `text` plugin.
#[derive(Debug, Clone)]
pub(crate) struct OneShotFactory {
    manifest: Manifest,
    catalog: Catalog,
}

impl AdapterFactory for OneShotFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        let m = &self.manifest;
        let resumes =
            !m.resume_args.is_empty() && m.jsonl.as_ref().is_some_and(|j| j.session_id.is_some());
        ProviderDescriptor {
            id: m.id.clone(),
            label: m.label.clone().unwrap_or_else(|| m.id.clone()),
            kind: ProviderKind::AgentCli,
            capabilities: Capabilities {
                streaming: StreamingGranularity::TokenDeltas,
                reasoning: m.jsonl.as_ref().is_some_and(|j| j.reasoning.is_some()),
                approvals: ApprovalSupport::None,
                interrupt: InterruptSupport::Signal,
                resume: if resumes {
                    ResumeSupport::NativeId
                } else {
                    ResumeSupport::None
                },
                usage: m
                    .jsonl
                    .as_ref()
                    .and_then(|j| j.end.as_ref())
                    .is_some_and(|e| e.input_tokens.is_some() || e.output_tokens.is_some()),
                context_files: false,
                images: false,
                fork: false,
                system_prompt: false,
                mcp_servers: false,
                mcp_approvals: false,
                steer: false,
                executes_tools: true,
                // `text` scrapes plain stdout: degraded like a PTY driver.
                tier: if m.protocol == Protocol::Text {
                    SupportTier::Pty
                } else {
                    SupportTier::Structured
                },
            },
            install_hint: Some(format!(
                "install `{}` (plugin manifest)",
                m.binary.to_vec().join("` or `")
            )),
        }
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(OneShotAdapter::new(
            self.manifest.clone(),
            self.descriptor(),
            self.catalog,
        ))
    }

    fn is_available(&self) -> bool {
        let path = std::env::var_os("PATH");
        self.manifest.binary.to_vec().iter().any(|b| {
            cohost_process::find_on_path(b, path.as_deref()).is_some() || Path::new(b).is_file()
        })
    }
}

/// For the Goose component's test in `cohost-agents` (which has the
/// built-in Goose driver and its transcripts): a wasm turn and cohost's
/// classifier.
#[cfg(feature = "wasm-plugins")]
#[doc(hidden)]
pub use {wasm_adapter::CLASSIFY, wasm_turn::WasmTurn};

#[cfg(test)]
mod tests;
