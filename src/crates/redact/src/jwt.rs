//! JSON Web Tokens: `ey<header>.ey<payload>.<signature>` (header and payload are base64url JSON
//! objects, hence `ey`; the signature may be empty), and a JWT inside a base64 blob (a config
//! or a cookie encoded once more): the blob is decoded and searched when it holds one of the
//! three ways `eyJ` encodes (`ZXlK`, `V5S`, `leU`, by where it falls in a 3-byte group).

use crate::needle::Needle;
use crate::span::Span;

fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn run(bytes: &[u8], at: usize, ok: impl Fn(u8) -> bool) -> usize {
    bytes[at..].iter().take_while(|&&b| ok(b)).count()
}

pub fn find(text: &str, out: &mut Vec<Span>) {
    find_plain(text, out);
    base64_wrapped(text, out);
}

fn find_plain(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = HEADER_START.find_from(text, from) {
        from = i + 2;
        if i > 0 && is_b64url(bytes[i - 1]) {
            continue;
        }
        let header = run(bytes, i, is_b64url);
        let dot1 = i + header;
        if header < 17 || !text[dot1..].starts_with(".ey") {
            continue;
        }
        let payload = run(bytes, dot1 + 1, |b| is_b64url(b) || b == b'/' || b == b'\\');
        let dot2 = dot1 + 1 + payload;
        if payload < 17 || !text[dot2..].starts_with('.') {
            continue;
        }
        let sig = run(bytes, dot2 + 1, |b| is_b64url(b) || b == b'/' || b == b'=');
        let end = dot2 + 1 + sig;
        out.push(Span::new(i, end, "jwt"));
        from = end;
    }
}

fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
}

/// The three ways `eyJ` (a JWT's `{"`) encodes in base64, by its offset in a 3-byte group.
static ENCODED_EYJ: [Needle; 3] = [Needle::new("ZXlK"), Needle::new("V5S"), Needle::new("leU")];

/// Where a JWT's header (`{"`, base64url) starts.
static HEADER_START: Needle = Needle::new("ey");

fn base64_wrapped(text: &str, out: &mut Vec<Span>) {
    // Most texts hold none of them: three fast searches spare a walk over every word.
    if !ENCODED_EYJ.iter().any(|p| p.is_in(text)) {
        return;
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_b64(bytes[i]) {
            i += 1;
            continue;
        }
        let len = run(bytes, i, is_b64);
        let blob = &text[i..i + len];
        let candidate = len >= 40 && ENCODED_EYJ.iter().any(|p| p.is_in(blob));
        if candidate && holds_jwt(blob) {
            out.push(Span::new(i, i + len, "jwt"));
        }
        i += len;
    }
}

/// Decodes `blob` (standard or URL alphabet, padding optional) and looks for a JWT's header
/// and payload in it.
fn holds_jwt(blob: &str) -> bool {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let mut decoded = Vec::with_capacity(blob.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for b in blob.bytes().take_while(|&b| b != b'=') {
        let Some(v) = value(b) else {
            return false;
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            decoded.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A header and the start of a payload are enough: the blob may be cut off.
    let text = String::from_utf8_lossy(&decoded);
    text.find("eyJ")
        .is_some_and(|h| text[h..].find(".eyJ").is_some_and(|d| d >= 17))
}
