//! `handover show <id | -N>`: one past handoff (its Markdown form) or session record in full,
//! with where it came from and, for a handoff, the verdict then (as journaled when a session
//! last got it) and now (verified against today's tree). [`text`] makes the whole output as a
//! String, which the MCP server calls too.
//!
//! The document sits between the data markers, every line of it indented, so none of its lines
//! can pass for one of ours; a value inside our sentences is quoted (`handover_recall::shown`);
//! a document not written here is labelled and redacted again.

use super::log::{now_ms, read_history, Scope};
use super::output::stdout;
use super::ShowArgs;
use handover_core::context::{DATA_END, DATA_START};
use handover_handoff::model::{Handoff, Verification};
use handover_handoff::sanitize::{one_line, quote, token};
use handover_handoff::store::Store;
use handover_recall::item::{Doc, Item, Origin};
use handover_recall::read::History;
use handover_recall::timeline::{self, Filter};
use handover_recall::{shown, when};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Details of a verification reason shown at most.
const MAX_DETAILS: usize = 10;

pub fn run(args: &ShowArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    write!(stdout(), "{}", text(&store, &args.which)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The whole of `show <which>` as text, or the error that names the problem and the fix
/// (what `log` says was skipped is not repeated: the item shown was read whole).
pub fn text(store: &Store, which: &str) -> anyhow::Result<String> {
    let now_ms = now_ms();
    let history = read_history(store, now_ms)?;
    let item = find(store, &history, which)?;
    Ok(render(store, &history, item, now_ms))
}

/// The item `which` names: `-N` (the N-th newest showable line of `handover log` on the
/// current branch), an exact id, or a unique prefix of one.
fn find<'h>(store: &Store, history: &'h History, which: &str) -> anyhow::Result<&'h Item> {
    let which = which.trim();
    if let Some(n) = which.strip_prefix('-') {
        let Ok(n) = n.parse::<usize>() else {
            anyhow::bail!(
                "{} is neither an id nor -N: give an id from `handover log`, or -1 for the newest handoff or record",
                quote(which)
            );
        };
        let scope = Scope::of(store, false, None);
        let entries = timeline::timeline(
            history,
            &Filter {
                branch: scope.branch.clone(),
                ..Filter::default()
            },
        );
        return timeline::nth_item(&entries, n).ok_or_else(|| {
            let shown_count = entries.iter().filter(|e| e.item.is_some()).count();
            let on = scope
                .branch
                .as_deref()
                .map_or(String::new(), |b| format!(" of branch {}", quote(b)));
            anyhow::anyhow!(
                "there is no handoff or session record number {n} in the history{on} ({shown_count} there): `handover log` lists them, newest first"
            )
        });
    }
    if let Some(item) = history.item(which) {
        return Ok(item);
    }
    let matches: Vec<&Item> = if which.is_empty() {
        Vec::new()
    } else {
        history
            .items
            .iter()
            .filter(|i| i.id.starts_with(which))
            .collect()
    };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => anyhow::bail!(
            "no handoff or session record with the id {} in this repository's history (the current handoff, the archive, the journal, the session records, fetched handoffs): `handover log --all` lists every id",
            quote(which)
        ),
        many => {
            let ids: Vec<String> = many.iter().take(5).map(|i| token(&i.id)).collect();
            anyhow::bail!(
                "the id {} is the start of {} ids ({}{}): give more of it",
                quote(which),
                many.len(),
                ids.join(", "),
                if many.len() > 5 { ", …" } else { "" }
            )
        }
    }
}

/// The full text for one item.
fn render(store: &Store, history: &History, item: &Item, now_ms: u64) -> String {
    let mut out = Vec::new();
    let what = if item.is_handoff() {
        "Handoff"
    } else {
        "Session record"
    };
    out.push(format!("{what} {}: {}", token(&item.id), item.label()));
    let verb = if item.is_handoff() {
        "Written"
    } else {
        "Last active"
    };
    let mut when_line = format!(
        "{verb} {} ({})",
        when::rfc3339(item.time_ms),
        when::relative(item.time_ms, now_ms)
    );
    if let Some(b) = &item.branch {
        when_line.push_str(&format!(" on branch {}", shown(b)));
    }
    if let Some(a) = &item.agent {
        when_line.push_str(&format!(" by {}", shown(a)));
    }
    out.push(when_line);
    if let Some(claimed) = &item.claimed_time {
        out.push(format!(
            "It claims another time, {}, which its file or its journal line rules out: listed at the time above.",
            shown(claimed)
        ));
    }
    if let Origin::Fetched {
        pushed_at, commit, ..
    } = &item.origin
    {
        out.push(format!(
            "Pushed {}; fetched commit {}.",
            if pushed_at.is_empty() {
                "at an unknown time".to_string()
            } else {
                token(pushed_at)
            },
            token(commit)
        ));
    }
    match &item.doc {
        Doc::Handoff(h) => {
            out.push(verdict_then(history, &item.id));
            out.extend(verdict_now(store, item, h));
            out.push(String::new());
            out.push(DATA_START.to_string());
            let markdown = handover_handoff::markdown::render(h);
            out.extend(indented(&text_as_shown(item, &markdown)));
            out.push(DATA_END.to_string());
        }
        Doc::Record(r) => {
            out.push(String::new());
            let report = handover_record::text::report(r);
            out.push(text_as_shown(item, &report));
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// A document's text as it may be shown: controls were stripped when it was read; redacted
/// again when it was not written here.
fn text_as_shown(item: &Item, text: &str) -> String {
    if item.written_here {
        text.to_string()
    } else {
        handover_handoff::sanitize::redacted(text)
    }
}

/// Every line indented by two spaces, so none can pass for one of ours (a forged end marker).
fn indented(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("  {l}")
            }
        })
        .collect()
}

/// The verdict when a session last got it, as the journal's `delivered` line says.
fn verdict_then(history: &History, id: &str) -> String {
    match timeline::verdict_then(history, id) {
        Some((word, at)) => format!(
            "Verdict then: {word} (when a session last got it, {})",
            when::rfc3339(at)
        ),
        None => {
            "Verdict then: never delivered to a session (no startup context carried it)".to_string()
        }
    }
}

/// The verdict now: the handoff verified against today's tree, as `handover boot` does; a
/// fetched one as travel checks it (its recorded root is this tree, its uncommitted files on
/// the machine that pushed it).
fn verdict_now(store: &Store, item: &Item, h: &Handoff) -> Vec<String> {
    let checked = match &item.origin {
        Origin::Fetched {
            remote,
            machine,
            pushed_at,
            commit,
        } => {
            let fetched = handover_core::travel::package::Fetched {
                remote: remote.clone(),
                branch: item.branch.clone().unwrap_or_default(),
                commit: commit.clone(),
                handoff: h.clone(),
                note: None,
                origin: handover_core::travel::package::Origin {
                    machine: machine.clone(),
                    pushed_at: pushed_at.clone(),
                    ..Default::default()
                },
                record: None,
                changes: None,
            };
            handover_core::travel::fetched::as_checked_here(store.root(), &fetched)
        }
        _ => h.clone(),
    };
    let v: Verification = handover_verify::verify(store.root(), &checked);
    let mut out = vec![format!(
        "Verdict now: {} (checked against this working tree now)",
        v.verdict.as_str()
    )];
    for r in &v.reasons {
        out.push(format!("  - {}", one_line(&r.message)));
        for d in r.details.iter().take(MAX_DETAILS) {
            out.push(format!("      {}", one_line(d)));
        }
        if r.details.len() > MAX_DETAILS {
            out.push(format!("      (+{} more)", r.details.len() - MAX_DETAILS));
        }
    }
    out
}
