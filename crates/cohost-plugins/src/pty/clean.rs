//! Terminal output → plain text, through a real VT parser (`vte`).
//!
//! A PTY program paints a screen; cohost wants the words. The parser
//! consumes every escape sequence (colours, cursor moves, OSC titles,
//! bracketed-paste toggles, DCS strings) whole, even when split across
//! reads. What survives: printable characters, `\n`, `\t`. `\r\n` becomes
//! `\n`; a lone `\r` (spinners redrawing a line) and `ESC[K` are dropped;
//! backspace removes the previous character when it is still in the
//! buffer. This is a degraded view by design: no screen model, so a TUI
//! that redraws in place yields its redraws as text.

use vte::{Params, Parser, Perform};

/// Streaming cleaner: bytes in, plain text out.
pub struct TextCleaner {
    parser: Parser,
    sink: Sink,
}

#[derive(Default)]
struct Sink {
    out: String,
    pending_cr: bool,
}

impl Perform for Sink {
    fn print(&mut self, c: char) {
        self.pending_cr = false;
        self.out.push(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => {
                self.pending_cr = false;
                self.out.push('\n');
            }
            b'\r' => self.pending_cr = true,
            b'\t' => self.out.push('\t'),
            0x08 => {
                self.out.pop();
            }
            // BEL, SO/SI and other controls carry no text.
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, _p: &Params, _i: &[u8], _ignore: bool, _c: char) {}
    fn esc_dispatch(&mut self, _i: &[u8], _ignore: bool, _b: u8) {}
    fn osc_dispatch(&mut self, _p: &[&[u8]], _bell: bool) {}
}

impl Default for TextCleaner {
    fn default() -> Self {
        Self::new()
    }
}

impl TextCleaner {
    /// A cleaner in the ground state.
    pub fn new() -> Self {
        TextCleaner {
            parser: Parser::new(),
            sink: Sink::default(),
        }
    }

    /// Feed raw terminal bytes; returns the text they complete. Partial
    /// UTF-8 and partial escape sequences are kept for the next call.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.parser.advance(&mut self.sink, bytes);
        std::mem::take(&mut self.sink.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colours_titles_and_cursor_moves() {
        let mut c = TextCleaner::new();
        let raw = b"\x1b]0;title\x07\x1b[1;32mgreen\x1b[0m \x1b[2K\x1b[10Gtext\r\nnext\n";
        assert_eq!(c.push(raw), "green text\nnext\n");
    }

    #[test]
    fn sequences_split_across_reads_are_still_removed() {
        let mut c = TextCleaner::new();
        let mut got = String::new();
        for chunk in [
            &b"a\x1b"[..],
            b"[3",
            b"1mb\x1b]0;x",
            b"\x07c\xe2\x82",
            b"\xac",
        ] {
            got.push_str(&c.push(chunk));
        }
        assert_eq!(got, "abc€");
    }

    #[test]
    fn backspace_and_carriage_returns() {
        let mut c = TextCleaner::new();
        assert_eq!(c.push(b"abx\x08c\r\n"), "abc\n");
        assert_eq!(c.push(b"\rspin\r"), "spin");
    }

    #[test]
    fn garbage_never_panics() {
        let mut c = TextCleaner::new();
        let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let _ = c.push(&bytes);
        assert_eq!(c.push(b"\x1b[0mok"), "ok");
    }
}
