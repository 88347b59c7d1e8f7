//! What a room costs (issue 33): `cohost run --json --agent mock` four
//! times in one process (a room of four members, all streaming at once)
//! against four separate `cohost run --json --agent mock` processes started
//! at the same moment, in the same scratch user and directory, in rounds
//! whose order alternates so machine load hits both alike.
//!
//! Each member answers `[mock:chunks:N]`: N numbered deltas at full speed
//! (default 20,000, about 210 KB of text), so streaming outweighs start-up.
//! Per round it reads each child's CPU time (user + system, the git
//! processes of its checkpoints included) and peak RSS from `wait4(2)` as
//! the child is reaped, and the moment each member's first `stream_chunk`
//! line reaches the bench through the pipe. It prints, per member, CPU and
//! RSS of the room against the separate processes (the room's figures
//! divided by its members; the separate ones summed, then divided), and the
//! time from start to the first chunk of every member (the slowest
//! member's), each as a ratio room/separate of the medians with the range
//! of the per-round ratios.
//!
//! Then the same in-process, with the rooms already running: a `/compare`
//! (`Room::prompt_each`, what the chat's `/compare` does member by member)
//! to a live room of four, against a prompt to a live room of one, timed to
//! the first chunk of every member. That is the latency a chat user sees,
//! without cohost's start-up.
//!
//! ```text
//! cargo bench -p cohost-cli --bench room
//! cargo bench -p cohost-cli --bench room -- --rounds 9 --chunks 50000
//! cargo bench -p cohost-cli --bench room -- --no-checkpoints
//! ```
//! Everything runs in a temporary directory with a scratch HOME; the
//! bench's own working directory and HOME are moved there first, since the
//! in-process rooms run their checkpoints' git in this process's
//! environment.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench: a failed unwrap is a failed bench with its line, and nothing
// here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cohost_core::{ApprovalMode, EventBody, Policy, PromptInput, Registry};
use cohost_discovery::{DiscoveryEnv, Host};
use cohost_host::session::{prepare_room, Approvals, ProviderChoice, Recording, SessionRequest};
use cohost_session::{Room, RoomEvents};

/// Members of the room, and separate processes against it.
const MEMBERS: usize = 4;

struct Args {
    rounds: usize,
    chunks: u32,
    /// Run every session without checkpoints (`--no-checkpoints`), to see
    /// what the git snapshots around each turn take.
    checkpoints: bool,
}

fn parse_args() -> Args {
    let mut a = Args {
        rounds: 5,
        chunks: 20_000,
        checkpoints: true,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let mut num = || it.next().and_then(|v| v.parse::<u64>().ok());
        match flag.as_str() {
            "--rounds" => a.rounds = num().map_or(a.rounds, |n| n.max(1) as usize),
            "--chunks" => a.chunks = num().map_or(a.chunks, |n| n.max(1) as u32),
            "--no-checkpoints" => a.checkpoints = false,
            _ => {} // `--bench` from cargo
        }
    }
    a
}

/// The scratch user and directory every run happens in.
struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    cohost: PathBuf,
    checkpoints: bool,
}

impl World {
    fn new(checkpoints: bool) -> World {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let work = root.path().join("work");
        let bin = root.path().join("bin");
        for d in [&home, &work, &bin] {
            std::fs::create_dir_all(d).unwrap();
        }
        // A copy, as an install leaves it: a binary the linker has just
        // written starts slower (how its pages sit in the page cache).
        let cohost = bin.join("cohost");
        std::fs::copy(env!("CARGO_BIN_EXE_cohost"), &cohost).unwrap();
        World {
            _root: root,
            home,
            work,
            cohost,
            checkpoints,
        }
    }

    /// `cohost run --json` with one `--agent mock` per member.
    fn command(&self, members: usize, prompt: &str, stderr: &Path) -> Command {
        let mut c = Command::new(&self.cohost);
        c.arg("run").arg("--json");
        if !self.checkpoints {
            c.arg("--no-checkpoints");
        }
        for _ in 0..members {
            c.args(["--agent", "mock"]);
        }
        c.arg(prompt)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("NO_COLOR", "1")
            .current_dir(&self.work)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr).unwrap());
        c
    }
}

/// What one child printed, read as it arrived.
#[derive(Default)]
struct Printed {
    /// When each member's first chunk line arrived (`""`: a one-agent
    /// run, whose events carry no `agent`).
    first: BTreeMap<String, Instant>,
    /// Chunk lines per member.
    chunks: BTreeMap<String, usize>,
}

/// The `agent` of a JSON event line, found by hand: parsing 80,000 lines
/// with serde would take CPU from the runs being measured.
fn agent_of(line: &str) -> &str {
    const KEY: &str = "\"agent\":\"";
    line.find(KEY)
        .map(|i| &line[i + KEY.len()..])
        .and_then(|rest| rest.find('"').map(|end| &rest[..end]))
        .unwrap_or("")
}

fn read_events(out: std::process::ChildStdout) -> Printed {
    let mut printed = Printed::default();
    let mut reader = std::io::BufReader::with_capacity(1 << 16, out);
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
        if line.contains("\"type\":\"stream_chunk\"") {
            let now = Instant::now();
            let agent = agent_of(&line);
            if !printed.first.contains_key(agent) {
                printed.first.insert(agent.to_owned(), now);
            }
            *printed.chunks.entry(agent.to_owned()).or_default() += 1;
        }
        line.clear();
    }
    printed
}

/// A reaped child's own resource use.
struct Usage {
    cpu: Duration,
    peak_rss_kib: u64,
}

/// Reap `pid` and read its resource use as the kernel kept it: user and
/// system time of the child and of every descendant it waited for, and
/// the largest peak RSS among them (`ru_maxrss`, KiB on Linux).
#[allow(
    unsafe_code,
    reason = "wait4(2) is the one call that gives a child's rusage (peak RSS included) as it is reaped"
)]
fn reap(pid: u32) -> (i32, Usage) {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is a plain C struct, for which all zeroes is a valid
    // value; wait4 writes only through the two pointers it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut ru) };
    assert_eq!(
        got,
        pid as libc::pid_t,
        "wait4({pid}): {}",
        std::io::Error::last_os_error()
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    (
        code,
        Usage {
            cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
            peak_rss_kib: ru.ru_maxrss as u64,
        },
    )
}

/// One side of a round: its processes' summed CPU, summed peak RSS, and
/// the time from start to the first chunk of its slowest member.
struct Side {
    cpu: Duration,
    rss_kib: u64,
    every_first: Duration,
    /// Chunk lines that never reached stdout. `cohost run` exits 0 either
    /// way: a member whose subscriber falls 65,536 events behind is cut
    /// off with only a log line (see the README's figures).
    lost: usize,
}

/// Start `processes` children of `members` agents each, at once, and
/// measure them until all have ended.
fn run_side(w: &World, processes: usize, members: usize, chunks: u32) -> Side {
    let prompt = format!("[mock:chunks:{chunks}] go");
    let t0 = Instant::now();
    let mut running = Vec::with_capacity(processes);
    for i in 0..processes {
        let errfile = w.home.join(format!("stderr-{i}"));
        #[allow(
            clippy::zombie_processes,
            reason = "`reap` waits for the pid with wait4(2), which `Child::wait` cannot replace: it drops the rusage"
        )]
        let mut child = w.command(members, &prompt, &errfile).spawn().unwrap();
        let out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || read_events(out));
        running.push((child.id(), reader, errfile));
    }
    let mut side = Side {
        cpu: Duration::ZERO,
        rss_kib: 0,
        every_first: Duration::ZERO,
        lost: 0,
    };
    for (pid, reader, errfile) in running {
        let (code, usage) = reap(pid);
        let printed = reader.join().unwrap();
        assert!(
            code == 0,
            "cohost run exited {code}: {}",
            std::fs::read_to_string(&errfile).unwrap_or_default()
        );
        assert_eq!(
            printed.first.len(),
            members,
            "a member sent no chunk: {:?}",
            printed.chunks
        );
        let got: usize = printed.chunks.values().sum();
        side.lost += (chunks as usize * members).saturating_sub(got);
        side.cpu += usage.cpu;
        side.rss_kib += usage.peak_rss_kib;
        for at in printed.first.values() {
            side.every_first = side.every_first.max(at.duration_since(t0));
        }
    }
    side
}

fn median<T: Copy + PartialOrd>(v: &[T]) -> T {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `name: A x, B y, A/B r (rounds min-max)`: the medians of per-round
/// pairs `(a, b)` and their ratio, with the range of the per-round ratios
/// (how far one run's ratio can be trusted on a shared machine).
fn report(name: &str, unit: &str, (a, b): (&str, &str), pairs: &[(f64, f64)]) {
    let first: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let second: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let ratios: Vec<f64> = pairs.iter().map(|p| p.0 / p.1).collect();
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    println!(
        "  {name:<40} {a} {:>7.1} {unit:<3} {b} {:>7.1} {unit:<3} {a}/{b} {:.2} (rounds {lo:.2}-{hi:.2})",
        median(&first),
        median(&second),
        median(&first) / median(&second),
    );
}

/// The host the in-process rooms run in: built-in providers only (no
/// plugin directories read) and the scratch user.
fn scratch_host(w: &World) -> Host {
    let mut registry = Registry::new();
    cohost_agents::builtin::register_all(&mut registry).unwrap();
    let env = DiscoveryEnv {
        path: Some("/usr/local/bin:/usr/bin:/bin".into()),
        home: Some(w.home.clone()),
        vars: BTreeMap::new(),
        system_dirs: Vec::new(),
    };
    Host::new(registry, env)
}

/// A live room of `members` mocks in the scratch directory: recorded,
/// checkpoints as `--no-checkpoints` says, approvals refused (the mock's
/// chunks ask for none).
async fn live_room(host: &Host, w: &World, members: usize) -> Room {
    let cfg = host.config().unwrap();
    let agents = vec!["mock".to_owned(); members];
    let prepared = prepare_room(host, &cfg, &agents, |_, id| {
        let mut req = SessionRequest::new(
            ProviderChoice::Id(id.to_owned()),
            Approvals::policy(ApprovalMode::DenyAll, Arc::new(Policy::DenyAll)),
        );
        req.cwd = Some(w.work.clone());
        req.recording = Recording::New;
        req.checkpoints = Some(w.checkpoints);
        req
    })
    .await
    .unwrap();
    prepared.launch(host).await.unwrap()
}

/// One compare to a live room: the time from `prompt_each` to the first
/// chunk of every member; waits for every member's turn to end.
async fn compare_once(room: &Room, events: &mut RoomEvents, prompt: &str) -> Duration {
    let members = room.members().len();
    let t0 = Instant::now();
    for (name, turn) in room.prompt_each(&PromptInput::text(prompt), false) {
        turn.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut first: BTreeMap<String, Duration> = BTreeMap::new();
    let mut ended = 0;
    while ended < members {
        let event = match events.recv().await {
            Some(Ok(e)) => e,
            Some(Err(lagged)) => panic!("the bench fell behind: {lagged}"),
            None => panic!("the room ended mid-turn"),
        };
        let agent = event.agent.clone().unwrap_or_default();
        match &event.body {
            EventBody::StreamChunk { .. } => {
                first.entry(agent).or_insert_with(|| t0.elapsed());
            }
            EventBody::StreamEnd { .. } => ended += 1,
            _ => {}
        }
    }
    assert_eq!(first.len(), members, "a member sent no chunk");
    first.into_values().max().unwrap_or_default()
}

/// Warm `/compare` latency: a live room of four against a live room of
/// one, alternating; per-round pairs in ms.
async fn warm_compare(w: &World, rounds: usize, chunks: u32) -> Vec<(f64, f64)> {
    let host = scratch_host(w);
    let four = live_room(&host, w, MEMBERS).await;
    let one = live_room(&host, w, 1).await;
    let mut four_events = four.subscribe_new();
    let mut one_events = one.subscribe_new();
    let prompt = format!("[mock:chunks:{chunks}] again");
    // A first turn each: each session's first checkpoint is not the
    // steady state.
    compare_once(&four, &mut four_events, &prompt).await;
    compare_once(&one, &mut one_events, &prompt).await;
    let mut pairs = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let (a, b) = if i % 2 == 0 {
            let a = compare_once(&four, &mut four_events, &prompt).await;
            (a, compare_once(&one, &mut one_events, &prompt).await)
        } else {
            let b = compare_once(&one, &mut one_events, &prompt).await;
            (compare_once(&four, &mut four_events, &prompt).await, b)
        };
        pairs.push((ms(a), ms(b)));
    }
    four.terminate().await.unwrap();
    one.terminate().await.unwrap();
    pairs
}

fn main() {
    let args = parse_args();
    let w = World::new(args.checkpoints);
    // The in-process rooms run git (checkpoints) with this process's
    // environment and take paths relative to its directory: neither may be
    // the user's or the checkout's. Set before any thread exists.
    std::env::set_var("HOME", &w.home);
    std::env::remove_var("XDG_CONFIG_HOME");
    std::env::remove_var("XDG_STATE_HOME");
    std::env::remove_var("XDG_DATA_HOME");
    std::env::set_current_dir(&w.work).unwrap();
    let started = Instant::now();

    // Warm both (page cache, the state directory, the directory's
    // checkpoint repository).
    run_side(&w, 1, MEMBERS, args.chunks);
    run_side(&w, MEMBERS, 1, args.chunks);

    let (mut cpu, mut rss, mut first) = (Vec::new(), Vec::new(), Vec::new());
    let (mut room_lost, mut separate_lost) = (0, 0);
    for i in 0..args.rounds {
        let (room, separate) = if i % 2 == 0 {
            let room = run_side(&w, 1, MEMBERS, args.chunks);
            (room, run_side(&w, MEMBERS, 1, args.chunks))
        } else {
            let separate = run_side(&w, MEMBERS, 1, args.chunks);
            (run_side(&w, 1, MEMBERS, args.chunks), separate)
        };
        room_lost += room.lost;
        separate_lost += separate.lost;
        let per = |d: Duration| ms(d) / MEMBERS as f64;
        let mib = |kib: u64| kib as f64 / 1024.0 / MEMBERS as f64;
        cpu.push((per(room.cpu), per(separate.cpu)));
        rss.push((mib(room.rss_kib), mib(separate.rss_kib)));
        first.push((ms(room.every_first), ms(separate.every_first)));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let warm = runtime.block_on(warm_compare(&w, args.rounds, args.chunks));

    let text_kb = (0..args.chunks)
        .map(|i| format!("chunk{i} ").len())
        .sum::<usize>() as f64
        / 1000.0;
    println!(
        "room: {} rounds, {MEMBERS} mock members x {} chunks ({text_kb:.0} KB of text each), checkpoints {}, {:.1} s",
        args.rounds,
        args.chunks,
        if args.checkpoints { "on" } else { "off" },
        started.elapsed().as_secs_f64()
    );
    println!("  cohost run --json, one process with {MEMBERS} --agent mock vs {MEMBERS} processes with one, started at once:");
    let sides = ("room", "separate");
    report("CPU per member (user+sys)", "ms", sides, &cpu);
    report("peak RSS per member", "MiB", sides, &rss);
    report("start to first chunk of every member", "ms", sides, &first);
    if room_lost + separate_lost > 0 {
        println!(
            "  chunks lost (cut-off subscribers, exit code 0): room {room_lost}, separate {separate_lost}, of {} each",
            args.rounds * MEMBERS * args.chunks as usize
        );
    }
    println!(
        "  in-process, live rooms (the chat's /compare without start-up), against a room of one:"
    );
    report(
        "/compare to first chunk of every member",
        "ms",
        ("four", "one"),
        &warm,
    );
}
