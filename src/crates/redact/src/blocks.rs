//! Multi-line key material: `-----BEGIN … PRIVATE KEY-----` blocks of every kind (RSA, EC,
//! DSA, OPENSSH, ENCRYPTED, PGP `PRIVATE KEY BLOCK`) and PuTTY `.ppk` private lines. The block
//! runs to its `-----END …-----` line, or to the end of the text when it was cut off. Escaped
//! newlines (`\n` inside a JSON string) change nothing: the markers are found all the same.

use crate::needle::Needle;
use crate::span::Span;

static BEGIN: Needle = Needle::new("-----BEGIN ");
const BEGIN_LEN: usize = "-----BEGIN ".len();
static SOPS: Needle = Needle::new("ENC[");
static PUTTY: Needle = Needle::new("PuTTY-User-Key-File-");

pub fn find(text: &str, out: &mut Vec<Span>) {
    pem_blocks(text, out);
    putty_keys(text, out);
}

/// Public material that looks random but is meant to be shown: PEM public keys and
/// certificates, PGP public key blocks, SOPS-encrypted values (`ENC[AES256_GCM,data:…]`). No
/// rule but a private key redacts inside these ranges.
pub fn public_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some((start, label)) = next_header(text, from) {
        from = start + BEGIN_LEN + label.len();
        let public = label.len() <= 100
            && (label.ends_with("PUBLIC KEY")
                || label.ends_with("PUBLIC KEY BLOCK")
                || label.ends_with("CERTIFICATE")
                || label.ends_with("CERTIFICATE REQUEST"));
        if !public {
            continue;
        }
        let end = text[from..]
            .find("-----END ")
            .and_then(|i| {
                text[from + i + 9..]
                    .find("-----")
                    .map(|j| from + i + 9 + j + 5)
            })
            .unwrap_or(text.len());
        out.push((start, end));
        from = end;
    }
    let mut from = 0;
    while let Some(start) = SOPS.find_from(text, from) {
        let end = text[start..]
            .find(']')
            .map_or(text.len(), |j| start + j + 1);
        if text[start..end].contains(",data:") || text[start + 4..].starts_with("AES256_GCM") {
            out.push((start, end));
        }
        from = end;
    }
    out
}

/// The next `-----BEGIN <label>-----` header at or after `from`: where it starts, and its
/// label. None when there is no other, or its label is never closed.
fn next_header(text: &str, from: usize) -> Option<(usize, &str)> {
    let start = BEGIN.find_from(text, from)?;
    let label_start = start + BEGIN_LEN;
    let label_len = text[label_start..].find("-----")?;
    Some((start, &text[label_start..label_start + label_len]))
}

fn pem_blocks(text: &str, out: &mut Vec<Span>) {
    let mut from = 0;
    while let Some((start, label)) = next_header(text, from) {
        let label_start = start + BEGIN_LEN;
        let after_header = label_start + label.len() + 5;
        let is_private = label.len() <= 100
            && (label.ends_with("PRIVATE KEY") || label.ends_with("PRIVATE KEY BLOCK"));
        if !is_private {
            from = label_start;
            continue;
        }
        let (end, body, whole) = match text[after_header..].find("-----END ") {
            Some(i) => {
                let end_label = after_header + i + 9;
                let end = text[end_label..]
                    .find("-----")
                    .map_or(text.len(), |j| end_label + j + 5);
                (end, &text[after_header..after_header + i], true)
            }
            None => (text.len(), &text[after_header..], false),
        };
        // A whole block with next to no key material (`anything`, nothing at all) is an
        // example of the markers; a block cut off is redacted whatever is left of it.
        let material = body.bytes().filter(u8::is_ascii_alphanumeric).count();
        if whole && material < 12 {
            from = end;
            continue;
        }
        out.push(Span::new(start, end, "private_key"));
        from = end;
    }
}

/// `PuTTY-User-Key-File-3: …` then `Private-Lines: N`, the key lines, `Private-MAC: <hex>`:
/// everything from `Private-Lines:` through the MAC goes.
fn putty_keys(text: &str, out: &mut Vec<Span>) {
    let mut from = 0;
    while let Some(i) = PUTTY.find_from(text, from) {
        let Some(start) = text[i..].find("Private-Lines:").map(|j| i + j) else {
            return;
        };
        let end = match text[start..].find("Private-MAC:") {
            Some(j) => {
                let mac = start + j + 12;
                let mac = mac + text[mac..].len() - text[mac..].trim_start().len();
                mac + text[mac..]
                    .find(|c: char| !c.is_ascii_hexdigit())
                    .unwrap_or(text.len() - mac)
            }
            None => text.len(),
        };
        out.push(Span::new(start, end, "private_key"));
        from = end;
    }
}
