//! One line typed or pasted on the terminal without echo: how `cohost join`
//! takes an invite, so its keys appear neither on screen nor in the process
//! list (`/proc/PID/cmdline` is readable by every local user) nor in the
//! shell's history.

use std::io::{self, Write};

use crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyCode, KeyEventKind, KeyModifiers,
};
use crossterm::execute;
use crossterm::terminal::{disable_raw_mode, enable_raw_mode};

/// Puts the terminal back however the read ends (error, cancel, panic).
struct RawGuard;

impl Drop for RawGuard {
    fn drop(&mut self) {
        let _ = execute!(io::stderr(), DisableBracketedPaste);
        let _ = disable_raw_mode();
    }
}

/// What the keys typed so far make of the line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct HiddenLine {
    text: String,
}

/// The line is done, cancelled, or goes on.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Enter: the line as typed.
    Done(String),
    /// Ctrl+C, Ctrl+D on an empty line, or Esc.
    Cancelled,
    /// Keep reading.
    More,
}

impl HiddenLine {
    /// Feed one terminal event.
    pub fn feed(&mut self, ev: &Event) -> Step {
        match ev {
            Event::Paste(s) => {
                // A pasted invite often carries the newline of the line it
                // was copied from: the first line is the invite.
                let mut lines = s.split(['\r', '\n']);
                self.text.push_str(lines.next().unwrap_or_default());
                if s.contains(['\r', '\n']) && !self.text.trim().is_empty() {
                    return Step::Done(std::mem::take(&mut self.text));
                }
                Step::More
            }
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
                match k.code {
                    KeyCode::Enter => Step::Done(std::mem::take(&mut self.text)),
                    KeyCode::Esc => Step::Cancelled,
                    KeyCode::Char('c') if ctrl => Step::Cancelled,
                    KeyCode::Char('d') if ctrl && self.text.is_empty() => Step::Cancelled,
                    KeyCode::Char('u') if ctrl => {
                        self.text.clear();
                        Step::More
                    }
                    KeyCode::Backspace => {
                        self.text.pop();
                        Step::More
                    }
                    KeyCode::Char(c) if !ctrl => {
                        self.text.push(c);
                        Step::More
                    }
                    _ => Step::More,
                }
            }
            _ => Step::More,
        }
    }
}

/// Ask with `prompt` on stderr and read one line from the terminal, shown
/// as nothing. `None` when the user cancelled.
///
/// # Errors
///
/// When the terminal cannot be put in raw mode or read.
pub fn read_hidden_line(prompt: &str) -> io::Result<Option<String>> {
    let mut err = io::stderr();
    write!(err, "{prompt}")?;
    err.flush()?;
    enable_raw_mode()?;
    let guard = RawGuard;
    let _ = execute!(io::stderr(), EnableBracketedPaste);
    let mut line = HiddenLine::default();
    let got = loop {
        match line.feed(&event::read()?) {
            Step::Done(text) => break Some(text),
            Step::Cancelled => break None,
            Step::More => {}
        }
    };
    drop(guard);
    writeln!(err)?;
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEvent;

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn ctrl(c: char) -> Event {
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
    }

    #[test]
    fn typed_keys_with_corrections_make_the_line() {
        let mut l = HiddenLine::default();
        for c in "abx".chars() {
            assert_eq!(l.feed(&key(KeyCode::Char(c))), Step::More);
        }
        assert_eq!(l.feed(&key(KeyCode::Backspace)), Step::More);
        assert_eq!(l.feed(&key(KeyCode::Char('c'))), Step::More);
        assert_eq!(l.feed(&key(KeyCode::Enter)), Step::Done("abc".into()));
    }

    #[test]
    fn a_paste_with_its_newline_ends_the_line_without_enter() {
        let mut l = HiddenLine::default();
        let got = l.feed(&Event::Paste("cohost://h:1/r#a.b.c.d.e\nnext".into()));
        assert_eq!(got, Step::Done("cohost://h:1/r#a.b.c.d.e".into()));
        let mut l = HiddenLine::default();
        assert_eq!(l.feed(&Event::Paste("cohost://h".into())), Step::More);
        assert_eq!(l.feed(&Event::Paste(":1/r".into())), Step::More);
        assert_eq!(
            l.feed(&key(KeyCode::Enter)),
            Step::Done("cohost://h:1/r".into())
        );
    }

    #[test]
    fn ctrl_c_esc_and_ctrl_d_on_nothing_cancel_and_ctrl_u_clears() {
        for ev in [ctrl('c'), key(KeyCode::Esc), ctrl('d')] {
            assert_eq!(HiddenLine::default().feed(&ev), Step::Cancelled, "{ev:?}");
        }
        let mut l = HiddenLine::default();
        l.feed(&key(KeyCode::Char('x')));
        assert_eq!(
            l.feed(&ctrl('d')),
            Step::More,
            "Ctrl+D with text is not an end"
        );
        l.feed(&ctrl('u'));
        l.feed(&key(KeyCode::Char('y')));
        assert_eq!(l.feed(&key(KeyCode::Enter)), Step::Done("y".into()));
    }
}
