//! Opening a room to host a session in: the relay (an embedded one on
//! 127.0.0.1, or `--relay` with its admin secret), the room and its
//! invites, the end-to-end keys and the host's connection. `cohost share`
//! opens one before its session starts; `/share` in `cohost chat` opens one
//! for the session already running. Also what both host consoles (lines
//! and the terminal UI) say about the room they host.

use clap::{Args, ValueEnum};
use cohost_core::{CohostError, ErrorCode};
use cohost_protocol::{Invite, Role};
use cohost_relay::{Relay, RelayClient, RelayConfig, RelayHandle};

use crate::cmd::turn_changes::ChangesCommand;
use cohost_session::Room;
use cohost_sharing::host::SuggestionPolicy;
use cohost_sharing::invite_mint::{parse_personal, InviteMint, Personal, PersonalInvite};
use cohost_tui::app::Incoming;

/// What to do with co-driver suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Suggestions {
    /// List them; the host types `/accept ID` or `/reject ID`.
    Ask,
    /// Run them in order.
    Accept,
    /// Reject them.
    Reject,
}

impl From<Suggestions> for SuggestionPolicy {
    fn from(s: Suggestions) -> Self {
        match s {
            Suggestions::Ask => SuggestionPolicy::Ask,
            Suggestions::Accept => SuggestionPolicy::Accept,
            Suggestions::Reject => SuggestionPolicy::Reject,
        }
    }
}

/// Where and how a room is opened.
#[derive(Debug, Clone, Args)]
pub struct RoomArgs {
    /// A running relay: `host:port`, or `http(s)://`, `ws(s)://`,
    /// `cohost(s)://` HOST[:PORT]; default: an embedded relay on 127.0.0.1.
    #[arg(long)]
    pub relay: Option<String>,
    /// The relay's admin secret (needed with --relay).
    #[arg(long, env = "COHOST_RELAY_ADMIN_SECRET", hide_env_values = true)]
    pub admin_secret: Option<String>,
    /// Invites say `cohosts://` (the relay is behind a TLS proxy; a relay
    /// with its own TLS says so itself).
    #[arg(long)]
    pub secure_invites: bool,
    /// Trust this CA certificate (PEM) when the relay speaks TLS, for the
    /// admin API and the room's WebSocket alike.
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<std::path::PathBuf>,
    /// Invite lifetime in seconds.
    #[arg(long, default_value_t = 24 * 3600)]
    pub ttl: u64,
    /// A personal invite for one person: `ana=co-driver`, `bo=viewer`
    /// (repeatable). It carries the name the host knows them by, and
    /// `/kick NAME` revokes it alone. A room with personal invites makes no
    /// open invite: only the people named get in.
    #[arg(long = "invite", value_name = "NAME=ROLE", value_parser = parse_personal)]
    pub invite: Vec<Personal>,
    /// No open co-driver or viewer invite, even without `--invite`: people
    /// are invited by name while the room runs (`/invite NAME ROLE`).
    #[arg(long)]
    pub invite_only: bool,
}

impl Default for RoomArgs {
    /// What `cohost` alone gets (no flags parsed): an embedded relay, a
    /// day's invites; the admin secret still comes from the environment.
    fn default() -> Self {
        RoomArgs {
            relay: None,
            admin_secret: std::env::var("COHOST_RELAY_ADMIN_SECRET").ok(),
            secure_invites: false,
            ca_file: None,
            ttl: 24 * 3600,
            invite: Vec::new(),
            invite_only: false,
        }
    }
}

/// An open room, the host connected.
pub struct OpenRoom {
    /// Connected to the room as host.
    pub client: RelayClient,
    /// The room's keys and the invites issued with them (they travel only
    /// in the invites' fragments).
    pub keys: cohost_sharing::keys::HostKeys,
    /// The guests' open invites, keys included (`None` with
    /// `--invite-only`).
    pub invites: Option<cohost_tui::room::Invites>,
    /// The personal invites of `--invite NAME=ROLE`, keys included.
    pub personal: Vec<PersonalInvite>,
    /// The embedded relay, to shut down when the room is done.
    pub embedded: Option<RelayHandle>,
    /// Mints more invites while the room runs (`/invite NAME ROLE`).
    pub mint: InviteMint,
    /// Invites say `cohosts://` (`--secure-invites`).
    pub secure_invites: bool,
}

fn bad_invite(e: impl std::fmt::Display) -> CohostError {
    CohostError::new(
        ErrorCode::NetworkError,
        format!("the relay minted a bad invite: {e}"),
    )
}

/// Open a room as `args` says and connect to it as host.
pub async fn open_room(args: &RoomArgs) -> Result<OpenRoom, CohostError> {
    let (minted, embedded, mint) = invites(args).await?;
    let host_invite = Invite::parse(&minted.host).map_err(bad_invite)?;
    let room = cohost_protocol::RoomId::new(&host_invite.room).map_err(bad_invite)?;
    // The room key and the host's keys are made here and travel only
    // inside the invites' fragments: the relay never sees them. Each
    // invite gets its own ticket, which binds the keys of whoever uses it.
    let no_keys = |e: cohost_share::CodecError| {
        CohostError::new(ErrorCode::Unknown, format!("cannot make room keys: {e}"))
    };
    let mut keys = cohost_sharing::keys::HostKeys::generate(room).map_err(no_keys)?;
    let mut keyed = |invite: &str, role: Role, name: Option<&str>| -> Result<String, CohostError> {
        let mut i = Invite::parse(invite)
            .map_err(bad_invite)?
            .with_keys(keys.issue(role, name).map_err(no_keys)?);
        i.secure |= args.secure_invites;
        Ok(i.to_string())
    };
    let invites = match (&minted.co_driver, &minted.viewer) {
        (Some(c), Some(v)) => Some(cohost_tui::room::Invites {
            co_driver: keyed(c, Role::CoDriver, None)?,
            viewer: keyed(v, Role::Viewer, None)?,
        }),
        _ => None,
    };
    let mut personal = Vec::new();
    for (who, invite) in args.invite.iter().zip(&minted.personal) {
        personal.push(PersonalInvite {
            name: who.name.clone(),
            role: who.role,
            invite: keyed(invite, who.role, Some(&who.name))?,
        });
    }
    let mut host_cfg = cohost_relay::ClientConfig::from_invite(&host_invite);
    host_cfg.ca_file = args.ca_file.clone();
    let client = RelayClient::connect(host_cfg).await.map_err(|e| {
        let err = CohostError::new(
            ErrorCode::NetworkError,
            format!("cannot join the room as host: {e}"),
        );
        match e {
            cohost_relay::ClientError::Certificate { problem } => err.with_fix(problem.fix()),
            _ => err,
        }
    })?;
    Ok(OpenRoom {
        client,
        keys,
        invites,
        personal,
        embedded,
        mint,
        secure_invites: args.secure_invites,
    })
}

/// Invites for the three roles, as the relay minted them (no keys yet).
struct Minted {
    /// The host's own.
    pub host: String,
    /// For co-drivers (`None` with `--invite-only`).
    pub co_driver: Option<String>,
    /// For viewers (`None` with `--invite-only`).
    pub viewer: Option<String>,
    /// One per `--invite NAME=ROLE`, in order: its own token, so the relay
    /// revokes it alone.
    pub personal: Vec<String>,
}

/// The invites a new room starts with, minted by `mint`: the host's, one
/// per `--invite NAME=ROLE`, and, when nobody is named and not
/// `--invite-only`, one open invite per role (anyone holding it gets in:
/// naming people means only they do).
async fn mint_all(mint: &InviteMint, args: &RoomArgs) -> Result<Minted, CohostError> {
    let host = mint.mint(Role::Host, "host").await?;
    let (co_driver, viewer) = if args.invite_only || !args.invite.is_empty() {
        (None, None)
    } else {
        (
            Some(mint.mint(Role::CoDriver, "co-driver").await?),
            Some(mint.mint(Role::Viewer, "viewer").await?),
        )
    };
    let mut personal = Vec::new();
    for p in &args.invite {
        personal.push(mint.mint(p.role, &p.name).await?);
    }
    Ok(Minted {
        host,
        co_driver,
        viewer,
        personal,
    })
}

/// Invites for a new room: from the relay at `--relay`, else from an
/// embedded relay (returned too, to shut it down at the end), and what
/// mints more for it.
async fn invites(
    args: &RoomArgs,
) -> Result<(Minted, Option<cohost_relay::RelayHandle>, InviteMint), CohostError> {
    let network = |e: String| CohostError::new(ErrorCode::NetworkError, e);
    let (mint, embedded) = match &args.relay {
        Some(url) => {
            let Some(secret) = args.admin_secret.as_deref() else {
                return Err(CohostError::new(
                    ErrorCode::ConfigInvalid,
                    "--relay needs the relay's admin secret",
                )
                .with_fix("pass --admin-secret or set COHOST_RELAY_ADMIN_SECRET"));
            };
            let addr = cohost_relay::RelayAddr::parse(url).map_err(|e| {
                CohostError::new(ErrorCode::ConfigInvalid, format!("--relay: {e}")).with_fix(
                    "pass --relay 127.0.0.1:8080, https://relay.example.com or cohosts://HOST:PORT",
                )
            })?;
            let mint =
                InviteMint::new(addr.http_base(), args.ca_file.as_deref(), secret, args.ttl)?;
            (mint, None)
        }
        None => {
            let relay = Relay::bind(RelayConfig::default())
                .await
                .map_err(|e| network(e.to_string()))?;
            // The embedded relay serves the same admin API, on 127.0.0.1.
            let base = format!("http://{}", relay.local_addr());
            let mint = InviteMint::new(base, None, relay.admin_secret(), args.ttl)?;
            (mint, Some(relay))
        }
    };
    let made = async {
        let mint = mint.create_room().await?;
        let minted = mint_all(&mint, args).await?;
        Ok::<_, CohostError>((minted, mint))
    }
    .await;
    match made {
        Ok((minted, mint)) => Ok((minted, embedded, mint)),
        Err(e) => {
            if let Some(r) = embedded {
                r.shutdown().await;
            }
            Err(e)
        }
    }
}

/// `/diff` or `/undo` of a shared session: its one agent's changes; in a
/// room of several, an error naming each member's session for
/// `cohost diff`/`cohost undo` (which member a bare `/undo` meant would be
/// a guess, and an undo is not one to guess).
pub(crate) async fn changes_in_room(
    room: &Room,
    cmd: ChangesCommand,
    host: &mut Option<cohost_discovery::Host>,
) -> Incoming {
    match room.members() {
        [one] => cmd.run(host, &one.session).await,
        members => {
            let sessions: Vec<String> = members
                .iter()
                .map(|m| format!("{} {}", m.name, m.session.record_id().unwrap_or("-")))
                .collect();
            Incoming::Error {
                message: "each member of this room has its own changes".into(),
                fix: Some(format!(
                    "`cohost diff SESSION` or `cohost undo SESSION` in another terminal: {}",
                    sessions.join(", ")
                )),
            }
        }
    }
}

/// What the host's console calls the room: its agent, or its members.
pub(crate) fn room_title(room: &Room) -> String {
    match room.members() {
        [one] => one.session.descriptor().id.clone(),
        members => members
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
    }
}

/// The end of a hosted room: every member stops; in a room of several
/// agents (or what is left of one after `/keep` or `/drop`) the worktrees
/// of members that changed nothing go, and the host is told how to keep
/// the work of those that did.
pub(crate) async fn end_room(room: &Room) {
    if let Err(e) = room.terminate().await {
        tracing::warn!(error = %e, "stopping the agents failed");
    }
    let host = match crate::hostctx::host() {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!(error = %e, "the room's worktrees were left in place");
            return;
        }
    };
    // A member's record names its room; a session of one agent, even in a
    // worktree it asked for (`--worktree`), is not tidied here.
    let store = cohost_host::SessionStore::of(&host);
    let ids: Vec<String> = room
        .members()
        .iter()
        .filter_map(|m| m.session.record_id().map(String::from))
        .filter(|id| {
            store
                .get(id.as_str())
                .ok()
                .flatten()
                .is_some_and(|r| r.room.is_some())
        })
        .collect();
    for rec in cohost_host::session::tidy_worktrees(&host, &ids).await {
        let member = rec
            .room
            .as_ref()
            .map(|r| r.member.as_str())
            .unwrap_or("a member");
        #[allow(clippy::print_stderr, reason = "the command's own terminal output")]
        {
            eprintln!(
                "cohost: {} left changes in its worktree: `cohost worktree keep {}` takes them, `cohost worktree discard {}` drops them",
                cohost_core::sanitize::inert_line(member),
                rec.id,
                rec.id
            );
        }
    }
}
