//! The ACP server's errors pass its host's sanitizer, not the process's.

use super::*;
use crate::hub::{planted_host, HubLimits};

#[test]
fn errors_pass_the_hosts_sanitizer() {
    let home = tempfile::tempdir().unwrap();
    let (host, planted) = planted_host(home.path());
    let st = AcpState::new(Hub::new(host, HubLimits::default(), None));
    let refused = client_cwd(&st, format!("relative/{planted}").into()).unwrap_err();
    let e = CohostError::new(ErrorCode::NetworkError, format!("refused {planted}"))
        .with_fix(format!("unset {planted}"));
    for shown in [refused, st.rpc_error(&e)] {
        let all = format!(
            "{} {}",
            shown.message,
            shown.data.clone().unwrap_or_default()
        );
        assert!(all.contains("[REDACTED]"), "{all}");
        assert!(!all.contains(planted), "{all}");
    }
}
