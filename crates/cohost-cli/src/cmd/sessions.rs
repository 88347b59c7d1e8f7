//! `cohost sessions`: the session store (cohost session -> provider, native
//! session id, cwd, model, turns).

use clap::Args;
use cohost_host::SessionStore;

use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// List stored sessions, newest first.
pub async fn run(args: SessionsArgs) -> CmdResult {
    let host = hostctx::host()?;
    let mut list = SessionStore::of(&host).list()?;
    list.sort_by_key(|r| std::cmp::Reverse(r.updated_at_ms));
    if args.json {
        crate::say!(
            "{}",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        );
        return Ok(0);
    }
    if list.is_empty() {
        crate::say!("No sessions yet. `cohost run` records one per run; resume with `cohost run --resume ID`.");
        return Ok(0);
    }
    crate::say!(
        "{:<18} {:<10} {:<6} {:<38} CWD",
        "ID",
        "PROVIDER",
        "TURNS",
        "NATIVE SESSION"
    );
    for r in list {
        crate::say!(
            "{:<18} {:<10} {:<6} {:<38} {}",
            r.id,
            r.provider,
            r.watermark,
            r.native_session_id.as_deref().unwrap_or("-"),
            crate::secrets::clean(&r.cwd.display().to_string())
        );
        if let Some(room) = &r.room {
            crate::say!(
                "{:<18} member {} of room {}",
                "",
                cohost_core::sanitize::inert_line(&room.member),
                room.id
            );
        }
        if let Some(w) = &r.worktree {
            crate::say!(
                "{:<18} worktree on branch {} (from {}; `cohost worktree list`)",
                "",
                w.branch,
                crate::secrets::clean(&w.origin.display().to_string())
            );
        }
    }
    Ok(0)
}
