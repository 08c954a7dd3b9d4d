//! Docs that cannot drift: every block of README.md and docs/*.md between
//! `<!-- generated: NAME -->` and `<!-- /generated -->` is what the tool prints (or, for
//! tables, what the code says), produced here by running the real thing. A change that alters
//! the output fails this test until the docs are updated:
//! `HANDOVER_BLESS=1 cargo test -p handover --test integration docs_samples` rewrites the blocks (then
//! read the diff before committing it).
//!
//! A block is whole lines (a marker at the start of a line) or part of one (a marker inside a
//! line, e.g. a table cell). Volatile parts are replaced by the values the docs show: a commit
//! id by `a1b2c3d`, the temporary repository by `/repo` or `/home/you/project`, times by fixed
//! ones. Lists of clients are read from the program (`Agent::ALL`, the install switches), so
//! a new client reaches the docs by regenerating them. Measurements (test times, benchmark
//! figures) are not generated: the docs give the date they were measured.

use crate::support::repo;

use crate::support::repo::{git, TestRepo};
use handover_base::HookExe;
use handover_clients::Agent;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- generated: ";
const END: &str = "<!-- /generated -->";

/// Every generator, by the name the Markdown uses.
fn generators() -> BTreeMap<&'static str, fn() -> String> {
    let mut g: BTreeMap<&'static str, fn() -> String> = BTreeMap::new();
    g.insert("readme-startup-context", readme_startup_context);
    g.insert("readme-session-record", readme_session_record);
    g.insert("install-synopsis", install_synopsis);
    g.insert("install-hooks-table", install_hooks_table);
    g.insert("install-hooks-json", install_hooks_json);
    g.insert("install-output", install_output);
    g.insert("install-status", install_status);
    g.insert("install-instructions", install_instructions);
    g.insert("launcher-message", launcher_message);
    g.insert("reminder-text", reminder_text);
    g.insert("reminder-length", reminder_length);
    g.insert("format-markdown-errors", format_markdown_errors);
    g.insert("format-handover-md", format_handover_md);
    g.insert("agent-values", agent_values);
    g.insert("storage-config-table", storage_config_table);
    g.insert("storage-config-errors", storage_config_errors);
    g.insert("model-windows-table", model_windows_table);
    g.insert("design-crates", design_crates);
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

/// One marked block: its name, and the byte range of its content.
///
/// A marker that starts a line opens a block of whole lines, up to the line holding the end
/// marker. A marker inside a line (a table cell, a sentence) is inline: the content runs from
/// the marker to the end marker on the same line. A marker right after a backquote is prose
/// mentioning the syntax, not a block.
struct Block {
    name: String,
    content: std::ops::Range<usize>,
}

fn blocks(text: &str, file: &Path) -> Vec<Block> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(start) = text[at..].find(BEGIN).map(|i| i + at) {
        let before = text[..start].chars().next_back();
        if before == Some('`') {
            at = start + BEGIN.len();
            continue;
        }
        let name_end = text[start..]
            .find(" -->")
            .map(|i| i + start)
            .unwrap_or_else(|| panic!("{}: unterminated marker", file.display()));
        let name = text[start + BEGIN.len()..name_end].to_string();
        let inline = before.is_some_and(|c| c != '\n');
        let content_start = if inline {
            name_end + " -->".len()
        } else {
            text[name_end..]
                .find('\n')
                .map(|i| i + name_end + 1)
                .unwrap()
        };
        let end = text[content_start..]
            .find(END)
            .map(|i| i + content_start)
            .unwrap_or_else(|| panic!("{}: {name} has no {END}", file.display()));
        assert!(
            !inline || !text[content_start..end].contains('\n'),
            "{}: the inline block {name} must end on its own line",
            file.display()
        );
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
            let want = match generators.get(block.name.as_str()) {
                Some(generate) => generate(),
                None => with_argument(&block.name).unwrap_or_else(|| {
                    panic!(
                        "{}: no generator for `{}` in tests/project/docs_samples.rs",
                        file.display(),
                        block.name
                    )
                }),
            };
            used.push(block.name.clone());
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
        "{}\nUpdate the docs: HANDOVER_BLESS=1 cargo test -p handover --test integration docs_samples (then review the diff)",
        stale.join("\n")
    );
}

/// Generators that take an argument: `NAME ARGUMENT`.
fn with_argument(block: &str) -> Option<String> {
    let (name, argument) = block.split_once(' ')?;
    match name {
        "verify-reason" => Some(verify_reason(argument)),
        _ => None,
    }
}

#[test]
fn blocks_are_found_with_their_content() {
    let text =
        "a `<!-- generated: y -->`\n<!-- generated: x -->\n```\nhi\n```\n<!-- /generated -->\n\
                | cell (<!-- generated: z -->`a` or `b`<!-- /generated -->) |\n";
    let b = blocks(text, Path::new("t.md"));
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].name, "x");
    assert_eq!(&text[b[0].content.clone()], "```\nhi\n```\n");
    assert_eq!(b[1].name, "z");
    assert_eq!(&text[b[1].content.clone()], "`a` or `b`");
}

fn fenced(body: &str) -> String {
    format!("```\n{}\n```\n", body.trim_end())
}

/// The handover binary, run in `dir` with its own directory first on PATH (as after
/// `cargo install`, so it names itself plain `handover`) and a temporary HOME; its stdout,
/// after checking that it succeeded.
fn handover(dir: &Path, home: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let out = handover_output(dir, home, args, stdin);
    assert!(
        out.status.success(),
        "handover {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The PATH a user has after `cargo install`: the directory of the built executables first.
fn path_with_the_tool() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_handover"));
    format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// As [`handover`], whatever the outcome.
fn handover_output(
    dir: &Path,
    home: &Path,
    args: &[&str],
    stdin: Option<&str>,
) -> std::process::Output {
    let mut cmd = repo::handover_command(dir, args);
    cmd.env("PATH", path_with_the_tool())
        .env("HOME", home)
        .env("CARGO_HOME", home.join(".cargo"))
        .env("CODEX_HOME", home.join(".codex"))
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
    child.wait_with_output().unwrap()
}

/// README: the startup context after the README's own `write`, one commit later.
fn readme_startup_context() -> String {
    let r = TestRepo::with_commit();
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

/// Every client with the name its install switch gives it (`--claude`: "Claude Code (every
/// agent when none is named)"), read from `handover install --help`: a client added to the
/// program reaches the generated docs without a list here.
fn clients() -> Vec<(Agent, String)> {
    let home = tempfile::tempdir().unwrap();
    let help = handover(home.path(), home.path(), &["install", "--help"], None);
    Agent::ALL
        .iter()
        .map(|&agent| {
            let switch = format!("      --{}\n", agent.as_str());
            let at = help
                .find(&switch)
                .unwrap_or_else(|| panic!("install --help has no {switch}"));
            let described = help[at..].lines().nth(1).unwrap().trim();
            (agent, described.split(" (").next().unwrap().to_string())
        })
        .collect()
}

/// docs/install.md: which executable runs on which events, one column per group of clients
/// that share their event names.
fn install_hooks_table() -> String {
    let events = |exe: HookExe, agent: Agent| {
        handover_clients::of(agent)
            .events(exe)
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut groups: Vec<(Vec<String>, Agent)> = Vec::new();
    for (agent, name) in clients() {
        let same = groups.iter_mut().find(|(_, first)| {
            HookExe::ALL.iter().all(|&exe| {
                handover_clients::of(*first).events(exe) == handover_clients::of(agent).events(exe)
            })
        });
        match same {
            Some((names, _)) => names.push(name),
            None => groups.push((vec![name], agent)),
        }
    }
    let mut t = String::from("| Executable |");
    for (names, _) in &groups {
        t.push_str(&format!(" Events ({}) |", names.join(", ")));
    }
    t.push_str(&format!("\n|---|{}\n", "---|".repeat(groups.len())));
    for exe in HookExe::ALL {
        let note = match exe {
            HookExe::SessionStart => " (every source: startup, resume, clear, compact)",
            HookExe::ContextWatch => " (left out with `--no-watch`)",
            HookExe::PreCompact => "",
        };
        t.push_str(&format!("| `{}` |", exe.file_name()));
        for (i, (_, agent)) in groups.iter().enumerate() {
            let note = if i == 0 { note } else { "" };
            t.push_str(&format!(" {}{note} |", events(exe, *agent)));
        }
        t.push('\n');
    }
    t
}

/// docs/install.md: the options of install and uninstall, from their `-h`.
fn install_synopsis() -> String {
    let home = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    for command in ["install", "uninstall"] {
        let help = handover(home.path(), home.path(), &[command, "-h"], None);
        let mut words = Vec::new();
        for line in help.split("Options:\n").nth(1).unwrap().lines() {
            let line = line.trim_start();
            if !line.starts_with('-') {
                continue;
            }
            // `-C, --dir <DIR>  Work on ...` / `--scope <SCOPE>  ... [possible values: a, b]`
            let flag = line.split("  ").next().unwrap();
            let flag = flag.rsplit(", ").next().unwrap();
            let (name, value) = flag.split_once(' ').unwrap_or((flag, ""));
            if ["--dir", "--quiet", "--help"].contains(&name) {
                continue;
            }
            let value = match line.split_once("[possible values: ") {
                Some((_, values)) => {
                    format!(" {}", values.trim_end_matches(']').replace(", ", "|"))
                }
                None if value.is_empty() => String::new(),
                None => format!(" {}", value.trim_matches(['<', '>'])),
            };
            words.push(format!("[{name}{value}]"));
        }
        let lead = format!("{:<19}", format!("handover {command}"));
        let mut line = lead.clone();
        for word in words {
            if line.len() + word.len() > 95 && line.len() > lead.len() {
                lines.push(line.trim_end().to_string());
                line = " ".repeat(lead.len());
            }
            line.push_str(&word);
            line.push(' ');
        }
        lines.push(line.trim_end().to_string());
    }
    let switches: Vec<String> = clients()
        .iter()
        .map(|(a, _)| format!("`--{}`", a.as_str()))
        .collect();
    format!(
        "```\n{}\n```\n\nWithout any of {}, install wires the clients this machine uses (below) and uninstall takes out every one; `--all` is every client.\n",
        lines.join("\n"),
        switches.join(", ")
    )
}

/// docs/install.md: the hooks install writes, as they are in `.claude/settings.json` (the
/// launcher shown by name: its text is in the section below).
fn install_hooks_json() -> String {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    handover(&r.path, home.path(), &["install", "--claude"], None);
    let settings = std::fs::read_to_string(r.path.join(".claude/settings.json")).unwrap();
    // The file as written, up to its second event (the others have the same shape).
    let second = settings.find("\n    \"PreCompact\"").unwrap();
    let first = format!(
        "{}\n  }}\n}}",
        settings[..second].trim_end().trim_end_matches(',')
    );
    // The launcher as it stands inside a JSON string.
    let quoted = serde_json::to_string(handover_base::hook_exe::LAUNCHER).unwrap();
    let text = first.replace(&quoted[1..quoted.len() - 1], "<launcher>");
    serde_json::from_str::<serde_json::Value>(&text).unwrap();
    assert!(text.contains("<launcher>"), "{text}");
    format!("```json\n{text}\n```\n")
}

/// A repository and a HOME in which `handover install --all` ran (every client, the project
/// scope, no `--trust`), with what install printed.
struct Installed {
    repo: TestRepo,
    home: tempfile::TempDir,
    printed: String,
}

fn installed() -> Installed {
    let repo = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let printed = handover(&repo.path, home.path(), &["install", "--all"], None);
    Installed {
        repo,
        home,
        printed,
    }
}

impl Installed {
    /// The machine's paths as the docs show them: the repository `/home/you/project`, HOME
    /// `/home/you`, the executables in cargo's bin directory.
    fn shown(&self, text: &str) -> String {
        let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
        let repo = std::fs::canonicalize(&self.repo.path).unwrap();
        let home = std::fs::canonicalize(self.home.path()).unwrap();
        text.replace(&bin.display().to_string(), "/home/you/.cargo/bin")
            .replace(&repo.display().to_string(), "/home/you/project")
            .replace(&self.repo.path.display().to_string(), "/home/you/project")
            .replace(&home.display().to_string(), "/home/you")
            .replace(&self.home.path().display().to_string(), "/home/you")
    }
}

/// docs/install.md: what a bare `handover install` prints in a fresh repository on a machine
/// with only Claude Code (its `~/.claude`; no other client's folder, and a PATH without the
/// other clients' programs whatever this machine has).
fn install_output() -> String {
    let repo = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let mut cmd = repo::handover_command(&repo.path, &["install"]);
    cmd.env("PATH", path_without_clients())
        .env("HOME", home.path())
        .env("CARGO_HOME", home.path().join(".cargo"))
        .env("CODEX_HOME", home.path().join(".codex"))
        .env("HANDOVER_AGENT", "claude");
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let i = Installed {
        repo,
        home,
        printed: String::from_utf8(out.stdout).unwrap(),
    };
    fenced(&i.shown(&i.printed))
}

/// [`path_with_the_tool`] without the directories that hold an AI coding client's program.
fn path_without_clients() -> String {
    let with = path_with_the_tool();
    let kept: Vec<PathBuf> = std::env::split_paths(&with)
        .filter(|d| {
            handover_clients::ALL
                .iter()
                .all(|c| !d.join(c.executable).exists())
        })
        .collect();
    std::env::join_paths(kept)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// docs/install.md: what a committed hook says at session start on a machine without
/// handover: the portable command run by `sh`, with neither PATH nor cargo's bin directory
/// holding the executable.
fn launcher_message() -> String {
    let empty = tempfile::tempdir().unwrap();
    let command = handover_base::hook_exe::portable_command(HookExe::SessionStart, Agent::Claude);
    let out = std::process::Command::new("/bin/sh")
        .args(["-c", &command])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", empty.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    said["systemMessage"].as_str().unwrap().to_string()
}

/// The context watch's first instruction, at the default 60 %, for Claude Code.
fn reminder() -> String {
    use handover_core::context::{save_progress, Pressure};
    save_progress(Pressure::Remind, 60, "handover", Agent::Claude)
}

/// docs/hooks.md: the first save-progress instruction in full.
fn reminder_text() -> String {
    fenced(&reminder())
}

/// docs/hooks.md: its length, to the nearest 50 characters.
fn reminder_length() -> String {
    let n = reminder().chars().count();
    format!("about {} characters", (n + 25) / 50 * 50)
}

/// docs/install.md: the section install adds to AGENTS.md (and CLAUDE.md, GEMINI.md).
fn install_instructions() -> String {
    let i = installed();
    let text = std::fs::read_to_string(i.repo.path.join("AGENTS.md")).unwrap();
    for other in ["CLAUDE.md", "GEMINI.md"] {
        assert_eq!(
            std::fs::read_to_string(i.repo.path.join(other)).unwrap(),
            text,
            "{other} gets the same section"
        );
    }
    format!("```markdown\n{text}```\n")
}

/// docs/install.md: `handover status` after that install, its files committed and a handoff
/// written (the handoff's id and time replaced by fixed ones).
fn install_status() -> String {
    let i = installed();
    i.repo.commit_all("Wire handover");
    handover(
        &i.repo.path,
        i.home.path(),
        &[
            "write",
            "--goal",
            "Add CSV export",
            "--next",
            "Quote fields",
        ],
        None,
    );
    // The prose around the sample says so.
    let check = handover_output(&i.repo.path, i.home.path(), &["status", "--check"], None);
    assert_eq!(check.status.code(), Some(3));
    let mut text = i.shown(&handover(&i.repo.path, i.home.path(), &["status"], None));
    let (start, end) = ("handoff: ", " — goal: ");
    let at = text.find(start).unwrap() + start.len();
    let to = text[at..].find(end).unwrap() + at;
    text.replace_range(
        at..to,
        "20261122T021451.123456789Z-4f2a written 2026-11-22T02:14:51Z",
    );
    fenced(&text)
}

/// docs/format.md: the agents handover knows, as the `agent` fields hold them.
fn agent_values() -> String {
    let names: Vec<String> = Agent::ALL
        .iter()
        .map(|a| format!("`{}`", a.as_str()))
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// docs/format.md: what `handover write --from handover.md` says about Markdown mistakes.
fn format_markdown_errors() -> String {
    let cases = [
        "# Handoff\n\n## Goal\n\nShip the importer\n\n## Complted\n\n- parser\n",
        "# Handoff\n\n## Goal\n\nShip the importer\n\n## Completed\n\n- parser\nwrote tests\n",
        "# Handoff\n\n## Goal\n\nShip the importer\n\n## Decisions\n\n### use serde\n- Because: derive\n",
    ];
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    for case in cases {
        r.write("handover.md", case);
        let out = handover_output(
            &r.path,
            home.path(),
            &["write", "--from", "handover.md"],
            None,
        );
        assert_eq!(out.status.code(), Some(1), "{case:?} must be refused");
        lines.push(
            String::from_utf8(out.stderr)
                .unwrap()
                .trim_end()
                .to_string(),
        );
    }
    format!("```\n{}\n```\n", lines.join("\n"))
}

/// docs/format.md: the handover.md that `write` renders for the JSON example above it, on a
/// branch `resume` with one file modified; the machine's values (commit ids, the working
/// tree's path, the time, the id) replaced by fixed ones.
fn format_handover_md() -> String {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    handover_core::guard::ensure(&r.path).unwrap();
    r.write("src/checkpoint.rs", "pub struct Checkpoint;\n");
    let base = r.commit_all("Checkpoint type");
    git(&r.path, &["checkout", "-q", "-b", "resume"]);
    r.write("src/resume.rs", "pub fn resume() {}\n");
    r.commit_all("Resume");
    r.write("src/checkpoint.rs", "pub struct Checkpoint(u64);\n");
    handover(
        &r.path,
        home.path(),
        &["write", "--from", "-"],
        Some(&json_example_in(
            "docs/format.md",
            "JSON input:\n\n```json\n",
        )),
    );
    let text = std::fs::read_to_string(r.path.join("handover.md")).unwrap();
    let head = r.head();
    let mut text = text
        .replace(head.trim(), "0123456789abcdef0123456789abcdef01234567")
        .replace(base.trim(), "fedcba9876543210fedcba9876543210fedcba98");
    for (field, fixed) in [
        ("- Worktree: ", "/home/dev/importer"),
        ("- Time: ", "2026-11-22T02:14:51Z"),
        ("- Id: ", "20261122T021451.123456789Z-4f2a"),
    ] {
        let at = text.find(field).unwrap_or_else(|| panic!("no {field}")) + field.len();
        let end = text[at..].find('\n').unwrap() + at;
        text.replace_range(at..end, fixed);
    }
    format!("```markdown\n{}```\n", text)
}

/// The JSON in a fenced block that follows `after` in a doc.
fn json_example_in(doc: &str, after: &str) -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
    let body = &text[text.find(after).unwrap() + after.len()..];
    body[..body.find("\n```\n").unwrap()].to_string()
}

/// README: the session record of a Claude Code session that ended without a handoff, as the
/// next session's startup context shows it. The transcript is written here (what the user
/// asked, the files the agent wrote, a failing test, its last message); the hooks are the real
/// executables. Times are relative to now (a record from the future would be foreign) and
/// shown as fixed ones.
fn readme_session_record() -> String {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(&r.path).unwrap();
    let now = handover_base::clock::unix_now().0;
    let at = |ago: u64| handover_base::clock::format_rfc3339(now - ago);
    let asked = at(120);
    let file = |rel: &str| root.join(rel).to_string_lossy().into_owned();
    let lines = [
        serde_json::json!({"type": "user", "timestamp": asked,
            "message": {"role": "user", "content": "quote fields containing commas"}}),
        serde_json::json!({"type": "assistant", "timestamp": at(100), "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Write",
                "input": {"file_path": file("src/csv.rs"), "content": "pub fn quote() {}\n"}}]}}),
        serde_json::json!({"type": "assistant", "timestamp": at(90), "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": "t2", "name": "Edit",
                "input": {"file_path": file("src/report.rs"), "old_string": "a", "new_string": "b"}}]}}),
        serde_json::json!({"type": "assistant", "timestamp": at(60), "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": "t3", "name": "Bash",
                "input": {"command": "cargo test report"}}]}}),
        serde_json::json!({"type": "user", "timestamp": at(30), "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t3", "is_error": true,
                "content": "Exit code 101\ntest report::quotes_embedded_quotes ... FAILED"}]}}),
        serde_json::json!({"type": "assistant", "timestamp": at(13), "message": {"role": "assistant",
            "content": [{"type": "text", "text": "Quoting done; one test still fails on embedded quotes."}]}}),
    ];
    let transcripts = tempfile::tempdir().unwrap();
    let transcript = transcripts.path().join("session.jsonl");
    let jsonl: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&transcript, jsonl).unwrap();
    r.write("src/report.rs", "pub fn report() {}\n");
    r.commit_all("Report");
    r.write("src/report.rs", "pub fn report() { csv::quote() }\n");
    r.write("src/csv.rs", "pub fn quote() {}\n");
    let session = "5f0c2a9e-3b1d-4c8e-9a7f-1d2e3f4a5b6c";
    let payload = |event: serde_json::Value| {
        let mut p = serde_json::json!({"session_id": session, "transcript_path": transcript,
            "cwd": root});
        p.as_object_mut()
            .unwrap()
            .extend(event.as_object().unwrap().clone());
        p.to_string()
    };
    hook(
        env!("CARGO_BIN_EXE_handover-context-watch"),
        &root,
        home.path(),
        &payload(
            serde_json::json!({"hook_event_name": "Stop", "stop_hook_active": false,
            "last_assistant_message": "Quoting done; one test still fails on embedded quotes."}),
        ),
    );
    hook(
        env!("CARGO_BIN_EXE_handover-pre-compact"),
        &root,
        home.path(),
        &payload(
            serde_json::json!({"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}),
        ),
    );
    let mut text = handover(&r.path, home.path(), &["boot", "--startup"], None);
    for (before, fixed) in [
        ("ended at «", "2026-11-23T17:02:11Z"),
        ("last activity «", "2026-11-23T17:01:58Z"),
    ] {
        let at = text
            .find(before)
            .unwrap_or_else(|| panic!("no `{before}` in:\n{text}"))
            + before.len();
        text.replace_range(at..at + fixed.len(), fixed);
    }
    fenced(&text)
}

/// A hook executable run as Claude Code runs it: the payload on stdin, `--agent claude`.
fn hook(exe: &str, dir: &Path, home: &Path, payload: &str) {
    use std::io::Write;
    let mut child = std::process::Command::new(exe)
        .args(["--agent", "claude"])
        .current_dir(dir)
        .env("HOME", home)
        .env_remove("HANDOVER_AGENT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{exe}: {out:?}"
    );
}

/// docs/storage.md: every configuration key, from `config::KEYS`.
fn storage_config_table() -> String {
    let mut t = String::from("| Key | Default | Valid values | Meaning |\n|---|---|---|---|\n");
    for k in handover_handoff::config::KEYS {
        let default = if k.default.starts_with('(') {
            k.default.to_string()
        } else {
            format!("`{}`", k.default)
        };
        t.push_str(&format!(
            "| `{}` | {default} | {} | {} |\n",
            k.key, k.valid, k.meaning
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
    let r = TestRepo::with_commit();
    let root = std::fs::canonicalize(&r.path).unwrap();
    std::fs::create_dir_all(root.join(".handover")).unwrap();
    let mut lines = Vec::new();
    for case in cases {
        std::fs::write(root.join(".handover/config.toml"), case).unwrap();
        let e = handover_handoff::config::load(&root)
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

/// docs/verification.md: the message `handover boot` gives for the reason `code`, in a
/// repository changed the way that reason describes. The handoff was written on `main` at a
/// commit shown as `a1b2c3d`, naming `src/lib.rs` as important, with `draft.txt` uncommitted;
/// a later HEAD is shown as `b2c3d4e`.
fn verify_reason(code: &str) -> String {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    r.write("notes.md", "one\n");
    r.commit_all("Notes");
    r.write("draft.txt", "draft\n");
    handover(
        &r.path,
        home.path(),
        &["write", "--from", "-"],
        Some(r#"{"goal": "g", "important_files": [{"path": "src/lib.rs", "why": "the API"}]}"#),
    );
    let recorded = r.head();
    let later = |subject: &str| {
        r.write(&format!("{subject}.txt"), subject);
        git(&r.path, &["add", &format!("{subject}.txt")]);
        git(&r.path, &["commit", "-q", "-m", subject]);
    };
    match code {
        "branch_changed" => git(&r.path, &["checkout", "-q", "-b", "other"]),
        "head_moved" => {
            later("one");
            later("two");
            String::new()
        }
        "head_behind" => git(&r.path, &["reset", "-q", "--keep", "HEAD~1"]),
        "head_diverged" => {
            git(&r.path, &["reset", "-q", "--keep", "HEAD~1"]);
            later("instead");
            String::new()
        }
        "head_unknown" => {
            git(&r.path, &["reset", "-q", "--keep", "HEAD~1"]);
            git(&r.path, &["reflog", "expire", "--expire=now", "--all"]);
            git(&r.path, &["gc", "-q", "--prune=now"])
        }
        "important_file_missing" => {
            std::fs::remove_file(r.path.join("src/lib.rs")).unwrap();
            String::new()
        }
        "working_tree_changed" => {
            r.write("a.txt", "a");
            r.write("b.txt", "b");
            String::new()
        }
        "changed_file_missing" => {
            std::fs::remove_file(r.path.join("draft.txt")).unwrap();
            String::new()
        }
        _ => panic!("docs/verification.md: no scenario for the reason `{code}`"),
    };
    let report: serde_json::Value =
        serde_json::from_str(&handover(&r.path, home.path(), &["boot", "--json"], None)).unwrap();
    let message = report["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|reason| reason["code"] == code)
        .unwrap_or_else(|| panic!("no `{code}` in {report}"))["message"]
        .as_str()
        .unwrap()
        .to_string();
    message
        .replace(&recorded[..7], "a1b2c3d")
        .replace(&r.head()[..7], "b2c3d4e")
}

/// docs/cli.md names every top-level key of every `--json` object (the bullet of each
/// command), checked on the real output: a key added to a shape fails this until it is
/// documented.
#[test]
fn every_json_key_is_documented_in_cli_md() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")).unwrap();
    let bullet = |command: &str| {
        let start = format!("- `{command} --json`:");
        let at = docs
            .find(&start)
            .unwrap_or_else(|| panic!("docs/cli.md has no bullet `{start}`"));
        let rest = &docs[at + start.len()..];
        rest[..rest
            .find("\n- ")
            .or_else(|| rest.find("\n\n"))
            .unwrap_or(rest.len())]
            .to_string()
    };
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let mut runs: Vec<(&str, Vec<&str>)> = vec![
        ("install", vec!["install", "--claude", "--json"]),
        (
            "write",
            vec!["write", "--goal", "g", "--next", "n", "--json"],
        ),
        // One hit: one object.
        ("search", vec!["search", "g", "--json"]),
        ("boot", vec!["boot", "--json"]),
        ("status", vec!["status", "--json"]),
        ("ack", vec!["ack", "--json"]),
        ("done", vec!["done", "--json"]),
        // No handoff any more: the other shapes.
        ("boot", vec!["boot", "--json"]),
        ("ack", vec!["ack", "--json"]),
        ("uninstall", vec!["uninstall", "--claude", "--json"]),
    ];
    let mut missing = Vec::new();
    for (command, args) in runs.drain(..) {
        let out = handover(&r.path, home.path(), &args, None);
        let json: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
        let documented = bullet(command);
        for key in json.as_object().unwrap().keys() {
            if key != "version" && !documented.contains(&format!("`{key}`")) {
                missing.push(format!("{command} --json: `{key}`"));
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/cli.md does not name these keys:\n{}",
        missing.join("\n")
    );
}

/// The README's command table lists every subcommand `handover --help` lists.
#[test]
fn the_readme_lists_every_command() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = &readme[readme.find("| command | what it does |").unwrap()..];
    let table = &table[..table.find("\n\n").unwrap()];
    let home = tempfile::tempdir().unwrap();
    let help = handover(home.path(), home.path(), &["--help"], None);
    let commands = help.split("Commands:\n").nth(1).unwrap();
    for name in commands[..commands.find("\n\n").unwrap()]
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
    {
        assert!(
            table.contains(&format!("`handover {name}`")) || table.contains(&format!("/ `{name}`")),
            "README.md's command table does not list `handover {name}`"
        );
    }
}

/// The configuration example in docs/storage.md is one the tool accepts, and sets what it shows.
#[test]
fn the_config_example_in_storage_md_loads() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/storage.md"))
            .unwrap();
    let after = "Example:\n\n```toml\n";
    let body = &docs[docs.find(after).unwrap() + after.len()..];
    let example = &body[..body.find("```\n").unwrap()];
    let config = handover_handoff::config::parse(example, "docs/storage.md")
        .unwrap_or_else(|e| panic!("{e:#}"));
    assert_ne!(config, handover_handoff::config::Config::default());
}

/// docs/hooks.md: the window by model name, from every client module's table in registry
/// order (rows of one client with the same window and nothing to add share a line).
fn model_windows_table() -> String {
    let tokens = |n: u64| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let mut t = String::from("| Model name starts with | Window (tokens) |\n|---|---|\n");
    for client in handover_clients::ALL {
        if let Some(v) = client.large_variant {
            t.push_str(&format!(
                "| any name ending in `{}` | {} |\n",
                v.suffix,
                tokens(v.window)
            ));
        }
    }
    for client in handover_clients::ALL {
        let rows = client.model_windows;
        let mut i = 0;
        while i < rows.len() {
            let row = rows[i];
            let mut prefixes = vec![format!("`{}`", row.prefix)];
            i += 1;
            while row.source.is_empty()
                && i < rows.len()
                && rows[i].window == row.window
                && rows[i].source.is_empty()
            {
                prefixes.push(format!("`{}`", rows[i].prefix));
                i += 1;
            }
            let source = if row.source.is_empty() {
                String::new()
            } else {
                format!(" ({})", row.source)
            };
            t.push_str(&format!(
                "| {} | {}{source} |\n",
                prefixes.join(", "),
                tokens(row.window)
            ));
        }
    }
    t
}

/// docs/design.md's table of the crates: each package of the architecture test's layers, its
/// folder, the handover crates it uses (the manifest's, which the architecture test holds to
/// the code), and what it is (the manifest's description).
fn design_crates() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut t = String::from("| crate | folder | uses | what it is |\n|---|---|---|---|\n");
    for (dir, name, uses) in super::architecture::LAYERS.iter().rev() {
        let manifest: toml_edit::DocumentMut =
            std::fs::read_to_string(root.join(dir).join("Cargo.toml"))
                .unwrap()
                .parse()
                .unwrap();
        let description = manifest["package"]["description"]
            .as_str()
            .unwrap_or_default();
        let folder = if *dir == "." {
            "`src/main.rs`, `src/cli/`, `src/bin/`".to_string()
        } else {
            format!("`{dir}/`")
        };
        let uses: Vec<String> = uses
            .iter()
            .map(|u| u.trim_start_matches("handover-").to_string())
            .collect();
        let uses = if uses.is_empty() {
            "—".to_string()
        } else {
            uses.join(", ")
        };
        t.push_str(&format!(
            "| `{name}` | {folder} | {uses} | {description} |\n"
        ));
    }
    t
}
