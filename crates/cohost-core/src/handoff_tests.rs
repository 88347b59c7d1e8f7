//! The handoff account: what the receiver reads, and its bound.

use super::*;
use crate::changes::{ChangeStatus, FileChange, TurnChanges};
use crate::event::{EndReason, ToolStatus};
use crate::ToolKind;

fn ev(body: EventBody) -> Event {
    Event {
        id: "p.1".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: Some("claude".into()),
        body,
    }
}

fn file(path: &str, diff: &str) -> FileChange {
    FileChange {
        path: path.into(),
        old_path: None,
        status: ChangeStatus::Added,
        old_mode: None,
        new_mode: Some("100644".into()),
        added: 1,
        removed: 0,
        binary: false,
        size: 3,
        hash: None,
        diff: Some(diff.into()),
        diff_truncated: false,
    }
}

fn turn(prompt: &str, answer: &str, path: &str) -> HandoffTurn {
    HandoffTurn {
        prompt: prompt.into(),
        events: vec![
            ev(EventBody::ToolCall {
                tool_id: "t1".into(),
                name: "Write".into(),
                kind: ToolKind::Edit,
                input: serde_json::json!({"file_path": path}),
            }),
            ev(EventBody::ToolExecuted {
                tool_id: "t1".into(),
                status: ToolStatus::Ok,
                output_preview: "wrote it".into(),
            }),
            ev(EventBody::StreamChunk {
                stream_id: "s".into(),
                chunk_index: 0,
                delta: answer.into(),
            }),
            ev(EventBody::FileChanges(TurnChanges {
                turn: 1,
                files: vec![file(
                    path,
                    &format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+ok\n"),
                )],
            })),
            ev(EventBody::StreamEnd {
                reason: EndReason::Completed,
                usage: None,
            }),
        ],
    }
}

#[test]
fn the_account_holds_the_prompt_the_tool_call_the_diff_and_the_ask() {
    let a = handoff_account(
        "claude",
        &[turn("create notes.txt", "Done.", "notes.txt")],
        "review it",
        64_000,
    );
    assert!(a.starts_with("You are taking over work from claude"), "{a}");
    assert!(a.contains("Prompt: create notes.txt"), "{a}");
    assert!(
        a.contains("Tool call: Write {\"file_path\":\"notes.txt\"}"),
        "{a}"
    );
    assert!(a.contains("result (Ok): wrote it"), "{a}");
    assert!(a.contains("+++ b/notes.txt"), "{a}");
    assert!(a.contains("Answer: Done."), "{a}");
    assert!(a.ends_with("\n\nreview it"), "{a}");
    let plain = handoff_account("claude", &[], "  ", 64_000);
    assert!(plain.ends_with("Continue from here."), "{plain}");
}

#[test]
fn over_the_bound_the_oldest_turns_are_summarized_first_then_cut() {
    let big = "x".repeat(3_000);
    let turns = vec![
        turn("first task", &big, "a.txt"),
        turn("second task", &big, "b.txt"),
        turn("third task", "short", "c.txt"),
    ];
    // Room for the second whole turn once the first is one line.
    let a = handoff_account("claude", &turns, "", 4_000);
    assert!(a.contains("## Turn 1 (summarized)"), "{a}");
    assert!(a.contains("## Turn 2\nPrompt: second task"), "{a}");
    // No room for it: it goes to one line too.
    let a = handoff_account("claude", &turns, "", 3_000);
    assert!(a.len() <= 3_000, "{}", a.len());
    assert!(
        a.contains(
            "## Turn 1 (summarized)\nPrompt: first task; 1 tool call(s); files changed: a.txt"
        ),
        "{a}"
    );
    assert!(a.contains("## Turn 2 (summarized)"), "{a}");
    assert!(
        a.contains("## Turn 3\nPrompt: third task"),
        "the newest stays whole: {a}"
    );
    // A newest turn larger than the bound alone is cut, never over it.
    let huge = vec![turn("one", &"y".repeat(10_000), "d.txt")];
    let a = handoff_account("claude", &huge, "go on", 2_000);
    assert!(a.len() <= 2_000, "{}", a.len());
    assert!(a.contains("[... cut to fit ...]"), "{a}");
    assert!(a.ends_with("go on"), "{a}");
}
