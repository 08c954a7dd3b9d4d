//! Factory Droid in the harness (pinned 0.225.2, `clients.droid`): how it runs offline, where
//! hook texts land in its requests, where it records hook errors.
//!
//! Offline: `FACTORY_AIRGAP_ENABLED=1` (no Factory login; built-in models refused) and a
//! `customModels` entry in `$HOME/.factory/settings.json` pointing at the fake server's
//! chat-completions wire (`provider: generic-chat-completion-api`). Droid names that model
//! `custom:<displayName>-<index>`, so the entry below is [`MODEL`].
//! Run: `droid exec -m custom:Fake-0 --auto high -o json <prompt>`; its JSON result names the
//! session. A "resume" is `--fork <id>`: a new session with the old one's history (SessionStart
//! `source: resume`, `previous_session_id`). `-s <id>`, the true continuation, first fetches the
//! session from Factory's servers, which air-gap mode refuses ("Failed to fetch session").

use super::*;

/// The id Droid gives the one custom model of [`write_settings`] (`displayName` "Fake", index 0).
pub const MODEL: &str = "custom:Fake-0";

/// Droid's user settings (`$HOME/.factory/settings.json`): the fake server as its one custom
/// model, plus `extra` top-level members (e.g. `"compactionTokenLimit": 20000`, which moves its
/// automatic compaction point; its default for a custom model is 250,000 input tokens).
pub fn write_settings(home: &Path, extra: &str) {
    write_settings_with_model(home, "", extra)
}

/// [`write_settings`], with `model_extra` members in the custom model's entry (e.g.
/// `"maxContextLimit": 200000`, the model's declared window).
pub fn write_settings_with_model(home: &Path, model_extra: &str, extra: &str) {
    let dir = home.join(".factory");
    std::fs::create_dir_all(&dir).expect("create ~/.factory");
    let more = |members: &str, sep: &str| {
        if members.is_empty() {
            String::new()
        } else {
            format!(",{sep}{members}")
        }
    };
    let (model_extra, extra) = (more(model_extra, " "), more(extra, "\n  "));
    std::fs::write(
        dir.join("settings.json"),
        format!(
            "{{\n  \"customModels\": [\n    {{\"model\": \"fake-droid\", \"displayName\": \"Fake\", \"provider\": \"generic-chat-completion-api\", \"baseUrl\": \"http://127.0.0.1:{PORT}/v1\", \"apiKey\": \"sk-e2e-fake\"{model_extra}}}\n  ]{extra}\n}}\n"
        ),
    )
    .expect("write droid settings");
}

/// The command line of one headless run (after the binary).
pub fn args(opts: &RunOpts) -> Vec<String> {
    let mut args: Vec<String> = ["exec", "-m", MODEL, "--auto", "high", "-o", "json"]
        .map(String::from)
        .to_vec();
    if let Some(id) = &opts.resume {
        args.extend(["--fork".to_string(), id.clone()]);
    }
    args.extend(opts.client_args.iter().cloned());
    args.push(opts.prompt.to_string());
    args
}

/// Droid's environment: the sandbox's HOME (its sessions go to `~/.factory/sessions/`) and
/// air-gap mode, which lets it run a custom model without a Factory account.
pub fn env(home: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("FACTORY_AIRGAP_ENABLED", "1".into()),
    ]
}

/// Droid 0.225.2 puts a SessionStart context, a PostToolUse context and a Stop block's reason
/// each as a `user` message of its own (a plain string); the model's prompt is one too (a text
/// part). Every user text is taken but Droid's own `<system-reminder>` blocks (its tool and
/// skill lists, the repository's AGENTS.md): the scenarios look for our own words in them.
pub fn hook_contexts(body: &Value) -> Vec<String> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .flat_map(|m| match m.get("content") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str).map(String::from))
                .collect(),
            _ => Vec::new(),
        })
        .filter(|t| !t.trim_start().starts_with("<system-reminder>"))
        .collect()
}

/// Every line of every Droid transcript in `home` (`~/.factory/sessions/<cwd>/<id>.jsonl`).
pub fn transcript_lines(home: &Path) -> Vec<Value> {
    let mut lines = Vec::new();
    let Ok(dirs) = std::fs::read_dir(home.join(".factory/sessions")) else {
        return lines;
    };
    for d in dirs.flatten() {
        let Ok(files) = std::fs::read_dir(d.path()) else {
            continue;
        };
        for f in files.flatten() {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                if let Ok(text) = std::fs::read_to_string(f.path()) {
                    lines.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
                }
            }
        }
    }
    lines
}

/// The hook runs Droid recorded as failed: each hook run is a transcript message with
/// `hookEventName`, `hookStatus` and per command `hookResults[].exitCode`; anything but
/// "completed" with exit 0 is an error (a Stop block of ours is exit 0 with JSON).
pub fn hook_errors(home: &Path) -> Vec<String> {
    transcript_lines(home)
        .into_iter()
        .filter_map(|l| {
            let m = l.get("message")?;
            m.get("hookEventName")?;
            let status = m.get("hookStatus").and_then(Value::as_str).unwrap_or("");
            let failed = m
                .get("hookResults")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|r| r.get("exitCode").and_then(Value::as_i64) != Some(0));
            (status != "completed" || failed).then(|| l.to_string())
        })
        .collect()
}

/// The events of the hook runs Droid recorded (`hookEventName` of each hook message), in order:
/// proof that our hooks ran where nothing was injected.
pub fn hook_events(home: &Path) -> Vec<String> {
    transcript_lines(home)
        .iter()
        .filter_map(|l| {
            l.pointer("/message/hookEventName")?
                .as_str()
                .map(String::from)
        })
        .collect()
}

/// Droid's automatic compaction, forced by `compactionTokenLimit` 20,000 in its user settings
/// and a tool call reporting 30,000 input tokens in a resumed session whose handoff is saved.
/// Droid compacts right after that call's PostToolUse and runs no hook for it (no PreCompact,
/// no SessionStart `compact`): the request after the compaction carries nothing new, and the
/// next tool result carries the handoff again, once.
pub fn compaction_keeps_the_handoff() {
    use super::fake_server::Turn;
    const AFTER_COMPACTION: &str = "handover: the context was just compacted";
    let agent = Agent::Droid;
    let sb = Sandbox::new(agent, Trust::Installed);
    let write = sb.write_command(&HANDOFF);
    let s1 = sb.run(
        vec![
            Turn::shell(&write).usage(4_000),
            Turn::text("Saved.").usage(4_500),
        ],
        RunOpts::prompt("Save the state of the work."),
    );
    assert!(
        sb.project.join(".handover/state.json").is_file(),
        "the model's handover write did not run:\n{}",
        s1.describe()
    );
    write_settings(&sb.home, "\"compactionTokenLimit\": 20000");
    let run = super::scenarios::big_step_resumed(&sb, &s1, (30_000, 3_000, 2_000), "compaction");
    let compactions = run.compaction_requests();
    assert_eq!(
        compactions.len(),
        1,
        "expected one compaction:\n{}",
        run.describe()
    );
    let after = run.conversation_after(compactions[0]);
    assert_eq!(after.len(), 2, "{}", run.describe());
    assert_eq!(
        count_in(after[0], AFTER_COMPACTION),
        0,
        "the request right after the compaction already carries the handoff (no hook ran)"
    );
    assert_eq!(
        count_in(after[1], AFTER_COMPACTION),
        1,
        "the tool result after the compaction does not carry the handoff again, once:\n{}",
        injected(agent, after[1])
    );
    let text = injected(agent, after[1]);
    for needle in [
        HANDOFF.goal,
        HANDOFF.next,
        HANDOFF.stop_if[0],
        "Verdict: fresh",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
    assert_eq!(sb.hook_errors(&[&s1, &run]), Vec::<String>::new());
}

/// The session id our SessionStart exported through `CLAUDE_ENV_FILE` reaches the model's shell
/// commands, equal to the id the hooks got, and a session's id is its own (a second session,
/// `--fork`, gets its new id).
pub fn shell_commands_get_the_session_id() {
    use super::fake_server::Turn;
    let sb = Sandbox::new(Agent::Droid, Trust::Installed);
    let seen = |run: &ClientRun| {
        let text = std::fs::read_to_string(sb.project.join("sid.txt"))
            .unwrap_or_else(|e| panic!("the shell command did not run ({e}):\n{}", run.describe()));
        assert_eq!(text, run.session_id(), "{}", run.describe());
    };
    let print = "printf '%s' \"$HANDOVER_DROID_SESSION_ID\" > sid.txt";
    let s1 = sb.run(
        vec![
            Turn::shell(print).usage(3_000),
            Turn::text("Done.").usage(3_100),
        ],
        RunOpts::prompt("Print the session id."),
    );
    seen(&s1);
    let s2 = sb.run(
        vec![
            Turn::shell(print).usage(3_200),
            Turn::text("Done.").usage(3_300),
        ],
        RunOpts::prompt("Print it again.").resume(&s1.session_id()),
    );
    assert_ne!(s1.session_id(), s2.session_id());
    seen(&s2);
    assert_eq!(sb.hook_errors(&[&s1, &s2]), Vec::<String>::new());
}

/// A custom model declared with a 200,000-token window (`maxContextLimit`): Droid keeps its own
/// limit at 250,000 and compacts only when the provider refuses a request past the window, so
/// the save reminder must come before the window. At 130,000 input tokens (65 % of the window,
/// 52 % of Droid's limit) it arrives; the same run without the declared window stays below the
/// first threshold.
pub fn reminder_comes_before_a_declared_small_window() {
    use super::fake_server::Turn;
    use super::scenarios::REMIND;
    let agent = Agent::Droid;
    let reminders = |model_extra: &str| {
        let sb = Sandbox::new(agent, Trust::Installed);
        write_settings_with_model(&sb.home, model_extra, "");
        let run = sb.run(
            vec![
                Turn::shell("echo step one").usage(130_000),
                Turn::shell("echo step two").usage(130_500),
                Turn::text("Done for now.").usage(131_000),
            ],
            RunOpts {
                max_turns: 6,
                default_usage: 131_500,
                ..RunOpts::prompt("Work on the CSV export.")
            },
        );
        assert_eq!(sb.hook_errors(&[&run]), Vec::<String>::new());
        let counts: Vec<usize> = run
            .conversation()
            .iter()
            .map(|r| count_in(r, REMIND))
            .collect();
        (counts, run.describe())
    };
    let (declared, described) = reminders("\"maxContextLimit\": 200000");
    assert!(
        declared.contains(&1),
        "no save reminder at 65 % of the declared window (counts per request {declared:?}):\n{described}"
    );
    let (undeclared, described) = reminders("");
    assert!(
        undeclared.iter().all(|c| *c == 0),
        "a reminder at 52 % of Droid's limit (counts per request {undeclared:?}):\n{described}"
    );
}
