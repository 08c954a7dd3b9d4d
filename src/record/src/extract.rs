//! Facts from a transcript, read incrementally: from the offset where the last update stopped to
//! the last complete line. The cost of an update depends on what was appended since the last
//! one, never on the size of the file. Both formats are internal to their clients: unknown,
//! broken and partial lines are skipped.
//!
//! Claude Code (JSONL, one line per message): user lines carry the requests (`message.content`
//! as a string or `text` items) and the tool results (`tool_result` items with `tool_use_id`
//! and `is_error`); assistant lines carry text and `tool_use` items (`Write`, `Edit`,
//! `MultiEdit`, `NotebookEdit` with `file_path`/`notebook_path`; `Bash` with `command`); a
//! `system` line of subtype `compact_boundary` marks a compaction. Sidechains (subagents) and
//! meta lines are not the session's own conversation and are skipped.
//!
//! Codex (rollout JSONL): `event_msg` / `item_completed` items: `UserMessage`, `AgentMessage`,
//! `CommandExecution` (`command` argv, `exit_code`), `FileChange` (`changes` by path); a
//! `custom_tool_call` or `function_call` named `apply_patch` names its files in the patch
//! (`*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`); a top-level
//! `compacted` line marks a compaction.
//!
//! Gemini CLI (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, see hooks/src/gemini.rs): a
//! header line per run, `{"$set": ...}` updates, and one line per message: `type` `user`
//! (`content` text items are requests) or `gemini` (`content` its text, `toolCalls` with
//! `id`, `name`, `args`, `status` and `result`). A reply is written again when its tool calls
//! complete, so each completed call is applied once, by its id. `run_shell_command` gives the
//! command (`args.command`) and its end (`Exit Code: N` in the result when it failed, else
//! the call's `status`); `write_file` and `replace` name a file (`args.file_path`). `$set`
//! `messages` rewrites (a resume, a compression) repeat history already read and are skipped.

use super::Fact;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most read in one update. More appended at once (hooks installed in the middle of a
/// long session, a record deleted) is skipped, oldest first, and counted in the record.
pub const MAX_READ: u64 = 16 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Claude,
    Codex,
    Gemini,
}

impl Format {
    /// The transcript format of an agent (`claude`, `codex`, `gemini`); None for one whose
    /// transcripts are not read.
    pub fn of_agent(agent: &str) -> Option<Format> {
        match agent {
            "claude" => Some(Format::Claude),
            "codex" => Some(Format::Codex),
            "gemini" => Some(Format::Gemini),
            _ => None,
        }
    }
}

#[derive(Debug, Default, PartialEq)]
pub struct Update {
    pub facts: Vec<Fact>,
    /// Where the next update starts: just after the last complete line read.
    pub offset: u64,
    /// Bytes skipped because more than `MAX_READ` were appended.
    pub skipped: u64,
    /// The file is shorter than the offset: it was replaced, and was read from its start.
    pub restarted: bool,
}

/// Reads the complete lines appended to `path` since `offset`. `root` makes the paths of
/// edited files inside the repository relative to it.
pub fn read_from(
    path: &Path,
    offset: u64,
    format: Format,
    root: Option<&Path>,
) -> std::io::Result<Update> {
    // Through the read gate: a FIFO named as the transcript is refused at once instead of
    // blocking the hook (the client names the file, so a link is followed to a regular file).
    let mut file = handover_base::read_gate::open(path, handover_base::read_gate::Links::Follow)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    let len = file.metadata()?.len();
    let mut update = Update {
        offset,
        ..Update::default()
    };
    let mut start = offset;
    if len < offset {
        update.restarted = true;
        start = 0;
    }
    let mut first_line_cut = false;
    if len - start > MAX_READ {
        let from = len - MAX_READ;
        update.skipped = from - start;
        start = from;
        first_line_cut = true;
    }
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    file.take(len - start).read_to_end(&mut buf)?;
    let Some(last_newline) = buf.iter().rposition(|&b| b == b'\n') else {
        // No complete line yet (or one longer than MAX_READ: it is skipped once complete).
        update.offset = start;
        return Ok(update);
    };
    update.offset = start + last_newline as u64 + 1;
    let mut lines = buf[..last_newline].split(|&b| b == b'\n');
    if first_line_cut {
        if let Some(cut) = lines.next() {
            update.skipped += cut.len() as u64 + 1;
        }
    }
    for line in lines {
        facts_of_line(line, format, root, &mut update.facts);
    }
    Ok(update)
}

/// The facts one transcript line holds (none for most lines).
pub fn facts_of_line(line: &[u8], format: Format, root: Option<&Path>, out: &mut Vec<Fact>) {
    // Most lines are request snapshots, attachments and usage records: a substring test spares
    // parsing them. The clients write compact JSON; the spaced form is accepted too.
    let markers: &[&str] = match format {
        Format::Claude => &[
            "\"type\":\"user\"",
            "\"type\":\"assistant\"",
            "\"type\": \"user\"",
            "\"type\": \"assistant\"",
            "compact_boundary",
        ],
        Format::Codex => &["item_completed", "apply_patch", "\"compacted\""],
        Format::Gemini => &[
            "\"type\":\"user\"",
            "\"type\":\"gemini\"",
            "\"type\": \"user\"",
            "\"type\": \"gemini\"",
        ],
    };
    // A line that is not UTF-8 is not valid JSON either.
    let Ok(text) = std::str::from_utf8(line) else {
        return;
    };
    if !markers.iter().any(|m| text.contains(m)) {
        return;
    }
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return;
    };
    match format {
        Format::Claude => claude(&v, root, out),
        Format::Codex => codex(&v, root, out),
        Format::Gemini => gemini(&v, root, out),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn claude(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    if flag(v, "isSidechain") || flag(v, "isMeta") || flag(v, "isCompactSummary") {
        return;
    }
    let kind = str_of(v, "type").unwrap_or("");
    if !matches!(kind, "user" | "assistant" | "system") {
        return;
    }
    if kind == "system" {
        if str_of(v, "subtype") == Some("compact_boundary") {
            at(v, out);
            out.push(Fact::Compacted);
        }
        return;
    }
    let Some(message) = v.get("message") else {
        return;
    };
    if kind == "assistant" && str_of(message, "model") == Some("<synthetic>") {
        return;
    }
    at(v, out);
    let content = message.get("content");
    if kind == "user" {
        if let Some(text) = content.and_then(Value::as_str) {
            request(text, out);
        }
        for item in content.and_then(Value::as_array).into_iter().flatten() {
            match str_of(item, "type") {
                Some("text") => request(str_of(item, "text").unwrap_or(""), out),
                Some("tool_result") => {
                    let Some(id) = str_of(item, "tool_use_id") else {
                        continue;
                    };
                    let failed = flag(item, "is_error");
                    out.push(Fact::CommandResult {
                        id: id.to_string(),
                        failed,
                        exit_code: if failed {
                            exit_code_of(&result_text(item))
                        } else {
                            Some(0)
                        },
                    });
                }
                _ => {}
            }
        }
        return;
    }
    let mut last_text = None;
    for item in content.and_then(Value::as_array).into_iter().flatten() {
        match str_of(item, "type") {
            Some("text") => {
                last_text = str_of(item, "text").filter(|t| !t.trim().is_empty());
            }
            Some("tool_use") => {
                let input = item.get("input").unwrap_or(&Value::Null);
                match str_of(item, "name").unwrap_or("") {
                    "Write" | "Edit" | "MultiEdit" => {
                        if let Some(p) = str_of(input, "file_path") {
                            out.push(Fact::Edited(relative(p, root)));
                        }
                    }
                    "NotebookEdit" => {
                        if let Some(p) = str_of(input, "notebook_path") {
                            out.push(Fact::Edited(relative(p, root)));
                        }
                    }
                    "Bash" => {
                        if let (Some(id), Some(cmd)) =
                            (str_of(item, "id"), str_of(input, "command"))
                        {
                            out.push(Fact::CommandCalled {
                                id: id.to_string(),
                                command: cmd.to_string(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if let Some(t) = last_text {
        out.push(Fact::AgentMessage(t.to_string()));
    }
}

/// A user text that the user typed, not one the client wrapped around a slash command, a
/// local command's output or a reminder.
fn request(text: &str, out: &mut Vec<Fact>) {
    const CLIENT_WRAPPERS: [&str; 6] = [
        "<command-",
        "<local-command-",
        "<system-reminder>",
        "<bash-",
        "<user-prompt-submit-hook>",
        "[Request interrupted",
    ];
    let t = text.trim_start();
    if t.is_empty() || CLIENT_WRAPPERS.iter().any(|w| t.starts_with(w)) {
        return;
    }
    out.push(Fact::Request(text.to_string()));
}

/// The text of a tool result: a string, or the `text` of its items.
fn result_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::String(s)) => s.chars().take(200).collect(),
        Some(Value::Array(parts)) => parts
            .iter()
            .find_map(|p| str_of(p, "text"))
            .unwrap_or("")
            .chars()
            .take(200)
            .collect(),
        _ => String::new(),
    }
}

/// Claude Code starts a failed command's result with `Exit code N`.
fn exit_code_of(text: &str) -> Option<i64> {
    let rest = text.trim_start().strip_prefix("Exit code ")?;
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

fn at(v: &Value, out: &mut Vec<Fact>) {
    if let Some(t) = str_of(v, "timestamp") {
        out.push(Fact::At(t.to_string()));
    }
}

fn codex(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let kind = str_of(v, "type").unwrap_or("");
    let payload = v.get("payload").unwrap_or(&Value::Null);
    match kind {
        "compacted" => {
            at(v, out);
            out.push(Fact::Compacted);
        }
        "response_item" => {
            let name = str_of(payload, "name");
            if name != Some("apply_patch") {
                return;
            }
            let patch = match str_of(payload, "type") {
                Some("custom_tool_call") => str_of(payload, "input").map(str::to_string),
                Some("function_call") => str_of(payload, "arguments")
                    .and_then(|a| serde_json::from_str::<Value>(a).ok())
                    .and_then(|a| {
                        str_of(&a, "input")
                            .or_else(|| str_of(&a, "patch"))
                            .map(str::to_string)
                    }),
                _ => None,
            };
            if let Some(p) = patch {
                at(v, out);
                for path in patch_paths(&p) {
                    out.push(Fact::Edited(relative(&path, root)));
                }
            }
        }
        "event_msg" if str_of(payload, "type") == Some("item_completed") => {
            let Some(item) = payload.get("item") else {
                return;
            };
            at(v, out);
            match str_of(item, "type").unwrap_or("") {
                "UserMessage" => {
                    let text = texts(item);
                    request(&text, out);
                }
                "AgentMessage" => {
                    let text = texts(item);
                    if !text.trim().is_empty() {
                        out.push(Fact::AgentMessage(text));
                    }
                }
                "CommandExecution" => {
                    if let Some(cmd) = command_of(item.get("command")) {
                        let exit_code = item.get("exit_code").and_then(Value::as_i64);
                        if let Some(p) = apply_patch_heredoc(&cmd) {
                            for path in patch_paths(&p) {
                                out.push(Fact::Edited(relative(&path, root)));
                            }
                        }
                        out.push(Fact::CommandRan {
                            command: cmd,
                            exit_code,
                        });
                    }
                }
                "FileChange" => {
                    for path in file_change_paths(item) {
                        out.push(Fact::Edited(relative(&path, root)));
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

fn gemini(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    // `$set` lines (history rewrites, metadata) and header lines have no `type`.
    match str_of(v, "type") {
        Some("user") => {
            at(v, out);
            for item in v
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(text) = str_of(item, "text") {
                    gemini_request(text, out);
                }
            }
            if let Some(text) = str_of(v, "content") {
                gemini_request(text, out);
            }
        }
        Some("gemini") => {
            at(v, out);
            for call in v
                .get("toolCalls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                gemini_call(call, root, out);
            }
            if let Some(text) = str_of(v, "content").filter(|t| !t.trim().is_empty()) {
                out.push(Fact::AgentMessage(text.to_string()));
            }
        }
        _ => {}
    }
}

/// A user text the user typed, not one Gemini CLI or a hook put there.
fn gemini_request(text: &str, out: &mut Vec<Fact>) {
    const CLIENT_WRAPPERS: [&str; 2] = ["<session_context>", "<hook_context>"];
    if CLIENT_WRAPPERS
        .iter()
        .any(|w| text.trim_start().starts_with(w))
    {
        return;
    }
    request(text, out);
}

/// One completed tool call of a Gemini reply, applied once by its id.
fn gemini_call(call: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let status = str_of(call, "status").unwrap_or("");
    let (Some(id), true) = (
        str_of(call, "id"),
        matches!(status, "success" | "error" | "cancelled"),
    ) else {
        // Not finished yet: it is read when the reply is written again.
        return;
    };
    let args = call.get("args").unwrap_or(&Value::Null);
    let fact = match str_of(call, "name").unwrap_or("") {
        "run_shell_command" => {
            let Some(command) = str_of(args, "command") else {
                return;
            };
            // An error or cancellation without a code (a signal, a refusal) stays `unknown`.
            let exit_code = gemini_exit_code(call).or((status == "success").then_some(0));
            Fact::CommandRan {
                command: command.to_string(),
                exit_code,
            }
        }
        "write_file" | "replace" => {
            let Some(path) = str_of(args, "file_path") else {
                return;
            };
            Fact::Edited(relative(path, root))
        }
        _ => return,
    };
    out.push(Fact::Once {
        id: id.to_string(),
        fact: Box::new(fact),
    });
}

/// Gemini CLI's shell tool ends a failed command's output with a line `Exit Code: N`.
fn gemini_exit_code(call: &Value) -> Option<i64> {
    let outputs = call
        .get("result")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.pointer("/functionResponse/response/output"))
        .filter_map(Value::as_str);
    for output in outputs {
        for line in output.lines() {
            if let Some(code) = line.trim().strip_prefix("Exit Code: ") {
                if let Ok(code) = code.trim().parse::<i64>() {
                    return Some(code);
                }
            }
        }
    }
    None
}

/// The texts of an item's `content`, joined.
fn texts(item: &Value) -> String {
    item.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| str_of(c, "text"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The command line: the script of `bash -lc <script>`, else the argv joined by spaces.
fn command_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(argv) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            let is_shell = argv.first().is_some_and(|p| {
                let name = p.rsplit('/').next().unwrap_or(p);
                matches!(name, "bash" | "sh" | "zsh" | "dash")
            });
            if is_shell && argv.len() == 3 && matches!(argv[1], "-lc" | "-c") {
                Some(argv[2].to_string())
            } else if argv.is_empty() {
                None
            } else {
                Some(argv.join(" "))
            }
        }
        _ => None,
    }
}

/// Codex's `FileChange` item: `changes` is a map or a list keyed by path.
fn file_change_paths(item: &Value) -> Vec<String> {
    match item.get("changes") {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|c| str_of(c, "path").map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// `apply_patch <<'EOF' ... EOF` run through the shell.
fn apply_patch_heredoc(cmd: &str) -> Option<String> {
    let t = cmd.trim_start();
    if !t.starts_with("apply_patch") {
        return None;
    }
    t.contains("*** Begin Patch").then(|| t.to_string())
}

/// The files a patch in Codex's format touches.
pub fn patch_paths(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|l| HEADERS.iter().find_map(|h| l.strip_prefix(h)))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A path inside the repository relative to it; any other path as it was.
fn relative(path: &str, root: Option<&Path>) -> String {
    if let Some(root) = root {
        if let Ok(rest) = Path::new(path).strip_prefix(root) {
            if !rest.as_os_str().is_empty() {
                return rest.to_string_lossy().into_owned();
            }
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Write;

    fn claude_line(v: serde_json::Value) -> String {
        format!("{v}\n")
    }

    #[test]
    fn reads_only_complete_lines_and_resumes_at_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let first = claude_line(serde_json::json!(
            {"type":"user","timestamp":"T1","message":{"role":"user","content":"fix the parser"}}
        ));
        let second = claude_line(serde_json::json!(
            {"type":"user","timestamp":"T2","message":{"role":"user","content":"and test it"}}
        ));
        let mut f = File::create(&path).unwrap();
        f.write_all(first.as_bytes()).unwrap();
        // Half of the second line: not read yet.
        f.write_all(&second.as_bytes()[..10]).unwrap();
        f.flush().unwrap();
        let u = read_from(&path, 0, Format::Claude, None).unwrap();
        assert_eq!(u.offset, first.len() as u64);
        assert_eq!(
            u.facts,
            vec![
                Fact::At("T1".into()),
                Fact::Request("fix the parser".into())
            ]
        );
        f.write_all(&second.as_bytes()[10..]).unwrap();
        f.flush().unwrap();
        let u = read_from(&path, u.offset, Format::Claude, None).unwrap();
        assert_eq!(u.offset, (first.len() + second.len()) as u64);
        assert_eq!(
            u.facts,
            vec![Fact::At("T2".into()), Fact::Request("and test it".into())]
        );
        // Nothing new: nothing read.
        let again = read_from(&path, u.offset, Format::Claude, None).unwrap();
        assert!(again.facts.is_empty());
        assert_eq!(again.offset, u.offset);
        // A replaced (shorter) file is read from its start.
        std::fs::write(&path, &first).unwrap();
        let r = read_from(&path, u.offset, Format::Claude, None).unwrap();
        assert!(r.restarted);
        assert_eq!(r.offset, first.len() as u64);
    }

    #[test]
    fn patch_paths_name_every_file() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-y\n+z\n*** Delete File: d\n*** End Patch";
        assert_eq!(patch_paths(p), ["a.txt", "src/b.rs", "src/c.rs", "d"]);
    }

    #[test]
    fn exit_codes_and_shell_commands() {
        assert_eq!(exit_code_of("Exit code 1\nFAILED"), Some(1));
        assert_eq!(exit_code_of("Permission denied"), None);
        assert_eq!(
            command_of(Some(&serde_json::json!(["/bin/bash", "-lc", "cargo test"]))),
            Some("cargo test".into())
        );
        assert_eq!(
            command_of(Some(&serde_json::json!(["git", "status"]))),
            Some("git status".into())
        );
        assert_eq!(
            relative("/r/src/a.rs", Some(Path::new("/r"))),
            "src/a.rs".to_string()
        );
        assert_eq!(
            relative("/elsewhere/a.rs", Some(Path::new("/r"))),
            "/elsewhere/a.rs"
        );
    }
}
