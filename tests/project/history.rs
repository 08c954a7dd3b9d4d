//! No history references in the project's own text: code, tests, docs and CI say what is true
//! now and why, not which tracker entry brought it ("see issue" and a number, or a `#` and a
//! number). The reader of a file has the file, not the tracker; the tracker's numbers are the
//! commit messages' business.
//!
//! Every file git tracks is read, but for the text captured from other programs
//! (tests/fixtures/, the redaction corpus) and the lock file.

use std::path::Path;
use std::process::Command;

/// What is not ours to word: captured client payloads and transcripts, the redaction corpus
/// (third-party rules and generated samples), the lock file.
const NOT_OURS: &[&str] = &["tests/fixtures/", "tests/redaction_corpus/", "Cargo.lock"];

/// The history references in `line`, as they are written there.
fn references(line: &str) -> Vec<String> {
    let bytes = line.as_bytes();
    let lower = line.to_ascii_lowercase();
    let digits_at = |at: usize| {
        let end = bytes[at..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |n| at + n);
        // A number, not the start of a word or an identifier (`#1a2b` is a colour or a hash).
        (end > at && !bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric())).then_some(end)
    };
    // Where each reference is: (start, end) in `line`.
    let mut found: Vec<(usize, usize)> = Vec::new();
    // The word "issue" or "issues", then spaces or a hash, then a number.
    let mut from = 0;
    while let Some(n) = lower[from..].find("issue") {
        let at = from + n;
        from = at + 5;
        if at > 0 && bytes[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        let mut next = at + 5;
        if bytes.get(next) == Some(&b's') {
            next += 1;
        }
        while matches!(bytes.get(next), Some(b' ') | Some(b'#')) {
            next += 1;
        }
        if next > at + 5 {
            if let Some(end) = digits_at(next) {
                found.push((at, end));
            }
        }
    }
    // "#12" standing alone: after a space, a bracket or the line's start (not `PKCS#8`, not a
    // raw string's `r#"`, not a Markdown heading's `# `).
    for (at, _) in line.match_indices('#') {
        if found
            .iter()
            .any(|(start, end)| (*start..*end).contains(&at))
        {
            continue; // the number of a reference by word already found
        }
        let before = at.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| !matches!(b, b' ' | b'(' | b'[' | b',' | b'\t')) {
            continue;
        }
        if let Some(end) = digits_at(at + 1) {
            found.push((at, end));
        }
    }
    found
        .into_iter()
        .map(|(start, end)| line[start..end].to_string())
        .collect()
}

#[test]
fn the_matcher_finds_references_and_nothing_else() {
    // Built at run time so that this file holds no reference itself.
    let (n, hash) = (21, '#');
    for text in [
        format!("see issue {n} for why"),
        format!("Issue {hash}{n}: the hot path"),
        format!("left open ({hash}{n})"),
        format!("{hash}{n} and more"),
        format!("issues {n}, 22"),
    ] {
        assert_eq!(references(&text).len(), 1, "{text}");
    }
    for text in [
        "PKCS#8 keys".to_string(),
        "r#\"raw\"#".to_string(),
        "## 5 things".to_string(),
        "docs/spec.md#trailing-commas".to_string(),
        format!("colour {hash}{n}ab"),
        "this issue is open".to_string(),
        "tissue 5".to_string(),
        format!("step {n} of the issue"),
    ] {
        assert_eq!(references(&text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn code_tests_docs_and_ci_name_no_tracker_entries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files: {out:?}");
    let mut hits = Vec::new();
    let mut read = 0;
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name);
        if NOT_OURS.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        // Binary files and files deleted in the working tree have no lines to read.
        let Ok(text) = std::fs::read_to_string(root.join(&*name)) else {
            continue;
        };
        read += 1;
        for (n, line) in text.lines().enumerate() {
            for r in references(line) {
                hits.push(format!("{name}:{}: {r}", n + 1));
            }
        }
    }
    assert!(
        read > 100,
        "only {read} files read: is this a git checkout?"
    );
    assert!(
        hits.is_empty(),
        "history references (say what is true now, not which tracker entry asked for it):\n{}",
        hits.join("\n")
    );
}
