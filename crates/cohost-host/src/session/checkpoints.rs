//! The recorder of a session's working tree, as the setup service opens
//! it: git checkpoints (`cohost-git`), or, when they cannot be had (no
//! git, a directory too large outside git), a recorder that says why once
//! and then records nothing. The session runs either way.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use cohost_core::{Checkpoints, CohostError, TurnChanges, TurnMark};
use cohost_git::SessionCheckpoints;

use cohost_discovery::host::Host;

/// The recorder for session `id` in `cwd`.
pub(super) async fn open(host: &Host, cwd: &Path, id: &str) -> Arc<dyn Checkpoints> {
    match SessionCheckpoints::open(cwd, &host.paths.state_dir, id).await {
        Ok(cp) => Arc::new(cp),
        Err(e) => {
            tracing::info!(error = %e, "checkpoints are off for this session");
            Arc::new(Unavailable {
                why: CohostError::from(e),
                said: AtomicBool::new(false),
            })
        }
    }
}

/// Checkpoints that could not be opened: the first turn says why.
struct Unavailable {
    why: CohostError,
    said: AtomicBool,
}

#[async_trait]
impl Checkpoints for Unavailable {
    async fn before_turn(&self) -> Result<Option<TurnMark>, CohostError> {
        if self.said.swap(true, Ordering::SeqCst) {
            Ok(None)
        } else {
            Err(self.why.clone())
        }
    }

    async fn after_turn(&self, _mark: TurnMark) -> Result<TurnChanges, CohostError> {
        Ok(TurnChanges::default())
    }
}
