//! What can go wrong keeping a session's record and the host key that signs
//! it, and how each reads on the wire (`From<RecordError> for CohostError`).
//! The text of each is its wire message, the library's reason included;
//! `source()` keeps that error.

use std::path::{Path, PathBuf};

use cohost_core::{CohostError, ErrorCode};

/// An error of the record or the host key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The record or key file, or its directory, could not be made, read,
    /// written or restricted.
    #[error(transparent)]
    Io(#[from] cohost_core::IoFailure),
    /// An entry could not be appended: the record stops there.
    #[error("could not append to the record `{}`: {source}", path.display())]
    Append {
        /// The record.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The host key file holds no key.
    #[error("the host key `{}` is {why}", path.display())]
    KeyDamaged {
        /// The key file.
        path: PathBuf,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The system gave no random bytes to make a key from. (Not a
    /// `source()`: without its `std` feature `getrandom::Error` is no
    /// `std::error::Error`.)
    #[error("the system gave no random bytes for the host key: {0}")]
    NoRandom(getrandom::Error),
    /// A session id that cannot name a record file.
    #[error(
        "`{}` is not a session id that can name a record",
        cohost_core::sanitize::inert_line(.0)
    )]
    BadSessionId(String),
}

impl RecordError {
    /// An I/O failure: what cohost tried, on which path, and why.
    pub(crate) fn io(what: &'static str, path: &Path, source: std::io::Error) -> Self {
        RecordError::Io(cohost_core::IoFailure::new(what, path, source))
    }

    /// What the user can do about it.
    fn fix(&self) -> Option<&'static str> {
        Some(match self {
            RecordError::Io(_) => "check the file's permissions and that the disk is not full",
            RecordError::Append { .. } => {
                "check that the disk is not full; the session goes on unrecorded from here"
            }
            RecordError::KeyDamaged { .. } => {
                "move it away and run cohost again to make a new one (records it signed still verify: \
                 pass its public key with `cohost record verify --key`)"
            }
            RecordError::NoRandom(_) => "check that /dev/urandom is readable",
            RecordError::BadSessionId(_) => return None,
        })
    }
}

impl From<RecordError> for CohostError {
    fn from(e: RecordError) -> CohostError {
        CohostError::new(ErrorCode::ConfigInvalid, e.to_string()).with_optional_fix(e.fix())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn an_append_failure_keeps_the_io_error_and_says_the_session_goes_on() {
        let io = std::io::Error::new(std::io::ErrorKind::StorageFull, "disk full");
        let e = RecordError::Append {
            path: "/r/s.jsonl".into(),
            source: io,
        };
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some()));
        let w = CohostError::from(e);
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        assert_eq!(
            w.message,
            "could not append to the record `/r/s.jsonl`: disk full"
        );
        assert_eq!(
            w.suggested_fix.as_deref(),
            Some("check that the disk is not full; the session goes on unrecorded from here")
        );
    }

    #[test]
    fn a_session_id_is_shown_on_one_inert_line_without_a_fix() {
        let w = CohostError::from(RecordError::BadSessionId("../a\nb".into()));
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        assert_eq!(
            w.message,
            "`../a b` is not a session id that can name a record"
        );
        assert_eq!(w.suggested_fix, None);
    }
}
