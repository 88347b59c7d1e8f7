//! cohost's MCP servers on codex's command line: one global config
//! override per server, `-c mcp_servers.NAME={command = "…", args = […],
//! env = {…}}`, which both `codex app-server` and `codex exec` take before
//! the subcommand (codex 0.171.0 `--help`: "`-c, --config <key=value>` …
//! The `value` portion is parsed as TOML").
//!
//! One inline table per server rather than one override per field: it
//! replaces a same-named server in the user's `config.toml` whole, so no
//! field of theirs (a `url`, a `cwd`) is mixed into cohost's. Servers of
//! other names in the user's configuration are untouched.

use cohost_core::{CohostError, McpServer};

use crate::mcp_servers;

/// The `-c` arguments for `servers` (none for none). Refuses a server
/// whose name codex cannot address: its override key is a dotted path that
/// codex splits at every `.` without reading quotes (0.171.0 answered
/// `mcp_servers."a.b".command` with "invalid transport in `mcp_servers."a`"),
/// so names keep to letters, digits, `_` and `-`, which every model API also
/// takes in the `mcp__NAME__TOOL` tool names built from them.
pub(crate) fn overrides(servers: &[McpServer]) -> Result<Vec<String>, CohostError> {
    mcp_servers::check("codex", servers)?;
    let mut args = Vec::with_capacity(servers.len() * 2);
    for s in servers {
        if !s
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(mcp_servers::invalid(
                "codex",
                &s.name,
                "has a name codex cannot take in a `-c` override",
                "name it with letters, digits, `_` and `-` only",
            ));
        }
        let cmd = toml_string(&mcp_servers::command(s));
        let argv: Vec<String> = s.args.iter().map(|a| toml_string(a)).collect();
        let env: Vec<String> = s
            .env
            .iter()
            .map(|(k, v)| format!("{} = {}", toml_string(k), toml_string(v)))
            .collect();
        args.push("-c".to_string());
        args.push(format!(
            "mcp_servers.{}={{command = {cmd}, args = [{}], env = {{{}}}}}",
            s.name,
            argv.join(", "),
            env.join(", ")
        ));
    }
    Ok(args)
}

/// `s` as a TOML basic string: quoted, with `"` and `\` escaped and every
/// control character written as an escape, so it stays one line and reads
/// back as exactly `s`.
pub(crate) fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp_servers::tests::server;
    use cohost_core::ErrorCode;

    /// What codex reads from one override: its value parsed as TOML under
    /// the key path it names (checked with the `toml` crate, not by eye).
    fn parse(arg: &str) -> (String, toml::Value) {
        let (key, value) = arg.split_once('=').unwrap();
        let doc: toml::Table = toml::from_str(&format!("v = {value}")).unwrap();
        (key.to_string(), doc["v"].clone())
    }

    #[test]
    fn strings_round_trip_through_toml() {
        for s in [
            "",
            "plain",
            "C:\\path\\to\\x",
            "say \"hi\"",
            "tab\tnew\nline\rcr",
            "bell\u{7} del\u{7f} nul\u{0} esc\u{1b}",
            "\\\"",
            "ünïcødé ✓",
            "'single' and '''triple'''",
        ] {
            let quoted = toml_string(s);
            assert!(!quoted.contains('\n'), "{quoted}");
            let doc: toml::Table = toml::from_str(&format!("v = {quoted}")).unwrap();
            assert_eq!(doc["v"].as_str(), Some(s), "{quoted}");
        }
    }

    #[test]
    fn no_servers_no_overrides() {
        assert!(overrides(&[]).unwrap().is_empty());
    }

    #[test]
    fn one_server_is_one_inline_table() {
        let a = overrides(&[server(
            "cohost_room",
            "/opt/cohost/bin/cohost",
            &["room-bridge", "--member", "codex"],
            &[("COHOST_ROOM", "r-1")],
        )])
        .unwrap();
        assert_eq!(
            a,
            [
                "-c",
                "mcp_servers.cohost_room={command = \"/opt/cohost/bin/cohost\", args = [\"room-bridge\", \"--member\", \"codex\"], env = {\"COHOST_ROOM\" = \"r-1\"}}"
            ]
        );
        let (key, v) = parse(&a[1]);
        assert_eq!(key, "mcp_servers.cohost_room");
        assert_eq!(v["command"].as_str(), Some("/opt/cohost/bin/cohost"));
        assert_eq!(v["args"].as_array().map(Vec::len), Some(3));
        assert_eq!(v["env"]["COHOST_ROOM"].as_str(), Some("r-1"));
    }

    #[test]
    fn two_servers_with_awkward_strings() {
        let a = overrides(&[
            server("cohost_room", "/bin/room", &[], &[]),
            server(
                "notes-2",
                "/srv/my \"mcp\"\\bin",
                &["--x=\"q\"", "a\\b", "two\nlines"],
                &[("A B", "v\"w"), ("PATH", "/bin:/usr/bin")],
            ),
        ])
        .unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!((a[0].as_str(), a[2].as_str()), ("-c", "-c"));
        let (key, v) = parse(&a[1]);
        assert_eq!(key, "mcp_servers.cohost_room");
        assert_eq!(v["args"].as_array().map(Vec::len), Some(0));
        assert_eq!(v["env"].as_table().map(toml::Table::len), Some(0));
        let (key, v) = parse(&a[3]);
        assert_eq!(key, "mcp_servers.notes-2");
        assert_eq!(v["command"].as_str(), Some("/srv/my \"mcp\"\\bin"));
        let args: Vec<&str> = v["args"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(toml::Value::as_str)
            .collect();
        assert_eq!(args, ["--x=\"q\"", "a\\b", "two\nlines"]);
        assert_eq!(v["env"]["A B"].as_str(), Some("v\"w"));
        assert_eq!(v["env"]["PATH"].as_str(), Some("/bin:/usr/bin"));
    }

    #[test]
    fn names_codex_cannot_address_are_refused() {
        for name in ["a.b", "a=b", "a b", "ü", "x\"y"] {
            let e = overrides(&[server(name, "/bin/x", &[], &[])]).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid, "{name}: {e:?}");
        }
        let e = overrides(&[server("", "/bin/x", &[], &[])]).unwrap_err();
        assert!(e.message.contains("no name"), "{e:?}");
    }
}
