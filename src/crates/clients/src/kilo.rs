//! Kilo Code's CLI (checked against 7.7.9, see docs/compatibility.md).
//!
//! A fork of OpenCode with the same plugin API (`@kilocode/plugin`): it runs OpenCode's plugin
//! unchanged, so everything but its places is OpenCode's ([`opencode`]'s module doc): the same
//! moments, plain-text answers, the plugin's session files as its transcript, the same
//! compaction rule (`limit.input` less `compaction.reserved`, else `limit.context` less the
//! output limit capped at 32,000), `AGENTS.md`.
//!
//! - Its places: the plugin goes to `.kilo/plugin/` of the project or `~/.config/kilo/plugin/`
//!   of the user (it also runs modules in `.kilocode/plugin(s)/`, never in `.opencode/`); the
//!   plugin keeps its session files in `~/.config/kilo/handover-sessions/` and names the
//!   session for the shell commands in [`SESSION_VAR`].
//! - `kilo run` sends no title request; its TUI and `kilo run` end a session as OpenCode's do.

use crate::opencode::{self, OpenCode};
use crate::{Agent, Client, Home, HookFiles, ShellName, Trust};

pub static CLIENT: Client = Client {
    agent: Agent::Kilo,
    name: "kilo",
    aliases: &["kilocode", "kilo-code"],
    display_name: "Kilo Code",
    executable: "kilo",
    fresh_session: "`/new` in Kilo Code",
    events: opencode::CLIENT.events,
    timeout: opencode::CLIENT.timeout,
    shell_name: Some(ShellName::NotEmpty(SESSION_VAR)),
    shell_session_id_var: Some(SESSION_VAR),
    project_dir_var: None,
    quirks: opencode::CLIENT.quirks,
    model_windows: &[],
    large_variant: None,
    transcripts: opencode::TRANSCRIPTS,
    transcript_lines: opencode::CLIENT.transcript_lines,
    transcript_filing: opencode::CLIENT.transcript_filing,
    late_end: Some("Kilo Code reports no end for a session that is quit while it keeps it"),
    transcript_flush_delay: None,
    home: Home {
        dir: ".config/kilo",
        moved_by: None,
    },
    hook_files: HookFiles {
        project: ".kilo/plugin/handover.js",
        local: None,
        user: opencode::PLUGIN_FILE,
        also_read: &[],
    },
    instruction_file: "AGENTS.md",
    instruction_files_read: &[],
    trust: Trust::RunsAll,
    plugin_dir: None,
    behaviour: &KILO,
};

/// The variable the plugin sets for the shell commands of a session: the session's id.
pub const SESSION_VAR: &str = "HANDOVER_KILO_SESSION_ID";

static KILO: OpenCode = OpenCode {
    home_folder: "kilo",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HookInput, Scope, ShellSign, UserDirs};
    use std::path::{Path, PathBuf};

    #[test]
    fn its_places_are_its_own() {
        let dirs = UserDirs::under(Path::new("/h"));
        let home = CLIENT.user_dir(&dirs).unwrap();
        assert_eq!(home, PathBuf::from("/h/.config/kilo"));
        assert_eq!(
            CLIENT.transcript_dir(&dirs),
            Some(PathBuf::from("/h/.config/kilo/handover-sessions"))
        );
        assert_eq!(
            CLIENT.hooks_file(Scope::Project, Path::new("/r"), &home),
            PathBuf::from("/r/.kilo/plugin/handover.js")
        );
        assert_eq!(
            CLIENT.hooks_file(Scope::User, Path::new("/r"), &home),
            PathBuf::from("/h/.config/kilo/plugin/handover.js")
        );
        // The behaviour's folder is the declaration's.
        assert!(CLIENT.home.dir.ends_with(&format!("/{}", KILO.home_folder)));
    }

    #[test]
    fn its_transcripts_and_shells_are_told_from_opencodes() {
        let kilo = HookInput::parse(
            br#"{"session_id":"ses_1","transcript_path":"/h/.config/kilo/handover-sessions/ses_1.jsonl"}"#,
        );
        assert_eq!(crate::detect(&kilo), Agent::Kilo);
        let opencode = HookInput::parse(
            br#"{"session_id":"ses_1","transcript_path":"/h/.config/opencode/handover-sessions/ses_1.jsonl"}"#,
        );
        assert_eq!(crate::detect(&opencode), Agent::OpenCode);
        let env = crate::env_of(&[(SESSION_VAR, "ses_1")]);
        assert_eq!(CLIENT.runs_this_shell(&env), Some(ShellSign::Named));
        assert_eq!(crate::running_the_shell(&env), Some(Agent::Kilo));
        let env = crate::env_of(&[(opencode::SESSION_VAR, "ses_1")]);
        assert_eq!(crate::running_the_shell(&env), Some(Agent::OpenCode));
    }

    #[test]
    fn names() {
        assert_eq!(Agent::from_name("Kilo-Code"), Some(Agent::Kilo));
        assert_eq!(Agent::from_name("kilocode"), Some(Agent::Kilo));
        assert_eq!(Agent::Kilo.as_str(), "kilo");
    }
}
