//! [`Sanitizer`]: one pass over a text that redacts the secret shapes of
//! [`super::rules`], then the known values, then shows the home directory
//! as `~`.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;

use super::known::{self, MIN_VALUE};
use super::names::{self, is_secret_name};
use super::rules::{self, REDACTED, REDACTED_KEY};

/// A configured sanitizer. The composition root builds one and hands it to
/// every boundary as a value (an `Arc<Sanitizer>`); the process-wide one
/// ([`super::install`]) is for the binary alone (see the module doc).
pub struct Sanitizer {
    // The shapes are process-wide (`compiled()`), not per sanitizer: they
    // compile on first use, or ahead of it on a thread of their own
    // ([`precompile`]), so building a sanitizer at start-up costs no
    // compilation on the way to spawning an agent.
    known: known::KnownValues,
    /// Values given to [`Sanitizer::with_known_values`], kept so more can be added.
    known_list: Vec<String>,
    home: Option<String>,
}

// By hand: the derived form would print the known secret values.
impl std::fmt::Debug for Sanitizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sanitizer")
            .field("known_values", &self.known_list.len())
            .field("home", &self.home.is_some())
            .finish()
    }
}

/// Two sanitizers are equal when they know the same values and home: the
/// shapes are the same for all.
impl PartialEq for Sanitizer {
    fn eq(&self, other: &Self) -> bool {
        self.known_list == other.known_list && self.home == other.home
    }
}

impl Eq for Sanitizer {}

/// [`Sanitizer::shapes_only`]: what a value holds until the composition
/// root's sanitizer is handed to it.
impl Default for Sanitizer {
    fn default() -> Self {
        Sanitizer::shapes_only()
    }
}

#[derive(Debug, Clone, Copy)]
struct RuleGroups {
    kind: rules::Kind,
    all: usize,
    value: Option<usize>,
    name: Option<usize>,
}

/// The combined shape regex (every shape as one regex; alternative `i` is
/// group `a{i}`) and per rule its kind and the indexes of its groups `a`,
/// `v`, `n`; compiled once per process.
fn compiled() -> &'static (Regex, Vec<RuleGroups>) {
    static RE: OnceLock<(Regex, Vec<RuleGroups>)> = OnceLock::new();
    RE.get_or_init(|| {
        #[allow(clippy::expect_used)] // static patterns, covered by every test
        let re = regex::RegexBuilder::new(&rules::combined())
            .size_limit(64 << 20)
            .dfa_size_limit(32 << 20)
            .build()
            .expect("static secret patterns compile");
        let idx = |name: String| re.capture_names().position(|n| n == Some(name.as_str()));
        let groups = rules::RULES
            .iter()
            .enumerate()
            .map(|(i, r)| RuleGroups {
                kind: r.kind,
                all: idx(format!("a{i}")).unwrap_or(0),
                value: idx(format!("v{i}")),
                name: idx(format!("n{i}")),
            })
            .collect();
        (re, groups)
    })
}

/// The private key block rule alone, for the pass that runs first.
pub(super) fn private_key_block() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        #[allow(clippy::expect_used)] // a static pattern, covered by every test
        Regex::new(rules::RULES[0].pattern).expect("static private key pattern compiles")
    })
}

/// Compile the shapes now (see [`super::precompile`]).
pub(super) fn precompile() {
    let _ = compiled();
    let _ = private_key_block();
}

impl Sanitizer {
    /// Build a sanitizer for an environment and home directory: the values
    /// of secret-named variables ([`is_secret_name`]) become known values.
    pub fn new<I, K, V>(env: I, home: Option<String>) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let known_list: Vec<String> = env
            .into_iter()
            .filter(|(k, v)| is_secret_name(k.as_ref()) && is_secret_value(v.as_ref()))
            .map(|(_, v)| v.as_ref().to_string())
            .collect();
        Sanitizer {
            known: known::KnownValues::new(&known_list),
            known_list,
            home: home.filter(|h| h.len() > 1 && h != "/"),
        }
    }

    /// Adds secret values cohost knows (configured provider keys, keys read
    /// from credential files): each is redacted wherever it appears, and so
    /// is any run of [`RUN`](super::RUN) or more of its characters. Values
    /// shorter than [`MIN_VALUE`] characters are ignored.
    pub fn with_known_values<I, S>(mut self, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.known_list.extend(
            values
                .into_iter()
                .map(|v| v.as_ref().trim().to_string())
                .filter(|v| is_secret_value(v)),
        );
        self.known_list.sort();
        self.known_list.dedup();
        self.known = known::KnownValues::new(&self.known_list);
        self
    }

    /// A sanitizer that knows no values and no home: secret shapes only
    /// (keys, tokens, private key blocks). For a part built before the
    /// composition root hands it the real one, and for tests.
    pub fn shapes_only() -> Self {
        Sanitizer::new(Vec::<(String, String)>::new(), None)
    }

    /// Build from the current process environment and `$HOME`.
    pub fn from_process_env() -> Self {
        let home = std::env::var("HOME").ok();
        Sanitizer::new(std::env::vars(), home)
    }

    /// Remove every secret from `input` and shorten the home directory to `~`.
    pub fn sanitize<'a>(&self, input: &'a str) -> Cow<'a, str> {
        let mut text = Cow::Borrowed(input);
        // Key blocks first: a token or known value glued to `-----BEGIN` must not swallow
        // the header and leave the key material behind.
        if text.contains("-----BEGIN") {
            if let Cow::Owned(out) = private_key_block().replace_all(&text, REDACTED_KEY) {
                text = Cow::Owned(out);
            }
        }
        // Shapes before known values: a known value's redaction must not
        // make a word boundary (`[REDACTED]Bearer`) a stream cannot foresee.
        if let Some(out) = self.redact_shapes(&text) {
            text = Cow::Owned(out);
        }
        if let Some(out) = self.known.redact(&text, REDACTED) {
            text = Cow::Owned(out);
        }
        if let Some(home) = &self.home {
            if text.contains(home.as_str()) {
                text = Cow::Owned(replace_home(&text, home));
            }
        }
        text
    }

    /// One pass of the shape regex; `None` when nothing matched.
    fn redact_shapes(&self, text: &str) -> Option<String> {
        let (shapes, groups) = compiled();
        let mut out: Option<String> = None;
        let mut copied = 0; // bytes of `text` already in `out`
        let mut at = 0;
        while at < text.len() {
            let Some(caps) = shapes.captures_at(text, at) else {
                break;
            };
            let Some(rule) = groups.iter().find(|g| caps.get(g.all).is_some()) else {
                break;
            };
            let Some(all) = caps.get(rule.all) else {
                break;
            };
            match decide(rule, &caps, text) {
                Some((start, end, replacement)) => {
                    let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
                    o.push_str(&text[copied..start]);
                    o.push_str(replacement);
                    copied = end;
                    at = all.end().max(at + 1);
                }
                // Not a secret after all: look again inside its value, where
                // a vendor key may still sit (`TOKEN=<sk-ant-…>`).
                None => at = skip_point(rule, &caps, text, at),
            }
        }
        let mut o = out?;
        o.push_str(&text[copied..]);
        Some(o)
    }

    /// Sanitizes every string inside a JSON value in place, and redacts the
    /// whole value of every secret-named key ([`is_secret_name`], the rule
    /// for environment variables) at any depth: under `{"env": {"token":
    /// "…"}}` the token has no shape a text rule could know, only its key
    /// says what it is. A secret-named key's string, long number (of
    /// [`MIN_VALUE`] digits or more) or array of them is redacted; empty
    /// strings and placeholders (`<your key>`, `${TOKEN}`) stay. An object
    /// under such a key is a structure whose members are judged by their
    /// own keys: agents describe their login as `"terminal-auth":
    /// {"command": …}` and `"api-key": {"provider": "google"}` (measured on
    /// the golden transcripts). Keys, booleans and nulls are kept.
    pub fn sanitize_json(&self, value: &mut serde_json::Value) {
        self.sanitize_json_under(value, false);
    }

    /// Sanitizes a text that may be a whole JSON document (a tool's output
    /// as an agent reports it): an object or array is sanitized as a value
    /// ([`Sanitizer::sanitize_json`], keys read) and written back, compact
    /// or pretty as it came, when that redacts something the text rules
    /// would not; any other text as text.
    pub fn sanitize_text_or_json<'a>(&self, input: &'a str) -> Cow<'a, str> {
        let trimmed = input.trim_start();
        if trimmed.starts_with(['{', '[']) {
            if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(input) {
                let before = v.clone();
                self.sanitize_json(&mut v);
                if v != before {
                    let written = if input.trim_end().contains('\n') {
                        serde_json::to_string_pretty(&v)
                    } else {
                        serde_json::to_string(&v)
                    };
                    if let Ok(text) = written {
                        return Cow::Owned(text);
                    }
                }
            }
        }
        self.sanitize(input)
    }

    fn sanitize_json_under(&self, value: &mut serde_json::Value, secret: bool) {
        use serde_json::Value;
        match value {
            // Empty strings and placeholders say nothing: kept as they are.
            Value::String(s)
                if secret && (s.trim().is_empty() || names::is_placeholder(s.trim())) => {}
            Value::String(s) if secret => *s = REDACTED.to_string(),
            Value::String(s) => {
                if let Cow::Owned(clean) = self.sanitize(s) {
                    *s = clean;
                }
            }
            // A PIN or numeric token is as secret as a string one; a count
            // or a port under the same key is too short to matter, and a
            // fraction (a price per token) is a measure, never a credential.
            Value::Number(n) if secret && !n.is_f64() && n.to_string().len() >= MIN_VALUE => {
                *value = Value::String(REDACTED.to_string());
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.sanitize_json_under(v, secret)),
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    self.sanitize_json_under(v, is_secret_name(k));
                }
            }
            _ => {}
        }
    }

    /// Bytes at the end of `ready` a stream holds back because a known value
    /// with whitespace in it may continue past the cut.
    pub(crate) fn known_hold(&self, ready: &str) -> usize {
        self.known.hold(ready)
    }
}

/// Whether a value is worth knowing: long enough, and not a path (a
/// `GOOGLE_APPLICATION_CREDENTIALS` file name is not the secret).
fn is_secret_value(v: &str) -> bool {
    let v = v.trim();
    v.chars().count() >= MIN_VALUE && !v.starts_with(['/', '~']) && !v.starts_with("./")
}

/// Where to search again after a match that is not a secret.
fn skip_point(rule: &RuleGroups, caps: &Captures, text: &str, at: usize) -> usize {
    let next = rule
        .value
        .and_then(|i| caps.get(i))
        .map_or(at, |v| v.start())
        .max(at + 1);
    let mut next = next.min(text.len());
    while !text.is_char_boundary(next) {
        next += 1;
    }
    next
}

/// For a match: the span to replace and its replacement, or `None` when the
/// match is not a secret.
fn decide(rule: &RuleGroups, caps: &Captures, text: &str) -> Option<(usize, usize, &'static str)> {
    let all = caps.get(rule.all)?;
    let value = rule.value.and_then(|i| caps.get(i));
    match rule.kind {
        rules::Kind::Whole => Some((all.start(), all.end(), REDACTED)),
        rules::Kind::PrivateKey => Some((all.start(), all.end(), REDACTED_KEY)),
        rules::Kind::Value => {
            let v = value?;
            let bare = v
                .as_str()
                .trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let bare = bare.trim_start();
            if names::is_placeholder(v.as_str())
                || (!bare.is_empty() && names::is_placeholder(bare))
            {
                return None;
            }
            Some((v.start(), v.end(), REDACTED))
        }
        rules::Kind::UrlPassword => {
            let v = value?;
            // `http://host:8080/a@b`: a port and a path, not a password.
            let head = v.as_str().split('/').next().unwrap_or("");
            if v.as_str().contains('/') && head.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            if names::is_placeholder(v.as_str()) {
                return None;
            }
            Some((v.start(), v.end(), REDACTED))
        }
        rules::Kind::Assign => {
            let name_at = rule.name.and_then(|i| caps.get(i))?;
            let name = name_at.as_str();
            let v = value?;
            let raw = v.as_str();
            if raw.starts_with('[') {
                // A list of quoted strings: secret when one item is, and
                // then the list's contents go as one.
                let secret = names::is_secret_name(name)
                    && list_items(raw).any(|item| {
                        item.chars().count() >= 4
                            && !names::is_placeholder(item)
                            && (!names::is_bare_word(name) || names::looks_random(item))
                    });
                return secret.then_some((v.start() + 1, v.end() - 1, REDACTED_ITEM));
            }
            // `\"value\"`: JSON written inside a JSON string, so only after
            // `\"name\":` (TOML in a Rust string, `key = \"NAME\"`, is code).
            let q = if raw.starts_with('\\') {
                let between: String = text[name_at.end()..v.start()]
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                if !text[..name_at.start()].ends_with("\\\"") || between != "\\\":" {
                    return None;
                }
                2
            } else {
                1
            };
            let quoted = raw.starts_with(['"', '\'', '\\']);
            let inner = if quoted && raw.len() >= 2 * q {
                &raw[q..raw.len() - q]
            } else {
                raw
            };
            let rest = &text[v.end()..];
            let declared = names::is_declaration(&text[..all.start()]);
            let secret = names::is_secret_name(name)
                && (quoted || !declared)
                && inner.chars().count() >= 4
                && !names::is_placeholder(inner)
                && (quoted || !names::is_code(inner, rest))
                && (!names::is_bare_word(name) || names::looks_random(inner));
            if !secret {
                return None;
            }
            if quoted {
                Some((v.start() + q, v.end() - q, REDACTED))
            } else {
                Some((v.start(), v.end(), REDACTED))
            }
        }
    }
}

/// What a redacted list of strings holds instead of its items.
const REDACTED_ITEM: &str = "\"[REDACTED]\"";

/// The items of a one-line list of quoted strings (`["a", "b"]`), without
/// their quotes.
fn list_items(raw: &str) -> impl Iterator<Item = &str> {
    // The rule matched quoted items only, so every other piece between
    // quotes is an item (an escaped quote inside one only splits it).
    raw.split('"').skip(1).step_by(2)
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
