//! Secret redaction: each kind found, only the secret replaced, field paths reported, ordinary
//! prose left alone, and redacting twice changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_core::model::*;
use handover_core::redact::{redact, redact_text};
use std::collections::BTreeMap;

// Fake secrets assembled at run time, so this file itself does not trip secret scanners.
fn fake(prefix: &str, body: &str) -> String {
    format!("{prefix}{body}")
}

fn private_key_block() -> String {
    format!(
        "-----BEGIN {k}-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END {k}-----",
        k = "RSA PRIVATE KEY"
    )
}

#[test]
fn each_kind_is_detected_and_only_the_secret_replaced() {
    let cases: Vec<(String, String, &str)> = vec![
        (format!("key:\n{}\nafter", private_key_block()), "key:\n[REDACTED:private_key]\nafter".into(), "private_key"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ (cut off)".into(),
            "[REDACTED:private_key]".into(),
            "private_key",
        ),
        (format!("export AWS_ID={}", fake("AKIA", "IOSFODNN7EXAMPLE")), "export AWS_ID=[REDACTED:aws_access_key]".into(), "aws_access_key"),
        (format!("id {} here", fake("ASIA", "Y34FZKBOKMUTVV7A")), "id [REDACTED:aws_access_key] here".into(), "aws_access_key"),
        (format!("git clone with {}", fake("ghp_", "1234567890abcdefghijABCDEFGHIJ123456")), "git clone with [REDACTED:github_token]".into(), "github_token"),
        (format!("{} ok", fake("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz")), "[REDACTED:github_token] ok".into(), "github_token"),
        (format!("gho {}", fake("gho_", "16C7e42F292c6912E7710c838347Ae178B4a")), "gho [REDACTED:github_token]".into(), "github_token"),
        (format!("key {}", fake("sk-", "abcdefghij1234567890ABCDEFGHIJ")), "key [REDACTED:api_key]".into(), "api_key"),
        (format!("key {}.", fake("sk-ant-", "api03-abcDEF123456789_xyzXYZ-0987654321")), "key [REDACTED:api_key].".into(), "api_key"),
        (format!("({})", fake("sk-proj-", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34")), "([REDACTED:api_key])".into(), "api_key"),
        (format!("slack {}", fake("xoxb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOp")), "slack [REDACTED:slack_token]".into(), "slack_token"),
        (format!("maps {}", fake("AIza", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY")), "maps [REDACTED:google_api_key]".into(), "google_api_key"),
        (
            format!("cookie {}", fake("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")),
            "cookie [REDACTED:jwt]".into(),
            "jwt",
        ),
        (
            "curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com".into(),
            "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://api.example.com".into(),
            "bearer_token",
        ),
        ("db at postgres://admin:hunter2@db.internal:5432/app".into(), "db at postgres://admin:[REDACTED:url_password]@db.internal:5432/app".into(), "url_password"),
        ("https://user:p%40ss:word@example.com/x".into(), "https://user:[REDACTED:url_password]@example.com/x".into(), "url_password"),
        ("DB_PASSWORD=s3cr3t-value".into(), "DB_PASSWORD=[REDACTED:secret_assignment]".into(), "secret_assignment"),
        ("export API_KEY=\"abc def\" next".into(), "export API_KEY=\"[REDACTED:secret_assignment]\" next".into(), "secret_assignment"),
        ("client_secret: Zx81kLq".into(), "client_secret: [REDACTED:secret_assignment]".into(), "secret_assignment"),
        ("{\"password\": \"correct horse\"}".into(), "{\"password\": \"[REDACTED:secret_assignment]\"}".into(), "secret_assignment"),
        ("mysql --password hunter2 -u root".into(), "mysql --password [REDACTED:secret_assignment] -u root".into(), "secret_assignment"),
        ("tool --auth-token=abc --verbose".into(), "tool --auth-token=[REDACTED:secret_assignment] --verbose".into(), "secret_assignment"),
        ("GITHUB_TOKEN = plainvalue".into(), "GITHUB_TOKEN = [REDACTED:secret_assignment]".into(), "secret_assignment"),
        ("https://x.test/cb?access_token=abc123&state=1".into(), "https://x.test/cb?access_token=[REDACTED:secret_assignment]&state=1".into(), "secret_assignment"),
        ("Authorization: Basic dXNlcjpwYXNz".into(), "Authorization: Basic [REDACTED:secret_assignment]".into(), "secret_assignment"),
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(), "AWS_SECRET_ACCESS_KEY=[REDACTED:secret_assignment]".into(), "secret_assignment"),
    ];
    for (input, want, kind) in &cases {
        let (got, kinds) = redact_text(input);
        assert_eq!(&got, want, "input: {input:?}");
        assert_eq!(kinds, vec![*kind], "input: {input:?}");
    }
}

#[test]
fn ordinary_text_is_left_alone() {
    let prose = [
        "the token budget is 2,000",
        "Token budget: 2000 tokens per handoff",
        "max_tokens=4096",
        "TOKEN_BUDGET=2000",
        "password reset flow is broken on mobile",
        "implement the password: reset flow",
        "Auth: uses the session middleware",
        "author: Jane Doe",
        "sk-learn and scikit-learn are the same library",
        "use a task-specific model; ask-me-anything",
        "sk-some-long-hyphenated-package-name",
        "bearer authentication is used by the API",
        "the Bearer token is sent in a header",
        "PWD=/home/dev/project",
        "API_KEY_FILE=/run/secrets/api_key",
        "PASSWORD=$DB_PASSWORD",
        "export TOKEN=${GITHUB_TOKEN}",
        "password: <your password>",
        "https://example.com/path?q=1",
        "ssh://git@github.com/org/repo.git",
        "see https://docs.rs/serde_json/latest/serde_json/ for details",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "AKIA is the prefix of AWS key ids",
        "the ghp_ prefix marks GitHub tokens",
        "eyJ is how base64 JSON starts",
        "std::io::Error: token: invalid",
        "secret_sauce: none",
        "12:30:45 build finished",
        "the --token flag is required",
        "pass --api-key to the CLI",
        "let token = lexer.next();",
        "if token == expected { return }",
        "match kind { Token => 1 }",
        "const API_KEY = process.env.API_KEY;",
        "password = os.environ[\"DB_PASSWORD\"]",
        "GITHUB_TOKEN: set in CI secrets",
        "token: see .env",
        "PASSWORD=...",
        "api_key=None",
    ];
    for text in prose {
        let (got, kinds) = redact_text(text);
        assert_eq!(got, text, "false positive on {text:?}");
        assert!(kinds.is_empty(), "false positive on {text:?}: {kinds:?}");
    }
}

#[test]
fn several_secrets_in_one_string_are_all_counted() {
    let text = format!(
        "GITHUB_TOKEN={} and postgres://u:pw@h/db and {}",
        fake("ghp_", "1234567890abcdefghijABCDEFGHIJ123456"),
        fake("AKIA", "IOSFODNN7EXAMPLE")
    );
    let (got, mut kinds) = redact_text(&text);
    kinds.sort();
    assert_eq!(
        kinds,
        vec!["aws_access_key", "github_token", "url_password"]
    );
    assert_eq!(got, "GITHUB_TOKEN=[REDACTED:github_token] and postgres://u:[REDACTED:url_password]@h/db and [REDACTED:aws_access_key]");
}

#[test]
fn redaction_is_idempotent() {
    let inputs = [
        format!("a {} b", private_key_block()),
        format!(
            "{} {}",
            fake("ghp_", "1234567890abcdefghijABCDEFGHIJ123456"),
            fake("sk-ant-", "api03-abcDEF123456789_xyz")
        ),
        "postgres://admin:hunter2@db/app PASSWORD=x1 Authorization: Bearer abc123def456ghi789"
            .into(),
        "--password hunter2 \"token\": \"abc\" --api-key=zzz9".into(),
    ];
    for input in inputs {
        let (once, kinds) = redact_text(&input);
        assert!(!kinds.is_empty(), "{input:?} should have secrets");
        let (twice, again) = redact_text(&once);
        assert_eq!(twice, once);
        assert!(again.is_empty(), "second pass found {again:?} in {once:?}");
    }
}

#[test]
fn redact_walks_every_field_and_reports_paths() {
    let gh = fake("ghp_", "1234567890abcdefghijABCDEFGHIJ123456");
    let mut c = Content {
        goal: format!("rotate {gh}"),
        narrative: Some("pushed with postgres://a:b9@h/d".into()),
        status: Status {
            completed: vec!["ok".into(), format!("used {gh}")],
            ..Status::default()
        },
        decisions: vec![Decision {
            what: "x".into(),
            alternatives: vec!["plain".into(), format!("SECRET={gh}x")],
            ..Decision::default()
        }],
        evidence: Evidence {
            commands_run: vec!["ls".into(), "ls".into(), "mysql --password hunter2".into()],
            measurements: BTreeMap::from([("token".to_string(), gh.clone())]),
            ..Evidence::default()
        },
        environment: BTreeMap::from([
            ("DB".to_string(), "postgres://u:pw1@h/db".to_string()),
            (gh.clone(), "key used as a name".to_string()),
        ]),
        plan: Some(Plan {
            test_strategy: vec![format!("API_KEY={}", "q9q9q9")],
            ..Plan::default()
        }),
        ..Content::default()
    };
    let found = redact(&mut c);
    let mut paths: Vec<(String, &str)> = found.iter().map(|r| (r.field.clone(), r.kind)).collect();
    paths.sort();
    let mut want = vec![
        ("goal".to_string(), "github_token"),
        ("narrative".to_string(), "url_password"),
        ("status.completed[1]".to_string(), "github_token"),
        ("decisions[0].alternatives[1]".to_string(), "github_token"),
        ("evidence.commands_run[2]".to_string(), "secret_assignment"),
        (
            "evidence.measurements[\"token\"]".to_string(),
            "github_token",
        ),
        ("environment[\"DB\"]".to_string(), "url_password"),
        (
            "environment (key [REDACTED:github_token])".to_string(),
            "github_token",
        ),
        ("plan.test_strategy[0]".to_string(), "secret_assignment"),
    ];
    want.sort();
    assert_eq!(paths, want);
    let json = serde_json::to_string(&c).unwrap();
    assert!(
        !json.contains("1234567890abcdefghij"),
        "a secret survived: {json}"
    );
    assert!(
        !json.contains("hunter2") && !json.contains("pw1") && !json.contains("q9q9q9"),
        "{json}"
    );
    assert_eq!(
        c.environment
            .get("[REDACTED:github_token]")
            .map(String::as_str),
        Some("key used as a name")
    );
    assert!(redact(&mut c).is_empty(), "second pass must find nothing");
}

/// Pseudo-random text from risky fragments: never panics (multi-byte characters next to every
/// pattern), and the result is stable under a second pass.
#[test]
fn random_text_never_panics_and_is_idempotent() {
    let fragments = [
        "é",
        "🚀",
        " ",
        "=",
        ":",
        "\"",
        "'",
        "--password",
        "token",
        "PASSWORD",
        "://",
        "@",
        "u:p",
        "Bearer ",
        "bearer ",
        "eyJ",
        ".eyJ",
        "abcdefghij",
        "0123456789",
        "ghp_",
        "sk-",
        "AKIA",
        "AIza",
        "xoxb-",
        "-----BEGIN ",
        "PRIVATE KEY-----",
        "-----END ",
        "\n",
        "[REDACTED:x]",
        "$",
        "&",
        "日本",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let n = (next() % 12) as usize;
        let text: String = (0..n)
            .map(|_| fragments[(next() % fragments.len() as u64) as usize])
            .collect();
        let (once, _) = redact_text(&text);
        let (twice, again) = redact_text(&once);
        assert_eq!(twice, once, "not idempotent on {text:?}");
        assert!(
            again.is_empty(),
            "second pass found {again:?} in {once:?} (from {text:?})"
        );
    }
}
