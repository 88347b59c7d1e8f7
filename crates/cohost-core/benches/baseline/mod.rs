//! The sanitizer and stream sanitizer as they were before the 40-shape
//! corpus (commit 7ae0c3d), kept verbatim as the bench's baseline (less two
//! methods the bench never calls).
#![allow(clippy::all)]
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

// ---- stream.rs ----

/// Most bytes held back for an open context (a header line, a quoted value).
const MAX_HOLD: usize = 8 * 1024;
/// Most bytes held back for an open private key block.
const MAX_KEY_HOLD: usize = 64 * 1024;

/// Sanitizes deltas of one stream; see the module docs.
#[derive(Debug, Default)]
pub struct StreamSanitizer {
    pending: String,
}

impl StreamSanitizer {
    /// A sanitizer for a new stream.
    pub fn new() -> StreamSanitizer {
        StreamSanitizer::default()
    }

    /// Adds a delta; returns the sanitized text that is safe to show now
    /// (possibly empty: the delta is held until its word is complete).
    pub fn push(&mut self, sanitizer: &Sanitizer, delta: &str) -> String {
        self.pending.push_str(delta);
        let cut = safe_cut(&self.pending);
        if cut == 0 {
            return String::new();
        }
        let rest = self.pending.split_off(cut);
        let ready = std::mem::replace(&mut self.pending, rest);
        sanitizer.sanitize(&ready).into_owned()
    }

    /// Ends the stream: the sanitized rest of what was held.
    pub fn finish(&mut self, sanitizer: &Sanitizer) -> String {
        let rest = std::mem::take(&mut self.pending);
        sanitizer.sanitize(&rest).into_owned()
    }
}

/// `name: "value"` or `NAME='value'`, closed or not yet.
fn quoted_value() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"\S*[:=]\s*(?:"[^"]*"?|'[^']*'?)"#).expect("static regex"))
}

fn header_opener() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(?:x-api-key|x-goog-api-key|api-key|authorization|proxy-authorization|cookie|set-cookie)\s*:",
        )
        .expect("static regex")
    })
}

/// Whether a word gives the next word a secret's context.
fn is_opener(word: &str) -> bool {
    if word.ends_with(':') || word.ends_with('=') {
        return true;
    }
    let bare = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-');
    bare.eq_ignore_ascii_case("bearer")
        || bare.eq_ignore_ascii_case("basic")
        || (bare.len() >= 3
            && bare.chars().any(|c| c.is_ascii_uppercase())
            && !bare.chars().any(|c| c.is_ascii_lowercase())
            && is_secret_name(bare))
}

/// The last private key block (or a BEGIN line that may start one): its start,
/// and its end once the END line is complete.
fn key_block(pending: &str) -> Option<(usize, Option<usize>)> {
    let begin = pending.rfind("-----BEGIN")?;
    let after = &pending[begin + "-----BEGIN".len()..];
    let Some(h) = after.find("-----") else {
        return Some((begin, None)); // the BEGIN line is still arriving
    };
    if !after[..h].contains("PRIVATE KEY") {
        return None; // a certificate or other public block
    }
    let body = &after[h + 5..];
    let end = body
        .find("-----END")
        .and_then(|e| body[e..].find("KEY-----").map(|k| e + k + "KEY-----".len()));
    Some((begin, end.map(|e| pending.len() - body.len() + e)))
}

/// Where `pending` can be split so that no secret pattern spans the split.
fn safe_cut(pending: &str) -> usize {
    let end = pending.len();
    // After the last whitespace run.
    let mut cut = pending
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    // Back off over words that give the next one a secret's context.
    while cut > 0 {
        let before = pending[..cut].trim_end();
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        if before.is_empty() || !is_opener(&before[start..]) {
            break;
        }
        cut = start;
    }
    // A header's value runs to the end of its line.
    let line_start = pending.rfind('\n').map_or(0, |i| i + 1);
    if let Some(m) = header_opener().find(&pending[line_start..]) {
        cut = cut.min(line_start + m.start());
    }
    // A quoted value may contain spaces: never split one from its name.
    if let Some(m) = quoted_value()
        .find_iter(pending)
        .find(|m| m.start() < cut && cut < m.end() + usize::from(m.end() == end))
    {
        cut = m.start();
    }
    if end - cut > MAX_HOLD {
        cut = end;
    }
    // A private key block runs to its END line.
    if let Some((begin, block_end)) = key_block(pending) {
        match block_end {
            None if end - begin <= MAX_KEY_HOLD => cut = cut.min(begin),
            Some(block_end) if cut > begin && cut < block_end => cut = begin,
            _ => {}
        }
    }
    cut
}
