//! How full the context is, read from the END of the client's transcript: the cost depends on
//! the size of the last lines, never on the size of the file. What the lines mean is the
//! client module's business (`handover_clients::Behaviour::transcript_fullness`; the formats are
//! described there, e.g. handover_clients::claude).
//!
//! Claude Code 2.1.330 appends a turn's lines 10-50 ms AFTER it starts the hooks for that turn
//! (docs/compatibility.md): read at PostToolUse or Stop, the newest usage on disk may be the
//! previous response's. The reader never waits for it (context_watch/measure.rs says why).

use handover_clients::transcript::Fullness;
use handover_clients::Client;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Tail windows tried in turn; a single line longer than the last one is not looked into.
const WINDOWS: [u64; 3] = [256 * 1024, 2 * 1024 * 1024, 8 * 1024 * 1024];

/// How full the context is by `client`'s transcript at `path`: growing tail windows, the
/// client's own reader (`Behaviour::transcript_fullness`) deciding. None when the file cannot be
/// read or holds no usage record in its last 8 MiB. A client that keeps its usage beside the
/// transcript (`Behaviour::usage_file`: Factory Droid's `<session>.settings.json`) is read there.
pub fn read(path: &Path, client: &Client) -> Option<Fullness> {
    let mut file = open_regular(&client.behaviour.usage_file(path))?;
    let len = file.metadata().ok()?.len();
    let mut buf = Vec::new();
    for window in WINDOWS {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start)).ok()?;
        buf.clear();
        file.by_ref().take(len - start).read_to_end(&mut buf).ok()?;
        if let Some(found) = client.behaviour.transcript_fullness(&buf, start == 0) {
            return Some(found);
        }
        if start == 0 {
            return None;
        }
    }
    None
}

/// When the newest compaction in the last 256 KiB of `client`'s transcript at `path` happened
/// (`Behaviour::compacted_at_ms`), for a client whose own compaction runs no hook. Only the first
/// tail window: this is read at every tool call, and a compaction further back is older than
/// the events since.
pub fn compacted_at(path: &Path, client: &Client) -> Option<u64> {
    let mut file = open_regular(path)?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(WINDOWS[0]);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::new();
    file.take(len - start).read_to_end(&mut buf).ok()?;
    client.behaviour.compacted_at_ms(&buf, start == 0)
}

/// The transcript, when it is a regular file, through the read gate: opened non-blocking and
/// checked on the descriptor, so a FIFO (or a device) never blocks the hook until the watchdog
/// ends it and its answer is lost.
fn open_regular(path: &Path) -> Option<File> {
    use handover_base::read_gate::{self, Links};
    read_gate::open(path, Links::Follow).ok()?
}

#[cfg(test)]
mod tests {
    use super::*;
    use handover_clients::claude::CLIENT as CLAUDE;
    use handover_clients::transcript::Usage;
    use std::io::Write;

    fn claude_assistant(input: u64, cache_read: u64) -> String {
        format!(
            r#"{{"type":"assistant","isSidechain":false,"message":{{"model":"claude-sonnet-4-5","usage":{{"input_tokens":{input},"cache_creation_input_tokens":10,"cache_read_input_tokens":{cache_read},"output_tokens":99}}}}}}"#
        )
    }

    #[test]
    fn reads_from_the_tail_and_widens_past_a_long_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = File::create(&path).unwrap();
        writeln!(f, "{}", claude_assistant(7, 70_000)).unwrap();
        // A tool result longer than the first window, after the usage line.
        let big = "y".repeat(600 * 1024);
        writeln!(f, r#"{{"type":"user","message":{{"content":"{big}"}}}}"#).unwrap();
        drop(f);
        assert_eq!(
            read(&path, &CLAUDE),
            Some(Fullness::Measured(Usage {
                used_tokens: 70_017,
                window: None,
                model: Some("claude-sonnet-4-5".into()),
            }))
        );
        assert_eq!(read(&dir.path().join("missing.jsonl"), &CLAUDE), None);
    }

    #[test]
    fn a_cut_first_line_in_a_mid_file_window_is_not_trusted() {
        let cut = format!("{}\n{{\"type\":\"user\"}}\n", claude_assistant(1, 2));
        assert_eq!(
            CLAUDE.behaviour.transcript_fullness(cut.as_bytes(), false),
            None
        );
        assert!(CLAUDE
            .behaviour
            .transcript_fullness(cut.as_bytes(), true)
            .is_some());
    }
}
