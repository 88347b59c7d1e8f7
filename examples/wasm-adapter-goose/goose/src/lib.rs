//! Goose as a cohost adapter component (`cohost:adapter/turn@0.1.0`): the
//! port of cohost's built-in Goose driver
//! (`crates/cohost-agents/src/goose/`), line for line, so the two produce
//! the same events on the same transcripts (cohost's tests check that).
//!
//! `goose run --output-format stream-json --name NAME [--resume] --text
//! PROMPT` per turn; stdout is NDJSON: `message` (content items `text`,
//! `thinking`, `toolRequest`, `toolResponse`), `notification`, `error`, and
//! a closing `complete` (`total_tokens`).
//!
//! `no_std` (with an allocator and a panic handler of its own) so that the
//! component imports nothing: Rust's `std` on wasm32-wasip2 would import
//! WASI (stderr for panics), which the cohost:adapter world does not give.

#![no_std]

extern crate alloc;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;
use serde_json::Value;

wit_bindgen::generate!({
    path: "../../../crates/cohost-wasm/wit",
    world: "adapter",
});

use exports::cohost::adapter::turn::{
    ApprovalMode, Command, EndReason, Ended, Event, Exit, Failure, Guest, Options, Started,
    ToolCall, ToolKind, ToolResult, ToolStatus, Usage,
};

#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

/// `memcmp`, which `core` calls (for every JSON key looked up) and which
/// wasi-libc would provide under `std`. Eight bytes at a time; the bytes of
/// a differing word one by one. The reads are volatile so that LLVM does
/// not turn the loop back into a call to `memcmp` (itself).
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i + 8 <= n {
        let (x, y) = unsafe {
            (
                core::ptr::read_volatile(a.add(i).cast::<[u8; 8]>()),
                core::ptr::read_volatile(b.add(i).cast::<[u8; 8]>()),
            )
        };
        if u64::from_ne_bytes(x) != u64::from_ne_bytes(y) {
            break;
        }
        i += 8;
    }
    while i < n {
        let (x, y) = unsafe {
            (
                core::ptr::read_volatile(a.add(i)),
                core::ptr::read_volatile(b.add(i)),
            )
        };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

/// The canonical ABI's allocator. On wasm32-wasip2 it normally comes from
/// wasi-libc through `std`; a `no_std` component exports its own.
#[no_mangle]
pub unsafe extern "C" fn cabi_realloc(
    old_ptr: *mut u8,
    old_len: usize,
    align: usize,
    new_len: usize,
) -> *mut u8 {
    use alloc::alloc::{alloc, handle_alloc_error, realloc, Layout};
    if new_len == 0 {
        return align as *mut u8;
    }
    let Ok(layout) = Layout::from_size_align(new_len, align) else {
        core::arch::wasm32::unreachable()
    };
    let ptr = if old_len == 0 {
        unsafe { alloc(layout) }
    } else {
        let Ok(old) = Layout::from_size_align(old_len, align) else {
            core::arch::wasm32::unreachable()
        };
        unsafe { realloc(old_ptr, old, new_len) }
    };
    if ptr.is_null() {
        handle_alloc_error(layout);
    }
    ptr
}

/// One turn's state (one instance serves one turn; wasm is single-threaded).
#[derive(Default)]
struct Turn {
    session: Option<String>,
    started: bool,
    ended: bool,
    errored: bool,
}

struct Static(RefCell<Option<Turn>>);
// SAFETY-free: wasm32 without threads has one thread; Sync is required of
// a static only.
unsafe impl Sync for Static {}
static TURN: Static = Static(RefCell::new(None));

fn with_turn<R>(f: impl FnOnce(&mut Turn) -> R) -> R {
    let mut cell = TURN.0.borrow_mut();
    f(cell.get_or_insert_with(Turn::default))
}

impl Turn {
    fn start(&mut self, out: &mut Vec<Event>) {
        if !self.started {
            self.started = true;
            out.push(Event::Started(Started {
                session_id: self.session.clone(),
                model: None,
            }));
        }
    }

    fn on_value(&mut self, v: &Value, out: &mut Vec<Event>) {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "message" => {
                self.start(out);
                let items = v.pointer("/message/content").and_then(Value::as_array);
                for item in items.into_iter().flatten() {
                    on_content(item, out);
                }
            }
            "error" => {
                self.start(out);
                self.errored = true;
                let msg = v
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("goose reported an error");
                // No code: cohost classifies the message and picks the fix.
                out.push(Event::Error(Failure {
                    code: None,
                    message: format!("goose: {msg}"),
                    fix: None,
                }));
            }
            "complete" => {
                self.start(out);
                self.ended = true;
                let usage = v
                    .get("total_tokens")
                    .and_then(Value::as_u64)
                    .map(|t| Usage {
                        input_tokens: 0,
                        // goose reports one total; it cannot be split honestly.
                        output_tokens: t,
                        reasoning_tokens: 0,
                        cache_read_tokens: 0,
                        cache_write_tokens: 0,
                    });
                out.push(Event::Ended(Ended {
                    reason: if self.errored {
                        EndReason::Error
                    } else {
                        EndReason::Completed
                    },
                    usage,
                }));
            }
            "notification" => self.start(out),
            _ => {}
        }
    }
}

fn on_content(item: &Value, out: &mut Vec<Event>) {
    let s = |k: &str| item.get(k).and_then(Value::as_str);
    match s("type").unwrap_or("") {
        "text" => {
            if let Some(t) = s("text").filter(|t| !t.is_empty()) {
                out.push(Event::TextDelta(t.to_string()));
            }
        }
        "thinking" => {
            if let Some(t) = s("thinking").filter(|t| !t.is_empty()) {
                out.push(Event::ReasoningDelta(t.to_string()));
            }
        }
        "toolRequest" => {
            let id = s("id").unwrap_or("goose-tool").to_string();
            let call = item.pointer("/toolCall/value");
            let name = call
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("tool")
                .to_string();
            let input = call
                .and_then(|c| c.get("arguments"))
                .unwrap_or(&Value::Null);
            out.push(Event::ToolCall(ToolCall {
                id,
                kind: tool_kind(&name),
                input_json: input.to_string(),
                name,
            }));
        }
        "toolResponse" => {
            let id = s("id").unwrap_or("goose-tool").to_string();
            let result = item.get("toolResult");
            let ok =
                result.and_then(|r| r.get("status")).and_then(Value::as_str) == Some("success");
            let output = match result.and_then(|r| r.get("value")) {
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                Some(Value::String(e)) => e.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let denied = !ok && output.to_ascii_lowercase().contains("declined");
            out.push(Event::ToolExecuted(ToolResult {
                id,
                status: if ok {
                    ToolStatus::Ok
                } else if denied {
                    ToolStatus::Denied
                } else {
                    ToolStatus::Error
                },
                output,
            }));
        }
        _ => {}
    }
}

/// goose names tools `<extension>__<tool>` (`developer__shell`); the two
/// core ones are known, the rest cohost guesses from the name.
fn tool_kind(name: &str) -> Option<ToolKind> {
    match name.rsplit("__").next().unwrap_or(name) {
        "shell" => Some(ToolKind::Execute),
        "text_editor" => Some(ToolKind::Edit),
        _ => None,
    }
}

struct Goose;

impl Guest for Goose {
    fn start(opts: Options) -> Result<Command, String> {
        let mut args: Vec<String> = ["run", "--output-format", "stream-json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if let Some(m) = &opts.model {
            args.push("--model".into());
            args.push(m.clone());
        }
        if let Some(id) = &opts.session_id {
            args.push("--name".into());
            args.push(id.clone());
            if !opts.fresh_session {
                args.push("--resume".into());
            }
        }
        args.extend(opts.extra_args.iter().cloned());
        args.push("--text".into());
        args.push(opts.prompt.clone());
        // `goose run` cannot ask: tools only when the user auto-approves.
        let mode = match opts.approval {
            ApprovalMode::AutoApprove => "auto",
            ApprovalMode::Ask | ApprovalMode::DenyAll => "chat",
        };
        with_turn(|t| {
            *t = Turn {
                session: opts.session_id,
                ..Turn::default()
            }
        });
        Ok(Command {
            args,
            env: vec![("GOOSE_MODE".into(), mode.into())],
            stdin: Vec::new(),
        })
    }

    fn on_line(line: String) -> Vec<Event> {
        let mut out = Vec::new();
        with_turn(|t| {
            let line = line.trim();
            if t.ended || line.is_empty() {
                return;
            }
            // Anything but a JSON object is noise (a warning on stdout).
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(line) {
                t.on_value(&v, &mut out);
            }
        });
        out
    }

    fn on_exit(exit: Exit) -> Vec<Event> {
        let mut out = Vec::new();
        with_turn(|t| {
            t.start(&mut out);
            // An `error` event then an exit: the turn failed. Otherwise
            // cohost maps the exit (interrupt, known stderr, crash).
            if t.errored && !exit.interrupted {
                out.push(Event::Ended(Ended {
                    reason: EndReason::Error,
                    usage: None,
                }));
            }
        });
        out
    }
}

export!(Goose);
