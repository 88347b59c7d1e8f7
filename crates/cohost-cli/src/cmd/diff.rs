//! `cohost diff`: what a recorded session's turns changed in its working
//! tree (see the README's "Checkpoints, diffs and undo").

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use cohost_host::changes;

use crate::diffview::render_patch;
use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The session (`cohost sessions`); default: the latest one recorded in
    /// the current directory.
    pub session: Option<String>,
    /// Only this turn (1 is the session's first).
    #[arg(long)]
    pub turn: Option<u64>,
    /// Only the list of files, no diff text.
    #[arg(long)]
    pub stat: bool,
    /// Print JSON: the session, and each turn's files with their whole diffs.
    #[arg(long)]
    pub json: bool,
}

/// Print the changes.
pub async fn run(args: DiffArgs) -> CmdResult {
    let host = hostctx::host()?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let rec = changes::find_session(&host, args.session.as_deref(), &cwd)?;
    let found = changes::session_changes(&host, &rec, args.turn, true).await?;
    if args.json {
        crate::say!(
            "{}",
            serde_json::to_string_pretty(&found).unwrap_or_default()
        );
        return Ok(0);
    }
    if found.turns.is_empty() {
        crate::say!("session {}: no turn changed any file", rec.id);
        return Ok(0);
    }
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    for turn in &found.turns {
        crate::say!("{}", turn.headline());
        for f in &turn.files {
            crate::say!("  {}", f.summary());
        }
        if !args.stat {
            let patch = changes::turn_patch(&host, &rec, turn.turn).await?;
            crate::say!("{}", render_patch(&patch, color).trim_end());
        }
    }
    Ok(0)
}
