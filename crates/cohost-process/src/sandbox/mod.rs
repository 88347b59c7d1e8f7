//! The OS sandbox policy of one agent launch (issue 36), computed here from
//! the session's [`SandboxRequest`] and what the agent is known to need,
//! and enforced by its supervisor (`cohost_supervisor::sandbox`) between
//! fork and exec, so every process the agent starts inherits it.
//!
//! The rule, in the order it is built:
//! - **read**: everything, except other people's secrets: [`needs::SECRETS`]
//!   under `$HOME` (`~/.ssh`, `~/.aws`, `~/.gnupg`...), every *other* agent's
//!   credential files (the catalog's `auth.credential_files`), and what the
//!   session denies (cohost's own config, state and API token). Landlock
//!   only allows, so this is read on each sibling of each directory on the
//!   way down to a denied path ([`walk`]); directory *listing* stays allowed
//!   everywhere (names, not contents).
//! - **write**: the working tree (or worktree, plus the git directory its
//!   commits go to), the agent's own state and cache places
//!   ([`needs::own_paths`]), a private temp dir (`TMPDIR` points there), and
//!   the terminal and null devices. A denied path inside one of these
//!   stays denied (its siblings are granted instead).
//! - **tcp connect**: 443 and the ports of the provider's endpoints as the
//!   agent's environment and config name them (Landlock ABI 4+).
//! - **signals and abstract unix sockets**: scoped to the sandbox (ABI 6+).

mod needs;
mod walk;

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use cohost_core::{CohostError, SandboxMode, SandboxRequest};
pub use cohost_supervisor::sandbox::{SandboxPolicy, Support};

use super::env::EnvPolicy;
use crate::provider::Catalog;
use crate::ProcessError;

/// Devices every program may open for writing (their ioctls included):
/// the null sinks, randomness, the controlling terminal and ptys.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// A launch's sandbox: the policy, and the private temp dir it owns
/// (removed with this value, when the agent's session ends).
#[derive(Debug)]
pub struct Sandbox {
    /// What the supervisor enforces.
    pub policy: SandboxPolicy,
    tmp: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Best effort: a temp dir left behind is only disk space.
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// What the sandbox does on this machine, for `cohost doctor` and
/// `cohost agents --json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SandboxReport {
    /// The kernel's Landlock ABI (0: none).
    pub landlock_abi: i32,
    /// Whether agents can be confined at all.
    pub available: bool,
    /// What a sandbox enforces here, in words.
    pub enforces: Vec<String>,
    /// What it would enforce on a newer kernel.
    pub not_enforced: Vec<String>,
}

/// What the sandbox enforces on this kernel.
pub fn report() -> SandboxReport {
    let support = Support::probe();
    let typical = SandboxPolicy {
        connect_tcp: Some(vec![443]),
        scoped: true,
        ..SandboxPolicy::default()
    };
    SandboxReport {
        landlock_abi: support.abi,
        available: support.available(),
        enforces: support
            .enforced(&typical)
            .into_iter()
            .map(String::from)
            .collect(),
        not_enforced: support
            .missing(&typical)
            .into_iter()
            .map(String::from)
            .collect(),
    }
}

/// The wire error for `--sandbox=required` on a kernel without Landlock.
pub fn unavailable_error() -> CohostError {
    ProcessError::SandboxUnavailable.into()
}

fn failed(what: &'static str, path: &Path, source: std::io::Error) -> ProcessError {
    ProcessError::SandboxIo {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// `p` with symlinks resolved where it exists (Landlock checks the real
/// path), as written otherwise.
fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Everything [`build`] reads from the launch, apart so tests can give it.
pub(crate) struct Inputs<'a> {
    pub provider_id: &'a str,
    pub request: &'a SandboxRequest,
    pub cwd: PathBuf,
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The child's whole environment, for endpoint ports.
    pub env: Vec<(String, String)>,
    /// The known CLIs: whose credential files are whose.
    pub catalog: Catalog,
}

/// The sandbox of a launch with `env` in `cwd`, or `None` when the request
/// says off or (mode `on`) the kernel has no Landlock; sets the child's
/// `TMPDIR` to the private temp dir. `required` without Landlock is an
/// error.
pub fn build(
    provider_id: &str,
    request: &SandboxRequest,
    cwd: Option<&Path>,
    env: &mut EnvPolicy,
    catalog: Catalog,
) -> Result<Option<Sandbox>, CohostError> {
    if !request.mode.is_on() {
        return Ok(None);
    }
    if !Support::probe().available() {
        if request.mode == SandboxMode::Required {
            return Err(unavailable_error());
        }
        tracing::warn!(
            provider = provider_id,
            "no Landlock in this kernel: the agent runs unconfined"
        );
        return Ok(None);
    }
    let cwd = match cwd {
        Some(c) => c.to_path_buf(),
        None => std::env::current_dir().map_err(|e| failed("find", Path::new("."), e))?,
    };
    let snapshot = env.clone();
    let var = move |k: &str| snapshot.var(k);
    let inputs = Inputs {
        provider_id,
        request,
        cwd,
        var: &var,
        env: env
            .build_from_process()
            .into_iter()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect(),
        catalog,
    };
    let tmp = private_tmp(var("TMPDIR").map(PathBuf::from))?;
    let policy = compute(&inputs, &tmp, &walk::Disk, true);
    env.set("TMPDIR", tmp.display().to_string());
    Ok(Some(Sandbox { policy, tmp }))
}

/// A new owner-only directory for the agent's temp files.
fn private_tmp(parent: Option<PathBuf>) -> Result<PathBuf, ProcessError> {
    let parent = parent
        .filter(|p| p.is_absolute())
        .unwrap_or_else(std::env::temp_dir);
    let dir = parent.join(format!("cohost-sandbox-{}", cohost_core::ids::random_tag()));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|e| failed("create its temp dir", &dir, e))?;
    Ok(canonical(&dir))
}

/// The policy for `inputs`, with `tmp` as the private temp dir. With
/// `create`, the agent's own state directories are made when missing (it
/// could not make them itself: their parent is not writable).
pub(crate) fn compute(
    inputs: &Inputs<'_>,
    tmp: &Path,
    fs: &dyn walk::Lister,
    create: bool,
) -> SandboxPolicy {
    let var = inputs.var;
    let home = var("HOME")
        .filter(|h| Path::new(h).is_absolute())
        .map(|h| canonical(Path::new(&h)));
    let own_id = own_credentials_id(inputs.provider_id, inputs.catalog);

    let mut denied: Vec<PathBuf> = Vec::new();
    let mut deny = |p: PathBuf| {
        let real = canonical(&p);
        if real != p && !denied.contains(&real) {
            denied.push(real);
        }
        if !denied.contains(&p) {
            denied.push(p);
        }
    };
    if let Some(home) = &home {
        for s in needs::SECRETS {
            deny(home.join(s));
        }
        for (owner, file) in inputs.catalog.credential_files() {
            if owner != own_id {
                deny(home.join(file));
            }
        }
    }
    for p in &inputs.request.deny {
        deny(p.clone());
    }
    // The agent's own credentials are its own, even if another entry (an
    // ACP wrapper of the same CLI) lists the same file.
    if let Some(home) = &home {
        let own: Vec<PathBuf> = inputs
            .catalog
            .credential_files()
            .filter(|(owner, _)| *owner == own_id)
            .map(|(_, f)| canonical(&home.join(f)))
            .collect();
        denied.retain(|d| !own.contains(d));
    }

    let mut write_roots = vec![canonical(&inputs.cwd), tmp.to_path_buf()];
    if let Some(home) = &home {
        let roots = needs::Roots::new(home, var);
        for own in needs::own_paths(inputs.provider_id, inputs.catalog) {
            let Some(p) = roots.resolve(*own, var) else {
                continue;
            };
            let is_file = p.extension().is_some_and(|e| e == "json");
            if create && !is_file && !p.exists() {
                // A failure leaves it missing: the agent then fails loudly
                // on it, which says more than an error here would.
                let _ = std::fs::create_dir_all(&p);
            }
            write_roots.push(canonical(&p));
        }
    }
    write_roots.extend(inputs.request.write.iter().map(|p| canonical(p)));

    let mut write = Vec::new();
    for root in &write_roots {
        for p in walk::grant_except(root, &denied, fs) {
            if !write.contains(&p) {
                write.push(p);
            }
        }
    }

    let codex_urls = if own_id == "codex" {
        let dir = var("CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".codex")));
        dir.and_then(|d| std::fs::read_to_string(d.join("config.toml")).ok())
            .map(|t| needs::codex_base_urls(&t))
            .unwrap_or_default()
    } else {
        Vec::new()
    };

    SandboxPolicy {
        read: walk::grant_except(Path::new("/"), &denied, fs),
        list: vec!["/".into()],
        write,
        devices: DEVICES.iter().map(PathBuf::from).collect(),
        denied,
        connect_tcp: Some(needs::provider_ports(&inputs.env, &codex_urls)),
        scoped: true,
        required: inputs.request.mode == SandboxMode::Required,
    }
}

/// Whose credential files are the agent's own: its catalog entry's (an ACP
/// variant's base CLI's; the Zed wrappers run Claude Code and Codex).
fn own_credentials_id(provider_id: &str, catalog: Catalog) -> &str {
    match provider_id {
        "claude-acp" => "claude",
        "codex-acp" => "codex",
        id => catalog.cli_of(id).map_or(id, |e| e.id),
    }
}

/// Whether a session asking for `config`'s sandbox gets one here (on, and
/// the kernel has Landlock): an agent with a sandbox of its own may then
/// turn it off, since the outer one confines it.
pub fn outer_sandbox(config: &cohost_core::AdapterConfig) -> bool {
    config.sandbox.mode.is_on() && Support::probe().available()
}

/// Whether provider `id` has state places of its own the sandbox grants
/// (for the provider list's test that every CLI has them).
pub fn has_state_places(id: &str, catalog: Catalog) -> bool {
    !needs::own_paths(id, catalog).is_empty()
}

#[cfg(test)]
mod tests;
