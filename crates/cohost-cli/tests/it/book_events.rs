//! The book's event examples (docs/book/src/events.md) are real: each
//! parses as a known event type and re-serializes to exactly the same line.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

#[test]
fn every_event_type_has_a_valid_book_example() {
    let section = include_str!("../../../../docs/book/src/events.md");
    let mut types = Vec::new();
    let mut in_block = false;
    for line in section.lines() {
        match line.trim() {
            "```json" => in_block = true,
            "```" => in_block = false,
            l if in_block => {
                let event = cohost_core::Event::from_json_line(l)
                    .unwrap_or_else(|e| panic!("the book's example does not parse: {l}: {e}"));
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
        "steered",
        "queue",
    ] {
        assert!(
            types.iter().any(|x| x == t),
            "docs/book/src/events.md lacks an example of {t}"
        );
    }
}

/// The book's error-code table is the domain's list with the binary's exit
/// codes: regenerate it with
/// `INSTA_UPDATE=always cargo nextest run -p cohost-cli book_error_codes`.
#[test]
fn book_error_codes_are_the_code_list() {
    let mut table = String::from("| code | exit code | retryable by default |\n|---|---|---|\n");
    for code in cohost_core::ErrorCode::ALL {
        table.push_str(&format!(
            "| `{}` | {} | {} |\n",
            code.as_str(),
            cohost_cli::exit::for_code(code),
            if code.default_retryable() {
                "yes"
            } else {
                "no"
            }
        ));
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/book/src/events.md");
    cohost_testbench::snapshot::check_section(
        &path,
        "<!-- error-codes:start -->\n",
        "<!-- error-codes:end -->",
        &table,
    );
}
