//! `cohost fake-llm`: the deterministic fake model server, for demos and for
//! pointing a real agent CLI at something that answers offline.

use clap::Args;
use cohost_fakellm::{load_script, FakeLlm, FakeLlmConfig};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};

use crate::exit::{CmdResult, Failure};

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
    /// (Not `--log`: that is cohost's global log filter.)
    #[arg(long)]
    request_log: Option<PathBuf>,
}

/// Serve until Ctrl+C.
pub async fn run(args: FakeLlmArgs) -> CmdResult {
    let mut config = FakeLlmConfig {
        log_path: args.request_log,
        ..FakeLlmConfig::default()
    };
    if let Some(path) = &args.script {
        let script = load_script(path).map_err(|e| Failure::usage(config_invalid(&e)))?;
        config.script = Some(script);
    }
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
    let server = FakeLlm::start_on(addr, config)
        .await
        .map_err(|e| config_invalid(&e))?;
    let url = server.base_url();
    // A closed stdout (`cohost fake-llm | head -1`) must not take the server
    // down: the banner is best effort.
    let banner = format!(
        "fake-llm listening on {url}\n  Anthropic:  ANTHROPIC_BASE_URL={url}\n  OpenAI:     OPENAI_BASE_URL={url}/v1\n  Gemini:     GOOGLE_GEMINI_BASE_URL={url}\n  Ollama:     OLLAMA_HOST={url}\nPress Ctrl+C to stop.\n"
    );
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    }
    tokio::select! {
        _ = server.wait() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(0)
}

/// The fake server's error as cohost's CONFIG_INVALID, its fix kept.
fn config_invalid(e: &cohost_fakellm::FakeLlmError) -> CohostError {
    CohostError::new(ErrorCode::ConfigInvalid, e.to_string()).with_fix(e.suggested_fix())
}
