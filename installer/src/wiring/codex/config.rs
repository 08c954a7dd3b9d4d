//! Codex's USER `config.toml` (`$CODEX_HOME/config.toml`): the hooks feature flag, project trust,
//! and hook-trust entries. Edited through toml_edit so comments, spacing and order stay.
//!
//! We never write `codex_hooks` (the deprecated name). The feature flag is only reported unless
//! the user passes the explicit flag; trust only with `--trust`.

use crate::error::EditError;
use crate::report::{Change, ChangeKind};
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Table};

/// The user's Codex config: `config.toml` in the Codex home (`$CODEX_HOME`, else `~/.codex`).
pub fn config_path(homes: &crate::files::Homes) -> PathBuf {
    homes
        .user_dir(&handover_clients::codex::CLIENT)
        .join("config.toml")
}

pub use crate::edit::toml_doc::{in_endings_of, parse, render};

fn flag(item: &Item) -> Flag {
    match item.as_bool() {
        Some(b) => Flag::Bool(b),
        None => Flag::Invalid(bare(item)),
    }
}

/// A value as written, without its comments and spacing.
fn bare(item: &Item) -> String {
    match item.as_value() {
        Some(v) => {
            let mut v = v.clone();
            v.decor_mut().clear();
            v.to_string()
        }
        None => item.to_string().trim().to_string(),
    }
}

impl FeatureFlags {
    pub fn disabled(&self) -> bool {
        let off = |f: &Option<Flag>| matches!(f, Some(Flag::Bool(false) | Flag::Invalid(_)));
        off(&self.hooks) || off(&self.codex_hooks) || self.legacy_profile.is_some()
    }

    /// A message saying what is off and how to fix it; None when hooks are on.
    pub fn problem(&self, file: &Path) -> Option<String> {
        if !self.disabled() {
            return None;
        }
        let mut what = Vec::new();
        for (name, f) in [("hooks", &self.hooks), ("codex_hooks", &self.codex_hooks)] {
            match f {
                Some(Flag::Bool(false)) if name == "hooks" => what.push("[features] `hooks = false`".to_string()),
                Some(Flag::Bool(false)) => what.push("[features] `codex_hooks = false` (deprecated name)".to_string()),
                Some(Flag::Invalid(v)) => what.push(format!(
                    "[features] `{name} = {v}` is not a boolean, so Codex rejects the whole file and runs with defaults (no project or hook trust)"
                )),
                _ => {}
            }
        }
        if let Some(p) = &self.legacy_profile {
            what.push(format!(
                "the top-level `profile = {p}` is no longer supported, so Codex ignores the whole file (move that profile's settings to its own <name>.config.toml and use `codex --profile <name>`)"
            ));
        }
        Some(format!(
            "Codex hooks are turned off in {}: {}. Codex will not run any hook. \
             Fix: set `hooks = true` (a boolean) under [features] and delete `codex_hooks`, or run \
             `handover install --codex --enable-codex-hooks`.",
            file.display(),
            what.join("; ")
        ))
    }
}

pub fn feature_flags(doc: &DocumentMut) -> FeatureFlags {
    let features = doc.get("features").and_then(Item::as_table_like);
    let get = |k: &str| features.and_then(|t| t.get(k)).map(flag);
    FeatureFlags {
        hooks: get("hooks"),
        codex_hooks: get("codex_hooks"),
        legacy_profile: doc.get("profile").map(bare),
    }
}

/// Profiles that turn hooks off when Codex runs with `--profile NAME`: `$CODEX_HOME/NAME.config.toml`
/// files (layered over config.toml, Codex 0.169.0) and legacy `[profiles.NAME.features]` tables
/// in config.toml. Notes with the fix, not errors: the default run is not affected.
pub fn profile_notes(doc: &DocumentMut, codex_home: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let off = |features: Option<&dyn toml_edit::TableLike>| {
        let features = features?;
        ["hooks", "codex_hooks"].into_iter().find_map(|k| {
            let item = features.get(k)?;
            (flag(item) != Flag::Bool(true)).then(|| format!("{k} = {}", bare(item)))
        })
    };
    if let Some(profiles) = doc.get("profiles").and_then(Item::as_table_like) {
        for (name, p) in profiles.iter() {
            let features = p
                .as_table_like()
                .and_then(|t| t.get("features"))
                .and_then(Item::as_table_like);
            if let Some(setting) = off(features) {
                notes.push(format!(
                    "Codex profile `{name}` in {} sets [profiles.{name}.features] {setting}: hooks are off with `codex --profile {name}` (Codex 0.169.0 refuses legacy [profiles.{name}] tables for --profile altogether; move them to {})",
                    codex_home.join("config.toml").display(),
                    codex_home.join(format!("{name}.config.toml")).display()
                ));
            }
        }
    }
    let mut files: Vec<_> = std::fs::read_dir(codex_home)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".config.toml") && n != "config.toml")
        })
        .collect();
    files.sort();
    for f in files {
        let Ok(Some(text)) = crate::files::read_opt(&f) else {
            continue;
        };
        let Ok(pdoc) = text.parse::<DocumentMut>() else {
            continue;
        };
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".config.toml"))
            .unwrap_or_default()
            .to_string();
        if let Some(setting) = off(pdoc.get("features").and_then(Item::as_table_like)) {
            notes.push(format!(
                "Codex profile `{name}` ({}) sets [features] {setting}: handover's hooks do not run with `codex --profile {name}`; set `hooks = true` there if they should",
                f.display()
            ));
        }
    }
    notes
}

/// The comment `enable_hooks` leaves on `hooks = true`, with what it replaced, so uninstall
/// can put the user's setting back exactly (`restore_hooks`):
/// `# handover install --enable-codex-hooks; before: hooks = false, codex_hooks = false`.
const ENABLED_MARK: &str = "# handover install --enable-codex-hooks; before:";

/// With the user's explicit flag: `hooks = false` (or a value that is not a boolean) becomes
/// `true`, keeping its comments, and a `codex_hooks` line that is not `true` is deleted. What
/// was there is recorded in a comment on the `hooks` line (added, as `hooks = true`, when only
/// `codex_hooks` was set), which `handover uninstall --codex` reads to restore it. Nothing is
/// added when the user set neither. A legacy `profile` key is only reported.
pub fn enable_hooks(doc: &mut DocumentMut) -> Vec<Change> {
    let mut changes = Vec::new();
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    let mut before = Vec::new();
    if let Some(item) = features.get("hooks") {
        if item.as_bool() != Some(true) && item.is_value() {
            before.push(format!("hooks = {}", bare(item)));
        }
    }
    if let Some(item) = features.get("codex_hooks") {
        if item.as_bool() != Some(true) {
            let was = bare(item);
            before.push(format!("codex_hooks = {was}"));
            features.remove("codex_hooks");
            changes.push(Change::new(
                ChangeKind::Removed,
                format!("[features] codex_hooks = {was}"),
            ));
        }
    }
    if before.is_empty() {
        return changes;
    }
    let mark = format!(" {ENABLED_MARK} {}", before.join(", "));
    match features.get_mut("hooks").and_then(Item::as_value_mut) {
        Some(v) => {
            let mut decor = v.decor().clone();
            let suffix = decor.suffix().and_then(|s| s.as_str()).unwrap_or("");
            decor.set_suffix(format!("{}{mark}", suffix.trim_end()));
            *v = toml_edit::Value::from(true);
            *v.decor_mut() = decor;
        }
        None => {
            let mut v = toml_edit::Value::from(true);
            v.decor_mut().set_suffix(mark);
            features.insert("hooks", Item::Value(v));
        }
    }
    changes.insert(
        0,
        Change::new(ChangeKind::Updated, "[features] hooks = true"),
    );
    changes
}

/// Uninstall: puts back the feature flags `enable_hooks` changed, as recorded in its comment
/// (nothing when there is no such comment, or the user changed `hooks` since).
pub fn restore_hooks(doc: &mut DocumentMut) -> Vec<Change> {
    let mut changes = Vec::new();
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    let Some(v) = features.get_mut("hooks").and_then(Item::as_value_mut) else {
        return changes;
    };
    let suffix = v
        .decor()
        .suffix()
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .to_string();
    let Some((kept, recorded)) = suffix.split_once(ENABLED_MARK) else {
        return changes;
    };
    if v.as_bool() != Some(true) {
        return changes;
    }
    let mut hooks_was: Option<toml_edit::Value> = None;
    let mut codex_hooks_was: Option<toml_edit::Value> = None;
    for part in recorded.split(", ") {
        let Some((name, value)) = part.trim().split_once(" = ") else {
            continue;
        };
        let Ok(value) = value.parse::<toml_edit::Value>() else {
            continue;
        };
        match name {
            "hooks" => hooks_was = Some(value),
            "codex_hooks" => codex_hooks_was = Some(value),
            _ => {}
        }
    }
    match hooks_was {
        Some(was) => {
            let mut decor = v.decor().clone();
            decor.set_suffix(kept.trim_end().to_string());
            let text = was.to_string();
            *v = was;
            *v.decor_mut() = decor;
            changes.push(Change::new(
                ChangeKind::Updated,
                format!(
                    "[features] hooks = {} (as before --enable-codex-hooks)",
                    text.trim()
                ),
            ));
        }
        None => {
            features.remove("hooks");
            changes.push(Change::new(
                ChangeKind::Removed,
                "[features] hooks = true (added by --enable-codex-hooks)",
            ));
        }
    }
    if let Some(was) = codex_hooks_was {
        let text = was.to_string();
        features.insert("codex_hooks", Item::Value(was));
        changes.push(Change::new(
            ChangeKind::Added,
            format!(
                "[features] codex_hooks = {} (as before --enable-codex-hooks)",
                text.trim()
            ),
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

/// The enabled installs of the handover plugin: `[plugins."handover@<marketplace>"]` tables
/// without `enabled = false` (what `codex plugin add` writes).
pub fn handover_plugins(doc: &DocumentMut) -> Vec<String> {
    let Some(plugins) = doc.get("plugins").and_then(Item::as_table_like) else {
        return Vec::new();
    };
    plugins
        .iter()
        .filter(|(k, _)| k.starts_with("handover@"))
        .filter(|(_, v)| {
            v.as_table_like()
                .and_then(|t| t.get("enabled"))
                .and_then(Item::as_bool)
                != Some(false)
        })
        .map(|(k, _)| k.to_string())
        .collect()
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

/// Uninstall: takes out `[projects."<abs>"] trust_level = "trusted"` (only when install
/// recorded that it added it: manifest.rs), with the table when nothing else is in it and
/// `[projects]` when that emptied it. Nothing when the entry is gone; left alone, and said,
/// when the level was changed since.
pub fn untrust_project(doc: &mut DocumentMut, project: &Path) -> Option<Change> {
    let key = project.to_string_lossy().into_owned();
    let what = format!(
        "[projects.\"{key}\"] trust_level = \"trusted\" (added by handover install --trust)"
    );
    let projects = doc.get_mut("projects").and_then(Item::as_table_like_mut)?;
    let table = projects.get_mut(&key).and_then(Item::as_table_like_mut)?;
    match table.get("trust_level").and_then(Item::as_str) {
        None => return None,
        Some("trusted") => {}
        Some(level) => {
            return Some(Change::new(
                ChangeKind::Kept,
                format!("[projects.\"{key}\"] trust_level = \"{level}\": install set it to \"trusted\" and it was changed since"),
            ))
        }
    }
    table.remove("trust_level");
    if table.is_empty() {
        projects.remove(&key);
    }
    if projects.is_empty() {
        doc.as_table_mut().remove("projects");
    }
    Some(Change::new(ChangeKind::Removed, what))
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

/// Keeps Codex's hook trust in step with an edit of the hooks.json it is keyed on (keys are
/// positional): for each `(old key, new key)` the entry moves, for `(old key, None)` it goes.
/// So a user's hook that moved up when ours were removed stays trusted (the hash Codex checks
/// covers the handler's definition, not its place). `[hooks.state]` and `[hooks]` left empty
/// by that are removed.
pub fn move_trust_entries(
    doc: &mut DocumentMut,
    moves: &[(String, Option<String>)],
) -> Vec<Change> {
    let mut changes = Vec::new();
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) else {
        return changes;
    };
    let before = state.len();
    let mut moving = Vec::new();
    for (old, new) in moves {
        if let Some(entry) = state.remove(old) {
            match new {
                Some(new) => moving.push((old, new, entry)),
                None => changes.push(Change::new(
                    ChangeKind::Removed,
                    format!("[hooks.state.\"{old}\"]"),
                )),
            }
        }
    }
    for (old, new, entry) in moving {
        state.insert(new, entry);
        changes.push(Change::new(
            ChangeKind::Updated,
            format!(
                "trust of a hook that moved: [hooks.state.\"{old}\"] → [hooks.state.\"{new}\"]"
            ),
        ));
    }
    if before > 0 && state.is_empty() {
        hooks.remove("state");
        if hooks.is_empty() {
            doc.as_table_mut().remove("hooks");
        }
    }
    changes
}

/// The user's part of a config.toml, for comparing two versions: everything but ours there —
/// project trust and hook trust (Codex writes the latter too), the MCP server of `--mcp` — in a
/// canonical form; None when it does not parse.
pub fn user_part(path: &Path, text: &str) -> Option<String> {
    let mut doc = parse(path, text).ok()?;
    doc.as_table_mut().remove("projects");
    crate::edit::mcp_entry::uninstall_toml(&mut doc);
    if let Some(h) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) {
        h.remove("state");
    }
    Some(
        doc.to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// One feature setting as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flag {
    Bool(bool),
    /// Not a boolean (`hooks = "false"`): Codex 0.169.0 rejects the whole config.toml for it
    /// ("invalid type: string, expected a boolean") and runs with defaults, so no project and
    /// no hook is trusted. The text is the value as written.
    Invalid(String),
}

/// What the user set for the hooks feature, if anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureFlags {
    /// `[features] hooks = ...`
    pub hooks: Option<Flag>,
    /// `[features] codex_hooks = ...` (deprecated name).
    pub codex_hooks: Option<Flag>,
    /// A top-level `profile = "..."`: Codex 0.169.0 refuses it ("legacy `profile` config is no
    /// longer supported") and ignores the whole file.
    pub legacy_profile: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uninstall's inverse of `trust_project`: the file back as it was (comments, other
    /// projects); a level changed since is left and said.
    #[test]
    fn untrust_project_takes_out_what_trust_project_added() {
        let file = Path::new("/h/.codex/config.toml");
        let project = Path::new("/src/app");
        for before in [
            "# mine\nmodel = \"gpt-5\"\n",
            "model = \"gpt-5\"\n\n[projects.\"/other\"]\ntrust_level = \"trusted\"\n",
        ] {
            let mut doc = parse(file, before).unwrap();
            trust_project(&mut doc, project, file).unwrap();
            assert_ne!(render(&doc, before), before);
            let change = untrust_project(&mut doc, project).unwrap();
            assert_eq!(change.kind, ChangeKind::Removed);
            assert_eq!(render(&doc, before), before);
        }
        let mut doc = parse(
            file,
            "[projects.\"/src/app\"]\ntrust_level = \"untrusted\"\n",
        )
        .unwrap();
        assert_eq!(
            untrust_project(&mut doc, project).map(|c| c.kind),
            Some(ChangeKind::Kept)
        );
        assert!(untrust_project(&mut parse(file, "").unwrap(), project).is_none());
    }
}
