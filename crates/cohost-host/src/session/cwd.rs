//! The directory a session runs in: the one a front end was started in or
//! given, or the one a client sent over a protocol, checked before any
//! agent starts there.

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};

/// A working directory no session can run in.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CwdError {
    /// The process's own directory is gone or unreadable.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    /// The directory asked for does not exist (or is a file).
    #[error("the working directory {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// A client's `cwd` that is relative (shown inert).
    #[error("`cwd` must be an absolute path, not `{0}`")]
    ClientRelative(String),
    /// A client's `cwd` that is no existing directory (shown inert).
    #[error("`cwd` {0} is not an existing directory")]
    ClientMissing(String),
}

impl From<CwdError> for CohostError {
    fn from(e: CwdError) -> CohostError {
        let fix = match &e {
            CwdError::CurrentDir(_) => None,
            CwdError::NotADirectory(_) => Some("pass an existing directory"),
            CwdError::ClientRelative(_) | CwdError::ClientMissing(_) => {
                Some("send the absolute path of an existing directory as `cwd`")
            }
        };
        CohostError::new(ErrorCode::ConfigInvalid, e.to_string()).with_optional_fix(fix)
    }
}

/// The directory the agent runs in: `cwd`, else the current one; it must exist.
pub fn working_dir(cwd: Option<PathBuf>) -> Result<PathBuf, CwdError> {
    let dir = match cwd {
        Some(d) => d,
        None => std::env::current_dir().map_err(CwdError::CurrentDir)?,
    };
    if !dir.is_dir() {
        return Err(CwdError::NotADirectory(dir));
    }
    Ok(dir)
}

/// A `cwd` a client sent over a protocol (ACP, MCP, the local API): it must
/// be absolute and an existing directory. A relative one would be resolved
/// against the server's own directory, which the client neither sees nor
/// chose (`../../..` from an editor reached outside it).
pub fn client_working_dir(cwd: PathBuf) -> Result<PathBuf, CwdError> {
    let shown = cohost_core::sanitize::inert_line(&cwd.display().to_string());
    if !cwd.is_absolute() {
        return Err(CwdError::ClientRelative(shown));
    }
    if !cwd.is_dir() {
        return Err(CwdError::ClientMissing(shown));
    }
    Ok(cwd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_keeps_its_wire_text_and_fix() {
        let w = CohostError::from(working_dir(Some("/definitely/not/here".into())).unwrap_err());
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        assert_eq!(
            w.message,
            "the working directory /definitely/not/here is not a directory"
        );
        assert_eq!(
            w.suggested_fix.as_deref(),
            Some("pass an existing directory")
        );
        let w = CohostError::from(client_working_dir("../x\ny".into()).unwrap_err());
        assert_eq!(w.message, "`cwd` must be an absolute path, not `../x y`");
        assert_eq!(
            w.suggested_fix.as_deref(),
            Some("send the absolute path of an existing directory as `cwd`")
        );
    }

    #[test]
    fn an_unreadable_current_directory_keeps_the_io_error() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = CwdError::CurrentDir(io);
        assert!(std::error::Error::source(&e)
            .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some()));
        assert_eq!(
            CohostError::from(e).message,
            "cannot read the current directory: gone"
        );
    }
}
