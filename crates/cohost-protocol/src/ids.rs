//! Validated room and stream ids. A string becomes a [`RoomId`] or a
//! [`StreamId`] once, where it enters the program; every frame built from
//! them then encodes (no frame is dropped later for a bad id).

use std::fmt;
use std::sync::Arc;

use crate::error::EnvelopeError;
use crate::header::MAX_ID_LEN;

/// Is `s` a valid room or stream id (1..=64 chars of `[A-Za-z0-9_-]`)?
pub fn is_valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_ID_LEN
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $field:literal) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Arc<str>);

        impl $name {
            /// Checks `s` (1..=64 characters of `[A-Za-z0-9_-]`).
            pub fn new(s: &str) -> Result<$name, EnvelopeError> {
                if is_valid_id(s) {
                    Ok($name(Arc::from(s)))
                } else {
                    Err(EnvelopeError::InvalidId { field: $field })
                }
            }

            /// The id.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), &*self.0)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = EnvelopeError;
            fn try_from(s: &str) -> Result<$name, EnvelopeError> {
                $name::new(s)
            }
        }
    };
}

id_type!(
    /// A room id, valid for the envelope.
    RoomId,
    "room"
);
id_type!(
    /// A stream id, valid for the envelope (cohost uses the turn's prompt id).
    StreamId,
    "stream"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_envelope_ids_are_accepted() {
        assert_eq!(RoomId::new("r-1_A").unwrap().as_str(), "r-1_A");
        for bad in ["", "a b", "é", &"x".repeat(65)] {
            assert_eq!(
                RoomId::new(bad),
                Err(EnvelopeError::InvalidId { field: "room" })
            );
            assert_eq!(
                StreamId::new(bad),
                Err(EnvelopeError::InvalidId { field: "stream" })
            );
        }
    }
}
