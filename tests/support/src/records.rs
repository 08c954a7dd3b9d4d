//! What the clients recorded about our hooks: hook errors in Claude Code's transcripts and in
//! Codex's output.

use super::*;

impl Sandbox {
    /// Hook errors the client recorded anywhere in this sandbox: Claude Code's transcripts
    /// (`hook_non_blocking_error` / `hook_blocking_error` attachments, non-empty `hookErrors`),
    /// Codex's output (`hook: <Event> Failed`, warnings about a hook's `timeout`) of the given runs.
    pub fn hook_errors(&self, runs: &[&ClientRun]) -> Vec<String> {
        let mut errors = Vec::new();
        match self.agent {
            Agent::Claude => {
                // The context watch's deliberate Stop block is recorded as a "blocking error"
                // whose text is our save-progress instruction: that one is not a failure.
                let deliberate = |text: &str| text.starts_with("handover: ");
                for line in self.claude_transcript_lines() {
                    let attachment_type = line
                        .pointer("/attachment/type")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let block_text = line
                        .pointer("/attachment/blockingError/blockingError")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let stop_block = attachment_type == "hook_blocking_error"
                        && line
                            .pointer("/attachment/hookEvent")
                            .and_then(Value::as_str)
                            == Some("Stop")
                        && deliberate(block_text);
                    if attachment_type.starts_with("hook_")
                        && attachment_type.contains("error")
                        && !stop_block
                    {
                        errors.push(line.to_string());
                    }
                    let summary_errors = line.get("hookErrors").and_then(Value::as_array);
                    if summary_errors
                        .is_some_and(|e| e.iter().any(|x| !deliberate(x.as_str().unwrap_or(""))))
                    {
                        errors.push(line.to_string());
                    }
                }
            }
            Agent::Droid => errors.extend(droid::hook_errors(&self.home)),
            Agent::Gemini | Agent::Qwen => {
                // Gemini CLI reports a failed hook as "Hook(s) [<command>] failed for event
                // <Event>" (a warning, on stderr in non-interactive mode); Qwen Code, its fork,
                // in the same words.
                for run in runs {
                    for l in run.stderr.lines().chain(run.stdout.lines()) {
                        if l.contains("failed for event") || l.contains("Hook execution failed") {
                            errors.push(l.to_string());
                        }
                    }
                }
            }
            Agent::Copilot => {
                // Copilot CLI records every hook call in the session's events.jsonl as a
                // `hook.end` event; a failed one has `success: false`.
                for line in self.copilot_event_lines() {
                    if line.get("type").and_then(Value::as_str) == Some("hook.end")
                        && line.pointer("/data/success").and_then(Value::as_bool) == Some(false)
                    {
                        errors.push(line.to_string());
                    }
                }
            }
            Agent::Codex => {
                for run in runs {
                    for l in run.stderr.lines().chain(run.stdout.lines()) {
                        // A failed hook, or a warning about our hook definitions (Codex 0.169.0
                        // warns "clamping SessionEnd hook timeout to 3s in <hooks.json>" at every
                        // start when a SessionEnd handler asks for more).
                        if (l.starts_with("hook: ") && l.ends_with(" Failed"))
                            || l.contains("hook timeout")
                        {
                            errors.push(l.to_string());
                        }
                    }
                }
            }
        }
        errors
    }

    /// Every line of every Copilot CLI session's `events.jsonl` in this sandbox's HOME.
    pub fn copilot_event_lines(&self) -> Vec<Value> {
        let mut lines = Vec::new();
        let Ok(dirs) = std::fs::read_dir(self.home.join(".copilot/session-state")) else {
            return lines;
        };
        for d in dirs.flatten() {
            if let Ok(text) = std::fs::read_to_string(d.path().join("events.jsonl")) {
                lines.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
            }
        }
        lines
    }

    /// Every line of every Claude Code transcript in this sandbox's HOME.
    pub fn claude_transcript_lines(&self) -> Vec<Value> {
        let mut lines = Vec::new();
        let projects = self.home.join(".claude/projects");
        let Ok(dirs) = std::fs::read_dir(&projects) else {
            return lines;
        };
        for d in dirs.flatten() {
            let Ok(files) = std::fs::read_dir(d.path()) else {
                continue;
            };
            for f in files.flatten() {
                if f.path().extension().is_some_and(|e| e == "jsonl") {
                    if let Ok(text) = std::fs::read_to_string(f.path()) {
                        lines.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
                    }
                }
            }
        }
        lines
    }
}
