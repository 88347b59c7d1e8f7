//! A hostile adapter component for cohost's limit tests. Each stdout line
//! (or the prompt, in `start`) names a misbehaviour:
//!
//! - `loop`: never returns;
//! - `alloc`: grows its memory 64 MiB at a time towards 4 GiB;
//! - `trap`: panics (a wasm `unreachable`);
//! - `flood N`: returns N tiny events from one call;
//! - `big`: returns one 8 MiB text delta;
//! - `bad-json`: a tool call whose input is not JSON;
//! - `after-end`: an event after `ended`;
//! - `twice`: `started` twice;
//! - `ask`: an approval request (not hostile: what the world cannot answer);
//! - anything else: echoed as text.

#![no_std]

extern crate alloc;

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

wit_bindgen::generate!({
    path: "../../../crates/cohost-wasm/wit",
    world: "adapter",
});

use exports::cohost::adapter::turn::{
    Command, EndReason, Ended, Event, Exit, Guest, Options, Started, ToolCall,
};

#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
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

fn started() -> Event {
    Event::Started(Started {
        session_id: None,
        model: None,
    })
}

fn ended() -> Event {
    Event::Ended(Ended {
        reason: EndReason::Completed,
        usage: None,
    })
}

/// Do what `what` names; `None` for "nothing hostile".
fn misbehave(what: &str) -> Option<Vec<Event>> {
    let mut words = what.split_whitespace();
    match words.next()? {
        "loop" => {
            let mut n: u64 = 0;
            loop {
                // volatile: the optimizer may not delete the loop.
                n = unsafe { core::ptr::read_volatile(&n) }.wrapping_add(1);
            }
        }
        "alloc" => {
            // 64 MiB (1024 pages) at a time, up to 4 GiB, touching each.
            for _ in 0..64 {
                let before = core::arch::wasm32::memory_grow(0, 1024);
                if before == usize::MAX {
                    panic!("out of memory");
                }
                unsafe { core::ptr::write_volatile((before * 65536) as *mut u8, 1) };
            }
            Some(Vec::new())
        }
        "trap" => panic!("asked to trap"),
        "flood" => {
            let n: usize = words
                .next()
                .and_then(|w| w.parse().ok())
                .unwrap_or(10_000_000);
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(Event::TextDelta(String::new()));
            }
            Some(out)
        }
        "big" => Some(vec![Event::TextDelta("x".repeat(8 << 20))]),
        "bad-json" => Some(vec![Event::ToolCall(ToolCall {
            id: "t1".into(),
            name: "shell".into(),
            kind: None,
            input_json: "{not json".into(),
        })]),
        "after-end" => Some(vec![ended(), Event::TextDelta("late".into())]),
        "twice" => Some(vec![started(), started()]),
        // Not hostile: an agent that asks before running a tool, which the
        // world cannot answer (cohost shows it as a call and a notice).
        "ask" => Some(vec![Event::ApprovalRequested(ToolCall {
            id: "t1".into(),
            name: "developer__shell".into(),
            kind: None,
            input_json: "{\"command\":\"ls\"}".into(),
        })]),
        _ => None,
    }
}

struct Hostile;

impl Guest for Hostile {
    fn start(opts: Options) -> Result<Command, String> {
        misbehave(&opts.prompt);
        Ok(Command {
            args: vec![opts.prompt],
            env: Vec::new(),
            stdin: Vec::new(),
        })
    }

    fn on_line(line: String) -> Vec<Event> {
        misbehave(&line).unwrap_or_else(|| vec![Event::TextDelta(line.to_string())])
    }

    fn on_exit(_exit: Exit) -> Vec<Event> {
        Vec::new()
    }
}

export!(Hostile);
