//! `handover-context-watch`: UserPromptSubmit, PostToolUse and Stop in Claude Code and Codex;
//! their Gemini CLI counterparts BeforeAgent, AfterTool and AfterAgent (see gemini.rs for its
//! transcript and its thresholds).
//!
//! 1. Fallbacks (prompt and tool events): the re-injection armed by PostCompact when
//!    SessionStart `compact` did not deliver; the startup context on the first prompt of a
//!    session whose SessionStart never came.
//! 2. The watch: how full the context is, from the transcript's tail. At the first threshold
//!    (default 60 %) a save-progress reminder, once; at the second (75 %) a firmer one, once;
//!    on Stop above the second, one block. Nothing once a handoff has been written since the
//!    session began (or since the last compaction), nothing at all below the threshold.

use crate::call::Call;
use crate::gemini;
use crate::never_fail::Outcome;
use crate::output::{ContextEvent, Response};
use crate::session_state::millis;
use crate::startup;
use crate::transcript::{self, Fullness};
use crate::window;
use handover_base::Agent;
use handover_core::context::{save_progress, Pressure};
use handover_core::store::Store;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Event {
    Prompt,
    Tool,
    Stop,
}

impl Event {
    fn from_name(name: Option<&str>) -> Option<Event> {
        match name? {
            "UserPromptSubmit" | "BeforeAgent" => Some(Event::Prompt),
            "PostToolUse" | "AfterTool" => Some(Event::Tool),
            "Stop" | "AfterAgent" => Some(Event::Stop),
            _ => None,
        }
    }

    /// The answer's event name, in the agent's own vocabulary.
    fn context_event(self, agent: Agent) -> Option<ContextEvent> {
        match (self, agent) {
            (Event::Prompt, Agent::Gemini) => Some(ContextEvent::BeforeAgent),
            (Event::Tool, Agent::Gemini) => Some(ContextEvent::AfterTool),
            (Event::Prompt, _) => Some(ContextEvent::UserPromptSubmit),
            (Event::Tool, _) => Some(ContextEvent::PostToolUse),
            (Event::Stop, _) => None,
        }
    }
}

/// How full the context is, from the agent's transcript.
fn read_fullness(agent: Agent, transcript: &Path) -> Option<Fullness> {
    match agent {
        Agent::Gemini => gemini::read_transcript(transcript),
        Agent::Claude | Agent::Codex => transcript::read(transcript),
    }
}

/// The (remind, insist) thresholds: the configured ones, moved below Gemini CLI's own
/// compression point for Gemini.
fn thresholds(call: &Call, store: &Store, remind: u8, insist: u8) -> (u8, u8) {
    match call.agent {
        Agent::Gemini => {
            let point = gemini::compression_threshold(Some(store.root()));
            gemini::thresholds(remind, insist, gemini::compress_percent(point))
        }
        Agent::Claude | Agent::Codex => (remind, insist),
    }
}

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    let Some(event) = Event::from_name(call.input.hook_event_name.as_deref()) else {
        return Ok(Outcome::silent(format!(
            "not a watched event: {}",
            call.input.hook_event_name.as_deref().unwrap_or("none")
        )));
    };
    let Some(store) = &call.store else {
        return Ok(Outcome::silent("no directory"));
    };
    // Everything below is remembered per session: without an id, say nothing rather than
    // repeat a reminder on every tool call.
    let Some((file, loaded)) = call.session() else {
        return Ok(Outcome::silent("no session id"));
    };
    let now = call.now_ms;
    let mut st = loaded.state;
    st.agent = Some(call.agent.as_str().into());
    let fullness = call.input.transcript_path.as_deref().map(|p| {
        wait_for_this_turn(call, event, Path::new(p));
        read_fullness(call.agent, Path::new(p))
    });

    if let Some(ctx_event) = event.context_event(call.agent) {
        if st.reinjection_armed_ms.take().is_some() {
            let delivered = startup::build(store, &call.command, true);
            if delivered.is_some() {
                st.compact_delivered_ms = Some(now);
                st.startup_delivered_ms = Some(now);
            }
            // Unless the disarming is recorded, the context would come back on every call.
            if let Err(e) = file.save(&st) {
                return Ok(Outcome::silent(format!("re-injection not disarmed: {e}")));
            }
            if let Some(d) = delivered {
                let journal = startup::record(call, &d, "compact_fallback");
                return Ok(deliver(
                    ctx_event,
                    d.text,
                    "re-injected after compaction",
                    [journal],
                ));
            }
        }
        let first_prompt =
            event == Event::Prompt && !loaded.existed && !matches!(fullness, Some(Some(_)));
        if first_prompt {
            let delivered = startup::build(store, &call.command, false);
            if delivered.is_some() {
                st.startup_delivered_ms = Some(now);
                st.startup_via_fallback = true;
            }
            let mut saved = None;
            if delivered.is_some() || call.store_usable() {
                saved = file
                    .save(&st)
                    .err()
                    .map(|e| format!("state not saved: {e}"));
            }
            if let Some(d) = delivered {
                let journal = startup::record(call, &d, "first_prompt_fallback");
                return Ok(deliver(
                    ctx_event,
                    d.text,
                    "startup context on the first prompt",
                    [saved, journal],
                ));
            }
        }
    }

    let usage = match fullness {
        Some(Some(Fullness::Measured(u))) => u,
        Some(Some(Fullness::JustCompacted)) => return Ok(Outcome::silent("just compacted")),
        Some(None) => return Ok(Outcome::silent("no usage in the transcript")),
        None => return Ok(Outcome::silent("no transcript")),
    };
    let config = handover_core::config::load(store.root()).unwrap_or_default();
    let model = usage.model.as_deref().or(call.input.model.as_deref());
    let window = window::resolve(
        usage.window,
        model,
        config.context_window,
        usage.used_tokens,
    );
    let percent = window::percent(usage.used_tokens, window);
    let measured = format!("{percent}% of {window} ({} tokens)", usage.used_tokens);
    let (remind_percent, insist_percent) =
        thresholds(call, store, config.remind_percent, config.insist_percent);
    let pressure = if percent >= insist_percent {
        Pressure::Insist
    } else if percent >= remind_percent {
        Pressure::Remind
    } else {
        return Ok(Outcome::silent(measured));
    };
    if handoff_written_since(store, st.epoch_start_ms) {
        return Ok(Outcome::silent(format!(
            "{measured}; handoff written since"
        )));
    }
    st.last_percent = Some(percent);

    let (response, action) = match event.context_event(call.agent) {
        None => {
            let block = pressure == Pressure::Insist
                && !call.input.stop_hook_active
                && st.stop_blocked_ms.is_none();
            if !block {
                return Ok(Outcome::silent(format!("{measured}; stop not blocked")));
            }
            st.stop_blocked_ms = Some(now);
            (
                Response::Block {
                    reason: save_progress(Pressure::Insist, percent, &call.command),
                },
                "stop_blocked",
            )
        }
        Some(ctx_event) => {
            let due = match pressure {
                Pressure::Insist => st.insisted_ms.is_none(),
                Pressure::Remind => st.reminded_ms.is_none(),
            };
            if !due {
                return Ok(Outcome::silent(format!("{measured}; already said")));
            }
            if pressure == Pressure::Insist {
                st.insisted_ms = Some(now);
            }
            // Past the second threshold, the first one is spent too.
            st.reminded_ms.get_or_insert(now);
            (
                Response::Context {
                    event: ctx_event,
                    text: save_progress(pressure, percent, &call.command),
                },
                match pressure {
                    Pressure::Remind => "reminded",
                    Pressure::Insist => "insisted",
                },
            )
        }
    };
    // Remember before answering: a reminder the state cannot record would repeat on every
    // call, so a failed save means staying silent.
    if let Err(e) = file.save(&st) {
        return Ok(Outcome::silent(format!("{measured}; state not saved: {e}")));
    }
    let journal = call.journal(
        handover_core::store::Event::ContextWatch,
        json!({"action": action, "percent": percent, "used_tokens": usage.used_tokens, "window": window}),
    );
    let mut note = format!("{measured}; {action}");
    if let Some(j) = journal {
        note.push_str(&format!("; {j}"));
    }
    Ok(Outcome::new(response, note))
}

/// state.json modified at or after `since_ms`: the agent saved its progress.
fn handoff_written_since(store: &Store, since_ms: u64) -> bool {
    std::fs::metadata(store.state_path())
        .and_then(|m| m.modified())
        .map(|t| millis(t) >= since_ms)
        .unwrap_or(false)
}

fn deliver<const N: usize>(
    event: ContextEvent,
    text: String,
    what: &str,
    problems: [Option<String>; N],
) -> Outcome {
    let mut note = what.to_string();
    for p in problems.into_iter().flatten() {
        note.push_str("; ");
        note.push_str(&p);
    }
    Outcome::new(Response::Context { event, text }, note)
}

/// Longest wait for Claude Code to write this turn's line (it lags 10-50 ms, measured).
const TRANSCRIPT_LAG_MAX: Duration = Duration::from_millis(500);

/// Claude Code starts PostToolUse and Stop hooks before it appends the turn to its transcript;
/// without this wait the watch measures the previous request and reminds one request late.
/// Waits for the line that names this tool call, or holds the final answer.
fn wait_for_this_turn(call: &Call, event: Event, transcript: &Path) {
    if call.agent != handover_base::Agent::Claude {
        return;
    }
    let needle = match event {
        Event::Tool => call.input.tool_use_id.clone(),
        Event::Stop => call
            .input
            .last_assistant_message
            .as_deref()
            .and_then(answer_needle),
        Event::Prompt => None,
    };
    if let Some(n) = needle {
        transcript::wait_for(transcript, &n, TRANSCRIPT_LAG_MAX);
    }
}

/// A prefix of the answer as it appears inside the transcript's JSON: escaped like a JSON
/// string, cut before the first escape (clients may escape differently), at most 60
/// characters. None when too short to be a reliable match.
fn answer_needle(answer: &str) -> Option<String> {
    let escaped = serde_json::to_string(answer).ok()?;
    let inner = escaped.trim_start_matches('"');
    let plain: String = inner
        .chars()
        .take_while(|c| *c != '\\' && *c != '"')
        .take(60)
        .collect();
    (plain.chars().count() >= 8).then_some(plain)
}

#[cfg(test)]
mod lag_tests {
    use super::answer_needle;

    #[test]
    fn answer_needle_is_the_plain_prefix_of_the_escaped_answer() {
        assert_eq!(
            answer_needle("Done: all tests pass.").as_deref(),
            Some("Done: all tests pass.")
        );
        // Cut before the first escape: a newline or a quote is escaped in the transcript.
        assert_eq!(
            answer_needle("Finished the parser\nnext").as_deref(),
            Some("Finished the parser")
        );
        assert_eq!(answer_needle(&"x".repeat(100)).map(|n| n.len()), Some(60));
        assert_eq!(answer_needle("ok"), None, "too short to match reliably");
        assert_eq!(
            answer_needle("\"quoted\" start"),
            None,
            "nothing before the first escape"
        );
    }
}
