//! Applying the edits of one run all or nothing: backups first, then each file replaced
//! atomically; when any step fails, every file already written is put back as it was (and the
//! backups and directories this run made are removed), so the error is the whole story.
//! `preflight` has checked every target before this runs; this covers what no check can
//! foresee (a full disk, a file changed under us).

use crate::apply::backup::Backups;
use crate::edit::file_edit::{FileEdit, FileKind};
use crate::error::EditError;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What a successful run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// Files created, replaced or deleted, in order.
    pub wrote: Vec<PathBuf>,
    pub backups: Vec<PathBuf>,
    /// Directories created for the files written, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

enum Undo {
    Backup(PathBuf),
    Dir(PathBuf),
    /// The file's earlier content (None: it did not exist) and mode.
    File {
        path: PathBuf,
        before: Option<String>,
        mode: Option<u32>,
    },
}

pub fn apply(edits: &[FileEdit], backups: &Backups, stamp: &str) -> Result<Applied, EditError> {
    apply_with(edits, backups, stamp, &mut |_| Ok(()))
}

/// `before_write` runs before each file is written or removed (tests inject failures there).
fn apply_with(
    edits: &[FileEdit],
    backups: &Backups,
    stamp: &str,
    before_write: &mut dyn FnMut(&Path) -> io::Result<()>,
) -> Result<Applied, EditError> {
    let mut undo = Vec::new();
    let mut applied = Applied::default();
    for e in edits.iter().filter(|e| e.changed()) {
        if let Err(err) = step(e, backups, stamp, before_write, &mut undo, &mut applied) {
            return Err(roll_back(undo, err));
        }
    }
    // Only now, when nothing can be undone any more: a client's own folder (`.claude/`,
    // `.factory/`, ...: [`client_folders`]) emptied by a deletion goes too (remove_dir fails on
    // a directory that is not empty).
    let folders = client_folders();
    // Only a hooks file's: a client's user folder (`~/.gemini` of a trusted-folders file) is
    // the user's, and goes only when install recorded that it created it (flow.rs).
    let hooks_deleted =
        |e: &&FileEdit| e.changed() && e.after.is_none() && matches!(e.kind, FileKind::Hooks(_));
    for e in edits.iter().filter(hooks_deleted) {
        if let Some(dir) = e.path.parent() {
            if dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| folders.iter().any(|f| f == n))
            {
                let _ = fs::remove_dir(dir);
            }
        }
    }
    Ok(applied)
}

/// The folders of the clients whose project hooks file sits directly in a folder of the
/// client's own at the top of the repository (`.claude`, `.codex`, `.gemini`, `.qwen`,
/// `.factory`). Copilot CLI's `.github/hooks/` is not one: `.github` is the repository's.
fn client_folders() -> Vec<String> {
    handover_clients::ALL
        .iter()
        .filter_map(|c| {
            let file = c.hooks_file(
                handover_clients::Scope::Project,
                Path::new(""),
                Path::new(""),
            );
            let mut parts = file.components();
            let folder = parts.next()?.as_os_str().to_str()?;
            (parts.count() == 1 && folder.starts_with('.')).then(|| folder.to_string())
        })
        .collect()
}

fn step(
    e: &FileEdit,
    backups: &Backups,
    stamp: &str,
    before_write: &mut dyn FnMut(&Path) -> io::Result<()>,
    undo: &mut Vec<Undo>,
    applied: &mut Applied,
) -> Result<(), EditError> {
    if let (Some(before), true) = (&e.before, e.backup) {
        let b = backups
            .make(&e.path, stamp, before.as_bytes())
            .map_err(|err| EditError::new(&e.path, format!("cannot back up: {err}")))?;
        undo.push(Undo::Backup(b.clone()));
        applied.backups.push(b);
    }
    let target = handover_base::atomic::real_target(&e.path);
    let mode = fs::metadata(&target)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    match &e.after {
        Some(text) => {
            if let Some(dir) = target.parent() {
                let missing: Vec<PathBuf> = dir
                    .ancestors()
                    .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
                    .map(Path::to_path_buf)
                    .collect();
                fs::create_dir_all(dir).map_err(|err| {
                    EditError::new(dir, format!("cannot create directory: {err}"))
                })?;
                // Outermost first, so undoing in reverse removes the innermost first.
                applied.created_dirs.extend(missing.iter().rev().cloned());
                undo.extend(missing.into_iter().rev().map(Undo::Dir));
            }
            before_write(&e.path)
                .and_then(|_| handover_base::atomic::write_atomic(&e.path, text.as_bytes()))
                .map_err(|err| EditError::new(&e.path, format!("cannot write: {err}")))?;
            if e.kind == FileKind::FolderTrust && e.before.is_none() {
                // Gemini CLI creates this list of the user's folders for the owner only (and
                // Copilot CLI's config.json holds the same kind of list).
                fs::set_permissions(&e.path, fs::Permissions::from_mode(0o600)).map_err(|err| {
                    EditError::new(&e.path, format!("cannot set permissions: {err}"))
                })?;
            }
        }
        None => {
            before_write(&e.path)
                .and_then(|_| fs::remove_file(&e.path))
                .map_err(|err| EditError::new(&e.path, format!("cannot remove: {err}")))?;
        }
    }
    undo.push(Undo::File {
        path: e.path.clone(),
        before: e.before.clone(),
        mode,
    });
    applied.wrote.push(e.path.clone());
    Ok(())
}

/// Puts everything back, newest first, and says so in the error.
fn roll_back(undo: Vec<Undo>, mut err: EditError) -> EditError {
    let mut put_back = 0;
    let mut failed = Vec::new();
    for u in undo.into_iter().rev() {
        match u {
            Undo::Backup(p) => {
                let _ = fs::remove_file(&p);
            }
            Undo::Dir(d) => {
                let _ = fs::remove_dir(&d);
            }
            Undo::File { path, before, mode } => {
                let result = match &before {
                    Some(text) => handover_base::atomic::write_atomic(&path, text.as_bytes())
                        .and_then(|_| match mode {
                            Some(m) => fs::set_permissions(
                                handover_base::atomic::real_target(&path),
                                fs::Permissions::from_mode(m),
                            ),
                            None => Ok(()),
                        }),
                    None => fs::remove_file(&path),
                };
                match result {
                    Ok(()) => put_back += 1,
                    Err(e) => failed.push(format!("{} ({e})", path.display())),
                }
            }
        }
    }
    if failed.is_empty() {
        err.message.push_str(&format!(
            "; nothing was changed{}",
            if put_back > 0 {
                format!(" ({put_back} file(s) already written were put back as they were)")
            } else {
                String::new()
            }
        ));
    } else {
        err.message.push_str(&format!(
            "; could NOT put back: {} — its backup is listed under the backups directory",
            failed.join(", ")
        ));
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_folders_come_from_the_registry() {
        assert_eq!(
            client_folders(),
            [".claude", ".codex", ".gemini", ".qwen", ".factory"]
        );
    }

    fn edit(path: PathBuf, before: Option<&str>, after: Option<&str>) -> FileEdit {
        let mut e = FileEdit::new(
            path,
            FileKind::Hooks(handover_clients::Agent::Claude),
            before.map(String::from),
            after.map(String::from),
            Vec::new(),
            None,
        );
        e.backup = before.is_some();
        e
    }

    #[test]
    fn a_failing_write_puts_every_earlier_file_back() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let kept = d.join("kept.json");
        let gone = d.join("gone.json");
        fs::write(&kept, "user").unwrap();
        fs::set_permissions(&kept, fs::Permissions::from_mode(0o640)).unwrap();
        fs::write(&gone, "ours").unwrap();
        let edits = vec![
            edit(kept.clone(), Some("user"), Some("user+ours")),
            edit(d.join("new/dir/created.json"), None, Some("ours")),
            edit(gone.clone(), Some("ours"), None),
            edit(d.join("fails.json"), None, Some("x")),
        ];
        let backups = Backups::new(d.join("backups"));
        let err = apply_with(&edits, &backups, "S", &mut |p| {
            if p.ends_with("fails.json") {
                Err(io::Error::other("disk full"))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert!(
            err.message
                .ends_with("disk full; nothing was changed (3 file(s) already written were put back as they were)"),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&kept).unwrap(), "user");
        assert_eq!(
            fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_to_string(&gone).unwrap(), "ours");
        assert!(
            !d.join("new").exists(),
            "directories this run made are gone"
        );
        assert_eq!(backups.latest(&kept), None, "and its backups");
        assert!(!d.join("fails.json").exists());

        let ok = apply(&edits[..3], &backups, "S").unwrap();
        assert_eq!(ok.wrote.len(), 3);
        assert_eq!(ok.backups.len(), 2);
        assert_eq!(ok.created_dirs, [d.join("new"), d.join("new/dir")]);
        assert_eq!(
            fs::read_to_string(d.join("new/dir/created.json")).unwrap(),
            "ours"
        );
    }
}
