//! What one entry shows in a transcript, whatever the format: a title and
//! parts (prose, code, a diff, an image, key-value facts). Built from the
//! entry's body; every string in it is remote text that each renderer
//! makes inert.

use serde_json::Value;

use crate::entry::Entry;
use crate::kind;

/// One piece of an entry's rendering.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Text as written (the prompt, the answer).
    Prose(String),
    /// Verbatim text (tool input, output, raw JSON).
    Code(String),
    /// A unified diff, headed by its file's summary.
    Diff { file: String, diff: String },
    /// An inline image: an allowed media type and base64 data.
    Image { media_type: String, data: String },
    /// Short facts.
    Facts(Vec<(String, String)>),
}

/// An entry as shown.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct View {
    pub title: String,
    pub parts: Vec<Part>,
}

/// Image types a transcript shows inline (what prompts may carry).
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn facts(pairs: &[(&str, String)]) -> Part {
    Part::Facts(
        pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

fn image(v: &Value) -> Part {
    let media_type = s(v, "media_type");
    let data = s(v, "data");
    let base64 = !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if IMAGE_TYPES.contains(&media_type) && base64 {
        Part::Image {
            media_type: media_type.to_owned(),
            data: data.to_owned(),
        }
    } else {
        facts(&[
            ("image", media_type.to_owned()),
            ("sha256", s(v, "sha256").to_owned()),
            (
                "bytes",
                v.get("bytes").map(Value::to_string).unwrap_or_default(),
            ),
        ])
    }
}

/// How `e` shows.
pub(crate) fn view(e: &Entry) -> View {
    let b = e.body_json();
    let (title, parts) = match e.kind.as_str() {
        kind::SESSION => (
            if b.get("resumed").and_then(Value::as_bool) == Some(true) {
                "session resumed"
            } else {
                "session started"
            }
            .to_owned(),
            vec![facts(&[
                ("session", s(&b, "session").to_owned()),
                ("agent", s(&b, "provider").to_owned()),
                ("model", s(&b, "model").to_owned()),
                ("directory", s(&b, "cwd").to_owned()),
                ("host key", s(&b, "host_public_key").to_owned()),
            ])],
        ),
        kind::PROMPT => {
            let mut parts = vec![Part::Prose(s(&b, "text").to_owned())];
            let files: Vec<&str> = b
                .get("files")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if !files.is_empty() {
                parts.push(facts(&[("files", files.join(", "))]));
            }
            for img in b
                .get("images")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                parts.push(image(img));
            }
            ("prompt".to_owned(), parts)
        }
        kind::TEXT => (
            "answer".to_owned(),
            vec![Part::Prose(s(&b, "text").to_owned())],
        ),
        kind::REASONING => (
            "reasoning".to_owned(),
            vec![Part::Prose(s(&b, "text").to_owned())],
        ),
        kind::EVENT => event(&b),
        kind::SUGGESTION => (
            match s(&b, "to") {
                "" => "suggestion".to_owned(),
                to => format!("suggestion for {to}"),
            },
            vec![Part::Prose(s(&b, "text").to_owned())],
        ),
        kind::SUGGESTION_DECIDED => (
            format!(
                "suggestion {} {}",
                s(&b, "suggestion_id"),
                if b.get("accepted").and_then(Value::as_bool) == Some(true) {
                    "accepted"
                } else {
                    "rejected"
                }
            ),
            Vec::new(),
        ),
        kind::APPROVAL_DECIDED => (
            format!(
                "tool {} {}",
                s(&b, "tool_id"),
                if b.get("allow").and_then(Value::as_bool) == Some(true) {
                    "allowed"
                } else {
                    "denied"
                }
            ),
            Vec::new(),
        ),
        kind::APPROVAL_VOTE => (
            format!(
                "vote to {} tool {}",
                if b.get("allow").and_then(Value::as_bool) == Some(true) {
                    "allow"
                } else {
                    "deny"
                },
                s(&b, "tool_id")
            ),
            Vec::new(),
        ),
        kind::PRESENCE => (
            format!("{} {} ({})", s(&b, "name"), s(&b, "change"), s(&b, "role")),
            Vec::new(),
        ),
        kind::NOTE => (
            "note".to_owned(),
            vec![Part::Prose(s(&b, "text").to_owned())],
        ),
        kind::END => (format!("session ended ({})", s(&b, "reason")), Vec::new()),
        other => (other.to_owned(), vec![Part::Code(pretty(&b))]),
    };
    View { title, parts }
}

fn event(b: &Value) -> (String, Vec<Part>) {
    let t = s(b, "type");
    match t {
        "stream_start" => (
            "turn started".to_owned(),
            vec![facts(&[
                ("agent", s(b, "provider").to_owned()),
                ("model", s(b, "model").to_owned()),
            ])],
        ),
        "stream_end" => (
            format!("turn ended ({})", s(b, "reason")),
            match b.get("usage") {
                Some(u) if !u.is_null() => vec![Part::Code(pretty(u))],
                _ => Vec::new(),
            },
        ),
        "tool_call" | "tool_approval_requested" => (
            format!(
                "{} {} ({})",
                if t == "tool_call" {
                    "tool call"
                } else {
                    "approval asked for"
                },
                s(b, "name"),
                s(b, "tool_id")
            ),
            vec![Part::Code(pretty(b.get("input").unwrap_or(&Value::Null)))],
        ),
        "tool_approval_decided" => (
            format!(
                "approval: {} for {} (by {})",
                s(b, "decision"),
                s(b, "tool_id"),
                s(b, "origin")
            ),
            Vec::new(),
        ),
        "tool_executed" => (
            format!("tool {} {}", s(b, "tool_id"), s(b, "status")),
            match s(b, "output_preview") {
                "" => Vec::new(),
                out => vec![Part::Code(out.to_owned())],
            },
        ),
        "file_changes" => {
            let files = b
                .get("files")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let parts = files
                .iter()
                .map(|f| {
                    let file = format!(
                        "{} {} (+{} -{})",
                        s(f, "status"),
                        s(f, "path"),
                        f.get("added").and_then(Value::as_u64).unwrap_or(0),
                        f.get("removed").and_then(Value::as_u64).unwrap_or(0)
                    );
                    Part::Diff {
                        file,
                        diff: s(f, "diff").to_owned(),
                    }
                })
                .collect();
            (
                format!(
                    "files changed in turn {}",
                    b.get("turn").map(Value::to_string).unwrap_or_default()
                ),
                parts,
            )
        }
        "status" => (
            "status".to_owned(),
            vec![Part::Prose(s(b, "message").to_owned())],
        ),
        "error" => (
            format!("error {}", s(b, "code")),
            vec![Part::Prose(s(b, "message").to_owned())],
        ),
        "usage" => ("usage".to_owned(), vec![Part::Code(pretty(b))]),
        other => (other.to_owned(), vec![Part::Code(pretty(b))]),
    }
}
