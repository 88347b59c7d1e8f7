//! Why bytes or ids do not make an envelope: [`EnvelopeError`], shared by
//! the codec ([`crate::envelope`]) and the id types ([`crate::ids`]).

use crate::frames::FrameType;
use crate::header::{MAX_ID_LEN, PROTOCOL_VERSION};

/// Why bytes are not a valid envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Fewer bytes than the header needs.
    #[error("frame is truncated: {len} bytes, the header needs {need}; send one whole envelope per binary WebSocket message")]
    Truncated {
        /// Bytes received.
        len: usize,
        /// Bytes the header needs.
        need: usize,
    },
    /// Unknown envelope version.
    #[error("unsupported envelope version {0}; this relay speaks version {PROTOCOL_VERSION}, upgrade the client")]
    UnsupportedVersion(u8),
    /// Unknown frame type code.
    #[error(
        "unknown frame type code {0}; upgrade the relay or the client so they agree on frame types"
    )]
    UnknownType(u8),
    /// Role byte is not 0..=3.
    #[error("invalid role code {0} in header; clients should send 0")]
    InvalidRole(u8),
    /// Reserved flags set.
    #[error("reserved flags byte is {0:#04x}, must be 0")]
    ReservedFlags(u8),
    /// Room or stream id is empty, too long or has characters outside `[A-Za-z0-9_-]`.
    #[error("invalid {field} id: must be 1..={MAX_ID_LEN} characters of [A-Za-z0-9_-]")]
    InvalidId {
        /// `room` or `stream`.
        field: &'static str,
    },
    /// A stream frame without a stream id.
    #[error("{0} frames must carry a stream id")]
    MissingStream(FrameType),
}
