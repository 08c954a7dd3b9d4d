//! The lock file and the append-only journal (`.handover/journal.jsonl`, one JSON object a line).
//!
//! Appends are one `write` on a file opened with O_APPEND, made while holding the exclusive
//! lock on `.handover/journal.lock`, so lines from many processes never interleave. That lock
//! is separate from the writers' `.handover/lock` and held only for the append itself
//! (microseconds), so a hook appending an event is never stuck behind a whole save. A line torn by a
//! power cut is skipped when reading, and the next append starts on a fresh line so that the
//! damage stays confined to that one line.

use anyhow::{bail, Context};
use serde_json::{Map, Value};
use std::fs::{File, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Hooks must never hang: this is how long `append_journal` waits for the journal lock.
pub const HOOK_LOCK_WAIT: Duration = Duration::from_secs(2);

/// Reading stops at the newest this many bytes of the journal, so a journal that grew huge
/// can never stall a load.
pub const MAX_JOURNAL_READ: u64 = 64 * 1024 * 1024;

/// An exclusive `flock` on a lock file, released when dropped (or when the process dies:
/// the kernel drops flock locks with the file descriptor, so a killed writer never leaves a
/// stale lock behind).
pub struct Lock {
    _file: File,
}

fn open_lock_file(path: &Path) -> anyhow::Result<File> {
    crate::safe_fs::open_lock(path)
        .with_context(|| format!("cannot open the lock file {}", path.display()))
}

/// Waits as long as another handover process is writing (writes take milliseconds).
pub fn lock(path: &Path) -> anyhow::Result<Lock> {
    let file = open_lock_file(path)?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(Lock { _file: file })
}

/// Polls with short sleeps and gives up after `max_wait`.
pub fn lock_bounded(path: &Path, max_wait: Duration) -> anyhow::Result<Lock> {
    let file = open_lock_file(path)?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Lock { _file: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
        if start.elapsed() >= max_wait {
            bail!(
                "{} is held by another handover process for more than {:.1} s; try again in a moment",
                path.display(),
                max_wait.as_secs_f64()
            );
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// The kinds of journal line, written by the store, the CLI and the hooks, and read back by
/// `handover status` and recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A handoff was saved (the line carries the whole state, for recovery).
    Write,
    /// `handover done` archived the handoff.
    Done,
    /// `handover ack`: an agent confirmed it received the handoff.
    Ack,
    /// A hook put the startup context in front of an agent.
    Delivered,
    PreCompact,
    PostCompact,
    /// The context watch reminded the agent to save (or blocked a Stop).
    ContextWatch,
    /// `handover push` published the handoff to a remote.
    Push,
    /// `handover pull` fetched a remote's handoffs (and with `--adopt`, made one the local one).
    Pull,
}

impl Event {
    const ALL: [Event; 9] = [
        Event::Write,
        Event::Done,
        Event::Ack,
        Event::Delivered,
        Event::PreCompact,
        Event::PostCompact,
        Event::ContextWatch,
        Event::Push,
        Event::Pull,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Event::Write => "write",
            Event::Done => "done",
            Event::Ack => "ack",
            Event::Delivered => "delivered",
            Event::PreCompact => "pre_compact",
            Event::PostCompact => "post_compact",
            Event::ContextWatch => "context_watch",
            Event::Push => "push",
            Event::Pull => "pull",
        }
    }

    /// The kind of a journal line read back; None for a line of a kind this version does not
    /// know (written by a newer one) or no kind at all.
    pub fn of(line: &Value) -> Option<Event> {
        let name = line.get("event")?.as_str()?;
        Event::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

/// `{"ts": .., "event": .., ...fields}` as one line, newline included. Keys of `fields` named
/// `ts` or `event` are dropped rather than allowed to disguise the event.
pub fn event_line(event: Event, fields: Value) -> anyhow::Result<Vec<u8>> {
    let event = event.as_str();
    let mut map = Map::new();
    map.insert(
        "ts".into(),
        Value::String(handover_base::clock::now_rfc3339()),
    );
    map.insert("event".into(), Value::String(event.to_string()));
    match fields {
        Value::Null => {}
        Value::Object(extra) => {
            for (key, value) in extra {
                if key != "ts" && key != "event" {
                    map.insert(key, value);
                }
            }
        }
        other => bail!("journal fields for event `{event}` must be a JSON object, got {other}"),
    }
    // Compact JSON never contains a raw newline: strings escape it.
    let mut line = serde_json::to_vec(&Value::Object(map))?;
    line.push(b'\n');
    Ok(line)
}

/// Redacts every string in an event's fields (object keys are ours and left as they are).
pub fn redact_strings(value: &mut Value) {
    match value {
        Value::String(text) => {
            let clean = crate::sanitize::redacted(text);
            if clean != *text {
                *text = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_strings),
        Value::Object(map) => map.values_mut().for_each(redact_strings),
        _ => {}
    }
}

/// Appends `line` (ending in a newline) and returns the file, so the caller can fsync it
/// after letting go of the journal lock. The caller holds the journal lock.
pub fn append(path: &Path, line: &[u8]) -> io::Result<File> {
    let mut file = crate::safe_fs::open_append(path)?;
    let len = file.metadata()?.len();
    let mut buf = Vec::with_capacity(line.len() + 1);
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1)?;
        if last[0] != b'\n' {
            // A torn line from a crash: end it, so this event stays a line of its own.
            buf.push(b'\n');
        }
    }
    buf.extend_from_slice(line);
    let written = file.write(&buf)?;
    if written < buf.len() {
        // Only on a full disk or similar; finish the line (still under the lock).
        file.write_all(&buf[written..])?;
    }
    Ok(file)
}

/// How far back from its end recovery looks in the journal for the newest saved handoff: a
/// `write` event holds a whole state.json (at most `MAX_STATE_BYTES`, 4 MiB) and a few fields,
/// so the newest one is found whenever the events after it fill less than the other half. A
/// damaged state.json is met by a hook, which must not read and parse 64 MiB to find it.
pub const MAX_RECOVERY_READ: u64 = 8 * 1024 * 1024;

/// Events oldest first. Lines that do not parse as a JSON object are skipped: a torn last
/// line is expected after a crash. Missing or unreadable journal: no events.
pub fn read(path: &Path) -> Vec<Value> {
    let Some((bytes, skip_partial_first)) = newest_bytes(path, MAX_JOURNAL_READ) else {
        return Vec::new();
    };
    let mut lines = bytes.split(|b| *b == b'\n');
    if skip_partial_first {
        lines.next();
    }
    lines
        .filter(|line| !line.is_empty())
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(Value::is_object)
        .collect()
}

/// The newest `write` event within the journal's last [`MAX_RECOVERY_READ`] bytes for which
/// `accept` gives an answer: lines are looked at newest first, and only a line that holds the
/// word `"write"` is parsed at all.
pub fn newest_write<T>(path: &Path, accept: impl Fn(&Value) -> Option<T>) -> Option<T> {
    let (bytes, skip_partial_first) = newest_bytes(path, MAX_RECOVERY_READ)?;
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if skip_partial_first && !lines.is_empty() {
        lines.remove(0);
    }
    lines
        .into_iter()
        .rev()
        .filter(|line| line.windows(7).any(|w| w == b"\"write\""))
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(|event| Event::of(event) == Some(Event::Write))
        .find_map(|event| accept(&event))
}

/// How much of the journal [`newest_first`] reads at a time, from the end backwards.
const BACKWARD_CHUNK: u64 = 64 * 1024;

/// The journal's lines newest first, read backwards from its end in chunks, within its newest
/// `max` bytes (a line cut by that bound is not given), until `visit` answers false: a reader
/// that needs only what happened since some event reads only that far, however long the
/// journal grew. Empty lines are skipped; a torn last line is given as it is (its parse fails).
/// Missing or unreadable journal: nothing is visited.
pub fn newest_first(path: &Path, max: u64, mut visit: impl FnMut(&[u8]) -> bool) {
    // Never through a link, never blocking on a FIFO: readers must never hang.
    let Ok(Some(file)) = crate::safe_fs::open_read(path) else {
        return;
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let floor = len.saturating_sub(max);
    let mut end = len;
    // The start of the line the previous chunk began in the middle of.
    let mut pending: Vec<u8> = Vec::new();
    while end > floor {
        let start = end.saturating_sub(BACKWARD_CHUNK).max(floor);
        let mut chunk = vec![0u8; (end - start) as usize];
        if file.read_exact_at(&mut chunk, start).is_err() {
            return;
        }
        chunk.extend_from_slice(&pending);
        end = start;
        // Every line after the chunk's first newline is whole; what comes before it waits for
        // the next chunk, unless this is the beginning of the file.
        let first_newline = chunk.iter().position(|b| *b == b'\n');
        let whole_from = match first_newline {
            Some(i) => i + 1,
            None if start == 0 => 0,
            None => {
                pending = chunk;
                continue;
            }
        };
        for line in chunk[whole_from..].split(|b| *b == b'\n').rev() {
            if !line.is_empty() && !visit(line) {
                return;
            }
        }
        pending = chunk[..whole_from.saturating_sub(1)].to_vec();
        if start == 0 && first_newline.is_some() && !pending.is_empty() && !visit(&pending) {
            return;
        }
    }
}

/// The journal's newest `max` bytes, and whether they start in the middle of a line.
fn newest_bytes(path: &Path, max: u64) -> Option<(Vec<u8>, bool)> {
    // Never through a link, never blocking on a FIFO: readers must never hang.
    let mut file = crate::safe_fs::open_read(path).ok()??;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let skip_partial_first = len > max;
    if skip_partial_first {
        file.seek(SeekFrom::Start(len - max)).ok()?;
    }
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).ok()?;
    Some((bytes, skip_partial_first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_read_back() {
        for e in Event::ALL {
            let line: Value = serde_json::from_slice(&event_line(e, Value::Null).unwrap()).unwrap();
            assert_eq!(Event::of(&line), Some(e));
        }
        assert_eq!(
            Event::of(&serde_json::json!({"event": "from_the_future"})),
            None
        );
    }

    fn newest_first_all(path: &Path, max: u64) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        newest_first(path, max, |line| {
            lines.push(line.to_vec());
            true
        });
        lines
    }

    /// What `read` gives, newest first and unparsed, for comparison.
    fn read_raw(path: &Path, max: u64) -> Vec<Vec<u8>> {
        let Some((bytes, skip_partial_first)) = newest_bytes(path, max) else {
            return Vec::new();
        };
        let mut lines: Vec<Vec<u8>> = bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        if skip_partial_first && !bytes.starts_with(b"\n") && !lines.is_empty() {
            lines.remove(0);
        }
        lines.reverse();
        lines
    }

    #[test]
    fn newest_first_gives_the_lines_read_gives_in_reverse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        assert!(
            newest_first_all(&path, u64::MAX).is_empty(),
            "missing journal"
        );
        // Lines shorter and longer than a chunk, a torn last line, an empty line.
        let mut text = Vec::new();
        for i in 0..300usize {
            let len = if i % 37 == 0 { 150_000 } else { i * 7 };
            text.extend_from_slice(
                format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "x".repeat(len)).as_bytes(),
            );
            if i == 5 {
                text.push(b'\n');
            }
        }
        text.extend_from_slice(b"{\"torn");
        std::fs::write(&path, &text).unwrap();
        let len = text.len() as u64;
        for max in [
            u64::MAX,
            len,
            len - 1,
            1,
            10,
            65_536,
            65_537,
            200_000,
            len / 2,
        ] {
            assert_eq!(
                newest_first_all(&path, max),
                read_raw(&path, max),
                "max {max}"
            );
        }
        let mut seen = 0;
        newest_first(&path, u64::MAX, |_| {
            seen += 1;
            seen < 3
        });
        assert_eq!(seen, 3, "stops when told");
    }
}
