//! Why a record or an export does not verify. Every variant names the
//! first bad entry (its `seq`, which is also its line number) where there
//! is one.

use thiserror::Error;

/// A failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    /// Nothing to verify.
    #[error("the record is empty")]
    Empty,
    /// The last line has no newline: the writer stopped mid-entry (a crash,
    /// a full disk). Everything before it verified.
    #[error("entry {entry} is incomplete (cut off mid-write: a crash or a full disk, not a change to a written entry); the {verified} entries before it verify")]
    Torn {
        /// The cut-off entry.
        entry: u64,
        /// Entries before it that verified.
        verified: u64,
    },
    /// A line is not an entry (not JSON, unknown or missing fields).
    #[error("entry {entry} is damaged: {why}")]
    Malformed {
        /// The entry (line number).
        entry: u64,
        /// What is wrong.
        why: String,
    },
    /// The line parses but is not byte for byte what the writer writes.
    #[error("entry {entry} was altered: its line is not the one its fields make")]
    NotCanonical {
        /// The entry.
        entry: u64,
    },
    /// A newer format.
    #[error("entry {entry} has format version {version}; this cohost reads versions 1 and 2")]
    Version {
        /// The entry.
        entry: u64,
        /// Its version.
        version: u32,
    },
    /// `seq` is not the line number: an entry was dropped, added or moved.
    #[error(
        "entry {entry} says it is entry {found}: an entry was dropped, inserted or moved here"
    )]
    Sequence {
        /// The line number.
        entry: u64,
        /// The `seq` it carries.
        found: u64,
    },
    /// `prev` is not the previous entry's hash.
    #[error("entry {entry} does not follow entry {}: the chain is broken (an entry was dropped, inserted, moved or altered)", entry - 1)]
    Chain {
        /// The entry.
        entry: u64,
    },
    /// `hash` does not match the content.
    #[error("entry {entry} was altered: its content does not match its hash")]
    Hash {
        /// The entry.
        entry: u64,
    },
    /// The host signature does not verify.
    #[error("entry {entry} has a bad signature: it was not signed by the record's host key")]
    Signature {
        /// The entry.
        entry: u64,
    },
    /// The author signature does not verify.
    #[error("entry {entry} has a bad author signature: the key it names did not sign what the entry carries")]
    AuthorSignature {
        /// The entry.
        entry: u64,
    },
    /// The frame an author signed is not one an entry of this kind can
    /// carry (another frame type, not a signed frame, a kind this version
    /// does not check).
    #[error("entry {entry} carries a participant's frame that does not fit it: {why}")]
    AuthorFrame {
        /// The entry.
        entry: u64,
        /// What is wrong.
        why: String,
    },
    /// The entry says something its author's signed frame does not: the
    /// host (or whoever re-signed the record) changed what the participant
    /// said.
    #[error("entry {entry} says what its author did not sign: its `{field}` is not the one in the frame the participant signed")]
    AuthorDiffers {
        /// The entry.
        entry: u64,
        /// The field that differs.
        field: &'static str,
    },
    /// An author's signed frame is in the record twice (the same sender
    /// key and sequence number): one suggestion or vote counted twice.
    #[error(
        "entry {entry} repeats a frame its author signed once, already recorded as entry {first}"
    )]
    AuthorReplay {
        /// The entry.
        entry: u64,
        /// The entry that holds it first.
        first: u64,
    },
    /// The first entry does not name a host key, or a later `session`
    /// entry names another one.
    #[error("entry {entry} does not name the record's host key: {why}")]
    HostKey {
        /// The entry.
        entry: u64,
        /// What is wrong.
        why: String,
    },
    /// Signed by another key than the one the verifier was told to expect.
    #[error("the record is signed by host key {found}, not by the expected {expected}")]
    UnexpectedKey {
        /// Fingerprint found.
        found: String,
        /// Fingerprint expected.
        expected: String,
    },
    /// The record ends without its `end` entry.
    #[error("the record ends after entry {last} without an end entry: the session is still running, cohost stopped without closing it, or entries after {last} were removed")]
    Open {
        /// The last entry.
        last: u64,
    },
    /// An export's readable transcript is not the one its record makes.
    #[error("the transcript was altered at {place}: it is not what the embedded record says")]
    Transcript {
        /// Where (`entry N`, or the header/footer).
        place: String,
        /// The first entry whose rendering differs, when it is an entry's.
        entry: Option<u64>,
    },
    /// A file that is neither a record nor an export carrying one.
    #[error("this file holds no cohost record: {0}")]
    NoRecord(String),
}

impl RecordError {
    /// The entry named, when one is.
    pub fn entry(&self) -> Option<u64> {
        match self {
            RecordError::Torn { entry, .. }
            | RecordError::Malformed { entry, .. }
            | RecordError::NotCanonical { entry }
            | RecordError::Version { entry, .. }
            | RecordError::Sequence { entry, .. }
            | RecordError::Chain { entry }
            | RecordError::Hash { entry }
            | RecordError::Signature { entry }
            | RecordError::AuthorSignature { entry }
            | RecordError::AuthorFrame { entry, .. }
            | RecordError::AuthorDiffers { entry, .. }
            | RecordError::AuthorReplay { entry, .. }
            | RecordError::HostKey { entry, .. } => Some(*entry),
            RecordError::Open { last } => Some(*last),
            RecordError::Transcript { entry, .. } => *entry,
            RecordError::Empty | RecordError::UnexpectedKey { .. } | RecordError::NoRecord(_) => {
                None
            }
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> &'static str {
        match self {
            RecordError::Torn { .. } => "nothing was changed by hand as far as the record can tell; the session's next start drops the cut-off entry and notes it, or verify the entries before it with --partial",
            RecordError::Open { .. } => "if the session is still running, verify again after it ends; to check only the entries that are there, pass --partial",
            RecordError::UnexpectedKey { .. } => "get the record from its host, or check the key you passed with --key (`cohost record key` on the host prints it)",
            RecordError::Version { .. } => "verify it with a newer cohost",
            RecordError::AuthorSignature { .. } | RecordError::AuthorDiffers { .. } | RecordError::AuthorReplay { .. } => "do not trust what this entry says its author did: the record was signed by its host over a participant's word it changed or repeated; ask the participant (its key is in the entry) or get the record again from its host",
            RecordError::AuthorFrame { .. } => "verify it with a newer cohost if the record comes from one; otherwise do not trust what this entry says its author did",
            RecordError::Empty | RecordError::NoRecord(_) => "pass a record (`cohost record path SESSION`) or an export made by `cohost export`",
            _ => "do not trust this copy: get the record or export again from its host (the host's copy is in its state directory, `cohost record path SESSION`)",
        }
    }
}
