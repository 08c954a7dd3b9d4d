//! `handover write` fills what the writer left empty from the session record: the files the
//! session edited (as `important_files`) and the commands it ran (`evidence.commands_run`),
//! each marked as recorded by the tool, so the agent spends its words on decisions, blockers
//! and state. Only empty fields are filled; nothing the writer wrote is changed.

use super::{Command, SessionRecord};
use handover_handoff::model::{Content, ImportantFile};

/// The mark on every filled entry.
pub const MARK: &str = "recorded by handover";

/// Fills the empty fields; returns the names of the fields filled.
pub fn fill(content: &mut Content, record: &SessionRecord) -> Vec<&'static str> {
    let mut filled = Vec::new();
    if content.important_files.is_empty() && !record.files_edited.is_empty() {
        content.important_files = record
            .files_edited
            .iter()
            .map(|path| ImportantFile {
                path: path.clone(),
                why: format!("edited in this session ({MARK})"),
            })
            .collect();
        filled.push("important_files");
    }
    if content.evidence.commands_run.is_empty() {
        let mut commands: Vec<&Command> = record.commands.iter().collect();
        // A failing command or test run that scrolled out of the kept list still counts.
        for extra in [&record.last_failure, &record.last_test]
            .into_iter()
            .flatten()
        {
            if !commands.contains(&extra) {
                commands.insert(0, extra);
            }
        }
        if !commands.is_empty() {
            content.evidence.commands_run = commands.into_iter().map(describe).collect();
            filled.push("evidence.commands_run");
        }
    }
    filled
}

fn describe(c: &Command) -> String {
    let code = c
        .exit_code
        .map(|x| format!(", exit {x}"))
        .unwrap_or_default();
    format!("{} ({}{code}; {MARK})", c.command, c.status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Fact;

    #[test]
    fn fills_only_what_the_writer_left_empty() {
        let mut r = SessionRecord::new("s", handover_clients::Agent::Codex);
        r.apply(Fact::Edited("src/parse.py".into()));
        r.apply(Fact::CommandRan {
            command: "sh run_tests.sh".into(),
            exit_code: Some(1),
        });
        let mut c = Content::default();
        assert_eq!(
            fill(&mut c, &r),
            ["important_files", "evidence.commands_run"]
        );
        assert_eq!(c.important_files[0].path, "src/parse.py");
        assert_eq!(
            c.evidence.commands_run,
            ["sh run_tests.sh (failed, exit 1; recorded by handover)"]
        );
        let mut written = Content::default();
        written.evidence.commands_run = vec!["cargo test".into()];
        assert_eq!(fill(&mut written, &r), ["important_files"]);
        assert_eq!(written.evidence.commands_run, ["cargo test"]);
        assert!(fill(
            &mut Content::default(),
            &SessionRecord::new("e", handover_clients::Agent::Claude)
        )
        .is_empty());
    }
}
