//! The launcher cohost is pointed at during a drift run: it runs the real
//! CLI and copies its stdout, line by line as it comes, to the file named by
//! `COHOST_DRIFT_TRANSCRIPT` (one per scenario). The driver sees the same
//! bytes, exit status and signals (SIGINT reaches the whole process group;
//! `tee -i` ignores it so the copy is complete). tee writes its outputs in
//! order, so the file comes first and the driver's copy (fd 3) second: a
//! driver that kills the group as soon as it read the last line cannot beat
//! the file to it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use cohost_testbench::shell_quote;

/// The variable naming the transcript file of the current scenario.
pub(crate) const TRANSCRIPT_VAR: &str = "COHOST_DRIFT_TRANSCRIPT";

/// The script text. `mask` = `(real version, pinned version)`: a release
/// outside the driver's tested range would be refused (VERSION_UNSUPPORTED)
/// before anything else could be checked, so its `--version` answer names
/// the pinned version instead; the report says so.
pub(crate) fn script(real: &Path, mask: Option<(&str, &str)>) -> String {
    let real = shell_quote(&real.display().to_string());
    let version_arm = match mask {
        Some((newest, pinned)) => format!(
            "  --version)\n    out=\"$(\"$real\" \"$@\" 2>&1)\"; rc=$?\n    printf '%s\\n' \"${{out//{newest}/{pinned}}}\"\n    exit \"$rc\" ;;\n"
        ),
        None => "  --version) exec \"$real\" \"$@\" ;;\n".to_string(),
    };
    format!(
        "#!/usr/bin/env bash\n\
         # Written by cohost drift: runs the real CLI, copying its stdout to ${TRANSCRIPT_VAR}.\n\
         set -o pipefail\n\
         real={real}\n\
         case \"${{1-}}\" in\n\
         {version_arm}\
         \x20 --help | -h) exec \"$real\" \"$@\" ;;\n\
         esac\n\
         if [ -z \"${{{TRANSCRIPT_VAR}-}}\" ]; then exec \"$real\" \"$@\"; fi\n\
         \"$real\" \"$@\" | tee -ia \"${TRANSCRIPT_VAR}\" /dev/fd/3 3>&1 >/dev/null\n"
    )
}

/// Writes the wrapper as `dir/<file name of real>` (drivers may look at the
/// name) and returns its path.
pub(crate) fn write(
    dir: &Path,
    real: &Path,
    mask: Option<(&str, &str)>,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let name = real
        .file_name()
        .ok_or_else(|| std::io::Error::other(format!("{} has no file name", real.display())))?;
    let path = dir.join(name);
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    std::fs::write(&tmp, script(real, mask))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn fake_cli(dir: &Path) -> PathBuf {
        let p = dir.join("fakecli");
        std::fs::write(
            &p,
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fakecli 9.9.9'; exit 0; fi\necho line1\necho line2\nexit 3\n",
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn copies_stdout_keeps_status_and_masks_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let real = fake_cli(dir.path());
        let w = write(&dir.path().join("wrap"), &real, Some(("9.9.9", "1.0.0"))).unwrap();
        assert!(w.ends_with("wrap/fakecli"));
        let log = dir.path().join("t.jsonl");
        let out = Command::new(&w)
            .arg("go")
            .env(TRANSCRIPT_VAR, &log)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "line1\nline2\n");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "line1\nline2\n");
        let v = Command::new(&w).arg("--version").output().unwrap();
        assert_eq!(String::from_utf8_lossy(&v.stdout), "fakecli 1.0.0\n");
        let plain = write(&dir.path().join("plain"), &real, None).unwrap();
        let v = Command::new(&plain).arg("--version").output().unwrap();
        assert_eq!(String::from_utf8_lossy(&v.stdout), "fakecli 9.9.9\n");
    }
}
