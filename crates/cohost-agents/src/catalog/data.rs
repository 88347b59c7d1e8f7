//! The table itself. Tested entries were checked against the pinned
//! versions (`tests/agents/README.md`); fixture-only entries come from the
//! vendors' public docs. Where seed 001 and the installed tool disagree, the
//! tool wins (codex 0.171 has no `--full-auto`; its bypass flag is
//! `--dangerously-bypass-approvals-and-sandbox`).

use super::{AuthSpec, CliEntry, Evidence, FlagTable, PromptArg, ServerEntry};

const NO_AUTH: AuthSpec = AuthSpec {
    env_vars: &[],
    credential_files: &[],
    status_args: None,
};

pub(super) const NO_FLAGS: FlagTable = FlagTable {
    non_interactive: &[],
    query_prompt: PromptArg::Positional,
    terminal_prompt: PromptArg::Positional,
    resume: None,
    continue_latest: None,
    skip_permissions: None,
    model: None,
    json_output: None,
    stream_json: None,
    stream_session: None,
};

/// ACP wrappers take everything over JSON-RPC on stdin.
const ACP_FLAGS: FlagTable = FlagTable {
    query_prompt: PromptArg::Stdin,
    terminal_prompt: PromptArg::Stdin,
    ..NO_FLAGS
};

const BASE: CliEntry = CliEntry {
    id: "",
    label: "",
    binaries: &[],
    vendor_dirs: &[],
    version_args: &["--version"],
    pin_key: None,
    auth: NO_AUTH,
    login_args: None,
    login_binary: None,
    install_hint: "",
    env_prefixes: &[],
    relevant_env: &[],
    flags: NO_FLAGS,
    token_streaming: false,
    api_provider: None,
    models: &[],
    evidence: Evidence::Tested,
};

const CLAUDE_AUTH: AuthSpec = AuthSpec {
    env_vars: &[
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ],
    credential_files: &[".claude/.credentials.json"],
    // Prints JSON `{"loggedIn":…}`, exits 1 when logged out; no model call.
    status_args: Some(&["auth", "status"]),
};

const CODEX_AUTH: AuthSpec = AuthSpec {
    env_vars: &["OPENAI_API_KEY", "CODEX_API_KEY"],
    credential_files: &[".codex/auth.json"],
    // "Not logged in" and exit 1 when logged out.
    status_args: Some(&["login", "status"]),
};

/// Every known agent CLI.
pub static CLIS: &[CliEntry] = &[
    CliEntry {
        id: "claude",
        label: "Claude Code",
        binaries: &["claude"],
        vendor_dirs: &[".claude/local"],
        pin_key: Some("CLAUDE_CODE_VERSION"),
        auth: CLAUDE_AUTH,
        login_args: Some(&["auth", "login"]),
        install_hint: "npm install -g @anthropic-ai/claude-code",
        env_prefixes: &["ANTHROPIC_", "CLAUDE_"],
        relevant_env: &[
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "ANTHROPIC_MODEL",
            "CLAUDE_CONFIG_DIR",
        ],
        flags: FlagTable {
            non_interactive: &["-p"],
            resume: Some(&["--resume", "{id}"]),
            continue_latest: Some(&["--continue"]),
            skip_permissions: Some(&["--dangerously-skip-permissions"]),
            model: Some("--model"),
            json_output: Some(&["--output-format", "json"]),
            stream_json: Some(&[
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-partial-messages",
            ]),
            stream_session: Some(&[
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-partial-messages",
            ]),
            ..NO_FLAGS
        },
        token_streaming: true,
        api_provider: Some("anthropic"),
        ..BASE
    },
    CliEntry {
        id: "codex",
        label: "Codex CLI",
        binaries: &["codex"],
        pin_key: Some("CODEX_VERSION"),
        auth: CODEX_AUTH,
        login_args: Some(&["login"]),
        install_hint: "npm install -g @openai/codex",
        env_prefixes: &["OPENAI_", "CODEX_"],
        relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_HOME"],
        flags: FlagTable {
            non_interactive: &["exec"],
            resume: Some(&["resume", "{id}"]),
            continue_latest: Some(&["resume", "--last"]),
            skip_permissions: Some(&["--dangerously-bypass-approvals-and-sandbox"]),
            // `-m` is what the exec driver passes (proven by codex_e2e).
            model: Some("-m"),
            json_output: Some(&["--json"]),
            stream_json: Some(&["--json"]),
            ..NO_FLAGS
        },
        // `codex exec --json` has whole items, no text deltas.
        token_streaming: false,
        api_provider: Some("openai"),
        ..BASE
    },
    CliEntry {
        id: "gemini",
        label: "Gemini CLI",
        binaries: &["gemini"],
        pin_key: Some("GEMINI_CLI_VERSION"),
        auth: AuthSpec {
            env_vars: &[
                "GEMINI_API_KEY",
                "GOOGLE_API_KEY",
                "GOOGLE_GENAI_USE_VERTEXAI",
                "GOOGLE_GENAI_USE_GCA",
            ],
            credential_files: &[".gemini/oauth_creds.json"],
            status_args: None,
        },
        // Gemini signs in from its own TUI ("Login with Google").
        login_args: Some(&[]),
        install_hint: "npm install -g @google/gemini-cli",
        env_prefixes: &["GEMINI_", "GOOGLE_"],
        relevant_env: &[
            "GEMINI_API_KEY",
            "GOOGLE_GEMINI_BASE_URL",
            "GEMINI_CLI_HOME",
        ],
        flags: FlagTable {
            // `--prompt=TEXT`: a prompt starting with `-` stays a prompt.
            query_prompt: PromptArg::Joined("--prompt"),
            terminal_prompt: PromptArg::InitialInput,
            // 0.61 `--resume` takes `latest` or an index; ids need `--session-id`.
            resume: Some(&["--resume", "{id}"]),
            continue_latest: Some(&["--resume", "latest"]),
            // The driver's spelling; `--yolo` is the older alias.
            skip_permissions: Some(&["--approval-mode", "yolo"]),
            model: Some("--model"),
            json_output: Some(&["--output-format", "json"]),
            stream_json: Some(&["--output-format", "stream-json"]),
            ..NO_FLAGS
        },
        token_streaming: true,
        api_provider: Some("gemini-api"),
        ..BASE
    },
    CliEntry {
        id: "qwen",
        label: "Qwen Code",
        binaries: &["qwen"],
        pin_key: Some("QWEN_CODE_VERSION"),
        auth: AuthSpec {
            env_vars: &["OPENAI_API_KEY", "DASHSCOPE_API_KEY"],
            credential_files: &[".qwen/oauth_creds.json"],
            status_args: None,
        },
        login_args: Some(&[]),
        install_hint: "npm install -g @qwen-code/qwen-code",
        env_prefixes: &["OPENAI_", "QWEN_", "DASHSCOPE_"],
        relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"],
        flags: FlagTable {
            terminal_prompt: PromptArg::InitialInput,
            resume: Some(&["--resume", "{id}"]),
            continue_latest: Some(&["--continue"]),
            // The driver's spellings (qwen_e2e); `--yolo`/`--model` are aliases.
            skip_permissions: Some(&["--approval-mode", "yolo"]),
            model: Some("-m"),
            json_output: Some(&["--output-format", "json"]),
            stream_json: Some(&[
                "--output-format",
                "stream-json",
                "--include-partial-messages",
            ]),
            stream_session: Some(&[
                "-o",
                "stream-json",
                "--input-format",
                "stream-json",
                "--include-partial-messages",
            ]),
            ..NO_FLAGS
        },
        token_streaming: true,
        api_provider: Some("openai"),
        ..BASE
    },
    CliEntry {
        id: "opencode",
        label: "OpenCode",
        binaries: &["opencode"],
        vendor_dirs: &[".opencode/bin"],
        pin_key: Some("OPENCODE_VERSION"),
        auth: AuthSpec {
            env_vars: &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"],
            credential_files: &[".local/share/opencode/auth.json"],
            status_args: None,
        },
        login_args: Some(&["auth", "login"]),
        install_hint: "npm install -g opencode-ai",
        env_prefixes: &["OPENCODE_"],
        relevant_env: &["OPENCODE_CONFIG", "OPENCODE_PERMISSION"],
        flags: FlagTable {
            non_interactive: &["run"],
            terminal_prompt: PromptArg::Flag("--prompt"),
            // Short forms, as the driver passes them (opencode_e2e).
            resume: Some(&["-s", "{id}"]),
            continue_latest: Some(&["--continue"]),
            skip_permissions: Some(&["--auto"]),
            model: Some("-m"),
            json_output: Some(&["--format", "json"]),
            stream_json: Some(&["--format", "json"]),
            ..NO_FLAGS
        },
        ..BASE
    },
    CliEntry {
        id: "copilot",
        label: "GitHub Copilot CLI",
        binaries: &["copilot"],
        pin_key: Some("COPILOT_VERSION"),
        auth: AuthSpec {
            env_vars: &[
                "COPILOT_GITHUB_TOKEN",
                "GH_TOKEN",
                "GITHUB_TOKEN",
                "COPILOT_PROVIDER_API_KEY",
            ],
            credential_files: &[],
            status_args: None,
        },
        login_args: Some(&["login"]),
        install_hint: "npm install -g @github/copilot",
        env_prefixes: &["COPILOT_"],
        relevant_env: &["COPILOT_PROVIDER_BASE_URL", "COPILOT_MODEL", "COPILOT_HOME"],
        flags: FlagTable {
            query_prompt: PromptArg::Joined("--prompt"),
            terminal_prompt: PromptArg::InitialInput,
            resume: Some(&["--resume", "{id}"]),
            continue_latest: Some(&["--continue"]),
            skip_permissions: Some(&["--allow-all-tools"]),
            model: Some("--model"),
            json_output: Some(&["--output-format", "json"]),
            stream_json: Some(&["--output-format", "json"]),
            ..NO_FLAGS
        },
        token_streaming: true,
        ..BASE
    },
    CliEntry {
        id: "aider",
        label: "Aider",
        binaries: &["aider"],
        pin_key: Some("AIDER_VERSION"),
        auth: AuthSpec {
            env_vars: &[
                "OPENAI_API_KEY",
                "ANTHROPIC_API_KEY",
                "GEMINI_API_KEY",
                "OPENROUTER_API_KEY",
                "DEEPSEEK_API_KEY",
            ],
            credential_files: &[],
            status_args: None,
        },
        install_hint: "pipx install aider-chat",
        env_prefixes: &["AIDER_"],
        relevant_env: &["OPENAI_API_BASE", "OPENAI_API_KEY", "AIDER_MODEL"],
        flags: FlagTable {
            query_prompt: PromptArg::Flag("--message"),
            terminal_prompt: PromptArg::InitialInput,
            continue_latest: Some(&["--restore-chat-history"]),
            skip_permissions: Some(&["--yes-always"]),
            model: Some("--model"),
            ..NO_FLAGS
        },
        token_streaming: true,
        ..BASE
    },
    CliEntry {
        id: "continue",
        label: "Continue CLI",
        binaries: &["cn"],
        pin_key: Some("CONTINUE_CLI_VERSION"),
        auth: AuthSpec {
            env_vars: &["CONTINUE_API_KEY"],
            credential_files: &[".continue/auth.json"],
            status_args: None,
        },
        login_args: Some(&["login"]),
        install_hint: "npm install -g @continuedev/cli",
        env_prefixes: &["CONTINUE_"],
        relevant_env: &["CONTINUE_GLOBAL_DIR"],
        flags: FlagTable {
            non_interactive: &["-p"],
            // `--resume` resumes the last session; there is no by-id resume.
            continue_latest: Some(&["--resume"]),
            skip_permissions: Some(&["--auto"]),
            json_output: Some(&["--format", "json"]),
            ..NO_FLAGS
        },
        ..BASE
    },
    CliEntry {
        id: "cursor",
        label: "Cursor Agent",
        binaries: &["cursor-agent"],
        auth: AuthSpec {
            env_vars: &["CURSOR_API_KEY"],
            credential_files: &[],
            status_args: Some(&["status"]),
        },
        login_args: Some(&["login"]),
        install_hint: "curl https://cursor.com/install -fsS | bash",
        env_prefixes: &["CURSOR_"],
        flags: FlagTable {
            non_interactive: &["-p"],
            resume: Some(&["--resume", "{id}"]),
            continue_latest: Some(&["resume"]),
            skip_permissions: Some(&["--force"]),
            model: Some("--model"),
            json_output: Some(&["--output-format", "json"]),
            // The driver does not pass `--stream-partial-output`.
            stream_json: Some(&["--output-format", "stream-json"]),
            ..NO_FLAGS
        },
        token_streaming: true,
        evidence: Evidence::FixtureOnly,
        ..BASE
    },
    CliEntry {
        id: "goose",
        label: "Goose",
        binaries: &["goose"],
        auth: AuthSpec {
            env_vars: &["GOOSE_PROVIDER"],
            credential_files: &[".config/goose/config.yaml"],
            status_args: None,
        },
        login_args: Some(&["configure"]),
        install_hint: "see https://block.github.io/goose/docs/getting-started/installation",
        env_prefixes: &["GOOSE_"],
        relevant_env: &["GOOSE_PROVIDER", "GOOSE_MODEL", "GOOSE_MODE"],
        flags: FlagTable {
            non_interactive: &["run"],
            query_prompt: PromptArg::Flag("--text"),
            terminal_prompt: PromptArg::InitialInput,
            resume: Some(&["--name", "{id}", "--resume"]),
            continue_latest: Some(&["--resume"]),
            model: Some("--model"),
            json_output: Some(&["--output-format", "json"]),
            stream_json: Some(&["--output-format", "stream-json"]),
            ..NO_FLAGS
        },
        token_streaming: true,
        evidence: Evidence::FixtureOnly,
        ..BASE
    },
    CliEntry {
        id: "agy",
        label: "Antigravity CLI",
        binaries: &["agy"],
        // Signs in with a Google account from its own TUI.
        login_args: Some(&[]),
        install_hint: "install Google Antigravity and put `agy` on PATH",
        flags: FlagTable {
            query_prompt: PromptArg::Flag("-p"),
            terminal_prompt: PromptArg::InitialInput,
            resume: Some(&["--conversation", "{id}"]),
            model: Some("--model"),
            stream_json: Some(&["--output-format", "stream-json"]),
            ..NO_FLAGS
        },
        token_streaming: true,
        evidence: Evidence::FixtureOnly,
        ..BASE
    },
    CliEntry {
        id: "kiro",
        label: "Kiro CLI",
        binaries: &["kiro-cli"],
        auth: AuthSpec {
            status_args: Some(&["whoami"]),
            ..NO_AUTH
        },
        login_args: Some(&["login"]),
        install_hint: "see https://kiro.dev/docs/cli/installation",
        flags: FlagTable {
            non_interactive: &["chat", "--no-interactive"],
            terminal_prompt: PromptArg::InitialInput,
            continue_latest: Some(&["--resume"]),
            skip_permissions: Some(&["--trust-all-tools"]),
            model: Some("--model"),
            ..NO_FLAGS
        },
        evidence: Evidence::FixtureOnly,
        ..BASE
    },
    CliEntry {
        id: "claude-acp",
        label: "Claude Code (ACP)",
        binaries: &["claude-code-acp"],
        // No `--version`; ACP `initialize` reports it.
        version_args: &[],
        pin_key: Some("CLAUDE_CODE_ACP_VERSION"),
        auth: CLAUDE_AUTH,
        login_args: Some(&["auth", "login"]),
        login_binary: Some("claude"),
        install_hint: "npm install -g @zed-industries/claude-code-acp",
        env_prefixes: &["ANTHROPIC_", "CLAUDE_"],
        relevant_env: &[
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "CLAUDE_CODE_EXECUTABLE",
        ],
        flags: ACP_FLAGS,
        token_streaming: true,
        ..BASE
    },
    CliEntry {
        id: "codex-acp",
        label: "Codex (ACP)",
        binaries: &["codex-acp"],
        version_args: &[],
        pin_key: Some("CODEX_ACP_VERSION"),
        auth: CODEX_AUTH,
        login_args: Some(&["login"]),
        login_binary: Some("codex"),
        install_hint: "npm install -g @zed-industries/codex-acp",
        env_prefixes: &["OPENAI_", "CODEX_"],
        relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_HOME"],
        flags: ACP_FLAGS,
        token_streaming: true,
        ..BASE
    },
];

/// Known local model servers.
pub static SERVERS: &[ServerEntry] = &[
    ServerEntry {
        id: "ollama",
        label: "Ollama",
        host_env: Some("OLLAMA_HOST"),
        default_base: "http://127.0.0.1:11434",
        probe_path: "/api/tags",
        install_hint: "install Ollama from https://ollama.com and run `ollama serve`",
    },
    ServerEntry {
        id: "lmstudio",
        label: "LM Studio",
        host_env: None,
        default_base: "http://127.0.0.1:1234",
        probe_path: "/v1/models",
        install_hint: "start LM Studio's local server (Developer tab, port 1234)",
    },
];

/// Variables holding the API key of each built-in HTTP provider, as the
/// vendors' SDKs read them.
pub static API_KEYS: &[(&str, &[&str])] = &[
    ("anthropic", &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]),
    ("openai", &["OPENAI_API_KEY"]),
    ("gemini-api", &["GEMINI_API_KEY", "GOOGLE_API_KEY"]),
    ("openrouter", &["OPENROUTER_API_KEY"]),
    ("litellm", &["LITELLM_API_KEY"]),
];
