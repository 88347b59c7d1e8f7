//! The MCP servers cohost gives an agent ([`AdapterConfig::mcp_servers`]):
//! the check every driver that passes them on runs first. Each driver
//! spells them its agent's way: Claude Code and Qwen Code a
//! `--mcp-config` JSON (`claude::dialect`), Codex `-c mcp_servers.NAME=`
//! TOML overrides (`codex::mcp`), ACP agents `mcpServers` in
//! `session/new` (`acp::normalize`).
//!
//! [`AdapterConfig::mcp_servers`]: cohost_core::AdapterConfig::mcp_servers

use cohost_core::{CohostError, ErrorCode, McpServer};
use std::collections::HashSet;

/// Refuse servers an agent's own configuration could not carry as given:
/// a nameless one, two under one name (every agent keys servers by name,
/// so one would silently replace the other), or a command that is empty or
/// not UTF-8 (JSON and TOML strings are UTF-8; a lossy copy would start
/// another program).
pub fn check(provider: &str, servers: &[McpServer]) -> Result<(), CohostError> {
    let mut names = HashSet::new();
    for s in servers {
        let why = if s.name.is_empty() {
            Some("has no name".to_string())
        } else if !names.insert(s.name.as_str()) {
            Some("is given twice".to_string())
        } else if s.command.as_os_str().is_empty() {
            Some("has no command".to_string())
        } else if s.command.to_str().is_none() {
            Some(format!(
                "has a command that is not UTF-8 ({})",
                s.command.display()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(invalid(
                provider,
                &s.name,
                &why,
                "give each MCP server a unique name and a UTF-8 command path",
            ));
        }
    }
    Ok(())
}

/// The command as text; exact for a server [`check`] passed.
pub fn command(server: &McpServer) -> String {
    server.command.to_string_lossy().into_owned()
}

/// The error for a server `provider` cannot be given.
pub fn invalid(provider: &str, name: &str, why: &str, fix: &str) -> CohostError {
    CohostError::new(
        ErrorCode::ConfigInvalid,
        format!(
            "MCP server `{}` for agent `{provider}` {why}",
            name.escape_debug()
        ),
    )
    .with_fix(fix)
    .retryable(false)
}

/// A server for tests: `name` runs `command` with `args` and `env`
/// (shared by the drivers' tests in `cohost-agents`).
#[doc(hidden)]
pub fn test_server(name: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> McpServer {
    McpServer {
        name: name.into(),
        command: std::path::PathBuf::from(command),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    pub(crate) use super::test_server as server;

    #[test]
    fn unique_named_utf8_servers_pass() {
        assert!(check("claude", &[]).is_ok());
        let two = [
            server("cohost_room", "/usr/bin/cohost", &["room-bridge"], &[]),
            server("other", "other-mcp", &[], &[("K", "V")]),
        ];
        assert!(check("claude", &two).is_ok());
        assert_eq!(command(&two[0]), "/usr/bin/cohost");
    }

    #[test]
    fn nameless_duplicate_and_commandless_servers_are_refused() {
        let cases = [
            vec![server("", "/bin/x", &[], &[])],
            vec![
                server("a", "/bin/x", &[], &[]),
                server("a", "/bin/y", &[], &[]),
            ],
            vec![server("a", "", &[], &[])],
        ];
        for servers in cases {
            let e = check("codex", &servers).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid, "{e:?}");
            assert!(e.message.contains("codex"), "{e:?}");
        }
    }

    #[test]
    fn a_command_that_is_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let mut s = server("a", "/bin/x", &[], &[]);
        s.command = PathBuf::from(std::ffi::OsStr::from_bytes(b"/bin/\xff"));
        let e = check("qwen", &[s]).unwrap_err();
        assert!(e.message.contains("not UTF-8"), "{e:?}");
    }
}
