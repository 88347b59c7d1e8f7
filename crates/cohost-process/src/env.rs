//! The narrow environment every agent child gets.
//!
//! An agent runs tools on the user's machine; it must not inherit cohost's
//! own secrets or unrelated tokens that happen to be set in the shell. So
//! children start from an empty environment plus an allowlist: what any
//! program needs to run (PATH, HOME, locale, terminal, temp dir, XDG dirs,
//! proxies and CA bundles), the provider's own variable prefixes (its users
//! already configure it that way), and the user's explicit additions, which
//! win over everything.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Variables passed through by exact name.
pub const ALLOWED_NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "TERM",
    "COLORTERM",
    "TZ",
    "TMPDIR",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    // The cross-tool opt-out of analytics: a user who set it meant every
    // program, agents included.
    "DO_NOT_TRACK",
];

/// Variables passed through by prefix, whatever the provider.
pub const ALLOWED_PREFIXES: &[&str] = &["LC_", "XDG_"];

/// What a child's environment is built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// The provider's own prefixes, e.g. `ANTHROPIC_`, `CLAUDE_`.
    pub provider_prefixes: Vec<String>,
    /// Explicit variables (the driver's, then `AdapterConfig.env`); they
    /// override inherited values of the same name.
    pub explicit: BTreeMap<String, String>,
}

impl EnvPolicy {
    /// A policy with the provider's prefixes.
    pub fn with_prefixes<I, S>(prefixes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        EnvPolicy {
            provider_prefixes: prefixes.into_iter().map(Into::into).collect(),
            explicit: BTreeMap::new(),
        }
    }

    /// Add an explicit variable (later calls win).
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.explicit.insert(key.into(), value.into());
        self
    }

    /// Add many explicit variables, e.g. `AdapterConfig.env`.
    pub fn extend<'a, I>(&mut self, vars: I) -> &mut Self
    where
        I: IntoIterator<Item = (&'a String, &'a String)>,
    {
        for (k, v) in vars {
            self.explicit.insert(k.clone(), v.clone());
        }
        self
    }

    /// Whether an inherited variable may pass.
    pub fn allows(&self, name: &OsStr) -> bool {
        let Some(name) = name.to_str() else {
            return false;
        };
        ALLOWED_NAMES.contains(&name)
            || ALLOWED_PREFIXES.iter().any(|p| name.starts_with(p))
            || self
                .provider_prefixes
                .iter()
                .any(|p| !p.is_empty() && name.starts_with(p.as_str()))
    }

    /// The child's full environment, from a parent environment.
    pub fn build<I>(&self, parent: I) -> BTreeMap<OsString, OsString>
    where
        I: IntoIterator<Item = (OsString, OsString)>,
    {
        let mut env: BTreeMap<OsString, OsString> =
            parent.into_iter().filter(|(k, _)| self.allows(k)).collect();
        for (k, v) in &self.explicit {
            env.insert(k.into(), v.into());
        }
        env
    }

    /// The child's environment from this process's environment.
    pub fn build_from_process(&self) -> BTreeMap<OsString, OsString> {
        self.build(std::env::vars_os())
    }

    /// The first of `required` that is unset or empty in the child's
    /// environment, if any.
    pub fn first_missing(&self, required: &[String]) -> Option<String> {
        let built = self.build_from_process();
        required
            .iter()
            .find(|n| {
                built
                    .get(OsStr::new(n.as_str()))
                    .is_none_or(|v| v.is_empty())
            })
            .cloned()
    }

    /// A variable as the child will see it (explicit, else inherited when
    /// it may pass).
    pub fn var(&self, name: &str) -> Option<String> {
        match self.explicit.get(name) {
            Some(v) => Some(v.clone()),
            None if self.allows(OsStr::new(name)) => std::env::var(name).ok(),
            None => None,
        }
    }

    /// The PATH the child will search (explicit PATH first).
    pub fn effective_path(&self) -> Option<OsString> {
        self.explicit
            .get("PATH")
            .map(OsString::from)
            .or_else(|| std::env::var_os("PATH"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent() -> Vec<(OsString, OsString)> {
        [
            ("PATH", "/usr/bin"),
            ("HOME", "/root"),
            ("LC_ALL", "C.UTF-8"),
            ("XDG_CONFIG_HOME", "/root/.config"),
            ("https_proxy", "http://proxy:3128"),
            ("ANTHROPIC_API_KEY", "real-key"),
            ("OPENAI_API_KEY", "other-vendor"),
            ("AWS_SECRET_ACCESS_KEY", "nope"),
            ("GITHUB_TOKEN", "nope"),
            ("COHOST_CANARY", "nope"),
            ("DO_NOT_TRACK", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
    }

    #[test]
    fn only_allowlist_and_provider_prefixes_pass() {
        let policy = EnvPolicy::with_prefixes(["ANTHROPIC_", "CLAUDE_"]);
        let env = policy.build(parent());
        let keys: Vec<_> = env
            .keys()
            .map(|k| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            keys,
            [
                "ANTHROPIC_API_KEY",
                "DO_NOT_TRACK",
                "HOME",
                "LC_ALL",
                "PATH",
                "XDG_CONFIG_HOME",
                "https_proxy"
            ]
        );
    }

    #[test]
    fn explicit_values_win_and_are_added() {
        let mut policy = EnvPolicy::with_prefixes(["ANTHROPIC_"]);
        policy.set("HOME", "/tmp/scratch").set("IS_SANDBOX", "1");
        let env = policy.build(parent());
        assert_eq!(env.get(OsStr::new("HOME")).unwrap(), "/tmp/scratch");
        assert_eq!(env.get(OsStr::new("IS_SANDBOX")).unwrap(), "1");
        assert!(!env.contains_key(OsStr::new("OPENAI_API_KEY")));
    }

    #[test]
    fn empty_prefix_does_not_open_everything() {
        let policy = EnvPolicy::with_prefixes([""]);
        assert!(!policy.allows(OsStr::new("COHOST_CANARY")));
    }
}
