//! The docs that describe the house (docs/design.md, tests/README.md, README.md) name only
//! files that exist and test targets that exist: a file moved or a target renamed fails here
//! until the docs say where it went. (User-facing docs show example paths of a user's project,
//! so they are not checked this way.)

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The docs checked, and the folder their bare relative paths may also be relative to.
const DOCS: &[(&str, &str)] = &[
    ("docs/design.md", ""),
    ("README.md", ""),
    ("tests/README.md", "tests"),
];

/// Paths of ours inside `code` spans: they start with one of the top-level folders.
fn paths_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 || span.contains('\n') {
            continue;
        }
        for token in span.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')')) {
            let token = token.trim_end_matches(['.', ':', ';']);
            let ours = ["src/", "hooks/", "installer/", "tests/", "docs/", ".ci/"]
                .iter()
                .any(|top| token.starts_with(top));
            let pattern = token.contains(['<', '*', '{', '…']);
            if ours && !pattern {
                out.push(token.to_string());
            }
        }
    }
    out
}

/// The integration test targets of the workspace: `tests/<name>.rs` of the root package and of
/// the installer (the crates under src/crates/ have unit tests only).
fn test_targets() -> Vec<String> {
    ["tests", "installer/tests"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(Path::new(ROOT).join(dir)).unwrap())
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect()
}

/// `--test NAME` in a command line of the docs.
fn test_flags_in(text: &str) -> Vec<String> {
    text.split("--test ")
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect()
        })
        .collect()
}

#[test]
fn design_docs_name_only_files_that_exist() {
    let mut missing = Vec::new();
    for (doc, base) in DOCS {
        let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
        for path in paths_in(&text) {
            let here = Path::new(ROOT).join(&path);
            let relative = Path::new(ROOT).join(base).join(&path);
            if !here.exists() && !relative.exists() {
                missing.push(format!("{doc}: `{path}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths the docs name that do not exist (moved? say where it went):\n{}",
        missing.join("\n")
    );
}

#[test]
fn design_docs_name_only_test_targets_that_exist() {
    let targets = test_targets();
    let mut wrong = Vec::new();
    for (doc, _) in DOCS {
        let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
        for name in test_flags_in(&text) {
            if !targets.contains(&name) {
                wrong.push(format!("{doc}: --test {name} (targets: {targets:?})"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The readers above, on text whose answer is known.
#[test]
fn the_doc_readers_find_paths_and_targets_as_written() {
    let text = "see `src/crates/git/src/lib.rs` and `cargo test --test integration x`, \
                `src/crates/<crate>/` and `tests/{a,b}.rs` are patterns, `hooks/src/call/`.\n";
    assert_eq!(
        paths_in(text),
        ["src/crates/git/src/lib.rs", "hooks/src/call/"]
    );
    assert_eq!(test_flags_in(text), ["integration"]);
}
