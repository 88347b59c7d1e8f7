//! Paths as git prints them (bytes, `/`-separated, relative to the top of
//! the tree) and as the file system takes them.

use std::path::PathBuf;

/// A path git printed, for the file system. Not UTF-8 is fine on Unix.
#[cfg(unix)]
pub(crate) fn from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// A path git printed, for the file system.
#[cfg(not(unix))]
pub(crate) fn from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// A path git printed, for people (not UTF-8 shown with replacement
/// characters).
pub(crate) fn display(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
