//! `cohost prices`: the model price table budgets are counted with. `show`
//! prints a model's price (or how many models are priced) and where the
//! table came from; `refresh` takes a new copy of LiteLLM's
//! `model_prices_and_context_window.json` (from a file, offline, or from
//! LiteLLM's repository), trims it to what cohost reads and keeps it next
//! to `config.toml`, where it beats the pinned copy.

use clap::{Args, Subcommand};
use cohost_core::budget::Prices;
use cohost_core::{CohostError, ErrorCode};
use cohost_discovery::prices::{
    refreshed_path, trim_litellm, PriceFile, PriceTable, PINNED, UPSTREAM,
};

use crate::exit::CmdResult;

/// Arguments of `cohost prices`.
#[derive(Debug, Args)]
pub struct PricesArgs {
    #[command(subcommand)]
    action: PricesAction,
}

#[derive(Debug, Subcommand)]
enum PricesAction {
    /// A model's price (US dollars per million tokens), or the table's
    /// source and size.
    Show {
        /// The model, as the agent reports it (e.g. claude-sonnet-4-5).
        model: Option<String>,
    },
    /// Take a new copy of LiteLLM's price table.
    Refresh {
        /// Read LiteLLM's model_prices_and_context_window.json from FILE
        /// (offline; e.g. the one in the PyPI litellm package).
        #[arg(long, value_name = "FILE", conflicts_with = "url")]
        from: Option<std::path::PathBuf>,
        /// Download it from URL instead of LiteLLM's repository.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
    },
}

/// Run the command.
pub async fn run(args: PricesArgs) -> CmdResult {
    let (_host, cfg) = crate::hostctx::host_and_config()?;
    match args.action {
        PricesAction::Show { model } => {
            let table = PriceTable::load(&cfg)?;
            let path = refreshed_path(&cfg);
            let source = match std::fs::read_to_string(&path) {
                Ok(t) => PriceFile::parse(&t, &path.display().to_string())?,
                Err(_) => PriceFile::parse(PINNED, "compiled into cohost")?,
            };
            match model {
                None => crate::say!(
                    "{} models priced; {} ({})",
                    table.len(),
                    source.version,
                    source.source
                ),
                Some(m) => match table.price(&m) {
                    Some(p) => crate::say!(
                        "{}: ${:.4} in, ${:.4} out, ${:.4} cache read, ${:.4} cache write per million tokens ({})",
                        cohost_core::sanitize::inert_line(&m),
                        p.input_cost_per_token * 1e6,
                        p.output_cost_per_token * 1e6,
                        p.cache_read_input_token_cost.unwrap_or(p.input_cost_per_token) * 1e6,
                        p.cache_creation_input_token_cost.unwrap_or(p.input_cost_per_token) * 1e6,
                        source.version
                    ),
                    None => {
                        return Err(CohostError::new(
                            ErrorCode::ModelNotAvailable,
                            format!(
                                "no price for {}: a budget counts its tokens only",
                                cohost_core::sanitize::inert_line(&m)
                            ),
                        )
                        .with_fix(format!(
                            "cohost config set prices.{m}.input 3.0 and prices.{m}.output 15.0 (US dollars per million tokens), or cohost prices refresh"
                        ))
                        .into())
                    }
                },
            }
        }
        PricesAction::Refresh { from, url } => {
            let (text, source) = match from {
                Some(path) => {
                    let text = std::fs::read_to_string(&path).map_err(|e| {
                        CohostError::new(
                            ErrorCode::ConfigInvalid,
                            format!("cannot read {}: {e}", path.display()),
                        )
                        .with_fix("pass LiteLLM's model_prices_and_context_window.json")
                    })?;
                    (
                        text,
                        format!(
                            "LiteLLM model_prices_and_context_window.json, from {}",
                            path.display()
                        ),
                    )
                }
                None => {
                    let url = url.unwrap_or_else(|| UPSTREAM.to_owned());
                    (
                        download(&url).await?,
                        format!("LiteLLM model_prices_and_context_window.json, from {url}"),
                    )
                }
            };
            let version = format!("refreshed {}", today());
            let file = trim_litellm(&text, &source, &version)?;
            let path = refreshed_path(&cfg);
            cohost_discovery::fsutil::atomic_write(&path, file.to_text().as_bytes())?;
            crate::say!(
                "{} models priced, written to {} (delete it to go back to the pinned table)",
                file.models.len(),
                path.display()
            );
        }
    }
    Ok(0)
}

async fn download(url: &str) -> Result<String, CohostError> {
    let failed = |what: String| {
        CohostError::new(ErrorCode::NetworkError, format!("cannot download the price table: {what}"))
            .with_fix("offline: cohost prices refresh --from FILE (LiteLLM's model_prices_and_context_window.json)")
    };
    let _already_installed = rustls::crypto::ring::default_provider().install_default();
    let resp = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| failed(e.without_url().to_string()))?
        .get(url)
        .send()
        .await
        .map_err(|e| failed(e.without_url().to_string()))?;
    if !resp.status().is_success() {
        return Err(failed(format!("the server answered {}", resp.status())));
    }
    resp.text()
        .await
        .map_err(|e| failed(e.without_url().to_string()))
}

/// Today's date (UTC), for the refreshed table's header.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
