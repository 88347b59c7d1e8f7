//! Standalone fake-llm, the same wiring `cohost fake-llm` uses:
//! `cargo run -p cohost-fakellm --example serve -- --port 8787 --script script.json --log requests.jsonl`
//!
//! Then point an agent CLI at it, e.g.
//! `ANTHROPIC_BASE_URL=http://127.0.0.1:8787 ANTHROPIC_API_KEY=x claude -p "hi [[scenario:tool]]"`.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the test bench and its tools report on the terminal"
)]

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use cohost_fakellm::{load_script, FakeLlm, FakeLlmConfig, FakeLlmError};

fn usage() -> ! {
    eprintln!("usage: serve [--port N] [--script FILE.json] [--log FILE.jsonl]");
    std::process::exit(2)
}

fn fail(e: FakeLlmError) -> ! {
    eprintln!("error: {e}\nfix: {}", e.suggested_fix());
    std::process::exit(1)
}

#[tokio::main]
async fn main() {
    let mut port = 0u16;
    let mut config = FakeLlmConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--port" => port = value().parse().unwrap_or_else(|_| usage()),
            "--script" => {
                config.script =
                    Some(load_script(&PathBuf::from(value())).unwrap_or_else(|e| fail(e)));
            }
            "--log" => config.log_path = Some(PathBuf::from(value())),
            _ => usage(),
        }
    }
    let server = FakeLlm::start_on(SocketAddr::from((Ipv4Addr::LOCALHOST, port)), config)
        .await
        .unwrap_or_else(|e| fail(e));
    println!(
        "fake-llm listening on {} (Ctrl-C to stop)",
        server.base_url()
    );
    server.wait().await;
}
