//! Redaction of secret values cohost knows (environment, configured keys,
//! credential files), wherever they appear, including any run of
//! [`RUN`] or more of their characters (a provider error body that echoes
//! part of a key).
//!
//! Every window of [`RUN`] characters of every known value goes into one
//! Aho-Corasick automaton, so one pass over the text finds every such run:
//! a run of `RUN + k` characters of a value is `k + 1` overlapping windows,
//! and their union is what gets redacted.

use aho_corasick::{AhoCorasick, MatchKind};

/// The shortest run of a known value that counts as leaking it.
pub const RUN: usize = 12;

/// The shortest value that is kept: shorter ones (`abc`, `1`, `true`) would
/// redact ordinary words.
pub const MIN_VALUE: usize = 8;

/// The automaton over every known value's windows.
#[derive(Debug, Default)]
pub(super) struct KnownValues {
    automaton: Option<AhoCorasick>,
    /// Values that contain whitespace: a stream may be cut inside them.
    spaced: Vec<String>,
}

/// Every window of `RUN` characters of `value` (the value itself when shorter).
fn windows(value: &str) -> Vec<&str> {
    let bounds: Vec<usize> = value
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(value.len()))
        .collect();
    if bounds.len() <= RUN + 1 {
        return vec![value];
    }
    bounds
        .windows(RUN + 1)
        .map(|w| &value[w[0]..w[RUN]])
        .collect()
}

impl KnownValues {
    /// Index `values` (those shorter than [`MIN_VALUE`] are ignored).
    pub(crate) fn new<I, S>(values: I) -> KnownValues
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut patterns: Vec<String> = Vec::new();
        let mut spaced = Vec::new();
        for v in values {
            let v = v.as_ref().trim();
            if v.chars().count() < MIN_VALUE {
                continue;
            }
            if v.contains(char::is_whitespace) {
                spaced.push(v.to_string());
            }
            patterns.extend(windows(v).into_iter().map(str::to_string));
        }
        patterns.sort();
        patterns.dedup();
        spaced.sort();
        spaced.dedup();
        let automaton = if patterns.is_empty() {
            None
        } else {
            // Standard semantics: overlapping matches, so runs longer than
            // one window are covered by the union of their windows.
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .ok()
        };
        KnownValues { automaton, spaced }
    }

    /// `text` with every known run replaced by `replacement`, or `None` when
    /// it holds none.
    pub(crate) fn redact(&self, text: &str, replacement: &str) -> Option<String> {
        let ac = self.automaton.as_ref()?;
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for m in ac.find_overlapping_iter(text) {
            match spans.last_mut() {
                Some(last) if m.start() < last.1 => last.1 = last.1.max(m.end()),
                _ => spans.push((m.start(), m.end())),
            }
        }
        if spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e) in spans {
            out.push_str(&text[at..s]);
            out.push_str(replacement);
            at = e;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// How many bytes at the end of `ready` a stream must hold back because
    /// they may start a known value that continues past a whitespace cut:
    /// the longest suffix that is part of a value containing whitespace.
    pub(crate) fn hold(&self, ready: &str) -> usize {
        if self.spaced.is_empty() {
            return 0;
        }
        let mut best = 0;
        for v in &self.spaced {
            let starts = ready
                .char_indices()
                .map(|(i, _)| i)
                .filter(|i| ready.len() - i <= v.len());
            for i in starts {
                if ready.len() - i > best && v.contains(&ready[i..]) {
                    best = ready.len() - i;
                    break; // the earliest start is the longest suffix
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_run_of_twelve_is_redacted() {
        let k = KnownValues::new(["sk-live-0123456789abcdefghij", "short"]);
        let r = |t: &str| k.redact(t, "[R]");
        // A provider echoing 24 characters of the key.
        assert_eq!(
            r("invalid key 0123456789abcdefghij.").as_deref(),
            Some("invalid key [R].")
        );
        assert_eq!(r("x 456789abcdef y").as_deref(), Some("x [R] y"));
        // Eleven characters are not a leak.
        assert_eq!(r("x 456789abcde y"), None);
        // The whole value.
        assert_eq!(r("sk-live-0123456789abcdefghij").as_deref(), Some("[R]"));
        assert!(r("short").is_none());
    }

    #[test]
    fn short_values_are_matched_whole() {
        let k = KnownValues::new(["hunter22x"]);
        assert_eq!(
            k.redact("pw hunter22x ok", "[R]").as_deref(),
            Some("pw [R] ok")
        );
        assert!(k.redact("hunter22", "[R]").is_none());
    }

    #[test]
    fn spaced_values_are_held_across_cuts() {
        let k = KnownValues::new(["correct horse battery staple"]);
        assert_eq!(k.hold("say correct "), "correct ".len());
        assert_eq!(k.hold("plain words "), 1); // a space is part of it
        assert_eq!(KnownValues::new(["no-space-value"]).hold("abc "), 0);
    }
}
