//! Docs that cannot drift: every block of README.md and docs/*.md between
//! `<!-- generated: NAME -->` and `<!-- /generated -->` is what the tool prints (or, for
//! tables, what the code says), produced here by running the real thing. A change that alters
//! the output fails this test until the docs are updated:
//! `HANDOVER_BLESS=1 cargo test -p handover --test docs_samples` rewrites the blocks (then
//! read the diff before committing it).
//!
//! Volatile parts are replaced by the values the docs show: a commit id by `a1b2c3d`, the
//! temporary repository by `/repo`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{git, Repo};
use handover_base::{Agent, HookExe};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- generated: ";
const END: &str = "<!-- /generated -->";

/// Every generator, by the name the Markdown uses.
fn generators() -> BTreeMap<&'static str, fn() -> String> {
    let mut g: BTreeMap<&'static str, fn() -> String> = BTreeMap::new();
    g.insert("readme-startup-context", readme_startup_context);
    g.insert("install-hooks-table", install_hooks_table);
    g.insert("storage-config-errors", storage_config_errors);
    g
}

fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
}

/// One marked block: its name, and the byte range of its content (between the marker lines).
struct Block {
    name: String,
    content: std::ops::Range<usize>,
}

fn blocks(text: &str, file: &Path) -> Vec<Block> {
    let mut out = Vec::new();
    let mut at = 0;
    // A marker starts its line (prose may mention one in backquotes).
    let line_marker = format!("\n{BEGIN}");
    while let Some(start) = text[at..].find(&line_marker).map(|i| i + at + 1) {
        let name_end = text[start..]
            .find(" -->")
            .map(|i| i + start)
            .unwrap_or_else(|| panic!("{}: unterminated marker", file.display()));
        let name = text[start + BEGIN.len()..name_end].to_string();
        let content_start = text[name_end..]
            .find('\n')
            .map(|i| i + name_end + 1)
            .unwrap();
        let end = text[content_start..]
            .find(END)
            .map(|i| i + content_start)
            .unwrap_or_else(|| panic!("{}: {name} has no {END}", file.display()));
        out.push(Block {
            name,
            content: content_start..end,
        });
        at = end + END.len();
    }
    out
}

#[test]
fn generated_blocks_match_the_tool() {
    let generators = generators();
    let bless = std::env::var_os("HANDOVER_BLESS").is_some();
    let mut used = Vec::new();
    let mut stale = Vec::new();
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut new_text = text.clone();
        // Back to front, so earlier ranges stay valid while rewriting.
        for block in blocks(&text, &file).into_iter().rev() {
            let generate = generators.get(block.name.as_str()).unwrap_or_else(|| {
                panic!(
                    "{}: no generator for `{}` in tests/docs_samples.rs",
                    file.display(),
                    block.name
                )
            });
            used.push(block.name.clone());
            let want = generate();
            if text[block.content.clone()] != want {
                stale.push(format!(
                    "{}: `{}` differs from the tool's output:\n--- docs\n{}--- tool\n{}",
                    file.display(),
                    block.name,
                    &text[block.content.clone()],
                    want
                ));
                new_text.replace_range(block.content.clone(), &want);
            }
        }
        if bless && new_text != text {
            std::fs::write(&file, new_text).unwrap();
        }
    }
    for name in generators.keys() {
        assert!(
            used.iter().any(|u| u == name),
            "generator `{name}` is used by no marked block"
        );
    }
    assert!(
        bless || stale.is_empty(),
        "{}\nUpdate the docs: HANDOVER_BLESS=1 cargo test -p handover --test docs_samples (then review the diff)",
        stale.join("\n")
    );
}

#[test]
fn blocks_are_found_with_their_content() {
    let text =
        "a `<!-- generated: y -->`\n<!-- generated: x -->\n```\nhi\n```\n<!-- /generated -->\nb\n";
    let b = blocks(text, Path::new("t.md"));
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].name, "x");
    assert_eq!(&text[b[0].content.clone()], "```\nhi\n```\n");
}

fn fenced(body: &str) -> String {
    format!("```\n{}\n```\n", body.trim_end())
}

/// The handover binary, run in `dir` with its own directory first on PATH (as after
/// `cargo install`, so it names itself plain `handover`) and a temporary HOME.
fn handover(dir: &Path, home: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_handover"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = common::handover_command(dir, args);
    cmd.env("PATH", path)
        .env("HOME", home)
        .env("HANDOVER_AGENT", "claude");
    if stdin.is_some() {
        cmd.stdin(std::process::Stdio::piped());
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(text) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "handover {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// README: the startup context after the README's own `write`, one commit later.
fn readme_startup_context() -> String {
    let r = Repo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let written = r.head();
    handover(
        &r.path,
        home.path(),
        &["write", "--from", "-"],
        Some(&readme_write_input()),
    );
    r.write("src/report.rs", "pub fn report() {}\n");
    git(&r.path, &["add", "src/report.rs"]);
    git(&r.path, &["commit", "-q", "-m", "Report rows"]);
    let text = handover(&r.path, home.path(), &["boot", "--startup"], None);
    fenced(&text.replace(&written[..7], "a1b2c3d"))
}

/// The JSON the README's `handover write --from - <<'EOF'` example writes.
fn readme_write_input() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find("handover write --from - <<'EOF'\n").unwrap();
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("\nEOF\n").unwrap()].to_string()
}

/// docs/install.md: which executable runs on which events, per client.
fn install_hooks_table() -> String {
    let events = |exe: HookExe, agent: Agent| {
        handover_clients::of(agent)
            .events(exe)
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut t = String::from(
        "| Executable | Events (Claude Code, Codex) | Events (Gemini CLI) |\n|---|---|---|\n",
    );
    for exe in HookExe::ALL {
        let note = match exe {
            HookExe::SessionStart => " (every source: startup, resume, clear, compact)",
            HookExe::ContextWatch => " (left out with `--no-watch`)",
            HookExe::PreCompact => "",
        };
        t.push_str(&format!(
            "| `{}` | {}{note} | {} |\n",
            exe.file_name(),
            events(exe, Agent::Claude),
            events(exe, Agent::Gemini)
        ));
    }
    t
}

/// docs/storage.md: what `.handover/config.toml` mistakes look like.
fn storage_config_errors() -> String {
    let cases = [
        "[policy]\nfacts_only = tru\n",
        "[policy]\nfacts_only = \"yes\"\n",
        "[context_watch]\nremind_percent = 150\n",
        "[context_watch]\nremind_percent = 60\ninsist_percent = 50\n",
        "[context_watch]\nremind_pct = 50\n",
        "[polcy]\nfacts_only = true\n",
        "facts_only = true\n",
    ];
    let r = Repo::with_commit();
    let root = std::fs::canonicalize(&r.path).unwrap();
    std::fs::create_dir_all(root.join(".handover")).unwrap();
    let mut lines = Vec::new();
    for case in cases {
        std::fs::write(root.join(".handover/config.toml"), case).unwrap();
        let e = handover_core::config::load(&root)
            .err()
            .unwrap_or_else(|| panic!("{case:?} must be refused"));
        lines.push(
            format!("{e:#}")
                .replace(&root.display().to_string(), "/repo")
                .replace(&r.path.display().to_string(), "/repo"),
        );
    }
    format!("```text\n{}\n```\n", lines.join("\n"))
}
