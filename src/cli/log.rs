//! `handover log`: the repository's timeline, newest first, one line per event (handoffs
//! written, finished, sessions recorded, pushes, pulls and adoptions, fetched handoffs), or one
//! JSON object per line; `--stats`: the store's size by part. The lines are made by
//! [`text_line`] and [`json_line`], which the MCP server calls too.
//!
//! Everything from the history is someone's text: a value inside our line is shown with
//! `handover_recall::shown` (redacted, quoted on one line); an id or a time of our shape as is
//! (`sanitize::token`); whatever was not written here says so.

use super::output::{stdout, warn, JSON_VERSION};
use super::LogArgs;
use handover_handoff::sanitize::{quote, token};
use handover_handoff::store::Store;
use handover_recall::cache::LogCache;
use handover_recall::item::{Doc, Item, Origin};
use handover_recall::read::{self, History};
use handover_recall::timeline::{self, Entry, Filter, What};
use handover_recall::{shown, when};
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The longest goal shown in a line.
const GOAL_CHARS: usize = 80;

pub fn run(args: &LogArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    if args.stats {
        return stats(&store, args.json);
    }
    let now_ms = now_ms();
    // Only what a line shows is read of each item (show and search read whole), and only of
    // the files the cache (outside the repository) does not know as they are now.
    let cache = LogCache::for_store(&store);
    let history = refused_or(read::listing(&store, now_ms, Some(&cache)))?;
    cache.save();
    let scope = Scope::of(&store, args.all, args.branch.as_deref());
    let filter = Filter {
        branch: scope.branch.clone(),
        since_ms: args.since,
        until_ms: args.until,
        agent: args.agent.clone(),
        limit: args.limit,
    };
    write!(
        stdout(),
        "{}",
        render(&history, &filter, &scope, args.json, now_ms)
    )?;
    skipped(&history);
    // The process ends here: freeing 20,000 items and the cache's entries one by one is time
    // the user waits for and nobody needs.
    std::mem::forget(history);
    std::mem::forget(cache);
    Ok(ExitCode::SUCCESS)
}

/// The whole of `log`'s output: one line per entry (text, or JSON with `as_json`), and for
/// people a sentence when nothing matched (JSON then prints nothing).
pub fn render(
    history: &History,
    filter: &Filter,
    scope: &Scope,
    as_json: bool,
    now_ms: u64,
) -> String {
    let entries = timeline::timeline(history, filter);
    // Made on every core (each line redacts and quotes its own texts), joined in order.
    let lines = handover_base::parallel::map(&entries, |entry| {
        if as_json {
            json_line(entry).to_string()
        } else {
            text_line(entry, now_ms)
        }
    });
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    if entries.is_empty() && !as_json {
        out.push_str(&scope.nothing());
        out.push('\n');
    }
    out
}

/// Now, by the clock every stamp of handover reads (so a test's shifted clock agrees).
pub fn now_ms() -> u64 {
    let (secs, nanos) = handover_base::clock::unix_now();
    secs.saturating_mul(1000) + u64::from(nanos / 1_000_000)
}

/// The history, or the refusal of `.handover/` as the error (exit 1), naming the fix.
pub fn read_history(store: &Store, now_ms: u64) -> anyhow::Result<History> {
    refused_or(read::read(store, now_ms))
}

/// The history, or the refusal of `.handover/` as the error.
pub fn refused_or(history: History) -> anyhow::Result<History> {
    if let Some(refused) = history.refused {
        return Err(anyhow::anyhow!(refused));
    }
    Ok(history)
}

/// What was skipped in the history, one line each on stderr (the output stays the timeline).
pub fn skipped(history: &History) {
    for p in &history.problems {
        warn(format_args!("handover: skipped {}: {}", p.place, p.what));
    }
}

/// `--since`/`--until` as clap reads them, so a value that cannot be read is clap's usage
/// error (exit 2) naming what is accepted.
pub fn parse_moment(text: &str) -> Result<u64, String> {
    when::parse_moment(text, now_ms())
}

/// Which branch a command looks at: `--branch`, else the current one (by file reads), else
/// (`--all`, a detached HEAD) every branch.
pub struct Scope {
    /// As handoffs and records store it (redacted); None: every branch.
    pub branch: Option<String>,
}

impl Scope {
    pub fn of(store: &Store, all: bool, branch: Option<&str>) -> Scope {
        let branch = if all {
            None
        } else {
            branch.map(str::to_string).or_else(|| {
                handover_git::read_head_files(store.root()).and_then(|head| head.branch)
            })
        };
        Scope {
            branch: branch.map(|b| handover_handoff::sanitize::redacted(&b)),
        }
    }

    fn nothing(&self) -> String {
        match &self.branch {
            Some(b) => format!(
                "Nothing in the history of branch {} yet (handoffs, session records, pushes and pulls); `handover log --all` shows every branch.",
                quote(b)
            ),
            None => "Nothing in the history yet: no handoff, session record, push or pull."
                .to_string(),
        }
    }
}

/// One line of the timeline for people: when (relative), what, the id `show` takes, then
/// what it was about.
pub fn text_line(e: &Entry, now_ms: u64) -> String {
    let id = e.id().map_or("-".to_string(), token);
    let mut line = format!(
        "{:<14} {:<9} {id}  {}",
        when::relative(e.time_ms, now_ms),
        e.what.word(),
        about(e, now_ms)
    );
    if let Some(item) = e.item.filter(|i| !i.written_here) {
        line.push_str(&format!(" [{}]", item.label()));
    }
    line
}

fn about(e: &Entry, now_ms: u64) -> String {
    let goal = || {
        e.item
            .and_then(|i| i.field("goal"))
            .map(|g| handover_recall::shown_within(g, GOAL_CHARS))
    };
    let by = || {
        e.agent
            .as_deref()
            .map(|a| format!(", by {}", shown(a)))
            .unwrap_or_default()
    };
    match &e.what {
        What::Written { verdict_then } => format!(
            "{} ({}{}; verdict then: {})",
            goal().unwrap_or_else(|| "(no goal)".into()),
            kind(e.item),
            by(),
            verdict_then.unwrap_or("never delivered")
        ),
        What::Fetched => format!(
            "{} ({}{}){}",
            goal().unwrap_or_else(|| "(no goal)".into()),
            kind(e.item),
            by(),
            e.item.map_or(String::new(), |i| match &i.origin {
                Origin::Fetched { pushed_at, .. } if !pushed_at.is_empty() => {
                    format!(", pushed {}", token(pushed_at))
                }
                _ => String::new(),
            })
        ),
        What::Done => format!("finished {}", goal().unwrap_or_else(|| "a handoff".into())),
        What::Recorded => match e.item.map(|i| &i.doc) {
            Some(Doc::Record(r)) => record_line(r, now_ms),
            _ => String::new(),
        },
        What::Pushed { remote } => format!("to remote {}", remote_name(remote.as_deref())),
        What::Pulled {
            remote, machine, ..
        } => {
            let from = machine
                .as_deref()
                .filter(|m| !m.is_empty())
                .map(|m| format!(", pushed from machine {}", shown(m)))
                .unwrap_or_default();
            format!("from remote {}{from}", remote_name(remote.as_deref()))
        }
    }
}

fn remote_name(remote: Option<&str>) -> String {
    remote.map_or("(unknown)".to_string(), shown)
}

fn kind(item: Option<&Item>) -> &'static str {
    match item.map(|i| &i.doc) {
        Some(Doc::Handoff(h)) => h.content.kind.as_str(),
        _ => "handoff",
    }
}

/// A session in a few words: the client, how it ended, the files it edited, the last failing
/// command left behind.
fn record_line(r: &handover_record::SessionRecord, now_ms: u64) -> String {
    use handover_record::HowEnded;
    let ended = match &r.ended {
        Some(e) if e.how == HowEnded::SessionEnd => format!(
            "ended {}({})",
            handover_base::clock::parse_rfc3339_ms(&e.at)
                .map(|at| format!("{} ", when::relative(at, now_ms)))
                .unwrap_or_default(),
            e.reason.as_deref().map_or("no reason given".into(), shown)
        ),
        Some(e) if e.how == HowEnded::Compaction => "compacted, no end recorded".to_string(),
        _ => "no end recorded".to_string(),
    };
    let mut line = format!("{} session, {ended}", shown(r.agent.as_str()));
    let total = r.files_edited_total.max(r.files_edited.len() as u64);
    if total > 0 {
        let newest: Vec<String> = r
            .files_edited
            .iter()
            .rev()
            .take(3)
            .map(|f| shown(f))
            .collect();
        let more = total.saturating_sub(newest.len() as u64);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        line.push_str(&format!(
            ", edited {total} {} ({}{more})",
            if total == 1 { "file" } else { "files" },
            newest.join(", ")
        ));
    }
    if let Some(f) = r.last_failure.as_ref().filter(|_| r.failure_left()) {
        let exit = f
            .exit_code
            .map(|c| format!(" (exit {c})"))
            .unwrap_or_default();
        line.push_str(&format!(
            ", last failing command {}{exit}",
            shown(&f.command)
        ));
    }
    line
}

/// One line of the timeline as JSON (`log --json`): `version`, `time` (RFC 3339), `event`,
/// `id`, `branch`, `agent`, `origin`, `written_here`, and what the event has (docs/cli.md).
/// Text not written here was redacted when it was read; JSON escapes the rest.
pub fn json_line(e: &Entry) -> Value {
    let mut out = json!({
        "version": JSON_VERSION,
        "time": (e.time_ms > 0).then(|| when::rfc3339(e.time_ms)),
        "event": e.what.word(),
        "id": e.id(),
        "branch": e.branch,
        "agent": e.agent,
    });
    if let Some(item) = e.item {
        out["origin"] = json!(item.origin.as_str());
        out["written_here"] = json!(item.written_here);
        if !item.foreign.is_empty() {
            out["foreign"] = json!(item.foreign);
        }
        if let Some(claimed) = &item.claimed_time {
            out["claimed_time"] = json!(claimed);
        }
        match &item.doc {
            Doc::Handoff(h) => {
                out["goal"] = json!(item.field("goal").unwrap_or_default());
                out["kind"] = json!(h.content.kind.as_str());
            }
            Doc::Record(r) => {
                out["client"] = json!(r.agent.as_str());
                out["ended"] = json!(r.ended.as_ref().map(|x| json!({
                    "how": x.how.as_str(), "reason": x.reason, "at": x.at})));
                out["files_edited"] = json!(r.files_edited);
                out["files_edited_total"] = json!(r.files_edited_total);
                out["last_failure"] = json!(r
                    .last_failure
                    .as_ref()
                    .filter(|_| r.failure_left())
                    .map(|c| json!({"command": c.command, "exit_code": c.exit_code})));
            }
        }
        if let Origin::Fetched {
            remote,
            machine,
            pushed_at,
            ..
        } = &item.origin
        {
            out["remote"] = json!(remote);
            out["machine"] = json!(machine);
            out["pushed_at"] = json!(pushed_at);
        }
    }
    match &e.what {
        What::Written { verdict_then } => out["verdict_then"] = json!(verdict_then),
        What::Pushed { remote } => out["remote"] = json!(remote),
        What::Pulled {
            remote,
            machine,
            adopted,
        } => {
            out["remote"] = json!(remote);
            out["machine"] = json!(machine);
            out["adopted"] = json!(adopted);
        }
        _ => {}
    }
    out
}

/// `log --stats`: what the store takes on disk, by part.
fn stats(store: &Store, as_json: bool) -> anyhow::Result<ExitCode> {
    store.check()?;
    let dir = store.dir();
    let parts = [
        ("archive", Part::of_dir(&store.archive_dir())),
        ("journal", Part::of_files(&[store.journal_path()])),
        ("records", Part::of_dir(&handover_record::files::dir(&dir))),
        ("sessions", Part::of_dir(&store.sessions_dir())),
        (
            "current",
            Part::of_files(&[store.state_path(), store.markdown_path()]),
        ),
    ];
    let total: u64 = parts.iter().map(|(_, p)| p.bytes).sum();
    let mut out = stdout();
    if as_json {
        let mut by_part = serde_json::Map::new();
        for (name, p) in &parts {
            by_part.insert(
                (*name).into(),
                json!({"files": p.files, "bytes": p.bytes, "capped": p.capped}),
            );
        }
        let line = json!({"version": JSON_VERSION, "root": store.root().to_string_lossy(),
                          "parts": by_part, "total_bytes": total});
        writeln!(out, "{line}")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "The store in {}: {}",
        store.root().display(),
        size(total)
    )?;
    for (name, p) in &parts {
        let files = if p.files == 1 { "file" } else { "files" };
        let capped = if p.capped {
            " (more entries than were counted)"
        } else {
            ""
        };
        writeln!(
            out,
            "  {name:<9}{:>7} {files:<6}{:>11}{capped}",
            p.files,
            size(p.bytes)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Entries of one directory counted at most.
const MAX_COUNTED: usize = 200_000;

struct Part {
    files: u64,
    bytes: u64,
    capped: bool,
}

impl Part {
    /// The plain files directly in `dir` (the store keeps no deeper ones); links and anything
    /// else are not counted, and nothing is opened.
    fn of_dir(dir: &Path) -> Part {
        let files = handover_handoff::safe_fs::plain_files(dir, MAX_COUNTED);
        Part {
            capped: files.len() >= MAX_COUNTED,
            files: files.len() as u64,
            bytes: files.iter().map(|(_, m)| m.len()).sum(),
        }
    }

    fn of_files(paths: &[std::path::PathBuf]) -> Part {
        let sizes: Vec<u64> = paths
            .iter()
            .filter_map(|p| std::fs::symlink_metadata(p).ok())
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .collect();
        Part {
            files: sizes.len() as u64,
            bytes: sizes.iter().sum(),
            capped: false,
        }
    }
}

/// `812 B`, `4.0 KiB`, `1.2 MiB`.
fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else if b < KIB * KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    }
}
