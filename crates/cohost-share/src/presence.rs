//! Who is in a room, as typed values: the relay's presence frames (and the
//! host's own view of its room) become [`Presence`] events, so no screen
//! reads presence back out of display text.
//!
//! Tolerant like the payloads: unknown fields are ignored and an unknown
//! `kind` reads as [`Presence::Unknown`], so a newer host's events still
//! decode here.

use cohost_protocol::{Frame, FrameType, Participant, Role};
use serde::{Deserialize, Serialize};

/// A change in who is in the room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Presence {
    /// Someone is in the room (joined now, or there when this side connected).
    Joined {
        /// Who (connection id, role, name).
        who: Participant,
        /// It is this side's own connection.
        #[serde(default)]
        you: bool,
    },
    /// Someone left.
    Left {
        /// Who.
        who: Participant,
    },
    /// Someone announced the name they go by (`--name`).
    Renamed {
        /// Who, with the new name.
        who: Participant,
    },
    /// Someone's role changed.
    RoleChanged {
        /// Who, with the new role.
        who: Participant,
        /// The role before.
        from: Role,
    },
    /// A kind this version does not know.
    #[serde(other)]
    Unknown,
}

impl Presence {
    /// The presence a relay frame tells (`presence.join`, `presence.leave`);
    /// `None` for other frames or a payload that is not a participant.
    pub fn from_frame(f: &Frame) -> Option<Presence> {
        let joined = match f.kind() {
            FrameType::PresenceJoin => true,
            FrameType::PresenceLeave => false,
            _ => return None,
        };
        let who: Participant = f.control().ok()?;
        Some(if joined {
            Presence::Joined { who, you: false }
        } else {
            Presence::Left { who }
        })
    }

    /// Who the event is about (`None` for an unknown kind).
    pub fn who(&self) -> Option<&Participant> {
        match self {
            Presence::Joined { who, .. }
            | Presence::Left { who }
            | Presence::Renamed { who }
            | Presence::RoleChanged { who, .. } => Some(who),
            Presence::Unknown => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> Participant {
        Participant {
            conn_id: 3,
            role: Role::CoDriver,
            name: "ada".into(),
        }
    }

    #[test]
    fn presence_frames_read_as_typed_events() {
        let join = Frame::control_frame(FrameType::PresenceJoin, "r-1", None, &ada()).unwrap();
        assert_eq!(
            Presence::from_frame(&join),
            Some(Presence::Joined {
                who: ada(),
                you: false
            })
        );
        let leave = Frame::control_frame(FrameType::PresenceLeave, "r-1", None, &ada()).unwrap();
        assert_eq!(
            Presence::from_frame(&leave),
            Some(Presence::Left { who: ada() })
        );
        let other = Frame::control_frame(FrameType::RoomClose, "r-1", None, &ada()).unwrap();
        assert_eq!(Presence::from_frame(&other), None);
    }

    #[test]
    fn unknown_kinds_and_fields_are_tolerated() {
        let v: Presence = serde_json::from_str(
            r#"{"kind":"hand_raised","who":{"conn_id":3,"role":"CO_DRIVER","name":"ada"}}"#,
        )
        .unwrap();
        assert_eq!(v, Presence::Unknown);
        assert_eq!(v.who(), None);
        let v: Presence = serde_json::from_str(
            r#"{"kind":"role_changed","who":{"conn_id":3,"role":"CO_DRIVER","name":"ada","avatar":"x"},"from":"VIEWER","since":1}"#,
        )
        .unwrap();
        assert_eq!(
            v,
            Presence::RoleChanged {
                who: ada(),
                from: Role::Viewer
            }
        );
        let round = serde_json::to_string(&Presence::Left { who: ada() }).unwrap();
        assert!(round.contains(r#""kind":"left""#), "{round}");
        assert_eq!(
            serde_json::from_str::<Presence>(&round).unwrap(),
            Presence::Left { who: ada() }
        );
    }
}
