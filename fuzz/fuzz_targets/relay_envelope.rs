//! The relay's binary envelope decoder and control payloads: no panic on
//! any bytes, and a decoded frame re-encodes to the same bytes.
#![no_main]

use bytes::Bytes;
use cohost_protocol::control::{ErrorPayload, Gap, PresenceList, Resume, Resync, Welcome};
use cohost_protocol::Frame;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(f) = Frame::decode(Bytes::copy_from_slice(data)) else {
        return;
    };
    assert_eq!(f.bytes().as_ref(), data);
    assert_eq!(f.len(), data.len());
    assert!(f.payload_len() <= f.len());
    assert_eq!(f.payload().len(), f.payload_len());
    let rebuilt = Frame::build_stamped(
        f.kind(),
        f.room(),
        f.stream(),
        f.chunk(),
        f.sender(),
        f.role(),
        &f.payload(),
    )
    .expect("a decoded frame's fields build a frame");
    assert_eq!(rebuilt, f, "re-encoding changed the frame");
    assert_eq!(Frame::decode(f.bytes().clone()).ok(), Some(f.clone()));
    let _ = format!("{f:?}");
    let _ = (
        f.kind().is_replayable(),
        f.kind().is_control(),
        f.is_empty(),
    );
    let _ = f.control::<Resume>();
    let _ = f.control::<Resync>();
    let _ = f.control::<Gap>();
    let _ = f.control::<ErrorPayload>();
    let _ = f.control::<PresenceList>();
    let _ = f.control::<Welcome>();
    for role in cohost_protocol::Role::ALL {
        let r = f.restamp(f.kind(), 42, role);
        let again = Frame::decode(r.bytes().clone()).expect("a restamped frame decodes");
        assert_eq!((again.sender(), again.role()), (42, Some(role)));
        assert_eq!(again.payload(), f.payload());
    }
});
