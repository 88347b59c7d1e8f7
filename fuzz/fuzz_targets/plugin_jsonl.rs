//! The JSONL plugin mapping (the test suite's manifest) over fuzzed lines.
#![no_main]

use cohost_agents::parsers::plugin::manifest::{self, JsonlMapping};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The fake JSONL agent's events (tests/fixtures/plugin), mapped with JSON
/// pointers where the plugin test uses dotted paths, so both lookups run.
const MANIFEST: &str = r#"
id = "fuzz-jsonl"
binary = ["fuzz-agent"]
protocol = "jsonl"
[jsonl]
type = "/kind"
session_id = { when = "init", path = "/session" }
text = { when = "delta", path = "/data/text" }
reasoning = { when = "thinking", path = "data.text" }
tool_call = { when = "tool", id = "/call/id", name = "/call/name", input = "/call/args" }
tool_result = { when = "tool_result", id = "/call/id", output = "/call/out", error = "/call/failed" }
end = { when = "done", input_tokens = "/usage/in", output_tokens = "/usage/out" }
error = { when = "error", path = "/message" }
"#;

fn mapping() -> &'static JsonlMapping {
    static M: OnceLock<JsonlMapping> = OnceLock::new();
    M.get_or_init(|| {
        manifest::parse(std::path::Path::new("fuzz.toml"), MANIFEST)
            .unwrap()
            .jsonl
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    cohost_fuzz::run_jsonl(mapping().clone(), data);
});
