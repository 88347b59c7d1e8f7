//! Regressions found by `fuzz/fuzz_targets/stream_sanitizer.rs`: a text
//! streamed in any pieces sanitizes exactly like the whole text.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use cohost_core::sanitize::{Sanitizer, StreamSanitizer};

fn streamed(s: &Sanitizer, pieces: &[&str]) -> String {
    let mut st = StreamSanitizer::new();
    let mut out: String = pieces.iter().map(|p| st.push(s, p)).collect();
    out.push_str(&st.finish(s));
    out
}

fn assert_split_invariant(text: &str) {
    let s = Sanitizer::shapes_only();
    let whole = s.sanitize(text).into_owned();
    for cut in (0..=text.len()).filter(|c| text.is_char_boundary(*c)) {
        let (a, b) = text.split_at(cut);
        assert_eq!(streamed(&s, &[a, b]), whole, "split at {cut} of {text:?}");
    }
    assert_eq!(streamed(&s, &[text]), whole);
}

/// fuzz crash-01a426c8: an END line the sanitizer does not accept
/// (`-----END OPENSSH ,PRIVATE KEY-----`) ended the held block in the
/// stream, so the rest was released and redacted separately.
#[test]
fn a_malformed_end_line_does_not_close_the_held_key_block() {
    assert_split_invariant(
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH ,PRIVATE KEY-----\nafter the block\n",
    );
}

/// Whole blocks, certificates after keys, and a BEGIN line at the very end.
#[test]
fn key_blocks_split_anywhere_sanitize_like_the_whole() {
    assert_split_invariant(
        "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb -----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\nc",
    );
    assert_split_invariant("tail -----BEGIN EC PRIVATE KEY-----");
}

/// fuzz crash-dba371b0 (minimized): a header line whose value starts like a
/// quoted value.
#[test]
fn a_header_with_a_quote_streams_like_the_whole() {
    assert_split_invariant("Authorization: : \"\n");
}

/// fuzz crash-6cc182d8 (minimized): a `-----BEGIN` inside a quoted value
/// moved the cut into the value, so `password:"P` and the rest were
/// sanitized apart and the value was shown.
#[test]
fn a_begin_line_inside_a_quoted_value_does_not_split_it() {
    assert_split_invariant("password:\"P-----BEGIN\" ");
}

/// fuzz (reported open on the previous stream rules): a header name inside a
/// quoted password value must not cut the value apart.
#[test]
fn a_header_name_inside_a_quoted_value_streams_like_the_whole() {
    assert_split_invariant("password: \"OPn Authorization: \0,\0\"\n \"");
}
