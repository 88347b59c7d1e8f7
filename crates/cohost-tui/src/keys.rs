//! Keys and typed commands: what each does on each screen.

use std::time::Instant;

use cohost_core::ApprovalOption;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::{App, Effect};
use crate::commands::{self, Mode};
use crate::transcript::BlockKind;

impl App {
    /// Handle one key press, now.
    pub fn on_key(&mut self, key: KeyEvent) {
        self.on_key_at(key, Instant::now());
    }

    /// Handle one key press at `now` (a second Ctrl+C soon after the
    /// first interrupts every member of a room).
    pub fn on_key_at(&mut self, key: KeyEvent, now: Instant) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        self.touch();
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c(now);
        }
        self.disarm_quit();
        self.members.interrupt_armed = None;
        if !matches!(key.code, KeyCode::Char('c')) {
            self.hint = None;
        }
        if self.picker.is_some() {
            return self.picker_key(key);
        }
        // A comment being typed takes every key (its `y` is not an answer).
        if self.diff.as_ref().is_some_and(|d| d.commenting()) {
            return self.diff_key(key);
        }
        if self.approval.is_some() && self.decides_approvals() && !ctrl && !alt {
            let option = match key.code {
                KeyCode::Char('y') => Some(ApprovalOption::AllowOnce),
                KeyCode::Char('a') => Some(ApprovalOption::AllowAlways),
                KeyCode::Char('n') => Some(ApprovalOption::RejectOnce),
                KeyCode::Char('N') => Some(ApprovalOption::RejectAlways),
                _ => None,
            };
            // Only an answer takes the card (another key leaves it up).
            if let Some(option) = option {
                if let Some(card) = self.approval.take() {
                    // A room's next waiting approval at once.
                    self.next_card();
                    return self.effect(Effect::Decide {
                        tool_id: card.call_id(),
                        option,
                        agent: card.agent,
                    });
                }
            }
        }
        if self.votes() && !ctrl && !alt {
            // A granted participant's vote: allow or deny, no "always"
            // (that would change the host's policy). The card stays, marked,
            // until the host says the call is decided.
            let allow = match key.code {
                KeyCode::Char('y') => Some(true),
                KeyCode::Char('n') => Some(false),
                _ => None,
            };
            if let (Some(allow), Some(card)) = (allow, self.approval.as_mut()) {
                card.voted = Some(allow);
                let tool_id = card.call_id();
                return self.effect(Effect::Vote { tool_id, allow });
            }
        }
        if self.diff.is_some() {
            return self.diff_key(key);
        }
        if self.focus_key(key) || self.tab_key(key) {
            return;
        }
        match key.code {
            KeyCode::Char('f') if ctrl => self.toggle_focus(),
            KeyCode::Char('d') if ctrl => {
                if self.input.is_empty() {
                    self.effect(Effect::Quit);
                } else {
                    self.input.delete();
                }
            }
            KeyCode::Char('o') if ctrl => self.transcript.toggle_reasoning(),
            KeyCode::Char('a') if ctrl && self.mode == Mode::Host => {
                self.decide_suggestion("", true);
            }
            KeyCode::Char('r') if ctrl && self.mode == Mode::Host => {
                self.decide_suggestion("", false);
            }
            KeyCode::Char('u') if ctrl => self.input.clear(),
            KeyCode::Char('j') if ctrl => self.input.insert('\n'),
            KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
                self.input.insert('\n');
            }
            KeyCode::Enter => self.submit(),
            KeyCode::Esc if self.busy() && self.interrupts_members() => self.interrupt_target(),
            KeyCode::Esc if self.busy() => self.interrupt(),
            KeyCode::Tab => self.complete(),
            KeyCode::Up => {
                let n = self.completions().len();
                if n > 0 {
                    self.completion = (self.completion + n - 1) % n;
                } else if self.input.on_first_line() {
                    self.input.history_prev();
                } else {
                    self.input.up();
                }
            }
            KeyCode::Down => {
                let n = self.completions().len();
                if n > 0 {
                    self.completion = (self.completion + 1) % n;
                } else if self.input.on_last_line() {
                    self.input.history_next();
                } else {
                    self.input.down();
                }
            }
            KeyCode::PageUp => self.scroll += self.page.saturating_sub(2).max(1),
            KeyCode::PageDown => {
                self.scroll = self
                    .scroll
                    .saturating_sub(self.page.saturating_sub(2).max(1));
            }
            KeyCode::End if ctrl => self.scroll = 0,
            KeyCode::Left => self.input.left(),
            KeyCode::Right => self.input.right(),
            KeyCode::Home => self.input.home(),
            KeyCode::End => self.input.end(),
            KeyCode::Backspace => self.input.backspace(),
            KeyCode::Delete => self.input.delete(),
            KeyCode::Char(c) if !ctrl => {
                self.input.insert(c);
                self.completion = 0;
            }
            _ => {}
        }
    }

    /// A bracketed paste goes into the input as it is (new lines too).
    pub fn on_paste(&mut self, text: &str) {
        self.touch();
        if self.paste_comment(text) {
            return;
        }
        self.input.insert_str(text);
    }

    fn ctrl_c(&mut self, now: Instant) {
        if self.busy() && self.interrupts_members() {
            self.disarm_quit();
            return self.room_ctrl_c(now);
        }
        if self.busy() {
            self.disarm_quit();
            return self.interrupt();
        }
        if !self.input.is_empty() {
            self.disarm_quit();
            self.input.clear();
            return;
        }
        if self.arm_quit() {
            self.effect(Effect::Quit);
        } else {
            self.hint = Some("Ctrl+C again to quit".into());
        }
    }

    fn interrupt(&mut self) {
        match self.mode {
            Mode::Participant { co_driver: false } => {
                self.hint = Some("only the host and co-drivers can interrupt the turn".into());
                return;
            }
            Mode::Participant { co_driver: true } => {
                self.notice("asked the host to interrupt the turn");
                return self.effect(Effect::Interrupt);
            }
            Mode::Chat | Mode::Host => {}
        }
        self.state = "interrupting";
        self.effect(Effect::Interrupt);
    }

    fn complete(&mut self) {
        let list = self.completions();
        if let Some(c) = list.get(self.completion % list.len().max(1)) {
            let text = if c.args.is_empty() {
                c.name.to_string()
            } else {
                format!("{} ", c.name)
            };
            self.input.set(&text);
            self.completion = 0;
        }
    }

    fn picker_key(&mut self, key: crossterm::event::KeyEvent) {
        let Some(p) = self.picker.as_mut() else {
            return;
        };
        let n = p.agents.len().max(1);
        match key.code {
            KeyCode::Esc => self.picker = None,
            KeyCode::Up => p.selected = (p.selected + n - 1) % n,
            KeyCode::Down => p.selected = (p.selected + 1) % n,
            KeyCode::Enter => {
                let id = p.agents.get(p.selected).map(|a| a.id.clone());
                self.picker = None;
                if let Some(id) = id {
                    self.switching(Effect::SwitchAgent(id));
                }
            }
            _ => {}
        }
    }

    fn switching(&mut self, e: Effect) {
        if self.busy() {
            return self.set_busy_hint();
        }
        self.state = "starting";
        self.effect(e);
    }

    fn decide_suggestion(&mut self, id: &str, accept: bool) {
        let Some(s) = self.room.take_suggestion(id) else {
            let what = if id.is_empty() {
                "no suggestion is waiting".to_string()
            } else {
                format!("no suggestion {id} is waiting")
            };
            return self.notice(what);
        };
        if accept {
            self.effect(Effect::Accept(s.id.clone()));
            // A suggestion to one member (`@NAME TEXT`) is on its tab.
            let member = cohost_core::room::addressed(&s.text)
                .map(|(name, _)| name.to_owned())
                .filter(|n| self.members.names.contains(n));
            self.prompted_to(&s.from, &s.text, member.as_deref());
        } else {
            self.effect(Effect::Reject(s.id));
        }
    }

    /// Enter: a command, or the text for this screen (prompt, suggestion, chat).
    fn submit(&mut self) {
        if let Some(c) = self.completions().get(self.completion).copied() {
            // Enter on a half-typed command picks the highlighted one.
            if self.input.text() != c.name && !c.args.is_empty() {
                return self.complete();
            }
            if self.input.text() != c.name {
                self.input.set(c.name);
            }
        }
        let text = self.input.text().trim().to_string();
        if text.is_empty() {
            return;
        }
        if let Some((name, arg)) = commands::split(&text) {
            let (name, arg) = (name.to_string(), arg.to_string());
            self.input.take();
            return self.command(&name, &arg);
        }
        match self.mode {
            Mode::Chat | Mode::Host => {
                self.input.take();
                self.send_prompt(text);
            }
            Mode::Participant { co_driver: true } => {
                self.input.take();
                self.suggest(text);
            }
            Mode::Participant { co_driver: false } => {
                self.input.take();
                self.chat_out(text);
            }
        }
    }

    /// Run `text` as the user's prompt; while a turn runs, steer it (the
    /// session queues what the agent cannot take mid-turn, and its events
    /// say which happened).
    pub(crate) fn send_prompt(&mut self, text: String) {
        // A room's members queue their own prompts: one may be idle while
        // another streams.
        let one_agent = matches!(self.mode, Mode::Chat | Mode::Host) && !self.members.is_room();
        if self.busy() && one_agent {
            return self.effect(Effect::Steer(text));
        }
        if !self.members.is_room() {
            self.prompted("you", &text);
            self.effect(Effect::Prompt(text));
            return self.mark_busy();
        }
        let (sent, who, member) = self.address(&text);
        // A member addressed by name: its block says whose, not `@NAME`.
        let said = match cohost_core::room::addressed(&text) {
            Some((name, rest)) if member.as_deref() == Some(name) => rest,
            _ => text.as_str(),
        };
        // `@NAME` alone only says who plain text goes to.
        if !said.trim().is_empty() {
            self.prompted_to(&who, said, member.as_deref());
        }
        self.effect(Effect::Prompt(sent));
        self.mark_busy();
    }

    /// Suggest `text` to the host (a co-driver); in a member's tab, to
    /// that member.
    pub(crate) fn suggest(&mut self, text: String) {
        let text = match self.viewed_member() {
            Some(m) if self.members.is_room() && cohost_core::room::addressed(&text).is_none() => {
                format!("@{m} {text}")
            }
            _ => text,
        };
        self.notice(format!("you suggested: {text}"));
        self.effect(Effect::Suggest(text));
    }

    fn chat_out(&mut self, text: String) {
        self.transcript.push(BlockKind::Chat {
            from: "you".into(),
            text: text.clone(),
        });
        self.effect(Effect::Chat(text));
    }

    /// `/qr [viewer]`: the web link of an invite as a QR code.
    fn qr(&mut self, arg: &str) {
        let Some(i) = self.room.invites.as_ref() else {
            return self.notice("no invites (the room is not open)");
        };
        let (who, invite) = if arg == "viewer" {
            ("viewer", &i.viewer)
        } else {
            ("co-driver", &i.co_driver)
        };
        let shown = match crate::qr::web_link(invite) {
            Some(link) => match crate::qr::render(&link) {
                Ok(code) => format!("scan to open the {who} web page ({link}):\n{code}"),
                Err(e) => e.to_string(),
            },
            None => "this invite has no web page".into(),
        };
        self.notice(shown);
    }

    fn command(&mut self, name: &str, arg: &str) {
        let mode = self.mode;
        let need = |what: &str| format!("{name} needs {what}");
        match (mode, name) {
            (_, "/help") => self.notice(commands::help(mode)),
            (_, "/quit") => self.effect(Effect::Quit),
            (_, "/split") => self.toggle_split(),
            (Mode::Chat | Mode::Host, "/add") if arg.is_empty() => {
                self.notice(need("an agent, e.g. /add codex (see /agent for the list)"));
            }
            (Mode::Chat | Mode::Host, "/add") => self.effect(Effect::AddMember(arg.into())),
            (Mode::Chat | Mode::Host, "/drop") if arg.is_empty() => {
                self.notice(need("a member's name (/members)"));
            }
            (Mode::Chat | Mode::Host, "/drop") => self.effect(Effect::DropMember(arg.into())),
            (Mode::Chat | Mode::Host, "/members") => self.effect(Effect::Members),
            (Mode::Chat | Mode::Host, "/compare") if arg.is_empty() => {
                self.notice(need("a prompt for every member"));
            }
            (Mode::Chat | Mode::Host, "/compare") => {
                self.prompted("you → every member", arg);
                self.effect(Effect::Compare(arg.into()));
            }
            (Mode::Chat | Mode::Host, "/handoff") if arg.is_empty() => {
                self.notice(need(
                    "the member taking over, e.g. /handoff codex review it",
                ));
            }
            (Mode::Chat | Mode::Host, "/handoff") => {
                let (to, text) = arg.split_once(' ').unwrap_or((arg, ""));
                self.prompted("you", &format!("/handoff {arg}"));
                // The shell gives TO the word: plain text goes to it next.
                if self.members.names.iter().any(|n| n == to) {
                    self.members.target = Some(to.to_owned());
                    if self.members.view.is_some() {
                        self.show_tab(Some(to.to_owned()));
                    }
                }
                self.effect(Effect::Handoff {
                    to: to.into(),
                    text: text.trim().into(),
                });
            }
            (Mode::Chat | Mode::Host, "/keep") if arg.is_empty() => {
                self.notice(need("a member's name (/members)"));
            }
            (Mode::Chat | Mode::Host, "/keep") if self.busy() => self.set_busy_hint(),
            (Mode::Chat | Mode::Host, "/keep") => {
                let (name, merge) = match arg.strip_suffix(" --merge") {
                    Some(n) => (n.trim(), true),
                    None => (arg, false),
                };
                self.effect(Effect::Keep {
                    name: name.into(),
                    merge,
                });
            }
            (Mode::Chat, "/agent") if arg.is_empty() => {
                if self.busy() {
                    return self.set_busy_hint();
                }
                self.picker = Some(Default::default());
                self.effect(Effect::ListAgents);
            }
            (Mode::Chat, "/agent") => self.switching(Effect::SwitchAgent(arg.into())),
            (Mode::Chat, "/model") if arg.is_empty() => {
                self.notice(need("a model name, e.g. /model sonnet"));
            }
            (Mode::Chat, "/model") => self.switching(Effect::SwitchModel(arg.into())),
            (Mode::Chat, "/resume") if arg.is_empty() => {
                self.notice(need("a session id (see `cohost sessions`)"));
            }
            (Mode::Chat, "/resume") => self.switching(Effect::Resume(arg.into())),
            (Mode::Chat, "/share") if self.busy() => self.set_busy_hint(),
            (Mode::Chat, "/share") => {
                self.notice("opening a room for this session…");
                self.effect(Effect::Share);
            }
            (Mode::Chat | Mode::Host, "/diff" | "/undo") => match turn_arg(arg) {
                Err(()) => self.notice(need("a turn number, e.g. 2 (or nothing)")),
                Ok(turn) if name == "/diff" => self.effect(Effect::Diff(turn)),
                Ok(_) if self.busy() => self.set_busy_hint(),
                Ok(turn) => self.effect(Effect::Undo(turn)),
            },
            (Mode::Chat | Mode::Host, "/budget") => self.effect(Effect::Budget(arg.into())),
            (Mode::Chat | Mode::Host, "/spend") => self.effect(Effect::Spend),
            (Mode::Chat | Mode::Host, "/queue") => match crate::queue::QueueCommand::parse(arg) {
                Ok(q) => self.effect(Effect::Queue(q)),
                Err(usage) => self.notice(usage),
            },
            (Mode::Host, "/admit" | "/refuse") if arg.is_empty() => {
                self.notice(need("who knocks: a name or #ID, as the knock line says"));
            }
            (Mode::Host, "/admit") => self.effect(Effect::Admit(arg.into())),
            (Mode::Host, "/refuse") => self.effect(Effect::Refuse(arg.into())),
            (Mode::Host, "/accept") => self.decide_suggestion(arg, true),
            (Mode::Host, "/reject") => self.decide_suggestion(arg, false),
            (Mode::Host, "/kick") if arg.is_empty() => self.notice(need("a participant's name")),
            (Mode::Host, "/kick") => self.effect(Effect::Kick(arg.into())),
            (Mode::Host, "/who") => self.effect(Effect::Who),
            (Mode::Host, "/invite") if arg.is_empty() => {
                self.notice(need("a name and a role, e.g. /invite ana co-driver"));
            }
            (Mode::Host, "/invite") => self.effect(Effect::Invite(arg.into())),
            (Mode::Host, "/invites") => match self.room.invite_text() {
                Some(t) => self.notice(t),
                None => self.notice("no invites (the room is not open)"),
            },
            (Mode::Host, "/qr") => self.qr(arg),
            (Mode::Host | Mode::Participant { .. }, "/chat") if arg.is_empty() => {
                self.notice(need("some text"));
            }
            (Mode::Host | Mode::Participant { .. }, "/chat") => self.chat_out(arg.into()),
            (Mode::Participant { co_driver: true }, "/suggest") if arg.is_empty() => {
                self.notice(need("a prompt"));
            }
            (Mode::Participant { co_driver: true }, "/suggest") => self.suggest(arg.into()),
            _ => self.notice(commands::unknown(mode, name)),
        }
    }
}

/// A command's optional turn number: none, or a number.
fn turn_arg(arg: &str) -> Result<Option<u64>, ()> {
    match arg.trim() {
        "" => Ok(None),
        n => n.parse().map(Some).map_err(|_| ()),
    }
}
