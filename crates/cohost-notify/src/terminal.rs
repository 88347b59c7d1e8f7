//! The terminal sink: OSC 9 (iTerm2, Windows Terminal, kitty, WezTerm),
//! OSC 777 (rxvt, foot, Ghostty, VTE) and the bell, written only while the
//! terminal reports that it is not focused: a user looking at the screen
//! needs no ping. A terminal that does not report focus (no CSI I / CSI O
//! after CSI ?1004h) is never written to.

use std::io::Write;
use std::sync::Arc;

use async_trait::async_trait;

use crate::notice::Notice;
use crate::notifier::Sink;

/// Whether cohost's terminal has the focus: `Some(true)` focused,
/// `Some(false)` reported lost, `None` never reported.
#[derive(Clone)]
pub struct Focus(Arc<dyn Fn() -> Option<bool> + Send + Sync>);

impl Focus {
    /// Focus as `read` tells it (the terminal UI's last focus report).
    pub fn from_fn(read: impl Fn() -> Option<bool> + Send + Sync + 'static) -> Focus {
        Focus(Arc::new(read))
    }

    /// Whether the terminal reported that it lost the focus.
    pub fn lost(&self) -> bool {
        (self.0)() == Some(false)
    }
}

/// OSC 9 and OSC 777 notifications of `n`, then the bell. Title and body
/// are already one line without control characters ([`Notice::new`]);
/// `;` separates OSC 777's fields, so it becomes `,` there.
pub fn osc_sequences(n: &Notice) -> String {
    let field = |s: &str| s.replace(';', ",");
    format!(
        "\x1b]9;{}: {}\x07\x1b]777;notify;{};{}\x07\x07",
        n.title,
        n.body,
        field(&n.title),
        field(&n.body)
    )
}

/// Writes notices to the terminal while it is not focused.
pub struct TerminalSink {
    out: Arc<std::sync::Mutex<Box<dyn Write + Send>>>,
    focus: Focus,
}

impl TerminalSink {
    /// A sink writing to `out` (the terminal: stdout of the terminal UI)
    /// while `focus` says the focus is lost.
    pub fn new(out: Box<dyn Write + Send>, focus: Focus) -> TerminalSink {
        TerminalSink {
            out: Arc::new(std::sync::Mutex::new(out)),
            focus,
        }
    }
}

#[async_trait]
impl Sink for TerminalSink {
    fn name(&self) -> &str {
        "terminal"
    }

    async fn deliver(&mut self, notice: &Notice) -> Result<(), String> {
        if !self.focus.lost() {
            return Ok(());
        }
        let bytes = osc_sequences(notice);
        let out = self.out.clone();
        // A terminal that stops reading blocks the write: not a runtime
        // thread's problem.
        tokio::task::spawn_blocking(move || {
            let mut w = cohost_core::sync::lock(&out);
            w.write_all(bytes.as_bytes()).and_then(|()| w.flush())
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("cannot write to the terminal: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::NoticeKind;

    #[test]
    fn sequences_carry_title_and_body() {
        let n = Notice::new(
            &crate::notice::shapes_only(),
            NoticeKind::TurnEnded,
            "cohost: claude is done",
            "a; b",
        );
        let s = osc_sequences(&n);
        assert!(s.starts_with("\x1b]9;cohost: claude is done: a; b\x07"));
        assert!(s.contains("\x1b]777;notify;cohost: claude is done;a, b\x07"));
        assert!(s.ends_with("\x07\x07"));
    }

    #[derive(Clone, Default)]
    struct Buf(Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn written_only_when_focus_is_reported_lost() {
        let state = Arc::new(std::sync::Mutex::new(None));
        let read = state.clone();
        let buf = Buf::default();
        let mut sink = TerminalSink::new(
            Box::new(buf.clone()),
            Focus::from_fn(move || *read.lock().unwrap()),
        );
        let n = Notice::new(
            &crate::notice::shapes_only(),
            NoticeKind::TurnEnded,
            "t",
            "b",
        );
        for focus in [None, Some(true)] {
            *state.lock().unwrap() = focus;
            sink.deliver(&n).await.unwrap();
            assert!(buf.0.lock().unwrap().is_empty(), "{focus:?}");
        }
        *state.lock().unwrap() = Some(false);
        sink.deliver(&n).await.unwrap();
        assert_eq!(*buf.0.lock().unwrap(), osc_sequences(&n).into_bytes());
    }
}
