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
