//! The interactive approval prompt for `--approve ask`.

use cohost_core::{ApprovalContext, ApprovalOption, Decision, DecisionOrigin, DecisionSource};
use futures::future::BoxFuture;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::Mutex;

/// Asks on the terminal; denies at once when there is no terminal to ask on.
#[derive(Debug, Default, Clone)]
pub struct TerminalPrompt {
    /// One question at a time, even if an agent asks twice in a row (or
    /// several agents of a room ask at once: their prompts share it).
    lock: Arc<Mutex<()>>,
    /// The room member asking, named in the question.
    who: Option<String>,
}

impl TerminalPrompt {
    /// The same prompt (one question at a time) for a room's member.
    pub fn for_member(&self, name: &str) -> TerminalPrompt {
        TerminalPrompt {
            lock: self.lock.clone(),
            who: Some(name.to_owned()),
        }
    }
}

impl DecisionSource for TerminalPrompt {
    fn decide(&self, request: ApprovalContext) -> BoxFuture<'static, Decision> {
        let lock = self.lock.clone();
        let who = self
            .who
            .as_deref()
            .map(|w| format!("{}: ", cohost_core::sanitize::inert_line(w)))
            .unwrap_or_default();
        Box::pin(async move {
            if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
                return Decision::deny(
                    DecisionOrigin::Policy,
                    "no terminal to ask on (use --approve all to allow tools)",
                );
            }
            let _guard = lock.lock().await;
            let question = format!(
                "\n? {who}allow {} ({:?}) {}\n  [y] yes once  [a] always  [n] no  [N] never: ",
                request.name,
                request.kind,
                compact(&request.input)
            );
            // Reading stdin blocks; keep it off the async workers, and let
            // the deadline, an interrupt or the turn's end (all of which
            // drop this future) stop the read too.
            let cancel = CancelOnDrop::default();
            let flag = cancel.0.clone();
            let answer = tokio::task::spawn_blocking(move || {
                let mut err = std::io::stderr();
                let _ = err.write_all(question.as_bytes());
                let _ = err.flush();
                read_line_unless(&flag)
            })
            .await;
            drop(cancel);
            let option = match answer {
                Ok(Some(line)) => parse_answer(&line),
                _ => None,
            };
            match option {
                Some(option) => Decision {
                    option,
                    message: (!option.is_allow()).then(|| "denied by the user".to_string()),
                    origin: DecisionOrigin::User,
                    deciders: Vec::new(),
                },
                None => Decision::deny(DecisionOrigin::User, "no clear answer; denied"),
            }
        })
    }
}

/// Sets its flag when dropped: the prompt's future is gone, stop reading.
#[derive(Default)]
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// How often a waiting read checks whether it was cancelled.
const POLL_MS: libc::c_int = 50;

/// One line from stdin, `None` on EOF, error or once `cancel` is set. The
/// terminal is polled, never read blindly, so the thread returns within
/// [`POLL_MS`] of a cancel instead of waiting for a key press (which would
/// also keep the runtime, and so cohost, from exiting).
#[allow(unsafe_code)]
fn read_line_unless(cancel: &AtomicBool) -> Option<String> {
    let mut line = Vec::new();
    while !cancel.load(Ordering::SeqCst) {
        let mut pfd = libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll reads and writes only `pfd`, one valid entry.
        let ready = unsafe { libc::poll(&mut pfd, 1, POLL_MS) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return None;
        }
        if ready == 0 {
            continue;
        }
        let mut buf = [0u8; 256];
        // SAFETY: read writes at most `buf.len()` bytes into `buf`.
        let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
        let Ok(n) = usize::try_from(n) else {
            return None;
        };
        if n == 0 {
            return (!line.is_empty()).then(|| String::from_utf8_lossy(&line).into_owned());
        }
        line.extend_from_slice(&buf[..n]);
        if let Some(end) = line.iter().position(|b| *b == b'\n') {
            return Some(String::from_utf8_lossy(&line[..end]).into_owned());
        }
    }
    None
}

/// `y`/`yes` allow once, `a`/`always` allow always, `N`/`never` reject
/// always; anything else (including `n` and empty) rejects once.
pub fn parse_answer(line: &str) -> Option<ApprovalOption> {
    match line.trim() {
        "y" | "Y" | "yes" => Some(ApprovalOption::AllowOnce),
        "a" | "A" | "always" => Some(ApprovalOption::AllowAlways),
        "N" | "never" => Some(ApprovalOption::RejectAlways),
        "n" | "no" | "" => Some(ApprovalOption::RejectOnce),
        _ => None,
    }
}

fn compact(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…", &s[..cut])
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        assert_eq!(parse_answer("y\n"), Some(ApprovalOption::AllowOnce));
        assert_eq!(parse_answer("always"), Some(ApprovalOption::AllowAlways));
        assert_eq!(parse_answer("N"), Some(ApprovalOption::RejectAlways));
        assert_eq!(parse_answer("\n"), Some(ApprovalOption::RejectOnce));
        assert_eq!(parse_answer("maybe"), None);
    }
}
