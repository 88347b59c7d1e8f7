//! The JSON transcript: each entry's fields with its body parsed, one
//! entry per line, and the record as a string.

use serde_json::{json, Value};

use super::sheet::{Rendered, Sheet};

/// The format marker of a JSON export.
pub(crate) const FORMAT: &str = "cohost-export-v1";

/// The document for `sheet`.
pub(crate) fn render(sheet: &Sheet<'_>) -> Rendered {
    let head = json!({
        "format": FORMAT,
        "session": sheet.session,
        "host_public_key": sheet.host_key,
        "complete": sheet.complete,
    });
    let head = serde_json::to_string(&head).unwrap_or_default();
    // `{"format":...,"complete":B` then the transcript.
    let mut out = format!("{},\n\"transcript\": [\n", head.trim_end_matches('}'));
    let mut spans = Vec::new();
    for (i, e) in sheet.entries.iter().enumerate() {
        let start = out.len();
        let mut item = json!({
            "seq": e.seq,
            "ts": e.ts,
            "kind": e.kind,
            "author": e.author,
            "body": e.body_json(),
        });
        // Only where an author signed (verified before rendering), so an
        // export of a record without such entries is as it always was.
        if let Some(k) = &e.author_public_key {
            item["author_public_key"] = Value::String(k.clone());
        }
        out.push_str(&serde_json::to_string(&item).unwrap_or_default());
        if i + 1 < sheet.entries.len() {
            out.push(',');
        }
        out.push('\n');
        spans.push((e.seq, start, out.len()));
    }
    out.push_str("],\n\"record\": ");
    out.push_str(
        &serde_json::to_string(&Value::String(sheet.record.to_owned())).unwrap_or_default(),
    );
    out.push_str("\n}\n");
    Rendered { text: out, spans }
}
