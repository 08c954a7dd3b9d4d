//! The redaction corpus (tests/redaction_corpus/README.md): a synthetic secret for every gitleaks
//! rule plus hand-made shapes, each written in five contexts; several hundred lines of ordinary
//! handoff prose; gitleaks' own false-positive samples. Prints recall per context and per rule
//! and every prose line changed, and asserts the targets of issue 12: recall of at least 0.95
//! overall and 0.90 in each context, at most 1 % of prose changed, and no secret surviving a
//! write that reports it redacted.
//!
//! `cargo test --test redaction_corpus -- --nocapture` shows the figures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_core::config::Config;
use handover_core::model::*;
use handover_core::redact::{redact, redact_text};
use handover_core::store::{LoadOutcome, Store};
use handover_core::validate::visit_strings;
use handover_core::write::{self, Refusal, Request};
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

/// Sentences an agent might write; two of them name the provider only after the secret.
const SENTENCES: &[&str] = &[
    "The {P} key is {s} until we rotate it.",
    "Rotated the {P} token, the new one: {s}",
    "Use {s} for the {P} sandbox account.",
    "{P} credentials for staging are {s} (expires Friday).",
    "I pasted {s} into the {P} settings by mistake.",
    "Login to {P} works again with the secret {s} now.",
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

#[derive(Default)]
struct Tally {
    hits: usize,
    total: usize,
}

impl Tally {
    fn add(&mut self, hit: bool) {
        self.total += 1;
        self.hits += usize::from(hit);
    }
    fn recall(&self) -> f64 {
        self.hits as f64 / self.total.max(1) as f64
    }
}

#[test]
fn corpus_recall_prose_and_leaks() {
    let secrets = secrets();
    let mut by_context: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_rule: BTreeMap<String, (Tally, Vec<String>)> = BTreeMap::new();
    let mut identifiers = Tally::default();
    let mut overall = Tally::default();
    let mut leaks_reported_redacted = Vec::new();

    for (n, s) in secrets.iter().enumerate() {
        for context in CONTEXTS {
            for variant in 0..variants(context) {
                let mut c = case(context, n, s, variant);
                let input = serde_json::to_string(&c).unwrap();
                let found = redact(&mut c);
                let output = serde_json::to_string(&c).unwrap();
                let hit = !survives(&output, &s.core) && !found.is_empty();
                if survives(&output, &s.core) && !found.is_empty() {
                    leaks_reported_redacted.push(format!("{} [{context}]: {output}", s.rule));
                }
                if is_identifier(&s.rule) {
                    identifiers.add(hit);
                    continue;
                }
                by_context.entry(context).or_default().add(hit);
                overall.add(hit);
                let entry = by_rule.entry(s.rule.clone()).or_default();
                entry.0.add(hit);
                if !hit {
                    entry.1.push(format!("{context}: {input}"));
                }
            }
        }
    }

    println!(
        "\nRecall on the corpus ({} secrets, {} cases):",
        secrets.len(),
        overall.total
    );
    for (context, t) in &by_context {
        println!(
            "  {context:<12} {:.3}  ({}/{})",
            t.recall(),
            t.hits,
            t.total
        );
    }
    println!(
        "  {:<12} {:.3}  ({}/{})",
        "all",
        overall.recall(),
        overall.hits,
        overall.total
    );
    println!(
        "  public identifiers (not counted): {:.3} ({}/{})",
        identifiers.recall(),
        identifiers.hits,
        identifiers.total
    );
    println!("\nPer rule (misses only):");
    for (rule, (t, misses)) in &by_rule {
        if t.hits < t.total {
            println!("  {rule}: {}/{}", t.hits, t.total);
            for m in misses {
                println!("      missed {}", m.chars().take(220).collect::<String>());
            }
        }
    }

    let (prose_changed, prose_total) = prose_changes("prose.txt", 0);
    let (neg_changed, neg_total) = prose_changes("negatives.txt", 1);
    let prose_rate = prose_changed as f64 / prose_total as f64;
    println!(
        "\nProse changed: {prose_changed}/{prose_total} ({:.2} %); gitleaks' false-positive samples changed: {neg_changed}/{neg_total} ({:.1} %)",
        prose_rate * 100.0,
        neg_changed as f64 * 100.0 / neg_total as f64
    );

    assert!(
        leaks_reported_redacted.is_empty(),
        "secrets survived a redaction that was reported:\n{}",
        leaks_reported_redacted.join("\n")
    );
    assert!(
        overall.recall() >= 0.95,
        "overall recall {:.3} < 0.95",
        overall.recall()
    );
    for (context, t) in &by_context {
        assert!(
            t.recall() >= 0.90,
            "recall in {context} {:.3} < 0.90",
            t.recall()
        );
    }
    assert!(
        prose_total >= 300,
        "the prose corpus shrank to {prose_total} lines"
    );
    assert!(
        prose_rate <= 0.01,
        "{prose_changed} prose lines changed, over 1 %"
    );
}

/// Lines of `file` changed by redaction (printed); `column` picks the tab-separated field.
fn prose_changes(file: &str, column: usize) -> (usize, usize) {
    let text = std::fs::read_to_string(Path::new(CORPUS).join(file)).unwrap();
    let mut changed = 0;
    let mut total = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let line = line
            .split('\t')
            .nth(column)
            .unwrap_or(line)
            .replace("\\n", "\n");
        total += 1;
        let (out, _) = redact_text(&line);
        if out != line {
            changed += 1;
            println!("  {file} changed: {line:?}\n             -> {out:?}");
        }
    }
    (changed, total)
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
