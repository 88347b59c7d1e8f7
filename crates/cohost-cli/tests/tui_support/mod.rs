//! A real pseudo-terminal for the terminal-UI tests: the `cohost` binary
//! runs on its slave side (its own session, the pty as controlling
//! terminal), and what it writes goes through `vt100`, a terminal emulator,
//! so tests read the screen as a person sees it.
#![allow(
    unsafe_code,
    reason = "a pseudo-terminal and its window size on the raw libc API; each block says why it is sound"
)]

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `cohost ARGS` on a terminal of `cols`x`rows`.
pub struct Tty {
    master: OwnedFd,
    child: Child,
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    /// The scratch home, kept until the terminal is gone.
    _home: tempfile::TempDir,
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap()
}

fn winsize(rows: u16, cols: u16) -> libc::winsize {
    libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    }
}

impl Tty {
    /// Start `cohost args` with a scratch HOME, no agent on PATH, `NO_COLOR`.
    pub fn spawn(args: &[&str], rows: u16, cols: u16) -> Tty {
        Tty::spawn_in(tempfile::tempdir().unwrap(), args, rows, cols)
    }

    /// Like [`Tty::spawn`] with a given HOME.
    pub fn spawn_in(home: tempfile::TempDir, args: &[&str], rows: u16, cols: u16) -> Tty {
        Tty::spawn_with(home, &[], args, rows, cols)
    }

    /// `cohost join ARGS` with the invite in `COHOST_INVITE`, never on the
    /// command line (other users can read that).
    pub fn join(invite: &str, args: &[&str], rows: u16, cols: u16) -> Tty {
        let all: Vec<&str> = std::iter::once("join")
            .chain(args.iter().copied())
            .collect();
        let env = [("COHOST_INVITE", invite)];
        Tty::spawn_with(tempfile::tempdir().unwrap(), &env, &all, rows, cols)
    }

    /// Like [`Tty::spawn_in`] with more variables.
    fn spawn_with(
        home: tempfile::TempDir,
        extra: &[(&str, &str)],
        args: &[&str],
        rows: u16,
        cols: u16,
    ) -> Tty {
        let mut env: std::collections::BTreeMap<String, String> = [
            ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
            ("HOME".to_owned(), home.path().display().to_string()),
        ]
        .into_iter()
        .collect();
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let cwd = home.path().to_path_buf();
        Tty::spawn_env(home, &cwd, env, args, rows, cols)
    }

    /// `cohost args` in `cwd` with exactly `env` (plus `TERM` and
    /// `NO_COLOR`): a test bench's scratch user, real agents on its PATH.
    pub fn spawn_env(
        home: tempfile::TempDir,
        cwd: &std::path::Path,
        env: std::collections::BTreeMap<String, String>,
        args: &[&str],
        rows: u16,
        cols: u16,
    ) -> Tty {
        let (mut m, mut s) = (0, 0);
        let ws = winsize(rows, cols);
        // SAFETY: openpty writes two descriptors; the name and termios are unused.
        let rc =
            unsafe { libc::openpty(&mut m, &mut s, std::ptr::null_mut(), std::ptr::null(), &ws) };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here.
        let (master, slave) = unsafe { (OwnedFd::from_raw_fd(m), OwnedFd::from_raw_fd(s)) };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cohost"));
        cmd.args(args)
            .env_clear()
            .envs(&env)
            .env("TERM", "xterm-256color")
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave.try_clone().unwrap()));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap();
        drop(slave);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(rows), nz(cols), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = std::fs::File::from(master.try_clone().unwrap());
        let (p, r) = (parser.clone(), raw.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                p.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Tty {
            master,
            child,
            parser,
            raw,
            _home: home,
        }
    }

    /// The screen's text now.
    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// The screen's rows, only columns `0..cols` of each (a pane beside
    /// them left out), trailing spaces cut.
    pub fn rows_within(&self, cols: u16) -> Vec<String> {
        self.parser.lock().unwrap().screen().rows(0, cols).collect()
    }

    /// Wait until the screen shows `needle`; panics with the screen if not.
    pub fn wait_for(&self, needle: &str, within: Duration) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            if start.elapsed() > within {
                panic!("the screen never showed {needle:?} in {within:?}:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Wait until the screen is as `ok` wants (`what` names it in the
    /// panic): for a state drawn over more than one frame, such as a line
    /// that appears a frame before a card goes.
    pub fn wait_until(&self, what: &str, within: Duration, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > within {
                panic!("the screen never showed {what} in {within:?}:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Type bytes (keys) into the terminal.
    pub fn send(&self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() {
            // SAFETY: writes at most `rest.len()` bytes from `rest`.
            let n =
                unsafe { libc::write(self.master.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
            assert!(
                n > 0,
                "write to the pty: {}",
                std::io::Error::last_os_error()
            );
            rest = &rest[usize::try_from(n).unwrap()..];
        }
    }

    /// Type a line and press Enter, key by key as a person would.
    pub fn type_line(&self, text: &str) {
        for b in text.as_bytes() {
            self.send(&[*b]);
        }
        std::thread::sleep(Duration::from_millis(50));
        self.send(b"\r");
    }

    /// Resize the terminal (the kernel sends SIGWINCH to cohost).
    pub fn resize(&self, rows: u16, cols: u16) {
        self.parser
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(nz(rows), nz(cols));
        let ws = winsize(rows, cols);
        // SAFETY: TIOCSWINSZ reads one winsize.
        let rc = unsafe { libc::ioctl(self.master.as_raw_fd(), libc::TIOCSWINSZ, &ws) };
        assert_eq!(rc, 0);
    }

    /// Send a signal to cohost.
    pub fn signal(&self, sig: i32) {
        // SAFETY: kill with a live child's pid.
        unsafe { libc::kill(i32::try_from(self.child.id()).unwrap(), sig) };
    }

    /// Wait for cohost to exit; its code (or 128 + signal).
    pub fn wait_exit(&mut self, within: Duration) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                use std::os::unix::process::ExitStatusExt;
                // Let the reader take the last bytes.
                std::thread::sleep(Duration::from_millis(100));
                return st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0));
            }
            if start.elapsed() > within {
                let _ = self.child.kill();
                panic!("cohost did not exit in {within:?}:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the terminal is as cohost found it: the main screen, the
    /// cursor shown, the line discipline cooked (canonical, echo).
    pub fn assert_restored(&self) {
        let p = self.parser.lock().unwrap();
        assert!(
            !p.screen().alternate_screen(),
            "still on the alternate screen"
        );
        assert!(!p.screen().hide_cursor(), "the cursor is still hidden");
        drop(p);
        // SAFETY: tcgetattr fills one termios.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::tcgetattr(self.master.as_raw_fd(), &mut t) };
        assert_eq!(rc, 0);
        assert!(
            t.c_lflag & libc::ICANON != 0,
            "the terminal is left in raw mode"
        );
        assert!(t.c_lflag & libc::ECHO != 0, "echo is left off");
    }

    /// Everything cohost wrote, as text (for failure messages).
    pub fn raw(&self) -> String {
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
