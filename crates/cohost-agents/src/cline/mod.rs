//! Cline's CLI (provider id `cline`, npm `cline`), driven only over ACP:
//! `cline --acp` answers `initialize` with `loadSession` and image prompts,
//! asks `session/request_permission` before tools, takes `session/cancel`
//! and `session/load` (checked on the pinned 3.0.65 against
//! cohost-fakellm). Its `--json` mode streams deltas but can neither ask
//! for approval headless nor resume, so it is not driven (its captures are
//! kept as evidence beside the ACP ones).

use cohost_core::ResumeSupport;

use crate::acp::providers::{spec, ACP_CAPABILITIES, ACP_FLAGS};
use crate::acp::spec::AcpSpec;
use crate::catalog::{self, AcpMode, AuthSpec, CliEntry};
use crate::process::{Version, VersionRange};

/// Cline CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "cline",
    label: "Cline CLI",
    binaries: &["cline"],
    pin_key: Some("CLINE_VERSION"),
    auth: AuthSpec {
        env_vars: &["CLINE_API_KEY"],
        // `cline auth` writes the provider, its key and model here.
        credential_files: &[".cline/data/settings/providers.json"],
        status_args: None,
    },
    login_args: Some(&["auth"]),
    install_hint: "npm install -g cline",
    env_prefixes: &["CLINE_"],
    relevant_env: &[
        "CLINE_PROVIDER",
        "CLINE_MODEL",
        "CLINE_API_BASE_URL",
        "CLINE_DIR",
    ],
    flags: ACP_FLAGS,
    token_streaming: true,
    capabilities: ACP_CAPABILITIES,
    // 3.0.65 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(3, 0, 0),
        max_exclusive: Version::new(4, 0, 0),
    }),
    acp: Some(AcpMode {
        id: "cline",
        spec: launch,
    }),
    ..catalog::BASE
};

/// What every Cline process gets: its sessions in this process rather than
/// a background hub (by default a hub process is started on a fixed port
/// and outlives the run), and no self-update replacing the binary under a
/// running session.
const FIXED_ENV: &[(&str, &str)] = &[
    ("CLINE_SESSION_BACKEND_MODE", "local"),
    ("CLINE_NO_AUTO_UPDATE", "1"),
];

fn launch() -> AcpSpec {
    let mut s = spec(
        SPEC.id,
        SPEC.label,
        &SPEC,
        &["--acp"],
        &[],
        FIXED_ENV,
        ResumeSupport::NativeId,
    );
    // In ACP mode 3.0.65 ignores `--model`/`-m` and reads this; a model
    // stored with the provider in `providers.json` still wins over it
    // (seen against the fake server), which cohost does not yet override.
    s.model_env = Some("CLINE_MODEL".into());
    s
}
