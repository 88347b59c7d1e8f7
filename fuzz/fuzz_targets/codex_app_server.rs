//! Codex app-server JSON-RPC, with host actions.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::codex_app_server(data);
});
