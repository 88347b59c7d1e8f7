//! Which program supervises agents: `cohost-supervise` from the running
//! binary's own directory, else the running binary in its hidden mode.
//!
//! The small program matters because every agent spawn waits for its
//! supervisor to start: the whole `cohost` binary took about 2.4 ms from
//! its exec to the agent's, most of it loading 40 MB; `cohost-supervise`
//! is a few hundred KB.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The small supervisor program, installed beside `cohost`.
pub const SUPERVISOR_BINARY: &str = "cohost-supervise";

static PROGRAM: OnceLock<Program> = OnceLock::new();
static FALLBACK: OnceLock<Option<Program>> = OnceLock::new();

/// A supervisor program: what to execute, and with which `argv[0]`.
#[derive(Debug)]
pub struct Program {
    path: PathBuf,
    arg0: Option<&'static str>,
    /// Keeps the file found at start-up open: `path` names it through
    /// `/proc/self/fd`, so replacing the installed programs while cohost
    /// runs (an upgrade) never pairs this cohost with another build's
    /// supervisor.
    _file: Option<File>,
}

impl Program {
    /// What to execute.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `argv[0]` to give it, when not its path.
    pub fn arg0(&self) -> Option<&'static str> {
        self.arg0
    }

    /// Whether this is the small `cohost-supervise`, not cohost itself.
    pub fn is_small(&self) -> bool {
        self.arg0.is_some()
    }

    /// `cohost-supervise` in `dir`, if it is there and executable.
    pub fn beside(dir: &Path) -> Option<Program> {
        use std::os::unix::fs::PermissionsExt;
        let candidate = dir.join(SUPERVISOR_BINARY);
        let file = File::open(&candidate).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
            return None;
        }
        let arg0 = Some(SUPERVISOR_BINARY);
        if cfg!(target_os = "linux") && Path::new("/proc/self/fd").is_dir() {
            use std::os::fd::AsRawFd;
            // Close-on-exec, like every descriptor std opens: the spawned
            // supervisor's exec resolves the path before closing it.
            let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
            return Some(Program {
                path,
                arg0,
                _file: Some(file),
            });
        }
        Some(Program {
            path: candidate,
            arg0,
            _file: None,
        })
    }

    /// The running binary itself (it must dispatch the hidden mode). On
    /// Linux `/proc/self/exe`, which still works when the installed binary
    /// is replaced while cohost runs.
    fn this_binary() -> Option<Program> {
        let path = if cfg!(target_os = "linux") && Path::new("/proc/self/exe").exists() {
            PathBuf::from("/proc/self/exe")
        } else {
            std::env::current_exe().ok()?
        };
        Some(Program {
            path,
            arg0: None,
            _file: None,
        })
    }
}

/// Supervise agents with `cohost-supervise` from this executable's
/// directory, else with this executable. Call it once at startup from a
/// binary that first dispatches [`super::SUPERVISE_ARG`] to
/// [`super::run_helper_if_requested`].
pub fn use_current_exe() {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().and_then(Program::beside));
    if let Some(program) = beside.or_else(Program::this_binary) {
        let _ = PROGRAM.set(program);
    }
}

/// The configured supervisor program, if any.
pub fn program() -> Option<&'static Program> {
    PROGRAM.get()
}

/// When the configured program is the small one: the running binary, to
/// supervise with when the small one cannot (another build's, say).
pub fn fallback() -> Option<&'static Program> {
    if !program()?.is_small() {
        return None;
    }
    FALLBACK.get_or_init(Program::this_binary).as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_program(dir: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(SUPERVISOR_BINARY);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn the_small_program_is_found_only_when_executable() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Program::beside(dir.path()).is_none(), "nothing there");
        write_program(dir.path(), 0o644);
        assert!(Program::beside(dir.path()).is_none(), "not executable");
        write_program(dir.path(), 0o755);
        let found = Program::beside(dir.path()).expect("an executable one");
        assert!(found.is_small());
        assert_eq!(found.arg0(), Some(SUPERVISOR_BINARY));
        // The path names the very file that was found, even once it is gone.
        std::fs::remove_file(dir.path().join(SUPERVISOR_BINARY)).unwrap();
        let text = std::fs::read_to_string(found.path()).unwrap();
        assert_eq!(text, "#!/bin/sh\n");
    }

    #[test]
    fn a_directory_by_that_name_is_not_a_program() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(SUPERVISOR_BINARY)).unwrap();
        assert!(Program::beside(dir.path()).is_none());
    }
}
