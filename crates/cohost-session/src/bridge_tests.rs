//! The room bridge on mock members: an asked member's answer comes back,
//! what is asked is told to the front end, loops and stragglers are
//! refused, and the calls of members whose agents run MCP tools unasked go
//! through the caller's approvals first.

use std::time::Duration;

use cohost_core::bridge::{BridgeCall, BridgeRules};
use cohost_core::{CohostError, ErrorCode};
use tokio::sync::mpsc;

use super::*;
use crate::log::LogLimits;
use crate::room::Member;
use crate::running::tests::fast;
use crate::running::{RunningSession, SessionInfo};
use crate::PendingApprovals;
use cohost_agents::mock::MockFactory;
use cohost_core::{
    AdapterConfig, AdapterFactory, Decision, DecisionOrigin, HostSession, Policy, SessionOptions,
};

/// A mock member; `asks`: its agent asks cohost before an MCP tool (as
/// Claude Code does), so its bridge calls come approved. Its approvals
/// wait for [`RunningSession::decide`] when `approvals` is given, else
/// every one is allowed.
async fn member(asks: bool, approvals: Option<PendingApprovals>) -> RunningSession {
    let factory = std::sync::Arc::new(MockFactory::new(fast()));
    let mut descriptor = factory.descriptor();
    descriptor.capabilities.mcp_servers = true;
    descriptor.capabilities.mcp_approvals = asks;
    let source: std::sync::Arc<dyn cohost_core::DecisionSource> = match &approvals {
        Some(a) => std::sync::Arc::new(a.clone()),
        None => std::sync::Arc::new(Policy::AllowAll),
    };
    let mut s = HostSession::new(
        factory,
        AdapterConfig::default(),
        source,
        SessionOptions::default(),
    );
    s.start().await.unwrap();
    let info = SessionInfo {
        record_id: None,
        descriptor,
        cwd: std::env::temp_dir(),
        model: None,
    };
    RunningSession::spawn(s, info, approvals, LogLimits::default())
}

/// A room of members whose agents ask before their MCP tools.
async fn room_of(names: &[&str]) -> Room {
    let mut members = Vec::new();
    for n in names {
        members.push(Member {
            name: (*n).into(),
            session: member(true, None).await,
        });
    }
    Room::new(members).unwrap()
}

fn ask(name: &str, prompt: &str) -> BridgeCall {
    BridgeCall::AskMember {
        name: name.into(),
        prompt: prompt.into(),
    }
}

#[tokio::test]
async fn an_asked_member_answers_and_the_room_is_told_who_asked_whom() {
    let room = room_of(&["claude", "codex"]).await;
    let (tx, mut notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let out = bridge
        .handle("claude", ask("codex", "[mock:say] the sky is blue"))
        .await
        .unwrap();
    assert_eq!(out["member"], "codex");
    assert_eq!(out["answer"], "the sky is blue");
    assert_eq!(out["completed"], true);
    match notes.try_recv().unwrap() {
        BridgeNote::Asked {
            from, to, prompt, ..
        } => assert_eq!(
            (from.as_str(), to.as_str(), prompt.as_str()),
            ("claude", "codex", "[mock:say] the sky is blue")
        ),
        other => panic!("{other:?}"),
    }
    let list = bridge
        .handle("codex", BridgeCall::ListMembers)
        .await
        .unwrap();
    assert_eq!(list["members"][0]["name"], "claude");
    assert_eq!(list["members"][1]["you"], true);
    bridge
        .handle(
            "codex",
            BridgeCall::PostToRoom {
                text: "done".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        notes.try_recv().unwrap(),
        BridgeNote::Posted {
            from: "codex".into(),
            text: "done".into()
        }
    );
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn a_member_waiting_for_an_answer_cannot_be_asked_back() {
    let room = room_of(&["claude", "codex"]).await;
    let (tx, mut notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let asking = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.handle("claude", ask("codex", "[mock:slow]")).await })
    };
    // Once codex runs claude's question, codex asking claude would wait on
    // claude, who waits on codex.
    let refused = loop {
        tokio::time::sleep(Duration::from_millis(5)).await;
        if room.member("codex").unwrap().session.busy() {
            break bridge.handle("codex", ask("claude", "and you?")).await;
        }
    };
    let e = CohostError::from(refused.unwrap_err());
    assert!(e.message.contains("claude → codex"), "{e}");
    assert!(matches!(notes.recv().await, Some(BridgeNote::Asked { .. })));
    assert!(
        matches!(notes.recv().await, Some(BridgeNote::Refused { from, .. }) if from == "codex")
    );
    room.member("codex").unwrap().session.interrupt();
    let out = asking.await.unwrap().unwrap();
    assert_eq!(out["completed"], false);
    // Once answered, the chain is gone: codex may ask claude now.
    let out = bridge
        .handle("codex", ask("claude", "[mock:say] yes"))
        .await
        .unwrap();
    assert_eq!(out["answer"], "yes");
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn an_answer_late_past_its_time_is_refused_and_the_turn_stopped() {
    let room = room_of(&["claude", "codex"]).await;
    let (tx, _notes) = mpsc::unbounded_channel();
    let rules = BridgeRules {
        answer_time: Duration::from_millis(300),
        ..BridgeRules::default()
    };
    let bridge = RoomBridge::new(rules, tx);
    bridge.set_room(room.clone());
    let e = CohostError::from(
        bridge
            .handle("claude", ask("codex", "[mock:slow]"))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::Timeout);
    // The slow answer (50 deltas 20 ms apart: 1 s) was stopped, not left
    // running for its last 700 ms.
    let codex = room.member("codex").unwrap().session.clone();
    tokio::time::timeout(Duration::from_millis(400), async {
        while codex.busy() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the asked turn was interrupted");
    // Strangers are named with the members.
    let e = CohostError::from(
        bridge
            .handle("claude", ask("aider", "hi"))
            .await
            .unwrap_err(),
    );
    assert!(e.suggested_fix.unwrap().contains("claude, codex"));
    room.terminate().await.unwrap();
}

/// A room of `claude`, whose agent asks before its MCP tools, and `codex`,
/// whose agent does not and whose approvals wait for `decide`; codex runs
/// a slow turn (its bridge calls come from inside a turn, as an agent's
/// tool calls do). Codex's session and a subscription to it from before
/// that turn.
async fn room_with_codex_in_a_turn() -> (Room, RunningSession, crate::Subscription) {
    let codex = member(false, Some(PendingApprovals::new("gone"))).await;
    let room = Room::new(vec![
        Member {
            name: "claude".into(),
            session: member(true, None).await,
        },
        Member {
            name: "codex".into(),
            session: codex.clone(),
        },
    ])
    .unwrap();
    let mut events = codex.subscribe_new();
    codex.prompt(PromptInput::text("[mock:slow]")).unwrap();
    next_of(&mut events, |b| matches!(b, EventBody::StreamStart { .. })).await;
    (room, codex, events)
}

/// The next event of `events` whose body `want` picks.
async fn next_of(
    events: &mut crate::Subscription,
    want: impl Fn(&EventBody) -> bool,
) -> cohost_core::Event {
    loop {
        let e = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("no such event in 10 s")
            .expect("not cut off")
            .expect("the session did not end");
        if want(&e.body) {
            return e;
        }
    }
}

fn requested(b: &EventBody) -> bool {
    matches!(b, EventBody::ToolApprovalRequested { .. })
}

#[tokio::test]
async fn an_unasking_agents_call_waits_for_its_approval_and_runs_once_allowed() {
    let (room, codex, mut events) = room_with_codex_in_a_turn().await;
    let (tx, mut notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let call = {
        let bridge = bridge.clone();
        tokio::spawn(async move {
            bridge
                .handle("codex", ask("claude", "[mock:say] the sky is teal"))
                .await
        })
    };
    let e = next_of(&mut events, requested).await;
    let EventBody::ToolApprovalRequested {
        tool_id,
        name,
        kind,
        input,
        options,
        ..
    } = e.body
    else {
        unreachable!()
    };
    assert_eq!(name, "mcp__cohost_room__ask_member");
    assert_eq!(kind, cohost_core::ToolKind::Other);
    assert_eq!(input["name"], "claude");
    assert_eq!(input["prompt"], "[mock:say] the sky is teal");
    assert_eq!(options, cohost_core::ApprovalOption::ALL);
    // Nothing runs on claude while the call waits.
    assert!(!room.member("claude").unwrap().session.busy());
    assert!(codex.decide(
        Some(&tool_id),
        Decision::allow(DecisionOrigin::User).by(vec!["ana".into()])
    ));
    let out = call.await.unwrap().unwrap();
    assert_eq!(out["answer"], "the sky is teal");
    let decided = next_of(&mut events, |b| {
        matches!(b, EventBody::ToolApprovalDecided { .. })
    })
    .await;
    assert!(matches!(
        decided.body,
        EventBody::ToolApprovalDecided { tool_id: t, deciders, .. }
            if t == tool_id && deciders == ["ana"]
    ));
    assert!(matches!(notes.recv().await, Some(BridgeNote::Asked { .. })));
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn a_denied_call_tells_the_caller_who_refused_and_the_asked_member_runs_nothing() {
    let (room, codex, mut events) = room_with_codex_in_a_turn().await;
    let (tx, mut notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let claude = room.member("claude").unwrap().session.clone();
    let mut claudes = claude.subscribe_new();
    let call = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.handle("codex", ask("claude", "[mock:say] hi")).await })
    };
    let e = next_of(&mut events, requested).await;
    let EventBody::ToolApprovalRequested { tool_id, .. } = e.body else {
        unreachable!()
    };
    assert!(codex.decide(
        Some(&tool_id),
        Decision::deny(DecisionOrigin::User, "not now").by(vec!["ana".into()])
    ));
    let err = CohostError::from(call.await.unwrap().unwrap_err());
    assert_eq!(err.code, ErrorCode::PermissionRequired);
    assert!(
        err.message
            .contains("codex's call of mcp__cohost_room__ask_member"),
        "{err}"
    );
    assert!(err.message.contains("denied by ana (not now)"), "{err}");
    assert!(
        matches!(notes.recv().await, Some(BridgeNote::Refused { from, why }) if from == "codex" && why.contains("ana"))
    );
    assert!(notes.try_recv().is_err(), "nobody was asked");
    assert!(!claude.busy());
    assert!(claudes.try_recv().is_none(), "claude ran nothing");
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn an_agent_that_asks_itself_is_not_asked_twice() {
    // Claude's agent asked before its tool ran: the bridge asks nobody,
    // even with approvals that nobody answers.
    let claude = member(true, Some(PendingApprovals::new("gone"))).await;
    let room = Room::new(vec![
        Member {
            name: "claude".into(),
            session: claude.clone(),
        },
        Member {
            name: "codex".into(),
            session: member(false, None).await,
        },
    ])
    .unwrap();
    let mut events = claude.subscribe_new();
    let (tx, _notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let out = bridge
        .handle("claude", ask("codex", "[mock:say] fine"))
        .await
        .unwrap();
    assert_eq!(out["answer"], "fine");
    assert!(
        events.try_recv().is_none(),
        "no approval on claude's session"
    );
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn an_always_answer_is_kept_for_that_member_and_tool_and_no_turn_means_no() {
    let (room, codex, mut events) = room_with_codex_in_a_turn().await;
    let (tx, _notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let first = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.handle("codex", BridgeCall::ListMembers).await })
    };
    let e = next_of(&mut events, requested).await;
    let EventBody::ToolApprovalRequested { tool_id, name, .. } = e.body else {
        unreachable!()
    };
    assert_eq!(name, "mcp__cohost_room__list_members");
    let mut always = Decision::allow(DecisionOrigin::User);
    always.option = cohost_core::ApprovalOption::AllowAlways;
    assert!(codex.decide(Some(&tool_id), always));
    assert_eq!(first.await.unwrap().unwrap()["members"][1]["you"], true);
    // Allowed for good: no second request.
    bridge
        .handle("codex", BridgeCall::ListMembers)
        .await
        .unwrap();
    // Another tool is asked about again; once codex's turn is over there
    // is no turn to ask in, and the call is refused.
    codex.interrupt();
    next_of(&mut events, |b| matches!(b, EventBody::StreamEnd { .. })).await;
    let err = CohostError::from(
        bridge
            .handle("codex", BridgeCall::PostToRoom { text: "hi".into() })
            .await
            .unwrap_err(),
    );
    assert!(err.message.contains("no decision"), "{err}");
    while let Some(e) = events.try_recv() {
        assert!(!requested(&e.body), "asked again: {e:?}");
    }
    room.terminate().await.unwrap();
}
