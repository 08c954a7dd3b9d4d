//! Values given to a key that names a secret, in the forms code, shells, configs and headers
//! use: `KEY=v`, `KEY = "v"`, `KEY: v`, `"key": "v"`, `X := "v"`, `X ::= v`, `X ?= v`,
//! `$x .= "v"`, `"key" => "v"`, `var x string = "v"`, `setProperty("X_TOKEN", "v")`,
//! `<xToken>v</xToken>`, `<add key="xPassword" value="v" />`, `--key v`, `--key=v`, `?key=v&`,
//! `Authorization: <scheme> v`, `Bearer v`, `BUNDLE_HOST__COM=user:v`. Only the value is
//! replaced. Passwords that command lines take by position are in `cli.rs`.

use crate::gate::{
    is_code_reference, is_made_of_words, is_package_coordinate, looks_like_secret,
    value_is_placeholder,
};
use crate::keywords::{key_strength, KeyStrength};
use crate::needle::Needle;
use crate::span::Span;

static BEARER: Needle = Needle::new("bearer ");

pub(super) const KIND: &str = "secret_assignment";

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

pub(super) fn spaces(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// A prose-like value after `Key: ` or `--flag ` must look random to count: a digit, an inner
/// capital, or a symbol. `Auth: uses middleware` stays; `password: hunter2` goes.
pub(super) fn looks_random(value: &str) -> bool {
    value.bytes().any(|b| b.is_ascii_digit())
        || value.bytes().skip(1).any(|b| b.is_ascii_uppercase())
        || value.bytes().any(|b| !b.is_ascii_alphanumeric())
}

/// Scheme words that precede a credential in a header value or after `Authorization:`.
const SCHEMES: &[&str] = &[
    "FlyV1",
    "Basic",
    "Bearer",
    "Token",
    "Digest",
    "Bot",
    "Api-Token",
    "ApiKey",
    "Api-Key",
    "SSWS",
    "GenieKey",
    "OAuth",
    "HMAC",
    "token",
    "bearer",
    "basic",
];

/// What follows a key: where the value starts, whether it was introduced strictly (`Key: v`,
/// `--flag v`: prose uses those forms too), and whether it must be quoted (`=>`, `,`, a type).
struct Operator {
    value_start: usize,
    strict: bool,
    needs_quote: bool,
}

fn operator(bytes: &[u8], key: &str, quoted_key: bool, j: usize) -> Option<Operator> {
    let k = j + spaces(bytes, j);
    let after = |n: usize| k + n + spaces(bytes, k + n);
    let op = |n: usize, strict: bool, needs_quote: bool| {
        Some(Operator {
            value_start: after(n),
            strict,
            needs_quote,
        })
    };
    let rest = &bytes[k..];
    if rest.starts_with(b":::=") {
        return op(4, false, false);
    }
    if rest.starts_with(b"::=") {
        return op(3, false, false);
    }
    if rest.starts_with(b":=")
        || rest.starts_with(b"?=")
        || rest.starts_with(b".=")
        || rest.starts_with(b"+=")
    {
        return op(2, false, false);
    }
    if rest.starts_with(b"||=") || rest.starts_with(b"??=") {
        return op(3, false, false);
    }
    if rest.starts_with(b"=>") {
        return op(2, false, true);
    }
    if rest.starts_with(b"==") {
        return None;
    }
    if rest.starts_with(b"=") {
        return op(1, false, false);
    }
    if rest.starts_with(b"::") {
        return None;
    }
    if rest.starts_with(b":") {
        // Kotlin/TypeScript `x: String = "v"`: step over the type.
        let t = after(1);
        let word = bytes[t..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if word > 0 && word <= 16 {
            let eq = t + word + spaces(bytes, t + word);
            if bytes.get(eq) == Some(&b'=') && bytes.get(eq + 1) != Some(&b'=') {
                return Some(Operator {
                    value_start: eq + 1 + spaces(bytes, eq + 1),
                    strict: false,
                    needs_quote: true,
                });
            }
        }
        return op(1, !quoted_key, false);
    }
    if rest.starts_with(b",") && quoted_key {
        return op(1, false, true);
    }
    // `var xToken string = "v"`: one type word, then `=`.
    if k > j && !quoted_key && rest.first().is_some_and(u8::is_ascii_alphabetic) {
        let word = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        let eq = k + word + spaces(bytes, k + word);
        if word <= 16
            && bytes.get(eq) == Some(&b'=')
            && !matches!(bytes.get(eq + 1), Some(b'=' | b'>'))
        {
            let v = eq + 1 + spaces(bytes, eq + 1);
            if matches!(bytes.get(v), Some(b'"' | b'\'' | b'`')) {
                return Some(Operator {
                    value_start: v,
                    strict: false,
                    needs_quote: true,
                });
            }
        }
    }
    // `--password value`: a flag followed by its value.
    if key.starts_with('-') && k == j + 1 {
        return Some(Operator {
            value_start: k,
            strict: true,
            needs_quote: false,
        });
    }
    None
}

/// The value at `start`: quoted (to the closing quote) or bare (to a space or delimiter, or an
/// escaped newline `\n` inside embedded text). Returns (start, end, quoted).
pub(super) fn value_at(text: &str, start: usize) -> (usize, usize, bool) {
    let bytes = text.as_bytes();
    match bytes.get(start) {
        Some(&q @ (b'"' | b'\'' | b'`')) => {
            let s = start + 1;
            let mut e = s;
            while e < bytes.len() && bytes[e] != q {
                e += if bytes[e] == b'\\' { 2 } else { 1 };
            }
            (s, e.min(bytes.len()), true)
        }
        _ => {
            let mut e = start;
            while e < bytes.len() {
                let b = bytes[e];
                if b.is_ascii_whitespace()
                    || matches!(b, b',' | b';' | b')' | b']' | b'}' | b'"' | b'\'')
                    || (b == b'&' && starts_parameter(&bytes[e + 1..]))
                    || matches!(b, b'<' | b'>' | b'`')
                    || (b == b'\\' && matches!(bytes.get(e + 1), Some(b'n' | b'r' | b't')))
                {
                    break;
                }
                e += 1;
            }
            // A sentence's full stop after a bare value is not part of it.
            while e > start + 1 && bytes[e - 1] == b'.' {
                e -= 1;
            }
            (start, e, false)
        }
    }
}

/// Where the value of `name=value` starts, when the quoted value from `vs` to `ve` is such a
/// pair (a cookie); `vs` otherwise.
fn cookie_value(text: &str, vs: usize, ve: usize) -> usize {
    let value = &text[vs..ve];
    let name = value
        .bytes()
        .take_while(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        .count();
    let is_pair = name > 0
        && value.as_bytes().get(name) == Some(&b'=')
        && value.as_bytes().get(name + 1).is_some_and(|b| *b != b'=')
        && value.as_bytes()[0].is_ascii_alphabetic();
    if is_pair {
        vs + name + 1
    } else {
        vs
    }
}

/// After a `&`: another query parameter (`state=1`), a shell's `&&` or the end. A `&` inside
/// a password is neither.
fn starts_parameter(rest: &[u8]) -> bool {
    let name = rest.iter().take_while(|&&b| is_key_byte(b)).count();
    rest.first()
        .is_none_or(|b| b.is_ascii_whitespace() || *b == b'&')
        || (name > 0 && rest.get(name) == Some(&b'='))
}

fn skip_scheme(text: &str, at: usize, any_word: bool) -> usize {
    let rest = &text[at..];
    let word = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len());
    let known = SCHEMES.contains(&&rest[..word]);
    let followed = rest[word..].starts_with(' ')
        && rest[word..]
            .trim_start_matches(' ')
            .starts_with(|c: char| !c.is_whitespace());
    let capitalized = rest.starts_with(|c: char| c.is_ascii_uppercase());
    if word > 0 && followed && (known || any_word && capitalized) {
        at + word + spaces(text.as_bytes(), at + word)
    } else {
        at
    }
}

pub fn find(text: &str, out: &mut Vec<Span>) {
    assignments(text, out);
    bearer_tokens(text, out);
}

fn assignments(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_key_byte(bytes[i]) || (i > 0 && is_key_byte(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let key_len = bytes[i..].iter().take_while(|&&b| is_key_byte(b)).count();
        let key = &text[i..i + key_len];
        let mut j = i + key_len;
        // `https://user:password@host`: the URL rule's, not a `key: value`.
        if text[..i].ends_with("://") {
            i = j;
            continue;
        }
        if let Some(next) = xml_attribute_pair(text, i, key, out) {
            i = next;
            continue;
        }
        let xml = i > 0 && bytes[i - 1] == b'<' && bytes.get(j) == Some(&b'>');
        let quoted_key = j < bytes.len()
            && matches!(bytes[j], b'"' | b'\'')
            && opened_before(bytes, i, bytes[j]);
        // The operator first: it is a few byte comparisons, the key's meaning is not.
        let op = if xml {
            None
        } else {
            operator(bytes, key, quoted_key, j + usize::from(quoted_key))
        };
        if !xml && op.is_none() {
            i = j;
            continue;
        }
        if let Some(op) = &op {
            if let Some((next, span)) = bundler_credentials(text, key, op.value_start) {
                out.extend(span);
                i = next;
                continue;
            }
        }
        let strength = key_strength(key);
        if strength == KeyStrength::None {
            i = j;
            continue;
        }
        let Some(op) = op else {
            if let Some(span) = xml_element(text, key, j + 1, strength) {
                out.push(span);
            }
            i = j;
            continue;
        };
        if quoted_key {
            j += 1;
        }
        let norm = key.to_ascii_lowercase();
        let any_scheme = norm.ends_with("authorization") || norm.ends_with("auth");
        let value_start = skip_scheme(text, op.value_start, any_scheme);
        let (vs, ve, quoted) = value_at(text, value_start);
        // Inside quotes too: `"Authorization": "Bearer <v>"`, `"Cookie": "auth-token=<v>"`
        // keep the scheme word and the cookie's name.
        let vs = if quoted {
            cookie_value(text, skip_scheme(text, vs, any_scheme), ve)
        } else {
            vs
        };
        let value = &text[vs..ve];
        let keep = value.trim().is_empty()
            || value_is_placeholder(value)
            // `KEY=\`cat /run/secrets/key\``: a command's output, not the secret itself.
            || (quoted && bytes[vs - 1] == b'`' && value.contains(' '))
            || (op.needs_quote && !quoted)
            || (key.starts_with('-') && value.starts_with('-'))
            // `self.password = password`, `token = config.token`, `acctest.Representation{…`:
            // code, not a value.
            || (!quoted && (is_code_reference(value) || value.contains('{')))
            // `ops_eyJzaWdu...`: a value cut short in documentation.
            || text[ve..].starts_with("..")
            || text[ve..].starts_with('…')
            || is_package_coordinate(value)
            || match strength {
                KeyStrength::Strong => {
                    op.strict && !quoted && (!looks_random(value) || is_made_of_words(value))
                }
                _ => !looks_like_secret(value),
            };
        if !keep {
            out.push(Span::new(vs, ve, KIND));
        }
        i = ve.max(j);
    }
}

/// The key started at `i` is the last word of a quoted string opened earlier on the line
/// (`"facebook access_token": "v"`, `'db password': v`).
fn opened_before(bytes: &[u8], i: usize, quote: u8) -> bool {
    let mut k = i;
    while k > 0 && i - k <= 40 {
        let b = bytes[k - 1];
        if b == quote {
            return true;
        }
        if !(is_key_byte(b) || b == b' ') {
            return false;
        }
        k -= 1;
    }
    false
}

/// `<add key="ClearTextPassword" value="v" />`, `<entry key="name" value="v"/>`: in a tag, the
/// `key` (or `name`) attribute names the entry and `value` holds it. The name decides, as a
/// key would; the name itself is never a secret. Returns where to go on when this is such a
/// pair.
fn xml_attribute_pair(text: &str, i: usize, key: &str, out: &mut Vec<Span>) -> Option<usize> {
    let bytes = text.as_bytes();
    if !(key.eq_ignore_ascii_case("key") || key.eq_ignore_ascii_case("name"))
        || i == 0
        || !bytes[i - 1].is_ascii_whitespace()
    {
        return None;
    }
    let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
    let tag = text[line_start..i].rfind('<')? + line_start;
    if text[tag..i].contains('>') {
        return None;
    }
    let after_key = i + key.len();
    let quote = *bytes.get(after_key + 1)?;
    if bytes[after_key] != b'=' || !matches!(quote, b'"' | b'\'') {
        return None;
    }
    let name_start = after_key + 2;
    let name_end = name_start + text[name_start..].find(quote as char)?;
    let name = &text[name_start..name_end];
    let tag_end = name_end + text[name_end..].find('>').unwrap_or(text.len() - name_end);
    let attrs = &text[name_end..tag_end];
    let Some(v) = attrs.find(" value=").or_else(|| attrs.find(" Value=")) else {
        return Some(name_end);
    };
    let vq = name_end + v + 7;
    let vquote = *bytes.get(vq)?;
    if !matches!(vquote, b'"' | b'\'') {
        return Some(name_end);
    }
    let vs = vq + 1;
    let ve = vs + text[vs..].find(vquote as char)?;
    let value = &text[vs..ve];
    let secret = match key_strength(name) {
        KeyStrength::Strong => value.len() >= 4 && !value_is_placeholder(value),
        KeyStrength::Weak => looks_like_secret(value),
        KeyStrength::None => false,
    };
    if secret {
        out.push(Span::new(vs, ve, KIND));
    }
    Some(ve)
}

/// Bundler's per-host credentials, `BUNDLE_ENTERPRISE__CONTRIBSYS__COM=user:password` (the
/// host spelt with `__` for dots): the password goes, the user stays. Returns where to go on,
/// and the span when there is a password.
fn bundler_credentials(text: &str, key: &str, at: usize) -> Option<(usize, Option<Span>)> {
    if !key.starts_with("BUNDLE_") || !key.contains("__") {
        return None;
    }
    let (vs, ve, _) = value_at(text, at);
    let value = &text[vs..ve];
    let colon = value.find(':')?;
    let password = &value[colon + 1..];
    let secret = password.len() >= 3 && !value_is_placeholder(password);
    Some((
        ve.max(at),
        secret.then(|| Span::new(vs + colon + 1, ve, KIND)),
    ))
}

/// `<xToken>v</xToken>`, also with the value on its own indented line.
fn xml_element(text: &str, key: &str, at: usize, strength: KeyStrength) -> Option<Span> {
    let rest = &text[at..];
    let lead = rest.len() - rest.trim_start().len();
    let start = at + lead;
    let end = start + text[start..].find('<')?;
    let value = text[start..end].trim_end();
    let closes = text[end..].starts_with(&format!("</{key}>"));
    let secret = match strength {
        KeyStrength::Strong => !value.is_empty() && !value_is_placeholder(value),
        _ => looks_like_secret(value),
    };
    (closes && secret && !value.contains(char::is_whitespace))
        .then(|| Span::new(start, start + value.len(), KIND))
}

/// `Bearer <token>` (any case), as in an `Authorization` header. A plain word after "bearer"
/// ("bearer authentication") is left alone: the token needs a digit or 24+ characters.
fn bearer_tokens(text: &str, out: &mut Vec<Span>) {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = BEARER.find_from(&lower, from) {
        from = i + 7;
        if i > 0 && text.as_bytes()[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let start = i + 7 + spaces(text.as_bytes(), i + 7);
        let len = text[start..]
            .find(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '='))
            })
            .unwrap_or(text.len() - start);
        let token = text[start..start + len].trim_end_matches('.');
        let looks_secret = token.len() >= 8
            && (token.bytes().any(|b| b.is_ascii_digit()) || token.len() >= 24)
            && !value_is_placeholder(token);
        if looks_secret {
            out.push(Span::new(start, start + token.len(), "bearer_token"));
            from = start + token.len();
        }
    }
}
