//! What a snapshot pins of an output: ours, with what changes from run to run (temporary paths,
//! the handoff's id, commit hashes, the clock) replaced by placeholders.

use std::path::Path;

/// `text` from a `handover` run in the repository at `root`, as a snapshot pins it: the root as
/// `[REPO]`, each commit of the repository (full or abbreviated to 7) as `[commit N]`, numbered
/// from the oldest, the current handoff's id as `[ID]`, every UTC timestamp as `[TIME]`, and the
/// `handover` executable under test (which the texts name in commands such as `… ack`) as
/// `[BIN]`: its path is the checkout's, different in every clone.
pub fn placeholders(root: &Path, text: &str) -> String {
    let bin = Path::new(crate::exe::handover_exe());
    let mut text = text.replace(&root.display().to_string(), "[REPO]");
    if let Ok(canonical) = bin.canonicalize() {
        text = text.replace(&canonical.display().to_string(), "[BIN]");
    }
    text = text.replace(&bin.display().to_string(), "[BIN]");
    if let Ok(out) = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-list", "--all", "--reverse", "--topo-order"])
        .output()
    {
        for (n, sha) in String::from_utf8_lossy(&out.stdout).lines().enumerate() {
            let name = format!("[commit {}]", n + 1);
            text = text.replace(sha, &name);
            if sha.len() >= 7 {
                text = text.replace(&sha[..7], &name);
            }
        }
    }
    // Only a plain file: a test may have put a FIFO there (reading it would wait forever).
    let state_path = root.join(".handover/state.json");
    let plain = std::fs::symlink_metadata(&state_path).is_ok_and(|m| m.is_file());
    if let Some(state) = plain
        .then(|| std::fs::read_to_string(&state_path).ok())
        .flatten()
    {
        if let Some(id) = serde_json::from_str::<serde_json::Value>(&state)
            .ok()
            .and_then(|v| v["id"].as_str().map(String::from))
        {
            text = text.replace(&id, "[ID]");
        }
    }
    mask_ids(&mask_times(&text))
}

/// `text` with each handoff id (`20261122T021451.000000000Z-1a2b`: the time it was written and
/// a random suffix) replaced by `[ID]`: for handoffs other than the current one (recovered,
/// archived, fetched); and each bare stamp of that shape (`20261122T021451.000000000Z`, an
/// archive file's name) by `[STAMP]`.
pub fn mask_ids(text: &str) -> String {
    const SHAPE: &[u8] = b"ddddddddTdddddd.";
    let bytes = text.as_bytes();
    let fits = |at: usize| fits_shape(bytes, at, SHAPE);
    let mut out = String::with_capacity(text.len());
    let (mut at, mut copied) = (0, 0);
    while at < bytes.len() {
        if fits(at) {
            let mut end = at + SHAPE.len();
            while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if bytes[end..].starts_with(b"Z-") {
                end += 2;
                while bytes.get(end).is_some_and(u8::is_ascii_hexdigit) {
                    end += 1;
                }
                out.push_str(&text[copied..at]);
                out.push_str("[ID]");
                at = end;
                copied = at;
                continue;
            }
            if bytes.get(end) == Some(&b'Z') {
                out.push_str(&text[copied..at]);
                out.push_str("[STAMP]");
                at = end + 1;
                copied = at;
                continue;
            }
        }
        at += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// `text` with each `YYYY-MM-DDTHH:MM:SS[.fraction]Z` replaced by `[TIME]`.
pub fn mask_times(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    let bytes = text.as_bytes();
    let fits = |at: usize| fits_shape(bytes, at, SHAPE);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut copied = 0;
    while at < bytes.len() {
        if fits(at) {
            let mut end = at + SHAPE.len();
            if bytes.get(end) == Some(&b'.') {
                end += 1;
                while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
            }
            if bytes.get(end) == Some(&b'Z') {
                out.push_str(&text[copied..at]);
                out.push_str("[TIME]");
                at = end + 1;
                copied = at;
                continue;
            }
        }
        at += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// `bytes` at `at` has `shape`: `d` a digit, anything else itself.
fn fits_shape(bytes: &[u8], at: usize, shape: &[u8]) -> bool {
    bytes.len() >= at + shape.len()
        && shape
            .iter()
            .zip(&bytes[at..])
            .all(|(want, got)| match want {
                b'd' => got.is_ascii_digit(),
                other => other == got,
            })
}

/// insta compares a snapshot without its final newline: where the final newline is part of the
/// contract (a hook's answer is one line the client reads to its end; the command's output
/// ends its last line), check it before the snapshot. `text` must end in exactly one `\n`.
pub fn assert_final_newline(what: &str, text: &str) {
    assert!(
        text.ends_with('\n') && !text.ends_with("\n\n"),
        "{what}: the output must end with exactly one newline: {text:?}"
    );
}
