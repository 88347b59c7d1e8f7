//! Where `cohost join` takes its invite from. An invite holds the room key
//! and the host's key, so it stays off the command line: every local user
//! can read a process's arguments (`/proc/PID/cmdline`, `ps -eo args`), and
//! a shell keeps them in its history. In order: `--invite-file FILE`, `-`
//! for the first line of stdin, `COHOST_INVITE` (a process's environment is
//! its owner's alone), a prompt on a terminal that shows nothing of what is
//! pasted; an invite given as an argument still works, with a warning.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use cohost_core::{CohostError, ErrorCode};

/// The variable `cohost join` reads an invite from.
pub const INVITE_VAR: &str = "COHOST_INVITE";

/// Where the invite came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--invite-file FILE`.
    File(PathBuf),
    /// `-`: the first line of stdin.
    Stdin,
    /// [`INVITE_VAR`].
    Env,
    /// Pasted at the terminal prompt.
    Prompt,
    /// The command line (readable by other users: warned about).
    Argument,
}

/// What the user gave on the command line and in the environment.
#[derive(Debug, Default)]
pub struct Given<'a> {
    /// The positional argument (`-` means stdin).
    pub argument: Option<&'a str>,
    /// `--invite-file`.
    pub file: Option<&'a Path>,
    /// The value of [`INVITE_VAR`].
    pub env: Option<String>,
}

/// The ways to read what the user did not give directly.
pub trait Reader {
    /// The first line of stdin.
    fn stdin_line(&mut self) -> std::io::Result<String>;
    /// Whether a person could answer a prompt.
    fn terminal(&self) -> bool;
    /// Ask on the terminal, showing nothing typed; `None` if cancelled.
    fn prompt(&mut self) -> std::io::Result<Option<String>>;
    /// A file's text and its permission bits.
    fn file(&mut self, path: &Path) -> std::io::Result<(String, u32)>;
}

/// The invite, where it came from, and a warning to show if any.
#[derive(Debug)]
pub struct Resolved {
    /// The invite, trimmed.
    pub invite: String,
    /// Where it came from.
    pub source: Source,
    /// Something the user should fix (an invite in argv, a file others can read).
    pub warning: Option<String>,
}

fn usage(message: impl AsRef<str>, fix: &str) -> CohostError {
    CohostError::new(ErrorCode::ConfigInvalid, message).with_fix(fix)
}

const HOW: &str = "run `cohost join` and paste the invite, or pass it with --invite-file FILE, \
                   `-` (stdin) or COHOST_INVITE";

/// Find the invite.
///
/// # Errors
///
/// `CONFIG_INVALID` with a fix when there is none, two are given, a file
/// cannot be read, or the prompt was cancelled.
pub fn resolve(given: Given<'_>, io: &mut dyn Reader) -> Result<Resolved, CohostError> {
    let (raw, source, warning) = match (given.file, given.argument) {
        (Some(_), Some(_)) => {
            return Err(usage(
                "give the invite once: --invite-file and an invite argument were both given",
                "drop one of them",
            ))
        }
        (Some(path), None) => {
            let (text, mode) = io.file(path).map_err(|e| {
                usage(
                    format!("cannot read the invite file {}: {e}", path.display()),
                    "check the path (the host's invite, one line)",
                )
            })?;
            let warning = (mode & 0o077 != 0).then(|| {
                format!(
                    "warning: {} can be read by other users (mode {:o}); it holds the room's key: chmod 600 it",
                    path.display(),
                    mode & 0o777
                )
            });
            let first = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default();
            (first.to_string(), Source::File(path.to_path_buf()), warning)
        }
        (None, Some("-")) => {
            let line = io
                .stdin_line()
                .map_err(|e| usage(format!("cannot read the invite from stdin: {e}"), HOW))?;
            (line, Source::Stdin, None)
        }
        (None, Some(arg)) => (
            arg.to_string(),
            Source::Argument,
            Some(
                "warning: an invite on the command line can be read by every user of this machine \
                 (ps) and stays in your shell's history; next time run `cohost join` and paste it, \
                 or use --invite-file FILE or COHOST_INVITE"
                    .to_string(),
            ),
        ),
        (None, None) => match given.env.filter(|v| !v.trim().is_empty()) {
            Some(v) => (v, Source::Env, None),
            None if io.terminal() => match io.prompt() {
                Ok(Some(line)) => (line, Source::Prompt, None),
                Ok(None) => return Err(usage("no invite: the prompt was cancelled", HOW)),
                Err(e) => return Err(usage(format!("cannot read the invite: {e}"), HOW)),
            },
            None => return Err(usage("no invite given", HOW)),
        },
    };
    let invite = raw.trim().to_string();
    if invite.is_empty() {
        return Err(usage(
            format!("the invite from {} is empty", name(&source)),
            HOW,
        ));
    }
    Ok(Resolved {
        invite,
        source,
        warning,
    })
}

fn name(source: &Source) -> String {
    match source {
        Source::File(p) => p.display().to_string(),
        Source::Stdin => "stdin".into(),
        Source::Env => INVITE_VAR.into(),
        Source::Prompt => "the prompt".into(),
        Source::Argument => "the command line".into(),
    }
}

/// The real stdin, terminal and files.
pub struct Console;

impl Reader for Console {
    fn stdin_line(&mut self) -> std::io::Result<String> {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        Ok(line)
    }

    fn terminal(&self) -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    fn prompt(&mut self) -> std::io::Result<Option<String>> {
        cohost_tui::secret::read_hidden_line(
            "Paste the invite the host gave you (it is not shown), then Enter: ",
        )
    }

    fn file(&mut self, path: &Path) -> std::io::Result<(String, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path)?;
        Ok((std::fs::read_to_string(path)?, meta.permissions().mode()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Fake {
        stdin: Option<String>,
        terminal: bool,
        pasted: Option<Option<String>>,
        file: Option<(String, u32)>,
    }

    impl Reader for Fake {
        fn stdin_line(&mut self) -> std::io::Result<String> {
            self.stdin
                .take()
                .ok_or_else(|| std::io::Error::other("no stdin"))
        }
        fn terminal(&self) -> bool {
            self.terminal
        }
        fn prompt(&mut self) -> std::io::Result<Option<String>> {
            Ok(self.pasted.take().expect("prompted only on a terminal"))
        }
        fn file(&mut self, _: &Path) -> std::io::Result<(String, u32)> {
            self.file
                .take()
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        }
    }

    const INV: &str = "cohost://127.0.0.1:1/r-1#a.b.c.d.e";

    #[test]
    fn each_source_in_its_order() {
        let path = Path::new("/x/invite");
        let mut io = Fake {
            file: Some((format!("\n{INV}\n"), 0o100600)),
            ..Fake::default()
        };
        let r = resolve(
            Given {
                file: Some(path),
                env: Some("ignored".into()),
                ..Given::default()
            },
            &mut io,
        )
        .unwrap();
        assert_eq!(
            (r.invite.as_str(), r.source),
            (INV, Source::File(path.into()))
        );
        assert_eq!(r.warning, None);

        let mut io = Fake {
            stdin: Some(format!("{INV}\n")),
            ..Fake::default()
        };
        let r = resolve(
            Given {
                argument: Some("-"),
                ..Given::default()
            },
            &mut io,
        )
        .unwrap();
        assert_eq!((r.invite.as_str(), r.source), (INV, Source::Stdin));

        let r = resolve(
            Given {
                env: Some(format!(" {INV} ")),
                ..Given::default()
            },
            &mut Fake {
                terminal: true,
                ..Fake::default()
            },
        )
        .unwrap();
        assert_eq!((r.invite.as_str(), r.source), (INV, Source::Env));

        let mut io = Fake {
            terminal: true,
            pasted: Some(Some(INV.into())),
            ..Fake::default()
        };
        let r = resolve(Given::default(), &mut io).unwrap();
        assert_eq!((r.invite.as_str(), r.source), (INV, Source::Prompt));
    }

    #[test]
    fn an_argument_works_with_a_warning_and_a_readable_file_is_named() {
        let r = resolve(
            Given {
                argument: Some(INV),
                ..Given::default()
            },
            &mut Fake::default(),
        )
        .unwrap();
        assert_eq!(r.source, Source::Argument);
        assert!(r.warning.unwrap().contains("every user of this machine"));
        let mut io = Fake {
            file: Some((INV.into(), 0o100644)),
            ..Fake::default()
        };
        let r = resolve(
            Given {
                file: Some(Path::new("/x/inv")),
                ..Given::default()
            },
            &mut io,
        )
        .unwrap();
        let w = r.warning.unwrap();
        assert!(w.contains("mode 644") && w.contains("chmod 600"), "{w}");
    }

    #[test]
    fn nothing_two_things_empty_or_cancelled_are_refused_with_a_fix() {
        let cases: Vec<(Given<'_>, Fake, &str)> = vec![
            (Given::default(), Fake::default(), "no invite given"),
            (
                Given::default(),
                Fake {
                    terminal: true,
                    pasted: Some(None),
                    ..Fake::default()
                },
                "cancelled",
            ),
            (
                Given {
                    argument: Some(INV),
                    file: Some(Path::new("/f")),
                    ..Given::default()
                },
                Fake::default(),
                "both",
            ),
            (
                Given {
                    file: Some(Path::new("/f")),
                    ..Given::default()
                },
                Fake::default(),
                "cannot read the invite file /f",
            ),
            (
                Given {
                    argument: Some("-"),
                    ..Given::default()
                },
                Fake {
                    stdin: Some("\n".into()),
                    ..Fake::default()
                },
                "the invite from stdin is empty",
            ),
            (
                Given {
                    env: Some("  ".into()),
                    ..Given::default()
                },
                Fake::default(),
                "no invite given",
            ),
        ];
        for (given, mut io, want) in cases {
            let e = resolve(given, &mut io).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid);
            assert!(e.message.contains(want), "{want}: {}", e.message);
            assert!(e.suggested_fix.is_some());
        }
    }
}
