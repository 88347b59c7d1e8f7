//! `cohost room-bridge`: the MCP server an agent in a room starts (its MCP
//! configuration names it, with the socket in `COHOST_ROOM_BRIDGE`). It
//! offers `ask_member`, `list_members` and `post_to_room`, and forwards
//! each call over the member's private socket to the cohost process that
//! runs the room, which answers it (`cohost_session::RoomBridge`). It reads
//! no config and no state: it runs inside the agent's sandbox.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cohost_core::bridge::{BridgeCall, BridgeReply, BridgeRequest};
use cohost_core::{CohostError, ErrorCode, Sanitizer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::oneshot;

type Waiting = Arc<Mutex<HashMap<u64, oneshot::Sender<BridgeReply>>>>;

/// The member's side of its private socket: calls out, replies matched by id.
struct Channel {
    write: tokio::sync::Mutex<OwnedWriteHalf>,
    waiting: Waiting,
    next: AtomicU64,
}

fn lost(e: impl std::fmt::Display) -> CohostError {
    CohostError::new(
        ErrorCode::NetworkError,
        format!("the room is not reachable: {e}"),
    )
    .with_fix("the cohost process running the room has ended; go on without the room")
}

impl Channel {
    async fn connect(socket: &PathBuf) -> Result<Channel, CohostError> {
        let stream = UnixStream::connect(socket).await.map_err(lost)?;
        let (read, write) = stream.into_split();
        let waiting: Waiting = Arc::default();
        let replies = waiting.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(reply) = serde_json::from_str::<BridgeReply>(&line) else {
                    continue;
                };
                let to = replies
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&reply.id);
                if let Some(to) = to {
                    let _ = to.send(reply);
                }
            }
            // The room is gone: every waiting call hears so (its sender drops).
            replies.lock().unwrap_or_else(|p| p.into_inner()).clear();
        });
        Ok(Channel {
            write: tokio::sync::Mutex::new(write),
            waiting,
            next: AtomicU64::new(1),
        })
    }

    async fn call(&self, call: BridgeCall) -> Result<Value, CohostError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        let mut line = serde_json::to_vec(&BridgeRequest { id, call }).map_err(lost)?;
        line.push(b'\n');
        self.write
            .lock()
            .await
            .write_all(&line)
            .await
            .map_err(lost)?;
        rx.await.map_err(lost)?.outcome
    }
}

/// The bridge's MCP handler.
#[derive(Clone)]
pub struct RoomBridgeMcp {
    socket: PathBuf,
    channel: Arc<tokio::sync::OnceCell<Channel>>,
    sanitizer: Arc<Sanitizer>,
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(o) => Arc::new(o),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The bridge's tools.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "ask_member",
            "Ask another agent of this cohost room (list_members names them) and get its answer. \
             It runs a turn of that agent, which the people in the room see; the room's rules \
             refuse loops (asking an agent that is waiting for you) and chains too deep.",
            object(json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "the member's name, e.g. codex"},
                    "prompt": {"type": "string", "description": "what to ask it"}
                },
                "required": ["name", "prompt"]
            })),
        ),
        Tool::new(
            "list_members",
            "The agents of this cohost room: name, agent, whether busy, and which one is you.",
            object(json!({"type": "object", "properties": {}})),
        ),
        Tool::new(
            "post_to_room",
            "A short note the people in this cohost room see (progress, a question for them).",
            object(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            })),
        ),
    ]
}

impl RoomBridgeMcp {
    /// A handler forwarding to `socket`, its errors passing `sanitizer`.
    pub fn new(socket: PathBuf, sanitizer: Arc<Sanitizer>) -> RoomBridgeMcp {
        RoomBridgeMcp {
            socket,
            sanitizer,
            channel: Arc::default(),
        }
    }

    async fn forward(&self, name: &str, args: JsonObject) -> Result<Value, CohostError> {
        let mut call = args;
        call.insert("tool".into(), Value::String(name.into()));
        let call: BridgeCall = serde_json::from_value(Value::Object(call)).map_err(|e| {
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("bad arguments for `{name}`: {e}"),
            )
            .with_fix("see the tool's input schema in tools/list")
        })?;
        let channel = self
            .channel
            .get_or_try_init(|| Channel::connect(&self.socket))
            .await?;
        channel.call(call).await
    }
}

impl ServerHandler for RoomBridgeMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                cohost_core::bridge::BRIDGE_SERVER,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "You are one of several agents in a cohost room. list_members names the others; \
                 ask_member asks one of them and returns its answer; post_to_room leaves a note \
                 for the people watching.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        if !tools().iter().any(|t| t.name == name) {
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        }
        let out = self
            .forward(name, request.arguments.unwrap_or_default())
            .await;
        Ok(crate::mcp::tool_result(&self.sanitizer, out).into())
    }
}

/// Serve the bridge on stdin/stdout until the agent closes it; its errors
/// pass `sanitizer` (the binary's).
pub async fn serve_stdio(socket: PathBuf, sanitizer: Arc<Sanitizer>) -> Result<(), CohostError> {
    let service = RoomBridgeMcp::new(socket, sanitizer)
        .serve(crate::stdio_guard::stdio_bytes())
        .await
        .map_err(|e| lost(format!("the agent did not initialize MCP: {e}")))?;
    service
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| lost(format!("the MCP connection failed: {e}")))
}
