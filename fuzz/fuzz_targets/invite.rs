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
        // Debug shows every field but the token and the room key.
        let shown = format!("{inv:?}");
        let expected = format!(
            "Invite {{ authority: {:?}, secure: {}, room: {:?}, token: \"<redacted>\", keys: {:?} }}",
            inv.authority, inv.secure, inv.room, inv.keys
        );
        assert_eq!(shown, expected);
        if inv.keys.is_some() {
            assert!(shown.contains("room_key: \"<redacted>\""), "{shown}");
        }
    }
});
