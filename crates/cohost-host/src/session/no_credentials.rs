//! The sign-in hint on a network failure. An agent CLI with no credentials
//! never reaches its API's 401 when it cannot reach the API at all
//! (offline, a proxy, a firewall): Codex then retries "waiting for
//! network" for as long as the user waits, OpenCode gives up after about
//! a minute with NETWORK_ERROR. Both read as network trouble, although
//! the first thing the user must do is sign in. When cohost sees none of
//! the agent's credentials (its key variables, its credential files), the
//! first retry notice of a turn and every NETWORK_ERROR's fix say
//! so, with the login fix. Seeing none is not proof (a keychain, a key in
//! the agent's own config), so the hint is conditional, and it is never
//! more than a hint: the agent still runs.

use cohost_agents::catalog;
use cohost_core::{CohostError, ErrorCode, Event, EventBody, EventSink};

use cohost_discovery::config::HostConfig;
use cohost_discovery::host::Host;
use cohost_discovery::status::{credential_sources, visible_credentials};

/// The hint for provider `id`, when it is an agent CLI whose credentials
/// cohost can look for and finds none; `None` otherwise (found, an API or
/// server provider, a CLI without a known credential source).
pub(super) fn hint(host: &Host, cfg: &HostConfig, id: &str) -> Option<String> {
    let entry = catalog::cli_of(id)?;
    let looked = credential_sources(entry);
    if looked.is_empty() || visible_credentials(host, entry, &cfg.provider(id)).is_some() {
        return None;
    }
    let fix = catalog::login_fix(id)?;
    Some(format!(
        "cohost sees no {} credentials ({} not found); if it is not signed in, {fix}",
        entry.label,
        looked.join(", ")
    ))
}

/// Add `hint` to `e`'s fix when `e` is a NETWORK_ERROR (the turn's
/// outcome gets it as its error event did).
pub(super) fn add_to_fix(e: &mut CohostError, hint: &str) {
    if e.code == ErrorCode::NetworkError {
        e.suggested_fix = Some(match e.suggested_fix.take() {
            Some(fix) => format!("{fix}; {hint}"),
            None => hint.to_string(),
        });
    }
}

/// Whether a status notice says the agent retries a connection (Codex:
/// "Reconnecting... 2/5", then "waiting for network").
fn is_retry(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    ["retry", "reconnect", "network"]
        .iter()
        .any(|w| m.contains(w))
}

/// An [`EventSink`] that adds `hint` to the fix of every NETWORK_ERROR and
/// to the first retry notice of the turn, then passes each event on.
pub(super) struct Hinted<'a> {
    inner: &'a mut dyn EventSink,
    hint: &'a str,
    noticed: bool,
}

impl<'a> Hinted<'a> {
    /// Wrap `inner` for one turn.
    pub(super) fn new(inner: &'a mut dyn EventSink, hint: &'a str) -> Hinted<'a> {
        Hinted {
            inner,
            hint,
            noticed: false,
        }
    }
}

impl EventSink for Hinted<'_> {
    fn emit(&mut self, mut event: Event) {
        match &mut event.body {
            EventBody::Error(e) => add_to_fix(e, self.hint),
            EventBody::Status { message, .. } if !self.noticed && is_retry(message) => {
                self.noticed = true;
                message.push_str(" (");
                message.push_str(self.hint);
                message.push(')');
            }
            _ => {}
        }
        self.inner.emit(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(home: &std::path::Path, vars: &[(&str, &str)]) -> Host {
        Host::new(
            cohost_core::Registry::new(),
            cohost_discovery::env::DiscoveryEnv {
                home: Some(home.to_path_buf()),
                vars: vars
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..cohost_discovery::env::DiscoveryEnv::default()
            },
        )
    }

    #[test]
    fn the_hint_names_what_was_looked_for_and_the_login_fix() {
        let home = tempfile::tempdir().unwrap();
        let h = host(home.path(), &[]);
        let cfg = h.config().unwrap();
        let codex = hint(&h, &cfg, "codex").expect("no codex credentials");
        assert!(codex.contains("$OPENAI_API_KEY"), "{codex}");
        assert!(codex.contains("~/.codex/auth.json"), "{codex}");
        let fix = catalog::login_fix("codex").unwrap();
        assert!(codex.ends_with(&fix), "{codex}");
        // An ACP variant is signed in through its base CLI.
        let acp = hint(&h, &cfg, "opencode-acp").expect("no opencode credentials");
        assert!(
            acp.ends_with(&catalog::login_fix("opencode-acp").unwrap()),
            "{acp}"
        );
        // Not an agent CLI: nothing to say.
        assert_eq!(hint(&h, &cfg, "mock"), None);
    }

    #[test]
    fn no_hint_when_a_key_or_a_credential_file_is_there() {
        let home = tempfile::tempdir().unwrap();
        let h = host(home.path(), &[("OPENAI_API_KEY", "sk-test")]);
        assert_eq!(hint(&h, &h.config().unwrap(), "codex"), None);
        let h = host(home.path(), &[]);
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        std::fs::write(home.path().join(".codex/auth.json"), "{}").unwrap();
        assert_eq!(hint(&h, &h.config().unwrap(), "codex"), None);
    }

    fn event(body: EventBody) -> Event {
        Event {
            id: "p.1".into(),
            prompt_id: "p".into(),
            correlation_id: "c".into(),
            ts: 0,
            agent: None,
            body,
        }
    }

    fn status(message: &str) -> EventBody {
        EventBody::Status {
            message: message.into(),
            retry_after_ms: None,
        }
    }

    fn through(events: Vec<EventBody>) -> Vec<EventBody> {
        let mut out = Vec::new();
        {
            let mut sink = |e: Event| out.push(e.body);
            let mut hinted = Hinted::new(&mut sink, "HINT");
            for body in events {
                hinted.emit(event(body));
            }
        }
        out
    }

    #[test]
    fn a_network_error_gets_the_hint_after_its_own_fix() {
        let with_fix =
            CohostError::new(ErrorCode::NetworkError, "offline").with_fix("check the network");
        let without = CohostError::new(ErrorCode::NetworkError, "offline");
        let out = through(vec![EventBody::Error(with_fix), EventBody::Error(without)]);
        let fixes: Vec<_> = out
            .iter()
            .map(|b| match b {
                EventBody::Error(e) => e.suggested_fix.clone(),
                other => panic!("not an error: {other:?}"),
            })
            .collect();
        assert_eq!(
            fixes,
            [Some("check the network; HINT".into()), Some("HINT".into())]
        );
    }

    #[test]
    fn only_the_first_retry_notice_and_no_other_event_changes() {
        let auth = CohostError::new(ErrorCode::AuthRequired, "no key").with_fix("log in");
        let out = through(vec![
            status("rate limited, waiting 5 s"),
            status("codex is retrying: Reconnecting... 2/5"),
            status("codex is retrying: Reconnecting... waiting for network"),
            EventBody::Error(auth.clone()),
        ]);
        assert_eq!(
            out,
            [
                status("rate limited, waiting 5 s"),
                status("codex is retrying: Reconnecting... 2/5 (HINT)"),
                status("codex is retrying: Reconnecting... waiting for network"),
                EventBody::Error(auth),
            ]
        );
    }
}
