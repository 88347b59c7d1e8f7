//! Making remote text inert on a terminal: what a participant, an agent or a
//! provider sends must not move the cursor, clear the screen, set the window
//! title, write the clipboard (OSC 52) or hide text.

use std::borrow::Cow;

/// `text` without terminal control sequences: CSI (`ESC [ … final`), OSC
/// (`ESC ] … BEL/ST`), DCS, SOS, PM and APC strings (up to ST), other
/// two-byte escapes, their 8-bit C1 forms, and every C0/C1 control character
/// except newline and tab. Printable text is kept as is.
pub fn strip_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !is_control(c) {
            out.push(c);
            continue;
        }
        // What the control introduces: CSI, a string (OSC, DCS…), or nothing.
        let intro = match c {
            '\x1b' => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    Some(false)
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    Some(true)
                }
                Some(n) if ('\x20'..='\x7e').contains(&n) => {
                    // A two-byte escape (`ESC c` resets the terminal); an
                    // `ESC (` style one takes one more byte.
                    chars.next();
                    if ('\x20'..='\x2f').contains(&n) {
                        chars.next();
                    }
                    None
                }
                _ => None,
            },
            '\u{9b}' => Some(false),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => Some(true),
            _ => None,
        };
        match intro {
            // CSI: parameter and intermediate bytes, then one final byte.
            Some(false) => {
                for n in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&n) || is_control(n) {
                        break;
                    }
                }
            }
            // A string: up to BEL, ST (`ESC \` or 0x9c), or the end.
            Some(true) => {
                while let Some(n) = chars.next() {
                    if n == '\x07' || n == '\u{9c}' {
                        break;
                    }
                    if n == '\x1b' {
                        if chars.peek() == Some(&'\\') {
                            chars.next();
                        }
                        break;
                    }
                }
            }
            None => {}
        }
    }
    Cow::Owned(out)
}

/// A control character a terminal acts on (newline and tab are text).
fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}')
}

/// A name or role for one line of a display: controls removed and line
/// breaks too, so it cannot forge a second line.
pub fn inert_line(text: &str) -> String {
    strip_controls(text)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_are_removed() {
        let cases = [
            ("\x1b]0;pwned\x07\x1b[2Jhello", "hello"),
            ("a\x1b[31mred\x1b[0m b", "ared b"),
            ("osc52 \x1b]52;c;ZXZpbA==\x1b\\done", "osc52 done"),
            ("dcs \x1bPq#0;2;0;0;0\x1b\\ end", "dcs  end"),
            ("c1 \u{9b}2J and \u{9d}0;t\u{9c}x", "c1  and x"),
            ("bell\x07 bs\x08 cr\r del\x7f", "bell bs cr del"),
            ("reset \x1bc now", "reset  now"),
            ("charset \x1b(0box", "charset box"),
            ("keep\nnewlines\tand tabs", "keep\nnewlines\tand tabs"),
            ("unterminated \x1b]0;title", "unterminated "),
            ("trailing esc \x1b", "trailing esc "),
        ];
        for (input, want) in cases {
            assert_eq!(strip_controls(input), want, "{input:?}");
        }
        assert!(matches!(strip_controls("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_name_stays_on_one_line() {
        assert_eq!(
            inert_line("mallory\n[host] alice:\x1b[2K"),
            "mallory [host] alice:"
        );
    }
}
