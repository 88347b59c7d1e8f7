//! A room over ACP (`cohost acp --agent claude --agent codex`): one ACP
//! session holds a room of agents, each a member session of its own (in
//! its own worktree inside git, on the one room path). An `agent` select
//! config option names the members; prompts go to the one selected, so an
//! editor switches between agents in one conversation pane.

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionValue, SessionConfigSelectOption,
    SetSessionConfigOptionRequest,
};
use cohost_core::sync::lock;
use cohost_core::{CohostError, ErrorCode};

use super::state::{AcpRoom, AcpState};
use crate::hub::OpenRequest;

/// The config option's id.
pub const AGENT_OPTION: &str = "agent";

impl AcpRoom {
    /// The `agent` select.
    pub(crate) fn option(&self) -> SessionConfigOption {
        let choices: Vec<SessionConfigSelectOption> = self
            .members
            .iter()
            .map(|(name, _)| SessionConfigSelectOption::new(name.clone(), name.clone()))
            .collect();
        SessionConfigOption::select(
            AGENT_OPTION,
            "Agent",
            self.members[self.current].0.clone(),
            choices,
        )
        .description(
            "The room member your prompts go to; each keeps its own conversation and worktree."
                .to_string(),
        )
    }

    /// The open session prompts go to.
    pub(crate) fn current_session(&self) -> &str {
        &self.members[self.current].1
    }
}

/// `session/new` on a room server: every member started; the ACP session
/// is named by the first member's session id.
pub async fn open(
    st: &AcpState,
    cwd: std::path::PathBuf,
) -> Result<(String, SessionConfigOption), CohostError> {
    let (_, members) = st
        .hub
        .open_room(
            OpenRequest {
                cwd: Some(cwd),
                ..OpenRequest::default()
            },
            &st.room_agents,
        )
        .await?;
    let room = AcpRoom {
        members: members
            .iter()
            .map(|(name, s)| (name.clone(), s.id().to_string()))
            .collect(),
        current: 0,
    };
    let id = room.members[0].1.clone();
    let option = room.option();
    lock(&st.rooms).insert(id.clone(), room);
    Ok((id, option))
}

fn refused(message: String, fix: &str) -> CohostError {
    CohostError::new(ErrorCode::ConfigInvalid, message).with_fix(fix)
}

/// `session/set_config_option` for `agent` on a room session; `None` when
/// the session is not a room (another option's business).
pub fn set(
    st: &AcpState,
    req: &SetSessionConfigOptionRequest,
) -> Option<Result<Vec<SessionConfigOption>, CohostError>> {
    let id = req.session_id.to_string();
    let mut rooms = lock(&st.rooms);
    let room = rooms.get_mut(&id)?;
    if req.config_id.to_string() != AGENT_OPTION {
        return Some(Err(refused(
            format!("unknown config option `{}`", req.config_id),
            "a room's option is `agent`",
        )));
    }
    let SessionConfigOptionValue::ValueId { value } = &req.value else {
        return Some(Err(refused(
            "`agent` takes a member's name".into(),
            "pick one of the option's values",
        )));
    };
    if lock(&st.running).contains(&id) {
        return Some(Err(refused(
            format!("session `{id}` is running a prompt"),
            "switch agents between prompts (or session/cancel first)",
        )));
    }
    let Some(at) = room
        .members
        .iter()
        .position(|(n, _)| *n == value.to_string())
    else {
        let names: Vec<&str> = room.members.iter().map(|(n, _)| n.as_str()).collect();
        return Some(Err(refused(
            format!("no member of this room is named `{value}`"),
            &format!("the members are: {}", names.join(", ")),
        )));
    };
    room.current = at;
    Some(Ok(vec![room.option()]))
}
