//! Secrets never reach the files: private keys, vendor tokens, passwords in URLs, webhook URLs,
//! values of keys that name a secret, and random-looking values next to a secret word are
//! replaced by `[REDACTED:<kind>]` before anything is written (docs/format.md, "Redaction").
//!
//! Each detector (one module each) reports byte spans of the original text; overlapping spans
//! are merged and replaced at once. The output is then scanned again until nothing is found, so
//! a report never claims a redaction that left a detectable secret behind, and redacting twice
//! changes nothing. Hand-written scanners rather than the regex crate: the rule table is a
//! prefix, an alphabet and a length per vendor, which needs no compilation at start-up — the
//! hook executables link this crate and start on every agent event (docs/benchmarks.md).

mod assign;
mod blocks;
mod cli;
mod gate;
mod jwt;
mod keywords;
mod manifests;
mod needle;
mod prose;
mod shapes;
mod span;
mod urls;

use keywords::{key_strength, KeyStrength};
use needle::Needle;
use span::{marker, Span, MARK};

/// The marker's searcher (`needle`).
static MARKS: Needle = Needle::new(MARK);
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub struct Redaction {
    /// Where: a field path such as `evidence.commands_run[2]`.
    pub field: String,
    /// What: `private_key`, `url_password`, `webhook_url`, a vendor token (`github_token`,
    /// `aws_access_key`, `stripe_key`, …), `jwt`, `bearer_token`, `secret_assignment`,
    /// `secret_in_text`, `high_entropy_key`, or `unsettled` (the whole string, see below).
    pub kind: &'static str,
}

/// When spans overlap, the most specific kind names the merged one.
fn rank(kind: &str) -> u8 {
    match kind {
        "private_key" => 0,
        "url_password" | "webhook_url" => 1,
        "jwt" => 3,
        "bearer_token" => 4,
        "secret_assignment" => 5,
        "secret_in_text" => 6,
        "high_entropy_key" => 7,
        _ => 2, // a vendor token
    }
}

/// `[REDACTED:…]` markers already in the text: never rescanned, never part of a span.
fn markers(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = MARKS.find_from(text, from) {
        let end = text[i..].find(']').map_or(text.len(), |j| i + j + 1);
        out.push((i, end));
        from = end;
    }
    out
}

fn without_markers(text: &str) -> String {
    let mut out = String::new();
    let mut last = 0;
    for (start, end) in markers(text) {
        out.push_str(&text[last..start]);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// Every secret in `text`, merged, in order. A span must hold a letter or digit: a report
/// never counts a redaction of punctuation.
fn find_all(text: &str, extra: Vec<Span>) -> Vec<Span> {
    let mut spans = extra;
    blocks::find(text, &mut spans);
    urls::find(text, &mut spans);
    shapes::find(text, &mut spans);
    jwt::find(text, &mut spans);
    assign::find(text, &mut spans);
    cli::find(text, &mut spans);
    manifests::find(text, &mut spans);
    prose::find(text, &mut spans);
    let protected = markers(text);
    let public = blocks::public_ranges(text);
    spans.retain(|s| {
        s.start < s.end
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end)
            && text[s.start..s.end]
                .bytes()
                .any(|b| b.is_ascii_alphanumeric())
            && !protected.iter().any(|&(a, b)| s.start < b && a < s.end)
            && (s.kind == "private_key" || !public.iter().any(|&(a, b)| a <= s.start && s.end <= b))
    });
    spans.sort_by_key(|s| (s.start, rank(s.kind)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            Some(last) if s.start < last.end => {
                last.end = last.end.max(s.end);
                if rank(s.kind) < rank(last.kind) {
                    last.kind = s.kind;
                }
            }
            _ => merged.push(s),
        }
    }
    merged
}

fn apply(text: &str, spans: &[Span]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for s in spans {
        out.push_str(&text[last..s.start]);
        out.push_str(&marker(s.kind));
        last = s.end;
    }
    out.push_str(&text[last..]);
    out
}

/// Redacts until a fresh scan of the output finds nothing (a replacement can expose a pattern,
/// e.g. a key name now directly followed by a value). Bounded: should a fourth scan still find
/// something, the whole text is replaced, so the result is always one a scan finds clean.
fn redact_with(
    text: &str,
    mut extra: impl FnMut(&str) -> Vec<Span>,
) -> (String, Vec<&'static str>) {
    let mut kinds = Vec::new();
    let mut current = text.to_string();
    for _ in 0..4 {
        let spans = find_all(&current, extra(&current));
        if spans.is_empty() {
            return (current, kinds);
        }
        kinds.extend(spans.iter().map(|s| s.kind));
        current = apply(&current, &spans);
    }
    if !find_all(&current, extra(&current)).is_empty() {
        kinds.push("unsettled");
        current = marker("unsettled");
    }
    (current, kinds)
}

/// Where the secrets in `text` are, without changing it: the byte offset each one starts at and
/// its kind, in order (the same detectors as redaction; for a text that must not leave the
/// machine at all, such as a file `handover push --with-changes` would send).
pub fn locate(text: &str) -> Vec<(usize, &'static str)> {
    find_all(text, Vec::new())
        .into_iter()
        .map(|s| (s.start, s.kind))
        .collect()
}

/// Redacts one string; returns the new text and the kinds found (one entry per secret).
pub fn redact_text(text: &str) -> (String, Vec<&'static str>) {
    redact_with(text, |_| Vec::new())
}

/// Redacts a value of a map such as `environment`, where the key says what the value is:
/// `{"DB_PASSWORD": "hunter2hunter2"}` loses its value (any value but a placeholder), and
/// `{"STRIPE": "<random>"}` its random-looking value.
pub fn redact_entry(key: &str, value: &str) -> (String, Vec<&'static str>) {
    // A key that was itself a secret now reads `[REDACTED:github_token]`: that names nothing.
    let strength = key_strength(&without_markers(key));
    redact_with(value, |current| {
        let trimmed = current.trim();
        let start = current.len() - current.trim_start().len();
        let whole = Span::new(start, start + trimmed.len(), "secret_assignment");
        let secret = match strength {
            KeyStrength::Strong => !gate::value_is_placeholder(trimmed),
            KeyStrength::Weak => gate::looks_like_secret(trimmed),
            KeyStrength::None => false,
        };
        if secret && !trimmed.is_empty() {
            vec![whole]
        } else {
            Vec::new()
        }
    })
}

/// Redacts a map whose keys say what their values are (a handoff's `environment`), keys
/// included, reporting each secret under `path`. The keys go first, so that the field paths
/// reported for the values never repeat a secret key.
pub fn redact_map(map: &mut BTreeMap<String, String>, path: &str, found: &mut Vec<Redaction>) {
    redact_keys(map, path, found);
    for (key, value) in map.iter_mut() {
        let (clean, kinds) = redact_entry(key, value);
        record(found, &format!("{path}[{key:?}]"), value, clean, kinds);
    }
}

/// Redacts one string field in place (a field of a handoff, the agent name, the session id),
/// reporting each secret under `field`.
pub fn redact_field(field: &str, text: &mut String, found: &mut Vec<Redaction>) {
    let (clean, kinds) = redact_text(text);
    record(found, field, text, clean, kinds);
}

fn record(
    found: &mut Vec<Redaction>,
    field: &str,
    text: &mut String,
    clean: String,
    kinds: Vec<&'static str>,
) {
    if !kinds.is_empty() {
        *text = clean;
        found.extend(kinds.into_iter().map(|kind| Redaction {
            field: field.to_string(),
            kind,
        }));
    }
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
