//! One CLI's drift check: pick the version, install it aside when needed,
//! run the scenarios under a time bound, read `--help`, compare.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cohost_agents::catalog::{self, PromptArg};
use cohost_agents::process::Version;
use cohost_core::Registry;
use cohost_testbench::drift::{
    self, golden, table_needs, CliReport, Observed, ScenarioResult, Status,
};
use cohost_testbench::{installed_bin, run_with_timeout, AgentCli, Bench};

use crate::profile::{profile, Profile};
use crate::releases::{self, Spec};
use crate::scenarios::{self, Ctx, Target};
use crate::wrapper;

/// How long one `--help` may take.
const HELP_TIMEOUT: Duration = Duration::from_secs(60);

/// What the user asked for.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Run the pinned installs (no registry, no install).
    pub pinned: bool,
    /// `NAME=VERSION` overrides of the newest release.
    pub at: Vec<(String, String)>,
    /// Scenarios to run.
    pub scenarios: Vec<String>,
    /// Time bound per CLI.
    pub per_cli: Duration,
    /// Where scratch installs, wrappers and transcripts go.
    pub scratch: PathBuf,
    /// Keep transcripts here (`<dir>/<cli>/<version>/<scenario>.jsonl`).
    pub save: Option<PathBuf>,
}

/// The flags and subcommands the flag table of `provider` passes.
fn needs(provider: &str) -> std::collections::BTreeSet<String> {
    let Some(entry) = catalog::cli(provider) else {
        return Default::default();
    };
    let f = entry.flags;
    let mut singles: Vec<&'static str> = Vec::new();
    singles.extend(f.model);
    for p in [f.query_prompt, f.terminal_prompt] {
        if let PromptArg::Flag(flag) | PromptArg::Joined(flag) = p {
            singles.push(flag);
        }
    }
    let mut templates: Vec<&[&str]> = vec![f.non_interactive];
    templates.extend(
        [
            f.resume,
            f.continue_latest,
            f.skip_permissions,
            f.json_output,
            f.stream_json,
            f.stream_session,
        ]
        .into_iter()
        .flatten(),
    );
    templates.extend(singles.iter().map(std::slice::from_ref));
    table_needs(templates)
}

/// `--help` (and the profile's subcommand helps) of `bin`, stdout and stderr.
async fn help_text(p: &Profile, bin: &Path, path_prefix: Option<&Path>) -> Result<String, String> {
    let bench = Bench::start(p.cli).await.map_err(|e| e.to_string())?;
    let mut all = String::new();
    for args in p.help {
        let mut cmd = bench.command_for(bin, *args);
        if let Some(prefix) = path_prefix {
            cmd.env("PATH", format!("{}:{}", prefix.display(), bench.path_env()));
        }
        let out = run_with_timeout(cmd, HELP_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        all.push_str(&out.stdout);
        all.push_str(&out.stderr);
    }
    Ok(all)
}

/// Whether the driver would refuse `version` (outside the range it accepts).
fn outside_range(provider: &str, version: &str) -> Option<String> {
    let range = catalog::cli(provider)?.accepted?;
    let v = Version::find_in(version)?;
    (!range.contains(v)).then(|| range.to_string())
}

struct Chosen {
    real: PathBuf,
    version: String,
    path_prefix: Option<PathBuf>,
}

async fn choose(
    spec: &Spec,
    cli: AgentCli,
    plan: &Plan,
    report: &mut CliReport,
) -> Result<Chosen, String> {
    let pinned_bin = installed_bin(cli);
    let pinned = || {
        pinned_bin.clone().map(|real| Chosen {
            real,
            version: spec.pinned.clone(),
            path_prefix: None,
        })
    };
    let missing = || format!("{cli} is not installed; run `{}`", cli.install_command());
    if plan.pinned {
        return pinned().ok_or_else(missing);
    }
    let wanted = match plan.at.iter().find(|(n, _)| *n == spec.name) {
        Some((_, v)) => v.clone(),
        None => {
            let newest = releases::newest(spec).await?;
            report.newest = Some(newest.clone());
            newest
        }
    };
    if wanted == spec.pinned {
        report
            .notes
            .push("the newest release is the pinned version; ran the pinned install".into());
        return pinned().ok_or_else(missing);
    }
    let dir = plan.scratch.join(format!("install-{}-{wanted}", spec.name));
    eprintln!(
        "drift: installing {}@{wanted} into {}",
        spec.name,
        dir.display()
    );
    let real = releases::install(spec, &wanted, &dir, cli.binary()).await?;
    Ok(Chosen {
        real,
        version: wanted,
        path_prefix: Some(dir.join("bin")),
    })
}

fn save(plan: &Plan, report: &CliReport, transcripts: &[(String, String)]) {
    let (Some(root), Some(version)) = (&plan.save, &report.ran) else {
        return;
    };
    let dir = root.join(&report.cli).join(version);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("drift: cannot create {}: {e}", dir.display());
        return;
    }
    for (scenario, text) in transcripts {
        let header = format!(
            "# drift capture: {} {version} through cohost's `{}` driver; scenario {scenario}; fake model server; stdout only\n",
            report.cli, report.provider
        );
        let path = dir.join(format!("{scenario}.jsonl"));
        if let Err(e) = std::fs::write(&path, header + text) {
            eprintln!("drift: cannot write {}: {e}", path.display());
        }
    }
}

/// Runs the whole check of one CLI.
pub(crate) async fn check(spec: &Spec, plan: &Plan, registry: &Registry) -> CliReport {
    let cli: AgentCli = match spec.name.parse() {
        Ok(c) => c,
        Err(e) => {
            let mut r = CliReport::new(&spec.name, "?", &spec.pinned);
            r.errors.push(e.to_string());
            return r;
        }
    };
    let p = profile(cli);
    let mut report = CliReport::new(&spec.name, p.provider, &spec.pinned);
    let chosen = match choose(spec, cli, plan, &mut report).await {
        Ok(c) => c,
        Err(e) => {
            report.errors.push(e);
            return report;
        }
    };
    report.ran = Some(chosen.version.clone());
    let mask = outside_range(p.provider, &chosen.version);
    if let Some(range) = &mask {
        report.notes.push(format!(
            "{} is outside the driver's tested range {range}: cohost refuses it as is \
             (VERSION_UNSUPPORTED); the scenarios ran with its --version answer masked as {}",
            chosen.version, spec.pinned
        ));
    }
    let work = plan
        .scratch
        .join(format!("run-{}-{}", spec.name, chosen.version));
    let wrapper = match wrapper::write(
        &work.join("wrap"),
        &chosen.real,
        mask.as_ref()
            .map(|_| (chosen.version.as_str(), spec.pinned.as_str())),
    ) {
        Ok(w) => w,
        Err(e) => {
            report.errors.push(format!("cannot write the wrapper: {e}"));
            return report;
        }
    };
    let target = Target {
        wrapper,
        path_prefix: chosen.path_prefix.clone(),
    };
    let ctx = Ctx {
        profile: p,
        target: &target,
        registry,
    };
    let results: Arc<Mutex<Vec<ScenarioResult>>> = Arc::default();
    let transcript_of = |s: &str| work.join(format!("{s}.jsonl"));
    let run_all = async {
        for s in &plan.scenarios {
            eprintln!("drift: {} {}: {s}…", spec.name, chosen.version);
            let r = scenarios::run(&ctx, s, &transcript_of(s)).await;
            eprintln!(
                "drift: {} {}: {s}: {:?} ({:.0} s) {}",
                spec.name, chosen.version, r.status, r.seconds, r.detail
            );
            if let Ok(mut v) = results.lock() {
                v.push(r);
            }
        }
    };
    let timed_out = tokio::time::timeout(plan.per_cli, run_all).await.is_err();
    let mut done = results.lock().map(|v| v.clone()).unwrap_or_default();
    for s in &plan.scenarios {
        if !done.iter().any(|r| &r.scenario == s) {
            done.push(ScenarioResult {
                scenario: s.clone(),
                status: Status::NotRun,
                detail: "time bound hit".into(),
                seconds: 0.0,
            });
        }
    }
    if timed_out {
        report.errors.push(format!(
            "time bound of {} s per CLI hit; raise --timeout-secs",
            plan.per_cli.as_secs()
        ));
    }
    report.scenarios = done;

    let transcripts: Vec<(String, String)> = plan
        .scenarios
        .iter()
        .filter_map(|s| {
            std::fs::read_to_string(transcript_of(s))
                .ok()
                .map(|t| (s.clone(), t))
        })
        .collect();
    let new_help = help_text(&p, &chosen.real, chosen.path_prefix.as_deref())
        .await
        .unwrap_or_else(|e| {
            report
                .notes
                .push(format!("--help of the release under test: {e}"));
            String::new()
        });
    let pinned_help = match (chosen.path_prefix.is_some(), installed_bin(cli)) {
        (false, _) => new_help.clone(),
        (true, Some(bin)) => help_text(&p, &bin, None).await.unwrap_or_default(),
        (true, None) => {
            report
                .notes
                .push("pinned version not installed: flags compared with nothing".into());
            String::new()
        }
    };
    let dir = golden::golden_dir(
        &golden::fixtures_root(),
        &spec.name,
        &spec.pinned,
        cli.is_acp_bridge(),
    );
    let goldens = drift::load_goldens(&dir).unwrap_or_else(|e| {
        report
            .notes
            .push(format!("cannot read goldens in {}: {e}", dir.display()));
        Vec::new()
    });
    let observed = Observed {
        transcripts,
        pinned_help,
        new_help,
        needs: needs(p.provider),
    };
    drift::assess(&mut report, &goldens, &observed);
    save(plan, &report, &observed.transcripts);
    report
}
