//! GitHub Copilot CLI's files, as text in and text out: its hooks file and folder trust.
//!
//! - Hooks: `.github/hooks/handover.json` (project) or `~/.copilot/hooks/handover.json` (user);
//!   Copilot reads every `*.json` in those directories. The shape is its own:
//!   `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "...", "timeoutSec": N}]}}`
//!   — one flat list of handlers per event, no matcher groups. Its hook input names no event,
//!   so each of our commands ends in `--event <name>`. Our handlers are found by the program
//!   their `bash` command runs (hook_command::recognise), like everywhere else; a user's
//!   handlers in the same file are left exactly as they were.
//! - Folder trust: Copilot CLI 1.0.102 loads a repository's hooks only in a folder listed in
//!   `trustedFolders` of `~/.copilot/config.json` (a subfolder of a listed one counts). That
//!   file is JSON under `//` comment lines Copilot writes itself: the comments are kept byte for
//!   byte and the JSON keeps its layout.

use crate::edit::hooks_doc::{Found, Mention, Wanted};
use crate::edit::hooks_file::HooksEdit;
use crate::edit::json_doc::{Map, Value};
use crate::edit::json_layout::{self, Layout};
use crate::error::EditError;
use crate::files::Homes;
use crate::report::{any_effective, Change, ChangeKind};
use crate::wiring::trusted_folders::{Form, TrustedFolders};
use handover_base::hook_command::{recognise, Recognised};
use std::path::{Path, PathBuf};

/// The hooks file version Copilot CLI 1.0.102 reads.
const VERSION: u64 = 1;

/// The command of a wanted handler as written for Copilot: the event named after it.
pub fn command_with_event(command: &str, event: &str) -> String {
    format!("{command} --event {event}")
}

/// One handler in the file: where it is, its command, and what it is to us.
struct Handler {
    event: String,
    index: usize,
    command: String,
    seen: Recognised,
}

fn handlers(events: &Map) -> Vec<Handler> {
    let mut out = Vec::new();
    for (event, list) in events.iter() {
        for (index, h) in list.as_array().into_iter().flatten().enumerate() {
            if let Some(command) = h.get("bash").and_then(Value::as_str) {
                out.push(Handler {
                    event: event.clone(),
                    index,
                    command: command.to_string(),
                    seen: recognise(command),
                });
            }
        }
    }
    out
}

enum Action {
    /// Bring it to this command (the user's prefix kept) and timeout.
    Update(String, u64),
    Remove,
}

/// Installs `want` (or uninstalls, with None) in Copilot's hooks file `path` holding `before`.
/// Unchanged content comes back byte-identical; a file holding nothing but our hooks is removed
/// by an uninstall, as it was before the install created it.
pub fn edit_hooks(path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
    let mut doc = match before {
        Some(text) => json_layout::parse(path, text)?,
        None if want.is_none() => return Ok((None, Vec::new())),
        None => Value::Object(Map::new()),
    };
    let top = json_layout::top_object(path, &mut doc)?;
    match top.get("version") {
        None if want.is_some() => {
            top.insert("version".into(), Value::from(VERSION));
        }
        None => {}
        Some(v) if v.as_u64() == Some(VERSION) => {}
        Some(v) => {
            return Err(EditError::new(
                path,
                format!("\"version\" is {v}; handover knows GitHub Copilot CLI's hooks file version {VERSION} only. Fix the file by hand, or move our hooks to a file of their own"),
            ))
        }
    }
    if !top.contains_key("hooks") && want.is_some() {
        top.insert("hooks".into(), Value::Object(Map::new()));
    }
    let mut changes = Vec::new();
    if let Some(hooks) = top.get_mut("hooks") {
        let Some(events) = hooks.as_object_mut() else {
            return Err(EditError::new(
                path,
                "\"hooks\" is not an object; fix it by hand, then run the command again",
            ));
        };
        edit_events(events, want, &mut changes);
    }
    if !any_effective(&changes) {
        return Ok((before.map(str::to_string), changes));
    }
    let only_ours_left = want.is_none()
        && top
            .get("hooks")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
        && top.keys().all(|k| k == "version" || k == "hooks");
    if only_ours_left {
        return Ok((None, changes));
    }
    let layout = before.map(Layout::detect).unwrap_or_default();
    Ok((Some(json_layout::render(&doc, &layout)), changes))
}

/// Brings the handlers of ours to exactly `want`: the first of ours for each wanted one is
/// updated in place (so an install from another path is replaced, not duplicated), further
/// plain copies and ours on events no longer wanted are removed, missing ones are appended. A
/// user's command that runs one of ours in its own way stands for ours on its event and is
/// left alone.
fn edit_events(events: &mut Map, want: Option<&[Wanted]>, changes: &mut Vec<Change>) {
    let found = handlers(events);
    let mut actions: Vec<((String, usize), Action)> = Vec::new();
    let mut missing: Vec<&Wanted> = Vec::new();
    for w in want.unwrap_or_default() {
        let ours: Vec<&Handler> = found
            .iter()
            .filter(|h| h.event == w.event)
            .filter(|h| matches!(&h.seen, Recognised::Ours(o) if o.exe == w.exe))
            .collect();
        if let Some((first, extra)) = ours.split_first() {
            let core = command_with_event(&w.command, w.event);
            actions.push((
                (first.event.clone(), first.index),
                Action::Update(core, w.timeout),
            ));
            for h in extra {
                actions.push(((h.event.clone(), h.index), Action::Remove));
            }
            continue;
        }
        let mention = found
            .iter()
            .find(|h| h.event == w.event && h.seen == Recognised::Mentions(w.exe));
        match mention {
            Some(h) => changes.push(Change::new(
                ChangeKind::Kept,
                format!(
                    "{}: your command `{}` runs {} in its own way; left as it is",
                    w.event,
                    h.command,
                    w.exe.file_name()
                ),
            )),
            None => missing.push(w),
        }
    }
    for h in &found {
        let Recognised::Ours(o) = &h.seen else {
            continue;
        };
        let wanted = want
            .unwrap_or_default()
            .iter()
            .any(|w| w.event == h.event && w.exe == o.exe);
        if !wanted {
            actions.push(((h.event.clone(), h.index), Action::Remove));
        }
    }
    apply(events, &actions, changes);
    for w in missing {
        let list = events.get_or_insert_with(w.event, || Value::Array(Vec::new()));
        if let Some(list) = list.as_array_mut() {
            list.push(handler_json(
                &command_with_event(&w.command, w.event),
                w.timeout,
            ));
            changes.push(Change::new(
                ChangeKind::Added,
                label(w.event, w.exe.file_name()),
            ));
        }
    }
}

fn apply(events: &mut Map, actions: &[((String, usize), Action)], changes: &mut Vec<Change>) {
    let names: Vec<String> = events.keys().cloned().collect();
    for event in names {
        let Some(Value::Array(list)) = events.get_mut(&event) else {
            continue;
        };
        let before = list.len();
        let mut index = 0;
        list.retain_mut(|h| {
            let at = (event.clone(), index);
            index += 1;
            match actions.iter().find(|(p, _)| *p == at).map(|(_, a)| a) {
                None => true,
                Some(action) => act(action, h, &event, changes),
            }
        });
        if before > 0 && list.is_empty() {
            events.remove(&event);
        }
    }
}

/// Carries out `action` on one handler of ours; false when it goes.
fn act(action: &Action, h: &mut Value, event: &str, changes: &mut Vec<Change>) -> bool {
    let command = h.get("bash").and_then(Value::as_str).unwrap_or_default();
    let Recognised::Ours(ours) = recognise(command) else {
        return true;
    };
    let what = label(event, ours.exe.file_name());
    match action {
        Action::Remove => {
            changes.push(Change::new(ChangeKind::Removed, what));
            false
        }
        Action::Update(core, timeout) => {
            let want = ours.with_core(core);
            let Some(obj) = h.as_object_mut() else {
                return true;
            };
            let same = obj.get("type").and_then(Value::as_str) == Some("command")
                && obj.get("bash").and_then(Value::as_str) == Some(want.as_str())
                && obj.get("timeoutSec").and_then(Value::as_u64) == Some(*timeout);
            if same {
                changes.push(Change::new(ChangeKind::Unchanged, what));
            } else {
                obj.insert("type".into(), Value::from("command"));
                obj.insert("bash".into(), Value::from(want));
                obj.insert("timeoutSec".into(), Value::from(*timeout));
                changes.push(Change::new(ChangeKind::Updated, what));
            }
            true
        }
    }
}

fn handler_json(command: &str, timeout: u64) -> Value {
    Value::object([
        ("type", Value::from("command")),
        ("bash", Value::from(command)),
        ("timeoutSec", Value::from(timeout)),
    ])
}

fn label(event: &str, exe: &str) -> String {
    format!("{event} → {exe}")
}

/// Every handler of ours in a Copilot hooks document, and every user command that runs one of
/// ours in its own way, in file order (`group` is always 0: the lists are flat).
pub fn find(doc: &Value) -> (Vec<Found>, Vec<Mention>) {
    let mut ours = Vec::new();
    let mut mentions = Vec::new();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else {
        return (ours, mentions);
    };
    for h in handlers(events) {
        let timeout = events
            .get(&h.event)
            .and_then(Value::as_array)
            .and_then(|l| l.get(h.index))
            .and_then(|v| v.get("timeoutSec"))
            .and_then(Value::as_u64);
        match h.seen {
            Recognised::Ours(o) => ours.push(Found {
                event: h.event,
                group: 0,
                handler: h.index,
                exe: o.exe,
                command: h.command,
                prefix: o.prefix,
                program: o.program,
                portable: o.portable,
                timeout,
            }),
            Recognised::Mentions(exe) => mentions.push(Mention {
                event: h.event,
                group: 0,
                handler: h.index,
                exe,
                command: h.command,
            }),
            Recognised::Foreign => {}
        }
    }
    (ours, mentions)
}

// ---- Folder trust ----

/// Where Copilot CLI keeps folder trust: `config.json` in its user directory.
pub fn config_path(user_dir: &Path) -> PathBuf {
    user_dir.join("config.json")
}

/// Copilot CLI's folder trust: a list under `trustedFolders` in its config.json, below the
/// `//` comment lines it writes itself (kept byte for byte).
pub static TRUSTED_FOLDERS: TrustedFolders = TrustedFolders {
    agent: handover_clients::Agent::Copilot,
    path: config_in,
    form: Form::List,
    comments_hint: None,
    wrong_shape: "\"trustedFolders\" is not a list; fix it by hand (GitHub Copilot CLI keeps a list of paths there), then run the command again",
    new_file_newline: true,
};

/// Copilot CLI's config.json under the homes' Copilot user directory.
pub fn config_in(homes: &Homes) -> PathBuf {
    config_path(&homes.user_dir(&handover_clients::copilot::CLIENT))
}

/// What the user must do for Copilot CLI to load the repository's hooks, when it will not yet.
pub fn trust_problem(repo: &Path, config: &Path) -> String {
    format!(
        "copilot: GitHub Copilot CLI loads a repository's hooks only in a folder you trusted, and {} is not in trustedFolders of {}; run `handover install --copilot --trust`, or start `copilot` in the repository and trust the folder",
        repo.display(),
        config.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use handover_base::hook_exe::HookExe;

    const FILE: &str = "/r/.github/hooks/handover.json";

    fn want(dir: &str) -> Vec<Wanted> {
        let command = |exe: HookExe| format!("{dir}/{} --agent copilot", exe.file_name());
        vec![
            Wanted {
                exe: HookExe::SessionStart,
                event: "sessionStart",
                command: command(HookExe::SessionStart),
                timeout: 10,
            },
            Wanted {
                exe: HookExe::ContextWatch,
                event: "postToolUse",
                command: command(HookExe::ContextWatch),
                timeout: 10,
            },
        ]
    }

    #[test]
    fn a_new_file_holds_version_one_and_our_handlers_with_their_event() {
        let (after, changes) = edit_hooks(Path::new(FILE), None, Some(&want("/b"))).unwrap();
        assert_eq!(
            after.unwrap(),
            "{\n  \"version\": 1,\n  \"hooks\": {\n    \"sessionStart\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"/b/handover-session-start --agent copilot --event sessionStart\",\n        \"timeoutSec\": 10\n      }\n    ],\n    \"postToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"/b/handover-context-watch --agent copilot --event postToolUse\",\n        \"timeoutSec\": 10\n      }\n    ]\n  }\n}\n"
        );
        assert!(
            changes.iter().all(|c| c.kind == ChangeKind::Added),
            "{changes:?}"
        );
    }

    #[test]
    fn users_handlers_stay_byte_for_byte_and_ours_are_updated_in_place() {
        let before = "{\n    \"version\": 1,\n    \"hooks\": {\n        \"sessionStart\": [\n            {\n                \"type\": \"command\",\n                \"bash\": \"./scripts/mine.sh\",\n                \"timeoutSec\": 5\n            },\n            {\n                \"type\": \"command\",\n                \"bash\": \"/old/handover-session-start --agent copilot --event sessionStart\",\n                \"timeoutSec\": 30\n            }\n        ]\n    },\n    \"note\": \"kept\"\n}\n";
        let p = Path::new(FILE);
        let (after, changes) = edit_hooks(p, Some(before), Some(&want("/b"))).unwrap();
        let after = after.unwrap();
        assert_eq!(
            after,
            before
                .replace("/old/handover-session-start", "/b/handover-session-start")
                .replace("\"timeoutSec\": 30", "\"timeoutSec\": 10")
                .replace(
                    "        ]\n    },\n    \"note\"",
                    "        ],\n        \"postToolUse\": [\n            {\n                \"type\": \"command\",\n                \"bash\": \"/b/handover-context-watch --agent copilot --event postToolUse\",\n                \"timeoutSec\": 10\n            }\n        ]\n    },\n    \"note\""
                )
        );
        let kinds: Vec<ChangeKind> = changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::Updated, ChangeKind::Added]);
        // Again: nothing to do, the same bytes.
        let (again, changes) = edit_hooks(p, Some(&after), Some(&want("/b"))).unwrap();
        assert_eq!(again.as_deref(), Some(after.as_str()));
        assert!(!any_effective(&changes), "{changes:?}");
        // Uninstall: the user's handler and key stay, ours go.
        let (removed, _) = edit_hooks(p, Some(&after), None).unwrap();
        let removed = removed.unwrap();
        assert!(removed.contains("./scripts/mine.sh") && removed.contains("\"note\": \"kept\""));
        assert!(!removed.contains("handover-"), "{removed}");
    }

    #[test]
    fn uninstall_removes_a_file_of_ours_alone_and_keeps_what_is_not_ours() {
        let p = Path::new(FILE);
        let (ours, _) = edit_hooks(p, None, Some(&want("/b"))).unwrap();
        let (gone, changes) = edit_hooks(p, ours.as_deref(), None).unwrap();
        assert_eq!(gone, None);
        assert_eq!(changes.len(), 2);
        // What status reads back from an install: our two handlers with their timeouts.
        let doc = json_layout::parse(p, ours.as_deref().unwrap()).unwrap();
        let (found, mentions) = find(&doc);
        assert!(mentions.is_empty());
        let seen: Vec<(&str, HookExe, Option<u64>)> = found
            .iter()
            .map(|f| (f.event.as_str(), f.exe, f.timeout))
            .collect();
        assert_eq!(
            seen,
            [
                ("sessionStart", HookExe::SessionStart, Some(10)),
                ("postToolUse", HookExe::ContextWatch, Some(10))
            ]
        );
        assert_eq!(edit_hooks(p, None, None).unwrap(), (None, Vec::new()));
        // A user's wrapper around our executable is theirs: kept, reported, not duplicated.
        let wrapped = "{\"version\": 1, \"hooks\": {\"sessionStart\": [{\"type\": \"command\", \"bash\": \"nice /b/handover-session-start --agent copilot\"}]}}";
        let (after, changes) = edit_hooks(p, Some(wrapped), Some(&want("/b")[..1])).unwrap();
        assert_eq!(after.as_deref(), Some(wrapped));
        assert_eq!(changes[0].kind, ChangeKind::Kept);
    }

    #[test]
    fn a_file_it_cannot_read_as_copilot_hooks_is_refused_with_the_reason() {
        let p = Path::new(FILE);
        for (text, needle) in [
            ("{\"version\": 2, \"hooks\": {}}", "version"),
            ("[1]", "top level"),
            (
                "{\"version\": 1, \"hooks\": []}",
                "\"hooks\" is not an object",
            ),
            ("{oops", "handover.json"),
        ] {
            let e = edit_hooks(p, Some(text), Some(&want("/b"))).unwrap_err();
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
    }

    /// The added entry (its text, with the comment lines and the layout kept, is in the
    /// editor's table: `each_form_adds_the_repository_and_keeps_the_rest`) covers the folders
    /// below the repository, not a sibling; a `trustedFolders` that is not a list is refused.
    #[test]
    fn the_trusted_folder_covers_the_repository_and_a_strange_list_is_refused() {
        let p = Path::new("/h/.copilot/config.json");
        let after = "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n    \"firstLaunchAt\": \"2026-11-25T15:51:11.822Z\",\n    \"trustedFolders\": [\n        \"/nonexistent/repo\"\n    ]\n}\n";
        assert_eq!(
            TRUSTED_FOLDERS
                .trusted_by(p, after, Path::new("/nonexistent/repo/sub"))
                .unwrap()
                .as_deref(),
            Some("/nonexistent/repo")
        );
        assert_eq!(
            TRUSTED_FOLDERS
                .trusted_by(p, after, Path::new("/nonexistent/repository"))
                .unwrap(),
            None
        );
        let e = TRUSTED_FOLDERS
            .trust_repo(
                p,
                Some("{\"trustedFolders\": \"/x\"}"),
                Path::new("/nonexistent/repo"),
                "",
            )
            .unwrap_err();
        assert!(e.to_string().contains("not a list"), "{e}");
    }

    /// Uninstall's inverse: the comment lines, the user's keys and the layout come back byte
    /// for byte; another folder the user trusted stays; nothing to take out is unchanged.
    #[test]
    fn untrust_gives_the_file_back_as_it_was() {
        let p = Path::new("/h/.copilot/config.json");
        let repo = Path::new("/nonexistent/repo");
        let before = "// User settings belong in settings.json.\n{\n    \"firstLaunchAt\": \"2026-11-25T15:51:11.822Z\"\n}\n";
        let (after, _) = TRUSTED_FOLDERS
            .trust_repo(p, Some(before), repo, "")
            .unwrap();
        let (back, change) = TRUSTED_FOLDERS
            .untrust_repo(p, &after.unwrap(), repo)
            .unwrap();
        assert_eq!(change.kind, ChangeKind::Removed);
        assert_eq!(back.as_deref(), Some(before));
        let two = "{\n  \"trustedFolders\": [\n    \"/mine\",\n    \"/nonexistent/repo\"\n  ]\n}\n";
        let (one, _) = TRUSTED_FOLDERS.untrust_repo(p, two, repo).unwrap();
        assert_eq!(
            one.as_deref(),
            Some("{\n  \"trustedFolders\": [\n    \"/mine\"\n  ]\n}\n")
        );
        let (same, change) = TRUSTED_FOLDERS.untrust_repo(p, before, repo).unwrap();
        assert_eq!(
            (same.as_deref(), change.kind),
            (Some(before), ChangeKind::Unchanged)
        );
    }
}
