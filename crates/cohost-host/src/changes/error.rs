//! What can go wrong finding a session's changes or worktree, and how each
//! reads on the wire (`From<ChangesError> for CohostError`). Errors of the
//! store and of git are passed on as they are.

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};
use cohost_git::GitError;

use crate::store::StoreError;

/// An error of the changes and worktree service.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChangesError {
    /// No recorded session has this id.
    #[error("no session `{id}`")]
    NoSession {
        /// The id asked for.
        id: String,
    },
    /// No session was recorded in this directory.
    #[error("no session was recorded in {}", dir.display())]
    NoSessionHere {
        /// The directory.
        dir: PathBuf,
    },
    /// No session with a worktree was made from this checkout.
    #[error("no session with a worktree was made from {}", dir.display())]
    NoWorktreeSessionHere {
        /// The checkout.
        dir: PathBuf,
    },
    /// The session runs in the checkout itself, not a worktree of its own.
    #[error("session {id} does not run in a worktree of its own")]
    NotInWorktree {
        /// The session.
        id: String,
    },
    /// A worktree operation on a session without one.
    #[error("session {id} has no worktree")]
    NoWorktree {
        /// The session.
        id: String,
    },
    /// The session store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Git failed.
    #[error(transparent)]
    Git(#[from] GitError),
}

impl ChangesError {
    /// What the user can do about it (for the service's own errors).
    fn fix(&self) -> Option<&'static str> {
        match self {
            ChangesError::NoSession { .. } => Some("`cohost sessions` lists the recorded sessions"),
            ChangesError::NoSessionHere { .. } => {
                Some("name one (`cohost sessions` lists them), or run from its directory")
            }
            ChangesError::NoWorktreeSessionHere { .. } => {
                Some("name one (`cohost worktree list`), or start one with --worktree")
            }
            ChangesError::NotInWorktree { .. } => {
                Some("`cohost worktree list` shows the sessions that do")
            }
            ChangesError::NoWorktree { .. } | ChangesError::Store(_) | ChangesError::Git(_) => None,
        }
    }
}

impl From<ChangesError> for CohostError {
    fn from(e: ChangesError) -> CohostError {
        match e {
            ChangesError::Store(e) => e.into(),
            ChangesError::Git(e) => e.into(),
            own => CohostError::new(ErrorCode::ConfigInvalid, own.to_string())
                .with_optional_fix(own.fix()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_errors_keep_their_wire_text_and_passed_on_ones_are_unchanged() {
        let w = CohostError::from(ChangesError::NoSession { id: "s-1".into() });
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        assert_eq!(w.message, "no session `s-1`");
        assert_eq!(
            w.suggested_fix.as_deref(),
            Some("`cohost sessions` lists the recorded sessions")
        );
        let w = CohostError::from(ChangesError::NoWorktree { id: "s-2".into() });
        assert_eq!(w.message, "session s-2 has no worktree");
        assert_eq!(w.suggested_fix, None);
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let store = StoreError::io("read", std::path::Path::new("/s/sessions.json"), io);
        let expected = CohostError::from(StoreError::io(
            "read",
            std::path::Path::new("/s/sessions.json"),
            std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
        ));
        let e = ChangesError::from(store);
        assert!(
            std::error::Error::source(&e).is_some(),
            "transparent: the store error's io source shows through"
        );
        assert_eq!(CohostError::from(e), expected);
    }
}
