//! `handover status` on screen: the lines and the problems (each with its fix), rendered from
//! the facts the parent module gathered. `--json` serialises the same facts (json.rs), so the
//! screen, the JSON and the problems cannot disagree.

use super::*;

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
                f.own().lines(&a.scopes, &mut out);
            }
            for (scope, m) in &a.mcp {
                let approval = match m.approved {
                    Some(false) => " (not approved: `enabledMcpjsonServers` in the project settings does not name it; `handover install --mcp` adds it)",
                    _ => "",
                };
                out.push(format!(
                    "{} {}: MCP server registered ({}){approval}",
                    a.agent.as_str(),
                    scope.as_str(),
                    m.file.display()
                ));
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
            f.own().late_lines(&mut out);
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
                f.own().problems(&a.scopes, &mut out);
            }
        }
        out.extend(self.instructions_error.iter().cloned());
        for f in self.agents.iter().filter_map(|a| a.facts.as_ref()) {
            f.own().late_problems(&mut out);
        }
        out
    }
}

/// The same hook from two layers runs twice (a client may run identical commands once:
/// `Quirks::dedups_identical_commands`).
fn several_scopes_problem(agent: Agent, scopes: &[ScopeStatus]) -> Option<String> {
    let with_ours: Vec<_> = scopes.iter().filter(|s| !s.file.ours.is_empty()).collect();
    if with_ours.len() < 2 {
        return None;
    }
    let identical = handover_clients::of(agent).quirks.dedups_identical_commands && {
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
