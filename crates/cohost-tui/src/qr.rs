//! The web link as a QR code in the terminal (`/qr`, and `cohost share
//! --qr`): a phone scans it to open the room's web page. Drawn with half
//! blocks, two modules a character cell, light modules (and the quiet zone)
//! as the terminal's foreground: right on a dark terminal; most phone
//! scanners also read the inverted code a light terminal shows.

use qrcode::{Color, EcLevel, QrCode};

/// Modules of quiet zone around the code (the standard asks 4; 2 keeps a
/// long invite's code within 80 columns and phones read it).
const QUIET: usize = 2;

/// Why there is no code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrError(pub String);

impl std::fmt::Display for QrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no QR code for this link: {}", self.0)
    }
}

impl std::error::Error for QrError {}

/// `text` as a QR code: lines of half blocks, every line as wide.
pub fn render(text: &str) -> Result<String, QrError> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::L)
        .map_err(|e| QrError(e.to_string()))?;
    let width = code.width();
    let colors = code.to_colors();
    let side = width + 2 * QUIET;
    // Light (or outside the code) at module (x, y) of the padded square.
    let light = |x: usize, y: usize| -> bool {
        if x < QUIET || y < QUIET || x >= width + QUIET || y >= width + QUIET {
            return true;
        }
        colors[(y - QUIET) * width + (x - QUIET)] == Color::Light
    };
    let mut out = String::with_capacity(side * side / 2 * 3 + side);
    for y in (0..side).step_by(2) {
        for x in 0..side {
            let top = light(x, y);
            let bottom = y + 1 >= side || light(x, y + 1);
            out.push(match (top, bottom) {
                (true, true) => '█',
                (true, false) => '▀',
                (false, true) => '▄',
                (false, false) => ' ',
            });
        }
        out.push('\n');
    }
    Ok(out)
}

/// The web page's link for a terminal invite (`cohost[s]://HOST:PORT/ROOM#F`
/// to `http[s]://HOST:PORT/join/ROOM#F`), as the relay serves it
/// (`cohost_relay::web::web_link`, which a test of the binary holds this
/// to). `None` when `invite` is not one.
pub fn web_link(invite: &str) -> Option<String> {
    let invite = invite.trim();
    let (scheme, rest) = if let Some(r) = invite.strip_prefix("cohosts://") {
        ("https", r)
    } else {
        ("http", invite.strip_prefix("cohost://")?)
    };
    let (before, fragment) = rest.split_once('#')?;
    let (authority, room) = before.split_once('/')?;
    let room = room.trim_end_matches('/');
    let plain = !room.is_empty()
        && room
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    if authority.is_empty() || fragment.is_empty() || !plain {
        return None;
    }
    Some(format!("{scheme}://{authority}/join/{room}#{fragment}"))
}

#[cfg(test)]
#[path = "qr_tests.rs"]
mod tests;
