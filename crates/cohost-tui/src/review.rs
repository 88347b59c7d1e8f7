//! Reviewing a turn's changes from the keyboard. Ctrl+F picks a file in
//! the last changes block (↑↓ walk every turn's files, Esc stops), Enter
//! opens its diff; in the diff ↑↓ move the cursor over the lines of code,
//! ←→ step to the turn's other files, `c` comments on the cursor's line and
//! Esc closes. The comment is sent as the screen sends what is typed: a
//! prompt in the chat and the host console (queued while a turn runs), a
//! suggestion from a co-driver; a viewer cannot comment.

use cohost_core::sanitize::inert_line;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{App, Focus};
use crate::commands::Mode;
use crate::diffview::DiffView;
use crate::input::InputBox;
use crate::transcript::BlockKind;

impl App {
    /// Ctrl+F: pick the first file of the last turn that changed some, or
    /// stop picking.
    pub(crate) fn toggle_focus(&mut self) {
        if self.focus.is_some() {
            return self.set_focus(None);
        }
        let end = self.transcript.blocks().len();
        match self.transcript.next_changes(end, true) {
            Some(block) => self.set_focus(Some(Focus { block, file: 0 })),
            None => self.hint = Some("no turn has changed a file yet".into()),
        }
    }

    /// Pick `f` (or nothing): the cards show it, the next frame scrolls
    /// to it.
    pub(crate) fn set_focus(&mut self, f: Option<Focus>) {
        if let Some(old) = self.focus {
            if let Some(BlockKind::Changes(c)) = self.transcript.edit(old.block) {
                c.selected = None;
            }
        }
        if let Some(new) = f {
            if let Some(BlockKind::Changes(c)) = self.transcript.edit(new.block) {
                c.selected = Some(new.file);
            }
        }
        self.focus = f;
        self.reveal = f.is_some();
    }

    /// A key while a file is picked; `false` when it is not for the
    /// picking (the caller handles it: typing goes on in the input).
    pub(crate) fn focus_key(&mut self, key: KeyEvent) -> bool {
        let Some(f) = self.focus else {
            return false;
        };
        if !key.modifiers.difference(KeyModifiers::SHIFT).is_empty() {
            return false;
        }
        let t = &self.transcript;
        let next = match key.code {
            KeyCode::Up if f.file > 0 => Some(Focus {
                file: f.file - 1,
                ..f
            }),
            KeyCode::Up => t.next_changes(f.block, true).map(|block| Focus {
                block,
                file: t.changes(block).map_or(0, |c| c.len().saturating_sub(1)),
            }),
            KeyCode::Down if t.changes(f.block).is_some_and(|c| f.file + 1 < c.len()) => {
                Some(Focus {
                    file: f.file + 1,
                    ..f
                })
            }
            KeyCode::Down => t
                .next_changes(f.block, false)
                .map(|block| Focus { block, file: 0 }),
            KeyCode::Enter => {
                self.open_diff(f.block, f.file);
                return true;
            }
            KeyCode::Esc => {
                self.set_focus(None);
                return true;
            }
            // Scrolling keeps the pick.
            KeyCode::PageUp | KeyCode::PageDown => return false,
            _ => {
                self.set_focus(None);
                return false;
            }
        };
        if let Some(n) = next {
            self.set_focus(Some(n));
        }
        true
    }

    /// Open the diff of file `file` in changes block `block`.
    fn open_diff(&mut self, block: usize, file: usize) {
        let remote = matches!(self.mode, Mode::Participant { .. });
        if let Some(card) = self.transcript.changes(block) {
            self.diff = DiffView::open(card, block, file, self.theme, remote);
        }
    }

    /// Whether `c` comments on this screen.
    pub fn comments(&self) -> bool {
        self.review.is_some() && self.mode != Mode::Participant { co_driver: false }
    }

    /// A key in the diff view.
    pub(crate) fn diff_key(&mut self, key: KeyEvent) {
        if self.diff.as_ref().is_some_and(DiffView::commenting) {
            return self.comment_key(key);
        }
        let Some(v) = self.diff.as_mut() else {
            return;
        };
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc => {
                self.diff = None;
                self.reveal = true;
            }
            KeyCode::Char('q') if plain => {
                self.diff = None;
                self.reveal = true;
            }
            KeyCode::Up => v.step(false),
            KeyCode::Char('k') if plain => v.step(false),
            KeyCode::Down => v.step(true),
            KeyCode::Char('j') if plain => v.step(true),
            KeyCode::PageUp => v.page(false),
            KeyCode::PageDown => v.page(true),
            KeyCode::Home => v.ends(false),
            KeyCode::End => v.ends(true),
            KeyCode::Left | KeyCode::Right => {
                let (block, i, n) = (v.block, v.index, v.count.max(1));
                let file = if key.code == KeyCode::Right {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.set_focus(Some(Focus { block, file }));
                self.open_diff(block, file);
            }
            KeyCode::Char('c') if plain => self.start_comment(),
            _ => {}
        }
    }

    fn start_comment(&mut self) {
        if self.mode == (Mode::Participant { co_driver: false }) {
            self.hint = Some("viewers watch: the host and co-drivers can comment".into());
            return;
        }
        if !self.comments() {
            self.hint = Some("review comments are not available on this screen".into());
            return;
        }
        let Some(v) = self.diff.as_mut() else {
            return;
        };
        if v.target().is_none() {
            self.hint = Some("no line of code to comment on here".into());
            return;
        }
        v.comment = Some(InputBox::default());
    }

    /// A key in the comment's input.
    fn comment_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let newline = key
            .modifiers
            .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT);
        let Some(v) = self.diff.as_mut() else {
            return;
        };
        let Some(b) = v.comment.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Esc => v.comment = None,
            KeyCode::Enter if newline => b.insert('\n'),
            KeyCode::Char('j') if ctrl => b.insert('\n'),
            KeyCode::Char('u') if ctrl => b.clear(),
            KeyCode::Enter => self.send_comment(),
            KeyCode::Left => b.left(),
            KeyCode::Right => b.right(),
            KeyCode::Up => b.up(),
            KeyCode::Down => b.down(),
            KeyCode::Home => b.home(),
            KeyCode::End => b.end(),
            KeyCode::Backspace => b.backspace(),
            KeyCode::Delete => b.delete(),
            KeyCode::Char(c) if !ctrl => b.insert(c),
            _ => {}
        }
    }

    /// Pasted text, into the comment when one is open.
    pub(crate) fn paste_comment(&mut self, text: &str) -> bool {
        match self.diff.as_mut().and_then(|v| v.comment.as_mut()) {
            Some(b) => {
                b.insert_str(text);
                true
            }
            None => false,
        }
    }

    /// Enter on a comment: its text, built by the installed format, goes
    /// out as what this screen sends; the diff closes so the answer shows.
    fn send_comment(&mut self) {
        let (Some(v), Some(format)) = (self.diff.as_ref(), self.review) else {
            return;
        };
        let comment = v
            .comment
            .as_ref()
            .map(|b| b.text().trim().to_string())
            .unwrap_or_default();
        if comment.is_empty() {
            return;
        }
        let Some((line, old_side, hunk)) = v.target() else {
            return;
        };
        let text = format(&inert_line(&v.file.path), line, old_side, &hunk, &comment);
        self.diff = None;
        self.set_focus(None);
        match self.mode {
            Mode::Chat | Mode::Host => self.send_prompt(text),
            Mode::Participant { co_driver: true } => self.suggest(text),
            Mode::Participant { co_driver: false } => {}
        }
    }
}
