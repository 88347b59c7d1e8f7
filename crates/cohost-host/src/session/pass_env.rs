//! Variables passed through cohost's narrow child environment on purpose:
//! the ones the user's own agent config names (a Codex provider's
//! `env_key`, OpenCode's `{env:VAR}`, Claude's `apiKeyHelper`) and the
//! `pass_env` list of `[providers.ID]` in cohost's config.

use std::path::Path;

use cohost_agents::catalog::config_env::{named_vars, ConfigLookup};
use cohost_core::AdapterConfig;

use super::setup_error::SetupError;

use cohost_discovery::env::DiscoveryEnv;

/// Copy into `config.env` (without overriding explicit values) every
/// variable agent `id`'s config names and every `pass_env` match from
/// `env`. An exact `pass_env` name that is unset is AUTH_REQUIRED naming
/// it; a variable only the agent's config names is left for the agent to
/// report (it knows whether the provider using it is the active one).
/// Returns how many variables were passed.
pub(super) fn apply(
    env: &DiscoveryEnv,
    id: &str,
    pass_env: &[String],
    config: &mut AdapterConfig,
    config_file: &Path,
) -> Result<usize, SetupError> {
    let explicit = config.env.clone();
    let var = |name: &str| {
        explicit
            .get(name)
            .filter(|v| !v.is_empty())
            .cloned()
            .or_else(|| env.var(name).map(str::to_string))
    };
    let look = ConfigLookup {
        home: env.home.as_deref(),
        cwd: &config.cwd,
        var: &var,
    };
    let mut wanted = named_vars(id, &look);
    for pattern in pass_env {
        match pattern.strip_suffix('*') {
            Some(prefix) if !prefix.is_empty() => {
                wanted.extend(env.vars.keys().filter(|k| k.starts_with(prefix)).cloned());
            }
            // A bare `*` would undo the narrow environment: ignored.
            Some(_) => {}
            None if var(pattern).is_some() => wanted.push(pattern.clone()),
            None => {
                return Err(SetupError::PassEnvUnset {
                    agent: id.to_owned(),
                    var: pattern.clone(),
                    config: config_file.to_path_buf(),
                })
            }
        }
    }
    let mut passed = 0;
    for name in wanted {
        if config.env.contains_key(&name) {
            continue;
        }
        if let Some(v) = env.var(&name) {
            config.env.insert(name, v.to_string());
            passed += 1;
        }
    }
    Ok(passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn env_with(home: &Path, vars: &[(&str, &str)]) -> DiscoveryEnv {
        DiscoveryEnv {
            path: None,
            home: Some(home.to_path_buf()),
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            system_dirs: Vec::new(),
        }
    }

    #[test]
    fn codex_env_key_and_pass_env_patterns_pass() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        std::fs::write(
            home.path().join(".codex/config.toml"),
            "[model_providers.mine]\nenv_key = \"MY_PROVIDER_KEY\"\n",
        )
        .unwrap();
        let env = env_with(
            home.path(),
            &[
                ("MY_PROVIDER_KEY", "k1"),
                ("AWS_REGION", "eu"),
                ("AWS_PROFILE", "p"),
                ("VAULT_TOKEN", "t"),
                ("UNRELATED", "no"),
            ],
        );
        let mut config = AdapterConfig {
            cwd: home.path().to_path_buf(),
            env: BTreeMap::from([("VAULT_TOKEN".to_string(), "explicit".to_string())]),
            ..AdapterConfig::default()
        };
        let pass = vec!["AWS_*".to_string(), "VAULT_TOKEN".to_string(), "*".into()];
        apply(&env, "codex", &pass, &mut config, Path::new("c.toml")).unwrap();
        let keys: Vec<&str> = config.env.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "AWS_PROFILE",
                "AWS_REGION",
                "MY_PROVIDER_KEY",
                "VAULT_TOKEN"
            ]
        );
        assert_eq!(config.env["VAULT_TOKEN"], "explicit", "explicit wins");
        assert_eq!(config.env["MY_PROVIDER_KEY"], "k1");
    }

    #[test]
    fn an_unset_pass_env_name_is_auth_required_naming_it() {
        let home = tempfile::tempdir().unwrap();
        let env = env_with(home.path(), &[]);
        let mut config = AdapterConfig::default();
        let e = apply(
            &env,
            "gemini",
            &["MY_GATEWAY_TOKEN".to_string()],
            &mut config,
            Path::new("/x/config.toml"),
        )
        .unwrap_err();
        let e = cohost_core::CohostError::from(e);
        assert_eq!(e.code, cohost_core::ErrorCode::AuthRequired);
        assert!(e.message.contains("MY_GATEWAY_TOKEN"), "{}", e.message);
        let fix = e.suggested_fix.unwrap();
        assert!(fix.contains("export MY_GATEWAY_TOKEN="), "{fix}");
        assert!(fix.contains("[providers.gemini]"), "{fix}");
    }
}
