//! Gemini CLI: where its files are, the context file it reads, and folder trust.
//!
//! - Hooks: `<repo>/.gemini/settings.json` (project) or `~/.gemini/settings.json` (user), the same
//!   `{"hooks": {"<Event>": [{"hooks": [...]}]}}` shape as Claude Code (edited by hooks_doc), with
//!   Gemini's event names and a `timeout` in milliseconds (handover_clients::gemini).
//! - Instructions: the file named by `context.fileName` (a name or a list of names; the first
//!   counts), default `GEMINI.md`, in the repository root.
//! - Folder trust: Gemini CLI 0.61.0 runs NO hooks, project or user, in a folder it does not
//!   trust (folder trust is on by default). It records trust in `~/.gemini/trustedFolders.json`
//!   as `{"<abs path>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}` (the longest matching
//!   path wins; TRUST_PARENT trusts the path's parent), written as `JSON.stringify(_, null, 2)`:
//!   two spaces, no trailing newline. With `--trust` we add the repository the same way.
//!
//! `~/.gemini` is `$GEMINI_CLI_HOME/.gemini` when that variable is set (the client's rule).

use crate::edit::json_doc::Value;
use crate::edit::json_layout;
use crate::error::EditError;
use crate::files::{read_opt, Homes};
use crate::wiring::trusted_folders::{Covering, Form, TrustedFolders};
use handover_clients::Scope;
use std::path::{Path, PathBuf};

/// The context file Gemini CLI reads when `context.fileName` is not set.
use handover_clients::gemini::DEFAULT_CONTEXT_FILE;

pub fn settings_path(scope: Scope, repo: &Path, homes: &Homes) -> PathBuf {
    crate::files::hooks_path(handover_clients::Agent::Gemini, scope, repo, homes)
}

/// Gemini CLI's trusted folders: rules in their own file (with `--trust` we add the repository
/// the way Gemini CLI does), a new file without a trailing newline.
pub static TRUSTED_FOLDERS: TrustedFolders = TrustedFolders {
    agent: handover_clients::Agent::Gemini,
    path: trusted_folders_path,
    form: Form::Rules,
    comments_hint: None,
    wrong_shape:
        "the top level is not a JSON object; fix the file by hand, then run the command again",
    new_file_newline: false,
};

pub fn trusted_folders_path(homes: &Homes) -> PathBuf {
    handover_clients::gemini::trusted_folders_file(
        &homes.user_dir(&handover_clients::gemini::CLIENT),
    )
}

/// A settings file as JSON, or None when it does not exist. Gemini CLI accepts comments in its
/// settings (JSONC); we cannot edit such a file without losing them, so it is refused with
/// that reason.
fn read_settings(path: &Path) -> Result<Option<Value>, EditError> {
    let Some(text) = read_opt(path)? else {
        return Ok(None);
    };
    json_layout::parse(path, &text)
        .map(Some)
        .map_err(|e| comment_hint(e, &text))
}

/// Adds to a parse error of a Gemini settings file why it may have failed: comments.
pub fn comment_hint(mut e: EditError, text: &str) -> EditError {
    if text.contains("//") || text.contains("/*") {
        e.message.push_str(
            " (if the file has comments: Gemini CLI allows them, handover cannot keep them; remove them, or add the hooks by hand as docs/install.md shows)",
        );
    }
    e
}

/// `context.fileName` from the project's settings, else the user's: the first name when it is
/// a list. Only a plain file name counts (the project's settings are repository content: a
/// path there must not steer our edit outside the repository root).
pub fn context_file(repo: &Path, homes: &Homes) -> Result<(PathBuf, Option<String>), EditError> {
    for scope in [Scope::Project, Scope::User] {
        let path = settings_path(scope, repo, homes);
        let Some(doc) = read_settings(&path)? else {
            continue;
        };
        let name = match doc.pointer("/context/fileName") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(list)) => list.iter().find_map(Value::as_str).map(str::to_string),
            _ => None,
        };
        let Some(name) = name else { continue };
        if is_plain_file_name(&name) {
            return Ok((repo.join(name), None));
        }
        return Ok((
            repo.join(DEFAULT_CONTEXT_FILE),
            Some(format!(
                "context.fileName {name:?} in {} is not a plain file name; the handover section goes to {DEFAULT_CONTEXT_FILE}",
                path.display()
            )),
        ));
    }
    Ok((repo.join(DEFAULT_CONTEXT_FILE), None))
}

fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && name.trim() == name
}

impl FolderTrust {
    pub fn as_str(&self) -> &'static str {
        match self {
            FolderTrust::Off => "off",
            FolderTrust::Trusted(_) => "trusted",
            FolderTrust::Distrusted(_) => "distrusted",
            FolderTrust::Unknown => "unknown",
        }
    }

    pub fn runs_hooks(&self) -> bool {
        matches!(self, FolderTrust::Off | FolderTrust::Trusted(_))
    }
}

/// Whether Gemini CLI trusts `repo`: the user's `security.folderTrust.enabled`, then the
/// longest rule in trustedFolders.json whose folder contains the repository.
pub fn folder_trust(repo: &Path, homes: &Homes) -> Result<FolderTrust, EditError> {
    let settings = read_settings(&settings_path(Scope::User, repo, homes))?;
    let enabled = settings
        .as_ref()
        .and_then(|s| s.get("security"))
        .and_then(|s| s.get("folderTrust"))
        .and_then(|s| s.get("enabled"))
        .and_then(Value::as_bool);
    if enabled == Some(false) {
        return Ok(FolderTrust::Off);
    }
    Ok(match TRUSTED_FOLDERS.covering_now(homes, repo)? {
        Some(Covering::Trusted(rule)) => FolderTrust::Trusted(rule),
        Some(Covering::Distrusted(rule)) => FolderTrust::Distrusted(rule),
        None => FolderTrust::Unknown,
    })
}

/// What the user must do for Gemini CLI to run the hooks, when it will not yet. `scope` is
/// where our hooks are: the fix names it, since a plain `install --trust` would wire the
/// project's settings instead of trusting for the user-scope hooks.
pub fn trust_problem(
    repo: &Path,
    homes: &Homes,
    trust: &FolderTrust,
    scope: Scope,
) -> Option<String> {
    let scope_flag = if scope == Scope::User {
        " --scope user"
    } else {
        ""
    };
    let path = trusted_folders_path(homes);
    match trust {
        FolderTrust::Off | FolderTrust::Trusted(_) => None,
        FolderTrust::Distrusted(rule) => Some(format!(
            "gemini: {} is marked DO_NOT_TRUST (rule {rule:?} in {}), so Gemini CLI runs no hooks there; trust the folder in Gemini CLI if you want them",
            repo.display(),
            path.display()
        )),
        FolderTrust::Unknown => Some(format!(
            "gemini: Gemini CLI runs no hooks in a folder it does not trust, and {} is not trusted yet; run `handover install --gemini{scope_flag} --trust` (adds it to {}), or start `gemini` in the repository and choose to trust the folder",
            repo.display(),
            path.display()
        )),
    }
}

/// How Gemini CLI will treat the repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FolderTrust {
    /// `security.folderTrust.enabled` is false in the user's settings: every folder is trusted.
    Off,
    /// A rule trusts it (the rule's path).
    Trusted(String),
    /// A rule distrusts it (the rule's path).
    Distrusted(String),
    /// No rule: Gemini CLI asks in an interactive session and runs no hooks until trusted.
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_rules_longest_match_and_parent() {
        let doc =
            r#"{"/w": "TRUST_FOLDER", "/w/secret": "DO_NOT_TRUST", "/p/marker": "TRUST_PARENT"}"#;
        let trust_of = |doc: &str, repo: &Path| match TRUSTED_FOLDERS
            .covering(Path::new("/h/t.json"), doc, repo)
            .unwrap()
        {
            Some(Covering::Trusted(rule)) => FolderTrust::Trusted(rule),
            Some(Covering::Distrusted(rule)) => FolderTrust::Distrusted(rule),
            None => FolderTrust::Unknown,
        };
        assert_eq!(
            trust_of(doc, Path::new("/w/repo")),
            FolderTrust::Trusted("/w".into())
        );
        assert_eq!(
            trust_of(doc, Path::new("/w/secret/repo")),
            FolderTrust::Distrusted("/w/secret".into())
        );
        assert_eq!(
            trust_of(doc, Path::new("/p/other")),
            FolderTrust::Trusted("/p/marker".into())
        );
        assert_eq!(trust_of(doc, Path::new("/x")), FolderTrust::Unknown);
        assert_eq!(
            trust_of(doc, Path::new("/wx")),
            FolderTrust::Unknown,
            "a path prefix is not a parent folder"
        );
    }

    /// Adding the rule, in the client's style, is in the editor's table
    /// (`each_form_adds_the_repository_and_keeps_the_rest`); a rule that distrusts the
    /// repository, or a file that is not an object, is refused.
    #[test]
    fn a_distrusting_rule_or_a_strange_file_is_refused() {
        let p = Path::new("/h/.gemini/trustedFolders.json");
        let other = "{\n    \"/a\": \"DO_NOT_TRUST\"\n}\n";
        let e = TRUSTED_FOLDERS
            .trust_repo(p, Some(other), Path::new("/a/b"), "")
            .unwrap_err();
        assert!(e.to_string().contains("DO_NOT_TRUST"), "{e}");
        assert!(TRUSTED_FOLDERS
            .trust_repo(p, Some("{oops"), Path::new("/r"), "")
            .is_err());
        assert!(TRUSTED_FOLDERS
            .trust_repo(p, Some("[1]"), Path::new("/r"), "")
            .is_err());
    }

    #[test]
    fn only_plain_context_file_names_count() {
        for ok in ["GEMINI.md", "AGENTS.md", "context.md"] {
            assert!(is_plain_file_name(ok), "{ok}");
        }
        for bad in ["", "..", "../x.md", "/etc/passwd", "a/b.md", " x.md"] {
            assert!(!is_plain_file_name(bad), "{bad}");
        }
    }
}
