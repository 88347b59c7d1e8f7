//! The SSE decoder: no panic, and any split of the body into reads
//! decodes exactly like the whole body.
#![no_main]

use cohost_agents::parsers::decode::{Decoder, SseDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::decoder_splits(|| Decoder::Sse(SseDecoder::new()), data);
});
