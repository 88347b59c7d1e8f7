//! The supervisor's side of cohost's process supervision, and the control
//! protocol both sides speak.
//!
//! Every agent cohost starts runs below its own supervisor: a small program
//! that holds one end of a socket pair whose other end only cohost holds,
//! is a child subreaper (Linux), so every process the agent starts stays
//! its descendant even after `setsid` or a double fork, and, when the
//! socket closes (cohost ended the session or died, SIGKILL included),
//! SIGKILLs the agent's group and then every descendant until none is left.
//!
//! The program is `cohost-supervise`, installed next to `cohost`; without
//! it, `cohost` itself in the hidden mode [`SUPERVISE_ARG`]. Both run
//! [`run_if_requested`]. This crate is kept to libc and rustix because
//! each agent spawn waits for the supervisor to start, and a small program
//! starts in a fraction of the time the whole `cohost` binary takes.
//!
//! The protocol: the control socket is the supervisor's stdin. cohost first
//! sends one byte carrying the agent's stdin ([`hand_over_stdin`]); the
//! supervisor's stdout and stderr are the agent's. The supervisor writes
//! lines: `P PID` (agent started) or `E MESSAGE` (it could not start), then
//! `X c CODE` or `X s SIGNAL` when the agent leader exits; cohost writes
//! nothing more but a byte to ask for the tree kill, or closes its end.

mod helper;
pub mod tree;

use std::ffi::OsString;
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// The first argument that makes a binary the supervisor; also what the
/// hidden `cohost` subcommand is called.
pub const SUPERVISE_ARG: &str = "__supervise";
/// The control protocol's version, the argument after [`SUPERVISE_ARG`]: a
/// `cohost-supervise` left over from another build (beside a `cohost` run
/// with `cargo run`, say) answers `V VERSION` and exits instead of
/// misunderstanding cohost, and cohost supervises with itself.
pub const PROTOCOL: &str = "1";
/// The name the supervisor gives itself (`ps`, `/proc/PID/comm`; at most
/// 15 bytes), whichever binary runs it.
pub const PROCESS_NAME: &str = "cohost-supervis";
/// The byte that carries the agent's stdin to the supervisor.
const STDIN_TAG: u8 = b'I';
/// How long a tree kill may keep hunting descendants.
pub const KILL_BUDGET: Duration = Duration::from_secs(2);

/// If this process was started as a supervisor (`argv[1]` is
/// [`SUPERVISE_ARG`]), run it and return its exit code. The rest of the
/// arguments are [`PROTOCOL`], then `PROGRAM ARGS...`, the agent's command
/// line.
pub fn run_if_requested() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != SUPERVISE_ARG {
        return None;
    }
    if args.next().as_deref() != Some(std::ffi::OsStr::new(PROTOCOL)) {
        return Some(helper::refuse_protocol());
    }
    let rest: Vec<OsString> = args.collect();
    Some(helper::run(&rest))
}

/// The argument list cohost gives a supervisor for the agent `program
/// args...`, up to the program.
pub fn supervise_args() -> [&'static str; 2] {
    [SUPERVISE_ARG, PROTOCOL]
}

/// Send the agent's stdin (the read end of its pipe) to the supervisor.
/// Sent before the supervisor starts: it waits in the socket's buffer.
pub fn hand_over_stdin(control: &UnixStream, stdin: BorrowedFd<'_>) -> io::Result<()> {
    let fds = [stdin];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = rustix::net::SendAncillaryBuffer::new(&mut space);
    if !ancillary.push(rustix::net::SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("no room for the agent's stdin"));
    }
    let sent = rustix::net::sendmsg(
        control,
        &[IoSlice::new(&[STDIN_TAG])],
        &mut ancillary,
        rustix::net::SendFlags::NOSIGNAL,
    )?;
    if sent != 1 {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            "the agent's stdin was not handed over",
        ));
    }
    Ok(())
}

/// The supervisor's side of [`hand_over_stdin`]: the agent's stdin
/// (close-on-exec until it is moved onto fd 0).
pub fn take_stdin(control: &UnixStream) -> io::Result<OwnedFd> {
    let mut byte = [0u8; 1];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = rustix::net::RecvAncillaryBuffer::new(&mut space);
    let got = loop {
        match rustix::net::recvmsg(
            control.as_fd(),
            &mut [IoSliceMut::new(&mut byte)],
            &mut ancillary,
            rustix::net::RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for message in ancillary.drain() {
        if let rustix::net::RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    match (got.bytes, byte[0], fds.len()) {
        (1, STDIN_TAG, 1) => Ok(fds.remove(0)),
        (0, _, _) => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "cohost closed the control socket before sending the agent's stdin",
        )),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the control socket's first message is not the agent's stdin",
        )),
    }
}

/// How the agent leader ended, from an `X` line: `(code, signal)`.
pub fn parse_exit(line: &str) -> Option<(Option<i32>, Option<i32>)> {
    let mut f = line.split_whitespace();
    if f.next()? != "X" {
        return None;
    }
    match (f.next()?, f.next().and_then(|n| n.parse().ok())) {
        ("c", Some(code)) => Some((Some(code), None)),
        ("s", Some(sig)) => Some((None, Some(sig))),
        _ => Some((None, None)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_agents_stdin_crosses_the_control_socket() {
        use std::io::{Read, Write};
        let (ours, theirs) = UnixStream::pair().unwrap();
        let (reader, mut writer) = std::io::pipe().unwrap();
        hand_over_stdin(&ours, reader.as_fd()).unwrap();
        drop(reader);
        let got = take_stdin(&theirs).unwrap();
        writer.write_all(b"prompt").unwrap();
        drop(writer);
        let mut text = String::new();
        std::fs::File::from(got).read_to_string(&mut text).unwrap();
        assert_eq!(text, "prompt");
    }

    #[test]
    fn a_control_socket_without_the_stdin_is_refused() {
        use std::io::Write;
        let (mut ours, theirs) = UnixStream::pair().unwrap();
        ours.write_all(b"I").unwrap();
        let err = take_stdin(&theirs).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
        drop(ours);
        let err = take_stdin(&theirs).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
    }

    #[test]
    fn exit_lines() {
        assert_eq!(parse_exit("X c 3"), Some((Some(3), None)));
        assert_eq!(parse_exit("X s 9\n"), Some((None, Some(9))));
        assert_eq!(parse_exit("X ?"), Some((None, None)));
        assert_eq!(parse_exit("P 12"), None);
    }
}
