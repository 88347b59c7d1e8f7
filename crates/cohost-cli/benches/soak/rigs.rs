//! The agents a soak cycle can run, each with the marker that finds every
//! process it started.

use std::process::{Command, Stdio};

use cohost_testbench::{AgentCli, Bench};

use crate::orphans_support::{tree_plugin, TreeRig, MARK_VAR};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Mock,
    Tree,
    Claude,
    Codex,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Mock => "mock",
            Agent::Tree => "tree",
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }
}

/// One scratch world per agent, reused by every cycle (each cycle ends
/// with no marked process left, or counts them as orphans and kills them).
pub struct Rigs {
    pub tree: TreeRig,
    pub claude: Option<Bench>,
    pub codex: Option<Bench>,
}

/// cohost passes codex only its own variables, but the bench's codex
/// config reads its key from `FAKE_API_KEY`: a wrapper on PATH sets it and
/// execs the real codex (same pid). Returns the PATH to use.
fn codex_wrapper(rigs: &Rigs, b: &Bench) -> String {
    let dir = rigs.tree.dir.path().join("codex-wrap");
    let env = b.env();
    let key = env.get("FAKE_API_KEY").cloned().unwrap_or_default();
    if let Some(real) = b.bin_path(AgentCli::Codex) {
        let _ = std::fs::create_dir_all(&dir);
        let script = dir.join("codex");
        let body = format!(
            "#!/bin/sh\nFAKE_API_KEY='{key}' exec '{}' \"$@\"\n",
            real.display()
        );
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::write(&script, body);
        let _ = std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755));
    }
    format!(
        "{}:{}",
        dir.display(),
        env.get("PATH").cloned().unwrap_or_default()
    )
}

async fn bench(cli: AgentCli) -> Option<Bench> {
    let b = Bench::start(cli).await.ok()?;
    if b.bin_path(cli).is_some() {
        Some(b)
    } else {
        println!(
            "soak: {} is not installed; its cycles are skipped",
            cli.name()
        );
        None
    }
}

impl Rigs {
    pub async fn start() -> Rigs {
        Rigs {
            tree: tree_plugin(),
            claude: bench(AgentCli::Claude).await,
            codex: bench(AgentCli::Codex).await,
        }
    }

    pub fn available(&self) -> Vec<Agent> {
        let mut v = vec![Agent::Mock, Agent::Tree];
        if self.claude.is_some() {
            v.push(Agent::Claude);
        }
        if self.codex.is_some() {
            v.push(Agent::Codex);
        }
        v
    }

    pub fn bench(&self, agent: Agent) -> Option<&Bench> {
        match agent {
            Agent::Claude => self.claude.as_ref(),
            Agent::Codex => self.codex.as_ref(),
            _ => None,
        }
    }

    /// `(variable, value)` every process of `agent` carries.
    pub fn marker(&self, agent: Agent) -> (String, String) {
        match self.bench(agent) {
            // The scratch HOME is unique and passes cohost's env allowlist.
            Some(b) => ("HOME".into(), b.home().display().to_string()),
            None if agent == Agent::Tree => (MARK_VAR.into(), self.tree.marker.clone()),
            None => (
                "HOME".into(),
                self.tree.dir.path().join("home").display().to_string(),
            ),
        }
    }

    /// `cohost ARGS` in `agent`'s world, stdout piped, the rest discarded.
    pub fn command(&self, agent: Agent, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cohost"));
        c.args(args)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(if std::env::var_os("SOAK_VERBOSE").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        match self.bench(agent) {
            Some(b) => {
                c.envs(b.env()).current_dir(b.cwd());
                if agent == Agent::Codex {
                    c.env("PATH", codex_wrapper(self, b));
                }
            }
            None => {
                c.env("PATH", "/usr/local/bin:/usr/bin:/bin")
                    .env("HOME", self.tree.dir.path().join("home"))
                    .env("NO_COLOR", "1")
                    .current_dir(self.tree.dir.path());
            }
        }
        c
    }
}
