//! Tools offered to an API provider's model (`cohost run --tools FILE`, the
//! `tools` of `POST /api/sessions`).
//!
//! API providers run nothing; they surface the model's calls as `tool_call`
//! events, which is only useful when the request offers tools. The file is a
//! JSON array in whichever shape the user already has: Anthropic's
//! (`name`, `description`, `input_schema`), OpenAI's function tools (bare or
//! wrapped in `{"type": "function", "function": {...}}`, schema under
//! `parameters`), or MCP's `inputSchema`.

use std::path::Path;

use cohost_core::ToolSpec;
use serde_json::Value;

mod error;
pub use error::ToolsError;

fn valid_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Reads and checks a tools file.
pub fn load(path: &Path) -> Result<Vec<ToolSpec>, ToolsError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ToolsError::Unreadable {
        origin: origin.clone(),
        source,
    })?;
    parse(&origin, &text)
}

/// Parses the text of a tools file (`origin` names it in errors).
pub fn parse(origin: &str, text: &str) -> Result<Vec<ToolSpec>, ToolsError> {
    let v: Value = serde_json::from_str(text).map_err(|source| ToolsError::NotJson {
        origin: origin.to_owned(),
        source,
    })?;
    from_value(origin, &v)
}

/// Checks tools given as JSON (`origin` names where they came from in errors).
pub fn from_value(origin: &str, v: &Value) -> Result<Vec<ToolSpec>, ToolsError> {
    let Value::Array(items) = v else {
        return Err(ToolsError::NotArray {
            origin: origin.to_owned(),
        });
    };
    let mut out: Vec<ToolSpec> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let t = item
            .get("function")
            .filter(|_| item.get("type") == Some(&Value::from("function")))
            .unwrap_or(item);
        let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
        if !valid_name(name) {
            return Err(ToolsError::BadName {
                origin: origin.to_owned(),
                index: i,
                name: name.to_owned(),
            });
        }
        if out.iter().any(|o| o.name == name) {
            return Err(ToolsError::Duplicate {
                origin: origin.to_owned(),
                index: i,
                name: name.to_owned(),
            });
        }
        let schema = ["input_schema", "parameters", "inputSchema"]
            .iter()
            .find_map(|k| t.get(*k))
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        let is_object_schema = schema.is_object()
            && schema
                .get("type")
                .is_none_or(|ty| ty == &Value::from("object"));
        if !is_object_schema {
            return Err(ToolsError::BadSchema {
                origin: origin.to_owned(),
                index: i,
                name: name.to_owned(),
            });
        }
        out.push(ToolSpec {
            name: name.to_string(),
            description: t
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            input_schema: schema,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::{CohostError, ErrorCode};

    fn p(text: &str) -> Result<Vec<ToolSpec>, CohostError> {
        parse("tools.json", text).map_err(CohostError::from)
    }

    #[test]
    fn every_common_shape_is_accepted() {
        let tools = p(r#"[
            {"name": "a", "description": "A", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}},
            {"type": "function", "function": {"name": "b", "parameters": {"type": "object"}}},
            {"name": "c", "parameters": {"properties": {}}},
            {"name": "d", "inputSchema": {"type": "object"}},
            {"name": "e"}
        ]"#)
        .unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert_eq!(tools[0].description, "A");
        assert_eq!(tools[0].input_schema["properties"]["x"]["type"], "string");
        assert_eq!(tools[4].input_schema["type"], "object");
    }

    #[test]
    fn bad_files_are_typed_errors_naming_the_file_and_entry() {
        for (text, want) in [
            ("{", "not JSON (line 1"),
            ("{}", "must be an array"),
            (r#"[{"name": "has space"}]"#, "tool 0: `name`"),
            (
                r#"[{"name": "a"}, {"name": "a"}]"#,
                "tool 1: `a` is defined twice",
            ),
            (
                r#"[{"name": "a", "input_schema": {"type": "string"}}]"#,
                "type object",
            ),
            (r#"[{"name": "a", "parameters": 3}]"#, "type object"),
        ] {
            let e = p(text).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid);
            assert!(e.message.starts_with("tools.json: "), "{}", e.message);
            assert!(e.message.contains(want), "{text}: {}", e.message);
            assert!(e.suggested_fix.is_some());
        }
    }
}
