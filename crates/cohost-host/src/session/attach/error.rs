//! What can go wrong attaching files and images to a prompt, and how each
//! reads on the wire (`From<AttachError> for CohostError`). The text of
//! each is its wire message, the library's reason included; `source()`
//! keeps that error.

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};

/// An attachment cohost cannot send.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AttachError {
    /// `PATH:A-B` with a range that is none.
    #[error("`{spec}` is not a valid line range")]
    BadRange {
        /// The spec as given.
        spec: String,
    },
    /// The path could not be looked at.
    #[error("cannot attach {}: {source}", path.display())]
    Missing {
        /// The path (resolved against the session's cwd).
        path: PathBuf,
        /// What was asked for ("text file", "image").
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A directory or another non-file.
    #[error("cannot attach {}: not a file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What was asked for.
        what: &'static str,
    },
    /// Larger than an attachment may be.
    #[error("{} is {size} bytes; an attached {what} may have at most {max}", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// What was asked for.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// Reading the file failed.
    #[error("could not read `{}`: {source}", path.display())]
    Unreadable {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A text file that is not UTF-8.
    #[error("{} is not UTF-8 text", path.display())]
    NotText {
        /// The path as given.
        path: PathBuf,
        /// Where the bytes stop being UTF-8.
        #[source]
        source: std::string::FromUtf8Error,
    },
    /// A range starting past the file's end.
    #[error("{} has {lines} lines; the range starts at {start}", path.display())]
    PastTheEnd {
        /// The path as given.
        path: PathBuf,
        /// The file's lines.
        lines: usize,
        /// The range's first line.
        start: usize,
    },
    /// Bytes of no image type cohost sends.
    #[error("{} is not a PNG, JPEG, GIF or WebP image", path.display())]
    NotAnImage {
        /// The path as given.
        path: PathBuf,
    },
    /// Images for a provider that takes none.
    #[error("`{provider}` does not take images")]
    NoImages {
        /// The provider.
        provider: String,
    },
}

impl AttachError {
    /// The wire code this error is reported under.
    pub fn code(&self) -> ErrorCode {
        match self {
            AttachError::NoImages { .. } => ErrorCode::UnsupportedMode,
            _ => ErrorCode::ConfigInvalid,
        }
    }

    /// What the user can do about it.
    pub fn fix(&self) -> String {
        match self {
            AttachError::BadRange { .. } => {
                "give lines as PATH:START-END or PATH:LINE, counting from 1, START <= END".into()
            }
            AttachError::Missing { what, .. } => {
                format!("pass an existing {what} (relative paths are the session's cwd's)")
            }
            AttachError::NotAFile { what, .. } => format!("pass a {what}, not a directory"),
            AttachError::TooLarge { .. } => {
                "attach a line range (PATH:START-END) or a smaller file".into()
            }
            AttachError::Unreadable { .. } => {
                "check the file's permissions and that the disk is not full".into()
            }
            AttachError::NotText { .. } => {
                "attach images with --image; other binary files cannot be attached".into()
            }
            AttachError::PastTheEnd { .. } => "pick lines inside the file".into(),
            AttachError::NotAnImage { .. } => {
                "convert it to PNG or JPEG; text files go in --file".into()
            }
            AttachError::NoImages { .. } => {
                "drop --image, or use a provider that takes them: claude, an API \
                 provider such as anthropic or openai (`cohost agents --json`: driver.images)"
                    .into()
            }
        }
    }
}

impl From<AttachError> for CohostError {
    fn from(e: AttachError) -> CohostError {
        CohostError::new(e.code(), e.to_string()).with_fix(e.fix())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_missing_file_keeps_the_io_error_and_names_what_was_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let e = super::super::read_file(dir.path(), "missing.txt").unwrap_err();
        assert!(
            matches!(
                e,
                AttachError::Missing {
                    what: "text file",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some()));
        let w = CohostError::from(e);
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        let head = format!(
            "cannot attach {}: ",
            dir.path().join("missing.txt").display()
        );
        assert!(w.message.starts_with(&head), "{}", w.message);
        assert_eq!(
            w.suggested_fix.as_deref(),
            Some("pass an existing text file (relative paths are the session's cwd's)")
        );
    }

    #[test]
    fn images_for_a_provider_without_them_are_unsupported() {
        let w = CohostError::from(AttachError::NoImages {
            provider: "codex".into(),
        });
        assert_eq!(w.code, ErrorCode::UnsupportedMode);
        assert_eq!(w.message, "`codex` does not take images");
        assert!(w
            .suggested_fix
            .is_some_and(|f| f.starts_with("drop --image")));
    }

    #[test]
    fn binary_bytes_keep_the_utf8_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.bin"), [0xff, 0xfe]).unwrap();
        let e = super::super::read_file(dir.path(), "b.bin").unwrap_err();
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<std::string::FromUtf8Error>().is_some()));
        assert_eq!(CohostError::from(e).message, "b.bin is not UTF-8 text");
    }
}
