//! Secrets never reach the files: API keys, tokens, private keys, passwords in URLs and
//! `KEY=value` secrets are replaced by `[REDACTED:<kind>]` before anything is written.
//!
//! Hand-written scanners rather than the regex crate: the core is linked into the hook
//! binaries, and each pattern here is a prefix plus a run of characters. Every pass skips text
//! that is already `[REDACTED:...]`, so redacting twice changes nothing.
//!
//! Kinds (docs/format.md, "Redaction"): `private_key`, `aws_access_key`, `github_token`,
//! `api_key` (`sk-...`), `slack_token`, `google_api_key`, `jwt`, `bearer_token`,
//! `url_password`, `secret_assignment`.

use crate::model::Content;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub struct Redaction {
    /// Where: a field path such as `evidence.commands_run[2]`.
    pub field: String,
    /// What: one of `private_key`, `aws_access_key`, `github_token`, `api_key`, `slack_token`,
    /// `google_api_key`, `jwt`, `bearer_token`, `url_password`, `secret_assignment`.
    pub kind: &'static str,
}

const MARK: &str = "[REDACTED:";

fn marker(kind: &str) -> String {
    format!("{MARK}{kind}]")
}

/// Redacts every string field of the content in place, map keys included. One `Redaction` per
/// secret found.
pub fn redact(content: &mut Content) -> Vec<Redaction> {
    let mut found = Vec::new();
    // Keys first, so that the field paths reported below never repeat a secret key.
    redact_keys(&mut content.environment, "environment", &mut found);
    redact_keys(
        &mut content.evidence.measurements,
        "evidence.measurements",
        &mut found,
    );
    crate::validate::visit_strings_mut(content, &mut |path, text| {
        let (clean, kinds) = redact_text(text);
        if !kinds.is_empty() {
            *text = clean;
            found.extend(kinds.into_iter().map(|kind| Redaction {
                field: path.to_string(),
                kind,
            }));
        }
    });
    found
}

/// A secret used as a map key: the key is replaced; on a clash with an existing key a number
/// is appended so that no value is lost.
fn redact_keys(map: &mut BTreeMap<String, String>, path: &str, found: &mut Vec<Redaction>) {
    let dirty: Vec<String> = map
        .keys()
        .filter(|k| !redact_text(k).1.is_empty())
        .cloned()
        .collect();
    for key in dirty {
        let (mut clean, kinds) = redact_text(&key);
        let Some(value) = map.remove(&key) else {
            continue;
        };
        let base = clean.clone();
        let mut n = 2;
        while map.contains_key(&clean) {
            clean = format!("{base} ({n})");
            n += 1;
        }
        found.extend(kinds.into_iter().map(|kind| Redaction {
            field: format!("{path} (key {clean})"),
            kind,
        }));
        map.insert(clean, value);
    }
}

/// Redacts one string; returns the new text and the kinds found (one entry per secret).
pub fn redact_text(text: &str) -> (String, Vec<&'static str>) {
    let mut kinds = Vec::new();
    let mut s = private_keys(text, &mut kinds);
    s = url_passwords(&s, &mut kinds);
    s = bearer_tokens(&s, &mut kinds);
    for rule in TOKEN_RULES {
        s = prefixed_tokens(&s, rule, &mut kinds);
    }
    s = jwts(&s, &mut kinds);
    s = assignments(&s, &mut kinds);
    (s, kinds)
}

/// `-----BEGIN ... PRIVATE KEY-----` through the matching END line (or to the end of the text
/// when it was cut off).
fn private_keys(text: &str, kinds: &mut Vec<&'static str>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let header_end = rest[start + 11..].find("-----").map(|i| start + 11 + i);
        let is_private = header_end.is_some_and(|e| rest[start + 11..e].ends_with("PRIVATE KEY"));
        let Some(header_end) = header_end.filter(|_| is_private) else {
            out.push_str(&rest[..start + 11]);
            rest = &rest[start + 11..];
            continue;
        };
        out.push_str(&rest[..start]);
        let after_header = header_end + 5;
        let end = match rest[after_header..].find("-----END ") {
            Some(i) => {
                let end_start = after_header + i + 9;
                rest[end_start..]
                    .find("-----")
                    .map_or(rest.len(), |j| end_start + j + 5)
            }
            None => rest.len(),
        };
        out.push_str(&marker("private_key"));
        kinds.push("private_key");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `scheme://user:PASSWORD@host`: only the password goes.
fn url_passwords(text: &str, kinds: &mut Vec<&'static str>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let auth_start = i + 3;
        let auth_len = rest[auth_start..]
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`')
            })
            .unwrap_or(rest.len() - auth_start);
        let authority = &rest[auth_start..auth_start + auth_len];
        let scheme_ok = rest[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        let password = authority.rfind('@').and_then(|at| {
            let userinfo = &authority[..at];
            userinfo.find(':').map(|colon| (colon + 1, at))
        });
        match password {
            Some((from, to))
                if scheme_ok && to > from && !authority[from..to].starts_with(MARK) =>
            {
                out.push_str(&rest[..auth_start + from]);
                out.push_str(&marker("url_password"));
                kinds.push("url_password");
                out.push_str(&rest[auth_start + to..auth_start + auth_len]);
            }
            _ => out.push_str(&rest[..auth_start + auth_len]),
        }
        rest = &rest[auth_start + auth_len..];
    }
    out.push_str(rest);
    out
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `Bearer <token>` (any case), as in an `Authorization` header. A plain word after "bearer"
/// ("bearer authentication") is left alone: the token needs a digit or 24+ characters.
fn bearer_tokens(text: &str, kinds: &mut Vec<&'static str>) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut last = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find("bearer ").map(|i| from + i) {
        from = i + 7;
        if i > 0
            && text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            continue;
        }
        let start =
            i + 7 + (text[i + 7..].len() - text[i + 7..].trim_start_matches([' ', '\t']).len());
        let len = text[start..]
            .find(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '='))
            })
            .unwrap_or(text.len() - start);
        let token = text[start..start + len].trim_end_matches('.');
        let looks_secret =
            token.len() >= 8 && (token.chars().any(|c| c.is_ascii_digit()) || token.len() >= 24);
        if looks_secret {
            out.push_str(&text[last..start]);
            out.push_str(&marker("bearer_token"));
            kinds.push("bearer_token");
            last = start + token.len();
            from = last;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// A token recognised by its prefix: the prefix, then at least `min` characters from the set.
struct TokenRule {
    kind: &'static str,
    prefixes: &'static [&'static str],
    min: usize,
    /// Exactly this many characters after the prefix (AWS ids), when set.
    exact: Option<usize>,
    upper_digits_only: bool,
    /// Require a digit in the body: keeps `sk-some-long-hyphenated-name` a word.
    needs_digit: bool,
}

const TOKEN_RULES: &[TokenRule] = &[
    TokenRule {
        kind: "aws_access_key",
        prefixes: &["AKIA", "ASIA"],
        min: 16,
        exact: Some(16),
        upper_digits_only: true,
        needs_digit: false,
    },
    TokenRule {
        kind: "github_token",
        prefixes: &["github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        min: 20,
        exact: None,
        upper_digits_only: false,
        needs_digit: false,
    },
    TokenRule {
        kind: "api_key",
        prefixes: &["sk-ant-", "sk-proj-", "sk-"],
        min: 20,
        exact: None,
        upper_digits_only: false,
        needs_digit: true,
    },
    TokenRule {
        kind: "slack_token",
        prefixes: &["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"],
        min: 10,
        exact: None,
        upper_digits_only: false,
        needs_digit: true,
    },
    TokenRule {
        kind: "google_api_key",
        prefixes: &["AIza"],
        min: 30,
        exact: None,
        upper_digits_only: false,
        needs_digit: false,
    },
];

fn prefixed_tokens(text: &str, rule: &TokenRule, kinds: &mut Vec<&'static str>) -> String {
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    while i < text.len() {
        let Some(prefix) = rule.prefixes.iter().find(|p| text[i..].starts_with(**p)) else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let boundary = text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !is_token_char(c));
        let body_start = i + prefix.len();
        let body_len = text[body_start..]
            .find(|c: char| {
                if rule.upper_digits_only {
                    !(c.is_ascii_uppercase() || c.is_ascii_digit())
                } else {
                    !is_token_char(c)
                }
            })
            .unwrap_or(text.len() - body_start);
        let body = &text[body_start..body_start + body_len];
        let size_ok = match rule.exact {
            Some(n) => {
                body_len == n
                    && text[body_start + n..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_ascii_alphanumeric())
            }
            None => body_len >= rule.min,
        };
        if boundary && size_ok && (!rule.needs_digit || body.chars().any(|c| c.is_ascii_digit())) {
            out.push_str(&text[last..i]);
            out.push_str(&marker(rule.kind));
            kinds.push(rule.kind);
            last = body_start + body_len;
            i = last;
        } else {
            i = body_start;
        }
    }
    out.push_str(&text[last..]);
    out
}

fn is_base64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `eyJ<header>.eyJ<payload>.<signature>`: a JSON Web Token (header and payload are base64url
/// JSON objects, hence `eyJ`).
fn jwts(text: &str, kinds: &mut Vec<&'static str>) -> String {
    let mut out = String::new();
    let mut last = 0;
    let mut from = 0;
    while let Some(i) = text[from..].find("eyJ").map(|i| from + i) {
        from = i + 3;
        if text[..i].chars().next_back().is_some_and(is_base64url) {
            continue;
        }
        let run = |at: usize| {
            text[at..]
                .find(|c: char| !is_base64url(c))
                .unwrap_or(text.len() - at)
        };
        let header = run(i);
        let dot1 = i + header;
        if header < 10 || !text[dot1..].starts_with(".eyJ") {
            continue;
        }
        let payload = run(dot1 + 1);
        let dot2 = dot1 + 1 + payload;
        if payload < 10 || !text[dot2..].starts_with('.') {
            continue;
        }
        let end = dot2 + 1 + run(dot2 + 1);
        out.push_str(&text[last..i]);
        out.push_str(&marker("jwt"));
        kinds.push("jwt");
        last = end;
        from = end;
    }
    out.push_str(&text[last..]);
    out
}

/// Key names whose value is a secret, compared on the key lowercased with `_`, `-`, `.`
/// removed, at its end: `DB_PASSWORD`, `apiKey`, `--auth-token` match; `max_tokens`,
/// `TOKEN_BUDGET`, `password_reset_url`, `API_KEY_FILE` do not.
const SECRET_KEY_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "credential",
    "credentials",
    "auth",
    "authorization",
];

fn is_secret_key(key: &str) -> bool {
    let norm: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    // PWD/OLDPWD are the shell's working directory, not a password.
    if norm == "pwd" || norm == "oldpwd" {
        return false;
    }
    SECRET_KEY_ENDINGS.iter().any(|e| norm.ends_with(e))
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Values that are clearly not secrets: references and placeholders.
fn is_placeholder(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    // Code rather than a secret: a call (`lexer.next()`) or a read from the environment.
    const REFERENCES: &[&str] = &[
        "process.env",
        "os.environ",
        "os.getenv",
        "env::",
        "std::env",
        "getenv",
        "env[",
    ];
    value.starts_with(MARK)
        || value.contains('(')
        || REFERENCES.iter().any(|r| v.starts_with(r))
        || value.starts_with('$')
        || value.starts_with('<')
        || value.starts_with('{')
        || value.starts_with('%')
        || value
            .chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || matches!(
            v.as_str(),
            "true"
                | "false"
                | "yes"
                | "no"
                | "none"
                | "null"
                | "nil"
                | "on"
                | "off"
                | "required"
                | "optional"
                | "redacted"
                | "unset"
                | "empty"
        )
}

/// A prose-like value after `Key: ` must look random to count: a digit, an inner capital, or a
/// symbol. `Auth: uses middleware` stays; `password: hunter2` goes.
fn looks_random(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_digit())
        || value.chars().skip(1).any(|c| c.is_ascii_uppercase())
        || value.chars().any(|c| !c.is_alphanumeric())
}

/// `KEY=value`, `KEY = value`, `KEY: value`, `"key": "value"`, `--key value`, `--key=value`
/// where KEY names a secret (see [`SECRET_KEY_ENDINGS`]). Only the value is replaced.
fn assignments(text: &str, kinds: &mut Vec<&'static str>) -> String {
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        let starts_key = is_key_char(c)
            && text[..i]
                .chars()
                .next_back()
                .is_none_or(|p| !is_key_char(p));
        if !starts_key {
            i += c.len_utf8();
            continue;
        }
        let key_len = text[i..]
            .find(|c: char| !is_key_char(c))
            .unwrap_or(text.len() - i);
        let key = &text[i..i + key_len];
        let mut j = i + key_len;
        if !is_secret_key(key) {
            i = j;
            continue;
        }
        // A quoted key (`"password": ...`): step over its closing quote.
        if j < text.len() && matches!(bytes[j], b'"' | b'\'') && i > 0 && bytes[i - 1] == bytes[j] {
            j += 1;
        }
        let spaces =
            |at: usize| text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len();
        let after_spaces = j + spaces(j);
        let (value_start, strict) = match bytes.get(after_spaces) {
            // `==` and `=>` compare or map; they do not assign.
            Some(b'=') if !matches!(bytes.get(after_spaces + 1), Some(b'=' | b'>')) => {
                (after_spaces + 1 + spaces(after_spaces + 1), false)
            }
            Some(b':') if bytes.get(after_spaces + 1) != Some(&b':') => {
                (after_spaces + 1 + spaces(after_spaces + 1), true)
            }
            // `--password value`: a flag followed by its value. Prose mentions flags too
            // ("the --token flag is required"), so the value must look random.
            Some(_) if key.starts_with('-') && after_spaces > j && after_spaces == j + 1 => {
                (after_spaces, true)
            }
            _ => {
                i = j;
                continue;
            }
        };
        let mut value_start = value_start;
        // `Authorization: Basic <value>`: skip the scheme word.
        for scheme in [
            "Basic ", "Bearer ", "Token ", "Digest ", "token ", "bearer ", "basic ",
        ] {
            if text[value_start..].starts_with(scheme) {
                value_start += scheme.len() + spaces(value_start + scheme.len());
                break;
            }
        }
        let quote = bytes
            .get(value_start)
            .copied()
            .filter(|b| matches!(b, b'"' | b'\''));
        let (v_start, v_end) = match quote {
            Some(q) => {
                let s = value_start + 1;
                let e = text[s..].find(q as char).map_or(text.len(), |k| s + k);
                (s, e)
            }
            None => {
                let e = text[value_start..]
                    .find(|c: char| {
                        c.is_whitespace()
                            || matches!(
                                c,
                                ',' | ';' | '&' | ')' | ']' | '}' | '"' | '\'' | '<' | '>' | '`'
                            )
                    })
                    .map_or(text.len(), |k| value_start + k);
                (value_start, e)
            }
        };
        let value = &text[v_start..v_end];
        let skip = value.is_empty()
            || is_placeholder(value)
            || (key.starts_with('-') && value.starts_with('-'))
            || (strict && quote.is_none() && !looks_random(value));
        if !skip {
            out.push_str(&text[last..v_start]);
            out.push_str(&marker("secret_assignment"));
            kinds.push("secret_assignment");
            last = v_end;
        }
        i = v_end.max(j);
    }
    out.push_str(&text[last..]);
    out
}
