//! `cohost share`: host a shared session. The agent runs here, with local
//! credentials; the relay only routes frames.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::Args;
use cohost_core::sanitize::{inert_line, strip_controls};
use cohost_core::CohostError;
use cohost_host::session::{self, Recording, SessionRequest};
use cohost_relay::web::web_link;
use cohost_tui::app::Incoming;
use serde_json::json;
use std::io::BufRead;
use tokio::sync::mpsc;

use crate::cmd::hosting::{
    changes_in_room, end_room, open_room, room_title, OpenRoom, RoomArgs, Suggestions,
};
use crate::cmd::run::{AgentArgs, Approve};
use crate::cmd::turn_changes::ChangesCommand;
use crate::exit::CmdResult;
use crate::room_render::Interleaved;
use cohost_host::session::{PreparedRoom, ProviderChoice};
use cohost_session::Room;
use cohost_sharing::host::{HostBridge, HostInput, HostNotice, SuggestionPolicy, HOST_GONE};
use cohost_sharing::room_members::{MemberSetup, RoomPlace};

/// Arguments of `cohost share`.
#[derive(Debug, Args)]
pub struct ShareArgs {
    #[command(flatten)]
    target: AgentArgs,
    /// Tool approvals: `ask` means the host answers with `/allow` or `/deny`.
    #[arg(long, value_enum, default_value_t = Approve::Ask)]
    approve: Approve,
    /// Co-driver suggestions.
    #[arg(long, value_enum, default_value_t = Suggestions::Ask)]
    suggestions: Suggestions,
    /// Calls of a tool kind that need several approvals, the host's and
    /// those of participants granted approval (`/grant NAME approve`):
    /// `execute=2`; repeat it or separate rules with commas.
    #[arg(long, value_name = "KIND=N", value_parser = quorum_rules)]
    quorum: Vec<Vec<cohost_share::QuorumRule>>,
    #[command(flatten)]
    room: RoomArgs,
    /// A co-driver's `/interrupt`: ask the host, stop the turn, or refuse.
    #[arg(long, value_enum, default_value_t = Suggestions::Ask)]
    interrupts: Suggestions,
    /// Print notices and events as NDJSON.
    #[arg(long)]
    pub json: bool,
    /// Line mode even on a terminal (no full-screen console).
    #[arg(long)]
    pub plain: bool,
    /// Everyone who opens an invite waits until you let them in: you see
    /// their name and key fingerprint and answer `/admit NAME` or `/refuse
    /// NAME`; they are told they wait, and what you answered. The room
    /// runs under a key no invite carries, so someone waiting reads nothing
    /// of it.
    #[arg(long)]
    pub knock: bool,
    /// With --knock: how long a knock waits for your answer before it is
    /// refused as if you said /refuse (`90s`, `5m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = cohost_sharing::knock::parse_timeout, requires = "knock")]
    pub knock_timeout: std::time::Duration,
    /// Co-drivers may bring agents running on their own machines into the
    /// room (`cohost join --agent AGENT`): each runs with its owner's
    /// credentials and approvals, is named `AGENT@PERSON`, and takes
    /// prompts from you like your own members.
    #[arg(long)]
    pub guest_agents: bool,
    /// Also show the co-driver's web link as a QR code (line mode; `/qr`
    /// shows it at any time, `/qr viewer` the viewer's).
    #[arg(long)]
    pub qr: bool,
    /// Arguments for the agent CLI itself, after `--` (passed after the
    /// driver's own; a permission-bypass flag needs --approve all).
    #[arg(last = true, value_name = "AGENT_ARGS")]
    agent_args: Vec<String>,
}

/// The host's commands for a room of several agents.
pub const ROOM_COMMANDS: &str = "/compare TEXT (every member), /members, /add AGENT, /drop NAME, /keep NAME [--merge], /handoff NAME [TEXT]";

/// The host's commands, for `/help` and unknown ones.
pub const HOST_COMMANDS: &str = "TEXT (run it), /accept ID, /reject ID, /allow [ID], /deny [ID], /grant NAME approve [KINDS], /revoke NAME, /grants, /interrupt, /chat TEXT, /kick NAME, /invite NAME co-driver|viewer, /admit NAME, /refuse NAME (--knock), /who, /qr [viewer], /diff [TURN], /undo [TURN], /budget [USD|tokens N|off], /spend, /quit, /help";

/// What to tell the host about a line that is not a command it can run:
/// an unknown `/command`, one missing its argument, or `/help`.
pub fn command_help(line: &str) -> Option<String> {
    let line = line.trim();
    let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
    let needs_arg = [
        "/accept", "/reject", "/chat", "/kick", "/compare", "/revoke", "/add", "/drop", "/keep",
        "/handoff", "/admit", "/refuse",
    ];
    let known = [
        "/grants",
        "/allow",
        "/deny",
        "/interrupt",
        "/who",
        "/quit",
        "/members",
        "/budget",
        "/spend",
    ];
    if !cmd.starts_with('/') || known.contains(&cmd) {
        return None;
    }
    if cmd == "/grant" {
        return grant_input(rest)
            .err()
            .map(|e| format!("{e}; commands: {HOST_COMMANDS}"));
    }
    if cmd == "/invite" {
        return cohost_sharing::host_invite::invite_input(rest)
            .err()
            .map(|e| format!("/invite: {e}"));
    }
    if needs_arg.contains(&cmd) {
        return rest.trim().is_empty().then(|| {
            format!("{cmd} needs an argument (the id or name); commands: {HOST_COMMANDS}")
        });
    }
    if cmd == "/help" {
        return Some(format!(
            "commands: {HOST_COMMANDS}; with several agents: @NAME TEXT, {ROOM_COMMANDS}"
        ));
    }
    Some(format!(
        "unknown command {}; commands: {HOST_COMMANDS}",
        inert_line(cmd)
    ))
}

/// `/qr [viewer]`: an invite's web link as a QR code to scan (the
/// co-driver's, or the viewer's), with the link itself above it.
fn qr_text(invites: Option<&cohost_tui::room::Invites>, which: &str) -> String {
    let Some(invites) = invites else {
        return "no open invite to show (only the people named get in): /invite NAME co-driver|viewer names one more"
            .into();
    };
    let (who, invite) = if which == "viewer" {
        ("viewer", &invites.viewer)
    } else {
        ("co-driver", &invites.co_driver)
    };
    match web_link(invite) {
        Some(link) => match cohost_tui::qr::render(&link) {
            Ok(code) => format!("scan to open the {who} web page ({link}):\n{code}"),
            Err(e) => e.to_string(),
        },
        None => "this invite has no web page".into(),
    }
}

/// `--quorum`'s value.
fn quorum_rules(text: &str) -> Result<Vec<cohost_share::QuorumRule>, String> {
    cohost_sharing::host_approvals::parse_quorum(text)
}

/// `/grant NAME approve [KINDS]`'s arguments.
fn grant_input(rest: &str) -> Result<HostInput, String> {
    let mut words = rest.split_whitespace();
    let (Some(who), Some("approve")) = (words.next(), words.next()) else {
        return Err("/grant NAME approve [KINDS], e.g. /grant ana approve execute,edit".into());
    };
    let kinds = cohost_sharing::host_approvals::parse_kinds(&words.collect::<Vec<_>>().join(" "))?;
    Ok(HostInput::Grant {
        who: who.to_owned(),
        kinds,
    })
}

/// Parse one line the host typed.
pub fn parse_input(line: &str) -> Option<HostInput> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let (cmd, rest) = match line.split_once(' ') {
        Some((c, r)) => (c, r.trim()),
        None => (line, ""),
    };
    let arg = (!rest.is_empty()).then(|| rest.to_string());
    Some(match cmd {
        "/accept" => HostInput::Accept(arg?),
        "/reject" => HostInput::Reject(arg?),
        "/allow" => HostInput::Approve {
            tool_id: arg,
            allow: true,
        },
        "/deny" => HostInput::Approve {
            tool_id: arg,
            allow: false,
        },
        "/interrupt" => HostInput::Interrupt,
        "/chat" => HostInput::Chat(arg?),
        "/kick" => HostInput::Kick(arg?),
        "/admit" => HostInput::Admit(arg?),
        "/refuse" => HostInput::Refuse(arg?),
        "/grant" => grant_input(rest).ok()?,
        "/invite" => cohost_sharing::host_invite::invite_input(rest).ok()?,
        "/revoke" => HostInput::Revoke(arg?),
        "/grants" => HostInput::Grants,
        "/who" => HostInput::Who,
        "/compare" => HostInput::Compare(arg?),
        "/members" => HostInput::Members,
        "/add" => HostInput::AddMember(arg?),
        "/drop" => HostInput::DropMember(arg?),
        "/keep" => {
            let (name, merge) = match rest.strip_suffix("--merge") {
                Some(n) => (n.trim(), true),
                None => (rest, false),
            };
            HostInput::Keep {
                name: (!name.is_empty()).then(|| name.to_string())?,
                merge,
            }
        }
        "/handoff" => {
            let (to, text) = rest.split_once(' ').unwrap_or((rest, ""));
            HostInput::Handoff {
                to: (!to.is_empty()).then(|| to.to_string())?,
                text: text.trim().to_string(),
            }
        }
        "/budget" => HostInput::Budget(rest.to_string()),
        "/spend" => HostInput::Spend,
        "/quit" => HostInput::Quit,
        _ => HostInput::Prompt(line.to_string()),
    })
}

/// What `share` set up before the room opens: one session, or a room of
/// several agents (each on its own worktree when the directory is a git
/// repository).
enum Prepared {
    One(Box<session::OpenSession>),
    Room(PreparedRoom),
}

impl Prepared {
    async fn discard(self, host: &cohost_discovery::Host) {
        if let Prepared::Room(r) = self {
            r.discard(host).await;
        }
    }

    async fn launch(self, host: &cohost_discovery::Host) -> Result<Room, CohostError> {
        match self {
            Prepared::One(one) => {
                if let Some(note) = one.default_note() {
                    eprintln!("cohost: {note}");
                }
                let session = one.launch().await?;
                Ok(Room::of_one(session.descriptor().id.clone(), session))
            }
            Prepared::Room(room) => {
                if let Some(note) = &room.note {
                    eprintln!("cohost: {note}");
                }
                room.launch(host).await
            }
        }
    }
}

/// Run until the host quits.
pub async fn run(args: ShareArgs) -> CmdResult {
    if let Err(e) = crate::signals::listen() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let (host, cfg) = crate::hostctx::host_and_config()?;
    // Others in the room suggest what the agents do: confined unless the
    // host says otherwise here or in the config.
    let confine = cfg.sandbox()?.is_none();
    let request = |provider| {
        let mut req = SessionRequest::new(provider, args.approve.through_handle(HOST_GONE));
        args.target.apply(&mut req);
        if req.sandbox.is_none() && confine {
            req.sandbox = Some(cohost_core::SandboxMode::On);
        }
        req.agent_args = args.agent_args.clone();
        // Recorded like `run` and `chat`: `cohost sessions` lists it, and
        // its turns' changes are there for `cohost diff` and `cohost undo`.
        req.recording = Recording::New;
        req
    };
    // Members of a room may ask each other (`ask_member`), each call
    // approved like any tool call of theirs.
    let (sockets, bridge_notes) = match (args.target.agent.len() > 1)
        .then(cohost_sharing::bridged::bridge)
        .flatten()
    {
        Some(b) => (Some(b.sockets), Some(b.notes)),
        None => (None, None),
    };
    // One budget for the room: every member spends from it.
    let budget = args.target.watch.budget(&cfg)?;
    let seat = |name: &str| budget.as_ref().map(|b| b.seat(name));
    let prepared = if args.target.agent.len() > 1 {
        let room = session::prepare_room(&host, &cfg, &args.target.agent, |name, id| {
            let mut req = request(ProviderChoice::Id(id.to_owned()));
            cohost_sharing::bridged::offer(sockets.as_ref(), name, &mut req);
            req.budget = seat(name);
            req
        })
        .await?;
        Prepared::Room(room)
    } else {
        let one = session::prepare(&host, &cfg, request(args.target.provider()))
            .await
            .map_err(CohostError::from)?;
        let name = one.descriptor().id.clone();
        Prepared::One(Box::new(one.with_budget(seat(&name))))
    };
    let OpenRoom {
        client,
        keys,
        invites,
        personal,
        embedded,
        mint,
        secure_invites,
    } = match open_room(&args.room).await {
        Ok(r) => r,
        Err(e) => {
            prepared.discard(&host).await;
            return Err(e.into());
        }
    };
    let placed = match &prepared {
        Prepared::Room(r) => Some((r.id.clone(), r.note.is_none())),
        Prepared::One(_) => None,
    };
    let room = prepared.launch(&host).await?;
    let (room_id, worktrees) = match (placed, room.members().first()) {
        (Some(placed), _) => placed,
        // One agent in your checkout: the ones `/add` adds get worktrees.
        (None, Some(m)) => (
            format!("r-{}", cohost_core::ids::random_tag()),
            session::worktrees_possible(m.session.cwd()).await,
        ),
        (None, None) => (String::new(), false),
    };
    cohost_sharing::bridged::serve(sockets.as_ref(), &room);
    // The terminal sink is the screen's: only the terminal UI knows focus.
    let tui = crate::cmd::room_tui::wanted(args.json, args.plain);
    let notifier = args.target.watch.notifier(&cfg, tui, move |m| {
        if tui {
            tracing::warn!("{m}");
        } else {
            eprintln!("cohost: {m}");
        }
    })?;
    for m in room.members() {
        notifier.watch(m.session.subscribe_new(), m.name.clone());
    }
    let title = room_title(&room);
    // `/add AGENT` opens a member as the room's others were opened (the
    // model and the agent's own arguments only for an agent named with
    // --agent: they are that CLI's).
    let template = request(ProviderChoice::Default);
    let named = args.target.agent.clone();
    let member_budget = budget.clone();
    let members = MemberSetup {
        place: RoomPlace {
            host: host.clone(),
            cfg: cfg.clone(),
            id: room_id,
            worktrees,
            sockets: sockets.clone(),
            notifier: Some(notifier.clone()),
        },
        request: std::sync::Arc::new(move |name: &str, id: &str| {
            let mut req = template.clone();
            req.provider = ProviderChoice::Id(id.to_owned());
            if !named.iter().any(|n| n == id) {
                req.model = None;
                req.agent_args.clear();
            }
            req.budget = member_budget.as_ref().map(|b| b.seat(name));
            req
        }),
    };

    if crate::cmd::room_tui::wanted(args.json, args.plain) {
        let parts = crate::cmd::room_tui::HostParts {
            room,
            client,
            keys,
            suggestions: args.suggestions.into(),
            interrupts: args.interrupts.into(),
            invites: invites.clone(),
            personal: personal.clone(),
            mint: Some((mint.clone(), secure_invites)),
            bridge_notes,
            quorum: args.quorum.concat(),
            members: Some(members),
            knock: args.knock.then_some(args.knock_timeout),
        };
        let code = crate::cmd::room_tui::host(parts).await;
        if let Some(r) = embedded {
            r.shutdown().await;
        }
        return code;
    }

    if args.json {
        println!(
            "{}",
            json!({"notice":"invites",
                "co_driver":invites.as_ref().map(|i| &i.co_driver),
                "viewer":invites.as_ref().map(|i| &i.viewer),
                "web_co_driver":invites.as_ref().and_then(|i| web_link(&i.co_driver)),
                "web_viewer":invites.as_ref().and_then(|i| web_link(&i.viewer)),
                "personal": personal.iter().map(|p| json!({
                    "name": p.name,
                    "role": if p.role == cohost_protocol::Role::CoDriver { "co-driver" } else { "viewer" },
                    "invite": p.invite,
                    "web": web_link(&p.invite),
                })).collect::<Vec<_>>()})
        );
    } else {
        println!(
            "Sharing {title} — give each guest an invite; they run `cohost join` and paste it:"
        );
        match &invites {
            Some(invites) => {
                for (label, invite) in [
                    ("co-driver:", &invites.co_driver),
                    ("viewer:", &invites.viewer),
                ] {
                    println!("  {label:<10} {invite}");
                    if let Some(web) = web_link(invite) {
                        println!("  {:<10} or open {web}", "");
                    }
                }
            }
            None => println!(
                "  (no open invite: only the people named get in; /invite NAME co-driver|viewer names one more)"
            ),
        }
        for p in &personal {
            println!("  {}", cohost_sharing::invite_mint::personal_line(p));
            if let Some(web) = web_link(&p.invite) {
                println!("  {:<10} or open {web}", "");
            }
        }
        if room.members().len() > 1 {
            println!(
                "@NAME TEXT prompts one member (plain text: the last one named); {ROOM_COMMANDS}."
            );
        }
        println!("Type a prompt to run it; {HOST_COMMANDS}.");
    }
    if args.qr {
        eprintln!("{}", qr_text(invites.as_ref(), ""));
    }

    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let stdin_tx = in_tx.clone();
    let qr_invites = invites.clone();
    let changes_tx = console_changes(room.clone(), args.json);
    // Stdin blocks: read it on its own thread. EOF leaves the session running
    // (a host may run detached); Ctrl+C or /quit ends it.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            match ChangesCommand::parse(&line) {
                Some(Ok(cmd)) => {
                    let _ = changes_tx.send(cmd);
                    continue;
                }
                Some(Err(help)) => {
                    eprintln!("\n{help}");
                    continue;
                }
                None => {}
            }
            if let Some(which) = line.trim().strip_prefix("/qr") {
                if which.is_empty() || which.starts_with(' ') {
                    eprintln!("{}", qr_text(qr_invites.as_ref(), which.trim()));
                    continue;
                }
            }
            if let Some(help) = command_help(&line) {
                eprintln!("\n{help}");
                continue;
            }
            if let Some(input) = parse_input(&line) {
                if input == HostInput::Quit {
                    // Stop a running turn too, and never take over 2 s.
                    let _ = stdin_tx.send(HostInput::Interrupt);
                    crate::signals::exit_within(crate::signals::QUIT_BUDGET, 0);
                }
                if stdin_tx.send(input).is_err() {
                    break;
                }
            }
        }
    });
    let ctrl_tx = in_tx.clone();
    let quiet = args.json;
    crate::signals::set_hook(move |stop| {
        let _ = ctrl_tx.send(match stop {
            crate::signals::Stop::Interrupt => {
                if !quiet {
                    eprintln!("\ncohost: interrupting… (Ctrl+C again to quit)");
                }
                HostInput::Interrupt
            }
            crate::signals::Stop::Quit(_) => HostInput::Quit,
        });
    });

    let (notice_tx, mut notice_rx) = mpsc::unbounded_channel();
    let json_mode = args.json;
    let printer = tokio::spawn(async move {
        let mut shown = Interleaved::default();
        while let Some(n) = notice_rx.recv().await {
            print_notice(&mut shown, n, json_mode);
        }
    });
    let policy: SuggestionPolicy = args.suggestions.into();
    let interrupts: SuggestionPolicy = args.interrupts.into();
    let mut bridge = HostBridge::for_room(room, client, policy, notice_tx)
        .with_sanitizer(crate::secrets::sanitizer())
        .with_keys(keys)
        .with_mint(mint, secure_invites)
        .with_interrupt_policy(interrupts)
        .with_quorum(args.quorum.concat())
        .with_guest_agents(args.guest_agents)
        .with_members(members);
    if args.knock {
        bridge = bridge
            .with_knock(args.knock_timeout)
            .map_err(cohost_sharing::knock::door_error)?;
    }
    if let Some(notes) = bridge_notes {
        bridge = bridge.with_bridge_notes(notes);
    }
    let room = bridge.run(in_rx).await;
    end_room(&room).await;
    // The bridge goes with the room (its sockets and their directory).
    drop(sockets);
    // The sessions' approvals hold a notice sender: drop them so the
    // printer ends.
    drop(room);
    let _ = printer.await;
    if let Some(r) = embedded {
        r.shutdown().await;
    }
    Ok(0)
}

/// The line console's `/diff` and `/undo`, answered one at a time beside
/// the bridge (they read the session's checkpoints, not the room). In a
/// room of several agents each member has its own: `cohost diff SESSION`.
fn console_changes(room: Room, json_mode: bool) -> mpsc::UnboundedSender<ChangesCommand> {
    let (tx, mut rx) = mpsc::unbounded_channel::<ChangesCommand>();
    tokio::spawn(async move {
        let mut host = None;
        while let Some(cmd) = rx.recv().await {
            let (message, fix) = match changes_in_room(&room, cmd, &mut host).await {
                Incoming::Notice(text) => (text, None),
                Incoming::Error { message, fix } => (format!("error: {message}"), fix),
                _ => continue,
            };
            if json_mode {
                println!(
                    "{}",
                    json!({"notice":"changes","message":message,"fix":fix})
                );
            } else {
                // The diff holds the agent's file contents: inert here.
                eprintln!("\n{}", strip_controls(&message));
                if let Some(fix) = fix {
                    eprintln!("  fix: {}", strip_controls(&fix));
                }
            }
        }
    });
    tx
}

fn print_notice(shown: &mut Interleaved, n: HostNotice, json_mode: bool) {
    if json_mode {
        let v = match n {
            HostNotice::Event(e) => json!({"notice":"event","event":e}),
            HostNotice::Suggested(s) => json!({"notice":"suggested","suggestion":s}),
            HostNotice::SuggestionDecided(d) => json!({"notice":"suggestion_decided","decision":d}),
            HostNotice::ApprovalNeeded { request: a, agent } => {
                json!({"notice":"approval_needed","tool_id":a.tool_id,"name":a.name,"kind":a.kind,"input":a.input,"agent":agent})
            }
            HostNotice::Chat(c) => json!({"notice":"chat","chat":c}),
            HostNotice::Presence(p) => json!({"notice":"presence","presence":p}),
            HostNotice::Room(m) => json!({"notice":"room","message":m}),
            HostNotice::Invited(p) => json!({"notice":"invite","name":p.name,
                "role": if p.role == cohost_protocol::Role::CoDriver { "co-driver" } else { "viewer" },
                "invite":p.invite,"web":web_link(&p.invite)}),
            HostNotice::Members(names) => json!({"notice":"members","members":names}),
            HostNotice::TurnDone(r) => json!({"notice":"turn_done","reason":r}),
            HostNotice::InterruptRequested { from } => {
                json!({"notice":"interrupt_requested","from":from})
            }
        };
        println!("{v}");
        return;
    }
    match n {
        HostNotice::Event(e) => shown.show(&e),
        // Room text is inert on this terminal: no control sequences, and
        // names on one line.
        HostNotice::Suggested(s) => eprintln!(
            "\n💡 suggestion {} from {}{}: {}\n   /accept {} or /reject {}",
            inert_line(&s.suggestion_id),
            inert_line(s.from.as_deref().unwrap_or("a co-driver")),
            s.to.as_deref()
                .map(|to| format!(" for {}", inert_line(to)))
                .unwrap_or_default(),
            strip_controls(&s.text),
            inert_line(&s.suggestion_id),
            inert_line(&s.suggestion_id)
        ),
        HostNotice::SuggestionDecided(d) => eprintln!(
            "suggestion {} {}{}",
            inert_line(&d.suggestion_id),
            if d.accepted { "accepted" } else { "rejected" },
            d.agent
                .as_deref()
                .map(|a| format!(": {} runs it", inert_line(a)))
                .unwrap_or_default()
        ),
        HostNotice::ApprovalNeeded { request: a, .. } => {
            let id = inert_line(&a.tool_id);
            eprintln!("   answer with /allow {id} or /deny {id}");
        }
        HostNotice::Chat(c) => eprintln!(
            "<{}> {}",
            inert_line(c.from.as_deref().unwrap_or("someone")),
            strip_controls(&c.text)
        ),
        HostNotice::Presence(p) => {
            if let Some(line) = presence_line(&p) {
                eprintln!("\n· {line}");
            }
        }
        HostNotice::Room(m) => eprintln!("\n· {}", strip_controls(&m)),
        HostNotice::Invited(p) => {
            eprintln!("\n· {}", cohost_sharing::invite_mint::personal_line(&p));
            if let Some(web) = web_link(&p.invite) {
                eprintln!("  or open {web}");
            }
        }
        // The room's own notice says what changed.
        HostNotice::Members(_) => {}
        HostNotice::TurnDone(_) => eprintln!(),
        HostNotice::InterruptRequested { from } => eprintln!(
            "\n✋ {} asks to interrupt the turn: /interrupt to stop it",
            inert_line(&from)
        ),
    }
}

/// A presence event as the host's line mode tells it (`None`: nothing to
/// say, e.g. the host's own connection or an unknown kind).
fn presence_line(p: &cohost_share::Presence) -> Option<String> {
    use cohost_share::Presence;
    use cohost_sharing::host::describe;
    Some(match p {
        Presence::Joined { you: true, .. } | Presence::Unknown => return None,
        Presence::Joined { who, .. } => format!("{} joined", describe(who)),
        Presence::Left { who } => format!("{} left", describe(who)),
        Presence::Renamed { who } => format!("#{} goes by {}", who.conn_id, inert_line(&who.name)),
        Presence::RoleChanged { who, .. } => format!("{} has a new role", describe(who)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invite_takes_a_name_and_a_role_or_says_how() {
        assert_eq!(
            parse_input("/invite ana co-driver"),
            Some(HostInput::Invite {
                name: "ana".into(),
                role: cohost_protocol::Role::CoDriver
            })
        );
        assert_eq!(
            parse_input("/invite bo=viewer"),
            Some(HostInput::Invite {
                name: "bo".into(),
                role: cohost_protocol::Role::Viewer
            })
        );
        for bad in [
            "/invite",
            "/invite ana",
            "/invite ana host",
            "/invite ana pilot",
        ] {
            assert_eq!(parse_input(bad), None, "{bad}");
            let help = command_help(bad).unwrap_or_default();
            assert!(
                help.contains("/invite NAME co-driver|viewer"),
                "{bad}: {help}"
            );
        }
    }

    #[test]
    fn qr_shows_the_web_link_the_relay_serves() {
        let invites = cohost_tui::room::Invites {
            co_driver: "cohost://127.0.0.1:7070/r-1#a.b.c.k.h".into(),
            viewer: "cohosts://relay.example:443/r-1#v.w.x".into(),
        };
        // The TUI's copy of the mapping is the relay's.
        for invite in [
            &invites.co_driver,
            &invites.viewer,
            &"cohost://h/r 1#t".to_string(),
        ] {
            assert_eq!(
                cohost_tui::qr::web_link(invite),
                web_link(invite),
                "{invite}"
            );
        }
        let co = qr_text(Some(&invites), "");
        assert!(
            co.starts_with(
                "scan to open the co-driver web page (http://127.0.0.1:7070/join/r-1#a.b.c.k.h):\n"
            ),
            "{co}"
        );
        assert!(co.contains('█'), "{co}");
        let viewer = qr_text(Some(&invites), "viewer");
        assert!(
            viewer.contains("(https://relay.example:443/join/r-1#v.w.x)"),
            "{viewer}"
        );
    }

    #[test]
    fn host_commands() {
        assert_eq!(
            parse_input("fix the bug"),
            Some(HostInput::Prompt("fix the bug".into()))
        );
        assert_eq!(
            parse_input("/accept s-1"),
            Some(HostInput::Accept("s-1".into()))
        );
        assert_eq!(parse_input("/accept"), None);
        assert_eq!(
            parse_input("/allow"),
            Some(HostInput::Approve {
                tool_id: None,
                allow: true
            })
        );
        assert_eq!(
            parse_input("/deny t1"),
            Some(HostInput::Approve {
                tool_id: Some("t1".into()),
                allow: false
            })
        );
        assert_eq!(parse_input("  "), None);
        assert_eq!(parse_input("/quit"), Some(HostInput::Quit));
        assert_eq!(
            parse_input("/kick ana"),
            Some(HostInput::Kick("ana".into()))
        );
        assert_eq!(command_help("/kick ana"), None);
        assert_eq!(
            parse_input("/admit #7"),
            Some(HostInput::Admit("#7".into()))
        );
        assert_eq!(
            parse_input("/refuse bo"),
            Some(HostInput::Refuse("bo".into()))
        );
        assert!(command_help("/admit")
            .unwrap()
            .contains("needs an argument"));
        assert_eq!(command_help("fix it"), None);
        assert!(command_help("/accept")
            .unwrap()
            .contains("needs an argument"));
        assert!(command_help("/frobnicate").unwrap().contains("/kick NAME"));
        assert!(command_help("/help").unwrap().contains("/who"));
    }

    #[test]
    fn room_commands_change_the_room() {
        assert_eq!(
            parse_input("/add codex"),
            Some(HostInput::AddMember("codex".into()))
        );
        assert_eq!(
            parse_input("/drop mock#2"),
            Some(HostInput::DropMember("mock#2".into()))
        );
        assert_eq!(
            parse_input("/keep mock#2 --merge"),
            Some(HostInput::Keep {
                name: "mock#2".into(),
                merge: true
            })
        );
        assert_eq!(
            parse_input("/keep mock"),
            Some(HostInput::Keep {
                name: "mock".into(),
                merge: false
            })
        );
        assert_eq!(
            parse_input("/handoff codex  check it"),
            Some(HostInput::Handoff {
                to: "codex".into(),
                text: "check it".into()
            })
        );
        for bare in ["/add", "/drop", "/keep", "/keep --merge", "/handoff"] {
            assert_eq!(parse_input(bare), None, "{bare}");
        }
        assert!(command_help("/keep").unwrap().contains("needs an argument"));
        assert_eq!(command_help("/handoff codex"), None);
        assert!(command_help("/help").unwrap().contains("/handoff NAME"));
    }

    #[test]
    fn presence_reads_as_lines_and_the_host_itself_is_not_announced() {
        use cohost_share::Presence;
        let who = cohost_protocol::Participant {
            conn_id: 3,
            role: cohost_protocol::Role::CoDriver,
            name: "ada".into(),
        };
        let line = |p| presence_line(&p);
        assert_eq!(
            line(Presence::Joined {
                who: who.clone(),
                you: false
            })
            .as_deref(),
            Some("ada (co-driver #3) joined")
        );
        assert_eq!(
            line(Presence::Left { who: who.clone() }).as_deref(),
            Some("ada (co-driver #3) left")
        );
        assert_eq!(
            line(Presence::Renamed { who: who.clone() }).as_deref(),
            Some("#3 goes by ada")
        );
        assert_eq!(line(Presence::Joined { who, you: true }), None);
        assert_eq!(line(Presence::Unknown), None);
    }
}
