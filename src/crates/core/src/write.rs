//! `handover write`: content in; secrets redacted; checked; stamped with git facts; stored.
//! The CLI parses the input forms (src/cli/write.rs); everything after that is here so the demo
//! and the tests write handoffs exactly as an agent does.

use crate::guard;
use crate::guard::GuardStatus;
use handover_git as git;
use handover_handoff::config::Config;
use handover_handoff::model::{Content, Handoff, MAX_RECORDED_PATHS, SCHEMA_VERSION};
use handover_handoff::store::{LoadOutcome, Store};
use handover_handoff::validate::Findings;
use handover_handoff::{markdown, redaction, sanitize, store, validate};
use handover_redact::Redaction;
use std::path::PathBuf;

pub struct Request {
    pub content: Content,
    pub agent: Option<String>,
    pub session_id: Option<String>,
    /// Skip the privacy guard: the team commits its handoffs.
    pub shared: bool,
    /// The writing session's record: fills `important_files` and `evidence.commands_run`
    /// when the writer left them empty (record::fill).
    pub recorded: Option<handover_record::SessionRecord>,
}

pub struct Outcome {
    pub handoff: Handoff,
    pub redactions: Vec<Redaction>,
    pub findings: Findings,
    /// The guard's state after the write, and whether the exclude file was changed. None with --shared
    /// or outside git.
    pub guard: Option<(GuardStatus, bool)>,
    pub archived: Option<PathBuf>,
    /// Where the replaced handover.md was copied: it held words no handoff records.
    pub kept_markdown: Option<PathBuf>,
    /// The fields filled from the session record.
    pub filled_from_record: Vec<&'static str>,
}

/// Why nothing was written.
#[derive(Debug)]
pub enum Refusal {
    /// The content failed the checks; nothing was written.
    Invalid(Findings, Vec<Redaction>),
    Failed(anyhow::Error),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Invalid(findings, _) => {
                writeln!(f, "the handoff was not written:")?;
                for e in &findings.errors {
                    writeln!(f, "  - {e}")?;
                }
                Ok(())
            }
            Refusal::Failed(e) => write!(f, "{e:#}"),
        }
    }
}

pub fn write(store: &Store, request: Request, config: &Config) -> Result<Outcome, Refusal> {
    update(store, request, config, |_, content| Ok(content))
}

/// One read-modify-write under the store's lock: `build` receives the current handoff (None
/// when there is none, or none intact) and the request's content, and returns the content to
/// write. Two concurrent updates therefore never both start from the same old handoff.
/// Either the whole handoff is written or nothing changes (the guard's exclude-file edit is
/// undone when a later step fails).
pub fn update(
    store: &Store,
    request: Request,
    config: &Config,
    build: impl Fn(Option<&Handoff>, Content) -> anyhow::Result<Content>,
) -> Result<Outcome, Refusal> {
    // Content that fails the checks is refused before the lock is taken, so a refused first
    // write leaves no `.handover/` behind; the checks run again on what is built under the lock.
    prepare(store.load(), &build, request.content.clone(), config)?;
    let txn = store.begin().map_err(Refusal::Failed)?;
    let loaded = txn.load();
    let (current, mut content, mut redactions, mut findings) =
        prepare(loaded, &build, request.content, config)?;
    // The agent name and session id come from flags and the environment, and are written too.
    let mut agent = request.agent;
    let mut session_id = request.session_id;
    for (field, value) in [("agent", &mut agent), ("session_id", &mut session_id)] {
        if let Some(text) = value {
            handover_redact::redact_field(field, text, &mut redactions);
        }
    }
    // After the checks: the record's facts (already redacted and bounded) never make a
    // handoff the writer wrote fail.
    let filled_from_record = request
        .recorded
        .as_ref()
        .map(|r| handover_record::fill::fill(&mut content, r))
        .unwrap_or_default();

    let previous_head = current.and_then(|h| h.git).and_then(|g| g.head);
    let root = store.root();
    // The guard runs before the snapshot, so that the handoff files are already ignored when
    // the snapshot lists untracked files (its block goes into the git directory's
    // info/exclude, which is no file of the working tree).
    // A guard that cannot be put in place is a warning: the handoff matters more.
    let guarded = if request.shared || handover_handoff::worktree::find_root(root).is_none() {
        None
    } else {
        let before = guard::Before::read(root);
        match guard::ensure(root) {
            Ok((status, changed)) => {
                findings.warnings.extend(status.problem.clone());
                Some((status, changed, before))
            }
            Err(e) => {
                findings.warnings.push(format!(
                    "{e:#}: handover.md and .handover/ may not be ignored by git"
                ));
                None
            }
        }
    };
    // Saving must work in any repository git itself supports: when git cannot be read, the
    // handoff is saved without the facts and the next session is told it cannot verify them.
    let mut snapshot = git::snapshot(root).unwrap_or_else(|e| {
        findings.warnings.push(format!(
            "{e:#}: the handoff was saved without git facts, so the next session cannot verify it"
        ));
        None
    });
    // A branch name is text like any other: a token in it must not reach the files.
    if let Some(s) = &mut snapshot {
        for name in [&mut s.branch, &mut s.upstream].into_iter().flatten() {
            *name = sanitize::redacted(name);
        }
    }
    let (mut files_changed, files_changed_base) = match &snapshot {
        // A diff that fails (odd repository states) must not stop the handoff being saved:
        // the handoff is what the next session needs most.
        Some(_) => git::files_changed(root, previous_head.as_deref()).unwrap_or_default(),
        None => (Vec::new(), None),
    };
    let files_changed_omitted = cap(&mut files_changed);

    let mut handoff = Handoff {
        schema_version: SCHEMA_VERSION,
        id: new_id(),
        created_at: handover_base::clock::now_rfc3339(),
        // Redacted above (and reported); here also stripped of control characters.
        agent: agent.as_deref().map(sanitize::redacted),
        session_id: session_id.as_deref().map(sanitize::redacted),
        git: snapshot.map(|mut g| {
            g.dirty_omitted = cap(&mut g.dirty);
            g.untracked_omitted = cap(&mut g.untracked);
            g
        }),
        files_changed,
        files_changed_omitted,
        files_changed_base,
        content,
        markdown_sha256: None,
        checksum: String::new(),
    };
    // The digest of the handover.md written beside it, so that readers know that file
    // unchanged without rendering the handoff again (hand_edits::edited_since).
    let rendered = markdown::render(&handoff);
    handoff.markdown_sha256 = Some(handover_handoff::hand_edits::digest(rendered.as_bytes()));
    store::seal(&mut handoff);

    let report = match txn.save(&handoff, &rendered) {
        Ok(report) => report,
        Err(e) => {
            if let Some((_, true, before)) = &guarded {
                before.restore();
            }
            return Err(Refusal::Failed(e));
        }
    };
    // The next session start checks this handoff against HEAD (the quick check). Running it
    // now leaves HEAD's entries for the listed paths remembered in the git directory
    // (`git::head_entries`), so that start reads no tree while HEAD has not moved; its verdict
    // is the next start's to give.
    if handoff.git.is_some() {
        let _ = handover_verify::verify_quick(root, &handoff);
    }
    Ok(Outcome {
        handoff,
        redactions,
        findings,
        guard: guarded.map(|(status, changed, _)| (status, changed)),
        archived: report.archived,
        kept_markdown: report.kept_markdown,
        filled_from_record,
    })
}

/// The content `build` makes from the loaded handoff, redacted and checked: the current
/// handoff, the content, the redactions and the findings, or the refusal.
fn prepare(
    loaded: LoadOutcome,
    build: &impl Fn(Option<&Handoff>, Content) -> anyhow::Result<Content>,
    given: Content,
    config: &Config,
) -> Result<(Option<Handoff>, Content, Vec<Redaction>, Findings), Refusal> {
    let current = match loaded {
        LoadOutcome::Loaded(l) => Some(l.handoff),
        _ => None,
    };
    let mut content = build(current.as_ref(), given).map_err(Refusal::Failed)?;
    // Redact first: nothing below, not even an error message, may echo a secret.
    let redactions = redaction::redact(&mut content);
    let findings = validate::check(&content, config);
    if !findings.errors.is_empty() {
        return Err(Refusal::Invalid(findings, redactions));
    }
    // After the checks, which refuse terminal escapes as pasted output: what remains (a CR, a
    // bidi override, a stray control) is dropped, as it is again on load.
    sanitize::content(&mut content);
    Ok((current, content, redactions, findings))
}

/// Keeps the first [`MAX_RECORDED_PATHS`] entries of a sorted list; returns how many it dropped.
fn cap<T>(list: &mut Vec<T>) -> usize {
    let omitted = list.len().saturating_sub(MAX_RECORDED_PATHS);
    list.truncate(MAX_RECORDED_PATHS);
    omitted
}

/// Sortable and unique enough across processes: the time to the nanosecond and the pid.
fn new_id() -> String {
    format!(
        "{}-{:x}",
        handover_base::clock::now_compact(),
        std::process::id()
    )
}
