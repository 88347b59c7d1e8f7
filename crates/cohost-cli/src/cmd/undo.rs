//! `cohost undo`: put back what a recorded session's last turn (or turns)
//! changed, refusing over changes made since unless forced.

use std::path::PathBuf;

use clap::Args;
use cohost_host::changes;

use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost undo`.
#[derive(Debug, Args)]
#[command(after_help = "\
Your version of every file put back is kept: `git show REF:PATH` with the \
ref the command prints (under refs/cohost/), also outside a repository \
(`GIT_DIR=~/.local/state/cohost/checkpoints/dirs/...`).")]
pub struct UndoArgs {
    /// The session (`cohost sessions`); default: the latest one recorded in
    /// the current directory.
    pub session: Option<String>,
    /// Undo this turn and every later one (default: the last turn).
    #[arg(long)]
    pub turn: Option<u64>,
    /// Put the files back even if they changed since the agent's turn.
    #[arg(long)]
    pub force: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Undo, and say what was put back.
pub async fn run(args: UndoArgs) -> CmdResult {
    let host = hostctx::host()?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let rec = changes::find_session(&host, args.session.as_deref(), &cwd)?;
    let done = changes::undo(&host, &rec, args.turn, args.force).await?;
    if args.json {
        crate::say!(
            "{}",
            serde_json::to_string_pretty(&done).unwrap_or_default()
        );
        return Ok(0);
    }
    crate::say!("{}", done.headline());
    for f in &done.restored {
        crate::say!("  restored {}", cohost_core::sanitize::inert_line(f));
    }
    for f in &done.removed {
        crate::say!("  removed  {}", cohost_core::sanitize::inert_line(f));
    }
    for f in &done.skipped {
        crate::say!("  skipped  {}", cohost_core::sanitize::inert_line(f));
    }
    crate::say!("the tree as it was before this undo: {}", done.saved_as);
    Ok(0)
}
