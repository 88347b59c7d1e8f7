//! ACP JSON-RPC client, with host actions.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::acp_session(data);
});
