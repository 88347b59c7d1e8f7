//! `cohost sessions`: the session store (cohost session -> provider, native
//! session id, cwd, model, turns).

use clap::Args;
use cohost_host::SessionStore;

use crate::exit;
use crate::hostctx;

/// Arguments of `cohost sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// List stored sessions, newest first.
pub async fn run(args: SessionsArgs) -> u8 {
    let host = match hostctx::host() {
        Ok(h) => h,
        Err(e) => return exit::report(&e, args.json),
    };
    let mut list = match SessionStore::open(&host.paths.state_dir).list() {
        Ok(l) => l,
        Err(e) => return exit::report(&e, args.json),
    };
    list.sort_by_key(|r| std::cmp::Reverse(r.updated_at_ms));
    if args.json {
        crate::say!(
            "{}",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        );
        return 0;
    }
    if list.is_empty() {
        crate::say!("No sessions yet. `cohost run` records one per run; resume with `cohost run --resume ID`.");
        return 0;
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
            cohost_core::sanitize(&r.cwd.display().to_string())
        );
    }
    0
}
