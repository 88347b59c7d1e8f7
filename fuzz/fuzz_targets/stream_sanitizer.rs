//! The stream sanitizer: any split of a text into deltas sanitizes exactly
//! like the whole text (a secret split across deltas is still caught, and
//! nothing else changes). The stream's holds are bounded by design (8 KiB
//! for an open context, 64 KiB for an open key block), so the equality is
//! asserted for texts up to 8 KiB; longer ones must only not panic.
#![no_main]

use cohost_core::sanitize::{Sanitizer, StreamSanitizer};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn sanitizer() -> &'static Sanitizer {
    static S: OnceLock<Sanitizer> = OnceLock::new();
    S.get_or_init(|| {
        Sanitizer::new(
            [
                ("SMTP_PASS", "hunter2-but-longer-xyz"),
                ("PATH", "/usr/bin"),
            ],
            Some("/home/fuzz".to_string()),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let (seed, body) = cohost_fuzz::split_control(data);
    let text = String::from_utf8_lossy(body);
    let s = sanitizer();
    let whole = s.sanitize(&text).into_owned();
    let bounded = text.len() <= 8 * 1024;
    let mut streamed = String::new();
    let mut st = StreamSanitizer::new();
    let mut prev = 0;
    for mut cut in cohost_fuzz::cuts(seed, text.len()) {
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        if cut <= prev {
            continue;
        }
        streamed.push_str(&st.push(s, &text[prev..cut]));
        prev = cut;
    }
    streamed.push_str(&st.finish(s));
    if bounded {
        assert_eq!(streamed, whole, "streaming changed the sanitized text");
    }
});
