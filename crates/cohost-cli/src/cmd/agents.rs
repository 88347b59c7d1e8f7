//! `cohost agents`: what this build can drive.

use clap::Args;
use serde::Serialize;

use crate::exit;
use crate::providers;

/// Arguments of `cohost agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row {
    #[serde(flatten)]
    descriptor: cohost_core::ProviderDescriptor,
    available: bool,
}

/// Run the command; returns the exit code.
pub async fn run(args: AgentsArgs) -> u8 {
    let registry = match providers::registry() {
        Ok(r) => r,
        Err(e) => return exit::report(&e, args.json),
    };
    let rows: Vec<Row> = registry
        .ids()
        .into_iter()
        .filter_map(|id| registry.get(&id).ok())
        .map(|f| Row {
            descriptor: f.descriptor(),
            available: f.is_available(),
        })
        .collect();
    if args.json {
        match serde_json::to_string_pretty(&rows) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("cohost: cannot encode the agent list: {e}");
                return 1;
            }
        }
        return 0;
    }
    println!(
        "{:<16} {:<19} {:<13} {:<9} CAPABILITIES",
        "ID", "KIND", "TIER", "FOUND"
    );
    for r in &rows {
        let d = &r.descriptor;
        let tier = serde_json::to_value(d.capabilities.tier)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        println!(
            "{:<16} {:<19} {:<13} {:<9} {}",
            d.id,
            d.kind.as_str(),
            tier,
            if r.available { "yes" } else { "no" },
            d.capabilities.summary()
        );
    }
    0
}
