//! The SSE decoder: no panic, and any split of the body into reads decodes
//! exactly like the whole body.
#![no_main]

use cohost_agents::http::decode::SseDecoder;
use libfuzzer_sys::fuzz_target;

fn decode(parts: &[&[u8]]) -> (Vec<cohost_agents::http::decode::Frame>, bool) {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    for p in parts {
        d.push(p, &mut out);
    }
    d.finish(&mut out);
    (out, d.overflowed())
}

fuzz_target!(|data: &[u8]| {
    let (seed, body) = cohost_fuzz::split_control(data);
    let whole = decode(&[body]);
    let cuts = cohost_fuzz::cuts(seed, body.len());
    let split = decode(&cohost_fuzz::chunks(body, &cuts));
    assert_eq!(whole, split, "a split changed the frames");
    // Byte by byte, the worst case of a slow network.
    if body.len() <= 512 {
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(whole, decode(&bytes), "byte-wise reads changed the frames");
    }
});
