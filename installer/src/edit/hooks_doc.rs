//! The editor shared by Claude Code settings files, Codex `hooks.json` and Gemini CLI's
//! settings files: all hold
//! `{"hooks": {"<Event>": [{"matcher"?: "...", "hooks": [{"type": "command", "command": ...}]}]}}`.
//!
//! Pure functions over a parsed document (`json_doc::Value`, keys in file order). Our handlers are found by the program their
//! command runs; everything else (other tools' handlers on the same events, unknown keys, key
//! order) is left exactly as it was.

use crate::edit::json_doc::{Map, Value};
use crate::error::EditError;
use crate::report::{Change, ChangeKind};
use handover_base::hook_command::{recognise, Recognised};
use handover_base::hook_exe::HookExe;
use handover_clients::Agent;
use std::path::Path;

/// One handler we want: this executable on this event, running this command, with this
/// `timeout` (in the client's unit).
#[derive(Clone, Debug, PartialEq)]
pub struct Wanted {
    pub exe: HookExe,
    pub event: &'static str,
    pub command: String,
    pub timeout: u64,
}

/// The full set of handlers for `agent` (its event names and timeout unit), in a fixed order.
pub fn wanted_by(agent: Agent, commands: &[(HookExe, String)]) -> Vec<Wanted> {
    let mut out = Vec::new();
    for (exe, command) in commands {
        let client = handover_clients::of(agent);
        for event in client.events(*exe) {
            out.push(Wanted {
                exe: *exe,
                event,
                command: command.clone(),
                timeout: client.timeout(event),
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
    /// The user's text before our program (`VAR=x `, `exec `); empty for what we write.
    pub prefix: String,
    /// The program: an absolute path, or the bare name in the portable command.
    pub program: String,
    /// The portable command (the executable found at run time).
    pub portable: bool,
    pub timeout: Option<u64>,
}

/// A user's command that runs one of our executables in its own way (see
/// [`Recognised::Mentions`]): never edited, never removed, always reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Mention {
    pub event: String,
    pub group: usize,
    pub handler: usize,
    pub exe: HookExe,
    pub command: String,
}

/// Every handler with a string `command`, in file order: (event, group, handler, command, object).
fn each_handler(doc: &Value) -> Vec<(&str, usize, usize, &str, &Value)> {
    let mut out = Vec::new();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events.iter() {
        for (gi, group) in groups.as_array().into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (hi, h) in handlers.into_iter().flatten().enumerate() {
                if let Some(command) = h.get("command").and_then(Value::as_str) {
                    out.push((event.as_str(), gi, hi, command, h));
                }
            }
        }
    }
    out
}

/// Every handler of ours in the document, and every user command that runs one of ours in its
/// own way, each in file order.
pub fn find(doc: &Value) -> (Vec<Found>, Vec<Mention>) {
    let mut ours = Vec::new();
    let mut mentions = Vec::new();
    for (event, group, handler, command, h) in each_handler(doc) {
        match recognise(command) {
            Recognised::Ours(o) => ours.push(Found {
                event: event.to_string(),
                group,
                handler,
                exe: o.exe,
                command: command.to_string(),
                prefix: o.prefix,
                program: o.program,
                portable: o.portable,
                timeout: h.get("timeout").and_then(Value::as_u64),
            }),
            Recognised::Mentions(exe) => mentions.push(Mention {
                event: event.to_string(),
                group,
                handler,
                exe,
                command: command.to_string(),
            }),
            Recognised::Foreign => {}
        }
    }
    (ours, mentions)
}

fn handler_json(command: &str, timeout: u64) -> Value {
    Value::object([
        ("type", Value::from("command")),
        ("command", Value::from(command)),
        ("timeout", Value::from(timeout)),
    ])
}

fn label(exe: HookExe, event: &str) -> String {
    format!("{event} → {}", exe.file_name())
}

fn left_alone(m: &Mention, why: &str) -> Change {
    Change::new(
        ChangeKind::Kept,
        format!(
            "{}: your command `{}` runs {} in its own way; left as it is{why}",
            m.event,
            m.command,
            m.exe.file_name()
        ),
    )
}

fn hooks_object<'a>(
    doc: &'a mut Value,
    file: &Path,
    create: bool,
) -> Result<Option<&'a mut Map>, EditError> {
    let top = crate::edit::json_layout::top_object(file, doc)?;
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

/// What to do with one handler of ours, decided before anything is edited.
#[derive(Clone, Debug)]
enum Action {
    /// Bring it to this wanted command (prefix kept) and timeout.
    Update(String, u64),
    Remove,
    /// A copy with the user's prefix we would otherwise remove: left alone, reported.
    KeepExtra,
}

/// Applies `actions` (keyed by the handler's position in the unedited document) and removes the
/// groups and event arrays that became empty because of a removal (already-empty ones stay).
fn apply_actions(
    events: &mut Map,
    actions: &[((String, usize, usize), Action)],
    changes: &mut Vec<Change>,
) {
    let names: Vec<String> = events.keys().cloned().collect();
    for event in names {
        let Some(Value::Array(groups)) = events.get_mut(&event) else {
            continue;
        };
        let mut removed_any = false;
        let mut gi = 0;
        groups.retain_mut(|group| {
            let g = gi;
            gi += 1;
            let Some(Value::Array(handlers)) = group.get_mut("hooks") else {
                return true;
            };
            let before = handlers.len();
            let mut hi = 0;
            handlers.retain_mut(|h| {
                let pos = (event.clone(), g, hi);
                hi += 1;
                let Some(action) = actions.iter().find(|(p, _)| *p == pos).map(|(_, a)| a) else {
                    return true;
                };
                act(action, h, &event, changes)
            });
            let emptied = before > 0 && handlers.is_empty();
            removed_any |= handlers.len() != before;
            !emptied
        });
        if removed_any && groups.is_empty() {
            events.remove(&event);
        }
    }
}

/// Carries out `action` on one handler of ours (on `event`); false when the handler goes.
fn act(action: &Action, h: &mut Value, event: &str, changes: &mut Vec<Change>) -> bool {
    let command = h.get("command").and_then(Value::as_str).unwrap_or_default();
    let Recognised::Ours(ours) = recognise(command) else {
        return true;
    };
    match action {
        Action::Remove => {
            let what = if ours.is_plain() {
                label(ours.exe, event)
            } else {
                format!(
                    "{} (with your prefix `{}`)",
                    label(ours.exe, event),
                    ours.prefix.trim()
                )
            };
            changes.push(Change::new(ChangeKind::Removed, what));
            false
        }
        Action::KeepExtra => {
            changes.push(Change::new(
                    ChangeKind::Kept,
                    format!(
                        "{}: a second copy, `{command}`, carries your own prefix; left as it is (it runs too: remove one by hand)",
                        label(ours.exe, event)
                    ),
                ));
            true
        }
        Action::Update(core, timeout) => {
            let want = ours.with_core(core);
            let Some(obj) = h.as_object_mut() else {
                return true;
            };
            let same = obj.get("command").and_then(Value::as_str) == Some(want.as_str())
                && obj.get("timeout").and_then(Value::as_u64) == Some(*timeout)
                && obj.get("type").and_then(Value::as_str) == Some("command");
            if same {
                changes.push(Change::new(ChangeKind::Unchanged, label(ours.exe, event)));
            } else {
                obj.insert("type".into(), Value::from("command"));
                obj.insert("command".into(), Value::from(want));
                obj.insert("timeout".into(), Value::from(*timeout));
                changes.push(Change::new(ChangeKind::Updated, label(ours.exe, event)));
            }
            true
        }
    }
}

fn position(f: &Found) -> (String, usize, usize) {
    (f.event.clone(), f.group, f.handler)
}

/// Brings the document to exactly `wanted` for our handlers: updates ours in place (same group,
/// same position, the user's prefix kept, so an older install from another path is replaced,
/// not duplicated), appends missing ones as their own matcher group at the end of the event,
/// removes our plain extras. A user's own command that runs one of ours is left alone and
/// stands for ours on its event; so does a copy of ours with a prefix of the user's.
pub fn install(doc: &mut Value, want: &[Wanted], file: &Path) -> Result<Vec<Change>, EditError> {
    let mut changes = Vec::new();
    let (ours, mentions) = find(doc);
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
    let mut actions = Vec::new();
    let mut to_add = Vec::new();
    for w in want {
        let here: Vec<&Found> = ours
            .iter()
            .filter(|f| f.exe == w.exe && f.event == w.event)
            .collect();
        // The user's prefixed copy is the one they chose: keep that one.
        let keep = here
            .iter()
            .find(|f| !f.prefix.trim().is_empty())
            .or(here.first());
        match keep {
            Some(k) => actions.push((position(k), Action::Update(w.command.clone(), w.timeout))),
            None if mentions
                .iter()
                .any(|m| m.exe == w.exe && m.event == w.event) => {}
            None => to_add.push(w),
        }
    }
    // Ours on events they do not belong to (older versions, --no-watch now), and duplicates.
    for f in &ours {
        if actions.iter().any(|(p, _)| *p == position(f)) {
            continue;
        }
        let action = if f.prefix.trim().is_empty() {
            Action::Remove
        } else {
            Action::KeepExtra
        };
        actions.push((position(f), action));
    }
    for m in &mentions {
        let stands_in = want.iter().any(|w| w.exe == m.exe && w.event == m.event)
            && !ours.iter().any(|f| f.exe == m.exe && f.event == m.event);
        let why = if stands_in {
            " (taken as your way of running it: ours is not added there)"
        } else {
            ""
        };
        changes.push(left_alone(m, why));
    }
    apply_actions(events, &actions, &mut changes);
    for w in to_add {
        let groups = events.get_or_insert_with(w.event, || Value::Array(Vec::new()));
        if let Value::Array(groups) = groups {
            groups.push(Value::object([(
                "hooks",
                Value::Array(vec![handler_json(&w.command, w.timeout)]),
            )]));
            changes.push(Change::new(ChangeKind::Added, label(w.exe, w.event)));
        }
    }
    Ok(changes)
}

/// Removes every handler of ours (prefixed copies too: the user asked handover out), then the
/// groups, event arrays and `hooks` object that became empty because of it. A user's own
/// command that runs one of ours stays and is reported.
pub fn uninstall(doc: &mut Value, file: &Path) -> Result<Vec<Change>, EditError> {
    let mut changes = Vec::new();
    let (ours, mentions) = find(doc);
    let actions: Vec<_> = ours.iter().map(|f| (position(f), Action::Remove)).collect();
    let Some(events) = hooks_object(doc, file, false)? else {
        return Ok(changes);
    };
    let was_empty = events.is_empty();
    apply_actions(events, &actions, &mut changes);
    if !was_empty && events.is_empty() {
        if let Some(top) = doc.as_object_mut() {
            top.remove("hooks");
        }
    }
    for m in &mentions {
        changes.push(left_alone(m, ": remove it by hand if it should go too"));
    }
    Ok(changes)
}

/// A handler's place in a hooks document: event, group index, handler index (what Codex's
/// trust keys are made of).
pub type Position = (String, usize, usize);

/// A key no real handler has, to follow handlers through an edit.
const TAG: &str = "\u{1}handover-position";

/// Where every handler of `doc` ends up after `edit`: (old, new) for each handler whose place
/// changed, new None when the edit removed it. Handlers that stay where they were are not listed.
pub fn moves(
    doc: &Value,
    edit: impl FnOnce(&mut Value) -> Result<Vec<Change>, EditError>,
) -> Result<Vec<(Position, Option<Position>)>, EditError> {
    let mut tagged = doc.clone();
    let mut before = Vec::new();
    for_each_handler_mut(&mut tagged, |pos, h| {
        if let Some(obj) = h.as_object_mut() {
            obj.insert(TAG.into(), Value::from(before.len() as u64));
            before.push(pos);
        }
    });
    edit(&mut tagged)?;
    let mut after: Vec<Option<Position>> = vec![None; before.len()];
    for_each_handler_mut(&mut tagged, |pos, h| {
        if let Some(i) = h.get(TAG).and_then(Value::as_u64) {
            if let Some(slot) = after.get_mut(i as usize) {
                *slot = Some(pos);
            }
        }
    });
    Ok(before
        .into_iter()
        .zip(after)
        .filter(|(old, new)| new.as_ref() != Some(old))
        .collect())
}

fn for_each_handler_mut(doc: &mut Value, mut f: impl FnMut(Position, &mut Value)) {
    let Some(events) = doc.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    for (event, groups) in events.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for (gi, group) in groups.iter_mut().enumerate() {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            for (hi, h) in handlers.iter_mut().enumerate() {
                f((event.clone(), gi, hi), h);
            }
        }
    }
}
