//! `fs/read_text_file` and `fs/write_text_file`, confined to the session's
//! working directory. The agent's path is resolved lexically, then the
//! nearest existing ancestor is canonicalized, so neither `..` nor a symlink
//! can reach outside the cwd.

use agent_client_protocol_schema::v1::{ReadTextFileResponse, WriteTextFileResponse};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

use super::normalize::FsOp;
use super::rpc;

/// Largest file served to an agent; bigger reads are refused.
const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;
/// JSON-RPC code for a refused or failed file operation.
const FS_ERROR: i64 = -32000;

/// The directory file requests are confined to.
#[derive(Debug, Clone)]
pub(crate) struct FsRoot {
    root: PathBuf,
}

impl FsRoot {
    /// Confine to `cwd` (canonicalized; falls back to the path as given).
    pub(crate) fn new(cwd: &Path) -> FsRoot {
        FsRoot {
            root: std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf()),
        }
    }

    /// Where `path` lives inside the root, or why it may not be touched.
    pub(crate) fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let given = Path::new(path);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        // Lexical clean-up first: `..` may not climb above `/`.
        let mut clean = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    if !clean.pop() {
                        return Err(format!("{path} is not a valid path"));
                    }
                }
                Component::CurDir => {}
                other => clean.push(other),
            }
        }
        // Then resolve symlinks on the part that exists.
        let mut existing = clean.clone();
        let mut rest = Vec::new();
        while !existing.exists() {
            match existing.file_name() {
                Some(name) => rest.push(name.to_os_string()),
                None => break,
            }
            if !existing.pop() {
                break;
            }
        }
        let mut real = std::fs::canonicalize(&existing).map_err(|e| format!("{path}: {e}"))?;
        for name in rest.iter().rev() {
            real.push(name);
        }
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(format!(
                "{path} is outside the session's working directory {}",
                self.root.display()
            ))
        }
    }

    /// Perform `op` and build the JSON-RPC answer for request `id`.
    pub(crate) async fn answer(&self, id: &Value, op: FsOp) -> String {
        let done = match op {
            FsOp::Read { path, line, limit } => self
                .read(&path, line, limit)
                .await
                .map(|text| rpc::response(id, &ReadTextFileResponse::new(text))),
            FsOp::Write { path, content } => self
                .write(&path, content)
                .await
                .map(|()| rpc::response(id, &WriteTextFileResponse::new())),
        };
        done.unwrap_or_else(|message| rpc::error_response(id, FS_ERROR, &message))
    }

    async fn read(
        &self,
        path: &str,
        line: Option<u64>,
        limit: Option<u64>,
    ) -> Result<String, String> {
        let real = self.resolve(path)?;
        let meta = tokio::fs::metadata(&real)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        if meta.len() > MAX_READ_BYTES {
            return Err(format!("{path} is larger than {MAX_READ_BYTES} bytes"));
        }
        let text = tokio::fs::read_to_string(&real)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        Ok(slice_lines(&text, line, limit))
    }

    async fn write(&self, path: &str, content: String) -> Result<(), String> {
        let real = self.resolve(path)?;
        if let Some(parent) = real.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| format!("{path}: {e}"))?;
        }
        tokio::fs::write(&real, content)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        Ok(())
    }
}

/// Lines `line..line+limit` (1-based), whole text when neither is given.
fn slice_lines(text: &str, line: Option<u64>, limit: Option<u64>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_string();
    }
    let skip = usize::try_from(line.unwrap_or(1).saturating_sub(1)).unwrap_or(usize::MAX);
    let take = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn reads_and_writes_inside_and_refuses_outside() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
        std::os::unix::fs::symlink(dir.path(), ws.join("escape")).unwrap();
        let root = FsRoot::new(&ws);
        let inside = ws.join("sub/new.txt").display().to_string();
        let id = json!(5);
        let w = root
            .answer(
                &id,
                FsOp::Write {
                    path: inside.clone(),
                    content: "a\nb\nc\n".into(),
                },
            )
            .await;
        assert!(w.contains("\"result\""), "{w}");
        let r = root
            .answer(
                &id,
                FsOp::Read {
                    path: inside,
                    line: Some(2),
                    limit: Some(1),
                },
            )
            .await;
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["result"]["content"], "b\n");
        for bad in [
            dir.path().join("secret.txt").display().to_string(),
            format!("{}/../secret.txt", ws.display()),
            ws.join("escape/secret.txt").display().to_string(),
            "/etc/passwd".to_string(),
        ] {
            let r = root
                .answer(
                    &id,
                    FsOp::Read {
                        path: bad.clone(),
                        line: None,
                        limit: None,
                    },
                )
                .await;
            let v: Value = serde_json::from_str(&r).unwrap();
            assert_eq!(v["error"]["code"], FS_ERROR, "{bad}: {r}");
            let w = root
                .answer(
                    &id,
                    FsOp::Write {
                        path: bad.clone(),
                        content: "x".into(),
                    },
                )
                .await;
            assert!(w.contains("\"error\""), "{bad}: {w}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("secret.txt")).unwrap(),
            "no"
        );
    }

    #[test]
    fn line_slicing() {
        assert_eq!(slice_lines("a\nb\nc", Some(3), None), "c");
        assert_eq!(slice_lines("a\nb\nc", None, Some(1)), "a\n");
        assert_eq!(slice_lines("a\nb", Some(9), Some(1)), "");
    }
}
