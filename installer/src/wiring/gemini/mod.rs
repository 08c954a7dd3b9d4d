//! Gemini CLI's installer steps beyond its settings file (see the parent module): folder
//! trust, its configurable context file, its status facts. The editors are in [`files`].

pub mod files;

use super::trusted_folders::TrustedFolders;
use super::{Install, Place, Planned, Wiring};
use crate::edit::hooks_doc::Wanted;
use crate::edit::hooks_file::HooksEdit;
use crate::error::EditError;
use crate::files::Homes;
use crate::wiring::facts::{OwnFacts, ScopeStatus};
use crate::wiring::mcp::McpFile;
use crate::wiring::Facts;
use files::{
    comment_hint, context_file, folder_trust, trust_problem, FolderTrust, TRUSTED_FOLDERS,
};
use handover_clients::Scope;
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};

pub struct GeminiWiring;

impl Wiring for GeminiWiring {
    /// `mcpServers` in its settings file, the hooks' file of each scope; Gemini CLI starts no
    /// server in a folder it does not trust.
    fn mcp_file(&self, at: Place<'_>) -> Option<McpFile> {
        let path =
            crate::files::hooks_path(handover_clients::Agent::Gemini, at.scope, at.repo, at.homes);
        let needs = (at.scope != Scope::User)
            .then_some("Gemini CLI starts no MCP server in a folder it does not trust (--trust)");
        Some(McpFile::json(path).needing(needs))
    }

    fn trusted_folders(&self) -> Option<&'static TrustedFolders> {
        Some(&TRUSTED_FOLDERS)
    }

    /// The shared shape; a parse error says why it may have failed: comments.
    fn edit_hooks(&self, path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
        crate::edit::hooks_file::edit_hooks_json(path, before, want)
            .map_err(|e| comment_hint(e, before.unwrap_or("")))
    }

    /// Folder trust: written with `--trust`, else a problem saying what to do (Gemini runs no
    /// hooks in an untrusted folder).
    fn plan_install(&self, install: Install<'_>) -> Result<Planned, EditError> {
        let Install { at, opts, .. } = install;
        let mut plan = Planned::default();
        let (repo, homes) = (at.repo, at.homes);
        let trust = folder_trust(repo, homes)?;
        if trust.runs_hooks() {
            return Ok(plan);
        }
        if opts.trust && matches!(trust, FolderTrust::Unknown) {
            return TRUSTED_FOLDERS.plan_trust(homes, repo);
        } else if let Some(problem) = trust_problem(repo, homes, &trust, opts.scope) {
            plan.problems.push(problem);
        }
        Ok(plan)
    }

    /// `context.fileName`, else GEMINI.md.
    fn configured_instruction_file(
        &self,
        repo: &Path,
        homes: &Homes,
    ) -> Option<Result<(PathBuf, Option<String>), EditError>> {
        Some(context_file(repo, homes))
    }

    fn left_in_place(&self, at: Place<'_>) -> Vec<String> {
        if at.scope == Scope::User {
            return Vec::new();
        }
        // Nothing when the user turned folder trust off: no rule then counts.
        match folder_trust(at.repo, at.homes) {
            Ok(FolderTrust::Trusted(_)) => TRUSTED_FOLDERS.left_in_place(at),
            _ => Vec::new(),
        }
    }

    fn status_facts(&self, at: Place<'_>, scopes: &mut [ScopeStatus]) -> Option<Facts> {
        let (repo, homes) = (at.repo, at.homes);
        let folder_trust = folder_trust(repo, homes).map_err(|e| e.to_string());
        // The fix names the user scope only when our hooks are nowhere else.
        let ours_in = |scope: Scope| {
            scopes
                .iter()
                .any(|s| s.scope == scope && !s.file.ours.is_empty())
        };
        let scope = if ours_in(Scope::User) && !ours_in(Scope::Project) {
            Scope::User
        } else {
            Scope::Project
        };
        Some(Facts::Gemini(GeminiFacts {
            trust_problem: folder_trust
                .as_ref()
                .ok()
                .and_then(|t| trust_problem(repo, homes, t, scope)),
            folder_trust,
        }))
    }
}

// ---- What `handover status` says of it ----

impl OwnFacts for GeminiFacts {
    /// In the words of the other clients' trust lines (`TrustedFolders::status_line`).
    fn lines(&self, _scopes: &[ScopeStatus], out: &mut Vec<String>) {
        if let Ok(trust) = &self.folder_trust {
            out.push(match trust {
                FolderTrust::Trusted(rule) => format!("gemini: folder trusted ({rule})"),
                FolderTrust::Distrusted(rule) => {
                    format!("gemini: folder distrusted ({rule}: DO_NOT_TRUST)")
                }
                FolderTrust::Unknown => "gemini: folder not trusted".into(),
                FolderTrust::Off => {
                    "gemini: folder trust is off (Gemini CLI runs hooks in every folder)".into()
                }
            });
        }
    }

    /// Gemini CLI runs no hooks in a folder it does not trust: said when ours are installed.
    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        match &self.folder_trust {
            Err(e) => out.push(e.clone()),
            Ok(_) if scopes.iter().any(|s| !s.file.ours.is_empty()) => {
                out.extend(self.trust_problem.iter().cloned());
            }
            Ok(_) => {}
        }
    }
}

// ---- What `handover status` knows of it ----

#[derive(Clone, Debug, Serialize)]
pub struct GeminiFacts {
    /// Whether Gemini CLI trusts the repository (it runs no hooks in an untrusted folder), or
    /// why that could not be read (then it is not serialised).
    #[serde(skip_serializing_if = "Result::is_err", serialize_with = "trust_word")]
    pub folder_trust: Result<FolderTrust, String>,
    /// What the user must do for Gemini CLI to run the hooks, when it will not yet.
    #[serde(skip)]
    pub trust_problem: Option<String>,
}

/// The trust as a word in `--json` (`trusted`, `unknown`, ...).
fn trust_word<S: Serializer>(t: &Result<FolderTrust, String>, s: S) -> Result<S::Ok, S::Error> {
    t.as_ref().ok().map(FolderTrust::as_str).serialize(s)
}
