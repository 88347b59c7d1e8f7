//! Record and export verification (`cohost record verify`): no panic on any
//! bytes; a record that verifies exports to every format, and each export
//! verifies back to the same entries.
#![no_main]

use cohost_record::{export, verify, verify_any, Format, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let partial = Options {
        partial: true,
        ..Options::default()
    };
    let _ = verify_any(data, &Options::default());
    if let Ok(v) = verify(data, &partial) {
        for format in [Format::Html, Format::Markdown, Format::Json] {
            let out = export(data, format, &partial).expect("a verified record exports");
            let (again, _) = verify_any(out.as_bytes(), &partial).expect("its export verifies");
            assert_eq!(again.entries, v.entries);
        }
    }
});
