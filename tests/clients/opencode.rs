//! End to end with the real OpenCode (pinned in tests/clients/package.json), offline against the
//! fake model server's chat-completions wire (its `@ai-sdk/openai-compatible` provider, which
//! ships inside the binary), headless (`opencode run`). OpenCode runs no hook files: handover
//! reaches it through the plugin `handover install --opencode` writes (docs/hooks.md). Each
//! moment is counted in the fake model's request log: a text the plugin adds is in every agent
//! request from its moment on, once, and never in OpenCode's own title or summary requests.
//!
//! The terminal UI runs in tmux like the other clients' (tests/support/src/interactive.rs, whose
//! launcher it shares; its sandbox is this file's, as the shared one sets up no plugin client).
//!
//! OpenCode is not in the shared matrix yet (tests/clients/matrix.rs): its scenarios are here.
//! Needs node/npm, tmux and root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports them ignored.

use crate::support::fake_server::{self, LoggedRequest, Script, Turn};
use crate::support::hook::RECORD_END_WAIT;
use crate::support::interactive::{sandbox_pids, LAUNCHER, TUI_TIMEOUT_SECS};
use crate::support::interactive_records::records_text;
use crate::support::{
    bins, client_time, clients, shell_quote, without_handover, Bins, Clients, NAMESPACE_WRAPPER,
    PORT,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const STARTUP: &str = "handover: a previous session left a handoff for this repository.";
pub(crate) const AFTER_COMPACTION: &str = "handover: the context was just compacted";
pub(crate) const REMIND: &str = "Save your progress now";
/// What handover's PreCompact adds to the summarizer's instructions when a handoff exists.
pub(crate) const COMPACTION_INSTRUCTIONS: &str =
    "A handover handoff exists for this task. The summary must keep:";
pub(crate) const GOAL: &str = "Ship the CSV exporter";
/// The `.gitignore` OpenCode 1.18.33 writes into a config folder it installs its SDK into.
const OPENCODE_GITIGNORE: &str =
    "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore";
/// OpenCode's own requests (not the agent's): they offer no tools.
const TITLE: &str = "You are a title generator";

/// What differs for this harness between the clients that run our OpenCode plugin (OpenCode,
/// and Kilo Code in tests/clients/kilo.rs).
pub(crate) struct Host {
    /// Its `--agent` name, also `handover install`'s flag.
    pub name: &'static str,
    pub display_name: &'static str,
    /// Its binary among the pinned clients.
    pub binary: fn(&Clients) -> &Path,
    /// The file name of its running executable (`/proc/<pid>/exe`), which a kill matches.
    pub executable: &'static str,
    /// The project's folder for its plugins and config (`.opencode`), and the user's under the
    /// home (`.config/opencode`).
    pub project_dir: &'static str,
    pub user_dir: &'static str,
    /// Its config file in the project, which names the fake server's provider.
    pub config_file: &'static str,
    /// More arguments for its `run`.
    pub run_args: &'static [&'static str],
    /// Its switches for an offline run.
    pub env: &'static [(&'static str, &'static str)],
    /// Puts its plugin SDK (or what stands for it) into one of its config folders, which it
    /// would otherwise install at start and wait for offline.
    pub plugin_sdk: fn(&Clients, &Path),
    /// What its first start writes into the project's folder, kept out of git.
    pub ignored: &'static str,
    /// What its terminal UI shows once it waits for input.
    pub tui_ready: &'static str,
}

pub(crate) static OPENCODE: Host = Host {
    name: "opencode",
    display_name: "OpenCode",
    binary: |c| &c.opencode,
    executable: "opencode",
    project_dir: ".opencode",
    user_dir: ".config/opencode",
    config_file: "opencode.json",
    run_args: &[],
    env: &[
        ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
    ],
    plugin_sdk: |c, dir| copy_sdk(&c.opencode_sdk, dir),
    ignored: OPENCODE_GITIGNORE,
    tui_ready: TUI_READY,
};

/// A project with one commit on `main`, a home, the client's provider config pointing at the
/// fake server, the plugin installed and the client's plugin SDK in both of its config folders.
pub(crate) struct OpenCodeBox {
    _tmp: tempfile::TempDir,
    pub host: &'static Host,
    pub project: PathBuf,
    pub home: PathBuf,
    root: PathBuf,
    pub bins: Bins,
    runs: std::cell::Cell<usize>,
}

pub(crate) struct Run {
    dir: PathBuf,
    /// The client's own run, timed inside the namespace.
    pub time: Option<Duration>,
    pub status: Option<i32>,
    pub stdout: String,
    stderr: String,
    pub requests: Vec<LoggedRequest>,
}

impl Run {
    pub fn hooks_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("hooks.log")).unwrap_or_default()
    }

    /// The requests of the agent (those that offer tools), in order.
    pub fn agent_requests(&self) -> Vec<&LoggedRequest> {
        self.requests
            .iter()
            .filter(|r| r.body.get("tools").is_some())
            .collect()
    }

    /// How often `needle` is in each agent request.
    pub fn counts(&self, needle: &str) -> Vec<usize> {
        self.agent_requests()
            .iter()
            .map(|r| r.body_text().matches(needle).count())
            .collect()
    }

    pub fn describe(&self) -> String {
        format!(
            "status {:?}\n--- stdout (tail)\n{}\n--- stderr (tail)\n{}\n--- hooks.log\n{}",
            self.status,
            tail(&self.stdout, 1500),
            tail(&self.stderr, 1500),
            self.hooks_log()
        )
    }
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..=s.len())
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(s.len());
    &s[start..]
}

impl OpenCodeBox {
    /// `context` and `output`: the fake model's limits in OpenCode's config (its compaction
    /// point is `context - output`).
    fn new(clients: &Clients, context: u64, output: u64) -> OpenCodeBox {
        OpenCodeBox::of(&OPENCODE, clients, context, output)
    }

    /// [`OpenCodeBox::new`] for `host`.
    pub fn of(host: &'static Host, clients: &Clients, context: u64, output: u64) -> OpenCodeBox {
        // HANDOVER_E2E_KEEP=1 keeps it for inspection, as the shared sandbox does.
        let keep = std::env::var("HANDOVER_E2E_KEEP").is_ok_and(|v| v == "1");
        let tmp = tempfile::Builder::new()
            .prefix(&format!("e2e-{}-", host.name))
            .disable_cleanup(keep)
            .tempdir()
            .unwrap();
        if keep {
            eprintln!("e2e: keeping {}", tmp.path().display());
        }
        let root = tmp.path().canonicalize().unwrap();
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(home.join(host.user_dir)).unwrap();
        let b = OpenCodeBox {
            _tmp: tmp,
            host,
            project,
            home,
            root,
            bins: bins(),
            runs: std::cell::Cell::new(0),
        };
        b.git(&["init", "-q", "-b", "main"]);
        b.git(&["config", "user.name", "E2E Test"]);
        b.git(&["config", "user.email", "e2e@example.invalid"]);
        let config = serde_json::json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": format!("http://127.0.0.1:{PORT}/v1"), "apiKey": "sk-e2e-fake"},
                "models": {"m": {"name": "M", "limit": {"context": context, "output": output}}}
            }},
            "model": "fake/m"
        });
        std::fs::write(b.project.join(host.config_file), config.to_string()).unwrap();
        b.commit_file(
            "src/report.rs",
            "pub fn report() {}\n",
            "Start the report command",
        );
        let hooks_dir = b.bins.session_start.parent().unwrap().to_path_buf();
        let out = b.handover(&[
            "install",
            "--scope",
            "project",
            &format!("--{}", host.name),
            "--hooks-dir",
            &hooks_dir.to_string_lossy(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        b.git(&["add", "-A"]);
        b.git(&[
            "commit",
            "-q",
            "-m",
            &format!("Wire handover for {}", host.display_name),
        ]);
        // Offline, OpenCode would hang installing its plugin SDK into both folders.
        for dir in [b.project.join(host.project_dir), b.home.join(host.user_dir)] {
            (host.plugin_sdk)(clients, &dir);
        }
        // OpenCode's first start writes a `.gitignore` for them in `.opencode/`; kept out of git
        // from the start, so a handoff written before it does not list them as uncommitted work.
        let exclude = b.project.join(".git/info/exclude");
        let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
        for name in host.ignored.lines() {
            text.push_str(&format!("{}/{name}\n", host.project_dir));
        }
        std::fs::write(&exclude, text).unwrap();
        b
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.project)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.home)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn commit_file(&self, rel: &str, content: &str, message: &str) {
        let path = self.project.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        self.git(&["add", rel]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn handover(&self, args: &[&str]) -> std::process::Output {
        Command::new(&self.bins.handover)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    pub fn write_handoff(&self) {
        let out = self.handover(&[
            "write",
            "--goal",
            GOAL,
            "--next",
            "Write the CSV writer tests",
            "--agent",
            self.host.name,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// One `opencode run` in a fresh loopback-only namespace with the fake server.
    pub fn run(&self, clients: &Clients, turns: Vec<Turn>, prompt: &str) -> Run {
        let path = std::env::var_os("PATH").unwrap_or_default();
        self.run_with(clients, turns, prompt, &path)
    }

    /// [`OpenCodeBox::run`] with this `PATH`.
    fn run_with(
        &self,
        clients: &Clients,
        turns: Vec<Turn>,
        prompt: &str,
        path: &std::ffi::OsStr,
    ) -> Run {
        self.runs.set(self.runs.get() + 1);
        let dir = self.root.join(format!("run-{}", self.runs.get()));
        std::fs::create_dir_all(&dir).unwrap();
        let script_path = dir.join("script.json");
        let log = dir.join("requests.jsonl");
        let script = Script {
            turns,
            default_text: "OK.".to_string(),
            summary: Script::default_summary_text(),
            default_usage: 1_000,
            log: log.clone(),
            max_requests: 40,
            idle_timeout_secs: 150,
            more_turns: None,
            answer_delay_ms: 0,
        };
        std::fs::write(&script_path, serde_json::to_string(&script).unwrap()).unwrap();
        let out = Command::new("timeout")
            .args(["-k", "5", "150", "unshare"])
            .args(clients.unshare)
            .args(["sh", "-c", NAMESPACE_WRAPPER, "e2e-netns"])
            .arg((self.host.binary)(clients))
            .args(["run", "--model", "fake/m", "--format", "json", "--dir"])
            .arg(&self.project)
            .args(self.host.run_args)
            .arg(prompt)
            .current_dir(&self.project)
            .env_clear()
            .envs(self.env(&dir))
            .env("PATH", path)
            .env("TERM", "dumb")
            .env("E2E_SERVER", std::env::current_exe().unwrap())
            .env("E2E_SCRIPT", &script_path)
            .env("E2E_TIMEOUT", "120")
            .env("HANDOVER_FAKE_PORT", PORT.to_string())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        self.hooks_done();
        Run {
            time: client_time(&script_path),
            dir,
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            requests: fake_server::read_log(&log),
        }
    }

    /// OpenCode's environment in the sandbox: its folders under the home, no update or models
    /// fetch, the hooks' debug log in `dir`.
    fn env(&self, dir: &Path) -> Vec<(&'static str, PathBuf)> {
        let home = |rel: &str| self.home.join(rel);
        let mut env = vec![
            ("LANG", "C.UTF-8".into()),
            ("HOME", self.home.clone()),
            ("XDG_CONFIG_HOME", home(".config")),
            ("XDG_DATA_HOME", home(".local/share")),
            ("XDG_CACHE_HOME", home(".cache")),
            ("XDG_STATE_HOME", home(".local/state")),
            // `opencode run` takes its directory from $PWD, not the process's.
            ("PWD", self.project.clone()),
            ("HANDOVER_HOOK_DEBUG", dir.join("hooks.log")),
        ];
        env.extend(self.host.env.iter().map(|(k, v)| (*k, PathBuf::from(v))));
        env
    }

    /// Waits (bounded) until no hook executable of ours runs in the sandbox: the plugin starts
    /// SessionEnd without waiting for it (its `start`), so it may still run once the client
    /// has exited.
    pub fn hooks_done(&self) {
        let ours = |pid: &u32| {
            std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| {
                exe.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("handover-"))
            })
        };
        let until = Instant::now() + RECORD_END_WAIT;
        while sandbox_pids(&self.home).iter().any(ours) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The session record the run left, parsed.
    pub fn record(&self) -> serde_json::Value {
        let dir = self.project.join(".handover/records");
        let path = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .expect("a record");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }
}

/// OpenCode's terminal UI in a private tmux server, inside a loopback-only namespace with one
/// fake server for the whole session (the shared launcher). Dropping it ends the tmux server, the
/// fake server and any process left with the sandbox's HOME, each by PID.
pub(crate) struct OpenCodeTui<'a> {
    b: &'a OpenCodeBox,
    dir: PathBuf,
    socket: PathBuf,
    more_turns: PathBuf,
    log: PathBuf,
    server_pid: Option<u32>,
    started: Instant,
    planned: std::cell::Cell<usize>,
}

/// What OpenCode 1.18.33's screen shows once it waits for input (its prompt's footer).
const TUI_READY: &str = "ctrl+p";

impl OpenCodeBox {
    pub fn tui(&self, clients: &Clients) -> OpenCodeTui<'_> {
        self.runs.set(self.runs.get() + 1);
        let dir = self.root.join(format!("run-{}", self.runs.get()));
        std::fs::create_dir_all(&dir).unwrap();
        let script_path = dir.join("script.json");
        let log = dir.join("requests.jsonl");
        let more_turns = dir.join("more-turns.jsonl");
        std::fs::write(&more_turns, "").unwrap();
        let script = Script {
            turns: Vec::new(),
            default_text: "OK.".to_string(),
            summary: Script::default_summary_text(),
            default_usage: 1_000,
            log: log.clone(),
            max_requests: 60,
            idle_timeout_secs: TUI_TIMEOUT_SECS + 30,
            more_turns: Some(more_turns.clone()),
            answer_delay_ms: 0,
        };
        std::fs::write(&script_path, serde_json::to_string(&script).unwrap()).unwrap();
        let env_file = dir.join("env.sh");
        let exports: String = self
            .env(&dir)
            .iter()
            .map(|(k, v)| format!("export {k}={}\n", shell_quote(&v.to_string_lossy())))
            .collect();
        std::fs::write(&env_file, exports).unwrap();
        let pane = format!(
            "cd {} && . {} && exec timeout --foreground -k 5 {TUI_TIMEOUT_SECS} {} --model fake/m",
            shell_quote(&self.project.to_string_lossy()),
            shell_quote(&env_file.to_string_lossy()),
            shell_quote(&(self.host.binary)(clients).to_string_lossy()),
        );
        let conf = dir.join("tmux.conf");
        std::fs::write(
            &conf,
            "set -g remain-on-exit on\nset -g history-limit 5000\nset -g default-terminal xterm-256color\n",
        )
        .unwrap();
        let socket = dir.join("tmux.sock");
        let out = Command::new("timeout")
            .args(["-k", "5", "60", "unshare"])
            .args(clients.unshare)
            .args(["sh", "-c", LAUNCHER, "e2e-tui"])
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("LANG", "C.UTF-8")
            .env("TERM", "xterm-256color")
            .env("SHELL", "/bin/sh")
            .env("HOME", &self.home)
            .env("E2E_SERVER", std::env::current_exe().unwrap())
            .env("E2E_SCRIPT", &script_path)
            .env("E2E_SOCKET", &socket)
            .env("E2E_TMUX_CONF", &conf)
            .env("E2E_PANE", &pane)
            .env("E2E_SIZE", "200x50")
            .env("HANDOVER_FAKE_PORT", PORT.to_string())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let server_pid = std::fs::read_to_string(script_path.with_extension("json.pid"))
            .ok()
            .and_then(|p| p.trim().parse().ok());
        let tui = OpenCodeTui {
            b: self,
            dir,
            socket,
            more_turns,
            log,
            server_pid,
            started: Instant::now(),
            planned: std::cell::Cell::new(0),
        };
        assert!(
            out.status.success(),
            "could not start {}'s terminal UI: {}",
            self.host.display_name,
            String::from_utf8_lossy(&out.stderr)
        );
        tui.wait_for(self.host.tui_ready, 90);
        tui.settle(10);
        tui
    }
}

impl OpenCodeTui<'_> {
    fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("timeout")
            .args(["10", "tmux", "-S"])
            .arg(&self.socket)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "tui"]).stdout)
            .into_owned()
    }

    fn key(&self, key: &str) {
        self.tmux(&["send-keys", "-t", "tui", key]);
    }

    /// Types `text`, waits (bounded) until the screen shows it, then presses Enter after a
    /// pause (text and Enter arriving together are taken for a paste).
    pub fn send(&self, text: &str) {
        eprintln!("e2e tui {}: > {text}", self.b.host.name);
        self.tmux(&["send-keys", "-t", "tui", "-l", text]);
        self.wait_for(text, 10);
        std::thread::sleep(Duration::from_millis(400));
        self.key("Enter");
    }

    pub fn wait_until(&self, what: &str, secs: u64, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while !done() {
            assert!(
                Instant::now() < deadline,
                "e2e tui {}: waited {secs} s for {what}\n{}",
                self.b.host.name,
                self.describe()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn wait_for(&self, needle: &str, secs: u64) {
        self.wait_until(&format!("{needle:?} on the screen"), secs, || {
            self.screen().contains(needle)
        });
    }

    /// Waits until the screen stays the same for a second (at most `secs`).
    pub fn settle(&self, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut last = self.screen();
        let mut same = 0;
        while same < 4 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(250));
            let now = self.screen();
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
    }

    /// Plans `answer` for the request that carries `prompt`, types the prompt and waits for the
    /// answer; returns the agent request it answered.
    pub fn exchange(&self, prompt: &str, answer: &str) -> LoggedRequest {
        let turn = self.add_turns(vec![Turn::text(answer).when(prompt)]);
        self.send(prompt);
        self.wait_for(answer, 90);
        self.answered_by(turn)
    }

    /// Appends turns to the fake server's plan (they answer the next agent requests, after any
    /// turn still unused); returns the index of the first.
    pub fn add_turns(&self, turns: Vec<Turn>) -> usize {
        let first = self.planned.get();
        self.planned.set(first + turns.len());
        let text: String = turns
            .iter()
            .map(|t| format!("{}\n", serde_json::to_string(t).unwrap()))
            .collect();
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.more_turns)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
        first
    }

    /// The request the plan's turn `turn` answered.
    pub fn answered_by(&self, turn: usize) -> LoggedRequest {
        self.requests()
            .into_iter()
            .find(|r| r.turn == Some(turn))
            .unwrap_or_else(|| panic!("no request took turn {turn}\n{}", self.describe()))
    }

    /// SIGKILLs the client (every process of the sandbox whose executable is the host's);
    /// returns the PIDs killed.
    pub fn kill_client(&self) -> Vec<u32> {
        let name = self.b.host.executable;
        let pids: Vec<u32> = sandbox_pids(&self.b.home)
            .into_iter()
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/exe"))
                    .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == name))
            })
            .collect();
        crate::support::interactive::kill_all_at_once(&pids);
        eprintln!(
            "e2e tui {}: SIGKILLed {} ({pids:?})",
            self.b.host.name, self.b.host.display_name
        );
        pids
    }

    pub fn requests(&self) -> Vec<LoggedRequest> {
        fake_server::read_log(&self.log)
    }

    /// The agent's requests (those that offer tools), in order.
    pub fn agent_requests(&self) -> Vec<LoggedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.body.get("tools").is_some())
            .collect()
    }

    pub fn hooks_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("hooks.log")).unwrap_or_default()
    }

    /// The client's exit status once its pane is dead.
    pub fn exited(&self) -> Option<i32> {
        let out = self.tmux(&[
            "display-message",
            "-p",
            "-t",
            "tui",
            "#{pane_dead} #{pane_dead_status}",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut words = text.split_whitespace();
        (words.next() == Some("1")).then(|| words.next().and_then(|s| s.parse().ok()).unwrap_or(-1))
    }

    pub fn describe(&self) -> String {
        format!(
            "run dir {} after {:.1} s, {} requests\n--- screen\n{}\n--- hooks.log\n{}",
            self.dir.display(),
            self.started.elapsed().as_secs_f64(),
            self.requests().len(),
            self.screen(),
            self.hooks_log()
        )
    }
}

impl Drop for OpenCodeTui<'_> {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
        let mut pids = sandbox_pids(&self.b.home);
        pids.extend(self.server_pid);
        for pid in pids {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
        eprintln!(
            "e2e tui {}: ended after {:.1} s ({} requests)",
            self.b.host.name,
            self.started.elapsed().as_secs_f64(),
            self.requests().len()
        );
    }
}

/// OpenCode's plugin SDK, installed once beside the clients, into one of its config folders:
/// hard links where the file system allows, else a copy.
fn copy_sdk(sdk: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for name in ["node_modules", "package.json", "package-lock.json"] {
        let from = sdk.join(name);
        let linked = Command::new("cp")
            .arg("-al")
            .arg(&from)
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !linked {
            let copied = Command::new("cp").arg("-a").arg(&from).arg(dir).status();
            assert!(copied.is_ok_and(|s| s.success()), "copy {}", from.display());
        }
    }
}

pub(crate) fn assert_ran(run: &Run) {
    assert_eq!(
        run.status,
        Some(0),
        "the client's run failed:\n{}",
        run.describe()
    );
    assert!(
        !run.agent_requests().is_empty(),
        "no agent request:\n{}",
        run.describe()
    );
}

/// The startup context is in every agent request of a session, once, and never in the title
/// request; its verdict follows the repository (fresh, drifted, stale).
fn opencode_startup_fresh_drifted_stale() {
    let Some(c) = clients("opencode_startup_fresh_drifted_stale") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    b.write_handoff();
    let fresh = b.run(
        c,
        vec![Turn::shell("true"), Turn::text("Noted.")],
        "Continue.",
    );
    assert_ran(&fresh);
    assert_eq!(fresh.counts(STARTUP), [1, 1], "{}", fresh.describe());
    let text = fresh.agent_requests()[0].body_text();
    let at = text.find(STARTUP).unwrap_or(0);
    assert!(
        text.contains("Verdict: fresh"),
        "{}",
        &text[at..(at + 1500).min(text.len())]
    );
    let title = fresh
        .requests
        .iter()
        .find(|r| r.body_text().contains(TITLE))
        .expect("OpenCode's title request");
    assert!(
        !title.body_text().contains(STARTUP),
        "the title request got the startup context"
    );
    assert!(fresh
        .hooks_log()
        .contains("event=SessionStart source=startup"));

    b.commit_file("src/csv.rs", "pub fn csv() {}\n", "Add the CSV writer");
    let drifted = b.run(c, vec![Turn::text("Noted.")], "Continue.");
    assert_ran(&drifted);
    assert_eq!(drifted.counts(STARTUP), [1], "{}", drifted.describe());
    let text = drifted.agent_requests()[0].body_text();
    assert!(text.contains("Verdict: drifted") && text.contains("HEAD moved 1 commit ahead"));

    b.git(&["checkout", "-q", "-b", "experiment"]);
    let stale = b.run(c, vec![Turn::text("Noted.")], "Continue.");
    assert_ran(&stale);
    let text = stale.agent_requests()[0].body_text();
    assert!(
        text.contains("Verdict: stale") && text.contains("experiment"),
        "{}",
        stale.describe()
    );
}

/// Nothing to say without a handoff: no text of ours in any request.
fn opencode_nothing_without_handoff() {
    let Some(c) = clients("opencode_nothing_without_handoff") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    let run = b.run(
        c,
        vec![Turn::shell("true"), Turn::text("Noted.")],
        "Continue.",
    );
    assert_ran(&run);
    for r in &run.requests {
        let text = r.body_text();
        assert!(
            !text.contains("handover: "),
            "a text of ours without a handoff:\n{text}"
        );
    }
}

/// Automatic compaction at OpenCode's own point (the model's context less its output limit,
/// 7,000 of 8,000 here): the reminder once before it, our instructions in the summarizer's
/// request, the handoff back once in the first request after it and not before.
fn opencode_compaction_reminder_and_handoff_back() {
    let Some(c) = clients("opencode_compaction_reminder_and_handoff_back") else {
        return;
    };
    let b = OpenCodeBox::new(c, 8_000, 1_000);
    b.write_handoff();
    let run = b.run(
        c,
        vec![
            Turn::shell("true").usage(3_000),
            Turn::shell("true").usage(5_000),
            Turn::text("The tests still fail.").usage(7_500),
            Turn::text("Resumed."),
        ],
        "Run the tests.",
    );
    assert_ran(&run);
    compaction_moments_each_once(&run);
}

/// A run of four agent requests whose usage reaches the compaction point at the third (3,000 →
/// 5,000, 71 %: the reminder is due → 7,500: compaction → after): the reminder in the third
/// request only, one summarizer request with our instructions once, the handoff back in the
/// fourth only and the startup context not there; one PreCompact and one SessionStart
/// `compact` in the hooks' log. Shared by OpenCode's and Kilo Code's compaction tests.
pub(crate) fn compaction_moments_each_once(run: &Run) {
    // Agent requests: 3,000 → 5,000 (71 %: the reminder is due) → 7,500 (compaction) → after.
    let remind = run.counts(REMIND);
    assert_eq!(remind, [0, 0, 1, 0], "{}", run.describe());
    let summarizer: Vec<&LoggedRequest> = run
        .requests
        .iter()
        .filter(|r| r.body_text().contains("Here is the conversation so far:"))
        .collect();
    assert_eq!(summarizer.len(), 1, "{}", run.describe());
    assert_eq!(
        summarizer[0]
            .body_text()
            .matches(COMPACTION_INSTRUCTIONS)
            .count(),
        1,
        "our instructions are not in the summarizer's request:\n{}",
        run.describe()
    );
    assert_eq!(
        run.counts(AFTER_COMPACTION),
        [0, 0, 0, 1],
        "{}",
        run.describe()
    );
    assert_eq!(run.counts(STARTUP), [1, 1, 1, 0], "{}", run.describe());
    let log = run.hooks_log();
    assert_eq!(log.matches("event=PreCompact").count(), 1, "{log}");
    assert_eq!(log.matches("source=compact").count(), 1, "{log}");
}

/// The record: a shell edit, the failing test, the agent's last words and the session's end;
/// the plugin names the session for the shell commands.
fn opencode_record_shell_edit_and_end() {
    let Some(c) = clients("opencode_record_shell_edit_and_end") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    quit_session_recorded(&b, c, "HANDOVER_OPENCODE_SESSION_ID");
}

/// A session that writes notes.txt through the shell, writes the session id its shell got in
/// `session_var` to session.txt, fails `exit 1` and quits (`run` ends it): its record is the
/// host's and holds the file, the failing command, the agent's last words and the end, and the
/// shell got the session's id. Shared by OpenCode's record test and Kilo Code's quit-and-kill
/// test.
pub(crate) fn quit_session_recorded(b: &OpenCodeBox, c: &Clients, session_var: &str) {
    let run = b.run(
        c,
        vec![
            Turn::shell("printf 'written by the shell\\n' > notes.txt"),
            Turn::shell(&format!("echo \"${session_var}\" > session.txt")),
            Turn::shell("sh -c 'echo 1 failed; exit 1'"),
            Turn::text("The test still fails."),
        ],
        "Write the notes and run the tests.",
    );
    assert_ran(&run);
    eprintln!("e2e {}: a run took {:?}", b.host.name, run.time);
    let record = b.record();
    let text = record.to_string();
    assert_eq!(record["agent"], b.host.name, "{text}");
    let edited = record["files_edited"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(edited.iter().any(|f| f == "notes.txt"), "{text}");
    let failed: Vec<&serde_json::Value> = record["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["command"].as_str().unwrap_or("").contains("exit 1"))
        .collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert_eq!(failed[0]["exit_code"], 1, "{text}");
    assert_eq!(record["last_message"], "The test still fails.", "{text}");
    assert_eq!(record["ended"]["how"], "session_end", "{text}");
    let session = std::fs::read_to_string(b.project.join("session.txt")).unwrap_or_default();
    assert_eq!(
        session.trim(),
        record["session_id"].as_str().unwrap_or("-"),
        "the shell did not get the session's id"
    );
}

/// handover missing or stuck never blocks OpenCode: hook executables that hang are stopped at
/// the entry's timeout, and the session answers.
fn opencode_never_blocked_by_a_stuck_handover() {
    let Some(c) = clients("opencode_never_blocked_by_a_stuck_handover") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    b.write_handoff();
    // The same install, with executables that never answer.
    let stuck = b.root.join("stuck");
    std::fs::create_dir_all(&stuck).unwrap();
    for name in [
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        let path = stuck.join(name);
        std::fs::write(&path, "#!/bin/sh\nexec sleep 600\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let plugin = b.project.join(".opencode/plugin/handover.js");
    let text = std::fs::read_to_string(&plugin).unwrap();
    let hooks_dir = b
        .bins
        .session_start
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    std::fs::write(&plugin, text.replace(&hooks_dir, &stuck.to_string_lossy())).unwrap();
    let started = std::time::Instant::now();
    let run = b.run(c, vec![Turn::text("Still here.")], "Continue.");
    assert_ran(&run);
    assert!(run.stdout.contains("Still here."), "{}", run.describe());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
    for r in &run.requests {
        assert!(!r.body_text().contains("handover: "));
    }
    // The stuck executables the client left running when it exited (Stop's, SessionEnd's).
    for pid in sandbox_pids(&b.home) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

/// handover set up in the repository but not installed on the machine: the portable launcher
/// finds no executable and prints its one `{"systemMessage": ...}` line at a session start; the
/// plugin passes the message's text, not the JSON, and the session answers.
fn opencode_not_installed_passes_the_launchers_text() {
    let Some(c) = clients("opencode_not_installed_passes_the_launchers_text") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    // The install a teammate commits: commands that look the executables up at run time.
    let out = b.handover(&["install", "--scope", "project", "--opencode"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plugin = std::fs::read_to_string(b.project.join(".opencode/plugin/handover.js")).unwrap();
    assert!(
        plugin.contains("command -v"),
        "not the portable launcher:\n{plugin}"
    );
    b.write_handoff();
    // A PATH without our executables (the sandbox's HOME has no cargo bin directory).
    let path = without_handover(&std::env::var("PATH").unwrap_or_default());
    let run = b.run_with(
        c,
        vec![Turn::text("Still here.")],
        "Continue.",
        path.as_ref(),
    );
    assert_ran(&run);
    assert!(run.stdout.contains("Still here."), "{}", run.describe());
    let text = run.agent_requests()[0].body_text();
    assert_eq!(
        text.matches("handover is set up in this repository but not installed on this machine")
            .count(),
        1,
        "{}",
        run.describe()
    );
    assert!(
        !text.contains("systemMessage"),
        "the JSON reached the model:\n{text}"
    );
    assert!(!text.contains(STARTUP), "{text}");
}

/// The terminal UI's moments, shared by OpenCode's and Kilo Code's tests: the startup context
/// in the first agent request, once; `/compact` runs our instructions into the summarizer's
/// request and the next prompt's request carries the handoff back once (no startup context);
/// `/new` starts a session whose first request has the startup context again, once; three
/// agent requests in all. The terminal is left running for the test's own end.
pub(crate) fn startup_compact_new<'b>(b: &'b OpenCodeBox, c: &Clients) -> OpenCodeTui<'b> {
    b.write_handoff();
    let tui = b.tui(c);
    let count = |r: &LoggedRequest, needle: &str| r.body_text().matches(needle).count();

    let first = tui.exchange("Continue the work", "FIRST-ANSWER");
    assert_eq!(
        (count(&first, STARTUP), count(&first, AFTER_COMPACTION)),
        (1, 0),
        "startup\n{}",
        tui.describe()
    );
    assert_eq!(tui.agent_requests().len(), 1, "{}", tui.describe());

    let summarizer = |tui: &OpenCodeTui| {
        tui.requests()
            .into_iter()
            .filter(|r| r.body_text().contains("Here is the conversation so far:"))
            .collect::<Vec<_>>()
    };
    tui.send("/compact");
    tui.wait_until("the summarizer's request", 90, || {
        !summarizer(&tui).is_empty()
    });
    tui.settle(10);
    let summaries = summarizer(&tui);
    assert_eq!(summaries.len(), 1, "{}", tui.describe());
    assert_eq!(
        count(&summaries[0], COMPACTION_INSTRUCTIONS),
        1,
        "{}",
        tui.describe()
    );
    let after = tui.exchange("Carry on after compacting", "SECOND-ANSWER");
    assert_eq!(
        (count(&after, AFTER_COMPACTION), count(&after, STARTUP)),
        (1, 0),
        "after /compact\n{}",
        tui.describe()
    );
    assert!(after.body_text().contains(GOAL), "{}", tui.describe());

    tui.send("/new");
    tui.settle(10);
    let fresh = tui.exchange("Start over in a new session", "THIRD-ANSWER");
    assert_eq!(
        (count(&fresh, STARTUP), count(&fresh, AFTER_COMPACTION)),
        (1, 0),
        "after /new\n{}",
        tui.describe()
    );
    // Each moment once: three agent requests, one per prompt.
    assert_eq!(tui.agent_requests().len(), 3, "{}", tui.describe());
    tui
}

/// The terminal UI: the startup context in the first agent request, once; `/compact` runs our
/// instructions into the summarizer's request and the next prompt's request carries the handoff
/// back once (no startup context); `/new` starts a session whose first request has the startup
/// context again, once; `/exit` ends both sessions (SessionEnd, the records' `session_end`).
fn opencode_tui_startup_compact_new_exit() {
    let Some(c) = clients("opencode_tui_startup_compact_new_exit") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    let tui = startup_compact_new(&b, c);
    exit_ends_both_sessions(&b, tui);
}

/// After [`startup_compact_new`]: `/exit` ends the client, which starts SessionEnd for both
/// sessions (the plugin's `dispose`) without waiting for it; each hook ran once per moment (two
/// SessionStart `startup`, one `compact`, two SessionEnd) and every record says the session
/// ended (`session_end`). Shared by OpenCode's and Kilo Code's terminal UI tests.
pub(crate) fn exit_ends_both_sessions(b: &OpenCodeBox, tui: OpenCodeTui) {
    tui.send("/exit");
    tui.wait_until("the client to exit", 60, || tui.exited().is_some());
    b.hooks_done();
    let log = tui.hooks_log();
    assert_eq!(log.matches("source=startup").count(), 2, "{log}");
    assert_eq!(log.matches("source=compact").count(), 1, "{log}");
    assert_eq!(log.matches("event=SessionEnd").count(), 2, "{log}");
    drop(tui);
    let records: Vec<serde_json::Value> = std::fs::read_dir(b.project.join(".handover/records"))
        .map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
        .collect();
    assert!(
        !records.is_empty() && records.iter().all(|r| r["ended"]["how"] == "session_end"),
        "{records:?}"
    );
}

/// Quit, then killed, each after a shell edit and a failing command. `opencode run` ends its
/// session (SessionEnd `exit`): the next session, in the terminal UI, is told the file, the
/// failure and that end in its first agent request. That session does the same work, its turn
/// ends (`session.idle`: Stop writes the record), and OpenCode is SIGKILLed (no `dispose`, no
/// SessionEnd): the session after it is told its file, its failure, and that no end was
/// recorded.
fn opencode_quit_and_kill_after_a_shell_edit() {
    let Some(c) = clients("opencode_quit_and_kill_after_a_shell_edit") else {
        return;
    };
    let b = OpenCodeBox::new(c, 200_000, 32_000);
    let quit = b.run(
        c,
        vec![
            Turn::shell("printf 'written by the shell\\n' > notes.txt"),
            Turn::shell("sh -c 'echo 1 failed; exit 1'"),
            Turn::text("The test still fails."),
        ],
        "Write the notes and run the tests.",
    );
    assert_ran(&quit);

    killed_after_the_quit_session_is_told(&b, c);
}

/// How the next session is told what a session without a handoff left: once, under our opening.
pub(crate) fn told(text: &str, needles: &[&str]) {
    const OPENING: &str = "handover: no handoff was written";
    assert_eq!(text.matches(OPENING).count(), 1, "{text}");
    let ours = &text[text.find(OPENING).unwrap_or(0)..];
    for needle in needles {
        assert!(ours.contains(needle), "no {needle:?} in\n{ours}");
    }
}

/// After a quit session that wrote notes.txt and failed `exit 1`: the next session, in the
/// terminal UI, is told that file, failure and end in its first agent request; it writes
/// killed.txt and fails `exit 2`, its turn ends (Stop writes the record), and the client is
/// SIGKILLed (no SessionEnd); the session after it is told its file, its failure, and that no
/// end was recorded. Shared by OpenCode's and Kilo Code's quit-and-kill tests.
pub(crate) fn killed_after_the_quit_session_is_told(b: &OpenCodeBox, c: &Clients) {
    {
        let tui = b.tui(c);
        const PROMPT: &str = "Write the next notes";
        let first = tui.add_turns(vec![
            Turn::shell("printf 'then killed\\n' > killed.txt").when(PROMPT),
            Turn::shell("sh -c 'echo 2 failed; exit 2'"),
            Turn::text("KILLED-TURN-DONE"),
        ]);
        tui.send(PROMPT);
        tui.wait_for("KILLED-TURN-DONE", 90);
        let text = tui.answered_by(first).body_text();
        told(
            &text,
            &[
                "notes.txt",
                "«sh -c 'echo 1 failed; exit 1'» (failed, exit 1)",
                "(SessionEnd, reason «exit»)",
            ],
        );
        // The turn's end wrote the record (Stop on `session.idle`); then the kill.
        tui.wait_until("the turn's record", 30, || {
            records_text(&b.project).contains("killed.txt")
        });
        let killed = tui.kill_client();
        assert!(
            !killed.is_empty(),
            "no {} process to kill",
            b.host.display_name
        );
        tui.wait_until("the client to exit", 30, || tui.exited().is_some());
        let log = tui.hooks_log();
        assert_eq!(log.matches("event=SessionEnd").count(), 0, "{log}");
    }

    let next = b.run(c, vec![Turn::text("Looking at it.")], "Continue.");
    assert_ran(&next);
    let text = next.agent_requests()[0].body_text();
    told(
        &text,
        &[
            "killed.txt",
            "«sh -c 'echo 2 failed; exit 2'» (failed, exit 2)",
            "idle since then; no end recorded",
        ],
    );
    assert!(!text.contains("(SessionEnd, reason"), "{text}");
}

/// Automatic compaction in the terminal UI, at OpenCode's own point (a model with
/// `limit.context` 8,000 and `limit.output` 1,000: 7,000): one prompt whose steps report 3,000,
/// 5,000 and 7,500 tokens. OpenCode compacts by itself (one summarizer request, our
/// instructions in it once), continues, and the first agent request after the compaction
/// carries the handoff back once; none before it does, and the hooks ran PreCompact and
/// SessionStart `compact` once each.
fn opencode_tui_automatic_compaction() {
    let Some(c) = clients("opencode_tui_automatic_compaction") else {
        return;
    };
    let b = OpenCodeBox::new(c, 8_000, 1_000);
    tui_compacts_by_itself(&b, c, Turn::text("BEFORE-COMPACTION"));
}

/// Automatic compaction in the terminal UI at the client's own point (`b`'s model: 7,000 of
/// 8,000): one prompt whose steps report 3,000, 5,000 and 7,500 tokens, the last one `third`;
/// the client compacts by itself and continues; the moments each once (the reminder in the
/// third agent request, our instructions in the one summarizer request, the handoff back in the
/// fourth agent request, which has no startup context; one PreCompact, PostCompact and
/// SessionStart `compact`). Shared by OpenCode's and Kilo Code's tests.
pub(crate) fn tui_compacts_by_itself(b: &OpenCodeBox, c: &Clients, third: Turn) {
    b.write_handoff();
    let tui = b.tui(c);
    const PROMPT: &str = "Run the tests until they pass";
    tui.add_turns(vec![
        Turn::shell("true").usage(3_000).when(PROMPT),
        Turn::shell("true").usage(5_000),
        third.usage(7_500),
        Turn::text("AFTER-COMPACTION"),
    ]);
    tui.send(PROMPT);
    tui.wait_for("AFTER-COMPACTION", 150);
    tui.settle(10);
    let agent = tui.agent_requests();
    let count = |needle: &str| -> Vec<usize> {
        agent
            .iter()
            .map(|r| r.body_text().matches(needle).count())
            .collect()
    };
    assert_eq!(count(AFTER_COMPACTION), [0, 0, 0, 1], "{}", tui.describe());
    assert_eq!(count(STARTUP), [1, 1, 1, 0], "{}", tui.describe());
    assert_eq!(count(REMIND), [0, 0, 1, 0], "{}", tui.describe());
    assert!(agent[3].body_text().contains(GOAL), "{}", tui.describe());
    let summaries: Vec<LoggedRequest> = tui
        .requests()
        .into_iter()
        .filter(|r| r.body_text().contains("Here is the conversation so far:"))
        .collect();
    assert_eq!(summaries.len(), 1, "{}", tui.describe());
    assert_eq!(
        summaries[0]
            .body_text()
            .matches(COMPACTION_INSTRUCTIONS)
            .count(),
        1,
        "{}",
        tui.describe()
    );
    let log = tui.hooks_log();
    assert_eq!(log.matches("event=PreCompact").count(), 1, "{log}");
    assert_eq!(log.matches("source=compact").count(), 1, "{log}");
    assert_eq!(log.matches("event=PostCompact").count(), 1, "{log}");
}

/// What the plugin costs in the real client. One `opencode run` session (a prompt, three shell
/// steps whose usage reaches OpenCode's compaction point at the third, the automatic
/// compaction, an answer) four ways, interleaved round by round after a warm-up round: our
/// plugin as install writes it (each executable started from its `argv`); the same plugin with
/// the `argv`s left out (each through `sh -c <command>`, as before they existed); the plugin with
/// every hook a do-nothing process (`cat`: what starting any process from the plugin costs);
/// no plugin. The plugins run with a timing wrapper around each of their hooks and each
/// `run` (the time OpenCode waits on the plugin per moment, measured inside the client: with no
/// plugin it waits nothing there; inside the client's busy event loop these times include its
/// own work in between). Then each hook command timed directly in the same project, through
/// `sh -c` and from its `argv`, beside a do-nothing process: once spawned from this test, once
/// with `Bun.spawn` as the plugin does in OpenCode's own runtime (its binary as Bun). A
/// benchmark, not a test: it asserts only that the sessions ran. Figures: docs/benchmarks.md.
///
///     HANDOVER_OPENCODE_BENCH_HOOKS=<release build dir> cargo test --test clients \
///         opencode_plugin_cost -- --ignored --nocapture
///
/// `HANDOVER_OPENCODE_BENCH_HOOKS`: the hook executables (default this build's);
/// `HANDOVER_OPENCODE_BENCH_ROUNDS`: rounds (default 4); `HANDOVER_OPENCODE_BENCH_BEFORE`: a
/// plugin file another build's `install` wrote for this client, run with this install's
/// entries as a fifth way (the plugin before); `HANDOVER_OPENCODE_BENCH_HOOKS_BEFORE`: another
/// build's hook executables, run from install's plugin as one more way (the hooks before).
fn opencode_plugin_cost() {
    if let Some(c) = clients("opencode_plugin_cost") {
        plugin_cost(&OPENCODE, c);
    }
}

/// The plugin's cost in `host` (opencode_plugin_cost's method; Kilo Code's in
/// tests/clients/kilo.rs).
pub(crate) fn plugin_cost(host: &'static Host, c: &Clients) {
    let name = host.name;
    let rounds: usize = std::env::var("HANDOVER_OPENCODE_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(4);
    let b = OpenCodeBox::of(host, c, 8_000, 1_000);
    let hooks = std::env::var_os("HANDOVER_OPENCODE_BENCH_HOOKS")
        .map(PathBuf::from)
        .unwrap_or_else(|| b.bins.session_start.parent().unwrap().to_path_buf());
    let out = b.handover(&[
        "install",
        "--scope",
        "project",
        &format!("--{name}"),
        "--hooks-dir",
        &hooks.to_string_lossy(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    b.write_handoff();
    let plugin_path = b.project.join(host.project_dir).join("plugin/handover.js");
    let plugin = std::fs::read_to_string(&plugin_path).unwrap();
    let (head, rest) = plugin.split_once("const HOOKS = ").unwrap();
    let (json, tail) = rest.split_once(";\n").unwrap();
    let hooks_json: serde_json::Value = serde_json::from_str(json).unwrap();
    // The plugin with its HOOKS changed by `edit` on each handler, and the timing wrapper.
    let times_path = b.root.join("bench-times.jsonl");
    let variant = |edit: &dyn Fn(&mut serde_json::Map<String, serde_json::Value>)| {
        let mut doc = hooks_json.clone();
        for groups in doc["hooks"].as_object_mut().unwrap().values_mut() {
            for group in groups.as_array_mut().unwrap() {
                for h in group["hooks"].as_array_mut().unwrap() {
                    edit(h.as_object_mut().unwrap());
                }
            }
        }
        timed(&format!("{head}const HOOKS = {doc};\n{tail}"), &times_path)
    };
    // Another build's plugin (a file its `install` wrote for this client) with this install's
    // entries: the plugin before, as a fifth way.
    let before = std::env::var_os("HANDOVER_OPENCODE_BENCH_BEFORE").map(|path| {
        let text = std::fs::read_to_string(&path).unwrap();
        let (head, rest) = text.split_once("const HOOKS = ").unwrap();
        let (_, tail) = rest.split_once(";\n").unwrap();
        timed(
            &format!("{head}const HOOKS = {hooks_json};\n{tail}"),
            &times_path,
        )
    });
    let mut ways: Vec<(&str, Option<String>)> = vec![
        ("argv (install's)", Some(variant(&|_| {}))),
        (
            "sh -c (no argv)",
            Some(variant(&|h| {
                h.remove("argv");
            })),
        ),
        (
            "do-nothing hooks",
            Some(variant(&|h| {
                h.insert("argv".into(), serde_json::json!(["cat"]));
            })),
        ),
        ("no plugin", None),
    ];
    if let Some(text) = before {
        ways.insert(
            3,
            (
                "the plugin before (HANDOVER_OPENCODE_BENCH_BEFORE)",
                Some(text),
            ),
        );
    }
    // Another build's hook executables (a directory like HANDOVER_OPENCODE_BENCH_HOOKS) in
    // install's plugin, interleaved with this build's: the hooks before, in the same rounds.
    if let Some(dir) = std::env::var_os("HANDOVER_OPENCODE_BENCH_HOOKS_BEFORE") {
        let (ours, theirs) = (hooks.to_string_lossy(), dir.to_string_lossy().into_owned());
        let text = variant(&|h| {
            for key in ["command", "argv"] {
                let moved = h[key].to_string().replace(&*ours, &theirs);
                h.insert(key.into(), serde_json::from_str(&moved).unwrap());
            }
        });
        assert!(text.contains(&theirs), "install's entries name {ours}");
        ways.insert(
            1,
            (
                "argv, the hooks before (HANDOVER_OPENCODE_BENCH_HOOKS_BEFORE)",
                Some(text),
            ),
        );
    }
    let session = || {
        vec![
            Turn::shell("echo step 1").usage(3_000),
            Turn::shell("echo step 2").usage(5_000),
            Turn::shell("echo step 3").usage(7_500),
            Turn::text("Done."),
        ]
    };
    let mut session_ms: Vec<Vec<f64>> = vec![Vec::new(); ways.len()];
    // (way, "hook <name>" or "run <event>") → the times of the round's calls.
    let mut waits: std::collections::BTreeMap<(usize, String), Vec<f64>> = Default::default();
    for round in 0..=rounds {
        for i in 0..ways.len() {
            let way = (round + i) % ways.len();
            match &ways[way].1 {
                Some(text) => std::fs::write(&plugin_path, text).unwrap(),
                None => {
                    let _ = std::fs::remove_file(&plugin_path);
                }
            }
            let _ = std::fs::remove_file(&times_path);
            let run = b.run(c, session(), "Run the steps.");
            assert_ran(&run);
            let ms = run.time.unwrap_or_default().as_secs_f64() * 1000.0;
            eprintln!(
                "bench {name}: round {round} {} {ms:.0} ms, {} agent requests",
                ways[way].0,
                run.agent_requests().len()
            );
            if round == 0 {
                continue;
            }
            session_ms[way].push(ms);
            let lines = std::fs::read_to_string(&times_path).unwrap_or_default();
            for line in lines.lines() {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                if let (Some(what), Some(ms)) = (v["what"].as_str(), v["ms"].as_f64()) {
                    waits.entry((way, what.to_string())).or_default().push(ms);
                }
            }
        }
    }
    std::fs::write(&plugin_path, &plugin).unwrap();
    let med = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    for ((way, _), t) in ways.iter().zip(&session_ms) {
        eprintln!(
            "bench {name}: {way}: session median {:.0} ms of {t:.0?}",
            med(t)
        );
    }
    let whats: std::collections::BTreeSet<&String> = waits.keys().map(|(_, w)| w).collect();
    for what in whats {
        let cells: Vec<String> = (0..ways.len() - 1)
            .map(|way| match waits.get(&(way, what.clone())) {
                Some(ms) => format!(
                    "{}: median {:.1} ms (min {:.1}, n {})",
                    ways[way].0,
                    med(ms),
                    ms.iter().copied().fold(f64::INFINITY, f64::min),
                    ms.len()
                ),
                None => format!("{}: -", ways[way].0),
            })
            .collect();
        eprintln!("bench {name}: in the client: {what}: {}", cells.join("; "));
    }

    // Each hook command, through `sh -c` and from its argv, beside a do-nothing process, on a
    // payload like the plugin's, in this project.
    let sessions = b.home.join(host.user_dir).join("handover-sessions");
    let transcript = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .next()
        .expect("a session file");
    let id = transcript
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut cases = Vec::new();
    let events: [(&str, serde_json::Value); 7] = [
        (
            "SessionStart",
            serde_json::json!({"source": "startup", "model": "m"}),
        ),
        (
            "PostToolUse",
            serde_json::json!({"tool_name": "bash", "tool_call_id": "call_1"}),
        ),
        (
            "UserPromptSubmit",
            serde_json::json!({"prompt": "Continue."}),
        ),
        ("PreCompact", serde_json::json!({})),
        ("PostCompact", serde_json::json!({"model": "m"})),
        ("Stop", serde_json::json!({})),
        ("SessionEnd", serde_json::json!({"reason": "exit"})),
    ];
    for (event, extra) in events {
        let handler = &hooks_json["hooks"][event][0]["hooks"][0];
        let (Some(command), Some(argv)) = (handler["command"].as_str(), handler["argv"].as_array())
        else {
            continue;
        };
        let argv: Vec<&str> = argv.iter().filter_map(|w| w.as_str()).collect();
        let mut payload = serde_json::json!({
            "session_id": id, "transcript_path": transcript, "cwd": b.project,
            "hook_event_name": event,
        });
        for (k, v) in extra.as_object().unwrap() {
            payload[k] = v.clone();
        }
        let time = |argv: &[&str]| {
            let started = Instant::now();
            let mut child = Command::new(argv[0])
                .args(&argv[1..])
                .current_dir(&b.project)
                .env("HOME", &b.home)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            use std::io::Write;
            let _ = child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes());
            child.wait().unwrap();
            started.elapsed().as_secs_f64() * 1000.0
        };
        let (mut shell, mut direct, mut floor) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..31 {
            shell.push(time(&["sh", "-c", command]));
            direct.push(time(&argv));
            floor.push(time(&["cat"]));
        }
        eprintln!(
            "bench {name}: direct: {event}: sh -c {:.1} ms, argv {:.1} ms, a do-nothing process {:.1} ms (medians of 31)",
            med(&shell),
            med(&direct),
            med(&floor)
        );
        let mut case = serde_json::json!({
            "event": event, "input": payload.to_string(), "cwd": b.project,
            "ways": {"sh -c": ["sh", "-c", command], "argv": argv, "do-nothing": ["cat"]},
        });
        // How the plugin runs these now: SessionStart begun when the session is created, the
        // request waiting for it that much later (the median gap seen in the client above);
        // SessionEnd started and not waited for.
        match event {
            "SessionStart" => {
                if let Some(gap) = waits.get(&(0, GAP.to_string())) {
                    // At most 100 ms: past the hook's own time the wait is nothing either way.
                    case["lead_ms"] = med(gap).min(100.0).into();
                }
            }
            "SessionEnd" => case["detach"] = true.into(),
            _ => {}
        }
        cases.push(case);
    }
    // The same three ways as the plugin starts them (`Bun.spawn`, the payload from a Blob, the
    // output read through a Response), in OpenCode's own runtime: its binary run as Bun
    // (`BUN_BE_BUN=1`), outside its event loop.
    let cases_path = b.root.join("bench-cases.json");
    std::fs::write(&cases_path, serde_json::Value::from(cases).to_string()).unwrap();
    let med_gap = waits
        .get(&(0, GAP.to_string()))
        .map_or(f64::NAN, |g| med(g).min(100.0));
    let script = b.root.join("bench-spawn.mjs");
    std::fs::write(&script, BUN_SPAWN_BENCH).unwrap();
    let out = Command::new((host.binary)(c))
        .arg(&script)
        .arg(&cases_path)
        .env("BUN_BE_BUN", "1")
        .env("HOME", &b.home)
        .current_dir(&b.project)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let ms = |way: &str| {
            let t: Vec<f64> = v["t"][way]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
                .unwrap_or_default();
            med(&t)
        };
        let now = match (v["t"].get("begun earlier"), v["t"].get("detached")) {
            (Some(_), _) => format!(
                ", begun {:.1} ms earlier {:.1} ms",
                med_gap,
                ms("begun earlier")
            ),
            (_, Some(_)) => format!(", detached {:.1} ms", ms("detached")),
            _ => String::new(),
        };
        eprintln!(
            "bench {name}: Bun.spawn: {}: sh -c {:.1} ms, argv {:.1} ms, a do-nothing process {:.1} ms{now} (medians of 31)",
            v["event"].as_str().unwrap_or("?"),
            ms("sh -c"),
            ms("argv"),
            ms("do-nothing")
        );
    }
    if !out.status.success() {
        eprintln!(
            "bench {name}: Bun.spawn: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The in-client time from a session's creation to its first agent request ([`timed`]).
const GAP: &str = "gap session.created to the first agent request";

/// Times each way of each case (`[{event, input, cwd, ways: {name: argv}, lead_ms?, detach?}]`
/// in the file named by its argument) 31 times, interleaved, as the plugin starts a hook; one
/// JSON line per case. `lead_ms`: also `begun earlier`, the argv started that long before its
/// answer is awaited (the time awaited); `detach`: also `detached`, the argv started in its own
/// process group and not waited for (the time to start it; it is then let finish, untimed).
const BUN_SPAWN_BENCH: &str = r#"import fs from "node:fs";
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
for (const c of cases) {
  const t = {};
  for (let i = 0; i < 31; i++) {
    for (const [name, argv] of Object.entries(c.ways)) {
      const t0 = performance.now();
      const child = Bun.spawn(argv, { cwd: c.cwd, stdin: new Blob([c.input]), stdout: "pipe", stderr: "ignore" });
      await new Response(child.stdout).text();
      (t[name] ||= []).push(performance.now() - t0);
    }
    if (c.lead_ms !== undefined) {
      const child = Bun.spawn(c.ways.argv, { cwd: c.cwd, stdin: new Blob([c.input]), stdout: "pipe", stderr: "ignore" });
      const text = new Response(child.stdout).text();
      await Bun.sleep(c.lead_ms);
      const t0 = performance.now();
      await text;
      (t["begun earlier"] ||= []).push(performance.now() - t0);
    }
    if (c.detach) {
      const t0 = performance.now();
      const child = Bun.spawn(c.ways.argv, { cwd: c.cwd, stdin: new Blob([c.input]), stdout: "ignore", stderr: "ignore", detached: true });
      child.unref();
      (t["detached"] ||= []).push(performance.now() - t0);
      await child.exited;
    }
  }
  console.log(JSON.stringify({ event: c.event, t }));
}
"#;

/// `plugin` with a wrapper that appends to `times` how long each of its hooks and each `run`
/// (one moment's executable) took, `{"what": ..., "ms": ...}` a line.
fn timed(plugin: &str, times: &Path) -> String {
    let times = serde_json::Value::from(times.to_string_lossy().into_owned());
    let text = plugin
        .replacen(
            "async function run(event, id, payload) {",
            "async function run(event, id, payload) {\n  const t0 = performance.now();\n  const text = await runUntimed(event, id, payload);\n  benchTime(`run ${event}`, t0);\n  return text;\n}\nasync function runUntimed(event, id, payload) {",
            1,
        )
        .replacen(
            "export const HandoverPlugin = async (ctx) => {",
            "const HandoverPluginUntimed = async (ctx) => {",
            1,
        );
    assert!(text.contains("runUntimed") && text.contains("HandoverPluginUntimed"));
    // The plugin that begins SessionStart when the session is created, and PostCompact and
    // SessionStart `compact` at `session.compacted`: how long the request then waits for them,
    // and how long after the session's creation its first agent request came.
    let text = text
        .replacen(
            "s.created = true;",
            "s.created = true;\n        s.benchCreated = performance.now();",
            1,
        )
        .replacen(
            "keep(s, await opening(s, id));",
            &format!("if (s.benchCreated) benchTime(\"{GAP}\", s.benchCreated);\n        const benchT0 = performance.now();\n        const opened = await opening(s, id);\n        benchTime(\"wait SessionStart (first agent request)\", benchT0);\n        keep(s, opened);"),
            1,
        )
        .replacen(
            "for (const text of await compacted) keep(s, text);",
            "const benchT0 = performance.now();\n        const reopened = await compacted;\n        benchTime(\"wait PostCompact + SessionStart compact (first agent request after)\", benchT0);\n        for (const text of reopened) keep(s, text);",
            1,
        );
    format!(
        "{text}
function benchTime(what, t0) {{
  const ms = performance.now() - t0;
  fs.appendFileSync({times}, JSON.stringify({{ what, ms }}) + \"\\n\");
}}
export const HandoverPlugin = async (ctx) => {{
  const hooks = await HandoverPluginUntimed(ctx);
  for (const [name, hook] of Object.entries(hooks)) {{
    hooks[name] = async (input, output) => {{
      const t0 = performance.now();
      await hook(input, output);
      benchTime(name === \"event\" ? `event ${{input.event.type}}` : `hook ${{name}}`, t0);
    }};
  }}
  return hooks;
}};
"
    )
}

trials! {
    real: [
        opencode_startup_fresh_drifted_stale @ 24,
        opencode_nothing_without_handoff @ 10,
        opencode_compaction_reminder_and_handoff_back @ 12,
        opencode_record_shell_edit_and_end @ 12,
        opencode_never_blocked_by_a_stuck_handover @ 10,
        opencode_not_installed_passes_the_launchers_text @ 7,
        opencode_tui_startup_compact_new_exit @ 21,
        opencode_quit_and_kill_after_a_shell_edit @ 30,
        opencode_tui_automatic_compaction @ 18,
    ],
    ignored: [opencode_plugin_cost],
}
