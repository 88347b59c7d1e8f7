//! What can go wrong with the session store, and how each reads on the
//! wire (`From<StoreError> for CohostError`). The text of each is its wire
//! message, the library's reason included; `source()` keeps that error.

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};
use cohost_discovery::DiscoveryError;

/// An error of the session store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store, its directory or its lock file could not be made, read or
    /// restricted.
    #[error(transparent)]
    Io(#[from] cohost_core::IoFailure),
    /// The store's file is not the store's JSON: left alone, as overwriting
    /// it would drop every binding.
    #[error("session store `{}` is not valid: {source}", path.display())]
    Corrupt {
        /// The store's file.
        path: PathBuf,
        /// What the JSON reader said.
        #[source]
        source: serde_json::Error,
    },
    /// The records could not be written as JSON.
    #[error("could not encode the session store: {0}")]
    Encode(#[source] serde_json::Error),
    /// Locking or replacing the file failed.
    #[error(transparent)]
    File(#[from] DiscoveryError),
}

impl StoreError {
    /// An I/O failure: what cohost tried, on which path, and why.
    pub(crate) fn io(what: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        StoreError::Io(cohost_core::IoFailure::new(what, path, source))
    }
}

impl From<StoreError> for CohostError {
    fn from(e: StoreError) -> CohostError {
        let message = e.to_string();
        match e {
            StoreError::Io(_) => CohostError::new(ErrorCode::ConfigInvalid, message)
                .with_fix("check the file's permissions and that the disk is not full"),
            StoreError::Corrupt { path, .. } => CohostError::new(ErrorCode::ConfigInvalid, message)
                .with_fix(format!(
                    "move `{}` aside; cohost starts a new one",
                    path.display()
                )),
            StoreError::Encode(_) => CohostError::new(ErrorCode::InvalidOutput, message),
            StoreError::File(e) => e.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_corrupt_store_keeps_the_json_error_and_says_to_move_it_aside() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::SessionStore::at(
            dir.path(),
            std::sync::Arc::new(cohost_core::sanitize::Sanitizer::shapes_only()),
        );
        std::fs::write(store.path(), "{ not json").unwrap();
        let e = store.list().unwrap_err();
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e:?}");
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<serde_json::Error>().is_some()));
        let w = CohostError::from(e);
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        let head = format!("session store `{}` is not valid: ", store.path().display());
        assert!(w.message.starts_with(&head), "{}", w.message);
        assert_eq!(
            w.suggested_fix,
            Some(format!(
                "move `{}` aside; cohost starts a new one",
                store.path().display()
            ))
        );
    }

    #[test]
    fn an_io_failure_keeps_the_io_error() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = StoreError::io("read", std::path::Path::new("/s/sessions.json"), io);
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some()));
        let w = CohostError::from(e);
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        assert_eq!(w.message, "could not read `/s/sessions.json`: denied");
        assert_eq!(
            w.suggested_fix.as_deref(),
            Some("check the file's permissions and that the disk is not full")
        );
    }
}
