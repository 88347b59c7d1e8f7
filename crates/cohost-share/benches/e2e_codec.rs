//! Per-chunk cost of the end-to-end codec against plaintext, in the same
//! run: the host's encode + encrypt + sign of one `ai.stream.chunk`, and a
//! participant's verify + decrypt + decode of it.
//!
//! `cargo bench -p cohost-share --bench e2e_codec`
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench crate: a failed unwrap is a failed bench with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use cohost_core::Event;
use cohost_protocol::{Frame, Role, RoomId, StreamId};
use cohost_share::e2e::Identity;
use cohost_share::{E2e, Message, RoomCodec};

const N: usize = 20_000;

/// Median seconds of `f` and of `g` over `rounds` rounds, run alternately so
/// the machine's changing load weighs on both alike.
fn medians(rounds: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let time = |h: &mut dyn FnMut()| {
        let t = Instant::now();
        h();
        t.elapsed().as_secs_f64()
    };
    let (mut a, mut b): (Vec<f64>, Vec<f64>) =
        (0..rounds).map(|_| (time(&mut f), time(&mut g))).unzip();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a[rounds / 2], b[rounds / 2])
}

fn chunk(i: u64) -> Message {
    Message::TurnEvent(
        Event::from_json_line(&format!(
            r#"{{"id":"p-1.{i}","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"stream_chunk","stream_id":"text","chunk_index":{i},"delta":"Here is the fix: change compute(a, b) to "}}"#
        ))
        .unwrap(),
    )
}

fn main() {
    let room = RoomId::new("bench-room").unwrap();
    let host = Arc::new(E2e::generate_host().unwrap());
    let guest = Arc::new(
        E2e::participant(&host.invite_keys([0; 16]), Identity::generate().unwrap()).unwrap(),
    );
    let e2e_host = RoomCodec::with_codec(room.clone(), host).as_role(Role::Host);
    let e2e_guest = RoomCodec::with_codec(room.clone(), guest).as_role(Role::Viewer);
    let plain = RoomCodec::new(room).as_role(Role::Host);
    let msgs: Vec<Message> = (0..N as u64).map(chunk).collect();
    let stream = || StreamId::new("p-1").unwrap();

    let seal = |codec: &RoomCodec| {
        let mut turn = codec.turn(stream());
        for m in &msgs {
            black_box(turn.frame(m).unwrap());
        }
    };
    let (e2e_seal, plain_seal) = medians(7, || seal(&e2e_host), || seal(&plain));

    // What participants receive: the relay stamps the host's role.
    let stamped = |codec: &RoomCodec| -> Vec<Frame> {
        let mut turn = codec.turn(stream());
        msgs.iter()
            .map(|m| {
                let f = turn.frame(m).unwrap();
                f.restamp(f.kind(), 1, Role::Host)
            })
            .collect()
    };
    let (sealed, clear) = (stamped(&e2e_host), stamped(&plain));
    let open = |codec: &RoomCodec, frames: &[Frame]| {
        for f in frames {
            black_box(codec.decode(f).unwrap());
        }
    };
    let (e2e_open, plain_open) = medians(7, || open(&e2e_guest, &sealed), || open(&plain, &clear));
    let per = |s: f64| s * 1e6 / N as f64;
    let size = |fs: &[Frame]| fs.iter().map(Frame::payload_len).sum::<usize>() / fs.len();
    println!(
        "host, per chunk:        encode+encrypt+sign {:.2} µs, plaintext encode {:.2} µs ({:.1}x)",
        per(e2e_seal),
        per(plain_seal),
        e2e_seal / plain_seal
    );
    println!(
        "participant, per chunk: verify+decrypt+decode {:.2} µs, plaintext decode {:.2} µs ({:.1}x)",
        per(e2e_open),
        per(plain_open),
        e2e_open / plain_open
    );
    println!(
        "payload: {} bytes sealed, {} bytes plaintext (+{} per chunk)",
        size(&sealed),
        size(&clear),
        size(&sealed) - size(&clear)
    );
}
