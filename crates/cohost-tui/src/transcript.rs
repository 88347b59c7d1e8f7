//! The conversation as blocks (prompts, answers, reasoning, tool cards,
//! a turn's changed files, notices, errors, chat), each wrapped once per width and cached, so a
//! frame costs the visible rows and the block that changed.

use cohost_core::{ApprovalOption, DecisionOrigin, ToolKind, ToolStatus};
use ratatui::text::{Line, Span};

use crate::changes::{card_lines, ChangesCard};
use crate::stream::MdStream;
use crate::theme::Theme;
use crate::wrap::{truncate, wrap_into};

/// Where a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolState {
    /// Called, not finished.
    Running,
    /// Waiting for an approval decision.
    Awaiting,
    /// Finished.
    Done(ToolStatus),
}

/// One tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCard {
    /// The agent's id for the call.
    pub tool_id: String,
    /// Tool name.
    pub name: String,
    /// Normalized kind.
    pub kind: ToolKind,
    /// One line about the input.
    pub summary: String,
    /// Where it stands.
    pub state: ToolState,
    /// The decision and who made it, once decided.
    pub decided: Option<(ApprovalOption, String)>,
    /// The start of the output.
    pub output: String,
}

/// What a block shows.
#[derive(Debug, Clone)]
pub enum BlockKind {
    /// A prompt: who asked (`you`, `host`, a co-driver) and what.
    Prompt {
        /// Who asked.
        who: String,
        /// The prompt.
        text: String,
    },
    /// The answer, streamed markdown.
    Answer(MdStream),
    /// The model's reasoning (collapsed unless expanded).
    Reasoning(String),
    /// A tool call.
    Tool(ToolCard),
    /// The files a turn changed (its `file_changes` event).
    Changes(ChangesCard),
    /// Something cohost says (dim).
    Notice(String),
    /// An error and its fix.
    Error {
        /// What happened.
        message: String,
        /// What to do.
        fix: Option<String>,
    },
    /// A chat line in a shared room.
    Chat {
        /// Who said it.
        from: String,
        /// What.
        text: String,
    },
}

/// A block and its wrapped rows.
#[derive(Debug, Clone)]
pub struct Block {
    /// What it shows.
    pub kind: BlockKind,
    /// The room member it belongs to (`None`: the whole conversation's,
    /// shown in every member's tab).
    pub member: Option<String>,
    /// A member's heading (`── name ──`): only the "all" tab needs it, a
    /// member's own tab is under its name already.
    pub heading: bool,
    rows: Vec<Line<'static>>,
    width: usize,
    dirty: bool,
}

impl Block {
    fn new(kind: BlockKind) -> Block {
        Block {
            kind,
            member: None,
            heading: false,
            rows: Vec::new(),
            width: 0,
            dirty: true,
        }
    }

    /// Whether the block is quiet (notices and chat lines stay together,
    /// with no blank row between them).
    fn quiet(&self) -> bool {
        matches!(self.kind, BlockKind::Notice(_) | BlockKind::Chat { .. })
    }

    fn layout(&mut self, width: usize, theme: Theme, expanded: bool) {
        if let BlockKind::Answer(md) = &mut self.kind {
            md.layout(width, theme);
            return;
        }
        if !self.dirty && self.width == width {
            return;
        }
        self.dirty = false;
        self.width = width;
        self.rows.clear();
        for l in self.lines(theme, expanded, width) {
            wrap_into(&l, width, &mut self.rows);
        }
    }

    fn rows(&self) -> (&[Line<'static>], &[Line<'static>]) {
        match &self.kind {
            BlockKind::Answer(md) => md.rows(),
            _ => (&self.rows, &[]),
        }
    }

    fn lines(&self, t: Theme, expanded: bool, width: usize) -> Vec<Line<'static>> {
        match &self.kind {
            BlockKind::Prompt { who, text } => {
                let mut out = Vec::new();
                for (i, l) in text.lines().enumerate() {
                    let head = if i == 0 {
                        format!("{who} ❯ ")
                    } else {
                        " ".repeat(who.chars().count() + 3)
                    };
                    out.push(Line::from(vec![
                        Span::styled(head, t.accent()),
                        Span::styled(l.to_string(), t.accent()),
                    ]));
                }
                out
            }
            BlockKind::Answer(_) => Vec::new(),
            BlockKind::Reasoning(text) if expanded => text
                .lines()
                .map(|l| Line::styled(format!("┊ {l}"), t.dim()))
                .collect(),
            BlockKind::Reasoning(text) => {
                let words = text.split_whitespace().count();
                vec![Line::styled(
                    format!("▸ thinking ({words} words, Ctrl+O to show)"),
                    t.dim(),
                )]
            }
            BlockKind::Tool(c) => tool_lines(c, t, width),
            BlockKind::Changes(c) => card_lines(c, t, width),
            BlockKind::Notice(text) => text
                .lines()
                .map(|l| Line::styled(format!("· {l}"), t.dim()))
                .collect(),
            BlockKind::Error { message, fix } => {
                let mut out = vec![Line::styled(format!("✗ {message}"), t.error())];
                if let Some(fix) = fix {
                    out.push(Line::from(vec![
                        Span::styled("  fix: ", t.warn()),
                        Span::raw(fix.clone()),
                    ]));
                }
                out
            }
            BlockKind::Chat { from, text } => vec![Line::from(vec![
                Span::styled(format!("<{from}> "), t.warn()),
                Span::raw(text.clone()),
            ])],
        }
    }
}

/// The icon and word for a tool's state.
pub fn state_label(s: ToolState) -> (&'static str, &'static str) {
    match s {
        ToolState::Running => ("⋯", "running"),
        ToolState::Awaiting => ("?", "awaiting approval"),
        ToolState::Done(ToolStatus::Ok) => ("✓", "ok"),
        ToolState::Done(ToolStatus::Error) => ("✗", "failed"),
        ToolState::Done(ToolStatus::Denied) => ("⊘", "denied"),
    }
}

/// How an option reads in a sentence.
pub fn option_words(o: ApprovalOption) -> &'static str {
    match o {
        ApprovalOption::AllowOnce => "allowed once",
        ApprovalOption::AllowAlways => "allowed always",
        ApprovalOption::RejectOnce => "denied",
        ApprovalOption::RejectAlways => "denied always",
    }
}

/// Who an origin is, for "allowed by …".
pub fn origin_words(o: DecisionOrigin, local: &str) -> String {
    match o {
        DecisionOrigin::User => local.to_string(),
        DecisionOrigin::Policy => "policy".into(),
        DecisionOrigin::Remote => "the host".into(),
        DecisionOrigin::Deadline => "the deadline".into(),
        DecisionOrigin::Cancelled => "the interrupt".into(),
        DecisionOrigin::Crash => "the agent's exit".into(),
        DecisionOrigin::Other => "someone".into(),
    }
}

fn tool_lines(c: &ToolCard, t: Theme, width: usize) -> Vec<Line<'static>> {
    let (icon, word) = state_label(c.state);
    let style = match c.state {
        ToolState::Running => t.dim(),
        ToolState::Awaiting => t.warn(),
        ToolState::Done(ToolStatus::Ok) => t.ok(),
        ToolState::Done(_) => t.error(),
    };
    let kind = serde_json::to_value(c.kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{icon} "), style),
        Span::styled(c.name.clone(), t.accent()),
        Span::styled(format!(" {kind} · {word}"), t.dim()),
    ])];
    if !c.summary.is_empty() {
        out.push(Line::from(vec![
            Span::styled("  ⎿ ", t.dim()),
            Span::raw(truncate(&c.summary, width.saturating_sub(4).max(8))),
        ]));
    }
    if let Some((option, who)) = &c.decided {
        out.push(Line::styled(
            format!("  ⎿ {} by {who}", option_words(*option)),
            if option.is_allow() { t.ok() } else { t.error() },
        ));
    }
    for l in c.output.lines().filter(|l| !l.trim().is_empty()).take(3) {
        out.push(Line::styled(
            format!("  │ {}", truncate(l, width.saturating_sub(4).max(8))),
            t.dim(),
        ));
    }
    out
}

/// One line about a tool's input: the path, command, pattern or URL when
/// there is one, else the compact JSON.
pub fn summarize_input(input: &serde_json::Value) -> String {
    const KEYS: [&str; 9] = [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "file",
        "description",
    ];
    if let Some(obj) = input.as_object() {
        for k in KEYS {
            if let Some(v) = obj.get(k) {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                return format!("{k}: {}", v.replace('\n', " "));
            }
        }
        if obj.is_empty() {
            return String::new();
        }
    }
    truncate(&input.to_string(), 200)
}

/// The whole conversation.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    blocks: Vec<Block>,
    /// Reasoning blocks shown in full.
    pub expanded: bool,
    width: usize,
    /// The room member whose tab is on screen (`None`: every block).
    view: Option<String>,
}

impl Transcript {
    /// Add a block at the end; returns its index.
    pub fn push(&mut self, kind: BlockKind) -> usize {
        self.blocks.push(Block::new(kind));
        self.blocks.len() - 1
    }

    /// The blocks.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Give the untagged blocks from index `from` on to room member
    /// `member` (the blocks its event just added).
    pub fn tag(&mut self, from: usize, member: &str) {
        for b in self.blocks.iter_mut().skip(from) {
            if b.member.is_none() {
                b.member = Some(member.to_owned());
            }
        }
    }

    /// Add member `member`'s heading (shown in the "all" tab only).
    pub fn push_heading(&mut self, text: String, member: &str) -> usize {
        let i = self.push(BlockKind::Notice(text));
        if let Some(b) = self.blocks.get_mut(i) {
            b.member = Some(member.to_owned());
            b.heading = true;
        }
        i
    }

    /// Show only member `view`'s blocks and the conversation's own
    /// (`None`: every block, the "all" tab).
    pub fn set_view(&mut self, view: Option<String>) {
        self.view = view;
    }

    /// The member whose tab is on screen, if one is.
    pub fn view(&self) -> Option<&str> {
        self.view.as_deref()
    }

    /// Whether block `b` is on screen in the current tab.
    fn shown(&self, b: &Block) -> bool {
        match &self.view {
            None => true,
            Some(v) => !b.heading && b.member.as_ref().is_none_or(|m| m == v),
        }
    }

    /// Whether block `i` is on screen in the current tab.
    pub fn is_shown(&self, i: usize) -> bool {
        self.blocks.get(i).is_some_and(|b| self.shown(b))
    }

    /// Change block `i` (marks it for re-wrapping).
    pub fn edit(&mut self, i: usize) -> Option<&mut BlockKind> {
        let b = self.blocks.get_mut(i)?;
        b.dirty = true;
        Some(&mut b.kind)
    }

    /// The index of the tool card for `tool_id`, searching from the end.
    pub fn tool(&self, tool_id: &str) -> Option<usize> {
        self.blocks
            .iter()
            .rposition(|b| matches!(&b.kind, BlockKind::Tool(c) if c.tool_id == tool_id))
    }

    /// The changes card in block `i`, if that block is one.
    pub fn changes(&self, i: usize) -> Option<&ChangesCard> {
        match &self.blocks.get(i)?.kind {
            BlockKind::Changes(c) if !c.is_empty() => Some(c),
            _ => None,
        }
    }

    /// The nearest changes block before `i` (`back`) or after it.
    pub fn next_changes(&self, i: usize, back: bool) -> Option<usize> {
        let pick = |j: &usize| self.is_shown(*j) && self.changes(*j).is_some();
        if back {
            (0..i.min(self.blocks.len())).rev().find(pick)
        } else {
            (i + 1..self.blocks.len()).find(pick)
        }
    }

    /// Rows of block `i` at the last layout.
    pub fn block_rows(&self, i: usize) -> usize {
        self.blocks.get(i).map_or(0, |b| {
            let (a, t) = b.rows();
            a.len() + t.len()
        })
    }

    /// Rows below block `i` (the later blocks and their separators), as
    /// [`Transcript::window`] counts them from the bottom.
    pub fn rows_below(&self, i: usize) -> usize {
        let shown: Vec<usize> = (i..self.blocks.len())
            .filter(|j| *j == i || self.is_shown(*j))
            .collect();
        let later: usize = shown.iter().skip(1).map(|j| self.block_rows(*j)).sum();
        let seps = shown
            .windows(2)
            .filter(|w| self.separated(w[0], w[1]))
            .count();
        later + seps
    }

    /// Show or hide reasoning in full.
    pub fn toggle_reasoning(&mut self) {
        self.expanded = !self.expanded;
        for b in &mut self.blocks {
            if matches!(b.kind, BlockKind::Reasoning(_)) {
                b.dirty = true;
            }
        }
    }

    /// Wrap what changed at `width`.
    pub fn layout(&mut self, width: usize, theme: Theme) {
        self.width = width;
        let expanded = self.expanded;
        for b in &mut self.blocks {
            b.layout(width, theme, expanded);
        }
    }

    /// The rows to show in a window of `height` rows, `scroll` rows up from
    /// the bottom (clamped; the clamped value is returned). Walks blocks
    /// from the end and stops once the window is full. A blank row follows
    /// every block but the last.
    pub fn window(&self, height: usize, scroll: usize) -> (Vec<&Line<'static>>, usize) {
        let total = self.total_rows();
        let scroll = scroll.min(total.saturating_sub(height));
        let mut need = height + scroll;
        let mut rev: Vec<&Line<'static>> = Vec::with_capacity(need);
        static BLANK: Line<'static> = Line {
            spans: Vec::new(),
            style: ratatui::style::Style::new(),
            alignment: None,
        };
        // The block below the one being walked, in this tab.
        let mut below: Option<usize> = None;
        for (i, b) in self.blocks.iter().enumerate().rev() {
            if need == 0 {
                break;
            }
            if !self.shown(b) {
                continue;
            }
            if below.is_some_and(|j| self.separated(i, j)) {
                rev.push(&BLANK);
                need -= 1;
            }
            below = Some(i);
            let (a, t) = b.rows();
            for l in t.iter().rev().chain(a.iter().rev()) {
                if need == 0 {
                    break;
                }
                rev.push(l);
                need -= 1;
            }
        }
        let skip = scroll.min(rev.len());
        let mut rows: Vec<&Line<'static>> = rev.into_iter().skip(skip).collect();
        rows.truncate(height);
        rows.reverse();
        (rows, scroll)
    }

    /// Rows in all, with separators.
    pub fn total_rows(&self) -> usize {
        let shown: Vec<usize> = (0..self.blocks.len())
            .filter(|i| self.is_shown(*i))
            .collect();
        let n: usize = shown.iter().map(|i| self.block_rows(*i)).sum();
        let seps = shown
            .windows(2)
            .filter(|w| self.separated(w[0], w[1]))
            .count();
        n + seps
    }

    /// Whether a blank row parts block `i` from block `j` shown below it
    /// (consecutive notices and chat lines stay together).
    fn separated(&self, i: usize, j: usize) -> bool {
        let quiet = |k: usize| self.blocks.get(k).is_some_and(Block::quiet);
        !(quiet(i) && quiet(j))
    }
}
