//! `handover demo`: a two-minute tour for a newcomer, no agent needed. Everything happens in a
//! temporary git repository that is deleted afterwards (unless --keep).

use super::output::stdout;
use super::DemoArgs;
use anyhow::Context as _;
use handover_core::context::{self, Startup};
use handover_core::write;
use handover_handoff::config;
use handover_handoff::model::{Assumption, Content, Decision, Evidence, ImportantFile, Status};
use handover_handoff::store::Store;
use handover_verify as verify;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    // Only inside an existing temporary directory: `TMPDIR=/nonexistent` must not make us
    // create directories from the file system root down.
    let temp_root = std::env::temp_dir();
    if !temp_root.is_absolute() || !temp_root.is_dir() {
        anyhow::bail!(
            "the temporary directory {} does not exist (is TMPDIR set to a directory that is \
             missing?); set TMPDIR to an existing directory, or unset it, and run the demo again",
            temp_root.display()
        );
    }
    let dir = temp_root.join(format!(
        "handover-demo-{}-{}",
        std::process::id(),
        handover_base::clock::unix_now().1
    ));
    std::fs::create_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let temp = TempRepo {
        dir,
        keep: args.keep,
    };
    let result = tour(&temp.dir);
    if args.keep {
        writeln!(
            stdout(),
            "\nKept the demo repository: {}",
            temp.dir.display()
        )?;
    } else {
        drop(temp);
        writeln!(
            stdout(),
            "\nRemoved the demo repository. Next: `handover install` in your own repository."
        )?;
    }
    result.map(|_| ExitCode::SUCCESS)
}

/// The demo's repository, removed when dropped (unless --keep): also when the tour stops on an
/// error or on output that cannot be written (a closed pipe unwinds through here).
struct TempRepo {
    dir: PathBuf,
    keep: bool,
}

impl Drop for TempRepo {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn tour(dir: &Path) -> anyhow::Result<()> {
    let command = handover_base::handover_command::handover_command();
    step(1, "A repository with some unfinished work")?;
    let mut init = git2::RepositoryInitOptions::new();
    init.initial_head("main");
    let repo =
        git2::Repository::init_opts(dir, &init).context("cannot create the demo git repository")?;
    write_file(
        dir,
        "src/report.rs",
        "pub fn report() -> String { String::new() }\n",
    )?;
    write_file(
        dir,
        "docs/spec.md",
        "# Spec\nThe report command exports CSV with a header row.\n",
    )?;
    commit(&repo, "Start the report command")?;
    write_file(
        dir,
        "src/report.rs",
        "pub fn report() -> String { \"name,total\\n\".into() }\n",
    )?;
    writeln!(
        stdout(),
        "  {}: one commit, one uncommitted change in src/report.rs",
        dir.display()
    )?;

    step(
        2,
        "The agent writes a handoff before its context runs out (`handover write`)",
    )?;
    let store = Store::at(dir);
    let outcome = write::write(
        &store,
        write::Request {
            content: sample_content(),
            agent: Some("demo".into()),
            session_id: Some("demo-session-1".into()),
            shared: false,
            recorded: None,
        },
        &config::Config::default(),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    writeln!(
        stdout(),
        "  wrote handoff {} (~{} tokens)",
        outcome.handoff.id,
        outcome.findings.estimated_tokens
    )?;
    if !outcome.redactions.is_empty() {
        writeln!(
            stdout(),
            "  redacted {} secret(s) the agent pasted by mistake:",
            outcome.redactions.len()
        )?;
        for r in &outcome.redactions {
            writeln!(stdout(), "    {} ({})", r.field, r.kind)?;
        }
    }
    for path in [
        ".git/info/exclude",
        "handover.md",
        ".handover/state.json",
        ".handover/journal.jsonl",
    ] {
        let size = std::fs::metadata(dir.join(path))
            .map(|m| m.len())
            .unwrap_or(0);
        writeln!(stdout(), "  {path:<26} {size:>6} bytes")?;
    }
    writeln!(stdout(), "\n  handover.md begins:")?;
    let md = std::fs::read_to_string(store.markdown_path()).unwrap_or_default();
    for line in md.lines().take(18) {
        writeln!(stdout(), "  | {line}")?;
    }

    step(
        3,
        "The next session starts: the SessionStart hook injects this startup context",
    )?;
    let handoff = outcome.handoff;
    let quick = verify::verify_quick(dir, &handoff);
    let startup = context::startup_context(&Startup {
        handoff: &handoff,
        verification: &quick,
        recovered_from: None,
        after_compaction: false,
        budget_chars: config::Config::default().startup_budget_chars,
        command: &command,
    });
    for line in startup.lines() {
        writeln!(stdout(), "  > {line}")?;
    }
    writeln!(
        stdout(),
        "  ({} characters; the budget is 1,500)",
        startup.chars().count()
    )?;

    step(
        4,
        "Someone commits in between: the handoff is verified, not trusted",
    )?;
    commit(&repo, "Write the CSV header")?;
    show_verdict(dir, &handoff)?;

    step(5, "And on another branch the handoff no longer applies")?;
    let head = repo.head()?.peel_to_commit()?;
    repo.branch("experiment", &head, false)?;
    repo.set_head("refs/heads/experiment")?;
    show_verdict(dir, &handoff)?;

    step(
        6,
        "When the task is finished, `handover done` archives the handoff",
    )?;
    if let Some(finished) = store.finish()? {
        let archived = &finished.archived;
        writeln!(
            stdout(),
            "  archived to {}",
            archived.strip_prefix(dir).unwrap_or(archived).display()
        )?;
    }
    Ok(())
}

fn show_verdict(dir: &Path, handoff: &handover_handoff::model::Handoff) -> std::io::Result<()> {
    let v = verify::verify(dir, handoff);
    writeln!(stdout(), "  verdict: {}", v.verdict.as_str())?;
    for r in &v.reasons {
        writeln!(stdout(), "    - {}", r.message)?;
        for d in r.details.iter().take(3) {
            writeln!(stdout(), "        {d}")?;
        }
    }
    Ok(())
}

fn step(n: u32, title: &str) -> std::io::Result<()> {
    writeln!(stdout(), "\n== {n}. {title}")
}

fn write_file(dir: &Path, rel: &str, text: &str) -> anyhow::Result<PathBuf> {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
    Ok(p)
}

fn commit(repo: &git2::Repository, message: &str) -> anyhow::Result<()> {
    let mut index = repo.index()?;
    index.add_all(["src", "docs"], git2::IndexAddOption::DEFAULT, None)?;
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let sig = git2::Signature::now("handover demo", "demo@example.invalid")?;
    let parents: Vec<git2::Commit> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parent_refs)?;
    Ok(())
}

fn sample_content() -> Content {
    Content {
        goal: "Add CSV export to the report command".into(),
        narrative: Some("The report command builds rows already; CSV output is half done. The header row is written, quoting is not. Tests for quoting are missing.".into()),
        spec_ref: Some("docs/spec.md".into()),
        status: Status {
            completed: vec!["Row builder returns typed rows".into()],
            in_progress: vec!["CSV writer: header done, quoting of commas and quotes not yet".into()],
            pending: vec!["Tests for quoting".into(), "Document --format csv".into()],
        },
        decisions: vec![Decision {
            what: "Write CSV by hand, no csv crate".into(),
            why: "two columns, and the binary must stay small".into(),
            alternatives: vec!["csv crate".into()],
            reversible: Some(true),
            deferred: false,
        }],
        assumptions: vec![Assumption {
            assumption: "Totals never contain commas".into(),
            why: "they are integers".into(),
            impact_if_wrong: "quoting must cover totals too".into(),
        }],
        blockers: vec![],
        warnings: vec!["The API key in .env is real; do not commit .env".into()],
        important_files: vec![ImportantFile { path: "src/report.rs".into(), why: "the writer".into() }],
        evidence: Evidence {
            // A secret pasted by mistake: the demo shows it being redacted.
            commands_run: vec!["cargo test report (3 passed)".into(), "curl -H 'Authorization: Bearer sk-demo-7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5J' http://localhost:8080/report".into()],
            measurements: Default::default(),
            artifacts: vec![],
        },
        next_action: Some("Quote fields containing commas or quotes in src/report.rs, then add tests".into()),
        stop_conditions: vec!["The spec and the code disagree on the column order".into()],
        ..Content::default()
    }
}
