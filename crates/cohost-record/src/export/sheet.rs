//! What the renderers work from and what they give back.

use crate::entry::Entry;

/// What every renderer works from.
pub(crate) struct Sheet<'a> {
    pub(crate) session: &'a str,
    pub(crate) host_key: &'a str,
    pub(crate) complete: bool,
    pub(crate) entries: &'a [Entry],
    /// The record's bytes (whole entries), embedded as they are.
    pub(crate) record: &'a str,
}

impl Sheet<'_> {
    pub(crate) fn summary(&self) -> String {
        format!(
            "{} entries{}, signed by host key {}",
            self.entries.len(),
            if self.complete {
                ""
            } else {
                " (the session had not ended)"
            },
            self.host_key
        )
    }

    pub(crate) fn footer(&self) -> String {
        "This transcript carries its signed record: `cohost record verify FILE` checks both (see the cohost book, \"Record and export\").".to_owned()
    }
}

/// A rendered transcript and where each entry's part of it is.
pub(crate) struct Rendered {
    pub(crate) text: String,
    /// (entry seq, start, end) byte ranges.
    pub(crate) spans: Vec<(u64, usize, usize)>,
}
