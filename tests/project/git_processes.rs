//! One way to start git: every process handover's production code starts is accounted for, and
//! every `git` among them is started by `handover_base::git_process::Git`, the one builder that
//! switches off what a repository's own configuration could make git run (hooks, fsmonitor,
//! lazy fetches, filter drivers, the transport's programs; docs/security.md). A new
//! `Command::new` anywhere else fails here until it goes through the builder, or, for a program
//! that is not git, is listed below with why.

use super::architecture::{code_with_strings, crate_root, modules_of, without_tests, LAYERS, ROOT};
use std::path::{Path, PathBuf};

/// The one place a git process is started.
const BUILDER: &str = "src/crates/base/src/git_process.rs";

/// Processes production code starts that are not git: (file, the program as written, why).
const NOT_GIT: &[(&str, &str, &str)] = &[
    (
        "hooks/src/call/detach.rs",
        "&exe",
        "the hook's own executable, finishing a SessionEnd after the client stops waiting",
    ),
    (
        "installer/src/wiring/codex/app_server.rs",
        "&req.codex_bin",
        "Codex's app server, asked to trust the project at install time",
    ),
];

/// Every production source file: the modules each crate root declares (test modules and
/// `#[cfg(test)]` items left out), and the executables' mains.
fn production_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = LAYERS
        .iter()
        .flat_map(|(dir, _, _)| modules_of(&crate_root(dir)).into_values())
        .collect();
    for bin in std::fs::read_dir(Path::new(ROOT).join("src/bin")).unwrap() {
        files.push(bin.unwrap().path());
    }
    files.sort();
    files.dedup();
    files
}

/// Every production source file (its path from the workspace root) and its code: string
/// literals kept, comments and tests left out.
pub(super) fn production_code() -> Vec<(String, String)> {
    production_files()
        .into_iter()
        .map(|file| {
            let src = std::fs::read_to_string(&file).unwrap();
            let code = without_tests(&test_attributes_plain(&code_with_strings(&src)));
            let rel = file
                .strip_prefix(ROOT)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, code)
        })
        .collect()
}

/// `#[cfg(all(test, unix))]` and the like as `#[cfg(test)]`, which `without_tests` removes.
fn test_attributes_plain(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(") {
        out.push_str(&rest[..at]);
        let attr_end = rest[at..].find(")]").map_or(rest.len(), |n| at + n + 2);
        let attr = &rest[at..attr_end];
        let words: Vec<&str> = attr
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .collect();
        if words.contains(&"test") && !attr.contains("not(") && !attr.contains("any(") {
            out.push_str("#[cfg(test)]");
        } else {
            out.push_str(attr);
        }
        rest = &rest[attr_end..];
    }
    out.push_str(rest);
    out
}

/// Each `Command::new(<program>)` in `code`, with the program as written.
fn spawns(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("Command::new(").map(|n| from + n) {
        from = at + "Command::new(".len();
        let mut depth = 1usize;
        let mut end = from;
        for (n, c) in code[from..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = from + n;
                break;
            }
        }
        out.push(code[from..end].trim().to_string());
    }
    out
}

#[test]
fn every_git_process_is_started_by_the_one_builder() {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for (rel, code) in production_code() {
        // `use std::process::Command as X` would hide a spawn from the scan below.
        if code.contains("Command as ") {
            problems.push(format!(
                "{rel}: renames `Command`; call `Command::new` by its name"
            ));
        }
        for program in spawns(&code) {
            let listed = (rel == BUILDER && program == "\"git\"")
                || NOT_GIT.iter().any(|(f, p, _)| *f == rel && *p == program);
            if !listed {
                problems.push(format!("{rel}: Command::new({program})"));
            }
            found.push((rel.clone(), program));
        }
    }
    assert!(
        problems.is_empty(),
        "processes started outside the one way: start git with handover_base::git_process::Git \
         (docs/security.md, \"The `git` command line runs nothing a repository configures\"); \
         list another program in NOT_GIT with why:\n  {}",
        problems.join("\n  ")
    );
    // The control: the scan sees the builder's own spawn and every listed one, so a rename or
    // a move of them fails here instead of leaving the scan blind.
    let mut expected: Vec<(String, String)> = NOT_GIT
        .iter()
        .map(|(f, p, _)| (f.to_string(), p.to_string()))
        .collect();
    expected.push((BUILDER.to_string(), "\"git\"".to_string()));
    expected.sort();
    found.sort();
    assert_eq!(found, expected);
}

/// The scan's parts, on text where the answer is known.
#[test]
fn the_scan_reads_spawns_as_written_and_skips_tests_and_comments() {
    let src = "// Command::new(\"in a comment\")\n\
        fn a() { let c = std::process::Command::new(\"git\").arg(\"x\"); }\n\
        fn b() { Command::new(path.join(\"git\")).spawn(); }\n\
        #[cfg(all(test, unix))]\nmod tests { fn t() { Command::new(\"mkfifo\"); } }\n\
        #[cfg(not(test))]\nfn c() { Command::new(GIT); }\n";
    let code = without_tests(&test_attributes_plain(&code_with_strings(src)));
    assert_eq!(
        spawns(&code),
        ["\"git\"", "path.join(\"git\")", "GIT"],
        "{code}"
    );
}
