//! Picking a tool from the request's own tool list and filling its arguments
//! from its JSON schema, so the agent CLI under test accepts the call and runs it.

use serde_json::{json, Map, Value};

/// The command a shell-like tool is asked to run.
pub const TOOL_COMMAND: &str = "echo cohost-tool-ok > cohost_tool_output.txt";
/// The write scenario's command when only a shell tool is offered: codex's
/// file-edit path (it intercepts `apply_patch` and asks for a patch approval).
pub const PATCH_COMMAND: &str = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: cohost_tool_output.txt\n+cohost-tool-ok\n*** End Patch\nEOF\n";
/// The file a tool call creates.
pub const TOOL_FILE: &str = "cohost_tool_output.txt";
/// The content a file-writing tool writes.
pub const TOOL_CONTENT: &str = "cohost-tool-ok";

/// How a vendor represents a tool; most are plain functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// A function tool with a JSON schema.
    Function,
    /// OpenAI Responses built-in `local_shell` (no schema, fixed call shape).
    LocalShell,
    /// OpenAI Responses `custom` tool taking free-form text (e.g. `apply_patch`).
    Custom,
}

/// One tool offered by the request.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// Name the model must use in its call.
    pub name: String,
    /// JSON schema of the arguments (`Value::Null` when absent).
    pub schema: Value,
    /// Wire representation.
    pub kind: ToolKind,
    /// The group it is offered in, when the wire groups tools (OpenAI
    /// Responses `namespace` tools: Codex offers an MCP server's tools as
    /// `mcp__SERVER`); a call names it beside the tool's name.
    pub namespace: Option<String>,
}

impl ToolSpec {
    /// A function tool named by `def[name_key]` with the schema under the
    /// first of `schema_keys` that `def` has; `None` without a name.
    pub(crate) fn function(def: &Value, schema_keys: &[&str]) -> Option<ToolSpec> {
        let schema = schema_keys.iter().find_map(|k| def.get(*k));
        Some(ToolSpec {
            name: def.get("name")?.as_str()?.to_string(),
            schema: schema.cloned().unwrap_or(Value::Null),
            kind: ToolKind::Function,
            namespace: None,
        })
    }
}

/// The tools of a request body's `tools` array, read by `spec`.
pub(crate) fn tools_in(body: &Value, spec: impl Fn(&Value) -> Option<ToolSpec>) -> Vec<ToolSpec> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|ts| ts.iter().filter_map(spec).collect())
        .unwrap_or_default()
}

/// The call the fake model makes.
#[derive(Debug, Clone)]
pub struct ChosenCall {
    /// Tool name, exactly as offered.
    pub name: String,
    /// Arguments object (for `Custom`, `{"input": "..."}`).
    pub args: Value,
    /// Wire representation.
    pub kind: ToolKind,
    /// The tool's group ([`ToolSpec::namespace`]).
    pub namespace: Option<String>,
}

const SHELL_NAMES: &[&str] = &[
    "bash",
    "shell",
    "run_shell_command",
    "exec_command",
    "shell_command",
    "local_shell",
    "run_terminal_cmd",
    "execute_command",
    "run_command",
    "terminal",
    "exec",
];
const SHELL_HINTS: &[&str] = &["shell", "bash", "exec", "command", "terminal"];
const WRITE_NAMES: &[&str] = &[
    "apply_patch",
    "write",
    "write_file",
    "create_file",
    "writefile",
    "file_write",
    "edit_file",
    "create",
];
// Not "create": codex offers `create_goal`, which writes no file.
const WRITE_HINTS: &[&str] = &["write", "patch", "edit"];
/// Names that match a hint but are not what the hint means (codex's
/// `write_stdin` feeds a running process; it writes no file).
const NOT_HINTED: &[&str] = &["stdin"];

fn find_by(tools: &[ToolSpec], names: &[&str], hints: &[&str]) -> Option<usize> {
    let lower: Vec<String> = tools.iter().map(|t| t.name.to_ascii_lowercase()).collect();
    names
        .iter()
        .find_map(|n| lower.iter().position(|l| l == n))
        .or_else(|| {
            hints.iter().find_map(|h| {
                lower
                    .iter()
                    .position(|l| l.contains(h) && !NOT_HINTED.iter().any(|x| l.contains(x)))
            })
        })
}

/// Chooses a tool: shell-like first (or file-writing first when `prefer_write`),
/// then the other kind, then the first tool. `None` when no tools are offered.
pub fn choose_tool(
    tools: &[ToolSpec],
    prefer_write: bool,
    cwd: Option<&str>,
) -> Option<ChosenCall> {
    // A grouped tool (an MCP server's) is called only by name
    // ([`named_call`]), never picked as the shell or the file writer.
    let plain: Vec<ToolSpec> = tools
        .iter()
        .filter(|t| t.namespace.is_none())
        .cloned()
        .collect();
    let tools = plain.as_slice();
    let shell = || find_by(tools, SHELL_NAMES, SHELL_HINTS);
    let write = || find_by(tools, WRITE_NAMES, WRITE_HINTS);
    let written = write();
    let idx = if prefer_write {
        written.or_else(shell)
    } else {
        shell().or_else(write)
    };
    let tool = tools.get(idx.unwrap_or(0))?;
    let command = if prefer_write && written.is_none() {
        PATCH_COMMAND
    } else {
        TOOL_COMMAND
    };
    let args = match tool.kind {
        ToolKind::LocalShell => json!({"command": ["bash", "-lc", command]}),
        ToolKind::Custom => json!({"input": format!(
            "*** Begin Patch\n*** Add File: {TOOL_FILE}\n+{TOOL_CONTENT}\n*** End Patch\n"
        )}),
        ToolKind::Function => fill_object(&tool.schema, &Filler { cwd, command }, 0),
    };
    Some(ChosenCall {
        name: tool.name.clone(),
        args,
        kind: tool.kind,
        namespace: None,
    })
}

/// The call of the offered tool whose name contains `name`, with `args`
/// (else arguments filled from its schema); `None` when none is offered.
pub fn named_call(tools: &[ToolSpec], name: &str, args: Option<Value>) -> Option<ChosenCall> {
    let tool = tools.iter().find(|t| t.name.contains(name))?;
    Some(ChosenCall {
        name: tool.name.clone(),
        args: args.unwrap_or_else(|| fill_schema(&tool.schema)),
        kind: tool.kind,
        namespace: tool.namespace.clone(),
    })
}

/// Produces a plausible JSON value for a structured-output schema
/// (Gemini CLI's router wants `complexity_reasoning` and `complexity_score`).
pub fn fill_schema(schema: &Value) -> Value {
    let filler = Filler {
        cwd: None,
        command: TOOL_COMMAND,
    };
    match schema_type(schema).as_deref() {
        Some("object") | None => fill_object_all(schema, &filler, 0),
        _ => filler.value("", schema, 0),
    }
}

struct Filler<'a> {
    cwd: Option<&'a str>,
    /// What a command-like field gets.
    command: &'a str,
}

fn schema_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.to_ascii_lowercase()),
        // `["string", "null"]`: the first non-null type is the useful one.
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_ascii_lowercase)
            .find(|t| t != "null"),
        _ if schema.get("properties").is_some() => Some("object".into()),
        _ => None,
    }
}

/// Required properties only: optional ones are where tools hide dangerous knobs.
fn fill_object(schema: &Value, f: &Filler, depth: usize) -> Value {
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    if let Some(props) = props {
        for (name, sub) in props {
            // Without a `required` list, still fill the fields the call cannot do without.
            let wanted = required.contains(&name.as_str())
                || (required.is_empty() && (is_command(name) || is_path(name) || is_content(name)));
            if wanted {
                out.insert(name.clone(), f.value(name, sub, depth + 1));
            }
        }
    }
    Value::Object(out)
}

/// Every property: structured output usually wants all of them.
fn fill_object_all(schema: &Value, f: &Filler, depth: usize) -> Value {
    let mut out = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            out.insert(name.clone(), f.value(name, sub, depth + 1));
        }
    }
    Value::Object(out)
}

fn is_command(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "cmd" || n.contains("command") || n == "script" || n == "shell"
}

fn is_path(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("path") || n.contains("file") || n == "target" || n == "filename"
}

fn is_content(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "content",
        "contents",
        "text",
        "data",
        "body",
        "new_string",
        "new_str",
        "new_text",
        "code",
    ]
    .contains(&n.as_str())
}

impl Filler<'_> {
    fn value(&self, name: &str, schema: &Value, depth: usize) -> Value {
        if depth > 8 {
            return Value::Null;
        }
        if let Some(first) = schema
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            // Gemini CLI's next-speaker check: answering "model" would loop forever.
            let user = Value::String("user".into());
            let values = schema.get("enum").and_then(Value::as_array);
            if values.is_some_and(|v| v.contains(&user)) {
                return user;
            }
            return first.clone();
        }
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(first) = schema
                .get(key)
                .and_then(Value::as_array)
                .and_then(|v| v.first())
            {
                return self.value(name, first, depth + 1);
            }
        }
        match schema_type(schema).as_deref() {
            Some("string") => Value::String(self.string(name)),
            Some("integer") | Some("number") => number(name, schema),
            Some("boolean") => Value::Bool(false),
            Some("array") => {
                let items = schema.get("items").unwrap_or(&Value::Null);
                let strings = schema_type(items).as_deref() == Some("string");
                if is_command(name) && strings && name.to_ascii_lowercase().ends_with('s') {
                    // A list of command lines (Cline's `run_commands`).
                    json!([self.command])
                } else if is_command(name) && strings {
                    // One command as argv (Codex's `shell`).
                    json!(["bash", "-lc", self.command])
                } else if items.is_null() {
                    json!([])
                } else {
                    Value::Array(vec![self.value(name, items, depth + 1)])
                }
            }
            Some("object") => {
                let sub = Filler {
                    cwd: self.cwd,
                    command: self.command,
                };
                if depth > 1 {
                    fill_object_all(schema, &sub, depth)
                } else {
                    fill_object(schema, &sub, depth)
                }
            }
            _ => Value::String(self.string(name)),
        }
    }

    fn string(&self, name: &str) -> String {
        let n = name.to_ascii_lowercase();
        if is_command(&n) {
            self.command.into()
        } else if n.contains("dir") || n == "cwd" || n == "workdir" {
            self.cwd.unwrap_or(".").into()
        } else if is_path(&n) {
            match self.cwd {
                // Several CLIs insist on absolute paths; the cwd is in their system prompt.
                Some(cwd) => format!("{}/{TOOL_FILE}", cwd.trim_end_matches('/')),
                None => TOOL_FILE.into(),
            }
        } else if is_content(&n) {
            TOOL_CONTENT.into()
        } else if n.contains("reason") {
            "The request is simple and can be handled by the default model.".into()
        } else if n.contains("description") || n.contains("justification") || n.contains("summary")
        {
            format!("Write {TOOL_FILE}")
        } else if n.contains("url") {
            "http://127.0.0.1/".into()
        } else {
            "cohost".into()
        }
    }
}

fn number(name: &str, schema: &Value) -> Value {
    let min = schema.get("minimum").and_then(Value::as_f64);
    let max = schema.get("maximum").and_then(Value::as_f64);
    let n = name.to_ascii_lowercase();
    let want: f64 = if n.contains("timeout") {
        10_000.0
    } else if n.contains("score") {
        // A low complexity score routes Gemini CLI to its default model.
        10.0
    } else {
        1.0
    };
    let v = want
        .max(min.unwrap_or(f64::MIN))
        .min(max.unwrap_or(f64::MAX));
    // Whole values are written without a fraction even for "number": `1` is a
    // valid JSON number, while `1.0` breaks CLIs that parse the field as an
    // integer (Codex's shell `timeout_ms`, an i32 in its Rust structs).
    if schema_type(schema).as_deref() == Some("integer") || v.fract() == 0.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// Finds the agent's working directory in its system prompt, when it states one.
pub fn find_cwd(text: &str) -> Option<String> {
    const MARKERS: &[&str] = &[
        "Working directory: ",
        "working in the directory: ",
        "Current working directory: ",
        "<cwd>",
    ];
    MARKERS.iter().find_map(|m| {
        let start = text.find(m)? + m.len();
        let rest = &text[start..];
        // `\\` and `"` end a path found inside JSON-escaped text.
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '\\' | '"'))
            .unwrap_or(rest.len());
        let dir = rest[..end].trim_end_matches(['.', ',']);
        dir.starts_with('/').then(|| dir.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, schema: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            schema,
            kind: ToolKind::Function,
            namespace: None,
        }
    }

    #[test]
    fn prefers_shell_and_fills_required() {
        let tools = vec![
            f(
                "Read",
                json!({"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}),
            ),
            f(
                "Bash",
                json!({"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}),
            ),
        ];
        let c = choose_tool(&tools, false, None).unwrap();
        assert_eq!(c.name, "Bash");
        assert_eq!(c.args, json!({"command": TOOL_COMMAND}));
    }

    #[test]
    fn write_variant_and_absolute_path() {
        let tools = vec![
            f(
                "run_shell_command",
                json!({"type":"OBJECT","properties":{"command":{"type":"STRING"}}}),
            ),
            f(
                "write_file",
                json!({"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}),
            ),
        ];
        let c = choose_tool(&tools, true, Some("/tmp/x")).unwrap();
        assert_eq!(c.name, "write_file");
        assert_eq!(
            c.args,
            json!({"file_path":"/tmp/x/cohost_tool_output.txt","content":TOOL_CONTENT})
        );
        let c = choose_tool(&tools, false, None).unwrap();
        assert_eq!(c.args, json!({"command": TOOL_COMMAND}));
    }

    #[test]
    fn codex_array_command_and_classifier() {
        let tools = vec![f(
            "shell",
            json!({"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}},"workdir":{"type":"string"}},"required":["command"]}),
        )];
        assert_eq!(
            choose_tool(&tools, false, None).unwrap().args,
            json!({"command":["bash","-lc",TOOL_COMMAND]})
        );
        let schema = json!({"type":"object","properties":{"complexity_reasoning":{"type":"string"},"complexity_score":{"type":"integer","minimum":1,"maximum":100}},"required":["complexity_reasoning","complexity_score"]});
        let v = fill_schema(&schema);
        assert!(v["complexity_reasoning"].is_string());
        assert_eq!(v["complexity_score"], json!(10));
        let n = number("timeout_ms", &json!({"type": "number"}));
        assert_eq!(n.to_string(), "10000", "whole numbers carry no fraction");
    }

    #[test]
    fn a_list_of_command_lines_gets_the_whole_line_and_new_text_is_content() {
        let filler = Filler {
            cwd: Some("/w"),
            command: TOOL_COMMAND,
        };
        let list = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(filler.value("commands", &list, 0), json!([TOOL_COMMAND]));
        assert_eq!(
            filler.value("command", &list, 0),
            json!(["bash", "-lc", TOOL_COMMAND])
        );
        let s = json!({"type": "string"});
        assert_eq!(filler.value("new_text", &s, 0), json!(TOOL_CONTENT));
    }

    #[test]
    fn cwd_from_prompt() {
        assert_eq!(
            find_cwd("env\nWorking directory: /home/u/p\nIs git"),
            Some("/home/u/p".into())
        );
        assert_eq!(find_cwd("<cwd>/a/b</cwd>"), Some("/a/b".into()));
        assert_eq!(find_cwd("nothing"), None);
    }
}
