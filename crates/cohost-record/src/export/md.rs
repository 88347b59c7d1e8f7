//! The Markdown transcript: remote text only inside fences (inert in every
//! renderer: no HTML, no links), names and titles backslash-escaped; the
//! record in a final `cohost-record` fence.

use super::sheet::{Rendered, Sheet};
use super::view::{view, Part};
use crate::text::{md_fence, md_inline, utc};

/// The info string of the fence that carries the record.
pub(crate) const RECORD_FENCE: &str = "````cohost-record\n";

fn part(out: &mut String, p: &Part) {
    match p {
        Part::Prose(t) => out.push_str(&md_fence("text", t)),
        Part::Code(t) => out.push_str(&md_fence("json", t)),
        Part::Diff { file, diff } => {
            out.push_str(&format!("**{}**\n\n", md_inline(file)));
            out.push_str(&md_fence("diff", diff));
        }
        Part::Image { media_type, .. } => {
            // Markdown viewers load no data: images; the image is in the
            // record (and in the HTML export).
            out.push_str(&format!("*(attached image: {})*\n", md_inline(media_type)));
        }
        Part::Facts(pairs) => {
            for (k, v) in pairs {
                out.push_str(&format!("- {}: {}\n", md_inline(k), md_inline(v)));
            }
        }
    }
    out.push('\n');
}

/// The document for `sheet`.
pub(crate) fn render(sheet: &Sheet<'_>) -> Rendered {
    let mut out = format!(
        "# cohost session {}\n\n{}\n\n",
        md_inline(sheet.session),
        md_inline(&sheet.summary())
    );
    let mut spans = Vec::new();
    for e in sheet.entries {
        let start = out.len();
        let v = view(e);
        let author = e
            .author
            .as_deref()
            .map(|a| format!("{} · ", md_inline(a)))
            .unwrap_or_default();
        // Verified before rendering: the author's own signature holds, and
        // the key is base64url (letters, digits, `-`, `_`), inert in a code
        // span and copied whole from it.
        let signer = e
            .author_public_key
            .as_deref()
            .map(|k| format!("signed by key `{k}` · "))
            .unwrap_or_default();
        out.push_str(&format!(
            "## #{} · {} · {author}{signer}{}\n\n",
            e.seq,
            utc(e.ts),
            md_inline(&v.title)
        ));
        for p in &v.parts {
            part(&mut out, p);
        }
        spans.push((e.seq, start, out.len()));
    }
    out.push_str(&format!("---\n\n{}\n\n", md_inline(&sheet.footer())));
    out.push_str(RECORD_FENCE);
    out.push_str(sheet.record);
    out.push_str("````\n");
    Rendered { text: out, spans }
}
