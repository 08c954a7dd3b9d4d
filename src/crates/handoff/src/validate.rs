//! Checks before writing: goal present, size within budget, no pasted logs, evidence for
//! completed claims, the facts_only policy.

use crate::config::Config;
use crate::model::{Content, Kind};
/// The string visitors lived here first; redaction and sanitizing use them too.
pub use crate::strings::{visit_strings, visit_strings_mut};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Findings {
    /// Refuse the write; each names the field and the fix.
    pub errors: Vec<String>,
    /// Write, but tell the writer.
    pub warnings: Vec<String>,
    pub estimated_tokens: usize,
    pub budget_tokens: usize,
}

impl Findings {
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Longest narrative, in characters: 3–5 sentences fit comfortably.
pub const NARRATIVE_MAX_CHARS: usize = 1200;
/// Longest other string, in characters: an item is a pointer, not a paste.
pub const FIELD_MAX_CHARS: usize = 400;
/// Most lines in one string other than the narrative.
pub const FIELD_MAX_LINES: usize = 5;

const POINTER_FIX: &str = "put the output in a file and reference it (evidence.artifacts)";

pub fn check(content: &Content, config: &Config) -> Findings {
    let mut f = Findings {
        estimated_tokens: estimate_tokens(content),
        budget_tokens: match content.kind {
            Kind::Standard => config.standard_budget_tokens,
            Kind::Heavy => config.heavy_budget_tokens,
        },
        ..Findings::default()
    };

    if content.goal.trim().is_empty() {
        f.errors.push("`goal` is missing: say in one sentence what the work is for (JSON key `goal`, or the `## Goal` section)".into());
    }

    if f.estimated_tokens > f.budget_tokens {
        f.errors
            .push(size_message(content, f.estimated_tokens, f.budget_tokens));
    }

    if content.plan.is_some() && content.kind == Kind::Standard {
        f.warnings.push(format!(
            "`plan` is only meant for heavy handoffs: set `kind: heavy` (budget {} tokens) or drop the plan",
            config.heavy_budget_tokens
        ));
    }

    for (path, text) in visit_strings(content) {
        if let Some(problem) = pasted_output(&path, text) {
            f.errors.push(format!("`{path}` {problem}: {POINTER_FIX}"));
        }
    }

    if !content.status.completed.is_empty() && content.evidence.is_empty() {
        f.warnings.push(
            "claims without evidence: `status.completed` has items but `evidence` is empty; add \
             commands_run, measurements or artifacts"
                .into(),
        );
    }

    if config.facts_only {
        let policy = "this repository's policy is `facts_only` (.handover/config.toml): the next \
                      session plans from the spec, not from an inherited plan";
        if content
            .next_action
            .as_deref()
            .is_some_and(|n| !n.trim().is_empty())
        {
            f.errors.push(format!("`next_action` is not allowed: {policy}. Remove it; record facts (status, blockers, decisions) instead"));
        }
        if !content.priorities.is_empty() {
            f.errors.push(format!("`priorities` are not allowed: {policy}. Remove them; record facts (status, blockers, decisions) instead"));
        }
    }

    sanity(content, &mut f.warnings);
    f
}

/// Estimated tokens of the content as stored: ceil(characters / 4) over the compact JSON of
/// the content (characters are Unicode scalar values). A rough, stable, dependency-free
/// stand-in for a tokenizer; English prose and JSON average about 4 characters per token.
pub fn estimate_tokens(content: &Content) -> usize {
    let json = serde_json::to_string(content).unwrap_or_default();
    json.chars().count().div_ceil(4)
}

fn size_message(content: &Content, estimate: usize, budget: usize) -> String {
    // Name the biggest top-level fields, so the writer knows what to cut.
    let mut sizes: Vec<(String, usize)> = match serde_json::to_value(content) {
        Ok(serde_json::Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| {
                (
                    k,
                    serde_json::to_string(&v)
                        .unwrap_or_default()
                        .chars()
                        .count()
                        .div_ceil(4),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    sizes.sort_by_key(|s| std::cmp::Reverse(s.1));
    let biggest = sizes
        .iter()
        .take(3)
        .map(|(k, n)| format!("{k} ~{n}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "the handoff is about {estimate} tokens (estimate: characters of its compact JSON / 4) and \
         the {} budget is {budget}. Largest fields: {biggest}. Cut: shorten the narrative to 3-5 \
         sentences, move long details into files and list them in important_files or \
         evidence.artifacts{}",
        content.kind.as_str(),
        if content.kind == Kind::Standard { ", or use `kind: heavy` for a multi-session plan" } else { "" }
    )
}

/// Why a string looks like pasted output, if it does.
fn pasted_output(path: &str, text: &str) -> Option<String> {
    let chars = text.chars().count();
    let is_narrative = path == "narrative";
    if text.contains('\u{1b}') {
        return Some("contains terminal escape codes (pasted output)".into());
    }
    if text.contains("Traceback (most recent call last)") {
        return Some("contains a Python traceback".into());
    }
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().any(|l| l.trim_start().starts_with("npm ERR!")) {
        return Some("contains npm error output".into());
    }
    if lines.len() >= 2 && lines.iter().any(|l| is_rust_error(l)) {
        return Some("contains compiler error output".into());
    }
    let frames = lines.iter().filter(|l| is_stack_frame(l)).count();
    if frames >= 2 {
        return Some(format!("contains a stack trace ({frames} frames)"));
    }
    let stamped = lines.iter().filter(|l| starts_with_timestamp(l)).count();
    if stamped >= 2 {
        return Some(format!(
            "looks like a log ({stamped} lines start with a timestamp)"
        ));
    }
    if is_narrative {
        if chars > NARRATIVE_MAX_CHARS {
            return Some(format!("is {chars} characters (the narrative is 3-5 sentences, at most {NARRATIVE_MAX_CHARS})"));
        }
    } else {
        if chars > FIELD_MAX_CHARS {
            return Some(format!(
                "is {chars} characters (at most {FIELD_MAX_CHARS} outside the narrative)"
            ));
        }
        if lines.len() > FIELD_MAX_LINES {
            return Some(format!(
                "has {} lines (at most {FIELD_MAX_LINES} in one entry)",
                lines.len()
            ));
        }
    }
    None
}

/// `error[E0502]: ...` at the start of a line.
fn is_rust_error(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("error[E") else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits >= 4 && rest[digits..].starts_with("]:")
}

/// `    at foo (file.js:1:2)`, `  at file.js:1:2`, `  File "x.py", line 3, in f`,
/// `  at com.Foo.bar(Foo.java:12)`.
fn is_stack_frame(line: &str) -> bool {
    let indented = line.starts_with([' ', '\t']);
    let t = line.trim_start();
    if !indented {
        return false;
    }
    if t.starts_with("File \"") && t.contains("\", line ") {
        return true;
    }
    let Some(rest) = t.strip_prefix("at ") else {
        return false;
    };
    // A location `name:digits` somewhere in the frame.
    rest.split(':')
        .skip(1)
        .any(|part| part.chars().next().is_some_and(|c| c.is_ascii_digit()))
        || (rest.contains('(') && rest.ends_with(')') && rest.contains(".java"))
}

/// `2026-11-22T02:14:51`, `2026-11-22 02:14`, `[2026-11-22 02:14:51]`, `02:14:51 ` at the start
/// of a line: a date alone ("2026-11-20: did X") is prose, a time of day makes it a log.
fn starts_with_timestamp(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches('[');
    let b = t.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let time_at = |i: usize| {
        digit(i) && digit(i + 1) && b.get(i + 2) == Some(&b':') && digit(i + 3) && digit(i + 4)
    };
    let date = (0..4).all(digit)
        && b.get(4) == Some(&b'-')
        && digit(5)
        && digit(6)
        && b.get(7) == Some(&b'-')
        && digit(8)
        && digit(9);
    if date {
        return matches!(b.get(10), Some(b'T' | b' ')) && time_at(11);
    }
    time_at(0) && b.get(5) == Some(&b':') && digit(6) && digit(7)
}

/// Modest consistency checks: decisions without a reason, duplicated entries, an item both
/// completed and still open.
fn sanity(c: &Content, warnings: &mut Vec<String>) {
    for (i, d) in c.decisions.iter().enumerate() {
        if d.why.trim().is_empty() {
            warnings.push(format!(
                "`decisions[{i}]` (\"{}\") has no `why`: say why, so the next session does not undo it",
                clip(d.what.trim())
            ));
        }
    }
    let lists: [(&str, Vec<&str>); 10] = [
        (
            "status.completed",
            c.status.completed.iter().map(String::as_str).collect(),
        ),
        (
            "status.in_progress",
            c.status.in_progress.iter().map(String::as_str).collect(),
        ),
        (
            "status.pending",
            c.status.pending.iter().map(String::as_str).collect(),
        ),
        ("blockers", c.blockers.iter().map(String::as_str).collect()),
        ("warnings", c.warnings.iter().map(String::as_str).collect()),
        (
            "stop_conditions",
            c.stop_conditions.iter().map(String::as_str).collect(),
        ),
        (
            "evidence.commands_run",
            c.evidence.commands_run.iter().map(String::as_str).collect(),
        ),
        (
            "evidence.artifacts",
            c.evidence.artifacts.iter().map(String::as_str).collect(),
        ),
        (
            "decisions",
            c.decisions.iter().map(|d| d.what.as_str()).collect(),
        ),
        (
            "important_files",
            c.important_files.iter().map(|f| f.path.as_str()).collect(),
        ),
    ];
    for (path, items) in &lists {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (i, item) in items.iter().enumerate() {
            let key = item.trim().to_lowercase();
            if key.is_empty() {
                continue;
            }
            if let Some(first) = seen.get(&key) {
                warnings.push(format!(
                    "`{path}[{i}]` duplicates `{path}[{first}]` (\"{}\"): keep one",
                    clip(item.trim())
                ));
            } else {
                seen.insert(key, i);
            }
        }
    }
    for done in &c.status.completed {
        let key = done.trim().to_lowercase();
        if key.is_empty() {
            continue;
        }
        let open = c
            .status
            .in_progress
            .iter()
            .chain(&c.status.pending)
            .any(|o| o.trim().to_lowercase() == key);
        if open {
            warnings.push(format!("\"{}\" is both completed and still open (in_progress or pending): keep it in one place", clip(done.trim())));
        }
    }
}

/// Long entries are shortened when quoted back in a message.
fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}
