//! Render bench (not a timed test): what a streamed chunk costs to draw, CPU
//! while streaming 100 chunks/s, scrolling a 10,000-chunk answer, and the
//! redraw cap. Costs are ratios against a baseline measured in the same run
//! (a frame with nothing new), so the machine's speed cancels out.
//!
//! `cargo bench -p cohost-tui --bench render` (add `-- --quick` for a short run).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench: it may unwrap, and sleep to pace frames like a real stream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    missing_docs
)]

use std::time::{Duration, Instant};

use cohost_core::{Event, EventBody};
use cohost_tui::app::{App, Incoming};
use cohost_tui::commands::Mode;
use cohost_tui::term::{FrameClock, FPS};
use cohost_tui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn ev(body: EventBody) -> Incoming {
    Incoming::Event(Event {
        id: "p.0".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: None,
        body,
    })
}

/// The i-th chunk of a long, realistic answer: prose in word groups, a blank
/// line every 40 chunks, a 12-line code block every 400.
fn chunk(i: u64) -> String {
    match i % 400 {
        0 => "\n\n```rust\n".into(),
        1..=12 => format!("    let value_{i} = compute({i}).unwrap_or_default();\n"),
        13 => "```\n\n".into(),
        n if n % 40 == 0 => format!("paragraph {i} ends.\n\n"),
        _ => format!("word{i} and **some** more `text` "),
    }
}

fn started() -> App {
    let mut app = App::new(Mode::Chat, Theme::new(true));
    app.on_incoming(
        ev(EventBody::StreamStart {
            provider: "mock".into(),
            session_id: None,
            model: None,
        }),
        Instant::now(),
    );
    app
}

fn push(app: &mut App, i: u64) {
    app.on_incoming(
        ev(EventBody::StreamChunk {
            stream_id: "t".into(),
            chunk_index: i,
            delta: chunk(i),
        }),
        Instant::now(),
    );
}

fn draw(term: &mut Terminal<TestBackend>, app: &mut App) {
    term.draw(|f| cohost_tui::view::draw(f, app, Instant::now()))
        .unwrap();
}

/// CPU seconds this process used (user + system), from /proc.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    // Fields after the name start at field 3 (state); utime and stime are
    // fields 14 and 15.
    let f: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    let ticks = field(11) + field(12);
    ticks as f64 / 100.0
}

fn per_frame(mut f: impl FnMut(), n: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed() / n
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let total: u64 = if quick { 2_000 } else { 10_000 };
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();

    // Baseline: a frame with nothing new, on a short answer.
    let mut app = started();
    for i in 0..50 {
        push(&mut app, i);
    }
    draw(&mut term, &mut app);
    let baseline = per_frame(|| draw(&mut term, &mut app), 500);

    // Per chunk: push + draw, early in the answer and late in it.
    let mut app = started();
    let mut early = Duration::ZERO;
    let mut late = Duration::ZERO;
    let window = total / 10;
    for i in 0..total {
        let t = Instant::now();
        push(&mut app, i);
        draw(&mut term, &mut app);
        let d = t.elapsed();
        if i < window {
            early += d;
        } else if i >= total - window {
            late += d;
        }
    }
    let early = early / window as u32;
    let late = late / window as u32;

    // Scrolling the finished answer a page at a time, then back down.
    let at_bottom = per_frame(|| draw(&mut term, &mut app), 200);
    let page_up = KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE);
    let page_down = KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE);
    let scrolled = per_frame(
        || {
            app.on_key(page_up);
            draw(&mut term, &mut app);
        },
        400,
    );
    let back = per_frame(
        || {
            app.on_key(page_down);
            draw(&mut term, &mut app);
        },
        400,
    );

    // Streaming in real time at `rate` chunks/s through the frame clock, as
    // the shell does: draws counted, CPU measured.
    let stream = |rate: u64, secs: f64| {
        let mut app = started();
        let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
        let mut clock = FrameClock::new(FPS);
        let n = (rate as f64 * secs) as u64;
        let gap = Duration::from_secs(1) / rate as u32;
        let (cpu0, t0) = (cpu_seconds(), Instant::now());
        let mut draws = 0u64;
        let mut pending = false;
        for i in 0..n {
            let due = t0 + gap * i as u32;
            loop {
                let now = Instant::now();
                if pending && clock.wait(now).is_zero() {
                    draw(&mut term, &mut app);
                    clock.drew(now);
                    draws += 1;
                    pending = false;
                }
                if now >= due {
                    break;
                }
                let wake = if pending {
                    clock.wait(now).min(due - now)
                } else {
                    due - now
                };
                std::thread::sleep(wake);
            }
            push(&mut app, i);
            pending = true;
        }
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu0;
        (draws as f64 / wall, 100.0 * cpu / wall)
    };
    let secs = if quick { 1.0 } else { 3.0 };
    let (fps_100, cpu_100) = stream(100, secs);
    let (fps_1000, cpu_1000) = stream(1000, secs);

    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let ratio = |d: Duration| d.as_secs_f64() / baseline.as_secs_f64();
    println!("render bench (80x24, {total} chunks; ratios against a frame with nothing new)");
    println!("  baseline frame                 {:>9.1} µs", us(baseline));
    println!(
        "  chunk + frame, first {window:<6}    {:>9.1} µs  {:>5.2}x",
        us(early),
        ratio(early)
    );
    println!(
        "  chunk + frame, last {window:<6}     {:>9.1} µs  {:>5.2}x",
        us(late),
        ratio(late)
    );
    println!(
        "  late / early (1.0 = incremental) {:>7.2}",
        late.as_secs_f64() / early.as_secs_f64()
    );
    println!(
        "  frame at the bottom, {total} chunks {:>7.1} µs  {:>5.2}x",
        us(at_bottom),
        ratio(at_bottom)
    );
    println!(
        "  PageUp + frame                 {:>9.1} µs  {:>5.2}x",
        us(scrolled),
        ratio(scrolled)
    );
    println!(
        "  PageDown + frame               {:>9.1} µs  {:>5.2}x",
        us(back),
        ratio(back)
    );
    println!("  100 chunks/s:  {fps_100:>5.1} frames/s, CPU {cpu_100:>5.1}% of one core");
    println!(
        "  1000 chunks/s: {fps_1000:>5.1} frames/s (cap {FPS}), CPU {cpu_1000:>5.1}% of one core"
    );
}
