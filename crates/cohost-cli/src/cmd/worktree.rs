//! `cohost worktree`: the git worktrees sessions run in (`--worktree`):
//! list them, bring a session's changes into your checkout (apply or
//! merge), or drop them.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use cohost_host::changes::{self, WorktreeOp};
use cohost_host::SessionStore;

use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost worktree`.
#[derive(Debug, Args)]
pub struct WorktreeArgs {
    #[command(subcommand)]
    action: Action,
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Sessions with a worktree, and what each holds.
    List,
    /// Bring a session's changes into your checkout as uncommitted changes
    /// (your index untouched); refused, with nothing written, when one
    /// does not apply cleanly.
    Apply(Which),
    /// Commit a session's changes on its branch and merge the branch into
    /// your current branch (conflicts are reported; `git merge --abort`
    /// undoes them).
    Merge(Which),
    /// Keep one room member's changes (`cohost run --agent A --agent B`):
    /// apply them (or --merge its branch) into your checkout, then remove
    /// the other members' worktrees (their changes stay under
    /// refs/cohost/sessions/SESSION/discarded).
    Keep(Keep),
    /// Remove a session's worktree and branch; refused while it holds
    /// changes not brought in, unless --force (they are kept under
    /// refs/cohost/sessions/SESSION/discarded).
    Discard(Discard),
}

#[derive(Debug, Args)]
struct Which {
    /// The session; default: the latest one with a worktree from here.
    session: Option<String>,
}

#[derive(Debug, Args)]
struct Keep {
    /// The member's session (the summary of `cohost run` names it).
    session: String,
    /// Merge its branch instead of applying its changes.
    #[arg(long)]
    merge: bool,
}

#[derive(Debug, Args)]
struct Discard {
    /// The session; default: the latest one with a worktree from here.
    session: Option<String>,
    /// Drop changes that were not brought in.
    #[arg(long)]
    force: bool,
}

/// Run the action.
pub async fn run(args: WorktreeArgs) -> CmdResult {
    let host = hostctx::host()?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let (session, op) = match args.action {
        Action::List => return list(&host, args.json).await,
        Action::Keep(k) => return keep(&host, &cwd, k, args.json).await,
        Action::Apply(w) => (w.session, WorktreeOp::Apply),
        Action::Merge(w) => (w.session, WorktreeOp::Merge),
        Action::Discard(d) => (d.session, WorktreeOp::Discard { force: d.force }),
    };
    let rec = changes::find_worktree_session(&host, session.as_deref(), &cwd)?;
    let out = changes::worktree(&host, &rec, op).await?;
    if args.json {
        crate::say!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(0);
    }
    let what = match op {
        WorktreeOp::Apply if out.files.is_empty() => "nothing to apply".to_owned(),
        WorktreeOp::Apply => format!("applied {} file(s) to your checkout", out.files.len()),
        WorktreeOp::Merge if out.files.is_empty() => "nothing to merge".to_owned(),
        WorktreeOp::Merge => format!("merged {} ({} file(s))", out.branch, out.files.len()),
        WorktreeOp::Discard { .. } if out.files.is_empty() => "removed the worktree".to_owned(),
        WorktreeOp::Discard { .. } => format!(
            "removed the worktree; {} changed file(s) dropped, kept under \
             refs/cohost/sessions/{}/discarded",
            out.files.len(),
            out.session
        ),
        WorktreeOp::Status => String::new(),
    };
    crate::say!("session {}: {what}", out.session);
    for f in &out.files {
        crate::say!("  {}", cohost_core::sanitize::inert_line(f));
    }
    Ok(0)
}

async fn keep(
    host: &cohost_discovery::Host,
    cwd: &std::path::Path,
    k: Keep,
    json: bool,
) -> CmdResult {
    let rec = changes::find_worktree_session(host, Some(&k.session), cwd)?;
    let out = changes::keep(host, &rec, k.merge).await?;
    if json {
        crate::say!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(0);
    }
    let member = rec
        .room
        .as_ref()
        .map(|r| format!(" ({})", cohost_core::sanitize::inert_line(&r.member)))
        .unwrap_or_default();
    let how = if k.merge { "merged" } else { "applied" };
    crate::say!(
        "session {}{member}: {how} {} file(s) into your checkout",
        out.kept.session,
        out.kept.files.len()
    );
    for f in &out.kept.files {
        crate::say!("  {}", cohost_core::sanitize::inert_line(f));
    }
    for d in &out.dropped {
        crate::say!(
            "session {}: worktree removed ({} changed file(s) kept under refs/cohost/sessions/{}/discarded)",
            d.session,
            d.files.len(),
            d.session
        );
    }
    Ok(0)
}

async fn list(host: &cohost_discovery::Host, json: bool) -> CmdResult {
    let records: Vec<_> = SessionStore::of(host)
        .list()?
        .into_iter()
        .filter(|r| r.worktree.is_some())
        .collect();
    let mut rows = Vec::new();
    for rec in &records {
        // Shown as users see errors: the wire message.
        let files = changes::worktree(host, rec, WorktreeOp::Status)
            .await
            .map(|o| o.files)
            .map_err(cohost_core::CohostError::from);
        rows.push((rec, files));
    }
    if json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(r, f)| {
                serde_json::json!({
                    "session": r.id,
                    "worktree": r.worktree,
                    "changed": f.as_ref().ok(),
                    "error": f.as_ref().err().map(|e| e.message.clone()),
                })
            })
            .collect();
        crate::say!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(0);
    }
    if rows.is_empty() {
        crate::say!("No session runs in a worktree. `cohost run --worktree ...` starts one.");
        return Ok(0);
    }
    for (rec, files) in rows {
        let Some(w) = &rec.worktree else { continue };
        let state = match files {
            Ok(f) if f.is_empty() => "no changes".to_owned(),
            Ok(f) => format!("{} file(s) changed, not brought in", f.len()),
            Err(e) => format!("unreadable: {}", e.message),
        };
        crate::say!(
            "{:<18} {:<24} {}  ({state})",
            rec.id,
            w.branch,
            cohost_core::sanitize::inert_line(&w.path.display().to_string())
        );
    }
    Ok(0)
}
