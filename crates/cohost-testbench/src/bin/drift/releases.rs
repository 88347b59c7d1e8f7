//! The pinned CLIs (from `tests/agents/install.sh --list-specs`), the newest
//! release of each in its registry, and installing one into a scratch prefix
//! (`tests/agents/install-version.sh`, never over the pinned install).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How long a registry lookup may take.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(90);
/// How long installing one CLI may take (npm on a shared, slow machine).
const INSTALL_TIMEOUT: Duration = Duration::from_secs(900);

/// One line of `install.sh --list-specs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spec {
    /// Agent name (`claude`, `codex-acp`).
    pub name: String,
    /// `npm` or `pypi`.
    pub kind: String,
    /// Registry package (`@openai/codex`, `aider-chat`).
    pub package: String,
    /// Pinned version.
    pub pinned: String,
}

/// `tests/agents/` of this checkout.
pub(crate) fn agents_scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents")
}

/// Parses `install.sh --list-specs` output (`NAME KIND PACKAGE KEY PIN`).
pub(crate) fn parse_specs(text: &str) -> Vec<Spec> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5).then(|| Spec {
                name: f[0].into(),
                kind: f[1].into(),
                package: f[2].into(),
                pinned: f[4].into(),
            })
        })
        .collect()
}

async fn output(mut cmd: Command, limit: Duration, what: &str) -> Result<String, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = cmd
        .spawn()
        .map_err(|e| format!("{what}: could not start: {e}"))?;
    match tokio::time::timeout(limit, child.wait_with_output()).await {
        Err(_) => Err(format!("{what}: no answer within {} s", limit.as_secs())),
        Ok(Err(e)) => Err(format!("{what}: {e}")),
        Ok(Ok(out)) if !out.status.success() => {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Err(format!("{what}: exit {}: {last}", out.status))
        }
        Ok(Ok(out)) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
    }
}

/// The pinned CLIs.
pub(crate) async fn specs() -> Result<Vec<Spec>, String> {
    let mut cmd = Command::new("bash");
    cmd.arg(agents_scripts().join("install.sh"))
        .arg("--list-specs");
    let text = output(cmd, LOOKUP_TIMEOUT, "install.sh --list-specs").await?;
    Ok(parse_specs(&text))
}

/// The version in `pip index versions PKG` output (`aider-chat (0.86.2)`).
pub(crate) fn parse_pip_index(text: &str, package: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with(package))?;
    let inner = line.split_once('(')?.1.split_once(')')?.0;
    Some(inner.trim().to_string())
}

/// The newest published version: npm's `latest` tag, PyPI's newest release.
pub(crate) async fn newest(spec: &Spec) -> Result<String, String> {
    let what = format!("newest {} ({})", spec.package, spec.kind);
    let text = if spec.kind == "pypi" {
        let python = std::env::var("COHOST_PYTHON").unwrap_or_else(|_| "python3".into());
        let mut cmd = Command::new(python);
        cmd.args([
            "-m",
            "pip",
            "index",
            "versions",
            "--disable-pip-version-check",
        ])
        .arg(&spec.package);
        let out = output(cmd, LOOKUP_TIMEOUT, &what).await?;
        return parse_pip_index(&out, &spec.package)
            .ok_or_else(|| format!("{what}: pip printed no version"));
    } else {
        let mut cmd = Command::new("npm");
        cmd.args(["view", &spec.package, "version"]);
        output(cmd, LOOKUP_TIMEOUT, &what).await?
    };
    let v = text.trim().lines().last().unwrap_or("").trim().to_string();
    if v.is_empty() {
        return Err(format!("{what}: the registry printed no version"));
    }
    Ok(v)
}

/// Installs `spec.name` at `version` into `dir` (a scratch dir); returns the
/// launcher `dir/bin/<cmd>`. The install log goes to `dir/install.log`.
pub(crate) async fn install(
    spec: &Spec,
    version: &str,
    dir: &Path,
    cmd_name: &str,
) -> Result<PathBuf, String> {
    let mut cmd = Command::new("nice");
    cmd.args(["-n", "10", "bash"])
        .arg(agents_scripts().join("install-version.sh"))
        .args([&spec.name, version])
        .arg(dir);
    let what = format!("install {}@{version}", spec.name);
    let log = output(cmd, INSTALL_TIMEOUT, &what).await?;
    let _ = std::fs::write(dir.join("install.log"), log);
    let bin = dir.join("bin").join(cmd_name);
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!("{what}: no {} after install", bin.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_and_pip_output_parse() {
        let s = parse_specs(
            "claude npm @anthropic-ai/claude-code CLAUDE_CODE_VERSION 2.1.332\nbad line\n",
        );
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].package, "@anthropic-ai/claude-code");
        assert_eq!(s[0].pinned, "2.1.332");
        let pip =
            "WARNING: experimental\naider-chat (0.86.2)\nAvailable versions: 0.86.2, 0.86.1\n";
        assert_eq!(
            parse_pip_index(pip, "aider-chat").as_deref(),
            Some("0.86.2")
        );
        assert_eq!(parse_pip_index("nothing", "aider-chat"), None);
    }
}
