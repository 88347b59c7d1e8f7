//! The interactive approval prompt for `--approve ask`.

use cohost_core::{ApprovalContext, ApprovalOption, Decision, DecisionOrigin, DecisionSource};
use futures::future::BoxFuture;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use tokio::sync::Mutex;

/// Asks on the terminal; denies at once when there is no terminal to ask on.
#[derive(Debug, Default, Clone)]
pub struct TerminalPrompt {
    /// One question at a time, even if an agent asks twice in a row.
    lock: Arc<Mutex<()>>,
}

impl DecisionSource for TerminalPrompt {
    fn decide(&self, request: ApprovalContext) -> BoxFuture<'static, Decision> {
        let lock = self.lock.clone();
        Box::pin(async move {
            if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
                return Decision::deny(
                    DecisionOrigin::Policy,
                    "no terminal to ask on (use --approve all to allow tools)",
                );
            }
            let _guard = lock.lock().await;
            let question = format!(
                "\n? allow {} ({:?}) {}\n  [y] yes once  [a] always  [n] no  [N] never: ",
                request.name,
                request.kind,
                compact(&request.input)
            );
            // Reading stdin blocks; keep it off the async workers.
            let answer = tokio::task::spawn_blocking(move || {
                let mut err = std::io::stderr();
                let _ = err.write_all(question.as_bytes());
                let _ = err.flush();
                let mut line = String::new();
                std::io::stdin().lock().read_line(&mut line).map(|_| line)
            })
            .await;
            let option = match answer {
                Ok(Ok(line)) => parse_answer(&line),
                _ => None,
            };
            match option {
                Some(option) => Decision {
                    option,
                    message: (!option.is_allow()).then(|| "denied by the user".to_string()),
                    origin: DecisionOrigin::User,
                },
                None => Decision::deny(DecisionOrigin::User, "no clear answer; denied"),
            }
        })
    }
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
