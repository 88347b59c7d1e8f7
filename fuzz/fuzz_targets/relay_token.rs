//! Room token validation: no panic on any string; a token verifies only
//! for its room; a valid token with fuzzed bytes changed never verifies as
//! a different room or role.
#![no_main]

use cohost_protocol::Role;
use cohost_relay::auth::TokenAuthority;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn authority() -> &'static (TokenAuthority, String) {
    static A: OnceLock<(TokenAuthority, String)> = OnceLock::new();
    A.get_or_init(|| {
        let a = TokenAuthority::new(b"fuzz-secret-0123456789abcdef0123");
        let (t, _) = a.mint("room-1", Role::Viewer, 3600, "ann").unwrap();
        (a, t)
    })
}

fuzz_target!(|data: &[u8]| {
    let (auth, minted) = authority();
    let s = String::from_utf8_lossy(data);
    if let Ok(c) = auth.verify(&s, "room-1") {
        assert_eq!(c.room, "room-1");
    }
    // The minted token with bytes overwritten at fuzzed places.
    let mut t = minted.clone().into_bytes();
    for pair in data.chunks(2) {
        if let [at, b] = pair {
            let i = usize::from(*at) * t.len() / 256;
            t[i] = *b;
        }
    }
    let t = String::from_utf8_lossy(&t);
    match auth.verify(&t, "room-1") {
        Ok(c) => {
            assert_eq!(
                (c.room.as_str(), c.role, c.sub.as_str()),
                ("room-1", Role::Viewer, "ann")
            );
        }
        Err(_) => {}
    }
    assert!(
        auth.verify(&t, "room-2").is_err(),
        "a token verified for another room"
    );
});
