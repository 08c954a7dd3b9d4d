//! What `handover status` says of Codex beyond its hooks files: its config.toml (feature flag,
//! plugins, project and hook trust, as recorded), and what Codex itself reports of our hooks
//! when asked (`--check-trust`).

use super::app_server::TrustStatus;
use super::app_server::{list_hooks, ours, TrustRequest};
use super::config::FeatureFlags;
use crate::files::Homes;
use crate::wiring::facts::{OwnFacts, Report, ScopeStatus};
use crate::wiring::Facts;
use handover_clients::Agent;
use handover_clients::Scope;
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Serialize)]
pub struct CodexFacts {
    /// The user's config.toml, or why it cannot be read (then nothing of it is serialised).
    #[serde(flatten, serialize_with = "crate::wiring::facts::json::ok_only")]
    pub config: Result<CodexConfigStatus, String>,
    /// What Codex itself reported (`--check-trust`), when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_trust: Option<LiveTrust>,
}

/// The parts of Codex's user config.toml that decide whether our hooks run.
#[derive(Clone, Debug, Serialize)]
pub struct CodexConfigStatus {
    #[serde(skip)]
    pub file: PathBuf,
    /// The project directory `project_trust` is about.
    #[serde(skip)]
    pub project: PathBuf,
    /// Enabled handover plugins (`<plugin>@<marketplace>`), and whether any of their hooks has
    /// a trust entry; serialised as the ids.
    #[serde(serialize_with = "plugin_ids")]
    pub plugins: Vec<(String, bool)>,
    /// `[features]` as set; serialised as `"on"` or `"off"`.
    #[serde(rename = "hooks_feature", serialize_with = "on_off")]
    pub flags: FeatureFlags,
    /// The project's `trust_level`, if any.
    pub project_trust: Option<String>,
    /// Profiles that turn hooks off (shown when hooks of ours are installed).
    #[serde(skip)]
    pub profile_notes: Vec<String>,
}

impl CodexConfigStatus {
    pub(crate) fn project_trusted(&self) -> bool {
        self.project_trust.as_deref() == Some("trusted")
    }
}

/// What `codex app-server` reported about our hooks, per scope that has some.
#[derive(Clone, Debug, Serialize)]
pub struct LiveTrust {
    /// Serialised under their scope names; a scope Codex could not be asked about is left out.
    #[serde(flatten, serialize_with = "live_by_scope")]
    pub scopes: Vec<LiveScope>,
    /// False when there was no `codex` to ask.
    pub checked: bool,
}

#[derive(Clone, Debug)]
pub struct LiveScope {
    pub scope: Scope,
    /// Our hooks as Codex lists them, or why it could not be asked.
    pub hooks: Result<Vec<ListedHook>, String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ListedHook {
    pub key: String,
    pub trust: TrustStatus,
}

fn live_by_scope<S: Serializer>(scopes: &[LiveScope], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(
        scopes
            .iter()
            .filter_map(|x| Some((x.scope.as_str(), x.hooks.as_ref().ok()?))),
    )
}

fn on_off<S: Serializer>(flags: &FeatureFlags, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if flags.disabled() { "off" } else { "on" })
}

fn plugin_ids<S: Serializer>(plugins: &[(String, bool)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(plugins.iter().map(|(id, _)| id))
}

impl OwnFacts for CodexFacts {
    fn lines(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        if let Ok(cfg) = &self.config {
            cfg.lines(scopes, out);
        }
    }

    /// What Codex itself said (`--check-trust`).
    fn late_lines(&self, out: &mut Vec<String>) {
        if let Some(live) = &self.live_trust {
            live.lines(out);
        }
    }

    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        match &self.config {
            Ok(cfg) => cfg.problems(scopes, out),
            Err(e) => out.push(e.clone()),
        }
    }

    fn late_problems(&self, out: &mut Vec<String>) {
        if let Some(live) = &self.live_trust {
            live.problems(out);
        }
    }

    fn has_plugin(&self) -> bool {
        self.config.as_ref().is_ok_and(|c| !c.plugins.is_empty())
    }
}

impl CodexConfigStatus {
    fn lines(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let any_installed = scopes.iter().any(|s| !s.file.ours.is_empty());
        if self.flags.disabled() {
            out.push("codex: hooks feature OFF".into());
        }
        if any_installed {
            out.extend(self.profile_notes.iter().cloned());
        }
        for (id, _) in &self.plugins {
            out.push(format!("codex plugin: {id} enabled"));
        }
        for s in scopes {
            let Some(t) = &s.hook_trust else { continue };
            if s.scope == Scope::Project && !self.project_trusted() {
                out.push(format!(
                    "codex: project {} is not trusted",
                    self.project.display()
                ));
            }
            out.push(format!(
                "codex {}: hook trust recorded for {} of {} handlers (hashes not checked here)",
                s.scope.as_str(),
                t.recorded,
                t.of
            ));
        }
    }

    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let any_installed = scopes.iter().any(|s| !s.file.ours.is_empty());
        if let Some(p) = self.flags.problem(&self.file).filter(|_| any_installed) {
            out.push(p);
        }
        for (id, trusted) in &self.plugins {
            if !trusted {
                out.push(format!(
                    "codex: the plugin {id} is installed but none of its hooks is trusted, and Codex skips untrusted hooks silently; run `handover trust-plugin` (or approve them in Codex)"
                ));
            }
            if any_installed {
                out.push(format!(
                    "codex: handover is installed twice, as the plugin {id} and in hooks.json; each event is still answered once (the plugin's hooks defer to the settings ones), but keep one: `codex plugin remove {id}`, or `handover uninstall --codex --scope <scope>`"
                ));
            }
        }
        for s in scopes {
            let Some(t) = &s.hook_trust else { continue };
            if s.scope == Scope::Project && !self.project_trusted() {
                out.push(format!(
                    "codex: the project is not trusted, so Codex ignores .codex/hooks.json; run `handover install --codex --trust` or add [projects.\"{}\"] trust_level = \"trusted\" to {}",
                    self.project.display(),
                    self.file.display()
                ));
            }
            if t.recorded < t.of {
                out.push(format!(
                    "codex {}: {} of our hooks have no trust entry, and Codex skips untrusted hooks silently; run `handover install --codex --scope {} --trust`",
                    s.scope.as_str(),
                    t.of - t.recorded,
                    s.scope.as_str()
                ));
            }
        }
    }
}

impl LiveTrust {
    fn lines(&self, out: &mut Vec<String>) {
        if !self.checked {
            out.push("codex hook trust: not checked (`codex` not on PATH)".into());
            return;
        }
        for s in &self.scopes {
            match &s.hooks {
                Ok(hooks) => out.push(format!(
                    "codex {}: Codex reports {} of {} of our hooks trusted",
                    s.scope.as_str(),
                    trusted(hooks),
                    hooks.len()
                )),
                Err(e) => out.push(format!(
                    "codex {} hook trust: not checked ({e})",
                    s.scope.as_str()
                )),
            }
        }
    }

    fn problems(&self, out: &mut Vec<String>) {
        for s in &self.scopes {
            let Ok(hooks) = &s.hooks else { continue };
            let trusted = trusted(hooks);
            if hooks.is_empty() || trusted < hooks.len() {
                out.push(format!(
                    "codex {}: Codex will not run {} of our hooks (untrusted, modified, or the project/feature is off); run `handover install --codex --scope {} --trust`",
                    s.scope.as_str(),
                    if hooks.is_empty() { "any".to_string() } else { (hooks.len() - trusted).to_string() },
                    s.scope.as_str()
                ));
            }
        }
    }
}

fn trusted(hooks: &[ListedHook]) -> usize {
    hooks
        .iter()
        .filter(|h| h.trust == TrustStatus::Trusted)
        .count()
}

impl Report {
    /// Asks Codex itself (`codex app-server`, `hooks/list`, bounded by `timeout`) whether our
    /// hooks are trusted, for each Codex scope with hooks of ours. Costs a process start (about a
    /// second), so it is opt-in; on any failure the report says "not checked" and why.
    pub fn check_live_codex_trust(
        &mut self,
        repo: &Path,
        homes: &Homes,
        codex_bin: Option<&Path>,
        timeout: std::time::Duration,
    ) {
        let Some(codex) = self.agents.iter_mut().find(|a| a.agent == Agent::Codex) else {
            return;
        };
        let Some(Facts::Codex(facts)) = &mut codex.facts else {
            return;
        };
        let Some(bin) = codex_bin else {
            facts.live_trust = Some(LiveTrust {
                scopes: Vec::new(),
                checked: false,
            });
            return;
        };
        let mut scopes = Vec::new();
        for s in codex.scopes.iter().filter(|s| !s.file.ours.is_empty()) {
            let hooks_json = &s.file.path;
            let req = TrustRequest {
                codex_bin: bin.to_path_buf(),
                codex_home: homes.user_dir(&handover_clients::codex::CLIENT),
                home: homes.home.clone(),
                project: repo.to_path_buf(),
                hooks_json: hooks_json.clone(),
                commands: Vec::new(),
                timeout,
            };
            let hooks = list_hooks(&req).map(|listed| {
                ours(&listed, hooks_json)
                    .into_iter()
                    .map(|h| ListedHook {
                        key: h.key.clone(),
                        trust: h.trust_status.clone(),
                    })
                    .collect()
            });
            scopes.push(LiveScope {
                scope: s.scope,
                hooks,
            });
        }
        facts.live_trust = Some(LiveTrust {
            scopes,
            checked: true,
        });
    }
}
