//! Crash-safe file writes and inter-process locks.

use cohost_core::CohostError;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::DiscoveryError;

/// An I/O failure on `path`, as the wire error ([`DiscoveryError::Io`]'s),
/// for the crates whose own errors are still the wire error.
pub fn io_error(what: &'static str, path: &Path, e: std::io::Error) -> CohostError {
    DiscoveryError::io(what, path, e).into()
}

/// Write `bytes` to `path` atomically: a temp file in the same directory,
/// fsync, rename over the target, fsync the directory. Readers see the old
/// or the new content, never a torn file. The file mode of an existing
/// target is kept (settings files may be private).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), DiscoveryError> {
    write_atomic(path, bytes, false)
}

/// [`atomic_write`] for a file that holds secrets: created with mode 0600
/// (from the first byte: the temp file is private too).
pub fn atomic_write_private(path: &Path, bytes: &[u8]) -> Result<(), DiscoveryError> {
    write_atomic(path, bytes, true)
}

fn write_atomic(path: &Path, bytes: &[u8], private: bool) -> Result<(), DiscoveryError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| DiscoveryError::io("create directory", dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // pid + counter: unique across processes and across threads.
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.cohost-tmp.{}.{seq}", std::process::id()));
    let result = (|| {
        let mut f = if private {
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?
        } else {
            let f = File::create(&tmp)?;
            if let Ok(meta) = std::fs::metadata(path) {
                f.set_permissions(meta.permissions())?;
            }
            f
        };
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        // Best effort: do not leave the temp file behind on failure.
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| DiscoveryError::io("write", path, e))
}

/// An exclusive advisory lock on a lock file, held until dropped. Used so
/// concurrent cohost processes serialize read-modify-write cycles.
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Block until the lock on `path` (created if missing) is held.
    pub fn acquire(path: &Path) -> Result<FileLock, DiscoveryError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| DiscoveryError::io("create directory", dir, e))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| DiscoveryError::io("open lock file", path, e))?;
        loop {
            // `File::lock` is flock(2) LOCK_EX on Linux: the same lock other
            // cohost processes take, released when the file closes.
            match file.lock() {
                Ok(()) => return Ok(FileLock { file }),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(DiscoveryError::io("lock", path, e)),
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the file would release it too; unlocking first lets a
        // waiter in before the close.
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/secret.json");
        atomic_write_private(&p, b"one").unwrap();
        atomic_write_private(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(p.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp files left behind");
    }
}
