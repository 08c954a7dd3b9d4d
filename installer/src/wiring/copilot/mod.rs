//! GitHub Copilot CLI's installer steps (see the parent module): its own hooks shape, folder
//! trust for a repository, its status facts. The editors are in [`files`].

pub mod files;

use super::trusted_folders::{FolderStatus, TrustedFolders};
use super::{Install, Place, Planned, Wiring};
use crate::edit::hooks_doc::{Found, Mention, Wanted};
use crate::edit::hooks_file::HooksEdit;
use crate::edit::json_doc::Value;
use crate::error::EditError;
use crate::wiring::facts::{OwnFacts, ScopeStatus};
use crate::wiring::mcp::McpFile;
use crate::wiring::Facts;
use files::{command_with_event, config_in, edit_hooks, find, trust_problem, TRUSTED_FOLDERS};
use handover_clients::Agent;
use handover_clients::Scope;
use serde::Serialize;
use std::path::Path;

pub struct CopilotWiring;

impl Wiring for CopilotWiring {
    /// The workspace's `.github/mcp.json` (GitHub Copilot CLI 1.0.102 also reads `.mcp.json`;
    /// it loads neither in a folder it does not trust), or the user's `mcp-config.json`.
    fn mcp_file(&self, at: Place<'_>) -> Option<McpFile> {
        Some(match at.scope {
            Scope::User => McpFile::json(
                at.homes
                    .user_dir(handover_clients::of(Agent::Copilot))
                    .join("mcp-config.json"),
            ),
            Scope::Project | Scope::Local => McpFile::json(
                at.repo.join(".github").join("mcp.json"),
            )
            .needing(Some(
                "GitHub Copilot CLI reads .github/mcp.json only in a folder it trusts (--trust)",
            )),
        })
    }

    fn trusted_folders(&self) -> Option<&'static TrustedFolders> {
        Some(&TRUSTED_FOLDERS)
    }

    fn edit_hooks(&self, path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
        edit_hooks(path, before, want)
    }

    fn find_ours(&self, doc: &Value) -> (Vec<Found>, Vec<Mention>) {
        find(doc)
    }

    fn command_on(&self, command: String, event: &str) -> String {
        command_with_event(&command, event)
    }

    /// For a repository, folder trust: written with `--trust`, else a problem saying what to
    /// do (Copilot loads no repository hooks in a folder the user has not trusted; user hooks
    /// run everywhere).
    fn plan_install(&self, install: Install<'_>) -> Result<Planned, EditError> {
        let Install { at, opts, .. } = install;
        let mut plan = Planned::default();
        if opts.scope == Scope::User {
            return Ok(plan);
        }
        if TRUSTED_FOLDERS.folder_now(at.homes, at.repo)?.is_some() {
            return Ok(plan);
        }
        if opts.trust {
            return TRUSTED_FOLDERS.plan_trust(at.homes, at.repo);
        }
        plan.problems
            .push(trust_problem(at.repo, &config_in(at.homes)));
        Ok(plan)
    }

    fn status_facts(&self, at: Place<'_>, _scopes: &mut [ScopeStatus]) -> Option<Facts> {
        let config = config_in(at.homes);
        Some(Facts::Copilot(CopilotFacts {
            trusted: TRUSTED_FOLDERS.status(at.homes, at.repo),
            trust_problem: trust_problem(at.repo, &config),
        }))
    }
}

// ---- What `handover status` says of it ----

impl OwnFacts for CopilotFacts {
    fn lines(&self, _scopes: &[ScopeStatus], out: &mut Vec<String>) {
        TRUSTED_FOLDERS.status_line(&self.trusted.folder, "", out);
    }

    /// Copilot CLI loads no repository hooks in a folder the user has not trusted: said when
    /// ours are installed in the repository.
    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let in_repo = scopes
            .iter()
            .any(|s| s.scope == Scope::Project && !s.file.ours.is_empty());
        match &self.trusted.folder {
            Err(e) => out.push(e.clone()),
            Ok(None) if in_repo => out.push(self.trust_problem.clone()),
            Ok(_) => {}
        }
    }
}

// ---- What `handover status` knows of it ----

/// GitHub Copilot CLI loads no repository hooks in a folder the user has not trusted.
#[derive(Clone, Debug, Serialize)]
pub struct CopilotFacts {
    /// The `trustedFolders` entry that covers the repository.
    #[serde(flatten)]
    pub trusted: FolderStatus,
    /// What the user must do for Copilot CLI to run the repository's hooks.
    #[serde(skip)]
    pub trust_problem: String,
}
