//! What a new session is shown at its start: the handoff's startup context (verified cheaply),
//! with the "since the handoff" part from the last session's record, or that record alone when
//! there is no handoff and its work looks unfinished. One composition for the SessionStart hook,
//! the context watch's fallbacks and `handover boot --startup`, so the preview is exactly what
//! the hook says. The texts themselves are in `context` and `record::text`.

use crate::context::{self, Startup};
use handover_handoff::config::Config;
use handover_handoff::model::Verdict;
use handover_handoff::store::{LoadOutcome, Store};
use handover_record::text::{self as record_text, ShowRecord};
use handover_record::{files as records, SessionRecord};
use handover_verify::git::LazyRepo;

/// The most of the startup budget the "since the handoff" part may take.
const SINCE_HANDOFF_SHARE: usize = 3;

pub struct Delivery {
    pub text: String,
    /// None when the store is damaged beyond recovery (journaled as `unrecoverable`), refused
    /// (see `handover_handoff::safe_fs`; nothing is journaled in a refused store), or when only
    /// the last session's record is delivered (`record_only`).
    pub verdict: Option<Verdict>,
    pub handoff_id: Option<String>,
    /// No handoff: the text is the last session's record alone.
    pub record_only: bool,
}

impl Delivery {
    /// The verdict as journaled: a verdict, `unrecoverable` or `record_only`.
    pub fn verdict_name(&self) -> &'static str {
        match (self.verdict, self.record_only) {
            (Some(v), _) => v.as_str(),
            (None, true) => "record_only",
            (None, false) => "unrecoverable",
        }
    }
}

/// None when there is nothing to deliver: no handoff, and no record of the last session worth
/// showing.
pub fn build(store: &Store, command: &str, after_compaction: bool) -> Option<Delivery> {
    build_for(store, &|| command.to_string(), after_compaction, None)
}

/// `build` for a session that may have a record of its own (SessionStart `resume`): that
/// record is never presented as the last session's. `command` (how the agent runs handover)
/// is asked for only when there is something to say: finding it may walk the PATH.
pub fn build_for(
    store: &Store,
    command: &dyn Fn() -> String,
    after_compaction: bool,
    session_id: Option<&str>,
) -> Option<Delivery> {
    let root = store.root();
    let config = handover_handoff::config::load(root).unwrap_or_default();
    // After a compaction the session continues: the last record is its own. Only this working
    // tree's own records are ever shown (record::provenance): a record that came with a clone
    // or is dated in the future is not the last session's.
    let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
    // Brought up to date first when its transcript grew since (a Claude Code turn written
    // after Stop, in a session killed right after): a `stat`, and a read only then.
    let last = (!after_compaction && config.records_startup != ShowRecord::Never)
        .then(|| records::latest(store, session_id, now_ms))
        .flatten()
        .map(|r| handover_record::catch_up::transcript_grew(store, r, now_ms));
    // One repository for every git question of this start (verification, the record's files),
    // opened only if one of them needs it.
    let repo = LazyRepo::new(root);
    let mut delivery = handoff_delivery(
        store,
        &repo,
        command,
        after_compaction,
        &config,
        last.as_ref(),
    );
    if delivery.is_none() {
        delivery = record_only(&repo, command, &config, last.as_ref()?);
    }
    delivery
}

/// Which of the record's files are uncommitted now, in the shared repository.
fn now_for(repo: &LazyRepo, record: &SessionRecord) -> record_text::Now {
    match repo.get() {
        Ok(Some(repo)) => handover_record::still_uncommitted_in(repo, record),
        _ => record_text::Now::default(),
    }
}

/// The last session's record alone, when there is no handoff: shown when its work looks
/// unfinished (or always, by configuration).
fn record_only(
    repo: &LazyRepo,
    command: &dyn Fn() -> String,
    config: &Config,
    last: &SessionRecord,
) -> Option<Delivery> {
    let now = now_for(repo, last);
    let show = match config.records_startup {
        ShowRecord::Always => true,
        ShowRecord::Unfinished => now.unfinished(last),
        ShowRecord::Never => false,
    };
    let text = record_text::without_handoff(last, &now, &command(), config.startup_budget_chars);
    (show && !text.is_empty()).then_some(Delivery {
        text,
        verdict: None,
        handoff_id: None,
        record_only: true,
    })
}

/// The handoff's startup context, with the "since the handoff" part when the last record is
/// newer than the handoff and holds work the handoff does not know about.
fn handoff_delivery(
    store: &Store,
    repo: &LazyRepo,
    command: &dyn Fn() -> String,
    after_compaction: bool,
    config: &Config,
    last: Option<&SessionRecord>,
) -> Option<Delivery> {
    let handoff_ms = std::fs::metadata(store.state_path())
        .and_then(|m| m.modified())
        .map(handover_base::clock::millis)
        .unwrap_or(0);
    let since = last
        // Active after the handoff, not merely written after it (a late SessionEnd).
        .filter(|r| r.work_since_handoff && r.activity_ms() > handoff_ms)
        .map(|r| {
            let now = now_for(repo, r);
            record_text::since_handoff(r, &now, config.startup_budget_chars / SINCE_HANDOFF_SHARE)
        })
        .filter(|s| !s.is_empty());
    let budget = config
        .startup_budget_chars
        .saturating_sub(since.as_ref().map_or(0, |s| s.chars().count() + 1));
    let mut delivery = handoff_only(store, repo, command, after_compaction, budget)?;
    if let Some(s) = since {
        delivery.text.push('\n');
        delivery.text.push_str(&s);
    }
    Some(delivery)
}

fn handoff_only(
    store: &Store,
    repo: &LazyRepo,
    command: &dyn Fn() -> String,
    after_compaction: bool,
    budget: usize,
) -> Option<Delivery> {
    let loaded = store.load();
    if let Some(delivery) = fetched_instead(store, repo, command, after_compaction, budget, &loaded)
    {
        return Some(delivery);
    }
    if matches!(loaded, LoadOutcome::Missing) {
        return None;
    }
    let command = &command();
    match loaded {
        LoadOutcome::Missing => None,
        LoadOutcome::Refused(refused) => Some(Delivery {
            text: context::refused_context(&refused.to_string(), command),
            verdict: None,
            handoff_id: None,
            record_only: false,
        }),
        LoadOutcome::Unrecoverable { problem } => Some(Delivery {
            text: context::unrecoverable_context(&problem, command),
            verdict: None,
            handoff_id: None,
            record_only: false,
        }),
        LoadOutcome::Loaded(loaded) => {
            // Only branch, HEAD and the referenced files: the same cost on any repository size.
            let verification = handover_verify::verify::verify_quick_in(repo, &loaded.handoff);
            let recovered = loaded.recovered_note();
            let mut text = context::startup_context(&Startup {
                handoff: &loaded.handoff,
                verification: &verification,
                recovered_from: recovered.as_deref(),
                after_compaction,
                budget_chars: budget,
                command,
            });
            if handover_handoff::hand_edits::edited_since(&store.markdown_path(), &loaded.handoff) {
                text.push('\n');
                text.push_str(&handover_handoff::hand_edits::edited_notice(command));
            }
            Some(Delivery {
                text,
                verdict: Some(verification.verdict),
                handoff_id: Some(loaded.handoff.id.clone()).filter(|id| !id.is_empty()),
                record_only: false,
            })
        }
    }
}

/// A handoff fetched from a remote for the current branch (`handover pull`, or `git fetch`
/// after `handover share`), when there is no local handoff or the fetched one is newer:
/// verified against this checkout like a local one, and labelled as coming from another
/// machine. Costs a `stat` or two when nothing was fetched (`travel::fetched::for_startup`).
fn fetched_instead(
    store: &Store,
    repo: &LazyRepo,
    command: &dyn Fn() -> String,
    after_compaction: bool,
    budget: usize,
    loaded: &LoadOutcome,
) -> Option<Delivery> {
    let local = match loaded {
        LoadOutcome::Missing => None,
        LoadOutcome::Loaded(l) => Some(&l.handoff),
        // A store handover refuses, or one it cannot read, is said as such first.
        LoadOutcome::Refused(_) | LoadOutcome::Unrecoverable { .. } => return None,
    };
    let root = store.root();
    let fetched = crate::travel::fetched::for_startup(root, local)?;
    let handoff = crate::travel::fetched::as_checked_here(root, &fetched.handoff);
    let verification = handover_verify::verify::verify_quick_in(repo, &handoff);
    let text = context::fetched_startup_context(
        &Startup {
            handoff: &handoff,
            verification: &verification,
            recovered_from: fetched.note.as_deref(),
            after_compaction,
            budget_chars: budget,
            command: &command(),
        },
        &fetched.label(),
    );
    Some(Delivery {
        text,
        verdict: Some(verification.verdict),
        handoff_id: Some(fetched.handoff.id.clone()).filter(|id| !id.is_empty()),
        record_only: false,
    })
}
