//! Transcripts people can read, made from a verified record and carrying
//! it: HTML (self-contained, no script), Markdown, JSON. Rendering is
//! deterministic, so verifying an export is verifying its record and then
//! rendering it again: any difference in the readable part is found, and
//! named by the entry whose rendering it falls in.

mod html;
mod json;
mod md;
mod sheet;
mod view;

use crate::entry::Entry;
use crate::error::RecordError;
use crate::text::unhtml;
use crate::verify::{verify, Options, Verified};
use sheet::{Rendered, Sheet};

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One self-contained HTML page.
    Html,
    /// Markdown.
    Markdown,
    /// JSON.
    Json,
}

impl Format {
    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Markdown => "md",
            Format::Json => "json",
        }
    }
}

fn render(format: Format, v: &Verified, record: &str) -> Rendered {
    let session = v
        .entries
        .first()
        .map(Entry::body_json)
        .and_then(|b| b.get("session").and_then(|s| s.as_str().map(String::from)))
        .unwrap_or_default();
    let host_key = crate::fingerprint(&v.host_key);
    let sheet = Sheet {
        session: &session,
        host_key: &host_key,
        complete: v.complete,
        entries: &v.entries,
        record,
    };
    match format {
        Format::Html => html::render(&sheet),
        Format::Markdown => md::render(&sheet),
        Format::Json => json::render(&sheet),
    }
}

/// The whole entries of a record: a torn last line left out.
fn whole(bytes: &[u8]) -> &[u8] {
    match bytes.iter().rposition(|b| *b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &[],
    }
}

/// A transcript of the record in `bytes`, which must verify under `opts`
/// (with `partial`, a running session's record exports what it has).
pub fn export(bytes: &[u8], format: Format, opts: &Options) -> Result<String, RecordError> {
    let v = verify(bytes, opts)?;
    let record = std::str::from_utf8(whole(bytes))
        .map_err(|_| RecordError::NoRecord("not UTF-8 text".into()))?;
    Ok(render(format, &v, record).text)
}

/// What a verified file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A record file.
    Record,
    /// An export of this format.
    Export(Format),
}

/// The embedded record of an export, and its format; `None` when `text`
/// is not an export.
fn embedded(text: &str) -> Option<Result<(Format, String), RecordError>> {
    let missing = |f: &str| {
        Err(RecordError::NoRecord(format!(
            "a {f} export whose embedded record is missing"
        )))
    };
    if text.starts_with("<!DOCTYPE html>") {
        let Some(start) = text.rfind(html::RECORD_OPEN) else {
            return Some(missing("HTML"));
        };
        let rest = &text[start + html::RECORD_OPEN.len()..];
        return Some(match rest.find(html::RECORD_CLOSE) {
            Some(end) => Ok((Format::Html, unhtml(&rest[..end]))),
            None => missing("HTML"),
        });
    }
    if text.starts_with("# cohost session ") {
        let Some(start) = text.rfind(md::RECORD_FENCE) else {
            return Some(missing("Markdown"));
        };
        let rest = &text[start + md::RECORD_FENCE.len()..];
        return Some(match rest.strip_suffix("````\n") {
            Some(record) => Ok((Format::Markdown, record.to_owned())),
            None => missing("Markdown"),
        });
    }
    if text.starts_with(&format!("{{\"format\":\"{}\"", json::FORMAT)) {
        let Some(start) = text.rfind("\n\"record\": ") else {
            return Some(missing("JSON"));
        };
        let rest = text[start + 11..].trim_end().trim_end_matches('}');
        return Some(match serde_json::from_str::<String>(rest.trim_end()) {
            Ok(record) => Ok((Format::Json, record)),
            Err(_) => missing("JSON"),
        });
    }
    None
}

/// Verify a record file or an export: an export's embedded record must
/// verify, and its transcript must be exactly the one that record renders.
pub fn verify_any(bytes: &[u8], opts: &Options) -> Result<(Verified, Kind), RecordError> {
    let as_export = std::str::from_utf8(bytes).ok().and_then(embedded);
    let Some(found) = as_export else {
        return Ok((verify(bytes, opts)?, Kind::Record));
    };
    let (format, record) = found?;
    // The embedded record is whole entries only.
    let v = verify(
        record.as_bytes(),
        &Options {
            partial: opts.partial,
            ..opts.clone()
        },
    )?;
    let again = render(format, &v, &record);
    if again.text.as_bytes() != bytes {
        let at = again
            .text
            .bytes()
            .zip(bytes.iter())
            .position(|(a, b)| a != *b)
            .unwrap_or_else(|| again.text.len().min(bytes.len()));
        let entry = again
            .spans
            .iter()
            .find(|(_, s, e)| (*s..*e).contains(&at))
            .map(|(seq, _, _)| *seq);
        let place = match entry {
            Some(n) => format!("entry {n}"),
            None if again.spans.first().is_some_and(|(_, s, _)| at < *s) => "its header".into(),
            None => "its footer or embedded record".into(),
        };
        return Err(RecordError::Transcript { place, entry });
    }
    Ok((v, Kind::Export(format)))
}
