//! `cohost login ID`: run the agent's own login flow in this terminal.

use clap::Args;

use crate::exit;
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
pub async fn run(args: LoginArgs) -> u8 {
    let host = match hostctx::host() {
        Ok(h) => h,
        Err(e) => return exit::report(&e, false),
    };
    let cmd = match cohost_host::login_command(&host, &args.id).await {
        Ok(c) => c,
        Err(e) => return exit::report(&e, false),
    };
    eprintln!("{}\n$ {}", cmd.note, cmd.display);
    if args.print {
        return 0;
    }
    let status = tokio::process::Command::new(&cmd.program)
        .args(&cmd.args)
        .status()
        .await;
    match status {
        Ok(s) if s.success() => 0,
        Ok(s) => {
            eprintln!("cohost: the login command exited with {s}");
            u8::try_from(s.code().unwrap_or(1)).unwrap_or(1)
        }
        Err(e) => {
            eprintln!(
                "cohost: error SPAWN_FAILED: cannot run {}: {e}",
                cmd.display
            );
            8
        }
    }
}
