//! `cohost join`: join a shared session with an invite (headless).

use clap::Args;
use cohost_relay::{ClientEvent, RelayClient};
use std::io::Write;

use cohost_core::{CohostError, ErrorCode};

use crate::exit::CmdResult;
use crate::multiplayer::participant;

/// Arguments of `cohost join`.
#[derive(Debug, Args)]
pub struct JoinArgs {
    /// The invite the host gave you (`cohost://host:port/room#token`).
    invite: String,
    /// Print every frame as one JSON line.
    #[arg(long)]
    pub json: bool,
    /// Your display name.
    #[arg(long)]
    name: Option<String>,
    /// Suggest this prompt to the host once connected (co-drivers only).
    #[arg(long)]
    suggest: Option<String>,
    /// Say this in the room chat once connected.
    #[arg(long)]
    chat: Option<String>,
    /// Leave after the first turn ends (for scripts).
    #[arg(long)]
    until_end: bool,
}

/// Run until the room closes (or the first turn ends with --until-end).
pub async fn run(args: JoinArgs) -> CmdResult {
    let mut client = RelayClient::connect_invite(&args.invite)
        .await
        .map_err(|e| {
            let code = match e {
                cohost_relay::ClientError::Refused { .. } => ErrorCode::AuthRequired,
                cohost_relay::ClientError::Url(_) => ErrorCode::ConfigInvalid,
                _ => ErrorCode::NetworkError,
            };
            CohostError::new(code, e.to_string()).with_fix("ask the host for a fresh invite")
        })?;
    let codec = participant::room_codec(&client);
    if let Some(text) = &args.suggest {
        match participant::suggest(&client, text, args.name.as_deref()).await {
            Ok(id) => eprintln!("suggested {id}; waiting for the host"),
            Err(e) => eprintln!("cohost: could not send the suggestion: {e}"),
        }
    }
    if let Some(text) = &args.chat {
        if let Err(e) = participant::chat(&client, text, args.name.as_deref()).await {
            eprintln!("cohost: could not send the chat message: {e}");
        }
    }
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let ev = tokio::select! {
            ev = client.recv() => ev,
            _ = &mut ctrl_c => { client.close().await; return Ok(0); }
        };
        let Some(ev) = ev else { return Ok(0) };
        let end = participant::is_stream_end(&ev);
        let mut out = std::io::stdout().lock();
        match &ev {
            ClientEvent::Frame(f) => {
                if args.json {
                    let _ = writeln!(out, "{}", participant::frame_json(&codec, f));
                } else if let Some(line) = participant::frame_line(&codec, f) {
                    let _ = write!(out, "{line}");
                }
            }
            ClientEvent::Welcome(w) => {
                eprintln!("joined room {} as {}", w.room, w.you.role.as_str())
            }
            ClientEvent::Resync(r) => {
                eprintln!("· the relay could not replay {:?}: {}", r.streams, r.reason)
            }
            ClientEvent::Error(e) => {
                eprintln!("· refused by the relay: {} ({:?})", e.message, e.code)
            }
            ClientEvent::Disconnected { reason } => {
                eprintln!("· connection lost ({reason}); reconnecting")
            }
            ClientEvent::Closed { reason } => {
                eprintln!("· room closed: {reason}");
                return Ok(0);
            }
        }
        let _ = out.flush();
        if end && args.until_end {
            client.close().await;
            return Ok(0);
        }
    }
}
