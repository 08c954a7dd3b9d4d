//! Claude Code's installer steps beyond its settings files (see the parent module): the handover plugin
//! copies `handover status` reports.

use super::{Place, Wiring};
use crate::edit::hooks_doc;
use crate::edit::json_layout;
use crate::files::hooks_path;
use crate::files::read_opt;
use crate::wiring::facts::{OwnFacts, ScopeStatus};
use crate::wiring::mcp::{McpFile, Shape};
use crate::wiring::Facts;
use handover_clients::{Agent, Scope};
use serde::Serialize;
use std::path::{Path, PathBuf};

pub struct ClaudeWiring;

impl Wiring for ClaudeWiring {
    /// The project's `.mcp.json`, approved in the project settings (without
    /// `enabledMcpjsonServers` naming it Claude Code 2.1.330 keeps it "Pending approval"); the
    /// user's `~/.claude.json` (inside `$CLAUDE_CONFIG_DIR` when that moves it). Its local scope
    /// lives in `~/.claude.json` too, which it rewrites while it runs: none.
    /// Only the local scope has no file: `~/.claude.json`, which Claude Code rewrites while it
    /// runs.
    fn no_mcp_file_because(&self, _scope: Scope) -> &'static str {
        "keeps its local MCP servers in a file it rewrites while it runs; the server was not registered (install with --scope project or --scope user)"
    }

    fn mcp_file(&self, at: Place<'_>) -> Option<McpFile> {
        let stdio = Shape::Json { stdio_type: true };
        match at.scope {
            Scope::Project => Some(McpFile {
                shape: stdio,
                approval: Some(hooks_path(Agent::Claude, Scope::Project, at.repo, at.homes)),
                ..McpFile::json(at.repo.join(".mcp.json"))
            }),
            Scope::Local => None,
            Scope::User => {
                let user = at.homes.user_dir(handover_clients::of(Agent::Claude));
                let dir = if user == at.homes.home.join(".claude") {
                    at.homes.home.clone()
                } else {
                    user
                };
                Some(McpFile {
                    shape: stdio,
                    ..McpFile::json(dir.join(".claude.json"))
                })
            }
        }
    }

    fn status_facts(&self, at: Place<'_>, _scopes: &mut [ScopeStatus]) -> Option<Facts> {
        Some(Facts::Claude(ClaudeFacts {
            plugins: plugin_copies(&at.homes.home),
        }))
    }
}

/// Plugin hook files under `~/.claude/plugins` that run one of our executables (bounded walk).
fn plugin_copies(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(home.join(".claude").join("plugins"), 0usize)];
    let mut budget = 5_000usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return out;
            }
            let p = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() && depth < 6 {
                stack.push((p, depth + 1));
            } else if ft.is_file() && p.file_name().is_some_and(|n| n == "hooks.json") {
                // The plugin's hooks.json has the shared shape.
                let Some(doc) = read_opt(&p)
                    .ok()
                    .flatten()
                    .and_then(|text| json_layout::parse(&p, &text).ok())
                else {
                    continue;
                };
                let (ours, mentions) = hooks_doc::find(&doc);
                // A plugin for both clients (ours) carries Codex's hooks file beside Claude's;
                // Claude Code runs only the one its manifest names, not the `--agent codex` one.
                let for_claude = |c: &str| !c.contains("--agent") || c.contains("--agent claude");
                if ours.iter().any(|o| for_claude(&o.command))
                    || mentions.iter().any(|m| for_claude(&m.command))
                {
                    out.push(p);
                }
            }
        }
    }
    out
}

// ---- What `handover status` says of it ----

impl OwnFacts for ClaudeFacts {
    /// The plugin's hooks stay silent where settings run ours (hooks/src/plugin.rs), so
    /// nothing runs twice; still, two installs are one too many to keep up to date.
    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let with_ours: Vec<&str> = scopes
            .iter()
            .filter(|s| !s.file.ours.is_empty())
            .map(|s| s.scope.as_str())
            .collect();
        if !with_ours.is_empty() {
            for p in &self.plugins {
                out.push(format!(
                    "claude: handover is installed twice, as a plugin ({}) and in settings ({}); each event is still answered once (the plugin's hooks defer to the settings ones), but keep one: `/plugin uninstall handover` in Claude Code, or `handover uninstall --claude --scope <scope>`",
                    p.display(),
                    with_ours.join(", ")
                ));
            }
        }
    }

    fn has_plugin(&self) -> bool {
        !self.plugins.is_empty()
    }
}

// ---- What `handover status` knows of it ----

#[derive(Clone, Debug, Serialize)]
pub struct ClaudeFacts {
    /// Plugin hook files under `~/.claude/plugins` that also run our executables.
    #[serde(serialize_with = "crate::wiring::facts::json::display_paths")]
    pub plugins: Vec<PathBuf>,
}
