//! Factory Droid's installer step beyond its hooks file (see the parent module): folder trust.
//!
//! Droid 0.225.2's terminal UI runs no hook (and no MCP server) in a folder the user has not
//! trusted: it asks "Trust this folder?" first (`isTrustGateActive`). `droid exec` has no such
//! gate. The answer is recorded in the USER settings, `~/.factory/settings.json`, as
//! `"trustedFolders": {"<folder>": {"trustedAt": "<ISO time>"}}`; a folder counts when its
//! trust root (the git root of the working directory, links resolved) is a listed folder or
//! below one. `--trust` writes that entry for the repository, text in, text out: every other
//! key of the file kept, its layout kept. Droid reads the file as JSON with comments; a file
//! with comments is refused with that reason, nothing written.

use super::{folder_trust_edit, InstallOptions, Place, Planned, Wiring};
use crate::edit::file_edit::FileEdit;
use crate::edit::hooks_doc::Wanted;
use crate::edit::json_doc::{Map, Value};
use crate::edit::json_layout::{self, Layout};
use crate::error::EditError;
use crate::files::{canonical, read_opt, Homes, Scope};
use crate::report::{Change, ChangeKind};
use crate::wiring::facts::{DroidFacts, Facts, ScopeStatus};
use std::path::{Path, PathBuf};

pub struct DroidWiring;

/// Droid's user settings, where it records the folders the user trusts.
pub fn user_settings_path(homes: &Homes) -> PathBuf {
    homes
        .user_dir(handover_clients::of(handover_clients::Agent::Droid))
        .join("settings.json")
}

impl Wiring for DroidWiring {
    /// For a repository with `--trust`: the folder trusted in the user settings (Droid's own
    /// answer to its question, given ahead). Without `--trust` nothing: `droid exec` runs the
    /// hooks anyway, and the terminal UI asks the user itself. User-scope hooks run wherever
    /// the user trusted a folder; there is no one folder to trust for them.
    fn plan_install(
        &self,
        at: Place<'_>,
        opts: &InstallOptions,
        hooks: &FileEdit,
        _want: &[Wanted],
    ) -> Result<Planned, EditError> {
        let mut plan = Planned::default();
        if !opts.trust || opts.scope == Scope::User {
            return Ok(plan);
        }
        let path = user_settings_path(at.homes);
        if canonical(&path) == canonical(&hooks.path) {
            // The repository is the home directory: its project settings are the user settings
            // the hooks go into. One file, one edit: the trust is left to Droid's question.
            plan.notes.push(format!(
                "droid: {} is both the repository's settings and your user settings; the folder is not trusted there by handover (Factory Droid asks when its terminal UI starts here)",
                path.display()
            ));
            return Ok(plan);
        }
        let before = read_opt(&path)?;
        let added = trust_repo(&path, before.as_deref(), at.repo, &iso_now())?;
        plan.trusts = added.1.kind == ChangeKind::Added;
        plan.edits.push(folder_trust_edit(path, before, added));
        Ok(plan)
    }

    /// The entry `--trust` added, when install recorded it (not where the user settings are
    /// the repository's own, as install then wrote none).
    fn plan_uninstall(
        &self,
        at: Place<'_>,
        hooks: &FileEdit,
        untrust: bool,
    ) -> Result<Planned, EditError> {
        let path = user_settings_path(at.homes);
        let untrust = untrust && canonical(&path) != canonical(&hooks.path);
        super::folder_untrust_edit(path, untrust, |path, text| {
            untrust_repo(path, text, at.repo)
        })
    }

    fn status_facts(&self, at: Place<'_>, _scopes: &mut [ScopeStatus]) -> Option<Facts> {
        let path = user_settings_path(at.homes);
        let folder = super::trusted_folder(&path, at.repo, trusted_by).map_err(|e| e.to_string());
        Some(Facts::Droid(DroidFacts { folder }))
    }

    fn left_in_place(&self, at: Place<'_>) -> Vec<String> {
        if at.scope == Scope::User {
            return Vec::new();
        }
        let path = user_settings_path(at.homes);
        match super::trusted_folder(&path, at.repo, trusted_by) {
            Ok(Some(folder)) => super::still_trusts(
                "Factory Droid",
                &format!("{folder} in trustedFolders of {}", path.display()),
            ),
            _ => Vec::new(),
        }
    }
}

/// Now as JavaScript's `toISOString()` writes it (Droid's own `trustedAt`):
/// `2026-11-28T06:50:00.123Z`.
fn iso_now() -> String {
    let (secs, nanos) = handover_base::clock::unix_now();
    let whole = handover_base::clock::format_rfc3339(secs);
    format!("{}.{:03}Z", whole.trim_end_matches('Z'), nanos / 1_000_000)
}

/// The settings as JSON (an empty file is an empty object), with why a parse may have failed.
fn parse(path: &Path, text: &str) -> Result<Value, EditError> {
    json_layout::parse(path, text).map_err(|mut e| {
        if text.contains("//") || text.contains("/*") {
            e.message.push_str(
                " (if the file has comments: Factory Droid allows them, handover cannot keep them; remove them, or answer Droid's \"Trust this folder?\" in its terminal UI instead of --trust)",
            );
        }
        e
    })
}

/// The `trustedFolders` key that covers `repo` (the folder itself or one above it), if any.
pub fn trusted_by(path: &Path, text: &str, repo: &Path) -> Result<Option<String>, EditError> {
    let doc = parse(path, text)?;
    let repo = canonical(repo);
    let covering = doc
        .get("trustedFolders")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::keys)
        .find(|folder| !folder.is_empty() && repo.starts_with(canonical(Path::new(folder))))
        .cloned();
    Ok(covering)
}

/// The user settings with `repo` in `trustedFolders` (`"<repo>": {"trustedAt": trusted_at}`),
/// every other key and the file's layout kept (a new file: two spaces, a trailing newline).
/// Unchanged when a listed folder already covers the repository.
pub fn trust_repo(
    path: &Path,
    before: Option<&str>,
    repo: &Path,
    trusted_at: &str,
) -> Result<(Option<String>, Change), EditError> {
    let folder = canonical(repo).to_string_lossy().into_owned();
    let what = format!("trust {folder} (trustedFolders)");
    let text = before.unwrap_or("");
    if trusted_by(path, text, repo)?.is_some() {
        return Ok((
            before.map(str::to_string),
            Change::new(ChangeKind::Unchanged, what),
        ));
    }
    let mut doc = parse(path, text)?;
    let top = json_layout::top_object(path, &mut doc)?;
    let folders = top.get_or_insert_with("trustedFolders", || Value::Object(Map::new()));
    let Some(folders) = folders.as_object_mut() else {
        return Err(EditError::new(
            path,
            "\"trustedFolders\" is not an object; fix it by hand (Factory Droid keeps {\"<folder>\": {\"trustedAt\": \"<time>\"}} there), then run the command again",
        ));
    };
    folders.insert(
        folder,
        Value::object([("trustedAt", Value::String(trusted_at.to_string()))]),
    );
    let layout = if text.trim().is_empty() {
        Layout::default()
    } else {
        Layout::detect(text)
    };
    Ok((
        Some(json_layout::render(&doc, &layout)),
        Change::new(ChangeKind::Added, what),
    ))
}

/// The user settings without the `trustedFolders` entry `--trust` added for `repo` (uninstall,
/// when install recorded that it added it: manifest.rs); an object left empty goes with it.
/// Every other key and the layout kept; unchanged when the entry is gone.
pub fn untrust_repo(
    path: &Path,
    text: &str,
    repo: &Path,
) -> Result<(Option<String>, Change), EditError> {
    let folder = canonical(repo).to_string_lossy().into_owned();
    let what = format!("trust {folder} (trustedFolders, added by handover install --trust)");
    let mut doc = parse(path, text)?;
    let top = json_layout::top_object(path, &mut doc)?;
    let Some(folders) = top.get_mut("trustedFolders").and_then(Value::as_object_mut) else {
        return Ok((
            Some(text.to_string()),
            Change::new(ChangeKind::Unchanged, what),
        ));
    };
    if folders.remove(&folder).is_none() {
        return Ok((
            Some(text.to_string()),
            Change::new(ChangeKind::Unchanged, what),
        ));
    }
    if folders.is_empty() {
        top.remove("trustedFolders");
    }
    Ok((
        Some(json_layout::render(&doc, &Layout::detect(text))),
        Change::new(ChangeKind::Removed, what),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: &str = "2026-11-28T06:50:00.123Z";

    #[test]
    fn the_folder_is_added_and_every_other_key_kept_in_place() {
        let p = Path::new("/h/.factory/settings.json");
        let repo = Path::new("/nonexistent/repo");
        let before = "{\n    \"customModels\": [\n        {\n            \"model\": \"m\"\n        }\n    ],\n    \"trustedFolders\": {\n        \"/nonexistent/other\": {\n            \"trustedAt\": \"2026-01-01T00:00:00.000Z\"\n        }\n    },\n    \"zeta\": true\n}\n";
        let (after, change) = trust_repo(p, Some(before), repo, AT).unwrap();
        assert_eq!(change.kind, ChangeKind::Added);
        assert_eq!(
            after.unwrap(),
            "{\n    \"customModels\": [\n        {\n            \"model\": \"m\"\n        }\n    ],\n    \"trustedFolders\": {\n        \"/nonexistent/other\": {\n            \"trustedAt\": \"2026-01-01T00:00:00.000Z\"\n        },\n        \"/nonexistent/repo\": {\n            \"trustedAt\": \"2026-11-28T06:50:00.123Z\"\n        }\n    },\n    \"zeta\": true\n}\n"
        );
        // A new file: only the entry.
        let (after, _) = trust_repo(p, None, repo, AT).unwrap();
        assert_eq!(
            after.unwrap(),
            "{\n  \"trustedFolders\": {\n    \"/nonexistent/repo\": {\n      \"trustedAt\": \"2026-11-28T06:50:00.123Z\"\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn a_folder_above_the_repository_already_trusts_it() {
        let p = Path::new("/h/.factory/settings.json");
        let before = "{\"trustedFolders\": {\"/nonexistent/\": {\"trustedAt\": \"x\"}}}";
        let (after, change) =
            trust_repo(p, Some(before), Path::new("/nonexistent/repo"), AT).unwrap();
        assert_eq!(change.kind, ChangeKind::Unchanged);
        assert_eq!(after.as_deref(), Some(before), "byte for byte");
        assert_eq!(
            trusted_by(p, before, Path::new("/nonexistent/repo")).unwrap(),
            Some("/nonexistent/".into())
        );
        // A sibling with the same start does not count.
        let sibling = "{\"trustedFolders\": {\"/nonexistent/rep\": {\"trustedAt\": \"x\"}}}";
        assert_eq!(
            trusted_by(p, sibling, Path::new("/nonexistent/repo")).unwrap(),
            None
        );
    }

    #[test]
    fn comments_or_a_strange_shape_are_refused_with_the_reason() {
        let p = Path::new("/h/.factory/settings.json");
        let repo = Path::new("/nonexistent/repo");
        let e = trust_repo(p, Some("{\n  // mine\n  \"a\": 1\n}\n"), repo, AT).unwrap_err();
        assert!(e.message.contains("comments"), "{}", e.message);
        let e = trust_repo(p, Some("{\"trustedFolders\": [\"/x\"]}"), repo, AT).unwrap_err();
        assert!(e.message.contains("is not an object"), "{}", e.message);
        let e = trust_repo(p, Some("[1]"), repo, AT).unwrap_err();
        assert_eq!(e.file, p);
    }

    #[test]
    fn the_time_is_written_as_droid_writes_it() {
        let t = iso_now();
        assert_eq!(t.len(), AT.len(), "{t}");
        assert!(handover_base::clock::parse_rfc3339_ms(&t).is_some(), "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[19] == b'.', "{t}");
    }
}
