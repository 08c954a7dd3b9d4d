//! OpenCode's "hooks file" is our plugin (`.opencode/plugin/handover.js`, or
//! `~/.config/opencode/plugin/handover.js` for the user): one plain-JS module, the client
//! module's template with our hook entries in the shared `hooks` shape put in its `HOOKS`
//! constant. The entries are edited as in any hooks file (hooks_doc); the file around them is
//! always the template, so the plugin is exactly what this version of handover writes or it is
//! reported changed (`read_hooks_doc`: status shows the problem, install writes it again).
//! Uninstall removes the file once no entry is left.
//!
//! Each entry of ours also gets an `argv`: the same command as a list of words, so that the
//! plugin starts the executable itself instead of a shell that starts it (a shell per hook was
//! most of what a hook cost OpenCode beyond the executable's own work, docs/benchmarks.md). It is
//! derived from `command` every time the plugin is written, never read: an entry the form of
//! which is not exactly what install writes (a user's prefix, an older launcher) has none, and
//! the plugin runs its `command` through `sh -c` as before.
//!
//! Kilo Code, OpenCode's fork, runs the same plugin: [`OpenCodeWiring`] is made for a client's
//! declaration, whose user directory and shell session variable go into the template's
//! `__HOME__` and `__SESSION_VAR__`.

use super::Wiring;
use crate::edit::hooks_doc::{self, Wanted};
use crate::edit::hooks_file::HooksEdit;
use crate::edit::json_doc::{Map, Value};
use crate::edit::json_layout::{self, Layout};
use crate::error::EditError;
use handover_base::hook_command::{recognise, Recognised};
use handover_base::hook_exe::{command_for, portable_command, LAUNCHER};
use handover_clients::opencode::PLUGIN_TEMPLATE;
use handover_clients::Client;
use std::path::Path;

/// The plugin of the client it was made for ([`OpenCodeWiring::of`]).
pub struct OpenCodeWiring {
    client: &'static Client,
}

impl OpenCodeWiring {
    pub const fn of(client: &'static Client) -> OpenCodeWiring {
        OpenCodeWiring { client }
    }

    /// The template with the client's places in it, before the entries.
    fn template(&self) -> String {
        let var = self.client.shell_session_id_var.unwrap_or_default();
        PLUGIN_TEMPLATE
            .replacen("__HOME__", self.client.home.dir, 1)
            .replacen("__SESSION_VAR__", var, 1)
    }
}

/// Where the template takes the entries.
const SLOT: &str = "__HOOKS__";

impl Wiring for OpenCodeWiring {
    fn edit_hooks(&self, path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
        let mut doc = match before {
            None if want.is_none() => return Ok((None, Vec::new())),
            None => Value::Object(Map::new()),
            Some(text) => self.entries_of(path, text)?,
        };
        let changes = match want {
            Some(w) => hooks_doc::install(&mut doc, w, path)?,
            None => hooks_doc::uninstall(&mut doc, path)?,
        };
        let emptied = doc.as_object().is_some_and(|m| m.is_empty());
        if want.is_none() && emptied {
            return Ok((None, changes));
        }
        Ok((Some(self.plugin_text(&doc)), changes))
    }

    /// The entries, from a plugin that is exactly what handover writes for them.
    fn read_hooks_doc(&self, path: &Path, text: &str) -> Result<Value, EditError> {
        let doc = self.entries_of(path, text)?;
        if self.plugin_text(&doc) != text {
            return Err(EditError::new(
                path,
                "this plugin was changed since handover wrote it; run `handover install` again \
                 to write it as handover does (or `handover uninstall` to remove it)",
            ));
        }
        Ok(doc)
    }
}

impl OpenCodeWiring {
    /// The plugin for the entries `doc`, each of ours with its `argv`.
    pub fn plugin_text(&self, doc: &Value) -> String {
        let mut doc = doc.clone();
        with_argv(&mut doc);
        let json = json_layout::render(&doc, &Layout::default());
        self.template().replacen(SLOT, json.trim_end(), 1)
    }

    /// The entries in a plugin handover wrote: the JSON between the template's text before and
    /// after its slot. Any other file at the plugin's place is refused, never overwritten.
    fn entries_of(&self, path: &Path, text: &str) -> Result<Value, EditError> {
        let not_ours = || {
            EditError::new(
                path,
                "this is not the plugin handover writes; move it away (or rename it) and run the \
                 command again",
            )
        };
        let template = self.template();
        let (head, tail) = template.split_once(SLOT).ok_or_else(not_ours)?;
        // The first line after the slot ends the JSON (`;` and a newline in the template).
        let end = tail.lines().next().unwrap_or("");
        let json = text
            .strip_prefix(head)
            .and_then(|rest| rest.find(&format!("}}{end}\n")).map(|i| &rest[..=i]))
            .ok_or_else(not_ours)?;
        json_layout::parse(path, json)
    }
}

/// Sets (or removes) every handler's `argv` after its `command`, from the command alone.
fn with_argv(doc: &mut Value) {
    let Some(events) = doc.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    for (_, groups) in events.iter_mut() {
        for group in groups.as_array_mut().into_iter().flatten() {
            let handlers = group.get_mut("hooks").and_then(Value::as_array_mut);
            for handler in handlers.into_iter().flatten() {
                let Some(h) = handler.as_object_mut() else {
                    continue;
                };
                let argv = h.get("command").and_then(Value::as_str).and_then(argv_of);
                h.remove("argv");
                if let Some(words) = argv {
                    let words = words.into_iter().map(Value::from).collect();
                    // Right after `command`: keys are kept in the order they were added.
                    let mut entries: Vec<(String, Value)> =
                        h.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                    let at = entries
                        .iter()
                        .position(|(k, _)| k == "command")
                        .map_or(0, |i| i + 1);
                    entries.insert(at, ("argv".into(), Value::Array(words)));
                    *handler = Value::object(entries);
                }
            }
        }
    }
}

/// The words `sh -c` would run for `command`, when it is exactly one of the two forms install
/// writes ([`command_for`], [`portable_command`]); None otherwise.
fn argv_of(command: &str) -> Option<Vec<String>> {
    let Recognised::Ours(ours) = recognise(command) else {
        return None;
    };
    let agent = ours.agent.as_deref()?;
    if !ours.is_plain() || ours.event.is_some() {
        return None;
    }
    let flags = ["--agent".to_string(), agent.to_string()];
    if ours.portable {
        let name = ours.exe.file_name();
        (command == portable_command(ours.exe, agent)).then(|| {
            let head = ["sh", "-c", LAUNCHER, name].map(String::from);
            head.into_iter().chain(flags).collect()
        })
    } else {
        (command == command_for(Path::new(&ours.program), agent))
            .then(|| std::iter::once(ours.program.clone()).chain(flags).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handover_base::hook_exe::HookExe;
    use handover_clients::Agent;

    static OPENCODE: OpenCodeWiring = OpenCodeWiring::of(&handover_clients::opencode::CLIENT);

    fn wanted(prefix: &str) -> Vec<Wanted> {
        hooks_doc::wanted_by(
            Agent::OpenCode,
            &HookExe::ALL.map(|e| (e, format!("{prefix}/{} --agent opencode", e.file_name()))),
        )
    }

    const P: &str = ".opencode/plugin/handover.js";

    #[test]
    fn install_writes_the_template_with_our_entries_and_reads_them_back() {
        let p = Path::new(P);
        let (text, changes) = OPENCODE.edit_hooks(p, None, Some(&wanted("/b"))).unwrap();
        let text = text.unwrap();
        assert!(!changes.is_empty());
        assert!(text.contains("\"SessionStart\""), "{text}");
        assert!(text.contains("/b/handover-session-start --agent opencode"));
        assert!(!text.contains(SLOT));
        let doc = OPENCODE.read_hooks_doc(p, &text).unwrap();
        let (ours, _) = hooks_doc::find(&doc);
        assert_eq!(ours.len(), wanted("/b").len());
        // Again: the same bytes.
        let (again, _) = OPENCODE
            .edit_hooks(p, Some(&text), Some(&wanted("/b")))
            .unwrap();
        assert_eq!(again.as_deref(), Some(text.as_str()));
        // Moved executables: the entries follow.
        let (moved, _) = OPENCODE
            .edit_hooks(p, Some(&text), Some(&wanted("/c")))
            .unwrap();
        let moved = moved.unwrap();
        assert!(moved.contains("/c/handover-session-start") && !moved.contains("/b/"));
        // Uninstall: the file goes.
        let (gone, changes) = OPENCODE.edit_hooks(p, Some(&text), None).unwrap();
        assert_eq!(gone, None);
        assert!(!changes.is_empty());
        assert_eq!(
            OPENCODE.edit_hooks(p, None, None).unwrap(),
            (None, Vec::new())
        );
    }

    #[test]
    fn each_command_of_ours_gets_the_words_sh_would_run() {
        let path = "/it's a \"dir\"/handover-pre-compact";
        let plain = command_for(Path::new(path), "opencode");
        assert_eq!(
            argv_of(&plain),
            Some(vec![path.into(), "--agent".into(), "opencode".into()])
        );
        let portable = portable_command(HookExe::PreCompact, "opencode");
        assert_eq!(
            argv_of(&portable),
            Some(
                [
                    "sh",
                    "-c",
                    LAUNCHER,
                    "handover-pre-compact",
                    "--agent",
                    "opencode"
                ]
                .map(String::from)
                .to_vec()
            )
        );
        // Anything but exactly what install writes runs through `sh -c` as it is.
        for other in [
            format!("HANDOVER_HOOK_DEBUG=/tmp/x {plain}"),
            format!("exec {plain}"),
            format!("{plain} --event PreCompact"),
            "/b/handover-pre-compact  --agent opencode".to_string(),
            "/b/handover-pre-compact".to_string(),
            "my-wrapper /b/handover-pre-compact --agent opencode".to_string(),
        ] {
            assert_eq!(argv_of(&other), None, "{other}");
        }
    }

    #[test]
    fn the_plugin_carries_the_words_and_a_prefixed_entry_keeps_only_its_command() {
        let p = Path::new(P);
        let (text, _) = OPENCODE.edit_hooks(p, None, Some(&wanted("/b"))).unwrap();
        let text = text.unwrap();
        let doc = OPENCODE.read_hooks_doc(p, &text).unwrap();
        let start = &doc.pointer("/hooks/SessionStart/0/hooks/0").unwrap();
        let words: Vec<&str> = start
            .get("argv")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(words, ["/b/handover-session-start", "--agent", "opencode"]);
        // A user's prefix, kept by install: no words, the command through a shell.
        let prefixed = text.replace(
            "\"command\": \"/b/handover-session-start",
            "\"command\": \"HANDOVER_HOOK_DEBUG=/tmp/log /b/handover-session-start",
        );
        let (again, _) = OPENCODE
            .edit_hooks(p, Some(&prefixed), Some(&wanted("/b")))
            .unwrap();
        let again = again.unwrap();
        let doc = OPENCODE.read_hooks_doc(p, &again).unwrap();
        let start = doc.pointer("/hooks/SessionStart/0/hooks/0").unwrap();
        assert!(start.get("argv").is_none(), "{again}");
        assert!(
            again.contains("HANDOVER_HOOK_DEBUG=/tmp/log /b/handover-session-start"),
            "{again}"
        );
    }

    #[test]
    fn a_changed_plugin_shows_and_another_file_is_refused() {
        let p = Path::new(P);
        let (text, _) = OPENCODE.edit_hooks(p, None, Some(&wanted("/b"))).unwrap();
        let text = text.unwrap();
        let tampered = text.replace("if (s.started) keep", "keep");
        assert_ne!(tampered, text);
        let err = OPENCODE.read_hooks_doc(p, &tampered).unwrap_err();
        assert!(
            err.message.contains("changed since handover wrote it"),
            "{err}"
        );
        // Install writes it as handover does again.
        let (fixed, _) = OPENCODE
            .edit_hooks(p, Some(&tampered), Some(&wanted("/b")))
            .unwrap();
        assert_eq!(fixed.as_deref(), Some(text.as_str()));
        // A user's own plugin of that name is never overwritten.
        let own = "export const Mine = async () => ({});\n";
        let err = OPENCODE
            .edit_hooks(p, Some(own), Some(&wanted("/b")))
            .unwrap_err();
        assert!(
            err.message.contains("not the plugin handover writes"),
            "{err}"
        );
        assert!(OPENCODE.read_hooks_doc(p, own).is_err());
    }

    #[test]
    fn each_client_gets_its_own_places_in_the_same_plugin() {
        static KILO: OpenCodeWiring = OpenCodeWiring::of(&handover_clients::kilo::CLIENT);
        let p = Path::new(".kilo/plugin/handover.js");
        let want = hooks_doc::wanted_by(
            Agent::Kilo,
            &HookExe::ALL.map(|e| (e, format!("/b/{} --agent kilo", e.file_name()))),
        );
        let kilo = KILO.edit_hooks(p, None, Some(&want)).unwrap().0.unwrap();
        assert!(kilo.contains("/.config/kilo/handover-sessions`"), "{kilo}");
        assert!(kilo.contains("output.env.HANDOVER_KILO_SESSION_ID = input.sessionID"));
        assert!(!kilo.contains("__") && !kilo.contains("opencode"), "{kilo}");
        let doc = KILO.read_hooks_doc(p, &kilo).unwrap();
        assert_eq!(hooks_doc::find(&doc).0.len(), want.len());
        // OpenCode's: its own places, and Kilo Code's plugin is not taken for one of its.
        let open = OPENCODE
            .edit_hooks(Path::new(P), None, Some(&wanted("/b")))
            .unwrap()
            .0
            .unwrap();
        assert!(open.contains("/.config/opencode/handover-sessions`"));
        assert!(open.contains("output.env.HANDOVER_OPENCODE_SESSION_ID = input.sessionID"));
        assert!(OPENCODE.read_hooks_doc(Path::new(P), &kilo).is_err());
    }
}
