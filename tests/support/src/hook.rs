//! The hook executables' harness: real git repositories in temp dirs, handoffs stored through
//! the core API, synthetic transcripts, and running a hook binary with a time limit.

use crate::exe::session_start_exe;
use handover_handoff::model::{Content, Handoff, Status};
use handover_handoff::store::Store;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use crate::repo::{Run, TestRepo};

/// What the hook tests need of a repository besides git: its store, a handoff saved through
/// the core API, the journal.
impl TestRepo {
    pub fn store(&self) -> Store {
        Store::at(self.path())
    }

    /// Stores `handoff_content()` as the current handoff, through the core store.
    pub fn save_handoff(&self) -> Handoff {
        self.save(handoff_content())
    }

    pub fn save(&self, content: Content) -> Handoff {
        let mut h = Handoff {
            schema_version: handover_handoff::model::SCHEMA_VERSION,
            id: "h-20261122-0001".into(),
            created_at: "2026-11-22T02:00:00Z".into(),
            git: handover_git::snapshot(self.path()).unwrap(),
            content,
            ..Handoff::default()
        };
        handover_handoff::store::seal(&mut h);
        // What `handover write` stores: a handover.md that is anything else reads as edited.
        self.store()
            .save(&h, &handover_handoff::markdown::render(&h))
            .unwrap();
        h
    }

    pub fn journal_events(&self) -> Vec<serde_json::Value> {
        self.store().journal()
    }

    /// The journal's events of one kind (`"event": name`).
    pub fn journal_events_named(&self, name: &str) -> Vec<serde_json::Value> {
        self.journal_events()
            .into_iter()
            .filter(|e| e["event"] == name)
            .collect()
    }
}

/// What a golden case's repository holds before the first hook runs.
#[derive(Clone, Copy, PartialEq)]
pub enum Setup {
    /// The standard handoff ([`handoff_content`]), fresh.
    Handoff,
    /// No handoff at all.
    Nothing,
    /// The standard handoff, then one more commit: drifted.
    Drifted,
}

impl TestRepo {
    /// A new [`TestRepo::pinned`] repository as `setup` says.
    pub fn set_up(setup: Setup) -> TestRepo {
        let repo = TestRepo::pinned();
        if setup != Setup::Nothing {
            repo.save_handoff();
        }
        if setup == Setup::Drifted {
            repo.write("src/lib.rs", "pub fn f() {}\npub fn g() {}\n");
            repo.commit("Add g");
        }
        repo
    }
}

/// The handoff every golden test delivers.
pub fn handoff_content() -> Content {
    Content {
        goal: "Make the parser accept trailing commas in arrays and objects".into(),
        spec_ref: Some("docs/spec.md#trailing-commas".into()),
        status: Status {
            completed: vec!["Lexer emits COMMA before closing brackets".into()],
            in_progress: vec!["Parser: objects with a trailing comma".into()],
            pending: vec!["Error messages for double commas".into()],
        },
        blockers: vec!["CI runner for Windows is down".into()],
        next_action: Some("Write the failing test for `{\"a\": 1,}` first".into()),
        stop_conditions: vec!["The spec and the tests disagree".into()],
        ..Content::default()
    }
}

/// What the hook tests check of a hook's run.
impl Run {
    /// The hook contract: exit 0, nothing on stderr.
    pub fn assert_clean(&self, what: &str) {
        assert_eq!(self.code, Some(0), "{what}: exit code");
        assert!(
            self.stderr.is_empty(),
            "{what}: stderr: {}",
            String::from_utf8_lossy(&self.stderr)
        );
        assert!(
            self.elapsed < Duration::from_secs(5),
            "{what}: took {:?}",
            self.elapsed
        );
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.stdout)
            )
        })
    }

    /// The additionalContext of a `hookSpecificOutput` answer for `event`.
    pub fn context(&self, event: &str) -> String {
        let v = self.json();
        let out = &v["hookSpecificOutput"];
        assert_eq!(out["hookEventName"], event, "{v}");
        assert_eq!(out.as_object().unwrap().len(), 2, "{v}");
        assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
        out["additionalContext"].as_str().unwrap().to_string()
    }
}

/// Runs a hook binary with `stdin`, from a directory outside any repository, without the
/// debug variable or `$CLAUDE_PROJECT_DIR` unless `env` sets them. Killed after 20 s.
pub fn run_hook(bin: &str, args: &[&str], stdin: Vec<u8>, env: &[(&str, &str)]) -> Run {
    run_hook_in(bin, args, stdin, env, None)
}

/// A hook binary's command as the tests start it: `args`, run in `dir`, without the debug
/// variable or `$CLAUDE_PROJECT_DIR`, its three streams piped (a test may set one otherwise).
/// For a test that drives the process itself; [`run_hook_in`] runs one to its end.
pub fn hook_command(bin: &str, args: &[&str], dir: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .current_dir(dir)
        .env_remove("HANDOVER_HOOK_DEBUG")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

pub fn run_hook_in(
    bin: &str,
    args: &[&str],
    stdin: Vec<u8>,
    env: &[(&str, &str)],
    process_dir: Option<&Path>,
) -> Run {
    let neutral = tempfile::tempdir().unwrap();
    let mut cmd = hook_command(bin, args, process_dir.unwrap_or(neutral.path()));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let mut child_in = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The hook may stop reading early (that is allowed): ignore a broken pipe.
        let _ = child_in.write_all(&stdin);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{bin} did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let _ = writer.join();
    Run {
        code: status.code(),
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
        elapsed,
    }
}

/// A Claude Code transcript whose last main-chain assistant line reports `used` tokens, with a
/// sidechain line after it that reports more (it must be ignored).
pub fn claude_transcript(dir: &Path, used: u64) -> PathBuf {
    let path = dir.join("claude-session.jsonl");
    let cache_read = used.saturating_sub(1000);
    let lines = [
        r#"{"type":"user","message":{"role":"user","content":"fix the parser"},"isSidechain":false}"#.to_string(),
        format!(
            r#"{{"type":"assistant","isSidechain":false,"message":{{"model":"claude-sonnet-4-5-20250929","role":"assistant","content":[{{"type":"text","text":"ok"}}],"usage":{{"input_tokens":600,"cache_creation_input_tokens":400,"cache_read_input_tokens":{cache_read},"output_tokens":50}}}}}}"#
        ),
        r#"{"type":"assistant","isSidechain":true,"message":{"model":"claude-haiku-4-5","usage":{"input_tokens":190000,"output_tokens":5}}}"#.to_string(),
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"done"}]}}"#.to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A Codex rollout whose last token_count reports `used` tokens of `window`, followed by a
/// token_count with null info (it must be skipped).
pub fn codex_transcript(dir: &Path, used: u64, window: u64) -> PathBuf {
    let path = dir.join("rollout-2026-11-22T02-00-00-0199a1b2-c3d4.jsonl");
    let lines = [
        r#"{"timestamp":"2026-11-22T02:00:00.000Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4","cwd":"/w"}}"#.to_string(),
        format!(
            r#"{{"timestamp":"2026-11-22T02:00:01.000Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":999999,"total_tokens":999999}},"last_token_usage":{{"input_tokens":{used},"output_tokens":0,"total_tokens":{used}}},"model_context_window":{window}}},"rate_limits":null}}}}"#
        ),
        r#"{"timestamp":"2026-11-22T02:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}"#.to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A hook payload as JSON bytes.
pub fn payload(v: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

/// What the hooks print for the `handover` command when run from target/ with this process's
/// PATH (see handover_base::handover_command).
pub fn expected_command(hook_bin: &str) -> String {
    handover_base::handover_command::handover_command_in(
        Path::new(hook_bin).parent(),
        std::env::var_os("PATH").as_deref(),
    )
}

/// A hook's text as snapshots pin it: the command it tells the agent to run (the `handover`
/// binary beside the hooks, a path of this build) as `{handover}`, and every UTC timestamp
/// (`2026-11-23T10:00:01Z`, fractions too) as `[TIME]`: the hooks stamp what they record with
/// the clock.
pub fn ours(text: &str) -> String {
    crate::snapshot::mask_times(&text.replace(&expected_command(session_start_exe()), "{handover}"))
}

/// A Gemini CLI transcript (see src/crates/clients/src/gemini.rs) whose last model reply reports `used`
/// input tokens of `gemini-2.5-pro`, followed by the bookkeeping line Gemini CLI writes after it.
pub fn gemini_transcript(dir: &Path, used: u64) -> PathBuf {
    let chats = dir.join(".gemini/tmp/project/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let path = chats.join("session-2026-11-23T16-52-ea3d0851.jsonl");
    let lines = [
        r#"{"sessionId":"ea3d0851","projectHash":"h","startTime":"2026-11-23T16:52:06.452Z","lastUpdated":"2026-11-23T16:52:06.452Z","kind":"main"}"#.to_string(),
        r#"{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"<session_context>"}]}]}}"#.to_string(),
        r#"{"id":"b","type":"user","content":[{"text":"fix the parser"}]}"#.to_string(),
        format!(
            r#"{{"id":"c","type":"gemini","content":"ok","thoughts":[],"tokens":{{"input":{used},"output":10,"cached":0,"thoughts":0,"tool":0,"total":{}}},"model":"gemini-2.5-pro"}}"#,
            used + 10
        ),
        r#"{"$set":{"lastUpdated":"2026-11-23T16:52:07.544Z"}}"#.to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The longest a test waits for a session record's end written after the hook answered.
pub const RECORD_END_WAIT: Duration = Duration::from_secs(3);

/// Waits (at most [`RECORD_END_WAIT`], polling) until the record of `session_id` in the
/// repository at `root` says the session ended (`session_end`) in an update made at or after
/// `since_ms`, and returns it; None when it did not in time, or when the session has no
/// record at all (its hooks never ran: nothing to wait for). GitHub Copilot CLI's SessionEnd
/// is finished by a detached copy of the hook after the client exits (hooks/src/call/detach.rs), so
/// whoever reads that record right after the client exits waits for it here.
pub fn wait_for_record_end(
    root: &Path,
    session_id: &str,
    since_ms: u64,
) -> Option<handover_record::SessionRecord> {
    let store = Store::discover(root);
    let until = Instant::now() + RECORD_END_WAIT;
    loop {
        let record = handover_record::files::load(&store, session_id)?;
        let ended = record
            .ended
            .as_ref()
            .is_some_and(|e| e.how == handover_record::HowEnded::SessionEnd);
        if ended && record.updated_ms >= since_ms {
            return Some(record);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
