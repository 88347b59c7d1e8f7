//! Gemini CLI stream-json lines, then the exit.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::run_turn(
        cohost_agents::parsers::gemini::GeminiNormalizer::new(),
        data,
    );
});
