//! One client session: the fake model server and the client together in a fresh loopback-only
//! network namespace, under `timeout`, and what came out of it.

use super::fake_server::{self, LoggedRequest, Script, Turn};
use super::*;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The fake server's port inside each namespace: every run has its own namespace, so a fixed
/// port never collides, and the client configuration can be written before the server starts.
pub const PORT: u16 = 18431;
/// The model Gemini CLI is told to use: named, or it first asks a routing model the fake
/// server does not play (see real-clients.md). Its window is 1,048,576 tokens.
pub const GEMINI_MODEL: &str = "gemini-2.5-pro";
/// The model Qwen Code is told to use (`OPENAI_MODEL`): Qwen Code 0.24.4 gives it a
/// 1,000,000-token window and compacts from 85 % of it.
pub const QWEN_MODEL: &str = "qwen3-coder-plus";
/// The model Copilot CLI is told to use (`COPILOT_MODEL`, through its `anthropic` provider
/// type): Copilot 1.0.102's catalog gives it a prompt limit of 168,000 tokens.
pub const COPILOT_MODEL: &str = "claude-sonnet-4.5";
/// Seconds one client run may take before `timeout` kills it.
pub const CLIENT_TIMEOUT_SECS: u64 = 120;

impl Sandbox {
    pub(super) fn next_run_dir(&self) -> PathBuf {
        let n = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        let dir = self.root.join(format!("run-{n}"));
        std::fs::create_dir_all(&dir).expect("create run dir");
        dir
    }

    /// Runs one client session against a fake server following `turns`.
    pub fn run(&self, turns: Vec<Turn>, opts: RunOpts) -> ClientRun {
        let Some(clients) = clients("run") else {
            panic!("clients() must be checked before running a session");
        };
        let dir = self.next_run_dir();
        let script_path = dir.join("script.json");
        let log = dir.join("requests.jsonl");
        let script = Script {
            turns,
            default_text: "OK.".to_string(),
            summary: fake_server::Script::default_summary_text(),
            default_usage: opts.default_usage,
            log: log.clone(),
            max_requests: 40,
            idle_timeout_secs: CLIENT_TIMEOUT_SECS + 30,
            more_turns: None,
            answer_delay_ms: if self.agent == Agent::Copilot { 300 } else { 0 },
        };
        std::fs::write(
            &script_path,
            serde_json::to_string_pretty(&script).expect("script json"),
        )
        .expect("write script");
        let mut client: Vec<String> = Vec::new();
        let path = std::env::var("PATH").unwrap_or_default();
        let path = if opts.without_handover_on_path {
            without_handover(&path)
        } else {
            path
        };
        let path = match &opts.path_first {
            Some(dir) => format!("{}:{path}", dir.display()),
            None => path,
        };
        let mut envs: Vec<(&str, String)> = vec![
            ("PATH", path),
            ("LANG", "C.UTF-8".into()),
            ("TERM", "dumb".into()),
        ];
        // The hooks' debug log (one line per hook call), into the run directory unless the
        // developer chose a target: printed after the run, so a failing test shows what each
        // hook decided.
        let hook_log = dir.join("hooks.log");
        envs.push((
            "HANDOVER_HOOK_DEBUG",
            std::env::var("HANDOVER_HOOK_DEBUG")
                .unwrap_or_else(|_| hook_log.to_string_lossy().into_owned()),
        ));
        match self.agent {
            Agent::Claude => {
                client.push(clients.claude.to_string_lossy().into_owned());
                client.extend(
                    [
                        "-p",
                        opts.prompt,
                        "--output-format",
                        "json",
                        "--max-turns",
                        &opts.max_turns.to_string(),
                        "--dangerously-skip-permissions",
                    ]
                    .map(String::from),
                );
                if let Some(id) = &opts.resume {
                    client.extend(["--resume".to_string(), id.clone()]);
                }
                client.extend(opts.client_args.iter().cloned());
                envs.extend([
                    ("HOME", self.home.to_string_lossy().into_owned()),
                    ("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{PORT}")),
                    ("ANTHROPIC_API_KEY", "sk-e2e-fake".into()),
                    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                    ("IS_SANDBOX", "1".into()),
                ]);
            }
            Agent::Codex => {
                client.push(clients.codex.to_string_lossy().into_owned());
                client.extend(
                    [
                        "exec",
                        "--skip-git-repo-check",
                        "--dangerously-bypass-approvals-and-sandbox",
                    ]
                    .map(String::from),
                );
                if self.trust == Trust::BypassFlag {
                    client.push("--dangerously-bypass-hook-trust".into());
                }
                client.extend(opts.client_args.iter().cloned());
                if let Some(id) = &opts.resume {
                    client.extend(["resume".to_string(), id.clone()]);
                }
                client.push(opts.prompt.to_string());
                envs.extend([
                    (
                        "HOME",
                        self.home.join("user").to_string_lossy().into_owned(),
                    ),
                    (
                        "CODEX_HOME",
                        self.home.join("codex").to_string_lossy().into_owned(),
                    ),
                    ("FAKE_API_KEY", "sk-e2e-fake".into()),
                ]);
            }
            Agent::Gemini => {
                client.push(clients.gemini.to_string_lossy().into_owned());
                client.extend(
                    [
                        "-p",
                        opts.prompt,
                        "--yolo",
                        "-m",
                        GEMINI_MODEL,
                        "--output-format",
                        "json",
                    ]
                    .map(String::from),
                );
                if let Some(id) = &opts.resume {
                    client.extend(["--resume".to_string(), id.clone()]);
                }
                client.extend(opts.client_args.iter().cloned());
                envs.extend([
                    ("HOME", self.home.to_string_lossy().into_owned()),
                    ("GEMINI_API_KEY", "e2e-fake".into()),
                    ("GOOGLE_GEMINI_BASE_URL", format!("http://127.0.0.1:{PORT}")),
                    node_options(&self.home),
                ]);
                if self.trust == Trust::BypassFlag {
                    envs.push(("GEMINI_CLI_TRUST_WORKSPACE", "true".into()));
                }
            }
            Agent::Droid => {
                client.push(clients.droid.to_string_lossy().into_owned());
                client.extend(droid::args(&opts));
                envs.extend(droid::env(&self.home));
            }
            Agent::Qwen => {
                client.push(clients.qwen.to_string_lossy().into_owned());
                client.extend(
                    [
                        "-p",
                        opts.prompt,
                        "--yolo",
                        "--output-format",
                        "json",
                        "--max-session-turns",
                        &opts.max_turns.to_string(),
                    ]
                    .map(String::from),
                );
                if let Some(id) = &opts.resume {
                    client.extend(["--resume".to_string(), id.clone()]);
                }
                client.extend(opts.client_args.iter().cloned());
                envs.extend(qwen_env(&self.home));
            }
            Agent::Copilot => {
                client.push(clients.copilot.to_string_lossy().into_owned());
                // `--allow-all-paths` too: the scripted model runs `handover` by its absolute
                // path, outside the project, which Copilot otherwise refuses without a user to ask.
                client.extend(
                    ["-p", opts.prompt, "--allow-all-tools", "--allow-all-paths"].map(String::from),
                );
                if let Some(id) = &opts.resume {
                    client.push(format!("--resume={id}"));
                }
                client.extend(opts.client_args.iter().cloned());
                envs.extend([
                    ("HOME", self.home.to_string_lossy().into_owned()),
                    ("COPILOT_OFFLINE", "true".into()),
                    ("COPILOT_PROVIDER_TYPE", "anthropic".into()),
                    (
                        "COPILOT_PROVIDER_BASE_URL",
                        format!("http://127.0.0.1:{PORT}"),
                    ),
                    ("COPILOT_PROVIDER_API_KEY", "sk-e2e-fake".into()),
                    ("COPILOT_MODEL", COPILOT_MODEL.into()),
                    // The single-executable client unpacks itself (about 235 MB) into its cache
                    // on first start: once beside the installed clients, not once per HOME.
                    (
                        "COPILOT_CACHE_HOME",
                        copilot_cache(&clients.copilot)
                            .to_string_lossy()
                            .into_owned(),
                    ),
                ]);
            }
        }
        envs.extend(opts.client_env.iter().map(|(k, v)| (*k, v.clone())));
        let started_ms = handover_base::clock::millis(std::time::SystemTime::now());
        let started = Instant::now();
        let out = Command::new("timeout")
            .args([
                "-k",
                "5",
                &(CLIENT_TIMEOUT_SECS + 20).to_string(),
                "unshare",
            ])
            .args(clients.unshare)
            .args(["sh", "-c", NAMESPACE_WRAPPER, "e2e-netns"])
            .args(&client)
            .current_dir(&self.project)
            .env_clear()
            .envs(envs)
            .env("E2E_SERVER", std::env::current_exe().expect("current exe"))
            .env("E2E_SCRIPT", &script_path)
            .env("E2E_TIMEOUT", CLIENT_TIMEOUT_SECS.to_string())
            .env("HANDOVER_FAKE_PORT", PORT.to_string())
            .stdin(Stdio::null())
            .output()
            .expect("run the client in a network namespace");
        let elapsed = started.elapsed();
        let client_time = client_time(&script_path);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let requests = fake_server::read_log(&log);
        let session_id = match self.agent {
            Agent::Claude | Agent::Gemini | Agent::Droid => {
                serde_json::from_str::<Value>(stdout.trim())
                    .ok()
                    .and_then(|v| v.get("session_id")?.as_str().map(String::from))
            }
            Agent::Codex => stderr
                .lines()
                .chain(stdout.lines())
                .find_map(|l| l.strip_prefix("session id: "))
                .map(|s| s.trim().to_string()),
            // `-o json` prints an array of messages; the last, of type `result`, names it.
            Agent::Qwen => serde_json::from_str::<Value>(stdout.trim())
                .ok()
                .and_then(|v| {
                    v.as_array()?
                        .iter()
                        .rev()
                        .find_map(|m| m.get("session_id")?.as_str().map(String::from))
                }),
            // Copilot CLI ends `-p` with "Resume  copilot --resume=<id>".
            Agent::Copilot => stdout
                .lines()
                .chain(stderr.lines())
                .filter_map(|l| l.split_once("--resume="))
                .map(|(_, id)| id.trim().to_string())
                .next_back(),
        };
        // Copilot CLI's SessionEnd finishes the record in a detached copy of the hook after
        // the client exited (hooks/src/call/detach.rs): every test reads the record after it.
        if self.agent == Agent::Copilot && !opts.killed {
            if let Some(sid) = &session_id {
                let finished = super::hook::wait_for_record_end(&self.project, sid, started_ms);
                eprintln!(
                    "e2e copilot: the record's end after the client exited: {}",
                    if finished.is_some() {
                        "written"
                    } else {
                        "none (no record, or not within the wait)"
                    }
                );
            }
        }
        let run = ClientRun {
            agent: self.agent,
            status: out.status.code(),
            stdout,
            stderr,
            requests,
            session_id,
            elapsed,
            client_time,
            dir,
        };
        eprintln!(
            "e2e {}: run {} ({:?}) exit {:?} in {:.1} s, {} requests",
            self.agent.name(),
            run.dir.display(),
            opts.prompt,
            run.status,
            elapsed.as_secs_f64(),
            run.requests.len()
        );
        if let Ok(log) = std::fs::read_to_string(&hook_log) {
            eprintln!(
                "e2e {}: hook calls of this run:\n{}",
                self.agent.name(),
                log.trim_end()
            );
        }
        assert!(
            opts.killed || run.status == Some(opts.expect_status),
            "the client did not exit as expected (exit {:?}):\n--- stdout\n{}\n--- stderr\n{}",
            run.status,
            run.stdout,
            run.stderr
        );
        run
    }
}

/// Qwen Code's environment: the sandbox's HOME (its transcripts go to `~/.qwen/projects/`) and
/// the fake server as its OpenAI-compatible endpoint (it uses `OPENAI_*` with no login).
pub fn qwen_env(home: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("OPENAI_BASE_URL", format!("http://127.0.0.1:{PORT}/v1")),
        ("OPENAI_API_KEY", "sk-e2e-fake".into()),
        ("OPENAI_MODEL", QWEN_MODEL.into()),
        ("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1".into()),
        node_options(home),
    ]
}

/// `NODE_OPTIONS` for the Node.js clients (Gemini CLI, Qwen Code): a preload that keeps V8's
/// WebAssembly code on its baseline compiler (`--liftoff-only`). Both parse shell commands with
/// tree-sitter's bash grammar compiled to WebAssembly, and Node 20's optimizing compiler spends
/// seconds of CPU on it in a background thread, which the client's exit then waits for (perf: a
/// third of a Qwen Code run's CPU, in TurboFan's instruction selection for that module). The
/// code does the same either way: the tier decides how fast, never what. The flag is not allowed
/// in `NODE_OPTIONS` itself, so a file given to `--require` sets it; the clients' relaunched
/// child processes inherit the variable. The file goes beside the sandbox's `home`.
pub fn node_options(home: &Path) -> (&'static str, String) {
    let preload = home
        .parent()
        .unwrap_or(home)
        .join("e2e-wasm-baseline-tier.cjs");
    std::fs::write(
        &preload,
        "require('v8').setFlagsFromString('--liftoff-only');\n",
    )
    .expect("write the Node.js preload");
    ("NODE_OPTIONS", format!("--require {}", preload.display()))
}

/// Where Copilot CLI unpacks itself: `copilot-cache` beside the clients' `node_modules`
/// (`<dest>/node_modules/.bin/copilot`).
pub fn copilot_cache(copilot: &Path) -> PathBuf {
    copilot
        .ancestors()
        .nth(3)
        .unwrap_or(Path::new("/tmp"))
        .join("copilot-cache")
}

/// `path` without the directories that hold `handover-session-start`.
pub fn without_handover(path: &str) -> String {
    path.split(':')
        .filter(|d| !Path::new(d).join("handover-session-start").exists())
        .collect::<Vec<_>>()
        .join(":")
}

/// The client's run time recorded by [`NAMESPACE_WRAPPER`]: two nanosecond clock readings.
pub fn client_time(script: &Path) -> Option<Duration> {
    let text = std::fs::read_to_string(script.with_extension("json.time")).ok()?;
    let mut ns = text.split_whitespace().map(|n| n.parse::<u64>().ok());
    let (t0, t1) = (ns.next()??, ns.next()??);
    Some(Duration::from_nanos(t1.checked_sub(t0)?))
}

/// Runs in the namespace: loopback up, the fake server (this test binary in server mode) in the
/// background, wait for its port file, the client under `timeout`, then stop the server.
pub const NAMESPACE_WRAPPER: &str = r#"
ip link set lo up || { echo "e2e: cannot bring loopback up" >&2; exit 90; }
HANDOVER_FAKE_SERVER="$E2E_SCRIPT" "$E2E_SERVER" fake_server_entry --exact --nocapture -q >"$E2E_SCRIPT.server.out" 2>&1 &
spid=$!
i=0
while [ ! -s "$E2E_SCRIPT.port" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
if [ ! -s "$E2E_SCRIPT.port" ]; then echo "e2e: the fake server did not start" >&2; kill $spid 2>/dev/null; exit 91; fi
rc=0
t0=$(date +%s%N)
timeout -k 5 "$E2E_TIMEOUT" "$@" </dev/null || rc=$?
t1=$(date +%s%N)
echo "$t0 $t1" >"$E2E_SCRIPT.time"
kill $spid 2>/dev/null
wait $spid 2>/dev/null
exit $rc
"#;

pub struct RunOpts<'a> {
    pub prompt: &'a str,
    pub resume: Option<String>,
    pub max_turns: u32,
    /// Input tokens the server reports when no turn says otherwise.
    pub default_usage: u64,
    /// More arguments for the client, before the prompt (e.g. Claude Code's `--plugin-dir`).
    pub client_args: Vec<String>,
    /// A directory put first on the client's PATH (e.g. where the plugin finds our hooks).
    pub path_first: Option<PathBuf>,
    /// The run is meant to be killed (SIGKILL): its exit status is not checked.
    pub killed: bool,
    /// Leave out of the client's PATH every directory that holds a handover hook executable
    /// (a machine where handover is not installed, whatever this one has).
    pub without_handover_on_path: bool,
    /// The exit status the client must end with (0 unless a test expects a refusal).
    pub expect_status: i32,
    /// More environment for the client (e.g. Copilot CLI's `COPILOT_PROVIDER_MAX_PROMPT_TOKENS`).
    pub client_env: Vec<(&'static str, String)>,
}

impl<'a> RunOpts<'a> {
    pub fn prompt(prompt: &'a str) -> RunOpts<'a> {
        RunOpts {
            prompt,
            resume: None,
            max_turns: 6,
            default_usage: 1200,
            client_args: Vec::new(),
            path_first: None,
            killed: false,
            without_handover_on_path: false,
            expect_status: 0,
            client_env: Vec::new(),
        }
    }
    pub fn killed(mut self) -> RunOpts<'a> {
        self.killed = true;
        self
    }
    pub fn resume(mut self, id: &str) -> RunOpts<'a> {
        self.resume = Some(id.to_string());
        self
    }
}

/// One finished client run: the client's session against the fake server (its requests,
/// its session id), beside what the process printed.
pub struct ClientRun {
    pub agent: Agent,
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub requests: Vec<LoggedRequest>,
    pub session_id: Option<String>,
    pub elapsed: Duration,
    /// The client's own run, from start to exit, without the namespace and the fake server's
    /// start (timed inside the namespace; None if that record is missing).
    pub client_time: Option<Duration>,
    pub dir: PathBuf,
}

impl ClientRun {
    /// The conversation requests (not compaction, not side requests), in order.
    pub fn conversation(&self) -> Vec<&LoggedRequest> {
        self.requests
            .iter()
            .filter(|r| {
                r.method == "POST" && !r.compaction && !r.side && !r.path.contains("count_tokens")
            })
            .collect()
    }

    /// The conversation requests after `compaction` (one of [`ClientRun::compaction_requests`]).
    pub fn conversation_after(&self, compaction: &LoggedRequest) -> Vec<&LoggedRequest> {
        self.conversation()
            .into_iter()
            .filter(|r| r.n > compaction.n)
            .collect()
    }

    pub fn first_request(&self) -> &LoggedRequest {
        self.conversation()
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no model request in this run:\n{}", self.describe()))
    }

    pub fn compaction_requests(&self) -> Vec<&LoggedRequest> {
        self.requests.iter().filter(|r| r.compaction).collect()
    }

    pub fn session_id(&self) -> String {
        self.session_id
            .clone()
            .unwrap_or_else(|| panic!("no session id in the client's output:\n{}", self.describe()))
    }

    pub fn describe(&self) -> String {
        format!(
            "run dir {} exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.dir.display(),
            self.status,
            self.stdout,
            self.stderr
        )
    }
}
