//! Antigravity (`agy`) stream-json session core, with host turns and
//! interrupts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::agy_session(data);
});
