//! Small text helpers the renderers share: times, inert text, escaping.

/// `2026-12-06 01:17:44Z` from milliseconds since the Unix epoch (UTC; no
/// time zone database, so every host renders the same bytes).
pub(crate) fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to (year, month, day): H. Hinnant's algorithm.
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Whether `c` must not reach a reader as itself: control characters
/// (terminal escapes) and the bidirectional overrides that make text read
/// otherwise than it is ("trojan source").
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// `text` with every unsafe character replaced by U+FFFD.
pub(crate) fn inert(text: &str) -> String {
    text.chars()
        .map(|c| if unsafe_char(c) { '\u{fffd}' } else { c })
        .collect()
}

/// `text` made inert and escaped for HTML text and attribute values.
pub(crate) fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if unsafe_char(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The inverse of [`html`]'s escapes (for the embedded record, which holds
/// no unsafe characters: its JSON escapes them).
pub(crate) fn unhtml(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `text` inert on one line, with Markdown's punctuation backslash-escaped
/// (for headings and list items; longer text goes into fences).
pub(crate) fn md_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in inert(text).chars() {
        match c {
            '\n' | '\t' => out.push(' '),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A fenced block holding `text` verbatim (inert): the fence is longer
/// than any run of backticks inside, so nothing in it is Markdown or HTML.
pub(crate) fn md_fence(info: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = inert(text);
    let nl = if body.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{info}\n{body}{nl}{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_calendar_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(utc(1_796_001_464_000), "2026-11-30 01:17:44Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00Z");
    }

    #[test]
    fn html_escapes_and_defuses() {
        assert_eq!(
            html("<script>\"'&\u{1b}[2J\u{202e}"),
            "&lt;script&gt;&quot;&#39;&amp;\u{fffd}[2J\u{fffd}"
        );
        assert_eq!(unhtml(&html("a<b>&\"'")), "a<b>&\"'");
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        let f = md_fence("text", "a ``` b");
        assert!(f.starts_with("````text\n"), "{f}");
        assert!(f.ends_with("\n````\n"), "{f}");
    }
}
