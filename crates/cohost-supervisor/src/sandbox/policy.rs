//! The sandbox policy as data, and its wire form on the control socket.
//!
//! cohost computes the policy (which paths, which ports); the supervisor
//! only enforces it. The wire form is line-based text with every path
//! hex-encoded, so any byte a file name may hold (a newline included)
//! crosses unchanged, and a policy is readable in a test's failure message.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// What an agent process may touch, as cohost computed it. Every path is
/// absolute; a rule on a directory covers everything beneath it (Landlock's
/// model), which is why denials are expressed by *not* granting a subtree
/// rather than by a rule of their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// Read files and execute beneath these.
    pub read: Vec<PathBuf>,
    /// List directories beneath these (names only, no file contents).
    pub list: Vec<PathBuf>,
    /// Everything beneath these: create, write, remove, rename, read.
    pub write: Vec<PathBuf>,
    /// Device files opened for reading and writing, with their ioctls
    /// (`/dev/null`, `/dev/tty`, the pty devices); nothing created there.
    pub devices: Vec<PathBuf>,
    /// What reads were withheld from (reported only: the supervisor enforces
    /// the denial by granting nothing beneath these).
    pub denied: Vec<PathBuf>,
    /// TCP ports a `connect` may reach; `None` leaves connects alone.
    pub connect_tcp: Option<Vec<u16>>,
    /// Scope signals and abstract unix sockets to the sandbox: its
    /// processes cannot signal or connect to anything outside it.
    pub scoped: bool,
    /// Refuse to start the agent when the kernel cannot confine it at all.
    pub required: bool,
}

/// A policy that could not be read off the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError(pub String);

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad sandbox policy: {}", self.0)
    }
}

impl std::error::Error for PolicyError {}

fn hex(path: &Path) -> String {
    let mut out = String::with_capacity(path.as_os_str().len() * 2);
    for b in path.as_os_str().as_bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn unhex(text: &str) -> Result<PathBuf, PolicyError> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return Err(PolicyError(format!("odd-length path `{text}`")));
    }
    let mut out = Vec::with_capacity(bytes.len() / 2);
    for pair in bytes.chunks(2) {
        let s = std::str::from_utf8(pair).map_err(|_| PolicyError("non-ASCII hex".into()))?;
        let b = u8::from_str_radix(s, 16)
            .map_err(|_| PolicyError(format!("`{s}` is not a hex byte")))?;
        out.push(b);
    }
    let path = PathBuf::from(OsString::from_vec(out));
    if !path.is_absolute() {
        return Err(PolicyError(format!("`{}` is not absolute", path.display())));
    }
    Ok(path)
}

impl SandboxPolicy {
    /// The wire form: one `KIND VALUE` line per rule.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = String::new();
        for (kind, paths) in [
            ("r", &self.read),
            ("l", &self.list),
            ("w", &self.write),
            ("d", &self.devices),
            ("x", &self.denied),
        ] {
            for p in paths {
                out.push_str(&format!("{kind} {}\n", hex(p)));
            }
        }
        if let Some(ports) = &self.connect_tcp {
            out.push_str("tcp\n");
            for p in ports {
                out.push_str(&format!("port {p}\n"));
            }
        }
        if self.scoped {
            out.push_str("scoped\n");
        }
        if self.required {
            out.push_str("required\n");
        }
        out.into_bytes()
    }

    /// Read the wire form back; unknown lines are an error (both sides are
    /// one build: the protocol version says so).
    pub fn decode(bytes: &[u8]) -> Result<SandboxPolicy, PolicyError> {
        let text = std::str::from_utf8(bytes).map_err(|_| PolicyError("not UTF-8".into()))?;
        let mut p = SandboxPolicy::default();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (kind, value) = line.split_once(' ').unwrap_or((line, ""));
            match kind {
                "r" => p.read.push(unhex(value)?),
                "l" => p.list.push(unhex(value)?),
                "w" => p.write.push(unhex(value)?),
                "d" => p.devices.push(unhex(value)?),
                "x" => p.denied.push(unhex(value)?),
                "tcp" => p.connect_tcp = Some(p.connect_tcp.take().unwrap_or_default()),
                "port" => {
                    let port = value
                        .parse()
                        .map_err(|_| PolicyError(format!("bad port `{value}`")))?;
                    p.connect_tcp.get_or_insert_with(Vec::new).push(port);
                }
                "scoped" => p.scoped = true,
                "required" => p.required = true,
                other => return Err(PolicyError(format!("unknown rule `{other}`"))),
            }
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_policy_crosses_the_wire_unchanged_odd_names_included() {
        let p = SandboxPolicy {
            read: vec!["/usr".into(), PathBuf::from("/home/u/a b\nc")],
            list: vec!["/".into()],
            write: vec!["/home/u/proj".into()],
            devices: vec!["/dev/null".into()],
            denied: vec!["/home/u/.ssh".into()],
            connect_tcp: Some(vec![443, 8080]),
            scoped: true,
            required: true,
        };
        assert_eq!(SandboxPolicy::decode(&p.encode()).unwrap(), p);
        let open = SandboxPolicy::default();
        assert_eq!(SandboxPolicy::decode(&open.encode()).unwrap(), open);
        // An empty port list is not "no restriction": nothing may connect.
        let none = SandboxPolicy {
            connect_tcp: Some(Vec::new()),
            ..SandboxPolicy::default()
        };
        assert_eq!(SandboxPolicy::decode(&none.encode()).unwrap(), none);
    }

    #[test]
    fn bad_wire_forms_are_refused() {
        assert!(SandboxPolicy::decode(b"w 2f61\nbogus\n").is_err());
        assert!(SandboxPolicy::decode(b"w 612f\n").is_err(), "relative path");
        assert!(SandboxPolicy::decode(b"w 2f6\n").is_err(), "odd hex");
        assert!(SandboxPolicy::decode(b"port 99999\n").is_err());
    }
}
