use super::*;
use cohost_core::{ApprovalOption, ToolKind};

fn ev(body: EventBody) -> Event {
    Event {
        id: "p.1".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: None,
        body,
    }
}

#[test]
fn approval_names_the_tool_never_its_input() {
    let e = ev(EventBody::ToolApprovalRequested {
        tool_id: "t".into(),
        name: "Bash".into(),
        kind: ToolKind::Execute,
        input: serde_json::json!({"command": "curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123'"}),
        options: ApprovalOption::ALL.to_vec(),
        deadline_ms: 1000,
    });
    let n = notice_for(&shapes_only(), &e, "claude").unwrap();
    assert_eq!(n.kind, NoticeKind::ApprovalNeeded);
    assert_eq!(n.title, "cohost: claude needs approval");
    assert_eq!(n.body, "claude wants to run the tool Bash");
}

#[test]
fn ends_and_failures() {
    let end = |reason| {
        notice_for(
            &shapes_only(),
            &ev(EventBody::StreamEnd {
                reason,
                usage: None,
            }),
            "codex",
        )
        .unwrap()
    };
    assert_eq!(end(EndReason::Completed).kind, NoticeKind::TurnEnded);
    assert_eq!(end(EndReason::Error).kind, NoticeKind::TurnFailed);
    assert!(end(EndReason::Budget).body.contains("budget"));
    assert!(notice_for(
        &shapes_only(),
        &ev(EventBody::StreamChunk {
            stream_id: "s".into(),
            chunk_index: 0,
            delta: "the answer".into()
        }),
        "x"
    )
    .is_none());
}

#[test]
fn names_are_sanitized_made_one_line_and_bounded() {
    let mut e = ev(EventBody::ToolApprovalRequested {
        tool_id: "t".into(),
        name: format!("tool\u{1b}]0;evil\u{7}\n{}", "x".repeat(300)),
        kind: ToolKind::Other,
        input: serde_json::Value::Null,
        options: vec![],
        deadline_ms: 0,
    });
    e.agent = Some("ghp_abcdefghijklmnopqrstuvwxyz0123456789".into());
    let n = notice_for(&shapes_only(), &e, "x").unwrap();
    assert!(!n.title.contains("ghp_abcdefghij"), "{}", n.title);
    assert!(
        !n.body.contains('\u{1b}') && !n.body.contains('\n'),
        "{:?}",
        n.body
    );
    assert!(n.body.chars().count() <= MAX);
}

/// A value only the given sanitizer knows (no shape, no secret name): the
/// notice shows it redacted, so it passed the sanitizer it was given.
#[test]
fn texts_pass_the_sanitizer_given() {
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    assert_eq!(shapes_only().sanitize(PLANTED), PLANTED);
    let given = shapes_only().with_known_values([PLANTED]);
    let mut e = ev(EventBody::StreamEnd {
        reason: EndReason::Completed,
        usage: None,
    });
    e.agent = Some(format!("claude {PLANTED}"));
    let n = notice_for(&given, &e, "x").unwrap();
    assert_eq!(n.title, "cohost: claude [REDACTED] is done");
}
