//! `cohost fake-llm`: the deterministic fake model server, for demos and for
//! pointing a real agent CLI at something that answers offline.

use clap::Args;
use cohost_fakellm::{load_script, FakeLlm, FakeLlmConfig};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

/// Arguments of `cohost fake-llm`.
#[derive(Debug, Args)]
pub struct FakeLlmArgs {
    /// Port on 127.0.0.1 (0 picks a free one and prints it).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Scenario script (JSON), see the README.
    #[arg(long)]
    script: Option<PathBuf>,
    /// Append every request as one JSON line to this file (secrets redacted).
    #[arg(long)]
    log: Option<PathBuf>,
}

/// Serve until Ctrl+C.
pub async fn run(args: FakeLlmArgs) -> u8 {
    let mut config = FakeLlmConfig {
        log_path: args.log,
        ..FakeLlmConfig::default()
    };
    if let Some(path) = &args.script {
        match load_script(path) {
            Ok(s) => config.script = Some(s),
            Err(e) => {
                eprintln!(
                    "cohost: error CONFIG_INVALID: {e}\n  fix: {}",
                    e.suggested_fix()
                );
                return crate::exit::USAGE;
            }
        }
    }
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
    let server = match FakeLlm::start_on(addr, config).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "cohost: error CONFIG_INVALID: {e}\n  fix: {}",
                e.suggested_fix()
            );
            return 3;
        }
    };
    let url = server.base_url();
    println!("fake-llm listening on {url}");
    println!("  Anthropic:  ANTHROPIC_BASE_URL={url}");
    println!("  OpenAI:     OPENAI_BASE_URL={url}/v1");
    println!("  Gemini:     GOOGLE_GEMINI_BASE_URL={url}");
    println!("  Ollama:     OLLAMA_HOST={url}");
    println!("Press Ctrl+C to stop.");
    tokio::select! {
        _ = server.wait() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    0
}
