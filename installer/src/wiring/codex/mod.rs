//! Codex's installer steps beyond its hooks.json (see the parent module): the user's
//! config.toml in an install and uninstall (feature flag, project trust, the hook-trust
//! entries kept in step with handlers that move), the trust it leaves in place, and its status
//! facts. Beside it: [`config`] edits config.toml, [`app_server`] talks to `codex app-server`,
//! and [`trust`] is its step after the files are written (`--trust`, `trust-plugin`).

pub mod app_server;
pub mod config;
pub mod status;
pub mod trust;

use super::{Install, Place, Planned, Uninstall, Wiring};
use crate::edit::file_edit::{FileEdit, FileKind};
use crate::edit::hooks_doc;
use crate::edit::json_layout;
use crate::error::EditError;
use crate::files::{read_opt, Homes};
use crate::report::{any_effective, Change};
use crate::wiring::facts::{RecordedTrust, ScopeStatus};
use crate::wiring::mcp::{McpFile, Shape};
use crate::wiring::Facts;
use handover_clients::Agent;
use handover_clients::Scope;
use status::{CodexConfigStatus, CodexFacts};
use std::path::{Path, PathBuf};

pub struct CodexWiring;

impl Wiring for CodexWiring {
    /// `[mcp_servers]` in the project's `.codex/config.toml`, which Codex 0.169.0 reads only
    /// in a trusted project, or in the user's config.toml.
    fn mcp_file(&self, at: Place<'_>) -> Option<McpFile> {
        let (path, needs) = match at.scope {
            Scope::User => (config::config_path(at.homes), None),
            Scope::Project | Scope::Local => (
                at.repo.join(".codex").join("config.toml"),
                Some("Codex reads .codex/config.toml only in a project it trusts (--trust records that)"),
            ),
        };
        Some(
            McpFile {
                shape: Shape::Toml,
                ..McpFile::json(path)
            }
            .needing(needs),
        )
    }

    /// Everything of config.toml but ours there (project trust, hook trust).
    fn config_user_part(&self, path: &Path, text: &str) -> Option<String> {
        config::user_part(path, text)
    }

    /// config.toml: the hooks feature turned back on (only with `--enable-codex-hooks`, else
    /// reported), the project trusted (`--trust`), and the trust entries of handlers the
    /// hooks.json edit moved kept in step.
    fn plan_install(&self, install: Install<'_>) -> Result<Planned, EditError> {
        let Install {
            at,
            opts,
            hooks,
            want,
        } = install;
        let mut plan = Planned::default();
        let path = &hooks.path;
        let moved = trust_moves(path, hooks.before.as_deref(), |doc| {
            hooks_doc::install(doc, want, path)
        })?;
        let homes = at.homes;
        let cfg_path = config::config_path(homes);
        let cfg_before = read_opt(&cfg_path)?;
        let mut doc = config::parse(&cfg_path, cfg_before.as_deref().unwrap_or(""))?;
        let mut changes = Vec::new();
        let flags = config::feature_flags(&doc);
        if let Some(problem) = flags.problem(&cfg_path) {
            if opts.enable_codex_hooks && flags.legacy_profile.is_none() {
                changes.extend(config::enable_hooks(&mut doc));
            } else {
                plan.problems.push(problem);
            }
        }
        plan.notes.extend(config::profile_notes(
            &doc,
            &homes.user_dir(&handover_clients::codex::CLIENT),
        ));
        if opts.trust && opts.scope != Scope::User {
            let trusted = config::trust_project(&mut doc, at.repo, &cfg_path)?;
            plan.trusts = trusted.kind == crate::report::ChangeKind::Added;
            changes.push(trusted);
        }
        changes.extend(config::move_trust_entries(&mut doc, &moved));
        plan.edits
            .extend(codex_config_edit(cfg_path, cfg_before, &doc, changes));
        Ok(plan)
    }

    /// Forget the trust Codex recorded for our handlers, and move the trust of the user's
    /// handlers that moved up (keys are positional: see docs); the feature flags
    /// `--enable-codex-hooks` turned on go back to what they were.
    /// ... and the project's trust, when install recorded that it added it.
    fn plan_uninstall(&self, uninstall: Uninstall<'_>) -> Result<Planned, EditError> {
        let Uninstall { at, hooks, untrust } = uninstall;
        let mut plan = Planned::default();
        let path = &hooks.path;
        let moved = trust_moves(path, hooks.before.as_deref(), |doc| {
            hooks_doc::uninstall(doc, path)
        })?;
        let cfg_path = config::config_path(at.homes);
        if let Some(cfg_before) = read_opt(&cfg_path)? {
            let mut doc = config::parse(&cfg_path, &cfg_before)?;
            let mut changes = config::move_trust_entries(&mut doc, &moved);
            changes.extend(config::restore_hooks(&mut doc));
            if untrust {
                changes.extend(config::untrust_project(&mut doc, at.repo));
            }
            plan.edits
                .extend(codex_config_edit(cfg_path, Some(cfg_before), &doc, changes));
        }
        Ok(plan)
    }

    fn left_in_place(&self, at: Place<'_>) -> Vec<String> {
        if at.scope != Scope::Project {
            return Vec::new();
        }
        let cfg = config::config_path(at.homes);
        let trusted = read_opt(&cfg)
            .ok()
            .flatten()
            .and_then(|text| config::parse(&cfg, &text).ok())
            .and_then(|doc| config::project_trust(&doc, at.repo));
        trusted
            .map(|level| {
                format!(
                    "the project's trust_level = \"{level}\" in {} is left as it is (it may predate handover); remove it by hand if you want.",
                    cfg.display()
                )
            })
            .into_iter()
            .collect()
    }

    fn status_facts(&self, at: Place<'_>, scopes: &mut [ScopeStatus]) -> Option<Facts> {
        Some(Facts::Codex(CodexFacts {
            config: config_status(at.repo, at.homes, scopes),
            live_trust: None,
        }))
    }
}

/// The planned edit of Codex's config.toml, when there are changes: `doc` rendered in the
/// file's line endings, or the file as it was when no change alters it.
fn codex_config_edit(
    path: PathBuf,
    before: Option<String>,
    doc: &toml_edit::DocumentMut,
    changes: Vec<Change>,
) -> Option<FileEdit> {
    if changes.is_empty() {
        return None;
    }
    let after = if any_effective(&changes) {
        Some(config::render(doc, before.as_deref().unwrap_or("")))
    } else {
        before.clone()
    };
    Some(FileEdit::new(
        path,
        FileKind::Config(Agent::Codex),
        before,
        after,
        changes,
        None,
    ))
}

/// The Codex trust keys an edit of `hooks_json` moves or removes: (old key, new key or None).
fn trust_moves(
    hooks_json: &Path,
    before: Option<&str>,
    edit: impl FnOnce(&mut crate::edit::json_doc::Value) -> Result<Vec<Change>, EditError>,
) -> Result<Vec<(String, Option<String>)>, EditError> {
    let Some(text) = before else {
        return Ok(Vec::new());
    };
    let doc = json_layout::parse(hooks_json, text)?;
    Ok(hooks_doc::moves(&doc, edit)?
        .into_iter()
        .map(|(old, new)| {
            (
                trust_key_at(hooks_json, &old),
                new.map(|n| trust_key_at(hooks_json, &n)),
            )
        })
        .collect())
}

/// Reads Codex's config.toml, and records in each scope with hooks of ours how many of them
/// have a trust entry there.
fn config_status(
    repo: &Path,
    homes: &Homes,
    scopes: &mut [ScopeStatus],
) -> Result<CodexConfigStatus, String> {
    let cfg_path = config::config_path(homes);
    let doc = read_opt(&cfg_path)
        .and_then(|t| config::parse(&cfg_path, t.as_deref().unwrap_or("")))
        .map_err(|e| e.to_string())?;
    let hashes = config::trusted_hashes(&doc);
    for s in scopes.iter_mut().filter(|s| !s.file.ours.is_empty()) {
        let keys: Vec<String> = s
            .file
            .ours
            .iter()
            .map(|o| trust_key_of(&s.file.path, o))
            .collect();
        let recorded = keys
            .iter()
            .filter(|k| hashes.iter().any(|(hk, _)| hk == *k))
            .count();
        s.hook_trust = Some(RecordedTrust {
            recorded,
            of: keys.len(),
            hash_checked: false,
        });
    }
    let plugins = config::handover_plugins(&doc)
        .into_iter()
        .map(|id| {
            let trusted = hashes.iter().any(|(k, _)| k.starts_with(&format!("{id}:")));
            (id, trusted)
        })
        .collect();
    Ok(CodexConfigStatus {
        plugins,
        flags: config::feature_flags(&doc),
        project_trust: config::project_trust(&doc, repo),
        profile_notes: config::profile_notes(
            &doc,
            &homes.user_dir(&handover_clients::codex::CLIENT),
        ),
        file: cfg_path,
        project: repo.to_path_buf(),
    })
}

/// Codex's trust key for a handler at `pos` in `hooks_json` (handover_clients::codex).
fn trust_key_at(hooks_json: &Path, pos: &hooks_doc::Position) -> String {
    handover_clients::codex::trust_key(hooks_json, &pos.0, pos.1, pos.2)
}

/// Codex's trust key for a handler we found.
fn trust_key_of(hooks_json: &Path, f: &hooks_doc::Found) -> String {
    handover_clients::codex::trust_key(hooks_json, &f.event, f.group, f.handler)
}
