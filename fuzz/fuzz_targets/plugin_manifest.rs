//! Plugin manifest parsing; a manifest with a `[jsonl]` mapping then maps
//! the lines after the first 0xff byte.
#![no_main]

use cohost_agents::parsers::plugin::manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (toml, lines) = cohost_fuzz::split_control(data);
    let text = String::from_utf8_lossy(toml);
    if let Ok(m) = manifest::parse(std::path::Path::new("/plugins/fuzz.toml"), &text) {
        if let Some(map) = m.jsonl {
            cohost_fuzz::run_jsonl(map, lines);
        }
    }
});
