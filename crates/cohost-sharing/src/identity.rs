//! `cohost join --identity FILE`: a participant's identity kept across
//! runs (format v2, `docs/sharing-e2e.md`, "Identities"), so the host knows
//! the same person again. The file holds two 32-byte secrets; it is made
//! owner-only, written whole or not at all, and refused when others may
//! read it, as ssh refuses an exposed private key.

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use cohost_share::e2e::{random_bytes, Identity};

/// The first line of an identity file.
const HEADER: &str = "cohost participant identity v1";

/// Why the identity file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// Reading or writing failed.
    #[error("cannot use the identity file {path}: {source}; check the path and its directory")]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Others may read it.
    #[error("the identity file {0} may be read by other users; run `chmod 600 {0}` (it holds private keys)")]
    Exposed(PathBuf),
    /// Not an identity file, or damaged.
    #[error("{0} is not a cohost identity file (damaged, or another kind of file); move it away and a new identity is made")]
    Damaged(PathBuf),
    /// The system random source failed.
    #[error("cannot make an identity: {0}")]
    Random(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IdentityError + '_ {
    move |source| IdentityError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn parse(path: &Path, text: &str) -> Result<Identity, IdentityError> {
    let damaged = || IdentityError::Damaged(path.to_path_buf());
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(damaged());
    }
    let mut secret = || -> Result<[u8; 32], IdentityError> {
        let line = lines.next().ok_or_else(damaged)?;
        B64.decode(line.trim())
            .ok()
            .and_then(|v| v.try_into().ok())
            .ok_or_else(damaged)
    };
    let (ed, x) = (secret()?, secret()?);
    Ok(Identity::from_secrets(ed, x))
}

/// The identity in `path`, made there first when the file does not exist.
pub fn load_or_create(path: &Path) -> Result<Identity, IdentityError> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            if meta.permissions().mode() & 0o077 != 0 {
                return Err(IdentityError::Exposed(path.to_path_buf()));
            }
            let text = std::fs::read_to_string(path).map_err(io(path))?;
            parse(path, &text)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create(path),
        Err(e) => Err(io(path)(e)),
    }
}

fn create(path: &Path) -> Result<Identity, IdentityError> {
    let random = |e: cohost_share::CodecError| IdentityError::Random(e.to_string());
    let (ed, x): ([u8; 32], [u8; 32]) = (
        random_bytes().map_err(random)?,
        random_bytes().map_err(random)?,
    );
    let text = format!("{HEADER}\n{}\n{}\n", B64.encode(ed), B64.encode(x));
    // Written beside it under a temporary name, then renamed: a crash
    // leaves no half-written identity.
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("identity"),
        std::process::id()
    ));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(path)(e));
    }
    Ok(Identity::from_secrets(ed, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_is_made_once_owner_only_and_the_same_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("me.key");
        let first = load_or_create(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let again = load_or_create(&path).unwrap();
        assert_eq!(first.public(), again.public());
        assert_eq!(first.to_secrets(), again.to_secrets());
        // Nothing else was left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_exposed_or_damaged_file_is_refused_with_a_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("me.key");
        load_or_create(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = load_or_create(&path).unwrap_err();
        assert!(matches!(e, IdentityError::Exposed(_)), "{e}");
        assert!(e.to_string().contains("chmod 600"));
        std::fs::write(&path, "not an identity\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(matches!(
            load_or_create(&path).unwrap_err(),
            IdentityError::Damaged(_)
        ));
        let missing_dir = dir.path().join("nope").join("me.key");
        assert!(matches!(
            load_or_create(&missing_dir).unwrap_err(),
            IdentityError::Io { .. }
        ));
    }
}
