//! How full the context is, from what the client has ALREADY written: one read, never a wait.
//!
//! Each client keeps its own record of the usage its model reported; its handover_clients
//! module reads it (`Behaviour::transcript_fullness`). Codex writes its usage record before it
//! runs PostToolUse and Gemini CLI its reply before the next hook, so their figure is current. Claude Code may start
//! PostToolUse and Stop hooks before it appends the response that triggered them, so there the
//! figure can be the previous response's: one request late. docs/hooks.md ("When the
//! measurement is taken") says why that is safe; the alternative, polling until the line
//! appears, cost every tool call about 60 ms inside the real client.

use crate::call::Call;
use crate::state::transcript;
use crate::state::window;
use handover_clients::transcript::{Fullness, Usage};
use std::path::Path;

/// What the client's records say about the context right now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The input names no transcript.
    NoTranscript,
    /// Nothing to measure yet: no model response recorded (a new session), or unreadable.
    NoUsage,
    /// The context was compacted after the last usage record: nearly empty, no figure yet.
    JustCompacted,
    Used(Usage),
}

impl Fill {
    /// The client has recorded a model response (or a compaction) in this session.
    pub fn has_record(&self) -> bool {
        matches!(self, Fill::Used(_) | Fill::JustCompacted)
    }
}

pub fn fill(call: &Call) -> Fill {
    let Some(path) = call.input.transcript_path.as_deref() else {
        return Fill::NoTranscript;
    };
    match transcript::read(Path::new(path), call.client()) {
        None => Fill::NoUsage,
        Some(Fullness::JustCompacted) => Fill::JustCompacted,
        Some(Fullness::Measured(u)) => Fill::Used(u),
    }
}

/// A usage set against the window it fills.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    pub used_tokens: u64,
    pub window: u64,
    pub percent: u8,
}

impl Reading {
    /// For the debug log: `62% of 200000 (124000 tokens)`.
    pub fn describe(&self) -> String {
        format!(
            "{}% of {} ({} tokens)",
            self.percent, self.window, self.used_tokens
        )
    }
}

/// The window: where the client's settings say it compacts (`Behaviour::compaction_window`),
/// else what the transcript states, else the model's (the transcript's, else the input's),
/// else the configured one (window.rs).
pub fn reading(call: &Call, usage: &Usage, configured_window: Option<u64>) -> Reading {
    let model = usage.model.as_deref().or(call.input.model.as_deref());
    let client = call.client();
    let user_dir = client.user_dir(&handover_clients::UserDirs::from_env());
    let stated = client
        .behaviour
        .compaction_window(user_dir.as_deref(), model)
        .or(usage.window);
    let window = window::resolve(stated, model, configured_window, usage.used_tokens);
    Reading {
        used_tokens: usage.used_tokens,
        window,
        percent: window::percent(usage.used_tokens, window),
    }
}
