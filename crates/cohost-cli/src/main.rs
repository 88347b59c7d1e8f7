//! `cohost`: one runtime that drives every AI coding agent through one port.
//!
//! This binary is the composition root: it builds the provider registry from
//! the adapter crates, wires decision sources and renderers, and maps errors
//! to documented exit codes (`exit.rs`): every command returns
//! `Result<code, Failure>` and `main` reports a failure once.
#![allow(
    clippy::print_stderr,
    reason = "the binary's last words when it cannot even start"
)]
#![forbid(unsafe_code)]

use cohost_cli::cmd;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// How diagnostics are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

/// One port, many agents: drive AI coding agents and share sessions.
#[derive(Debug, Parser)]
#[command(name = "cohost", version, long_about = None, after_help = EXAMPLES)]
struct Cli {
    /// Log filter for diagnostics on stderr (e.g. `debug`, `cohost_core=trace`).
    #[arg(long, global = true, env = "COHOST_LOG", default_value = "warn")]
    log: String,

    /// Log format on stderr: `text` for people, `json` (one object a line,
    /// header fields only, never a payload) for log collectors.
    #[arg(long, global = true, env = "COHOST_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,

    /// Without one, on a terminal: `cohost chat`.
    #[command(subcommand)]
    command: Option<Command>,
}

/// Shown after `cohost --help`.
const EXAMPLES: &str = "\
Examples:
  cohost run \"explain this repo\"              the first installed agent, else the built-in mock
  cohost run --agent claude --approve ask \"add a test\"
  cohost run --resume s-1a2b3c4d \"and now the tests\"
  cohost agents                                what is installed, and how to fix what is not
  cohost share --agent codex                   host a session; prints invites
  cohost join                                  join a shared session: paste the invite a host gave you
  cohost completions bash > ~/.local/share/bash-completion/completions/cohost";

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one prompt on an agent and stream the answer.
    Run(cmd::run::RunArgs),
    /// An interactive session in the terminal (also `cohost` alone).
    Chat(cmd::chat::ChatArgs),
    /// List the registered providers with kind and capabilities.
    Agents(cmd::agents::AgentsArgs),
    /// Serve cohost's deterministic fake model server on 127.0.0.1.
    #[command(name = "fake-llm")]
    FakeLlm(cmd::fake_llm::FakeLlmArgs),
    /// Run a zero-knowledge relay for shared sessions.
    Relay(cmd::relay::RelayArgs),
    /// Share a local agent session through a relay (you are the host).
    Share(cmd::share::ShareArgs),
    /// Join a shared session with an invite (headless).
    Join(cmd::join::JoinArgs),
    /// Check everything: config, providers, credentials, hooks; with fixes.
    Doctor(cmd::doctor::DoctorArgs),
    /// Smoke-test a provider ("Reply exactly: OK"), cached per configuration.
    Test(cmd::test_provider::TestArgs),
    /// Run a provider's own login flow in this terminal.
    Login(cmd::login::LoginArgs),
    /// Read and change cohost's config (capability slots, providers).
    Config(cmd::config::ConfigArgs),
    /// Install, remove or inspect cohost's hooks in agent settings.
    Hooks(cmd::hooks::HooksArgs),
    /// Forward an agent hook's JSON to a running cohost (called by the hooks).
    #[command(name = "hook-event", hide = true)]
    HookEvent(cmd::hooks::HookEventArgs),
    /// The MCP server an agent of a room starts to ask the others (started
    /// by the agents themselves).
    #[command(name = "room-bridge", hide = true)]
    RoomBridge,
    /// List stored sessions.
    Sessions(cmd::sessions::SessionsArgs),
    /// Show what a session's turns changed in its working tree.
    Diff(cmd::diff::DiffArgs),
    /// Put back what a session's last turn (or turns) changed.
    Undo(cmd::undo::UndoArgs),
    /// Sessions' own git worktrees: list, apply, merge, discard.
    Worktree(cmd::worktree::WorktreeArgs),
    /// A session's signed record: verify it (or an export), show the host key.
    Record(cmd::record::RecordArgs),
    /// Write a session's transcript (HTML, Markdown, JSON) carrying its record.
    Export(cmd::record::ExportArgs),
    /// The model price table budgets are counted with: show, refresh.
    Prices(cmd::prices::PricesArgs),
    /// Serve the local settings and sessions API on 127.0.0.1.
    Serve(cmd::serve::ServeArgs),
    /// Serve cohost's agents as MCP tools (stdio; --http for streamable HTTP).
    Mcp(cmd::mcp::McpArgs),
    /// Be an ACP agent on stdio (for Zed and other ACP clients).
    Acp(cmd::acp::AcpArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print cohost's man page (roff) on stdout: `cohost man | man -l -`.
    Man,
}

impl Command {
    /// Whether the command was asked for JSON output (errors follow suit).
    fn json(&self) -> bool {
        match self {
            Command::Run(a) => a.json,
            Command::Agents(a) => a.json,
            Command::Share(a) => a.json,
            Command::Join(a) => a.json,
            Command::Doctor(a) => a.json,
            Command::Test(a) => a.json,
            Command::Sessions(a) => a.json,
            Command::Diff(a) => a.json,
            Command::Undo(a) => a.json,
            Command::Worktree(a) => a.json,
            Command::Record(a) => {
                matches!(&a.action, cmd::record::RecordAction::Verify(v) if v.json)
            }
            Command::FakeLlm(_)
            | Command::Chat(_)
            | Command::Relay(_)
            | Command::Login(_)
            | Command::Config(_)
            | Command::Hooks(_)
            | Command::HookEvent(_)
            | Command::RoomBridge
            | Command::Serve(_)
            | Command::Prices(_)
            | Command::Export(_)
            | Command::Mcp(_)
            | Command::Acp(_)
            | Command::Completions { .. }
            | Command::Man => false,
        }
    }
}

fn main() -> ExitCode {
    // The per-agent supervisor is this binary in a hidden mode; it must not
    // parse flags, log or start a runtime.
    if let Some(code) = cohost_agents::process::supervisor::run_helper_if_requested() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    cohost_agents::process::supervisor::use_current_exe();
    let cli = Cli::parse();
    // The secret patterns compile on a thread of their own while the rest
    // of start-up runs, except for `run`: there, a few milliseconds of
    // compiling beside a start-up that is over as soon as the agent is
    // spawned delayed the spawn (measured: the two threads contend for the
    // 2-core machine and its memory map), so the compile starts with the
    // agent instead (every agent spawn calls this), while it boots.
    if !matches!(cli.command, Some(Command::Run(_))) {
        cohost_core::sanitize::precompile();
    }
    // Before anything prints or logs: the sanitizer learns every secret
    // value cohost knows (environment, config, credential files).
    cohost_cli::secrets::install();
    let filter = || {
        // The WebSocket library logs whole frames at TRACE: cap it so no
        // payload byte reaches a log, whatever the user's filter says.
        tracing_subscriber::EnvFilter::try_new(format!(
            "{},{}",
            cli.log,
            cohost_relay::LOG_DIRECTIVES
        ))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"))
    };
    // Colour only for a person at a terminal: a pipe or file (CI, `--json`
    // readers) gets plain text, whichever crate logged the line.
    let colour = {
        use std::io::IsTerminal;
        std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
    };
    let logs = tracing_subscriber::fmt()
        .with_ansi(colour)
        .with_env_filter(filter())
        .with_writer(|| cohost_cli::secrets::CleanStderr);
    match cli.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().flatten_event(true).init(),
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cohost: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let Some(command) = cli
        .command
        .or_else(|| cmd::screen::on_terminal().then(|| Command::Chat(Default::default())))
    else {
        let _ = Cli::command().print_help();
        return ExitCode::from(2);
    };
    let json = command.json();
    let result = runtime.block_on(async move {
        let result = match command {
            Command::Run(args) if cmd::run::is_room(&args) => cmd::compare::run(args).await,
            Command::Run(args) => cmd::run::run(args).await,
            Command::Mcp(args) => cmd::mcp::run(args).await,
            Command::RoomBridge => cmd::room_bridge::run().await,
            Command::Acp(args) => cmd::acp::run(args).await,
            Command::Chat(args) => cmd::chat::run(args).await,
            Command::Agents(args) => cmd::agents::run(args).await,
            Command::FakeLlm(args) => cmd::fake_llm::run(args).await,
            Command::Relay(args) => cmd::relay::run(args).await,
            Command::Share(args) => cmd::share::run(args).await,
            Command::Join(args) => cmd::join::run(args).await,
            Command::Doctor(args) => cmd::doctor::run(args).await,
            Command::Test(args) => cmd::test_provider::run(args).await,
            Command::Login(args) => cmd::login::run(args).await,
            Command::Config(args) => cmd::config::run(args).await,
            Command::Hooks(args) => cmd::hooks::run(args).await,
            Command::HookEvent(args) => cmd::hooks::hook_event(args).await,
            Command::Sessions(args) => cmd::sessions::run(args).await,
            Command::Diff(args) => cmd::diff::run(args).await,
            Command::Undo(args) => cmd::undo::run(args).await,
            Command::Worktree(args) => cmd::worktree::run(args).await,
            Command::Record(args) => cmd::record::run(args).await,
            Command::Export(args) => cmd::record::export(args).await,
            Command::Serve(args) => cmd::serve::run(args).await,
            Command::Prices(args) => cmd::prices::run(args).await,
            Command::Completions { shell } => completions(shell),
            Command::Man => man_page(),
        };
        // Every session's record gets its end entry before cohost exits.
        cohost_host::record::finish(std::time::Duration::from_secs(3)).await;
        result
    });
    // Agents' process groups die with us even on an error path.
    cohost_agents::process::kill_all();
    // A blocking read (a prompt, stdin) must not keep cohost alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    // The one place a command's failure is shown (human, or JSON under --json).
    let code = cohost_cli::exit::report(result, json);
    ExitCode::from(cohost_cli::signals::exit_code(code))
}

/// `cohost completions SHELL` (clap_complete panics when its writer fails,
/// so it renders into memory first).
fn completions(shell: clap_complete::Shell) -> cohost_cli::exit::CmdResult {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "cohost", &mut out);
    print_rendered(&out)
}

/// `cohost man`: the man page of the whole command line.
fn man_page() -> cohost_cli::exit::CmdResult {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| cohost_cli::exit::internal(format!("cannot render the man page: {e}")))?;
    print_rendered(&out)
}

/// Writes a rendered page to stdout, best effort: `cohost man | head`
/// closes the pipe early, and that is no failure.
fn print_rendered(out: &[u8]) -> cohost_cli::exit::CmdResult {
    use std::io::Write;
    let _ = std::io::stdout().write_all(out);
    Ok(0)
}
