//! `cohost record verify|key|path` and `cohost export`: check a session's
//! signed record (or an export carrying one), show the host key that signs
//! records, and write a readable transcript that carries its record.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use cohost_core::{CohostError, ErrorCode};
use cohost_record::{Format, Kind, Options, RecordError};

use crate::exit::{CmdResult, Failure};
use crate::hostctx;

/// Exit code of `cohost record verify` when the record does not verify
/// (documented in the book's "Record and export").
pub const NOT_VERIFIED: u8 = 12;

/// Arguments of `cohost record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: RecordAction,
}

/// `cohost record` subcommands.
#[derive(Debug, Subcommand)]
pub enum RecordAction {
    /// Check a record (a session id or a file: a record, or an export made
    /// by `cohost export`): its chain, every signature, and for an export
    /// that its transcript is the one its record makes. Names the first
    /// bad entry and exits 12 when it fails.
    Verify(VerifyArgs),
    /// Print this host's public key, which signs its records.
    Key,
    /// Print where session SESSION's record is.
    Path {
        /// The cohost session id (`cohost sessions`).
        session: String,
    },
}

/// Arguments of `cohost record verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A session id, or the path of a record or an export.
    pub target: String,
    /// The host key (base64url, as `cohost record key` prints it) the
    /// record must be signed with.
    #[arg(long)]
    pub key: Option<String>,
    /// Accept a record without its end entry or with a cut-off last entry
    /// (a session still running, or one cohost stopped abruptly): the
    /// entries there are checked.
    #[arg(long)]
    pub partial: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Transcript formats of `cohost export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One self-contained HTML page (no script, no external resource).
    Html,
    /// Markdown.
    Md,
    /// JSON.
    Json,
}

/// Arguments of `cohost export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The cohost session id (`cohost sessions`), or the path of a record.
    pub session: String,
    /// The transcript's format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Html)]
    pub format: ExportFormat,
    /// Where to write it (default: SESSION.FORMAT in the current
    /// directory; `-` for stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Export a record without its end entry (a session still running).
    #[arg(long)]
    pub partial: bool,
}

fn usage(message: String, fix: &str) -> Failure {
    Failure::usage(CohostError::new(ErrorCode::ConfigInvalid, message).with_fix(fix))
}

/// The file `target` names: an existing path, else a session id's record.
fn locate(target: &str) -> Result<PathBuf, Failure> {
    let as_path = Path::new(target);
    if as_path.is_file() {
        return Ok(as_path.to_path_buf());
    }
    let host = hostctx::host()?;
    let shown = cohost_core::sanitize::inert_line(target);
    let path = cohost_host::record::path_of(&host.paths.state_dir, target).ok_or_else(|| {
        usage(
            format!("`{shown}` is neither a file nor a session id"),
            "pass a session id (`cohost sessions`) or the path of a record or export",
        )
    })?;
    if !path.is_file() {
        return Err(usage(
            format!(
                "session `{shown}` has no record (looked for {})",
                path.display()
            ),
            "sessions are recorded from this version on; `cohost sessions` lists the ids",
        ));
    }
    Ok(path)
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| {
        Failure::from(
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("cannot read {}: {e}", path.display()),
            )
            .with_fix("check the path and its permissions"),
        )
    })
}

fn not_verified(e: &RecordError) -> Failure {
    Failure {
        error: CohostError::new(ErrorCode::InvalidOutput, e.to_string()).with_fix(e.fix()),
        exit: NOT_VERIFIED,
    }
}

/// This machine's host key, when it has one (never made by a check).
fn own_key() -> Option<[u8; 32]> {
    let host = hostctx::host().ok()?;
    let path = host.paths.state_dir.join(cohost_host::record::KEY_FILE);
    cohost_host::record::HostKey::load(&path)
        .ok()
        .flatten()
        .map(|k| k.public())
}

/// `cohost record ...`.
pub async fn run(args: RecordArgs) -> CmdResult {
    match args.action {
        RecordAction::Verify(v) => verify(v),
        RecordAction::Key => {
            let host = hostctx::host()?;
            let key = cohost_host::record::HostKey::load_or_create(&host.paths.state_dir)?;
            // Not through the sanitizer: a public key may look like a
            // secret to it, and this one must print whole.
            raw(&format!("{}\n", key.fingerprint()))?;
            Ok(0)
        }
        RecordAction::Path { session } => {
            let host = hostctx::host()?;
            let path =
                cohost_host::record::path_of(&host.paths.state_dir, &session).ok_or_else(|| {
                    usage(
                        format!(
                            "`{}` is not a session id",
                            cohost_core::sanitize::inert_line(&session)
                        ),
                        "`cohost sessions` lists the ids",
                    )
                })?;
            // Whole, for scripts (the sanitizer would shorten the home
            // directory to `~`).
            raw(&format!("{}\n", path.display()))?;
            Ok(0)
        }
    }
}

fn verify(args: VerifyArgs) -> CmdResult {
    let expect_key = match &args.key {
        Some(k) => Some(cohost_record::unb64::<32>(k.trim()).ok_or_else(|| {
            usage(
                "--key is not a host key (32 bytes of base64url)".into(),
                "pass the key as `cohost record key` prints it on the host",
            )
        })?),
        None => None,
    };
    let path = locate(&args.target)?;
    let bytes = read(&path)?;
    let opts = Options {
        expect_key,
        partial: args.partial,
    };
    let (v, kind) = cohost_record::verify_any(&bytes, &opts).map_err(|e| not_verified(&e))?;
    let key = cohost_record::fingerprint(&v.host_key);
    let ours = own_key() == Some(v.host_key);
    let what = match kind {
        Kind::Record => "record".to_owned(),
        Kind::Export(f) => format!("{} export", f.extension()),
    };
    // Entries that say what a participant did without the participant's
    // signature (records before sharing format v2, a frame the sanitizer
    // had to change): the host's word alone, said so.
    let unsigned = v
        .entries
        .iter()
        .filter(|e| {
            e.author_public_key.is_none()
                && matches!(
                    e.kind.as_str(),
                    cohost_record::kind::SUGGESTION | cohost_record::kind::APPROVAL_VOTE
                )
        })
        .count();
    if args.json {
        let signed: Vec<serde_json::Value> = v
            .signed
            .iter()
            .map(|s| {
                serde_json::json!({
                    "entry": s.entry,
                    "kind": s.kind,
                    "author": s.author.as_deref().map(cohost_core::sanitize::inert_line),
                    "author_public_key": cohost_record::b64(&s.key),
                    "room": s.room,
                })
            })
            .collect();
        let out = serde_json::json!({
            "verified": true,
            "file": path.display().to_string(),
            "kind": what,
            "entries": v.entries.len(),
            "complete": v.complete,
            "torn_entry": v.torn,
            "host_public_key": key,
            "this_host": ours,
            "participant_signed": signed,
            "participant_unsigned": unsigned,
        });
        // Not through the sanitizer, which may take a public key for a
        // secret: nothing here is one (a path, counts, the public key).
        raw(&format!("{out}\n"))?;
        return Ok(0);
    }
    raw(&format!(
        "verified: {what} {} — {} entries{}, chained and signed by host key {key}{}\n",
        cohost_core::sanitize::inert_line(&path.display().to_string()),
        v.entries.len(),
        if v.complete {
            ""
        } else {
            " (no end entry: the session had not ended)"
        },
        if ours {
            " (this machine's)"
        } else {
            " (not this machine's: compare it with `cohost record key` on its host)"
        }
    ))?;
    for a in &v.signed {
        raw(&format!(
            "verified: entry {} ({}) is signed by its author {}, key {}\n",
            a.entry,
            cohost_core::sanitize::inert_line(&a.kind),
            cohost_core::sanitize::inert_line(a.author.as_deref().unwrap_or("(unnamed)")),
            cohost_record::b64(&a.key),
        ))?;
    }
    if unsigned > 0 {
        raw(&format!(
            "{unsigned} entr{} say what a participant did on the host's word alone (no participant signature)\n",
            if unsigned == 1 { "y" } else { "ies" }
        ))?;
    }
    if let Some(n) = v.torn {
        crate::say!("entry {n} was cut off mid-write and is not counted");
    }
    Ok(0)
}

/// Write `text` to stdout as it is.
fn raw(text: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| crate::exit::internal(format!("cannot write to stdout: {e}")))
}

/// `cohost export SESSION --format F`.
pub async fn export(args: ExportArgs) -> CmdResult {
    let path = locate(&args.session)?;
    let bytes = read(&path)?;
    let format = match args.format {
        ExportFormat::Html => Format::Html,
        ExportFormat::Md => Format::Markdown,
        ExportFormat::Json => Format::Json,
    };
    let opts = Options {
        expect_key: None,
        partial: args.partial,
    };
    let text = cohost_record::export(&bytes, format, &opts).map_err(|e| not_verified(&e))?;
    let out = args.output.unwrap_or_else(|| {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "session".into());
        PathBuf::from(format!("{stem}.{}", format.extension()))
    });
    if out == Path::new("-") {
        // Byte for byte (the record inside is signed); its text passed the
        // sanitizer when it was recorded.
        raw(&text)?;
        return Ok(0);
    }
    std::fs::write(&out, text).map_err(|e| {
        Failure::from(
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("cannot write {}: {e}", out.display()),
            )
            .with_fix("pass a writable path with --output"),
        )
    })?;
    crate::say!(
        "wrote {} (verify it with `cohost record verify {}`)",
        out.display(),
        out.display()
    );
    Ok(0)
}
