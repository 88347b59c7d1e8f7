//! The host's long-term Ed25519 identity key, which signs every session's
//! record: created once, on first use, in cohost's state directory
//! (`$XDG_STATE_HOME/cohost/host-key`), owner-only (0600) from its first
//! byte. The file holds the 32-byte seed in base64url on one line.
//!
//! Sharing (format v1) signs room frames with a key made per room, so
//! there was no long-term host key to reuse; this is it.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::error::RecordError;

/// The file's name in the state directory.
pub const FILE: &str = "host-key";

/// The host's signing key.
#[derive(Clone)]
pub struct HostKey {
    seed: [u8; 32],
    path: PathBuf,
}

impl std::fmt::Debug for HostKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostKey")
            .field("public", &self.fingerprint())
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn damaged(path: &Path, why: &'static str) -> RecordError {
    RecordError::KeyDamaged {
        path: path.to_path_buf(),
        why,
    }
}

impl HostKey {
    /// The key in `state_dir`, made when missing. Two processes making it
    /// at once agree on one: each writes a private temp file and links it
    /// into place, which fails for the second.
    pub fn load_or_create(state_dir: &Path) -> Result<HostKey, RecordError> {
        let path = state_dir.join(FILE);
        match HostKey::load(&path) {
            Ok(Some(k)) => return Ok(k),
            Ok(None) => {}
            Err(e) => return Err(e),
        }
        std::fs::create_dir_all(state_dir)
            .map_err(|e| RecordError::io("create directory", state_dir, e))?;
        let _ = std::fs::set_permissions(state_dir, std::fs::Permissions::from_mode(0o700));
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(RecordError::NoRandom)?;
        let tmp = state_dir.join(format!(".{FILE}.{}", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| {
                f.write_all(format!("{}\n", cohost_record::b64(&seed)).as_bytes())?;
                f.sync_all()
            });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(RecordError::io("write", &tmp, e));
        }
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(HostKey { seed, path }),
            // Another process made it first: theirs is the key.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                HostKey::load(&path)?.ok_or_else(|| damaged(&path, "gone right after it was made"))
            }
            Err(e) => Err(RecordError::io("create", &path, e)),
        }
    }

    /// The key at `path`, `None` when there is none yet.
    pub fn load(path: &Path) -> Result<Option<HostKey>, RecordError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(RecordError::io("read", path, e)),
        };
        // A key others can read is no secret: put it right, then use it.
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                tracing::warn!(path = %path.display(), "the host key was readable by others; made owner-only");
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                    .map_err(|e| RecordError::io("restrict the permissions of", path, e))?;
            }
        }
        let seed = cohost_record::unb64::<32>(text.trim())
            .ok_or_else(|| damaged(path, "not a key (32 bytes of base64url)"))?;
        Ok(Some(HostKey {
            seed,
            path: path.to_path_buf(),
        }))
    }

    /// The Ed25519 seed (never shown: it signs).
    pub(crate) fn seed(&self) -> [u8; 32] {
        self.seed
    }

    /// The public key.
    pub fn public(&self) -> [u8; 32] {
        cohost_record::public_key(&self.seed)
    }

    /// The public key as shown and passed to `--key`.
    pub fn fingerprint(&self) -> String {
        cohost_record::fingerprint(&self.public())
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
