//! `cohost room-bridge` (hidden): the MCP server an agent of a room starts
//! to ask the room's other agents; the room's cohost process set its
//! socket in the agent's MCP configuration.

use cohost_core::{CohostError, ErrorCode};
use cohost_host::session::BRIDGE_SOCKET_VAR;

use crate::exit::CmdResult;

/// Serve the bridge on stdio until the agent closes it.
pub async fn run() -> CmdResult {
    let Some(socket) = std::env::var_os(BRIDGE_SOCKET_VAR) else {
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("{BRIDGE_SOCKET_VAR} is not set: room-bridge is started by an agent in a cohost room"),
        )
        .with_fix("run a room (`cohost chat --agent claude --agent codex`); its agents start this themselves")
        .into());
    };
    cohost_servers::room_bridge::serve_stdio(socket.into(), crate::secrets::sanitizer()).await?;
    Ok(0)
}
