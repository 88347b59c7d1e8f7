//! The line gate the JSON-lines normalizers share (cursor, goose, agy,
//! continue, copilot, opencode): what to do with one stdout line before the driver's own
//! mapping sees it.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Parse one trimmed stdout line as `T`. Blank lines and lines after the
/// turn ended yield `None`. A line that does not parse (a warning printed to
/// stdout, a truncated line) is counted in `skipped` and yields `None`:
/// noise, never a reason to end the turn.
pub fn parse_line<T: DeserializeOwned>(line: &str, ended: bool, skipped: &mut usize) -> Option<T> {
    let line = line.trim();
    if line.is_empty() || ended {
        return None;
    }
    match serde_json::from_str(line) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::debug!("skipped a stdout line that is not an event: {e}");
            *skipped += 1;
            None
        }
    }
}

/// [`parse_line`] for CLIs whose events are loosely typed JSON objects:
/// any other JSON value (a bare string, a number) is skipped too.
pub fn object_line(line: &str, ended: bool, skipped: &mut usize) -> Option<Value> {
    parse_line::<Map<String, Value>>(line, ended, skipped).map(Value::Object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_pass_blanks_are_ignored_and_junk_is_counted() {
        let mut skipped = 0;
        let v = object_line("  {\"type\":\"x\"}\n", false, &mut skipped);
        assert_eq!(v, Some(serde_json::json!({"type": "x"})));
        assert_eq!(object_line("   ", false, &mut skipped), None);
        assert_eq!(skipped, 0);
        for junk in ["not json", "\"a string\"", "42", "[1]", "{\"cut\":"] {
            assert_eq!(object_line(junk, false, &mut skipped), None, "{junk}");
        }
        assert_eq!(skipped, 5);
        assert_eq!(object_line("{}", true, &mut skipped), None);
        assert_eq!(parse_line::<u8>("7", false, &mut skipped), Some(7));
        assert_eq!(skipped, 5);
    }
}
