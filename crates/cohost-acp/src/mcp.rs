//! cohost's MCP servers in ACP's words: the `mcpServers` of `session/new`,
//! `session/load` and `session/fork`, each a stdio server (schema 1.17.0,
//! `McpServerStdio`: `{"name", "command", "args": [...], "env": [{"name",
//! "value"}]}`, no `type` tag), the one transport the protocol says every
//! agent must support. Which agents are claimed to use them:
//! [`super::providers::MCP_SERVERS`].

use agent_client_protocol_schema::v1 as schema;
use cohost_core::McpServer;
use std::ffi::OsStr;
use std::path::Path;

use cohost_process::find_on_path;

/// `servers` as ACP stdio servers, in order.
pub(crate) fn to_acp(servers: &[McpServer]) -> Vec<schema::McpServer> {
    servers
        .iter()
        .map(|s| {
            let env = s
                .env
                .iter()
                .map(|(name, value)| schema::EnvVariable::new(name, value))
                .collect();
            schema::McpServer::Stdio(
                schema::McpServerStdio::new(s.name.clone(), s.command.clone())
                    .args(s.args.clone())
                    .env(env),
            )
        })
        .collect()
}

/// `servers` with each command made absolute, as the schema asks of
/// `command` ("Absolute path to the MCP server executable"): a bare name is
/// looked up on `path` (the agent's own `PATH`), a relative path joined to
/// `cwd`. A bare name not found stays as it is, for the agent to report.
pub(crate) fn absolute_commands(
    servers: &[McpServer],
    cwd: &Path,
    path: Option<&OsStr>,
) -> Vec<McpServer> {
    servers
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if s.command.is_relative() {
                if s.command.components().count() > 1 {
                    s.command = cwd.join(&s.command);
                } else if let Some(found) = s.command.to_str().and_then(|c| find_on_path(c, path)) {
                    s.command = found;
                }
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp_servers::tests::server;
    use serde_json::json;

    #[test]
    fn stdio_servers_in_the_schema_shape() {
        assert!(to_acp(&[]).is_empty());
        let one = to_acp(&[server(
            "cohost_room",
            "/opt/cohost/bin/cohost",
            &["room-bridge"],
            &[("B", "2"), ("A", "1")],
        )]);
        assert_eq!(
            serde_json::to_value(&one).unwrap(),
            json!([{
                "name": "cohost_room",
                "command": "/opt/cohost/bin/cohost",
                "args": ["room-bridge"],
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            }])
        );
        let two = to_acp(&[
            server("cohost_room", "/bin/room", &[], &[]),
            server("notes", "/bin/notes", &["-v"], &[]),
        ]);
        assert_eq!(
            serde_json::to_value(&two).unwrap(),
            json!([
                {"name": "cohost_room", "command": "/bin/room", "args": [], "env": []},
                {"name": "notes", "command": "/bin/notes", "args": ["-v"], "env": []},
            ])
        );
    }

    #[test]
    fn commands_become_absolute_where_they_can() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let tool = bin.join("room-mcp");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let cwd = dir.path().join("work");
        let servers = [
            server("abs", "/usr/bin/env", &[], &[]),
            server("bare", "room-mcp", &[], &[]),
            server("rel", "tools/mcp.py", &[], &[]),
            server("missing", "no-such-mcp-here", &[], &[]),
        ];
        let out = absolute_commands(&servers, &cwd, Some(bin.as_os_str()));
        let commands: Vec<_> = out.iter().map(|s| s.command.clone()).collect();
        assert_eq!(
            commands,
            [
                Path::new("/usr/bin/env").to_path_buf(),
                tool,
                cwd.join("tools/mcp.py"),
                Path::new("no-such-mcp-here").to_path_buf(),
            ]
        );
        assert_eq!(out[1].name, "bare");
    }
}
