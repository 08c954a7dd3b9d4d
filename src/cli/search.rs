//! `handover search <query>`: every handoff (current, archived, fetched) and session record of
//! the repository, ranked (`handover_recall::search`), each hit with where it is and its line,
//! the match marked.
//!
//! Everything shown has been through redaction and `sanitize::quote`, like the startup
//! context: a hit's fields are redacted again and matched again before it is shown (a match
//! inside a secret is no hit), and an item not written in this working tree (fetched from
//! another machine, a record or handoff that came with the repository) says so in its label.
//! [`rendered`] gives the whole output as a string, for the MCP server.

use super::log::{now_ms, refused_or, skipped};
use super::output::{stdout, JSON_VERSION};
use super::{plural, SearchArgs};
use handover_handoff::sanitize::{one_line, quote_within, redacted, token};
use handover_handoff::store::Store;
use handover_recall::item::{names, Item};
use handover_recall::read::History;
use handover_recall::search::{
    best_first, snippet, Document, Field, Match, Matcher, Prefilter, Query, Weight,
};
use handover_recall::when;
use serde_json::json;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Hits shown when `--limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;
/// Longest line shown for a hit, in characters (marks and `…` not counted).
pub const LINE_CHARS: usize = 160;
/// Longest request shown beside a session record's hit.
const REQUEST_CHARS: usize = 80;

/// How much each field of a handoff or a record weighs in the ranking: what a session decided,
/// was warned about, was blocked by and set out to do first; evidence (commands, files,
/// measurements) last; the rest between. A field not listed weighs as the rest.
const WEIGHTS: &[(&str, Weight)] = &[
    (names::GOAL, Weight::Key),
    (names::DECISIONS, Weight::Key),
    (names::WARNINGS, Weight::Key),
    (names::BLOCKERS, Weight::Key),
    (names::ASSUMPTIONS, Weight::Context),
    (names::NARRATIVE, Weight::Context),
    (names::NEXT_ACTION, Weight::Context),
    (names::COMPLETED, Weight::Context),
    (names::IN_PROGRESS, Weight::Context),
    (names::PENDING, Weight::Context),
    (names::STOP_CONDITIONS, Weight::Context),
    (names::PRIORITIES, Weight::Context),
    (names::PLAN, Weight::Context),
    (names::SPEC, Weight::Context),
    (names::REQUEST, Weight::Context),
    (names::LAST_MESSAGE, Weight::Context),
    (names::ENVIRONMENT, Weight::Evidence),
    (names::FILES, Weight::Evidence),
    (names::EVIDENCE, Weight::Evidence),
    (names::FILES_EDITED, Weight::Evidence),
    (names::COMMAND, Weight::Evidence),
];

fn weight_of(field: &str) -> Weight {
    WEIGHTS
        .iter()
        .find(|(name, _)| *name == field)
        .map_or(Weight::Context, |(_, w)| *w)
}

/// A search, as the command line or the MCP server asks for it.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    pub query: &'a str,
    /// `--in`: only these fields (names or unique beginnings of names); empty: all.
    pub fields: &'a [String],
    pub limit: usize,
    pub json: bool,
}

/// A search's output: what the command prints and the MCP server's search tool answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The text (or JSON lines) to print, each line ending in a newline.
    pub text: String,
}

/// A request that cannot be searched (an empty query, an unknown field): bad usage, exit 2.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

pub fn run(args: &SearchArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    // `handover search "token format"`: the shell took the quotes, so an argument with a
    // space in it is a phrase, as it was typed.
    let words: Vec<String> = args
        .query
        .iter()
        .map(|a| {
            if a.contains(char::is_whitespace) && !a.contains('"') {
                format!("\"{a}\"")
            } else {
                a.clone()
            }
        })
        .collect();
    let query = words.join(" ");
    let request = Request {
        query: &query,
        fields: &args.fields,
        limit: args.limit,
        json: args.json,
    };
    match rendered(dir, &request) {
        Ok((out, history)) => {
            stdout().write_all(out.text.as_bytes())?;
            skipped(&history);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => match e.downcast_ref::<Usage>() {
            Some(usage) => {
                let _ = writeln!(std::io::stderr(), "handover: {usage}");
                Ok(ExitCode::from(super::exit::Exit::Usage.code()))
            }
            None => Err(e),
        },
    }
}

/// The whole output of a search of the repository containing `dir`: what `handover search`
/// prints, and what the MCP server's search tool answers; with the history it searched (what
/// it skipped is in its `problems`). A [`Usage`] error for a request that cannot be searched,
/// the refusal of `.handover/` as the error otherwise.
pub fn rendered(dir: &Path, request: &Request) -> anyhow::Result<(Rendered, History)> {
    // Checked before anything is read: a bad query fails fast, whatever the history holds.
    let query = Query::parse(request.query).map_err(|e| Usage(e.to_string()))?;
    let fields = selected_fields(request.fields)?;
    let store = Store::discover(dir);
    let now_ms = now_ms();
    // Only the files that could hold a hit are parsed (same hits as reading them all); the
    // rest still count among the documents searched.
    let prefilter = Prefilter::of(&query);
    let history = refused_or(handover_recall::read::read_candidates(
        &store,
        now_ms,
        &|bytes| prefilter.may_match(bytes),
    ))?;
    let out = render(&history, &query, request, &fields, now_ms);
    Ok((out, history))
}

/// The field names `--in` selects (each a name or the unique beginning of one), or every field
/// when none is given.
fn selected_fields(wanted: &[String]) -> Result<Vec<&'static str>, Usage> {
    let mut out = Vec::new();
    for want in wanted {
        let want = want.trim().to_lowercase();
        let exact = WEIGHTS.iter().find(|(name, _)| *name == want);
        let starting: Vec<&str> = WEIGHTS
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| !want.is_empty() && name.starts_with(&want))
            .collect();
        let name = match (exact, starting.as_slice()) {
            (Some((name, _)), _) | (None, [name]) => *name,
            (None, []) => {
                return Err(Usage(format!(
                    "--in {}: no such field; the fields are {}",
                    quote_within(&want, 40),
                    field_list()
                )))
            }
            (None, several) => {
                return Err(Usage(format!(
                    "--in {}: which one? {}",
                    quote_within(&want, 40),
                    several.join(", ")
                )))
            }
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

/// Every field name, for messages.
fn field_list() -> String {
    let names: Vec<&str> = WEIGHTS.iter().map(|(name, _)| *name).collect();
    names.join(", ")
}

/// An item as a document to search: its fields (only `only`'s, when it names any) with
/// `texts`, one per field (the stored text, or the same redacted again).
fn document<'a>(
    item: &'a Item,
    only: &[&str],
    texts: impl Iterator<Item = &'a str>,
) -> Document<'a> {
    Document {
        fields: item
            .fields
            .iter()
            .zip(texts)
            .filter(|(f, _)| only.is_empty() || only.contains(&f.name))
            .map(|(f, text)| Field {
                name: f.name,
                weight: weight_of(f.name),
                text,
            })
            .collect(),
        time: i64::try_from(item.time_ms).unwrap_or(i64::MAX),
    }
}

/// One hit as shown: the item, its match on the redacted text, and the marked line.
struct Hit<'a> {
    item: &'a Item,
    found: Match,
    /// Names of the searched fields, in the document's order (what `found`'s indices name).
    names: Vec<&'static str>,
    line: String,
}

fn render(
    history: &History,
    query: &Query,
    request: &Request,
    only: &[&str],
    now_ms: u64,
) -> Rendered {
    let items = &history.items;
    let mut matcher = Matcher::new(query);
    // Ranked on the text as stored (redacted when it was written, or when it was read if it
    // was not written here), without a copy of each field.
    let mut candidates: Vec<(usize, Match)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let texts = item.fields.iter().map(|f| f.text.as_str());
            matcher.find(&document(item, only, texts)).map(|m| (i, m))
        })
        .collect();
    best_first(&mut candidates);
    let matched = candidates.len();
    // Shown only after its text is redacted again and still matches there.
    let mut hits: Vec<Hit> = Vec::new();
    for (i, _) in &candidates {
        if hits.len() >= request.limit {
            break;
        }
        let Some(item) = items.get(*i) else { continue };
        if let Some(hit) = shown_hit(item, query, only) {
            hits.push(hit);
        }
    }
    hits.sort_by_key(|h| std::cmp::Reverse(h.found.rank));
    let total = items.len() + history.unread;
    let text = if request.json {
        hits.iter()
            .enumerate()
            .map(|(n, hit)| format!("{}\n", hit_json(n + 1, hit)))
            .collect()
    } else {
        hits_text(&hits, query, request, matched, total, now_ms)
    };
    Rendered { text }
}

/// `item` matched again on its redacted text, with its line marked; `None` when the match is
/// gone (it was inside a secret).
fn shown_hit<'a>(item: &'a Item, query: &Query, only: &[&str]) -> Option<Hit<'a>> {
    let texts: Vec<String> = item.fields.iter().map(|f| redacted(&f.text)).collect();
    let doc = document(item, only, texts.iter().map(String::as_str));
    let names: Vec<&'static str> = item
        .fields
        .iter()
        .filter(|f| only.is_empty() || only.contains(&f.name))
        .map(|f| f.name)
        .collect();
    let found = Matcher::new(query).find(&doc)?;
    let field = doc.fields.get(found.field)?;
    let line = field.text.get(found.line.clone())?;
    let marked = snippet(query, line, LINE_CHARS)?.marked();
    Some(Hit {
        item,
        line: quote_within(&marked, marked.chars().count()),
        found,
        names,
    })
}

/// The hits for people: a heading, then per hit where it is and its line.
fn hits_text(
    hits: &[Hit],
    query: &Query,
    request: &Request,
    matched: usize,
    total: usize,
    now_ms: u64,
) -> String {
    let terms: Vec<String> = query
        .terms
        .iter()
        .map(|t| {
            if t.quoted {
                format!("\"{}\"", t.text)
            } else {
                t.text.clone()
            }
        })
        .collect();
    let asked = quote_within(&redacted(&terms.join(" ")), 120);
    let searched = if total == 1 {
        "1 handoff or session record".to_string()
    } else {
        format!("{total} handoffs and session records")
    };
    if hits.is_empty() {
        return format!("No hit for {asked} in {searched}.\n");
    }
    let mut out = format!(
        "{} for {asked} in {searched}, best first:\n",
        plural(hits.len(), "hit")
    );
    for (n, hit) in hits.iter().enumerate() {
        out.push('\n');
        out.push_str(&format!("{}. {}\n", n + 1, where_it_is(hit, now_ms)));
        out.push_str(&format!("   {}\n", hit.line));
        let also: Vec<&str> = hit
            .found
            .fields
            .iter()
            .skip(1)
            .filter_map(|&f| hit.names.get(f).copied())
            .collect();
        if !also.is_empty() {
            out.push_str(&format!("   also in: {}\n", also.join(", ")));
        }
    }
    if matched > hits.len() && hits.len() >= request.limit {
        out.push_str(&format!(
            "\n{} of {matched} matching shown; `--limit N` shows more.\n",
            hits.len()
        ));
    }
    out
}

/// "archived handoff 2026-…-ab12 · decisions · 3 days ago · branch «main» · claude";
/// a session record also names its first request.
fn where_it_is(hit: &Hit, now_ms: u64) -> String {
    let item = hit.item;
    let mut parts = vec![format!(
        "{} {}",
        item.label(),
        token(&one_line(&redacted(&item.id)))
    )];
    if !item.is_handoff() {
        if let Some(request) = item.field(names::REQUEST) {
            parts[0].push_str(&format!(
                " (request {})",
                quote_within(&redacted(request), REQUEST_CHARS)
            ));
        }
    }
    if let Some(field) = hit.names.get(hit.found.field) {
        parts.push((*field).to_string());
    }
    if item.time_ms > 0 {
        parts.push(when::relative(item.time_ms, now_ms));
    }
    if let Some(branch) = &item.branch {
        parts.push(format!("branch {}", quote_within(&redacted(branch), 80)));
    }
    if let Some(agent) = &item.agent {
        parts.push(token(&redacted(agent)));
    }
    parts.join(" · ")
}

/// One hit as a JSON object (docs/cli.md, `search --json`).
fn hit_json(rank: usize, hit: &Hit) -> serde_json::Value {
    let item = hit.item;
    let clean = |text: &str| one_line(&redacted(text));
    let fields: Vec<&str> = hit
        .found
        .fields
        .iter()
        .filter_map(|&f| hit.names.get(f).copied())
        .collect();
    json!({
        "version": JSON_VERSION,
        "rank": rank,
        "id": clean(&item.id),
        "kind": if item.is_handoff() { "handoff" } else { "record" },
        "origin": item.origin.as_str(),
        "written_here": item.written_here,
        "label": item.label(),
        "field": hit.names.get(hit.found.field),
        "fields": fields,
        "line": unquoted(&hit.line),
        "time": (item.time_ms > 0).then(|| when::rfc3339(item.time_ms)),
        "branch": item.branch.as_deref().map(clean),
        "agent": item.agent.as_deref().map(clean),
        "request": if item.is_handoff() { None } else { item.field(names::REQUEST).map(|r| unquoted(&quote_within(&redacted(r), REQUEST_CHARS))) },
    })
}

/// The text inside `quote`'s « »: a JSON string is already delimited.
fn unquoted(quoted: &str) -> String {
    quoted
        .strip_prefix('«')
        .and_then(|s| s.strip_suffix('»'))
        .unwrap_or(quoted)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_names_a_field_or_the_unique_start_of_one() {
        // (--in values, the fields selected or a part of the error)
        type Case<'a> = (&'a [&'a str], Result<&'a [&'a str], &'a str>);
        let cases: &[Case] = &[
            (&[], Ok(&[])),
            (&["decisions"], Ok(&["decisions"])),
            (&["DEC"], Ok(&["decisions"])),
            (&["request", "command"], Ok(&["request", "command"])),
            (&["files"], Ok(&["files"])),
            (&["goal", "goal"], Ok(&["goal"])),
            (&["nosuch"], Err("no such field")),
            (&["p"], Err("which one? pending, priorities, plan")),
            (&[""], Err("no such field")),
        ];
        for (wanted, want) in cases {
            let wanted: Vec<String> = wanted.iter().map(|s| s.to_string()).collect();
            match (selected_fields(&wanted), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{wanted:?}"),
                (Err(got), Err(want)) => assert!(got.0.contains(want), "{wanted:?}: {got}"),
                (got, want) => panic!("{wanted:?}: {got:?} against {want:?}"),
            }
        }
    }

    #[test]
    fn every_field_the_reader_names_has_its_weight() {
        use handover_recall::item::names::*;
        let weights =
            |names: &[&str]| -> Vec<Weight> { names.iter().map(|n| weight_of(n)).collect() };
        assert_eq!(
            weights(&[GOAL, DECISIONS, WARNINGS, BLOCKERS]),
            [Weight::Key; 4]
        );
        assert_eq!(
            weights(&[EVIDENCE, FILES, FILES_EDITED, COMMAND, ENVIRONMENT]),
            [Weight::Evidence; 5]
        );
        assert_eq!(
            weights(&[NARRATIVE, REQUEST, LAST_MESSAGE, NEXT_ACTION]),
            [Weight::Context; 4]
        );
    }
}
