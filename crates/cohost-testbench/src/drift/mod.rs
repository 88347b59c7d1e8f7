//! The drift check's pure half: what a CLI printed ([`shape`]), how that and
//! its `--help` differ from the pinned version ([`compare`], [`flags`]), and
//! the report ([`report`]). The `drift` binary (`src/bin/drift/`) looks up
//! releases, installs them, runs the scenarios and feeds the results here;
//! everything below is tested on recorded transcripts, without a network.

pub mod compare;
pub mod flags;
pub mod golden;
pub mod report;
pub mod shape;

pub use compare::{compare_shapes, pick_golden, TranscriptDiff};
pub use flags::{compare_flags, help_flags, table_needs, FlagDiff};
pub use golden::{golden_dir, load_goldens};
pub use report::{render, CliReport, DriftReport, ScenarioResult, Status, SCENARIOS};
pub use shape::Shape;

use std::collections::BTreeSet;

/// What one CLI's run produced, before it is compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// `(scenario, transcript text)` for every scenario that ran.
    pub transcripts: Vec<(String, String)>,
    /// `--help` of the pinned version (empty when it could not run).
    pub pinned_help: String,
    /// `--help` of the version that ran.
    pub new_help: String,
    /// What the flag table needs from the help ([`table_needs`]).
    pub needs: BTreeSet<String>,
}

/// Fills `report`'s transcript and flag comparison from what was observed
/// and the pinned goldens (`(file stem, shape)`).
pub fn assess(report: &mut CliReport, goldens: &[(String, Shape)], observed: &Observed) {
    let mut all = Shape::default();
    for (_, g) in goldens {
        all.merge(g);
    }
    for (scenario, text) in &observed.transcripts {
        let new = Shape::of_transcript(text);
        let same = pick_golden(scenario, goldens);
        report
            .transcript
            .merge(compare_shapes(scenario, &all, same, &new));
    }
    report.flags = compare_flags(&observed.pinned_help, &observed.new_help, &observed.needs);
    if goldens.is_empty() {
        report
            .notes
            .push(format!("no goldens for {} {}", report.cli, report.pinned));
    }
}
