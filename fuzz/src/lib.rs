//! Shared drivers and invariants for cohost's fuzz targets (`fuzz_targets/`).
//!
//! Each target turns libFuzzer's bytes into the input its parser sees in
//! production (lines of a CLI's stdout, byte chunks of an HTTP body, a
//! relay frame...) and asserts that nothing panics and, where the contract
//! says so, an invariant holds.

use cohost_agents::parsers::oneshot::{ExitInfo, TurnNormalizer};
use cohost_core::AgentEvent;

/// The input as text (lossy: a CLI's stdout reaches the normalizers the same
/// way) and split into lines like the line framer does.
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// Byte positions at which to cut `len` bytes, from a seed byte: the
/// chunks a network read might deliver.
pub fn cuts(seed: &[u8], len: usize) -> Vec<usize> {
    let mut out: Vec<usize> = seed
        .iter()
        .scan(0usize, |at, b| {
            *at += usize::from(*b) + 1;
            Some(*at)
        })
        .take_while(|at| *at < len)
        .collect();
    out.push(len);
    out
}

/// `data` cut at `cuts` (as returned by [`cuts`]).
pub fn chunks<'a>(data: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut prev = 0;
    cuts.iter()
        .map(|&c| {
            let s = &data[prev..c];
            prev = c;
            s
        })
        .collect()
}

/// Splits the input in two at the first `0xff` byte (never in UTF-8): a
/// control part and a payload part. Without one, the control part is empty.
pub fn split_control(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == 0xff) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[], data),
    }
}

/// Invariants of one turn's events: at most one `Ended`, and nothing after it.
pub fn check_turn(events: &[AgentEvent]) {
    let ends: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, AgentEvent::Ended { .. }))
        .map(|(i, _)| i)
        .collect();
    assert!(ends.len() <= 1, "{} Ended events in one turn", ends.len());
    if let Some(&i) = ends.first() {
        assert_eq!(
            i,
            events.len() - 1,
            "events after Ended: {:?}",
            &events[i..]
        );
    }
}

/// Drives a one-shot normalizer the way the one-shot shell does: lines
/// until `ended()`, then the exit when the turn did not end by itself.
/// `ended()` must agree with the events.
pub fn run_turn<N: TurnNormalizer>(mut norm: N, data: &[u8]) -> Vec<AgentEvent> {
    let (ctl, payload) = split_control(data);
    let text = text(payload);
    let mut events = Vec::new();
    for line in text.lines() {
        if norm.ended() {
            break;
        }
        events.extend(norm.on_line(line));
    }
    let saw_end = events.iter().any(|e| matches!(e, AgentEvent::Ended { .. }));
    assert_eq!(norm.ended(), saw_end, "ended() disagrees with the events");
    if !norm.ended() {
        let b = |i: usize| ctl.get(i).copied().unwrap_or(0);
        let exit = match b(0) % 4 {
            0 => None,
            1 => Some(ExitInfo {
                code: Some(0),
                signal: None,
            }),
            2 => Some(ExitInfo {
                code: Some(i32::from(b(1))),
                signal: None,
            }),
            _ => Some(ExitInfo {
                code: None,
                signal: Some(i32::from(b(1) % 32)),
            }),
        };
        let stderr = String::from_utf8_lossy(ctl.get(3..).unwrap_or(&[])).into_owned();
        if let Some(tail) = norm.on_exit(exit, &stderr, b(2) % 2 == 1) {
            events.extend(tail);
        }
    }
    check_turn(&events);
    events
}

/// A host action written in the input as a line starting with `>>` (the
/// golden transcripts mark what the host wrote to stdin the same way).
pub enum HostAction<'a> {
    /// `>>i`: interrupt the turn.
    Interrupt,
    /// `>>a` / `>>d`: allow / reject the last approval asked for.
    Decide(cohost_core::ApprovalOption),
    /// `>>` anything else: a new turn with that prompt.
    Prompt(&'a str),
}

/// The host action of `line`, if it is one.
pub fn host_action(line: &str) -> Option<HostAction<'_>> {
    let rest = line.strip_prefix(">>")?.trim_start();
    Some(match rest {
        "i" => HostAction::Interrupt,
        "a" => HostAction::Decide(cohost_core::ApprovalOption::AllowOnce),
        "d" => HostAction::Decide(cohost_core::ApprovalOption::RejectOnce),
        p => HostAction::Prompt(p),
    })
}

/// The tool id of an approval request, if `e` is one.
pub fn asked(e: &AgentEvent) -> Option<String> {
    match e {
        AgentEvent::ApprovalRequested { call, .. } => Some(call.tool_id.clone()),
        _ => None,
    }
}

/// Turns of a long-lived agent, as its IO shell sees them: events reach
/// the running turn until its `Ended`; the shell drops the rest (it closes
/// the turn's stream at `Ended`).
#[derive(Default)]
pub struct Turns {
    /// A turn was begun and has not ended.
    active: bool,
    /// The last approval asked for, for `>>a` / `>>d`.
    pub pending: Option<String>,
}

impl Turns {
    /// Record events of the current turn.
    pub fn extend(&mut self, events: impl IntoIterator<Item = AgentEvent>) {
        for e in events {
            if !self.active {
                continue;
            }
            if let Some(id) = asked(&e) {
                self.pending = Some(id);
            }
            if matches!(e, AgentEvent::Ended { .. }) {
                self.active = false;
            }
        }
    }

    /// A new turn was asked for; `started` when the normalizer took it (a
    /// refused prompt, e.g. before the session is open, starts nothing).
    pub fn next_turn(&mut self, started: bool) {
        self.active = started;
        self.pending = None;
    }

    /// After each input: a normalizer that no longer counts itself in a
    /// turn must have ended it, or the engine would wait for `Ended` forever.
    pub fn check(&self, in_turn: bool) {
        assert!(
            in_turn || !self.active,
            "the normalizer left the turn without emitting Ended"
        );
    }
}

/// Claude Code / Qwen Code stream-json and control protocol; `>>s TEXT`
/// steers TEXT into the running turn as the message `u-N` (the N-th steer).
pub fn claude_session(dialect: cohost_agents::parsers::claude::Dialect, data: &[u8]) {
    use cohost_agents::parsers::claude::{Normalizer, NormalizerConfig, Output};
    let (ctl, payload) = split_control(data);
    let flags = ctl.first().copied().unwrap_or(0);
    let mut n = Normalizer::new(NormalizerConfig {
        dialect,
        deny_all: flags & 1 == 1,
        no_approvals: flags & 2 == 2,
    });
    let _ = n.initialize();
    let mut turns = Turns::default();
    let mut out = Vec::new();
    let mut steers = 0;
    for line in text(payload).lines() {
        // `>>s TEXT`: steer TEXT into the running turn, named `u-N` so that
        // `command_lifecycle` lines in the input can answer it.
        if let Some(t) = line.strip_prefix(">>s ") {
            steers += 1;
            if let Ok((written, _)) = n.steer(t, &format!("u-{steers}")) {
                assert!(!written.contains('\n'), "a steer is one stdin line");
            }
            continue;
        }
        match host_action(line) {
            // The engine runs one turn at a time.
            Some(HostAction::Prompt(p)) if !n.in_turn() => {
                let _ = n.begin_turn(p);
                turns.next_turn(n.in_turn());
            }
            Some(HostAction::Interrupt) => {
                let _ = n.interrupt();
            }
            Some(HostAction::Decide(option)) => {
                if let Some(tool_id) = turns.pending.take() {
                    let _ = n.decide(&cohost_core::ToolDecision {
                        tool_id,
                        option,
                        message: None,
                    });
                }
            }
            Some(HostAction::Prompt(_)) => {}
            None => {
                if line.len() > 4096 && flags & 4 == 4 {
                    n.on_oversized(line.len(), &mut out);
                } else {
                    n.on_line(line, &mut out);
                }
            }
        }
        turns.extend(out.drain(..).filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        }));
        let _ = (n.stats(), n.session_id());
        turns.check(n.in_turn());
    }
}

/// Antigravity (`agy`): one long-lived stream-json process, turns begun
/// with `>> PROMPT` and stopped with `>>i`; oversized lines on a control
/// flag. Every line the core writes must be one line.
pub fn agy_session(data: &[u8]) {
    use cohost_agents::parsers::agy::{AgyCore, Output};
    let (ctl, payload) = split_control(data);
    let flags = ctl.first().copied().unwrap_or(0);
    let resumed = (flags & 1 == 1).then(|| "conv-1".to_string());
    let mut core = AgyCore::new(resumed);
    let mut turns = Turns::default();
    let mut out = Vec::new();
    for line in text(payload).lines() {
        match host_action(line) {
            // The engine runs one turn at a time.
            Some(HostAction::Prompt(p)) if !core.in_turn() => {
                let _ = core.begin_turn(p, &mut out);
                turns.next_turn(core.in_turn());
            }
            Some(HostAction::Interrupt) => core.interrupt(&mut out),
            Some(_) => {}
            None if line.len() > 4096 && flags & 4 == 4 => core.on_oversized(line.len(), &mut out),
            None => core.on_line(line, &mut out),
        }
        for o in &out {
            if let Output::Write(w) = o {
                assert!(!w.contains('\n'), "a turn's input is one line: {w:?}");
            }
        }
        turns.extend(out.drain(..).filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        }));
        let _ = (core.stats(), core.conversation());
        turns.check(core.in_turn());
    }
}

/// Codex `app-server` (JSON-RPC) core.
pub fn codex_app_server(data: &[u8]) {
    use cohost_agents::parsers::codex::{Action, AppServerCore, CoreConfig};
    let (ctl, payload) = split_control(data);
    let approval = match ctl.first().copied().unwrap_or(0) % 3 {
        0 => cohost_core::ApprovalMode::Ask,
        1 => cohost_core::ApprovalMode::AutoApprove,
        _ => cohost_core::ApprovalMode::DenyAll,
    };
    let mut core = AppServerCore::new(CoreConfig {
        cwd: "/work".into(),
        approval,
        resume: ctl.get(1).map(|_| "thread-1".to_string()),
        ..Default::default()
    });
    let mut turns = Turns::default();
    let emitted = |actions: Vec<Action>| {
        actions.into_iter().filter_map(|a| match a {
            Action::Event(e) => Some(e),
            _ => None,
        })
    };
    turns.extend(emitted(core.start()));
    for line in text(payload).lines() {
        match host_action(line) {
            Some(HostAction::Prompt(p)) if !core.in_turn() => match core.start_turn(p, &[]) {
                Ok(a) => {
                    turns.next_turn(true);
                    turns.extend(emitted(a));
                }
                Err(_) => turns.next_turn(false),
            },
            Some(HostAction::Interrupt) => turns.extend(emitted(core.interrupt())),
            Some(HostAction::Decide(option)) => {
                if let Some(id) = turns.pending.take() {
                    if let Ok(a) = core.decide(&id, option) {
                        turns.extend(emitted(a));
                    }
                }
            }
            Some(HostAction::Prompt(_)) => {}
            None => turns.extend(emitted(core.on_line(line))),
        }
        let _ = (core.phase(), core.thread_id(), core.unknown_count());
        turns.check(core.in_turn());
    }
}

/// An ACP agent (Gemini, Qwen, Copilot, OpenCode, Claude/Codex bridges).
pub fn acp_session(data: &[u8]) {
    use cohost_agents::parsers::acp::{AcpClient, ClientConfig, Output};
    let (ctl, payload) = split_control(data);
    let b = |i: usize| ctl.get(i).copied().unwrap_or(0);
    let approval = match b(0) % 3 {
        0 => cohost_core::ApprovalMode::Ask,
        1 => cohost_core::ApprovalMode::AutoApprove,
        _ => cohost_core::ApprovalMode::DenyAll,
    };
    let mut c = AcpClient::new(ClientConfig {
        provider_id: "fuzz-acp".into(),
        cwd: "/work".into(),
        approval,
        resume: (b(1) % 2 == 1).then(|| "sess-1".to_string()),
        fork: false,
        model: None,
        text_errors: if b(2) % 2 == 1 {
            cohost_agents::parsers::acp::TextErrors::Copilot
        } else {
            cohost_agents::parsers::acp::TextErrors::None
        },
        // An agent that advertises modes is switched to this one (b(3)).
        mode: (b(3) % 2 == 1).then(|| "ask".to_string()),
        mcp_servers: Vec::new(),
        login_fix: None,
    });
    let _ = c.initialize();
    let mut turns = Turns::default();
    let mut out = Vec::new();
    for line in text(payload).lines() {
        match host_action(line) {
            Some(HostAction::Prompt(p)) if !c.in_turn() => {
                // An ACP text content block (the SDK schema's `From<&str>`).
                let begun = c.begin_turn(vec![p.into()], &mut out);
                turns.next_turn(begun.is_ok());
            }
            Some(HostAction::Interrupt) => c.cancel(&mut out),
            Some(HostAction::Decide(option)) => {
                if let Some(tool_id) = turns.pending.take() {
                    let _ = c.decide(&cohost_core::ToolDecision {
                        tool_id,
                        option,
                        message: Some("fuzz".into()),
                    });
                }
            }
            Some(HostAction::Prompt(_)) => {}
            None => {
                if line.len() > 4096 && b(3) % 2 == 1 {
                    c.on_oversized(line.len(), &mut out);
                } else {
                    c.on_line(line, &mut out);
                }
            }
        }
        turns.extend(out.drain(..).filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        }));
        let _ = (c.stats(), c.session_id());
        turns.check(c.in_turn());
    }
}

/// The JSONL plugin normalizer with `map`, over the lines of `data`, then
/// the exit (interrupted or failed per the first byte).
pub fn run_jsonl(map: cohost_agents::parsers::plugin::manifest::JsonlMapping, data: &[u8]) {
    use cohost_agents::parsers::plugin::JsonlNormalizer;
    let flags = data.first().copied().unwrap_or(0);
    let mut n = JsonlNormalizer::new(
        "fuzz-jsonl",
        map,
        (flags & 1 == 1).then(|| "sess-0".to_string()),
        None,
    );
    // The plugin shell feeds every line (the normalizer ignores those after
    // the end rule matched), then always calls finish(), which ends the turn.
    let mut events = Vec::new();
    for line in text(data).lines() {
        n.on_line(line, &mut events);
    }
    assert!(
        !events.iter().any(|e| matches!(e, AgentEvent::Ended { .. })),
        "Ended before finish()"
    );
    let failure = (flags & 4 == 4)
        .then(|| cohost_core::CohostError::new(cohost_core::ErrorCode::ProcessCrashed, "exit 1"));
    n.finish(flags & 2 == 2, failure, &mut events);
    let _ = n.session_id();
    assert!(
        matches!(events.last(), Some(AgentEvent::Ended { .. })),
        "finish() did not end the turn"
    );
    check_turn(&events);
}

/// An HTTP body decoder: no panic, and any split of the body into reads
/// (from the control part) decodes exactly like the whole body, byte by byte
/// included.
pub fn decoder_splits(make: fn() -> cohost_agents::parsers::decode::Decoder, data: &[u8]) {
    let decode = |parts: &[&[u8]]| {
        let mut d = make();
        let mut out = Vec::new();
        for p in parts {
            d.push(p, &mut out);
        }
        d.finish(&mut out);
        (out, d.overflowed())
    };
    let (seed, body) = split_control(data);
    let whole = decode(&[body]);
    let split = decode(&chunks(body, &cuts(seed, body.len())));
    assert_eq!(whole, split, "a split changed the frames");
    if body.len() <= 512 {
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(whole, decode(&bytes), "byte-wise reads changed the frames");
    }
}
