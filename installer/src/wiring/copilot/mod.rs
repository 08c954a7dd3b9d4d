//! GitHub Copilot CLI's installer steps (see the parent module): its own hooks shape, folder
//! trust for a repository, its status facts. The editors are in [`files`].

pub mod files;

use super::{folder_trust_edit, InstallOptions, Place, Planned, Wiring};
use crate::edit::file_edit::FileEdit;
use crate::edit::hooks_doc::{Found, Mention, Wanted};
use crate::edit::json_doc::Value;
use crate::error::EditError;
use crate::files::{read_opt, Homes, Scope};
use crate::report::Change;
use crate::wiring::facts::{CopilotFacts, Facts, ScopeStatus};
use files::{
    command_with_event, config_path, edit_hooks, find, trust_problem, trust_repo, trusted_by,
};
use std::path::{Path, PathBuf};

pub struct CopilotWiring;

/// Copilot CLI's config.json under the homes' Copilot user directory.
fn config_in(homes: &Homes) -> PathBuf {
    config_path(&homes.user_dir(handover_clients::of(handover_clients::Agent::Copilot)))
}

impl Wiring for CopilotWiring {
    fn edit_hooks(
        &self,
        path: &Path,
        before: Option<&str>,
        want: Option<&[Wanted]>,
    ) -> Result<(Option<String>, Vec<Change>), EditError> {
        edit_hooks(path, before, want)
    }

    fn find(&self, doc: &Value) -> (Vec<Found>, Vec<Mention>) {
        find(doc)
    }

    fn command_on(&self, command: String, event: &str) -> String {
        command_with_event(&command, event)
    }

    /// For a repository, folder trust: written with `--trust`, else a problem saying what to
    /// do (Copilot loads no repository hooks in a folder the user has not trusted; user hooks
    /// run everywhere).
    fn plan_install(
        &self,
        at: Place<'_>,
        opts: &InstallOptions,
        _hooks: &FileEdit,
        _want: &[Wanted],
    ) -> Result<Planned, EditError> {
        let mut plan = Planned::default();
        if opts.scope == Scope::User {
            return Ok(plan);
        }
        let repo = at.repo;
        let config = config_in(at.homes);
        let before = read_opt(&config)?;
        if trusted_by(&config, before.as_deref().unwrap_or(""), repo)?.is_some() {
            return Ok(plan);
        }
        if opts.trust {
            let added = trust_repo(&config, before.as_deref(), repo)?;
            plan.trusts = added.1.kind == crate::report::ChangeKind::Added;
            plan.edits.push(folder_trust_edit(config, before, added));
        } else {
            plan.problems.push(trust_problem(repo, &config));
        }
        Ok(plan)
    }

    /// The entry `--trust` added, when install recorded it.
    fn plan_uninstall(
        &self,
        at: Place<'_>,
        _hooks: &FileEdit,
        untrust: bool,
    ) -> Result<Planned, EditError> {
        super::folder_untrust_edit(config_in(at.homes), untrust, |path, text| {
            files::untrust_repo(path, text, at.repo)
        })
    }

    fn left_in_place(&self, at: Place<'_>) -> Vec<String> {
        if at.scope == Scope::User {
            return Vec::new();
        }
        let config = config_in(at.homes);
        match super::trusted_folder(&config, at.repo, trusted_by) {
            Ok(Some(folder)) => super::still_trusts(
                "GitHub Copilot CLI",
                &format!("{folder} in trustedFolders of {}", config.display()),
            ),
            _ => Vec::new(),
        }
    }

    fn status_facts(&self, at: Place<'_>, _scopes: &mut [ScopeStatus]) -> Option<Facts> {
        let config = config_in(at.homes);
        let folder = super::trusted_folder(&config, at.repo, trusted_by).map_err(|e| e.to_string());
        Some(Facts::Copilot(CopilotFacts {
            folder,
            trust_problem: trust_problem(at.repo, &config),
        }))
    }
}
