//! The OS sandbox an agent runs in: a [`SandboxPolicy`] cohost computed,
//! enforced with Linux's Landlock in the agent's process between fork and
//! exec, so the agent and every process it starts inherit it and none can
//! leave it.
//!
//! [`prepare`] builds the Landlock ruleset (opening every path of the
//! policy) before the fork; [`Prepared::enforce`] then does only two system
//! calls in the child, which is all that is safe between fork and exec.
//! Access rights the kernel does not know are dropped (best effort): what
//! this kernel enforces is [`Support::enforced`]. A policy marked
//! `required` is refused when the kernel has no Landlock at all.
#![allow(
    unsafe_code,
    reason = "the Landlock ABI probe and restrict_self are raw system calls; each block says why it is sound"
)]

mod policy;

pub use policy::{PolicyError, SandboxPolicy};

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

/// The Landlock ABI whose file-system rights cohost handles. ABI 5 adds
/// ioctl on device files to ABI 1-4's rights; later ABIs add no file-system
/// right cohost has tested, and an untested right would deny what it
/// governs (the crate's advice: pin the ABI you vetted).
const FS_ABI: ABI = ABI::V5;
/// The ABI of the scopes cohost asks for (signals, abstract unix sockets).
const SCOPE_ABI: ABI = ABI::V6;

/// What the running kernel's Landlock can enforce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The kernel's Landlock ABI version; 0 when it has none (not built in,
    /// or disabled at boot).
    pub abi: i32,
}

impl Support {
    /// Ask the kernel.
    pub fn probe() -> Support {
        Support { abi: kernel_abi() }
    }

    /// Whether any confinement is possible.
    pub fn available(&self) -> bool {
        self.abi >= 1
    }

    /// What a sandbox with `policy` enforces on this kernel, in words (for
    /// `cohost doctor` and `agents --json`).
    pub fn enforced(&self, policy: &SandboxPolicy) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.abi >= 1 {
            out.push("filesystem: writes only to the allowed paths; no reads of the denied ones");
        }
        if self.abi >= 2 {
            out.push("rename and link across directories");
        }
        if self.abi >= 3 {
            out.push("truncate");
        }
        if self.abi >= 4 && policy.connect_tcp.is_some() {
            out.push("tcp connect: only the allowed ports");
        }
        if self.abi >= 5 {
            out.push("device ioctls");
        }
        if self.abi >= 6 && policy.scoped {
            out.push("signals and abstract unix sockets: only within the sandbox");
        }
        out
    }

    /// What `policy` asks for that this kernel cannot enforce.
    pub fn missing(&self, policy: &SandboxPolicy) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.abi < 1 {
            out.push("filesystem rules (no Landlock in this kernel)");
        }
        if self.abi < 4 && policy.connect_tcp.is_some() {
            out.push("tcp connect rules (Landlock ABI 4, Linux 6.7)");
        }
        if self.abi < 6 && policy.scoped {
            out.push("signal and abstract socket scoping (Landlock ABI 6, Linux 6.12)");
        }
        out
    }
}

/// The kernel's Landlock ABI version, 0 without Landlock.
pub fn kernel_abi() -> i32 {
    #[cfg(target_os = "linux")]
    {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
        // SAFETY: with a null attribute pointer, size 0 and the VERSION flag,
        // landlock_create_ruleset reads no memory and returns the ABI
        // version or -1 (ENOSYS, EOPNOTSUPP).
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        i32::try_from(v).unwrap_or(0).max(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Why a sandbox could not be set up.
#[derive(Debug)]
pub enum SandboxError {
    /// The policy is `required` and this kernel has no Landlock.
    Unavailable,
    /// Landlock refused the ruleset (its message).
    Ruleset(String),
}

impl std::fmt::Display for SandboxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SandboxError::Unavailable => f.write_str(
                "the sandbox is required but this kernel has no Landlock (Linux 5.13+ with `landlock` in the lsm= boot list)",
            ),
            SandboxError::Ruleset(m) => write!(f, "the sandbox could not be set up: {m}"),
        }
    }
}

impl std::error::Error for SandboxError {}

/// A ruleset ready to be enforced in a child (`None` inside: this kernel
/// has no Landlock and the policy allows running unconfined).
#[derive(Debug)]
pub struct Prepared {
    ruleset: Option<OwnedFd>,
}

impl Prepared {
    /// Whether enforcing confines anything.
    pub fn confines(&self) -> bool {
        self.ruleset.is_some()
    }

    /// Confine the calling process: `no_new_privs`, then the ruleset. Only
    /// system calls, no allocation or lock, so it may run between fork and
    /// exec (`pre_exec`) of a multi-threaded parent.
    pub fn enforce(&self) -> std::io::Result<()> {
        let Some(fd) = &self.ruleset else {
            return Ok(());
        };
        #[cfg(target_os = "linux")]
        {
            // SAFETY: prctl with integer arguments on the calling process.
            if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: landlock_restrict_self takes a ruleset descriptor we
            // own (open for the whole call) and flags; it reads no memory.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_landlock_restrict_self,
                    fd.as_raw_fd(),
                    0 as libc::c_uint,
                )
            };
            if r != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = fd;
        Ok(())
    }
}

fn ruleset_error(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Ruleset(e.to_string())
}

/// Build the ruleset of `policy`. A path of the policy that does not exist
/// is skipped (nothing there to allow; cohost creates the directories an
/// agent must be able to write before it asks).
pub fn prepare(policy: &SandboxPolicy) -> Result<Prepared, SandboxError> {
    let support = Support::probe();
    if !support.available() {
        return if policy.required {
            Err(SandboxError::Unavailable)
        } else {
            Ok(Prepared { ruleset: None })
        };
    }
    let all: BitFlags<AccessFs> = AccessFs::from_all(FS_ABI);
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(ruleset_error)?;
    if policy.connect_tcp.is_some() {
        ruleset = ruleset
            .handle_access(AccessNet::ConnectTcp)
            .map_err(ruleset_error)?;
    }
    if policy.scoped {
        ruleset = ruleset
            .scope(Scope::from_all(SCOPE_ABI))
            .map_err(ruleset_error)?;
    }
    let mut created = ruleset.create().map_err(ruleset_error)?;
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    let groups: [(&[std::path::PathBuf], BitFlags<AccessFs>); 4] = [
        (&policy.read, AccessFs::from_read(FS_ABI)),
        (&policy.list, AccessFs::ReadDir.into()),
        (&policy.write, all),
        (&policy.devices, device),
    ];
    for (paths, access) in groups {
        for path in paths {
            let Ok(fd) = PathFd::new(path) else {
                continue;
            };
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| SandboxError::Ruleset(format!("{}: {e}", path.display())))?;
        }
    }
    for port in policy.connect_tcp.iter().flatten() {
        created = created
            .add_rule(NetPort::new(*port, AccessNet::ConnectTcp))
            .map_err(ruleset_error)?;
    }
    let fd: Option<OwnedFd> = created.into();
    if fd.is_none() && policy.required {
        return Err(SandboxError::Unavailable);
    }
    Ok(Prepared { ruleset: fd })
}

#[cfg(test)]
mod tests;
