//! The crate layout's promises (docs/design.md), checked on the manifests and on the built
//! executables, so a new `use` or dependency that breaks them fails here rather than in review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub(super) const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// (package directory, package name, the handover crates it may depend on).
pub(super) const LAYERS: &[(&str, &str, &[&str])] = &[
    ("src/crates/base", "handover-base", &[]),
    ("src/crates/clients", "handover-clients", &["handover-base"]),
    ("src/crates/redact", "handover-redact", &[]),
    (
        "src/crates/handoff",
        "handover-handoff",
        &["handover-base", "handover-redact"],
    ),
    (
        "src/crates/git",
        "handover-git",
        &["handover-base", "handover-handoff"],
    ),
    (
        "src/crates/verify",
        "handover-verify",
        &["handover-handoff", "handover-git"],
    ),
    (
        "src/crates/record",
        "handover-record",
        &[
            "handover-base",
            "handover-clients",
            "handover-redact",
            "handover-handoff",
            "handover-git",
        ],
    ),
    (
        "src/crates/core",
        "handover-core",
        &[
            "handover-base",
            "handover-clients",
            "handover-redact",
            "handover-handoff",
            "handover-git",
            "handover-verify",
            "handover-record",
        ],
    ),
    (
        "src/crates/recall",
        "handover-recall",
        &[
            "handover-base",
            "handover-handoff",
            "handover-git",
            "handover-record",
            "handover-core",
        ],
    ),
    (
        "installer",
        "handover-installer",
        &["handover-base", "handover-clients"],
    ),
    (
        "hooks",
        "handover-hooks",
        &[
            "handover-base",
            "handover-clients",
            "handover-handoff",
            "handover-git",
            "handover-record",
            "handover-core",
        ],
    ),
    (
        ".",
        "handover",
        &[
            "handover-base",
            "handover-clients",
            "handover-handoff",
            "handover-git",
            "handover-verify",
            "handover-record",
            "handover-core",
            "handover-recall",
            "handover-hooks",
            "handover-installer",
        ],
    ),
];

fn manifest(dir: &str) -> toml_edit::DocumentMut {
    let path = Path::new(ROOT).join(dir).join("Cargo.toml");
    std::fs::read_to_string(&path)
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Names of a manifest's normal (not dev) dependencies.
fn dependencies(doc: &toml_edit::DocumentMut) -> BTreeSet<String> {
    doc.get("dependencies")
        .and_then(|d| d.as_table_like())
        .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn dependencies_point_one_way() {
    for (dir, name, allowed) in LAYERS {
        let doc = manifest(dir);
        assert_eq!(doc["package"]["name"].as_str(), Some(*name), "{dir}");
        let ours: BTreeSet<String> = dependencies(&doc)
            .into_iter()
            .filter(|d| d.starts_with("handover"))
            .collect();
        let allowed: BTreeSet<String> = allowed.iter().map(|s| s.to_string()).collect();
        assert_eq!(ours, allowed, "{name} depends on the wrong handover crates");
    }
}

/// Names of every dependency a manifest gives its built code: normal and build dependencies,
/// target-specific ones included (not dev-dependencies).
fn built_dependencies(doc: &toml_edit::DocumentMut) -> BTreeSet<String> {
    let names = |item: Option<&toml_edit::Item>| -> Vec<String> {
        item.and_then(|d| d.as_table_like())
            .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
            .unwrap_or_default()
    };
    let mut all: BTreeSet<String> = BTreeSet::new();
    for kind in ["dependencies", "build-dependencies"] {
        all.extend(names(doc.get(kind)));
        if let Some(targets) = doc.get("target").and_then(|t| t.as_table_like()) {
            for (_, target) in targets.iter() {
                all.extend(names(target.get(kind)));
            }
        }
    }
    all
}

/// The tests' harness (tests/support, handover-testkit) is dev-only: never published, a
/// dev-dependency of the `handover` package, and no production crate builds with it. Every
/// other workspace member is a production crate with its place in [`LAYERS`].
#[test]
fn the_testkit_is_dev_only() {
    const TESTKIT: &str = "tests/support";
    let root = manifest(".");
    let members: BTreeSet<String> = root["workspace"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert!(members.contains(TESTKIT), "{members:?}");
    let layered: BTreeSet<String> = LAYERS.iter().map(|(dir, _, _)| dir.to_string()).collect();
    let production: BTreeSet<String> = members.into_iter().filter(|m| m != TESTKIT).collect();
    assert_eq!(production, layered, "workspace members against LAYERS");

    let kit = manifest(TESTKIT);
    assert_eq!(kit["package"]["name"].as_str(), Some("handover-testkit"));
    assert_eq!(
        kit["package"]["publish"].as_bool(),
        Some(false),
        "never published"
    );
    for (dir, name, _) in LAYERS {
        assert!(
            !built_dependencies(&manifest(dir)).contains("handover-testkit"),
            "{name} builds with the test harness: it belongs in [dev-dependencies]"
        );
    }
    assert!(
        root["dev-dependencies"]
            .as_table_like()
            .is_some_and(|t| t.contains_key("handover-testkit")),
        "the handover package's tests use the harness as a dev-dependency"
    );
}

/// [`built_dependencies`] on a manifest whose answer is known: a dependency in any built table
/// counts, a dev-dependency does not.
#[test]
fn built_dependencies_are_every_table_but_dev() {
    let doc: toml_edit::DocumentMut = r#"
[dependencies]
a = "1"
[build-dependencies]
b = "1"
[dev-dependencies]
dev = "1"
[target.'cfg(unix)'.dependencies]
c = "1"
[target.'cfg(unix)'.dev-dependencies]
dev2 = "1"
"#
    .parse()
    .unwrap();
    let expected: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    assert_eq!(built_dependencies(&doc), expected);
}

/// The production source files of a package: its crate's modules, and for the CLI package the
/// hook executables' `main`s in src/bin/.
fn production_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = modules_of(&crate_root(dir)).into_values().collect();
    if *dir == *"." {
        let bins = Path::new(ROOT).join("src/bin");
        for entry in std::fs::read_dir(bins).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files
}

/// The handover crates a package's production code names (`handover_git::…`, `use
/// handover_verify as verify`), as package names.
fn crates_named_in(dir: &str) -> BTreeSet<String> {
    let crates: BTreeSet<String> = LAYERS
        .iter()
        .map(|(_, name, _)| name.replace('-', "_"))
        .collect();
    let mut named = BTreeSet::new();
    for file in production_files(dir) {
        let code = without_tests(&code_only(&std::fs::read_to_string(&file).unwrap()));
        let b = code.as_bytes();
        let mut from = 0;
        while let Some(at) = code[from..].find("handover_").map(|i| from + i) {
            let end = at + code[at..].bytes().take_while(|&c| is_ident(c)).count();
            from = end;
            let after_path = at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':');
            if !after_path && crates.contains(&code[at..end]) {
                named.insert(code[at..end].replace('_', "-"));
            }
        }
    }
    named
}

/// The edges checked above are the real ones: a manifest names exactly the handover crates
/// its code uses, so no crate reaches a lower one through another's re-export.
#[test]
fn manifests_name_the_handover_crates_the_code_uses() {
    for (dir, name, _) in LAYERS {
        let declared: BTreeSet<String> = dependencies(&manifest(dir))
            .into_iter()
            .filter(|d| d.starts_with("handover"))
            .collect();
        assert_eq!(
            crates_named_in(dir),
            declared,
            "{name}: the handover crates its code names differ from its manifest's"
        );
    }
}

/// No crate re-exports another crate or its modules (`pub use handover_x::store;`): callers
/// name the crate that owns what they use, so the manifests tell who uses what.
#[test]
fn no_crate_re_exports_another() {
    for (dir, name, _) in LAYERS {
        for file in production_files(dir) {
            let code = without_tests(&code_only(&std::fs::read_to_string(&file).unwrap()));
            let flat: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                !flat.contains("pub use handover_") && !flat.contains("pub extern crate"),
                "{name}: {} re-exports another crate",
                file.display()
            );
        }
    }
}

#[test]
fn heavy_or_edge_dependencies_stay_where_they_belong() {
    // clap is the CLI's; dirs (finding the user's home) and toml_edit's editing are the
    // installer's and the core's; the base crate is the standard library only (and libc).
    for (dir, name, _) in LAYERS {
        let deps = dependencies(&manifest(dir));
        assert_eq!(deps.contains("clap"), *name == "handover", "clap in {name}");
        // The MCP server's SDK and its async runtime: the CLI's alone (`handover mcp`).
        for cli_only in ["rmcp", "tokio"] {
            assert_eq!(
                deps.contains(cli_only),
                *name == "handover",
                "{cli_only} in {name}"
            );
        }
        // ...and recall's, for `handover log`'s cache in the user's cache directory.
        assert_eq!(
            deps.contains("dirs"),
            matches!(*name, "handover-installer" | "handover-recall"),
            "dirs in {name}"
        );
        if *name == "handover-base" {
            assert!(
                deps.is_empty(),
                "handover-base must stay std-only: {deps:?}"
            );
            // Its one exception: libc's open flags for the read gate, on Unix only.
            let doc = manifest(dir);
            let targets: BTreeSet<String> = doc
                .get("target")
                .and_then(|t| t.as_table_like())
                .into_iter()
                .flat_map(|t| t.iter())
                .flat_map(|(_, target)| {
                    target
                        .get("dependencies")
                        .and_then(|d| d.as_table_like())
                        .map(|d| d.iter().map(|(k, _)| k.to_string()).collect::<Vec<_>>())
                        .unwrap_or_default()
                })
                .collect();
            assert!(
                targets.iter().all(|d| d == "libc"),
                "handover-base may add only libc, for Unix: {targets:?}"
            );
        }
    }
}

/// Whether an executable carries code of `krate`: debug builds keep symbol names, and every
/// function of a crate is named `<crate>::...` in them.
fn links(exe: &str, krate: &str) -> bool {
    // Through str::contains: the standard library's search is compiled optimised even in a
    // debug test build, a hand loop over 50 MB is not.
    String::from_utf8_lossy(&std::fs::read(exe).unwrap()).contains(krate)
}

/// What the CLI links and a hook executable must not: clap, the installer, the MCP server's
/// SDK with its async runtime (no runtime starts on a hook's path), and recall (the hooks
/// never read the history, nor `handover log`'s cache).
const CLI_ONLY: [&str; 5] = [
    "clap_builder",
    "handover_installer",
    "rmcp",
    "tokio",
    "handover_recall",
];

#[test]
fn hook_executables_link_nothing_that_is_the_clis_alone() {
    let cli = env!("CARGO_BIN_EXE_handover");
    // The control: the scan does find each in the CLI, which uses them.
    for krate in CLI_ONLY {
        assert!(links(cli, krate), "symbol scan found no {krate} in the CLI");
    }
    for exe in [
        env!("CARGO_BIN_EXE_handover-session-start"),
        env!("CARGO_BIN_EXE_handover-pre-compact"),
        env!("CARGO_BIN_EXE_handover-context-watch"),
    ] {
        assert!(
            links(exe, "handover_hooks"),
            "{exe}: scan found no hook code"
        );
        for krate in CLI_ONLY {
            assert!(!links(exe, krate), "{exe} links {krate}");
        }
    }
}

/// On x86_64 Linux with glibc the hook executables are static PIEs (the checkout's linker,
/// .cargo/static-hooks.sh: no dynamic loader at their start, address randomisation kept) and the
/// CLI is linked as rustc makes it. Where glibc's static libraries are missing, the hooks are
/// linked dynamically and this says so.
#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
#[test]
fn hook_executables_are_static_pies_on_x86_64_linux() {
    let libc_a = std::process::Command::new("cc")
        .arg("-print-file-name=libc.a")
        .output()
        .unwrap();
    let libc_a = String::from_utf8(libc_a.stdout).unwrap();
    assert!(
        Path::new(libc_a.trim()).is_absolute(),
        "no static glibc here (libc.a): the hooks are linked dynamically"
    );
    // (a position-independent executable, its program interpreter if any)
    let elf = |exe: &str| {
        let b = std::fs::read(exe).unwrap();
        let u16_at = |at: usize| u16::from_le_bytes([b[at], b[at + 1]]) as usize;
        let phoff = u64::from_le_bytes(b[0x20..0x28].try_into().unwrap()) as usize;
        let interp = (0..u16_at(0x38)).any(|i| {
            let at = phoff + i * u16_at(0x36);
            u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) == 3 // PT_INTERP
        });
        (u16_at(0x10) == 3, interp) // ET_DYN
    };
    assert_eq!(elf(env!("CARGO_BIN_EXE_handover")), (true, true), "the CLI");
    for exe in [
        env!("CARGO_BIN_EXE_handover-session-start"),
        env!("CARGO_BIN_EXE_handover-pre-compact"),
        env!("CARGO_BIN_EXE_handover-context-watch"),
    ] {
        assert_eq!(elf(exe), (true, false), "{exe}: not a static PIE");
    }
}

/// serde_json's `preserve_order` feature would switch every `serde_json::Map` in the build to an
/// IndexMap, the core's and the hooks' too (cargo unifies features): no crate enables it (the
/// installer keeps users' key order with its own json_doc). Legacy-mangled debug symbols name
/// the map's instances; indexmap itself is linked anyway, through toml_edit.
#[test]
fn serde_json_maps_are_not_indexmaps_anywhere() {
    let indexmap = "IndexMap$LT$alloc..string..String$C$serde_json..value..Value";
    let btreemap = "BTreeMap$LT$alloc..string..String$C$serde_json..value..Value";
    for exe in [
        env!("CARGO_BIN_EXE_handover"),
        env!("CARGO_BIN_EXE_handover-session-start"),
        env!("CARGO_BIN_EXE_handover-pre-compact"),
        env!("CARGO_BIN_EXE_handover-context-watch"),
    ] {
        // The control: the scan finds serde_json's map as it is built.
        assert!(links(exe, btreemap), "{exe}: scan found no serde_json map");
        assert!(
            !links(exe, indexmap),
            "{exe}: serde_json's map is an IndexMap (preserve_order enabled somewhere)"
        );
    }
}

// ---- No import circle inside a crate ----
//
// Within a crate, the modules under one parent must form a one-way graph too: a circle
// (config → record → context → … → config) means no module of it can be read, tested or moved
// without the others. The rule is checked level by level: at the crate root between its
// top-level modules, then under each module between its submodules. A module counts with
// everything below it (`git/` is `git.rs` and `git/cli.rs`), and a module using its own parent
// or child is containment, not a circle (the usual `use super::Finding` of a detector module).
// Edges are the `crate::…` and `super::…` paths of production code, read as text: comments,
// string literals and `#[cfg(test)]` items do not count.

/// Production source with comments, string and char literals blanked out (newlines kept), so
/// that a path in a doc comment or a message is not an import.
pub(super) fn code_only(src: &str) -> String {
    lexed(src, false)
}

/// The source without its comments, string literals kept as written (a program's name in
/// `Command::new("git")`).
pub(super) fn code_with_strings(src: &str) -> String {
    lexed(src, true)
}

fn lexed(src: &str, keep_strings: bool) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank =
        |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' || keep_strings { c } else { b' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied().unwrap_or(0);
        if c == b'/' && next == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && next == b'*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if (c == b'r' || (c == b'b' && next == b'r'))
            && (i == 0 || !is_ident(b[i - 1]))
            && raw_string_start(&b[i..]).is_some()
        {
            let (prefix, hashes) = raw_string_start(&b[i..]).unwrap_or_default();
            if keep_strings {
                out.extend_from_slice(&b[i..i + prefix]);
            }
            i += prefix;
            let end: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < b.len() && !b[i..].starts_with(&end) {
                blank(&mut out, b[i]);
                i += 1;
            }
            if keep_strings {
                out.extend_from_slice(&end);
            }
            i += end.len();
        } else if c == b'"' {
            if keep_strings {
                out.push(c);
            }
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    if keep_strings {
                        out.push(b[i]);
                    }
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                }
                i += 1;
            }
            if keep_strings && i < b.len() {
                out.push(b'"');
            }
            i += 1;
        } else if c == b'\'' && (next == b'\\' || b.get(i + 2) == Some(&b'\'')) {
            // A char literal ('x', '\n', '\''); a lifetime ('a) has no closing quote.
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `r"`, `r#"`, `br##"`…: the prefix's length and the number of `#`.
fn raw_string_start(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = usize::from(b.first() == Some(&b'b'));
    if b.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    (b.get(i + hashes) == Some(&b'"')).then_some((i + hashes + 1, hashes))
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The source without its `#[cfg(test)]` items (a test module may use anything).
pub(super) fn without_tests(code: &str) -> String {
    let mut code = code.to_string();
    while let Some(at) = code.find("#[cfg(test)]") {
        let b = code.as_bytes();
        let mut i = at + "#[cfg(test)]".len();
        // The item ends at its first `;` outside braces, or with its outermost block.
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'{' => depth += 1,
                // The end of the block the attribute sat in (a field's attribute): stop there.
                b'}' if depth == 0 => {
                    i -= 1;
                    break;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        code.replace_range(at..(i + 1).min(code.len()), "");
    }
    code
}

/// The paths of a use tree at `s` (`a::{b, c::d}` → `[a, b]`, `[a, c, d]`); a glob or an
/// unfinished path ends where it stops.
fn use_tree(s: &[u8], i: &mut usize) -> Vec<Vec<String>> {
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(i);
    if s.get(*i) == Some(&b'{') {
        *i += 1;
        let mut out = Vec::new();
        loop {
            skip_ws(i);
            match s.get(*i) {
                None => break,
                Some(b'}') => {
                    *i += 1;
                    break;
                }
                Some(b',') => *i += 1,
                Some(_) => {
                    let before = *i;
                    out.extend(use_tree(s, i));
                    if *i == before {
                        *i += 1; // something that is no path (`as`, a stray token)
                    }
                }
            }
        }
        return out;
    }
    let start = *i;
    while *i < s.len() && is_ident(s[*i]) {
        *i += 1;
    }
    if *i == start {
        return vec![Vec::new()];
    }
    let ident = String::from_utf8_lossy(&s[start..*i]).into_owned();
    if s[*i..].starts_with(b"::") {
        *i += 2;
        return use_tree(s, i)
            .into_iter()
            .map(|rest| std::iter::once(ident.clone()).chain(rest).collect())
            .collect();
    }
    // `x as y`: the alias is not part of the path.
    skip_ws(i);
    if s[*i..].starts_with(b"as ") {
        *i += 3;
        skip_ws(i);
        while *i < s.len() && is_ident(s[*i]) {
            *i += 1;
        }
    }
    vec![vec![ident]]
}

pub(super) type ModPath = Vec<String>;

/// A crate's modules (path from the crate root → file), following `mod x;` declarations from
/// the root file.
pub(super) fn modules_of(root_file: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut found = BTreeMap::new();
    let mut todo = vec![(Vec::new(), root_file.to_path_buf())];
    while let Some((path, file)) = todo.pop() {
        let code = without_tests(&code_only(&std::fs::read_to_string(&file).unwrap()));
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "main.rs" | "mod.rs") => file.parent().unwrap().to_path_buf(),
            _ => file.with_extension(""),
        };
        for name in declared_modules(&code) {
            let child = [
                dir.join(format!("{name}.rs")),
                dir.join(&name).join("mod.rs"),
            ]
            .into_iter()
            .find(|f| f.is_file())
            .unwrap_or_else(|| panic!("{}: no file for `mod {name};`", file.display()));
            let mut child_path = path.clone();
            child_path.push(name);
            todo.push((child_path, child));
        }
        found.insert(path, file);
    }
    found
}

/// The `mod x;` declarations of a file (inline `mod x { … }` blocks belong to the file).
fn declared_modules(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("mod ").map(|i| from + i) {
        from = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let name: String = code[from..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && code[from + name.len()..].trim_start().starts_with(';') {
            out.push(name);
        }
    }
    out
}

/// Every module a module refers to through `crate::` or `super::` (the longest prefix of the
/// path that is a module: `crate::store::Store` → `store`).
fn references(
    module: &[String],
    code: &str,
    modules: &BTreeMap<ModPath, PathBuf>,
) -> BTreeSet<ModPath> {
    let b = code.as_bytes();
    let mut out = BTreeSet::new();
    for keyword in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword).map(|i| from + i) {
            from = at + keyword.len();
            if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':') {
                continue; // `handover_core::…`, `$crate::`, a `super::super::` already read
            }
            let mut i = from;
            for rest in use_tree(b, &mut i) {
                let mut target: ModPath = if keyword == "crate::" {
                    Vec::new()
                } else {
                    module[..module.len().saturating_sub(1)].to_vec()
                };
                for segment in rest {
                    match segment.as_str() {
                        "super" => {
                            target.pop();
                        }
                        "self" => {}
                        _ => target.push(segment),
                    }
                }
                while !target.is_empty() && !modules.contains_key(&target) {
                    target.pop();
                }
                if !target.is_empty() {
                    out.insert(target);
                }
            }
        }
    }
    out
}

/// The circles of one crate: for each parent module, the strongly connected groups (of two or
/// more) among its children, with the references that tie them.
fn circles_of(root_file: &Path) -> Vec<(ModPath, BTreeSet<String>, Vec<String>)> {
    let modules = modules_of(root_file);
    // parent → child → the siblings it depends on, and why.
    let mut levels: BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, String>>> = BTreeMap::new();
    for (module, file) in &modules {
        let code = without_tests(&code_only(&std::fs::read_to_string(file).unwrap()));
        for target in references(module, &code, &modules) {
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue; // itself, its parent or its child
            }
            let file = file.strip_prefix(ROOT).unwrap_or(file);
            let why = format!("{} uses {}", file.display(), target.join("::"));
            levels
                .entry(module[..common].to_vec())
                .or_default()
                .entry(module[common].clone())
                .or_default()
                .entry(target[common].clone())
                .or_insert(why);
        }
    }
    let mut out = Vec::new();
    for (parent, graph) in levels {
        for group in strongly_connected(&graph) {
            let why = group
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| group.contains(*to))
                        .map(move |(to, why)| format!("{from} -> {to} ({why})"))
                })
                .collect();
            out.push((parent.clone(), group, why));
        }
    }
    out
}

/// Groups of two or more nodes that reach each other (Tarjan's algorithm).
fn strongly_connected(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        groups: Vec<BTreeSet<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            for next in self.graph.get(node).into_iter().flat_map(|e| e.keys()) {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next.as_str()]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next.as_str()) {
                    let low = self.low[node].min(self.index[next.as_str()]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut group = BTreeSet::new();
                while let Some(top) = self.stack.pop() {
                    group.insert(top.to_string());
                    if top == node {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.groups.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.groups
}

pub(super) fn crate_root(dir: &str) -> PathBuf {
    let src = Path::new(ROOT).join(dir).join("src");
    let lib = src.join("lib.rs");
    if lib.is_file() {
        lib
    } else {
        src.join("main.rs")
    }
}

#[test]
fn no_import_circle_inside_a_crate() {
    let mut problems = Vec::new();
    for (dir, name, _) in LAYERS {
        for (parent, group, why) in circles_of(&crate_root(dir)) {
            let under = if parent.is_empty() {
                "the crate root".to_string()
            } else {
                parent.join("::")
            };
            problems.push(format!(
                "{name}: import circle under {under} between {group:?}:\n    {}",
                why.join("\n    ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "modules that depend on each other in a circle (move what they share to where it \
         belongs, so that the arrows point one way):\n{}",
        problems.join("\n")
    );
}

/// The rule's own parts, on text where the answer is known.
#[test]
fn the_circle_rule_reads_imports_as_written() {
    let code = code_only(
        "use crate::{a::{b, c}, d as e};\n// crate::x in a comment\nlet s = \"crate::y\"; let c = '{';\nsuper::super::super::f::g();\n#[cfg(test)]\nmod tests { use crate::z; }\n",
    );
    let code = without_tests(&code);
    assert!(!code.contains("crate::x") && !code.contains("crate::y") && !code.contains('z'));
    let modules: BTreeMap<ModPath, PathBuf> = [
        vec![],
        vec!["a".to_string()],
        vec!["a".to_string(), "b".to_string()],
        vec!["d".to_string()],
        vec!["f".to_string()],
        vec!["m".to_string(), "n".to_string(), "o".to_string()],
    ]
    .into_iter()
    .map(|m| (m, PathBuf::new()))
    .collect();
    let found = references(
        &["m".to_string(), "n".to_string(), "o".to_string()],
        &code,
        &modules,
    );
    let found: Vec<String> = found.iter().map(|m| m.join("::")).collect();
    // `a::c` is an item of `a`; `super::super::super::f` from m::n::o is the crate's `f`.
    assert_eq!(found, ["a", "a::b", "d", "f"]);

    let graph: BTreeMap<String, BTreeMap<String, String>> = [
        ("x", vec!["y"]),
        ("y", vec!["z"]),
        ("z", vec!["x"]),
        ("w", vec!["x"]),
    ]
    .into_iter()
    .map(|(from, to)| {
        (
            from.to_string(),
            to.into_iter()
                .map(|t| (t.to_string(), String::new()))
                .collect(),
        )
    })
    .collect();
    let groups = strongly_connected(&graph);
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].iter().collect::<Vec<_>>(), ["x", "y", "z"]);
}
