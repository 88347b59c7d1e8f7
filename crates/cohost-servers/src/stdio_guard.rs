//! The line gate in front of the stdio servers (`cohost acp`, `cohost mcp`).
//!
//! The protocol SDKs end the whole connection on a line that is not UTF-8
//! (every session of an editor with it), answer a line that is not JSON
//! with nothing, and buffer a request of any size. JSON-RPC says a line that
//! cannot be parsed gets a parse error (`-32700`, `id: null`) and the
//! connection goes on, so the gate reads stdin itself: a line that is not
//! UTF-8 or not JSON is answered here with that error, a line longer than
//! [`MAX_LINE`] with an invalid-request error (`-32600`) without being held
//! in memory, and only well-formed lines reach the SDK. Replies from the
//! gate and from the SDK go out through one writer, a whole line at a time.

use futures::channel::mpsc;
use futures::{Sink, SinkExt, Stream, StreamExt};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

/// The longest request line the servers read (32 MiB: a prompt with large
/// embedded files fits; a runaway client does not fill memory).
pub(crate) const MAX_LINE: usize = 32 * 1024 * 1024;

/// JSON-RPC's parse error.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// What the gate made of one line.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A JSON line for the SDK.
    Json(String),
    /// Nothing to do (a blank line).
    Blank,
    /// Answer with this error line.
    Refused(String),
}

/// One JSON-RPC error reply (`id: null`: the request could not be read).
pub(crate) fn error_line(code: i64, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message },
    })
    .to_string()
}

/// Judge one complete line (without its newline).
fn judge(bytes: &[u8]) -> Line {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return Line::Refused(error_line(
                PARSE_ERROR,
                &format!(
                    "Parse error: the line is not valid UTF-8 (at byte {}); send one JSON-RPC message per line, UTF-8 encoded",
                    e.valid_up_to()
                ),
            ))
        }
    };
    if text.trim().is_empty() {
        return Line::Blank;
    }
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => Line::Json(text.to_string()),
        Err(e) => Line::Refused(error_line(
            PARSE_ERROR,
            &format!("Parse error: the line is not JSON ({e}); send one JSON-RPC message per line"),
        )),
    }
}

/// Read `reader` line by line, at most `max` bytes a line: good lines are
/// sent to `good`, answers to refused ones to `replies`. Ends at EOF, on a
/// read error, or when `good` is closed.
async fn gate(
    mut reader: impl AsyncBufRead + Unpin,
    max: usize,
    mut good: mpsc::Sender<std::io::Result<String>>,
    replies: mpsc::UnboundedSender<String>,
) {
    let mut line: Vec<u8> = Vec::new();
    let mut oversized = false;
    loop {
        let chunk = match reader.fill_buf().await {
            Ok(c) => c,
            Err(e) => {
                let _ = good.send(Err(e)).await;
                return;
            }
        };
        if chunk.is_empty() {
            // EOF: a last line without its newline still counts.
            if !line.is_empty() && !oversized {
                let _ = deliver(judge(&line), &mut good, &replies).await;
            }
            return;
        }
        let (part, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !oversized {
            if line.len() + part.len() > max {
                oversized = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            let verdict = if oversized {
                Line::Refused(error_line(
                    INVALID_REQUEST,
                    &format!(
                        "Invalid request: the line is longer than {} MiB and was not read",
                        max / (1024 * 1024)
                    ),
                ))
            } else {
                judge(&line)
            };
            oversized = false;
            line.clear();
            if deliver(verdict, &mut good, &replies).await.is_err() {
                return;
            }
        }
    }
}

async fn deliver(
    verdict: Line,
    good: &mut mpsc::Sender<std::io::Result<String>>,
    replies: &mpsc::UnboundedSender<String>,
) -> Result<(), ()> {
    match verdict {
        Line::Json(text) => good.send(Ok(text)).await.map_err(|_| ()),
        Line::Blank => Ok(()),
        Line::Refused(reply) => {
            tracing::debug!("refused a malformed line from the client");
            replies.unbounded_send(reply).map_err(|_| ())
        }
    }
}

/// Write every line from `lines` to `writer`, each whole and flushed.
async fn write_lines(
    mut writer: impl AsyncWrite + Unpin,
    mut lines: mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    while let Some(mut line) = lines.next().await {
        if !line.ends_with('\n') {
            line.push('\n');
        }
        writer.write_all(line.as_bytes()).await?;
        writer.flush().await?;
    }
    Ok(())
}

/// Gated lines from `reader` and a sink of lines to `writer`: what a
/// line-based SDK transport takes. The gate's own replies share the writer.
pub(crate) fn lines(
    reader: impl AsyncBufRead + Unpin + Send + 'static,
    writer: impl AsyncWrite + Unpin + Send + 'static,
    max: usize,
) -> (
    impl Stream<Item = std::io::Result<String>> + Send + 'static,
    impl Sink<String, Error = std::io::Error> + Send + 'static,
) {
    let (good_tx, good_rx) = mpsc::channel(16);
    let (out_tx, out_rx) = mpsc::unbounded();
    tokio::spawn(gate(reader, max, good_tx, out_tx.clone()));
    tokio::spawn(async move {
        if let Err(e) = write_lines(writer, out_rx).await {
            tracing::debug!(error = %e, "the client stopped reading");
        }
    });
    let sink = out_tx.sink_map_err(|e| std::io::Error::new(std::io::ErrorKind::BrokenPipe, e));
    (good_rx, sink)
}

/// [`lines`] over this process's stdin and stdout.
pub(crate) fn stdio() -> (
    impl Stream<Item = std::io::Result<String>> + Send + 'static,
    impl Sink<String, Error = std::io::Error> + Send + 'static,
) {
    lines(
        tokio::io::BufReader::new(tokio::io::stdin()),
        tokio::io::stdout(),
        MAX_LINE,
    )
}

/// [`stdio`] as a byte-stream pair for an SDK that reads and writes bytes
/// (`rmcp`): what it writes goes out a whole line at a time.
pub(crate) fn stdio_bytes() -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    let (incoming, outgoing) = stdio();
    byte_streams(incoming, outgoing)
}

/// Bridge gated lines and a line sink to two byte streams: read the
/// requests from the first, write the replies to the second.
fn byte_streams(
    incoming: impl Stream<Item = std::io::Result<String>> + Send + 'static,
    outgoing: impl Sink<String, Error = std::io::Error> + Send + 'static,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    let (mut to_sdk, sdk_reads) = tokio::io::duplex(1 << 20);
    let (sdk_writes, from_sdk) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let mut incoming = std::pin::pin!(incoming);
        while let Some(Ok(line)) = incoming.next().await {
            if to_sdk.write_all(line.as_bytes()).await.is_err()
                || to_sdk.write_all(b"\n").await.is_err()
            {
                break;
            }
        }
        // EOF for the SDK: the client is gone.
        let _ = to_sdk.shutdown().await;
    });
    tokio::spawn(async move {
        let mut outgoing = std::pin::pin!(outgoing);
        let mut lines = tokio::io::BufReader::new(from_sdk).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if outgoing.send(line).await.is_err() {
                break;
            }
        }
    });
    (sdk_reads, sdk_writes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn run(input: Vec<u8>, max: usize) -> (Vec<String>, Vec<serde_json::Value>) {
        let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
        let reader = tokio::io::BufReader::new(std::io::Cursor::new(input));
        let (incoming, sink) = lines(reader, out_w, max);
        let good: Vec<String> = incoming.map(|l| l.unwrap()).collect().await;
        drop(sink);
        let mut written = String::new();
        let _ = tokio::time::timeout(
            std::time::Duration::from_millis(200),
            out_r.read_to_string(&mut written),
        )
        .await;
        let replies = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (good, replies)
    }

    #[tokio::test]
    async fn good_lines_pass_and_bad_ones_get_their_json_rpc_error() {
        let mut input = b"{\"a\":1}\n\nnot json\n".to_vec();
        input.extend_from_slice(b"{\"b\":\"\xff\"}\n");
        input.extend_from_slice(b"{\"c\":3}");
        let (good, replies) = run(input, 1024).await;
        assert_eq!(good, ["{\"a\":1}", "{\"c\":3}"]);
        assert_eq!(replies.len(), 2, "{replies:?}");
        for r in &replies {
            assert_eq!(r["error"]["code"], PARSE_ERROR);
            assert!(r["id"].is_null());
        }
        assert!(replies[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON"));
        assert!(replies[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("UTF-8"));
    }

    #[tokio::test]
    async fn an_oversized_line_is_refused_without_being_kept_and_the_next_one_passes() {
        let mut input = vec![b'x'; 10_000];
        input.extend_from_slice(b"\n{\"ok\":true}\r\n");
        let (good, replies) = run(input, 100).await;
        assert_eq!(good, ["{\"ok\":true}"]);
        assert_eq!(replies[0]["error"]["code"], INVALID_REQUEST);
    }
}
