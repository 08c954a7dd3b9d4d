//! The hooks as Gemini CLI runs them (`--agent gemini`, its event names, its transcript):
//! startup context at SessionStart, the context watch on BeforeAgent / AfterTool / AfterAgent
//! with thresholds below Gemini's own compression point (50 % by default, or the
//! `model.compressionThreshold` the user set), and PreCompress, which Gemini fires before every
//! request, acting only before a real compression and re-injecting the handoff after it.

use crate::support::exe::{context_watch_exe, pre_compact_exe, session_start_exe};
use crate::support::hook::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// gemini-2.5-pro's window in Gemini CLI 0.61.0.
const WINDOW: u64 = 1_048_576;

struct Session {
    repo: TestRepo,
    tdir: tempfile::TempDir,
}

impl Session {
    fn new() -> Session {
        let repo = TestRepo::pinned();
        repo.save_handoff();
        Session {
            repo,
            tdir: tempfile::tempdir().unwrap(),
        }
    }

    /// The transcript with the last reply at `permille` ‰ of the window.
    fn fill(&self, permille: u64) -> PathBuf {
        gemini_transcript(self.tdir.path(), WINDOW * permille / 1000)
    }

    fn send(&self, bin: &str, event: &str, extra: Value, transcript: &Path) -> Run {
        let mut v = json!({
            "session_id": "gem-session-1",
            "cwd": self.repo.path().to_str().unwrap(),
            "transcript_path": transcript.to_str().unwrap(),
            "hook_event_name": event,
            "timestamp": "2026-11-23T16:52:06.454Z",
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        let run = run_hook(bin, &["--agent", "gemini"], payload(v), &[]);
        run.assert_clean(event);
        run
    }

    fn start(&self) -> Run {
        let t = self.fill(10);
        self.send(
            session_start_exe(),
            "SessionStart",
            json!({"source": "startup"}),
            &t,
        )
    }

    fn events(&self, name: &str) -> Vec<Value> {
        self.repo.journal_events_named(name)
    }
}

#[test]
fn session_start_answers_in_gemini_form() {
    let s = Session::new();
    let run = s.start();
    let text = run.context("SessionStart");
    // Gemini CLI escapes `<` and `>` of every hook's context (docs/hooks.md): the markers hold
    // neither, so they reach the model as printed here.
    insta::assert_snapshot!("session_start", ours(&text));
    let delivered = s.events("delivered");
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["agent"], "gemini");
}

/// Gemini CLI drops the `additionalContext` of SessionStart `clear` (and of an interactive
/// `resume`): that SessionStart says nothing and journals nothing; the next prompt carries the
/// startup context, journaled once with the SessionStart's source; the prompt after it nothing.
#[test]
fn clear_and_resume_deliver_on_the_next_prompt() {
    for source in ["clear", "resume"] {
        let s = Session::new();
        let t = s.fill(10);
        let run = s.send(
            session_start_exe(),
            "SessionStart",
            json!({"source": source}),
            &t,
        );
        assert!(run.stdout.is_empty(), "{source}: {}", run.stdout_str());
        assert!(s.events("delivered").is_empty(), "{source}");
        let run = s.send(
            context_watch_exe(),
            "BeforeAgent",
            json!({"prompt": "go on"}),
            &t,
        );
        let text = run.context("BeforeAgent");
        insta::assert_snapshot!(format!("before_agent_after_{source}"), ours(&text));
        let delivered = s.events("delivered");
        assert_eq!(delivered.len(), 1, "{source}");
        assert_eq!(delivered[0]["source"], source);
        let run = s.send(
            context_watch_exe(),
            "BeforeAgent",
            json!({"prompt": "more"}),
            &t,
        );
        assert!(run.stdout.is_empty(), "{source}: {}", run.stdout_str());
        assert_eq!(s.events("delivered").len(), 1, "{source}");
    }
}

#[test]
fn reminders_come_below_geminis_compression_point() {
    let s = Session::new();
    s.start();
    // 34 %: below the Gemini reminder threshold (35 %), though Claude's 60 % is far away too.
    let run = s.send(
        context_watch_exe(),
        "BeforeAgent",
        json!({"prompt": "go on"}),
        &s.fill(340),
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout_str());
    // 36 %: the reminder, once, as BeforeAgent context.
    let t = s.fill(360);
    let run = s.send(
        context_watch_exe(),
        "AfterTool",
        json!({"tool_name": "x"}),
        &t,
    );
    let text = run.context("AfterTool");
    insta::assert_snapshot!("remind_36_after_tool", ours(&text));
    let run = s.send(
        context_watch_exe(),
        "AfterTool",
        json!({"tool_name": "x"}),
        &t,
    );
    assert!(run.stdout.is_empty(), "said twice: {}", run.stdout_str());
    // 46 %: the firmer one; AfterAgent is never blocked (Gemini CLI shows any block as "This
    // request failed"): the next prompt carries one more ask, once.
    let t = s.fill(460);
    let run = s.send(
        context_watch_exe(),
        "BeforeAgent",
        json!({"prompt": "more"}),
        &t,
    );
    insta::assert_snapshot!("insist_46_before_agent", ours(&run.context("BeforeAgent")));
    let stop = json!({"prompt": "more", "prompt_response": "done", "stop_hook_active": false});
    let run = s.send(context_watch_exe(), "AfterAgent", stop.clone(), &t);
    assert!(
        run.stdout.is_empty(),
        "AfterAgent blocked: {}",
        run.stdout_str()
    );
    let run = s.send(
        context_watch_exe(),
        "BeforeAgent",
        json!({"prompt": "next"}),
        &t,
    );
    insta::assert_snapshot!(
        "asked_again_46_before_agent",
        ours(&run.context("BeforeAgent"))
    );
    let run = s.send(context_watch_exe(), "AfterAgent", stop, &t);
    assert!(
        run.stdout.is_empty(),
        "AfterAgent blocked: {}",
        run.stdout_str()
    );
    let run = s.send(
        context_watch_exe(),
        "BeforeAgent",
        json!({"prompt": "again"}),
        &t,
    );
    assert!(run.stdout.is_empty(), "asked twice: {}", run.stdout_str());
    let actions: Vec<String> = s
        .events("context_watch")
        .iter()
        .map(|e| e["action"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(actions, ["reminded", "insisted", "asked_again"]);
}

#[test]
fn a_later_compression_point_in_the_project_settings_moves_the_thresholds_back() {
    let s = Session::new();
    s.repo.write(
        ".gemini/settings.json",
        "{\n  \"model\": {\n    \"compressionThreshold\": 0.9\n  }\n}\n",
    );
    s.start();
    let run = s.send(
        context_watch_exe(),
        "BeforeAgent",
        json!({"prompt": "go"}),
        &s.fill(460),
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout_str());
    let run = s.send(
        context_watch_exe(),
        "BeforeAgent",
        json!({"prompt": "go"}),
        &s.fill(610),
    );
    insta::assert_snapshot!("remind_after_the_block", ours(&run.context("BeforeAgent")));
}

#[test]
fn pre_compress_acts_only_before_a_real_compression_and_the_handoff_comes_back_after() {
    let s = Session::new();
    s.start();
    // Gemini CLI fires PreCompress before every request: below its 50 % nothing happens.
    let run = s.send(
        pre_compact_exe(),
        "PreCompress",
        json!({"trigger": "auto"}),
        &s.fill(490),
    );
    assert!(run.stdout.is_empty());
    assert!(
        s.events("pre_compact").is_empty(),
        "{:?}",
        s.events("pre_compact")
    );
    // At 52 % it compresses: the snapshot is journaled, nothing is printed (advisory event).
    let t = s.fill(520);
    let run = s.send(
        pre_compact_exe(),
        "PreCompress",
        json!({"trigger": "auto"}),
        &t,
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout_str());
    let snaps = s.events("pre_compact");
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    assert_eq!(snaps[0]["trigger"], "auto");
    assert_eq!(snaps[0]["agent"], "gemini");
    // Gemini CLI compresses: it rewrites the history in the transcript (as captured from 0.61.0).
    let mut text = std::fs::read_to_string(&t).unwrap();
    text.push_str("{\"$set\":{\"sessionId\":\"ea3d0851\"}}\n{\"$set\":{\"messages\":[]}}\n");
    std::fs::write(&t, text).unwrap();
    // It tells hooks nothing after compressing: the next hook that can carry context does.
    let run = s.send(
        context_watch_exe(),
        "AfterTool",
        json!({"tool_name": "x"}),
        &t,
    );
    let text = run.context("AfterTool");
    insta::assert_snapshot!("reinjection_after_compression", ours(&text));
    let run = s.send(
        context_watch_exe(),
        "AfterTool",
        json!({"tool_name": "x"}),
        &t,
    );
    assert!(
        run.stdout.is_empty(),
        "re-injected twice: {}",
        run.stdout_str()
    );
    // `/compress` (manual) always compresses.
    let run = s.send(
        pre_compact_exe(),
        "PreCompress",
        json!({"trigger": "manual"}),
        &s.fill(100),
    );
    assert!(run.stdout.is_empty());
    assert_eq!(s.events("pre_compact").len(), 2);
}
