use super::*;
use cohost_process::Version;

#[test]
fn ids_are_unique_and_entries_complete() {
    let mut ids: Vec<&str> = CLIS
        .iter()
        .map(|e| e.id)
        .chain(SERVERS.iter().map(|s| s.id))
        .collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate provider id in the catalog");
    for e in CLIS {
        assert!(!e.binaries.is_empty(), "{}: no binary", e.id);
        assert!(!e.install_hint.is_empty(), "{}: no install hint", e.id);
        assert!(!e.label.is_empty(), "{}: no label", e.id);
    }
    // ACP variants are providers too: their ids clash with nothing.
    let variants: Vec<&str> = acp_variants().map(|(variant, _)| variant).collect();
    for v in &variants {
        assert!(
            !ids.contains(v),
            "{v}: an ACP variant's id is also an entry's"
        );
    }
    let mut all = variants.clone();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), variants.len(), "duplicate ACP variant id");
}

#[test]
fn acp_modes_are_what_their_entries_say() {
    for e in CLIS {
        let Some(mode) = e.acp else {
            assert!(e.factory.is_some(), "{}: no factory and no ACP mode", e.id);
            continue;
        };
        let spec = (mode.spec)();
        assert_eq!(spec.id, mode.id, "{}: the launch spec's id", e.id);
        assert_eq!(
            spec.binaries[0],
            e.command(),
            "{}: runs the entry's binary",
            e.id
        );
        assert_eq!(spec.install_hint, e.install_hint, "{}: install hint", e.id);
        if mode.id == e.id {
            // Driven only over ACP: the ACP family registers it.
            assert!(e.factory.is_none(), "{}: two drivers under one id", e.id);
            assert!(acp_base(e.id).is_none(), "{}: its own base", e.id);
        } else {
            assert_eq!(acp_base(mode.id), Some(e), "{}: base of {}", e.id, mode.id);
            assert_eq!(login_fix(mode.id), Some(e.login_fix_as(mode.id)));
        }
    }
    // The variants the tested CLIs have had since they were pinned.
    let variants: Vec<_> = acp_variants().collect();
    for pair in [
        ("gemini-acp", "gemini"),
        ("qwen-acp", "qwen"),
        ("opencode-acp", "opencode"),
        ("copilot-acp", "copilot"),
    ] {
        assert!(
            variants.contains(&pair),
            "{pair:?} missing from {variants:?}"
        );
    }
}

#[test]
fn every_pin_key_is_in_versions_env() {
    for e in CLIS {
        match (e.pin_key, e.evidence) {
            (Some(key), _) => {
                let range = e
                    .tested_range()
                    .unwrap_or_else(|| panic!("{}: {key} not pinned", e.id));
                assert!(range.contains(range.min));
            }
            (None, Evidence::Tested) => panic!("{}: tested but not pinned", e.id),
            (None, Evidence::FixtureOnly) => assert!(e.tested_range().is_none()),
        }
    }
    let claude = cli("claude").unwrap().tested_range().unwrap();
    assert_eq!(claude.min, pinned_version("CLAUDE_CODE_VERSION").unwrap());
    assert_eq!(
        claude.max_exclusive,
        Version::new(claude.min.major + 1, 0, 0)
    );
    let codex = cli("codex").unwrap().tested_range().unwrap();
    assert_eq!(codex.max_exclusive, Version::new(0, codex.min.minor + 1, 0));
}

#[test]
fn flag_table_builds_seed_001_command_lines() {
    let q = QueryArgs {
        prompt: "hi".into(),
        model: Some("m1".into()),
        resume: Some("S1".into()),
        ..Default::default()
    };
    let args = |id: &str, q: &QueryArgs| cli(id).unwrap().flags.query_args(q);
    assert_eq!(
        args("claude", &q),
        [
            "-p",
            "--output-format",
            "json",
            "--model",
            "m1",
            "--resume",
            "S1",
            "hi"
        ]
    );
    assert_eq!(
        args("codex", &q),
        ["exec", "--json", "-m", "m1", "resume", "S1", "hi"]
    );
    assert_eq!(
        args("gemini", &q),
        [
            "--output-format",
            "json",
            "--model",
            "m1",
            "--resume",
            "S1",
            "--prompt=hi"
        ]
    );
    let cont = QueryArgs {
        prompt: "hi".into(),
        continue_latest: true,
        skip_permissions: true,
        stream: true,
        ..Default::default()
    };
    assert_eq!(
        args("codex", &cont),
        [
            "exec",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "resume",
            "--last",
            "hi"
        ]
    );
    assert_eq!(
        args("gemini", &cont),
        [
            "--output-format",
            "stream-json",
            "--approval-mode",
            "yolo",
            "--resume",
            "latest",
            "--prompt=hi"
        ]
    );
    // Gemini takes its terminal prompt as PTY input (seed 001).
    let (argv, initial) = cli("gemini").unwrap().flags.terminal_args(&q);
    assert_eq!(argv, ["--model", "m1", "--resume", "S1"]);
    assert_eq!(initial.as_deref(), Some("hi"));
    // No bypass flag unless asked.
    assert!(!args("claude", &q).iter().any(|a| a.contains("dangerously")));
}

#[test]
fn login_commands() {
    assert_eq!(
        cli("claude").unwrap().login_command().unwrap(),
        ["claude", "auth", "login"]
    );
    assert_eq!(
        cli("codex-acp").unwrap().login_command().unwrap(),
        ["codex", "login"]
    );
    assert_eq!(cli("gemini").unwrap().login_command().unwrap(), ["gemini"]);
    assert!(cli("aider").unwrap().login_command().is_none());
}

#[test]
fn login_fixes_name_the_command_and_the_key() {
    assert_eq!(
        cli("claude-acp").unwrap().login_fix(),
        "run `cohost login claude-acp` (runs `claude auth login`), or set $ANTHROPIC_API_KEY"
    );
    let aider = cli("aider").unwrap();
    assert!(aider.login_command().is_none());
    assert_eq!(
        aider.login_fix(),
        format!("set ${}", aider.auth.env_vars.join(" or $"))
    );
    assert!(!aider.login_fix().contains("cohost login"));
    // A variant signed in through its base CLI.
    assert_eq!(
        super::login_fix("gemini-acp").unwrap(),
        "run `cohost login gemini-acp` (runs `gemini`), or set $GEMINI_API_KEY"
    );
    assert_eq!(super::login_fix("my-plugin"), None);
}

/// Every spec in the one provider list is consistent with itself, with the
/// pins, and with the driver the registry builds from it.
#[test]
fn every_spec_is_consistent() {
    let mut registry = cohost_core::Registry::new();
    crate::builtin::register_all(&mut registry).unwrap();
    for e in CLIS {
        let id = e.id;
        assert!(cohost_core::ProviderKind::AgentCli == e.descriptor().kind);
        assert!(
            e.binaries.iter().all(|b| !b.is_empty() && !b.contains('/')),
            "{id}: binaries are names looked up on PATH"
        );
        // A prefix ends in `_`; a documented switch without one
        // (`DISABLE_TELEMETRY`) is a whole multi-word name. A bare stem
        // (`CLAUDE`) would also let through `CLAUDEX_TOKEN`.
        assert!(
            e.env_prefixes.iter().all(|p| {
                let inner = p.trim_end_matches('_');
                !inner.is_empty()
                    && (p.ends_with('_') || inner.contains('_'))
                    && p.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            }),
            "{id}: env prefixes end in `_` or are whole switch names"
        );
        assert!(
            e.relevant_env
                .iter()
                .chain(e.auth.env_vars)
                .all(|v| !v.is_empty()
                    && v.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')),
            "{id}: variable names"
        );
        // The accepted range holds the pinned version and the tested range.
        match (e.accepted, e.tested_range()) {
            (Some(accepted), Some(tested)) => {
                assert!(
                    accepted.contains(tested.min),
                    "{id}: pin outside {accepted}"
                );
                assert!(
                    accepted.min <= tested.min && tested.max_exclusive <= accepted.max_exclusive,
                    "{id}: tested {tested} not within accepted {accepted}"
                );
            }
            (Some(_), None) => panic!("{id}: accepts versions but none is pinned"),
            (None, _) => assert!(
                e.evidence == Evidence::FixtureOnly || e.version_args.is_empty(),
                "{id}: a tested CLI with a version probe needs an accepted range"
            ),
        }
        assert_eq!(
            e.evidence == Evidence::FixtureOnly,
            e.capabilities.tier == cohost_core::SupportTier::FixtureOnly,
            "{id}: evidence and tier agree"
        );
        if e.flags.fresh_session.is_some() || e.flags.resume.is_some() {
            assert_ne!(
                e.capabilities.resume,
                cohost_core::ResumeSupport::None,
                "{id}: resumes by id but says it cannot"
            );
        }
        assert!(e.install_fix().contains(e.install_hint), "{id}");
        // The registered driver is the one this spec describes.
        let registered = registry
            .get(id)
            .unwrap_or_else(|_| panic!("{id}: in the list but not registered"))
            .descriptor();
        match e.factory {
            Some(make) => {
                assert_eq!(registered, e.descriptor(), "{id}: descriptor");
                assert_eq!((make.0)().descriptor(), registered, "{id}: factory");
            }
            None => {
                // Registered by its family (ACP): the facts that are in both.
                assert_eq!(registered.label, e.label, "{id}: label");
                assert_eq!(registered.install_hint.as_deref(), Some(e.install_hint));
            }
        }
    }
}

#[test]
fn every_catalog_cli_has_its_state_places() {
    use cohost_process::sandbox::has_state_places;
    for e in CLIS {
        assert!(
            has_state_places(e.id, catalog()),
            "`{}` has no state places",
            e.id
        );
    }
    for (variant, _) in acp_variants() {
        assert!(has_state_places(variant, catalog()), "`{variant}`");
    }
    assert!(!has_state_places("my-plugin", catalog()));
}

/// The sandbox's policy tests (`cohost_process::sandbox`) run on a made-up
/// list of two CLIs; these are the credential files they assume.
#[test]
fn the_sandbox_tests_credential_files_are_the_real_ones() {
    let files = |id| cli(id).map(|e| e.auth.credential_files.to_vec());
    assert_eq!(files("claude"), Some(vec![".claude/.credentials.json"]));
    assert_eq!(files("codex"), Some(vec![".codex/auth.json"]));
}
