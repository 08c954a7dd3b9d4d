//! What an install added to a repository that its own entries do not show: the folders it
//! created (`.github/hooks/` for Copilot CLI), the guard's change (its file, the repository's
//! `.git/info/exclude`, as it was and as install left it), and the clients whose trust record it added the repository to
//! (`--trust`). Uninstall takes out exactly that, so that install then uninstall leaves the
//! repository byte for byte as it was, and says what it leaves when the user changed it since.
//!
//! Kept outside every repository, beside the backups: `<installs>/<absolute path of the
//! repository>/install.json` (`~/.local/state/handover/installs/...`), private to the user. A
//! clone controls nothing of it; a file that does not parse counts as empty (uninstall then
//! leaves those things in place, as before this record existed, and says so).

use crate::apply::backup::Backups;
use crate::files::{read_opt, Homes, Targets};
use handover_clients::Agent;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(default)]
    pub version: u32,
    /// Folders install created inside the repository, outermost first.
    #[serde(default)]
    pub dirs: Vec<PathBuf>,
    /// The guard's change, when install made it.
    #[serde(default)]
    pub guard: Option<GuardChange>,
    /// The clients (`Agent::as_str`) whose trust record install added the repository to.
    #[serde(default)]
    pub trusted: Vec<String>,
}

/// The guard's file (`core::guard::file`: the repository's `info/exclude`) before and after
/// install.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GuardChange {
    pub path: PathBuf,
    /// None: install created the file.
    pub before: Option<String>,
    pub after: String,
}

impl Manifest {
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty() && self.guard.is_none() && self.trusted.is_empty()
    }

    /// The clients install trusted the repository for.
    pub fn trusted(&self) -> Targets {
        Targets::of(self.trusted.iter().filter_map(|a| Agent::from_name(a)))
    }

    /// Adds what one more install added (earlier records win: they hold the state before
    /// the first install).
    pub fn add(&mut self, dirs: &[PathBuf], trusted: Targets, guard: Option<GuardChange>) {
        for d in dirs {
            if !self.dirs.contains(d) {
                self.dirs.push(d.clone());
            }
        }
        self.dirs.sort_by_key(|d| d.components().count());
        for a in trusted.iter() {
            if !self.trusted.iter().any(|t| t == a.as_str()) {
                self.trusted.push(a.as_str().to_string());
            }
        }
        if self.guard.is_none() {
            self.guard = guard;
        }
    }

    /// Forgets the trust records of `agents` (uninstall took them out, or found them gone).
    pub fn forget_trust(&mut self, agents: Targets) {
        self.trusted
            .retain(|a| Agent::from_name(a).is_none_or(|a| !agents.contains(a)));
    }
}

/// Where the record of `repo` lives.
pub fn path(homes: &Homes, repo: &Path) -> PathBuf {
    Backups::new(&homes.installs)
        .dir_for(&repo.join("install.json"))
        .join("install.json")
}

/// The record of `repo`: empty when there is none or it cannot be read.
pub fn load(homes: &Homes, repo: &Path) -> Manifest {
    read_opt(&path(homes, repo))
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Writes the record of `repo` (mode 0600, atomically), or removes it when it is empty.
pub fn save(homes: &Homes, repo: &Path, manifest: &Manifest) -> std::io::Result<()> {
    let file = path(homes, repo);
    if manifest.is_empty() {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        // The mirrored folders left empty, up to the records' root.
        for dir in file.ancestors().skip(1) {
            if dir == homes.installs || !dir.starts_with(&homes.installs) {
                break;
            }
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
        return Ok(());
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut m = manifest.clone();
    m.version = VERSION;
    let text = serde_json::to_string_pretty(&m).map_err(std::io::Error::other)?;
    handover_base::atomic::write_atomic(&file, text.as_bytes())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
}

/// What uninstall does with the guard's change: the file as it should be now, or why it is
/// left as it is.
#[derive(Clone, Debug, PartialEq)]
pub enum GuardUndo {
    /// Write these bytes back (the file as it was before install).
    Restore(String),
    /// Delete the file (install created it, and it holds only what install put there).
    Delete,
    /// Take out what install added; the user's other changes since stay.
    TakeOut(String),
    /// Leave it: the part install added was changed since (or is gone).
    Changed,
}

/// How to undo `change` on the file's text `now` (None: the file is gone).
pub fn undo_guard(change: &GuardChange, now: Option<&str>) -> GuardUndo {
    let Some(now) = now else {
        return GuardUndo::Changed;
    };
    if now == change.after {
        return match &change.before {
            Some(before) => GuardUndo::Restore(before.clone()),
            None => GuardUndo::Delete,
        };
    }
    let before = change.before.as_deref().unwrap_or("");
    let added = inserted(before, &change.after);
    if added.is_empty() || now.matches(added).count() != 1 {
        return GuardUndo::Changed;
    }
    let Some(at) = now.find(added) else {
        return GuardUndo::Changed;
    };
    let (head, tail) = (&now[..at], &now[at + added.len()..]);
    // The line end install gave the user's last line stays when the user wrote lines after
    // the block: they would be joined to it otherwise.
    let eol = ["\r\n", "\n"]
        .into_iter()
        .find(|e| added.starts_with(e))
        .filter(|_| !head.is_empty() && !head.ends_with('\n') && !tail.is_empty())
        .unwrap_or("");
    GuardUndo::TakeOut(format!("{head}{eol}{tail}"))
}

/// The text `after` has that `before` does not, when `after` is `before` with one piece
/// inserted (what the guard does: the block appended, with a newline before it when needed).
fn inserted<'a>(before: &str, after: &'a str) -> &'a str {
    let prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let rest_before = &before.as_bytes()[prefix..];
    let rest_after = &after.as_bytes()[prefix..];
    let suffix = rest_before
        .iter()
        .rev()
        .zip(rest_after.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let end = after.len() - suffix;
    // On character boundaries (the guard's block is ASCII; a user's file may not be).
    match after.get(prefix..end) {
        Some(piece) if rest_before.len() == suffix => piece,
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(before: Option<&str>, after: &str) -> GuardChange {
        GuardChange {
            path: PathBuf::from("/r/.gitignore"),
            before: before.map(String::from),
            after: after.to_string(),
        }
    }

    #[test]
    fn the_guard_change_is_undone_byte_for_byte_or_only_its_part() {
        let block = "# >>> h >>>\n/handover.md\n# <<< h <<<\n";
        // Created by install, untouched since: deleted.
        assert_eq!(
            undo_guard(&change(None, block), Some(block)),
            GuardUndo::Delete
        );
        // Appended to the user's file without a final newline: the exact bytes back.
        let after = format!("target\n\n{block}");
        let c = change(Some("target"), &after);
        assert_eq!(
            undo_guard(&c, Some(&after)),
            GuardUndo::Restore("target".into())
        );
        // The user added a line since: only the block goes, their line stays.
        let edited = format!("{after}*.log\n");
        assert_eq!(
            undo_guard(&c, Some(&edited)),
            GuardUndo::TakeOut("target\n*.log\n".into())
        );
        let c = change(Some("target\n"), &format!("target\n{block}"));
        assert_eq!(
            undo_guard(&c, Some(&format!("dist\ntarget\n{block}*.log\n"))),
            GuardUndo::TakeOut("dist\ntarget\n*.log\n".into())
        );
        // The block itself edited, or the file gone: left as it is.
        assert_eq!(
            undo_guard(&c, Some("target\n# >>> h >>>\n# <<< h <<<\n")),
            GuardUndo::Changed
        );
        assert_eq!(undo_guard(&c, None), GuardUndo::Changed);
    }

    #[test]
    fn records_merge_keep_the_earliest_and_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let homes = Homes::under(tmp.path());
        let repo = Path::new("/src/app");
        assert_eq!(load(&homes, repo), Manifest::default());
        let mut m = Manifest::default();
        m.add(
            &[repo.join(".github/hooks"), repo.join(".github")],
            Targets::of([Agent::Gemini]),
            Some(change(None, "x")),
        );
        m.add(
            &[repo.join(".github")],
            Targets::of([Agent::Codex]),
            Some(change(Some("y"), "z")),
        );
        assert_eq!(m.dirs, [repo.join(".github"), repo.join(".github/hooks")]);
        assert_eq!(m.trusted(), Targets::of([Agent::Codex, Agent::Gemini]));
        assert_eq!(m.guard, Some(change(None, "x")));
        save(&homes, repo, &m).unwrap();
        let file = path(&homes, repo);
        assert!(file.starts_with(&homes.installs) && file.ends_with("src/app/install.json"));
        assert_eq!(load(&homes, repo).trusted(), m.trusted());
        m.forget_trust(Targets::all());
        m.dirs.clear();
        m.guard = None;
        save(&homes, repo, &m).unwrap();
        assert!(!file.exists(), "an empty record is removed");
        assert!(
            std::fs::read_dir(&homes.installs).unwrap().next().is_none(),
            "with its folders"
        );
    }
}
