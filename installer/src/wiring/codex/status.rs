//! What `handover status` says of Codex beyond its hooks files: its config.toml (feature flag,
//! plugins, project and hook trust, as recorded), and what Codex itself reports of our hooks
//! when asked (`--check-trust`).

use super::app_server::{list_hooks, ours, TrustRequest};
use crate::files::{Homes, Scope};
use crate::wiring::facts::{
    CodexConfigStatus, CodexFacts, Facts, ListedHook, LiveScope, LiveTrust, OwnFacts, Report,
    ScopeStatus, TrustStatus,
};
use handover_clients::Agent;
use std::path::Path;

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
