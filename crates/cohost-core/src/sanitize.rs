//! The sanitizer every user-visible string passes through.
//!
//! It removes credentials by shape (vendor key formats, bearer tokens, JWTs,
//! passwords in URLs, `SECRET=value` pairs), by value (the values of secret
//! looking variables in the environment), and shows the home directory as `~`.
//! It favours precision on ordinary code: every pattern needs a vendor prefix
//! or a secret-looking name plus enough entropy-like length.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;

/// Text that replaces a secret. Kept short and greppable.
pub const REDACTED: &str = "[REDACTED]";

/// A configured sanitizer. Most code calls the free function [`sanitize`],
/// which uses one built from the process environment.
#[derive(Debug)]
pub struct Sanitizer {
    shapes: Vec<Regex>,
    assignment: Regex,
    quoted_assignment: Regex,
    url_password: Regex,
    url_query_secret: Regex,
    header: Regex,
    private_key: Regex,
    /// Exact secret values from the environment, longest first.
    env_values: Vec<String>,
    home: Option<String>,
}

/// Variable names whose values are secrets: the name contains one of these.
const SECRET_NAME_PARTS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
];

/// Whether an environment variable name looks like it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_PARTS.iter().any(|p| upper.contains(p))
}

impl Sanitizer {
    /// Build a sanitizer for an environment and home directory.
    pub fn new<I, K, V>(env: I, home: Option<String>) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        // Vendor key shapes. Each has a distinctive prefix, so ordinary
        // identifiers (`sk`, `key_value`, `ghost`) never match.
        let shape_sources = [
            r"\bsk-ant-[A-Za-z0-9_\-]{16,}",                          // Anthropic
            r"\bsk-(?:proj|svcacct|admin|or-v1)-[A-Za-z0-9_\-]{16,}", // OpenAI project/service, OpenRouter
            r"\bsk-[A-Za-z0-9_\-]{20,}", // OpenAI classic and other sk- keys
            r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", // Stripe
            r"\bAIza[0-9A-Za-z_\-]{35}", // Google API key
            r"\bya29\.[0-9A-Za-z_\-]{20,}", // Google OAuth access token
            r"\bGOCSPX-[0-9A-Za-z_\-]{20,}", // Google OAuth client secret
            r"\bgh[pousr]_[A-Za-z0-9]{30,}", // GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{30,}", // GitHub fine-grained PAT
            r"\bglpat-[A-Za-z0-9_\-]{20,}", // GitLab
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b", // AWS access key ids
            r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", // Slack tokens
            r"\bxapp-[0-9]-[A-Za-z0-9\-]{10,}", // Slack app token
            r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+", // Slack webhook
            r"\bkey-[A-Za-z0-9]{20,}",   // generic key- (Mailgun style)
            r"\bhf_[A-Za-z0-9]{30,}",    // Hugging Face
            r"\bnpm_[A-Za-z0-9]{30,}",   // npm
            r"\bgsk_[A-Za-z0-9]{30,}",   // Groq
            r"\bxai-[A-Za-z0-9]{30,}",   // xAI
            r"\bdop_v1_[a-f0-9]{40,}",   // DigitalOcean
            r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", // JWT
            r"(?i)\bbearer\s+[A-Za-z0-9_\-\.=~+/]{16,}", // Bearer tokens
            r"(?i)\bbasic\s+[A-Za-z0-9+/]{16,}={0,2}", // Basic auth header values
        ];
        let shapes = shape_sources
            .iter()
            .map(|s| Regex::new(s).expect("static regex"))
            .collect();

        let mut env_values: Vec<String> = env
            .into_iter()
            .filter(|(k, v)| is_secret_name(k.as_ref()) && v.as_ref().len() >= 8)
            .map(|(_, v)| v.as_ref().to_string())
            .collect();
        env_values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        env_values.dedup();

        Sanitizer {
            shapes,
            // UPPER_CASE names only: lowercase `token = next()` is code, not config.
            assignment: Regex::new(
                r"\b([A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)[A-Z0-9_]*)(\s*[=:]\s*)([^\s'\x22]{4,}|'[^']{4,}'|\x22[^\x22]{4,}\x22)",
            )
            .expect("static regex"),
            quoted_assignment: Regex::new(
                r#"(?i)(["']?(?:api[_-]?key|apikey|secret|password|passwd|access[_-]?token|refresh[_-]?token|auth[_-]?token|client[_-]?secret)["']?\s*[:=]\s*)"([^"]{4,})""#,
            )
            .expect("static regex"),
            url_password: Regex::new(r"([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)([^\s@/]+)(@)")
                .expect("static regex"),
            url_query_secret: Regex::new(
                r"(?i)([?&](?:key|api_key|apikey|token|access_token|secret|password|sig|signature)=)([^&\s#]{4,})",
            )
            .expect("static regex"),
            header: Regex::new(
                r"(?i)\b((?:x-api-key|x-goog-api-key|api-key|authorization|proxy-authorization|cookie|set-cookie)\s*:\s*)([^\r\n]{4,})",
            )
            .expect("static regex"),
            private_key: Regex::new(
                r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
            )
            .expect("static regex"),
            env_values,
            home: home.filter(|h| h.len() > 1 && h != "/"),
        }
    }

    /// Build from the current process environment and `$HOME`.
    pub fn from_process_env() -> Self {
        let home = std::env::var("HOME").ok();
        Sanitizer::new(std::env::vars(), home)
    }

    /// Remove every secret from `input` and shorten the home directory to `~`.
    pub fn sanitize<'a>(&self, input: &'a str) -> Cow<'a, str> {
        // Fast path: most strings (stream deltas) hold nothing to redact.
        if !self.might_contain_secret(input) {
            return Cow::Borrowed(input);
        }
        let mut out: String = input.to_string();
        for value in &self.env_values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), REDACTED);
            }
        }
        out = self
            .private_key
            .replace_all(&out, "[REDACTED] (private key)")
            .into_owned();
        out = self
            .header
            .replace_all(&out, |c: &Captures| format!("{}{REDACTED}", &c[1]))
            .into_owned();
        out = self
            .assignment
            .replace_all(&out, |c: &Captures| format!("{}{}{REDACTED}", &c[1], &c[2]))
            .into_owned();
        out = self
            .quoted_assignment
            .replace_all(&out, |c: &Captures| format!("{}\"{REDACTED}\"", &c[1]))
            .into_owned();
        out = self
            .url_password
            .replace_all(&out, |c: &Captures| format!("{}{REDACTED}{}", &c[1], &c[3]))
            .into_owned();
        out = self
            .url_query_secret
            .replace_all(&out, |c: &Captures| format!("{}{REDACTED}", &c[1]))
            .into_owned();
        for re in &self.shapes {
            if re.is_match(&out) {
                out = re.replace_all(&out, REDACTED).into_owned();
            }
        }
        if let Some(home) = &self.home {
            out = replace_home(&out, home);
        }
        Cow::Owned(out)
    }

    fn might_contain_secret(&self, input: &str) -> bool {
        // Secrets are at least 8 chars; short deltas are common in streams.
        if let Some(home) = &self.home {
            if input.contains(home.as_str()) {
                return true;
            }
        }
        if input.len() < 8 {
            return false;
        }
        // Cheap pre-filter: any secret we match contains one of these bytes
        // sequences or an env value. Keeps the per-delta cost tiny.
        const HINTS: &[&str] = &[
            "sk-",
            "sk_",
            "rk_",
            "pk_",
            "AIza",
            "ya29",
            "GOCSPX",
            "gh",
            "glpat",
            "AKIA",
            "ASIA",
            "AGPA",
            "AIDA",
            "AROA",
            "xox",
            "xapp",
            "hooks.slack",
            "key-",
            "hf_",
            "npm_",
            "gsk_",
            "xai-",
            "dop_",
            "eyJ",
            "earer",
            "EARER",
            "asic",
            "ASIC",
            "://",
            "=",
            ":",
            "PRIVATE",
        ];
        HINTS.iter().any(|h| input.contains(h))
            || self.env_values.iter().any(|v| input.contains(v.as_str()))
    }
}

/// Replace the home directory with `~` where it stands as a path prefix.
fn replace_home(input: &str, home: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(pos) = rest.find(home) {
        let after = &rest[pos + home.len()..];
        let before_ok = rest[..pos]
            .chars()
            .last()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '.' && c != '-');
        let after_ok = after
            .chars()
            .next()
            .is_none_or(|c| c == '/' || !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
        out.push_str(&rest[..pos]);
        if before_ok && after_ok {
            out.push('~');
        } else {
            out.push_str(home);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

mod stream;
pub use stream::StreamSanitizer;

static GLOBAL: OnceLock<Sanitizer> = OnceLock::new();

/// The process-wide sanitizer (built on first use from the environment and `$HOME`).
pub fn global() -> &'static Sanitizer {
    GLOBAL.get_or_init(Sanitizer::from_process_env)
}

/// Build the process-wide sanitizer now (compiling its patterns takes a few
/// milliseconds) so the first streamed delta does not pay for it.
pub fn warm_up() {
    let _ = GLOBAL.get_or_init(Sanitizer::from_process_env);
}

/// Sanitize with the process-wide sanitizer (built on first use from the
/// environment and `$HOME`).
pub fn sanitize(input: &str) -> String {
    GLOBAL
        .get_or_init(Sanitizer::from_process_env)
        .sanitize(input)
        .into_owned()
}

/// Sanitize every string inside a JSON value (tool inputs, outputs).
pub fn sanitize_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) => {
            let clean = sanitize(s);
            if clean != *s {
                *s = clean;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(sanitize_json),
        serde_json::Value::Object(map) => map.values_mut().for_each(sanitize_json),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
