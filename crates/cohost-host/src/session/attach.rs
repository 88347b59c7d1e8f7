//! Files and images attached to a prompt (`--file PATH[:A-B]`, `--image
//! PATH`, the local API's `files` and `images`), read once here for every
//! front end: relative paths are the session's cwd's, a line range keeps
//! only those lines, an image is sniffed by its bytes and base64-encoded.
//! What a provider cannot take is refused with UNSUPPORTED_MODE and a fix.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use cohost_core::{ContextFile, PromptImage, PromptInput, ProviderDescriptor};

mod error;
pub use error::AttachError;

/// Largest attached text file (the whole file, before a range is taken).
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// Largest attached image.
pub const MAX_IMAGE_BYTES: u64 = 20 << 20;

/// `PATH`, or `PATH:A-B` / `PATH:A` (1-based, inclusive lines).
pub fn parse_file_spec(spec: &str) -> Result<(PathBuf, Option<(usize, usize)>), AttachError> {
    let bad = || AttachError::BadRange {
        spec: spec.to_owned(),
    };
    let Some((path, range)) = spec.rsplit_once(':') else {
        return Ok((PathBuf::from(spec), None));
    };
    if range.is_empty() || !range.chars().all(|c| c.is_ascii_digit() || c == '-') {
        // A colon that is part of the file name.
        return Ok((PathBuf::from(spec), None));
    }
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (a, b),
        None => (range, range),
    };
    let (a, b) = (
        a.parse::<usize>().map_err(|_| bad())?,
        b.parse::<usize>().map_err(|_| bad())?,
    );
    if a == 0 || a > b || path.is_empty() {
        return Err(bad());
    }
    Ok((PathBuf::from(path), Some((a, b))))
}

fn resolve(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

fn read(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>, AttachError> {
    let meta = std::fs::metadata(path).map_err(|source| AttachError::Missing {
        path: path.to_path_buf(),
        what,
        source,
    })?;
    if !meta.is_file() {
        return Err(AttachError::NotAFile {
            path: path.to_path_buf(),
            what,
        });
    }
    if meta.len() > max {
        return Err(AttachError::TooLarge {
            path: path.to_path_buf(),
            what,
            size: meta.len(),
            max,
        });
    }
    std::fs::read(path).map_err(|source| AttachError::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}

/// One `--file` spec as a context file with its content (only the range's
/// lines when one is given). The path stays as the user wrote it.
pub fn read_file(cwd: &Path, spec: &str) -> Result<ContextFile, AttachError> {
    let (path, range) = parse_file_spec(spec)?;
    let full = resolve(cwd, &path);
    let bytes = read(&full, MAX_FILE_BYTES, "text file")?;
    let text = String::from_utf8(bytes).map_err(|source| AttachError::NotText {
        path: path.clone(),
        source,
    })?;
    let content = match range {
        None => text,
        Some((a, b)) => {
            let lines: Vec<&str> = text.lines().collect();
            if a > lines.len() {
                return Err(AttachError::PastTheEnd {
                    path,
                    lines: lines.len(),
                    start: a,
                });
            }
            lines[a - 1..b.min(lines.len())].join("\n")
        }
    };
    Ok(ContextFile {
        path,
        content: Some(content),
    })
}

/// The media type of an image, from its first bytes.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// One `--image` path, read and encoded.
pub fn read_image(cwd: &Path, path: &Path) -> Result<PromptImage, AttachError> {
    let full = resolve(cwd, path);
    let bytes = read(&full, MAX_IMAGE_BYTES, "image")?;
    let media_type = sniff_image(&bytes).ok_or_else(|| AttachError::NotAnImage {
        path: path.to_path_buf(),
    })?;
    Ok(PromptImage {
        path: full,
        media_type: media_type.to_string(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// UNSUPPORTED_MODE when `d` takes no images.
pub fn check_images(d: &ProviderDescriptor, images: &[PromptImage]) -> Result<(), AttachError> {
    if images.is_empty() || d.capabilities.images {
        return Ok(());
    }
    Err(AttachError::NoImages {
        provider: d.id.clone(),
    })
}

/// A prompt for provider `d` running in `cwd`, with `files` (`PATH[:A-B]`
/// specs) and `images` read and checked (see [`crate::session::OpenSession::input`]).
pub fn prompt_input(
    d: &ProviderDescriptor,
    cwd: &Path,
    text: impl Into<String>,
    files: &[String],
    images: &[PathBuf],
) -> Result<PromptInput, AttachError> {
    let mut input = PromptInput::text(text);
    for spec in files {
        input.context_files.push(read_file(cwd, spec)?);
    }
    for path in images {
        input.images.push(read_image(cwd, path)?);
    }
    check_images(d, &input.images)?;
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_specs_and_ranges() {
        assert_eq!(parse_file_spec("a.rs").unwrap(), ("a.rs".into(), None));
        assert_eq!(
            parse_file_spec("src/a.rs:3-5").unwrap(),
            ("src/a.rs".into(), Some((3, 5)))
        );
        assert_eq!(
            parse_file_spec("a.rs:7").unwrap(),
            ("a.rs".into(), Some((7, 7)))
        );
        assert_eq!(
            parse_file_spec("odd:name").unwrap(),
            ("odd:name".into(), None)
        );
        for bad in ["a.rs:0-2", "a.rs:5-3", "a.rs:1-", "a.rs:-"] {
            let e = parse_file_spec(bad).unwrap_err();
            assert_eq!(e.code(), cohost_core::ErrorCode::ConfigInvalid, "{bad}");
        }
    }

    #[test]
    fn a_range_keeps_only_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        let f = read_file(dir.path(), "f.txt:2-3").unwrap();
        assert_eq!(f.content.as_deref(), Some("two\nthree"));
        assert_eq!(f.path, PathBuf::from("f.txt"));
        let whole = read_file(dir.path(), "f.txt").unwrap();
        assert_eq!(whole.content.as_deref(), Some("one\ntwo\nthree\nfour\n"));
        assert!(read_file(dir.path(), "f.txt:9-10").is_err());
        assert!(read_file(dir.path(), "missing.txt").is_err());
    }

    #[test]
    fn images_are_sniffed_and_encoded() {
        let dir = tempfile::tempdir().unwrap();
        let png = b"\x89PNG\r\n\x1a\nrest";
        std::fs::write(dir.path().join("i.png"), png).unwrap();
        let img = read_image(dir.path(), Path::new("i.png")).unwrap();
        assert_eq!(img.media_type, "image/png");
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(&img.data)
                .unwrap(),
            png
        );
        std::fs::write(dir.path().join("t.png"), "not an image").unwrap();
        let e =
            cohost_core::CohostError::from(read_image(dir.path(), Path::new("t.png")).unwrap_err());
        assert!(e.message.contains("not a PNG"), "{}", e.message);
    }
}
