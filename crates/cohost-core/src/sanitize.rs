//! The sanitizer every user-visible string passes through.
//!
//! It removes credentials by shape (vendor key formats, bearer tokens, JWTs,
//! private key blocks, passwords in URLs, `SECRET=value` pairs and JSON
//! fields), by value (secrets cohost knows: any run of 12 or more of their
//! characters), and shows the home directory as `~`. It favours precision on
//! ordinary code: every shape needs a vendor prefix or a secret-meaning name,
//! and placeholders (`<your key>`, `${TOKEN}`) and code (`token: String,`)
//! after a name stay as they are. The shapes are listed in the README's
//! Trust section and in [`corpus`].
//!
//! Who may use the process-wide sanitizer ([`install`], `global`,
//! `shared` and the free functions `sanitize`, `sanitize_json`,
//! `sanitize_text_or_json`): the binary, `cohost-cli`, alone. It is the
//! composition root: it builds the one [`Sanitizer`] (with the secret values
//! it collected), installs it, and hands the same value to every boundary
//! (the host context's `sanitizer`, the engine's `SessionOptions`, a
//! notifier), which use that value and not this global. A library that
//! reached the global would sanitize with whatever this process happened to
//! install, or with one built from the real environment in a test, and a
//! test could not show which. No library crate calls them: they are hidden
//! from the docs, and `cohost-testbench`'s `sanitizer_global` test fails on
//! any file but the binary's `secrets.rs` that does.

use std::sync::{Arc, OnceLock};

mod known;
mod names;
mod rules;
mod sanitizer;
mod terminal;

pub use known::{MIN_VALUE, RUN};
pub use names::is_secret_name;
pub use rules::REDACTED;
pub use sanitizer::Sanitizer;
pub use terminal::{inert_line, strip_controls};

mod stream;
pub use stream::StreamSanitizer;

#[doc(hidden)]
pub mod corpus;

static GLOBAL: OnceLock<Arc<Sanitizer>> = OnceLock::new();

/// Installs the process-wide sanitizer. The binary (the composition root)
/// calls this at start with the secret values it collected (environment,
/// config, credential files); returns `false` when one was already in use.
pub fn install(sanitizer: Sanitizer) -> bool {
    GLOBAL.set(Arc::new(sanitizer)).is_ok()
}

/// The process-wide sanitizer: the installed one, or one built on first use
/// from the environment and `$HOME`.
#[doc(hidden)]
pub fn global() -> &'static Sanitizer {
    shared_ref()
}

/// The process-wide sanitizer as a value to hand on (the session engine
/// keeps one in its [`crate::SessionOptions`]).
#[doc(hidden)]
pub fn shared() -> Arc<Sanitizer> {
    Arc::clone(shared_ref())
}

fn shared_ref() -> &'static Arc<Sanitizer> {
    GLOBAL.get_or_init(|| Arc::new(Sanitizer::from_process_env()))
}

/// Compile every secret pattern now, on a thread of its own: a start-up
/// that calls this first does its other work while the patterns compile
/// (a few milliseconds), and the first text to sanitize waits only for what
/// is left. Without it, the first use compiles them. Only the first call
/// starts the thread; later ones return at once.
pub fn precompile() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(start_compiling);
}

fn start_compiling() {
    let spawned = std::thread::Builder::new()
        .name("cohost-patterns".into())
        .spawn(|| {
            sanitizer::precompile();
            stream::precompile();
        });
    // No thread: the first use compiles them, as without this call.
    drop(spawned);
}

/// Build the process-wide sanitizer now (compiling its patterns takes a few
/// milliseconds) so the first streamed delta does not pay for it.
#[doc(hidden)]
pub fn warm_up() {
    let _ = global();
}

/// Sanitize with the process-wide sanitizer.
#[doc(hidden)]
pub fn sanitize(input: &str) -> String {
    global().sanitize(input).into_owned()
}

/// Sanitize a JSON value with the process-wide sanitizer: every string,
/// and the whole value of every secret-named key at any depth (see
/// [`Sanitizer::sanitize_json`]). Tool inputs and outputs, events, API
/// responses and room payloads pass here.
#[doc(hidden)]
pub fn sanitize_json(value: &mut serde_json::Value) {
    global().sanitize_json(value);
}

/// Sanitize a text that may be a JSON document (a tool's output) with the
/// process-wide sanitizer, reading its keys when it is one (see
/// [`Sanitizer::sanitize_text_or_json`]).
#[doc(hidden)]
pub fn sanitize_text_or_json(input: &str) -> String {
    global().sanitize_text_or_json(input).into_owned()
}

#[cfg(test)]
mod tests;
