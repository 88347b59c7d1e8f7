//! Sans-IO line framer for an agent's stdout.
//!
//! Bytes in, [`Frame`]s out. Lines are bounded (a runaway or hostile agent
//! cannot make us buffer gigabytes), decoded lossily (one bad byte must not
//! lose a whole event) and a last line without its newline still counts.

/// Default maximum line length: 16 MiB. Agent CLIs embed whole file contents
/// in tool results, so lines of several MiB are legitimate.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One framed piece of stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line without its terminator (`\n` or `\r\n`). Invalid UTF-8
    /// is replaced with U+FFFD. Blank lines are skipped.
    Line(String),
    /// A line longer than the limit was dropped; `bytes` is its length
    /// (without the terminator). The stream continues after it.
    Oversized {
        /// Length of the dropped line.
        bytes: usize,
    },
}

/// Splits a byte stream into bounded lines.
#[derive(Debug)]
pub struct LineFramer {
    buf: Vec<u8>,
    max: usize,
    /// Bytes of an over-long line seen so far while we skip to its end.
    discarding: Option<usize>,
}

impl Default for LineFramer {
    fn default() -> Self {
        LineFramer::new(DEFAULT_MAX_LINE_BYTES)
    }
}

impl LineFramer {
    /// A framer that drops lines longer than `max_line_bytes`.
    pub fn new(max_line_bytes: usize) -> Self {
        LineFramer {
            buf: Vec::new(),
            max: max_line_bytes.max(1),
            discarding: None,
        }
    }

    /// Feed bytes; complete frames are appended to `out`.
    pub fn push(&mut self, mut data: &[u8], out: &mut Vec<Frame>) {
        while !data.is_empty() {
            match data.iter().position(|&b| b == b'\n') {
                Some(nl) => {
                    self.take_segment(&data[..nl], true, out);
                    data = &data[nl + 1..];
                }
                None => {
                    self.take_segment(data, false, out);
                    data = &[];
                }
            }
        }
    }

    /// End of input: a pending partial line is emitted as a line (agents that
    /// die mid-write still deliver what they wrote).
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if let Some(bytes) = self.discarding.take() {
            out.push(Frame::Oversized { bytes });
        } else if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            push_line(line, out);
        }
    }

    /// Bytes currently buffered (for tests and diagnostics).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    fn take_segment(&mut self, seg: &[u8], complete: bool, out: &mut Vec<Frame>) {
        if let Some(seen) = self.discarding.as_mut() {
            *seen += seg.len();
            if complete {
                let bytes = *seen;
                self.discarding = None;
                out.push(Frame::Oversized { bytes });
            }
            return;
        }
        let total = self.buf.len() + seg.len();
        if total > self.max {
            // Free the memory now rather than at the end of the line.
            self.buf = Vec::new();
            if complete {
                out.push(Frame::Oversized { bytes: total });
            } else {
                self.discarding = Some(total);
            }
            return;
        }
        if complete {
            let line = if self.buf.is_empty() {
                seg.to_vec()
            } else {
                let mut line = std::mem::take(&mut self.buf);
                line.extend_from_slice(seg);
                line
            };
            push_line(line, out);
        } else {
            self.buf.extend_from_slice(seg);
        }
    }
}

fn push_line(mut line: Vec<u8>, out: &mut Vec<Frame>) {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        return;
    }
    // No copy in the common (valid UTF-8) case.
    let text = match String::from_utf8(line) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    out.push(Frame::Line(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.push(c, &mut out);
        }
        f.finish(&mut out);
        out
    }

    fn line(s: &str) -> Frame {
        Frame::Line(s.to_string())
    }

    #[test]
    fn splits_lines_across_chunks() {
        let out = frames(100, &[b"ab", b"c\nde", b"f\r\n", b"\n", b"g\n"]);
        assert_eq!(out, vec![line("abc"), line("def"), line("g")]);
    }

    #[test]
    fn truncated_last_line_is_kept() {
        assert_eq!(
            frames(100, &[b"a\n{\"x\":"]),
            vec![line("a"), line("{\"x\":")]
        );
    }

    #[test]
    fn invalid_utf8_is_lossy_not_fatal() {
        let out = frames(100, &[b"ok\n", b"bad \xff\xfe end\n", b"after\n"]);
        assert_eq!(
            out,
            vec![line("ok"), line("bad \u{fffd}\u{fffd} end"), line("after")]
        );
    }

    #[test]
    fn utf8_split_across_chunks_survives() {
        let s = "héllo\n".as_bytes();
        let out = frames(100, &[&s[..2], &s[2..]]);
        assert_eq!(out, vec![line("héllo")]);
    }

    #[test]
    fn over_long_line_is_dropped_and_stream_continues() {
        let out = frames(8, &[b"short\n", b"0123456789", b"abc\n", b"next\n"]);
        assert_eq!(
            out,
            vec![line("short"), Frame::Oversized { bytes: 13 }, line("next")]
        );
        // Exactly at the limit is fine; one more is not.
        assert_eq!(
            frames(4, &[b"abcd\nabcde\n"]),
            vec![line("abcd"), Frame::Oversized { bytes: 5 }]
        );
    }

    #[test]
    fn over_long_unterminated_line_reported_at_eof() {
        let mut f = LineFramer::new(4);
        let mut out = Vec::new();
        f.push(b"abcdefgh", &mut out);
        assert!(out.is_empty());
        assert_eq!(f.buffered(), 0, "memory is released while discarding");
        f.finish(&mut out);
        assert_eq!(out, vec![Frame::Oversized { bytes: 8 }]);
    }

    #[test]
    fn seventeen_mib_line_is_dropped_with_default_limit() {
        let big = vec![b'x'; 17 * 1024 * 1024];
        let out = frames(
            DEFAULT_MAX_LINE_BYTES,
            &[b"{\"a\":1}\n", &big, b"\n{\"b\":2}\n"],
        );
        assert_eq!(
            out,
            vec![
                line("{\"a\":1}"),
                Frame::Oversized { bytes: big.len() },
                line("{\"b\":2}")
            ]
        );
    }
}
