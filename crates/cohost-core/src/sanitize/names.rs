//! Which names mean a secret (`DB_PASS`, `aws_secret_access_key`, `"token"`)
//! and which values after them are not secrets but placeholders or code
//! (`<your key>`, `${TOKEN}`, `String,`, `lexer.next_token();`).

/// Name segments that make a name secret wherever they stand in it.
const STRONG: &[&str] = &[
    "secret",
    "password",
    "passwd",
    "passphrase",
    "credential",
    "credentials",
    "apikey",
    "privatekey",
];

/// Segments that make a name secret when they end it (`DB_PASS`,
/// `GITHUB_TOKEN`, `api_key`): `KEY_LEN` and `token_count` are not secrets.
const LAST: &[&str] = &[
    "key",
    "token",
    "pass",
    "pwd",
    "pw",
    "auth",
    "authorization",
    "cookie",
    "session",
    "sessid",
    "sessionid",
    "creds",
    "pat",
    "accesskey",
    "authtoken",
    "accesstoken",
    "apitoken",
    "sessiontoken",
    "clientsecret",
];

/// Segments that make a name public whatever else it holds.
const PUBLIC: &[&str] = &[
    "public",
    "primary",
    "foreign",
    "sort",
    "partition",
    // `Sec-WebSocket-Key` is a handshake nonce.
    "socket",
    // `DESKTOP_SESSION=ubuntu-wayland` names a desktop.
    "desktop",
];

/// Splits `aws_secret_access_key`, `X-Api-Key`, `apiKey`, `db.pass` into
/// lower-case segments.
fn segments(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether a variable, field or header name means its value is a secret.
///
/// Segment-based, so `DB_PASS`, `SMTP_PASSWORD`, `aws_secret_access_key`,
/// `apiKey`, `X-Auth-Token`, `JSESSIONID` are secret while `PWD` (the working
/// directory), `KEY_LEN`, `max_tokens`, `author`, `session_id` and a bare
/// `key` are not.
pub fn is_secret_name(name: &str) -> bool {
    // Most words hold no secret fragment: say so without allocating.
    const FRAGMENTS: &[&[u8]] = &[
        b"key", b"token", b"secret", b"pass", b"pw", b"cred", b"auth", b"cookie", b"sess", b"pat",
    ];
    let bytes = name.as_bytes();
    let has = |f: &[u8]| bytes.windows(f.len()).any(|w| w.eq_ignore_ascii_case(f));
    if !FRAGMENTS.iter().any(|f| has(f)) {
        return false;
    }
    let segs = segments(name);
    if segs.is_empty() || segs.iter().any(|s| PUBLIC.contains(&s.as_str())) {
        return false;
    }
    // Bare words that are ordinary in code and prose, or name the working directory.
    let joined = segs.concat();
    if matches!(
        joined.as_str(),
        "key" | "pwd" | "oldpwd" | "pw" | "sig" | "pat"
    ) {
        return false;
    }
    if joined.contains("privatekey") || joined.ends_with("jsessionid") {
        return true;
    }
    let Some(last) = segs.last() else {
        return false;
    };
    segs.iter().any(|s| STRONG.contains(&s.as_str()))
        || LAST.contains(&last.as_str())
        || ["apikey", "password", "passwd", "secret", "token"]
            .iter()
            .any(|w| last.len() > w.len() && last.ends_with(w))
}

/// Whether a name is a single ordinary word (`password`, `Token`), which in
/// prose is often followed by a plain word rather than a secret.
pub(crate) fn is_bare_word(name: &str) -> bool {
    let name = name.trim_matches(|c| c == '"' || c == '\'');
    let lower = name.chars().any(|c| c.is_ascii_lowercase());
    lower && name.chars().all(|c| c.is_ascii_alphabetic())
}

/// Values that stand for a secret without being one: `<your key>`,
/// `${TOKEN}`, `$TOKEN`, `{{ token }}`, `%TOKEN%`, `xxxx`, `****`, `...`,
/// and an earlier `[REDACTED]`.
pub(crate) fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    let Some(first) = v.chars().next() else {
        return true;
    };
    if matches!(first, '<' | '$' | '{' | '%' | '[') || v.starts_with("...") || v.starts_with('…')
    {
        return true;
    }
    // One character repeated: `xxxxxxxx`, `********`.
    if v.chars().all(|c| c == first) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    // Words that stand for a value in docs: `SECRET=value`, `password=changeme`.
    const WORDS: &[&str] = &[
        "value",
        "values",
        "secret",
        "password",
        "token",
        "changeme",
        "example",
        "placeholder",
        "redacted",
        "foo",
        "bar",
        "baz",
        "none",
        "null",
    ];
    WORDS.contains(&lower.as_str())
        || lower.starts_with("your")
        || lower.contains("your_")
        || lower.contains("your-")
}

/// Words that follow a name in code, not in configuration.
const CODE_WORDS: &[&str] = &[
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "string",
    "str",
    "bool",
    "bytes",
    "option",
    "optional",
    "required",
    "secret",
    "secretstring",
    "token",
    "password",
    // A receiver whose method chain goes on on the next line
    // (`room_key: self\n    .ring(..)`).
    "self",
    "this",
    "super",
];

/// Whether an unquoted value is code (`lexer.next_token()`, `&str`,
/// `Option<String>`, `None`, `os.environ["KEY"]`), given the text after it.
pub(crate) fn is_code(value: &str, rest: &str) -> bool {
    // An earlier redaction glued to the value is not an index.
    let indexed = rest.starts_with('[') && !rest.starts_with(super::rules::REDACTED);
    if indexed || rest.starts_with([',', ';', ')', '(']) {
        return true;
    }
    if value
        .chars()
        .next()
        .is_some_and(|c| matches!(c, '&' | '*' | '(' | '@' | '#' | '|' | '!' | '^'))
    {
        return true;
    }
    if value.contains(['(', ')', '<', '>', '[', ']', '{', '}']) || value.contains("::") {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    CODE_WORDS.contains(&lower.as_str())
}

/// Whether the text before a name declares it in code (`let admin_secret =
/// config`, `const NO_AUTH: AuthSpec = …`): then its value is code too.
pub(crate) fn is_declaration(before: &str) -> bool {
    let word = before
        .trim_end()
        .rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    matches!(
        word,
        "let" | "mut" | "const" | "static" | "var" | "val" | "pub" | "fn" | "def" | "readonly"
    )
}

/// Whether a value after a bare word (`password hunter2`) looks like a
/// secret rather than a word: it has a digit or a symbol, or is long.
pub(crate) fn looks_random(value: &str) -> bool {
    value.len() >= 16
        || value
            .chars()
            .any(|c| c.is_ascii_digit() || !c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for n in [
            "DB_PASS",
            "SMTP_PASS",
            "SMTP_PASSWORD",
            "aws_secret_access_key",
            "AWS_SESSION_TOKEN",
            "apiKey",
            "X-Auth-Token",
            "password",
            "token",
            "GITHUB_TOKEN",
            "MYSQL_PWD",
            "client_secret",
            "private_key",
            "private_key_id",
            "JSESSIONID",
            "session",
            "Cookie",
            "auth",
            "OPENAI_API_KEY",
            "SECRET_KEY_BASE",
            "accessToken",
            "db.password",
            "github_token",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "PWD",
            "OLDPWD",
            "PATH",
            "HOME",
            "KEY_LEN",
            "max_tokens",
            "token_count",
            "author",
            "session_id",
            "sessionId",
            "key",
            "Key",
            "tokens",
            "public_key",
            "primary_key",
            "KEYBOARD_LAYOUT",
            "SSH_AUTH_SOCK",
            "DBUS_SESSION_BUS_ADDRESS",
            "DESKTOP_SESSION",
            "bypass",
            "compass",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn placeholders_and_code() {
        for v in [
            "<your key>",
            "${TOKEN}",
            "$TOKEN",
            "{{ token }}",
            "%TOKEN%",
            "xxxxxxxx",
            "********",
            "...",
            "[REDACTED]",
            "your-key-here",
        ] {
            assert!(is_placeholder(v), "{v}");
        }
        assert!(!is_placeholder("hunter2hunter2"));
        assert!(is_code("String", ","));
        assert!(is_code("lexer.next_token()", ";"));
        assert!(is_code("&str", ""));
        assert!(is_code("None", ""));
        assert!(is_code("self", "\n"));
        assert!(is_code("os.environ", "[\"API_KEY\"]"));
        assert!(!is_code("s3cr3t-pass", ""));
        assert!(!is_code("s3cr3t-pass", "[REDACTED] (private key)"));
    }
}
