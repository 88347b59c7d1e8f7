//! `cohost run --agent A --agent B PROMPT`: the same prompt to every agent
//! of a room at once (compare). Each member runs in its own worktree when
//! the directory is a git repository; the answers are shown grouped by
//! member (`--json`: every event, tagged with `agent`), then a summary of
//! each member's changes side by side. The exit code is 0 when every
//! member completed, else the first failing member's.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use cohost_core::{CohostError, EndReason, ErrorCode, EventBody, TurnChanges};
use cohost_host::session::{prepare_room, tidy_worktrees, ProviderChoice};
use cohost_host::SessionRecord;

use crate::approve::TerminalPrompt;
use crate::exit::{self, CmdResult, Failure};
use crate::room_render::Grouped;

use super::run::RunArgs;

/// One member's result, for the summary.
struct Outcome {
    name: String,
    record: Option<String>,
    reason: Option<EndReason>,
    code: u8,
    changes: Vec<TurnChanges>,
}

/// Options of `run` that a room does not take (yet), as usage errors.
fn refuse_unsupported(args: &RunArgs) -> Result<(), CohostError> {
    let refused = [
        (args.resume.is_some(), "--resume"),
        (args.continue_last, "--continue"),
        (args.fork.is_some(), "--fork"),
        (args.tools.is_some(), "--tools"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(on, _)| *on) {
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("{flag} takes one agent; several --agent were given"),
        )
        .with_fix(format!(
            "run each agent on its own with {flag}, or drop {flag} to compare them"
        )));
    }
    Ok(())
}

/// Run the prompt on every agent named.
pub async fn run(args: RunArgs) -> CmdResult {
    if let Err(e) = crate::signals::listen() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let prompt = super::run::read_prompt(&args.prompt).map_err(Failure::usage)?;
    refuse_unsupported(&args).map_err(Failure::usage)?;
    let (host, cfg) = crate::hostctx::host_and_config()?;
    let ask = TerminalPrompt::default();
    let agents = args.target.agent.clone();
    // Members may ask each other (`ask_member`), each call approved like
    // any tool call of theirs.
    let bridge = cohost_sharing::bridged::bridge();
    let sockets = bridge.as_ref().map(|b| b.sockets.clone());
    // One budget for the room: every member spends from it.
    let budget = args.target.watch.budget(&cfg)?;
    let prepared = prepare_room(&host, &cfg, &agents, |name, id| {
        let mut req = super::run::request(&args);
        req.provider = ProviderChoice::Id(id.to_owned());
        req.approvals = args.approve.approvals(Arc::new(ask.for_member(name)));
        cohost_sharing::bridged::offer(sockets.as_ref(), name, &mut req);
        req.budget = budget.as_ref().map(|b| b.seat(name));
        req
    })
    .await?;
    let mut inputs = Vec::with_capacity(prepared.members.len());
    for (name, open) in &prepared.members {
        inputs.push((
            name.clone(),
            open.input(prompt.clone(), &args.files, &args.images)?,
        ));
    }
    if let Some(note) = &prepared.note {
        eprintln!("cohost: {note}");
    }
    let room_id = prepared.id.clone();
    let notifier = args
        .target
        .watch
        .notifier(&cfg, false, |m| eprintln!("cohost: {m}"))?;
    let room = prepared.launch(&host).await?;
    cohost_sharing::bridged::serve(sockets.as_ref(), &room);
    // No sink, no subscriber: a notifier that tells nobody reads nothing.
    let notifying: Vec<_> = room
        .members()
        .iter()
        .filter(|_| !notifier.is_empty())
        .map(|m| notifier.watch(m.session.subscribe_new(), m.name.clone()))
        .collect();
    if let Some(b) = bridge {
        // The notes only: the sockets stay with this function, whose end
        // closes them and removes their directory.
        let mut notes = b.notes;
        let json = args.json;
        tokio::spawn(async move {
            while let Some(n) = notes.recv().await {
                if !json {
                    eprintln!("cohost: {}", cohost_sharing::bridged::note_line(&n));
                }
            }
        });
    }
    let names: Vec<String> = room.members().iter().map(|m| m.name.clone()).collect();
    let mut events = room.subscribe_new();
    let mut turns = Vec::with_capacity(inputs.len());
    for (name, input) in inputs {
        let member = room.named(&name)?;
        turns.push((name, member.session.prompt_last(input)));
    }

    let handle = room.clone();
    let json = args.json;
    crate::signals::set_hook(move |stop| {
        handle.interrupt_all();
        match stop {
            crate::signals::Stop::Interrupt if !json => {
                eprintln!("\ncohost: interrupting every agent… (Ctrl+C again to quit)");
            }
            crate::signals::Stop::Interrupt => {}
            crate::signals::Stop::Quit(sig) if sig == crate::signals::sigint() => {
                crate::signals::force_exit(exit::INTERRUPTED)
            }
            crate::signals::Stop::Quit(_) => {}
        }
    });

    let mut grouped = Grouped::new(&names);
    let mut changed: BTreeMap<String, Vec<TurnChanges>> = BTreeMap::new();
    // Events a member's reader missed (it fell too far behind): never
    // passed over in silence, the run fails and says whose.
    let mut lost: BTreeMap<String, u64> = BTreeMap::new();
    while let Some(next) = events.recv().await {
        let event = match next {
            Ok(event) => event,
            Err(lagged) => {
                *lost.entry(lagged.member.clone()).or_default() += lagged.lagged.missed;
                // Its later events (its end among them) still come.
                if let Some(m) = room.member(&lagged.member) {
                    events.follow(m);
                }
                continue;
            }
        };
        if let (Some(name), EventBody::FileChanges(c)) = (&event.agent, &event.body) {
            changed.entry(name.clone()).or_default().push(c.clone());
        }
        if json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", event.to_json_line());
            let _ = out.flush();
        } else {
            grouped.show(&event);
        }
    }
    grouped.finish();

    let mut outcomes = Vec::with_capacity(turns.len());
    for (name, turn) in turns {
        let record = room
            .member(&name)
            .and_then(|m| m.session.record_id().map(String::from));
        let outcome = match turn {
            Ok(t) => t.outcome().await,
            Err(e) => Err(e),
        }
        .map_err(CohostError::from);
        let (reason, code) = match outcome {
            Ok(o) => (Some(o.reason), exit::for_end(o.reason, o.error.as_ref())),
            Err(e) => {
                if !json {
                    eprintln!(
                        "cohost: {name}: {}",
                        cohost_core::sanitize::strip_controls(&e.message)
                    );
                }
                (None, Failure::from(e).exit)
            }
        };
        outcomes.push(Outcome {
            changes: changed.remove(&name).unwrap_or_default(),
            name,
            record,
            reason,
            code,
        });
    }
    drop(room);
    let ids: Vec<String> = outcomes.iter().filter_map(|o| o.record.clone()).collect();
    let kept = tidy_worktrees(&host, &ids).await;
    if !json {
        summary(&room_id, &outcomes, &kept);
    }
    for (name, missed) in &lost {
        eprintln!(
            "cohost: {name}: {missed} event(s) were not shown: the output fell behind the agent; \
             its turn ran whole (`cohost sessions` has its session)"
        );
    }
    // The last notices may still be on their way (bounded, as `run`).
    for w in notifying {
        let _ = tokio::time::timeout(super::run::NOTIFY_GRACE, w).await;
    }
    notifier.drain(super::run::NOTIFY_GRACE).await;
    let failed = outcomes.iter().map(|o| o.code).find(|c| *c != 0);
    Ok(failed.unwrap_or(if lost.is_empty() { 0 } else { exit::INTERNAL }))
}

/// What each member did, side by side, and how to keep one.
fn summary(room: &str, outcomes: &[Outcome], kept: &[SessionRecord]) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "\ncohost: room {room}");
    let width = outcomes
        .iter()
        .map(|o| o.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        err,
        "  {:<width$}  {:<11}  {:>5}  {:>13}  session",
        "member", "end", "files", "+/-"
    );
    for o in outcomes {
        let files: usize = o.changes.iter().map(|c| c.files.len()).sum();
        let added: u64 = o
            .changes
            .iter()
            .flat_map(|c| &c.files)
            .map(|f| f.added)
            .sum();
        let removed: u64 = o
            .changes
            .iter()
            .flat_map(|c| &c.files)
            .map(|f| f.removed)
            .sum();
        let end = match o.reason {
            Some(EndReason::Completed) => "completed".to_owned(),
            Some(r) => format!("{r:?}").to_lowercase(),
            None => "not run".to_owned(),
        };
        let _ = writeln!(
            err,
            "  {:<width$}  {:<11}  {:>5}  {:>13}  {}",
            cohost_core::sanitize::inert_line(&o.name),
            end,
            files,
            format!("+{added} -{removed}"),
            o.record.as_deref().unwrap_or("-")
        );
    }
    if !kept.is_empty() {
        let _ = writeln!(
            err,
            "  each change is in its member's worktree; `cohost worktree keep SESSION` brings one \
             member's into your checkout and drops the others' (`cohost diff SESSION` shows one)"
        );
    }
}
