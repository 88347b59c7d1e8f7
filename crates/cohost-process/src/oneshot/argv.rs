//! The per-driver hook of a one-shot command line: every driver starts
//! from [`turn_query`], adjusts the few fields its CLI needs, and builds the
//! argv through its flag table ([`crate::catalog::FlagTable::query_args`]).

use cohost_core::{AdapterConfig, ApprovalMode};
use std::ffi::OsString;

use super::SessionArg;
use crate::provider::{CliEntry, QueryArgs};

/// The query every one-shot turn starts from: the prompt, the model, the
/// permission bypass only under auto-approve (the user's consent), the
/// user's extra arguments, and the session (resumed, or a fresh one cohost
/// named).
pub fn turn_query(prompt: &str, config: &AdapterConfig, session: Option<&SessionArg>) -> QueryArgs {
    let mut q = QueryArgs {
        prompt: prompt.to_string(),
        model: config.model.clone(),
        skip_permissions: config.approval == ApprovalMode::AutoApprove,
        extra_args: config.extra_args.clone(),
        ..QueryArgs::default()
    };
    match session {
        Some(s) if s.fresh => q.fresh_session = Some(s.id.clone()),
        Some(s) => q.resume = Some(s.id.clone()),
        None => {}
    }
    q
}

/// The argv of `q` through `spec`'s flag table.
pub fn build(spec: &CliEntry, q: &QueryArgs) -> Vec<OsString> {
    spec.flags
        .query_args(q)
        .into_iter()
        .map(OsString::from)
        .collect()
}
