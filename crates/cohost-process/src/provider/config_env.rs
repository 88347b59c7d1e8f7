//! The environment variables a user's own agent config names.
//!
//! Agents read secrets from variables their config files name: a Codex
//! custom model provider's `env_key` and `env_http_headers`, OpenCode's
//! `{env:VAR}` references, the `$VAR`s of Claude Code's `apiKeyHelper`.
//! cohost's narrow child environment would drop them (they match no vendor
//! prefix), so the host reads the files first and passes exactly those
//! names through. Reading is best effort: a missing or unreadable file
//! names nothing, and the agent reports its own config errors.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where an agent's config files are looked for.
pub struct ConfigLookup<'a> {
    /// The user's home directory.
    pub home: Option<&'a Path>,
    /// The session's working directory (project-level config).
    pub cwd: &'a Path,
    /// A non-empty variable of the environment the agent will get.
    pub var: &'a dyn Fn(&str) -> Option<String>,
}

impl ConfigLookup<'_> {
    fn dir_var(&self, name: &str) -> Option<PathBuf> {
        (self.var)(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    }

    fn home_join(&self, rel: &str) -> Option<PathBuf> {
        self.home.map(|h| h.join(rel))
    }
}

/// The variables provider `id`'s own config names, sorted. ACP variants
/// share their base CLI's config (`codex-acp` reads `~/.codex`).
pub fn named_vars(id: &str, look: &ConfigLookup<'_>) -> Vec<String> {
    let base = id.strip_suffix("-acp").unwrap_or(id);
    let mut out = BTreeSet::new();
    match base {
        "codex" => codex(look, &mut out),
        "opencode" => opencode(look, &mut out),
        "claude" | "claude-code" => claude(look, &mut out),
        _ => {}
    }
    out.into_iter().collect()
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// `[model_providers.X] env_key = "VAR"` and
/// `env_http_headers = { "Header" = "VAR" }` in `$CODEX_HOME/config.toml`.
fn codex(look: &ConfigLookup<'_>, out: &mut BTreeSet<String>) {
    let Some(dir) = look
        .dir_var("CODEX_HOME")
        .or_else(|| look.home_join(".codex"))
    else {
        return;
    };
    let Some(doc) = read(&dir.join("config.toml")).and_then(|t| t.parse::<toml::Table>().ok())
    else {
        return;
    };
    let Some(providers) = doc.get("model_providers").and_then(toml::Value::as_table) else {
        return;
    };
    for p in providers.values() {
        if let Some(k) = p.get("env_key").and_then(toml::Value::as_str) {
            push_name(k, out);
        }
        if let Some(h) = p.get("env_http_headers").and_then(toml::Value::as_table) {
            for v in h.values().filter_map(toml::Value::as_str) {
                push_name(v, out);
            }
        }
    }
}

/// `{env:VAR}` anywhere in OpenCode's global, `$OPENCODE_CONFIG` and
/// project config files.
fn opencode(look: &ConfigLookup<'_>, out: &mut BTreeSet<String>) {
    let global = look
        .dir_var("XDG_CONFIG_HOME")
        .or_else(|| look.home_join(".config"))
        .map(|d| d.join("opencode"));
    let mut files: Vec<PathBuf> = Vec::new();
    for name in ["opencode.json", "opencode.jsonc", "config.json"] {
        files.extend(global.as_ref().map(|d| d.join(name)));
        files.push(look.cwd.join(name));
    }
    files.extend((look.var)("OPENCODE_CONFIG").map(PathBuf::from));
    for text in files.iter().filter_map(|f| read(f)) {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("{env:") {
            rest = &rest[at + 5..];
            if let Some(end) = rest.find('}') {
                push_name(rest[..end].trim(), out);
            }
        }
    }
}

/// `$VAR` and `${VAR}` in the shell commands of Claude Code's settings
/// (`apiKeyHelper` and the other credential helpers), user and project.
fn claude(look: &ConfigLookup<'_>, out: &mut BTreeSet<String>) {
    let user = look
        .dir_var("CLAUDE_CONFIG_DIR")
        .or_else(|| look.home_join(".claude"));
    let mut files: Vec<PathBuf> = user.map(|d| d.join("settings.json")).into_iter().collect();
    files.push(look.cwd.join(".claude/settings.json"));
    files.push(look.cwd.join(".claude/settings.local.json"));
    for text in files.iter().filter_map(|f| read(f)) {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        for key in [
            "apiKeyHelper",
            "awsAuthRefresh",
            "awsCredentialExport",
            "otelHeadersHelper",
        ] {
            if let Some(cmd) = json.get(key).and_then(serde_json::Value::as_str) {
                shell_vars(cmd, out);
            }
        }
    }
}

/// The `$NAME` and `${NAME}` references of a shell command.
fn shell_vars(cmd: &str, out: &mut BTreeSet<String>) {
    let mut rest = cmd;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let inner = rest.strip_prefix('{').unwrap_or(rest);
        let end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        push_name(&inner[..end], out);
    }
}

/// Keep `name` when it is a plausible variable name (not `1`, not empty).
fn push_name(name: &str, out: &mut BTreeSet<String>) {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        out.insert(name.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup<'a>(
        home: &'a Path,
        cwd: &'a Path,
        var: &'a dyn Fn(&str) -> Option<String>,
    ) -> ConfigLookup<'a> {
        ConfigLookup {
            home: Some(home),
            cwd,
            var,
        }
    }

    #[test]
    fn codex_env_key_and_header_vars() {
        let home = tempfile::tempdir().unwrap();
        let ch = home.path().join("ch");
        std::fs::create_dir_all(&ch).unwrap();
        std::fs::write(
            ch.join("config.toml"),
            "model_provider = \"mine\"\n[model_providers.mine]\nenv_key = \"MY_PROVIDER_KEY\"\nenv_http_headers = { \"X-Org\" = \"MY_ORG\" }\n[model_providers.bad]\nenv_key = \"not a name\"\n",
        )
        .unwrap();
        let chs = ch.display().to_string();
        let var = move |n: &str| (n == "CODEX_HOME").then(|| chs.clone());
        let look = lookup(home.path(), home.path(), &var);
        assert_eq!(named_vars("codex", &look), ["MY_ORG", "MY_PROVIDER_KEY"]);
        assert_eq!(
            named_vars("codex-acp", &look),
            ["MY_ORG", "MY_PROVIDER_KEY"]
        );
        assert!(named_vars("gemini", &look).is_empty());
        // Without CODEX_HOME, ~/.codex, which is empty here.
        let none = |_: &str| None;
        assert!(named_vars("codex", &lookup(home.path(), home.path(), &none)).is_empty());
    }

    #[test]
    fn opencode_env_references_global_and_project() {
        let home = tempfile::tempdir().unwrap();
        let global = home.path().join(".config/opencode");
        std::fs::create_dir_all(&global).unwrap();
        std::fs::write(
            global.join("opencode.json"),
            r#"{"provider":{"x":{"options":{"apiKey":"{env:X_KEY}","baseURL":"{env: X_URL }"}}}}"#,
        )
        .unwrap();
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(work.join("opencode.jsonc"), "// {env:PROJ_KEY}\n{").unwrap();
        let none = |_: &str| None;
        let look = lookup(home.path(), &work, &none);
        assert_eq!(
            named_vars("opencode", &look),
            ["PROJ_KEY", "X_KEY", "X_URL"]
        );
    }

    #[test]
    fn claude_api_key_helper_vars() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"apiKeyHelper":"vault read -field=key ${VAULT_PATH} --token $VAULT_TOKEN; echo $1"}"#,
        )
        .unwrap();
        let none = |_: &str| None;
        let look = lookup(home.path(), home.path(), &none);
        assert_eq!(named_vars("claude", &look), ["VAULT_PATH", "VAULT_TOKEN"]);
        assert_eq!(
            named_vars("claude-acp", &look),
            ["VAULT_PATH", "VAULT_TOKEN"]
        );
    }
}
