use super::*;

fn s() -> Sanitizer {
    Sanitizer::new(
        [
            ("MY_SERVICE_TOKEN", "tok-value-1234567890"),
            ("PATH", "/usr/bin:/bin"),
            ("SHORT_KEY", "abc"),
        ],
        Some("/home/alice".to_string()),
    )
}

/// (label, input, the secret part that must disappear)
const SHAPES: &[(&str, &str, &str)] = &[
    ("anthropic", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345-_x here", "AbCdEfGhIjKlMnOp"),
    ("anthropic admin", "sk-ant-admin01-ZZZZyyyyXXXXwwwwVVVVuuuu", "ZZZZyyyyXXXX"),
    ("openai classic", "OPENAI says sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "abcdefghijklmnopqrst"),
    ("openai project", "use sk-proj-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6", "Q1w2E3r4T5y6U7i8"),
    ("openai service account", "sk-svcacct-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6", "Q1w2E3r4T5y6U7i8"),
    ("openrouter", "sk-or-v1-0123456789abcdef0123456789abcdef", "0123456789abcdef0123"),
    ("stripe", "sk_live_51Habcdefghijklmnopqrstu", "51Habcdefghijklmnop"),
    ("google api key", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "SyA-1234567890abcdef"),
    ("google oauth", "token ya29.a0AfH6SMBx-abcdefghijklmnopqrstuvwxyz", "a0AfH6SMBx-abcdefghij"),
    ("google client secret", "GOCSPX-abcdefghijklmnopqrstuvwxyz12", "abcdefghijklmnopqrst"),
    ("github pat classic", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123"),
    ("github oauth", "gho_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123"),
    ("github server", "ghs_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123"),
    ("github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "11ABCDEFG0123456789_abc"),
    ("gitlab", "glpat-abcdefghij0123456789", "abcdefghij0123456789"),
    ("aws access key id", "aws id AKIAIOSFODNN7EXAMPLE in config", "AKIAIOSFODNN7EXAMPLE"),
    ("aws secret env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("slack bot", "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ("slack user", "xoxp-123456789012-1234567890123-abcdefghijklmnop", "abcdefghijklmnop"),
    ("slack app", "xapp-1-A0123456789-0123456789-abcdef", "A0123456789-0123456789"),
    ("slack webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXX"),
    ("generic key-", "mailgun key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "3ax6xnjp29jd6fds4gc3"),
    ("bearer", "Authorization was Bearer abcdef0123456789ABCDEFxyz", "abcdef0123456789ABCDEF"),
    ("authorization header", "authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"),
    ("x-api-key header", "x-api-key: my-secret-value-123", "my-secret-value-123"),
    ("jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N"),
    ("password in url", "connect postgres://admin:hunter2secret@db.internal:5432/app", "hunter2secret"),
    ("secret in url query", "GET https://example.com/v1?key=AbCdEf123456&x=1", "AbCdEf123456"),
    ("env assignment", "ANTHROPIC_API_KEY=whatever-the-value-is", "whatever-the-value-is"),
    ("env assignment quoted", "export GITHUB_TOKEN=\"quoted-token-value\"", "quoted-token-value"),
    ("yaml style", "DB_PASSWORD: s3cr3t-pass", "s3cr3t-pass"),
    ("json api_key", r#"{"api_key": "plain-text-json-secret"}"#, "plain-text-json-secret"),
    ("json client_secret", r#"{"client_secret":"another-secret-value"}"#, "another-secret-value"),
    ("env value by value", "the service replied with tok-value-1234567890 oops", "tok-value-1234567890"),
    ("hugging face", "hf_abcdefghijklmnopqrstuvwxyzABCDEF", "abcdefghijklmnopqrstuvwxyz"),
    ("npm", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz"),
    ("groq", "gsk_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz"),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA"),
];

#[test]
fn every_secret_shape_is_redacted() {
    assert!(SHAPES.len() >= 25);
    let san = s();
    for (label, input, secret) in SHAPES {
        let out = san.sanitize(input);
        assert!(!out.contains(secret), "{label}: {input:?} -> {out:?}");
        assert!(out.contains(REDACTED), "{label}: {out:?}");
    }
}

#[test]
fn home_directory_becomes_tilde() {
    let san = s();
    assert_eq!(san.sanitize("/home/alice/src/x.rs"), "~/src/x.rs");
    assert_eq!(san.sanitize("cd /home/alice"), "cd ~");
    // A different user whose name extends ours is left alone.
    assert_eq!(san.sanitize("/home/alicexyz/a"), "/home/alicexyz/a");
}

/// Ordinary code and prose that must come out unchanged.
const ORDINARY: &[&str] = &[
    "let sk = compute_key(&input);",
    "fn get_api_key() -> Option<String> { std::env::var(\"API_KEY\").ok() }",
    "let token = lexer.next_token();",
    "use a key-value store for caching",
    "risk-assessment and task-manager modules",
    "The Bearer token scheme is described in RFC 6750.",
    "password: String,",
    "if token_count > MAX_TOKENS { return Err(TooLong) }",
    "https://docs.rs/tokio/latest/tokio/",
    "http://127.0.0.1:8080/v1/messages",
    "git@github.com:owner/repo.git",
    "const KEY_LEN: usize = 32;",
    "for (key, value) in map.iter() { println!(\"{key}={value}\"); }",
    "sk-learn is a Python library",
    "ghost and github are words",
    "SELECT * FROM users WHERE id = 1;",
    "Basic usage: run the tests",
    "AKIA is a prefix of AWS keys",
    "eyJ is how base64 JSON starts",
    "x = a ? b : c;",
    "HashMap<String, Vec<u8>>",
    "room_key: self\n    .ring(|r| r.key(0).map(RoomKey::to_bytes))",
    "session_token: this\n  .store.get(id)",
];

#[test]
fn ordinary_code_is_untouched() {
    let san = s();
    for input in ORDINARY {
        assert_eq!(san.sanitize(input), *input, "false positive on {input:?}");
    }
}

#[test]
fn short_secret_env_values_are_not_used() {
    // A 3-char value would redact half of all text; values under 8 chars are ignored.
    let san = s();
    assert_eq!(san.sanitize("abc abc abc"), "abc abc abc");
}

#[test]
fn json_strings_are_sanitized_recursively() {
    let mut v = serde_json::json!({"cmd": ["curl", "-H", "Authorization: Bearer abcdefghijklmnopqrstuvwx"], "n": 1});
    sanitize_json(&mut v);
    assert!(!v.to_string().contains("abcdefghijklmnop"));
}

#[test]
fn secret_names() {
    assert!(is_secret_name("OPENAI_API_KEY"));
    assert!(is_secret_name("github_token"));
    assert!(!is_secret_name("PATH"));
    assert!(!is_secret_name("HOME"));
}

#[test]
fn the_whole_corpus_is_redacted() {
    assert!(corpus::SHAPES.len() >= 40, "{}", corpus::SHAPES.len());
    let san = s();
    for (label, input, secret) in corpus::SHAPES {
        let out = san.sanitize(input);
        assert!(!out.contains(secret), "{label}: {input:?} -> {out:?}");
        assert!(out.contains(REDACTED), "{label}: {out:?}");
        // Sanitizing twice changes nothing more.
        assert_eq!(san.sanitize(&out), out, "{label}");
    }
}

#[test]
fn placeholders_stay_intact() {
    let san = s();
    for input in corpus::PLACEHOLDERS {
        assert_eq!(
            san.sanitize(input),
            *input,
            "placeholder eaten in {input:?}"
        );
    }
}

#[test]
fn known_values_are_redacted_with_any_twelve_char_run() {
    let san = Sanitizer::new([("SMTP_PASS", "mail-Pa55word-Xy9")], None)
        .with_known_values(["sk-provider-0123456789abcdefghijklmnop", "tiny"]);
    let out = san.sanitize("smtp said mail-Pa55word-Xy9 is wrong");
    assert_eq!(out, "smtp said [REDACTED] is wrong");
    // A provider error body echoing 24 characters of a configured key.
    let out = san.sanitize(r#"{"error":"invalid api key 0123456789abcdefghijklmn"}"#);
    assert!(!out.contains("0123456789ab"), "{out}");
    // Short values are not used; a PATH-like value is not a secret.
    assert_eq!(san.sanitize("tiny tiny"), "tiny tiny");
    let san = Sanitizer::new(
        [("GOOGLE_APPLICATION_CREDENTIALS", "/home/u/sa.json")],
        None,
    );
    assert_eq!(san.sanitize("/home/u/sa.json"), "/home/u/sa.json");
}

#[test]
fn a_value_quoted_in_backticks_is_still_a_value() {
    let out = s().sanitize("unknown variant `DB_PASS=pg-pass-4242`, expected one of `a`");
    assert_eq!(
        out,
        "unknown variant `DB_PASS=[REDACTED]`, expected one of `a`"
    );
}

#[test]
fn a_token_glued_to_a_key_block_does_not_hide_the_key() {
    let out = s().sanitize("sk-or-v1-0123456789abcdef0123456789abcdef-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt\n-----END OPENSSH PRIVATE KEY-----\n");
    assert!(!out.contains("b3BlbnNzaC1rZXkt"), "{out}");
}

#[test]
fn secret_named_keys_are_redacted_at_any_depth_in_json_values() {
    let san = s();
    for (label, doc, secret) in super::corpus::STRUCTURED {
        let mut v: serde_json::Value = serde_json::from_str(doc).unwrap();
        san.sanitize_json(&mut v);
        let out = v.to_string();
        assert!(!out.contains(secret), "{label}: {out}");
    }
    // What is not under a secret-named key, and placeholders, stay.
    let mut v = serde_json::json!({
        "max_tokens": 4096,
        "session_id": "ses-1234567890abcdef",
        "env": {"PATH": "/usr/bin", "api_key": "<your key>", "token": ""},
        "auth": {"enabled": true, "retries": 3},
        // A price per token is a fraction: a measure, not a credential.
        "prices": {"input_cost_per_token": 0.0000125, "output_cost_per_token": 1.5e-5},
    });
    let before = v.clone();
    san.sanitize_json(&mut v);
    assert_eq!(v, before);
}

#[test]
fn structured_forms_in_text_are_redacted() {
    let san = s();
    for (label, text, secret) in super::corpus::SHAPES
        .iter()
        .filter(|(l, _, _)| l.starts_with("JSON "))
    {
        let out = san.sanitize(text);
        assert!(!out.contains(secret), "{label}: {out}");
    }
    // The array's first item too, and a list of placeholders stays.
    let out = san.sanitize(r#"{"credentials": ["cr3d-one-a1b2c3d4", "cr3d-two-e5f6g7h8"]}"#);
    assert_eq!(out, r#"{"credentials": ["[REDACTED]"]}"#);
    let keep = r#"{"credentials": ["<one>", "${TWO}"], "tokens": ["a1b2c3d4e5"]}"#;
    assert_eq!(san.sanitize(keep), keep);
}

#[test]
fn a_json_document_as_text_is_sanitized_by_its_keys() {
    let san = s();
    for (label, doc, secret) in super::corpus::STRUCTURED {
        let out = san.sanitize_text_or_json(doc);
        assert!(!out.contains(secret), "{label}: {out}");
        let pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(doc).unwrap())
                .unwrap();
        let out = san.sanitize_text_or_json(&pretty);
        assert!(!out.contains(secret), "{label} (pretty): {out}");
        assert!(out.contains('\n'), "kept pretty: {out}");
    }
    // Not JSON, or nothing to redact: the text as the text rules leave it.
    let plain = "{not json: yes} and [a list]";
    assert_eq!(san.sanitize_text_or_json(plain), plain);
    let doc = "{\"a\":  1}";
    assert_eq!(san.sanitize_text_or_json(doc), doc);
}
