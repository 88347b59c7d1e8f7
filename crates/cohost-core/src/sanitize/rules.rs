//! The secret shapes, as one regex of alternatives searched in one pass.
//!
//! Word boundaries are ASCII (`(?-u:\b)`): a Unicode `\b` makes the regex
//! engine leave its fast DFA on any non-ASCII text.

/// What a rule's match means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The whole match is a secret (a vendor key, a JWT, `Bearer …`).
    Whole,
    /// Group `v` is the secret; the rest (`x-api-key: `, `?token=`) stays.
    Value,
    /// `name = value`: redacted only when the name means a secret and the
    /// value is neither a placeholder nor code.
    Assign,
    /// URL userinfo: group `v` is the password unless it is a port.
    UrlPassword,
    /// A private key block, replaced by a note saying so.
    PrivateKey,
}

/// One shape: a label for the docs, the pattern (groups `v`, `n`), its kind.
pub(super) struct Rule {
    pub label: &'static str,
    pub pattern: &'static str,
    pub kind: Kind,
}

const fn rule(label: &'static str, pattern: &'static str, kind: Kind) -> Rule {
    Rule {
        label,
        pattern,
        kind,
    }
}

use Kind::*;

/// Every rule, in priority order (leftmost match wins; at one position the
/// first rule listed wins). The first, private key blocks, also runs alone
/// before the others.
pub(super) const RULES: &[Rule] = &[
    rule(
        "PEM / OpenSSH / PGP private key block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        PrivateKey,
    ),
    rule(
        "credential header (Authorization, Cookie, X-Api-Key, …)",
        r"(?i:(?-u:\b)(?:x-api-key|x-goog-api-key|api-key|authorization|proxy-authorization|cookie|set-cookie|x-auth-token|private-token|x-amz-security-token)[ \t]*:[ \t]*)(?P<v>[^\r\n`][^\r\n]{3,})",
        Value,
    ),
    rule(
        "URL userinfo password (any scheme, empty user)",
        r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:(?P<v>[^\s@]+?)@",
        UrlPassword,
    ),
    rule(
        "secret URL query parameter",
        r"(?i:[?&](?:key|api_key|apikey|token|access_token|refresh_token|id_token|secret|client_secret|password|sig|signature)=)(?P<v>[^&\s#]{4,})",
        Value,
    ),
    rule(
        "connection-string password / account key",
        r"(?i:(?-u:\b)(?:AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)=)(?P<v>[^;\s'\x22]{4,})",
        Value,
    ),
    rule(
        "Anthropic key",
        r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{16,}",
        Whole,
    ),
    rule(
        "OpenAI project/service/admin, OpenRouter key",
        r"(?-u:\b)sk-(?:proj|svcacct|admin|or-v1)-[A-Za-z0-9_\-]{16,}",
        Whole,
    ),
    rule(
        "OpenAI and other sk- keys",
        r"(?-u:\b)sk-[A-Za-z0-9_\-]{20,}",
        Whole,
    ),
    rule(
        "Stripe key",
        r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
        Whole,
    ),
    rule(
        "Stripe webhook secret",
        r"(?-u:\b)whsec_[A-Za-z0-9]{24,}",
        Whole,
    ),
    rule("Google API key", r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}", Whole),
    rule(
        "Google OAuth access token",
        r"(?-u:\b)ya29\.[0-9A-Za-z_\-]{20,}",
        Whole,
    ),
    rule(
        "Google OAuth client secret",
        r"(?-u:\b)GOCSPX-[0-9A-Za-z_\-]{20,}",
        Whole,
    ),
    rule(
        "GitHub token (classic, OAuth, app, refresh)",
        r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{30,}",
        Whole,
    ),
    rule(
        "GitHub fine-grained PAT",
        r"(?-u:\b)github_pat_[A-Za-z0-9_]{30,}",
        Whole,
    ),
    rule(
        "GitLab token (PAT, deploy, runner, …)",
        r"(?-u:\b)(?:gl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat)-|GR1348941)[A-Za-z0-9_\-]{20,}",
        Whole,
    ),
    rule(
        "AWS access key id",
        r"(?-u:\b)(?:AKIA|ASIA|AGPA|AIDA|AROA|ABIA|ACCA|ANPA|ANVA|APKA|AIPA|A3T[A-Z0-9])[0-9A-Z]{16}(?-u:\b)",
        Whole,
    ),
    rule(
        "Slack token",
        r"(?-u:\b)xox[abeprs]-[A-Za-z0-9\-]{10,}",
        Whole,
    ),
    rule(
        "Slack app token",
        r"(?-u:\b)xapp-[0-9]-[A-Za-z0-9\-]{10,}",
        Whole,
    ),
    rule(
        "Slack / Discord webhook URL",
        r"https://(?:hooks\.slack\.com/services|discord(?:app)?\.com/api/webhooks)/[A-Za-z0-9/_\-]+",
        Whole,
    ),
    rule("Mailgun-style key-", r"(?-u:\b)key-[A-Za-z0-9]{20,}", Whole),
    rule(
        "Hugging Face token",
        r"(?-u:\b)(?:hf_|api_org_)[A-Za-z0-9]{30,}",
        Whole,
    ),
    rule("npm token", r"(?-u:\b)npm_[A-Za-z0-9]{30,}", Whole),
    rule("PyPI token", r"(?-u:\b)pypi-AgE[A-Za-z0-9_\-]{50,}", Whole),
    rule("Groq key", r"(?-u:\b)gsk_[A-Za-z0-9]{30,}", Whole),
    rule("xAI key", r"(?-u:\b)xai-[A-Za-z0-9]{30,}", Whole),
    rule(
        "DigitalOcean token",
        r"(?-u:\b)do[opr]_v1_[a-f0-9]{40,}",
        Whole,
    ),
    rule(
        "Azure AD client secret",
        r"(?-u:\b)[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
        Whole,
    ),
    rule(
        "SendGrid key",
        r"(?-u:\b)SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
        Whole,
    ),
    rule("Twilio API key", r"(?-u:\b)SK[0-9a-f]{32}(?-u:\b)", Whole),
    rule(
        "Shopify token",
        r"(?-u:\b)shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        Whole,
    ),
    rule("Databricks token", r"(?-u:\b)dapi[a-f0-9]{32}", Whole),
    rule("Linear key", r"(?-u:\b)lin_api_[A-Za-z0-9]{40}", Whole),
    rule("age secret key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", Whole),
    rule(
        "Telegram bot token",
        r"(?-u:\b)[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}",
        Whole,
    ),
    rule("Replicate token", r"(?-u:\b)r8_[A-Za-z0-9]{37}", Whole),
    rule("Perplexity key", r"(?-u:\b)pplx-[A-Za-z0-9]{48}", Whole),
    rule(
        "Notion token",
        r"(?-u:\b)(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})",
        Whole,
    ),
    rule(
        "JWT",
        r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        Whole,
    ),
    rule(
        "Bearer token",
        r"(?i:(?-u:\b)bearer)\s+[A-Za-z0-9_\-\.=~+/]{16,}",
        Whole,
    ),
    rule(
        "Basic authorization",
        r"(?i:(?-u:\b)basic)\s+[A-Za-z0-9+/]{16,}={0,2}",
        Whole,
    ),
    rule(
        "name = value / name: value / JSON field whose name means a secret",
        r#"['"]?(?P<n>(?-u:\b)(?:[A-Za-z_][A-Za-z0-9_.\-]*?)?(?i:key|token|secret|pass|pwd|pw|cred|auth|cookie|sess|sig|pat)[A-Za-z0-9_.\-]*)['"]?[ \t]*[=:][ \t]*(?P<v>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s'",;:=\\`\[][^\s'",;\\`\[]*)"#,
        Assign,
    ),
];

/// The combined pattern: rule `i` is group `a{i}`, its groups `v{i}`, `n{i}`.
pub(super) fn combined() -> String {
    RULES
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let p = r
                .pattern
                .replace("(?P<v>", &format!("(?P<v{i}>"))
                .replace("(?P<n>", &format!("(?P<n{i}>"));
            format!("(?P<a{i}>{p})")
        })
        .collect::<Vec<_>>()
        .join("|")
}
