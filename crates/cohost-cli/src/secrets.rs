//! The composition root's part in keeping secrets: collect every secret
//! value cohost knows (secret-named environment variables, the variables
//! the config points keys at, secret-named config values, the tokens in the
//! agents' credential files), install the process-wide sanitizer with them,
//! and sanitize everything the log writes. The sanitizer itself stays pure.
//!
//! The binary is the one user of the process-wide sanitizer
//! (`cohost_core::sanitize`'s module doc says why): [`sanitizer`] is its
//! one read of it, and every boundary the binary wires (the host context,
//! the notifier, the room bridge, the renderer) is handed that value.

use cohost_agents::catalog;
use cohost_core::sanitize::{self, is_secret_name, Sanitizer};
use cohost_discovery::{DiscoveryEnv, HostConfig};
use std::io::Write;
use std::sync::Arc;

/// Largest credential file read (they are a few KiB).
const MAX_CREDENTIAL_FILE: u64 = 1 << 20;

/// Builds and installs the process-wide sanitizer; call before anything
/// prints or logs.
pub fn install() {
    let env = DiscoveryEnv::from_process();
    let values = known_values(&env);
    let home = env.home.as_ref().map(|h| h.display().to_string());
    sanitize::install(Sanitizer::new(std::env::vars(), home).with_known_values(values));
}

/// The binary's sanitizer, to hand to a boundary: the one [`install`]
/// built (before it ran, one from the environment alone).
pub fn sanitizer() -> Arc<Sanitizer> {
    sanitize::shared()
}

/// `text` through the binary's sanitizer (what [`say!`](crate::say) prints).
pub fn clean(text: &str) -> String {
    sanitize::global().sanitize(text).into_owned()
}

/// Every secret value cohost can know of in `env` (the sanitizer ignores
/// the short ones).
pub fn known_values(env: &DiscoveryEnv) -> Vec<String> {
    let mut out = Vec::new();
    for p in catalog::api_providers() {
        out.extend(
            p.key_env
                .iter()
                .filter_map(|v| env.var(v))
                .map(str::to_string),
        );
    }
    for cli in catalog::CLIS {
        out.extend(
            cli.auth
                .env_vars
                .iter()
                .filter_map(|v| env.var(v))
                .map(str::to_string),
        );
        for rel in cli.auth.credential_files {
            if let Some(path) = env.home_join(rel) {
                out.extend(credential_file_values(&path));
            }
        }
    }
    if let Ok(cfg) = HostConfig::load(&env.paths().config_file) {
        for (key, value) in cfg.list() {
            let last = key.rsplit('.').next().unwrap_or(&key);
            // `key_env = "MY_PROXY_KEY"`: that variable holds a key.
            if last == "key_env" {
                out.extend(env.var(&value).map(str::to_string));
            } else if is_secret_name(last) {
                out.push(value);
            }
        }
    }
    out
}

/// The tokens in one credential file: JSON string values under a secret
/// name or shaped like a token; `NAME: value` lines of a YAML file.
fn credential_file_values(path: &std::path::Path) -> Vec<String> {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= MAX_CREDENTIAL_FILE);
    let Some(text) = small.then(|| std::fs::read_to_string(path).ok()).flatten() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) {
        json_values(None, &json, &mut out);
        return out;
    }
    for line in text.lines() {
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            if is_secret_name(name.trim()) && !value.is_empty() {
                out.push(value.to_string());
            }
        }
    }
    out
}

fn json_values(key: Option<&str>, v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => {
            // `{"anthropic": {"access": "…", "refresh": "…"}}`: OAuth tokens
            // under ordinary names are long, unbroken and not URLs.
            let token_like = s.len() >= 20
                && !s.contains(char::is_whitespace)
                && !s.contains("://")
                && !s
                    .chars()
                    .all(|c| c.is_ascii_digit() || "-:.TZ+".contains(c));
            if key.is_some_and(is_secret_name) || token_like {
                out.push(s.clone());
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| json_values(key, i, out)),
        serde_json::Value::Object(map) => {
            map.iter().for_each(|(k, i)| json_values(Some(k), i, out));
        }
        _ => {}
    }
}

/// The log's writer: each formatted record passes the sanitizer on its way
/// to stderr, at every level including trace.
pub struct CleanStderr;

impl Write for CleanStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let clean = sanitize::global().sanitize(&text);
        // Escapes inside a logged message (a library's coloured error text)
        // are garbage in a pipe or a file: stripped there, kept on a terminal.
        let clean = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            clean
        } else {
            std::borrow::Cow::Owned(sanitize::strip_controls(&clean).into_owned())
        };
        std::io::stderr().write_all(clean.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Prints a line on stdout with every secret removed.
#[macro_export]
macro_rules! say {
    () => { $crate::secrets::print_line(false, "") };
    ($($arg:tt)*) => {
        $crate::secrets::print_line(false, &$crate::secrets::clean(&format!($($arg)*)))
    };
}

/// Prints a line on stderr with every secret removed.
#[macro_export]
macro_rules! say_err {
    ($($arg:tt)*) => {
        $crate::secrets::print_line(true, &$crate::secrets::clean(&format!($($arg)*)))
    };
}

/// Writes one line to stdout (or stderr), best effort: a reader that went
/// away (`cohost agents | head -1`, a supervisor that read the banner) is no
/// reason to panic or to stop serving.
#[doc(hidden)]
pub fn print_line(stderr: bool, line: &str) {
    use std::io::Write;
    let _ = if stderr {
        writeln!(std::io::stderr(), "{line}")
    } else {
        writeln!(std::io::stdout(), "{line}")
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_files_yield_their_tokens() {
        let dir = std::env::temp_dir().join(format!("cohost-cred-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let json = dir.join("auth.json");
        std::fs::write(
            &json,
            r#"{"anthropic": {"type": "oauth", "access": "oat01-AbCdEfGhIjKlMnOpQrSt", "expires": 1764000000000},
               "tokens": {"id_token": "short-but-named"}, "email": "a@b.c"}"#,
        )
        .ok();
        let mut v = credential_file_values(&json);
        v.sort();
        assert_eq!(v, ["oat01-AbCdEfGhIjKlMnOpQrSt", "short-but-named"]);
        let yaml = dir.join("config.yaml");
        std::fs::write(
            &yaml,
            "GOOSE_PROVIDER: openai\nOPENAI_API_KEY: sk-yaml-value-123\n",
        )
        .ok();
        assert_eq!(credential_file_values(&yaml), ["sk-yaml-value-123"]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
