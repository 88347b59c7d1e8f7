//! A room's answers for a person: one member at a time, each under its
//! name. The first member to speak streams live; the others' output is
//! held (in order, answer and side notes apart) and shown when the one on
//! screen has finished, so answers never interleave mid-line.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;

use cohost_core::{Event, EventBody};

use crate::render::Human;

/// Where a piece of held output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    Out,
    Err,
}

/// One member's renderer and what it has said that is not on screen yet.
struct MemberOutput {
    human: Human,
    held: Vec<(Channel, Vec<u8>)>,
    ended: bool,
    shown: bool,
}

/// Appends to a member's held output on one channel (two of these share
/// one list, so the answer and the notes keep their order).
struct Held<'a> {
    held: &'a RefCell<Vec<(Channel, Vec<u8>)>>,
    channel: Channel,
}

impl Write for Held<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut held = self.held.borrow_mut();
        match held.last_mut() {
            Some((c, bytes)) if *c == self.channel => bytes.extend_from_slice(buf),
            _ => held.push((self.channel, buf.to_vec())),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Renders a room's merged events grouped by member, the answers to `O`
/// (stdout), the rest to `E` (stderr).
pub struct Grouped<O = std::io::Stdout, E = std::io::Stderr> {
    order: Vec<String>,
    members: HashMap<String, MemberOutput>,
    live: Option<String>,
    color: bool,
    out: O,
    err: E,
}

impl Grouped {
    /// A renderer on stdout and stderr for these members (in the order
    /// their groups are preferred when several are waiting).
    pub fn new(members: &[String]) -> Grouped {
        Grouped::with_output(members, std::io::stdout(), std::io::stderr())
    }
}

impl<O: Write, E: Write> Grouped<O, E> {
    /// A renderer writing to `out` and `err`.
    pub fn with_output(members: &[String], out: O, err: E) -> Grouped<O, E> {
        let members_out = members
            .iter()
            .map(|m| {
                (
                    m.clone(),
                    MemberOutput {
                        human: Human::new(),
                        held: Vec::new(),
                        ended: false,
                        shown: false,
                    },
                )
            })
            .collect();
        Grouped {
            order: members.to_vec(),
            members: members_out,
            live: None,
            color: Human::new().colored(),
            out,
            err,
        }
    }

    /// The writers back (tests read what was shown).
    pub fn into_output(self) -> (O, E) {
        (self.out, self.err)
    }

    /// Show (or hold) one member's event.
    pub fn show(&mut self, event: &Event) {
        let Some(name) = event.agent.clone() else {
            return;
        };
        if !self.members.contains_key(&name) {
            return;
        }
        if self.live.is_none() {
            self.go_live(&name);
        }
        let ends = matches!(event.body, EventBody::StreamEnd { .. });
        if let Some(m) = self.members.get_mut(&name) {
            if self.live.as_deref() == Some(name.as_str()) {
                m.human.show_to(event, &mut self.out, &mut self.err);
            } else {
                let held = RefCell::new(std::mem::take(&mut m.held));
                let mut out = Held {
                    held: &held,
                    channel: Channel::Out,
                };
                let mut err = Held {
                    held: &held,
                    channel: Channel::Err,
                };
                m.human.show_to(event, &mut out, &mut err);
                m.held = held.into_inner();
            }
            if ends {
                m.ended = true;
            }
        }
        if ends && self.live.as_deref() == Some(name.as_str()) {
            self.next_live();
        }
    }

    /// Show whatever is still held (the room ended), in member order.
    pub fn finish(&mut self) {
        while let Some(name) = self.waiting().or_else(|| self.unshown_with_output()) {
            self.go_live(&name);
        }
    }

    /// Members done but not yet on screen come first (their whole answer
    /// can be shown at once), then those still running.
    fn next_live(&mut self) {
        self.live = None;
        while let Some(name) = self.waiting() {
            self.go_live(&name);
            self.live = None;
        }
        if let Some(name) = self.unshown_with_output() {
            self.go_live(&name);
        }
    }

    fn waiting(&self) -> Option<String> {
        self.order
            .iter()
            .find(|n| self.members.get(*n).is_some_and(|m| m.ended && !m.shown))
            .cloned()
    }

    fn unshown_with_output(&self) -> Option<String> {
        self.order
            .iter()
            .find(|n| {
                self.members
                    .get(*n)
                    .is_some_and(|m| !m.shown && !m.held.is_empty())
            })
            .cloned()
    }

    /// Put `name` on screen: its heading, then what it has said so far.
    fn go_live(&mut self, name: &str) {
        let heading = self.heading(name);
        let Some(m) = self.members.get_mut(name) else {
            return;
        };
        m.shown = true;
        let _ = writeln!(self.out, "{heading}");
        for (channel, bytes) in m.held.drain(..) {
            let _ = match channel {
                Channel::Out => self.out.write_all(&bytes),
                Channel::Err => self.err.write_all(&bytes),
            };
        }
        let _ = self.out.flush();
        let _ = self.err.flush();
        self.live = Some(name.to_owned());
    }

    fn heading(&self, name: &str) -> String {
        let name = cohost_core::sanitize::inert_line(name);
        if self.color {
            format!("\x1b[1m── {name} ──\x1b[0m")
        } else {
            format!("── {name} ──")
        }
    }
}

/// A room's events as they come, for a console that keeps taking commands
/// while members answer (`cohost share` in line mode): each member keeps its
/// own renderer, and a heading starts a new line whenever the member
/// speaking changes. Events of a session of one agent (no `agent`) show as
/// they always did.
pub struct Interleaved<O = std::io::Stdout, E = std::io::Stderr> {
    solo: Human,
    members: HashMap<String, Human>,
    speaking: Option<String>,
    color: bool,
    out: O,
    err: E,
}

impl Default for Interleaved {
    fn default() -> Self {
        Interleaved::with_output(std::io::stdout(), std::io::stderr())
    }
}

impl<O: Write, E: Write> Interleaved<O, E> {
    /// A renderer writing to `out` and `err`.
    pub fn with_output(out: O, err: E) -> Interleaved<O, E> {
        Interleaved {
            solo: Human::new(),
            members: HashMap::new(),
            speaking: None,
            color: Human::new().colored(),
            out,
            err,
        }
    }

    /// The writers back (tests read what was shown).
    pub fn into_output(self) -> (O, E) {
        (self.out, self.err)
    }

    /// Show one event.
    pub fn show(&mut self, event: &Event) {
        let Some(name) = event.agent.as_deref() else {
            return self.solo.show_to(event, &mut self.out, &mut self.err);
        };
        let silent = matches!(
            event.body,
            EventBody::StreamStart { .. } | EventBody::Usage(_) | EventBody::Unknown
        );
        if !silent && self.speaking.as_deref() != Some(name) {
            let name = cohost_core::sanitize::inert_line(name);
            let heading = if self.color {
                format!("\x1b[1m── {name} ──\x1b[0m")
            } else {
                format!("── {name} ──")
            };
            // A heading always starts a line, whatever the last member left.
            let _ = write!(self.out, "\n{heading}\n");
            self.speaking = Some(event.agent.clone().unwrap_or_default());
        }
        let human = self.members.entry(name.to_owned()).or_default();
        human.show_to(event, &mut self.out, &mut self.err);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::EndReason;

    fn ev(agent: &str, body: EventBody) -> Event {
        Event {
            id: "p.1".into(),
            prompt_id: "p".into(),
            correlation_id: "c".into(),
            ts: 0,
            agent: Some(agent.into()),
            body,
        }
    }

    fn chunk(agent: &str, i: u64, delta: &str) -> Event {
        ev(
            agent,
            EventBody::StreamChunk {
                stream_id: format!("{agent}:text"),
                chunk_index: i,
                delta: delta.into(),
            },
        )
    }

    fn end(agent: &str) -> Event {
        ev(
            agent,
            EventBody::StreamEnd {
                reason: EndReason::Completed,
                usage: None,
            },
        )
    }

    fn shown(g: Grouped<Vec<u8>, Vec<u8>>) -> (String, String) {
        let (o, e) = g.into_output();
        (String::from_utf8(o).unwrap(), String::from_utf8(e).unwrap())
    }

    #[test]
    fn answers_are_grouped_under_their_member_never_interleaved() {
        let names = vec!["claude".to_string(), "codex".to_string()];
        let mut g = Grouped::with_output(&names, Vec::new(), Vec::new());
        // codex speaks first and streams live; claude's words are held.
        g.show(&chunk("codex", 0, "Codex "));
        g.show(&chunk("claude", 0, "Claude "));
        g.show(&chunk("codex", 1, "answers."));
        g.show(&chunk("claude", 1, "too."));
        g.show(&end("claude"));
        g.show(&end("codex"));
        g.finish();
        let (out, _) = shown(g);
        assert_eq!(
            out,
            "── codex ──\nCodex answers.\n── claude ──\nClaude too.\n"
        );
    }

    #[test]
    fn a_member_still_running_takes_the_screen_with_what_it_said_so_far() {
        let names = vec!["a".to_string(), "b".to_string()];
        let mut g = Grouped::with_output(&names, Vec::new(), Vec::new());
        g.show(&chunk("a", 0, "first"));
        g.show(&chunk("b", 0, "held "));
        g.show(&end("a"));
        // b is live now: its next words go straight out.
        g.show(&chunk("b", 1, "then live"));
        let (out, _) = shown(g);
        assert_eq!(out, "── a ──\nfirst\n── b ──\nheld then live");
    }

    #[test]
    fn events_of_no_member_or_an_unknown_one_are_not_shown() {
        let names = vec!["a".to_string()];
        let mut g = Grouped::with_output(&names, Vec::new(), Vec::new());
        let mut lone = chunk("a", 0, "x");
        lone.agent = None;
        g.show(&lone);
        g.show(&chunk("zed", 0, "y"));
        g.finish();
        assert_eq!(shown(g), (String::new(), String::new()));
    }

    #[test]
    fn interleaved_members_get_a_heading_whenever_the_speaker_changes() {
        let mut i = Interleaved::with_output(Vec::new(), Vec::new());
        i.show(&chunk("a", 0, "one "));
        i.show(&chunk("a", 1, "two"));
        i.show(&chunk("b\x1b[2J", 0, "bee"));
        i.show(&chunk("a", 2, " three"));
        let mut lone = chunk("a", 0, "solo");
        lone.agent = None;
        i.show(&lone);
        let (out, _) = i.into_output();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\n── a ──\none two\n── b ──\nbee\n── a ──\n threesolo"
        );
    }
}
