//! Sans-IO stream framing: bytes in, frames out.
//!
//! [`SseDecoder`] implements the parts of the WHATWG event-stream format the
//! vendors use: `event:`/`data:` fields, multi-line `data:` joined with `\n`,
//! comment lines (`:`), `\n`, `\r\n` or `\r` line ends, a UTF-8 BOM. Bytes
//! may arrive split anywhere (inside a line, inside a `\r\n`, inside a UTF-8
//! sequence); a frame is emitted only once its blank line has arrived.
//! [`NdjsonDecoder`] does the same for newline-delimited JSON (Ollama).

/// One decoded frame: an SSE event, or one NDJSON line (no `event`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    /// The SSE `event:` field, when present.
    pub event: Option<String>,
    /// The payload (`data:` lines joined with `\n`, or the NDJSON line).
    pub data: String,
}

/// Lines longer than this are cut off: a protocol violation, not a reason
/// to grow memory without bound.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Splits bytes into lines, tolerant of every line ending and of splits.
#[derive(Debug, Default)]
struct Lines {
    buf: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` at the start of the next
    /// chunk belongs to that line ending.
    pending_cr: bool,
    /// Bytes dropped from over-long lines (reported by the caller).
    overflowed: bool,
}

impl Lines {
    fn push(&mut self, mut bytes: &[u8], out: &mut Vec<String>) {
        if bytes.is_empty() {
            return;
        }
        if self.pending_cr {
            self.pending_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => {
                    out.push(self.take());
                }
                b'\r' => {
                    out.push(self.take());
                    match bytes.get(i + 1) {
                        Some(b'\n') => i += 1,
                        Some(_) => {}
                        None => self.pending_cr = true,
                    }
                }
                b => {
                    if self.buf.len() < MAX_LINE_BYTES {
                        self.buf.push(b);
                    } else {
                        self.overflowed = true;
                    }
                }
            }
            i += 1;
        }
    }

    fn take(&mut self) -> String {
        let line = String::from_utf8_lossy(&self.buf).into_owned();
        self.buf.clear();
        line
    }

    /// The unterminated last line, if any.
    fn finish(&mut self) -> Option<String> {
        (!self.buf.is_empty()).then(|| self.take())
    }
}

/// Server-sent events decoder.
#[derive(Debug, Default)]
pub struct SseDecoder {
    lines: Lines,
    event: Option<String>,
    data: Option<String>,
    started: bool,
    scratch: Vec<String>,
}

impl SseDecoder {
    /// A fresh decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed bytes; complete frames are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        let mut lines = std::mem::take(&mut self.scratch);
        self.lines.push(bytes, &mut lines);
        for line in lines.drain(..) {
            self.line(line, out);
        }
        self.scratch = lines;
    }

    /// End of input: a frame without its final blank line is still emitted
    /// (servers that close right after the last `data:` line).
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if let Some(line) = self.lines.finish() {
            self.line(line, out);
        }
        self.dispatch(out);
    }

    /// Whether an over-long line was cut since the start.
    pub fn overflowed(&self) -> bool {
        self.lines.overflowed
    }

    fn line(&mut self, mut line: String, out: &mut Vec<Frame>) {
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_string();
            }
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return; // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            // `id`, `retry` and unknown fields carry nothing the vendors use.
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<Frame>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            out.push(Frame { event, data });
        }
    }
}

/// Newline-delimited JSON decoder: one frame per non-blank line.
#[derive(Debug, Default)]
pub struct NdjsonDecoder {
    lines: Lines,
    scratch: Vec<String>,
}

impl NdjsonDecoder {
    /// A fresh decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed bytes; complete lines are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        let mut lines = std::mem::take(&mut self.scratch);
        self.lines.push(bytes, &mut lines);
        out.extend(lines.drain(..).filter_map(ndjson_frame));
        self.scratch = lines;
    }

    /// End of input: the unterminated last line becomes a frame.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        out.extend(self.lines.finish().and_then(ndjson_frame));
    }

    /// Whether an over-long line was cut since the start.
    pub fn overflowed(&self) -> bool {
        self.lines.overflowed
    }
}

fn ndjson_frame(line: String) -> Option<Frame> {
    let t = line.trim();
    (!t.is_empty()).then(|| Frame {
        event: None,
        data: t.to_string(),
    })
}

/// Either decoder, chosen by the vendor's wire format.
#[derive(Debug)]
pub enum Decoder {
    /// `text/event-stream`.
    Sse(SseDecoder),
    /// `application/x-ndjson`.
    Ndjson(NdjsonDecoder),
}

impl Decoder {
    /// Feed bytes.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        match self {
            Decoder::Sse(d) => d.push(bytes, out),
            Decoder::Ndjson(d) => d.push(bytes, out),
        }
    }

    /// End of input.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        match self {
            Decoder::Sse(d) => d.finish(out),
            Decoder::Ndjson(d) => d.finish(out),
        }
    }

    /// Whether an over-long line was cut.
    pub fn overflowed(&self) -> bool {
        match self {
            Decoder::Sse(d) => d.overflowed(),
            Decoder::Ndjson(d) => d.overflowed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse_all(input: &[u8]) -> Vec<Frame> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        d.push(input, &mut out);
        d.finish(&mut out);
        out
    }

    const STREAM: &str = "\u{feff}: keep-alive\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\n\
        data: line one\ndata: line two\n\n:comment\n\nevent: é\rdata:x\r\rdata: héllo wörld\n\n";

    fn expected() -> Vec<Frame> {
        vec![
            Frame {
                event: Some("message_start".into()),
                data: "{\"a\":1}".into(),
            },
            Frame {
                event: None,
                data: "line one\nline two".into(),
            },
            Frame {
                event: Some("é".into()),
                data: "x".into(),
            },
            Frame {
                event: None,
                data: "héllo wörld".into(),
            },
        ]
    }

    #[test]
    fn whole_input() {
        assert_eq!(sse_all(STREAM.as_bytes()), expected());
    }

    #[test]
    fn split_at_every_offset() {
        let bytes = STREAM.as_bytes();
        for cut in 0..=bytes.len() {
            let mut d = SseDecoder::new();
            let mut out = Vec::new();
            d.push(&bytes[..cut], &mut out);
            d.push(&bytes[cut..], &mut out);
            d.finish(&mut out);
            assert_eq!(out, expected(), "split at byte {cut}");
        }
    }

    #[test]
    fn byte_at_a_time_and_three_way_splits() {
        let bytes = STREAM.as_bytes();
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for b in bytes {
            d.push(std::slice::from_ref(b), &mut out);
        }
        d.finish(&mut out);
        assert_eq!(out, expected());
        for a in (0..bytes.len()).step_by(3) {
            for b in (a..=bytes.len()).step_by(5) {
                let mut d = SseDecoder::new();
                let mut out = Vec::new();
                d.push(&bytes[..a], &mut out);
                d.push(&bytes[a..b], &mut out);
                d.push(&bytes[b..], &mut out);
                d.finish(&mut out);
                assert_eq!(out, expected(), "splits at {a},{b}");
            }
        }
    }

    #[test]
    fn frames_wait_for_blank_line_then_flush_at_eof() {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        d.push(b"data: partial", &mut out);
        assert!(out.is_empty());
        d.push(b"\n", &mut out);
        assert!(out.is_empty(), "no blank line yet");
        d.finish(&mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, "partial");
    }

    #[test]
    fn event_without_data_is_not_a_frame() {
        assert!(sse_all(b"event: ping\n\n").is_empty());
        assert_eq!(sse_all(b"data\n\n")[0].data, "");
    }

    #[test]
    fn ndjson_split_everywhere() {
        let input = "{\"a\":1}\r\n\n  {\"b\":\"ü\"}\n{\"c\":3}";
        let want = vec!["{\"a\":1}", "{\"b\":\"ü\"}", "{\"c\":3}"];
        let bytes = input.as_bytes();
        for cut in 0..=bytes.len() {
            let mut d = NdjsonDecoder::new();
            let mut out = Vec::new();
            d.push(&bytes[..cut], &mut out);
            d.push(&bytes[cut..], &mut out);
            d.finish(&mut out);
            let got: Vec<&str> = out.iter().map(|f| f.data.as_str()).collect();
            assert_eq!(got, want, "split at {cut}");
        }
    }

    #[test]
    fn garbage_never_panics() {
        let inputs: [&[u8]; 5] = [
            b"\xff\xfe\x00data: \xc3\n\n",
            b"\r\r\r\n\n\n",
            b"data:\xe2\x82",
            b":::::\ndata::\n\n",
            b"",
        ];
        for i in inputs {
            let _ = sse_all(i);
            let mut d = NdjsonDecoder::new();
            let mut out = Vec::new();
            d.push(i, &mut out);
            d.finish(&mut out);
        }
    }
}
