//! `handover status` on screen: the lines and the problems (each with its fix), rendered from
//! the facts the parent module gathered. `--json` serialises the same facts (json.rs), so the
//! screen, the JSON and the problems cannot disagree.

use super::*;
use crate::wiring::gemini::files::FolderTrust;

impl ScopeStatus {
    /// `claude project`, `codex user`: how lines and problems name this file.
    fn name(&self) -> String {
        format!("{} {}", self.agent.as_str(), self.scope.as_str())
    }

    fn lines(&self, out: &mut Vec<String>) {
        let name = self.name();
        let f = &self.file;
        if f.error.is_some() {
            out.push(format!("{name}: cannot read {}", f.path.display()));
            return;
        }
        if f.is_empty() {
            out.push(format!("{name}: not installed ({})", f.path.display()));
            return;
        }
        let state = match (self.installed, self.up_to_date) {
            (false, _) => "partly installed",
            (true, Some(true)) => "installed, up to date",
            (true, Some(false)) => "installed, out of date",
            (true, None) => "installed (hook executables not found: up to date not checked)",
        };
        out.push(format!(
            "{name}: {state} ({} handlers in {})",
            f.ours.len(),
            f.path.display()
        ));
        for o in f.ours.iter().filter(|o| !o.prefix.trim().is_empty()) {
            out.push(format!(
                "{name}: {} on {} runs with a prefix of yours: `{}`",
                o.exe.file_name(),
                o.event,
                o.prefix.trim()
            ));
        }
        for m in &f.mentions {
            out.push(format!(
                "{name}: your own command runs {} on {} (left as it is, not checked): {}",
                m.exe.file_name(),
                m.event,
                m.command
            ));
        }
    }

    fn problems(&self, out: &mut Vec<String>) {
        let name = self.name();
        let f = &self.file;
        if let Some(err) = &f.error {
            out.push(err.clone());
            return;
        }
        if f.is_empty() {
            return;
        }
        let fix = format!(
            "run `handover install --{} --scope {}`",
            self.agent.as_str(),
            self.scope.as_str()
        );
        let twice = f.run_twice();
        for (exe, event, n) in &twice {
            out.push(format!(
                "{name}: {} is registered {n} times on {event} in {} and runs that often; {fix} to keep one (a command of your own that runs it is left alone: remove that one by hand)",
                exe.file_name(),
                f.path.display()
            ));
        }
        if !self.missing_executables.is_empty() {
            let names: Vec<&str> = self
                .missing_executables
                .iter()
                .map(|e| e.file_name())
                .collect();
            out.push(format!(
                "{name}: the hooks in {} run {}, which {} not installed on this machine, so they do nothing here; install handover (`cargo install --locked --path <handover checkout>` puts them in ~/.cargo/bin), then run `handover status` again",
                f.path.display(),
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" }
            ));
        }
        if !self.installed {
            out.push(format!(
                "{name}: some handover hooks are missing from {}; {fix}",
                f.path.display()
            ));
        } else if self.up_to_date == Some(false) && twice.is_empty() {
            out.push(format!(
                "{name}: hooks in {} run another path or timeout than this install; {fix}",
                f.path.display()
            ));
        }
    }
}

impl GeminiFacts {
    /// In the words of the other clients' trust lines ([`trusted_folder_line`]).
    fn lines(&self, out: &mut Vec<String>) {
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

/// The line for a client's `trustedFolders` entry, when its file could be read: "<client>:
/// folder trusted (<folder>)", or "<client>: folder not trusted" and what that means for it.
fn trusted_folder_line(
    client: &str,
    folder: &Result<Option<String>, String>,
    untrusted_means: &str,
    out: &mut Vec<String>,
) {
    if let Ok(folder) = folder {
        out.push(match folder {
            Some(f) => format!("{client}: folder trusted ({f})"),
            None => format!("{client}: folder not trusted{untrusted_means}"),
        });
    }
}

impl CopilotFacts {
    fn lines(&self, out: &mut Vec<String>) {
        trusted_folder_line("copilot", &self.folder, "", out);
    }

    /// Copilot CLI loads no repository hooks in a folder the user has not trusted: said when
    /// ours are installed in the repository.
    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let in_repo = scopes
            .iter()
            .any(|s| s.scope == Scope::Project && !s.file.ours.is_empty());
        match &self.folder {
            Err(e) => out.push(e.clone()),
            Ok(None) if in_repo => out.push(self.trust_problem.clone()),
            Ok(_) => {}
        }
    }
}

impl DroidFacts {
    fn lines(&self, out: &mut Vec<String>) {
        trusted_folder_line(
            "droid",
            &self.folder,
            " (its terminal UI asks before it runs the hooks; `handover install --droid --trust` answers ahead)",
            out,
        );
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

impl ClaudeFacts {
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
}

impl Facts {
    /// The client's own lines, after its files'.
    fn lines(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        match self {
            Facts::Claude(_) => {}
            Facts::Codex(c) => {
                if let Ok(cfg) = &c.config {
                    cfg.lines(scopes, out);
                }
            }
            Facts::Gemini(g) => g.lines(out),
            Facts::Copilot(c) => c.lines(out),
            Facts::Droid(d) => d.lines(out),
        }
    }

    /// Lines shown after the instruction files: what Codex itself said (`--check-trust`).
    fn late_lines(&self, out: &mut Vec<String>) {
        if let Facts::Codex(CodexFacts {
            live_trust: Some(live),
            ..
        }) = self
        {
            live.lines(out);
        }
    }

    /// The client's own problems, after its files'.
    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        match self {
            Facts::Claude(c) => c.problems(scopes, out),
            Facts::Codex(c) => match &c.config {
                Ok(cfg) => cfg.problems(scopes, out),
                Err(e) => out.push(e.clone()),
            },
            Facts::Gemini(g) => g.problems(scopes, out),
            Facts::Copilot(c) => c.problems(scopes, out),
            // Not trusting the folder is no problem: Droid's terminal UI asks, and `droid exec`
            // runs the hooks anyway. A settings file that cannot be read is.
            Facts::Droid(d) => {
                if let Err(e) = &d.folder {
                    out.push(e.clone());
                }
            }
        }
    }

    fn late_problems(&self, out: &mut Vec<String>) {
        if let Facts::Codex(CodexFacts {
            live_trust: Some(live),
            ..
        }) = self
        {
            live.problems(out);
        }
    }
}

impl Report {
    /// The screen lines, in the order `handover status` prints them: each client's files and
    /// its own facts, the instruction files, then what a client itself was asked.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for a in &self.agents {
            for s in &a.scopes {
                s.lines(&mut out);
            }
            if let Some(f) = &a.facts {
                f.lines(&a.scopes, &mut out);
            }
        }
        for i in &self.instructions {
            out.push(format!(
                "{}: handover section {}",
                i.name,
                if i.present { "present" } else { "absent" }
            ));
        }
        for f in self.agents.iter().filter_map(|a| a.facts.as_ref()) {
            f.late_lines(&mut out);
        }
        out
    }

    /// What needs fixing, each with how to fix it.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for a in &self.agents {
            for s in &a.scopes {
                s.problems(&mut out);
            }
            out.extend(several_scopes_problem(a.agent, &a.scopes));
            if let Some(f) = &a.facts {
                f.problems(&a.scopes, &mut out);
            }
        }
        out.extend(self.instructions_error.iter().cloned());
        for f in self.agents.iter().filter_map(|a| a.facts.as_ref()) {
            f.late_problems(&mut out);
        }
        out
    }
}

/// The same hook from two layers runs twice (a client may run identical commands once:
/// `Client::dedups_identical_commands`).
fn several_scopes_problem(agent: Agent, scopes: &[ScopeStatus]) -> Option<String> {
    let with_ours: Vec<_> = scopes.iter().filter(|s| !s.file.ours.is_empty()).collect();
    if with_ours.len() < 2 {
        return None;
    }
    let identical = handover_clients::of(agent).dedups_identical_commands && {
        let cmds = |s: &ScopeStatus| {
            let mut c: Vec<_> = s
                .file
                .ours
                .iter()
                .map(|o| (o.event.clone(), o.command.clone()))
                .collect();
            c.sort();
            c
        };
        with_ours.windows(2).all(|w| cmds(w[0]) == cmds(w[1]))
    };
    if identical {
        return None;
    }
    let names: Vec<_> = with_ours.iter().map(|s| s.scope.as_str()).collect();
    Some(format!(
        "{}: handover hooks are installed in several scopes ({}) and will run more than once; remove the extra ones with `handover uninstall --{} --scope <scope>`",
        agent.as_str(),
        names.join(", "),
        agent.as_str()
    ))
}

fn trusted(hooks: &[ListedHook]) -> usize {
    hooks
        .iter()
        .filter(|h| h.trust == TrustStatus::Trusted)
        .count()
}
