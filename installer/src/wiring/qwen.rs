//! Qwen Code's installer step beyond the shared hooks file: its settings version.
//!
//! Qwen Code 0.24.4 adds `"$version": 4` to a settings file that has none the first time it
//! loads it (`handover_clients::qwen::SETTINGS_VERSION`). A project's `.qwen/settings.json` that
//! install wrote and the user committed would then show as changed after the first session, and
//! as that session's uncommitted work. So install writes the key itself, into a file that holds
//! nothing but our hooks (one it creates, or one with only a `hooks` key): there Qwen Code has no
//! migration to run. A file with other keys and no version is left to Qwen Code, whose version
//! check decides which of its migrations that file needs. Uninstall takes a file that is left
//! with only that key away as it takes an emptied one, so install then uninstall still leaves
//! the repository as it was (a file that existed before install comes back from its backup,
//! keep.rs).

use super::mcp::McpFile;
use super::{Place, Wiring};
use crate::edit::hooks_doc::Wanted;
use crate::edit::hooks_file::HooksEdit;
use crate::edit::json_doc::{Number, Value};
use crate::edit::json_layout::{self, Layout};
use handover_clients::qwen::{SETTINGS_VERSION, SETTINGS_VERSION_KEY};
use std::path::Path;

pub struct QwenWiring;

impl Wiring for QwenWiring {
    /// `mcpServers` in its settings file, the hooks' file of each scope.
    fn mcp_file(&self, at: Place<'_>) -> Option<McpFile> {
        let path =
            crate::files::hooks_path(handover_clients::Agent::Qwen, at.scope, at.repo, at.homes);
        let needs = (at.scope != handover_clients::Scope::User).then_some(
            "Qwen Code lists a project's MCP server as pending approval until you approve it (`/mcp` in its terminal UI; `qwen -p --yolo` starts it without asking)",
        );
        Some(McpFile::json(path).needing(needs))
    }

    fn edit_hooks(&self, path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
        let (after, changes) = crate::edit::hooks_file::edit_hooks_json(path, before, want)?;
        let Some(text) = after else {
            return Ok((None, changes));
        };
        if before == Some(text.as_str()) {
            return Ok((Some(text), changes));
        }
        let mut doc = json_layout::parse(path, &text)?;
        let Some(map) = doc.as_object_mut() else {
            return Ok((Some(text), changes));
        };
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        if want.is_some() {
            if keys != ["hooks"] {
                return Ok((Some(text), changes));
            }
            map.insert(
                SETTINGS_VERSION_KEY.to_string(),
                Value::Number(Number::from(SETTINGS_VERSION)),
            );
            Ok((
                Some(json_layout::render(&doc, &Layout::detect(&text))),
                changes,
            ))
        } else if keys == [SETTINGS_VERSION_KEY]
            && map.get(SETTINGS_VERSION_KEY).and_then(Value::as_u64) == Some(SETTINGS_VERSION)
        {
            // Our hooks and the version that goes with them were all it held.
            Ok((None, changes))
        } else {
            Ok((Some(text), changes))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::hooks_doc;
    use handover_clients::Agent;

    fn wanted() -> Vec<Wanted> {
        hooks_doc::wanted_by(
            Agent::Qwen,
            &[(
                handover_base::hook_exe::HookExe::SessionStart,
                "/opt/handover-session-start".to_string(),
            )],
        )
    }

    fn edit(before: Option<&str>, install: bool) -> Option<String> {
        let want = wanted();
        QwenWiring
            .edit_hooks(
                Path::new(".qwen/settings.json"),
                before,
                install.then_some(want.as_slice()),
            )
            .map(|(after, _)| after)
            .unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn version_of(text: &str) -> Option<u64> {
        json_layout::parse(Path::new("s.json"), text)
            .ok()?
            .get(SETTINGS_VERSION_KEY)?
            .as_u64()
    }

    #[test]
    fn a_file_install_creates_carries_qwens_version_and_uninstall_deletes_it() {
        let installed = edit(None, true).unwrap_or_default();
        assert_eq!(
            version_of(&installed),
            Some(SETTINGS_VERSION),
            "{installed}"
        );
        assert!(installed.contains("handover-session-start"), "{installed}");
        assert_eq!(edit(Some(&installed), false), None, "{installed}");
        // Installing again changes nothing.
        assert_eq!(
            edit(Some(&installed), true).as_deref(),
            Some(installed.as_str())
        );
    }

    #[test]
    fn a_users_file_with_other_settings_gets_no_version() {
        let before = "{\n  \"model\": {\"name\": \"qwen3\"}\n}\n";
        let installed = edit(Some(before), true).unwrap_or_default();
        assert_eq!(version_of(&installed), None, "{installed}");
        let back = edit(Some(&installed), false).unwrap_or_default();
        assert_eq!(version_of(&back), None, "{back}");
    }

    #[test]
    fn a_users_version_stays_with_the_users_settings() {
        let before = "{\n  \"model\": {\"name\": \"qwen3\"},\n  \"$version\": 4\n}\n";
        let installed = edit(Some(before), true).unwrap_or_default();
        let back = edit(Some(&installed), false).unwrap_or_default();
        assert_eq!(version_of(&back), Some(SETTINGS_VERSION), "{back}");
        assert!(back.contains("qwen3"), "{back}");
    }
}
