//! Finding the CLIs `tests/agents/install.sh` installed; a missing one is
//! handled by the one skip policy ([`crate::skip`]).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::cli::AgentCli;

/// `${COHOST_AGENTS_DIR:-$HOME/.cache/cohost-agents}`, as install.sh computes it.
pub fn agents_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("COHOST_AGENTS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"));
    home.join(".cache/cohost-agents")
}

/// The install dir's `bin/`, which the bench puts first on `PATH`.
pub fn bin_dir() -> PathBuf {
    agents_dir().join("bin")
}

fn is_executable(path: &Path) -> bool {
    // metadata() follows the symlinks install.sh creates, so a dangling link is "missing".
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The launcher of `cli` in the install dir, if it is there and executable.
pub fn installed_bin(cli: AgentCli) -> Option<PathBuf> {
    let path = bin_dir().join(cli.binary());
    is_executable(&path).then_some(path)
}

/// The message for a missing CLI (shared by the panic and the skip notice).
pub(crate) fn missing_message(cli: AgentCli) -> String {
    format!(
        "agent CLI `{cli}` is not installed at {}; install it with `{}` (or set COHOST_AGENTS_DIR)",
        bin_dir().join(cli.binary()).display(),
        cli.install_command()
    )
}

/// The binary of `cli`, or: on CI a panic naming the CLI and the install
/// command; locally a loud skip notice on stderr and `None`
/// ([`crate::skip::require`]).
pub fn require_cli(cli: AgentCli) -> Option<PathBuf> {
    crate::skip::require(installed_bin(cli), || {
        format!("cohost-testbench: {}", missing_message(cli))
    })
}
