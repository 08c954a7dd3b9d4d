//! `handover status`: one screen of health: the handoff, its verdict, the privacy guard, the
//! deliveries and acknowledgements; then the installer's section: hooks per agent and scope,
//! Codex flags and trust, the startup section in AGENTS.md / CLAUDE.md.
//!
//! The facts are gathered once, here, into a [`StatusReport`] (the problems are derived from
//! them as they are gathered); `--json` serialises it and `render` draws the screen from it, so
//! the two cannot disagree.

mod render;

use super::exit::Exit;
use super::install::AgentsStatus;
use super::output::stdout;
use super::StatusArgs;
use handover_core::guard::{self, GuardStatus};
use handover_handoff::model::{Reason, Verdict};
use handover_handoff::sanitize::one_line;
use handover_handoff::store::{Event, LoadOutcome, Source, Store};
use handover_handoff::{config, hand_edits};
use handover_verify as verify;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &StatusArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let report = StatusReport::gather(&Store::discover(dir), args.check_trust);
    if args.json {
        writeln!(stdout(), "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(stdout(), "{}", report.render())?;
    }
    Ok(if args.check && !report.problems.is_empty() {
        Exit::AttentionOrDrifted.into()
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(Serialize)]
struct StatusReport {
    /// The JSON shape's version (docs/cli.md).
    version: u32,
    /// Lossy: a path that is not UTF-8 must not stop the report (JSON strings are UTF-8).
    root: String,
    handoff: HandoffHealth,
    /// Handoffs fetched for the current branch (`handover pull`, or `git fetch` after
    /// `handover share`) that are not the local one: `handover pull --adopt` makes one local.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fetched: Vec<FetchedSummary>,
    /// Why `.handover/config.toml` is not in force (its defaults are used meanwhile).
    #[serde(skip_serializing_if = "Option::is_none")]
    config_problem: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasons: Option<Vec<Reason>>,
    guard: GuardHealth,
    /// The session records the hooks keep, newest first (docs/format.md, "Session records").
    records: Vec<RecordSummary>,
    /// The installer's section (hooks per agent and scope, instruction files).
    agents: AgentsStatus,
    /// The repository's files that wire handover that git sees as new or changed: install's files waiting to be committed. Not a problem: said so they get
    /// committed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    uncommitted_wiring: Vec<String>,
    problems: Vec<String>,
}

/// `present` false: no handoff. Present with no `id`: the store holds nothing intact (damaged
/// beyond recovery). Present with an `id`: loaded, from state.json or a recovered copy.
#[derive(Serialize, Default)]
struct HandoffHealth {
    present: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    valid: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    goal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
    /// Why state.json was not usable, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
    /// Shown to the reader when the handoff came from a copy (see `Loaded::recovered_note`).
    #[serde(skip)]
    recovered_note: Option<String>,
    /// Not written in this working tree (verification's `foreign` reason).
    #[serde(skip_serializing_if = "Option::is_none")]
    foreign: Option<bool>,
    /// `.handover/` is not something handover will use (a link, another user's, ...): the
    /// refusal, and the path with what it is, for the fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
    #[serde(skip)]
    refused_fix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deliveries: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    acks: Option<usize>,
    /// handover.md holds edits the handoff does not record.
    #[serde(skip_serializing_if = "Option::is_none")]
    handover_md_edited: Option<bool>,
}

/// A fetched handoff of the current branch, in short (values from the remote: quoted when shown).
#[derive(Serialize)]
struct FetchedSummary {
    remote: String,
    id: String,
    machine: String,
    pushed_at: String,
    goal: String,
    /// Uncommitted work travelled with it (`push --with-changes`).
    with_changes: bool,
}

impl FetchedSummary {
    /// The current branch's fetched handoffs other than `local_id`, by file reads first (none
    /// fetched: nothing opened).
    fn gather(root: &Path, local_id: Option<&str>) -> Vec<FetchedSummary> {
        let Some(branch) = handover_core::travel::fetched::current_branch(root) else {
            return Vec::new();
        };
        handover_core::travel::fetched::all_for(root, &branch)
            .into_iter()
            .flatten()
            .filter(|f| Some(f.handoff.id.as_str()) != local_id)
            .map(|f| FetchedSummary {
                remote: f.remote,
                id: f.handoff.id,
                machine: f.origin.machine,
                pushed_at: f.origin.pushed_at,
                goal: f.handoff.content.goal,
                with_changes: f.changes.is_some(),
            })
            .collect()
    }
}

/// One session record, in short.
#[derive(Serialize)]
struct RecordSummary {
    session_id: String,
    agent: String,
    updated: String,
    ended: Option<handover_record::Ending>,
    files_edited: Vec<String>,
    last_failure: Option<handover_record::Command>,
    last_test: Option<handover_record::Command>,
    /// Why it is not this working tree's own (record::provenance); empty when it is.
    foreign: Vec<handover_record::provenance::Foreign>,
    /// How it ended, in words (the screen's line).
    #[serde(skip)]
    ending: String,
}

impl RecordSummary {
    fn of(listed: handover_record::files::Listed) -> RecordSummary {
        let r = listed.record;
        RecordSummary {
            foreign: listed.foreign,
            ending: handover_record::text::ending(&r),
            session_id: r.session_id,
            agent: r.agent.to_string(),
            updated: r.updated,
            ended: r.ended,
            files_edited: r.files_edited,
            last_failure: r.last_failure,
            last_test: r.last_test,
        }
    }
}

#[derive(Serialize)]
struct GuardHealth {
    present: bool,
    tracked: Vec<String>,
    /// Why the handoff files are not private although the guard was tried (a damaged block, a
    /// later `!/handover.md` rule).
    problem: Option<String>,
    /// Whether `root` is a git repository at all (no guard is needed outside one).
    #[serde(skip)]
    in_git: bool,
}

impl StatusReport {
    fn gather(store: &Store, check_trust: bool) -> StatusReport {
        let root = store.root();
        let (handoff, verification) = handoff_health(store);
        let GuardStatus {
            present,
            tracked,
            problem,
        } = guard::status(root);
        let agents = if check_trust {
            super::install::status_section_live(root)
        } else {
            super::install::status_section(root)
        };
        let fetched = FetchedSummary::gather(root, handoff.id.as_deref());
        let mut report = StatusReport {
            version: super::output::JSON_VERSION,
            root: root.to_string_lossy().into_owned(),
            handoff,
            fetched,
            config_problem: config::load(root).err().map(|e| format!("{e:#}")),
            verdict: verification.as_ref().map(|v| v.verdict),
            reasons: verification.map(|v| v.reasons),
            guard: GuardHealth {
                present,
                tracked,
                problem,
                in_git: handover_handoff::worktree::find_root(root).is_some(),
            },
            records: handover_record::files::judged(
                store,
                handover_base::clock::millis(std::time::SystemTime::now()),
            )
            .into_iter()
            .map(RecordSummary::of)
            .collect(),
            uncommitted_wiring: Vec::new(),
            agents,
            problems: Vec::new(),
        };
        let wiring = report.agents.wiring_files(root);
        report.uncommitted_wiring = super::install::uncommitted(root, &wiring);
        report.problems = report.own_problems();
        report.problems.extend(report.agents.problems());
        report
    }

    /// What needs fixing in the handoff and the guard, each with how to fix it.
    fn own_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let h = &self.handoff;
        if !self.guard.in_git {
            problems.push(format!(
                "{} is not in a git repository: handover verifies handoffs against git and keeps them private through git, so run it inside your repository (`cd` there, or `handover -C <repository> status`), or `git init` here first",
                self.root
            ));
        }
        if let Some(fix) = &h.refused_fix {
            problems.push(fix.clone());
        }
        if h.foreign == Some(true) {
            problems.push("the handoff was not written here (see the verdict): read it as someone else's notes; `handover done` archives it, `handover write --fresh ...` replaces it".into());
        }
        if h.present && h.valid == Some(false) && h.id.is_none() && h.refused.is_none() {
            problems.push(format!(
                "the handoff is damaged ({}): rewrite it with `handover write --from handover.md` if handover.md is intact, or `handover write --fresh ...`",
                h.problem.as_deref().unwrap_or("unreadable")
            ));
        }
        if h.recovered_note.is_some() {
            problems.push("state.json is damaged: run `handover write --from handover.md` (or write a new handoff) to repair it".into());
        }
        if h.handover_md_edited == Some(true) {
            problems.push(hand_edits::edited_notice(
                &handover_base::handover_command::handover_command(),
            ));
        }
        if let Some(problem) = &self.config_problem {
            problems.push(problem.clone());
        }
        if h.deliveries.unwrap_or(0) > 0 && h.acks == Some(0) {
            problems.push("the handoff was delivered but never acknowledged: check that the agent sees the startup context (`handover boot --startup` shows it)".into());
        }
        if let Some(problem) = &self.guard.problem {
            problems.push(problem.clone());
        } else if !self.guard.present && self.guard.in_git {
            problems.push("handoff files are not ignored by git: run `handover install` (or any `handover write`) to add them to the repository's info/exclude, or use --shared on purpose".into());
        }
        if !self.guard.tracked.is_empty() {
            problems.push(format!(
                "git tracks {}: `git rm --cached {}` makes them private again (they stay on disk)",
                self.guard.tracked.join(", "),
                self.guard.tracked.join(" ")
            ));
        }
        if matches!(&self.agents, AgentsStatus::Checked(r) if !r.wired_anywhere()) {
            problems.push(format!("not installed for any agent: no hooks deliver the handoff to {}; run `handover install` in this repository, `handover install --scope user` for every repository, or install the plugin (docs/install.md)", super::every_client("or")));
        }
        problems
    }
}

/// The handoff's part of the report, and its full verification when there is one.
fn handoff_health(store: &Store) -> (HandoffHealth, Option<handover_handoff::model::Verification>) {
    match store.load() {
        LoadOutcome::Missing => (HandoffHealth::default(), None),
        LoadOutcome::Refused(refused) => (
            HandoffHealth {
                valid: Some(false),
                refused_fix: Some(format!(
                    "{} is {}: handover neither reads nor writes there until it is a plain directory of yours with plain files in it (remove what you did not create; `handover write` starts afresh)",
                    refused.path.display(),
                    refused.what
                )),
                refused: Some(refused.to_string()),
                ..HandoffHealth::default()
            },
            None,
        ),
        LoadOutcome::Unrecoverable { problem } => (
            HandoffHealth {
                present: true,
                valid: Some(false),
                problem: Some(problem),
                ..HandoffHealth::default()
            },
            None,
        ),
        LoadOutcome::Loaded(l) => {
            let verification = verify::verify(store.root(), &l.handoff);
            let (deliveries, acks) = deliveries(store, &l.handoff.id);
            let edited = hand_edits::edited_since(&store.markdown_path(), &l.handoff);
            let foreign = verification
                .reasons
                .iter()
                .any(|r| r.code == verify::code::FOREIGN);
            let health = HandoffHealth {
                present: true,
                foreign: Some(foreign),
                valid: Some(l.source == Source::State),
                recovered_note: l.recovered_note(),
                id: Some(l.handoff.id),
                created_at: Some(l.handoff.created_at),
                goal: Some(l.handoff.content.goal),
                source: Some(l.source.as_str()),
                problem: l.problem,
                deliveries: Some(deliveries),
                acks: Some(acks),
                handover_md_edited: Some(edited),
                ..HandoffHealth::default()
            };
            (health, Some(verification))
        }
    }
}

/// How many times this handoff was delivered by a hook and acknowledged with `handover ack`.
///
/// Read from the journal's end backwards, down to the line that wrote this handoff: every id is
/// new when it is written, so nothing about it is older, and the history before it (every
/// earlier handoff, each `write` line a whole state) is not read. Only lines that name the id
/// are parsed.
fn deliveries(store: &Store, handoff_id: &str) -> (usize, usize) {
    let (mut delivered, mut acked) = (0, 0);
    // The id as the journal writes it, a JSON string.
    let Ok(needle) = serde_json::to_vec(handoff_id) else {
        return (0, 0);
    };
    store.journal_newest_first(|line| {
        if !line.windows(needle.len()).any(|w| w == needle.as_slice()) {
            return true;
        }
        let Ok(e) = serde_json::from_slice::<Value>(line) else {
            return true;
        };
        let for_this = e.get("handoff_id").and_then(Value::as_str) == Some(handoff_id);
        match Event::of(&e) {
            Some(Event::Delivered) if for_this => delivered += 1,
            Some(Event::Ack) if for_this => acked += 1,
            Some(Event::Write) if e.get("id").and_then(Value::as_str) == Some(handoff_id) => {
                return false
            }
            _ => {}
        }
        true
    });
    (delivered, acked)
}
