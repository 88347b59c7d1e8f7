//! The OpenAPI 3 description of the local API, served at
//! `/api/openapi.json`. Written by hand: the API is small, and a test keeps
//! it in step with the router (every documented path answers).

use serde_json::{json, Value};

fn path_param(name: &str) -> Value {
    json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } })
}

fn ok(description: &str, schema: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } }
    })
}

fn error_responses(mut base: Value) -> Value {
    let err = ok("error (code, message, suggested_fix)", "Error");
    if let Some(m) = base.as_object_mut() {
        // 409: the session's budget is spent (BUDGET_EXCEEDED).
        for code in ["400", "401", "403", "404", "405", "409", "500"] {
            m.insert(code.into(), err.clone());
        }
    }
    base
}

/// [`error_responses`] plus the answers to a body that is not JSON (415)
/// or not of the operation's schema (422), for operations with a body.
fn body_error_responses(base: Value) -> Value {
    let mut all = error_responses(base);
    let err = ok("error (code, message, suggested_fix)", "Error");
    if let Some(m) = all.as_object_mut() {
        m.insert("415".into(), err.clone());
        m.insert("422".into(), err);
    }
    all
}

fn body(schema: &str) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } } })
}

/// The OpenAPI 3.0 document.
pub fn openapi_document() -> Value {
    let id = path_param("id");
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "cohost local API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Provider settings and agent sessions. Loopback only: requests from other hosts, with a foreign Host header or a foreign Origin get 403. Every request needs the user's bearer token (`Authorization: Bearer <token>`), read from the owner-only file `cohost serve` prints at start (`$XDG_RUNTIME_DIR/cohost/api-token`, else `$XDG_STATE_HOME/cohost/run/api-token`); without it the answer is 401 and nothing runs."
        },
        "security": [{ "bearerAuth": [] }],
        "servers": [{ "url": "http://127.0.0.1:4317" }],
        "paths": {
            "/api/openapi.json": { "get": { "summary": "This document", "responses": { "200": { "description": "OpenAPI 3 document" }, "401": ok("no valid bearer token (code AUTH_REQUIRED)", "Error") } } },
            "/api/settings/providers": { "get": {
                "summary": "Every known provider's status card, and the active provider",
                "responses": error_responses(json!({ "200": ok("provider cards", "ProviderList") }))
            }},
            "/api/settings/providers/{id}/status": { "get": {
                "summary": "One provider's status (installed, missing, needs_auth, ready, blocked, failed, unknown)",
                "parameters": [id],
                "responses": error_responses(json!({ "200": ok("status card", "ProviderStatus") }))
            }},
            "/api/settings/providers/{id}/test": { "post": {
                "summary": "Smoke test (\"Reply exactly: OK\", tools off), cached by config fingerprint",
                "parameters": [id, { "name": "force", "in": "query", "required": false, "schema": { "type": "boolean" } }],
                "responses": error_responses(json!({ "200": ok("smoke-test result", "SmokeTestResult") }))
            }},
            "/api/settings/providers/{id}/login": { "post": {
                "summary": "The login command to run in a terminal (never run by the server)",
                "parameters": [id],
                "responses": error_responses(json!({ "200": ok("login command", "LoginCommand") }))
            }},
            "/api/settings/providers/active": { "post": {
                "summary": "Set the active provider (and model) in config.toml",
                "requestBody": body("ActiveProvider"),
                "responses": body_error_responses(json!({ "200": ok("saved", "ActiveProvider") }))
            }},
            "/api/sessions": {
                "post": {
                    "summary": "Start a session with a provider",
                    "requestBody": body("CreateSession"),
                    "responses": body_error_responses(json!({ "201": ok("created", "SessionCreated") }))
                },
                "get": {
                    "summary": "Stored session bindings",
                    "responses": error_responses(json!({ "200": { "description": "records", "content": { "application/json": { "schema": { "type": "array", "items": { "$ref": "#/components/schemas/SessionRecord" } } } } } }))
                }
            },
            "/api/rooms": { "post": {
                "summary": "Start a room of several agents: each a session of its own (in its own git worktree inside a repository with a commit), driven with the /api/sessions/{id}/… routes by its id",
                "requestBody": body("CreateRoom"),
                "responses": body_error_responses(json!({ "201": ok("created", "RoomCreated") }))
            }},
            "/api/sessions/{id}/prompt": { "post": {
                "summary": "Queue a prompt; events arrive on /events",
                "parameters": [id], "requestBody": body("Prompt"),
                "responses": body_error_responses(json!({ "202": { "description": "accepted" } }))
            }},
            "/api/sessions/{id}/events": { "get": {
                "summary": "Server-sent events: every cohost event of the session (replayed from the start), `event:` = its type",
                "parameters": [id],
                "responses": error_responses(json!({ "200": { "description": "SSE stream", "content": { "text/event-stream": { "schema": { "type": "string" } } } } }))
            }},
            "/api/hooks/events": { "get": {
                "summary": "SSE of agents' hook events (installed with `cohost hooks install`): the last 256, then live; each sanitized, with seq, ts, agent, kind and payload",
                "responses": error_responses(json!({ "200": { "description": "SSE stream", "content": { "text/event-stream": { "schema": { "type": "string" } } } } }))
            }},
            "/api/sessions/{id}": { "delete": {
                "summary": "End a session: interrupt its turn, stop its agent (its process group exits), deny pending approvals. Its record stays in the session store for resume.",
                "parameters": [id],
                "responses": error_responses(json!({ "204": { "description": "ended" } }))
            }},
            "/api/sessions/{id}/interrupt": { "post": {
                "summary": "Run the interrupt ladder on the current turn",
                "parameters": [id],
                "responses": error_responses(json!({ "200": { "description": "sent" } }))
            }},
            "/api/sessions/{id}/steer": { "post": {
                "summary": "Text for the running turn: it reaches the agent during the turn where its protocol takes input mid-turn (a `steered` event; Codex's app-server, the mock), else it waits in the session's queue for a turn of its own (a `queue` event, `outcome: queued`); with no turn running it runs now (`started`)",
                "parameters": [id], "requestBody": body("Steer"),
                "responses": body_error_responses(json!({ "200": ok("what became of the text", "Steered") }))
            }},
            "/api/sessions/{id}/queue": { "get": {
                "summary": "The prompts waiting for their turn, next first",
                "parameters": [id],
                "responses": error_responses(json!({ "200": ok("the queue", "Queue") }))
            }},
            "/api/sessions/{id}/queue/{item}": { "delete": {
                "summary": "Cancel a waiting prompt: it does not run (a `queue` event, change `dropped`)",
                "parameters": [id, { "name": "item", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64 } }],
                "responses": error_responses(json!({ "200": ok("the item dropped", "QueueItem") }))
            }},
            "/api/sessions/{id}/queue/{item}/move": { "post": {
                "summary": "Move a waiting prompt to place `to` (0: it runs next; a `queue` event, change `moved`)",
                "parameters": [id, { "name": "item", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64 } }],
                "requestBody": body("QueueMove"),
                "responses": body_error_responses(json!({ "200": ok("the queue after the move", "Queue") }))
            }},
            "/api/sessions/{id}/changes": { "get": {
                "summary": "What a recorded session's turns changed in its working tree (checkpoints): each turn's files with status, +/- counts, size, hash and unified diff",
                "parameters": [id,
                    { "name": "turn", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64 }, "description": "one turn (default: every turn that changed something)" },
                    { "name": "whole", "in": "query", "required": false, "schema": { "type": "boolean" }, "description": "whole diffs, not the bounds of a file_changes event" }],
                "responses": error_responses(json!({ "200": ok("the changes", "SessionChanges") }))
            }},
            "/api/sessions/{id}/undo": { "post": {
                "summary": "Put back what the session's last turn (or `turn` and every later one) changed; refused when a file changed since, unless `force`; refused while a turn runs",
                "parameters": [id], "requestBody": body("Undo"),
                "responses": body_error_responses(json!({ "200": ok("what was put back", "Undone") }))
            }},
            "/api/sessions/{id}/approvals/{tool_id}": { "post": {
                "summary": "Answer a pending tool approval",
                "parameters": [id, path_param("tool_id")], "requestBody": body("ApprovalDecision"),
                "responses": body_error_responses(json!({ "200": { "description": "delivered" } }))
            }}
        },
        "components": {
        "securitySchemes": {
            "bearerAuth": { "type": "http", "scheme": "bearer", "description": "The 64-hex-digit token in the owner-only `api-token` file of the user running `cohost serve`" }
        },
        "schemas": schemas()
        }
    })
}

/// The schemas the paths refer to (a macro call of its own: the whole
/// document in one `json!` passes the macro's recursion limit).
fn schemas() -> Value {
    json!({
            "FileChange": { "type": "object", "required": ["path", "status", "added", "removed"], "properties": {
                "path": { "type": "string" }, "old_path": { "type": "string" },
                "status": { "type": "string", "enum": ["added", "modified", "deleted", "renamed", "mode_changed"] },
                "old_mode": { "type": "string" }, "new_mode": { "type": "string" },
                "added": { "type": "integer" }, "removed": { "type": "integer" },
                "binary": { "type": "boolean" }, "size": { "type": "integer" }, "hash": { "type": "string" },
                "diff": { "type": "string" }, "diff_truncated": { "type": "boolean" } } },
            "TurnChanges": { "type": "object", "description": "One turn's changes; also the body of a `file_changes` event", "required": ["turn", "files"], "properties": {
                "turn": { "type": "integer" }, "files": { "type": "array", "items": { "$ref": "#/components/schemas/FileChange" } } } },
            "SessionChanges": { "type": "object", "required": ["session", "cwd", "turns"], "properties": {
                "session": { "type": "string" }, "cwd": { "type": "string" },
                "turns": { "type": "array", "items": { "$ref": "#/components/schemas/TurnChanges" } } } },
            "Undo": { "type": "object", "properties": {
                "turn": { "type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64 }, "force": { "type": "boolean" } } },
            "Undone": { "type": "object", "required": ["session", "turns", "restored", "removed", "skipped", "saved_as"], "properties": {
                "session": { "type": "string" }, "turns": { "type": "array", "items": { "type": "integer" } },
                "restored": { "type": "array", "items": { "type": "string" } }, "removed": { "type": "array", "items": { "type": "string" } },
                "skipped": { "type": "array", "items": { "type": "string" } }, "saved_as": { "type": "string" } } },
            "Error": { "type": "object", "required": ["code", "message", "retryable"], "properties": {
                "code": { "type": "string" }, "message": { "type": "string" }, "retryable": { "type": "boolean" }, "suggested_fix": { "type": "string" } } },
            "ProviderStatus": { "type": "object", "required": ["provider_id", "status", "message", "capabilities"], "properties": {
                "provider_id": { "type": "string" }, "label": { "type": "string" }, "kind": { "type": "string" },
                "status": { "type": "string", "enum": ["installed", "missing", "needs_auth", "ready", "blocked", "failed", "unknown"] },
                "message": { "type": "string" }, "suggested_fix": { "type": "string" },
                "capabilities": { "type": "array", "items": { "type": "string" } },
                "discovery": { "type": "object" }, "auth": { "type": "object" }, "driver": { "type": "object" } } },
            "ProviderList": { "type": "object", "properties": {
                "active_provider": { "type": "string", "nullable": true },
                "providers": { "type": "array", "items": { "$ref": "#/components/schemas/ProviderStatus" } } } },
            "SmokeTestResult": { "type": "object", "required": ["provider_id", "ok", "status", "message", "config_fingerprint"], "properties": {
                "provider_id": { "type": "string" }, "ok": { "type": "boolean" },
                "status": { "type": "string", "enum": ["passed", "failed", "blocked", "timeout", "unknown"] },
                "message": { "type": "string" }, "output_preview": { "type": "string" }, "tested_at_ms": { "type": "integer" },
                "duration_ms": { "type": "integer" }, "config_fingerprint": { "type": "string" }, "cached": { "type": "boolean" } } },
            "LoginCommand": { "type": "object", "required": ["provider_id", "command", "args"], "properties": {
                "provider_id": { "type": "string" }, "command": { "type": "string", "nullable": true, "description": "null when the provider has no login (the note says what to do instead)" },
                "args": { "type": "array", "items": { "type": "string" } }, "note": { "type": "string" } } },
            "ActiveProvider": { "type": "object", "required": ["provider_id"], "properties": {
                "provider_id": { "type": "string" }, "model": { "type": "string", "nullable": true } } },
            "CreateSession": { "type": "object", "required": ["provider", "cwd"], "properties": {
                "provider": { "type": "string" }, "cwd": { "type": "string", "pattern": "^/", "description": "The absolute path of an existing directory (else 400 CONFIG_INVALID)" }, "model": { "type": "string" },
                "approval": { "type": "string", "enum": ["ask", "auto_approve", "deny_all"] },
                "tools": { "type": "array", "description": "API providers only: tools offered to the model (Anthropic, OpenAI or MCP shape); calls come back as tool_call events", "items": { "type": "object" } },
                "resume": { "type": "string", "description": "A stored session id (or the provider's native id) to resume" },
                "fork": { "type": "string", "description": "A stored session id (or native id) to fork into a new session (providers whose capabilities say fork; else 400 UNSUPPORTED_MODE)" },
                "worktree": { "type": "boolean", "description": "Run in a git worktree of its own on branch cohost/<session> (as `cohost run --worktree`); 400 outside a repository with a commit" },
                "checkpoints": { "type": "boolean", "description": "Record the working tree around each turn (default: the config's `checkpoints`, on): file_changes events, .../changes, .../undo" } } },
            "CreateRoom": { "type": "object", "required": ["agents", "cwd"], "properties": {
                "agents": { "type": "array", "minItems": 2, "maxItems": 8, "items": { "type": "string" }, "description": "Provider ids; the same one twice is two members (claude, claude#2)" },
                "cwd": { "type": "string", "pattern": "^/", "description": "The absolute path of an existing directory (else 400 CONFIG_INVALID)" }, "model": { "type": "string" },
                "approval": { "type": "string", "enum": ["ask", "auto_approve", "deny_all"] } } },
            "RoomCreated": { "type": "object", "properties": { "room": { "type": "string" },
                "members": { "type": "array", "items": { "type": "object", "properties": {
                    "name": { "type": "string" }, "id": { "type": "string" }, "provider": { "type": "string" } } } } } },
            "SessionCreated": { "type": "object", "properties": { "id": { "type": "string" }, "provider": { "type": "string" } } },
            "SessionRecord": { "type": "object", "properties": {
                "id": { "type": "string" }, "provider": { "type": "string" }, "native_session_id": { "type": "string", "nullable": true },
                "cwd": { "type": "string" }, "model": { "type": "string", "nullable": true }, "watermark": { "type": "integer" },
                "created_at_ms": { "type": "integer" }, "updated_at_ms": { "type": "integer" },
                "worktree": { "type": "object", "description": "The session's own git worktree (`worktree: true`)", "properties": {
                    "path": { "type": "string" }, "branch": { "type": "string" }, "origin": { "type": "string" }, "base": { "type": "string" } } },
                "room": { "type": "object", "description": "The room this session is a member of", "properties": {
                    "id": { "type": "string" }, "member": { "type": "string" } } } } },
            "Prompt": { "type": "object", "required": ["text"], "properties": { "text": { "type": "string" },
                "files": { "type": "array", "description": "Files to attach, `PATH[:A-B]` (lines A to B), relative to the session's cwd", "items": { "type": "string" } },
                "images": { "type": "array", "description": "PNG, JPEG, GIF or WebP images to attach (providers whose capabilities say images; else 400 UNSUPPORTED_MODE)", "items": { "type": "string" } } } },
            "Steer": { "type": "object", "required": ["text"], "properties": { "text": { "type": "string" },
                "by": { "type": "string", "description": "Who sent it, when not the API's user (shown with the steer or the queued item)" } } },
            "QueueItem": { "type": "object", "required": ["id", "correlation_id", "text"], "properties": {
                "id": { "type": "integer", "description": "The item's number in the session, never reused" },
                "correlation_id": { "type": "string", "description": "Every event of its turn carries it" },
                "text": { "type": "string", "description": "The start of the text (sanitized, at most 200 characters)" },
                "by": { "type": "string" } } },
            "Queue": { "type": "object", "required": ["items"], "properties": {
                "items": { "type": "array", "items": { "$ref": "#/components/schemas/QueueItem" } } } },
            "QueueMove": { "type": "object", "required": ["to"], "properties": {
                "to": { "type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64, "description": "The place: 0 runs next; past the end is last" } } },
            "Steered": { "type": "object", "required": ["outcome"], "properties": {
                "outcome": { "type": "string", "enum": ["steered", "queued", "started"] },
                "correlation_id": { "type": "string", "description": "Its own turn's correlation id (queued or started)" },
                "item": { "$ref": "#/components/schemas/QueueItem" } } },
            "ApprovalDecision": { "type": "object", "required": ["decision"], "properties": {
                "decision": { "type": "string", "enum": ["allow_once", "allow_always", "reject_once", "reject_always"] },
                "message": { "type": "string" } } }
    })
}
