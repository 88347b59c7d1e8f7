//! Issue 18's config and session items, as a user meets them: unknown config
//! keys, slots and session ids are clear errors; `--continue` picks up the
//! last session of the directory; `--fork` branches one (on the mock, and on
//! the real pinned Claude Code against the fake model server).

// A test crate: a failed unwrap is a failed test with its line.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::cli_support;

use cli_support::{agents_bin, claude, cohost_in, failed, last_request_with, ok, sessions};

#[test]
fn config_refuses_unknown_keys_and_lists_its_file() {
    let home = tempfile::tempdir().unwrap();
    let c = || cohost_in(home.path(), "/usr/bin:/bin");
    let typo = c()
        .args(["config", "set", "slots.summary.provdier", "mock"])
        .output()
        .unwrap();
    let err = failed(&typo, 3);
    assert!(
        err.contains("`slots.summary.provdier` is not a cohost config key"),
        "{err}"
    );
    assert!(
        err.contains("did you mean `slots.summary.provider`?"),
        "{err}"
    );
    let nosuch = c()
        .args(["config", "set", "nosuch.key", "1"])
        .output()
        .unwrap();
    assert!(failed(&nosuch, 3).contains("cohost config keys"));
    let get = c().args(["config", "get", "nosuch.key"]).output().unwrap();
    failed(&get, 3);
    let kind = c()
        .args(["config", "set", "providers.mock.enabled", "maybe"])
        .output()
        .unwrap();
    assert!(failed(&kind, 3).contains("holds a bool"));
    // Nothing was written by the refused commands.
    let file = home.path().join(".config/cohost/config.toml");
    assert!(!file.exists());

    ok(&c()
        .args(["config", "set", "slots.summary.provider", "mock"])
        .output()
        .unwrap());
    let list = ok(&c().args(["config", "list"]).output().unwrap());
    let first = list.lines().next().unwrap();
    assert!(
        first.starts_with("# ") && first.ends_with("config.toml"),
        "{list}"
    );
    assert!(list.contains("slots.summary.provider = mock"), "{list}");
    // A hand-edited unknown key is shown as such, with the key it resembles.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n[providers.mock]\nmodle = \"x\"\n")).unwrap();
    let list = ok(&c().args(["config", "list"]).output().unwrap());
    assert!(
        list.contains("providers.mock.modle = x  # unknown key, ignored (did you mean `providers.mock.model`?)"),
        "{list}"
    );
    let keys = ok(&c().args(["config", "keys"]).output().unwrap());
    assert!(keys.contains("slots.<name>.provider"), "{keys}");
}

#[test]
fn unknown_slots_and_sessions_are_clear_errors() {
    let home = tempfile::tempdir().unwrap();
    let c = || cohost_in(home.path(), "/usr/bin:/bin");
    let slot = c()
        .args(["run", "--slot", "sumary", "hi"])
        .output()
        .unwrap();
    let err = failed(&slot, 3);
    assert!(err.contains("there is no slot `sumary`"), "{err}");
    assert!(err.contains("did you mean `--slot summary`?"), "{err}");
    assert!(!err.contains("not installed"), "{err}");

    ok(&c()
        .args(["run", "--agent", "mock", "hello"])
        .output()
        .unwrap());
    let id = sessions(c)[0]["id"].as_str().unwrap().to_string();
    let mut typo = id.clone();
    typo.pop();
    typo.push(if id.ends_with('0') { '1' } else { '0' });
    let err = failed(
        &c().args(["run", "--resume", &typo, "hi"]).output().unwrap(),
        3,
    );
    assert!(
        err.contains(&format!("there is no cohost session `{typo}`")),
        "{err}"
    );
    assert!(err.contains(&format!("did you mean `{id}`?")), "{err}");
    // Not cohost's and no agent named: nobody could take it.
    let err = failed(
        &c().args(["run", "--resume", "nosuchid", "hi"])
            .output()
            .unwrap(),
        3,
    );
    assert!(err.contains("--agent AGENT"), "{err}");
    // With an agent named it is that agent's own id (the mock takes any).
    let native = c()
        .args([
            "run", "--agent", "mock", "--resume", "native-7", "--json", "hi",
        ])
        .output()
        .unwrap();
    assert!(ok(&native).contains("\"session_id\":\"native-7\""));
    assert_eq!(sessions(c).len(), 2, "a native resume is recorded");
}

#[test]
fn continue_and_fork_on_the_mock() {
    let home = tempfile::tempdir().unwrap();
    let c = || cohost_in(home.path(), "/usr/bin:/bin");
    let none = c().args(["run", "--continue", "hi"]).output().unwrap();
    assert!(failed(&none, 3).contains("there is none to continue"));

    ok(&c()
        .args(["run", "--agent", "mock", "one"])
        .output()
        .unwrap());
    // Another directory's session is not "the last one here".
    let elsewhere = home.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    ok(&c()
        .args(["run", "--agent", "mock", "--cwd"])
        .arg(&elsewhere)
        .arg("other")
        .output()
        .unwrap());
    let here = sessions(c)
        .into_iter()
        .find(|s| !s["cwd"].as_str().unwrap().ends_with("elsewhere"))
        .unwrap();
    ok(&c().args(["run", "--continue", "two"]).output().unwrap());
    let after = sessions(c);
    assert_eq!(after.len(), 2, "--continue records no new session");
    let again = after.iter().find(|s| s["id"] == here["id"]).unwrap();
    assert_eq!(again["watermark"], 2);

    let parent = here["id"].as_str().unwrap();
    let fork = c()
        .args(["run", "--fork", parent, "--json", "branch"])
        .output()
        .unwrap();
    ok(&fork);
    let all = sessions(c);
    assert_eq!(all.len(), 3, "a fork is a new session");
    let child = all
        .iter()
        .find(|s| s["id"] != here["id"] && s["cwd"] == here["cwd"])
        .unwrap();
    assert_ne!(child["native_session_id"], here["native_session_id"]);
    assert_eq!(
        child["watermark"], 3,
        "the fork has seen the parent's turns"
    );
    let parent_now = all.iter().find(|s| s["id"] == here["id"]).unwrap();
    assert_eq!(parent_now["watermark"], 2, "the parent is left as it was");

    // A provider that cannot fork says so before anything runs.
    let api = c()
        .args(["run", "--agent", "anthropic", "--fork", "native-1", "hi"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&api.stderr).into_owned();
    assert!(err.contains("UNSUPPORTED_MODE"), "{err}");
    assert!(err.contains("cannot fork"), "{err}");
    assert_ne!(api.status.code(), Some(0));
}

/// The forked Claude session starts from the parent's conversation (the
/// fake model sees the parent's turn in the fork's request), gets its own
/// Claude session id, and the parent resumes without the fork's turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_and_continue_on_real_claude() {
    let Some(bin) = agents_bin() else { return };
    let fake = cohost_fakellm::FakeLlm::start(Default::default())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let base = fake.base_url();
    let c = || claude(cohost_in(home.path(), &path), &base);
    let run = |args: &[&str]| {
        let out = c()
            .args(["run", "--agent", "claude", "--approve", "none"])
            .args(args)
            .output()
            .unwrap();
        ok(&out)
    };
    let said = |what: &str| last_request_with(&fake, what).to_string();
    tokio::task::block_in_place(|| {
        assert!(run(&["first-turn-alpha"]).contains("first-turn-alpha"));
        let parent = sessions(c)[0].clone();
        let parent_id = parent["id"].as_str().unwrap().to_string();
        assert!(run(&["--continue", "second-turn-beta"]).contains("second-turn-beta"));
        let body = said("second-turn-beta");
        assert!(
            body.contains("first-turn-alpha"),
            "--continue carries the history: {body}"
        );
        assert_eq!(sessions(c).len(), 1);

        assert!(run(&["--fork", &parent_id, "fork-turn-gamma"]).contains("fork-turn-gamma"));
        let body = said("fork-turn-gamma");
        assert!(
            body.contains("second-turn-beta"),
            "the fork starts from the parent: {body}"
        );
        let all = sessions(c);
        assert_eq!(all.len(), 2);
        let child = all.iter().find(|s| s["id"] != parent_id.as_str()).unwrap();
        assert_ne!(child["native_session_id"], parent["native_session_id"]);
        assert!(child["native_session_id"].is_string());

        run(&["--resume", &parent_id, "parent-turn-delta"]);
        let body = said("parent-turn-delta");
        assert!(body.contains("second-turn-beta"), "{body}");
        assert!(
            !body.contains("fork-turn-gamma"),
            "the parent never saw the fork: {body}"
        );
    });
    fake.shutdown().await;
}
