//! Shared steps of the smoke tests: one prompt through a real CLI and the
//! checks every CLI must pass.

pub mod acp;

use std::time::Duration;

use cohost_testbench::{assert_no_leftovers, Bench, RunOutput};

/// Hard deadline for one CLI run or ACP exchange: 120 s, or
/// `COHOST_BENCH_TIMEOUT_SECS` (aider took 83 s at load average 30 on 2 cores).
pub fn run_timeout() -> Duration {
    let secs = std::env::var("COHOST_BENCH_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .filter(|&s: &u64| s > 0)
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// A prompt unique to the CLI, so a reply cannot come from another test.
pub fn prompt_for(bench: &Bench) -> String {
    format!("cohost smoke test for {} please reply", bench.cli())
}

/// How the fake server's default text reply starts; it then quotes the last
/// text block of the user's message.
pub const REPLY_PREFIX: &str = "Hello from fake-llm. You said: ";

/// Whether `output` holds the fake server's reply quoting `prompt`. Some CLIs
/// put context in the same text block before the prompt (Copilot prepends
/// `<current_datetime>…</current_datetime>`), so the quote must *contain*
/// the prompt on the reply's own line rather than equal it.
pub fn has_reply(output: &str, prompt: &str) -> bool {
    output.match_indices(REPLY_PREFIX).any(|(at, _)| {
        let rest = &output[at + REPLY_PREFIX.len()..];
        rest.split('\n')
            .next()
            .is_some_and(|line| line.contains(prompt))
    })
}

/// The checks after a run: the model endpoint got the prompt, nothing left
/// loopback, nothing outlived the run.
pub async fn assert_model_saw_prompt_and_cleanup(bench: &Bench, prompt: &str, context: &str) {
    let model_requests = bench.model_requests();
    let all: Vec<String> = bench
        .fake()
        .requests()
        .iter()
        .map(|r| format!("{} {} -> {:?}", r.method, r.path, r.scenario))
        .collect();
    assert!(
        model_requests
            .iter()
            .any(|r| r.body.to_string().contains(prompt)),
        "{}: no {:?} request carried the prompt; fake server saw:\n  {}\n{context}",
        bench.cli(),
        bench.cli().model_api(),
        all.join("\n  ")
    );
    bench.assert_only_loopback();
    assert_no_leftovers(bench.marker()).await;
}

/// Where the prompt sits in the last model request's body (300 bytes
/// around it), for failure messages.
pub fn prompt_in_last_body(bench: &Bench, prompt: &str) -> String {
    let Some(body) = bench.model_requests().last().map(|r| r.body.to_string()) else {
        return "(no model request)".into();
    };
    let Some(at) = body.rfind(prompt) else {
        return format!("(prompt not in the {}-byte body)", body.len());
    };
    let mut from = at.saturating_sub(300);
    while !body.is_char_boundary(from) {
        from += 1;
    }
    let mut to = (at + prompt.len() + 300).min(body.len());
    while !body.is_char_boundary(to) {
        to -= 1;
    }
    body[from..to].to_string()
}

/// Runs one headless prompt and checks the reply is in the CLI's own stdout.
pub async fn smoke_headless(bench: &Bench, args: Vec<String>, prompt: &str) -> RunOutput {
    let out = cohost_testbench::run_with_timeout(bench.command(&args), run_timeout())
        .await
        .expect("the CLI starts");
    eprintln!(
        "{}: exited {:?} in {:?}",
        bench.cli(),
        out.status,
        out.elapsed
    );
    assert!(
        out.success(),
        "{} {args:?} failed:\n{}",
        bench.cli(),
        out.describe()
    );
    assert!(
        has_reply(&out.stdout, prompt),
        "{}: reply \"{REPLY_PREFIX}…{prompt}\" not in stdout:\n{}\n--- prompt in the last model request ---\n{}",
        bench.cli(),
        out.describe(),
        prompt_in_last_body(bench, prompt)
    );
    assert_model_saw_prompt_and_cleanup(bench, prompt, &out.describe()).await;
    out
}

#[test]
fn reply_detection_needs_prefix_and_prompt_on_one_line() {
    let p = "cohost smoke test for x please reply";
    assert!(has_reply(&format!("{REPLY_PREFIX}{p}\n"), p));
    assert!(has_reply(&format!("> {REPLY_PREFIX}<t>now</t> {p}"), p));
    assert!(!has_reply(&format!("{REPLY_PREFIX}something else\n{p}"), p));
    assert!(!has_reply(p, p));
    assert!(!has_reply("", p));
}
