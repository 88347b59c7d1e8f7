//! Sanitizing a stream of deltas, where a secret may arrive split in pieces.
//!
//! Sanitizing each delta alone lets `sk-ant-…` through when it comes as
//! `sk-a` + `nt-…`. [`StreamSanitizer`] holds back the tail that could still
//! be part of a secret and releases text only at boundaries no secret pattern
//! crosses: after whitespace, and never right after a word that gives a secret
//! its context (`Bearer`, `API_KEY =`, `"password":`, an open quote, an
//! `Authorization:` line, a private key block). Ordinary prose is held back by
//! at most its last partial word.

use std::sync::OnceLock;

use regex::Regex;

use super::{is_secret_name, Sanitizer};

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

    /// Bytes currently held back.
    pub fn held(&self) -> usize {
        self.pending.len()
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

/// A private key block exactly as [`Sanitizer`] redacts it (keep the two
/// patterns in step): BEGIN line to END line, or to the end of the text.
fn private_key_block() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        )
        .expect("static regex")
    })
}

/// The last private key block (or a BEGIN line that may start one): its start,
/// and its end once the END line is complete. The block is the sanitizer's
/// own match, so a malformed END line that the sanitizer does not accept
/// does not end it here either (a split there would redact differently).
fn key_block(pending: &str) -> Option<(usize, Option<usize>)> {
    let last = private_key_block().find_iter(pending).last();
    let searched_from = last.map_or(0, |m| m.end());
    // A BEGIN line still arriving after the last block.
    if let Some(b) = pending[searched_from..].rfind("-----BEGIN") {
        let begin = searched_from + b;
        if !pending[begin + "-----BEGIN".len()..].contains("-----") {
            return Some((begin, None));
        }
    }
    let m = last?;
    let text = m.as_str();
    let body = &text[text.find("KEY-----").map_or(0, |i| i + "KEY-----".len())..];
    let closed = body.contains("-----END ") && body.ends_with("PRIVATE KEY-----");
    Some((m.start(), closed.then_some(m.end())))
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
    cut = back_off_contexts(pending, cut);
    if end - cut > MAX_HOLD {
        cut = end;
    }
    // A private key block runs to its END line.
    if let Some((begin, block_end)) = key_block(pending) {
        let held = cut;
        match block_end {
            None if end - begin <= MAX_KEY_HOLD => cut = cut.min(begin),
            Some(block_end) if cut > begin && cut < block_end => cut = begin,
            _ => {}
        }
        // A BEGIN inside a quoted value or a header line: moving the cut
        // back to it must not split that context either (within the bound).
        if cut < held {
            let backed = back_off_contexts(pending, cut);
            if end - backed <= MAX_KEY_HOLD {
                cut = backed;
            }
        }
    }
    cut
}

/// Moves `cut` back so it splits neither a quoted value from its name nor
/// a header line (whose value runs to the end of the line).
fn back_off_contexts(pending: &str, mut cut: usize) -> usize {
    let end = pending.len();
    // A quoted value may contain spaces: never split one from its name.
    if let Some(m) = quoted_value()
        .find_iter(pending)
        .find(|m| m.start() < cut && cut < m.end() + usize::from(m.end() == end))
    {
        cut = m.start();
    }
    // That may move the cut back into an earlier, complete header line.
    let cut_line = pending[..cut].rfind('\n').map_or(0, |i| i + 1);
    if let Some(m) = header_opener().find(&pending[cut_line..cut]) {
        cut = cut_line + m.start();
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s() -> Sanitizer {
        Sanitizer::new(
            [("MY_SERVICE_TOKEN", "tok-value-1234567890")],
            Some("/home/alice".to_string()),
        )
    }

    /// (text, the part that must never appear in the output)
    const CASES: &[(&str, &str)] = &[
        ("use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345 here", "AbCdEfGhIjKlMnOp"),
        ("a JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U done", "dozjgNryP4J3jVmNHl0w5N"),
        ("header Authorization: Bearer abcdef0123456789ABCDEFxyz then more", "abcdef0123456789ABCDEF"),
        ("and x-api-key: my secret value 123\nnext line", "my secret value"),
        ("env API_KEY = hunter2hunter2 and more", "hunter2hunter2"),
        ("env OPENAI_API_KEY: sk-abcdefghijklmnopqrstuvwxyz0123 ok", "abcdefghijklmnopqrst"),
        ("json {\"password\": \"correct horse battery staple\"} ok", "horse battery"),
        ("url postgres://bob:s3cretpass@db.local/x ok", "s3cretpass"),
        ("value tok-value-1234567890 from env", "tok-value-1234567890"),
        ("path /home/alice/project/file.rs here", "/home/alice"),
        ("Bearer\n  abcdef0123456789ABCDEFxyz end", "abcdef0123456789ABCDEF"),
        (
            "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcdefSECRETLINE\n-----END RSA PRIVATE KEY-----\nafter",
            "SECRETLINE",
        ),
        (
            "cert:\n-----BEGIN CERTIFICATE-----\nMIIBpublicpart\n-----END CERTIFICATE-----\nafter it",
            "NOTHING-SECRET-HERE",
        ),
    ];

    fn stream(san: &Sanitizer, pieces: &[&str]) -> (String, usize) {
        let mut st = StreamSanitizer::new();
        let mut out = String::new();
        let mut emits = 0;
        for p in pieces {
            let o = st.push(san, p);
            if !o.is_empty() {
                emits += 1;
            }
            out.push_str(&o);
        }
        out.push_str(&st.finish(san));
        (out, emits)
    }

    #[test]
    fn every_split_in_two_and_three_equals_the_whole_sanitized() {
        let san = s();
        for (text, secret) in CASES {
            let whole = san.sanitize(text).into_owned();
            assert!(!whole.contains(secret), "the corpus itself: {whole}");
            let cuts: Vec<usize> = (0..=text.len())
                .filter(|i| text.is_char_boundary(*i))
                .collect();
            for &a in &cuts {
                let (out, _) = stream(&san, &[&text[..a], &text[a..]]);
                assert_eq!(out, whole, "split at {a} of {text:?}");
            }
            for &a in cuts.iter().step_by(3) {
                for &b in cuts.iter().filter(|b| **b >= a).step_by(5) {
                    let (out, _) = stream(&san, &[&text[..a], &text[a..b], &text[b..]]);
                    assert_eq!(out, whole, "split at {a},{b} of {text:?}");
                }
            }
        }
    }

    #[test]
    fn char_by_char_leaks_nothing() {
        let san = s();
        for (text, secret) in CASES {
            let pieces: Vec<String> = text.chars().map(String::from).collect();
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let (out, _) = stream(&san, &refs);
            assert!(!out.contains(secret), "{out}");
            assert_eq!(out, san.sanitize(text).into_owned());
        }
    }

    #[test]
    fn prose_flows_word_by_word() {
        let san = s();
        let mut st = StreamSanitizer::new();
        assert_eq!(st.push(&san, "Hello wor"), "Hello ");
        assert_eq!(st.push(&san, "ld, this is"), "world, this ");
        assert_eq!(st.held(), 2);
        assert_eq!(st.push(&san, " fine.\n"), "is fine.\n");
        assert_eq!(st.held(), 0);
        assert_eq!(st.finish(&san), "");
    }

    #[test]
    fn context_words_wait_for_their_value() {
        let san = s();
        let mut st = StreamSanitizer::new();
        assert_eq!(st.push(&san, "send Bearer "), "send ");
        assert_eq!(st.push(&san, "abcdef0123456789ABCDEFxyz "), "[REDACTED] ");
    }

    #[test]
    fn a_certificate_is_not_held() {
        let san = s();
        let mut st = StreamSanitizer::new();
        let out = st.push(&san, "-----BEGIN CERTIFICATE-----\nMIIBpublic\n");
        assert_eq!(out, "-----BEGIN CERTIFICATE-----\nMIIBpublic\n");
    }

    #[test]
    fn holds_are_bounded() {
        let san = s();
        let mut st = StreamSanitizer::new();
        let _ = st.push(&san, "Authorization: ");
        let long = "x ".repeat(MAX_HOLD);
        let out = st.push(&san, &long);
        assert!(
            out.starts_with("Authorization: [REDACTED]"),
            "{}",
            &out[..40]
        );
        assert_eq!(st.held(), 0);
        // A word with no end is released once it is huge.
        let mut st = StreamSanitizer::new();
        let out = st.push(&san, &"y".repeat(MAX_HOLD + 1));
        assert_eq!(out.len(), MAX_HOLD + 1);
    }

    #[test]
    fn ordinary_words_are_not_openers() {
        for w in [
            "hello",
            "Key",
            "tokens",
            "the",
            "KEYBOARD_LAYOUT_X",
            "x=1",
            "a:b",
            "\"quoted",
        ] {
            // `KEYBOARD…` holds a secret part (KEY) by name; that is the
            // conservative choice, so only check words that must flow.
            if w.starts_with("KEYBOARD") {
                assert!(is_opener(w));
                continue;
            }
            assert!(!is_opener(w), "{w}");
        }
        for w in [
            "Bearer",
            "basic",
            "API_KEY",
            "GITHUB_TOKEN",
            "token:",
            "=",
            "\"api_key\":",
        ] {
            assert!(is_opener(w), "{w}");
        }
    }
}
