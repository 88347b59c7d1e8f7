//! The `/` commands of each screen, their help and completion.

/// Which screen the app is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `cohost chat`: one user, one agent.
    Chat,
    /// `cohost share`: the host console.
    Host,
    /// `cohost join`: a participant; co-drivers may suggest prompts.
    Participant {
        /// Whether this participant is a co-driver.
        co_driver: bool,
    },
}

/// A command: its name, argument hint and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// With the slash, e.g. `/agent`.
    pub name: &'static str,
    /// The argument, e.g. `[ID]`.
    pub args: &'static str,
    /// One line of help.
    pub help: &'static str,
}

const fn c(name: &'static str, args: &'static str, help: &'static str) -> Command {
    Command { name, args, help }
}

const CHAT: &[Command] = &[
    c(
        "/agent",
        "[ID]",
        "switch agent (no ID: pick from what is installed)",
    ),
    c(
        "/model",
        "NAME",
        "switch model (the agent restarts, same conversation)",
    ),
    c(
        "/resume",
        "ID",
        "resume a stored session (see `cohost sessions`)",
    ),
    c(
        "/share",
        "",
        "share this session (embedded relay, or chat --relay)",
    ),
    c(
        "/diff",
        "[TURN]",
        "what the agent changed (no TURN: every turn)",
    ),
    c(
        "/undo",
        "[TURN]",
        "put back the last turn's changes (TURN: it and every later one)",
    ),
    c(
        "/add",
        "AGENT",
        "add an agent: a room of several (@NAME TEXT addresses one)",
    ),
    c("/drop", "NAME", "stop a member and take it out of the room"),
    c("/members", "", "the room's members, what each does, where"),
    c("/compare", "TEXT", "the same prompt to every member"),
    c(
        "/handoff",
        "NAME [TEXT]",
        "give NAME the conversation so far (of the member with the word)",
    ),
    c(
        "/keep",
        "NAME [--merge]",
        "that member's changes into your checkout; the others stop",
    ),
    c(
        "/budget",
        "[USD|tokens N|off]",
        "show the budget, or raise it (a spent budget refuses prompts)",
    ),
    c("/spend", "", "what was spent, per person and per agent"),
    c(
        "/queue",
        "[drop|up|down|first N]",
        "prompts waiting for their turn: list, cancel, reorder",
    ),
    c(
        "/split",
        "",
        "a room's members side by side (again: one tab at a time)",
    ),
    c("/help", "", "commands and keys"),
    c("/quit", "", "end the session and exit"),
];

const HOST: &[Command] = &[
    c("/accept", "[ID]", "run a suggestion (no ID: the oldest)"),
    c("/reject", "[ID]", "reject a suggestion (no ID: the oldest)"),
    c("/chat", "TEXT", "say something in the room"),
    c("/kick", "NAME", "remove a participant from the room"),
    c(
        "/who",
        "",
        "who is in the room, and who waits at the door (--knock)",
    ),
    c(
        "/admit",
        "NAME",
        "let someone at the door in (--knock); /refuse NAME turns them away",
    ),
    c("/invites", "", "show the invites again"),
    c(
        "/invite",
        "NAME ROLE",
        "a personal invite for NAME (co-driver or viewer), shown to you only",
    ),
    c(
        "/qr",
        "[viewer]",
        "the co-driver's web link as a QR code to scan (viewer: the viewer's)",
    ),
    c("/members", "", "the room's agents and what each does"),
    c(
        "/compare",
        "TEXT",
        "the same prompt to every agent of the room",
    ),
    c(
        "/add",
        "AGENT",
        "add an agent to the room (@NAME TEXT addresses one)",
    ),
    c("/drop", "NAME", "stop a member and take it out of the room"),
    c(
        "/handoff",
        "NAME [TEXT]",
        "give NAME the conversation so far (of the member with the word)",
    ),
    c(
        "/keep",
        "NAME [--merge]",
        "that member's changes into your checkout; the others stop",
    ),
    c(
        "/diff",
        "[TURN]",
        "what the agent changed (no TURN: every turn)",
    ),
    c(
        "/undo",
        "[TURN]",
        "put back the last turn's changes (TURN: it and every later one)",
    ),
    c(
        "/budget",
        "[USD|tokens N|off]",
        "show the budget, or raise it (a spent budget refuses prompts)",
    ),
    c("/spend", "", "what was spent, per person and per agent"),
    c(
        "/queue",
        "[drop|up|down|first N]",
        "prompts waiting for their turn: list, cancel, reorder",
    ),
    c(
        "/split",
        "",
        "a room's members side by side (again: one tab at a time)",
    ),
    c("/help", "", "commands and keys"),
    c("/quit", "", "close the room and exit"),
];

const CO_DRIVER: &[Command] = &[
    c(
        "/suggest",
        "TEXT",
        "suggest a prompt to the host (also: just type it)",
    ),
    c("/chat", "TEXT", "say something in the room"),
    c(
        "/split",
        "",
        "a room's members side by side (again: one tab at a time)",
    ),
    c("/help", "", "commands and keys"),
    c("/quit", "", "leave the room"),
];

const VIEWER: &[Command] = &[
    c(
        "/chat",
        "TEXT",
        "say something in the room (also: just type it)",
    ),
    c(
        "/split",
        "",
        "a room's members side by side (again: one tab at a time)",
    ),
    c("/help", "", "commands and keys"),
    c("/quit", "", "leave the room"),
];

/// The commands of `mode`.
pub fn commands(mode: Mode) -> &'static [Command] {
    match mode {
        Mode::Chat => CHAT,
        Mode::Host => HOST,
        Mode::Participant { co_driver: true } => CO_DRIVER,
        Mode::Participant { co_driver: false } => VIEWER,
    }
}

/// Commands starting with what is typed (`/` alone: all of them); empty
/// once an argument is being typed.
pub fn completions(mode: Mode, typed: &str) -> Vec<Command> {
    if !typed.starts_with('/') || typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    commands(mode)
        .iter()
        .filter(|c| c.name.starts_with(typed))
        .copied()
        .collect()
}

/// The help text of `mode`: commands, then keys.
pub fn help(mode: Mode) -> String {
    let mut s = String::from("commands:\n");
    // The room's commands share one line, and so do the budget's and the
    // queue's: the help fits a 24-row terminal.
    let folded = [
        "/add", "/drop", "/members", "/compare", "/handoff", "/keep", "/budget", "/spend",
        "/queue", "/split",
    ];
    let all = commands(mode);
    for c in all.iter().filter(|c| !folded.contains(&c.name)) {
        let head = format!("{} {}", c.name, c.args);
        s.push_str(&format!("  {head:<16} {}\n", c.help));
    }
    match mode {
        // With the tabs' keys: text goes to the tab's member, Esc stops it.
        Mode::Chat | Mode::Host => s.push_str("  room: /add AGENT · @NAME TEXT · /compare TEXT · /handoff NAME · /members · /drop NAME · /keep NAME · tabs Tab/Alt+0..8 · /split\n"),
        Mode::Participant { co_driver: true } => {
            s.push_str("  several agents: @NAME TEXT suggests to that one · tabs Tab/Alt+0..8 · /split\n");
        }
        Mode::Participant { .. } => s.push_str("  several agents: tabs Tab/Alt+0..8 · /split\n"),
    }
    // Budget and queue share a line too (typed mid-turn, text steers the
    // turn or waits in the queue).
    if all.iter().any(|c| c.name == "/budget") {
        s.push_str("  /budget [USD|tokens N|off] · /spend · /queue [drop|up|down|first N]\n");
    }
    s.push_str("keys: Enter send · Alt+Enter/Ctrl+J new line · ↑↓ history · PgUp/PgDn scroll\n");
    s.push_str("      Esc/Ctrl+C interrupt · Ctrl+C twice or Ctrl+D quit · Ctrl+O reasoning\n");
    s.push_str(
        "review: Ctrl+F pick a changed file (↑↓) · Enter its diff · ←→ other files · Esc close",
    );
    if mode != (Mode::Participant { co_driver: false }) {
        s.push_str("\n        in a diff, c comments on the line (sent as ");
        s.push_str(match mode {
            Mode::Participant { .. } => "a suggestion to the host)",
            _ => "a prompt)",
        });
    }
    match mode {
        Mode::Chat => s.push_str("\napprovals: y once · a always · n no · N never"),
        Mode::Host => s.push_str(
            "\napprovals: y once · a always · n no · N never\nsuggestions: Ctrl+A accept oldest · Ctrl+R reject oldest",
        ),
        Mode::Participant { .. } => {
            s.push_str("\napprovals, when the host grants you: y allow · n deny");
        }
    }
    s
}

/// A typed line split into a command and its argument, when it is one.
pub fn split(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    if !line.starts_with('/') {
        return None;
    }
    Some(match line.split_once(char::is_whitespace) {
        Some((c, rest)) => (c, rest.trim()),
        None => (line, ""),
    })
}

/// The answer to a command that is not one of `mode`'s.
pub fn unknown(mode: Mode, name: &str) -> String {
    let names: Vec<&str> = commands(mode).iter().map(|c| c.name).collect();
    format!("unknown command {name}; commands: {}", names.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_and_split() {
        let names = |v: Vec<Command>| v.iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(names(completions(Mode::Chat, "/")).len(), CHAT.len());
        assert_eq!(names(completions(Mode::Chat, "/re")), ["/resume"]);
        assert!(completions(Mode::Chat, "/agent x").is_empty());
        assert!(completions(Mode::Chat, "hello").is_empty());
        assert_eq!(split(" /agent  codex "), Some(("/agent", "codex")));
        assert_eq!(split("/quit"), Some(("/quit", "")));
        assert_eq!(split("plain"), None);
        assert!(unknown(Mode::Host, "/x").contains("/accept"));
    }
}
