//! `cohost hook-event <agent>`: what the installed hook runs. It forwards
//! the agent's JSON to a running `cohost serve` over a Unix socket and exits
//! quickly whatever happens — a hook must never block or fail the agent.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

/// Hard limit of the whole forward.
pub(super) const HOOK_TIMEOUT: Duration = Duration::from_millis(1000);
/// Largest payload forwarded.
const MAX_PAYLOAD: usize = 1 << 20;

/// One event from an agent's hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookEvent {
    /// `claude`, `codex`, `gemini`.
    pub agent: String,
    /// The agent's JSON (Claude/Gemini on stdin, Codex as the last argument).
    pub payload: serde_json::Value,
}

/// What `hook_event` did (for logs; the exit code is 0 in every case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookEventOutcome {
    /// Delivered to a running cohost.
    Forwarded,
    /// No cohost is listening.
    NoListener,
    /// The payload was not JSON, or the forward failed or timed out.
    Dropped(String),
}

/// Forward one hook event. `arg_payload` is Codex's JSON argument; without
/// it the payload is read from `stdin` (bounded). Always returns within
/// about [`HOOK_TIMEOUT`].
pub async fn hook_event<R>(
    socket: &Path,
    agent: &str,
    arg_payload: Option<&str>,
    stdin: R,
) -> HookEventOutcome
where
    R: tokio::io::AsyncRead + Unpin,
{
    let forward = async move {
        // Check for a listener first so an agent with no cohost running pays
        // for one failed connect, not for reading its stdin.
        let Ok(mut stream) = UnixStream::connect(socket).await else {
            return HookEventOutcome::NoListener;
        };
        let raw = match arg_payload {
            Some(a) => a.to_string(),
            None => {
                let mut buf = Vec::new();
                if let Err(e) = stdin.take(MAX_PAYLOAD as u64).read_to_end(&mut buf).await {
                    return HookEventOutcome::Dropped(format!("stdin: {e}"));
                }
                String::from_utf8_lossy(&buf).into_owned()
            }
        };
        let payload: serde_json::Value = match serde_json::from_str(raw.trim()) {
            Ok(v) => v,
            Err(e) => return HookEventOutcome::Dropped(format!("payload is not JSON: {e}")),
        };
        let event = HookEvent {
            agent: agent.to_string(),
            payload,
        };
        let mut line = serde_json::to_string(&event).unwrap_or_default();
        line.push('\n');
        match stream.write_all(line.as_bytes()).await {
            Ok(()) => {
                // Best effort: the listener reads to the newline anyway.
                let _ = stream.shutdown().await;
                HookEventOutcome::Forwarded
            }
            Err(e) => HookEventOutcome::Dropped(e.to_string()),
        }
    };
    match tokio::time::timeout(HOOK_TIMEOUT, forward).await {
        Ok(outcome) => outcome,
        Err(_) => HookEventOutcome::Dropped("timed out".into()),
    }
}

/// Listen on `socket` (replacing a stale one) and deliver hook events.
/// The socket is private to the user (mode 0600 directory and file).
pub fn listen_hook_events(socket: &Path) -> std::io::Result<(mpsc::Receiver<HookEvent>, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = socket.parent() {
        std::fs::create_dir_all(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    if socket.exists() {
        std::fs::remove_file(socket)?;
    }
    let listener = UnixListener::bind(socket)?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut line = String::new();
                let mut reader = BufReader::new(stream.take(MAX_PAYLOAD as u64 + 1024));
                if tokio::time::timeout(HOOK_TIMEOUT, reader.read_line(&mut line))
                    .await
                    .is_ok()
                {
                    if let Ok(ev) = serde_json::from_str::<HookEvent>(&line) {
                        // A full channel drops the event rather than block the hook.
                        let _ = tx.try_send(ev);
                    }
                }
            });
        }
    });
    Ok((rx, socket.to_path_buf()))
}
