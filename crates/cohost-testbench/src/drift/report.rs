//! The drift report: one row per CLI, for people (a table and the details
//! below it) and for machines (JSON). Pure: a [`DriftReport`] in, text out.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::compare::TranscriptDiff;
use super::flags::FlagDiff;

/// The standard scenarios, in report order.
pub const SCENARIOS: [&str; 6] = [
    "text",
    "tool_deny",
    "tool_allow",
    "interrupt",
    "resume",
    "provider_error",
];

/// Short column headers for [`SCENARIOS`].
const HEADERS: [&str; 6] = ["text", "deny", "allow", "intr", "resume", "error"];

/// How one scenario went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It did what cohost promises.
    Pass,
    /// It did not (the detail says what happened).
    Fail,
    /// The CLI cannot do it (README support matrix).
    NotApplicable,
    /// It did not run (install failed, time bound hit before it).
    NotRun,
}

impl Status {
    fn cell(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::NotApplicable => "n/a",
            Status::NotRun => "-",
        }
    }
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// One of [`SCENARIOS`].
    pub scenario: String,
    /// How it went.
    pub status: Status,
    /// What happened (why it failed, why it is N/A, a timing).
    pub detail: String,
    /// Wall time.
    pub seconds: f64,
}

/// Everything drift found about one CLI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CliReport {
    /// Agent name as in `install.sh --list` (`claude`, `codex-acp`).
    pub cli: String,
    /// The cohost provider id driven (`claude`, `claude-acp`).
    pub provider: String,
    /// The pinned version (`versions.env`).
    pub pinned: String,
    /// The newest published version, when the registry answered.
    pub newest: Option<String>,
    /// The version actually run.
    pub ran: Option<String>,
    /// Scenario results, in [`SCENARIOS`] order.
    pub scenarios: Vec<ScenarioResult>,
    /// The transcripts against the pinned goldens.
    pub transcript: TranscriptDiff,
    /// `--help` against the pinned help and the flag table.
    pub flags: FlagDiff,
    /// Problems outside the scenarios (lookup or install failures, time bound).
    pub errors: Vec<String>,
    /// Facts worth knowing that break nothing.
    pub notes: Vec<String>,
}

impl CliReport {
    /// A report with every scenario not run yet.
    pub fn new(cli: &str, provider: &str, pinned: &str) -> CliReport {
        CliReport {
            cli: cli.to_string(),
            provider: provider.to_string(),
            pinned: pinned.to_string(),
            newest: None,
            ran: None,
            scenarios: Vec::new(),
            transcript: TranscriptDiff::default(),
            flags: FlagDiff::default(),
            errors: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The status of `scenario` (not run when absent).
    pub fn status(&self, scenario: &str) -> Status {
        self.scenarios
            .iter()
            .find(|r| r.scenario == scenario)
            .map_or(Status::NotRun, |r| r.status)
    }

    /// Whether this CLI's run shows a break: a failed scenario, a flag the
    /// table uses gone, or an error that kept the scenarios from running.
    pub fn breaks(&self) -> bool {
        self.scenarios.iter().any(|r| r.status == Status::Fail)
            || self.flags.breaks()
            || !self.errors.is_empty()
    }
}

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriftReport {
    /// `pinned` or `newest`.
    pub mode: String,
    /// One entry per CLI checked.
    pub clis: Vec<CliReport>,
}

impl DriftReport {
    /// Whether any CLI breaks (the drift command then exits non-zero).
    pub fn breaks(&self) -> bool {
        self.clis.iter().any(CliReport::breaks)
    }

    /// Takes out of every CLI's transcript diff what the baseline (a
    /// `--pinned --json` run) shows for the same CLI, and says how much.
    pub fn apply_baseline(&mut self, base: &DriftReport) {
        for c in &mut self.clis {
            let Some(b) = base.clis.iter().find(|b| b.cli == c.cli) else {
                c.notes
                    .push("not in the baseline: differences not filtered".into());
                continue;
            };
            let kept = c.transcript.minus(&b.transcript);
            let hidden = c.transcript.len().saturating_sub(kept.len());
            if hidden > 0 {
                c.notes.push(format!(
                    "{hidden} transcript difference(s) the pinned {} run shows too are hidden (baseline)",
                    b.ran.as_deref().unwrap_or(&b.pinned)
                ));
            }
            c.transcript = kept;
        }
    }

    /// Pretty JSON for machines.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// The newest release; for `--at` the version that ran instead; `-` when
/// not looked up (`--pinned`, or the registry failed: see the errors).
fn newest_cell(c: &CliReport) -> String {
    match (&c.newest, &c.ran) {
        (Some(n), _) => n.clone(),
        (None, Some(ran)) if *ran != c.pinned => format!("{ran} (--at)"),
        _ => "-".into(),
    }
}

fn flag_cell(f: &FlagDiff) -> String {
    let mut cell = format!("+{} -{}", f.added.len(), f.removed.len());
    if !f.table_missing.is_empty() {
        let _ = write!(cell, " !{}", f.table_missing.len());
    }
    cell
}

fn row(cells: &[String], widths: &[usize]) -> String {
    let padded: Vec<String> = cells
        .iter()
        .zip(widths)
        .map(|(c, w)| format!("{c:<w$}"))
        .collect();
    format!("| {} |", padded.join(" | ")).trim_end().to_string()
}

/// The table for people, then per CLI what failed and what changed.
pub fn render(report: &DriftReport) -> String {
    let mut header: Vec<String> = ["CLI", "pinned", "newest"].map(String::from).to_vec();
    header.extend(HEADERS.iter().map(|h| h.to_string()));
    header.extend(["unknown kinds", "flags +/-"].map(String::from));
    let rows: Vec<Vec<String>> = report
        .clis
        .iter()
        .map(|c| {
            let mut r = vec![c.cli.clone(), c.pinned.clone(), newest_cell(c)];
            r.extend(SCENARIOS.iter().map(|s| c.status(s).cell().to_string()));
            let unknown: usize = c.transcript.unknown_kinds.values().sum();
            r.push(format!(
                "{} ({} lines)",
                c.transcript.unknown_kinds.len(),
                unknown
            ));
            r.push(flag_cell(&c.flags));
            r
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let mut out = format!("drift ({})\n\n", report.mode);
    out.push_str(&row(&header, &widths));
    out.push('\n');
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&row(&rule, &widths).replace(' ', "-"));
    out.push('\n');
    for r in &rows {
        out.push_str(&row(r, &widths));
        out.push('\n');
    }
    for c in &report.clis {
        let details = details(c);
        if !details.is_empty() {
            let _ = write!(
                out,
                "\n{} ({}, ran {}):\n{details}",
                c.cli,
                c.provider,
                c.ran.as_deref().unwrap_or("nothing")
            );
        }
    }
    let verdict = if report.breaks() {
        "\nBROKEN: see FAIL and ! above.\n"
    } else {
        "\nall green.\n"
    };
    out.push_str(verdict);
    out
}

fn list(items: &[String]) -> String {
    items.join(", ")
}

fn details(c: &CliReport) -> String {
    let mut out = String::new();
    for e in &c.errors {
        let _ = writeln!(out, "  error: {e}");
    }
    for r in &c.scenarios {
        if r.status == Status::Fail {
            let _ = writeln!(out, "  FAIL {}: {}", r.scenario, r.detail);
        }
    }
    let f = &c.flags;
    if !f.table_missing.is_empty() {
        let _ = writeln!(
            out,
            "  ! flags the table uses, gone: {}",
            list(&f.table_missing)
        );
    }
    if !f.added.is_empty() {
        let _ = writeln!(out, "  flags added: {}", list(&f.added));
    }
    if !f.removed.is_empty() {
        let _ = writeln!(out, "  flags removed: {}", list(&f.removed));
    }
    let t = &c.transcript;
    if !t.unknown_kinds.is_empty() {
        let kinds: Vec<String> = t
            .unknown_kinds
            .iter()
            .map(|(k, n)| format!("{k} x{n}"))
            .collect();
        let _ = writeln!(out, "  new event kinds: {}", list(&kinds));
    }
    if !t.kinds_gone.is_empty() {
        let _ = writeln!(
            out,
            "  kinds the goldens have, not seen: {}",
            list(&t.kinds_gone)
        );
    }
    for (label, map) in [
        ("fields gone", &t.fields_gone),
        ("fields new", &t.fields_new),
    ] {
        for (kind, fields) in map {
            let _ = writeln!(out, "  {label} on {kind}: {}", list(fields));
        }
    }
    for n in &c.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    out
}
