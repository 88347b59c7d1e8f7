//! What the host bridge keeps of the room's members on other machines
//! (`host_guests.rs` admits them and drives them). A module of its own so
//! that `host.rs` can hold it without importing `host_guests.rs`, which
//! imports `host.rs` (no file-level import cycle; `cohost-testbench`'s
//! `import_cycles` test checks).

use std::collections::BTreeMap;

/// A member running on a participant's machine.
#[derive(Debug, Clone)]
pub(crate) struct Guest {
    /// The owner's connection (commands are addressed to it).
    pub(crate) conn_id: u64,
    /// The owner's signing key (the member is bound to it in the roster).
    pub(crate) key: [u8; 32],
    /// The owner, as the host bound them.
    pub(crate) owner: String,
    /// The agent it runs, as the owner said (a provider id).
    pub(crate) agent: String,
    /// Whether a turn of it is running, as its stream says.
    pub(crate) busy: bool,
}

/// The room's members on other machines, and whether it takes any.
#[derive(Debug, Default)]
pub(crate) struct Guests {
    /// `cohost share --guest-agents`: co-drivers may bring their agents.
    pub(crate) allowed: bool,
    /// By member name.
    pub(crate) members: BTreeMap<String, Guest>,
}
