//! `handover status`, installer part: per agent and scope, whether our hooks are installed, up
//! to date, duplicated; the Codex feature flag, project trust and hook trust; Gemini CLI's
//! folder trust; and what to do.
//! Read-only and cheap: no process is started (hook trust is read from the config; the hashes
//! are only verified by `install --trust`, which asks Codex itself).

use crate::codex_config;
use crate::gemini;
use crate::hooks_doc::{self, Found, Mention};
use crate::json_layout;
use crate::locate::HookPaths;
use crate::plan::{
    claude_settings_path, codex_hooks_path, instruction_targets, read_opt, Homes, Scope, Targets,
};
use handover_base::hook_exe::{command_for, timeout_for, HookExe};
use handover_base::Agent;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatusSection {
    pub lines: Vec<String>,
    pub json: Value,
    pub problems: Vec<String>,
}

struct FileState {
    path: PathBuf,
    exists: bool,
    error: Option<String>,
    ours: Vec<Found>,
    /// The user's own commands that run one of ours (not edited by install).
    mentions: Vec<Mention>,
}

fn read_hooks_file(path: PathBuf) -> FileState {
    match read_opt(&path) {
        Err(e) => FileState {
            path,
            exists: true,
            error: Some(e.to_string()),
            ours: Vec::new(),
            mentions: Vec::new(),
        },
        Ok(None) => FileState {
            path,
            exists: false,
            error: None,
            ours: Vec::new(),
            mentions: Vec::new(),
        },
        Ok(Some(text)) => match json_layout::parse(&path, &text) {
            Err(e) => FileState {
                path,
                exists: true,
                error: Some(e.to_string()),
                ours: Vec::new(),
                mentions: Vec::new(),
            },
            Ok(doc) => FileState {
                ours: hooks_doc::find_ours(&doc),
                mentions: hooks_doc::find_mentions(&doc),
                path,
                exists: true,
                error: None,
            },
        },
    }
}

fn required_pairs(agent: Agent) -> Vec<(HookExe, &'static str)> {
    [HookExe::SessionStart, HookExe::PreCompact]
        .into_iter()
        .flat_map(|e| e.events_for(agent).iter().map(move |ev| (e, *ev)))
        .collect()
}

fn has(f: &FileState, exe: HookExe, event: &str) -> bool {
    f.ours.iter().any(|o| o.exe == exe && o.event == event)
        || f.mentions.iter().any(|m| m.exe == exe && m.event == event)
}

/// How many commands run `exe` on `event` (ours and the user's own): more than one runs it twice.
fn runs(f: &FileState, exe: HookExe, event: &str) -> usize {
    f.ours
        .iter()
        .filter(|o| o.exe == exe && o.event == event)
        .count()
        + f.mentions
            .iter()
            .filter(|m| m.exe == exe && m.event == event)
            .count()
}

/// Plugin hook files under `~/.claude/plugins` that run one of our executables (bounded walk).
fn claude_plugin_copies(home: &Path) -> Vec<PathBuf> {
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
                let f = read_hooks_file(p);
                // A plugin for both clients (ours) carries Codex's hooks file beside Claude's;
                // Claude Code runs only the one its manifest names, not the `--agent codex` one.
                let for_claude = |c: &str| !c.contains("--agent") || c.contains("--agent claude");
                if f.ours.iter().any(|o| for_claude(&o.command))
                    || f.mentions.iter().any(|m| for_claude(&m.command))
                {
                    out.push(f.path);
                }
            }
        }
    }
    out
}

fn scope_json(
    f: &FileState,
    expected: Option<&HookPaths>,
    agent: Agent,
) -> (Value, bool, Option<bool>) {
    let installed = f.error.is_none() && required_pairs(agent).iter().all(|(e, ev)| has(f, *e, ev));
    let watch = HookExe::ContextWatch
        .events_for(agent)
        .iter()
        .all(|ev| has(f, HookExe::ContextWatch, ev));
    let twice = f.ours.iter().any(|o| runs(f, o.exe, &o.event) > 1);
    // Up to date = exactly what this install would leave: our commands at the current paths
    // (a prefix of the user's kept), our timeout, each hook once.
    let up_to_date = expected.map(|h| {
        !f.ours.is_empty()
            && !twice
            && f.ours.iter().all(|o| {
                o.command == format!("{}{}", o.prefix, command_for(h.get(o.exe), agent))
                    && o.timeout == Some(timeout_for(agent))
            })
    });
    let v = json!({
        "file": f.path.display().to_string(),
        "exists": f.exists,
        "error": f.error,
        "handlers": f.ours.len(),
        "own_commands": f.mentions.iter().map(|m| json!({"event": m.event, "command": m.command})).collect::<Vec<_>>(),
        "installed": installed,
        "watch": watch,
        "up_to_date": up_to_date,
    });
    (v, installed, up_to_date)
}

/// Builds the section. `expected` = where the hook executables are now (None: not located, so
/// "up to date" is not checked).
pub fn status(repo: &Path, homes: &Homes, expected: Option<&HookPaths>) -> StatusSection {
    let mut s = StatusSection::default();
    let mut out = serde_json::Map::new();
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        let scopes: &[Scope] = match agent {
            Agent::Claude => &[Scope::Project, Scope::Local, Scope::User],
            Agent::Codex | Agent::Gemini => &[Scope::Project, Scope::User],
        };
        let mut per_scope = serde_json::Map::new();
        let mut files = Vec::new();
        for &scope in scopes {
            let path = match agent {
                Agent::Claude => claude_settings_path(scope, repo, homes),
                Agent::Codex => codex_hooks_path(scope, repo, homes),
                Agent::Gemini => gemini::settings_path(scope, repo, homes),
            };
            let f = read_hooks_file(path);
            let (v, installed, up_to_date) = scope_json(&f, expected, agent);
            let name = format!("{} {}", agent.as_str(), scope.as_str());
            if let Some(err) = &f.error {
                s.lines
                    .push(format!("{name}: cannot read {}", f.path.display()));
                s.problems.push(err.clone());
            } else if f.ours.is_empty() && f.mentions.is_empty() {
                s.lines
                    .push(format!("{name}: not installed ({})", f.path.display()));
            } else {
                let state = match (installed, up_to_date) {
                    (false, _) => "partly installed",
                    (true, Some(true)) => "installed, up to date",
                    (true, Some(false)) => "installed, out of date",
                    (true, None) => {
                        "installed (hook executables not found: up to date not checked)"
                    }
                };
                s.lines.push(format!(
                    "{name}: {state} ({} handlers in {})",
                    f.ours.len(),
                    f.path.display()
                ));
                let fix = format!(
                    "run `handover install --{} --scope {}`",
                    agent.as_str(),
                    scope.as_str()
                );
                for o in f.ours.iter().filter(|o| !o.prefix.trim().is_empty()) {
                    s.lines.push(format!(
                        "{name}: {} on {} runs with a prefix of yours: `{}`",
                        o.exe.file_name(),
                        o.event,
                        o.prefix.trim()
                    ));
                }
                for m in &f.mentions {
                    s.lines.push(format!(
                        "{name}: your own command runs {} on {} (left as it is, not checked): {}",
                        m.exe.file_name(),
                        m.event,
                        m.command
                    ));
                }
                let mut seen: Vec<(HookExe, &str)> = Vec::new();
                for (exe, event) in f
                    .ours
                    .iter()
                    .map(|o| (o.exe, o.event.as_str()))
                    .chain(f.mentions.iter().map(|m| (m.exe, m.event.as_str())))
                {
                    if runs(&f, exe, event) > 1 && !seen.contains(&(exe, event)) {
                        seen.push((exe, event));
                        s.problems.push(format!(
                            "{name}: {} is registered {} times on {event} in {} and runs that often; {fix} to keep one (a command of your own that runs it is left alone: remove that one by hand)",
                            exe.file_name(),
                            runs(&f, exe, event),
                            f.path.display()
                        ));
                    }
                }
                if !installed {
                    s.problems.push(format!(
                        "{name}: some handover hooks are missing from {}; {fix}",
                        f.path.display()
                    ));
                } else if up_to_date == Some(false) && seen.is_empty() {
                    s.problems.push(format!(
                        "{name}: hooks in {} run another path or timeout than this install; {fix}",
                        f.path.display()
                    ));
                }
            }
            per_scope.insert(scope.as_str().into(), v);
            files.push((scope, f));
        }
        // The same hook from two layers runs twice (Claude dedups only identical commands).
        let with_ours: Vec<_> = files.iter().filter(|(_, f)| !f.ours.is_empty()).collect();
        if with_ours.len() > 1 {
            let identical = agent == Agent::Claude && {
                let cmds = |f: &FileState| {
                    let mut c: Vec<_> = f
                        .ours
                        .iter()
                        .map(|o| (o.event.clone(), o.command.clone()))
                        .collect();
                    c.sort();
                    c
                };
                with_ours.windows(2).all(|w| cmds(&w[0].1) == cmds(&w[1].1))
            };
            if !identical {
                let scopes: Vec<_> = with_ours.iter().map(|(sc, _)| sc.as_str()).collect();
                s.problems.push(format!(
                    "{}: handover hooks are installed in several scopes ({}) and will run more than once; remove the extra ones with `handover uninstall --{} --scope <scope>`",
                    agent.as_str(),
                    scopes.join(", "),
                    agent.as_str()
                ));
            }
        }
        if agent == Agent::Claude {
            let plugins = claude_plugin_copies(&homes.home);
            // The plugin's hooks stay silent where settings run ours (hooks/src/plugin.rs), so
            // nothing runs twice; still, two installs are one too many to keep up to date.
            if !with_ours.is_empty() {
                for p in &plugins {
                    s.problems.push(format!(
                        "claude: handover is installed twice, as a plugin ({}) and in settings ({}); each event is still answered once (the plugin's hooks defer to the settings ones), but keep one: `/plugin uninstall handover` in Claude Code, or `handover uninstall --claude --scope <scope>`",
                        p.display(),
                        with_ours.iter().map(|(sc, _)| sc.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            per_scope.insert(
                "plugins".into(),
                json!(plugins
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()),
            );
        }
        if agent == Agent::Codex {
            codex_extra(repo, homes, &files, &mut per_scope, &mut s);
        }
        if agent == Agent::Gemini {
            gemini_extra(repo, homes, &files, &mut per_scope, &mut s);
        }
        out.insert(agent.as_str().into(), Value::Object(per_scope));
    }
    let mut instr = serde_json::Map::new();
    let all = Targets {
        claude: true,
        codex: true,
        gemini: true,
    };
    let files = match instruction_targets(repo, homes, all) {
        Ok((files, _)) => files,
        Err(e) => {
            s.problems.push(e.to_string());
            instruction_targets(
                repo,
                homes,
                Targets {
                    gemini: false,
                    ..all
                },
            )
            .map(|(f, _)| f)
            .unwrap_or_default()
        }
    };
    for path in files {
        let present = read_opt(&path)
            .ok()
            .flatten()
            .is_some_and(|t| crate::instructions::is_present(&t));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        s.lines.push(format!(
            "{name}: handover section {}",
            if present { "present" } else { "absent" }
        ));
        instr.insert(name, json!(present));
    }
    out.insert("instructions".into(), Value::Object(instr));
    s.json = Value::Object(out);
    s
}

/// Gemini CLI runs no hooks in a folder it does not trust: say so when ours are installed.
fn gemini_extra(
    repo: &Path,
    homes: &Homes,
    files: &[(Scope, FileState)],
    per_scope: &mut serde_json::Map<String, Value>,
    s: &mut StatusSection,
) {
    let trust = match gemini::folder_trust(repo, homes) {
        Ok(t) => t,
        Err(e) => {
            s.problems.push(e.to_string());
            return;
        }
    };
    per_scope.insert("folder_trust".into(), json!(trust.as_str()));
    s.lines
        .push(format!("gemini: folder trust {}", trust.as_str()));
    if files.iter().any(|(_, f)| !f.ours.is_empty()) {
        s.problems
            .extend(gemini::trust_problem(repo, homes, &trust));
    }
}

fn codex_extra(
    repo: &Path,
    homes: &Homes,
    files: &[(Scope, FileState)],
    per_scope: &mut serde_json::Map<String, Value>,
    s: &mut StatusSection,
) {
    let cfg_path = homes.codex_config();
    let doc = match read_opt(&cfg_path)
        .and_then(|t| codex_config::parse(&cfg_path, t.as_deref().unwrap_or("")))
    {
        Ok(d) => d,
        Err(e) => {
            s.problems.push(e.to_string());
            return;
        }
    };
    let any_installed = files.iter().any(|(_, f)| !f.ours.is_empty());
    let flags = codex_config::feature_flags(&doc);
    per_scope.insert(
        "hooks_feature".into(),
        json!(if flags.disabled() { "off" } else { "on" }),
    );
    if let Some(p) = flags.problem(&cfg_path) {
        s.lines.push("codex: hooks feature OFF".into());
        if any_installed {
            s.problems.push(p);
        }
    }
    if any_installed {
        s.lines
            .extend(codex_config::profile_notes(&doc, &homes.codex_home));
    }
    let hashes = codex_config::trusted_hashes(&doc);
    let plugins = codex_config::handover_plugins(&doc);
    per_scope.insert("plugins".into(), json!(plugins));
    for id in &plugins {
        s.lines.push(format!("codex plugin: {id} enabled"));
        if !hashes.iter().any(|(k, _)| k.starts_with(&format!("{id}:"))) {
            s.problems.push(format!(
                "codex: the plugin {id} is installed but none of its hooks is trusted, and Codex skips untrusted hooks silently; run `handover trust-plugin` (or approve them in Codex)"
            ));
        }
        if any_installed {
            s.problems.push(format!(
                "codex: handover is installed twice, as the plugin {id} and in hooks.json; each event is still answered once (the plugin's hooks defer to the settings ones), but keep one: `codex plugin remove {id}`, or `handover uninstall --codex --scope <scope>`"
            ));
        }
    }
    let trust = codex_config::project_trust(&doc, repo);
    per_scope.insert("project_trust".into(), json!(trust));
    for (scope, f) in files {
        if f.ours.is_empty() {
            continue;
        }
        if *scope == Scope::Project && trust.as_deref() != Some("trusted") {
            s.lines
                .push(format!("codex: project {} is not trusted", repo.display()));
            s.problems.push(format!(
                "codex: the project is not trusted, so Codex ignores .codex/hooks.json; run `handover install --codex --trust` or add [projects.\"{}\"] trust_level = \"trusted\" to {}",
                repo.display(),
                cfg_path.display()
            ));
        }
        let keys: Vec<String> = f
            .ours
            .iter()
            .map(|o| hooks_doc::codex_trust_key(&f.path, o))
            .collect();
        let recorded = keys
            .iter()
            .filter(|k| hashes.iter().any(|(hk, _)| hk == *k))
            .count();
        s.lines.push(format!(
            "codex {}: hook trust recorded for {recorded} of {} handlers (hashes not checked here)",
            scope.as_str(),
            keys.len()
        ));
        if let Some(Value::Object(m)) = per_scope.get_mut(scope.as_str()) {
            m.insert(
                "hook_trust".into(),
                json!({"recorded": recorded, "of": keys.len(), "hash_checked": false}),
            );
        }
        if recorded < keys.len() {
            s.problems.push(format!(
                "codex {}: {} of our hooks have no trust entry, and Codex skips untrusted hooks silently; run `handover install --codex --scope {} --trust`",
                scope.as_str(),
                keys.len() - recorded,
                scope.as_str()
            ));
        }
    }
}

/// Asks Codex itself (`codex app-server`, `hooks/list`, bounded by `timeout`) whether our hooks
/// are trusted, and adds the answer to the section. Costs a process start (about a second), so
/// it is opt-in; on any failure the section says "not checked" and why.
pub fn add_live_codex_trust(
    s: &mut StatusSection,
    repo: &Path,
    homes: &Homes,
    codex_bin: Option<&Path>,
    timeout: std::time::Duration,
) {
    let mut live = serde_json::Map::new();
    let Some(bin) = codex_bin else {
        s.lines
            .push("codex hook trust: not checked (`codex` not on PATH)".into());
        live.insert("checked".into(), json!(false));
        insert_live(s, live);
        return;
    };
    for scope in [Scope::Project, Scope::User] {
        let hooks_json = codex_hooks_path(scope, repo, homes);
        if read_hooks_file(hooks_json.clone()).ours.is_empty() {
            continue;
        }
        let req = crate::codex_trust::TrustRequest {
            codex_bin: bin.to_path_buf(),
            codex_home: homes.codex_home.clone(),
            home: homes.home.clone(),
            project: repo.to_path_buf(),
            hooks_json: hooks_json.clone(),
            commands: Vec::new(),
            timeout,
        };
        match crate::codex_trust::list_hooks(&req) {
            Ok(listed) => {
                let ours = crate::codex_trust::ours(&listed, &hooks_json);
                let trusted = ours.iter().filter(|h| h.trust_status == "trusted").count();
                s.lines.push(format!(
                    "codex {}: Codex reports {trusted} of {} of our hooks trusted",
                    scope.as_str(),
                    ours.len()
                ));
                if ours.is_empty() || trusted < ours.len() {
                    s.problems.push(format!(
                        "codex {}: Codex will not run {} of our hooks (untrusted, modified, or the project/feature is off); run `handover install --codex --scope {} --trust`",
                        scope.as_str(),
                        if ours.is_empty() { "any".to_string() } else { (ours.len() - trusted).to_string() },
                        scope.as_str()
                    ));
                }
                live.insert(
                    scope.as_str().into(),
                    json!(ours
                        .iter()
                        .map(|h| json!({"key": h.key, "trust": h.trust_status}))
                        .collect::<Vec<_>>()),
                );
            }
            Err(e) => {
                s.lines.push(format!(
                    "codex {} hook trust: not checked ({e})",
                    scope.as_str()
                ));
            }
        }
    }
    live.insert("checked".into(), json!(true));
    insert_live(s, live);
}

fn insert_live(s: &mut StatusSection, live: serde_json::Map<String, Value>) {
    if let Some(Value::Object(codex)) = s.json.get_mut("codex") {
        codex.insert("live_trust".into(), Value::Object(live));
    }
}
