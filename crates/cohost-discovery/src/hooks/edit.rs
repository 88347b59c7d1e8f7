//! Pure, surgical edits of the agents' settings files: text in, text out.
//! Only the nodes cohost owns are added or removed; the user's keys, order,
//! comments and indentation are left as they were.

use jsonc_parser::cst::{CstInputValue, CstRootNode};
use jsonc_parser::ParseOptions;
use toml_edit::{Array, DocumentMut, Item, Value};

/// Why a settings file cannot be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Not valid JSON / TOML.
    #[error("not valid {format}: {reason}")]
    Malformed {
        /// `JSON` or `TOML`.
        format: &'static str,
        /// Parser message.
        reason: String,
    },
    /// A key cohost needs has a shape it cannot extend.
    #[error("`{key}` is {found}, expected {expected}")]
    Shape {
        /// The key.
        key: String,
        /// What is there.
        found: &'static str,
        /// What cohost needs.
        expected: &'static str,
    },
    /// Another program owns a single-valued setting.
    #[error("`{key}` is already set to {current}; cohost will not replace it")]
    Taken {
        /// The key.
        key: String,
        /// Its value.
        current: String,
    },
}

fn parse_json(text: &str) -> Result<CstRootNode, EditError> {
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| EditError::Malformed {
        format: "JSON",
        reason: e.to_string(),
    })
}

fn entry_is_ours(v: &serde_json::Value, command: &str) -> bool {
    v.get("hooks").and_then(|h| h.as_array()).is_some_and(|hs| {
        hs.iter()
            .any(|h| h.get("command").and_then(|c| c.as_str()) == Some(command))
    })
}

/// Add `{matcher:"*", hooks:[{type:"command", command}]}` under
/// `hooks.<event>` for each event (Claude and Gemini share this shape).
/// `Ok(None)` when every entry is already there.
pub(super) fn json_add_hooks(
    text: &str,
    events: &[&str],
    command: &str,
) -> Result<Option<String>, EditError> {
    let root = parse_json(text)?;
    if root.value().is_some_and(|v| v.as_object().is_none()) {
        return Err(EditError::Shape {
            key: "(top level)".into(),
            found: "not an object",
            expected: "an object",
        });
    }
    let obj = root.object_value_or_set();
    let hooks = obj
        .object_value_or_create("hooks")
        .ok_or(EditError::Shape {
            key: "hooks".into(),
            found: "not an object",
            expected: "an object",
        })?;
    let mut changed = false;
    for event in events {
        let arr = hooks
            .array_value_or_create(event)
            .ok_or_else(|| EditError::Shape {
                key: format!("hooks.{event}"),
                found: "not an array",
                expected: "an array",
            })?;
        let present = arr
            .elements()
            .iter()
            .filter_map(|e| e.to_serde_value())
            .any(|v| entry_is_ours(&v, command));
        if !present {
            arr.append(CstInputValue::Object(vec![
                ("matcher".into(), "*".into()),
                (
                    "hooks".into(),
                    CstInputValue::Array(vec![CstInputValue::Object(vec![
                        ("type".into(), "command".into()),
                        ("command".into(), command.into()),
                    ])]),
                ),
            ]));
            changed = true;
        }
    }
    Ok(changed.then(|| root.to_string()))
}

/// Remove cohost's entries; drop event arrays and the `hooks` object when
/// cohost's removal left them empty. `Ok(None)` when nothing was ours.
pub(super) fn json_remove_hooks(text: &str, command: &str) -> Result<Option<String>, EditError> {
    let root = parse_json(text)?;
    let Some(hooks) = root.object_value().and_then(|o| o.object_value("hooks")) else {
        return Ok(None);
    };
    let mut changed = false;
    for prop in hooks.properties() {
        let Some(arr) = prop.array_value() else {
            continue;
        };
        let mut removed_here = false;
        for el in arr.elements() {
            if el
                .to_serde_value()
                .is_some_and(|v| entry_is_ours(&v, command))
            {
                el.remove();
                removed_here = true;
            }
        }
        if removed_here && arr.elements().is_empty() {
            prop.remove();
        }
        changed |= removed_here;
    }
    if changed && hooks.properties().is_empty() {
        if let Some(p) = root.object_value().and_then(|o| o.get("hooks")) {
            p.remove();
        }
    }
    Ok(changed.then(|| root.to_string()))
}

/// Whether cohost's entry is under every event.
pub(super) fn json_has_hooks(
    text: &str,
    events: &[&str],
    command: &str,
) -> Result<bool, EditError> {
    let root = parse_json(text)?;
    let value = root.to_serde_value().unwrap_or(serde_json::Value::Null);
    Ok(events.iter().all(|ev| {
        value
            .pointer(&format!("/hooks/{ev}"))
            .and_then(|a| a.as_array())
            .is_some_and(|a| a.iter().any(|v| entry_is_ours(v, command)))
    }))
}

fn parse_toml(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>()
        .map_err(|e| EditError::Malformed {
            format: "TOML",
            reason: e.message().to_string(),
        })
}

fn notify_value(doc: &DocumentMut) -> Option<Vec<String>> {
    let arr = doc.get("notify")?.as_array()?;
    Some(
        arr.iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
    )
}

/// Set Codex's top-level `notify = [argv…]`. Codex allows one notifier, so
/// someone else's is left alone and reported.
pub(super) fn toml_add_notify(text: &str, argv: &[String]) -> Result<Option<String>, EditError> {
    let mut doc = parse_toml(text)?;
    match doc.get("notify") {
        None => {}
        Some(_) if notify_value(&doc).as_deref() == Some(argv) => return Ok(None),
        Some(item) => {
            return Err(EditError::Taken {
                key: "notify".into(),
                current: item.to_string().trim().to_string(),
            })
        }
    }
    let arr: Array = argv.iter().map(String::as_str).collect();
    doc.insert("notify", Item::Value(Value::Array(arr)));
    Ok(Some(doc.to_string()))
}

/// Remove `notify` when it is cohost's.
pub(super) fn toml_remove_notify(text: &str, argv: &[String]) -> Result<Option<String>, EditError> {
    let mut doc = parse_toml(text)?;
    if notify_value(&doc).as_deref() != Some(argv) {
        return Ok(None);
    }
    doc.remove("notify");
    Ok(Some(doc.to_string()))
}

/// Whether `notify` is cohost's.
pub(super) fn toml_has_notify(text: &str, argv: &[String]) -> Result<bool, EditError> {
    Ok(notify_value(&parse_toml(text)?).as_deref() == Some(argv))
}
