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

use super::trusted_folders::{FolderStatus, Form, TrustedFolders};
use super::{Install, Place, Planned, Uninstall, Wiring};
use crate::error::EditError;
use crate::files::{canonical, Homes};
use crate::wiring::facts::{OwnFacts, ScopeStatus};
use crate::wiring::mcp::McpFile;
use crate::wiring::Facts;
use handover_clients::Scope;
use serde::Serialize;
use std::path::PathBuf;

pub struct DroidWiring;

/// Droid's folder trust: an object under `trustedFolders` in its user settings, each folder
/// stamped with the time it was trusted. Droid reads the file as JSON with comments; a file with
/// comments is refused with that reason, nothing written.
pub static TRUSTED_FOLDERS: TrustedFolders = TrustedFolders {
    agent: handover_clients::Agent::Droid,
    path: user_settings_path,
    form: Form::Stamped { now: iso_now },
    comments_hint: Some(" (if the file has comments: Factory Droid allows them, handover cannot keep them; remove them, or answer Droid's \"Trust this folder?\" in its terminal UI instead of --trust)"),
    wrong_shape: "\"trustedFolders\" is not an object; fix it by hand (Factory Droid keeps {\"<folder>\": {\"trustedAt\": \"<time>\"}} there), then run the command again",
    new_file_newline: true,
};

/// Droid's user settings, where it records the folders the user trusts.
pub fn user_settings_path(homes: &Homes) -> PathBuf {
    homes
        .user_dir(handover_clients::of(handover_clients::Agent::Droid))
        .join("settings.json")
}

impl Wiring for DroidWiring {
    /// `mcp.json` in the project's `.factory/` or the user's.
    fn mcp_file(&self, at: Place<'_>) -> Option<McpFile> {
        let dir = match at.scope {
            Scope::User => at
                .homes
                .user_dir(handover_clients::of(handover_clients::Agent::Droid)),
            Scope::Project | Scope::Local => at.repo.join(".factory"),
        };
        Some(McpFile::json(dir.join("mcp.json")))
    }

    fn trusted_folders(&self) -> Option<&'static TrustedFolders> {
        Some(&TRUSTED_FOLDERS)
    }

    /// For a repository with `--trust`: the folder trusted in the user settings (Droid's own
    /// answer to its question, given ahead). Without `--trust` nothing: `droid exec` runs the
    /// hooks anyway, and the terminal UI asks the user itself. User-scope hooks run wherever
    /// the user trusted a folder; there is no one folder to trust for them.
    fn plan_install(&self, install: Install<'_>) -> Result<Planned, EditError> {
        let Install {
            at, opts, hooks, ..
        } = install;
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
        TRUSTED_FOLDERS.plan_trust(at.homes, at.repo)
    }

    /// The entry `--trust` added, when install recorded it (not where the user settings are
    /// the repository's own, as install then wrote none).
    fn plan_uninstall(&self, uninstall: Uninstall<'_>) -> Result<Planned, EditError> {
        let Uninstall { at, hooks, untrust } = uninstall;
        let path = user_settings_path(at.homes);
        let untrust = untrust && canonical(&path) != canonical(&hooks.path);
        TRUSTED_FOLDERS.plan_untrust(at.homes, at.repo, untrust)
    }

    fn status_facts(&self, at: Place<'_>, _scopes: &mut [ScopeStatus]) -> Option<Facts> {
        Some(Facts::Droid(DroidFacts {
            trusted: TRUSTED_FOLDERS.status(at.homes, at.repo),
        }))
    }
}

/// Now as JavaScript's `toISOString()` writes it (Droid's own `trustedAt`):
/// `2026-11-28T06:50:00.123Z`.
fn iso_now() -> String {
    let (secs, nanos) = handover_base::clock::unix_now();
    let whole = handover_base::clock::format_rfc3339(secs);
    format!("{}.{:03}Z", whole.trim_end_matches('Z'), nanos / 1_000_000)
}

// ---- What `handover status` says of it ----

impl OwnFacts for DroidFacts {
    fn lines(&self, _scopes: &[ScopeStatus], out: &mut Vec<String>) {
        TRUSTED_FOLDERS.status_line(
            &self.trusted.folder,
            " (its terminal UI asks before it runs the hooks; `handover install --droid --trust` answers ahead)",
            out,
        );
    }

    /// Not trusting the folder is no problem: Droid's terminal UI asks, and `droid exec` runs
    /// the hooks anyway. A settings file that cannot be read is.
    fn problems(&self, _scopes: &[ScopeStatus], out: &mut Vec<String>) {
        if let Err(e) = &self.trusted.folder {
            out.push(e.clone());
        }
    }
}

// ---- What `handover status` knows of it ----

/// Factory Droid's terminal UI runs no hook in a folder the user has not trusted; it asks
/// first.
#[derive(Clone, Debug, Serialize)]
pub struct DroidFacts {
    /// The `trustedFolders` entry of the user settings that covers the repository.
    #[serde(flatten)]
    pub trusted: FolderStatus,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ChangeKind;
    use std::path::Path;

    const AT: &str = "2026-11-28T06:50:00.123Z";

    #[test]
    fn a_folder_above_the_repository_already_trusts_it() {
        let p = Path::new("/h/.factory/settings.json");
        let before = "{\"trustedFolders\": {\"/nonexistent/\": {\"trustedAt\": \"x\"}}}";
        let (after, change) = TRUSTED_FOLDERS
            .trust_repo(p, Some(before), Path::new("/nonexistent/repo"), AT)
            .unwrap();
        assert_eq!(change.kind, ChangeKind::Unchanged);
        assert_eq!(after.as_deref(), Some(before), "byte for byte");
        assert_eq!(
            TRUSTED_FOLDERS
                .trusted_by(p, before, Path::new("/nonexistent/repo"))
                .unwrap(),
            Some("/nonexistent/".into())
        );
        // A sibling with the same start does not count.
        let sibling = "{\"trustedFolders\": {\"/nonexistent/rep\": {\"trustedAt\": \"x\"}}}";
        assert_eq!(
            TRUSTED_FOLDERS
                .trusted_by(p, sibling, Path::new("/nonexistent/repo"))
                .unwrap(),
            None
        );
    }

    #[test]
    fn comments_or_a_strange_shape_are_refused_with_the_reason() {
        let p = Path::new("/h/.factory/settings.json");
        let repo = Path::new("/nonexistent/repo");
        let e = TRUSTED_FOLDERS
            .trust_repo(p, Some("{\n  // mine\n  \"a\": 1\n}\n"), repo, AT)
            .unwrap_err();
        assert!(e.message.contains("comments"), "{}", e.message);
        let e = TRUSTED_FOLDERS
            .trust_repo(p, Some("{\"trustedFolders\": [\"/x\"]}"), repo, AT)
            .unwrap_err();
        assert!(e.message.contains("is not an object"), "{}", e.message);
        let e = TRUSTED_FOLDERS
            .trust_repo(p, Some("[1]"), repo, AT)
            .unwrap_err();
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
