//! The secret corpus: one realistic sample of every shape the sanitizer
//! removes, as `(label, text, the secret part that must disappear)`. Tests
//! across the workspace seed it into every output channel; the README's
//! Trust section lists the same shapes. All values are fake.

/// `(label, text as a user would write it, the part that must not survive)`.
pub const SHAPES: &[(&str, &str, &str)] = &[
    ("Anthropic key", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345-_x here", "AbCdEfGhIjKlMnOp"),
    ("Anthropic admin key", "sk-ant-admin01-ZZZZyyyyXXXXwwwwVVVVuuuu", "ZZZZyyyyXXXX"),
    ("OpenAI classic key", "OPENAI says sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "abcdefghijklmnopqrst"),
    ("OpenAI project key", "use sk-proj-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6", "Q1w2E3r4T5y6U7i8"),
    ("OpenAI service account key", "sk-svcacct-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6", "Q1w2E3r4T5y6U7i8"),
    ("OpenRouter key", "sk-or-v1-0123456789abcdef0123456789abcdef", "0123456789abcdef0123"),
    ("Google API key", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "SyA-1234567890abcdef"),
    ("Google OAuth token", "token ya29.a0AfH6SMBx-abcdefghijklmnopqrstuvwxyz", "a0AfH6SMBx-abcdefghij"),
    ("Google OAuth client secret", "GOCSPX-abcdefghijklmnopqrstuvwxyz12", "abcdefghijklmnopqrst"),
    ("GCP service-account JSON", r#"{"type": "service_account", "private_key_id": "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n", "client_email": "x@p.iam.gserviceaccount.com"}"#, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
    ("GitHub classic PAT", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123"),
    ("GitHub OAuth token", "gho_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123"),
    ("GitHub app token", "ghs_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123"),
    ("GitHub fine-grained PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", "11ABCDEFG0123456789_abc"),
    ("GitLab PAT", "glpat-abcdefghij0123456789", "abcdefghij0123456789"),
    ("GitLab deploy token", "gldt-Zyxwvutsrqponmlkjihg0123", "Zyxwvutsrqponmlkjihg"),
    ("Slack bot token", "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ("Slack user token", "xoxp-123456789012-1234567890123-abcdefghijklmnop", "abcdefghijklmnop"),
    ("Slack app token", "xapp-1-A0123456789-0123456789-abcdef", "A0123456789-0123456789"),
    ("Slack webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXX"),
    ("Stripe secret key", "sk_live_51Habcdefghijklmnopqrstu", "51Habcdefghijklmnop"),
    ("Stripe restricted key", "rk_test_51Hzyxwvutsrqponmlkjihg", "51Hzyxwvutsrqponml"),
    ("npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz"),
    ("PyPI token", "password = pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz", "AgEIcHlwaS5vcmcCJDAwMDAwMDAw"),
    ("Hugging Face token", "hf_abcdefghijklmnopqrstuvwxyzABCDEF", "abcdefghijklmnopqrstuvwxyz"),
    ("AWS access key id", "aws id AKIAIOSFODNN7EXAMPLE in config", "AKIAIOSFODNN7EXAMPLE"),
    ("AWS secret key (env)", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("AWS secret key (credentials file)", "[default]\naws_access_key_id = AKIAI44QH8DHBEXAMPLE\naws_secret_access_key = je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n", "je7MtGbClwBF/2Zp9Utk"),
    ("AWS session token", "aws_session_token=FwoGZXIvYXdzEJr//////////wEaDHhfakeSessionToken123", "FwoGZXIvYXdzEJr"),
    ("Azure storage connection string", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4"),
    ("Azure AD client secret", "client secret abc8Q~Zyxwvutsrqponmlkjihgfedcba0123456 set", "Zyxwvutsrqponmlkjihg"),
    ("Groq key", "gsk_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz"),
    ("SendGrid key", "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "abcdefghijklmnopqrstuvwxyz0123"),
    ("Mailgun key", "mailgun key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "3ax6xnjp29jd6fds4gc3"),
    ("JWT", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N"),
    ("Bearer authorization", "Authorization was Bearer abcdef0123456789ABCDEFxyz", "abcdef0123456789ABCDEF"),
    ("Basic authorization header", "authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"),
    ("x-api-key header", "x-api-key: my-secret-value-123", "my-secret-value-123"),
    ("Cookie header", "Cookie: sessionid=9f8e7d6c5b4a39281706; theme=dark", "9f8e7d6c5b4a3928"),
    ("PEM RSA private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7yn3bRHQ5FHMQ\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA7yn3bRHQ5FHMQ"),
    ("OpenSSH private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
    ("PGP private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF4pGpgBCADzPGPsecretmaterial\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\n", "lQOYBF4pGpgBCADzPGPsecretmaterial"),
    ("URL password", "connect postgres://admin:hunter2secret@db.internal:5432/app", "hunter2secret"),
    ("URL password, empty user", "REDIS_URL is redis://:p4ssw0rdRedis@cache:6379/0", "p4ssw0rdRedis"),
    ("URL password with / and +", "amqp://svc:ab/cd+ef/gh12@mq.local/vhost", "ab/cd+ef/gh12"),
    ("URL secret query parameter", "GET https://example.com/v1?key=AbCdEf123456&x=1", "AbCdEf123456"),
    ("JDBC connection string", "jdbc:sqlserver://db:1433;user=sa;password=Sup3r$ecretPw;encrypt=true", "Sup3r$ecretPw"),
    ("ODBC connection string", "Driver={PostgreSQL};Server=db;Uid=app;Pwd=0dbcS3cretVal;", "0dbcS3cretVal"),
    ("env assignment", "ANTHROPIC_API_KEY=whatever-the-value-is", "whatever-the-value-is"),
    ("env assignment, quoted", "export GITHUB_TOKEN=\"quoted-token-value\"", "quoted-token-value"),
    ("DB_PASS (name without KEY/TOKEN/PASSWORD)", "DB_PASS=pg-pass-4242 psql", "pg-pass-4242"),
    ("SMTP_PASS", "SMTP_PASS: mail-pass-9911", "mail-pass-9911"),
    ("MYSQL_PWD", "MYSQL_PWD=my5qlPwdVal", "my5qlPwdVal"),
    ("YAML password", "DB_PASSWORD: s3cr3t-pass", "s3cr3t-pass"),
    ("plain password=", "login with password=hunter2hunter2 today", "hunter2hunter2"),
    ("JSON token field", r#"{"token": "tk_live_a1b2c3d4e5f6g7h8"}"#, "a1b2c3d4e5f6g7h8"),
    ("JSON api_key field", r#"{"api_key": "plain-text-json-secret"}"#, "plain-text-json-secret"),
    ("JSON client_secret field", r#"{"client_secret":"another-secret-value"}"#, "another-secret-value"),
    ("JSON password with spaces", r#"{"password": "correct horse battery staple"}"#, "horse battery"),
    ("JSON camelCase accessToken", r#"{"accessToken":"at.9f8e7d6c5b4a3"}"#, "9f8e7d6c5b4a3"),
    ("JSON nested token", r#"{"cmd": "deploy", "env": {"token": "Qx7vR2mK9pL4wT8zN3bY6cF1hJ5dG0sA"}}"#, "Qx7vR2mK9pL4wT8z"),
    ("JSON token in an array of objects", r#"{"steps": [{"with": {"npm_token": "npmt0k-zz99-yy88-xx77"}}]}"#, "npmt0k-zz99-yy88"),
    ("JSON array of credentials", r#"{"credentials": ["cr3d-one-a1b2c3d4", "cr3d-two-e5f6g7h8"]}"#, "cr3d-two-e5f6g7h8"),
    ("JSON escaped inside a string", r#"{"args": "{\"auth_token\": \"esc4ped t0ken v4lue\"}"}"#, "t0ken v4lue"),
    ("credential field", "credentials: cr3d-v4lue-x9", "cr3d-v4lue-x9"),
    ("auth field", "AUTH=au7h-v4lue-q1", "au7h-v4lue-q1"),
    ("session cookie value", "SESSION=5e55i0n-c00kie-v4l", "5e55i0n-c00kie-v4l"),
    ("CLI flag", "run --api-key=flag-secret-1234 now", "flag-secret-1234"),
    ("Telegram bot token", "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 ok", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"),
    ("Databricks token", "dapi0123456789abcdef0123456789abcdef", "0123456789abcdef0123"),
];

/// JSON documents whose secrets only their keys give away (no vendor
/// prefix, no shape): `(label, document, the secret part)`. Tool inputs and
/// outputs, events and API answers carry them as JSON values, which
/// [`super::sanitize_json`] redacts by key at any depth.
pub const STRUCTURED: &[(&str, &str, &str)] = &[
    (
        "nested env token",
        r#"{"env": {"token": "Qx7vR2mK9pL4wT8zN3bY6cF1hJ5dG0sA"}}"#,
        "Qx7vR2mK9pL4wT8z",
    ),
    (
        "deep password",
        r#"{"a": {"b": {"c": {"db_password": "plain words only"}}}}"#,
        "plain words only",
    ),
    (
        "array under a secret key",
        r#"{"credentials": ["first-cred-value", "second-cred-value"]}"#,
        "second-cred-value",
    ),
    (
        "secret key inside a secret key's object",
        r#"{"auth": {"user": "ana", "password": "pw value 77"}}"#,
        "pw value 77",
    ),
    (
        "array of arrays under a secret key",
        r#"{"api_keys_by_region": {"eu_token": [["eu-one-value-1"], ["eu-two-value-2"]]}}"#,
        "eu-two-value-2",
    ),
    (
        "secret key in an array of objects",
        r#"{"headers": [{"x-api-key": "hdr-value-42x"}]}"#,
        "hdr-value-42x",
    ),
    (
        "long number under a secret key",
        r#"{"session": {"cookie": 918273645546372819}}"#,
        "918273645546372819",
    ),
];

/// Text with placeholders where a secret goes: it must come out unchanged.
pub const PLACEHOLDERS: &[&str] = &[
    "export ANTHROPIC_API_KEY=<your key>",
    "export OPENAI_API_KEY=\"<your-openai-key>\"",
    "GITHUB_TOKEN=${GITHUB_TOKEN}",
    "API_KEY=$API_KEY",
    "password: {{ vault_password }}",
    "TOKEN=%TOKEN%",
    "SECRET_KEY=xxxxxxxxxxxxxxxx",
    "Authorization: Bearer <token>",
    "ANTHROPIC_API_KEY=[REDACTED]",
    "set api_key=your-api-key-here in the config",
];

/// The whole corpus as one text, a shape a line, as a user might paste it.
pub fn text() -> String {
    SHAPES
        .iter()
        .map(|(_, t, _)| *t)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The labels of the shapes whose secret part appears in `output`.
pub fn leaks(output: &str) -> Vec<&'static str> {
    SHAPES
        .iter()
        .filter(|(_, _, secret)| output.contains(secret))
        .map(|(label, _, _)| *label)
        .collect()
}
