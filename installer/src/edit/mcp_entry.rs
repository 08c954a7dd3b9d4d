//! The handover MCP server's entry in a client's MCP configuration (`handover install --mcp`):
//! pure editors over a parsed document, as hooks_doc is for hook handlers.
//!
//! Two shapes hold it:
//! - JSON, `{"mcpServers": {"handover": {"command": ..., "args": [...]}}}` (Claude Code's
//!   `.mcp.json` and `~/.claude.json`, Gemini CLI's and Qwen Code's settings, GitHub Copilot
//!   CLI's `mcp.json`, Factory Droid's `mcp.json`; some want `"type": "stdio"` beside it);
//! - TOML, `[mcp_servers.handover]` with `command` and `args` (Codex's config.toml).
//!
//! And Claude Code's approval of a project server, `"enabledMcpjsonServers": ["handover"]` in
//! the project's settings (without it the server waits for an approval in the terminal UI and
//! a headless session never starts it).
//!
//! Ours is the entry named [`SERVER`] whose command runs `handover mcp` (the executable by
//! path, or the portable launcher that finds it at run time). An entry of that name that runs
//! something else is the user's: left alone, and said.

use crate::edit::json_doc::{Map, Value};
use crate::report::{Change, ChangeKind};
use toml_edit::{DocumentMut, Item, Table};

/// The server's name in every client's configuration (the prefix of its tools' names there,
/// e.g. Claude Code's `mcp__handover__handover_save`).
pub const SERVER: &str = "handover";

/// The JSON key of the servers in every JSON shape.
pub const JSON_SERVERS: &str = "mcpServers";

/// The TOML table of the servers in Codex's config.toml.
pub const TOML_SERVERS: &str = "mcp_servers";

/// Claude Code's list of the project servers (`.mcp.json`) the user approved, in its settings.
pub const PROJECT_APPROVALS: &str = "enabledMcpjsonServers";

/// What a client runs for the server: a program and its arguments (no shell in between).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpCommand {
    pub command: String,
    pub args: Vec<String>,
}

impl McpCommand {
    /// `handover mcp` found at run time, as the portable hook command finds the hook
    /// executables (hook_exe::LAUNCHER: PATH, then cargo's bin directory): the same on every
    /// machine, so a committed MCP file works for every teammate who installed handover.
    pub fn portable() -> McpCommand {
        McpCommand {
            command: "sh".into(),
            args: vec![
                "-c".into(),
                handover_base::hook_exe::LAUNCHER.into(),
                "handover".into(),
                "mcp".into(),
            ],
        }
    }

    /// `handover mcp` at this absolute path.
    pub fn at(handover: &std::path::Path) -> McpCommand {
        McpCommand {
            command: handover.to_string_lossy().into_owned(),
            args: vec!["mcp".into()],
        }
    }

    /// Whether `command` with `args` runs `handover mcp`: the executable named `handover`
    /// with the one argument `mcp`, or a launcher (`sh -c '<script>' handover mcp`) that
    /// finds it.
    pub fn runs_handover_mcp(command: &str, args: &[&str]) -> bool {
        let program = command.rsplit('/').next().unwrap_or(command);
        match args {
            ["mcp"] => program == "handover",
            ["-c", _, "handover", "mcp"] => program == "sh",
            _ => false,
        }
    }

    /// How the change is named in the report: the launcher by what it runs.
    fn shown(&self, at: &str) -> String {
        match self.args.as_slice() {
            [c, _, program, arg] if self.command == "sh" && c == "-c" => {
                format!("{at} → {program} {arg} (found at run time)")
            }
            args => format!("{at} → {} {}", self.command, args.join(" ")),
        }
    }
}

/// The JSON entry: `type` first where the client wants it, then `command` and `args`.
fn json_entry(cmd: &McpCommand, stdio_type: bool) -> Value {
    let mut entries = Vec::new();
    if stdio_type {
        entries.push(("type", Value::from("stdio")));
    }
    entries.push(("command", Value::from(cmd.command.as_str())));
    entries.push((
        "args",
        Value::Array(cmd.args.iter().map(|a| Value::from(a.as_str())).collect()),
    ));
    Value::object(entries)
}

/// Whether a JSON entry runs `handover mcp`.
fn json_is_ours(entry: &Value) -> bool {
    let Some(command) = entry.get("command").and_then(Value::as_str) else {
        return false;
    };
    let args: Option<Vec<&str>> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect());
    McpCommand::runs_handover_mcp(command, &args.unwrap_or_default())
}

/// Where the entry sits, as the report names it.
fn json_at() -> String {
    format!("{JSON_SERVERS}.{SERVER}")
}

/// Install: the entry under `mcpServers`, added (the object created when missing) or, when
/// ours differs, updated in place with the user's other keys on it kept.
pub fn install_json(doc: &mut Map, cmd: &McpCommand, stdio_type: bool) -> Change {
    let at = json_at();
    let servers = doc.get_or_insert_with(JSON_SERVERS, || Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Change::new(
            ChangeKind::Kept,
            format!("{JSON_SERVERS}: not an object, so no server was added; fix it by hand"),
        );
    };
    let wanted = json_entry(cmd, stdio_type);
    let kind = match servers.get_mut(SERVER) {
        None => {
            servers.insert(SERVER.to_string(), wanted);
            ChangeKind::Added
        }
        Some(entry) if !json_is_ours(entry) => return kept_theirs(&at),
        // Ours, but not an object: left as it is.
        Some(entry) => entry.as_object_mut().map_or(ChangeKind::Unchanged, |have| {
            let mut changed = false;
            if let Some(want) = wanted.as_object() {
                for (k, v) in want.iter() {
                    if have.get(k) != Some(v) {
                        have.insert(k.clone(), v.clone());
                        changed = true;
                    }
                }
            }
            if changed {
                ChangeKind::Updated
            } else {
                ChangeKind::Unchanged
            }
        }),
    };
    Change::new(kind, cmd.shown(&at))
}

/// A server by our name that does not run `handover mcp` is the user's: kept as it is, in JSON
/// and in TOML alike.
fn kept_theirs(at: &str) -> Change {
    Change::new(
        ChangeKind::Kept,
        format!("{at}: a server of yours by that name (it does not run `handover mcp`)"),
    )
}

/// Uninstall: our entry out, and `mcpServers` when that emptied it. None when there is no
/// entry of ours.
pub fn uninstall_json(doc: &mut Map) -> Option<Change> {
    let servers = doc.get_mut(JSON_SERVERS)?.as_object_mut()?;
    if !servers.get(SERVER).is_some_and(json_is_ours) {
        return None;
    }
    servers.remove(SERVER);
    if servers.is_empty() {
        doc.remove(JSON_SERVERS);
    }
    Some(Change::new(ChangeKind::Removed, json_at()))
}

/// The entry of ours in a parsed JSON document, as written (for `handover status`).
pub fn find_json(doc: &Value) -> Option<McpCommand> {
    let entry = doc.get(JSON_SERVERS)?.get(SERVER)?;
    json_is_ours(entry).then(|| McpCommand {
        command: entry
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        args: entry
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// Claude Code: `"handover"` in the project settings' `enabledMcpjsonServers` (the list created
/// when missing).
pub fn approve(doc: &mut Map) -> Change {
    let what = format!("{PROJECT_APPROVALS}: {SERVER}");
    let list = doc.get_or_insert_with(PROJECT_APPROVALS, || Value::Array(Vec::new()));
    let Some(list) = list.as_array_mut() else {
        return Change::new(
            ChangeKind::Kept,
            format!(
                "{PROJECT_APPROVALS}: not a list, so the server was not approved; fix it by hand"
            ),
        );
    };
    if list.iter().any(|v| v.as_str() == Some(SERVER)) {
        return Change::new(ChangeKind::Unchanged, what);
    }
    list.push(Value::from(SERVER));
    Change::new(ChangeKind::Added, what)
}

/// Uninstall: `"handover"` out of `enabledMcpjsonServers`, and the list when that emptied it.
pub fn unapprove(doc: &mut Map) -> Option<Change> {
    let list = doc.get_mut(PROJECT_APPROVALS)?.as_array_mut()?;
    let before = list.len();
    list.retain(|v| v.as_str() != Some(SERVER));
    if list.len() == before {
        return None;
    }
    if list.is_empty() {
        doc.remove(PROJECT_APPROVALS);
    }
    Some(Change::new(
        ChangeKind::Removed,
        format!("{PROJECT_APPROVALS}: {SERVER}"),
    ))
}

/// Whether Claude Code's project settings approve the server.
pub fn approved(doc: &Value) -> bool {
    doc.get(PROJECT_APPROVALS)
        .and_then(Value::as_array)
        .is_some_and(|l| l.iter().any(|v| v.as_str() == Some(SERVER)))
}

fn toml_at() -> String {
    format!("[{TOML_SERVERS}.{SERVER}]")
}

fn toml_is_ours(entry: &Item) -> bool {
    let Some(t) = entry.as_table_like() else {
        return false;
    };
    let Some(command) = t.get("command").and_then(Item::as_str) else {
        return false;
    };
    let args: Vec<&str> = t
        .get("args")
        .and_then(Item::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    McpCommand::runs_handover_mcp(command, &args)
}

/// Codex: `[mcp_servers.handover]` with `command` and `args`, created without an empty
/// `[mcp_servers]` header; ours updated in place when it differs.
pub fn install_toml(doc: &mut DocumentMut, cmd: &McpCommand) -> Change {
    let at = toml_at();
    let root = doc.as_table_mut();
    if !root.contains_key(TOML_SERVERS) {
        let mut t = Table::new();
        t.set_implicit(true);
        root.insert(TOML_SERVERS, Item::Table(t));
    }
    let Some(servers) = root.get_mut(TOML_SERVERS).and_then(Item::as_table_like_mut) else {
        return Change::new(
            ChangeKind::Kept,
            format!("{TOML_SERVERS}: not a table, so no server was added; fix it by hand"),
        );
    };
    let args = || {
        let mut a = toml_edit::Array::new();
        for arg in &cmd.args {
            a.push(arg.as_str());
        }
        toml_edit::value(a)
    };
    let kind = match servers.get_mut(SERVER) {
        None => {
            let mut t = Table::new();
            t.insert("command", toml_edit::value(cmd.command.as_str()));
            t.insert("args", args());
            servers.insert(SERVER, Item::Table(t));
            ChangeKind::Added
        }
        Some(entry) if !toml_is_ours(entry) => return kept_theirs(&at),
        // Ours, but not a table: left as it is.
        Some(entry) => entry
            .as_table_like_mut()
            .map_or(ChangeKind::Unchanged, |t| {
                let same_command = t.get("command").and_then(Item::as_str) == Some(&cmd.command);
                let have_args: Vec<&str> = t
                    .get("args")
                    .and_then(Item::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                    .unwrap_or_default();
                if same_command && have_args == cmd.args {
                    return ChangeKind::Unchanged;
                }
                t.insert("command", toml_edit::value(cmd.command.as_str()));
                t.insert("args", args());
                ChangeKind::Updated
            }),
    };
    Change::new(kind, cmd.shown(&at))
}

/// Uninstall: `[mcp_servers.handover]` out when it is ours, and `[mcp_servers]` when that
/// emptied it.
pub fn uninstall_toml(doc: &mut DocumentMut) -> Option<Change> {
    let servers = doc
        .get_mut(TOML_SERVERS)
        .and_then(Item::as_table_like_mut)?;
    if !servers.get(SERVER).is_some_and(toml_is_ours) {
        return None;
    }
    servers.remove(SERVER);
    if servers.is_empty() {
        doc.as_table_mut().remove(TOML_SERVERS);
    }
    Some(Change::new(ChangeKind::Removed, toml_at()))
}

/// The entry of ours in a parsed config.toml.
pub fn find_toml(doc: &DocumentMut) -> Option<McpCommand> {
    let entry = doc.get(TOML_SERVERS)?.as_table_like()?.get(SERVER)?;
    if !toml_is_ours(entry) {
        return None;
    }
    let t = entry.as_table_like()?;
    Some(McpCommand {
        command: t.get("command")?.as_str()?.to_string(),
        args: t
            .get("args")
            .and_then(Item::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd() -> McpCommand {
        McpCommand {
            command: "/opt/bin/handover".into(),
            args: vec!["mcp".into()],
        }
    }

    #[test]
    fn ours_is_handover_mcp_by_path_or_through_the_launcher() {
        assert!(McpCommand::runs_handover_mcp("/opt/bin/handover", &["mcp"]));
        assert!(McpCommand::runs_handover_mcp("handover", &["mcp"]));
        assert!(McpCommand::runs_handover_mcp(
            "sh",
            &["-c", "e=$0; ...", "handover", "mcp"]
        ));
        assert!(!McpCommand::runs_handover_mcp("/opt/bin/handover", &[]));
        assert!(!McpCommand::runs_handover_mcp("npx", &["handover", "mcp"]));
        assert!(!McpCommand::runs_handover_mcp(
            "/opt/handover-mcp",
            &["mcp"]
        ));
    }

    #[test]
    fn json_install_then_uninstall_leaves_the_document_as_it_was() {
        let text = r#"{"a":1,"mcpServers":{"other":{"command":"x"}}}"#;
        let mut doc: Value = serde_json::from_str(text).unwrap();
        let map = doc.as_object_mut().unwrap();
        assert_eq!(install_json(map, &cmd(), true).kind, ChangeKind::Added);
        assert_eq!(install_json(map, &cmd(), true).kind, ChangeKind::Unchanged);
        assert_eq!(find_json(&doc), Some(cmd()));
        assert_eq!(
            doc.to_string(),
            r#"{"a":1,"mcpServers":{"other":{"command":"x"},"handover":{"type":"stdio","command":"/opt/bin/handover","args":["mcp"]}}}"#
        );
        let map = doc.as_object_mut().unwrap();
        assert_eq!(uninstall_json(map).unwrap().kind, ChangeKind::Removed);
        assert_eq!(doc.to_string(), text);
        // Created, then emptied: the key goes too.
        let mut doc: Value = serde_json::from_str("{}").unwrap();
        install_json(doc.as_object_mut().unwrap(), &cmd(), false);
        uninstall_json(doc.as_object_mut().unwrap());
        assert_eq!(doc.to_string(), "{}");
    }

    #[test]
    fn a_users_server_by_that_name_is_left_alone() {
        let text = r#"{"mcpServers":{"handover":{"command":"npx","args":["my-handover"]}}}"#;
        let mut doc: Value = serde_json::from_str(text).unwrap();
        let map = doc.as_object_mut().unwrap();
        assert_eq!(install_json(map, &cmd(), false).kind, ChangeKind::Kept);
        assert_eq!(uninstall_json(map), None);
        assert_eq!(doc.to_string(), text);
        let mut toml: DocumentMut = "[mcp_servers.handover]\ncommand = \"npx\"\n"
            .parse()
            .unwrap();
        assert_eq!(install_toml(&mut toml, &cmd()).kind, ChangeKind::Kept);
        assert_eq!(uninstall_toml(&mut toml), None);
    }

    #[test]
    fn an_entry_of_ours_is_updated_with_the_users_keys_on_it_kept() {
        let text = r#"{"mcpServers":{"handover":{"command":"/old/handover","args":["mcp"],"env":{"A":"1"}}}}"#;
        let mut doc: Value = serde_json::from_str(text).unwrap();
        let change = install_json(doc.as_object_mut().unwrap(), &cmd(), false);
        assert_eq!(change.kind, ChangeKind::Updated);
        assert_eq!(
            doc.to_string(),
            r#"{"mcpServers":{"handover":{"command":"/opt/bin/handover","args":["mcp"],"env":{"A":"1"}}}}"#
        );
    }

    #[test]
    fn the_approval_is_added_once_and_taken_out() {
        let mut doc: Value = serde_json::from_str(r#"{"enabledMcpjsonServers":["x"]}"#).unwrap();
        let map = doc.as_object_mut().unwrap();
        assert_eq!(approve(map).kind, ChangeKind::Added);
        assert_eq!(approve(map).kind, ChangeKind::Unchanged);
        assert!(approved(&doc));
        let map = doc.as_object_mut().unwrap();
        assert!(unapprove(map).is_some());
        assert_eq!(doc.to_string(), r#"{"enabledMcpjsonServers":["x"]}"#);
        let mut doc: Value = serde_json::from_str("{}").unwrap();
        approve(doc.as_object_mut().unwrap());
        unapprove(doc.as_object_mut().unwrap());
        assert_eq!(doc.to_string(), "{}");
    }

    #[test]
    fn toml_install_then_uninstall_leaves_the_text_as_it_was() {
        for text in [
            "",
            "# mine\nmodel = \"gpt-5\"\n",
            "model = \"m\"\n\n[mcp_servers.other]\ncommand = \"x\"\n",
        ] {
            let mut doc: DocumentMut = text.parse().unwrap();
            assert_eq!(install_toml(&mut doc, &cmd()).kind, ChangeKind::Added);
            assert_eq!(install_toml(&mut doc, &cmd()).kind, ChangeKind::Unchanged);
            assert_eq!(find_toml(&doc), Some(cmd()));
            assert!(doc.to_string().contains(
                "[mcp_servers.handover]\ncommand = \"/opt/bin/handover\"\nargs = [\"mcp\"]\n"
            ));
            assert!(!doc.to_string().contains("[mcp_servers]\n"), "{doc}");
            assert_eq!(
                uninstall_toml(&mut doc).map(|c| c.kind),
                Some(ChangeKind::Removed)
            );
            assert_eq!(doc.to_string(), text);
        }
    }
}
