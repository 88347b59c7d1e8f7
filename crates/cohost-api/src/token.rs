//! The local API's per-user credential: a random bearer token in an
//! owner-only file (mode 0600 in a 0700 directory, `$XDG_RUNTIME_DIR/cohost`
//! or `$XDG_STATE_HOME/cohost/run`). Only the user who runs `cohost serve`
//! (and root) can read it, so only they can drive the API: a loopback peer
//! is not enough, since every local user is one.
//!
//! One token per user, kept while the file is valid: several `cohost serve`
//! processes of the same user then accept the same token, and a client that
//! read the file once keeps working across restarts. `$XDG_RUNTIME_DIR` is
//! emptied at logout, so the token changes with each login session there.

use cohost_core::{CohostError, ErrorCode};
use sha2::{Digest, Sha256};
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use cohost_discovery::env::HostPaths;
use cohost_discovery::fsutil::{io_error, FileLock};

/// The token's file name in the runtime directory.
const TOKEN_FILE: &str = "api-token";
/// Random bytes in a token (hex-encoded: 64 characters).
const TOKEN_BYTES: usize = 32;

/// Where `cohost serve` keeps the token for `paths`.
pub fn api_token_file(paths: &HostPaths) -> PathBuf {
    paths.runtime_dir.join(TOKEN_FILE)
}

/// The bearer token of the local API. Its `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiToken(String);

impl std::fmt::Debug for ApiToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiToken([REDACTED])")
    }
}

impl ApiToken {
    /// The value, as sent in the bearer scheme of the `Authorization` header.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `presented` is this token. Compares SHA-256 digests, so the
    /// time taken says nothing about how much of the token was right.
    pub fn matches(&self, presented: &str) -> bool {
        Sha256::digest(presented.as_bytes()) == Sha256::digest(self.0.as_bytes())
    }
}

/// The token in `Authorization: Bearer <token>`, if the header has that form.
pub(crate) fn bearer(header: Option<&str>) -> Option<&str> {
    let h = header?.trim();
    let (scheme, rest) = h.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

fn valid_value(s: &str) -> bool {
    s.len() == TOKEN_BYTES * 2 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn refused(path: &Path, why: &str) -> CohostError {
    CohostError::new(
        ErrorCode::ConfigInvalid,
        format!("refusing the API token file `{}`: {why}", path.display()),
    )
    .with_fix(format!(
        "remove `{}` (cohost serve writes a new one), or set XDG_RUNTIME_DIR to a directory only you own",
        path.display()
    ))
}

/// This process's effective uid.
#[allow(unsafe_code)]
fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Make `dir` an owner-only directory of this user (created if missing).
fn private_dir(dir: &Path) -> Result<(), CohostError> {
    std::fs::create_dir_all(dir).map_err(|e| io_error("create directory", dir, e))?;
    let meta = std::fs::symlink_metadata(dir).map_err(|e| io_error("inspect", dir, e))?;
    let me = effective_uid();
    if !meta.is_dir() || meta.uid() != me {
        return Err(refused(
            dir,
            "the directory is not a directory owned by you",
        ));
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| io_error("set permissions of", dir, e))
}

/// The existing token at `path`, if it is a valid owner-only file of this user.
fn existing(path: &Path) -> Result<Option<ApiToken>, CohostError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("inspect", path, e)),
    };
    let me = effective_uid();
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        // Someone else's, a link, or readable by others: never trust it.
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| io_error("read", path, e))?;
    let value = text.trim();
    Ok(valid_value(value).then(|| ApiToken(value.to_string())))
}

fn random_token() -> Result<ApiToken, CohostError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("no randomness for the API token: {e}"),
        )
        .with_fix("check that /dev/urandom is readable")
    })?;
    Ok(ApiToken(bytes.iter().map(|b| format!("{b:02x}")).collect()))
}

/// Write `token` to `path` with mode 0600 from the start (never briefly
/// readable by others), atomically: a new temp file renamed over the target.
fn write_private(path: &Path, token: &ApiToken) -> Result<(), CohostError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{TOKEN_FILE}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(format!("{}\n", token.0).as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| io_error("write", path, e))
}

/// The user's API token: the one in `path` when valid, else a new one
/// written there. The directory is made owner-only (0700).
pub(crate) fn load_or_create(path: &Path) -> Result<ApiToken, CohostError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    private_dir(dir)?;
    // Two servers starting at once must not each write their own token.
    let _lock = FileLock::acquire(&dir.join(format!(".{TOKEN_FILE}.lock")))?;
    if let Some(t) = existing(path)? {
        return Ok(t);
    }
    let token = random_token()?;
    write_private(path, &token)?;
    Ok(token)
}

/// The token a running `cohost serve` of this user accepts (for cohost's
/// own clients of the API).
pub fn read_api_token(paths: &HostPaths) -> Result<ApiToken, CohostError> {
    let path = api_token_file(paths);
    existing(&path)?.ok_or_else(|| {
        CohostError::new(
            ErrorCode::AuthRequired,
            format!("no valid API token at `{}`", path.display()),
        )
        .with_fix("start `cohost serve` as this user; it writes the token file")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_header_forms() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(Some("abc")), None);
        assert_eq!(bearer(None), None);
    }

    #[test]
    fn created_private_then_reused_and_a_loose_file_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run/cohost").join(TOKEN_FILE);
        let t = load_or_create(&path).unwrap();
        assert!(valid_value(t.as_str()));
        assert!(t.matches(t.as_str()));
        assert!(!t.matches("0000"));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert_eq!(load_or_create(&path).unwrap(), t, "a valid file is reused");
        assert!(!format!("{t:?}").contains(t.as_str()));
        // A file others can read is never trusted: a new token replaces it.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let t2 = load_or_create(&path).unwrap();
        assert_ne!(t2, t);
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn servers_starting_together_agree_on_one_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run").join(TOKEN_FILE);
        let tokens: Vec<ApiToken> = std::thread::scope(|s| {
            // All eight spawned before the first join: they must race.
            #[allow(clippy::needless_collect)]
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| load_or_create(&path).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(tokens.iter().all(|t| *t == tokens[0]), "different tokens");
        assert_eq!(existing(&path).unwrap(), Some(tokens[0].clone()));
    }
}
