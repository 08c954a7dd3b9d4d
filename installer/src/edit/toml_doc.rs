//! A TOML document edited through toml_edit (comments, spacing and order kept), read with an
//! error that names the file and position, written back in the file's own line endings (Codex's
//! config.toml, user and project).

use crate::error::EditError;
use handover_base::text::line_column as line_col;
use std::path::Path;
use toml_edit::DocumentMut;

pub fn parse(file: &Path, text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        EditError::at(
            file,
            line,
            col,
            format!(
                "not valid TOML ({}); fix the file, then run the command again",
                e.message().trim()
            ),
        )
    })
}

/// The edited document as text, in the original's line endings: a file written with CRLF only
/// stays CRLF (toml_edit writes what it adds with LF). A file that mixes both is left mixed.
pub fn render(doc: &DocumentMut, original: &str) -> String {
    in_endings_of(original, doc.to_string())
}

/// `text` with CRLF line endings when `original` used CRLF only; else `text` unchanged. Also
/// for the file Codex rewrote in the trust step (Codex 0.169.0 writes it back with LF).
pub fn in_endings_of(original: &str, text: String) -> String {
    let crlf_only = original.contains("\r\n") && !original.replace("\r\n", "").contains('\n');
    if !crlf_only {
        return text;
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}
