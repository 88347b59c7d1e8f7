//! Every one-shot CLI's output, then the exit: the parsers of the provider
//! list (`cohost_agents::catalog::parsers`), so a CLI added to the list is
//! fuzzed without a target of its own. The input's first line names the
//! CLI by its provider id, as the seeds from its golden transcripts do; a
//! name that is no CLI picks one by its bytes, so every input reaches a
//! parser.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsers: Vec<_> = cohost_agents::catalog::parsers().collect();
    let (name, rest) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let (_, parser) = parsers
        .iter()
        .find(|(id, _)| id.as_bytes() == name)
        .copied()
        .unwrap_or_else(|| {
            let sum: usize = name.iter().map(|b| usize::from(*b)).sum();
            parsers[sum % parsers.len()]
        });
    // A follow-up turn (of a known session) or a first one: the JSON
    // transcripts (`{`, odd) take the first.
    let session = rest.first().filter(|b| *b % 2 == 1).map(|_| "sess-1");
    cohost_fuzz::run_turn((parser.0)(session), rest);
});
