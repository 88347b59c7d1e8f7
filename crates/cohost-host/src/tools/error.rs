//! What can be wrong with offered tools, and how each reads on the wire
//! (`From<ToolsError> for CohostError`: CONFIG_INVALID, with an example of
//! a valid list as the fix). The text of each is its wire message, the
//! library's reason included; `source()` keeps that error.

use cohost_core::{CohostError, ErrorCode};

/// Offered tools cohost cannot use.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsError {
    /// The tools file could not be read.
    #[error("{origin}: cannot read the tools file: {source}")]
    Unreadable {
        /// The file.
        origin: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("{origin}: not JSON (line {}, column {}): {source}", source.line(), source.column())]
    NotJson {
        /// Where the tools came from.
        origin: String,
        /// The JSON reader's error.
        #[source]
        source: serde_json::Error,
    },
    /// The JSON is not an array.
    #[error("{origin}: the top level must be an array")]
    NotArray {
        /// Where the tools came from.
        origin: String,
    },
    /// A tool name the providers do not take.
    #[error("{origin}: tool {index}: `name` must be 1 to 64 of [A-Za-z0-9_-], got {name:?}")]
    BadName {
        /// Where the tools came from.
        origin: String,
        /// The tool's place in the list.
        index: usize,
        /// The name given.
        name: String,
    },
    /// Two tools of one name.
    #[error("{origin}: tool {index}: `{name}` is defined twice")]
    Duplicate {
        /// Where the tools came from.
        origin: String,
        /// The second one's place in the list.
        index: usize,
        /// The name.
        name: String,
    },
    /// An argument schema that is not an object schema.
    #[error(
        "{origin}: tool {index} (`{name}`): the argument schema must be a JSON schema of type object"
    )]
    BadSchema {
        /// Where the tools came from.
        origin: String,
        /// The tool's place in the list.
        index: usize,
        /// The tool.
        name: String,
    },
}

impl From<ToolsError> for CohostError {
    fn from(e: ToolsError) -> CohostError {
        CohostError::new(ErrorCode::ConfigInvalid, e.to_string()).with_fix(
            "give a JSON array of tools like [{\"name\": \"run_shell\", \"description\": \"…\", \
             \"input_schema\": {\"type\": \"object\", \"properties\": {…}}}]",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn bad_json_keeps_the_reader_error_and_its_place() {
        let e = super::super::parse("tools.json", "[1,").unwrap_err();
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<serde_json::Error>().is_some()));
        let w = CohostError::from(e);
        assert_eq!(w.code, ErrorCode::ConfigInvalid);
        assert!(
            w.message
                .starts_with("tools.json: not JSON (line 1, column 3): "),
            "{}",
            w.message
        );
        assert!(w.suggested_fix.is_some_and(|f| f.contains("input_schema")));
    }

    #[test]
    fn a_missing_file_keeps_the_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = super::super::load(&dir.path().join("none.json")).unwrap_err();
        assert!(matches!(e, ToolsError::Unreadable { .. }), "{e:?}");
        assert!(e
            .source()
            .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some()));
    }
}
