//! The control protocol both sides speak: the arguments that start a
//! supervisor, the hand-over of the agent's stdin and sandbox policy, the
//! exit lines. Its own
//! module because the supervisor's side ([`crate::helper`]) needs it as
//! much as cohost does, and the crate root starts that side.

use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;

use crate::sandbox::SandboxPolicy;

/// The first argument that makes a binary the supervisor; also what the
/// hidden `cohost` subcommand is called.
pub const SUPERVISE_ARG: &str = "__supervise";
/// The control protocol's version, the argument after [`SUPERVISE_ARG`]: a
/// `cohost-supervise` left over from another build (beside a `cohost` run
/// with `cargo run`, say) answers `V VERSION` and exits instead of
/// misunderstanding cohost, and cohost supervises with itself.
pub const PROTOCOL: &str = "2";
/// The name the supervisor gives itself (`ps`, `/proc/PID/comm`; at most
/// 15 bytes), whichever binary runs it.
pub const PROCESS_NAME: &str = "cohost-supervis";
/// The byte that carries the agent's stdin to the supervisor.
const STDIN_TAG: u8 = b'I';

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

/// The longest sandbox policy a supervisor reads (a policy is a few KiB:
/// one line per allowed path).
const MAX_POLICY_BYTES: usize = 4 << 20;

/// Send the agent's sandbox policy (or that there is none), right after
/// its stdin: a line `N`, or `S BYTES` and the policy's wire form.
pub fn send_policy(mut control: &UnixStream, policy: Option<&SandboxPolicy>) -> io::Result<()> {
    use std::io::Write;
    match policy {
        None => control.write_all(b"N\n"),
        Some(p) => {
            let body = p.encode();
            let mut msg = format!("S {}\n", body.len()).into_bytes();
            msg.extend_from_slice(&body);
            control.write_all(&msg)
        }
    }
}

/// The supervisor's side of [`send_policy`]. Reads byte by byte up to the
/// header's end so nothing after the policy is consumed.
pub fn take_policy(mut control: &UnixStream) -> io::Result<Option<SandboxPolicy>> {
    use std::io::Read;
    let mut header = Vec::new();
    let mut byte = [0u8; 1];
    while header.len() < 32 {
        match control.read(&mut byte) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "cohost closed the control socket before sending the sandbox policy",
                ))
            }
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => header.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let bad = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "the sandbox policy header is malformed",
        )
    };
    match header.as_slice() {
        b"N" => Ok(None),
        [b'S', b' ', len @ ..] => {
            let len: usize = std::str::from_utf8(len)
                .ok()
                .and_then(|l| l.parse().ok())
                .filter(|l| *l <= MAX_POLICY_BYTES)
                .ok_or_else(bad)?;
            let mut body = vec![0u8; len];
            control.read_exact(&mut body)?;
            SandboxPolicy::decode(&body)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
        }
        _ => Err(bad()),
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
    fn the_policy_follows_the_stdin_and_leaves_the_rest_unread() {
        use std::io::{Read, Write};
        let (mut ours, theirs) = UnixStream::pair().unwrap();
        let policy = SandboxPolicy {
            write: vec!["/w".into()],
            connect_tcp: Some(vec![443]),
            ..SandboxPolicy::default()
        };
        send_policy(&ours, Some(&policy)).unwrap();
        send_policy(&ours, None).unwrap();
        ours.write_all(b"k").unwrap();
        assert_eq!(take_policy(&theirs).unwrap(), Some(policy));
        assert_eq!(take_policy(&theirs).unwrap(), None);
        let mut rest = [0u8; 1];
        (&theirs).read_exact(&mut rest).unwrap();
        assert_eq!(&rest, b"k", "the kill byte is still there");
        ours.write_all(b"S 99999999999\n").unwrap();
        assert!(take_policy(&theirs).is_err());
        drop(ours);
        assert!(take_policy(&theirs).is_err());
    }

    #[test]
    fn exit_lines() {
        assert_eq!(parse_exit("X c 3"), Some((Some(3), None)));
        assert_eq!(parse_exit("X s 9\n"), Some((None, Some(9))));
        assert_eq!(parse_exit("X ?"), Some((None, None)));
        assert_eq!(parse_exit("P 12"), None);
    }
}
