//! `/invite NAME ROLE` while a room runs: a personal invite (its own relay
//! token and its own ticket, the name fixed by the host) made on the spot,
//! shown to the host alone. The same as `cohost share --invite NAME=ROLE`
//! at start, for someone who was not expected.

use cohost_core::sanitize::inert_line;
use cohost_protocol::{Invite, Role};

use super::host::HostBridge;
use super::host_io::HostNotice;
use crate::invite_mint::InviteMint;
use crate::invite_mint::PersonalInvite;

impl HostBridge {
    /// Mint personal invites with `mint` while the room runs; `secure`:
    /// they say `cohosts://` (`--secure-invites`).
    pub fn with_mint(mut self, mint: InviteMint, secure: bool) -> Self {
        self.mint = Some((mint, secure));
        self
    }

    pub(super) async fn invite(&mut self, name: &str, role: Role) {
        let name = inert_line(name).trim().to_string();
        let Some((mint, secure)) = self.mint.clone() else {
            self.notify(HostNotice::Room(
                "this room cannot make invites while it runs (no relay admin access here)".into(),
            ));
            return;
        };
        let minted = match mint.mint(role, &name).await {
            Ok(m) => m,
            Err(e) => {
                self.notify(HostNotice::Room(format!("no invite for {name}: {e}")));
                return;
            }
        };
        let Some(keys) = self.issue_invite(role, Some(&name)) else {
            self.notify(HostNotice::Room(format!(
                "no invite for {name}: this room has no end-to-end keys to give"
            )));
            return;
        };
        match Invite::parse(&minted) {
            Ok(i) => {
                let mut i = i.with_keys(keys);
                i.secure |= secure;
                self.notify(HostNotice::Invited(PersonalInvite {
                    name,
                    role,
                    invite: i.to_string(),
                }));
            }
            Err(e) => self.notify(HostNotice::Room(format!(
                "no invite for {name}: the relay minted a bad invite: {e}"
            ))),
        }
    }
}

/// `/invite NAME ROLE` (or `NAME=ROLE`)'s arguments.
pub fn invite_input(rest: &str) -> Result<super::host_io::HostInput, String> {
    let rest = rest.trim();
    let pair = match rest.split_once(char::is_whitespace) {
        Some((name, role)) if !rest.contains('=') => format!("{name}={}", role.trim()),
        _ => rest.to_string(),
    };
    let usage = "/invite NAME co-driver|viewer, e.g. /invite ana co-driver";
    if pair.is_empty() {
        return Err(usage.into());
    }
    crate::invite_mint::parse_personal(&pair)
        .map(|p| super::host_io::HostInput::Invite {
            name: p.name,
            role: p.role,
        })
        .map_err(|e| format!("{e}; {usage}"))
}
