//! The input box: multi-line text with a cursor and a history of what was
//! sent. Enter sends; Alt+Enter or Ctrl+J starts a new line; Up and Down
//! walk the history from the first or last line.

/// Text being typed.
#[derive(Debug, Clone, Default)]
pub struct InputBox {
    text: String,
    /// Byte offset of the cursor in `text` (always a char boundary).
    cursor: usize,
    history: Vec<String>,
    /// Position while walking the history (`history.len()`: the draft).
    walk: usize,
    draft: String,
}

impl InputBox {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The cursor's byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replace the text, cursor at its end.
    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
    }

    /// Empty the box.
    pub fn clear(&mut self) {
        self.set("");
    }

    /// Insert a character at the cursor.
    pub fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Insert a string (a paste) at the cursor.
    pub fn insert_str(&mut self, s: &str) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    /// Delete the character before the cursor.
    pub fn backspace(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    /// Delete the character under the cursor.
    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    /// Move one character left.
    pub fn left(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    /// Move one character right.
    pub fn right(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    /// To the start of the line.
    pub fn home(&mut self) {
        self.cursor = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
    }

    /// To the end of the line.
    pub fn end(&mut self) {
        self.cursor += self.text[self.cursor..]
            .find('\n')
            .unwrap_or(self.text.len() - self.cursor);
    }

    /// Whether the cursor is on the first line (Up walks the history there).
    pub fn on_first_line(&self) -> bool {
        !self.text[..self.cursor].contains('\n')
    }

    /// Whether the cursor is on the last line.
    pub fn on_last_line(&self) -> bool {
        !self.text[self.cursor..].contains('\n')
    }

    /// Move up a line, keeping the column roughly.
    pub fn up(&mut self) {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        if start == 0 {
            return;
        }
        let col = self.text[start..self.cursor].chars().count();
        let prev_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = advance(&self.text, prev_start, col, start - 1);
    }

    /// Move down a line.
    pub fn down(&mut self) {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        let col = self.text[start..self.cursor].chars().count();
        let Some(nl) = self.text[self.cursor..].find('\n') else {
            return;
        };
        let next = self.cursor + nl + 1;
        let next_end = self.text[next..]
            .find('\n')
            .map_or(self.text.len(), |i| next + i);
        self.cursor = advance(&self.text, next, col, next_end);
    }

    /// The previous entry of the history.
    pub fn history_prev(&mut self) {
        if self.walk == 0 {
            return;
        }
        if self.walk == self.history.len() {
            self.draft = self.text.clone();
        }
        self.walk -= 1;
        let t = self.history[self.walk].clone();
        self.set(&t);
    }

    /// The next entry, then the draft.
    pub fn history_next(&mut self) {
        if self.walk >= self.history.len() {
            return;
        }
        self.walk += 1;
        let t = if self.walk == self.history.len() {
            std::mem::take(&mut self.draft)
        } else {
            self.history[self.walk].clone()
        };
        self.set(&t);
    }

    /// Take the text to send; it joins the history.
    pub fn take(&mut self) -> String {
        let t = std::mem::take(&mut self.text);
        self.cursor = 0;
        if !t.trim().is_empty() && self.history.last() != Some(&t) {
            self.history.push(t.clone());
        }
        self.walk = self.history.len();
        t
    }

    /// The (line, column) of the cursor, columns in characters.
    pub fn cursor_pos(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let line = before.matches('\n').count();
        let col = crate::wrap::width(before.rsplit('\n').next().unwrap_or(""));
        (line, col)
    }
}

/// The byte offset `col` characters after `from`, at most `limit`.
fn advance(text: &str, from: usize, col: usize, limit: usize) -> usize {
    let mut at = from;
    for c in text[from..limit].chars().take(col) {
        at += c.len_utf8();
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editing_and_history() {
        let mut b = InputBox::default();
        for c in "héllo".chars() {
            b.insert(c);
        }
        b.left();
        b.backspace();
        assert_eq!(b.text(), "hélo");
        b.home();
        b.insert('>');
        assert_eq!(b.take(), ">hélo");
        b.insert_str("two\r\nlines");
        assert_eq!(b.cursor_pos(), (1, 5));
        b.up();
        assert_eq!(b.cursor_pos(), (0, 3));
        b.down();
        assert_eq!(b.cursor_pos(), (1, 3));
        assert_eq!(b.take(), "two\nlines");
        b.insert('x');
        b.history_prev();
        assert_eq!(b.text(), "two\nlines");
        b.history_prev();
        assert_eq!(b.text(), ">hélo");
        b.history_next();
        b.history_next();
        assert_eq!(b.text(), "x", "the draft comes back");
    }
}
