//! cohost's notifications: the user hears of a turn that needs an
//! approval, ends, fails, or nears or spends its budget, without watching
//! the screen.
//!
//! A [`Notifier`] is a subscriber of session events ([`Notifier::watch`])
//! or is handed events by a front end ([`Notifier::event`]). Each event
//! worth telling becomes a short, sanitized [`Notice`] (never the prompt,
//! never a secret) that goes to every [`Sink`]: the terminal (OSC 9 and
//! OSC 777 plus the bell, only while the terminal reports it is not
//! focused), the desktop (the freedesktop notification service over
//! D-Bus) and a phone (an ntfy-compatible webhook). Every sink runs on a
//! task of its own behind a bounded queue: a slow or dead sink never
//! delays the session (a notice it has no room for is dropped), and a
//! sink that keeps failing is reported once.

#![forbid(unsafe_code)]

mod desktop;
mod notice;
mod notifier;
mod terminal;
mod webhook;

pub use desktop::DesktopSink;
pub use notice::{notice_for, Notice, NoticeKind};
pub use notifier::{Notifier, Sink};
pub use terminal::{osc_sequences, Focus, TerminalSink};
pub use webhook::{WebhookSink, WEBHOOK_ATTEMPTS};
