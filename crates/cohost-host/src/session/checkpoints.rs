//! The recorder of a session's working tree, as the setup service gives
//! it: git checkpoints (`cohost-git`), opened at the first turn rather than
//! before the agent starts (finding the repository and the session's last
//! turn then overlaps the agent's boot instead of delaying its spawn). When
//! they cannot be had (no git, a directory too large outside git), the
//! first turn says why once and nothing is recorded; the session runs
//! either way.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use cohost_core::{Checkpoints, CohostError, TurnChanges, TurnMark};
use cohost_git::SessionCheckpoints;
use tokio::sync::OnceCell;

use cohost_discovery::host::Host;

/// The recorder for session `id` in `cwd`.
pub(super) fn open(host: &Host, cwd: &Path, id: &str) -> Arc<dyn Checkpoints> {
    Arc::new(Lazy {
        cwd: cwd.to_path_buf(),
        state_dir: host.paths.state_dir.clone(),
        id: id.to_owned(),
        opened: OnceCell::new(),
        said: AtomicBool::new(false),
    })
}

/// Git checkpoints, opened when the first turn asks.
struct Lazy {
    cwd: PathBuf,
    state_dir: PathBuf,
    id: String,
    opened: OnceCell<Result<SessionCheckpoints, CohostError>>,
    /// Whether the first turn has said why there are none.
    said: AtomicBool,
}

impl Lazy {
    async fn get(&self) -> &Result<SessionCheckpoints, CohostError> {
        self.opened
            .get_or_init(|| async {
                SessionCheckpoints::open(&self.cwd, &self.state_dir, &self.id)
                    .await
                    .map_err(|e| {
                        tracing::info!(error = %e, "checkpoints are off for this session");
                        CohostError::from(e)
                    })
            })
            .await
    }
}

#[async_trait]
impl Checkpoints for Lazy {
    async fn before_turn(&self) -> Result<Option<TurnMark>, CohostError> {
        match self.get().await {
            Ok(cp) => cp.before_turn().await,
            Err(_) if self.said.swap(true, Ordering::SeqCst) => Ok(None),
            Err(why) => Err(why.clone()),
        }
    }

    async fn after_turn(&self, mark: TurnMark) -> Result<TurnChanges, CohostError> {
        match self.get().await {
            Ok(cp) => cp.after_turn(mark).await,
            Err(_) => Ok(TurnChanges::default()),
        }
    }
}
