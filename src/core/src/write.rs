//! `handover write`: content in; secrets redacted; checked; stamped with git facts; stored.
//! The CLI parses the input forms (src/cli/write.rs); everything after that is here so the demo
//! and the tests write handoffs exactly as an agent does.

use crate::config::Config;
use crate::guard::GuardStatus;
use crate::model::{Content, Handoff, SCHEMA_VERSION};
use crate::redact::Redaction;
use crate::store::{LoadOutcome, Store};
use crate::validate::Findings;
use crate::{git, guard, markdown, redact, sanitize, store, validate};
use std::path::PathBuf;

pub struct Request {
    pub content: Content,
    pub agent: Option<String>,
    pub session_id: Option<String>,
    /// Skip the .gitignore guard: the team commits its handoffs.
    pub shared: bool,
}

pub struct Outcome {
    pub handoff: Handoff,
    pub redactions: Vec<Redaction>,
    pub findings: Findings,
    /// The guard's state after the write, and whether .gitignore was changed. None with --shared
    /// or outside git.
    pub guard: Option<(GuardStatus, bool)>,
    pub archived: Option<PathBuf>,
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
    let mut content = request.content;
    // Redact first: nothing below, not even an error message, may echo a secret.
    let redactions = redact::redact(&mut content);
    let findings = validate::check(&content, config);
    if !findings.errors.is_empty() {
        return Err(Refusal::Invalid(findings, redactions));
    }
    // After the checks, which refuse terminal escapes as pasted output: what remains (a CR, a
    // bidi override, a stray control) is dropped, as it is again on load.
    sanitize::content(&mut content);

    let previous_head = match store.load() {
        LoadOutcome::Loaded(l) => l.handoff.git.and_then(|g| g.head),
        _ => None,
    };
    let root = store.root();
    // The guard runs before the snapshot: the .gitignore change it makes must be part of what
    // the snapshot records, or the very next boot would report `.gitignore` as drift.
    let guard = if request.shared || git::find_root(root).is_none() {
        None
    } else {
        Some(guard::ensure(root).map_err(Refusal::Failed)?)
    };
    let mut snapshot = git::snapshot(root).map_err(Refusal::Failed)?;
    // A branch name is text like any other: a token in it must not reach the files.
    if let Some(s) = &mut snapshot {
        for name in [&mut s.branch, &mut s.upstream].into_iter().flatten() {
            *name = sanitize::redacted(name);
        }
    }
    let (files_changed, files_changed_base) = match &snapshot {
        // A diff that fails (odd repository states) must not stop the handoff being saved:
        // the handoff is what the next session needs most.
        Some(_) => git::files_changed(root, previous_head.as_deref()).unwrap_or_default(),
        None => (Vec::new(), None),
    };

    let mut handoff = Handoff {
        schema_version: SCHEMA_VERSION,
        id: new_id(),
        created_at: handover_base::clock::now_rfc3339(),
        agent: request.agent.as_deref().map(sanitize::redacted),
        session_id: request.session_id.as_deref().map(sanitize::redacted),
        git: snapshot.clone(),
        files_changed,
        files_changed_base,
        content,
        checksum: String::new(),
    };
    store::seal(&mut handoff);

    let report = store
        .save(&handoff, &markdown::render(&handoff))
        .map_err(Refusal::Failed)?;
    Ok(Outcome {
        handoff,
        redactions,
        findings,
        guard,
        archived: report.archived,
    })
}

/// Sortable and unique enough across processes: the time to the nanosecond and the pid.
fn new_id() -> String {
    format!(
        "{}-{:x}",
        handover_base::clock::now_compact(),
        std::process::id()
    )
}
