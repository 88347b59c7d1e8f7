//! cohost relay wire format: envelope, frame types, roles, permission matrix,
//! token claims, control payloads and invite strings. No IO.
//!
//! See [`envelope`] for the exact byte layout of a frame.

pub mod claims;
pub mod control;
pub mod envelope;
pub mod frames;
pub mod invite;
pub mod matrix;
pub mod roles;

pub use claims::{Claims, TOKEN_AUDIENCE};
pub use control::{
    ControlError, ErrorCode, ErrorPayload, Gap, Participant, PresenceList, Resume, Resync, Welcome,
};
pub use envelope::{
    is_valid_id, EnvelopeError, Frame, FIXED_HEADER_LEN, MAX_ID_LEN, PROTOCOL_VERSION,
};
pub use frames::FrameType;
pub use invite::{ws_url, Invite, InviteError, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX};
pub use matrix::{may_send, route, Route};
pub use roles::Role;
