//! Which client runs the hook: from `--agent` (the installer passes it), else from the input.

use handover_clients::Agent;

/// `--agent NAME` or `--agent=NAME`, parsed by hand: an argument parser's usage error exits 2,
/// which a client reads as "block". Unknown arguments and unknown names are ignored; the last
/// known name wins.
pub fn from_args<I: IntoIterator<Item = String>>(args: I) -> Option<Agent> {
    flag_values(args, "--agent")
        .iter()
        .filter_map(|v| Agent::from_name(v))
        .next_back()
}

/// Every value given to `flag` (`flag VALUE` or `flag=VALUE`), in order; everything else is
/// ignored, so a hook never fails on arguments a newer installer or plugin passes.
pub fn flag_values<I: IntoIterator<Item = String>>(args: I, flag: &str) -> Vec<String> {
    let mut args = args.into_iter();
    let mut values = Vec::new();
    let prefix = format!("{flag}=");
    while let Some(arg) = args.next() {
        if arg == flag {
            values.extend(args.next());
        } else if let Some(v) = arg.strip_prefix(&prefix) {
            values.push(v.to_string());
        }
    }
    values
}

/// Arguments as a process gets them, for the tests of the flags read with [`flag_values`].
#[cfg(test)]
pub(crate) fn args_of(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use handover_clients::{detect, HookInput};

    #[test]
    fn agent_flag_in_both_forms_unknown_args_ignored() {
        assert_eq!(
            from_args(args_of(&["--agent", "codex"])),
            Some(Agent::Codex)
        );
        assert_eq!(
            from_args(args_of(&["-x", "--agent=claude", "more"])),
            Some(Agent::Claude)
        );
        assert_eq!(from_args(args_of(&["--agent", "vim"])), None);
        assert_eq!(from_args(args_of(&["--agent"])), None);
        assert_eq!(from_args(args_of(&["--help"])), None);
    }

    #[test]
    fn detects_codex_by_turn_id_or_rollout_transcript() {
        let codex = HookInput {
            has_turn_id: true,
            ..HookInput::default()
        };
        assert_eq!(detect(&codex), Agent::Codex);
        let rollout = HookInput {
            transcript_path: Some(
                "/h/sessions/2026/11/22/rollout-2026-11-22T01-02-03-abc.jsonl".into(),
            ),
            ..HookInput::default()
        };
        assert_eq!(detect(&rollout), Agent::Codex);
        let claude = HookInput {
            transcript_path: Some("/root/.claude/projects/-w/0b1c.jsonl".into()),
            model: Some("claude-sonnet-4-5".into()),
            ..HookInput::default()
        };
        assert_eq!(detect(&claude), Agent::Claude);
        assert_eq!(detect(&HookInput::default()), Agent::Claude);
    }

    #[test]
    fn detects_gemini_by_event_name_or_transcript_place() {
        for file in [
            "session_start-startup.json",
            "before_agent.json",
            "after_tool.json",
            "after_agent.json",
            "pre_compress-auto.json",
            "session_end.json",
        ] {
            let path = format!(
                "{}/../tests/fixtures/clients/gemini-0.61.0/{file}",
                env!("CARGO_MANIFEST_DIR")
            );
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(detect(&HookInput::parse(&bytes)), Agent::Gemini, "{file}");
        }
        assert_eq!(
            from_args(args_of(&["--agent", "gemini"])),
            Some(Agent::Gemini)
        );
    }
}
