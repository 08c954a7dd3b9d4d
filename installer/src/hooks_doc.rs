//! The editor shared by Claude Code settings files and Codex `hooks.json`: both hold
//! `{"hooks": {"<Event>": [{"matcher"?: "...", "hooks": [{"type": "command", "command": ...}]}]}}`.
//!
//! Pure functions over a parsed `serde_json::Value`. Our handlers are found by the program their
//! command runs; everything else (other tools' handlers on the same events, unknown keys, key
//! order) is left exactly as it was.

use crate::command::our_exe;
use crate::error::EditError;
use crate::report::{Change, ChangeKind};
use handover_base::hook_exe::{HookExe, TIMEOUT_SECS};
use serde_json::{json, Map, Value};
use std::path::Path;

/// One handler we want: this executable on this event, running this command.
#[derive(Clone, Debug, PartialEq)]
pub struct Wanted {
    pub exe: HookExe,
    pub event: &'static str,
    pub command: String,
}

/// The full set of handlers for the given executables and commands, in a fixed order.
pub fn wanted(commands: &[(HookExe, String)]) -> Vec<Wanted> {
    let mut out = Vec::new();
    for (exe, command) in commands {
        for event in exe.events() {
            out.push(Wanted {
                exe: *exe,
                event,
                command: command.clone(),
            });
        }
    }
    out
}

/// One of our handlers found in a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub event: String,
    pub group: usize,
    pub handler: usize,
    pub exe: HookExe,
    pub command: String,
    pub timeout: Option<u64>,
}

/// Every handler of ours in the document, in file order.
pub fn find_ours(doc: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        for (gi, group) in groups.iter().enumerate() {
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (hi, h) in handlers.iter().enumerate() {
                let Some(command) = h.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if let Some(exe) = our_exe(command) {
                    out.push(Found {
                        event: event.clone(),
                        group: gi,
                        handler: hi,
                        exe,
                        command: command.to_string(),
                        timeout: h.get("timeout").and_then(Value::as_u64),
                    });
                }
            }
        }
    }
    out
}

fn handler_json(command: &str) -> Value {
    json!({"type": "command", "command": command, "timeout": TIMEOUT_SECS})
}

fn label(exe: HookExe, event: &str) -> String {
    format!("{event} → {}", exe.file_name())
}

fn hooks_object<'a>(
    doc: &'a mut Value,
    file: &Path,
    create: bool,
) -> Result<Option<&'a mut Map<String, Value>>, EditError> {
    let Some(top) = doc.as_object_mut() else {
        return Err(EditError::new(
            file,
            "the top level is not a JSON object; fix the file by hand, then run the command again",
        ));
    };
    if !top.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        top.insert("hooks".into(), Value::Object(Map::new()));
    }
    match top.get_mut("hooks") {
        Some(Value::Object(m)) => Ok(Some(m)),
        _ => Err(EditError::new(
            file,
            "\"hooks\" is not an object; fix it by hand, then run the command again",
        )),
    }
}

/// Removes our handlers for which `drop(exe, event)` is true, and the groups and event arrays
/// that became empty because of that (containers that were already empty stay).
fn remove_ours(
    events: &mut Map<String, Value>,
    mut drop: impl FnMut(HookExe, &str) -> bool,
    changes: &mut Vec<Change>,
) {
    let names: Vec<String> = events.keys().cloned().collect();
    for event in names {
        let Some(Value::Array(groups)) = events.get_mut(&event) else {
            continue;
        };
        let mut removed_any = false;
        groups.retain_mut(|group| {
            let Some(Value::Array(handlers)) = group.get_mut("hooks") else {
                return true;
            };
            let before = handlers.len();
            handlers.retain(|h| {
                let exe = h.get("command").and_then(Value::as_str).and_then(our_exe);
                match exe {
                    Some(exe) if drop(exe, &event) => {
                        changes.push(Change::new(ChangeKind::Removed, label(exe, &event)));
                        false
                    }
                    _ => true,
                }
            });
            let emptied = before > 0 && handlers.is_empty();
            removed_any |= handlers.len() != before;
            !emptied
        });
        if removed_any && groups.is_empty() {
            events.shift_remove(&event);
        }
    }
}

/// Brings the document to exactly `wanted` for our handlers: updates ours in place (same group,
/// same position, so an older install from another path is replaced, not duplicated), appends
/// missing ones as their own matcher group at the end of the event, removes our extras.
pub fn install(doc: &mut Value, want: &[Wanted], file: &Path) -> Result<Vec<Change>, EditError> {
    let mut changes = Vec::new();
    let Some(events) = hooks_object(doc, file, !want.is_empty())? else {
        return Ok(changes);
    };
    for w in want {
        if let Some(v) = events.get(w.event) {
            if !v.is_array() {
                return Err(EditError::new(
                    file,
                    format!(
                        "\"hooks.{}\" is not an array; fix it by hand, then run the command again",
                        w.event
                    ),
                ));
            }
        }
    }
    // Ours on events they do not belong to (older versions, --no-watch now), and duplicates.
    let mut seen: Vec<(HookExe, String)> = Vec::new();
    remove_ours(
        events,
        |exe, event| {
            if !want.iter().any(|w| w.exe == exe && w.event == event) {
                return true;
            }
            let key = (exe, event.to_string());
            if seen.contains(&key) {
                return true;
            }
            seen.push(key);
            false
        },
        &mut changes,
    );
    for w in want {
        let groups = events
            .entry(w.event.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            continue;
        };
        let existing = groups.iter_mut().find_map(|g| {
            g.get_mut("hooks")
                .and_then(Value::as_array_mut)
                .and_then(|hs| {
                    hs.iter_mut().find(|h| {
                        h.get("command").and_then(Value::as_str).and_then(our_exe) == Some(w.exe)
                    })
                })
        });
        match existing {
            Some(h) => {
                let Some(obj) = h.as_object_mut() else {
                    continue;
                };
                let same = obj.get("command").and_then(Value::as_str) == Some(w.command.as_str())
                    && obj.get("timeout").and_then(Value::as_u64) == Some(TIMEOUT_SECS)
                    && obj.get("type").and_then(Value::as_str) == Some("command");
                if same {
                    changes.push(Change::new(ChangeKind::Unchanged, label(w.exe, w.event)));
                } else {
                    obj.insert("type".into(), json!("command"));
                    obj.insert("command".into(), json!(w.command));
                    obj.insert("timeout".into(), json!(TIMEOUT_SECS));
                    changes.push(Change::new(ChangeKind::Updated, label(w.exe, w.event)));
                }
            }
            None => {
                groups.push(json!({"hooks": [handler_json(&w.command)]}));
                changes.push(Change::new(ChangeKind::Added, label(w.exe, w.event)));
            }
        }
    }
    Ok(changes)
}

/// Removes every handler of ours, then the groups, event arrays and `hooks` object that became
/// empty because of it.
pub fn uninstall(doc: &mut Value, file: &Path) -> Result<Vec<Change>, EditError> {
    let mut changes = Vec::new();
    let Some(events) = hooks_object(doc, file, false)? else {
        return Ok(changes);
    };
    let was_empty = events.is_empty();
    remove_ours(events, |_, _| true, &mut changes);
    if !was_empty && events.is_empty() {
        if let Some(top) = doc.as_object_mut() {
            top.shift_remove("hooks");
        }
    }
    Ok(changes)
}

/// `SessionStart` → `session_start`: the event part of a Codex hook-trust key.
pub fn snake_event(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Codex's trust key for a handler: `<hooks.json path>:<event_snake>:<group>:<handler>`.
pub fn codex_trust_key(hooks_json: &Path, f: &Found) -> String {
    format!(
        "{}:{}:{}:{}",
        hooks_json.display(),
        snake_event(&f.event),
        f.group,
        f.handler
    )
}
