//! One thing the history holds — a handoff or a session record — with where it came from and
//! its text fields by name: what `log` lists, `show` prints and `search` searches.

use handover_handoff::model::Handoff;
use handover_handoff::sanitize;
use handover_record::SessionRecord;

/// A handoff or a session record read back from the history.
#[derive(Clone, Debug)]
pub struct Item {
    /// How `handover show` names it: a handoff's id, a record's file key (its session id as
    /// the client gave it, made file-safe), a fetched record's `<key>@<remote>`. As read: show
    /// it with `sanitize::token`, which quotes anything not shaped like an id of ours.
    pub id: String,
    pub origin: Origin,
    /// Written by handover in this working tree. False for fetched items, for records whose
    /// provenance says otherwise, and for handoffs recorded in another working tree (a clone's,
    /// a copy's) or adopted from another machine: their text is labelled wherever it is shown.
    pub written_here: bool,
    /// Why it is not this working tree's own, in our words (empty when it is).
    pub foreign: Vec<String>,
    /// When it was written (a handoff) or last active (a record), in milliseconds since the
    /// epoch; never later than the file's own time for a local file, so a forged date cannot
    /// keep it "newest" forever. 0 when unknown.
    pub time_ms: u64,
    /// The time the item claims, when it claims one later than `time_ms` allows (a forged or
    /// future date): said, never sorted by.
    pub claimed_time: Option<String>,
    /// The branch it was written on (a handoff's recorded branch, a record's last one, a fetched
    /// ref's branch), as stored (redacted).
    pub branch: Option<String>,
    /// The agent that wrote it, as stored.
    pub agent: Option<String>,
    /// Every text, by field name, one entry per list element: what search looks in. Controls
    /// are stripped (the loaders do it); text not written here is redacted again as it is read.
    /// Show any of it with [`crate::shown`], never raw.
    pub fields: Vec<Field>,
    pub doc: Doc,
}

/// Where an item came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// `.handover/state.json`.
    Current,
    /// `.handover/archive/<file>`.
    Archived { file: String },
    /// Only in the journal's `write` line (its archive file is gone).
    Journal,
    /// A fetched handoff ref (`handover pull`): from another machine. `machine`, `pushed_at`
    /// are the other machine's words (one line, bounded), `remote` a checked remote name.
    Fetched {
        remote: String,
        machine: String,
        pushed_at: String,
        commit: String,
    },
    /// `.handover/records/<file>`.
    Record { file: String },
}

impl Origin {
    /// One word for JSON and filters: `current`, `archived`, `journal`, `fetched`, `record`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Origin::Current => "current",
            Origin::Archived { .. } => "archived",
            Origin::Journal => "journal",
            Origin::Fetched { .. } => "fetched",
            Origin::Record { .. } => "record",
        }
    }
}

/// The document itself, for a full rendering.
#[derive(Clone, Debug)]
pub enum Doc {
    Handoff(Box<Handoff>),
    Record(Box<SessionRecord>),
}

impl Item {
    pub fn is_handoff(&self) -> bool {
        matches!(self.doc, Doc::Handoff(_))
    }

    /// The first text of a field, if it has one.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.text.as_str())
    }

    /// Where it came from, in our words; the other machine's and the remote's names quoted
    /// (`sanitize::quote`), and "not written here" said whenever it applies.
    pub fn label(&self) -> String {
        let what = if self.is_handoff() {
            "handoff"
        } else {
            "session record"
        };
        let mut label = match &self.origin {
            Origin::Current => format!("current {what}"),
            Origin::Archived { .. } => format!("archived {what}"),
            Origin::Journal => format!("{what} from the journal (its archive file is gone)"),
            Origin::Record { .. } => what.to_string(),
            Origin::Fetched {
                remote, machine, ..
            } => {
                let machine = if machine.is_empty() {
                    "an unnamed machine".to_string()
                } else {
                    format!("machine {}", sanitize::quote_within(machine, 80))
                };
                format!(
                    "{what} fetched from {machine} (remote {})",
                    sanitize::quote_within(remote, 80)
                )
            }
        };
        if !self.written_here {
            label.push_str(", not written here");
            // A fetched item's origin already says where it came from.
            let fetched = matches!(self.origin, Origin::Fetched { .. });
            if !fetched && !self.foreign.is_empty() {
                label.push_str(&format!(" ({})", self.foreign.join("; ")));
            }
        }
        label
    }
}

/// One text of an item: the field's name (docs/format.md's, e.g. `decisions`, `request`) and
/// one element's text.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: &'static str,
    pub text: String,
}

/// Field names, in the order search ranks them (docs/cli.md): what a session decided and was
/// warned about first, evidence last.
pub mod names {
    pub const GOAL: &str = "goal";
    pub const DECISIONS: &str = "decisions";
    pub const WARNINGS: &str = "warnings";
    pub const BLOCKERS: &str = "blockers";
    pub const ASSUMPTIONS: &str = "assumptions";
    pub const NARRATIVE: &str = "narrative";
    pub const NEXT_ACTION: &str = "next_action";
    pub const COMPLETED: &str = "completed";
    pub const IN_PROGRESS: &str = "in_progress";
    pub const PENDING: &str = "pending";
    pub const STOP_CONDITIONS: &str = "stop_conditions";
    pub const PRIORITIES: &str = "priorities";
    pub const PLAN: &str = "plan";
    pub const SPEC: &str = "spec_ref";
    pub const ENVIRONMENT: &str = "environment";
    pub const FILES: &str = "files";
    pub const EVIDENCE: &str = "evidence";
    pub const REQUEST: &str = "request";
    pub const FILES_EDITED: &str = "files_edited";
    pub const COMMAND: &str = "command";
    pub const LAST_MESSAGE: &str = "last_message";
}

/// The texts of a handoff a listing shows: its goal (the first of [`handoff_fields`]), without
/// copying the rest.
pub fn listed_handoff_fields(h: &Handoff) -> Vec<Field> {
    let goal = &h.content.goal;
    if goal.trim().is_empty() {
        return Vec::new();
    }
    vec![Field {
        name: names::GOAL,
        text: goal.clone(),
    }]
}

/// Every text of a handoff, by field.
pub fn handoff_fields(h: &Handoff) -> Vec<Field> {
    use names::*;
    let c = &h.content;
    let mut out = Vec::new();
    let mut add = |name: &'static str, text: String| {
        if !text.trim().is_empty() {
            out.push(Field { name, text });
        }
    };
    add(GOAL, c.goal.clone());
    for d in &c.decisions {
        let mut text = d.what.clone();
        if !d.why.trim().is_empty() {
            text.push_str(" — ");
            text.push_str(&d.why);
        }
        if !d.alternatives.is_empty() {
            text.push_str(&format!(" (alternatives: {})", d.alternatives.join("; ")));
        }
        add(DECISIONS, text);
    }
    c.warnings.iter().for_each(|w| add(WARNINGS, w.clone()));
    c.blockers.iter().for_each(|b| add(BLOCKERS, b.clone()));
    for a in &c.assumptions {
        let mut text = a.assumption.clone();
        for more in [&a.why, &a.impact_if_wrong] {
            if !more.trim().is_empty() {
                text.push_str(" — ");
                text.push_str(more);
            }
        }
        add(ASSUMPTIONS, text);
    }
    add(NARRATIVE, c.narrative.clone().unwrap_or_default());
    add(NEXT_ACTION, c.next_action.clone().unwrap_or_default());
    c.status
        .completed
        .iter()
        .for_each(|s| add(COMPLETED, s.clone()));
    c.status
        .in_progress
        .iter()
        .for_each(|s| add(IN_PROGRESS, s.clone()));
    c.status
        .pending
        .iter()
        .for_each(|s| add(PENDING, s.clone()));
    c.stop_conditions
        .iter()
        .for_each(|s| add(STOP_CONDITIONS, s.clone()));
    c.priorities
        .iter()
        .for_each(|p| add(PRIORITIES, p.task.clone()));
    if let Some(plan) = &c.plan {
        for list in [
            &plan.work_items,
            &plan.key_interfaces,
            &plan.dependencies,
            &plan.test_strategy,
        ] {
            list.iter().for_each(|s| add(PLAN, s.clone()));
        }
    }
    add(SPEC, c.spec_ref.clone().unwrap_or_default());
    for (k, v) in &c.environment {
        add(ENVIRONMENT, format!("{k}: {v}"));
    }
    for f in &c.important_files {
        let text = if f.why.trim().is_empty() {
            f.path.clone()
        } else {
            format!("{} — {}", f.path, f.why)
        };
        add(FILES, text);
    }
    h.files_changed
        .iter()
        .for_each(|f| add(FILES, f.path.clone()));
    c.evidence
        .commands_run
        .iter()
        .for_each(|s| add(EVIDENCE, s.clone()));
    for (k, v) in &c.evidence.measurements {
        add(EVIDENCE, format!("{k}: {v}"));
    }
    c.evidence
        .artifacts
        .iter()
        .for_each(|s| add(EVIDENCE, s.clone()));
    out
}

/// Every text of a session record, by field: its requests, the files it edited, its commands
/// with how they ended, its last message.
pub fn record_fields(r: &SessionRecord) -> Vec<Field> {
    use names::*;
    let mut out = Vec::new();
    let mut add = |name: &'static str, text: String| {
        if !text.trim().is_empty() {
            out.push(Field { name, text });
        }
    };
    r.requests.iter().for_each(|q| add(REQUEST, q.clone()));
    r.files_edited
        .iter()
        .for_each(|f| add(FILES_EDITED, f.clone()));
    let mut commands: Vec<&handover_record::Command> = r.commands.iter().collect();
    for kept in [&r.last_test, &r.last_failure].into_iter().flatten() {
        if !commands.contains(&kept) {
            commands.push(kept);
        }
    }
    for c in commands {
        add(COMMAND, command_text(c));
    }
    add(LAST_MESSAGE, r.last_message.clone().unwrap_or_default());
    out
}

/// `cargo test (exit 101, failed)`: a record's command with how it ended.
pub fn command_text(c: &handover_record::Command) -> String {
    match c.exit_code {
        Some(code) => format!("{} (exit {code}, {})", c.command, c.status),
        None => format!("{} ({})", c.command, c.status),
    }
}
