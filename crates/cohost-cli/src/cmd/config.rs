//! `cohost config get|set|list|unset`: cohost's TOML config (slots,
//! providers). Writes keep the user's formatting and comments, and a change
//! that would make the config invalid is refused, not saved.

use clap::{Args, Subcommand};
use cohost_discovery::{config_keys, slots};

use crate::exit::CmdResult;
use crate::hostctx;

/// Arguments of `cohost config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    action: ConfigAction,
}

#[derive(Debug, Subcommand)]
enum ConfigAction {
    /// Print one value (dotted key, e.g. `slots.summary.provider`).
    Get {
        /// Key.
        key: String,
    },
    /// Set one value; the config is validated before it is saved.
    Set {
        /// Key.
        key: String,
        /// Value (TOML literal or plain string).
        value: String,
    },
    /// Remove one value.
    Unset {
        /// Key.
        key: String,
    },
    /// The config file's path, every value, and the capability slots as resolved.
    List,
    /// Every key cohost understands, with its type, default and meaning.
    Keys,
}

/// A key cohost does not know is an error before anything is read or written.
fn known(key: &str) -> Result<(), cohost_core::CohostError> {
    match config_keys::lookup(key) {
        Some(_) => Ok(()),
        None => Err(config_keys::unknown_key(key).into()),
    }
}

/// Run the command.
pub async fn run(args: ConfigArgs) -> CmdResult {
    let (host, mut cfg) = hostctx::host_and_config()?;
    Ok(match args.action {
        ConfigAction::Get { key } => match known(&key).map(|()| cfg.get(&key))? {
            Some(v) => {
                crate::say!("{v}");
                0
            }
            None => {
                crate::say_err!("cohost: `{key}` is not set in {}", cfg.path().display());
                1
            }
        },
        ConfigAction::Set { key, value } => {
            cfg.set(&key, &value)?;
            if let Err(e) = slots::validate_config(&host, &cfg) {
                crate::say_err!("cohost: not saved: the change would make the config invalid");
                return Err(e.into());
            }
            cfg.save()?;
            0
        }
        ConfigAction::Unset { key } => {
            known(&key)?;
            if !cfg.unset(&key) {
                crate::say_err!("cohost: `{key}` was not set");
                return Ok(1);
            }
            cfg.save()?;
            0
        }
        ConfigAction::List => {
            let path = cfg.path();
            let note = if path.exists() {
                ""
            } else {
                " (not created yet)"
            };
            crate::say!("# {}{note}", path.display());
            for (k, v) in cfg.list() {
                match config_keys::lookup(&k) {
                    Some(_) => crate::say!("{k} = {v}"),
                    None => crate::say!(
                        "{k} = {v}  # unknown key, ignored{}",
                        config_keys::did_you_mean(&k)
                            .map(|m| format!(" (did you mean `{m}`?)"))
                            .unwrap_or_default()
                    ),
                }
            }
            let views = slots::list_slots(&host, &cfg)?;
            crate::say!("\n# capability slots");
            for v in views {
                crate::say!(
                    "{:<10} {} ({}){}{}",
                    v.name,
                    v.spec.provider,
                    v.spec.mode.as_str(),
                    v.spec
                        .model
                        .as_deref()
                        .map(|m| format!(" model {m}"))
                        .unwrap_or_default(),
                    if v.configured { "" } else { "  [default]" }
                );
            }
            0
        }
        ConfigAction::Keys => {
            for d in config_keys::KEYS {
                crate::say!("{:<28} {:<17} {}", d.pattern, d.kind.name(), d.doc);
            }
            0
        }
    })
}
