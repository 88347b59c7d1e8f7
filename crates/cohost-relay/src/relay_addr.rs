//! A relay's address as a user gives it (`--relay`): `host:port`, or a URL
//! with an `http(s)://`, `ws(s)://` or `cohost(s)://` scheme and no path.

use crate::ClientError;

/// Where a relay listens, and whether it speaks TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayAddr {
    /// Whether the relay speaks TLS (`https`, `wss`, `cohosts`).
    pub secure: bool,
    /// `host:port` or `host` (the scheme's default port).
    pub authority: String,
}

impl RelayAddr {
    /// Parses what a user passed; refuses anything else with the reason.
    pub fn parse(given: &str) -> Result<RelayAddr, ClientError> {
        let bad = |why: &'static str| ClientError::RelayAddress {
            given: given.to_string(),
            why,
        };
        let text = given.trim();
        let (secure, rest, schemed) = match text.split_once("://") {
            Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
                "http" | "ws" | "cohost" => (false, rest, true),
                "https" | "wss" | "cohosts" => (true, rest, true),
                _ => return Err(bad("unknown scheme")),
            },
            None => (false, text, false),
        };
        // A trailing slash is still the relay; a path is a room's URL or a typo.
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() {
            return Err(bad("no host"));
        }
        if authority.contains("://") {
            return Err(bad("two schemes"));
        }
        if authority.contains(['/', '?', '#']) {
            return Err(bad("a path or query where only host and port go"));
        }
        if authority.contains('@') || authority.chars().any(char::is_whitespace) {
            return Err(bad("characters a host and port cannot hold"));
        }
        let port = authority
            .rsplit_once(':')
            .filter(|(host, _)| !host.is_empty() && !host.ends_with('['))
            .map(|(_, p)| p);
        match port {
            Some(p) if p.parse::<u16>().is_err() && !authority.ends_with(']') => {
                return Err(bad("a port that is not a number from 0 to 65535"));
            }
            None if !schemed => return Err(bad("no port (host:port)")),
            _ => {}
        }
        Ok(RelayAddr {
            secure,
            authority: authority.to_string(),
        })
    }

    /// The base URL of the relay's HTTP API (`/admin/*`, `/healthz`).
    pub fn http_base(&self) -> String {
        let scheme = if self.secure { "https" } else { "http" };
        format!("{scheme}://{}", self.authority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_read_or_refused() {
        for (given, base) in [
            ("127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://relay.local:80/", "http://relay.local:80"),
            ("https://relay.example.com", "https://relay.example.com"),
            ("ws://10.0.0.1:9000", "http://10.0.0.1:9000"),
            (
                "wss://relay.example.com:443",
                "https://relay.example.com:443",
            ),
            ("cohost://h:1", "http://h:1"),
            ("cohosts://127.0.0.1:8443", "https://127.0.0.1:8443"),
            ("COHOSTS://[::1]:8443", "https://[::1]:8443"),
        ] {
            assert_eq!(
                RelayAddr::parse(given).unwrap().http_base(),
                base,
                "{given}"
            );
        }
        for given in [
            "",
            "relay.example.com",
            "ftp://h:1",
            "http://cohosts://h:1",
            "wss://h:1/v1/rooms/r/ws",
            "h:1?token=x",
            "https://user:pw@h:1",
            "h:port",
            "h:70000",
        ] {
            let e = RelayAddr::parse(given).unwrap_err().to_string();
            assert!(e.contains("host:port"), "{given}: {e}");
        }
    }
}
