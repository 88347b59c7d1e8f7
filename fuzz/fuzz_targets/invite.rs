//! Invite parsing: no panic, and a parsed invite prints back to itself;
//! its WebSocket URL never carries the token.
#![no_main]

use cohost_protocol::Invite;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    if let Ok(inv) = Invite::parse(&s) {
        let printed = inv.to_string();
        assert_eq!(Invite::parse(&printed).as_ref(), Ok(&inv), "{printed}");
        let url = inv.ws_url();
        assert!(!url.contains('#') && !url.contains('?'), "{url}");
        // Debug never shows the token (unless another field happens to hold its text).
        let shown = format!("{inv:?}");
        assert!(shown.contains("<redacted>"), "{shown}");
        if !inv.authority.contains(&inv.token) && !inv.room.contains(&inv.token) {
            assert!(!shown.contains(&inv.token), "{shown}");
        }
    }
});
