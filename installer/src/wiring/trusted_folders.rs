//! The folders a client trusts to run hooks in, and the one editor for them: which entry covers
//! a repository, the repository added (`install --trust`), the entry install added taken out
//! again (`uninstall`), text in and text out with every other key and the file's layout kept.
//! A client whose hooks wait for folder trust declares its file and the form of its entries
//! (a [`TrustedFolders`] in its wiring); the install, uninstall and status steps around the
//! edit are here too, so each wiring only says when it asks for them.

use super::{Place, Planned};
use crate::edit::file_edit::{FileEdit, FileKind};
use crate::edit::json_doc::{Map, Value};
use crate::edit::json_layout::{self, Layout};
use crate::error::EditError;
use crate::files::{canonical, read_opt, Homes};
use crate::report::{Change, ChangeKind};
use handover_clients::Agent;
use handover_clients::Scope;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One client's record of the folders it trusts.
pub struct TrustedFolders {
    /// The client.
    pub agent: Agent,
    /// The file, under the user's homes.
    pub path: fn(&Homes) -> PathBuf,
    /// How the folders are written in it.
    pub form: Form,
    /// Added to a parse error of a file that has comments (the client allows them, we cannot
    /// keep them); none where the form keeps them or the client allows none.
    pub comments_hint: Option<&'static str>,
    /// The error when `trustedFolders` is not of the form: what to fix by hand.
    pub wrong_shape: &'static str,
    /// A new file ends with a newline (the client's own writer decides).
    pub new_file_newline: bool,
}

/// The forms a trusted-folders record takes.
#[derive(Clone, Copy)]
pub enum Form {
    /// `"trustedFolders": ["<folder>", ...]` in the top object; a listed folder covers itself
    /// and what is below it. `//` comment lines above the JSON are kept byte for byte.
    List,
    /// `"trustedFolders": {"<folder>": {"trustedAt": "<time>"}}` in the top object, the time
    /// written as `now` gives it; a listed folder covers itself and what is below it.
    Stamped { now: fn() -> String },
    /// The whole file is rules, `{"<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`:
    /// the longest rule whose folder contains the repository decides (`TRUST_PARENT` stands for
    /// the path's parent).
    Rules,
}

/// The entry that decides for a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Covering {
    /// This folder (or rule) trusts it.
    Trusted(String),
    /// This rule distrusts it ([`Form::Rules`] only).
    Distrusted(String),
}

/// What a rule of [`Form::Rules`] says.
const TRUST_FOLDER: &str = "TRUST_FOLDER";
/// The key [`Form::List`] and [`Form::Stamped`] keep their folders under.
const KEY: &str = "trustedFolders";

impl TrustedFolders {
    fn display_name(&self) -> &'static str {
        handover_clients::of(self.agent).display_name
    }

    /// The leading comment lines of `text` that the form keeps, and the JSON after them.
    fn split<'t>(&self, text: &'t str) -> (&'t str, &'t str) {
        if !matches!(self.form, Form::List) {
            return ("", text);
        }
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let t = line.trim();
            if !(t.is_empty() || t.starts_with("//")) {
                break;
            }
            at += line.len();
        }
        text.split_at(at)
    }

    /// The JSON (a blank one is an empty object), with why a parse may have failed.
    fn parse(&self, path: &Path, body: &str) -> Result<Value, EditError> {
        json_layout::parse(path, body).map_err(|mut e| {
            if let Some(hint) = self.comments_hint {
                if body.contains("//") || body.contains("/*") {
                    e.message.push_str(hint);
                }
            }
            e
        })
    }

    /// The entry of `doc` that decides for `repo`, if any.
    fn covering_in(&self, doc: &Value, repo: &Path) -> Option<Covering> {
        let repo = canonical(repo);
        let covers = |folder: &str| repo.starts_with(canonical(Path::new(folder)));
        match self.form {
            Form::List => doc
                .get(KEY)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .find(|f| covers(f))
                .map(|f| Covering::Trusted(f.to_string())),
            Form::Stamped { .. } => doc
                .get(KEY)
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(Map::keys)
                .find(|f| !f.is_empty() && covers(f))
                .map(|f| Covering::Trusted(f.clone())),
            Form::Rules => {
                let mut best: Option<(&str, &str)> = None;
                for (rule, level) in doc.as_object()?.iter() {
                    let Some(level) = level.as_str() else {
                        continue;
                    };
                    let folder = if level == "TRUST_PARENT" {
                        Path::new(rule).parent().map(Path::to_path_buf)
                    } else {
                        Some(PathBuf::from(rule))
                    };
                    let Some(folder) = folder else { continue };
                    if repo.starts_with(canonical(&folder))
                        && best.is_none_or(|(r, _)| rule.len() > r.len())
                    {
                        best = Some((rule, level));
                    }
                }
                match best? {
                    (rule, "TRUST_FOLDER" | "TRUST_PARENT") => {
                        Some(Covering::Trusted(rule.to_string()))
                    }
                    (rule, "DO_NOT_TRUST") => Some(Covering::Distrusted(rule.to_string())),
                    _ => None,
                }
            }
        }
    }

    /// The entry of `text` (the file at `path`) that decides for `repo`, if any.
    pub fn covering(
        &self,
        path: &Path,
        text: &str,
        repo: &Path,
    ) -> Result<Option<Covering>, EditError> {
        let (_, body) = self.split(text);
        Ok(self.covering_in(&self.parse(path, body)?, repo))
    }

    /// The folder that trusts `repo` in the file at `path`; a missing file has none.
    pub fn trusted_by(
        &self,
        path: &Path,
        text: &str,
        repo: &Path,
    ) -> Result<Option<String>, EditError> {
        Ok(match self.covering(path, text, repo)? {
            Some(Covering::Trusted(folder)) => Some(folder),
            _ => None,
        })
    }

    /// What the user's file says of `repo` now: the entry that decides, if any.
    pub fn covering_now(&self, homes: &Homes, repo: &Path) -> Result<Option<Covering>, EditError> {
        let path = (self.path)(homes);
        let text = read_opt(&path)?;
        self.covering(&path, text.as_deref().unwrap_or(""), repo)
    }

    /// The folder that trusts `repo` in the user's file now (for `status` and uninstall).
    pub fn folder_now(&self, homes: &Homes, repo: &Path) -> Result<Option<String>, EditError> {
        Ok(match self.covering_now(homes, repo)? {
            Some(Covering::Trusted(folder)) => Some(folder),
            _ => None,
        })
    }

    /// The change's words for `repo`'s entry.
    fn what(&self, repo: &Path, removed: bool) -> String {
        let (folder, label) = match self.form {
            // Gemini CLI's rules were always named by the path as given when added.
            Form::Rules if !removed => (repo.display().to_string(), TRUST_FOLDER),
            Form::Rules => (canonical(repo).to_string_lossy().into_owned(), TRUST_FOLDER),
            Form::List | Form::Stamped { .. } => {
                (canonical(repo).to_string_lossy().into_owned(), KEY)
            }
        };
        if removed {
            format!("trust {folder} ({label}, added by handover install --trust)")
        } else {
            format!("trust {folder} ({label})")
        }
    }

    /// The file with `repo` trusted (`trusted_at`: the time, for [`Form::Stamped`]; install
    /// passes its `now`): the
    /// comment lines and the layout kept, a new file in the client's own layout. Unchanged when
    /// an entry already trusts the repository; an error when a rule distrusts it (the user said
    /// no there; we do not overrule that).
    pub fn trust_repo(
        &self,
        path: &Path,
        before: Option<&str>,
        repo: &Path,
        trusted_at: &str,
    ) -> Result<(Option<String>, Change), EditError> {
        let what = self.what(repo, false);
        let (comments, body) = self.split(before.unwrap_or(""));
        let mut doc = self.parse(path, body)?;
        match self.covering_in(&doc, repo) {
            Some(Covering::Trusted(_)) => {
                return Ok((
                    before.map(str::to_string),
                    Change::new(ChangeKind::Unchanged, what),
                ))
            }
            Some(Covering::Distrusted(rule)) => {
                return Err(EditError::new(
                    path,
                    format!("the rule {rule:?} says DO_NOT_TRUST for this repository; handover does not overrule it. Change it in {} (or in this file), then run again", self.display_name()),
                ))
            }
            None => {}
        }
        let folder = canonical(repo).to_string_lossy().into_owned();
        let top = json_layout::top_object(path, &mut doc)?;
        let added = match self.form {
            Form::Rules => {
                top.insert(folder, Value::String(TRUST_FOLDER.into()));
                true
            }
            Form::List => match top
                .get_or_insert_with(KEY, || Value::Array(Vec::new()))
                .as_array_mut()
            {
                Some(list) => {
                    list.push(Value::from(folder));
                    true
                }
                None => false,
            },
            Form::Stamped { .. } => match top
                .get_or_insert_with(KEY, || Value::Object(Map::new()))
                .as_object_mut()
            {
                Some(folders) => {
                    let stamp = Value::String(trusted_at.to_string());
                    folders.insert(folder, Value::object([("trustedAt", stamp)]));
                    true
                }
                None => false,
            },
        };
        if !added {
            return Err(EditError::new(path, self.wrong_shape));
        }
        let layout = if body.trim().is_empty() {
            Layout {
                trailing_newline: self.new_file_newline,
                ..Layout::default()
            }
        } else {
            Layout::detect(body)
        };
        Ok((
            Some(format!("{comments}{}", json_layout::render(&doc, &layout))),
            Change::new(ChangeKind::Added, what),
        ))
    }

    /// The file without the entry `--trust` added for `repo` (uninstall, when install recorded
    /// that it added it: manifest.rs); a list or object left empty goes with it. The comment
    /// lines and the layout kept; unchanged when the entry is gone; a rule changed since install
    /// is left alone, and said.
    pub fn untrust_repo(
        &self,
        path: &Path,
        text: &str,
        repo: &Path,
    ) -> Result<(Option<String>, Change), EditError> {
        let folder = canonical(repo).to_string_lossy().into_owned();
        let what = self.what(repo, true);
        let unchanged = |what: String| {
            Ok((
                Some(text.to_string()),
                Change::new(ChangeKind::Unchanged, what),
            ))
        };
        let (comments, body) = self.split(text);
        if body.trim().is_empty() {
            return unchanged(what);
        }
        let mut doc = self.parse(path, body)?;
        let top = json_layout::top_object(path, &mut doc)?;
        let removed = match self.form {
            Form::Rules => match top.get(&folder).map(Value::as_str) {
                None => false,
                Some(Some(TRUST_FOLDER)) => top.remove(&folder).is_some(),
                Some(_) => {
                    return Ok((
                        Some(text.to_string()),
                        Change::new(
                            ChangeKind::Kept,
                            format!("the rule for {folder}: install added it as {TRUST_FOLDER} and it was changed since"),
                        ),
                    ))
                }
            },
            Form::List => {
                let Some(list) = top.get_mut(KEY).and_then(Value::as_array_mut) else {
                    return unchanged(what);
                };
                let had = list.len();
                list.retain(|v| v.as_str() != Some(folder.as_str()));
                let now_empty = list.is_empty();
                let removed = list.len() != had;
                if removed && now_empty {
                    top.remove(KEY);
                }
                removed
            }
            Form::Stamped { .. } => {
                let Some(folders) = top.get_mut(KEY).and_then(Value::as_object_mut) else {
                    return unchanged(what);
                };
                let removed = folders.remove(&folder).is_some();
                if removed && folders.is_empty() {
                    top.remove(KEY);
                }
                removed
            }
        };
        if !removed {
            return unchanged(what);
        }
        Ok((
            Some(format!(
                "{comments}{}",
                json_layout::render(&doc, &Layout::detect(body))
            )),
            Change::new(ChangeKind::Removed, what),
        ))
    }

    /// Install's edit that adds the repository (`--trust`), and whether it added it.
    pub fn plan_trust(&self, homes: &Homes, repo: &Path) -> Result<Planned, EditError> {
        let mut plan = Planned::default();
        let path = (self.path)(homes);
        let before = read_opt(&path)?;
        let trusted_at = match self.form {
            Form::Stamped { now } => now(),
            Form::List | Form::Rules => String::new(),
        };
        let added = self.trust_repo(&path, before.as_deref(), repo, &trusted_at)?;
        plan.trusts = added.1.kind == ChangeKind::Added;
        plan.edits.push(edit(path, before, added));
        Ok(plan)
    }

    /// Uninstall's edit of the file (one that exists), when `untrust` is asked for; none when
    /// nothing changes.
    pub fn plan_untrust(
        &self,
        homes: &Homes,
        repo: &Path,
        untrust: bool,
    ) -> Result<Planned, EditError> {
        let mut plan = Planned::default();
        let path = (self.path)(homes);
        if !untrust {
            return Ok(plan);
        }
        let Some(before) = read_opt(&path)? else {
            return Ok(plan);
        };
        let (after, change) = self.untrust_repo(&path, &before, repo)?;
        if change.kind != ChangeKind::Unchanged {
            plan.edits.push(edit(path, Some(before), (after, change)));
        }
        Ok(plan)
    }

    /// What uninstall says of an entry that still trusts the repository: left as it is, since
    /// it may predate handover. Nothing for the user scope (no one folder to trust for it).
    pub fn left_in_place(&self, at: Place<'_>) -> Vec<String> {
        if at.scope == Scope::User {
            return Vec::new();
        }
        let path = (self.path)(at.homes);
        let Ok(Some(folder)) = self.folder_now(at.homes, at.repo) else {
            return Vec::new();
        };
        let entry = match self.form {
            Form::Rules => format!("{folder} in {}", path.display()),
            Form::List | Form::Stamped { .. } => {
                format!("{folder} in {KEY} of {}", path.display())
            }
        };
        vec![format!(
            "{} still trusts this folder ({entry}); that entry is left as it is (it may predate handover): remove it by hand if you want.",
            self.display_name()
        )]
    }
}

/// What `handover status` knows of a client's trusted folders: the entry that covers the
/// repository, or why the file could not be read (then it is not serialised).
#[derive(Clone, Debug, Serialize)]
pub struct FolderStatus {
    #[serde(
        skip_serializing_if = "Result::is_err",
        rename = "trusted_folder",
        serialize_with = "crate::wiring::facts::json::ok_value"
    )]
    pub folder: Result<Option<String>, String>,
}

impl TrustedFolders {
    /// The entry that covers `repo` now, for `handover status`.
    pub fn status(&self, homes: &Homes, repo: &Path) -> FolderStatus {
        FolderStatus {
            folder: self.folder_now(homes, repo).map_err(|e| e.to_string()),
        }
    }
}

/// The planned edit of a trusted-folders file.
fn edit(
    path: PathBuf,
    before: Option<String>,
    (after, change): (Option<String>, Change),
) -> FileEdit {
    FileEdit::new(
        path,
        FileKind::FolderTrust,
        before,
        after,
        vec![change],
        None,
    )
}

impl TrustedFolders {
    /// `handover status`'s line for the entry that covers the repository, when the file could
    /// be read: "<agent>: folder trusted (<folder>)", or "<agent>: folder not trusted" and what
    /// that means for the client (`untrusted_means`).
    pub(crate) fn status_line(
        &self,
        folder: &Result<Option<String>, String>,
        untrusted_means: &str,
        out: &mut Vec<String>,
    ) {
        let client = self.agent.as_str();
        if let Ok(folder) = folder {
            out.push(match folder {
                Some(f) => format!("{client}: folder trusted ({f})"),
                None => format!("{client}: folder not trusted{untrusted_means}"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wiring::{copilot, droid, gemini};

    /// Each client's form: the repository added to no file (the client's own layout), and to a
    /// file of the user's with every other line kept byte for byte; trusting it again changes
    /// nothing.
    #[test]
    fn each_form_adds_the_repository_and_keeps_the_rest() {
        struct Case {
            client: &'static str,
            editor: &'static TrustedFolders,
            path: &'static str,
            at: &'static str,
            new_file: &'static str,
            before: &'static str,
            after: &'static str,
        }
        let cases = [
            Case {
                client: "gemini",
                editor: &gemini::files::TRUSTED_FOLDERS,
                path: "/h/.gemini/trustedFolders.json",
                at: "",
                new_file: "{\n  \"/nonexistent/repo\": \"TRUST_FOLDER\"\n}",
                before: "{\n    \"/a\": \"DO_NOT_TRUST\"\n}\n",
                after: "{\n    \"/a\": \"DO_NOT_TRUST\",\n    \"/nonexistent/repo\": \"TRUST_FOLDER\"\n}\n",
            },
            // The comment lines and the layout kept.
            Case {
                client: "copilot",
                editor: &copilot::files::TRUSTED_FOLDERS,
                path: "/h/.copilot/config.json",
                at: "",
                new_file: "{\n  \"trustedFolders\": [\n    \"/nonexistent/repo\"\n  ]\n}\n",
                before: "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n    \"firstLaunchAt\": \"2026-11-25T15:51:11.822Z\"\n}\n",
                after: "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n    \"firstLaunchAt\": \"2026-11-25T15:51:11.822Z\",\n    \"trustedFolders\": [\n        \"/nonexistent/repo\"\n    ]\n}\n",
            },
            // Every other key kept in place, another trusted folder too.
            Case {
                client: "droid",
                editor: &droid::TRUSTED_FOLDERS,
                path: "/h/.factory/settings.json",
                at: "2026-11-28T06:50:00.123Z",
                new_file: "{\n  \"trustedFolders\": {\n    \"/nonexistent/repo\": {\n      \"trustedAt\": \"2026-11-28T06:50:00.123Z\"\n    }\n  }\n}\n",
                before: "{\n    \"customModels\": [\n        {\n            \"model\": \"m\"\n        }\n    ],\n    \"trustedFolders\": {\n        \"/nonexistent/other\": {\n            \"trustedAt\": \"2026-01-01T00:00:00.000Z\"\n        }\n    },\n    \"zeta\": true\n}\n",
                after: "{\n    \"customModels\": [\n        {\n            \"model\": \"m\"\n        }\n    ],\n    \"trustedFolders\": {\n        \"/nonexistent/other\": {\n            \"trustedAt\": \"2026-01-01T00:00:00.000Z\"\n        },\n        \"/nonexistent/repo\": {\n            \"trustedAt\": \"2026-11-28T06:50:00.123Z\"\n        }\n    },\n    \"zeta\": true\n}\n",
            },
        ];
        let repo = Path::new("/nonexistent/repo");
        for case in cases {
            let trust = |before: Option<&str>| {
                let (text, change) = case
                    .editor
                    .trust_repo(Path::new(case.path), before, repo, case.at)
                    .unwrap();
                (change.kind, text)
            };
            let client = case.client;
            let added = |text: &str| (ChangeKind::Added, Some(text.to_string()));
            let unchanged = |text: &str| (ChangeKind::Unchanged, Some(text.to_string()));
            assert_eq!(trust(None), added(case.new_file), "{client}: a new file");
            assert_eq!(trust(Some(case.before)), added(case.after), "{client}");
            for text in [case.new_file, case.after] {
                assert_eq!(trust(Some(text)), unchanged(text), "{client}: again");
            }
        }
    }
}
