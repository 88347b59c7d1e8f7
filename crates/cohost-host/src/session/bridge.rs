//! The room bridge's private channels: one Unix socket per member, in a
//! directory only this user can enter, on which the member's agent's MCP
//! server (`cohost room-bridge`, started by the agent itself) sends its
//! tool calls as JSON lines. The socket a call arrives on is who calls:
//! every member has its own. Calls are answered by the room's
//! [`RoomBridge`].

use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cohost_core::bridge::{BridgeReply, BridgeRequest, BRIDGE_SERVER};
use cohost_core::{CohostError, ErrorCode, McpServer};
use cohost_session::RoomBridge;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The variable naming the socket, for `cohost room-bridge`.
pub const BRIDGE_SOCKET_VAR: &str = "COHOST_ROOM_BRIDGE";

/// The longest call line read (a prompt for another member, JSON-quoted).
const MAX_LINE: usize = 1024 * 1024;

/// A room's bridge sockets. Dropping it stops them and removes the
/// directory.
pub struct BridgeSockets {
    dir: PathBuf,
    command: PathBuf,
    bridge: Arc<RoomBridge>,
    listeners: Mutex<HashMap<String, JoinHandle<()>>>,
    next: Mutex<usize>,
}

impl Drop for BridgeSockets {
    fn drop(&mut self) {
        if let Ok(tasks) = self.listeners.lock() {
            for t in tasks.values() {
                t.abort();
            }
        }
        // Best effort: only sockets and an empty directory.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A bridge socket (or its directory) that could not be made.
#[derive(Debug, thiserror::Error)]
#[error("the room bridge cannot {what} {}: {source}", path.display())]
pub struct BridgeSocketError {
    what: &'static str,
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

impl From<BridgeSocketError> for CohostError {
    fn from(e: BridgeSocketError) -> CohostError {
        CohostError::new(ErrorCode::ConfigInvalid, e.to_string())
            .with_fix("check that the temp directory (TMPDIR) is writable")
    }
}

fn io(what: &'static str, path: &Path, source: std::io::Error) -> BridgeSocketError {
    BridgeSocketError {
        what,
        path: path.to_path_buf(),
        source,
    }
}

impl BridgeSockets {
    /// Sockets answered by `bridge`, for agents that start `command
    /// room-bridge` (the cohost binary) as their MCP server.
    pub fn new(
        command: PathBuf,
        bridge: Arc<RoomBridge>,
    ) -> Result<BridgeSockets, BridgeSocketError> {
        // Short (a socket path has ~100 bytes) and private (0700).
        let dir =
            std::env::temp_dir().join(format!("cohost-bridge-{}", cohost_core::ids::random_tag()));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| io("create", &dir, e))?;
        Ok(BridgeSockets {
            dir,
            command,
            bridge,
            listeners: Mutex::new(HashMap::new()),
            next: Mutex::new(0),
        })
    }

    /// The bridge the sockets answer with.
    pub fn bridge(&self) -> &Arc<RoomBridge> {
        &self.bridge
    }

    /// Open `member`'s socket: the MCP server to give its agent.
    pub fn listen(&self, member: &str) -> Result<McpServer, BridgeSocketError> {
        let n = {
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            *next += 1;
            *next
        };
        let path = self.dir.join(format!("m{n}.sock"));
        let listener = UnixListener::bind(&path).map_err(|e| io("listen on", &path, e))?;
        let task = tokio::spawn(accept(listener, member.to_owned(), self.bridge.clone()));
        if let Some(old) = self
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(member.to_owned(), task)
        {
            old.abort();
        }
        Ok(McpServer {
            name: BRIDGE_SERVER.into(),
            command: self.command.clone(),
            args: vec!["room-bridge".into()],
            env: BTreeMap::from([(
                BRIDGE_SOCKET_VAR.to_string(),
                path.to_string_lossy().into_owned(),
            )]),
        })
    }

    /// Close `member`'s socket (it left the room).
    pub fn forget(&self, member: &str) {
        if let Some(t) = self
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(member)
        {
            t.abort();
        }
    }
}

async fn accept(listener: UnixListener, member: String, bridge: Arc<RoomBridge>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve(stream, member.clone(), bridge.clone()));
            }
            Err(e) => {
                tracing::warn!(%member, error = %e, "the room bridge stopped accepting");
                return;
            }
        }
    }
}

/// One connection of a member's MCP server: each call line answered by its
/// own task (a long `ask_member` does not hold up `list_members`), replies
/// written as they are ready.
async fn serve(stream: UnixStream, member: String, bridge: Arc<RoomBridge>) {
    let (read, mut write) = stream.into_split();
    let (tx, mut replies) = mpsc::unbounded_channel::<BridgeReply>();
    let writer = tokio::spawn(async move {
        while let Some(r) = replies.recv().await {
            let Ok(mut line) = serde_json::to_vec(&r) else {
                continue;
            };
            line.push(b'\n');
            if write.write_all(&line).await.is_err() {
                return;
            }
        }
    });
    let mut lines = BufReader::new(read);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let Ok(n) = (&mut lines)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .await
        else {
            break;
        };
        if n == 0 {
            break;
        }
        let request: Result<BridgeRequest, String> = if buf.len() > MAX_LINE {
            Err(format!("a bridge call over {MAX_LINE} bytes"))
        } else {
            serde_json::from_slice(&buf).map_err(|e| format!("not a bridge call: {e}"))
        };
        match request {
            Ok(req) => {
                let (bridge, member, tx) = (bridge.clone(), member.clone(), tx.clone());
                tokio::spawn(async move {
                    let outcome = bridge
                        .handle(&member, req.call)
                        .await
                        .map_err(CohostError::from);
                    let _ = tx.send(BridgeReply {
                        id: req.id,
                        outcome,
                    });
                });
            }
            Err(why) => {
                // The reply is the wire (the agent's MCP server reads it).
                let _ = tx.send(BridgeReply {
                    id: 0,
                    outcome: Err(CohostError::new(ErrorCode::InvalidOutput, why)
                        .with_fix("the room bridge takes one JSON call per line")),
                });
                if buf.len() > MAX_LINE {
                    break;
                }
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_agents::mock::{MockFactory, MockOptions};
    use cohost_core::bridge::{BridgeCall, BridgeRules};
    use cohost_core::{AdapterConfig, AdapterFactory, HostSession, Policy, SessionOptions};
    use cohost_session::{LogLimits, Member, Room, RunningSession, SessionInfo};
    use tokio::io::AsyncBufReadExt;

    /// A room of one mock member, `name`, whose agent asks cohost before
    /// its MCP tools (so the bridge itself asks nobody).
    async fn room_of(name: &str) -> Room {
        let factory = Arc::new(MockFactory::new(MockOptions::default()));
        let mut descriptor = factory.descriptor();
        descriptor.capabilities.mcp_approvals = true;
        let mut s = HostSession::new(
            factory,
            AdapterConfig::default(),
            Arc::new(Policy::AllowAll),
            SessionOptions::default(),
        );
        s.start().await.unwrap();
        let info = SessionInfo {
            record_id: None,
            descriptor,
            cwd: std::env::temp_dir(),
            model: None,
        };
        let session = RunningSession::spawn(s, info, None, LogLimits::default());
        Room::new(vec![Member {
            name: name.into(),
            session,
        }])
        .unwrap()
    }

    #[tokio::test]
    async fn a_members_socket_answers_its_calls_as_that_member_and_bad_lines_get_an_error() {
        let (notes_tx, mut notes) = mpsc::unbounded_channel();
        let bridge = RoomBridge::new(BridgeRules::default(), notes_tx);
        let room = room_of("codex").await;
        bridge.set_room(room.clone());
        let sockets = BridgeSockets::new("/bin/cohost".into(), bridge).unwrap();
        let spec = sockets.listen("codex").unwrap();
        assert_eq!(spec.name, "cohost_room");
        assert_eq!(spec.args, ["room-bridge"]);
        let path = PathBuf::from(&spec.env[BRIDGE_SOCKET_VAR]);
        let mode = std::fs::metadata(path.parent().unwrap()).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
            0o700
        );
        let stream = UnixStream::connect(&path).await.unwrap();
        let (read, mut write) = stream.into_split();
        let call = BridgeRequest {
            id: 9,
            call: BridgeCall::PostToRoom { text: "hi".into() },
        };
        let mut line = serde_json::to_vec(&call).unwrap();
        line.extend_from_slice(b"\n{not json\n");
        write.write_all(&line).await.unwrap();
        let mut lines = BufReader::new(read).lines();
        let mut got = Vec::new();
        for _ in 0..2 {
            let l = lines.next_line().await.unwrap().unwrap();
            got.push(serde_json::from_str::<BridgeReply>(&l).unwrap());
        }
        got.sort_by_key(|r| r.id);
        assert!(got[0]
            .outcome
            .as_ref()
            .unwrap_err()
            .message
            .contains("not a bridge call"));
        assert_eq!(got[1].id, 9);
        assert_eq!(got[1].outcome.as_ref().unwrap()["posted"], true);
        assert_eq!(
            notes.recv().await,
            Some(cohost_session::BridgeNote::Posted {
                from: "codex".into(),
                text: "hi".into()
            })
        );
        let dir = path.parent().unwrap().to_path_buf();
        drop(sockets);
        assert!(!dir.exists(), "the sockets' directory goes with them");
        room.terminate().await.unwrap();
    }
}
