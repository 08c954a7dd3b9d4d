//! The library against what the real clients produced (tests/fixtures/, captured from Claude
//! Code 2.1.330, Codex 0.169.0 and Gemini CLI 0.61.0): agent detection on every payload, and the fullness read
//! from the real transcripts, whole and cut at the compaction.

use handover_clients::transcript::{Fullness, Usage};
use handover_clients::Agent;
use handover_clients::HookInput;
use handover_clients::{claude, codex, detect, gemini};
use handover_hooks::state::transcript;
use std::path::{Path, PathBuf};

fn dir(client: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients")
        .join(client)
}

fn payloads(client: &str) -> Vec<(String, HookInput)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir(client)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) == Some("json") {
            let bytes = std::fs::read(&path).unwrap();
            out.push((path.display().to_string(), HookInput::parse(&bytes)));
        }
    }
    assert!(out.len() >= 8, "{client}: fixtures missing");
    out
}

#[test]
fn every_captured_payload_is_attributed_to_its_client() {
    for (client, agent) in [
        ("claude-2.1.330", Agent::Claude),
        ("codex-0.169.0", Agent::Codex),
        ("gemini-0.61.0", Agent::Gemini),
    ] {
        for (file, input) in payloads(client) {
            assert_eq!(detect(&input), agent, "{file}");
            assert!(input.session_id.is_some() && input.cwd.is_some(), "{file}");
            assert!(input.hook_event_name.is_some(), "{file}");
        }
    }
}

#[test]
fn claude_transcript_last_main_chain_usage_and_the_compaction() {
    let path = dir("claude-2.1.330").join("transcript.jsonl");
    // The session ended after one exchange past the compaction: 3,000 input tokens.
    assert_eq!(
        transcript::read(&path, &claude::CLIENT),
        Some(Fullness::Measured(Usage {
            used_tokens: 3000,
            window: None,
            model: Some("claude-opus-5-5".into()),
        }))
    );
    // Cut right after the compaction summary: nothing measured since the boundary.
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text
        .lines()
        .position(|l| l.contains("\"isCompactSummary\":true"))
        .unwrap();
    let head: Vec<&str> = text.lines().take(cut + 1).collect();
    assert_eq!(
        claude::CLIENT
            .behaviour
            .transcript_fullness(head.join("\n").as_bytes(), true),
        Some(Fullness::JustCompacted)
    );
    // Cut before the compaction: the last usage before it (7,000).
    let boundary = text
        .lines()
        .position(|l| l.contains("compact_boundary"))
        .unwrap();
    let before: Vec<&str> = text.lines().take(boundary).collect();
    match claude::CLIENT
        .behaviour
        .transcript_fullness(before.join("\n").as_bytes(), true)
    {
        Some(Fullness::Measured(u)) => assert_eq!(u.used_tokens, 7000),
        other => panic!("{other:?}"),
    }
}

#[test]
fn codex_rollout_last_token_count_and_the_compaction() {
    let path = dir("codex-0.169.0").join("rollout.jsonl");
    match transcript::read(&path, &codex::CLIENT) {
        Some(Fullness::Measured(u)) => {
            assert_eq!(u.used_tokens, 2510);
            assert_eq!(u.window, Some(258_400));
        }
        other => panic!("{other:?}"),
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let compacted = text
        .lines()
        .position(|l| l.contains("\"type\":\"compacted\""))
        .unwrap();
    let head: Vec<&str> = text.lines().take(compacted + 1).collect();
    assert_eq!(
        codex::CLIENT
            .behaviour
            .transcript_fullness(head.join("\n").as_bytes(), true),
        Some(Fullness::JustCompacted)
    );
    // Before it: the last token_count of the pre-compaction run (30,010 twice, then 1,210 for
    // the summarizing request, per the fixtures' README), of a 95,000-token window.
    let before: Vec<&str> = text.lines().take(compacted).collect();
    match codex::CLIENT
        .behaviour
        .transcript_fullness(before.join("\n").as_bytes(), true)
    {
        Some(Fullness::Measured(u)) => {
            assert_eq!(u.used_tokens, 1210);
            assert_eq!(u.window, Some(95_000));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn gemini_transcript_last_reply_and_the_compression() {
    let path = dir("gemini-0.61.0").join("transcript.jsonl");
    // The third run's answer after the automatic compression: 5,000 input tokens.
    assert_eq!(
        transcript::read(&path, &gemini::CLIENT),
        Some(Fullness::Measured(Usage {
            used_tokens: 5000,
            window: None,
            model: Some("gemini-2.5-pro".into()),
        }))
    );
    // Cut right after the compression rewrote the history: just compacted, the 600,000 of
    // the reply before it no longer counts.
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let big = lines
        .iter()
        .rposition(|l| l.contains("\"input\":600000"))
        .unwrap();
    let rewrite = big
        + lines[big..]
            .iter()
            .position(|l| l.starts_with("{\"$set\":{\"messages\""))
            .unwrap();
    let cut = lines[..=rewrite].join("\n");
    assert_eq!(
        gemini::CLIENT
            .behaviour
            .transcript_fullness(cut.as_bytes(), true),
        Some(Fullness::JustCompacted)
    );
    // Just before the rewrite: the 600,000 of gemini-2.5-pro's 1,048,576, past the 50 %
    // point where Gemini CLI compresses.
    let before = lines[..rewrite].join("\n");
    assert_eq!(
        gemini::CLIENT
            .behaviour
            .transcript_fullness(before.as_bytes(), true),
        Some(Fullness::Measured(Usage {
            used_tokens: 600_000,
            window: None,
            model: Some("gemini-2.5-pro".into()),
        }))
    );
}
