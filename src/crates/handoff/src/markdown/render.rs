//! Handoff → `handover.md`. Every writer field is written so that `parse` reads it back
//! exactly; tool-filled fields are written for people only.

use super::{escape_key, escape_line, Section};
use crate::model::{Content, Handoff};
use std::collections::BTreeMap;

const EDIT_NOTE: &str = "<!-- Edit this file, then run `handover write --from handover.md`. \
Syntax and escaping: docs/format.md. -->";
const TOOL_FILLED: &str =
    "<!-- tool-filled: recomputed on every write; edits in this section are ignored -->";

/// The shape of an entry, shown where a section of entries is empty: these are the sections a
/// plain `- item` does not fit (parse reads comments as nothing).
const DECISION_SHAPE: &str =
    "<!-- each decision: `### <what was decided>`, then `- Why: <the reason>`; \
optional `- Alternative: ...`, `- Reversible: yes|no`, `- Deferred: yes|no` -->\n\n";
const ASSUMPTION_SHAPE: &str =
    "<!-- each assumption: `### <what you assume>`, then `- Why: <the reason>` \
and `- Impact if wrong: <what breaks>` -->\n\n";
const IMPORTANT_FILE_SHAPE: &str =
    "<!-- each file: `### <path>`, then `- Why: <why it matters>` -->\n\n";

pub(super) fn render(handoff: &Handoff) -> String {
    let c = &handoff.content;
    let mut out = String::new();
    out.push_str("# Handoff\n\n");
    out.push_str(EDIT_NOTE);
    out.push('\n');
    for section in Section::ALL {
        if let Some(body) = section_body(section, handoff, c) {
            // Bodies end with a blank line (or are empty): one blank line before each heading.
            if !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str("## ");
            out.push_str(section.title());
            out.push_str("\n\n");
            out.push_str(&body);
        }
    }
    // Exactly one newline at the end, whatever the last body looked like.
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The body of one section, or None when the section is left out (an absent optional field,
/// so that parse reads it back as absent).
fn section_body(section: Section, h: &Handoff, c: &Content) -> Option<String> {
    let mut b = String::new();
    match section {
        Section::Goal => paragraph(&mut b, &c.goal),
        Section::Spec => paragraph(&mut b, c.spec_ref.as_ref()?),
        Section::Metadata => metadata(&mut b, h),
        Section::CurrentState => paragraph(&mut b, c.narrative.as_ref()?),
        Section::Completed => list(&mut b, &c.status.completed),
        Section::InProgress => list(&mut b, &c.status.in_progress),
        Section::Pending => list(&mut b, &c.status.pending),
        Section::Decisions => {
            records(
                &mut b,
                &c.decisions,
                DECISION_SHAPE,
                |d| (d.what.as_str(), d.why.as_str()),
                |b, d| {
                    for a in &d.alternatives {
                        value(b, "- Alternative: ", a);
                    }
                    if let Some(reversible) = d.reversible {
                        b.push_str(&format!("- Reversible: {}\n", yes_no(reversible)));
                    }
                    b.push_str(&format!("- Deferred: {}\n\n", yes_no(d.deferred)));
                },
            );
        }
        Section::Assumptions => {
            records(
                &mut b,
                &c.assumptions,
                ASSUMPTION_SHAPE,
                |a| (a.assumption.as_str(), a.why.as_str()),
                |b, a| {
                    field(b, "Impact if wrong", &a.impact_if_wrong);
                    b.push('\n');
                },
            );
        }
        Section::Blockers => list(&mut b, &c.blockers),
        Section::Warnings => list(&mut b, &c.warnings),
        Section::ImportantFiles => {
            records(
                &mut b,
                &c.important_files,
                IMPORTANT_FILE_SHAPE,
                |f| (f.path.as_str(), f.why.as_str()),
                |b, _| {
                    b.push('\n');
                },
            );
        }
        Section::FilesChanged => files_changed(&mut b, h),
        Section::Evidence => {
            b.push_str("### Commands Run\n\n");
            list(&mut b, &c.evidence.commands_run);
            b.push_str("### Measurements\n\n");
            map(&mut b, &c.evidence.measurements);
            b.push_str("### Artifacts\n\n");
            list(&mut b, &c.evidence.artifacts);
        }
        Section::Environment => map(&mut b, &c.environment),
        Section::NextAction => {
            let next = c.next_action.as_ref()?;
            b.push_str("<!-- the previous session's proposal: check it against the spec -->\n\n");
            paragraph(&mut b, next);
        }
        Section::Priorities => {
            for p in &c.priorities {
                value(&mut b, &format!("- {}: ", p.urgency.as_str()), &p.task);
            }
            if !c.priorities.is_empty() {
                b.push('\n');
            }
        }
        Section::StopConditions => list(&mut b, &c.stop_conditions),
        Section::Kind => {
            b.push_str(c.kind.as_str());
            b.push_str("\n\n");
        }
        Section::Plan => {
            let plan = c.plan.as_ref()?;
            for (title, items) in [
                ("Work Items", &plan.work_items),
                ("Key Interfaces", &plan.key_interfaces),
                ("Dependencies", &plan.dependencies),
                ("Test Strategy", &plan.test_strategy),
            ] {
                b.push_str(&format!("### {title}\n\n"));
                list(&mut b, items);
            }
        }
    }
    Some(b)
}

/// The entries of a section of records (decisions, assumptions, important files): each its
/// `### <title>` and `- Why:` from `head`, then the rest of it; the example of one (`shape`)
/// when there are none, so the writer sees the form to fill in.
fn records<T>(
    b: &mut String,
    items: &[T],
    shape: &str,
    head: impl Fn(&T) -> (&str, &str),
    rest: impl Fn(&mut String, &T),
) {
    if items.is_empty() {
        b.push_str(shape);
    }
    for item in items {
        let (title, why) = head(item);
        value(b, "### ", title);
        field(b, "Why", why);
        rest(b, item);
    }
}

/// A value that owns its section: lines at column 0; blank lines inside are kept as they are,
/// blank lines at either end are written `\` so they survive the trimming parse does.
fn paragraph(b: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() && i != 0 && i != last {
            b.push('\n');
        } else {
            b.push_str(&escape_line(line, true));
            b.push('\n');
        }
    }
    b.push('\n');
}

/// `prefix` then the first line of the value; further lines indented by two spaces.
fn value(b: &mut String, prefix: &str, text: &str) {
    let mut lines = text.split('\n');
    b.push_str(prefix);
    b.push_str(&escape_line(lines.next().unwrap_or(""), false));
    b.push('\n');
    for line in lines {
        b.push_str("  ");
        b.push_str(&escape_line(line, false));
        b.push('\n');
    }
}

/// A record field; left out when empty (parse reads a missing field as empty).
fn field(b: &mut String, key: &str, text: &str) {
    if !text.is_empty() {
        value(b, &format!("- {key}: "), text);
    }
}

fn list(b: &mut String, items: &[String]) {
    for item in items {
        value(b, "- ", item);
    }
    if !items.is_empty() {
        b.push('\n');
    }
}

fn map(b: &mut String, entries: &BTreeMap<String, String>) {
    for (k, v) in entries {
        value(b, &format!("- {}: ", escape_key(k)), v);
    }
    if !entries.is_empty() {
        b.push('\n');
    }
}

fn yes_no(v: bool) -> &'static str {
    if v {
        "yes"
    } else {
        "no"
    }
}

/// Tool-filled text is for reading only; keep each value on one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn metadata(b: &mut String, h: &Handoff) {
    b.push_str(TOOL_FILLED);
    b.push_str("\n\n");
    let mut line = |key: &str, v: &str| {
        let v = one_line(v);
        b.push_str(&format!(
            "- {key}:{}{v}\n",
            if v.is_empty() { "" } else { " " }
        ));
    };
    match &h.git {
        Some(g) => {
            let branch = match (&g.branch, g.detached) {
                (Some(name), _) => name.clone(),
                (None, true) => "(detached HEAD)".to_string(),
                (None, false) => "(none)".to_string(),
            };
            line("Branch", &branch);
            line("HEAD", g.head.as_deref().unwrap_or("(no commits)"));
            if let Some(up) = &g.upstream {
                line("Upstream", up);
            }
            let tree = if g.linked_worktree {
                format!("{} (linked worktree)", g.root)
            } else {
                g.root.clone()
            };
            line("Worktree", &tree);
            line(
                "Uncommitted",
                &format!(
                    "{} modified, {} untracked",
                    g.dirty.len() + g.dirty_omitted,
                    g.untracked.len() + g.untracked_omitted
                ),
            );
        }
        None => line("Branch", "(not a git repository)"),
    }
    line("Time", &h.created_at);
    if let Some(agent) = &h.agent {
        line("Agent", agent);
    }
    if let Some(session) = &h.session_id {
        line("Session", session);
    }
    line("Schema version", &h.schema_version.to_string());
    line("Id", &h.id);
    b.push('\n');
}

fn files_changed(b: &mut String, h: &Handoff) {
    b.push_str(TOOL_FILLED);
    b.push_str("\n\n");
    match &h.files_changed_base {
        Some(base) => b.push_str(&format!("Since {}:\n\n", one_line(base))),
        None => b.push_str("Since: (no base commit found)\n\n"),
    }
    if h.files_changed.is_empty() {
        b.push_str("No files changed.\n\n");
    }
    for f in &h.files_changed {
        b.push_str(&format!("- {}: {}\n", f.change.as_str(), one_line(&f.path)));
    }
    if h.files_changed_omitted > 0 {
        b.push_str(&format!("- … and {} more\n", h.files_changed_omitted));
    }
    if !h.files_changed.is_empty() {
        b.push('\n');
    }
}
