//! Steering: text sent while a turn runs. Where the agent's protocol takes
//! input mid-turn it reaches the agent in that turn (a `steered` event);
//! otherwise it waits in the session's queue for the next turn (a `queue`
//! event names every change, with the whole queue after it).

use serde::{Deserialize, Serialize};

/// The body of a `steered` event: text that reached the agent during the
/// running turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteerNotice {
    /// The text (sanitized, bounded to [`PREVIEW_CHARS`]).
    pub text: String,
    /// Who sent it, when a person other than the session's user did (a
    /// shared room's participant whose suggestion was accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// One prompt waiting in a session's queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueItem {
    /// The item's number in this session: stable while it waits, never
    /// reused (what `/queue drop N` and the API name).
    pub id: u64,
    /// The prompt's correlation id (every event of its turn will carry it).
    pub correlation_id: String,
    /// The start of the text (sanitized, bounded to [`PREVIEW_CHARS`]).
    pub text: String,
    /// Who sent it, when a person other than the session's user did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// What changed in the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum QueueChange {
    /// An item was added (text sent while a turn ran that the agent could
    /// not take mid-turn, or a prompt sent while the session was busy).
    Added,
    /// An item was moved to another place.
    Moved,
    /// An item was cancelled: it will not run.
    Dropped,
    /// An item left the queue to run as the next turn.
    Started,
    /// A change from a newer writer.
    #[serde(other)]
    Unknown,
}

/// The body of a `queue` event: one change and the queue after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueNotice {
    /// What changed.
    pub change: QueueChange,
    /// The item it happened to.
    pub item: QueueItem,
    /// Why, when a person should know (e.g. the agent takes no input
    /// mid-turn, so a steer was queued).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every item still waiting, next first.
    pub items: Vec<QueueItem>,
}

/// Characters of a steer or queued prompt kept in events.
pub const PREVIEW_CHARS: usize = 200;

/// `text` as events carry it: sanitized, at most [`PREVIEW_CHARS`]
/// characters (an ellipsis says it was cut).
pub fn preview(sanitizer: &crate::sanitize::Sanitizer, text: &str) -> String {
    let clean = sanitizer.sanitize(text.trim()).into_owned();
    if clean.chars().count() <= PREVIEW_CHARS {
        return clean;
    }
    let mut cut: String = clean.chars().take(PREVIEW_CHARS - 1).collect();
    cut.push('…');
    cut
}

impl QueueNotice {
    /// One line for a person.
    pub fn describe(&self) -> String {
        let who = self
            .item
            .by
            .as_deref()
            .map(|b| format!(" from {b}"))
            .unwrap_or_default();
        let what = match self.change {
            QueueChange::Added => "queued",
            QueueChange::Moved => "moved",
            QueueChange::Dropped => "dropped from the queue",
            QueueChange::Started => "now running",
            QueueChange::Unknown => "changed",
        };
        let note = self
            .note
            .as_deref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        let waiting = match self.items.len() {
            0 => "queue empty".to_string(),
            1 => "1 waiting".to_string(),
            n => format!("{n} waiting"),
        };
        format!(
            "#{} {what}{who}{note}: {}; {waiting}",
            self.item.id, self.item.text
        )
    }
}

impl SteerNotice {
    /// One line for a person.
    pub fn describe(&self) -> String {
        match &self.by {
            Some(b) => format!("steered (from {b}): {}", self.text),
            None => format!("steered: {}", self.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: u64, text: &str) -> QueueItem {
        QueueItem {
            id,
            correlation_id: format!("c-{id}"),
            text: text.into(),
            by: None,
        }
    }

    #[test]
    fn notices_read_as_a_line() {
        let n = QueueNotice {
            change: QueueChange::Added,
            item: QueueItem {
                by: Some("ana".into()),
                ..item(3, "run the tests")
            },
            note: Some("codex takes no input mid-turn".into()),
            items: vec![item(2, "a"), item(3, "run the tests")],
        };
        assert_eq!(
            n.describe(),
            "#3 queued from ana (codex takes no input mid-turn): run the tests; 2 waiting"
        );
        let n = QueueNotice {
            change: QueueChange::Started,
            note: None,
            items: vec![],
            ..n
        };
        assert_eq!(
            n.describe(),
            "#3 now running from ana: run the tests; queue empty"
        );
        let s = SteerNotice {
            text: "also fix b".into(),
            by: None,
        };
        assert_eq!(s.describe(), "steered: also fix b");
    }

    #[test]
    fn previews_are_bounded_and_sanitized() {
        let s = crate::sanitize::Sanitizer::shapes_only();
        let preview = |t: &str| super::preview(&s, t);
        let long = "x".repeat(500);
        let p = preview(&long);
        assert_eq!(p.chars().count(), PREVIEW_CHARS);
        assert!(p.ends_with('…'));
        assert_eq!(preview("  short  "), "short");
        let secret = "use sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA please";
        assert!(
            !preview(secret).contains("AAAAAAAAAAAAAAAA"),
            "{}",
            preview(secret)
        );
    }

    #[test]
    fn unknown_changes_read_tolerantly() {
        let v: QueueChange = serde_json::from_str("\"shuffled\"").unwrap();
        assert_eq!(v, QueueChange::Unknown);
        let v: QueueChange = serde_json::from_str("\"dropped\"").unwrap();
        assert_eq!(v, QueueChange::Dropped);
    }
}
