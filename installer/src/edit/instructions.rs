//! The short handover section in the instruction files clients read (AGENTS.md, CLAUDE.md,
//! Gemini CLI's context file), between sentinel comments: checked, added, refreshed, removed
//! as text. Which files get it: `crate::plan::instruction_files`.
//!
//! Created if absent, refreshed only when its text changed, removed by uninstall (and the file
//! with it when nothing else is left in it). The rest of the file is never touched.

use crate::error::EditError;
use crate::report::{Change, ChangeKind};
use handover_base::text::line_column as line_col;
use std::path::Path;

pub const BEGIN: &str = "<!-- handover:begin -->";
pub const END: &str = "<!-- handover:end -->";

/// The section body (between the sentinels), LF line endings.
pub const BODY: &str = "\
## Handover between sessions
This repository uses handover to pass unfinished work from one agent session to the next.
- At session start, run `handover boot` if the handover context did not arrive on its own.
- Before your context fills up, save progress with `handover write` (see `handover write --help`).
- `handover.md` is the current handoff; the spec it names wins where the two disagree.
";

fn section(nl: &str) -> String {
    format!("{BEGIN}\n{BODY}{END}\n").replace('\n', nl)
}

/// Refuses a file whose sentinels are not exactly one BEGIN followed by one END (or none):
/// editing between mismatched markers could swallow the user's text.
pub fn check(file: &Path, text: &str) -> Result<(), EditError> {
    let begins: Vec<usize> = text.match_indices(BEGIN).map(|(i, _)| i).collect();
    let ends: Vec<usize> = text.match_indices(END).map(|(i, _)| i).collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(()),
        ([b], [e]) if b < e => Ok(()),
        _ => {
            let at = begins.first().or(ends.first()).copied().unwrap_or(0);
            let (line, col) = line_col(text, at);
            Err(EditError::at(
                file,
                line,
                col,
                format!("the handover section markers are broken (need exactly one `{BEGIN}` then one `{END}`); fix or delete them by hand, then run again"),
            ))
        }
    }
}

/// Byte range of the existing section (from BEGIN to the end of the END line), if well formed.
fn find(text: &str) -> Option<(usize, usize)> {
    let start = text.find(BEGIN)?;
    let end_rel = text[start..].find(END)?;
    let mut end = start + end_rel + END.len();
    if text[end..].starts_with("\r\n") {
        end += 2;
    } else if text[end..].starts_with('\n') {
        end += 1;
    }
    Some((start, end))
}

/// Ensures the section is present and current. `before` None = the file does not exist.
pub fn install(before: Option<&str>, what: &str) -> (String, Change) {
    let text = before.unwrap_or("");
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let want = section(nl);
    if let Some((s, e)) = find(text) {
        if text[s..e].trim_end() == want.trim_end() {
            return (text.to_string(), Change::new(ChangeKind::Unchanged, what));
        }
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..s]);
        out.push_str(&want);
        out.push_str(&text[e..]);
        return (out, Change::new(ChangeKind::Updated, what));
    }
    let mut out = text.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(nl);
    }
    out.push_str(&want);
    (out, Change::new(ChangeKind::Added, what))
}

/// Removes the section and the blank line install put before it. Returns None when the file
/// would be left empty (then the caller deletes it: nothing of the user's is in it).
pub fn uninstall(before: &str, what: &str) -> (Option<String>, Change) {
    let Some((s, e)) = find(before) else {
        return (
            Some(before.to_string()),
            Change::new(ChangeKind::Unchanged, what),
        );
    };
    let mut head = &before[..s];
    let tail = &before[e..];
    // Undo the separating blank line install added (only when the section was last).
    if tail.is_empty() {
        for sep in ["\r\n\r\n", "\n\n"] {
            if let Some(h) = head.strip_suffix(sep) {
                head = &before[..h.len() + sep.len() / 2];
                break;
            }
        }
    }
    let out = format!("{head}{tail}");
    if out.trim().is_empty() {
        return (None, Change::new(ChangeKind::Removed, what));
    }
    (Some(out), Change::new(ChangeKind::Removed, what))
}

pub fn is_present(text: &str) -> bool {
    find(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_appends_refreshes_and_removes() {
        let (created, c) = install(None, "AGENTS.md");
        assert_eq!(c.kind, ChangeKind::Added);
        assert!(created.starts_with(BEGIN) && created.ends_with(&format!("{END}\n")));
        assert_eq!(
            created.lines().count(),
            7,
            "short: sentinels plus five lines"
        );
        assert_eq!(install(Some(&created), "x").1.kind, ChangeKind::Unchanged);
        assert_eq!(uninstall(&created, "x").0, None);

        let user = "# Project\n\nRules.\n";
        let (with, _) = install(Some(user), "x");
        assert_eq!(with, format!("{user}\n{}", section("\n")));
        assert_eq!(install(Some(&with), "x").0, with);
        assert_eq!(uninstall(&with, "x").0.as_deref(), Some(user));

        let no_nl = "# Project";
        let (with, _) = install(Some(no_nl), "x");
        assert_eq!(with, format!("# Project\n\n{}", section("\n")));
        assert_eq!(
            uninstall(&with, "x").0.as_deref(),
            Some("# Project\n"),
            "semantically the original"
        );
    }

    #[test]
    fn broken_markers_are_refused_with_their_position() {
        let p = Path::new("AGENTS.md");
        assert!(check(p, "# x\n").is_ok());
        assert!(check(p, &install(Some("# x\n"), "x").0).is_ok());
        for bad in [
            format!("# x\n{BEGIN}\nno end\n"),
            format!("{END}\n{BEGIN}\n"),
            format!("a\n{BEGIN}\n{END}\n{BEGIN}\n{END}\n"),
        ] {
            let e = check(p, &bad).unwrap_err();
            assert!(
                e.to_string().starts_with("AGENTS.md:")
                    && e.to_string().contains("markers are broken"),
                "{e}"
            );
        }
        assert_eq!(
            check(p, &format!("# x\n{BEGIN}\n")).unwrap_err().position,
            Some((2, 1))
        );
    }

    #[test]
    fn keeps_crlf_and_text_after_the_section() {
        let old = format!("a\r\n{BEGIN}\r\nold text\r\n{END}\r\nz\r\n");
        let (new, c) = install(Some(&old), "x");
        assert_eq!(c.kind, ChangeKind::Updated);
        assert_eq!(new, format!("a\r\n{}z\r\n", section("\r\n")));
        assert_eq!(uninstall(&new, "x").0.as_deref(), Some("a\r\nz\r\n"));
    }
}
