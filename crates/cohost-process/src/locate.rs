//! Finding an agent's binary and probing its version.

use super::error::ProcessError;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::env::EnvPolicy;
use super::group::{signal_group, GroupSignal};
use super::probe_output::ProbeOutput;

/// Find `command` for provider `provider_id`: the explicit path when given
/// (from `AdapterConfig.binary`), else the first executable on `search_path`.
/// Missing → PROVIDER_NOT_FOUND carrying `install_hint`.
pub fn locate_binary(
    provider_id: &str,
    command: &str,
    explicit: Option<&Path>,
    search_path: Option<&OsStr>,
    install_hint: &str,
) -> Result<PathBuf, ProcessError> {
    if let Some(path) = explicit {
        // A bare name ("claude-beta") is looked up on PATH like the default.
        if path.components().count() > 1 || path.is_absolute() {
            return if is_executable(path) {
                Ok(path.to_path_buf())
            } else {
                Err(not_found(
                    provider_id,
                    &format!("`{}` is not an executable file", path.display()),
                    install_hint,
                ))
            };
        }
        let name = path.as_os_str().to_string_lossy().into_owned();
        return find_on_path(&name, search_path).ok_or_else(|| {
            not_found(
                provider_id,
                &format!("`{name}` is not on PATH"),
                install_hint,
            )
        });
    }
    find_on_path(command, search_path).ok_or_else(|| {
        not_found(
            provider_id,
            &format!("`{command}` is not on PATH"),
            install_hint,
        )
    })
}

/// Whether `command` can be found on `search_path` (used by factories'
/// `is_available`).
pub fn find_on_path(command: &str, search_path: Option<&OsStr>) -> Option<PathBuf> {
    let path: OsString = search_path.map(OsStr::to_os_string)?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(command))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn not_found(provider_id: &str, what: &str, install_hint: &str) -> ProcessError {
    ProcessError::NotFound {
        provider: provider_id.to_string(),
        what: what.to_string(),
        install_hint: install_hint.to_string(),
    }
}

/// A `major.minor.patch` version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major.
    pub major: u64,
    /// Minor.
    pub minor: u64,
    /// Patch.
    pub patch: u64,
}

impl Version {
    /// A version from its parts.
    pub const fn new(major: u64, minor: u64, patch: u64) -> Self {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// The first `X.Y[.Z]` in `text` (`2.1.332 (Claude Code)`,
    /// `codex-cli 0.171.0`, `v1.2`). A missing patch is 0.
    pub fn find_in(text: &str) -> Option<Version> {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let at_boundary =
                i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'v';
            if bytes[i].is_ascii_digit() && at_boundary {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !(b.is_ascii_digit() || *b == b'.'))
                    .map_or(bytes.len(), |p| i + p);
                let parts: Vec<&str> = text[i..end].split('.').filter(|p| !p.is_empty()).collect();
                if parts.len() >= 2 {
                    let num = |s: &str| s.parse::<u64>().ok();
                    if let (Some(major), Some(minor)) = (num(parts[0]), num(parts[1])) {
                        let patch = parts.get(2).and_then(|p| num(p)).unwrap_or(0);
                        return Some(Version::new(major, minor, patch));
                    }
                }
                i = end;
            } else {
                i += 1;
            }
        }
        None
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A tested range: `min` inclusive, `max` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionRange {
    /// Lowest supported version.
    pub min: Version,
    /// First unsupported version above.
    pub max_exclusive: Version,
}

impl VersionRange {
    /// Whether `v` is inside.
    pub fn contains(&self, v: Version) -> bool {
        v >= self.min && v < self.max_exclusive
    }

    /// `Ok` inside the range, else VERSION_UNSUPPORTED naming it.
    pub fn check(
        &self,
        provider_id: &str,
        v: Version,
        install_hint: &str,
    ) -> Result<(), ProcessError> {
        if self.contains(v) {
            return Ok(());
        }
        Err(ProcessError::VersionOutOfRange {
            provider: provider_id.to_string(),
            version: v,
            range: *self,
            install_hint: install_hint.to_string(),
        })
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ">={}, <{}", self.min, self.max_exclusive)
    }
}

/// Run `binary args…` with the narrow environment, at most `timeout`, and
/// return its output. The whole group is killed on timeout, so a probe that
/// hangs (an agent waiting for a login prompt) cannot leak. Clean
/// `--version`/`--help` answers are remembered by binary identity
/// ([`super::set_probe_cache_file`]).
pub async fn probe(
    provider_id: &str,
    binary: &Path,
    args: &[&str],
    env: &EnvPolicy,
    timeout: Duration,
) -> Result<ProbeOutput, ProcessError> {
    if let Some(out) = super::probe_cache::lookup(binary, args) {
        return Ok(out);
    }
    let out = probe_uncached(provider_id, binary, args, env, timeout).await?;
    super::probe_cache::remember(binary, args, &out);
    Ok(out)
}

async fn probe_uncached(
    provider_id: &str,
    binary: &Path,
    args: &[&str],
    env: &EnvPolicy,
    timeout: Duration,
) -> Result<ProbeOutput, ProcessError> {
    let mut cmd = tokio::process::Command::new(binary);
    cmd.args(args)
        .env_clear()
        .envs(env.build_from_process())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(|source| ProcessError::ProbeSpawn {
        binary: binary.to_path_buf(),
        source,
    })?;
    let pgid = child.id().and_then(|p| i32::try_from(p).ok());
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            if let Some(g) = pgid {
                // Helpers the probe left behind.
                let _ = signal_group(g, GroupSignal::Kill);
            }
            Ok(ProbeOutput {
                text,
                success: out.status.success(),
            })
        }
        Ok(Err(source)) => Err(ProcessError::ProbeWait {
            command: format!("{} {}", binary.display(), args.join(" ")),
            source,
        }),
        Err(_) => {
            if let Some(g) = pgid {
                let _ = signal_group(g, GroupSignal::Kill);
            }
            Err(ProcessError::ProbeTimeout {
                provider: provider_id.to_string(),
                command: format!("{} {}", binary.display(), args.join(" ")),
                ms: timeout.as_millis(),
            })
        }
    }
}

/// `binary --version`, parsed. A version that cannot be parsed is
/// VERSION_UNSUPPORTED (we cannot tell what the tool speaks).
pub async fn probe_version(
    provider_id: &str,
    binary: &Path,
    env: &EnvPolicy,
    timeout: Duration,
) -> Result<(Version, String), ProcessError> {
    let out = probe(provider_id, binary, &["--version"], env, timeout).await?;
    let raw = out.text.trim().to_string();
    match Version::find_in(&raw) {
        Some(v) if out.success => Ok((v, raw)),
        _ => Err(ProcessError::NoVersion {
            provider: provider_id.to_string(),
            binary: binary.to_path_buf(),
            first_line: raw.lines().next().unwrap_or("(nothing)").to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::{CohostError, ErrorCode};

    #[test]
    fn parses_versions_from_tool_output() {
        let cases = [
            ("2.1.332 (Claude Code)", Version::new(2, 1, 332)),
            ("codex-cli 0.171.0", Version::new(0, 171, 0)),
            ("v1.18", Version::new(1, 18, 0)),
            ("qwen 0.24.4\n", Version::new(0, 24, 4)),
        ];
        for (text, v) in cases {
            assert_eq!(Version::find_in(text), Some(v), "{text}");
        }
        assert_eq!(Version::find_in("no digits here"), None);
        assert_eq!(Version::find_in("build 7"), None);
    }

    #[test]
    fn range_check_names_the_range() {
        let r = VersionRange {
            min: Version::new(2, 0, 0),
            max_exclusive: Version::new(3, 0, 0),
        };
        assert!(r.check("claude", Version::new(2, 1, 332), "npm i").is_ok());
        let e = r
            .check("claude", Version::new(3, 0, 1), "npm i")
            .unwrap_err();
        let e = CohostError::from(e);
        assert_eq!(e.code, ErrorCode::VersionUnsupported);
        assert!(e.message.contains(">=2.0.0, <3.0.0"), "{}", e.message);
    }

    #[test]
    fn missing_binary_is_provider_not_found_with_hint() {
        let dir = tempfile::tempdir().unwrap();
        let e = locate_binary(
            "claude",
            "claude",
            None,
            Some(dir.path().as_os_str()),
            "npm i -g x",
        )
        .unwrap_err();
        let e = CohostError::from(e);
        assert_eq!(e.code, ErrorCode::ProviderNotFound);
        assert!(e.suggested_fix.unwrap().contains("npm i -g x"));
        let e = locate_binary(
            "claude",
            "claude",
            Some(&dir.path().join("nope")),
            None,
            "hint",
        )
        .unwrap_err();
        let e = CohostError::from(e);
        assert_eq!(e.code, ErrorCode::ProviderNotFound);
    }

    #[test]
    fn finds_executables_only() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("tool");
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        let path = dir.path().as_os_str();
        assert_eq!(find_on_path("tool", Some(path)), None, "not executable yet");
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_on_path("tool", Some(path)), Some(plain.clone()));
        assert_eq!(
            locate_binary("x", "other", Some(&plain), None, "h").unwrap(),
            plain
        );
    }

    #[tokio::test]
    async fn probe_times_out_and_kills_the_group() {
        let e = probe(
            "slowpoke",
            Path::new("/bin/sh"),
            &["-c", "sleep 30"],
            &EnvPolicy::default(),
            Duration::from_millis(200),
        )
        .await
        .unwrap_err();
        let e = CohostError::from(e);
        assert_eq!(e.code, ErrorCode::Timeout);
    }

    #[tokio::test]
    async fn probe_version_parses_output() {
        let (v, raw) = probe_version_of("echo '2.1.332 (Claude Code)'")
            .await
            .unwrap();
        assert_eq!(v, Version::new(2, 1, 332));
        assert_eq!(raw, "2.1.332 (Claude Code)");
        let e = probe_version_of("echo nothing").await.unwrap_err();
        let e = CohostError::from(e);
        assert_eq!(e.code, ErrorCode::VersionUnsupported);
    }

    async fn probe_version_of(script: &str) -> Result<(Version, String), ProcessError> {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        probe_version("tool", &bin, &EnvPolicy::default(), Duration::from_secs(5)).await
    }
}
