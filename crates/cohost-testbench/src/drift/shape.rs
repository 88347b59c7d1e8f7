//! The shape of a transcript: which event kinds a CLI printed, how often,
//! and which fields each kind carried. Pure: text in, [`Shape`] out.
//!
//! A transcript is what a CLI wrote on stdout, one line per event, in the
//! format of the goldens under `crates/cohost-agents/tests/fixtures/`:
//! header lines (`# …` or `{"cohost_fixture": …}`) and lines the host wrote
//! (`>> …` or `{"cohost_sent": …}`) are not the CLI's and are skipped.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

/// How deep field paths go: deeper levels are mostly payload (tool input,
/// model stats keyed by model name) that no normalizer branches on.
const MAX_DEPTH: usize = 3;

/// The kind given to a line that is not a JSON object (aider's plain text).
pub const TEXT_KIND: &str = "(text)";

/// What one event kind looked like across a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KindShape {
    /// Lines of this kind.
    pub count: usize,
    /// Field paths seen on them (`params.update.content.text`, `items[]`).
    pub fields: BTreeSet<String>,
}

/// Every kind of a transcript (or of several, merged).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// Kind → what it looked like.
    pub kinds: BTreeMap<String, KindShape>,
}

impl Shape {
    /// The shape of one transcript's text.
    pub fn of_transcript(text: &str) -> Shape {
        let mut shape = Shape::default();
        for line in text.lines() {
            shape.add_line(line);
        }
        shape
    }

    /// Adds one stdout line (ignored when it is a header, a host line or blank).
    pub fn add_line(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(">>") {
            return;
        }
        let value = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => {
                self.kinds.entry(TEXT_KIND.to_string()).or_default().count += 1;
                return;
            }
        };
        if value.get("cohost_fixture").is_some() || value.get("cohost_sent").is_some() {
            return;
        }
        let entry = self.kinds.entry(kind_of(&value)).or_default();
        entry.count += 1;
        collect_fields(&value, "", 0, &mut entry.fields);
    }

    /// Merges `other` into `self` (counts add up, fields unite).
    pub fn merge(&mut self, other: &Shape) {
        for (kind, s) in &other.kinds {
            let entry = self.kinds.entry(kind.clone()).or_default();
            entry.count += s.count;
            entry.fields.extend(s.fields.iter().cloned());
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

/// The event kind of one JSON line, as the drivers dispatch on it:
/// `type` (with `subtype`, or the inner `event.type` of a `stream_event`),
/// a JSON-RPC `method` (with the ACP `sessionUpdate` or codex's item type),
/// `response` / `error_response` for JSON-RPC answers, else `(object)`.
pub fn kind_of(v: &Value) -> String {
    if let Some(method) = str_at(v, &["method"]) {
        let detail = str_at(v, &["params", "update", "sessionUpdate"])
            .or_else(|| str_at(v, &["params", "item", "type"]));
        return match detail {
            Some(d) => format!("{method}:{d}"),
            None => method.to_string(),
        };
    }
    if let Some(t) = str_at(v, &["type"]) {
        let detail = str_at(v, &["subtype"]).or_else(|| {
            (t == "stream_event")
                .then(|| str_at(v, &["event", "type"]))
                .flatten()
        });
        return match detail {
            Some(d) => format!("{t}/{d}"),
            None => t.to_string(),
        };
    }
    if v.get("id").is_some() && v.get("error").is_some() {
        return "error_response".to_string();
    }
    if v.get("id").is_some() && v.get("result").is_some() {
        return "response".to_string();
    }
    "(object)".to_string()
}

/// An object key as it appears in a field path: keys that are data, not
/// names (a model name such as `gemini-3.5-flash`, a uuid, a path) become
/// `*`, so a CLI that reports another model does not look like a new field.
fn path_key(key: &str) -> &str {
    let data = key.is_empty()
        || key
            .chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | ':' | ' ' | '@'));
    if data {
        "*"
    } else {
        key
    }
}

fn collect_fields(v: &Value, prefix: &str, depth: usize, out: &mut BTreeSet<String>) {
    if depth >= MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let k = path_key(k);
                let path = if prefix.is_empty() {
                    k.to_string()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(path.clone());
                collect_fields(child, &path, depth + 1, out);
            }
        }
        Value::Array(items) => {
            let path = format!("{prefix}[]");
            for item in items {
                if item.is_object() {
                    collect_fields(item, &path, depth, out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_what_drivers_dispatch_on() {
        let cases = [
            (r#"{"type":"system","subtype":"init"}"#, "system/init"),
            (
                r#"{"type":"stream_event","event":{"type":"content_block_delta"}}"#,
                "stream_event/content_block_delta",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk"}}}"#,
                "session/update:agent_message_chunk",
            ),
            (
                r#"{"method":"item/started","params":{"item":{"type":"agentMessage"}}}"#,
                "item/started:agentMessage",
            ),
            (r#"{"id":1,"result":{}}"#, "response"),
            (r#"{"id":1,"error":{"code":-1}}"#, "error_response"),
            (r#"{"response":"hi","status":"success"}"#, "(object)"),
        ];
        for (line, want) in cases {
            let v: Value = serde_json::from_str(line).unwrap();
            assert_eq!(kind_of(&v), want, "{line}");
        }
    }

    #[test]
    fn headers_and_host_lines_are_not_the_cli_s() {
        let t = "# tool: x\n>> {\"type\":\"user\"}\n{\"cohost_fixture\":{}}\n{\"cohost_sent\":{\"id\":1}}\n\n{\"type\":\"result\",\"usage\":{\"input\":1}}\nplain words\n";
        let s = Shape::of_transcript(t);
        assert_eq!(s.kinds.len(), 2, "{s:?}");
        assert_eq!(s.kinds["result"].count, 1);
        assert_eq!(
            s.kinds["result"].fields.iter().collect::<Vec<_>>(),
            ["type", "usage", "usage.input"]
        );
        assert_eq!(s.kinds[TEXT_KIND].count, 1);
    }

    #[test]
    fn arrays_and_depth_are_bounded() {
        let s = Shape::of_transcript(r#"{"type":"a","xs":[{"k":1},{"j":{"deep":{"deeper":1}}}]}"#);
        let f: Vec<&String> = s.kinds["a"].fields.iter().collect();
        assert_eq!(f, ["type", "xs", "xs[].j", "xs[].j.deep", "xs[].k"]);
    }

    #[test]
    fn keys_that_are_data_collapse_to_a_star() {
        let a = Shape::of_transcript(
            r#"{"type":"result","stats":{"models":{"gemini-3.5-flash":{"n":1}}},"input_tokens":1}"#,
        );
        let b = Shape::of_transcript(
            r#"{"type":"result","stats":{"models":{"gemini-3.1-pro":{"n":2}}},"input_tokens":2}"#,
        );
        assert_eq!(a, b);
        assert!(a.kinds["result"].fields.contains("stats.models.*"));
        assert!(a.kinds["result"].fields.contains("input_tokens"));
    }

    #[test]
    fn merge_adds_counts_and_unites_fields() {
        let mut a = Shape::of_transcript(r#"{"type":"a","x":1}"#);
        a.merge(&Shape::of_transcript(
            "{\"type\":\"a\",\"y\":1}\n{\"type\":\"b\"}",
        ));
        assert_eq!(a.kinds["a"].count, 2);
        assert_eq!(a.kinds["a"].fields.len(), 3);
        assert_eq!(a.kinds["b"].count, 1);
    }
}
