//! What of each file is the user's, and keeping it: which backups a run makes (none for a file
//! holding only ours, none when the newest backup already holds the user's part), the user's
//! own bytes given back on uninstall, and files that are never deleted (those that were there
//! before install, and symlinks).

use crate::apply::backup::{self, Backups};
use crate::edit::file_edit::{FileEdit, FileKind};
use crate::edit::instructions;
use crate::edit::json_layout::{self, Layout};
use crate::report::{Change, ChangeKind};
use crate::wiring;
use crate::wiring::mcp;
use std::fs;
use std::path::Path;

/// The user's part of a file: the file with everything of ours taken out, in a canonical form,
/// so two versions can be compared (None when it does not parse).
pub fn user_part(kind: FileKind, path: &Path, text: &str) -> Option<String> {
    match kind {
        FileKind::Hooks(agent) => {
            let text = mcp::strip(path, false, text);
            let (rest, _) = wiring::of(agent).edit_hooks(path, Some(&text), None).ok()?;
            let doc = json_layout::parse(path, rest.as_deref().unwrap_or("")).ok()?;
            Some(doc.to_string())
        }
        // Install may have added the final newline the file lacked: not the user's content.
        FileKind::Instructions => Some(
            instructions::uninstall(text, "")
                .0
                .unwrap_or_default()
                .trim_end()
                .to_string(),
        ),
        // Ours there: the one rule for the repository, which the user consented to and keeps.
        FileKind::FolderTrust => Some(text.to_string()),
        FileKind::Config(agent) => wiring::of(agent).config_user_part(path, text),
        FileKind::Mcp(_) => mcp::user_part(path, text),
    }
}

/// True when the newest backup of `path` already holds the user's part of `text` (after the
/// user changed the file, the old backup is stale and a new one is needed).
pub fn backup_is_current(backups: &Backups, kind: FileKind, path: &Path, text: &str) -> bool {
    backups.hold(path, text, |t| user_part(kind, path, t))
}

fn refine_backups(edits: &mut [FileEdit], backups: &Backups) {
    for e in edits {
        if let (Some(before), true) = (e.before.as_deref(), e.backup) {
            e.backup = !backup_is_current(backups, e.kind, &e.path, before);
        }
    }
}

/// Backups an older handover made beside a repository file: git may pick them up.
pub(crate) fn note_old_backups(edits: &[FileEdit], backups: &Backups) -> Vec<String> {
    let mut notes = Vec::new();
    for e in edits.iter().filter(|e| e.confine.is_some()) {
        for b in backup::beside(&e.path) {
            notes.push(format!(
                "an older handover left a backup inside the repository, where git may pick it up: {}; move it out or delete it (backups now go to {})",
                b.display(),
                backups.root.display()
            ));
        }
    }
    notes
}

/// A file holding only our content (we created it) needs no backup: nothing of the user's
/// would be lost. Everything else is backed up on its first modification.
pub(crate) fn mark_backups(edits: &mut [FileEdit], backups: &Backups) {
    for e in edits.iter_mut() {
        let Some(before) = e.before.as_deref() else {
            continue;
        };
        e.backup = match e.kind {
            FileKind::Hooks(agent) => !matches!(
                wiring::of(agent).edit_hooks(
                    &e.path,
                    Some(&mcp::strip(&e.path, false, before)),
                    None
                ),
                Ok((None, _))
            ),
            FileKind::Mcp(_) => !mcp::holds_nothing_else(&e.path, before),
            FileKind::Instructions => instructions::uninstall(before, "").0.is_some(),
            FileKind::Config(_) => true,
            // Deleted only when emptied of our entry (delete_emptied_trust_files): nothing of
            // the user's to keep then.
            FileKind::FolderTrust => e.after.is_some(),
        };
    }
    refine_backups(edits, backups);
}

/// The text a file holds with nothing in it: `{}` in the file's own layout, or empty.
fn emptied(e: &FileEdit) -> String {
    match e.kind {
        FileKind::Instructions => String::new(),
        FileKind::Mcp(_) if mcp::is_toml(&e.path) => String::new(),
        _ => json_layout::render(
            &crate::edit::json_doc::Value::Object(Default::default()),
            &Layout::detect(e.before.as_deref().unwrap_or("")),
        ),
    }
}

/// Uninstall gives back the user's own bytes and deletes only files install created:
/// - when the newest backup holds the same user content as the result, the result is the
///   backup's bytes (a compact file, a missing final newline come back exactly);
/// - a file with a backup existed before install (an empty or `{}` settings file, say): it is
///   not deleted, only emptied of ours.
///
/// Not for Codex's config.toml: its backup predates trust entries the user wants to keep.
pub(crate) fn restore_users_bytes(edits: &mut [FileEdit], backups: &Backups) {
    for e in edits {
        if matches!(e.kind, FileKind::Config(_) | FileKind::FolderTrust)
            || e.before.is_none()
            || !e.changed()
        {
            continue;
        }
        let Some(b) = backups.latest(&e.path) else {
            continue;
        };
        let candidate = e.after.clone().unwrap_or_else(|| emptied(e));
        let same = |old: &String| {
            user_part(e.kind, &e.path, old)
                .is_some_and(|u| Some(u) == user_part(e.kind, &e.path, &candidate))
        };
        let original = crate::files::read_opt(&b).ok().flatten().filter(same);
        if e.after.is_none() {
            e.changes.push(Change::new(
                ChangeKind::Kept,
                format!(
                    "the file itself: it was there before install (backup {}), so it is not deleted",
                    b.display()
                ),
            ));
        }
        e.after = Some(original.unwrap_or(candidate));
    }
}

/// A file that would be deleted but is a symlink (into a dotfiles checkout, say) is emptied
/// instead: deleting the link would leave our content in the file it points to.
pub(crate) fn keep_links(edits: &mut [FileEdit]) {
    for e in edits {
        let is_link = fs::symlink_metadata(&e.path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        if e.after.is_none() && e.before.is_some() && is_link {
            e.after = Some(emptied(e));
        }
    }
}

/// A user file uninstall emptied that has no backup was created by install: it is deleted, as
/// install found it. A trusted-folders file left `{}` (its only entry was the one `--trust`
/// added), a Codex config.toml left empty (it held only the project trust and the hook trust
/// install gave). A file that existed before install has a backup and stays.
pub(crate) fn delete_emptied_user_files(edits: &mut [FileEdit], backups: &Backups) {
    for e in edits {
        let Some(text) = e.after.as_deref() else {
            continue;
        };
        let emptied = match e.kind {
            FileKind::FolderTrust => json_layout::parse(&e.path, text)
                .is_ok_and(|v| v.as_object().is_some_and(|m| m.is_empty())),
            FileKind::Config(_) => text.trim().is_empty(),
            FileKind::Mcp(_) => mcp::holds_nothing_else(&e.path, text),
            FileKind::Hooks(_) | FileKind::Instructions => false,
        };
        if emptied && e.changed() && backups.latest(&e.path).is_none() {
            e.after = None;
        }
    }
}
