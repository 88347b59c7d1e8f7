//! Gemini's auth type when the user's settings choose none.
//!
//! Headless gemini takes `security.auth.selectedType` from its settings,
//! else guesses from the environment, and 0.61 guesses `gateway` whenever
//! `GOOGLE_GEMINI_BASE_URL` is set: a type its own validation refuses
//! ("Invalid auth method selected", exit 41), so a user with a key and a
//! base URL but no `~/.gemini/settings.json` could not run at all. cohost
//! then picks the type from the credentials in the environment and hands
//! it over as gemini's *system defaults* (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`),
//! the lowest-precedence settings layer: any choice in the user's or the
//! project's settings still wins, and nothing of the user's is written.

use std::path::{Path, PathBuf};

use cohost_core::{AdapterConfig, CohostError, ErrorCode};

use crate::catalog::EnvLookup;

/// The variable naming gemini's system-defaults settings file.
pub(crate) const DEFAULTS_VAR: &str = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH";

/// A variable of the child's environment: explicit first, then inherited.
fn var(config: &AdapterConfig, name: &str) -> Option<String> {
    config
        .env
        .get(name)
        .cloned()
        .or_else(|| std::env::var(name).ok())
        .filter(|v| !v.is_empty())
}

/// Whether a settings file selects an auth type (current or legacy key).
fn selects_auth(file: &Path) -> bool {
    let Some(json) = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return false;
    };
    json.pointer("/security/auth/selectedType")
        .or_else(|| json.get("selectedAuthType"))
        .and_then(serde_json::Value::as_str)
        .is_some_and(|t| !t.is_empty())
}

/// The auth type the environment's credentials call for, if any.
pub(crate) fn type_from_env(lookup: impl Fn(&str) -> Option<String>) -> Option<&'static str> {
    let set = |n: &str| lookup(n).is_some();
    // Explicit environment choices gemini understands by itself.
    if set("GOOGLE_GENAI_USE_GCA") || set("GOOGLE_GENAI_USE_VERTEXAI") {
        return None;
    }
    if set("GEMINI_API_KEY") {
        Some("gemini-api-key")
    } else if set("GOOGLE_API_KEY") || (set("GOOGLE_CLOUD_PROJECT") && set("GOOGLE_CLOUD_LOCATION"))
    {
        Some("vertex-ai")
    } else {
        None
    }
}

/// What gemini will do about its auth type.
#[derive(Debug, PartialEq, Eq)]
enum Choice {
    /// Settings or the environment settle it (or cohost cannot tell).
    Settled,
    /// cohost hands gemini a defaults file selecting this type.
    Defaults(&'static str, PathBuf),
    /// gemini will guess `gateway` and refuse it; the type the
    /// environment's credentials call for, if any.
    Refused(Option<&'static str>, PathBuf),
}

/// Decide, from the environment gemini will see and its working directory.
fn choose(lookup: EnvLookup<'_>, cwd: &Path) -> Choice {
    let var = |n: &str| lookup(n).filter(|v| !v.is_empty());
    if var(DEFAULTS_VAR).is_some() {
        return Choice::Settled;
    }
    let Some(home) = var("GEMINI_CLI_HOME").or_else(|| var("HOME")) else {
        return Choice::Settled;
    };
    let user_settings = PathBuf::from(&home).join(".gemini/settings.json");
    let settings = [
        user_settings.clone(),
        cwd.join(".gemini/settings.json"),
        // gemini's system settings: where the user's variable says, else
        // the default path.
        var("GEMINI_CLI_SYSTEM_SETTINGS_PATH").map_or_else(
            || PathBuf::from("/etc/gemini-cli/settings.json"),
            PathBuf::from,
        ),
        PathBuf::from("/etc/gemini-cli/system-defaults.json"),
    ];
    if settings
        .iter()
        .any(|f| selects_auth(f) || f.ends_with("system-defaults.json") && f.is_file())
    {
        return Choice::Settled;
    }
    let kind = type_from_env(var);
    let explicit =
        var("GOOGLE_GENAI_USE_GCA").is_some() || var("GOOGLE_GENAI_USE_VERTEXAI").is_some();
    let state = var("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| PathBuf::from(&home).join(".local/state"));
    // gemini 0.61 (`isFileAndDirectorySecureSync`) skips a defaults file
    // not owned by root or below a directory that is not root-owned or is
    // group/world-writable (a `/tmp` HOME, any non-root user's HOME).
    let file = kind.map(|k| state.join("cohost/gemini").join(format!("{k}.json")));
    match (kind, file) {
        (Some(k), Some(file)) if private_ancestors(&file) => Choice::Defaults(k, file),
        // What gemini guesses first when nothing is selected.
        _ if var("GOOGLE_GEMINI_BASE_URL").is_some() && !explicit => {
            Choice::Refused(kind, user_settings)
        }
        _ => Choice::Settled,
    }
}

/// `(GEMINI_CLI_SYSTEM_DEFAULTS_PATH, file)` when no settings choose an auth
/// type, the environment has credentials and gemini would read a defaults
/// file cohost writes (root, private state directory); the file (in
/// cohost's state directory) selects that type. `None` leaves gemini to
/// itself.
pub(crate) fn defaults_env(config: &AdapterConfig) -> Option<(&'static str, String)> {
    let Choice::Defaults(kind, file) = choose(&|n| var(config, n), &config.cwd) else {
        return None;
    };
    let body = selection(kind);
    if std::fs::read_to_string(&file).ok().as_deref() != Some(body.as_str()) {
        crate::process::write_atomic(&file, body.as_bytes()).ok()?;
    }
    Some((DEFAULTS_VAR, file.display().to_string()))
}

/// The failure gemini would start into, found before it is spawned: no
/// settings select an auth type and `GOOGLE_GEMINI_BASE_URL` is set, so
/// gemini 0.61 guesses `gateway` and then refuses it ("Invalid auth method
/// selected", exit 41), and cohost cannot hand over a defaults file (gemini
/// reads one only below root-owned private directories, so not for a
/// non-root user). cohost does not write the user's own settings; the fix
/// says what to add.
pub(crate) fn preflight(lookup: EnvLookup<'_>, cwd: &Path) -> Result<(), CohostError> {
    let Choice::Refused(kind, settings) = choose(lookup, cwd) else {
        return Ok(());
    };
    let shown = settings.display();
    let (kind, key_hint) = match kind {
        Some(k) => (k, String::new()),
        None => ("gemini-api-key", "set GEMINI_API_KEY and ".to_string()),
    };
    let line = selection(kind);
    let fix = if settings.is_file() {
        format!("{key_hint}add \"security\": {{\"auth\": {{\"selectedType\": \"{kind}\"}}}} to {shown}, or run `cohost login gemini` once and choose the API key")
    } else {
        format!("{key_hint}create {shown} containing {line}, or run `cohost login gemini` once and choose the API key")
    };
    Err(CohostError::new(
        ErrorCode::AuthRequired,
        "gemini cannot pick an auth type: no settings file selects one and GOOGLE_GEMINI_BASE_URL is set, so gemini guesses `gateway` and then refuses it (\"Invalid auth method selected\")",
    )
    .with_fix(fix))
}

/// A settings document that selects auth type `kind` (and nothing else).
fn selection(kind: &str) -> String {
    serde_json::json!({"security": {"auth": {"selectedType": kind}}}).to_string()
}

/// Whether every existing ancestor of `file` is owned by root and not
/// writable by group or others (what gemini requires of a defaults file).
fn private_ancestors(file: &Path) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    file.ancestors()
        .skip(1)
        .all(|dir| match std::fs::metadata(dir) {
            Ok(m) => m.uid() == 0 && m.permissions().mode() & 0o022 == 0,
            Err(_) => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn config(home: &Path, vars: &[(&str, &str)]) -> AdapterConfig {
        let mut env: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        env.insert("HOME".into(), home.display().to_string());
        // Shadow whatever the test process has.
        for k in ["GEMINI_CLI_HOME", "XDG_STATE_HOME", DEFAULTS_VAR] {
            env.entry(k.into()).or_default();
        }
        AdapterConfig {
            cwd: home.to_path_buf(),
            env,
            ..AdapterConfig::default()
        }
    }

    #[test]
    fn settings_that_choose_and_insecure_dirs_leave_gemini_alone() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let vars = [
            ("GEMINI_API_KEY", "k"),
            ("GOOGLE_GEMINI_BASE_URL", "http://x"),
        ];
        // A state dir below a world-writable directory: gemini would skip it.
        let open = home.path().join("open");
        std::fs::create_dir_all(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let mut cfg = config(home.path(), &vars);
        cfg.env.insert(
            "XDG_STATE_HOME".into(),
            open.join("state").display().to_string(),
        );
        assert_eq!(defaults_env(&cfg), None);
        assert!(!open.join("state").exists(), "nothing written");
        // The user's own choice wins.
        std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
        std::fs::write(
            home.path().join(".gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"oauth-personal"}}}"#,
        )
        .unwrap();
        assert!(selects_auth(&home.path().join(".gemini/settings.json")));
        assert_eq!(defaults_env(&config(home.path(), &vars)), None);
        // So does a system settings file the user named that selects one.
        std::fs::remove_file(home.path().join(".gemini/settings.json")).unwrap();
        let system = home.path().join("system.json");
        std::fs::write(
            &system,
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
        )
        .unwrap();
        let lookup = |extra: Option<&Path>| {
            let mut cfg = config(home.path(), &vars);
            if let Some(p) = extra {
                cfg.env.insert(
                    "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
                    p.display().to_string(),
                );
            }
            cfg
        };
        let without = lookup(None);
        assert!(preflight(&|n| var(&without, n), &without.cwd).is_err());
        let with = lookup(Some(&system));
        assert!(preflight(&|n| var(&with, n), &with.cwd).is_ok());
        // So does a defaults file the user named.
        let mut named = config(home.path(), &vars);
        named.env.insert(DEFAULTS_VAR.into(), "/x.json".into());
        assert_eq!(defaults_env(&named), None);
    }

    /// A state dir owned by a non-root user (what any non-root user has):
    /// gemini 0.61 would skip the file, so cohost sets nothing. Needs root
    /// to make such a directory; skips with a notice otherwise.
    #[test]
    fn a_state_dir_not_owned_by_root_is_skipped() {
        use std::os::unix::fs::MetadataExt;
        let home = tempfile::tempdir().unwrap();
        if std::fs::metadata(home.path()).unwrap().uid() != 0 {
            eprintln!("SKIP: not root; every dir of ours is non-root-owned already");
            let cfg = config(home.path(), &[("GEMINI_API_KEY", "k")]);
            assert_eq!(defaults_env(&cfg), None);
            return;
        }
        let state = home.path().join("nobodys");
        std::fs::create_dir_all(&state).unwrap();
        std::os::unix::fs::chown(&state, Some(65534), Some(65534)).unwrap();
        let mut cfg = config(home.path(), &[("GEMINI_API_KEY", "k")]);
        cfg.env
            .insert("XDG_STATE_HOME".into(), state.display().to_string());
        assert_eq!(defaults_env(&cfg), None);
        assert!(!state.join("cohost").exists(), "nothing written");
    }

    #[test]
    fn types_from_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |n: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            type_from_env(env(&[("GEMINI_API_KEY", "k")])),
            Some("gemini-api-key")
        );
        assert_eq!(
            type_from_env(env(&[("GOOGLE_API_KEY", "k")])),
            Some("vertex-ai")
        );
        assert_eq!(
            type_from_env(env(&[
                ("GOOGLE_CLOUD_PROJECT", "p"),
                ("GOOGLE_CLOUD_LOCATION", "l")
            ])),
            Some("vertex-ai")
        );
        assert_eq!(
            type_from_env(env(&[
                ("GEMINI_API_KEY", "k"),
                ("GOOGLE_GENAI_USE_GCA", "true")
            ])),
            None
        );
        assert_eq!(type_from_env(env(&[])), None);
    }
}
