//! `cohost relay`: run the zero-knowledge relay.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::Args;
use cohost_relay::{RedisBroker, Relay, RelayConfig};
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use cohost_core::{CohostError, ErrorCode};

use crate::exit::CmdResult;
use crate::fsutil;

/// Default relay port.
pub const DEFAULT_PORT: u16 = 7070;

/// Arguments of `cohost relay`.
#[derive(Debug, Args)]
pub struct RelayArgs {
    /// Port to listen on.
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Address to bind (loopback by default; put a TLS proxy in front to expose it).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// Redis URL for scale-out across relay nodes (all nodes need the same --jwt secret).
    #[arg(long, env = "COHOST_RELAY_REDIS_URL")]
    redis: Option<String>,
    /// Namespace of the relay's Redis keys and channels (several relay
    /// clusters can share one Redis under different prefixes).
    #[arg(long, env = "COHOST_RELAY_REDIS_PREFIX", default_value = "cohost")]
    redis_prefix: String,
    /// `host:port` written into invites (default: the bound address); behind
    /// a load balancer, the balancer's address.
    #[arg(long, env = "COHOST_RELAY_PUBLIC")]
    public: Option<String>,
    /// The relay is reached through a TLS proxy: invites say `cohosts://`
    /// (participants speak `wss://`).
    #[arg(long)]
    public_tls: bool,
    /// Terminate TLS here with this PEM certificate chain (with --tls-key);
    /// invites then say `cohosts://`.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Browser Origins allowed to connect (non-browser clients send none).
    #[arg(long = "origin")]
    origins: Vec<String>,
    /// Where the admin and token secrets live (default: the cohost config dir).
    #[arg(long)]
    secrets: Option<PathBuf>,
    /// Most bytes written to one socket in one syscall: the frames queued for
    /// a participant go out together up to this size (the buffer is freed once
    /// drained, so idle sockets keep none). 1 = one write per frame.
    #[arg(long, default_value_t = 64 * 1024, value_parser = clap::value_parser!(u32).range(1..))]
    write_batch: u32,
    /// Longest lifetime, in seconds, of a room token the relay mints or
    /// admits (a leaked invite must not stay good for years).
    #[arg(long, env = "COHOST_RELAY_MAX_TOKEN_LIFETIME", default_value_t = cohost_relay::DEFAULT_MAX_TOKEN_LIFETIME.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    max_token_lifetime: u64,
}

/// The relay's persistent secrets. Generated on first start.
#[derive(Serialize, Deserialize)]
struct Secrets {
    admin_secret: String,
    jwt_secret: String,
}

fn load_or_create(path: &PathBuf) -> Result<(Secrets, bool), String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(|s| (s, false))
            .map_err(|e| {
                format!(
                    "{} is not a valid secrets file ({e}); delete it to generate new secrets",
                    path.display()
                )
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let s = Secrets {
                admin_secret: fsutil::random_secret().map_err(|e| e.to_string())?,
                jwt_secret: fsutil::random_secret().map_err(|e| e.to_string())?,
            };
            let bytes = serde_json::to_vec_pretty(&s).map_err(|e| e.to_string())?;
            cohost_discovery::fsutil::atomic_write_private(path, &bytes)
                .map_err(|e| e.message())?;
            Ok((s, true))
        }
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Waits for Ctrl+C or SIGTERM (what systemd, Docker and Kubernetes send).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Run until Ctrl+C or SIGTERM, then drain: every socket is closed with
/// 1001 so clients reconnect (through the load balancer) and resume.
pub async fn run(args: RelayArgs) -> CmdResult {
    let config_invalid = |e: String| CohostError::new(ErrorCode::ConfigInvalid, e);
    // Both secrets in the environment (a container, a cluster): no secrets
    // file is read or written.
    let from_env = std::env::var_os("COHOST_RELAY_ADMIN_SECRET").is_some()
        && std::env::var_os("COHOST_RELAY_JWT_SECRET").is_some()
        && args.secrets.is_none();
    let path = args
        .secrets
        .clone()
        .or_else(|| fsutil::config_dir().map(|d| d.join("relay-secrets.json")));
    let (secrets, fresh, path) =
        match path {
            _ if from_env => (None, false, None),
            Some(p) => {
                let (s, fresh) = load_or_create(&p).map_err(config_invalid)?;
                (Some(s), fresh, Some(p))
            }
            None => return Err(config_invalid(
                "no HOME or XDG_CONFIG_HOME to keep relay secrets in".into(),
            )
            .with_fix(
                "pass --secrets FILE, or set COHOST_RELAY_ADMIN_SECRET and COHOST_RELAY_JWT_SECRET",
            )
            .into()),
        };
    let mut config = RelayConfig {
        limits: cohost_relay::Limits {
            write_batch_bytes: args.write_batch as usize,
            ..cohost_relay::Limits::default()
        },
        bind: SocketAddr::new(args.bind, args.port),
        admin_secret: secrets.as_ref().map(|s| s.admin_secret.clone()),
        jwt_secret: secrets.as_ref().map(|s| s.jwt_secret.clone().into_bytes()),
        public_authority: args.public.clone(),
        public_tls: args.public_tls,
        tls: args.tls_cert.clone().zip(args.tls_key.clone()),
        allowed_origins: args.origins.clone(),
        max_token_lifetime: std::time::Duration::from_secs(args.max_token_lifetime),
        ..RelayConfig::default()
    };
    // COHOST_RELAY_ADMIN_SECRET and COHOST_RELAY_JWT_SECRET each override the
    // secrets file on their own (an empty or short one is refused by bind).
    config.apply_env_secrets();
    if let Some(url) = &args.redis {
        let bounds = cohost_relay::broker::HistoryBounds {
            max_frames: config.limits.ring_max_frames,
            max_age: config.limits.ring_max_age,
        };
        let broker = RedisBroker::connect_with(url, &args.redis_prefix, bounds)
            .await
            .map_err(|e| {
                CohostError::new(ErrorCode::NetworkError, e.to_string())
                    .with_fix("start redis-server or fix --redis")
            })?;
        config.broker = Some(Arc::new(broker));
    }
    let relay = Relay::bind(config)
        .await
        .map_err(|e| config_invalid(e.to_string()))?;
    println!("relay listening on {}", relay.local_addr());
    match (&secrets, &path) {
        (Some(s), Some(p)) if fresh => println!(
            "admin secret (generated, stored in {}): {}",
            p.display(),
            s.admin_secret
        ),
        (_, Some(p)) => println!("admin secret: stored in {}", p.display()),
        _ => println!("admin secret: from COHOST_RELAY_ADMIN_SECRET"),
    }
    println!(
        "share a session through it: cohost share --relay {} --admin-secret <secret>",
        relay.authority()
    );
    stop_signal().await;
    tracing::info!("stop signal: draining");
    relay.shutdown().await;
    Ok(0)
}
