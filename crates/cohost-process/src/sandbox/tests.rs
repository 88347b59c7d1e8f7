//! The policy computation on a made-up machine: user `u` with keys, cloud
//! credentials, two agents' logins and a project.

use super::walk::Lister;
use super::*;
use crate::provider::{AuthSpec, CliEntry, BASE, NO_AUTH};
use std::collections::BTreeMap;
use std::ffi::OsString;

/// The two agents of the made-up machine, with the credential files their
/// real specs name (`cohost-agents`' catalog tests check they still do).
static CLIS: &[CliEntry] = &[
    CliEntry {
        id: "claude",
        auth: AuthSpec {
            credential_files: &[".claude/.credentials.json"],
            ..NO_AUTH
        },
        ..BASE
    },
    CliEntry {
        id: "codex",
        auth: AuthSpec {
            credential_files: &[".codex/auth.json"],
            ..NO_AUTH
        },
        ..BASE
    },
];

const CATALOG: Catalog = Catalog(CLIS);

struct Machine(BTreeMap<&'static str, Vec<&'static str>>);

impl Lister for Machine {
    fn list(&self, dir: &Path) -> std::io::Result<Vec<OsString>> {
        let key = dir.to_str().unwrap_or_default();
        self.0
            .get(key)
            .map(|v| v.iter().map(OsString::from).collect())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

fn machine() -> Machine {
    Machine(BTreeMap::from([
        ("/", vec!["usr", "etc", "nohome", "tmp"]),
        ("/nohome", vec!["u"]),
        (
            "/nohome/u",
            vec![
                ".ssh",
                ".aws",
                ".claude",
                ".claude.json",
                ".codex",
                ".config",
                "proj",
            ],
        ),
        ("/nohome/u/.claude", vec![".credentials.json", "projects"]),
        ("/nohome/u/.codex", vec!["auth.json", "config.toml"]),
        ("/nohome/u/.config", vec!["cohost", "git"]),
    ]))
}

fn policy_for(provider: &str, request: SandboxRequest) -> SandboxPolicy {
    let var = |k: &str| match k {
        "HOME" => Some("/nohome/u".to_string()),
        _ => None,
    };
    let inputs = Inputs {
        provider_id: provider,
        request: &request,
        cwd: "/nohome/u/proj".into(),
        var: &var,
        env: vec![(
            "ANTHROPIC_BASE_URL".to_string(),
            "http://127.0.0.1:4321".to_string(),
        )],
        catalog: CATALOG,
    };
    compute(
        &inputs,
        Path::new("/tmp/cohost-sandbox-x"),
        &machine(),
        false,
    )
}

fn has(v: &[PathBuf], p: &str) -> bool {
    v.iter().any(|x| x == Path::new(p))
}

/// Whether `p` is readable under `policy` (some read or write rule covers it).
fn readable(policy: &SandboxPolicy, p: &str) -> bool {
    policy
        .read
        .iter()
        .chain(&policy.write)
        .any(|r| Path::new(p).starts_with(r))
}

fn writable(policy: &SandboxPolicy, p: &str) -> bool {
    policy.write.iter().any(|r| Path::new(p).starts_with(r))
}

#[test]
fn claude_reads_its_own_login_but_not_keys_or_codexs() {
    let p = policy_for("claude", SandboxRequest::default());
    assert!(readable(&p, "/usr/bin/git"));
    assert!(readable(&p, "/nohome/u/.config/git/config"));
    assert!(readable(&p, "/nohome/u/.claude/.credentials.json"));
    assert!(readable(&p, "/nohome/u/.codex/config.toml"));
    for secret in [
        "/nohome/u/.ssh/id_ed25519",
        "/nohome/u/.aws/credentials",
        "/nohome/u/.codex/auth.json",
    ] {
        assert!(!readable(&p, secret), "{secret} is readable: {p:#?}");
        assert!(p.denied.iter().any(|d| Path::new(secret).starts_with(d)));
    }
    assert_eq!(p.list, vec![PathBuf::from("/")], "names stay listable");
}

#[test]
fn writes_go_to_the_tree_its_state_and_temp_only() {
    let p = policy_for("claude", SandboxRequest::default());
    assert!(writable(&p, "/nohome/u/proj/src/main.rs"));
    assert!(writable(&p, "/nohome/u/.claude/projects/x.jsonl"));
    assert!(writable(&p, "/nohome/u/.claude.json"));
    assert!(writable(&p, "/tmp/cohost-sandbox-x/f"));
    assert!(
        !writable(&p, "/nohome/u/.codex/config.toml"),
        "not codex's state"
    );
    assert!(!writable(&p, "/nohome/u/.bashrc"));
    assert!(!writable(&p, "/tmp/elsewhere"));
    assert!(!writable(&p, "/etc/passwd"));
    let codex = policy_for("codex", SandboxRequest::default());
    assert!(writable(&codex, "/nohome/u/.codex/sessions/s.jsonl"));
    assert!(
        readable(&codex, "/nohome/u/.codex/auth.json"),
        "its own login"
    );
    assert!(!readable(&codex, "/nohome/u/.claude/.credentials.json"));
}

#[test]
fn the_session_adds_cohosts_secrets_and_a_worktrees_git_dir() {
    let req = SandboxRequest {
        mode: SandboxMode::Required,
        write: vec!["/srv/repo/.git".into()],
        deny: vec!["/nohome/u/.config/cohost".into()],
    };
    let p = policy_for("claude", req);
    assert!(!readable(&p, "/nohome/u/.config/cohost/relay-secrets.json"));
    assert!(readable(&p, "/nohome/u/.config/git/config"));
    assert!(writable(&p, "/srv/repo/.git/objects/ab"));
    assert!(p.required);
}

#[test]
fn the_provider_port_and_443_are_the_only_connects_and_scopes_are_on() {
    let p = policy_for("claude", SandboxRequest::default());
    assert_eq!(p.connect_tcp, Some(vec![443, 4321]));
    assert!(p.scoped);
    assert!(!p.required);
    assert!(has(&p.devices, "/dev/null") && has(&p.devices, "/dev/tty"));
}

#[test]
fn a_tree_that_holds_a_secret_is_granted_around_it() {
    let var = |k: &str| (k == "HOME").then(|| "/nohome/u".to_string());
    let req = SandboxRequest::default();
    let inputs = Inputs {
        provider_id: "claude",
        request: &req,
        cwd: "/nohome/u".into(),
        var: &var,
        env: Vec::new(),
        catalog: CATALOG,
    };
    let p = compute(&inputs, Path::new("/tmp/t"), &machine(), false);
    assert!(writable(&p, "/nohome/u/proj/a"));
    assert!(!readable(&p, "/nohome/u/.ssh/id_ed25519"), "{p:#?}");
    assert!(!writable(&p, "/nohome/u/.ssh/authorized_keys"));
}

#[test]
fn off_builds_nothing() {
    let mut env = EnvPolicy::default();
    let got = build(
        "claude",
        &SandboxRequest::default(),
        None,
        &mut env,
        CATALOG,
    );
    assert!(matches!(got, Ok(None)));
    assert!(!env.explicit.contains_key("TMPDIR"));
}

#[test]
fn on_sets_a_private_tmpdir_that_goes_with_the_sandbox() {
    let scratch = tempfile::tempdir().unwrap();
    let mut env = EnvPolicy::default();
    env.set("HOME", scratch.path().display().to_string());
    env.set("TMPDIR", scratch.path().display().to_string());
    let req = SandboxRequest {
        mode: SandboxMode::On,
        ..SandboxRequest::default()
    };
    let Some(sandbox) = build("codex", &req, Some(scratch.path()), &mut env, CATALOG).unwrap()
    else {
        assert!(!Support::probe().available(), "built where Landlock exists");
        return;
    };
    let tmp = PathBuf::from(&env.explicit["TMPDIR"]);
    assert!(tmp.is_dir() && tmp.starts_with(scratch.path().canonicalize().unwrap()));
    assert!(
        scratch.path().join(".codex").is_dir(),
        "its state dir is made"
    );
    assert!(sandbox.policy.write.contains(&tmp));
    drop(sandbox);
    assert!(!tmp.exists(), "the temp dir goes with the session");
}
