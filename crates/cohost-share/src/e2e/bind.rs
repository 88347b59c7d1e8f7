//! Binding a participant's key to the invite it holds: the ticket id names
//! the invite without revealing its secret, the proof shows the announcer
//! holds the secret, for these keys on this connection (`docs/sharing-e2e.md`,
//! "Identities").

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use cohost_protocol::RoomId;

const TICKET_ID_CONTEXT: &[u8] = b"cohost-e2e-v2 ticket\0";
const BIND_CONTEXT: &[u8] = b"cohost-e2e-v2 bind\0";

/// Which invite: the first 8 bytes of SHA-256 over the ticket.
pub fn ticket_id(ticket: &[u8; 16]) -> [u8; 8] {
    let digest = Sha256::new()
        .chain_update(TICKET_ID_CONTEXT)
        .chain_update(ticket)
        .finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    id
}

fn mac(
    ticket: &[u8; 16],
    room: &RoomId,
    conn_id: u64,
    ed25519: &[u8],
    x25519: &[u8],
) -> Hmac<Sha256> {
    // HMAC takes a key of any length; 16 bytes is never refused.
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(ticket)
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(BIND_CONTEXT);
    m.update(room.as_str().as_bytes());
    m.update(&conn_id.to_be_bytes());
    m.update(ed25519);
    m.update(x25519);
    m
}

/// The proof a participant on `conn_id` sends with its keys.
pub fn bind_proof(
    ticket: &[u8; 16],
    room: &RoomId,
    conn_id: u64,
    ed25519: &[u8; 32],
    x25519: &[u8; 32],
) -> [u8; 32] {
    mac(ticket, room, conn_id, ed25519, x25519)
        .finalize()
        .into_bytes()
        .into()
}

/// Whether `proof` is the one for these keys on `conn_id` (compared in
/// constant time).
pub fn proof_holds(
    ticket: &[u8; 16],
    room: &RoomId,
    conn_id: u64,
    ed25519: &[u8],
    x25519: &[u8],
    proof: &[u8],
) -> bool {
    mac(ticket, room, conn_id, ed25519, x25519)
        .verify_slice(proof)
        .is_ok()
}
