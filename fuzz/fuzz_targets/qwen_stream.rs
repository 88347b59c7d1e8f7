//! Qwen Code stream-json and control protocol, with host actions.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::claude_session(cohost_agents::parsers::claude::QWEN, data);
});
