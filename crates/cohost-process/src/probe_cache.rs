//! `--version` and `--help` answers remembered by binary identity.
//!
//! Every session start probed its CLI twice before the real process ran
//! (`claude --version`, `claude --help`: hundreds of milliseconds, seconds
//! for Node CLIs), and `cohost agents` probed every CLI. The answers can only
//! change when the file does, so they are keyed by the resolved path, size,
//! mtime and inode plus the arguments, kept in memory for the process and,
//! once the composition root names a file ([`set_cache_file`]), on disk for
//! the next `cohost run`. Only clean answers (exit 0) are kept; a broken
//! install is probed every time. Library users and tests that name no file
//! keep answers in memory only, so nothing lands in a real `$HOME`.

use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use super::probe_output::ProbeOutput;

/// Entries kept on disk; the file is a cache, so overflow starts afresh.
const MAX_ENTRIES: usize = 128;

static FILE: RwLock<Option<PathBuf>> = RwLock::new(None);
static MEMORY: Mutex<Option<Memory>> = Mutex::new(None);

/// What this process knows: answers it probed or read, and which file it
/// has read them from (read once, not once per lookup: a session start
/// looks up `--version` and `--help`).
#[derive(Default)]
struct Memory {
    answers: HashMap<String, String>,
    read: Option<PathBuf>,
}

/// Keep probe answers in `file` too (the binary calls this with a file in
/// cohost's state directory); `None` goes back to memory only.
pub fn set_cache_file(file: Option<PathBuf>) {
    match FILE.write() {
        Ok(mut f) => *f = file,
        Err(p) => *p.into_inner() = file,
    }
}

fn cache_file() -> Option<PathBuf> {
    match FILE.read() {
        Ok(f) => f.clone(),
        Err(p) => p.into_inner().clone(),
    }
}

/// The identity of the file `path` resolves to.
pub(crate) fn identity(path: &Path) -> Option<String> {
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

/// Whether `args` only describe the binary (`--version`, `--help`,
/// `exec --help`), so the answer depends on the file alone. Login-status
/// probes and the like are never cached.
fn cacheable(args: &[&str]) -> bool {
    matches!(
        args.last(),
        Some(&"--version") | Some(&"--help") | Some(&"-V")
    )
}

fn key_for(binary: &Path, args: &[&str]) -> Option<String> {
    if !cacheable(args) {
        return None;
    }
    Some(format!("{}|{}", identity(binary)?, args.join(" ")))
}

fn load(file: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn memory<R>(f: impl FnOnce(&mut Memory) -> R) -> R {
    let mut guard = MEMORY.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(Memory::default))
}

/// The remembered answer of `binary args…`, when there is one.
pub(crate) fn lookup(binary: &Path, args: &[&str]) -> Option<ProbeOutput> {
    let key = key_for(binary, args)?;
    let file = cache_file();
    let text = memory(|m| {
        if let Some(file) = file.filter(|f| m.read.as_ref() != Some(f)) {
            // What this process probed itself stays; the file adds the rest.
            for (k, v) in load(&file) {
                m.answers.entry(k).or_insert(v);
            }
            m.read = Some(file);
        }
        m.answers.get(&key).cloned()
    })?;
    Some(ProbeOutput {
        text,
        success: true,
    })
}

/// Remember a clean answer. Failing to write only costs a probe later.
pub(crate) fn remember(binary: &Path, args: &[&str], out: &ProbeOutput) {
    if !out.success {
        return;
    }
    let Some(key) = key_for(binary, args) else {
        return;
    };
    memory(|m| m.answers.insert(key.clone(), out.text.clone()));
    let Some(file) = cache_file() else { return };
    let mut all = load(&file);
    if all.len() >= MAX_ENTRIES {
        all.clear();
    }
    all.insert(key, out.text.clone());
    let Ok(bytes) = serde_json::to_vec_pretty(&all) else {
        return;
    };
    if let Err(e) = write_atomic(&file, &bytes) {
        tracing::debug!(error = %e, "probe cache not saved");
    }
}

/// Temp file then rename, so a reader never sees half a file.
pub fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As a new process starts: nothing probed, no file read.
    fn forget() {
        memory(|m| *m = Memory::default());
    }

    #[test]
    fn the_file_is_read_once_for_every_lookup_after() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, "x").unwrap();
        let file = dir.path().join("probes.json");
        let all: BTreeMap<String, String> = [
            (
                key_for(&bin, &["--version"]).unwrap(),
                "tool 1.0".to_string(),
            ),
            (
                key_for(&bin, &["--help"]).unwrap(),
                "usage: tool".to_string(),
            ),
        ]
        .into();
        std::fs::write(&file, serde_json::to_vec(&all).unwrap()).unwrap();
        forget();
        set_cache_file(Some(file.clone()));
        assert_eq!(lookup(&bin, &["--version"]).unwrap().text, "tool 1.0");
        // Gone from disk: the second lookup does not read it again.
        std::fs::remove_file(&file).unwrap();
        assert_eq!(lookup(&bin, &["--help"]).unwrap().text, "usage: tool");
        set_cache_file(None);
        forget();
    }

    #[test]
    fn a_changed_file_is_a_different_identity() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, "#!/bin/sh\necho 1.0.0\n").unwrap();
        let k1 = identity(&bin).unwrap();
        assert_eq!(identity(&bin).unwrap(), k1, "stable while unchanged");
        std::fs::write(&bin, "#!/bin/sh\necho 2.0.0\n").unwrap();
        assert_ne!(identity(&bin).unwrap(), k1, "same size, new mtime");
        // A symlink is keyed by what it points at.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&bin, &link).unwrap();
        assert_eq!(identity(&link), identity(&bin));
        assert_eq!(identity(&dir.path().join("missing")), None);
    }

    #[test]
    fn only_clean_describe_probes_are_kept_and_the_file_survives_the_process() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, "x").unwrap();
        let ok = |text: &str| ProbeOutput {
            text: text.into(),
            success: true,
        };
        remember(&bin, &["login", "status"], &ok("logged in"));
        assert_eq!(lookup(&bin, &["login", "status"]), None, "never cached");
        remember(
            &bin,
            &["--help"],
            &ProbeOutput {
                text: "broken".into(),
                success: false,
            },
        );
        assert_eq!(lookup(&bin, &["--help"]), None, "failures are not kept");
        let file = dir.path().join("state/probes.json");
        set_cache_file(Some(file.clone()));
        remember(&bin, &["--help"], &ok("usage: tool"));
        assert_eq!(lookup(&bin, &["--help"]), Some(ok("usage: tool")));
        // A new process: memory empty, the file answers.
        forget();
        assert_eq!(lookup(&bin, &["--help"]), Some(ok("usage: tool")));
        // Garbage in the file is an empty cache, not an error.
        std::fs::write(&file, "not json").unwrap();
        forget();
        assert_eq!(lookup(&bin, &["--help"]), None);
        set_cache_file(None);
        // The binary changes: the old answer no longer applies.
        remember(&bin, &["--version"], &ok("tool 1.0.0"));
        std::fs::write(&bin, "changed").unwrap();
        assert_eq!(lookup(&bin, &["--version"]), None);
    }
}
