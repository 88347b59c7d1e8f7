//! Model selection over ACP: a `model` select config option
//! (`session/set_config_option`), offered where cohost knows the
//! provider's models (`[providers.ID] models = [...]` in cohost's config).
//! Choosing one reopens the session on the one session path with that
//! model, resuming the same conversation under the same id.

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelectOption, SetSessionConfigOptionRequest,
};
use cohost_core::{CohostError, ErrorCode};

use crate::hub::{Hub, HubSession, OpenRequest};

/// The config option's id.
pub const MODEL_OPTION: &str = "model";

/// The models the session may switch to: the config's list, with the
/// session's own model first when it is not in it.
fn models(hub: &Hub, s: &HubSession) -> Vec<String> {
    let mut models = hub
        .host()
        .config()
        .map(|c| c.provider(&s.descriptor.id).models)
        .unwrap_or_default();
    if let Some(m) = &s.model {
        if !models.contains(m) {
            models.insert(0, m.clone());
        }
    }
    models
}

/// The session's config options: the model select, when cohost knows more
/// than one model for its provider.
pub fn options(hub: &Hub, s: &HubSession) -> Option<Vec<SessionConfigOption>> {
    let models = models(hub, s);
    if models.len() < 2 {
        return None;
    }
    let current = s.model.clone().unwrap_or_else(|| models[0].clone());
    let choices: Vec<SessionConfigSelectOption> = models
        .iter()
        .map(|m| SessionConfigSelectOption::new(m.clone(), m.clone()))
        .collect();
    Some(vec![SessionConfigOption::select(
        MODEL_OPTION,
        "Model",
        current,
        choices,
    )
    .category(SessionConfigOptionCategory::Model)
    .description(
        "The model the agent runs with (the session is resumed on it).".to_string(),
    )])
}

fn refused(message: String, fix: &str) -> CohostError {
    CohostError::new(ErrorCode::ConfigInvalid, message).with_fix(fix)
}

/// `session/set_config_option` for `model`: reopen the session on it.
pub async fn set(
    hub: &Hub,
    req: SetSessionConfigOptionRequest,
) -> Result<Vec<SessionConfigOption>, CohostError> {
    let id = req.session_id.to_string();
    if req.config_id.to_string() != MODEL_OPTION {
        return Err(refused(
            format!("unknown config option `{}`", req.config_id),
            "the only option is `model`",
        ));
    }
    let SessionConfigOptionValue::ValueId { value } = req.value else {
        return Err(refused(
            "`model` takes a model id".into(),
            "pick one of the option's values",
        ));
    };
    let model = value.to_string();
    let old = hub.get(&id)?;
    if old.busy() {
        return Err(refused(
            format!("session `{id}` is running a prompt"),
            "change the model between prompts (or session/cancel first)",
        ));
    }
    if !models(hub, &old).contains(&model) {
        return Err(refused(
            format!("`{model}` is not one of this session's models"),
            "pick one of the option's values (the list is `[providers.ID] models` in cohost's config)",
        ));
    }
    let cwd = old.cwd.clone();
    drop(old);
    hub.close(&id);
    let s = hub
        .open(OpenRequest {
            cwd: Some(cwd),
            model: Some(model),
            resume: Some(id),
            ..OpenRequest::default()
        })
        .await?;
    Ok(options(hub, &s).unwrap_or_default())
}
