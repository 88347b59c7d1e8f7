//! `--version` answers remembered by binary identity.
//!
//! Node-based CLIs take seconds to print their version (gemini 6–9 s here),
//! which made every `cohost agents` slow. The answer can only change when the
//! file does, so it is keyed by the resolved path, size, mtime and inode, and
//! reused until one of them changes. Only clean answers (exit 0 and a
//! version found) are kept; a broken install is probed every time.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Entries kept; the file is a cache, so overflow simply starts afresh.
const MAX_ENTRIES: usize = 128;

/// The identity of the file `path` resolves to.
pub(crate) fn key(path: &Path) -> Option<String> {
    let canon = std::fs::canonicalize(path).ok()?;
    let m = std::fs::metadata(&canon).ok()?;
    Some(format!(
        "{}|{}|{}.{}|{}",
        canon.display(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ino()
    ))
}

fn load(file: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// The remembered `--version` output for `key`.
pub(crate) fn get(file: &Path, key: &str) -> Option<String> {
    load(file).remove(key)
}

/// Remembers `text` for `key`. Failing to write only costs a probe later.
pub(crate) fn put(file: &Path, key: &str, text: &str) {
    let mut all = load(file);
    if all.len() >= MAX_ENTRIES {
        all.clear();
    }
    all.insert(key.to_string(), text.to_string());
    let Ok(bytes) = serde_json::to_vec_pretty(&all) else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = crate::fsutil::atomic_write(file, &bytes) {
        tracing::debug!(error = %e, "version cache not saved");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_a_different_key() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, "#!/bin/sh\necho 1.0.0\n").unwrap();
        let k1 = key(&bin).unwrap();
        assert_eq!(key(&bin).unwrap(), k1, "stable while unchanged");
        std::fs::write(&bin, "#!/bin/sh\necho 2.0.0\n").unwrap();
        assert_ne!(key(&bin).unwrap(), k1, "same size, new mtime");
        // A symlink is keyed by what it points at.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&bin, &link).unwrap();
        assert_eq!(key(&link), key(&bin));
        assert_eq!(key(&dir.path().join("missing")), None);
    }

    #[test]
    fn put_then_get_and_overflow_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("state/versions.json");
        assert_eq!(get(&file, "a"), None);
        put(&file, "a", "tool 1.2.3");
        assert_eq!(get(&file, "a").as_deref(), Some("tool 1.2.3"));
        for i in 0..MAX_ENTRIES {
            put(&file, &format!("k{i}"), "x");
        }
        assert!(load(&file).len() <= MAX_ENTRIES);
        // Garbage in the file is an empty cache, not an error.
        std::fs::write(&file, "not json").unwrap();
        assert_eq!(get(&file, "a"), None);
        put(&file, "b", "v");
        assert_eq!(get(&file, "b").as_deref(), Some("v"));
    }
}
