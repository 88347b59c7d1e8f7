//! Each error reaches the wire with the code, message and fix users saw
//! before it was typed, and keeps the library error it came from.

use std::error::Error as _;
use std::path::Path;

use super::*;

fn wire(e: DiscoveryError) -> CohostError {
    e.into()
}

#[test]
fn an_io_failure_keeps_its_io_error_as_source() {
    let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
    let e = DiscoveryError::io("read", Path::new("/x/config.toml"), io);
    let source = e.source().expect("the io error is the source");
    assert_eq!(source.to_string(), "denied");
    assert!(source.downcast_ref::<std::io::Error>().is_some());
    let w = wire(e);
    assert_eq!(w.code, ErrorCode::ConfigInvalid);
    assert_eq!(w.message, "could not read `/x/config.toml`: denied");
    assert_eq!(
        w.suggested_fix.as_deref(),
        Some("check the file's permissions and that the disk is not full")
    );
}

#[test]
fn bad_toml_names_file_and_line_and_keeps_the_parser_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "a = 1\nb = = 2\n").unwrap();
    let e = crate::HostConfig::load(&path).unwrap_err();
    assert!(
        matches!(e, DiscoveryError::ConfigSyntax { line: Some(2), .. }),
        "{e:?}"
    );
    assert!(e
        .source()
        .is_some_and(|s| s.downcast_ref::<Box<toml_edit::TomlError>>().is_some()));
    let w = wire(e);
    assert_eq!(w.code, ErrorCode::ConfigInvalid);
    let at = format!("{}:2: not valid TOML: ", path.display());
    assert!(w.message.starts_with(&at), "{}", w.message);
    assert_eq!(
        w.suggested_fix,
        Some(format!("fix or delete that line in {}", path.display()))
    );
}

#[test]
fn a_broken_price_table_keeps_the_json_error() {
    let e = crate::prices::PriceFile::parse("{", "pinned").unwrap_err();
    assert!(e
        .source()
        .is_some_and(|s| s.downcast_ref::<serde_json::Error>().is_some()));
    let w = wire(e);
    assert_eq!(w.code, ErrorCode::ConfigInvalid);
    assert!(
        w.message
            .starts_with("the price table pinned is not readable: "),
        "{}",
        w.message
    );
}

#[test]
fn each_kind_maps_to_its_wire_code_and_fix() {
    let cases = [
        (
            DiscoveryError::UnknownProvider {
                id: "nope".into(),
                known: vec!["claude".into(), "codex".into()],
            },
            ErrorCode::ProviderNotFound,
            "unknown provider `nope`",
            "known providers: claude, codex",
        ),
        (
            DiscoveryError::LoginByEnv {
                id: "aider".into(),
                vars: vec!["OPENAI_API_KEY", "ANTHROPIC_API_KEY"],
            },
            ErrorCode::UnsupportedMode,
            "`aider` has no login command",
            "set $OPENAI_API_KEY or $ANTHROPIC_API_KEY",
        ),
        (
            DiscoveryError::ModelNotListed {
                provider: "claude".into(),
                model: "gpt".into(),
                listed: vec!["sonnet".into(), "opus".into()],
            },
            ErrorCode::ModelNotAvailable,
            "provider `claude` does not list model `gpt`",
            "pick one of: sonnet, opus",
        ),
        (
            DiscoveryError::NoSuchSlot {
                name: "sumary".into(),
                slots: vec!["summary".into(), "terminal".into()],
                near: Some("summary".into()),
            },
            ErrorCode::ConfigInvalid,
            "there is no slot `sumary`",
            "did you mean `--slot summary`? Slots: summary, terminal",
        ),
        (
            DiscoveryError::NoVersion {
                path: "/bin/claude".into(),
                args: "--version".into(),
                printed: "(nothing)".into(),
                install_hint: "npm i -g x",
            },
            ErrorCode::VersionUnsupported,
            "`/bin/claude --version` printed no version: (nothing)",
            "reinstall it: npm i -g x",
        ),
    ];
    for (e, code, message, fix) in cases {
        let w = wire(e);
        assert_eq!(w.code, code, "{message}");
        assert_eq!(w.message, message);
        assert_eq!(w.suggested_fix.as_deref(), Some(fix));
    }
}

#[test]
fn a_slot_with_an_unknown_provider_is_a_config_mistake_with_the_inner_fix() {
    let inner = DiscoveryError::UnknownProvider {
        id: "nope".into(),
        known: vec!["claude".into()],
    };
    let e = DiscoveryError::Slot {
        path: "/c.toml".into(),
        line: Some(3),
        name: "summary".into(),
        source: Box::new(inner),
    };
    assert!(e.source().is_some());
    let w = wire(e);
    assert_eq!(w.code, ErrorCode::ConfigInvalid);
    assert_eq!(
        w.message,
        "/c.toml:3: slot `summary`: unknown provider `nope`"
    );
    assert_eq!(w.suggested_fix.as_deref(), Some("known providers: claude"));
}

#[test]
fn a_passed_on_error_reaches_the_wire_unchanged() {
    let core = CohostError::new(ErrorCode::Timeout, "slow").with_fix("wait");
    assert_eq!(wire(DiscoveryError::from(core.clone())), core);
}
