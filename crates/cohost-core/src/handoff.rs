//! Handing work from one agent to another: an account of the giver's
//! conversation, built from cohost's normalized events (the prompts, the
//! answers, each tool call with its input, outcome and who decided it, the
//! files changed with their diffs), bounded in size with the oldest turns
//! summarized first. It is the receiver's context block: every agent reads
//! text, whatever its own transcript format.

use crate::event::{Event, EventBody};
use crate::sanitize::strip_controls;

/// One turn of the giver's conversation.
#[derive(Debug, Clone, Default)]
pub struct HandoffTurn {
    /// The prompt it answered.
    pub prompt: String,
    /// Its events, in order.
    pub events: Vec<Event>,
}

/// How many bytes of one tool output the account keeps.
const OUTPUT_BYTES: usize = 2_000;

/// The account `to`'s prompt starts with: `from`'s turns (oldest first),
/// then `ask` (what the receiver should do; a default when empty), within
/// `max_bytes` (oldest turns become one line each first, then the text is
/// cut).
pub fn handoff_account(from: &str, turns: &[HandoffTurn], ask: &str, max_bytes: usize) -> String {
    let head = format!(
        "You are taking over work from {from}, another agent in this room. \
         Here is its conversation so far, from cohost's record.\n\n"
    );
    let ask = if ask.trim().is_empty() {
        "Continue from here.".to_owned()
    } else {
        ask.trim().to_owned()
    };
    let tail = format!("\n\n{ask}");
    let mut parts: Vec<String> = turns
        .iter()
        .enumerate()
        .map(|(i, t)| full_turn(i + 1, t))
        .collect();
    let total =
        |parts: &[String]| head.len() + tail.len() + parts.iter().map(String::len).sum::<usize>();
    for (i, t) in turns.iter().enumerate() {
        if total(&parts) <= max_bytes {
            break;
        }
        // The newest turn is the last to go.
        if i + 1 < turns.len() {
            parts[i] = short_turn(i + 1, t);
        }
    }
    let mut body: String = parts.concat();
    let room = max_bytes.saturating_sub(head.len() + tail.len());
    if body.len() > room {
        let marker = "\n[... cut to fit ...]\n";
        let mut cut = room.saturating_sub(marker.len());
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
        body.push_str(marker);
    }
    format!("{head}{body}{tail}")
}

fn answer_of(t: &HandoffTurn) -> String {
    t.events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..cut], text.len())
}

fn full_turn(n: usize, t: &HandoffTurn) -> String {
    let mut s = format!("## Turn {n}\nPrompt: {}\n", strip_controls(t.prompt.trim()));
    for e in &t.events {
        match &e.body {
            EventBody::ToolCall { name, input, .. } => {
                s.push_str(&format!("Tool call: {name} {input}\n"));
            }
            EventBody::ToolApprovalDecided {
                decision, origin, ..
            } => {
                s.push_str(&format!("  decided: {decision:?} by {origin:?}\n"));
            }
            EventBody::ToolExecuted {
                status,
                output_preview,
                ..
            } => {
                s.push_str(&format!(
                    "  result ({status:?}): {}\n",
                    bounded(output_preview.trim(), OUTPUT_BYTES)
                ));
            }
            EventBody::FileChanges(c) if !c.is_empty() => {
                s.push_str(&format!("Files changed: {}\n", c.headline()));
                for f in &c.files {
                    s.push_str(&format!("  {}\n", f.summary()));
                    if let Some(diff) = &f.diff {
                        s.push_str(&format!("```diff\n{}\n```\n", diff.trim_end()));
                    }
                }
            }
            EventBody::Error(err) => {
                s.push_str(&format!("Error: {}: {}\n", err.code, err.message));
            }
            _ => {}
        }
    }
    let answer = answer_of(t);
    if !answer.trim().is_empty() {
        s.push_str(&format!("Answer: {}\n", strip_controls(answer.trim())));
    }
    s.push('\n');
    s
}

fn short_turn(n: usize, t: &HandoffTurn) -> String {
    let calls = t
        .events
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolCall { .. }))
        .count();
    let files: Vec<String> = t
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::FileChanges(c) => Some(c.files.iter().map(|f| f.path.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    let files = if files.is_empty() {
        "none".to_owned()
    } else {
        files.join(", ")
    };
    format!(
        "## Turn {n} (summarized)\nPrompt: {}; {calls} tool call(s); files changed: {files}\n\n",
        bounded(strip_controls(t.prompt.trim()).as_ref(), 200)
    )
}

#[cfg(test)]
#[path = "handoff_tests.rs"]
mod tests;
