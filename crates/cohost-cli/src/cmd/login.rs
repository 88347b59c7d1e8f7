//! `cohost login ID`: run the agent's own login flow in this terminal.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::Args;

use cohost_core::{CohostError, ErrorCode};

use crate::exit::{self, CmdResult};
use crate::hostctx;

/// Arguments of `cohost login`.
#[derive(Debug, Args)]
pub struct LoginArgs {
    /// Provider id.
    id: String,
    /// Only print the command.
    #[arg(long)]
    print: bool,
}

/// Launch the login command with this terminal's stdio.
pub async fn run(args: LoginArgs) -> CmdResult {
    let host = hostctx::host()?;
    let cmd = cohost_discovery::login_command(&host, &args.id).await?;
    eprintln!("{}\n$ {}", cmd.note, cmd.display);
    if args.print {
        return Ok(0);
    }
    let status = tokio::process::Command::new(&cmd.program)
        .args(&cmd.args)
        .status()
        .await;
    match status {
        Ok(s) if s.success() => Ok(0),
        Ok(s) => {
            // The login tool has shown its own error; pass its code on.
            eprintln!("cohost: the login command exited with {s}");
            Ok(u8::try_from(s.code().unwrap_or(1)).unwrap_or(exit::INTERNAL))
        }
        Err(e) => Err(CohostError::new(
            ErrorCode::SpawnFailed,
            format!("cannot run {}: {e}", cmd.display),
        )
        .with_fix("check that the provider's CLI is installed (see `cohost agents`)")
        .into()),
    }
}
