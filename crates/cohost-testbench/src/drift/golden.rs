//! Where the pinned goldens live and reading them.

use std::path::{Path, PathBuf};

use super::shape::Shape;

/// `crates/cohost-agents/tests/fixtures` of this checkout.
pub fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cohost-agents/tests/fixtures")
}

/// The golden directory of `agent` at `version` below `root`: the ACP
/// bridges' goldens are under `acp/`, the others under their own name.
pub fn golden_dir(root: &Path, agent: &str, version: &str, acp: bool) -> PathBuf {
    if acp {
        root.join("acp").join(agent).join(version)
    } else {
        root.join(agent).join(version)
    }
}

/// Every `*.jsonl` transcript in `dir` as `(file stem, shape)`, sorted by
/// name; an absent directory has none.
pub fn load_goldens(dir: &Path) -> std::io::Result<Vec<(String, Shape)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&path)?;
            out.push((stem, Shape::of_transcript(&text)));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}
