//! A throw-away project with its git repository, a home for the client, and what the tests read
//! back from it (the `.handover/` journal).

use super::*;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicUsize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Droid,
    Qwen,
    Copilot,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Droid => "droid",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
        }
    }
}

/// How Codex (and Gemini CLI, Copilot CLI) is allowed to run the project's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// `codex exec --dangerously-bypass-hook-trust`; Gemini CLI: `GEMINI_CLI_TRUST_WORKSPACE=true`;
    /// Copilot CLI (which has no bypass): the folder written into `~/.copilot/config.json` by the
    /// harness (tests that are not about trust).
    BypassFlag,
    /// `handover install --trust` recorded the trust; no bypass.
    Installed,
}

/// A throw-away project (a git repository with one commit) and a home for the client.
pub struct Sandbox {
    /// None when HANDOVER_E2E_KEEP=1 kept the directory for inspection.
    _tmp: Option<tempfile::TempDir>,
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    pub bins: Bins,
    pub agent: Agent,
    pub trust: Trust,
    pub(super) runs: AtomicUsize,
}

impl Sandbox {
    /// A sandbox whose project has one commit on `main` and hooks wired for `agent`.
    pub fn new(agent: Agent, trust: Trust) -> Sandbox {
        Sandbox::with_codex_config(agent, trust, "")
    }

    /// Like [`Sandbox::new`], with extra top-level keys in Codex's config (e.g. the
    /// auto-compaction limit); written before anything else touches the file.
    pub fn with_codex_config(agent: Agent, trust: Trust, codex_extra: &str) -> Sandbox {
        let sb = Sandbox::unwired(agent, trust, codex_extra);
        wire_hooks(&sb);
        sb
    }

    /// Like [`Sandbox::with_codex_config`] without wiring the hooks: for tests that choose the
    /// hooks directory or the moment of the trust step themselves (see [`install_hooks`]).
    pub fn unwired(agent: Agent, trust: Trust, codex_extra: &str) -> Sandbox {
        let tmp = tempfile::Builder::new()
            .prefix("e2e-")
            .tempdir()
            .expect("create a temp dir");
        let root = tmp.path().canonicalize().expect("canonical temp dir");
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(&project).expect("create project");
        std::fs::create_dir_all(home.join("codex")).expect("create home");
        let keep = std::env::var("HANDOVER_E2E_KEEP").is_ok_and(|v| v == "1");
        if keep {
            loud(&format!("e2e: keeping {}", root.display()));
        }
        let sb = Sandbox {
            _tmp: if keep {
                let _ = tmp.keep();
                None
            } else {
                Some(tmp)
            },
            root,
            project,
            home,
            bins: bins(),
            agent,
            trust,
            runs: AtomicUsize::new(0),
        };
        sb.git(&["init", "-q", "-b", "main"]);
        sb.git(&["config", "user.name", "E2E Test"]);
        sb.git(&["config", "user.email", "e2e@example.invalid"]);
        sb.commit_file(
            "src/report.rs",
            "pub fn report() {}\n",
            "Start the report command",
        );
        sb.write_codex_config(codex_extra);
        sb.write_gemini_settings();
        droid::write_settings(&sb.home, "");
        if agent == Agent::Copilot && trust == Trust::BypassFlag {
            sb.write_copilot_trust();
        }
        sb
    }

    /// The same project and home, now driven by `agent`: its hooks are wired too (the other
    /// agent's stay). For the cross-agent scenario.
    pub fn switch_agent(&mut self, agent: Agent, trust: Trust) {
        self.agent = agent;
        self.trust = trust;
        wire_hooks(self);
    }

    /// Runs git in the project; panics with git's message on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.project)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.home)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn commit_file(&self, rel: &str, content: &str, message: &str) {
        let path = self.project.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create dir");
        }
        std::fs::write(&path, content).expect("write file");
        self.git(&["add", rel]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// Runs the handover CLI in the project (as a person would, outside any client).
    pub fn handover(&self, args: &[&str]) -> std::process::Output {
        Command::new(&self.bins.handover)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .stdin(Stdio::null())
            .output()
            .expect("run handover")
    }

    /// Writes [`HANDOFF`] with the CLI, as a person would between sessions.
    pub fn write_handoff(&self) {
        let w = self.handover(&[
            "write",
            "--goal",
            HANDOFF.goal,
            "--next",
            HANDOFF.next,
            "--in-progress",
            HANDOFF.in_progress[0],
            "--stop-if",
            HANDOFF.stop_if[0],
        ]);
        assert!(
            w.status.success(),
            "handover write: {}",
            String::from_utf8_lossy(&w.stderr)
        );
    }

    /// The shell command a scripted model runs to write the handoff (absolute path: Codex runs
    /// commands in a login shell that does not keep the harness's PATH).
    pub fn write_command(&self, h: &HandoffSpec) -> String {
        let mut cmd = format!(
            "{} write --goal {} --next {}",
            shell_quote(&self.bins.handover.to_string_lossy()),
            shell_quote(h.goal),
            shell_quote(h.next)
        );
        for i in h.in_progress {
            cmd.push_str(&format!(" --in-progress {}", shell_quote(i)));
        }
        for s in h.stop_if {
            cmd.push_str(&format!(" --stop-if {}", shell_quote(s)));
        }
        cmd
    }

    /// The form the save-progress instruction recommends: JSON on stdin through a heredoc.
    pub fn write_json_command(&self, h: &HandoffSpec) -> String {
        let json = serde_json::json!({
            "goal": h.goal,
            "status": {"in_progress": h.in_progress},
            "next_action": h.next,
            "stop_conditions": h.stop_if,
        });
        format!(
            "{} write --from - <<'HANDOVER_EOF'\n{}\nHANDOVER_EOF",
            shell_quote(&self.bins.handover.to_string_lossy()),
            serde_json::to_string_pretty(&json).unwrap_or_default()
        )
    }

    pub fn journal(&self) -> Vec<Value> {
        let Ok(text) = std::fs::read_to_string(self.project.join(".handover/journal.jsonl")) else {
            return Vec::new();
        };
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn journal_events(&self, event: &str) -> Vec<Value> {
        self.journal()
            .into_iter()
            .filter(|e| e.get("event").and_then(Value::as_str) == Some(event))
            .collect()
    }

    /// Gemini CLI's user settings (`$HOME/.gemini/settings.json`): API-key auth (without it,
    /// 0.61.0 stops with "Invalid auth method selected"), no usage statistics.
    fn write_gemini_settings(&self) {
        let dir = self.home.join(".gemini");
        std::fs::create_dir_all(&dir).expect("create ~/.gemini");
        std::fs::write(
            dir.join("settings.json"),
            "{\n  \"security\": {\n    \"auth\": {\n      \"selectedType\": \"gemini-api-key\"\n    }\n  },\n  \"privacy\": {\n    \"usageStatisticsEnabled\": false\n  }\n}\n",
        )
        .expect("write gemini settings");
    }

    /// Copilot CLI's user config with the project in `trustedFolders` (Copilot loads a
    /// repository's hooks only in a trusted folder and has no flag to bypass that), in the form
    /// Copilot keeps the file: two `//` comment lines, then JSON.
    fn write_copilot_trust(&self) {
        let dir = self.home.join(".copilot");
        std::fs::create_dir_all(&dir).expect("create ~/.copilot");
        std::fs::write(
            dir.join("config.json"),
            format!(
                "// User settings belong in settings.json.\n// This file is managed automatically.\n{{\n  \"trustedFolders\": [\n    {}\n  ]\n}}\n",
                Value::String(self.project.to_string_lossy().into_owned())
            ),
        )
        .expect("write copilot config");
    }

    /// Codex's user configuration: our fake provider, the project trusted, plus `extra`
    /// top-level keys (e.g. the auto-compaction limit). Analytics off: with it on, every
    /// `codex exec` waits about 5 s at exit for DNS lookups that can not succeed offline.
    fn write_codex_config(&self, extra: &str) {
        let path = self.home.join("codex/config.toml");
        let text = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n{extra}\n\n[analytics]\nenabled = false\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{PORT}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            self.project.display()
        );
        std::fs::write(path, text).expect("write codex config");
    }
}

/// What the scripted model writes as the handoff.
pub struct HandoffSpec<'a> {
    pub goal: &'a str,
    pub next: &'a str,
    pub in_progress: &'a [&'a str],
    pub stop_if: &'a [&'a str],
}

pub const HANDOFF: HandoffSpec<'static> = HandoffSpec {
    goal: "Add CSV export to the report command",
    next: "Quote fields containing commas, then add tests",
    in_progress: &["CSV quoting"],
    stop_if: &["The spec and the code disagree on column order"],
};

/// Quotes a string for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
