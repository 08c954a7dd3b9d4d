//! `handover.md` → Content: a line-based reader for exactly the form `render` writes (and the
//! edits a person makes to it). Every error names the line, what was expected and the fix.

use super::{normalize_name, unescape_line, Section};
use crate::model::{Assumption, Content, Decision, ImportantFile, Kind, Plan, Priority, Urgency};
use std::collections::BTreeMap;
use std::fmt;

/// A problem in the Markdown form, at a 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

/// A line with its 1-based number.
type Line<'a> = (usize, &'a str);

/// A `### Name` subsection: its fixed name, its line, and the entries under it.
type Subsection<'e, 'a> = (&'static str, usize, &'e [Entry<'a>]);

pub(super) fn parse(markdown: &str) -> Result<Content, ParseError> {
    let lines = without_comments(markdown)?;
    let mut content = Content::default();
    let mut seen: Vec<(Section, usize)> = Vec::new();

    // Before the first section: only the `# Title`, blank lines and comments.
    let mut i = 0;
    while i < lines.len() && !is_section_heading(lines[i].1) {
        let (no, text) = lines[i];
        if !text.trim().is_empty() && !is_title(text) {
            return err(
                no,
                format!(
                    "expected a `## Section` heading before any text, found `{}`. \
                     Put the text under one of: {}",
                    clip(text),
                    valid_headings()
                ),
            );
        }
        i += 1;
    }

    while i < lines.len() {
        let (no, text) = lines[i];
        let name = text.trim_start_matches('#').trim();
        let Some(section) = Section::from_heading(name) else {
            return err(
                no,
                format!("unknown section `## {name}`. Valid sections: {}. Fix the heading so no content is lost", valid_headings()),
            );
        };
        if let Some((_, first)) = seen.iter().find(|(s, _)| *s == section) {
            return err(
                no,
                format!(
                    "section `## {}` appears twice (first at line {first}); merge the two into one",
                    section.title()
                ),
            );
        }
        seen.push((section, no));
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !is_section_heading(lines[end].1) {
            end += 1;
        }
        read_section(section, &lines[start..end], &mut content)?;
        i = end;
    }
    Ok(content)
}

/// Drops `<!-- ... -->` comments that start at column 0 (possibly spanning lines) and strips
/// the `\r` of CRLF line ends.
fn without_comments(markdown: &str) -> Result<Vec<Line<'_>>, ParseError> {
    let mut out = Vec::new();
    let mut open_comment: Option<usize> = None;
    for (index, raw) in markdown.split('\n').enumerate() {
        let no = index + 1;
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        let comment_text = if open_comment.is_some() {
            Some(text)
        } else {
            text.strip_prefix("<!--")
        };
        if let Some(rest) = comment_text {
            match rest.find("-->") {
                Some(end) if !rest[end + 3..].trim().is_empty() => {
                    return err(
                        no,
                        "text after `-->` on the same line would be lost: move it to its own line",
                    );
                }
                Some(_) => open_comment = None,
                None => open_comment = open_comment.or(Some(no)),
            }
            continue;
        }
        out.push((no, text));
    }
    if let Some(no) = open_comment {
        return err(no, "comment `<!--` is never closed: add `-->` at its end");
    }
    // A final newline is not a line.
    if out.last().is_some_and(|(_, t)| t.is_empty()) {
        out.pop();
    }
    Ok(out)
}

fn heading_level(text: &str) -> Option<usize> {
    let level = text.chars().take_while(|&c| c == '#').count();
    let rest = &text[level..];
    (level > 0 && (rest.is_empty() || rest.starts_with(' '))).then_some(level)
}

fn is_section_heading(text: &str) -> bool {
    heading_level(text) == Some(2)
}

fn is_title(text: &str) -> bool {
    heading_level(text) == Some(1)
}

fn valid_headings() -> String {
    Section::ALL
        .iter()
        .map(|s| format!("`## {}`", s.title()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Long offending lines are shortened in messages.
fn clip(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

fn read_section(section: Section, body: &[Line<'_>], c: &mut Content) -> Result<(), ParseError> {
    let title = section.title();
    match section {
        Section::Metadata | Section::FilesChanged => {}
        Section::Goal => c.goal = paragraph(title, body)?,
        Section::Spec => c.spec_ref = Some(paragraph(title, body)?),
        Section::CurrentState => c.narrative = Some(paragraph(title, body)?),
        Section::NextAction => c.next_action = Some(paragraph(title, body)?),
        Section::Kind => c.kind = kind(body)?,
        Section::Completed => c.status.completed = list(title, &entries(title, body)?)?,
        Section::InProgress => c.status.in_progress = list(title, &entries(title, body)?)?,
        Section::Pending => c.status.pending = list(title, &entries(title, body)?)?,
        Section::Blockers => c.blockers = list(title, &entries(title, body)?)?,
        Section::Warnings => c.warnings = list(title, &entries(title, body)?)?,
        Section::StopConditions => c.stop_conditions = list(title, &entries(title, body)?)?,
        Section::Environment => c.environment = key_values(title, &entries(title, body)?)?,
        Section::Priorities => c.priorities = priorities(&entries(title, body)?)?,
        Section::Decisions => c.decisions = decisions(&entries(title, body)?)?,
        Section::Assumptions => c.assumptions = assumptions(&entries(title, body)?)?,
        Section::ImportantFiles => c.important_files = important_files(&entries(title, body)?)?,
        Section::Evidence => {
            let all = entries(title, body)?;
            for (name, _, items) in
                subsections(title, &all, &["Commands Run", "Measurements", "Artifacts"])?
            {
                match name {
                    "Commands Run" => c.evidence.commands_run = list(name, items)?,
                    "Measurements" => c.evidence.measurements = key_values(name, items)?,
                    _ => c.evidence.artifacts = list(name, items)?,
                }
            }
        }
        Section::Plan => {
            let names = [
                "Work Items",
                "Key Interfaces",
                "Dependencies",
                "Test Strategy",
            ];
            let mut plan = Plan::default();
            let all = entries(title, body)?;
            for (name, _, items) in subsections(title, &all, &names)? {
                let items = list(name, items)?;
                match name {
                    "Work Items" => plan.work_items = items,
                    "Key Interfaces" => plan.key_interfaces = items,
                    "Dependencies" => plan.dependencies = items,
                    _ => plan.test_strategy = items,
                }
            }
            c.plan = Some(plan);
        }
    }
    Ok(())
}

/// A section whose whole body is one value: blank lines at either end are dropped, lines are
/// unescaped, blank lines inside are kept.
fn paragraph(title: &str, body: &[Line<'_>]) -> Result<String, ParseError> {
    let first = body.iter().position(|(_, t)| !t.trim().is_empty());
    let last = body.iter().rposition(|(_, t)| !t.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(String::new());
    };
    let mut lines = Vec::new();
    for &(no, text) in &body[first..=last] {
        if text.starts_with('#') {
            return err(
                no,
                format!(
                    "unexpected heading `{}` inside `## {title}`. If it is text, write `\\{}`; \
                     if it starts a section, use `## ` and one of: {}",
                    clip(text),
                    clip(text),
                    valid_headings()
                ),
            );
        }
        lines.push(unescape_line(text));
    }
    Ok(lines.join("\n"))
}

fn kind(body: &[Line<'_>]) -> Result<Kind, ParseError> {
    let text = paragraph("Kind", body)?;
    match text.trim().to_lowercase().as_str() {
        "" | "standard" => Ok(Kind::Standard),
        "heavy" => Ok(Kind::Heavy),
        other => {
            let no = body
                .iter()
                .find(|(_, t)| !t.trim().is_empty())
                .map_or(0, |(n, _)| *n);
            err(
                no,
                format!("unknown kind `{other}`: write `standard` or `heavy`"),
            )
        }
    }
}

/// One `- item` or `### title`, with its continuation lines (indent removed, not unescaped).
struct Entry<'a> {
    line: usize,
    heading: bool,
    first: &'a str,
    more: Vec<&'a str>,
}

impl Entry<'_> {
    /// The entry's text from `first` (or from an offset into it) through its continuations.
    fn value_from(&self, first: &str) -> String {
        let mut lines = vec![unescape_line(first)];
        lines.extend(self.more.iter().map(|l| unescape_line(l)));
        lines.join("\n")
    }

    fn value(&self) -> String {
        self.value_from(self.first)
    }
}

/// Splits a list-like body into entries. Blank lines end an entry; a line indented by two
/// spaces continues the entry just above it.
fn entries<'a>(title: &str, body: &[Line<'a>]) -> Result<Vec<Entry<'a>>, ParseError> {
    let mut out: Vec<Entry<'a>> = Vec::new();
    let mut open = false;
    for &(no, text) in body {
        if text.trim().is_empty() {
            open = false;
            continue;
        }
        if let Some(rest) = text.strip_prefix("  ") {
            match out.last_mut() {
                Some(entry) if open => entry.more.push(rest),
                _ => {
                    return err(
                        no,
                        format!(
                            "indented line `{}` in `## {title}` does not continue an item: \
                             continuation lines must follow their item directly (no blank line \
                             between); to start a new item write `- ` at column 0",
                            clip(text.trim())
                        ),
                    )
                }
            }
            continue;
        }
        let (heading, first) = if text == "-" {
            (false, "")
        } else if let Some(rest) = text.strip_prefix("- ") {
            (false, rest)
        } else if heading_level(text) == Some(3) {
            (true, text.strip_prefix("### ").unwrap_or(""))
        } else if text.starts_with('#') {
            return err(no, format!("unexpected heading `{}`: inside a section only `### ` subsections are used; write `\\#` for literal text", clip(text)));
        } else if text.starts_with("* ") || text.starts_with("+ ") {
            return err(
                no,
                format!(
                    "list items in `## {title}` start with `- `, not `{}`",
                    &text[..1]
                ),
            );
        } else {
            return err(
                no,
                format!(
                    "expected a list item `- ...` in `## {title}`, found `{}`. Start the line with \
                     `- `, or indent it by two spaces to continue the item above",
                    clip(text)
                ),
            );
        };
        out.push(Entry {
            line: no,
            heading,
            first,
            more: Vec::new(),
        });
        open = true;
    }
    Ok(out)
}

fn no_headings(title: &str, entries: &[Entry<'_>]) -> Result<(), ParseError> {
    match entries.iter().find(|e| e.heading) {
        Some(e) => err(
            e.line,
            format!(
                "`### ` subsections are not used in `## {title}`: write each entry as `- text`"
            ),
        ),
        None => Ok(()),
    }
}

fn list(title: &str, entries: &[Entry<'_>]) -> Result<Vec<String>, ParseError> {
    no_headings(title, entries)?;
    Ok(entries.iter().map(Entry::value).collect())
}

/// `- KEY: value`, the key with `\\`, `\:`, `\n`, `\r` escapes.
fn key_values(title: &str, entries: &[Entry<'_>]) -> Result<BTreeMap<String, String>, ParseError> {
    no_headings(title, entries)?;
    let mut out = BTreeMap::new();
    let mut lines: BTreeMap<String, usize> = BTreeMap::new();
    for e in entries {
        let (key, rest) = split_key(e.first).ok_or_else(|| ParseError {
            line: e.line,
            message: format!("expected `- KEY: value` in `## {title}` (a colon after the key); write a colon inside a key as `\\:`"),
        })?;
        if let Some(first) = lines.get(&key) {
            return err(
                e.line,
                format!("key `{key}` appears twice in `{title}` (first at line {first}): keep one"),
            );
        }
        lines.insert(key.clone(), e.line);
        out.insert(key, e.value_from(rest));
    }
    Ok(out)
}

/// Splits `KEY: value` at the first unescaped colon; the value loses one leading space.
fn split_key(text: &str) -> Option<(String, &str)> {
    let mut key = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, ':')) => key.push(':'),
                Some((_, '\\')) => key.push('\\'),
                Some((_, 'n')) => key.push('\n'),
                Some((_, 'r')) => key.push('\r'),
                Some((_, other)) => {
                    key.push('\\');
                    key.push(other);
                }
                None => key.push('\\'),
            },
            ':' => {
                let rest = &text[i + 1..];
                return Some((key, rest.strip_prefix(' ').unwrap_or(rest)));
            }
            c => key.push(c),
        }
    }
    None
}

/// `- Key: value` inside a record: the normalized key and the raw value.
fn field<'a>(e: &Entry<'a>, record: &str, valid: &str) -> Result<(String, &'a str), ParseError> {
    match e.first.split_once(':') {
        Some((key, rest)) if !e.heading => {
            Ok((normalize_name(key), rest.strip_prefix(' ').unwrap_or(rest)))
        }
        _ => err(
            e.line,
            format!("expected a field `- Key: value` of the {record} above (one of {valid})"),
        ),
    }
}

/// "a" or "an" before a record's name (`decision`, `assumption`, `file`).
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Groups record entries: each `### title` with the `- Key: value` fields under it.
fn records<'e, 'a>(
    entries: &'e [Entry<'a>],
    record: &str,
) -> Result<Vec<(&'e Entry<'a>, &'e [Entry<'a>])>, ParseError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let head = &entries[i];
        if !head.heading {
            return err(
                head.line,
                format!(
                    "expected `### <{record}>` to start {} {record}, found `- {}`; put a `### ` heading above the fields",
                    article(record),
                    clip(head.first)
                ),
            );
        }
        let end = entries[i + 1..]
            .iter()
            .position(|e| e.heading)
            .map_or(entries.len(), |p| i + 1 + p);
        out.push((head, &entries[i + 1..end]));
        i = end;
    }
    Ok(out)
}

fn set_once(
    slot: &mut Option<String>,
    value: String,
    e: &Entry<'_>,
    key: &str,
) -> Result<(), ParseError> {
    if slot.is_some() {
        return err(
            e.line,
            format!("`{key}` is given twice for the same entry: keep one"),
        );
    }
    *slot = Some(value);
    Ok(())
}

fn yes_no(e: &Entry<'_>, raw: &str, key: &str) -> Result<bool, ParseError> {
    match e.value_from(raw).trim().to_lowercase().as_str() {
        "yes" | "true" | "y" => Ok(true),
        "no" | "false" | "n" | "" => Ok(false),
        other => err(e.line, format!("`{key}: {other}`: write `yes` or `no`")),
    }
}

fn decisions(entries: &[Entry<'_>]) -> Result<Vec<Decision>, ParseError> {
    let valid = "`Why`, `Alternative`, `Reversible`, `Deferred`";
    let mut out = Vec::new();
    for (head, fields) in records(entries, "decision")? {
        let mut d = Decision {
            what: head.value(),
            ..Decision::default()
        };
        let mut why = None;
        for e in fields {
            let (key, raw) = field(e, "decision", valid)?;
            match key.as_str() {
                "why" => set_once(&mut why, e.value_from(raw), e, "Why")?,
                "alternative" | "alternatives" => d.alternatives.push(e.value_from(raw)),
                "reversible" => d.reversible = Some(yes_no(e, raw, "Reversible")?),
                "deferred" => d.deferred = yes_no(e, raw, "Deferred")?,
                _ => {
                    return err(
                        e.line,
                        format!("unknown decision field `{key}`: valid fields are {valid}"),
                    )
                }
            }
        }
        d.why = why.unwrap_or_default();
        out.push(d);
    }
    Ok(out)
}

fn assumptions(entries: &[Entry<'_>]) -> Result<Vec<Assumption>, ParseError> {
    let valid = "`Why`, `Impact if wrong`";
    let mut out = Vec::new();
    for (head, fields) in records(entries, "assumption")? {
        let (mut why, mut impact) = (None, None);
        for e in fields {
            let (key, raw) = field(e, "assumption", valid)?;
            match key.as_str() {
                "why" => set_once(&mut why, e.value_from(raw), e, "Why")?,
                "impact if wrong" | "impact" => {
                    set_once(&mut impact, e.value_from(raw), e, "Impact if wrong")?
                }
                _ => {
                    return err(
                        e.line,
                        format!("unknown assumption field `{key}`: valid fields are {valid}"),
                    )
                }
            }
        }
        out.push(Assumption {
            assumption: head.value(),
            why: why.unwrap_or_default(),
            impact_if_wrong: impact.unwrap_or_default(),
        });
    }
    Ok(out)
}

fn important_files(entries: &[Entry<'_>]) -> Result<Vec<ImportantFile>, ParseError> {
    let mut out = Vec::new();
    for (head, fields) in records(entries, "file")? {
        let mut why = None;
        for e in fields {
            let (key, raw) = field(e, "file", "`Why`")?;
            match key.as_str() {
                "why" => set_once(&mut why, e.value_from(raw), e, "Why")?,
                _ => {
                    return err(
                        e.line,
                        format!("unknown file field `{key}`: the only field is `Why`"),
                    )
                }
            }
        }
        out.push(ImportantFile {
            path: head.value(),
            why: why.unwrap_or_default(),
        });
    }
    Ok(out)
}

fn priorities(entries: &[Entry<'_>]) -> Result<Vec<Priority>, ParseError> {
    no_headings("Priorities", entries)?;
    let valid = Urgency::ALL
        .iter()
        .map(|u| format!("`{}`", u.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = Vec::new();
    for e in entries {
        let parsed = e.first.split_once(':').and_then(|(word, rest)| {
            let urgency = Urgency::parse(&normalize_name(word).replace(' ', "_"))?;
            Some((urgency, rest.strip_prefix(' ').unwrap_or(rest)))
        });
        let Some((urgency, raw)) = parsed else {
            return err(
                e.line,
                format!("expected `- URGENCY: task` where URGENCY is one of {valid}"),
            );
        };
        out.push(Priority {
            task: e.value_from(raw),
            urgency,
        });
    }
    Ok(out)
}

/// A section made of fixed `### Name` subsections (Evidence, Plan): each name with its items.
fn subsections<'e, 'a>(
    title: &str,
    entries: &'e [Entry<'a>],
    names: &[&'static str],
) -> Result<Vec<Subsection<'e, 'a>>, ParseError> {
    let valid = names
        .iter()
        .map(|n| format!("`### {n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut out: Vec<Subsection<'e, 'a>> = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let head = &entries[i];
        if !head.heading {
            return err(head.line, format!("expected a subsection heading in `## {title}` before this item: one of {valid}"));
        }
        let wanted = normalize_name(&head.value());
        let Some(name) = names.iter().copied().find(|n| normalize_name(n) == wanted) else {
            return err(
                head.line,
                format!(
                    "unknown subsection `### {}` in `## {title}`: valid ones are {valid}",
                    clip(head.first)
                ),
            );
        };
        if let Some((_, first, _)) = out.iter().find(|(n, _, _)| *n == name) {
            return err(head.line, format!("`### {name}` appears twice in `## {title}` (first at line {first}): merge them"));
        }
        let end = entries[i + 1..]
            .iter()
            .position(|e| e.heading)
            .map_or(entries.len(), |p| i + 1 + p);
        out.push((name, head.line, &entries[i + 1..end]));
        i = end;
    }
    Ok(out)
}
