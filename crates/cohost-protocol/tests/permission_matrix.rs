//! Exhaustive permission matrix test: every (frame type, role) cell is asserted
//! against an expectation table written independently of `matrix.rs`.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use cohost_protocol::{may_send, may_use_stream, route, FrameType, Role, Route};

/// (frame name, HOST, CO_DRIVER, VIEWER) — who may send it to the relay.
const EXPECTED: &[(&str, bool, bool, bool)] = &[
    ("ai.request.suggest_prompt", false, true, false),
    ("ai.request.prompt_suggested", false, false, false),
    ("ai.request.suggestion_decided", true, false, false),
    ("ai.execution.started", true, true, false),
    ("ai.stream.chunk", true, true, false),
    ("ai.stream.end", true, true, false),
    ("ai.stream.interrupted", true, true, false),
    ("ai.tool.approval_requested", true, true, false),
    ("ai.tool.approval_decided", true, true, false),
    ("chat.message", true, true, true),
    ("presence.join", false, false, false),
    ("presence.leave", false, false, false),
    ("presence.list", false, false, false),
    ("key.announce", false, true, true),
    ("key.rotate", true, false, false),
    ("ai.request.interrupt", false, true, false),
    ("ai.tool.approval_vote", false, true, true),
    ("ai.tool.approval_grants", true, false, false),
    ("key.roster", true, false, false),
    ("room.resume", true, true, true),
    ("room.resync", false, false, false),
    ("room.gap", false, false, false),
    ("room.error", false, false, false),
    ("room.welcome", false, false, false),
    ("room.close", true, false, false),
    ("room.ping", true, true, true),
    ("room.pong", true, true, true),
    ("room.kick", true, false, false),
    ("key.door", true, false, false),
    ("ai.member.offer", false, true, false),
    ("ai.member.command", true, false, false),
];

#[test]
fn every_cell_matches_the_expectation_table() {
    assert_eq!(
        EXPECTED.len(),
        FrameType::ALL.len(),
        "expectation table must list every frame type"
    );
    let mut cells = 0;
    for &(name, host, co, viewer) in EXPECTED {
        let ty = FrameType::from_name(name).unwrap_or_else(|| panic!("unknown frame type {name}"));
        for (role, want) in [
            (Role::Host, host),
            (Role::CoDriver, co),
            (Role::Viewer, viewer),
        ] {
            assert_eq!(may_send(ty, role), want, "{name} sent by {role}");
            cells += 1;
        }
    }
    assert_eq!(cells, FrameType::ALL.len() * Role::ALL.len());
}

#[test]
fn relay_only_frames_are_sendable_by_nobody() {
    for ty in FrameType::ALL {
        // Resume is every client's; kick is the host's (both consumed by the relay).
        if ty.is_control() && !matches!(ty, FrameType::RoomResume | FrameType::RoomKick) {
            for role in Role::ALL {
                assert!(!may_send(*ty, role), "{ty} must be relay-only");
            }
        }
    }
}

#[test]
fn suggestions_are_delivered_to_hosts_as_prompt_suggested() {
    assert_eq!(
        route(FrameType::SuggestPrompt),
        Route::ToHosts(FrameType::PromptSuggested)
    );
    assert_eq!(route(FrameType::StreamChunk), Route::Room);
    assert_eq!(route(FrameType::RoomResume), Route::Relay);
    assert_eq!(route(FrameType::RoomPing), Route::Relay);
}

#[test]
fn keys_go_to_hosts_and_kicks_to_the_relay() {
    assert_eq!(
        route(FrameType::KeyAnnounce),
        Route::ToHosts(FrameType::KeyAnnounce)
    );
    assert_eq!(route(FrameType::KeyRotate), Route::Room);
    assert_eq!(route(FrameType::RoomKick), Route::Relay);
    assert_eq!(
        route(FrameType::InterruptRequest),
        Route::ToHosts(FrameType::InterruptRequest)
    );
    assert!(FrameType::KeyRotate.is_application() && !FrameType::KeyRotate.is_replayable());
    // A vote is the host's to count; who may vote is the host's to say.
    assert_eq!(
        route(FrameType::ApprovalVote),
        Route::ToHosts(FrameType::ApprovalVote)
    );
    assert_eq!(route(FrameType::ApprovalGrants), Route::Room);
    // Everyone checks senders against the host's roster.
    assert_eq!(route(FrameType::KeyRoster), Route::Room);
    assert!(FrameType::KeyRoster.is_application() && !FrameType::KeyRoster.is_replayable());
    let hosts_only: Vec<FrameType> = FrameType::ALL
        .iter()
        .copied()
        .filter(|t| cohost_protocol::to_hosts_only(*t))
        .collect();
    assert_eq!(
        hosts_only,
        [
            FrameType::PromptSuggested,
            FrameType::KeyAnnounce,
            FrameType::InterruptRequest,
            FrameType::ApprovalVote,
            FrameType::MemberOffer
        ]
    );
    assert!(FrameType::RoomKick.is_control());
    // The host's answer at the door reaches the one waiting through the
    // room (it is addressed inside the sealed body).
    assert_eq!(route(FrameType::KeyDoor), Route::Room);
    assert!(FrameType::KeyDoor.is_application() && !FrameType::KeyDoor.is_replayable());
}

#[test]
fn a_participant_runs_member_turns_only_on_streams_named_for_its_connection() {
    // What a co-driver's member sends is a turn like the host's; who may
    // send which member's turn is the receivers' check (signatures), the
    // relay only keeps the streams apart.
    for ty in FrameType::ALL.iter().filter(|t| t.is_member_turn()) {
        assert!(
            may_send(*ty, Role::CoDriver) && !may_send(*ty, Role::Viewer),
            "{ty}"
        );
    }
    assert_eq!(
        route(FrameType::MemberOffer),
        Route::ToHosts(FrameType::MemberOffer)
    );
    assert_eq!(route(FrameType::MemberCommand), Route::Room);
    assert!(may_use_stream(Role::CoDriver, 7, Some("m7-p-1")));
    assert!(!may_use_stream(Role::CoDriver, 7, Some("m8-p-1")));
    assert!(!may_use_stream(Role::CoDriver, 7, Some("p-1")));
    assert!(!may_use_stream(Role::CoDriver, 7, Some("m7")));
    // `m7-` is not `m70-`'s prefix: the dash ends the number.
    assert!(!may_use_stream(Role::CoDriver, 7, Some("m70-p")));
    assert!(may_use_stream(Role::Host, 1, Some("p-1")));
    assert!(may_use_stream(Role::CoDriver, 7, None));
}
