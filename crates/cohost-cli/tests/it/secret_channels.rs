//! The whole secret corpus seeded into every output channel a test can
//! reach through the `cohost` binary: nothing of it may come out. Channels:
//! human run output (stdout, stderr), `--json`, trace logs, an external
//! agent's output, a provider error body echoing part of the key, `config
//! list`/`get`, `doctor`, `agents` (human and `--json`), plugin warnings,
//! and a known value (`key_env` target, `SMTP_PASS`) in all of them.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use cohost_core::sanitize::corpus::SHAPES;
use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

/// Known values: not shaped like secrets, known only because cohost's
/// environment and config name them.
const SMTP_PASS: &str = "mail-Pa55word-Xy9-plainly";
const PROXY_KEY: &str = "proxyk3yvaluenotnamed0123";
const OPENAI_KEY: &str = "sk-proj-Zq9Wx8Ec7Rv6Tb5Yn4Um3Ik2Ol1Pa0Sd";

fn corpus_text() -> String {
    format!(
        "{}\nsmtp {SMTP_PASS} and proxy {PROXY_KEY}",
        cohost_core::sanitize::corpus::text()
    )
}

/// Every secret part, and what it is.
fn secrets() -> Vec<(String, String)> {
    let mut s: Vec<(String, String)> = SHAPES
        .iter()
        .map(|(label, _, secret)| (label.to_string(), secret.to_string()))
        .collect();
    s.push(("SMTP_PASS value".into(), SMTP_PASS[4..20].into()));
    s.push(("key_env value".into(), PROXY_KEY[2..16].into()));
    s.push(("OpenAI key echoed".into(), OPENAI_KEY[9..33].into()));
    s
}

fn cohost(home: &tempfile::TempDir) -> Command {
    // `COHOST_CHANNELS_BIN` measures another build (e.g. main's) the same way.
    let bin = std::env::var("COHOST_CHANNELS_BIN").unwrap_or(env!("CARGO_BIN_EXE_cohost").into());
    let mut c = Command::new(bin);
    c.env_clear()
        .env("PATH", home.path())
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .env("SMTP_PASS", SMTP_PASS)
        .env("MY_PROXY", PROXY_KEY)
        .current_dir(home.path())
        .stdin(Stdio::null());
    c
}

fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A scratch home whose config and plugin manifests are full of secrets.
fn seeded_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join(".config/cohost");
    std::fs::create_dir_all(&cfg).unwrap();
    let mut text = String::from("[providers.my-proxy]\nkind = \"api\"\nkey_env = \"MY_PROXY\"\n");
    text.push_str(
        "base_url = \"https://svc:ab/cd+ef/gh12@proxy.local/v1\"\n\n[providers.mock.env]\n",
    );
    for (i, (_, t, _)) in SHAPES.iter().enumerate() {
        text.push_str(&format!("S{i} = {}\n", toml_str(t)));
    }
    std::fs::write(cfg.join("config.toml"), text).unwrap();
    let plugins = home.path().join(".cohost/agents");
    std::fs::create_dir_all(&plugins).unwrap();
    for (i, (_, t, _)) in SHAPES.iter().enumerate() {
        // A bad value the warning quotes.
        let m = format!(
            "id = \"leaky{i}\"\nbinary = \"x\"\nprotocol = {}\n",
            toml_str(t)
        );
        std::fs::write(plugins.join(format!("leaky{i}.toml")), m).unwrap();
    }
    std::fs::write(
        plugins.join("echoer.toml"),
        "id = \"echoer\"\nbinary = \"/bin/echo\"\nprotocol = \"text\"\nargs = [\"echoed:\", \"{prompt}\"]\n",
    )
    .unwrap();
    home
}

/// A provider that answers 401 and echoes 24 characters of the key it got.
fn echoing_provider() -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let handle = std::thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            let Ok(mut s) = stream else { return };
            let mut buf = [0u8; 65536];
            let _ = s.read(&mut buf);
            let body = format!(
                "{{\"error\":{{\"message\":\"Incorrect API key provided: {}. You can find your API key at https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}}}",
                &OPENAI_KEY[9..33]
            );
            let _ = write!(
                s,
                "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (addr, handle)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn no_secret_of_the_corpus_reaches_any_channel() {
    let home = seeded_home();
    let prompt = corpus_text();
    let mut channels: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, o: Output| {
        let (out, err) = text(&o);
        channels.push((format!("{name} (stdout)"), out));
        channels.push((format!("{name} (stderr)"), err));
    };
    let run = |args: &[&str]| cohost(&home).args(args).output().unwrap();
    add("run human", run(&["run", "--agent", "mock", &prompt]));
    add(
        "run --json",
        run(&["run", "--agent", "mock", "--json", &prompt]),
    );
    add(
        "run trace log",
        cohost(&home)
            .env("COHOST_LOG", "trace")
            .args(["run", "--agent", "mock", "--json", &prompt])
            .output()
            .unwrap(),
    );
    add(
        "external agent",
        run(&["run", "--agent", "echoer", "--json", &prompt]),
    );
    add("config list", run(&["config", "list"]));
    add(
        "config get",
        run(&["config", "get", "providers.mock.env.S0"]),
    );
    add("doctor", run(&["doctor"]));
    add("agents", run(&["agents"]));
    add("agents --json", run(&["agents", "--json"]));
    add("sessions", run(&["sessions"]));
    let (addr, server) = echoing_provider();
    for json in [false, true] {
        let mut c = cohost(&home);
        c.env("OPENAI_BASE_URL", format!("http://{addr}/v1"))
            .env("OPENAI_API_KEY", OPENAI_KEY)
            .args(["run", "--agent", "openai", "--model", "fake-model"]);
        if json {
            c.arg("--json");
        }
        add(
            if json {
                "provider error --json"
            } else {
                "provider error"
            },
            c.arg("hi").output().unwrap(),
        );
    }
    drop(server);
    let secrets = secrets();
    let mut dirty = Vec::new();
    for (name, out) in &channels {
        let leaked: Vec<&str> = secrets
            .iter()
            .filter(|(_, s)| out.contains(s.as_str()))
            .map(|(l, _)| l.as_str())
            .collect();
        if !leaked.is_empty() {
            dirty.push(format!("{name}: {leaked:?}"));
        }
    }
    eprintln!(
        "{} of {} channels clean",
        channels.len() - dirty.len(),
        channels.len()
    );
    // The channels really carried the seeded text (redacted).
    let joined: String = channels.iter().map(|(_, o)| o.as_str()).collect();
    assert!(
        joined.matches("[REDACTED]").count() > 100,
        "nothing was seeded?"
    );
    assert!(dirty.is_empty(), "leaks:\n{}", dirty.join("\n"));
}

/// Secrets that only their JSON key gives away (`{"env": {"token": "…"}}`,
/// arrays, deep objects) in a JSONL plugin's tool calls and results: `run`
/// in human and `--json` output prints none of them. Before keys were
/// read, the nested token came out whole in both.
#[test]
fn a_plugin_tool_call_with_secret_keys_prints_no_part_of_them() {
    use cohost_core::sanitize::corpus::STRUCTURED;
    let home = tempfile::tempdir().unwrap();
    // 32 random characters, no shape any text rule knows.
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).unwrap();
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let token: String = raw
        .iter()
        .map(|b| ABC[*b as usize % ABC.len()] as char)
        .collect();
    let mut docs: Vec<serde_json::Value> =
        vec![serde_json::json!({"cmd": "deploy", "env": {"token": token}})];
    docs.extend(
        STRUCTURED
            .iter()
            .map(|(_, d, _)| serde_json::from_str(d).unwrap()),
    );
    let mut lines = String::new();
    for (i, doc) in docs.iter().enumerate() {
        let call = serde_json::json!({"type": "tool", "id": format!("t{i}"), "name": "run_shell", "args": doc});
        let done = serde_json::json!({"type": "tool_done", "id": format!("t{i}"), "out": doc, "failed": false});
        lines.push_str(&format!("{call}\n{done}\n"));
    }
    lines.push_str("{\"type\":\"delta\",\"text\":\"done\"}\n{\"type\":\"done\"}\n");
    let data = home.path().join("lines.jsonl");
    std::fs::write(&data, lines).unwrap();
    // Shell built-ins only: the test's PATH holds nothing else.
    let script = home.path().join("nested-agent");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nwhile IFS= read -r l; do printf '%s\\n' \"$l\"; done < '{}'\n",
            data.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agents = home.path().join(".cohost/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("nested.toml"),
        format!(
            "id = \"nested\"\nbinary = \"{}\"\nprotocol = \"jsonl\"\nargs = [\"{{prompt}}\"]\n\
             [jsonl]\ntype = \"type\"\ntext = {{ when = \"delta\", path = \"text\" }}\n\
             tool_call = {{ when = \"tool\", id = \"id\", name = \"name\", input = \"args\" }}\n\
             tool_result = {{ when = \"tool_done\", id = \"id\", output = \"out\", error = \"failed\" }}\n\
             end = {{ when = \"done\" }}\n",
            script.display()
        ),
    )
    .unwrap();
    let mut secrets: Vec<(&str, String)> = vec![
        ("token (head)", token[..12].to_string()),
        ("token (tail)", token[20..].to_string()),
    ];
    secrets.extend(STRUCTURED.iter().map(|(l, _, s)| (*l, s.to_string())));
    for json in [true, false] {
        let mut c = cohost(&home);
        c.args(["run", "--agent", "nested", "--approve", "all"]);
        if json {
            c.arg("--json");
        }
        let out = c.arg("go").output().unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let all = format!("{stdout}{stderr}");
        // The calls were shown (redacted), not dropped.
        assert!(all.contains("run_shell"), "{all}");
        assert!(all.matches("[REDACTED]").count() >= 2 * docs.len(), "{all}");
        let leaked: Vec<&str> = secrets
            .iter()
            .filter(|(_, s)| all.contains(s.as_str()))
            .map(|(l, _)| *l)
            .collect();
        assert!(leaked.is_empty(), "json={json}: {leaked:?} in\n{all}");
    }
}
