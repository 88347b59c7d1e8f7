//! The README's event examples are real: each parses as a known event type
//! and re-serializes to exactly the same line.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

#[test]
fn every_event_type_has_a_valid_readme_example() {
    let readme = include_str!("../../../../README.md");
    let section = readme
        .split("## Events: cohost's wire format")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has an Events section");
    let mut types = Vec::new();
    let mut in_block = false;
    for line in section.lines() {
        match line.trim() {
            "```json" => in_block = true,
            "```" => in_block = false,
            l if in_block => {
                let event = cohost_core::Event::from_json_line(l)
                    .unwrap_or_else(|e| panic!("README example does not parse: {l}: {e}"));
                assert_ne!(event.body, cohost_core::EventBody::Unknown, "{l}");
                assert_eq!(
                    event.to_json_line(),
                    l,
                    "cohost writes exactly the documented shape"
                );
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                types.push(v["type"].as_str().unwrap().to_string());
            }
            _ => {}
        }
    }
    for t in [
        "stream_start",
        "stream_chunk",
        "reasoning_chunk",
        "tool_call",
        "tool_approval_requested",
        "tool_approval_decided",
        "tool_executed",
        "usage",
        "status",
        "stream_end",
        "error",
    ] {
        assert!(
            types.iter().any(|x| x == t),
            "README lacks an example of {t}"
        );
    }
}
