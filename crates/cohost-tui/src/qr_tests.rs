//! The QR code scans back (a real decoder), and `/qr` shows it.

use crossterm::event::{KeyCode, KeyEvent};

use super::*;
use crate::app::App;
use crate::commands::Mode;
use crate::room::Invites;
use crate::theme::Theme;
use crate::transcript::BlockKind;

/// The drawn code back to pixels (light = 255), then through a real
/// decoder.
fn decode(drawn: &str) -> String {
    let rows: Vec<Vec<char>> = drawn.lines().map(|l| l.chars().collect()).collect();
    let w = rows[0].len();
    assert!(rows.iter().all(|r| r.len() == w), "every line as wide");
    let h = rows.len() * 2;
    // 4 pixels a module, so the detector sees clean edges.
    let scale = 4;
    let mut img = rqrr::PreparedImage::prepare_from_greyscale(w * scale, h * scale, |x, y| {
        let (col, row) = (x / scale, y / scale);
        let c = rows[row / 2][col];
        let light = matches!((c, row % 2), ('█', _) | ('▀', 0) | ('▄', 1));
        if light {
            255
        } else {
            0
        }
    });
    let grids = img.detect_grids();
    assert_eq!(grids.len(), 1, "one code found");
    let (_, content) = grids[0].decode().expect("decodes");
    content
}

#[test]
fn the_code_decodes_back_to_the_link() {
    let link = "https://relay.example:7443/join/r-0123456789abcdef#eyJhbGciOiJIUzI1NiJ9.eyJyb29tIjoici0wMTIzIiwicm9sZSI6IkNPX0RSSVZFUiIsImV4cCI6MTc5NjUyMDgwN30.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8.TfOdhZAU2tGlvoOdH8cI5cMd3c3HXm95SP8hqQuMJbY";
    let drawn = render(link).expect("renders");
    assert_eq!(decode(&drawn), link);
    let width = drawn.lines().next().map(|l| l.chars().count()).unwrap_or(0);
    assert!(width <= 80, "fits 80 columns: {width}");
}

#[test]
fn web_links_follow_the_invite() {
    assert_eq!(
        web_link("cohosts://h:1/r-1#a.b.c").as_deref(),
        Some("https://h:1/join/r-1#a.b.c")
    );
    assert_eq!(
        web_link("cohost://h:1/r-1/#t").as_deref(),
        Some("http://h:1/join/r-1#t")
    );
    assert_eq!(web_link("cohost://h:1/r 1#t"), None);
    assert_eq!(web_link("https://h/join/r#t"), None);
}

#[test]
fn slash_qr_shows_an_invites_web_link_as_a_code_that_scans() {
    let mut a = App::new(Mode::Host, Theme::new(false));
    a.input.set("/qr");
    a.on_key(KeyEvent::from(KeyCode::Enter));
    let said = |a: &App| match a.transcript.blocks().last().map(|b| &b.kind) {
        Some(BlockKind::Notice(t)) => t.clone(),
        other => panic!("a notice, not {other:?}"),
    };
    assert!(said(&a).contains("no invites"), "{}", said(&a));
    a.room.invites = Some(Invites {
        co_driver: "cohost://127.0.0.1:7070/r-1#c0.c1.c2".into(),
        viewer: "cohost://127.0.0.1:7070/r-1#v0.v1.v2".into(),
    });
    for (line, link) in [
        ("/qr", "http://127.0.0.1:7070/join/r-1#c0.c1.c2"),
        ("/qr viewer", "http://127.0.0.1:7070/join/r-1#v0.v1.v2"),
    ] {
        a.input.set(line);
        a.on_key(KeyEvent::from(KeyCode::Enter));
        let text = said(&a);
        let (head, code) = text.split_once('\n').expect("a heading, then the code");
        assert!(head.contains(link), "{head}");
        assert_eq!(decode(code), link, "{line}");
    }
}
