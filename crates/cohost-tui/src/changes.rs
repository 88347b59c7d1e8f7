//! A turn's changed files under its answer: the headline, then one row per
//! file (status, path, `+N -M` or the binary size), one of them selected
//! while the user picks a file to review. Every row fits the width (a long
//! path loses its start), so file `k` is always the block's row `k + 1`.

use cohost_core::sanitize::inert_line;
use cohost_core::{ChangeStatus, FileChange, TurnChanges};
use ratatui::text::{Line, Span};

use crate::theme::Theme;
use crate::wrap::{truncate, truncate_start, width};

/// The changes block of one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangesCard {
    /// What the turn changed (from its `file_changes` event).
    pub changes: TurnChanges,
    /// The file picked for review, while the user is picking.
    pub selected: Option<usize>,
}

impl ChangesCard {
    /// A card for `changes`, nothing selected.
    pub fn new(changes: TurnChanges) -> ChangesCard {
        ChangesCard {
            changes,
            selected: None,
        }
    }

    /// How many files it lists.
    pub fn len(&self) -> usize {
        self.changes.files.len()
    }

    /// Whether it lists no file.
    pub fn is_empty(&self) -> bool {
        self.changes.files.is_empty()
    }
}

/// The status as one letter, as `git status --short` writes it.
pub fn status_letter(s: ChangeStatus) -> &'static str {
    match s {
        ChangeStatus::Added => "A",
        ChangeStatus::Modified => "M",
        ChangeStatus::Deleted => "D",
        ChangeStatus::Renamed => "R",
        ChangeStatus::ModeChanged => "T",
    }
}

/// The path a row shows: `old → new` for a rename, made inert.
pub fn shown_path(f: &FileChange) -> String {
    match (f.status, &f.old_path) {
        (ChangeStatus::Renamed, Some(old)) => {
            format!("{} → {}", inert_line(old), inert_line(&f.path))
        }
        _ => inert_line(&f.path),
    }
}

/// The counts of a row: `+3 -1` as two spans, or `binary, N bytes`, and
/// a mode change.
fn counts(f: &FileChange, t: Theme) -> Vec<Span<'static>> {
    let mut out = if f.binary {
        vec![Span::styled(format!("binary, {} bytes", f.size), t.dim())]
    } else {
        vec![
            Span::styled(format!("+{}", f.added), t.added()),
            Span::raw(" "),
            Span::styled(format!("-{}", f.removed), t.removed()),
        ]
    };
    if let (Some(a), Some(b)) = (&f.old_mode, &f.new_mode) {
        if a != b {
            out.push(Span::styled(format!(" mode {a} → {b}"), t.dim()));
        }
    }
    out
}

/// The card's rows at `width` columns (each fits; see the module doc).
pub fn card_lines(c: &ChangesCard, t: Theme, cols: usize) -> Vec<Line<'static>> {
    let focused = c.selected.is_some();
    let hint = if focused {
        " · ↑↓ file · Enter diff · Esc back"
    } else {
        " · Ctrl+F to review"
    };
    let head = truncate(&format!("± {}", c.changes.headline()), cols);
    let hint = truncate(hint, cols.saturating_sub(width(&head)));
    let mut out = vec![Line::from(vec![
        Span::styled(head, t.accent()),
        Span::styled(hint, t.dim()),
    ])];
    let rows: Vec<(String, Vec<Span<'static>>)> = c
        .changes
        .files
        .iter()
        .map(|f| (shown_path(f), counts(f, t)))
        .collect();
    // Paths in one column, as wide as the longest that fits beside the
    // widest counts: "  M " before it, two spaces after.
    let counts_w = rows
        .iter()
        .map(|(_, s)| s.iter().map(|s| width(&s.content)).sum::<usize>())
        .max()
        .unwrap_or(0);
    let longest = rows.iter().map(|(p, _)| width(p)).max().unwrap_or(0);
    let path_w = longest.min(cols.saturating_sub(4 + 2 + counts_w)).max(8);
    for (i, (f, (path, counts))) in c.changes.files.iter().zip(rows).enumerate() {
        let selected = c.selected == Some(i);
        let path = truncate_start(&path, path_w);
        let pad = " ".repeat(path_w.saturating_sub(width(&path)) + 2);
        let mark = if selected { "▸ " } else { "  " };
        let path_style = if selected { t.selected() } else { t.text() };
        let mut spans = vec![
            Span::styled(mark, t.accent()),
            Span::styled(status_letter(f.status), status_style(f.status, t)),
            Span::raw(" "),
            Span::styled(path, path_style),
            Span::raw(pad),
        ];
        spans.extend(counts);
        out.push(fit(spans, cols));
    }
    out
}

fn status_style(s: ChangeStatus, t: Theme) -> ratatui::style::Style {
    match s {
        ChangeStatus::Added => t.added(),
        ChangeStatus::Deleted => t.removed(),
        _ => t.warn(),
    }
}

/// `spans` cut to `max` columns (a narrow terminal cuts the counts last
/// of all, never into a second row).
fn fit(spans: Vec<Span<'static>>, max: usize) -> Line<'static> {
    let mut out = Vec::with_capacity(spans.len());
    let mut used = 0;
    for s in spans {
        let w = width(&s.content);
        if used + w <= max {
            used += w;
            out.push(s);
            continue;
        }
        let room = max.saturating_sub(used);
        if room > 0 {
            out.push(Span::styled(truncate(&s.content, room), s.style));
        }
        break;
    }
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, status: ChangeStatus, added: u64, removed: u64) -> FileChange {
        FileChange {
            path: path.into(),
            old_path: None,
            status,
            old_mode: None,
            new_mode: None,
            added,
            removed,
            binary: false,
            size: 0,
            hash: None,
            diff: None,
            diff_truncated: false,
        }
    }

    #[test]
    fn rows_fit_the_width_and_paths_keep_their_end() {
        let mut logo = file("assets/logo.png", ChangeStatus::Added, 0, 0);
        logo.binary = true;
        logo.size = 2048;
        let card = ChangesCard {
            changes: TurnChanges {
                turn: 2,
                files: vec![
                    file("src/a\x1b[2J.rs", ChangeStatus::Modified, 3, 1),
                    logo,
                    file(
                        "a/very/long/path/to/some/deeply/nested/module.rs",
                        ChangeStatus::Deleted,
                        0,
                        40,
                    ),
                ],
            },
            selected: Some(0),
        };
        let lines = card_lines(&card, Theme::new(false), 40);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text.len(), 4);
        assert!(text.iter().all(|l| width(l) <= 40), "{text:#?}");
        assert!(
            text[0].starts_with("± turn 2: 3 files changed, +3 -41"),
            "{text:#?}"
        );
        assert!(
            text[1].starts_with("▸ M src/a.rs "),
            "inert, selected: {text:#?}"
        );
        assert!(text[1].ends_with("+3 -1"), "{text:#?}");
        assert!(text[2].contains("binary, 2048 bytes"), "{text:#?}");
        assert!(
            text[3].contains("…") && text[3].contains("module.rs"),
            "{text:#?}"
        );
        assert!(text[3].ends_with("+0 -40"), "{text:#?}");
    }
}
