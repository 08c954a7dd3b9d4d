//! Interactive sessions: a real client's terminal UI in tmux, inside a loopback-only network
//! namespace, against one fake model server that lives for the whole scenario.
//!
//! ```text
//! let tui = sb.tui(vec![Turn::text("DONE-1")], TuiOpts::default());
//! tui.send("Fix the report");          // types the prompt, then Enter
//! tui.wait_for("DONE-1", 60);          // bounded; panics with the screen on timeout
//! tui.add_turns(vec![Turn::text("DONE-2")]);
//! tui.send("/clear");
//! let reqs = tui.requests();           // what the model was sent
//! ```
//!
//! The namespace holds the fake server (this test binary in server mode) and a private tmux
//! server (its own socket in the run directory, so no other tmux is touched); the client runs in
//! the tmux pane with the sandbox's environment (HOME, CODEX_HOME, keys, the fake server's URL)
//! under `timeout`. tmux is driven from outside the namespace through its socket (a file socket
//! is not tied to a network namespace). Dropping the [`Tui`] ends everything it started: the
//! tmux server, the fake server, and any process left with the sandbox's HOME or CODEX_HOME
//! (Codex's background `app-server` daemon among them), each by PID.
//!
//! Every wait is bounded, the client by `timeout`, the fake server by a request limit and an idle
//! timeout.

use super::fake_server::{self, LoggedRequest, Script, Turn};
use super::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Seconds an interactive client may live before `timeout` ends it (a scenario is several
/// prompts long).
pub const TUI_TIMEOUT_SECS: u64 = 300;
/// How long [`Tui::exchange`] waits for its prompt's request before it takes the Enter for
/// lost: long enough for a slow client under load.
const RESUBMIT_AFTER: Duration = Duration::from_secs(15);
/// The pane's size: wide enough that prompts and answers are not wrapped mid-word.
const COLUMNS: u32 = 200;
const ROWS: u32 = 50;

/// How to start an interactive client.
pub struct TuiOpts {
    /// More arguments for the client (e.g. `--resume <id>`).
    pub args: Vec<String>,
    /// The directory the client starts in, relative to the project (None: the project).
    pub subdir: Option<PathBuf>,
    /// Input tokens the server reports when no turn says otherwise.
    pub default_usage: u64,
    /// More environment for the client.
    pub env: Vec<(String, String)>,
    /// Wait for the client's input prompt before returning (false: for a client expected to
    /// stop at a dialog or to exit).
    pub wait_ready: bool,
}

impl Default for TuiOpts {
    fn default() -> TuiOpts {
        TuiOpts {
            args: Vec::new(),
            subdir: None,
            default_usage: 1200,
            env: Vec::new(),
            wait_ready: true,
        }
    }
}

impl TuiOpts {
    pub fn args(mut self, args: &[&str]) -> TuiOpts {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }
}

/// What each client's screen shows once it waits for input (pinned versions; see
/// /work/shared/notes/real-clients.md "Interactive sessions").
pub fn ready_text(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "bypass permissions on",
        Agent::Codex => "Ask Codex to do anything",
        Agent::Gemini => "Type your message",
        // Factory Droid 0.225.2's help line under its input box (not shown under a dialog).
        Agent::Droid => "? for help",
        // Qwen Code 0.24.4: "Type your message or @path/to/file".
        Agent::Qwen => "Type your message or",
        Agent::Copilot => "/ commands · ? help",
    }
}

/// A running interactive client. Dropping it ends the session and everything it started.
pub struct Tui<'a> {
    pub sb: &'a Sandbox,
    /// The run directory: script, request log, hook log, tmux socket.
    pub dir: PathBuf,
    socket: PathBuf,
    more_turns: PathBuf,
    log: PathBuf,
    hook_log: PathBuf,
    server_pid: Option<u32>,
    started: Instant,
    /// How many turns the plan holds so far (the index of the next one added).
    planned: std::cell::Cell<usize>,
}

impl Sandbox {
    /// Starts the sandbox's client interactively against a fake server following `turns` (more
    /// can be appended with [`Tui::add_turns`]); returns once the client waits for input.
    pub fn tui(&self, turns: Vec<Turn>, opts: TuiOpts) -> Tui<'_> {
        let Some(clients) = clients("tui") else {
            panic!("clients() must be checked before starting an interactive session");
        };
        let tmux = Command::new("tmux").arg("-V").stdin(Stdio::null()).output();
        assert!(
            tmux.is_ok_and(|o| o.status.success()),
            "the interactive end-to-end tests need tmux (Debian/Ubuntu: `apt-get install -y tmux`), or set {SKIP_ENV}=1 to skip the real-client tests"
        );
        let dir = self.next_run_dir();
        let script_path = dir.join("script.json");
        let log = dir.join("requests.jsonl");
        let more_turns = dir.join("more-turns.jsonl");
        std::fs::write(&more_turns, "").expect("create the more-turns file");
        let turns_len = turns.len();
        let script = Script {
            turns,
            default_text: "OK.".to_string(),
            summary: Script::default_summary_text(),
            default_usage: opts.default_usage,
            log: log.clone(),
            max_requests: 200,
            idle_timeout_secs: TUI_TIMEOUT_SECS + 30,
            more_turns: Some(more_turns.clone()),
            // Copilot CLI writes its transcript only after 100 ms without an event (see
            // Script::answer_delay_ms): a model that answers at once would leave it unwritten.
            answer_delay_ms: if self.agent == Agent::Copilot { 300 } else { 0 },
        };
        std::fs::write(
            &script_path,
            serde_json::to_string_pretty(&script).expect("script json"),
        )
        .expect("write script");
        let hook_log = dir.join("hooks.log");
        let (program, args, mut env) = self.interactive_command(clients);
        env.push((
            "HANDOVER_HOOK_DEBUG".into(),
            hook_log.to_string_lossy().into_owned(),
        ));
        env.extend(opts.env.iter().cloned());
        let mut words = vec![
            "timeout".to_string(),
            "--foreground".into(),
            "-k".into(),
            "5".into(),
            TUI_TIMEOUT_SECS.to_string(),
            program.to_string_lossy().into_owned(),
        ];
        words.extend(args);
        words.extend(opts.args.iter().cloned());
        let env_file = dir.join("env.sh");
        let exports: String = env
            .iter()
            .map(|(k, v)| format!("export {k}={}\n", shell_quote(v)))
            .collect();
        std::fs::write(&env_file, exports).expect("write the env file");
        let cwd = match &opts.subdir {
            Some(sub) => self.project.join(sub),
            None => self.project.clone(),
        };
        let pane = format!(
            "cd {} && . {} && exec {}",
            shell_quote(&cwd.to_string_lossy()),
            shell_quote(&env_file.to_string_lossy()),
            words
                .iter()
                .map(|w| shell_quote(w))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let conf = dir.join("tmux.conf");
        // The pane stays after the client exits: its last screen and exit status stay readable.
        std::fs::write(
            &conf,
            "set -g remain-on-exit on\nset -g history-limit 5000\nset -g default-terminal xterm-256color\n",
        )
        .expect("write tmux.conf");
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
            // The sandbox's HOME marks every process of the scenario (see `sandbox_pids`).
            .env("HOME", &self.home)
            .env("E2E_SERVER", std::env::current_exe().expect("current exe"))
            .env("E2E_SCRIPT", &script_path)
            .env("E2E_SOCKET", &socket)
            .env("E2E_TMUX_CONF", &conf)
            .env("E2E_PANE", &pane)
            .env("E2E_SIZE", format!("{COLUMNS}x{ROWS}"))
            .env("HANDOVER_FAKE_PORT", PORT.to_string())
            .stdin(Stdio::null())
            .output()
            .expect("start the interactive client in a network namespace");
        let server_pid = std::fs::read_to_string(script_path.with_extension("json.pid"))
            .ok()
            .and_then(|p| p.trim().parse().ok());
        let tui = Tui {
            sb: self,
            dir,
            socket,
            more_turns,
            log,
            hook_log,
            server_pid,
            started: Instant::now(),
            planned: std::cell::Cell::new(turns_len),
        };
        assert!(
            out.status.success(),
            "could not start the interactive {} ({}):\n{}\n{}",
            self.agent.name(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!(
            "e2e tui {}: started in {} ({})",
            self.agent.name(),
            tui.dir.display(),
            cwd.display()
        );
        if opts.wait_ready {
            tui.wait_for(ready_text(self.agent), 60);
            // The input prompt shows before the client has finished starting (hooks, warnings):
            // keys sent meanwhile can be lost.
            tui.settle(10);
        }
        tui
    }

    /// The interactive client's program, arguments and environment for this sandbox.
    fn interactive_command(
        &self,
        clients: &Clients,
    ) -> (PathBuf, Vec<String>, Vec<(String, String)>) {
        let mut env: Vec<(String, String)> = vec![("LANG".into(), "C.UTF-8".into())];
        let home = self.home.to_string_lossy().into_owned();
        match self.agent {
            Agent::Claude => {
                self.seed_claude_json();
                env.extend([
                    ("HOME".into(), home),
                    (
                        "ANTHROPIC_BASE_URL".into(),
                        format!("http://127.0.0.1:{PORT}"),
                    ),
                    ("ANTHROPIC_API_KEY".into(), CLAUDE_KEY.into()),
                    (
                        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                        "1".into(),
                    ),
                    ("IS_SANDBOX".into(), "1".into()),
                ]);
                (
                    clients.claude.clone(),
                    vec!["--dangerously-skip-permissions".into()],
                    env,
                )
            }
            Agent::Codex => {
                self.skip_codex_model_offer();
                let mut args = vec!["--dangerously-bypass-approvals-and-sandbox".to_string()];
                if self.trust == Trust::BypassFlag {
                    args.push("--dangerously-bypass-hook-trust".into());
                }
                env.extend([
                    (
                        "HOME".into(),
                        self.home.join("user").to_string_lossy().into_owned(),
                    ),
                    (
                        "CODEX_HOME".into(),
                        self.home.join("codex").to_string_lossy().into_owned(),
                    ),
                    ("FAKE_API_KEY".into(), "sk-e2e-fake".into()),
                ]);
                (clients.codex.clone(), args, env)
            }
            Agent::Gemini => {
                env.extend([
                    ("HOME".into(), home),
                    ("GEMINI_API_KEY".into(), "e2e-fake".into()),
                    (
                        "GOOGLE_GEMINI_BASE_URL".into(),
                        format!("http://127.0.0.1:{PORT}"),
                    ),
                ]);
                let (key, value) = node_options(&self.home);
                env.push((key.into(), value));
                if self.trust == Trust::BypassFlag {
                    env.push(("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()));
                }
                (
                    clients.gemini.clone(),
                    vec!["--yolo".into(), "-m".into(), GEMINI_MODEL.into()],
                    env,
                )
            }
            Agent::Droid => {
                self.seed_droid_settings();
                env.extend(
                    super::droid::env(&self.home)
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v)),
                );
                (
                    clients.droid.clone(),
                    vec!["--auto".into(), "high".into()],
                    env,
                )
            }
            Agent::Qwen => {
                env.extend(
                    qwen_env(&self.home)
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v)),
                );
                (clients.qwen.clone(), vec!["--yolo".into()], env)
            }
            Agent::Copilot => {
                env.extend([
                    ("HOME".into(), home),
                    ("COPILOT_OFFLINE".into(), "true".into()),
                    ("COPILOT_PROVIDER_TYPE".into(), "anthropic".into()),
                    (
                        "COPILOT_PROVIDER_BASE_URL".into(),
                        format!("http://127.0.0.1:{PORT}"),
                    ),
                    ("COPILOT_PROVIDER_API_KEY".into(), "sk-e2e-fake".into()),
                    ("COPILOT_MODEL".into(), COPILOT_MODEL.into()),
                    (
                        "COPILOT_CACHE_HOME".into(),
                        copilot_cache(&clients.copilot)
                            .to_string_lossy()
                            .into_owned(),
                    ),
                ]);
                (
                    clients.copilot.clone(),
                    vec!["--allow-all-tools".into(), "--allow-all-paths".into()],
                    env,
                )
            }
        }
    }

    /// Factory Droid's terminal UI has no model flag and asks once per folder whether to trust
    /// it, running no hook before (docs/compatibility.md): its user settings name the fake
    /// model as the sessions' default, with autonomy high (commands run without asking). The
    /// folder's trust: with [`Trust::Installed`], what `handover install --trust` wrote there
    /// (kept as it is; none when the install had no `--trust`); otherwise the harness lists the
    /// project, as Droid's own "Trust this folder" answer records it.
    fn seed_droid_settings(&self) {
        let trusted = if self.trust == Trust::Installed {
            std::fs::read_to_string(self.home.join(".factory/settings.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .and_then(|v| v.get("trustedFolders").cloned())
        } else {
            Some(serde_json::json!({
                self.project.to_string_lossy(): {"trustedAt": "2026-01-01T00:00:00.000Z"}
            }))
        };
        let mut extra = format!(
            "\"sessionDefaultSettings\": {{\"model\": \"{}\", \"autonomyLevel\": \"high\"}}",
            super::droid::MODEL
        );
        if let Some(trusted) = trusted {
            extra.push_str(&format!(",\n  \"trustedFolders\": {trusted}"));
        }
        super::droid::write_settings(&self.home, &extra);
    }

    /// Codex 0.169.0 offers a newer model in a dialog at the first interactive start; the answer
    /// "use existing model" is recorded as this table in its config.
    fn skip_codex_model_offer(&self) {
        let path = self.home.join("codex/config.toml");
        let text = std::fs::read_to_string(&path).expect("read codex config");
        if !text.contains("[notice.model_migrations]") {
            std::fs::write(
                &path,
                format!("{text}\n[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n"),
            )
            .expect("write codex config");
        }
    }

    /// Claude Code's first-run dialogs (onboarding, theme, the API key, bypass mode, folder
    /// trust) answered in `$HOME/.claude.json`, keeping whatever earlier runs wrote there.
    fn seed_claude_json(&self) {
        let path = self.home.join(".claude.json");
        let mut v: Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .filter(Value::is_object)
            .unwrap_or_else(|| serde_json::json!({}));
        v["hasCompletedOnboarding"] = true.into();
        v["theme"] = "dark".into();
        v["bypassPermissionsModeAccepted"] = true.into();
        v["customApiKeyResponses"] = serde_json::json!({"approved": [&CLAUDE_KEY[CLAUDE_KEY.len() - 20..], CLAUDE_KEY], "rejected": []});
        if !v["projects"].is_object() {
            v["projects"] = serde_json::json!({});
        }
        for dir in [&self.project, &self.root] {
            v["projects"][dir.to_string_lossy().as_ref()] = serde_json::json!({
                "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true});
        }
        std::fs::write(&path, serde_json::to_string_pretty(&v).expect("json"))
            .expect("write ~/.claude.json");
    }
}

/// The API key the interactive Claude Code uses. Its approval is recorded by the key's last 20
/// characters.
const CLAUDE_KEY: &str = "sk-ant-e2e-fake-interactive-key-0123456789";

/// Runs in the namespace: loopback up, the fake server in the background (its PID in
/// `<script>.pid`), wait for its port, then a private tmux server with the client in its pane.
/// Its inputs: `E2E_SERVER`, `E2E_SCRIPT`, `E2E_SOCKET`, `E2E_TMUX_CONF`, `E2E_PANE`, `E2E_SIZE`
/// (`<columns>x<rows>`); tests/clients/opencode.rs starts its plugin client with it too.
pub const LAUNCHER: &str = r#"
ip link set lo up || { echo "e2e: cannot bring loopback up" >&2; exit 90; }
HANDOVER_FAKE_SERVER="$E2E_SCRIPT" "$E2E_SERVER" fake_server_entry --exact --nocapture -q >"$E2E_SCRIPT.server.out" 2>&1 </dev/null &
echo $! >"$E2E_SCRIPT.pid"
i=0
while [ ! -s "$E2E_SCRIPT.port" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
if [ ! -s "$E2E_SCRIPT.port" ]; then echo "e2e: the fake server did not start" >&2; exit 91; fi
exec tmux -S "$E2E_SOCKET" -f "$E2E_TMUX_CONF" new-session -d -s tui -x "${E2E_SIZE%x*}" -y "${E2E_SIZE#*x}" "$E2E_PANE"
"#;

impl Tui<'_> {
    fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("timeout")
            .args(["10", "tmux", "-S"])
            .arg(&self.socket)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run tmux")
    }

    /// Types `text` literally, waits (bounded) until the screen shows it, then presses Enter
    /// (after a pause: the TUIs treat text and Enter arriving together as a paste and would not
    /// submit it).
    pub fn send(&self, text: &str) {
        eprintln!("e2e tui {}: > {text}", self.sb.agent.name());
        self.tmux(&["send-keys", "-t", "tui", "-l", text]);
        let shown: String = text.chars().take(40).collect();
        self.wait_for(&shown, 10);
        std::thread::sleep(Duration::from_millis(400));
        self.key("Enter");
    }

    /// Waits until the screen stays the same for a second (at most `secs`; a screen that never
    /// settles, e.g. a spinner, only costs the wait).
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

    /// Sends one tmux key name (`Enter`, `Escape`, `C-c`, `Down`, ...).
    pub fn key(&self, key: &str) {
        self.tmux(&["send-keys", "-t", "tui", key]);
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "tui"]).stdout)
            .into_owned()
    }

    /// The screen and the scrollback.
    pub fn history(&self) -> String {
        String::from_utf8_lossy(
            &self
                .tmux(&["capture-pane", "-p", "-S", "-", "-t", "tui"])
                .stdout,
        )
        .into_owned()
    }

    /// Waits until the screen shows `needle`; panics with the screen after `secs`.
    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        let mut screen = String::new();
        self.wait_until(&format!("{needle:?} on the screen"), secs, || {
            screen = self.screen();
            screen.contains(needle)
        });
        screen
    }

    /// Waits until `done` holds (checked every 200 ms); panics naming `what`, with the screen,
    /// after `secs`.
    pub fn wait_until(&self, what: &str, secs: u64, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if done() {
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "e2e tui {}: waited {secs} s for {what}\n{}",
                    self.sb.agent.name(),
                    self.describe()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Appends turns to the fake server's plan: they answer the next requests (after any turn
    /// still unused). Returns the index of the first one (see [`Tui::answered_by`]).
    pub fn add_turns(&self, turns: Vec<Turn>) -> usize {
        let first = self.planned.get();
        self.planned.set(first + turns.len());
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.more_turns)
            .expect("open the more-turns file");
        let text: String = turns
            .iter()
            .map(|t| format!("{}\n", serde_json::to_string(t).expect("turn json")))
            .collect();
        f.write_all(text.as_bytes()).expect("append turns");
        first
    }

    /// One exchange: plans `answer` for the request that carries `prompt`, types the prompt,
    /// waits (bounded) for the answer on the screen; returns the request it answered.
    pub fn exchange(&self, prompt: &str, answer: &str, secs: u64) -> LoggedRequest {
        let turn = self.add_turns(vec![Turn::text(answer).when(prompt)]);
        self.send(prompt);
        self.enter_again_if_lost(prompt);
        self.wait_for(answer, secs);
        self.answered_by(turn)
    }

    /// A terminal UI busy when Enter arrives can drop it (seen under load: Qwen Code right
    /// after `/clear`, the prompt left typed in its input): when no request carrying `prompt`
    /// reached the server within [`RESUBMIT_AFTER`] and the screen still shows it, Enter once
    /// more. Where the first Enter was only slow, the second finds an empty input, which these
    /// clients ignore.
    fn enter_again_if_lost(&self, prompt: &str) {
        let asked = || {
            self.requests()
                .iter()
                .any(|r| r.body_text().contains(prompt))
        };
        let deadline = Instant::now() + RESUBMIT_AFTER;
        while !asked() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
        let shown: String = prompt.chars().take(40).collect();
        if !asked() && self.screen().contains(&shown) {
            eprintln!(
                "e2e tui {}: no request after Enter; Enter again",
                self.sb.agent.name()
            );
            self.key("Enter");
        }
    }

    /// The request the plan's turn `turn` answered; panics when none did.
    pub fn answered_by(&self, turn: usize) -> LoggedRequest {
        self.requests()
            .into_iter()
            .find(|r| r.turn == Some(turn))
            .unwrap_or_else(|| panic!("no request took turn {turn}\n{}", self.describe()))
    }

    /// Every request the server logged so far.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        fake_server::read_log(&self.log)
    }

    /// The conversation requests (not compaction, not side requests), in order.
    pub fn conversation(&self) -> Vec<LoggedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| {
                r.method == "POST"
                    && !r.compaction
                    && !r.path.contains("count_tokens")
                    && !r.path.contains(":countTokens")
            })
            .collect()
    }

    /// The hooks' debug log of this session (one line per hook call).
    pub fn hook_log(&self) -> String {
        std::fs::read_to_string(&self.hook_log).unwrap_or_default()
    }

    /// Whether the client has exited (its pane is dead), with its exit status.
    pub fn exited(&self) -> Option<i32> {
        let out = self.tmux(&[
            "display-message",
            "-p",
            "-t",
            "tui",
            "#{pane_dead} #{pane_dead_status}",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text.split_whitespace();
        if words.next() != Some("1") {
            return None;
        }
        Some(words.next().and_then(|s| s.parse().ok()).unwrap_or(-1))
    }

    /// Waits (bounded) until the client exits; returns its exit status.
    pub fn wait_exit(&self, secs: u64) -> i32 {
        let mut status = None;
        self.wait_until("the client to exit", secs, || {
            status = self.exited();
            status.is_some()
        });
        status.unwrap_or(-1)
    }

    /// SIGKILLs the client itself (Claude Code's binary; Gemini CLI's and Qwen Code's node
    /// processes; Codex's TUI), found by PID among this sandbox's processes; returns the PIDs
    /// killed.
    pub fn kill_client(&self) -> Vec<u32> {
        let pids: Vec<u32> = sandbox_pids(&self.sb.home)
            .into_iter()
            .filter(|pid| {
                let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
                let exe = exe.file_name().unwrap_or_default().to_string_lossy();
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|c| String::from_utf8_lossy(&c).into_owned())
                    .unwrap_or_default();
                match self.sb.agent {
                    Agent::Claude => exe == "claude",
                    Agent::Gemini => exe == "node" && cmdline.contains("gemini"),
                    Agent::Qwen => exe == "node" && cmdline.contains("qwen-code"),
                    Agent::Codex => exe.starts_with("codex") && !cmdline.contains("app-server"),
                    Agent::Droid => exe == "droid",
                    // The single executable of @github/copilot-linux-x64.
                    Agent::Copilot => exe == "copilot",
                }
            })
            .collect();
        kill_all_at_once(&pids);
        eprintln!(
            "e2e tui {}: SIGKILLed the client ({pids:?})",
            self.sb.agent.name()
        );
        pids
    }

    /// What a failing wait prints: the screen, the requests' count and the hook calls.
    pub fn describe(&self) -> String {
        format!(
            "run dir {} after {:.1} s, {} requests\n--- screen\n{}\n--- hook calls\n{}",
            self.dir.display(),
            self.started.elapsed().as_secs_f64(),
            self.requests().len(),
            self.screen(),
            self.hook_log().trim_end()
        )
    }
}

impl Drop for Tui<'_> {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
        if let Some(pid) = self.server_pid {
            kill(pid);
        }
        // Whatever else the session started and left running (Codex's app-server daemon, a
        // hook still running): every process carrying this sandbox's HOME or CODEX_HOME.
        let left = sandbox_pids(&self.sb.home);
        for &pid in &left {
            kill(pid);
        }
        if !left.is_empty() {
            std::thread::sleep(Duration::from_millis(300));
            for pid in sandbox_pids(&self.sb.home) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
        eprintln!(
            "e2e tui {}: ended after {:.1} s ({} requests, {} leftover processes stopped)",
            self.sb.agent.name(),
            self.started.elapsed().as_secs_f64(),
            self.requests().len(),
            left.len()
        );
    }
}

/// SIGKILLs `pids` from one `kill` process, back to back: a client made of a parent and a
/// child process (Qwen Code and Gemini CLI relaunch themselves) killed one `kill` process at a
/// time could notice, under load, that the other one had gone and exit on its own, running
/// SessionEnd, before its own signal came.
pub fn kill_all_at_once(pids: &[u32]) {
    if pids.is_empty() {
        return;
    }
    let _ = Command::new("kill")
        .arg("-KILL")
        .args(pids.iter().map(u32::to_string))
        .status();
}

fn kill(pid: u32) {
    let _ = Command::new("kill")
        .arg(pid.to_string())
        .stderr(Stdio::null())
        .status();
}

/// The processes whose HOME or CODEX_HOME lies inside `home` (a sandbox's unique temp
/// directory): the ones a scenario started, and nothing else.
pub fn sandbox_pids(home: &Path) -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let prefix = home.to_string_lossy().into_owned();
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                env.split(|&b| b == 0).any(|var| {
                    let var = String::from_utf8_lossy(var);
                    ["HOME=", "CODEX_HOME="].iter().any(|k| {
                        var.strip_prefix(k)
                            .is_some_and(|v| v == prefix || v.starts_with(&format!("{prefix}/")))
                    })
                })
            })
        })
        .collect()
}
