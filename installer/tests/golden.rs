//! Byte-exact golden tests of the pure editors over a corpus of realistic files
//! (tests/fixtures/). The expected outputs are insta snapshots (tests/snapshots/); after an
//! intended change, `INSTA_UPDATE=always cargo test -p handover-installer --test golden` (or
//! `cargo insta review`) and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_clients::Agent;
use handover_installer::edit::hooks_file::edit_hooks_json;
use handover_installer::edit::instructions;
use handover_installer::plan::wanted_for;
use handover_installer::report::ChangeKind;
use handover_installer::wiring::codex::config as codex_config;
use handover_installer::wiring::gemini::files as gemini;
use handover_installer::HookPaths;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

/// How an edited file's lines end, and whether its last line does: the bytes insta does not
/// compare (it reads `\r\n` as `\n` and trims the end), pinned here so that the snapshot's
/// text and this shape together give the file byte for byte.
#[derive(Debug, PartialEq, Clone, Copy)]
enum Ends {
    /// `\n` after every line, the last one included.
    Lf,
    /// `\n` between lines, none after the last (Gemini CLI writes its files so).
    LfNoFinal,
    /// `\r\n` after every line, the last one included.
    Crlf,
    /// `\r\n` between lines, none after the last.
    CrlfNoFinal,
}

impl Ends {
    /// The shape of `text`, or `None` when it has none of these (mixed endings, a blank last
    /// line, trailing spaces): insta's comparison would hide those, so they fail the test.
    fn of(text: &str) -> Option<Ends> {
        let crlf = text.contains("\r\n");
        let body = text.trim_end();
        let ending = if crlf { "\r\n" } else { "\n" };
        let uniform = !crlf || !text.replace("\r\n", "").contains('\n');
        let ends = match (crlf, text.len() > body.len()) {
            (false, true) => Ends::Lf,
            (false, false) => Ends::LfNoFinal,
            (true, true) => Ends::Crlf,
            (true, false) => Ends::CrlfNoFinal,
        };
        let final_ending = if text.len() > body.len() { ending } else { "" };
        (uniform && text == format!("{body}{final_ending}")).then_some(ends)
    }
}

/// `actual` is the snapshot `name` (its text) with the line endings `ends` (its bytes).
fn golden(name: &str, ends: Ends, actual: &str) {
    assert_eq!(Ends::of(actual), Some(ends), "line endings of {name}");
    insta::assert_snapshot!(name, actual);
}

fn hooks() -> HookPaths {
    HookPaths::in_dir(Path::new("/opt/handover/bin"))
}

fn install(name: &str, text: &str, agent: Agent, watch: bool) -> String {
    let want = wanted_for(&hooks(), watch, agent);
    edit_hooks_json(Path::new(name), Some(text), Some(&want))
        .unwrap()
        .0
        .unwrap()
}

fn uninstall(name: &str, text: &str) -> Option<String> {
    edit_hooks_json(Path::new(name), Some(text), None)
        .unwrap()
        .0
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// Install → golden; install again → byte-identical; uninstall → the original.
fn round_trip(name: &str, ends: Ends, agent: Agent, canonical: bool) {
    let original = fixture(name);
    let installed = install(name, &original, agent, true);
    golden(&format!("{name}.installed"), ends, &installed);
    assert_eq!(
        install(name, &installed, agent, true),
        installed,
        "{name}: install twice = install once"
    );
    let removed = uninstall(name, &installed).expect("user content remains");
    if canonical {
        assert_eq!(
            removed, original,
            "{name}: uninstall restores the original byte for byte"
        );
    } else {
        assert_eq!(
            json(&removed),
            json(&original),
            "{name}: uninstall restores the original semantically"
        );
    }
}

#[test]
fn claude_settings_with_other_tools_hooks_and_every_kind_of_setting() {
    round_trip("claude-full.json", Ends::Lf, Agent::Claude, true);
    let installed = install("x", &fixture("claude-full.json"), Agent::Claude, true);
    // Key order of the whole document is unchanged; our groups come after the user's.
    let v = json(&installed);
    // Read in file order (serde_json's own map sorts its keys).
    let doc: handover_installer::edit::json_doc::Value = serde_json::from_str(&installed).unwrap();
    let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "$schema",
            "model",
            "permissions",
            "env",
            "statusLine",
            "hooks",
            "enabledPlugins",
            "includeCoAuthoredBy"
        ]
    );
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(
        stop[0]["hooks"][0]["command"],
        "notify-send 'Claude is done'"
    );
    assert_eq!(
        stop[1]["hooks"][0]["command"],
        "/opt/handover/bin/handover-context-watch --agent claude"
    );
}

#[test]
fn four_space_indent_crlf_and_no_trailing_newline_are_kept() {
    round_trip(
        "claude-4space-crlf-nonl.json",
        Ends::CrlfNoFinal,
        Agent::Claude,
        true,
    );
    let installed = install(
        "x",
        &fixture("claude-4space-crlf-nonl.json"),
        Agent::Claude,
        true,
    );
    assert!(!installed.ends_with('\n'));
    assert!(
        !installed.replace("\r\n", "").contains('\n'),
        "every line ends in CRLF"
    );
    assert!(installed.contains("\r\n        \"PreCompact\""));
}

#[test]
fn compact_file_gets_pretty_printed_and_comes_back_semantically() {
    round_trip("claude-no-hooks.json", Ends::Lf, Agent::Claude, false);
}

#[test]
fn older_install_from_another_path_is_updated_in_place_not_duplicated() {
    let original = fixture("claude-old-install.json");
    let want = wanted_for(&hooks(), true, Agent::Claude);
    let (after, changes) =
        edit_hooks_json(Path::new("s.json"), Some(&original), Some(&want)).unwrap();
    let after = after.unwrap();
    golden("claude-old-install.json.installed", Ends::Lf, &after);
    let v = json(&after);
    // Updated where it was (same group, same position), user's neighbour handler untouched.
    assert_eq!(v["hooks"]["PreCompact"][0]["matcher"], "auto");
    assert_eq!(
        v["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "echo compacting >> /tmp/log"
    );
    assert_eq!(
        v["hooks"]["PreCompact"][0]["hooks"][1]["command"],
        "/opt/handover/bin/handover-pre-compact --agent claude"
    );
    // The second copy is gone (with the group it emptied); the one on a wrong event too
    // (context-watch on SessionEnd, which is the pre-compact executable's).
    assert_eq!(v["hooks"]["PreCompact"].as_array().unwrap().len(), 1);
    let session_end = v["hooks"]["SessionEnd"].as_array().unwrap();
    assert_eq!(session_end.len(), 1, "{session_end:?}");
    assert_eq!(
        session_end[0]["hooks"][0]["command"],
        "/opt/handover/bin/handover-pre-compact --agent claude"
    );
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    let count = |k: ChangeKind| changes.iter().filter(|c| c.kind == k).count();
    assert_eq!(
        (
            count(ChangeKind::Updated),
            count(ChangeKind::Removed),
            count(ChangeKind::Added)
        ),
        (2, 2, 6),
        "{changes:?}"
    );
    assert_eq!(install("s.json", &after, Agent::Claude, true), after);
    // Uninstall keeps only the user's handler and their settings.
    let removed = json(&uninstall("s.json", &after).unwrap());
    assert_eq!(
        removed,
        json(
            r#"{"hooks": {"PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "echo compacting >> /tmp/log"}]}]}, "theme": "dark"}"#
        )
    );
}

#[test]
fn no_watch_leaves_context_watch_out_and_removes_an_earlier_one() {
    let with = install("x", &fixture("claude-full.json"), Agent::Claude, true);
    let without = install("x", &with, Agent::Claude, false);
    assert!(!without.contains("handover-context-watch"));
    assert!(without.contains("handover-session-start"));
    assert_eq!(
        without,
        install("x", &fixture("claude-full.json"), Agent::Claude, false)
    );
}

#[test]
fn paths_with_spaces_and_quotes_are_shell_quoted() {
    let want = wanted_for(
        &HookPaths::in_dir(Path::new("/Users/O'Brien/my tools")),
        false,
        Agent::Codex,
    );
    let (after, _) = edit_hooks_json(Path::new("h.json"), None, Some(&want)).unwrap();
    golden("new-codex-hooks-quoted.json", Ends::Lf, &after.unwrap());
}

#[test]
fn codex_hooks_json_keeps_other_hooks_and_only_has_hooks_at_the_top() {
    round_trip("codex-hooks-other.json", Ends::Lf, Agent::Codex, true);
    let want = wanted_for(&hooks(), true, Agent::Codex);
    let (created, _) = edit_hooks_json(Path::new("h.json"), None, Some(&want)).unwrap();
    let created = created.unwrap();
    golden("new-codex-hooks.json", Ends::Lf, &created);
    assert_eq!(
        json(&created)
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["hooks"]
    );
    // Created by us, emptied by us: the file goes.
    assert_eq!(uninstall("h.json", &created), None);
}

#[test]
fn malformed_json_is_refused_with_its_position() {
    let want = wanted_for(&hooks(), true, Agent::Claude);
    let err = edit_hooks_json(
        Path::new("/r/.claude/settings.json"),
        Some(&fixture("claude-malformed.json")),
        Some(&want),
    )
    .unwrap_err();
    assert_eq!(err.position, Some((4, 3)));
    assert!(
        err.to_string()
            .starts_with("/r/.claude/settings.json:4:3: not valid JSON"),
        "{err}"
    );
    for bad in [
        r#"[1, 2]"#,
        r#"{"hooks": []}"#,
        r#"{"hooks": {"Stop": {}}}"#,
    ] {
        let err = edit_hooks_json(Path::new("s.json"), Some(bad), Some(&want)).unwrap_err();
        assert!(
            err.to_string().contains("fix it by hand")
                || err.to_string().contains("fix the file by hand"),
            "{err}"
        );
    }
}

#[test]
fn codex_config_trust_and_feature_flag_keep_comments_and_order() {
    let path = Path::new("/h/.codex/config.toml");
    let text = fixture("codex-config.toml");
    let mut doc = codex_config::parse(path, &text).unwrap();
    let flags = codex_config::feature_flags(&doc);
    assert!(flags.disabled());
    let problem = flags.problem(path).unwrap();
    assert!(
        problem.contains("/h/.codex/config.toml") && problem.contains("--enable-codex-hooks"),
        "{problem}"
    );
    let c1 = codex_config::enable_hooks(&mut doc);
    let c2 = codex_config::trust_project(&mut doc, Path::new("/home/ana/src/handover demo"), path)
        .unwrap();
    assert_eq!(c1.len(), 1);
    assert_eq!(c2.kind, ChangeKind::Added);
    let out = doc.to_string();
    golden("codex-config.toml.trusted", Ends::Lf, &out);
    // Again: nothing to do, same bytes.
    let mut again = codex_config::parse(path, &out).unwrap();
    assert!(codex_config::enable_hooks(&mut again).is_empty());
    assert_eq!(
        codex_config::trust_project(&mut again, Path::new("/home/ana/src/handover demo"), path)
            .unwrap()
            .kind,
        ChangeKind::Unchanged
    );
    assert_eq!(again.to_string(), out);
    // An explicitly untrusted project becomes trusted only through this explicit call.
    let mut d = codex_config::parse(path, &text).unwrap();
    assert_eq!(
        codex_config::trust_project(&mut d, Path::new("/home/ana/src/untrusted"), path)
            .unwrap()
            .kind,
        ChangeKind::Updated
    );
    assert_eq!(
        codex_config::project_trust(&d, Path::new("/home/ana/src/untrusted")).as_deref(),
        Some("trusted")
    );
}

#[test]
fn codex_config_new_file_and_deprecated_flag() {
    let path = Path::new("c.toml");
    let mut doc = codex_config::parse(path, "").unwrap();
    codex_config::trust_project(&mut doc, Path::new("/r"), path).unwrap();
    assert_eq!(
        doc.to_string(),
        "[projects.\"/r\"]\ntrust_level = \"trusted\"\n",
        "no empty [projects] header"
    );

    let mut doc = codex_config::parse(path, &fixture("codex-config-deprecated.toml")).unwrap();
    let flags = codex_config::feature_flags(&doc);
    assert_eq!(flags.codex_hooks, Some(codex_config::Flag::Bool(false)));
    assert!(flags.problem(path).unwrap().contains("codex_hooks = false"));
    codex_config::enable_hooks(&mut doc);
    golden(
        "codex-config-deprecated.toml.enabled",
        Ends::Lf,
        &doc.to_string(),
    );
    assert_eq!(
        codex_config::feature_flags(&doc).codex_hooks,
        None,
        "never written, only removed"
    );
}

/// `uninstall --codex` puts back exactly the feature flags `--enable-codex-hooks` changed, from
/// the comment it left; a `hooks` the user changed since is left alone.
#[test]
fn codex_feature_flags_are_restored_exactly_on_uninstall() {
    let path = Path::new("c.toml");
    for name in [
        "codex-config.toml",
        "codex-config-deprecated.toml",
        "codex-config-flags.toml",
        "codex-config-crlf.toml",
    ] {
        let text = fixture(name);
        let mut doc = codex_config::parse(path, &text).unwrap();
        assert!(!codex_config::enable_hooks(&mut doc).is_empty(), "{name}");
        assert!(!codex_config::feature_flags(&doc).disabled(), "{name}");
        let enabled = doc.to_string();
        let mut doc = codex_config::parse(path, &enabled).unwrap();
        assert!(!codex_config::restore_hooks(&mut doc).is_empty(), "{name}");
        assert_eq!(
            codex_config::render(&doc, &text),
            text,
            "{name}: restored byte for byte"
        );
        // Nothing recorded, nothing restored.
        let mut again = codex_config::parse(path, &text).unwrap();
        assert!(codex_config::restore_hooks(&mut again).is_empty(), "{name}");
        // The user set it by hand since: theirs now.
        let mut doc =
            codex_config::parse(path, &enabled.replacen("hooks = true", "hooks = false", 1))
                .unwrap();
        assert!(codex_config::restore_hooks(&mut doc).is_empty(), "{name}");
    }
}

#[test]
fn codex_config_trust_entries_removed_only_for_our_keys() {
    let path = Path::new("c.toml");
    let text = fixture("codex-config.toml");
    let ours = "/home/ana/src/p/.codex/hooks.json:session_start:0:0".to_string();
    let with = format!("{text}\n[hooks.state.\"{ours}\"]\ntrusted_hash = \"sha256:22\"\n");
    let mut doc = codex_config::parse(path, &with).unwrap();
    let changes = codex_config::move_trust_entries(&mut doc, &[(ours, None)]);
    assert_eq!(changes.len(), 1);
    assert_eq!(doc.to_string(), text, "the user's own trust entry stays");
    assert_eq!(codex_config::trusted_hashes(&doc).len(), 1);
}

#[test]
fn malformed_toml_is_refused_with_its_position() {
    let err = codex_config::parse(
        Path::new("/h/config.toml"),
        &fixture("codex-config-malformed.toml"),
    )
    .unwrap_err();
    assert_eq!(err.position.map(|p| p.0), Some(3));
    assert!(err.to_string().starts_with("/h/config.toml:3:"), "{err}");
}

#[test]
fn instructions_section_in_a_real_agents_md() {
    let original = fixture("AGENTS.md");
    let (with, c) = instructions::install(Some(&original), "AGENTS.md");
    assert_eq!(c.kind, ChangeKind::Added);
    golden("AGENTS.md.installed", Ends::Lf, &with);
    assert_eq!(instructions::install(Some(&with), "AGENTS.md").0, with);
    assert_eq!(
        instructions::uninstall(&with, "AGENTS.md").0.as_deref(),
        Some(original.as_str())
    );
}

/// A user's command that wraps ours is never rewritten and stands for ours on its event; a copy
/// of ours written with `VAR=x … exec` is ours (updated in place, prefix kept, not added twice);
/// uninstall takes ours out and leaves the user's commands, so the file stays.
#[test]
fn users_own_commands_are_left_alone_and_prefixed_ones_are_ours() {
    let original = fixture("claude-user-commands.json");
    let want = wanted_for(&hooks(), true, Agent::Claude);
    let (after, changes) =
        edit_hooks_json(Path::new("s.json"), Some(&original), Some(&want)).unwrap();
    let after = after.unwrap();
    golden("claude-user-commands.json.installed", Ends::Lf, &after);
    let v = json(&after);
    let cmds = |event: &str| -> Vec<String> {
        v["hooks"][event]
            .as_array()
            .map(|groups| {
                groups
                    .iter()
                    .flat_map(|g| g["hooks"].as_array().unwrap().iter())
                    .map(|h| h["command"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        cmds("SessionStart"),
        ["/usr/local/bin/handover-session-start --agent claude 2>>/tmp/handover.log; my-audit-hook"],
        "the wrapper is kept byte for byte and ours is not added next to it"
    );
    assert_eq!(
        cmds("PreCompact"),
        ["HANDOVER_HOOK_DEBUG=/tmp/hd.log exec /opt/handover/bin/handover-pre-compact --agent claude"],
        "the prefixed copy is updated in place with its prefix; the plain duplicate goes"
    );
    assert_eq!(
        cmds("Stop"),
        ["bash -c 'handover-context-watch --agent claude || true'"]
    );
    assert_eq!(
        cmds("UserPromptSubmit"),
        ["/opt/handover/bin/handover-context-watch --agent claude"]
    );
    let kept: Vec<_> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Kept)
        .map(|c| c.what.as_str())
        .collect();
    assert_eq!(kept.len(), 2, "{changes:?}");
    assert!(
        kept[0].contains("my-audit-hook") && kept[0].contains("ours is not added there"),
        "{kept:?}"
    );
    assert_eq!(install("s.json", &after, Agent::Claude, true), after);

    let (removed, changes) = edit_hooks_json(Path::new("s.json"), Some(&after), None).unwrap();
    let removed = removed.expect("the user's commands keep the file");
    golden("claude-user-commands.json.uninstalled", Ends::Lf, &removed);
    assert!(removed.contains("2>>/tmp/handover.log; my-audit-hook"));
    assert!(removed.contains("bash -c 'handover-context-watch --agent claude || true'"));
    assert!(!removed.contains("/opt/handover"));
    assert!(changes
        .iter()
        .any(|c| c.kind == ChangeKind::Removed && c.what.contains("with your prefix")));
}

/// A config.toml written with CRLF stays CRLF (toml_edit adds what it inserts with LF), through
/// enabling hooks, trusting the project and removing trust entries.
#[test]
fn crlf_codex_config_stays_crlf() {
    let path = Path::new("c.toml");
    let text = fixture("codex-config-crlf.toml");
    let mut doc = codex_config::parse(path, &text).unwrap();
    codex_config::enable_hooks(&mut doc);
    codex_config::trust_project(&mut doc, Path::new("/home/ana/src/new"), path).unwrap();
    let out = codex_config::render(&doc, &text);
    golden("codex-config-crlf.toml.trusted", Ends::Crlf, &out);
    assert!(
        !out.replace("\r\n", "").contains('\n'),
        "every line ends in CRLF"
    );
    assert!(out.contains("[projects.\"/home/ana/src/new\"]\r\ntrust_level = \"trusted\"\r\n"));
    let mut doc = codex_config::parse(path, &out).unwrap();
    codex_config::move_trust_entries(
        &mut doc,
        &[(
            "/home/ana/src/other/.codex/hooks.json:pre_tool_use:0:0".to_string(),
            None,
        )],
    );
    let removed = codex_config::render(&doc, &out);
    assert!(!removed.replace("\r\n", "").contains('\n'));
    // An LF file and a mixed one are left in their own endings.
    let lf = fixture("codex-config.toml");
    let doc = codex_config::parse(path, &lf).unwrap();
    assert_eq!(codex_config::render(&doc, &lf), lf);
}

/// `hooks = "false"` (a string) makes Codex 0.169.0 reject the whole config.toml; a top-level
/// `profile` too. Both are reported; profiles that turn hooks off are noted. The explicit flag
/// turns the string into `true` and drops the `codex_hooks` line.
#[test]
fn string_flags_and_profile_features_are_flagged() {
    let path = Path::new("/h/.codex/config.toml");
    let text = fixture("codex-config-flags.toml");
    let mut doc = codex_config::parse(path, &text).unwrap();
    let flags = codex_config::feature_flags(&doc);
    assert_eq!(
        flags.hooks,
        Some(codex_config::Flag::Invalid("\"false\"".into()))
    );
    assert!(flags.disabled());
    // Both flags that are strings named, and what Codex does with such a file.
    insta::assert_snapshot!("string_flags_problem", flags.problem(path).unwrap());
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("review.config.toml"),
        "[features]\nhooks = false\n",
    )
    .unwrap();
    std::fs::write(
        home.path().join("ok.config.toml"),
        "[features]\nhooks = true\n",
    )
    .unwrap();
    let notes = codex_config::profile_notes(&doc, home.path());
    assert_eq!(notes.len(), 2, "{notes:#?}");
    // The profile in the file and the one in its own file (not the one that keeps hooks on),
    // each with the line that turns hooks off and how the profile is started.
    insta::assert_snapshot!(
        "profile_notes",
        notes
            .join("\n")
            .replace(&home.path().display().to_string(), "[HOME]")
    );
    codex_config::enable_hooks(&mut doc);
    golden(
        "codex-config-flags.toml.enabled",
        Ends::Lf,
        &doc.to_string(),
    );
    assert!(!codex_config::feature_flags(&doc).disabled());

    let legacy = codex_config::parse(path, "profile = \"ci\"\n").unwrap();
    let problem = codex_config::feature_flags(&legacy).problem(path).unwrap();
    assert!(
        problem.contains("the top-level `profile = \"ci\"` is no longer supported"),
        "{problem}"
    );
}

#[test]
fn gemini_settings_keep_other_hooks_and_settings_with_gemini_events_and_ms_timeouts() {
    round_trip("gemini-settings.json", Ends::Lf, Agent::Gemini, true);
    let installed = install("x", &fixture("gemini-settings.json"), Agent::Gemini, true);
    let v = json(&installed);
    // Read in file order (serde_json's own map sorts its keys).
    let doc: handover_installer::edit::json_doc::Value = serde_json::from_str(&installed).unwrap();
    let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "general",
            "model",
            "context",
            "tools",
            "hooks",
            "hooksConfig"
        ]
    );
    let events: Vec<_> = doc
        .get("hooks")
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        events,
        [
            "BeforeTool",
            "SessionStart",
            "PreCompress",
            "SessionEnd",
            "BeforeAgent",
            "AfterTool",
            "AfterAgent"
        ],
        "Gemini CLI's own event names; none of Claude Code's"
    );
    // The user's SessionStart hook stays first; ours follows with Gemini's millisecond timeout.
    let start = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(
        start[0]["hooks"][0]["command"],
        "echo 'Remember: run the linter before committing'"
    );
    assert_eq!(
        start[1]["hooks"][0],
        json(
            r#"{"type": "command", "command": "/opt/handover/bin/handover-session-start --agent gemini", "timeout": 10000}"#
        )
    );
}

#[test]
fn a_new_gemini_settings_file_and_a_switch_from_seconds_to_milliseconds() {
    let want = wanted_for(&hooks(), true, Agent::Gemini);
    let (after, _) = edit_hooks_json(Path::new("settings.json"), None, Some(&want)).unwrap();
    let after = after.unwrap();
    golden("new-gemini-settings.json", Ends::Lf, &after);
    // A hand-written entry with a Claude-style timeout in seconds is corrected in place.
    let seconds = after.replace("10000", "10");
    let (fixed, changes) =
        edit_hooks_json(Path::new("settings.json"), Some(&seconds), Some(&want)).unwrap();
    assert_eq!(fixed.as_deref(), Some(after.as_str()));
    assert_eq!(
        changes
            .iter()
            .filter(|c| c.kind == ChangeKind::Updated)
            .count(),
        6
    );
}

#[test]
fn gemini_trusted_folders_get_one_rule_in_the_clients_style() {
    let path = Path::new("/home/ada/.gemini/trustedFolders.json");
    let original = fixture("gemini-trustedFolders.json");
    let repo = Path::new("/srv/nonexistent/repo");
    let (after, change) = gemini::TRUSTED_FOLDERS
        .trust_repo(path, Some(&original), repo, "")
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Added);
    let after = after.unwrap();
    golden(
        "gemini-trustedFolders.json.trusted",
        Ends::LfNoFinal,
        &after,
    );
    assert!(!after.ends_with('\n'), "Gemini CLI writes no final newline");
    let (again, change) = gemini::TRUSTED_FOLDERS
        .trust_repo(path, Some(&after), repo, "")
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Unchanged);
    assert_eq!(again.as_deref(), Some(after.as_str()));
    // A repository under a TRUST_PARENT rule's parent is trusted already: nothing to write.
    let (same, change) = gemini::TRUSTED_FOLDERS
        .trust_repo(path, Some(&original), Path::new("/home/ada/projects/x"), "")
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Unchanged);
    assert_eq!(same.as_deref(), Some(original.as_str()));
}

#[test]
fn qwen_settings_keep_other_hooks_and_settings_with_claude_events_and_second_timeouts() {
    round_trip("qwen-settings.json", Ends::Lf, Agent::Qwen, true);
    let installed = install("x", &fixture("qwen-settings.json"), Agent::Qwen, true);
    let v = json(&installed);
    // Read in file order (serde_json's own map sorts its keys).
    let doc: handover_installer::edit::json_doc::Value = serde_json::from_str(&installed).unwrap();
    let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "$version",
            "model",
            "context",
            "general",
            "hooks",
            "mcpServers"
        ]
    );
    let events: Vec<_> = doc
        .get("hooks")
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "SessionStart",
            "PreCompact",
            "PostCompact",
            "SessionEnd",
            "UserPromptSubmit",
            "PostToolUse",
            "PostToolUseFailure",
            "Stop"
        ],
        "Qwen Code reads Claude Code's event names, and fires PostToolUseFailure instead of \
         PostToolUse for a failing tool"
    );
    // The user's SessionStart hook stays first; ours follows, its timeout in seconds.
    let start = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(
        start[0]["hooks"][0]["command"],
        "echo 'Remember: run the linter before committing'"
    );
    assert_eq!(
        start[1]["hooks"][0]["command"],
        "/opt/handover/bin/handover-session-start --agent qwen"
    );
    let timeout = start[1]["hooks"][0]["timeout"].as_u64().unwrap();
    assert!((1..1000).contains(&timeout), "{timeout}: seconds, not ms");
}

#[test]
fn droid_settings_keep_custom_models_and_hooks_with_claude_events_but_no_post_compact() {
    round_trip("droid-settings.json", Ends::Lf, Agent::Droid, true);
    let installed = install("x", &fixture("droid-settings.json"), Agent::Droid, true);
    // Read in file order (serde_json's own map sorts its keys).
    let doc: handover_installer::edit::json_doc::Value = serde_json::from_str(&installed).unwrap();
    let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "model",
            "reasoningEffort",
            "cloudSessionSync",
            "includeCoAuthoredByDroid",
            "customModels",
            "hooks"
        ]
    );
    let events: Vec<_> = doc
        .get("hooks")
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "SessionStart",
            "PreCompact",
            "SessionEnd",
            "UserPromptSubmit",
            "PostToolUse",
            "Stop"
        ],
        "Droid reads Claude Code's event names and has no PostCompact"
    );
    let v = json(&installed);
    let start = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(
        start[0]["hooks"][0]["command"],
        "echo 'Read CONTRIBUTING.md first'"
    );
    assert_eq!(
        start[1]["hooks"][0]["command"],
        "/opt/handover/bin/handover-session-start --agent droid"
    );
    let timeout = start[1]["hooks"][0]["timeout"].as_u64().unwrap();
    assert!((1..1000).contains(&timeout), "{timeout}: seconds, not ms");
    // Without the watch: no context-watch entry anywhere, and an earlier one is taken out.
    let want = wanted_for(&hooks(), false, Agent::Droid);
    let (no_watch, _) = edit_hooks_json(Path::new("x"), Some(&installed), Some(&want)).unwrap();
    let no_watch = no_watch.unwrap();
    assert!(!no_watch.contains("handover-context-watch"), "{no_watch}");
    assert!(no_watch.contains("handover-session-start --agent droid"));
    assert_eq!(
        uninstall("x", &no_watch).as_deref(),
        Some(fixture("droid-settings.json").as_str())
    );
}

#[test]
fn a_new_droid_settings_file() {
    let want = wanted_for(&hooks(), true, Agent::Droid);
    let (after, _) = edit_hooks_json(Path::new("settings.json"), None, Some(&want)).unwrap();
    let after = after.unwrap();
    golden("new-droid-settings.json", Ends::Lf, &after);
    assert_eq!(
        uninstall("settings.json", &after),
        None,
        "nothing of the user's: the file goes"
    );
}

/// OpenCode's plugin: the template with our entries (the executables at their paths, as a
/// local install writes them); the same bytes again; a changed copy shows in status and install
/// writes it as handover does; uninstall removes the file.
#[test]
fn a_new_opencode_plugin() {
    use handover_installer::wiring;
    let opencode = wiring::of(Agent::OpenCode);
    let p = Path::new(".opencode/plugin/handover.js");
    let want = wanted_for(&hooks(), true, Agent::OpenCode);
    let (after, _) = opencode.edit_hooks(p, None, Some(&want)).unwrap();
    let after = after.unwrap();
    golden("new-opencode-plugin.js", Ends::Lf, &after);
    let (again, _) = opencode.edit_hooks(p, Some(&after), Some(&want)).unwrap();
    assert_eq!(again.as_deref(), Some(after.as_str()));
    let changed = after.replace("timeout || 10", "timeout || 100");
    assert!(opencode.read_hooks_doc(p, &changed).is_err());
    let (fixed, _) = opencode.edit_hooks(p, Some(&changed), Some(&want)).unwrap();
    assert_eq!(fixed.as_deref(), Some(after.as_str()));
    let (gone, _) = opencode.edit_hooks(p, Some(&after), None).unwrap();
    assert_eq!(gone, None, "nothing of the user's: the file goes");
}
