//! `cohost join`: join a shared session with an invite. Prints the host's
//! stream as it arrives; typed lines are suggestions (co-drivers) or
//! commands (`/chat`, `/interrupt`, `/who`, `/quit`, `/help`).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::Args;
use cohost_relay::ClientEvent;
use std::io::{BufRead, Write};
use std::time::Duration;
use tokio::sync::mpsc;

use cohost_core::sanitize::inert_line;
use cohost_core::{CohostError, ErrorCode};

use crate::cmd::invite_input;
use crate::exit::CmdResult;
use cohost_sharing::host::describe;
use cohost_sharing::participant;
use cohost_sharing::session::{JoinError, JoinOptions, ParticipantEvent, ParticipantSession};

/// Arguments of `cohost join`.
#[derive(Debug, Args)]
pub struct JoinArgs {
    /// The invite the host gave you, or `-` to read it from stdin. Better
    /// left out: `cohost join` then asks for it (pasted, not shown), or
    /// reads `--invite-file` or COHOST_INVITE; other users of this machine
    /// can read a command line.
    invite: Option<String>,
    /// Read the invite from this file (its first line).
    #[arg(long, value_name = "FILE", conflicts_with = "invite")]
    invite_file: Option<std::path::PathBuf>,
    /// Print every frame as one JSON line.
    #[arg(long)]
    pub json: bool,
    /// Line mode even on a terminal (no full-screen view).
    #[arg(long)]
    pub plain: bool,
    /// Your display name.
    #[arg(long)]
    name: Option<String>,
    /// Suggest this prompt to the host once connected (co-drivers only).
    #[arg(long)]
    suggest: Option<String>,
    /// Say this in the room chat once connected.
    #[arg(long)]
    chat: Option<String>,
    /// Leave after the first turn ends (for scripts).
    #[arg(long)]
    until_end: bool,
    /// Trust this CA certificate (PEM) for a `cohosts://` relay, besides the system's.
    #[arg(long, value_name = "PEM")]
    ca_file: Option<std::path::PathBuf>,
    /// Keep your identity (the keys your messages are signed with) in this
    /// file, made owner-only on first use, so the host knows you again on
    /// this device; default: a new identity each run.
    #[arg(long, value_name = "FILE")]
    identity: Option<std::path::PathBuf>,
    /// Bring this agent into the room as a member (co-drivers, when the
    /// host allows it: `cohost share --guest-agents`). It runs here, in
    /// this directory, with your credentials and sandbox; the host and the
    /// room prompt it like their own members, and you approve its tool
    /// calls (`/allow ID`, `/deny ID`). Line mode only.
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// With --agent: its tool approvals (`ask`: you answer each).
    #[arg(long, value_enum, default_value_t = crate::cmd::run::Approve::Ask, requires = "agent")]
    approve: crate::cmd::run::Approve,
}

/// The commands a participant can type.
const COMMANDS: &str = "TEXT (suggest, co-drivers), /chat TEXT, /allow [ID], /deny [ID] (when the host granted you approval), /interrupt, /who, /quit, /help";

/// One typed line.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    Suggest(String),
    Chat(String),
    Interrupt,
    /// Allow (true) or deny a pending tool call, by id or the only one.
    Vote(Option<String>, bool),
    Who,
    Quit,
    Help(Option<String>),
}

fn parse_line(line: &str) -> Option<Line> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
    let rest = rest.trim();
    Some(match cmd {
        "/chat" if !rest.is_empty() => Line::Chat(rest.to_string()),
        "/chat" => Line::Help(Some("/chat needs a message: /chat TEXT".into())),
        "/interrupt" => Line::Interrupt,
        "/allow" | "/deny" => Line::Vote(
            (!rest.is_empty()).then(|| rest.to_string()),
            cmd == "/allow",
        ),
        "/who" => Line::Who,
        "/quit" | "/exit" => Line::Quit,
        "/help" => Line::Help(None),
        c if c.starts_with('/') => Line::Help(Some(format!("unknown command {}", inert_line(c)))),
        _ => Line::Suggest(line.to_string()),
    })
}

/// Line-mode output: stream deltas run on, everything else starts on its
/// own line, and a notice never sticks to an answer.
#[derive(Default)]
struct Out {
    mid_line: bool,
    /// The room member whose words are on screen (several agents).
    speaking: Option<String>,
}

impl Out {
    fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{s}");
        let _ = out.flush();
        self.mid_line = !s.ends_with('\n');
    }

    /// A whole line on stdout, never glued to a delta.
    fn line(&mut self, s: &str) {
        if self.mid_line {
            self.text("\n");
        }
        self.text(&format!("{s}\n"));
    }

    fn notice(&mut self, s: &str) {
        if self.mid_line {
            self.text("\n");
        }
        eprintln!("{s}");
    }
}

fn join_error(e: JoinError) -> CohostError {
    let code = match &e {
        JoinError::Relay(cohost_relay::ClientError::Refused { .. }) => ErrorCode::AuthRequired,
        JoinError::Relay(cohost_relay::ClientError::Url(_))
        | JoinError::Invite(_)
        | JoinError::NoKey
        | JoinError::Keys(_) => ErrorCode::ConfigInvalid,
        _ => ErrorCode::NetworkError,
    };
    let fix = match &e {
        JoinError::Relay(cohost_relay::ClientError::Certificate { problem }) => problem.fix(),
        _ => "ask the host for a fresh invite",
    };
    CohostError::new(code, e.to_string()).with_fix(fix)
}

/// Run until the room closes, `/quit`, Ctrl+C (or the first turn's end with --until-end).
pub async fn run(args: JoinArgs) -> CmdResult {
    let opts = JoinOptions {
        sanitizer: crate::secrets::sanitizer(),
        name: args.name.clone(),
        ca_file: args.ca_file.clone(),
        identity: args.identity.clone(),
    };
    let given = invite_input::Given {
        argument: args.invite.as_deref(),
        file: args.invite_file.as_deref(),
        env: std::env::var(invite_input::INVITE_VAR).ok(),
    };
    let invite = invite_input::resolve(given, &mut invite_input::Console)?;
    if let Some(w) = &invite.warning {
        eprintln!("{w}");
    }
    // The agent first: one that cannot start is said before anyone in the
    // room hears of it.
    let mut guest = match &args.agent {
        Some(agent) => Some(super::join_agent::start(agent, args.approve).await?),
        None => None,
    };
    let mut me = ParticipantSession::join(&invite.invite, opts)
        .await
        .map_err(join_error)?;
    if let Some(g) = &guest {
        if me.me().role != cohost_protocol::Role::CoDriver {
            let _ = g.session().terminate().await;
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                "a viewer cannot bring an agent into the room",
            )
            .with_fix("ask the host for a co-driver invite")
            .into());
        }
    }
    let (mut guest_events, mut asks) = super::join_agent::watch(guest.as_ref());
    if guest.is_none() && !args.until_end && crate::cmd::room_tui::wanted(args.json, args.plain) {
        return crate::cmd::room_tui::participant_view(me, args.suggest, args.chat).await;
    }
    let mut out = Out::default();
    let (line_tx, mut lines) = mpsc::unbounded_channel();
    // Stdin blocks: read it on its own thread. EOF leaves the session running.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if line_tx.send(line).is_err() {
                break;
            }
        }
    });
    if let Some(text) = &args.suggest {
        typed(&me, &mut out, Line::Suggest(text.clone())).await;
    }
    if let Some(text) = &args.chat {
        typed(&me, &mut out, Line::Chat(text.clone())).await;
    }
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    let mut duplicates_said = 0;
    // At the door of a `--knock` room: until when this side waits for the
    // host's answer (its deadline and a grace, so a relay that keeps the
    // answer back cannot keep anyone waiting forever).
    let mut at_door: Option<Option<tokio::time::Instant>> = None;
    loop {
        let ev = tokio::select! {
            ev = me.next() => ev,
            () = participant::until(at_door.flatten()) => {
                out.notice(&format!("cohost: {}", participant::NO_ANSWER));
                return Ok(crate::exit::TURNED_AWAY);
            }
            Some(line) = lines.recv() => {
                match parse_line(&line) {
                    Some(Line::Quit) => break,
                    Some(Line::Vote(id, allow))
                        if guest.as_ref().is_some_and(|g| g.decide(id.as_deref(), allow)) =>
                    {
                        out.notice(if allow { "allowed your agent's call" } else { "denied your agent's call" });
                    }
                    Some(l) => typed(&me, &mut out, l).await,
                    None => {}
                }
                continue;
            }
            Some(event) = super::join_agent::next(&mut guest_events) => {
                let frames = match guest.as_mut() {
                    Some(g) => super::join_agent::frames(g, &me, event),
                    None => Vec::new(),
                };
                for frame in frames {
                    match frame {
                        Ok(frame) => {
                            if let Err(e) = me.send_frame(&frame).await {
                                out.notice(&format!("cohost: your agent's turn was not sent: {e}"));
                            }
                            // Its owner sees it as the room does: stamped
                            // as the relay stamps it for everyone else.
                            let frame = frame.restamp(frame.kind(), me.me().conn_id, me.me().role);
                            let message = me.codec().decode(&frame).ok().flatten().map(Box::new);
                            let ev = ParticipantEvent::Frame { frame, message, from: None };
                            show(&me, &mut out, &ev, args.json);
                        }
                        Err(why) => out.notice(&format!("cohost: your agent's turn is not shared: {why}")),
                    }
                }
                continue;
            }
            Some(ask) = asks.recv() => {
                out.notice(&super::join_agent::ask_line(guest.as_ref(), &ask));
                continue;
            }
            _ = &mut ctrl_c => break,
        };
        let Some(ev) = ev else {
            super::join_agent::stop(guest.as_ref()).await;
            return Ok(0);
        };
        if let Some(g) = guest.as_mut() {
            match super::join_agent::heard(g, &me, &ev).await {
                super::join_agent::Heard::Nothing => {}
                super::join_agent::Heard::Say(line) => out.notice(&line),
                super::join_agent::Heard::Refused(why) => {
                    super::join_agent::stop(guest.as_ref()).await;
                    let _ = tokio::time::timeout(Duration::from_secs(1), me.close()).await;
                    return Err(CohostError::new(
                        ErrorCode::PermissionRequired,
                        format!("the host did not take your agent into the room: {}", inert_line(&why)),
                    )
                    .with_fix("ask the host to allow agents from participants (cohost share --guest-agents), or join without --agent")
                    .into());
                }
            }
        }
        let shown = show(&me, &mut out, &ev, args.json);
        if matches!(shown, Shown::TurnEnd) {
            // Counted, never silent; said once per answer.
            let twice = me.duplicates();
            if twice > duplicates_said {
                out.notice(&format!(
                    "· the relay sent {} already held again; refused",
                    participant::chunks(twice - duplicates_said)
                ));
                duplicates_said = twice;
            }
        }
        match shown {
            Shown::Closed if at_door.is_some() => {
                super::join_agent::stop(guest.as_ref()).await;
                out.notice(&format!("cohost: {}", participant::DOOR_SHUT));
                return Ok(crate::exit::TURNED_AWAY);
            }
            Shown::Closed => {
                super::join_agent::stop(guest.as_ref()).await;
                return Ok(0);
            }
            Shown::TurnEnd if args.until_end => break,
            Shown::Waiting(secs) => {
                at_door = Some(participant::door_gives_up(
                    secs,
                    tokio::time::Instant::now(),
                ));
            }
            Shown::Admitted => at_door = None,
            Shown::TurnedAway => {
                super::join_agent::stop(guest.as_ref()).await;
                let _ = tokio::time::timeout(Duration::from_secs(1), me.close()).await;
                return Ok(crate::exit::TURNED_AWAY);
            }
            _ => {}
        }
    }
    super::join_agent::stop(guest.as_ref()).await;
    // Leaving never takes long: the close is best effort.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), me.close()).await;
    Ok(0)
}

/// Act on a typed line.
async fn typed(me: &ParticipantSession, out: &mut Out, line: Line) {
    let result = match line {
        Line::Suggest(text) => match me.suggest(&text).await {
            Ok(id) => {
                out.notice(&format!("suggested {id}; waiting for the host"));
                Ok(())
            }
            Err(participant::SendError::NotAllowed(why)) => {
                out.notice(&format!("cohost: suggestion refused: {why}"));
                Ok(())
            }
            Err(e) => Err(e),
        },
        Line::Chat(text) => me.chat(&text).await,
        Line::Interrupt => match me.interrupt().await {
            Ok(()) => {
                out.notice("asked the host to interrupt the turn");
                Ok(())
            }
            Err(e) => Err(e),
        },
        Line::Vote(tool_id, allow) => {
            if me.grant().is_none() {
                out.notice(
                    "cohost: only the host decides tool calls here (it can let you: /grant NAME approve)",
                );
                return;
            }
            match me.vote(tool_id.as_deref(), allow).await {
                Ok(()) => {
                    out.notice(&format!(
                        "sent your {} to the host",
                        if allow { "approval" } else { "denial" }
                    ));
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        Line::Who => {
            let names: Vec<String> = me.who().iter().map(describe).collect();
            out.notice(&format!("in the room: {}", names.join(", ")));
            Ok(())
        }
        Line::Help(why) => {
            let lead = why.map(|w| format!("{w}; ")).unwrap_or_default();
            out.notice(&format!("{lead}commands: {COMMANDS}"));
            Ok(())
        }
        Line::Quit => Ok(()),
    };
    if let Err(e) = result {
        out.notice(&format!("cohost: not sent: {e}"));
    }
}

/// What a participant the host may grant approval to is told: its grant
/// (or its end), a call it may decide, and who decided one.
fn approval_line(me: &ParticipantSession, m: &cohost_share::Message) -> Option<String> {
    use cohost_core::EventBody;
    use cohost_share::Message;
    match m {
        Message::ApprovalGrants(_) => Some(match me.grant() {
            Some(g) => format!(
                "the host lets you approve tool calls ({}): /allow ID or /deny ID when one waits",
                cohost_sharing::host_approvals::kinds_text(&g.kinds)
            ),
            None => "only the host approves tool calls".into(),
        }),
        Message::ApprovalNotice(e) => match &e.body {
            EventBody::ToolApprovalRequested {
                tool_id,
                name,
                kind,
                ..
            } => {
                me.grant().filter(|g| g.covers(*kind))?;
                let need = me
                    .grants()
                    .quorum
                    .iter()
                    .find(|r| r.kind == *kind)
                    .map_or(1, |r| r.approvals);
                let id = inert_line(tool_id);
                let quorum = if need > 1 {
                    format!(" ({need} approvals needed)")
                } else {
                    String::new()
                };
                Some(format!(
                    "{} asks to run {} ({}){quorum}: /allow {id} or /deny {id}",
                    e.agent
                        .as_deref()
                        .map_or_else(|| "the agent".into(), inert_line),
                    inert_line(name),
                    kind.name()
                ))
            }
            EventBody::ToolApprovalDecided {
                tool_id,
                decision,
                deciders,
                ..
            } if !deciders.is_empty() => Some(format!(
                "{} {} by {}",
                inert_line(tool_id),
                if decision.is_allow() {
                    "allowed"
                } else {
                    "denied"
                },
                inert_line(&deciders.join(", "))
            )),
            _ => None,
        },
        _ => None,
    }
}

enum Shown {
    Ongoing,
    TurnEnd,
    Closed,
    /// At the door of a `--knock` room, with the host's deadline (seconds).
    Waiting(Option<u64>),
    /// Let in.
    Admitted,
    /// Refused, or not answered in time: nothing of the room comes.
    TurnedAway,
}

/// The host's answer at the door, said in words (and printed as its frame
/// under `--json`).
fn door(
    me: &ParticipantSession,
    out: &mut Out,
    frame: &cohost_protocol::Frame,
    d: &cohost_share::KeyDoor,
    json: bool,
) -> Shown {
    if json {
        out.text(&format!("{}\n", participant::frame_json(me.codec(), frame)));
    }
    if let Some(line) = participant::door_line(d, &me.fingerprint()) {
        let lead = if d.answer.turned_away() {
            "cohost: "
        } else {
            ""
        };
        out.notice(&format!("{lead}{line}"));
    }
    match d.answer {
        cohost_share::DoorAnswer::Waiting => Shown::Waiting(d.timeout_secs),
        cohost_share::DoorAnswer::Admitted => Shown::Admitted,
        a if a.turned_away() => Shown::TurnedAway,
        _ => Shown::Ongoing,
    }
}

fn show(me: &ParticipantSession, out: &mut Out, ev: &ParticipantEvent, json: bool) -> Shown {
    let codec = me.codec();
    if let ParticipantEvent::Frame {
        frame,
        message: Some(m),
        ..
    } = ev
    {
        if let cohost_share::Message::KeyDoor(d) = &**m {
            return door(me, out, frame, d, json);
        }
    }
    match ev {
        ParticipantEvent::Frame { frame, message, .. } => {
            // Several agents answer at once: a heading whenever the member
            // speaking changes (the turn's start names it already).
            let member = match message.as_deref() {
                Some(cohost_share::Message::TurnEvent(e)) => e.agent.as_deref(),
                Some(cohost_share::Message::ExecutionStarted(s)) => {
                    out.speaking = s.agent.clone();
                    None
                }
                _ => None,
            };
            if let Some(name) = member.filter(|n| !json && out.speaking.as_deref() != Some(*n)) {
                out.line(&format!("── {} ──", inert_line(name)));
                out.speaking = Some(name.to_owned());
            }
            if let Some(line) = message.as_deref().and_then(|m| approval_line(me, m)).filter(|_| !json) {
                out.notice(&line);
            }
            if json {
                out.text(&format!("{}\n", participant::frame_json(codec, frame)));
            } else if let Some(line) = participant::frame_line(codec, frame) {
                let delta = frame.kind() == cohost_protocol::FrameType::StreamChunk
                    && !line.starts_with('\n');
                if delta {
                    out.text(&line);
                } else {
                    out.line(line.trim_matches('\n'));
                }
            }
            if matches!(
                frame.kind(),
                cohost_protocol::FrameType::StreamEnd
                    | cohost_protocol::FrameType::StreamInterrupted
            ) {
                return Shown::TurnEnd;
            }
        }
        ParticipantEvent::Late { frame, .. } => {
            if json {
                let mut v = participant::frame_json(codec, frame);
                v["late"] = serde_json::Value::Bool(true);
                out.text(&format!("{v}\n"));
            } else {
                let text = participant::frame_line(codec, frame).unwrap_or_default();
                out.notice(&format!(
                    "· chunk {} of an answer came late (it was reported missing): {}",
                    frame.chunk(),
                    text.trim()
                ));
            }
        }
        ParticipantEvent::Presence { joined, who } => {
            let what = if *joined { "+" } else { "-" };
            let verb = if *joined { "joined" } else { "left" };
            if json {
                out.text(&format!(
                    "{}\n",
                    serde_json::json!({"presence": verb, "who": who})
                ));
            } else {
                out.notice(&format!("{what} {} {verb}", describe(who)));
            }
        }
        ParticipantEvent::Welcome(w) => out.notice(&format!(
            "joined room {} as {} ({}); type a line to suggest it, /help for commands",
            w.room,
            w.you.role.as_str(),
            inert_line(&w.you.name)
        )),
        ParticipantEvent::Dropped { kind, reason, .. } => {
            out.notice(&format!("· dropped a {kind} frame: {reason}"));
        }
        ParticipantEvent::KeyLearned { epoch } => {
            out.notice(&format!("· the host rotated the room key (epoch {epoch})"));
        }
        ParticipantEvent::Relay(ev) => match ev {
            ClientEvent::Resync(r) => out.notice(&format!(
                "· the relay could not replay {:?}: {}",
                r.streams, r.reason
            )),
            ClientEvent::Missing { stream, from, to } => out.notice(&format!(
                "· {} missing from this answer ({stream}, chunks {from} to {to}): the relay never sent {}",
                participant::missing(*from, *to),
                if from == to { "it" } else { "them" }
            )),
            ClientEvent::Error(e) => out.notice(&format!(
                "· refused by the relay: {} ({:?})",
                e.message, e.code
            )),
            ClientEvent::Disconnected { reason } => {
                out.notice(&format!("· connection lost ({reason}); reconnecting"));
            }
            ClientEvent::Closed { reason } => {
                out.notice(&format!("· room closed: {reason}"));
                return Shown::Closed;
            }
            ClientEvent::Welcome(_) | ClientEvent::Frame(_) | ClientEvent::Late(_) => {}
        },
    }
    Shown::Ongoing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_lines() {
        assert_eq!(parse_line("fix it"), Some(Line::Suggest("fix it".into())));
        assert_eq!(
            parse_line("/chat hi there"),
            Some(Line::Chat("hi there".into()))
        );
        assert_eq!(parse_line("/interrupt"), Some(Line::Interrupt));
        assert_eq!(parse_line("/who"), Some(Line::Who));
        assert_eq!(parse_line("/quit"), Some(Line::Quit));
        assert_eq!(parse_line("  "), None);
        assert!(matches!(parse_line("/nope"), Some(Line::Help(Some(w))) if w.contains("/nope")));
        assert!(matches!(parse_line("/chat"), Some(Line::Help(Some(_)))));
    }
}
