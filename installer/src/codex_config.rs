//! Codex's USER `config.toml` (`$CODEX_HOME/config.toml`): the hooks feature flag, project trust,
//! and hook-trust entries. Edited through toml_edit so comments, spacing and order stay.
//!
//! We never write `codex_hooks` (the deprecated name). The feature flag is only reported unless
//! the user passes the explicit flag; trust only with `--trust`.

use crate::error::EditError;
use crate::report::{Change, ChangeKind};
use handover_base::text::line_column as line_col;
use std::path::Path;
use toml_edit::{DocumentMut, Item, Table};

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

/// What the user set for the hooks feature, if anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureFlags {
    /// `[features] hooks = ...`
    pub hooks: Option<bool>,
    /// `[features] codex_hooks = ...` (deprecated name).
    pub codex_hooks: Option<bool>,
}

impl FeatureFlags {
    pub fn disabled(&self) -> bool {
        self.hooks == Some(false) || self.codex_hooks == Some(false)
    }

    /// A message saying what is off and how to fix it; None when hooks are on.
    pub fn problem(&self, file: &Path) -> Option<String> {
        if !self.disabled() {
            return None;
        }
        let which = match (self.hooks, self.codex_hooks) {
            (Some(false), Some(false)) => "`hooks = false` and `codex_hooks = false`",
            (Some(false), _) => "`hooks = false`",
            _ => "`codex_hooks = false` (deprecated name)",
        };
        Some(format!(
            "Codex hooks are turned off in {}: [features] {which}. Codex will not run any hook. \
             Fix: set `hooks = true` under [features] (and delete `codex_hooks`), or run \
             `handover install --codex --enable-codex-hooks`.",
            file.display()
        ))
    }
}

pub fn feature_flags(doc: &DocumentMut) -> FeatureFlags {
    let features = doc.get("features").and_then(Item::as_table_like);
    let get = |k: &str| features.and_then(|t| t.get(k)).and_then(Item::as_bool);
    FeatureFlags {
        hooks: get("hooks"),
        codex_hooks: get("codex_hooks"),
    }
}

/// With the user's explicit flag: `hooks = false` becomes `true` (keeping its comments), and a
/// `codex_hooks = false` line is deleted. Nothing is added when the user set neither.
pub fn enable_hooks(doc: &mut DocumentMut) -> Vec<Change> {
    let mut changes = Vec::new();
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    if let Some(item) = features.get_mut("hooks") {
        if item.as_bool() == Some(false) {
            if let Some(v) = item.as_value_mut() {
                let decor = v.decor().clone();
                *v = toml_edit::Value::from(true);
                *v.decor_mut() = decor;
                changes.push(Change::new(ChangeKind::Updated, "[features] hooks = true"));
            }
        }
    }
    if features.get("codex_hooks").and_then(Item::as_bool) == Some(false) {
        features.remove("codex_hooks");
        changes.push(Change::new(
            ChangeKind::Removed,
            "[features] codex_hooks = false",
        ));
    }
    changes
}

/// The `trust_level` recorded for a project directory, if any.
pub fn project_trust(doc: &DocumentMut, project: &Path) -> Option<String> {
    let key = project.to_string_lossy();
    doc.get("projects")
        .and_then(Item::as_table_like)
        .and_then(|p| p.get(&key))
        .and_then(Item::as_table_like)
        .and_then(|t| t.get("trust_level"))
        .and_then(Item::as_str)
        .map(str::to_string)
}

/// `[projects."<abs>"] trust_level = "trusted"`, creating no empty `[projects]` header.
pub fn trust_project(
    doc: &mut DocumentMut,
    project: &Path,
    file: &Path,
) -> Result<Change, EditError> {
    let key = project.to_string_lossy().into_owned();
    let what = format!("[projects.\"{key}\"] trust_level = \"trusted\"");
    let root = doc.as_table_mut();
    if !root.contains_key("projects") {
        let mut t = Table::new();
        t.set_implicit(true);
        root.insert("projects", Item::Table(t));
    }
    let wrong = |k: &str| {
        EditError::new(
            file,
            format!("`{k}` is not a table; fix it by hand, then run the command again"),
        )
    };
    let inline = matches!(
        root.get("projects"),
        Some(Item::Value(toml_edit::Value::InlineTable(_)))
    );
    let projects = root
        .get_mut("projects")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| wrong("projects"))?;
    match projects.get_mut(&key) {
        Some(item) => {
            let t = item
                .as_table_like_mut()
                .ok_or_else(|| wrong(&format!("projects.\"{key}\"")))?;
            if t.get("trust_level").and_then(Item::as_str) == Some("trusted") {
                return Ok(Change::new(ChangeKind::Unchanged, what));
            }
            t.insert("trust_level", toml_edit::value("trusted"));
            Ok(Change::new(ChangeKind::Updated, what))
        }
        None => {
            let mut t = Table::new();
            t.insert("trust_level", toml_edit::value("trusted"));
            let item = if inline {
                Item::Value(toml_edit::Value::InlineTable(t.into_inline_table()))
            } else {
                Item::Table(t)
            };
            projects.insert(&key, item);
            Ok(Change::new(ChangeKind::Added, what))
        }
    }
}

/// `[hooks.state."<key>"] trusted_hash` entries: key → hash.
pub fn trusted_hashes(doc: &DocumentMut) -> Vec<(String, String)> {
    let Some(state) = doc
        .get("hooks")
        .and_then(Item::as_table_like)
        .and_then(|h| h.get("state"))
        .and_then(Item::as_table_like)
    else {
        return Vec::new();
    };
    state
        .iter()
        .filter_map(|(k, v)| {
            let hash = v.as_table_like()?.get("trusted_hash")?.as_str()?;
            Some((k.to_string(), hash.to_string()))
        })
        .collect()
}

/// Deletes the hook-trust entries with these keys, then `[hooks.state]` and `[hooks]` if they
/// became empty because of that.
pub fn remove_trust_entries(doc: &mut DocumentMut, keys: &[String]) -> Vec<Change> {
    let mut changes = Vec::new();
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    let before = state.len();
    for k in keys {
        if state.remove(k).is_some() {
            changes.push(Change::new(
                ChangeKind::Removed,
                format!("[hooks.state.\"{k}\"]"),
            ));
        }
    }
    if before > 0 && state.is_empty() {
        hooks.remove("state");
        if hooks.is_empty() {
            doc.as_table_mut().remove("hooks");
        }
    }
    changes
}
