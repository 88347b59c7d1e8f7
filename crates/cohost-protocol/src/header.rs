//! The fixed numbers of the envelope header (its byte layout is in
//! [`crate::envelope`]). Apart so the id rule ([`crate::ids`]) and the
//! errors ([`crate::error`]) can name them without depending on the codec.

/// The only envelope version this crate reads and writes.
pub const PROTOCOL_VERSION: u8 = 1;
/// Size of the fixed part of the header, before room and stream ids.
pub const FIXED_HEADER_LEN: usize = 22;
/// Maximum length of a room id or stream id, in bytes.
pub const MAX_ID_LEN: usize = 64;
