//! JSON Web Tokens: `ey<header>.ey<payload>.<signature>` (header and payload are base64url JSON
//! objects, hence `ey`; the signature may be empty), and a whole JWT wrapped in base64 once more
//! (`ZXlK…`, which is how `eyJ` encodes).

use super::Span;

fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn run(bytes: &[u8], at: usize, ok: impl Fn(u8) -> bool) -> usize {
    bytes[at..].iter().take_while(|&&b| ok(b)).count()
}

pub fn find(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find("ey").map(|i| from + i) {
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
    base64_wrapped(text, out);
}

fn base64_wrapped(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find("ZXlK").map(|i| from + i) {
        from = i + 4;
        if i > 0 && bytes[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let len = run(bytes, i, |b| {
            b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
        });
        if len >= 40 {
            out.push(Span::new(i, i + len, "jwt"));
            from = i + len;
        }
    }
}
