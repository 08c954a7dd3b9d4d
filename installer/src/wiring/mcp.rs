//! `handover install --mcp`: where each client reads its MCP servers, and the edits that
//! register `handover mcp` there (and take it out on uninstall). Checked against the pinned
//! clients (docs/install.md):
//!
//! Each client's wiring says which file holds its servers at a scope (`Wiring::mcp_file`: the
//! table is in docs/install.md); this module edits it.
//!
//! Several of these files are also a hooks file (Gemini CLI's and Qwen Code's settings, Claude
//! Code's project settings for the approval) or Codex's user config.toml: the entry is then
//! added to that file's planned edit, never a second edit of the same file ([`plan_install`]).
//! What of such a file is ours includes the entry ([`strip`]), so backups, uninstall and the
//! user's own bytes work for it as for the hooks.

use crate::edit::file_edit::{FileEdit, FileKind};
use crate::edit::json_doc::Value;
use crate::edit::json_layout::{self, Layout};
use crate::edit::mcp_entry::{self, McpCommand};
use crate::edit::toml_doc;
use crate::error::EditError;
use crate::files::{confine_for, read_opt, Homes};
use crate::report::{any_effective, Change};
use crate::wiring::facts::McpStatus;
use crate::wiring::{self, Place};
use handover_clients::{Agent, Scope};
use std::path::{Path, PathBuf};

/// How a client's MCP file holds the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `mcpServers` in a JSON file; `stdio_type`: with `"type": "stdio"` (as the client's own
    /// `mcp add` writes it).
    Json { stdio_type: bool },
    /// `[mcp_servers]` in a TOML file (Codex).
    Toml,
}

/// One client's MCP file at one scope (each client's wiring says where: `Wiring::mcp_file`).
#[derive(Clone, Debug, PartialEq)]
pub struct McpFile {
    pub path: PathBuf,
    pub shape: Shape,
    /// The file where the client records its approval of the server, when it must be
    /// approved and install can give it (Claude Code's project settings).
    pub approval: Option<PathBuf>,
    /// What else the client needs before it starts the server, said once by install.
    pub needs: Option<&'static str>,
}

impl McpFile {
    /// `mcpServers` in a JSON file, nothing else needed.
    pub fn json(path: PathBuf) -> McpFile {
        McpFile {
            path,
            shape: Shape::Json { stdio_type: false },
            approval: None,
            needs: None,
        }
    }

    /// With what else the client needs (None: nothing).
    pub fn needing(mut self, needs: Option<&'static str>) -> McpFile {
        self.needs = needs;
        self
    }
}

/// Where `agent` reads its MCP servers at `scope`, by its wiring; None where it has no file
/// install can write.
pub fn file(agent: Agent, scope: Scope, repo: &Path, homes: &Homes) -> Option<McpFile> {
    wiring::of(agent).mcp_file(Place { repo, homes, scope })
}

/// The text of a file with `edit` applied to its parsed form, in its own layout; `text` itself
/// when nothing effective changed.
fn edited(
    path: &Path,
    shape: Shape,
    text: Option<&str>,
    edit: &mut dyn FnMut(Doc<'_>) -> Vec<Change>,
) -> Result<(Option<String>, Vec<Change>), EditError> {
    match shape {
        Shape::Json { .. } => {
            let mut doc = json_layout::parse(path, text.unwrap_or(""))?;
            let map = json_layout::top_object(path, &mut doc)?;
            let changes = edit(Doc::Json(map));
            if !any_effective(&changes) {
                return Ok((text.map(String::from), changes));
            }
            let layout = text.map(Layout::detect).unwrap_or_default();
            Ok((Some(json_layout::render(&doc, &layout)), changes))
        }
        Shape::Toml => {
            let mut doc = toml_doc::parse(path, text.unwrap_or(""))?;
            let changes = edit(Doc::Toml(&mut doc));
            if !any_effective(&changes) {
                return Ok((text.map(String::from), changes));
            }
            Ok((Some(toml_doc::render(&doc, text.unwrap_or(""))), changes))
        }
    }
}

/// A parsed file, for one of the editors.
enum Doc<'a> {
    Json(&'a mut crate::edit::json_doc::Map),
    Toml(&'a mut toml_edit::DocumentMut),
}

/// Applies `edit` to the planned edit of `path` when the plan already has one (the file is also
/// a hooks or config file), else plans a new edit of the file as it is on disk.
fn apply_to(
    edits: &mut Vec<FileEdit>,
    path: &Path,
    shape: Shape,
    kind: FileKind,
    confine: Option<PathBuf>,
    edit: &mut dyn FnMut(Doc<'_>) -> Vec<Change>,
) -> Result<(), EditError> {
    if let Some(e) = edits.iter_mut().find(|e| e.path == path) {
        let (after, changes) = edited(path, shape, e.after.as_deref(), edit)?;
        if any_effective(&changes) {
            e.after = after;
        }
        e.changes.extend(changes);
        return Ok(());
    }
    let before = read_opt(path)?;
    let (after, changes) = edited(path, shape, before.as_deref(), edit)?;
    if changes.is_empty() {
        return Ok(());
    }
    edits.push(FileEdit::new(
        path.to_path_buf(),
        kind,
        before,
        after,
        changes,
        confine,
    ));
    Ok(())
}

/// Install's edits for `--mcp`: the server in `agent`'s MCP file (and Claude Code's approval
/// in its project settings), added to `edits`; the note of what else the client needs.
pub fn plan_install(
    edits: &mut Vec<FileEdit>,
    notes: &mut Vec<String>,
    agent: Agent,
    scope: Scope,
    repo: &Path,
    homes: &Homes,
    cmd: &McpCommand,
) -> Result<(), EditError> {
    let name = handover_clients::of(agent).display_name;
    let Some(mcp) = file(agent, scope, repo, homes) else {
        let because = wiring::of(agent).no_mcp_file_because(scope);
        notes.push(format!("{name} {because}"));
        return Ok(());
    };
    let confine = confine_for(scope, repo);
    apply_to(
        edits,
        &mcp.path,
        mcp.shape,
        FileKind::Mcp(agent),
        confine.clone(),
        &mut |doc| match (doc, mcp.shape) {
            (Doc::Json(map), Shape::Json { stdio_type }) => {
                vec![mcp_entry::install_json(map, cmd, stdio_type)]
            }
            (Doc::Toml(doc), _) => vec![mcp_entry::install_toml(doc, cmd)],
            _ => Vec::new(),
        },
    )?;
    if let Some(settings) = &mcp.approval {
        apply_to(
            edits,
            settings,
            Shape::Json { stdio_type: false },
            FileKind::Hooks(agent),
            confine,
            &mut |doc| match doc {
                Doc::Json(map) => vec![mcp_entry::approve(map)],
                Doc::Toml(_) => Vec::new(),
            },
        )?;
    }
    notes.extend(mcp.needs.map(|n| format!("{n}.")));
    Ok(())
}

/// Uninstall's edits: the server out of `agent`'s MCP file at `scope`, when it is there
/// (added to that file's planned edit when the plan has one). Claude Code's approval goes with
/// the hooks file's own uninstall ([`strip`]).
pub fn plan_uninstall(
    edits: &mut Vec<FileEdit>,
    agent: Agent,
    scope: Scope,
    repo: &Path,
    homes: &Homes,
) -> Result<(), EditError> {
    let Some(mcp) = file(agent, scope, repo, homes) else {
        return Ok(());
    };
    let planned = edits.iter().any(|e| e.path == mcp.path);
    if !planned && read_opt(&mcp.path)?.is_none() {
        return Ok(());
    }
    apply_to(
        edits,
        &mcp.path,
        mcp.shape,
        FileKind::Mcp(agent),
        confine_for(scope, repo),
        &mut |doc| strip_doc(doc),
    )
}

fn strip_doc(doc: Doc<'_>) -> Vec<Change> {
    match doc {
        Doc::Json(map) => mcp_entry::uninstall_json(map)
            .into_iter()
            .chain(mcp_entry::unapprove(map))
            .collect(),
        Doc::Toml(doc) => mcp_entry::uninstall_toml(doc).into_iter().collect(),
    }
}

/// Whether an MCP file is TOML (Codex's config.toml) rather than JSON: by its name, as the
/// rules that keep the user's part of a file know it only by its path and kind.
pub fn is_toml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml")
}

/// Whether an MCP file's text holds nothing once our entry is out: `{}` (JSON) or only
/// whitespace and comments-free emptiness (TOML).
pub fn holds_nothing_else(path: &Path, text: &str) -> bool {
    let rest = strip(path, is_toml(path), text);
    if is_toml(path) {
        rest.trim().is_empty()
    } else {
        json_layout::parse(path, &rest).is_ok_and(|v| v.as_object().is_some_and(|m| m.is_empty()))
    }
}

/// The user's part of an MCP file: everything but our entry, in a canonical form; None when it
/// does not parse.
pub fn user_part(path: &Path, text: &str) -> Option<String> {
    let rest = strip(path, is_toml(path), text);
    if is_toml(path) {
        let doc = toml_doc::parse(path, &rest).ok()?;
        Some(
            doc.to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        )
    } else {
        Some(json_layout::parse(path, &rest).ok()?.to_string())
    }
}

/// `text` with our server entry (and Claude Code's approval of it) taken out, keeping its
/// layout; the text itself when neither is in it or it does not parse. For a hooks file before
/// its hooks are taken out, and for the user's part of a file (keep.rs).
pub fn strip(path: &Path, toml: bool, text: &str) -> String {
    strip_reporting(path, toml, text).0
}

/// [`strip`], with what it took out.
pub fn strip_reporting(path: &Path, toml: bool, text: &str) -> (String, Vec<Change>) {
    let shape = if toml {
        Shape::Toml
    } else {
        Shape::Json { stdio_type: false }
    };
    match edited(path, shape, Some(text), &mut |doc| strip_doc(doc)) {
        Ok((Some(after), changes)) => (after, changes),
        _ => (text.to_string(), Vec::new()),
    }
}

/// Where the server is registered for `agent`, scope by scope (project, then user; local is
/// the project's file or none).
pub fn status(agent: Agent, repo: &Path, homes: &Homes) -> Vec<(Scope, McpStatus)> {
    let mut out = Vec::new();
    for scope in [Scope::Project, Scope::User] {
        let Some(mcp) = file(agent, scope, repo, homes) else {
            continue;
        };
        let Some(text) = read_opt(&mcp.path).ok().flatten() else {
            continue;
        };
        let found = match mcp.shape {
            Shape::Json { .. } => json_layout::parse(&mcp.path, &text)
                .ok()
                .and_then(|d| mcp_entry::find_json(&d)),
            Shape::Toml => toml_doc::parse(&mcp.path, &text)
                .ok()
                .and_then(|d| mcp_entry::find_toml(&d)),
        };
        let Some(cmd) = found else { continue };
        let approved = mcp.approval.as_ref().map(|settings| {
            read_opt(settings)
                .ok()
                .flatten()
                .and_then(|t| json_layout::parse(settings, &t).ok())
                .is_some_and(|d: Value| mcp_entry::approved(&d))
        });
        out.push((
            scope,
            McpStatus {
                file: mcp.path,
                command: cmd.command,
                args: cmd.args,
                approved,
            },
        ));
    }
    out
}
