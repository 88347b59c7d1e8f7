//! A record file: append-only, one entry a line, each line written whole
//! with one `write` and synced (`fdatasync`) before the next, so a crash
//! leaves at most one torn last line, which verification reports as torn
//! (not as tampering) and the next writer drops with a note.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use cohost_record::{Chain, Draft};

use super::error::RecordError;

/// The records directory in the state directory.
pub const DIR: &str = "records";

/// Where session `id`'s record is (`$XDG_STATE_HOME/cohost/records/ID.jsonl`).
/// `None` for an id that is not a plain name (it must not name a path).
pub fn path_of(state_dir: &Path, id: &str) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    plain.then(|| state_dir.join(DIR).join(format!("{id}.jsonl")))
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// An open record file and its chain.
pub(crate) struct RecordFile {
    file: File,
    chain: Chain,
    path: PathBuf,
}

impl RecordFile {
    /// Open (or create) the record at `path`, signed with `seed`, to go on
    /// after what it holds. A torn last line is cut off (`torn` says so, for
    /// a note); a record that does not verify is moved aside, never
    /// appended to, and a new one is started (`replaced` names where the
    /// old one went).
    pub(crate) fn open(path: &Path, seed: [u8; 32]) -> Result<Opened, RecordError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| RecordError::io("create directory", dir, e))?;
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        }
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| RecordError::io("open", path, e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| RecordError::io("read", path, e))?;
        if bytes.is_empty() {
            return Ok(Opened {
                file: RecordFile {
                    file,
                    chain: Chain::new(seed),
                    path: path.to_path_buf(),
                },
                torn: false,
                replaced: None,
            });
        }
        match Chain::resume(seed, &bytes) {
            Ok(r) => {
                if r.torn {
                    file.set_len(r.keep as u64)
                        .and_then(|()| file.sync_data())
                        .map_err(|e| RecordError::io("cut the torn last entry of", path, e))?;
                }
                Ok(Opened {
                    file: RecordFile {
                        file,
                        chain: r.chain,
                        path: path.to_path_buf(),
                    },
                    torn: r.torn,
                    replaced: None,
                })
            }
            Err(why) => {
                drop(file);
                let aside = path.with_extension(format!("jsonl.bad-{}", now_ms()));
                std::fs::rename(path, &aside)
                    .map_err(|e| RecordError::io("move aside", path, e))?;
                tracing::warn!(
                    record = %path.display(),
                    moved_to = %aside.display(),
                    error = %why,
                    "the session's record did not verify; a new one is started"
                );
                let mut fresh = RecordFile::open(path, seed)?;
                fresh.replaced = Some((aside, why.to_string()));
                Ok(fresh)
            }
        }
    }

    /// Append `d` as the next entry, whole and synced.
    pub(crate) fn append(&mut self, d: Draft) -> Result<(), RecordError> {
        let e = self.chain.seal(now_ms(), d);
        let mut line = e.to_line();
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|source| RecordError::Append {
                path: self.path.clone(),
                source,
            })?;
        self.chain.advance(&e);
        Ok(())
    }

    /// Whether the record already held entries (a resumed session).
    pub(crate) fn resumed(&self) -> bool {
        self.chain.next_seq() > 1
    }

    /// The host's public key.
    pub(crate) fn public_key(&self) -> [u8; 32] {
        self.chain.public_key()
    }
}

/// [`RecordFile::open`]'s result.
pub(crate) struct Opened {
    pub(crate) file: RecordFile,
    pub(crate) torn: bool,
    pub(crate) replaced: Option<(PathBuf, String)>,
}
