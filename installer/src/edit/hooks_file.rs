//! One hooks JSON file (Claude Code settings, Codex hooks.json) as text: parsed keeping its
//! layout, edited by hooks_doc, rendered back. Unchanged content comes back byte-identical.

use crate::edit::hooks_doc::{self, Wanted};
use crate::edit::json_doc::{Map, Value};
use crate::edit::json_layout::{self, Layout};
use crate::error::EditError;
use crate::report::{any_effective, Change};
use std::path::Path;

/// A hooks file edited: its new text (None: the file goes away) and what changed in it.
pub type HooksEdit = Result<(Option<String>, Vec<Change>), EditError>;

enum JsonOp<'a> {
    Install(&'a [Wanted]),
    Uninstall,
}

/// One hooks JSON file (Claude settings or Codex hooks.json): text in, text out.
/// Unchanged content comes back byte-identical; changed content keeps the file's layout.
pub fn edit_hooks_json(path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
    let op = match want {
        Some(w) => JsonOp::Install(w),
        None => JsonOp::Uninstall,
    };
    let Some(text) = before else {
        return match op {
            JsonOp::Uninstall => Ok((None, Vec::new())),
            JsonOp::Install(w) => {
                let mut doc = Value::Object(Map::new());
                let changes = hooks_doc::install(&mut doc, w, path)?;
                Ok((Some(json_layout::render(&doc, &Layout::default())), changes))
            }
        };
    };
    let mut doc = json_layout::parse(path, text)?;
    let changes = match op {
        JsonOp::Install(w) => hooks_doc::install(&mut doc, w, path)?,
        JsonOp::Uninstall => hooks_doc::uninstall(&mut doc, path)?,
    };
    if !any_effective(&changes) {
        return Ok((Some(text.to_string()), changes));
    }
    let emptied = matches!(op, JsonOp::Uninstall) && doc.as_object().is_some_and(|m| m.is_empty());
    if emptied {
        // Nothing but our hooks was in it: the file goes, as it was before install created it.
        return Ok((None, changes));
    }
    Ok((
        Some(json_layout::render(&doc, &Layout::detect(text))),
        changes,
    ))
}
