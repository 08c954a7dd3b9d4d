//! Secret redaction: each kind found, only the secret replaced, field paths reported, ordinary
//! prose left alone, and redacting twice changes nothing.

use handover_handoff::model::*;
use handover_handoff::redaction::redact;
use handover_redact::redact_text;
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
        (format!("export AWS_ID={}", fake("AKIA", "QJ7RZ2W4KXN8TPL3")), "export AWS_ID=[REDACTED:aws_access_key]".into(), "aws_access_key"),
        (format!("id {} here", fake("ASIA", "Y34FZKBOKMUTVV7A")), "id [REDACTED:aws_access_key] here".into(), "aws_access_key"),
        (format!("git clone with {}", fake("ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q")), "git clone with [REDACTED:github_token]".into(), "github_token"),
        (format!("{} ok", fake("github_pat_", "11AQ7Z2KX0r8Lm4Tz9Wb_1Ny6Pk3Hd5Vs0Jf2Ga8QcX4eY")), "[REDACTED:github_token] ok".into(), "github_token"),
        (format!("gho {}", fake("gho_", "16C7e42F292c6912E7710c838347Ae178B4a")), "gho [REDACTED:github_token]".into(), "github_token"),
        (format!("key {}", fake("sk-", "Tq8Lm2Xz7Rb4Nc9Wv1Ky6Hp3Dj5Fs0G")), "key [REDACTED:api_key]".into(), "api_key"),
        (format!("key {}.", fake("sk-ant-", "api03-abcDEF123456789_xyzXYZ-0987654321")), "key [REDACTED:api_key].".into(), "api_key"),
        (format!("({})", fake("sk-proj-", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34")), "([REDACTED:api_key])".into(), "api_key"),
        (format!("slack {}", fake("xoxb-", "482916730521-9370218465031-Qx7RtLm2ZbN8cWvK")), "slack [REDACTED:slack_token]".into(), "slack_token"),
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
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81Rk2Wd".into(), "AWS_SECRET_ACCESS_KEY=[REDACTED:secret_assignment]".into(), "secret_assignment"),
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
        fake("ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q"),
        fake("AKIA", "QJ7RZ2W4KXN8TPL3")
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
            fake("ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q"),
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
    let gh = fake("ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q");
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
        !json.contains("R8c2Xq7Lm4Tz9Wb1Ny6P"),
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

// Six defects the redactor once had, each with the input that reproduced it.

/// Defect 1: values of the `environment` map were not redacted when their key names a secret.
#[test]
fn environment_values_are_redacted_by_their_key() {
    let mut c = Content {
        goal: "g".into(),
        environment: BTreeMap::from([
            ("DB_PASSWORD".to_string(), "hunter2hunter2".to_string()),
            (
                "STRIPE".to_string(),
                fake("Zf3D0LXCM3EIMbg", "JpUNnkRtOfOueHznB"),
            ),
            ("DEPLOY_TARGET".to_string(), "staging-2".to_string()),
            ("API_TOKEN".to_string(), "${API_TOKEN}".to_string()),
        ]),
        ..Content::default()
    };
    let found = redact(&mut c);
    assert_eq!(c.environment["DB_PASSWORD"], "[REDACTED:secret_assignment]");
    assert_eq!(c.environment["STRIPE"], "[REDACTED:secret_assignment]");
    assert_eq!(c.environment["DEPLOY_TARGET"], "staging-2");
    assert_eq!(c.environment["API_TOKEN"], "${API_TOKEN}");
    let fields: Vec<&str> = found.iter().map(|r| r.field.as_str()).collect();
    assert_eq!(
        fields,
        vec!["environment[\"DB_PASSWORD\"]", "environment[\"STRIPE\"]"]
    );
}

/// Defect 2: Go's `:=` broke the line (`X :[REDACTED] "secret"`) and kept the secret while
/// reporting a redaction.
#[test]
fn go_short_assignment_redacts_the_value() {
    let (got, kinds) = redact_text("apiToken := \"s3cr3t-value\"");
    assert_eq!(got, "apiToken := \"[REDACTED:secret_assignment]\"");
    assert_eq!(kinds, vec!["secret_assignment"]);
    let (got, _) = redact_text("DB_PASSWORD := `hunter2hunter2`");
    assert_eq!(got, "DB_PASSWORD := `[REDACTED:secret_assignment]`");
}

/// Defect 3: `Authorization: Api-Token <tok>` redacted the scheme word and kept the token.
#[test]
fn authorization_scheme_words_are_kept_and_the_token_goes() {
    for scheme in [
        "Api-Token",
        "Token",
        "Bearer",
        "Basic",
        "SSWS",
        "Bot",
        "ApiKey",
    ] {
        let input = format!("curl -H 'Authorization: {scheme} abc123def456ghi789' https://x");
        let (got, kinds) = redact_text(&input);
        assert!(
            got.contains(&format!("Authorization: {scheme} [REDACTED:")),
            "{scheme}: {got}"
        );
        assert!(!got.contains("abc123def456ghi789"), "{scheme}: {got}");
        assert_eq!(kinds.len(), 1, "{scheme}: {kinds:?}");
    }
}

/// Defect 4: PGP private key blocks were not caught (the header ends in `KEY BLOCK`).
#[test]
fn pgp_private_key_blocks_are_caught() {
    let block = format!(
        "-----BEGIN {k}-----\n\nlQOYBF{body}\n=ab12\n-----END {k}-----",
        k = "PGP PRIVATE KEY BLOCK",
        body = "7Xg0BCADRm3xkq1lGZP0sW9b5ZvO1g0lr2XAj3kLxT4sYqWn8m0vE"
    );
    let (got, kinds) = redact_text(&format!("key:\n{block}\nafter"));
    assert_eq!(got, "key:\n[REDACTED:private_key]\nafter");
    assert_eq!(kinds, vec!["private_key"]);
    // Escaped newlines, as in a JSON string, and a block cut off: all of it goes.
    let escaped = block.replace('\n', "\\n");
    let (got, _) = redact_text(&format!("{{\"key\": \"{escaped}\"}}"));
    assert_eq!(got, "{\"key\": \"[REDACTED:private_key]\"}");
    let (got, _) = redact_text(&block[..60]);
    assert_eq!(got, "[REDACTED:private_key]");
    // Public blocks stay.
    let public = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----";
    assert_eq!(redact_text(public).0, public);
}

/// Defect 5: whole families were missing. Each is recognised in a sentence with no key name.
#[test]
fn the_missing_families_are_caught_by_their_shape() {
    let cases: Vec<(String, &str)> = vec![
        (fake("glpat-", "k6D19Slx-uVSP2Po4N-q"), "gitlab_token"),
        (fake("glptt-", "158c6fddd15b02b779f9cc397c0cf331901bd442"), "gitlab_token"),
        (fake("glrt-", "AXhX4t-iAKxxYFn5ParS"), "gitlab_token"),
        (fake("gldt-", "WZUlX-z5MTCJ5eaheYQ1"), "gitlab_token"),
        (
            fake("https://hooks.slack.com/services/", "TGS5BZ4VU/BQ8UD1ZOVGZ/FAY1Hj50uLDmqJUfirhD55RR"),
            "webhook_url",
        ),
        (fake("xapp-", "1-A04K7Q2Z9XB-4829167305218-9f3c1e7a5b2d0864"), "slack_token"),
        (fake("xoxe-", "1-LX7XR0T7Z24XNK0GJUJQK74NCINKIPCIWKMLJHQ0X1E2"), "slack_token"),
        (fake("sk_live_", "qsz1MtZ0c4pDlbuAIp026i0A"), "stripe_key"),
        (fake("rk_live_", "yR6aEvyGL8ywfAUtIdFJHlcQ"), "stripe_key"),
        (fake("whsec_", "84pKBkZlcLOI4CAKvpU6TNFfhabXKHMY"), "stripe_key"),
        (fake("ABIA", "2OZ6SC7KKQXBNEBM"), "aws_access_key"),
        (fake("ACCA", "2OZ6SC7KKQXBNEBM"), "aws_access_key"),
        (fake("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCY4x9Qz2LmN7pK"), "high_entropy_key"),
        (
            fake("Y1uv7lCypwI+lVdqVtxh+LvRXP/y8m+ZBLPt3e2HOajjLVK0e3UKQfd6IP", "oKoaoAEiV2fHdz7jQ1ibjhoRKHNW=="),
            "high_entropy_key",
        ),
        (fake("dckr_pat_", "jMwC_DBW4Om1PKsI7MHbQIfWVUT"), "docker_token"),
        (fake("hf_", "ngEIlDutaQVOtKhxnlgAQGEbDGTWsqSQmP"), "huggingface_token"),
        (fake("api_org_", "oIwInPcbKmHrBEpuQsuUqMyCxqhJaLsOsq"), "huggingface_token"),
        (fake("npm_", "FrtQwfM95Ku57ZU3xNOmVM2kM588IfDcWVmT"), "npm_token"),
        (
            fake("pypi-AgEIcHlwaS5vcmc", "0ly4BbF5Us0aO-0gPoB8ZosRExR8PE6e8ydbgXu57Cq1JJPu-LC1bIApfLn_"),
            "pypi_token",
        ),
        (
            fake("dop_v1_", "ac4882d0b5a9420b7c7ff5a49ba6909cebd13550a8a00cbb1fec8f327692fb78"),
            "digitalocean_token",
        ),
        (
            fake("sntryu_", "3a457a84a9f7f6d2b29769aa45e70f6917fd3a331d85d71f1e3ddf2a0dc64558"),
            "sentry_token",
        ),
        (fake("shpat_", "BE1Be7d2aCB31111b63a982CCD2c641E"), "shopify_token"),
        (fake("HRKU-AA", "6LOIRmKFLyBamHttYB-4npo31cHQJGb-fg8ovzBtBlTFU8a4RZ-zC4YKoB"), "heroku_key"),
        (fake("hvs.", "uZlJrvQnPtjYR9Z5Tt0cUlSyCud58emCl5R-dXgpYW9XMI55E-3p763hyLqyXO1Wfx3F4QI6JmQK-8yBy6KD2XybNGYmlpE"), "vault_token"),
        (fake("ya29.", "3rPxIP3j1BHdSZkBV-Uc0Ku1XpNAFj7kICd_J654XyZjbNIj3iDGf2O2DnIyUJZoh5SW4o"), "google_oauth"),
        (fake("GOCSPX-", "P6ReOf8_7RMT8ldoXwByr5l9JOpJ"), "google_oauth"),
        (
            fake("ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5LmV5SnpkV0", "lpT2lJek5URXhOVGt6TnpnM0lpd2lhV0YwSWpveE56TXlNekF3TURBd2ZR"),
            "jwt",
        ),
    ];
    for (secret, kind) in &cases {
        // A webhook keeps its host and path up to the secret part.
        let kept = if secret.starts_with("https://") {
            "https://hooks.slack.com/services/"
        } else {
            ""
        };
        let (got, kinds) = redact_text(&format!("found {secret} in the old notes"));
        assert_eq!(
            got,
            format!("found {kept}[REDACTED:{kind}] in the old notes"),
            "{secret}"
        );
        assert_eq!(kinds, vec![*kind], "{secret}");
    }
    // Keyed families: Heroku's UUID keys, Cloudflare's hex keys, Azure SAS signatures.
    for (input, want) in [
        (
            format!("HEROKU_API_KEY={}", fake("f9ff2a3f-960b-", "18c9-3b37-86bec59131df")),
            "HEROKU_API_KEY=[REDACTED:secret_assignment]",
        ),
        (
            format!("the cloudflare key is {}", fake("7d9edae75bd77e92", "6279169228afa0bf77abe")),
            "the cloudflare key is [REDACTED:secret_in_text]",
        ),
        (
            format!("https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig={}&x=1", fake("exgw7FwVQpNOOiWed", "QkwsK2Vc%2BnXk3%3D")),
            "https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=[REDACTED:secret_assignment]&x=1",
        ),
    ] {
        assert_eq!(redact_text(&input).0, want);
    }
}

/// Defect 6: assignment forms other than `=` and `:` were missed.
#[test]
fn every_assignment_form_is_understood() {
    let v = fake("q7Rk2Lx9", "Pm4Tn8Vw");
    for (input, want) in [
        (
            format!("MY_TOKEN ::= \"{v}\""),
            "MY_TOKEN ::= \"[REDACTED:secret_assignment]\"",
        ),
        (
            format!("MY_TOKEN :::= \"{v}\""),
            "MY_TOKEN :::= \"[REDACTED:secret_assignment]\"",
        ),
        (
            format!("MY_TOKEN ?= {v}"),
            "MY_TOKEN ?= [REDACTED:secret_assignment]",
        ),
        (
            format!("$apiToken .= \"{v}\";"),
            "$apiToken .= \"[REDACTED:secret_assignment]\";",
        ),
        (
            format!("var apiToken string = \"{v}\""),
            "var apiToken string = \"[REDACTED:secret_assignment]\"",
        ),
        (
            format!("val apiToken: String = \"{v}\""),
            "val apiToken: String = \"[REDACTED:secret_assignment]\"",
        ),
        (
            format!("System.setProperty(\"X_TOKEN\", \"{v}\")"),
            "System.setProperty(\"X_TOKEN\", \"[REDACTED:secret_assignment]\")",
        ),
        (
            format!("  \"apiToken\" => \"{v}\""),
            "  \"apiToken\" => \"[REDACTED:secret_assignment]\"",
        ),
        (
            format!("<apiToken>\n    {v}\n</apiToken>"),
            "<apiToken>\n    [REDACTED:secret_assignment]\n</apiToken>",
        ),
        (
            format!("password ||= '{v}'"),
            "password ||= '[REDACTED:secret_assignment]'",
        ),
    ] {
        let (got, kinds) = redact_text(&input);
        assert_eq!(got, want, "input: {input:?}");
        assert_eq!(kinds, vec!["secret_assignment"], "input: {input:?}");
    }
    // Comparisons and match arms are not assignments.
    for text in [
        "if token == expected { return }",
        "match kind { Token => 1 }",
    ] {
        assert_eq!(redact_text(text).0, text);
    }
}

/// A report never claims a redaction that left the secret: each reported kind put one marker
/// in the output, and a fresh scan of the output finds nothing.
#[test]
fn every_reported_redaction_removed_what_it_reported() {
    let inputs = [
        format!(
            "X := \"{}\" and Authorization: Api-Token {}",
            fake("s3cr3t", "-value"),
            fake("abc123", "def456ghi789")
        ),
        format!(
            "export A_TOKEN={} B_PASSWORD='x y z' {}",
            fake("ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q"),
            fake("sk_live_", "qsz1MtZ0c4pDlbuAIp026i0A")
        ),
        "postgres://u:pw1@h/db?password=pw2&token=abc123".to_string(),
    ];
    for input in inputs {
        let (out, kinds) = redact_text(&input);
        assert_eq!(out.matches("[REDACTED:").count(), kinds.len(), "{out}");
        assert!(redact_text(&out).1.is_empty(), "rescan found more in {out}");
    }
}

#[test]
fn prose_about_secrets_stays_readable() {
    for text in [
        "password: correcthorse",
        "the --token flag is required",
        "the token budget is 2,000 and the password policy needs 12 characters",
        "Commit a4c123b1612dd272d1371c17149d439536b3216f fixed the token refresh bug.",
        "Key id 8da6bd0c621de49f in the JWKS is the current signing key.",
        "The image digest is sha256:0928b5b7a767c76fb008f86bebb2737f6a6f0fb23c6f5da2cec255404e4fb440.",
        "Tenant 9c1caaf7-5e87-46ed-88da-f4016b4013ef has the old API key format.",
        "Subresource integrity: sha384-wOcZCX36hwHpIy8h8oEmh3hpduv8wyf1kxdlJ0upgptEBvYf+Ikyb/qUku3u7jxm.",
        "hf_requiredCharacteristicTypesForDisplayMetadata is an Objective-C selector",
        "curl -u user:pass https://example.com",
    ] {
        let (got, kinds) = redact_text(text);
        assert_eq!(got, text, "changed: {kinds:?}");
    }
}

/// `handover write --from` end to end: the six defects' inputs, in one JSON file.
#[test]
fn write_from_json_stores_none_of_the_defect_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = [
        "hunter2hunter2".to_string(),
        fake("s3cr3t", "-gopher-value"),
        fake("abc123", "def456ghi789"),
        fake("glpat-", "k6D19Slx-uVSP2Po4N-q"),
        fake("q7Rk2Lx9", "Pm4Tn8Vw"),
    ];
    let input = serde_json::json!({
        "goal": "ship the fix",
        "environment": {"DB_PASSWORD": secrets[0]},
        "evidence": {"commands_run": [
            format!("apiToken := \"{}\"", secrets[1]),
            format!("curl -H 'Authorization: Api-Token {}' https://x", secrets[2]),
            format!("git push https://gitlab.example.com with {}", secrets[3]),
            format!("MY_TOKEN ?= {}", secrets[4]),
        ]},
        "narrative": format!("-----BEGIN {} PRIVATE KEY BLOCK-----\nlQOYBF7Xg0BCADRm3xkq1\n-----END PGP PRIVATE KEY BLOCK-----", "PGP"),
    });
    let from = dir.path().join("in.json");
    std::fs::write(&from, input.to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_handover"))
        .args(["write", "--from", from.to_str().unwrap()])
        .current_dir(dir.path())
        .env("HANDOVER_AGENT", "test")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!(
        "write_report",
        crate::support::snapshot::placeholders(dir.path(), &stdout)
    );
    for file in [
        ".handover/state.json",
        "handover.md",
        ".handover/journal.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "{file} holds {s}");
        }
        assert!(
            !text.contains("lQOYBF7Xg0BCADRm3xkq1"),
            "{file} holds the key"
        );
    }
}

/// Values judged by what they are: code, names, versions, public keys and ids stay next to a
/// secret-naming key; a random-looking value goes.
#[test]
fn values_that_are_code_names_or_public_stay() {
    let ed25519 = fake(
        "AAAAC3NzaC1lZDI1NTE5",
        "AAAAIMEHbZzyFYIRnNkxP2ShXLfwNTK21LRgUuslJM4jQRRY",
    );
    for text in [
        "self.password = password".to_string(),
        "token = self.token".into(),
        "client_secret = settings.CLIENT_SECRET".into(),
        "administrator_login_password = var.db_password".into(),
        "this.secretKey = secretKey;".into(),
        "api_key = get_api_key()".into(),
        "\"bucket_key\": \"SalesResults-1.2\"".into(),
        "schemaKey = 'DOC_Vector_5_32'".into(),
        "notes = \"Maven - io.jsonwebtoken:jjwt-jackson-0.11.2\"".into(),
        "<entry key=\"jetbrains.mps.v8_elimination\" value=\"executed\" />".into(),
        "\t\"key_vault_name\": \"web21prqodx24021\",".into(),
        format!("public_key = \"ssh-ed25519 {ed25519}\""),
        format!("ssh-ed25519 {ed25519} is the public host key"),
        format!("the stripe customer {} has two invoices", fake("cus_", "vrBM0143Cxd38n")),
        format!("STRIPE_PUBLISHABLE_KEY={}", fake("pk_test_", "Xry4aBaevned8WagcFcLhg3P5OG7Z7rgHz")),
        "publicToken = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"".into(),
        "csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa3U2AbhIvUw==".into(),
        // Documented examples and placeholders shaped like keys.
        format!("aws_access_key: {}", fake("AKIA", "IOSFODNN7EXAMPLE")),
        format!("PREFECT_API_KEY = \"{}\"", fake("pnu_", "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")),
        format!("meraki: {}", fake("abdefghjk", "0123456789mnopqrstuvwx12345678")),
        "curl -u <user:password> https://test.com/endpoint".into(),
        "curl --user \"{{ $.Values.username }}:{{ $.Values.password }}\"".into(),
        "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----".into(),
    ] {
        let (out, kinds) = redact_text(&text);
        assert_eq!(out, text, "changed: {kinds:?}");
    }
}

/// The classes that were missed, each redacted to exactly the secret.
#[test]
fn config_pairs_cli_credentials_and_wrapped_tokens_are_caught() {
    let jwt = fake(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    );
    // The JWT inside a base64 blob, at each of the three offsets in a 3-byte group.
    let b64 = |s: &str| {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in s.as_bytes().chunks(3) {
            let n = chunk.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b))
                << (8 * (3 - chunk.len()));
            for k in 0..=chunk.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            }
        }
        out
    };
    let cases: Vec<(String, String, &str)> = vec![
        (
            "<add key=\"ClearTextPassword\" value=\"Tq8!Lm2Xz7\" />".into(),
            "<add key=\"ClearTextPassword\" value=\"[REDACTED:secret_assignment]\" />".into(),
            "secret_assignment",
        ),
        (
            "curl -s --user 'api:d2LkV78zLx!t' https://api.mailgun.net/v3".into(),
            "curl -s --user 'api:[REDACTED:url_password]' https://api.mailgun.net/v3".into(),
            "url_password",
        ),
        (
            "curl --user kevin:'pRf7vG2h1L8nQkW9' -iX PATCH".into(),
            "curl --user kevin:'[REDACTED:url_password]' -iX PATCH".into(),
            "url_password",
        ),
        (
            "curl -u \"d2LkV78zLx!t:\" https://localhost:9200".into(),
            "curl -u \"[REDACTED:url_password]:\" https://localhost:9200".into(),
            "url_password",
        ),
        (
            "curl --cacert ca.crt -u elastic:P@ssw0rd$1 https://localhost:9200".into(),
            "curl --cacert ca.crt -u elastic:[REDACTED:url_password] https://localhost:9200".into(),
            "url_password",
        ),
        ("mysql -u root -pS3cr3tPw0rd db".into(), "mysql -u root -p[REDACTED:secret_assignment] db".into(), "secret_assignment"),
        ("mysql --password Zx81kLq9 -h db".into(), "mysql --password [REDACTED:secret_assignment] -h db".into(), "secret_assignment"),
        ("PGPASSWORD=Zx81kLq9w psql -h db".into(), "PGPASSWORD=[REDACTED:secret_assignment] psql -h db".into(), "secret_assignment"),
        (
            "export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:deadbeef && bundle".into(),
            "export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:[REDACTED:secret_assignment] && bundle".into(),
            "secret_assignment",
        ),
        (
            "source https://cafebabe:deadbeef@enterprise.contribsys.com/".into(),
            "source https://cafebabe:[REDACTED:url_password]@enterprise.contribsys.com/".into(),
            "url_password",
        ),
        (
            format!("then send it as Bearer {jwt} in the header"),
            "then send it as Bearer [REDACTED:jwt] in the header".into(),
            "jwt",
        ),
        (
            "Use fuidbt38o8y686s for the Dropbox sandbox account.".into(),
            "Use [REDACTED:secret_in_text] for the Dropbox sandbox account.".into(),
            "secret_in_text",
        ),
        (
            format!("the key is {}", fake("AKIA", "JXQZRWPLMKTVBNHG")),
            "the key is [REDACTED:aws_access_key]".into(),
            "aws_access_key",
        ),
    ];
    for (input, want, kind) in &cases {
        let (got, kinds) = redact_text(input);
        assert_eq!(&got, want, "input: {input:?}");
        assert_eq!(kinds, vec![*kind], "input: {input:?}");
    }
    for pad in ["", "x", "xy"] {
        let blob = b64(&format!("{pad}{{\"token\":\"{jwt}\"}}"));
        let (got, kinds) = redact_text(&format!("cookie {blob} end"));
        assert_eq!(got, "cookie [REDACTED:jwt] end", "offset {}", pad.len());
        assert_eq!(kinds, vec!["jwt"]);
    }
}

/// Overlapping rules give one finding and one marker: a provider's token under a key that
/// names a secret, a JWT after `Bearer` under `Authorization`.
#[test]
fn overlapping_rules_give_one_finding() {
    let telegram = fake("123456789:", "AAHr4Fd2Kq9Xw1Zb7Ny3Pm8Lt5Vc0Js6Gh2");
    for (input, kind) in [
        (
            format!("telegram_api_token = \"{telegram}\""),
            "telegram_token",
        ),
        (format!("TELEGRAM_BOT_TOKEN={telegram}"), "telegram_token"),
        (
            format!(
                "ghToken: {}",
                fake("ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q")
            ),
            "github_token",
        ),
    ] {
        let (got, kinds) = redact_text(&input);
        assert_eq!(kinds, vec![kind], "{input}");
        assert_eq!(got.matches("[REDACTED:").count(), 1, "{got}");
        assert!(!got.contains("]]") && !got.contains("Gh2"), "{got}");
    }
}

/// Kubernetes Secret manifests: values under `data:` go whatever their key; a ConfigMap's and
/// short base64 values stay.
#[test]
fn kubernetes_secret_values_are_redacted() {
    let value = fake("YWRtaW46cGFz", "c3dvcmQ=");
    let secret = format!("apiVersion: v1\nkind: Secret\ndata:\n  extra: {value}\n  user: YWRtaW4=\nmetadata:\n  name: x");
    let (out, kinds) = redact_text(&secret);
    assert_eq!(
        out,
        "apiVersion: v1\nkind: Secret\ndata:\n  extra: [REDACTED:secret_assignment]\n  user: YWRtaW4=\nmetadata:\n  name: x"
    );
    assert_eq!(kinds, vec!["secret_assignment"]);
    let block =
        format!("kind: Secret\ndata:\n  .dockercfg: |\n    {value}{value}\nmetadata:\n  name: y");
    assert_eq!(
        redact_text(&block).0,
        "kind: Secret\ndata:\n  .dockercfg: |\n    [REDACTED:secret_assignment]\nmetadata:\n  name: y"
    );
    let config_map = format!(
        "kind: Secret\nmetadata:\n  name: a\n---\nkind: ConfigMap\ndata:\n  extra: {value}"
    );
    assert_eq!(redact_text(&config_map).0, config_map);
}

/// Command lines that take a password by a short flag or by position.
#[test]
fn command_line_passwords_are_redacted() {
    for (input, want) in [
        (
            "redis-cli -h cache -a Zq81kLq9wX ping",
            "redis-cli -h cache -a [REDACTED:secret_assignment] ping",
        ),
        (
            "sshpass -p Zq81kLq9wX ssh deploy@host",
            "sshpass -p [REDACTED:secret_assignment] ssh deploy@host",
        ),
        (
            "openssl pkcs12 -export -passout pass:Zq81kLq9wX",
            "openssl pkcs12 -export -passout pass:[REDACTED:secret_assignment]",
        ),
        (
            "bundle config set --global gems.contribsys.com cafe1234:Zq81kLq9wX",
            "bundle config set --global gems.contribsys.com cafe1234:[REDACTED:secret_assignment]",
        ),
        ("ssh -p 2222 deploy@host", "ssh -p 2222 deploy@host"),
        ("docker run -p8080:80 nginx", "docker run -p8080:80 nginx"),
        (
            "openssl enc -pass env:SECRET_PW",
            "openssl enc -pass env:SECRET_PW",
        ),
    ] {
        assert_eq!(redact_text(input).0, want, "{input}");
    }
}

/// AWS key ids are redacted whatever their 16-character body: capitals only (about 3.6 % of
/// real ids have no digit), capitals and digits, few vowels or many.
#[test]
fn every_aws_key_id_shape_is_redacted() {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let letters = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    for round in 0..5000 {
        let chars: &[u8] = if round % 2 == 0 { letters } else { alphabet };
        let body: String = (0..16)
            .map(|_| chars[next(chars.len() as u64) as usize] as char)
            .collect();
        let prefix = ["AKIA", "ASIA", "ABIA", "ACCA"][round % 4];
        let text = format!("aws id {} in the notes", fake(prefix, &body));
        let (out, kinds) = redact_text(&text);
        assert_eq!(
            out, "aws id [REDACTED:aws_access_key] in the notes",
            "{text}"
        );
        assert_eq!(kinds, vec!["aws_access_key"]);
    }
}

/// In prose a key is not a value, but a value followed by a colon still is one.
#[test]
fn keys_in_text_are_not_values() {
    let token = fake(
        "xoxe-1-My0xLTMxNzcwMjQ0MTcx",
        "My01MTU4MTUyNjkxNzE0LTUxODE4NDI0MDY3MzYtMjA5MGFk",
    );
    let (out, kinds) = redact_text(&format!("\"refresh_token1\": \"{token}\""));
    assert_eq!(out, "\"refresh_token1\": \"[REDACTED:slack_token]\"");
    assert_eq!(kinds, vec!["slack_token"]);
    let (out, _) = redact_text("TokenIssuer1WithAzp = \"x\"");
    assert_eq!(out, "TokenIssuer1WithAzp = \"x\"");
    let (out, kinds) =
        redact_text("The Mailgun key is 9f3ab27c41d8e6b05a9c2f7e1d4b8a6c: rotate it");
    assert_eq!(
        out,
        "The Mailgun key is [REDACTED:secret_in_text]: rotate it"
    );
    assert_eq!(kinds, vec!["secret_in_text"]);
}
