//! The secret shapes, as one regex of alternatives searched in one pass,
//! and the text that replaces a match.
//!
//! Word boundaries are ASCII (`(?-u:\b)`): a Unicode `\b` makes the regex
//! engine leave its fast DFA on any non-ASCII text.

/// Text that replaces a secret. Kept short and greppable.
pub const REDACTED: &str = "[REDACTED]";

/// What replaces a private key block.
pub(super) const REDACTED_KEY: &str = "[REDACTED] (private key)";

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

/// One shape: the pattern (groups `v`, `n`) and its kind. What each shape
/// is, is the comment above it in [`RULES`].
pub(super) struct Rule {
    pub pattern: &'static str,
    pub kind: Kind,
}

const fn rule(pattern: &'static str, kind: Kind) -> Rule {
    Rule { pattern, kind }
}

use Kind::*;

/// Every rule, in priority order (leftmost match wins; at one position the
/// first rule listed wins). The first, private key blocks, also runs alone
/// before the others.
pub(super) const RULES: &[Rule] = &[
    // PEM / OpenSSH / PGP private key block
    rule(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
        PrivateKey,
    ),
    // credential header (Authorization, Cookie, X-Api-Key, …)
    rule(
        r"(?i:(?-u:\b)(?:x-api-key|x-goog-api-key|api-key|authorization|proxy-authorization|cookie|set-cookie|x-auth-token|private-token|x-amz-security-token)[ \t]*:[ \t]*)(?P<v>[^\r\n`][^\r\n]{3,})",
        Value,
    ),
    // URL userinfo password (any scheme, empty user)
    rule(
        r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:(?P<v>[^\s@]+?)@",
        UrlPassword,
    ),
    // secret URL query parameter
    rule(
        r"(?i:[?&](?:key|api_key|apikey|token|access_token|refresh_token|id_token|secret|client_secret|password|sig|signature)=)(?P<v>[^&\s#]{4,})",
        Value,
    ),
    // connection-string password / account key
    rule(
        r"(?i:(?-u:\b)(?:AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)=)(?P<v>[^;\s'\x22]{4,})",
        Value,
    ),
    // Anthropic key
    rule(r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{16,}", Whole),
    // OpenAI project/service/admin, OpenRouter key
    rule(
        r"(?-u:\b)sk-(?:proj|svcacct|admin|or-v1)-[A-Za-z0-9_\-]{16,}",
        Whole,
    ),
    // OpenAI and other sk- keys
    rule(r"(?-u:\b)sk-[A-Za-z0-9_\-]{20,}", Whole),
    // Stripe key
    rule(
        r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
        Whole,
    ),
    // Stripe webhook secret
    rule(r"(?-u:\b)whsec_[A-Za-z0-9]{24,}", Whole),
    // Google API key
    rule(r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}", Whole),
    // Google OAuth access token
    rule(r"(?-u:\b)ya29\.[0-9A-Za-z_\-]{20,}", Whole),
    // Google OAuth client secret
    rule(r"(?-u:\b)GOCSPX-[0-9A-Za-z_\-]{20,}", Whole),
    // GitHub token (classic, OAuth, app, refresh)
    rule(r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{30,}", Whole),
    // GitHub fine-grained PAT
    rule(r"(?-u:\b)github_pat_[A-Za-z0-9_]{30,}", Whole),
    // GitLab token (PAT, deploy, runner, …)
    rule(
        r"(?-u:\b)(?:gl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat)-|GR1348941)[A-Za-z0-9_\-]{20,}",
        Whole,
    ),
    // AWS access key id
    rule(
        r"(?-u:\b)(?:AKIA|ASIA|AGPA|AIDA|AROA|ABIA|ACCA|ANPA|ANVA|APKA|AIPA|A3T[A-Z0-9])[0-9A-Z]{16}(?-u:\b)",
        Whole,
    ),
    // Slack token
    rule(r"(?-u:\b)xox[abeprs]-[A-Za-z0-9\-]{10,}", Whole),
    // Slack app token
    rule(r"(?-u:\b)xapp-[0-9]-[A-Za-z0-9\-]{10,}", Whole),
    // Slack / Discord webhook URL
    rule(
        r"https://(?:hooks\.slack\.com/services|discord(?:app)?\.com/api/webhooks)/[A-Za-z0-9/_\-]+",
        Whole,
    ),
    // Mailgun-style key-
    rule(r"(?-u:\b)key-[A-Za-z0-9]{20,}", Whole),
    // Hugging Face token
    rule(r"(?-u:\b)(?:hf_|api_org_)[A-Za-z0-9]{30,}", Whole),
    // npm token
    rule(r"(?-u:\b)npm_[A-Za-z0-9]{30,}", Whole),
    // PyPI token
    rule(r"(?-u:\b)pypi-AgE[A-Za-z0-9_\-]{50,}", Whole),
    // Groq key
    rule(r"(?-u:\b)gsk_[A-Za-z0-9]{30,}", Whole),
    // xAI key
    rule(r"(?-u:\b)xai-[A-Za-z0-9]{30,}", Whole),
    // DigitalOcean token
    rule(r"(?-u:\b)do[opr]_v1_[a-f0-9]{40,}", Whole),
    // Azure AD client secret
    rule(
        r"(?-u:\b)[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
        Whole,
    ),
    // SendGrid key
    rule(r"(?-u:\b)SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", Whole),
    // Twilio API key
    rule(r"(?-u:\b)SK[0-9a-f]{32}(?-u:\b)", Whole),
    // Shopify token
    rule(r"(?-u:\b)shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", Whole),
    // Databricks token
    rule(r"(?-u:\b)dapi[a-f0-9]{32}", Whole),
    // Linear key
    rule(r"(?-u:\b)lin_api_[A-Za-z0-9]{40}", Whole),
    // age secret key
    rule(r"AGE-SECRET-KEY-1[0-9A-Z]{58}", Whole),
    // Telegram bot token
    rule(r"(?-u:\b)[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}", Whole),
    // Replicate token
    rule(r"(?-u:\b)r8_[A-Za-z0-9]{37}", Whole),
    // Perplexity key
    rule(r"(?-u:\b)pplx-[A-Za-z0-9]{48}", Whole),
    // Notion token
    rule(
        r"(?-u:\b)(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})",
        Whole,
    ),
    // JWT
    rule(
        r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        Whole,
    ),
    // Bearer token
    rule(r"(?i:(?-u:\b)bearer)\s+[A-Za-z0-9_\-\.=~+/]{16,}", Whole),
    // Basic authorization
    rule(r"(?i:(?-u:\b)basic)\s+[A-Za-z0-9+/]{16,}={0,2}", Whole),
    // name = value / name: value / JSON field whose name means a secret;
    // also JSON written inside a JSON string (`{\"token\": \"…\"}`, a
    // document logged as a string) and a one-line array of strings
    // (`"credentials": ["…", "…"]`).
    rule(
        r#"['"]?(?P<n>(?-u:\b)(?:[A-Za-z_][A-Za-z0-9_.\-]*?)?(?i:key|token|secret|pass|pwd|pw|cred|auth|cookie|sess|sig|pat)[A-Za-z0-9_.\-]*)(?:\\?['"])?[ \t]*[=:][ \t]*(?P<v>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|\\"[^"\\\n]*\\"|\[[ \t]*"(?:[^"\\\n]|\\.)*"(?:[ \t]*,[ \t]*"(?:[^"\\\n]|\\.)*")*[ \t]*\]|[^\s'",;:=\\`\[][^\s'",;\\`\[]*)"#,
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
