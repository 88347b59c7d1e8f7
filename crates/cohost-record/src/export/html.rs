//! The HTML transcript: one self-contained page, no script, no external
//! resource, a Content-Security-Policy that forbids both, every remote
//! string escaped; the record rides along in a `<pre hidden>` element
//! (text, never executed) so `cohost record verify` can check the page.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::sheet::{Rendered, Sheet};
use super::view::{view, Part};
use crate::entry::sha256;
use crate::text::{html, utc};

/// The page's only style, allowed by hash in the CSP.
const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}\
header,footer{color:#555;font-size:13px}\
section{border-top:1px solid #ddd;padding:.5rem 0}\
h2{font-size:14px;margin:.2rem 0;color:#444}\
.author{font-weight:600;color:#0a5}\
.prose{white-space:pre-wrap}\
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;white-space:pre-wrap}\
.add{color:#080}.del{color:#b00}\
img{max-width:100%}\
dl{display:grid;grid-template-columns:max-content auto;gap:0 1rem;margin:.2rem 0}dt{color:#666}dd{margin:0}";

/// Where the embedded record starts (the verifier looks for it).
pub(crate) const RECORD_OPEN: &str = "<pre id=\"cohost-record\" hidden>";
/// Where it ends.
pub(crate) const RECORD_CLOSE: &str = "</pre>";

fn csp() -> String {
    let hash = STANDARD.encode(sha256(STYLE.as_bytes()));
    format!(
        "default-src 'none'; img-src data:; style-src 'sha256-{hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

fn part(out: &mut String, p: &Part) {
    match p {
        Part::Prose(t) => {
            out.push_str("<div class=\"prose\">");
            out.push_str(&html(t));
            out.push_str("</div>\n");
        }
        Part::Code(t) => {
            out.push_str("<pre>");
            out.push_str(&html(t));
            out.push_str("</pre>\n");
        }
        Part::Diff { file, diff } => {
            out.push_str("<h3>");
            out.push_str(&html(file));
            out.push_str("</h3>\n<pre class=\"diff\">");
            for line in diff.lines() {
                let class = match line.as_bytes().first() {
                    Some(b'+') if !line.starts_with("+++") => Some("add"),
                    Some(b'-') if !line.starts_with("---") => Some("del"),
                    _ => None,
                };
                match class {
                    Some(c) => {
                        out.push_str("<span class=\"");
                        out.push_str(c);
                        out.push_str("\">");
                        out.push_str(&html(line));
                        out.push_str("</span>\n");
                    }
                    None => {
                        out.push_str(&html(line));
                        out.push('\n');
                    }
                }
            }
            out.push_str("</pre>\n");
        }
        Part::Image { media_type, data } => {
            // Both were checked against an allow-list and the base64
            // alphabet; escaped all the same.
            out.push_str("<img alt=\"attached image\" src=\"data:");
            out.push_str(&html(media_type));
            out.push_str(";base64,");
            out.push_str(&html(data));
            out.push_str("\">\n");
        }
        Part::Facts(pairs) => {
            out.push_str("<dl>");
            for (k, v) in pairs {
                out.push_str("<dt>");
                out.push_str(&html(k));
                out.push_str("</dt><dd>");
                out.push_str(&html(v));
                out.push_str("</dd>");
            }
            out.push_str("</dl>\n");
        }
    }
}

/// The page for `sheet`.
pub(crate) fn render(sheet: &Sheet<'_>) -> Rendered {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    out.push_str(&csp());
    out.push_str("\">\n<meta name=\"referrer\" content=\"no-referrer\">\n");
    out.push_str("<meta name=\"generator\" content=\"cohost-export-v1\">\n<title>cohost session ");
    out.push_str(&html(sheet.session));
    out.push_str("</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<header><h1>cohost session ");
    out.push_str(&html(sheet.session));
    out.push_str("</h1>\n<p>");
    out.push_str(&html(&sheet.summary()));
    out.push_str("</p></header>\n<main>\n");
    let mut spans = Vec::new();
    for e in sheet.entries {
        let start = out.len();
        let v = view(e);
        out.push_str(&format!(
            "<section id=\"e{}\">\n<h2>#{} · {} · ",
            e.seq,
            e.seq,
            utc(e.ts)
        ));
        if let Some(a) = &e.author {
            out.push_str("<span class=\"author\">");
            out.push_str(&html(a));
            out.push_str("</span> · ");
        }
        if let Some(k) = &e.author_public_key {
            // Verified before rendering: the author's own signature holds.
            out.push_str("signed by key <code>");
            out.push_str(&html(k));
            out.push_str("</code> · ");
        }
        out.push_str(&html(&v.title));
        out.push_str("</h2>\n");
        for p in &v.parts {
            part(&mut out, p);
        }
        out.push_str("</section>\n");
        spans.push((e.seq, start, out.len()));
    }
    out.push_str("</main>\n<footer><p>");
    out.push_str(&html(&sheet.footer()));
    out.push_str("</p></footer>\n");
    out.push_str(RECORD_OPEN);
    out.push_str(&html(sheet.record));
    out.push_str(RECORD_CLOSE);
    out.push_str("\n</body>\n</html>\n");
    Rendered { text: out, spans }
}
