//! `handover.md`: the handoff rendered for people, and parsed back (a hand-edited file
//! round-trips through `handover write --from handover.md` without losing any field).
//!
//! The form is a small, fixed dialect of Markdown (docs/format.md, "The Markdown form"):
//! `## Section` headings, `- item` lists, `### title` records with `- Key: value` fields, and
//! values continued on following lines indented by two spaces. Values are taken literally;
//! the only escapes are a `\` at the start of a line and a `\` at the end of a line:
//!
//! - a value line that is empty, starts with `\`, or (at column 0) starts with `#` or `<!--`
//!   gets a `\` in front;
//! - a value line that ends with whitespace or `\` gets a `\` after it (editors strip trailing
//!   spaces, and Markdown reads them as line breaks).
//!
//! Reading drops one leading and one trailing `\` from every value line. Nothing else is
//! escaped: `*`, `_`, backticks, `::` and colons inside values are kept as written.

mod parse;
mod render;

use crate::model::{Content, Handoff};

pub use parse::ParseError;

/// Renders the handoff as `handover.md`.
pub fn render(handoff: &Handoff) -> String {
    render::render(handoff)
}

/// Parses the Markdown form back into the writer's content. Errors name the line and the fix
/// (the error is a [`ParseError`]). Tool-filled sections (Metadata, Files Changed) are ignored;
/// missing sections are empty.
pub fn parse(markdown: &str) -> anyhow::Result<Content> {
    parse::parse(markdown).map_err(anyhow::Error::from)
}

/// The `## ` sections, in the order they are rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Goal,
    Spec,
    Metadata,
    CurrentState,
    Completed,
    InProgress,
    Pending,
    Decisions,
    Assumptions,
    Blockers,
    Warnings,
    ImportantFiles,
    FilesChanged,
    Evidence,
    Environment,
    NextAction,
    Priorities,
    StopConditions,
    Kind,
    Plan,
}

impl Section {
    const ALL: [Section; 20] = [
        Section::Goal,
        Section::Spec,
        Section::Metadata,
        Section::CurrentState,
        Section::Completed,
        Section::InProgress,
        Section::Pending,
        Section::Decisions,
        Section::Assumptions,
        Section::Blockers,
        Section::Warnings,
        Section::ImportantFiles,
        Section::FilesChanged,
        Section::Evidence,
        Section::Environment,
        Section::NextAction,
        Section::Priorities,
        Section::StopConditions,
        Section::Kind,
        Section::Plan,
    ];

    /// The heading as rendered.
    fn title(self) -> &'static str {
        match self {
            Section::Goal => "Goal",
            Section::Spec => "Spec (source of truth)",
            Section::Metadata => "Metadata",
            Section::CurrentState => "Current State",
            Section::Completed => "Completed",
            Section::InProgress => "In Progress",
            Section::Pending => "Pending",
            Section::Decisions => "Decisions",
            Section::Assumptions => "Assumptions",
            Section::Blockers => "Blockers",
            Section::Warnings => "Warnings",
            Section::ImportantFiles => "Important Files",
            Section::FilesChanged => "Files Changed",
            Section::Evidence => "Evidence",
            Section::Environment => "Environment",
            Section::NextAction => "Next Action",
            Section::Priorities => "Priorities",
            Section::StopConditions => "Stop Conditions",
            Section::Kind => "Kind",
            Section::Plan => "Plan",
        }
    }

    /// Matches a heading case-insensitively, ignoring extra spaces; `Spec` alone is accepted.
    fn from_heading(text: &str) -> Option<Section> {
        let wanted = normalize_name(text);
        if wanted == "spec" {
            return Some(Section::Spec);
        }
        Section::ALL
            .into_iter()
            .find(|s| normalize_name(s.title()) == wanted)
    }
}

/// Lowercase, `_`/`-` as spaces, runs of spaces collapsed: how headings and keys are compared.
fn normalize_name(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '_' || c == '-')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Escapes one line of a value. `at_column_0` is true for paragraph lines, which start the
/// physical line and so must not look like a heading or a comment.
fn escape_line(line: &str, at_column_0: bool) -> String {
    let lead = line.is_empty()
        || line.starts_with('\\')
        || (at_column_0 && (line.starts_with('#') || line.starts_with("<!--")));
    let trail = line.ends_with(|c: char| c.is_whitespace() || c == '\\');
    let mut out = String::with_capacity(line.len() + 2);
    if lead {
        out.push('\\');
    }
    out.push_str(line);
    if trail {
        out.push('\\');
    }
    out
}

/// The inverse of [`escape_line`]: drops one leading and one trailing `\`.
fn unescape_line(raw: &str) -> &str {
    let s = raw.strip_prefix('\\').unwrap_or(raw);
    s.strip_suffix('\\').unwrap_or(s)
}

/// Map keys (Environment, Measurements) end at the first unescaped `:`, so inside a key `\`,
/// `:`, newline and carriage return are written `\\`, `\:`, `\n`, `\r`.
fn escape_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ':' => out.push_str("\\:"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}
