//! Kubernetes Secret manifests: in a YAML document (between `---` lines) of `kind: Secret`,
//! every value under `data:` or `stringData:` is a secret whatever its key
//! (`extra: YWRtaW46cGFzc3dvcmQ=` is base64 of `admin:password`), including block scalars
//! (`.dockercfg: |` and the lines below it). Base64 values under `data:` shorter than 12
//! characters (8 bytes: `YWRtaW4=` is `admin`, `YmFyCg==` is `bar`) are left, as gitleaks does.

use crate::gate::value_is_placeholder;
use crate::needle::Needle;
use crate::span::Span;

/// A Kubernetes Secret manifest has both (`data:`/`stringData:`, `kind:`).
static DATA: Needle = Needle::new("data:");
static KIND_KEY: Needle = Needle::new("ind:");

const KIND: &str = "secret_assignment";

/// Lines of `text` with their byte offsets.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .map(|l| {
            let start = at;
            at += l.len();
            (start, l.trim_end_matches(['\n', '\r']))
        })
        .collect()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn unquoted(s: &str) -> &str {
    s.trim().trim_matches(['"', '\''])
}

pub fn find(text: &str, out: &mut Vec<Span>) {
    // Cheap test first: most texts are not manifests.
    if !DATA.is_in(text) || !KIND_KEY.is_in(text) {
        return;
    }
    let lines = lines(text);
    for document in lines.split(|(_, l)| l.trim_end() == "---") {
        secret_document(document, out);
    }
}

fn secret_document(lines: &[(usize, &str)], out: &mut Vec<Span>) {
    let is_secret = lines.iter().any(|(_, l)| {
        l.trim_start()
            .strip_prefix("kind:")
            .is_some_and(|k| unquoted(k).eq_ignore_ascii_case("secret"))
    });
    if !is_secret {
        return;
    }
    let mut k = 0;
    while k < lines.len() {
        let (_, line) = lines[k];
        let head = line.trim();
        k += 1;
        let min_len = match head {
            "data:" => 12,
            "stringData:" => 4,
            _ => continue,
        };
        let base = indent(line);
        while k < lines.len() {
            let (start, entry) = lines[k];
            let body = entry.trim();
            if body.is_empty() || body.starts_with('#') {
                k += 1;
                continue;
            }
            if indent(entry) <= base {
                break;
            }
            k += 1;
            let Some((_, value)) = body.split_once(':') else {
                continue;
            };
            let value_start = start + entry.trim_end().len() - value.len();
            let trimmed = value.trim();
            if trimmed.starts_with(['|', '>']) {
                // A block scalar: the more-indented lines below are the value.
                let own = indent(entry);
                while k < lines.len() && (lines[k].1.trim().is_empty() || indent(lines[k].1) > own)
                {
                    let (s, l) = lines[k];
                    let content = l.trim();
                    if !content.is_empty() {
                        let at = s + indent(l);
                        out.push(Span::new(at, at + content.len(), KIND));
                    }
                    k += 1;
                }
                continue;
            }
            let secret = unquoted(trimmed);
            if secret.len() >= min_len && !value_is_placeholder(secret) {
                let at = value_start + value.find(secret).unwrap_or(0);
                out.push(Span::new(at, at + secret.len(), KIND));
            }
        }
    }
}
