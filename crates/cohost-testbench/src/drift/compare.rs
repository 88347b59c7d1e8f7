//! A new release's transcripts against the pinned goldens. Pure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::shape::Shape;

/// How one transcript (or several, merged) differs from the goldens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptDiff {
    /// Kinds no golden of the pinned version has, with how often they came.
    /// Drivers read them as "unknown" (counted, ignored): new behaviour.
    pub unknown_kinds: BTreeMap<String, usize>,
    /// `scenario: kind` the scenario's golden has and the new run lacks.
    pub kinds_gone: Vec<String>,
    /// Kind → fields the scenario's golden had on it and the new run lacks.
    pub fields_gone: BTreeMap<String, Vec<String>>,
    /// Kind → fields no golden had on it.
    pub fields_new: BTreeMap<String, Vec<String>>,
}

impl TranscriptDiff {
    /// Adds another scenario's diff.
    pub fn merge(&mut self, other: TranscriptDiff) {
        for (k, n) in other.unknown_kinds {
            *self.unknown_kinds.entry(k).or_default() += n;
        }
        self.kinds_gone.extend(other.kinds_gone);
        for (map, add) in [
            (&mut self.fields_gone, other.fields_gone),
            (&mut self.fields_new, other.fields_new),
        ] {
            for (k, fields) in add {
                let entry = map.entry(k).or_default();
                entry.extend(fields);
                entry.sort();
                entry.dedup();
            }
        }
    }

    /// What is left of `self` once everything `base` also shows is taken
    /// out: `base` is the pinned version's own drift run, so what remains is
    /// what the release changed, not how the goldens' capture harnesses
    /// differ from the drift scenarios.
    pub fn minus(&self, base: &TranscriptDiff) -> TranscriptDiff {
        let fields = |mine: &BTreeMap<String, Vec<String>>,
                      theirs: &BTreeMap<String, Vec<String>>| {
            mine.iter()
                .filter_map(|(kind, fs)| {
                    let left: Vec<String> = fs
                        .iter()
                        .filter(|f| !theirs.get(kind).is_some_and(|t| t.contains(f)))
                        .cloned()
                        .collect();
                    (!left.is_empty()).then(|| (kind.clone(), left))
                })
                .collect()
        };
        TranscriptDiff {
            unknown_kinds: self
                .unknown_kinds
                .iter()
                .filter(|(k, _)| !base.unknown_kinds.contains_key(*k))
                .map(|(k, n)| (k.clone(), *n))
                .collect(),
            kinds_gone: self
                .kinds_gone
                .iter()
                .filter(|k| !base.kinds_gone.contains(k))
                .cloned()
                .collect(),
            fields_gone: fields(&self.fields_gone, &base.fields_gone),
            fields_new: fields(&self.fields_new, &base.fields_new),
        }
    }

    /// How many entries (kinds, gone kinds, fields) the diff lists.
    pub fn len(&self) -> usize {
        self.unknown_kinds.len()
            + self.kinds_gone.len()
            + self.fields_gone.values().map(Vec::len).sum::<usize>()
            + self.fields_new.values().map(Vec::len).sum::<usize>()
    }

    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.unknown_kinds.is_empty()
            && self.kinds_gone.is_empty()
            && self.fields_gone.is_empty()
            && self.fields_new.is_empty()
    }
}

/// Compares one scenario's new transcript with the goldens: `all` is every
/// golden of the pinned version merged, `same` the golden of this scenario
/// when there is one (kinds and fields that went missing are only judged
/// against it, since other scenarios print other kinds).
pub fn compare_shapes(
    scenario: &str,
    all: &Shape,
    same: Option<&Shape>,
    new: &Shape,
) -> TranscriptDiff {
    let mut diff = TranscriptDiff::default();
    for (kind, s) in &new.kinds {
        match all.kinds.get(kind) {
            None => {
                diff.unknown_kinds.insert(kind.clone(), s.count);
            }
            Some(known) => {
                let extra: Vec<String> = s.fields.difference(&known.fields).cloned().collect();
                if !extra.is_empty() {
                    diff.fields_new.insert(kind.clone(), extra);
                }
            }
        }
    }
    if let Some(golden) = same {
        for (kind, g) in &golden.kinds {
            match new.kinds.get(kind) {
                None => diff.kinds_gone.push(format!("{scenario}: {kind}")),
                Some(s) => {
                    let gone: Vec<String> = g.fields.difference(&s.fields).cloned().collect();
                    if !gone.is_empty() {
                        diff.fields_gone.insert(kind.clone(), gone);
                    }
                }
            }
        }
    }
    diff
}

/// The golden file stems that stand for a drift scenario, best first (the
/// goldens were captured by several harnesses and named after what each
/// CLI does: `tool_decline`, `tool_default_denied`, `tool_ask_rejected`…).
pub fn golden_candidates(scenario: &str) -> &'static [&'static str] {
    match scenario {
        "text" => &["text", "exec_text"],
        "tool_deny" => &[
            "tool_deny",
            "tool_decline",
            "tool_default_denied",
            "tool_ask_rejected",
            "tool_default_mode",
            "tool_headless_default",
        ],
        "tool_allow" => &[
            "tool_allow",
            "tool_accept",
            "tool_allow_all",
            "tool_auto_approve",
            "tool_default_allow",
            "tool_auto",
        ],
        "interrupt" => &["interrupt", "interrupt_then_text", "interrupted_by_sigint"],
        "resume" => &["resume"],
        "provider_error" => &["error_401", "exec_error_401"],
        _ => &[],
    }
}

/// The golden for `scenario` among `(stem, shape)` pairs, by [`golden_candidates`].
pub fn pick_golden<'a>(scenario: &str, goldens: &'a [(String, Shape)]) -> Option<&'a Shape> {
    golden_candidates(scenario)
        .iter()
        .find_map(|c| goldens.iter().find(|(stem, _)| stem == c).map(|(_, s)| s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(lines: &str) -> Shape {
        Shape::of_transcript(lines)
    }

    #[test]
    fn identical_runs_differ_in_nothing() {
        let g =
            shape("{\"type\":\"init\",\"session_id\":\"a\"}\n{\"type\":\"result\",\"stats\":{}}");
        let d = compare_shapes("text", &g, Some(&g), &g);
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn new_kinds_are_unknown_and_gone_kinds_are_named() {
        let golden =
            shape("{\"type\":\"init\",\"session_id\":\"a\"}\n{\"type\":\"result\",\"stats\":{}}");
        let new = shape(
            "{\"type\":\"init\",\"sessionId\":\"a\"}\n{\"type\":\"banner\"}\n{\"type\":\"banner\"}",
        );
        let d = compare_shapes("text", &golden, Some(&golden), &new);
        assert_eq!(d.unknown_kinds, BTreeMap::from([("banner".to_string(), 2)]));
        assert_eq!(d.kinds_gone, ["text: result"]);
        assert_eq!(d.fields_gone["init"], ["session_id"]);
        assert_eq!(d.fields_new["init"], ["sessionId"]);
    }

    #[test]
    fn without_a_scenario_golden_only_new_things_count() {
        let all = shape("{\"type\":\"init\",\"a\":1}");
        let d = compare_shapes("resume", &all, None, &shape("{\"type\":\"other\"}"));
        assert!(d.kinds_gone.is_empty() && d.fields_gone.is_empty());
        assert_eq!(d.unknown_kinds.len(), 1);
    }

    #[test]
    fn goldens_are_picked_by_the_names_each_harness_used() {
        let goldens = vec![
            ("tool_decline".to_string(), shape("{\"type\":\"d\"}")),
            (
                "interrupted_by_sigint".to_string(),
                shape("{\"type\":\"i\"}"),
            ),
        ];
        assert!(pick_golden("tool_deny", &goldens).is_some_and(|s| s.kinds.contains_key("d")));
        assert!(pick_golden("interrupt", &goldens).is_some_and(|s| s.kinds.contains_key("i")));
        assert!(pick_golden("resume", &goldens).is_none());
    }

    #[test]
    fn merged_diffs_add_counts_and_keep_fields_unique() {
        let mut a = TranscriptDiff {
            unknown_kinds: BTreeMap::from([("x".into(), 1)]),
            fields_new: BTreeMap::from([("k".into(), vec!["f".into()])]),
            ..TranscriptDiff::default()
        };
        a.merge(TranscriptDiff {
            unknown_kinds: BTreeMap::from([("x".into(), 2)]),
            fields_new: BTreeMap::from([("k".into(), vec!["f".into(), "g".into()])]),
            kinds_gone: vec!["text: y".into()],
            ..TranscriptDiff::default()
        });
        assert_eq!(a.unknown_kinds["x"], 3);
        assert_eq!(a.fields_new["k"], ["f", "g"]);
        assert_eq!(a.kinds_gone, ["text: y"]);
    }
}
