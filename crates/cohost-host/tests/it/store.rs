//! The session store under concurrent cohost processes.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use cohost_core::sanitize::Sanitizer;
use cohost_host::{SessionRecord, SessionStore};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// A store whose sanitizer knows secret shapes only.
fn open(dir: &Path) -> SessionStore {
    SessionStore::at(dir, Arc::new(Sanitizer::shapes_only()))
}

const CHILD_ENV: &str = "COHOST_STORE_TEST_CHILD";
const DIR_ENV: &str = "COHOST_STORE_TEST_DIR";
const PROCESSES: usize = 8;
const RECORDS_EACH: usize = 12;

/// Not a test on its own: the body of each writer process spawned by
/// `concurrent_processes_lose_no_record` (it returns at once otherwise).
#[test]
fn store_writer_child() {
    let (Ok(n), Ok(dir)) = (std::env::var(CHILD_ENV), std::env::var(DIR_ENV)) else {
        return;
    };
    let store = open(Path::new(&dir));
    for i in 0..RECORDS_EACH {
        let mut rec = SessionRecord::new(format!("p{n}-{i}"), "mock", "/work");
        rec.watermark = i as u64;
        store.upsert(rec).unwrap();
        // Every process also bumps one shared record: updates must not be lost either.
        store
            .update("shared", |r| r.watermark += 1)
            .unwrap()
            .expect("shared record exists");
    }
}

#[test]
fn concurrent_processes_lose_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    store
        .upsert(SessionRecord::new("shared", "mock", "/work"))
        .unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|n| {
            Command::new(&exe)
                .args([
                    "store::store_writer_child",
                    "--exact",
                    "--test-threads=1",
                    "--quiet",
                ])
                .env(CHILD_ENV, n.to_string())
                .env(DIR_ENV, dir.path())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a writer process failed");
    }
    let all = store.list().unwrap();
    assert_eq!(all.len(), PROCESSES * RECORDS_EACH + 1, "records were lost");
    for n in 0..PROCESSES {
        for i in 0..RECORDS_EACH {
            let r = store.get(&format!("p{n}-{i}")).unwrap().unwrap();
            assert_eq!(r.watermark, i as u64);
        }
    }
    let shared = store.get("shared").unwrap().unwrap();
    assert_eq!(
        shared.watermark,
        (PROCESSES * RECORDS_EACH) as u64,
        "updates were lost"
    );
    // No temp files left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("cohost-tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn upsert_keeps_created_time_and_corrupt_store_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut rec = SessionRecord::new("s1", "claude", "/repo");
    rec.model = Some("sonnet".into());
    let first = store.upsert(rec.clone()).unwrap();
    assert!(first.created_at_ms > 0);
    std::thread::sleep(std::time::Duration::from_millis(5));
    rec.native_session_id = Some("abc".into());
    let second = store.upsert(rec).unwrap();
    assert_eq!(second.created_at_ms, first.created_at_ms);
    assert!(second.updated_at_ms > first.updated_at_ms);
    assert_eq!(
        store
            .get("s1")
            .unwrap()
            .unwrap()
            .native_session_id
            .as_deref(),
        Some("abc")
    );
    assert_eq!(store.get("nope").unwrap(), None);
    assert!(store.remove("s1").unwrap());
    assert!(!store.remove("s1").unwrap());

    std::fs::write(store.path(), "{ not json").unwrap();
    let e = cohost_core::CohostError::from(
        store
            .upsert(SessionRecord::new("s2", "claude", "/repo"))
            .unwrap_err(),
    );
    assert_eq!(e.code, cohost_core::ErrorCode::ConfigInvalid);
    assert!(e.message.contains("sessions.json"));
    assert_eq!(std::fs::read_to_string(store.path()).unwrap(), "{ not json");
}

#[test]
fn the_store_is_owner_only_and_its_metadata_sanitized() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A value only this store's sanitizer knows (not the process's).
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    let sanitizer = Sanitizer::shapes_only().with_known_values([PLANTED]);
    let store = SessionStore::at(&state, Arc::new(sanitizer));
    let mut rec = SessionRecord::new("s-1", "claude", "/work/project");
    rec.model = Some("model?key=AbCdEf123456secret".into());
    let mut planted = SessionRecord::new("s-2", format!("gw-{PLANTED}"), "/work/project");
    planted.model = Some(format!("m/{PLANTED}"));
    store.upsert(planted).unwrap();
    rec.native_session_id = Some("native-abc".into());
    store.upsert(rec).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(store.path()), 0o600);
    assert_eq!(mode(&state.join("sessions.lock")), 0o600);
    let text = std::fs::read_to_string(store.path()).unwrap();
    assert!(!text.contains("AbCdEf123456secret"), "{text}");
    assert!(!text.contains(PLANTED), "{text}");
    // What resuming needs is kept as it was.
    let back = store.get("s-1").unwrap().unwrap();
    assert_eq!(back.native_session_id.as_deref(), Some("native-abc"));
    assert_eq!(back.cwd, std::path::PathBuf::from("/work/project"));
}

/// Upserts `ids` one millisecond apart, so their update times order them.
fn upsert_in_order(store: &SessionStore, ids: &[&str]) {
    for id in ids {
        std::thread::sleep(std::time::Duration::from_millis(2));
        store.upsert(SessionRecord::new(*id, "mock", "/w")).unwrap();
    }
}

fn ids(store: &SessionStore) -> Vec<String> {
    store.list().unwrap().into_iter().map(|r| r.id).collect()
}

#[test]
fn the_store_forgets_the_least_recently_used_sessions_beyond_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).keeping(3);
    upsert_in_order(&store, &["s1", "s2", "s3", "s4", "s5"]);
    assert_eq!(ids(&store), ["s5", "s4", "s3"]);
    // A session used again is recent again: the next new one pushes out s4.
    std::thread::sleep(std::time::Duration::from_millis(2));
    store.update("s3", |r| r.watermark = 7).unwrap().unwrap();
    upsert_in_order(&store, &["s6"]);
    assert_eq!(ids(&store), ["s6", "s3", "s5"]);
    assert_eq!(store.get("s3").unwrap().unwrap().watermark, 7);
}

#[test]
fn a_store_grown_past_the_default_size_is_cut_to_it_on_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let n = cohost_host::store::DEFAULT_KEEP + 5;
    let sessions: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| {
            let id = format!("old-{i:05}");
            let rec = serde_json::json!({
                "id": id, "provider": "mock", "cwd": "/w",
                "created_at_ms": 1000 + i, "updated_at_ms": 1000 + i,
            });
            (id, rec)
        })
        .collect();
    let file = serde_json::json!({ "version": 1, "sessions": sessions });
    std::fs::write(store.path(), file.to_string()).unwrap();
    store
        .upsert(SessionRecord::new("new", "mock", "/w"))
        .unwrap();
    let kept = ids(&store);
    assert_eq!(kept.len(), cohost_host::store::DEFAULT_KEEP);
    assert_eq!(kept[0], "new");
    // The six oldest went: the new one took the place of the fifth.
    assert!(!kept.contains(&"old-00005".to_string()));
    assert!(kept.contains(&"old-00006".to_string()));
}
