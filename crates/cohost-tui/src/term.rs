//! The IO shell: the terminal in raw mode on the alternate screen, the
//! crossterm event stream and the shell's messages in, frames out at most
//! [`FPS`] times a second (ratatui writes only the cells that changed).
//! The terminal is restored on every way out: the end of [`run`], a panic
//! (hook), and [`restore`] for signal handlers.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, EnableBracketedPaste, EnableFocusChange,
    Event as TermEvent, EventStream,
};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use tokio::sync::mpsc;

use crate::app::{App, Effect, Incoming};
use crate::view;

/// Redraws per second at most, however fast the stream is.
pub const FPS: u32 = 60;

/// Whether cohost has the terminal in raw mode.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The terminal's last focus report: 0 none yet, 1 focused, 2 not.
static FOCUS: AtomicU8 = AtomicU8::new(0);

/// Whether the terminal has the focus, as it last reported (focus
/// reporting, CSI ?1004h, is on while the screen runs): `None` when it
/// never reported. Notifications go to the terminal only while it is not.
pub fn focused() -> Option<bool> {
    match FOCUS.load(Ordering::SeqCst) {
        1 => Some(true),
        2 => Some(false),
        _ => None,
    }
}

/// Put the terminal back: cooked mode, the main screen, the cursor shown.
/// Idempotent and safe from any thread (signal handlers call it).
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(
            io::stdout(),
            DisableFocusChange,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            cursor::Show
        );
        FOCUS.store(0, Ordering::SeqCst);
    }
}

/// Restore the terminal before a panic's message is printed.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Restores the terminal when dropped (early returns, errors).
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

fn enter() -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    install_panic_hook();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableFocusChange
    )?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

/// When the next frame may be drawn: at most one per `interval`.
#[derive(Debug, Clone)]
pub struct FrameClock {
    interval: Duration,
    last: Option<Instant>,
}

impl FrameClock {
    /// At most `fps` frames a second.
    pub fn new(fps: u32) -> FrameClock {
        FrameClock {
            interval: Duration::from_secs(1) / fps.max(1),
            last: None,
        }
    }

    /// How long to wait before drawing at `now` (zero: draw now).
    pub fn wait(&self, now: Instant) -> Duration {
        match self.last {
            Some(last) => (last + self.interval).saturating_duration_since(now),
            None => Duration::ZERO,
        }
    }

    /// A frame was drawn at `now`.
    pub fn drew(&mut self, now: Instant) {
        self.last = Some(now);
    }
}

/// Messages handled before a frame is drawn at most (a burst of chunks is
/// drawn once, yet keys are never starved).
const BATCH: usize = 4096;

/// Run `app` on the terminal until it quits, the terminal closes or the
/// shell drops `inbox`. Effects go to `effects` as they happen; a final
/// [`Effect::Quit`] is always sent.
pub async fn run(
    app: &mut App,
    inbox: &mut mpsc::UnboundedReceiver<Incoming>,
    effects: &mpsc::UnboundedSender<Effect>,
) -> io::Result<()> {
    let _guard = Guard;
    let mut terminal = enter()?;
    let mut keys = EventStream::new();
    let mut clock = FrameClock::new(FPS);
    let mut pending = true;
    let mut inbox_open = true;
    let result = loop {
        pending |= app.take_dirty();
        let now = Instant::now();
        if pending && clock.wait(now).is_zero() {
            if let Err(e) = terminal.draw(|f| view::draw(f, app, now)) {
                break Err(e);
            }
            clock.drew(now);
            pending = false;
        }
        for e in app.take_effects() {
            let _ = effects.send(e);
        }
        if app.should_quit() || !inbox_open {
            break Ok(());
        }
        let sleep = if pending {
            clock.wait(Instant::now())
        } else if app.approval.is_some() || app.busy() {
            // The countdown and the working time move once a second.
            Duration::from_millis(1000)
        } else {
            Duration::from_secs(3600)
        };
        tokio::select! {
            ev = keys.next() => match ev {
                Some(Ok(TermEvent::Key(k))) => app.on_key(k),
                Some(Ok(TermEvent::Paste(s))) => app.on_paste(&s),
                Some(Ok(TermEvent::FocusGained)) => FOCUS.store(1, Ordering::SeqCst),
                Some(Ok(TermEvent::FocusLost)) => FOCUS.store(2, Ordering::SeqCst),
                Some(Ok(TermEvent::Resize(..))) => {
                    if let Err(e) = terminal.autoresize() {
                        break Err(e);
                    }
                    app.touch();
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break Err(e),
                None => break Ok(()),
            },
            msg = inbox.recv() => match msg {
                Some(m) => {
                    app.on_incoming(m, Instant::now());
                    for _ in 0..BATCH {
                        match inbox.try_recv() {
                            Ok(m) => app.on_incoming(m, Instant::now()),
                            Err(_) => break,
                        }
                    }
                }
                None => inbox_open = false,
            },
            () = tokio::time::sleep(sleep) => {
                if app.approval.is_some() || app.busy() {
                    app.touch();
                }
            }
        }
    };
    for e in app.take_effects() {
        let _ = effects.send(e);
    }
    let _ = effects.send(Effect::Quit);
    restore();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_capped() {
        let mut c = FrameClock::new(60);
        let t0 = Instant::now();
        assert!(c.wait(t0).is_zero());
        c.drew(t0);
        assert!(c.wait(t0 + Duration::from_millis(5)) > Duration::from_millis(10));
        assert!(c.wait(t0 + Duration::from_millis(17)).is_zero());
    }
}
