//! The redaction corpus (tests/redaction_corpus/README.md): a synthetic secret for every gitleaks
//! rule plus hand-made shapes, each written in five contexts; gitleaks' literal true-positive
//! sample lines; hand-written lines; several hundred lines of ordinary handoff prose and of prose
//! that looks like code; all of gitleaks' literal false-positive samples. Prints recall and
//! precision per context, every miss, every line that should have stayed but changed, and every
//! mangled line; asserts recall of at least 0.96 overall and 0.90 in each context, at most one
//! prose line changed, no mangled line, the negative samples changed held where they are, and
//! no secret surviving a write that reports it redacted.
//!
//! `cargo test --test integration redaction_corpus -- --nocapture` shows the figures.

use handover_core::write::{self, Refusal, Request};
use handover_handoff::config::Config;
use handover_handoff::model::*;
use handover_handoff::redaction::redact;
use handover_handoff::store::{LoadOutcome, Store};
use handover_handoff::validate::visit_strings;
use handover_redact::redact_text;
use std::collections::BTreeMap;
use std::path::Path;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/redaction_corpus");

struct Secret {
    rule: String,
    provider: String,
    secret: String,
    /// The part that must be gone (a URL's password, a token without its public prefix).
    core: String,
}

/// The files store secrets split by `%%` so that the repository does not trip secret scanners.
fn unsplit(s: &str) -> String {
    s.replace("%%", "").replace("\\n", "\n")
}

fn load(name: &str) -> Vec<Secret> {
    let text = std::fs::read_to_string(Path::new(CORPUS).join(name)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{name}: bad line {l:?}");
            Secret {
                rule: f[0].into(),
                provider: f[1].into(),
                secret: unsplit(f[2]),
                core: unsplit(f[3]),
            }
        })
        .collect()
}

fn secrets() -> Vec<Secret> {
    let mut all = load("secrets.tsv");
    all.extend(load("extra.tsv"));
    all
}

/// Public identifiers gitleaks also reports (client ids, publishable keys): printed, not
/// counted in the recall targets — a handoff may name them.
fn is_identifier(rule: &str) -> bool {
    [
        "client-id",
        "pub-",
        "public-key",
        "access-id",
        "user-api-id",
    ]
    .iter()
    .any(|w| rule.contains(w))
}

const CONTEXTS: [&str; 5] = ["export", "json", "sentence", "environment", "gitleaks"];

/// gitleaks' own sample-line generator (cmd/generate/config/utils/generate.go,
/// GenerateSampleSecrets and GenerateSampleSecret): `{i}` identifier, `{I}` upper-cased.
const GITLEAKS_LINES: &[&str] = &[
    "{i}Token=\"{s}\"",
    "{i}Token = \"{s}\"",
    "{i}Token={s}",
    "{i}Token = {s}",
    "{\n    \"{i}_token\": \"{s}\"\n}",
    "{\"config.ini\": \"{I}_TOKEN={s}\\nBACKUP_ENABLED=true\"}",
    "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}",
    "{i}_token: '{s}'",
    "{i}_token: \"{s}\"",
    "string {i}Token = \"{s}\";",
    "var {i}Token string = \"{s}\"",
    "{i}Token := \"{s}\"",
    "{i}Token := `{s}`",
    "String {i}Token = \"{s}\";",
    "var {i}Token = \"{s}\"",
    "${i}Token .= \"{s}\"",
    "{i}Token = '{s}'",
    "{i}Token = \"{s}\"",
    "System.setProperty(\"{I}_TOKEN\", \"{s}\")",
    "  \"{i}Token\" => \"{s}\"",
    "{I}_TOKEN = \"{s}\"",
    "{I}_TOKEN := \"{s}\"",
    "{I}_TOKEN ::= \"{s}\"",
    "{I}_TOKEN :::= \"{s}\"",
    "{I}_TOKEN ?= \"{s}\"",
    "{i}_api_token = \"{s}\"",
];
const PER_SECRET_GITLEAKS_LINES: usize = 4;

const KEY_SUFFIXES: &[&str] = &[
    "API_KEY",
    "TOKEN",
    "SECRET",
    "ACCESS_TOKEN",
    "CLIENT_SECRET",
    "KEY",
    "PASSWORD",
    "AUTH_TOKEN",
];

/// Sentences an agent might write: the provider named before the secret (up to five words
/// away), only after it, in backquotes, parentheses or quotes, after a colon or an arrow.
const SENTENCES: &[&str] = &[
    "The {P} key is {s} until we rotate it.",
    "Rotated the {P} token, the new one: {s}",
    "Use {s} for the {P} sandbox account.",
    "{P} credentials for staging are {s} (expires Friday).",
    "I pasted {s} into the {P} settings by mistake.",
    "Login to {P} works again with the secret {s} now.",
    "Set `{s}` as the {P} key in CI.",
    "{P}: {s}",
    "The {P} API returned 401 for {s}, so I regenerated it.",
    "Pasted the {P} secret ({s}) into .env by mistake.",
    "We authenticate to {P} using {s} in the worker.",
    "Here is the {P} api key: \"{s}\" (do not commit it).",
    "Call it with Authorization: Bearer {s} (the {P} token).",
    "new {P} key -> {s}",
];

const ENV_KEYS: &[&str] = &["{U}_API_KEY", "{U}", "{P} token", "{U}_CREDENTIALS", "{P}"];

fn title(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn upper(s: &str) -> String {
    s.to_uppercase().replace('-', "_")
}

fn fill(template: &str, s: &Secret, secret: &str) -> String {
    template
        .replace("{i}", &s.provider)
        .replace("{I}", &upper(&s.provider))
        .replace("{U}", &upper(&s.provider))
        .replace("{P}", &title(&s.provider))
        .replace("{s}", secret)
}

fn json_escaped(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

/// One secret in one context: the content to redact.
fn case(context: &str, n: usize, s: &Secret, variant: usize) -> Content {
    let mut c = Content {
        goal: "corpus".into(),
        ..Content::default()
    };
    match context {
        "export" => {
            let key = format!(
                "{}_{}",
                upper(&s.provider),
                KEY_SUFFIXES[n % KEY_SUFFIXES.len()]
            );
            let value = if s.secret.contains(char::is_whitespace) {
                format!("\"{}\"", s.secret)
            } else {
                s.secret.clone()
            };
            c.evidence.commands_run = vec![format!("export {key}={value}")];
        }
        "json" => {
            let key = format!(
                "{}_{}",
                s.provider,
                KEY_SUFFIXES[n % KEY_SUFFIXES.len()].to_lowercase()
            );
            c.narrative = Some(format!(
                "{{\"{key}\": \"{}\", \"region\": \"eu-west-1\"}}",
                json_escaped(&s.secret)
            ));
        }
        "sentence" => {
            c.warnings = vec![fill(SENTENCES[n % SENTENCES.len()], s, &s.secret)];
        }
        "environment" => {
            let key = fill(ENV_KEYS[n % ENV_KEYS.len()], s, "");
            c.environment = BTreeMap::from([(key, s.secret.clone())]);
        }
        "gitleaks" => {
            let t =
                GITLEAKS_LINES[(n * PER_SECRET_GITLEAKS_LINES + variant) % GITLEAKS_LINES.len()];
            c.evidence.commands_run = vec![fill(t, s, &s.secret)];
        }
        _ => unreachable!(),
    }
    c
}

fn variants(context: &str) -> usize {
    if context == "gitleaks" {
        PER_SECRET_GITLEAKS_LINES
    } else {
        1
    }
}

/// Does a window of `core` survive in `text` that `elsewhere` (the input without the secret)
/// does not explain?
fn survives_beyond(text: &str, core: &str, elsewhere: &str) -> bool {
    let chars: Vec<char> = core.chars().collect();
    let w = (chars.len() / 2).clamp(6, 12).min(chars.len());
    chars
        .windows(w)
        .map(|win| win.iter().collect::<String>())
        .filter(|win| !win.trim().is_empty())
        .any(|win| text.contains(&win) && !elsewhere.contains(&win))
}

/// Does any part of `core` (a window of half its length, 6 to 12 characters) survive in `text`?
fn survives(text: &str, core: &str) -> bool {
    let chars: Vec<char> = core.chars().collect();
    let w = (chars.len() / 2).clamp(6, 12).min(chars.len());
    chars
        .windows(w)
        .map(|win| win.iter().collect::<String>())
        .filter(|win| !win.trim().is_empty())
        .any(|win| text.contains(&win))
}

/// Whole lines holding a secret: gitleaks' literal true-positive samples
/// (gitleaks_positives.jsonl, the secret found by the rule's own regex) and our hand-written
/// cases (handwritten.jsonl). Each: the line, and the secret with its credential part.
fn lines_with_secrets(file: &str) -> Vec<(String, Secret)> {
    let text = std::fs::read_to_string(Path::new(CORPUS).join(file)).unwrap();
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let field = |k: &str| v[k].as_str().unwrap().replace("%%", "");
            (
                field("text"),
                Secret {
                    rule: field("rule"),
                    provider: String::new(),
                    secret: field("secret"),
                    core: field("core"),
                },
            )
        })
        .collect()
}

/// The byte ranges of `before` that the markers in `after` replaced; `None` when `after` is
/// not `before` with some ranges replaced by well-formed markers (a mangled line).
fn replaced_ranges(before: &str, after: &str) -> Option<Vec<(usize, usize)>> {
    let mut pieces = Vec::new();
    let mut rest = after;
    while let Some(i) = rest.find("[REDACTED:") {
        let close = rest[i..].find(']')? + i;
        let kind = &rest[i + 10..close];
        if kind.is_empty()
            || !kind
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return None; // a marker inside a marker, or a torn one
        }
        pieces.push(&rest[..i]);
        rest = &rest[close + 1..];
    }
    pieces.push(rest);
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !before.starts_with(first) || !before[first.len()..].ends_with(last) {
        return None;
    }
    let end_of_middle = before.len() - last.len();
    let mut at = first.len();
    let mut ranges = Vec::new();
    for piece in &pieces[1..pieces.len() - 1] {
        // The next kept piece after at least one replaced character.
        let found = before.get(at + 1..end_of_middle)?.find(piece)? + at + 1;
        ranges.push((at, found));
        at = found + piece.len();
    }
    ranges.push((at, end_of_middle));
    Some(ranges)
}

fn occurrences(text: &str, needle: &str) -> Vec<(usize, usize)> {
    if needle.is_empty() {
        return Vec::new();
    }
    text.match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .collect()
}

/// How one changed field was redacted.
#[derive(Default)]
struct Shape {
    /// Nothing outside the secret (and one quote or space either side) was replaced.
    exact: bool,
    /// A marker cut a secret, leaving a head or tail, or the markers are malformed.
    mangled: bool,
}

fn shape_of(before: &str, after: &str, s: &Secret) -> Shape {
    let Some(ranges) = replaced_ranges(before, after) else {
        return Shape {
            exact: false,
            mangled: true,
        };
    };
    let mut secrets = occurrences(before, &s.secret);
    secrets.extend(occurrences(before, &json_escaped(&s.secret)));
    let mut cores = occurrences(before, &s.core);
    cores.extend(occurrences(before, &json_escaped(&s.core)));
    if secrets.is_empty() && cores.is_empty() {
        return Shape::default(); // the secret is not in this field as written
    }
    let whole = |(a, b): (usize, usize)| a == 0 && b == before.len();
    let mangled = ranges.iter().any(|&(a, b)| {
        !whole((a, b))
            && cores
                .iter()
                .any(|&(s, e)| a < e && s < b && (a > s || b < e))
    });
    let exact = ranges.iter().all(|&(a, b)| {
        secrets
            .iter()
            .chain(&cores)
            .any(|&(s, e)| a + 1 >= s && b <= e + 1 && a < e && s < b)
    });
    Shape { exact, mangled }
}

#[derive(Default)]
struct Tally {
    hits: usize,
    total: usize,
    redacted: usize,
    exact: usize,
    mangled: usize,
}

impl Tally {
    fn recall(&self) -> f64 {
        self.hits as f64 / self.total.max(1) as f64
    }
    fn precision(&self) -> f64 {
        self.exact as f64 / self.redacted.max(1) as f64
    }
}

/// Redacts one case and scores it: caught, exact, mangled.
fn score(c: &mut Content, s: &Secret, t: &mut Tally, leaks: &mut Vec<String>, label: &str) -> bool {
    let before: Vec<(String, String)> = visit_strings(c)
        .into_iter()
        .map(|(p, v)| (p, v.to_string()))
        .collect();
    let input = serde_json::to_string(&*c).unwrap();
    let found = redact(c);
    let output = serde_json::to_string(&*c).unwrap();
    // A window of the secret that the input also holds elsewhere (`value="CleartextPassword1"`
    // under `key="ClearTextPassword"`) is not a leak.
    let elsewhere = input
        .replace(&s.core, "\u{0}")
        .replace(&json_escaped(&s.core), "\u{0}");
    let left = survives_beyond(&output, &s.core, &elsewhere);
    if left && !found.is_empty() {
        leaks.push(format!("{label}: {output}"));
    }
    let hit = !left && !found.is_empty();
    t.total += 1;
    t.hits += usize::from(hit);
    if !found.is_empty() {
        t.redacted += 1;
        let after = visit_strings(c);
        let mut exact = true;
        for ((_, b), (_, a)) in before.iter().zip(&after) {
            if b != a {
                let shape = shape_of(b, a, s);
                exact &= shape.exact;
                if !shape.exact && !shape.mangled {
                    println!("  inexact [{label}]: {b:?}\n             -> {a:?}");
                }
                if shape.mangled {
                    t.mangled += 1;
                    println!("  mangled [{label}]: {b:?}\n             -> {a:?}");
                }
            }
        }
        t.exact += usize::from(exact);
    }
    hit
}

#[test]
fn corpus_recall_prose_and_leaks() {
    let secrets = secrets();
    let mut by_context: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_rule: BTreeMap<String, (Tally, Vec<String>)> = BTreeMap::new();
    let mut identifiers = Tally::default();
    let mut leaks_reported_redacted = Vec::new();

    for (n, s) in secrets.iter().enumerate() {
        for context in CONTEXTS {
            for variant in 0..variants(context) {
                let mut c = case(context, n, s, variant);
                let input = serde_json::to_string(&c).unwrap();
                let label = format!("{} {context}", s.rule);
                let tally = if is_identifier(&s.rule) {
                    &mut identifiers
                } else {
                    by_context.entry(context).or_default()
                };
                let hit = score(&mut c, s, tally, &mut leaks_reported_redacted, &label);
                if is_identifier(&s.rule) {
                    continue;
                }
                let entry = by_rule.entry(s.rule.clone()).or_default();
                entry.0.total += 1;
                entry.0.hits += usize::from(hit);
                if !hit {
                    entry.1.push(format!("{context}: {input}"));
                }
            }
        }
    }
    let lines = lines_with_secrets("gitleaks_positives.jsonl");
    let handwritten = lines_with_secrets("handwritten.jsonl");
    let contexts = lines
        .iter()
        .map(|l| ("gitleaks-lines", l))
        .chain(handwritten.iter().map(|l| ("handwritten", l)));
    for (context, (line, s)) in contexts {
        let mut c = Content {
            goal: "corpus".into(),
            narrative: Some(line.clone()),
            ..Content::default()
        };
        let tally = if is_identifier(&s.rule) {
            &mut identifiers
        } else {
            by_context.entry(context).or_default()
        };
        let hit = score(&mut c, s, tally, &mut leaks_reported_redacted, &s.rule);
        if is_identifier(&s.rule) {
            continue;
        }
        let entry = by_rule.entry(s.rule.clone()).or_default();
        entry.0.total += 1;
        entry.0.hits += usize::from(hit);
        if !hit {
            entry.1.push(format!("{context}: {line:?}"));
        }
    }
    let mut overall = Tally::default();
    for t in by_context.values() {
        overall.hits += t.hits;
        overall.total += t.total;
        overall.redacted += t.redacted;
        overall.exact += t.exact;
        overall.mangled += t.mangled;
    }

    println!("\nPer rule (misses only):");
    for (rule, (t, misses)) in &by_rule {
        if t.hits < t.total {
            println!("  {rule}: {}/{}", t.hits, t.total);
            for m in misses {
                println!("      missed {}", m.chars().take(220).collect::<String>());
            }
        }
    }

    let (prose_changed, prose_total, prose_mangled) = changes("prose.txt");
    let (code_changed, code_total, code_mangled) = changes("code_prose.txt");
    let (neg_changed, neg_total, neg_mangled) = changes("gitleaks_negatives.jsonl");

    println!(
        "\nThe corpus: {} secrets in {} contexts, {} of gitleaks' literal sample lines, {} \
         hand-written lines; recall = caught / cases, precision = redacted exactly the secret \
         / redacted",
        secrets.len(),
        CONTEXTS.len(),
        lines.len(),
        handwritten.len()
    );
    println!("  context        recall              precision           mangled");
    let row = |name: &str, t: &Tally| {
        println!(
            "  {name:<14} {:.3} ({:>4}/{:<4})  {:.3} ({:>4}/{:<4})  {}",
            t.recall(),
            t.hits,
            t.total,
            t.precision(),
            t.exact,
            t.redacted,
            t.mangled
        );
    };
    for (context, t) in &by_context {
        row(context, t);
    }
    row("all", &overall);
    row("public ids", &identifiers);
    println!("  (public identifiers gitleaks also reports are not counted)");
    println!(
        "  lines changed that must stay: prose {prose_changed}/{prose_total}, code-like prose \
         {code_changed}/{code_total}, gitleaks' negative samples {neg_changed}/{neg_total} \
         ({:.1} %); mangled among them: {}",
        neg_changed as f64 * 100.0 / neg_total as f64,
        prose_mangled + code_mangled + neg_mangled
    );

    assert!(
        leaks_reported_redacted.is_empty(),
        "secrets survived a redaction that was reported:\n{}",
        leaks_reported_redacted.join("\n")
    );
    assert!(
        overall.recall() >= 0.96,
        "overall recall {:.3} < 0.96",
        overall.recall()
    );
    for (context, t) in &by_context {
        assert!(
            t.recall() >= 0.90,
            "recall in {context} {:.3} < 0.90",
            t.recall()
        );
    }
    assert_eq!(
        overall.mangled + prose_mangled + code_mangled + neg_mangled,
        0,
        "mangled lines (printed above)"
    );
    assert!(
        prose_total >= 450 && code_total >= 60 && neg_total >= 330,
        "the corpus shrank: {prose_total} prose, {code_total} code-like, {neg_total} negatives"
    );
    assert!(
        prose_changed + code_changed <= 1,
        "{} prose lines changed (at most 1 of {})",
        prose_changed + code_changed,
        prose_total + code_total
    );
    // gitleaks' negatives hold true secrets by our rules: other rules' keys (Cloudflare's
    // three kinds are each other's negatives), SDK example keys gitleaks allowlists one by one
    // (we keep no list of key values), passwords that were negatives only for their file name.
    // The target is 60 of 340; this pins what is reached (57 of 339) so that it cannot slip.
    let neg_bound = neg_total * 57 / 339;
    assert!(
        neg_changed <= neg_bound,
        "{neg_changed} of gitleaks' {neg_total} negative samples changed (at most {neg_bound})"
    );
}

/// Lines of `file` changed by redaction (printed), the number of lines, and how many of the
/// changes are malformed. `.jsonl` files hold `{"text": …}` objects; other files one line each.
fn changes(file: &str) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(Path::new(CORPUS).join(file)).unwrap();
    let (mut changed, mut total, mut mangled) = (0, 0, 0);
    for raw in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let line = if file.ends_with(".jsonl") {
            let v: serde_json::Value = serde_json::from_str(raw).unwrap();
            v["text"].as_str().unwrap().replace("%%", "")
        } else {
            raw.to_string()
        };
        total += 1;
        let (out, _) = redact_text(&line);
        if out != line {
            changed += 1;
            let torn = replaced_ranges(&line, &out).is_none_or(|ranges| {
                // A replaced range that starts or ends inside a word.
                ranges.iter().any(|&(a, b)| {
                    let inside = |i: usize| {
                        i > 0
                            && i < line.len()
                            && line.as_bytes()[i - 1].is_ascii_alphanumeric()
                            && line.as_bytes()[i].is_ascii_alphanumeric()
                    };
                    inside(a) || inside(b)
                })
            });
            mangled += usize::from(torn);
            println!(
                "  {file} changed{}: {line:?}\n             -> {out:?}",
                if torn { " (mangled)" } else { "" }
            );
        }
    }
    (changed, total, mangled)
}

/// The whole pipeline: every secret, in every context, written with `handover write`'s library
/// entry and read back from disk. No field that the write reported as redacted may still hold
/// any part of the secret (state.json, handover.md, the journal and the archive are all written
/// from the same redacted content).
#[test]
fn no_secret_survives_a_write_that_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::at(dir.path());
    let config = Config {
        standard_budget_tokens: 1_000_000,
        heavy_budget_tokens: 1_000_000,
        ..Config::default()
    };
    let mut leaks = Vec::new();
    let mut refused = 0;
    let mut checked = 0;
    for (n, s) in secrets().iter().enumerate() {
        let mut content = Content {
            goal: "corpus".into(),
            ..Content::default()
        };
        for context in CONTEXTS {
            for variant in 0..variants(context) {
                let c = case(context, n, s, variant);
                content
                    .evidence
                    .commands_run
                    .extend(c.evidence.commands_run);
                content.warnings.extend(c.warnings);
                content.environment.extend(c.environment);
                if let Some(text) = c.narrative {
                    content.blockers.push(text);
                }
            }
        }
        let request = Request {
            content,
            agent: Some("claude".into()),
            session_id: Some(format!("corpus-{n}")),
            shared: true,
            recorded: None,
        };
        let outcome = match write::write(&store, request, &config) {
            Ok(o) => o,
            Err(Refusal::Invalid(..)) => {
                refused += 1;
                continue;
            }
            Err(Refusal::Failed(e)) => panic!("write failed: {e:#}"),
        };
        let LoadOutcome::Loaded(loaded) = store.load() else {
            panic!("the handoff just written does not load");
        };
        let on_disk = visit_strings(&loaded.handoff.content);
        let markdown = std::fs::read_to_string(store.markdown_path()).unwrap();
        for r in &outcome.redactions {
            checked += 1;
            for (path, text) in &on_disk {
                if path == &r.field && survives(text, &s.core) {
                    leaks.push(format!("{} {}: {text}", s.rule, r.field));
                }
            }
        }
        // When every field holding the secret reported it, no file may hold it at all.
        let reported: std::collections::BTreeSet<&str> = outcome
            .redactions
            .iter()
            .map(|r| r.field.as_str())
            .collect();
        let all_reported = on_disk
            .iter()
            .all(|(path, _)| path == "goal" || reported.contains(path.as_str()));
        if all_reported && survives(&markdown, &s.core) {
            leaks.push(format!("{}: handover.md", s.rule));
        }
    }
    println!("writes: {checked} reported redactions checked on disk, {refused} writes refused");
    assert!(checked > 0);
    assert!(
        leaks.is_empty(),
        "reported redacted, still on disk:\n{}",
        leaks.join("\n")
    );
}
