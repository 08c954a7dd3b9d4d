//! Facts from a transcript, read incrementally: from the offset where the last update stopped to
//! the last complete line. The cost of an update depends on what was appended since the last
//! one, never on the size of the file. Both formats are internal to their clients: unknown,
//! broken and partial lines are skipped.
//!
//! Each client's format is read by its own module (`handover_clients::Client::transcript_facts`,
//! e.g. handover_clients::claude): this file only knows lines and offsets.

use super::Fact;
use handover_base::read_gate::Links;
use handover_clients::Client;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most read in one update. More appended at once (hooks installed in the middle of a
/// long session, a record deleted) is skipped, oldest first, and counted in the record.
pub const MAX_READ: u64 = 16 << 20;

#[derive(Debug, Default, PartialEq)]
pub struct Update {
    pub facts: Vec<Fact>,
    /// Where the next update starts: just after the last complete line read.
    pub offset: u64,
    /// Bytes skipped because more than `MAX_READ` were appended.
    pub skipped: u64,
    /// The file is shorter than the offset: it was replaced, and was read from its start.
    pub restarted: bool,
}

/// Reads the complete lines appended to `path` since `offset`. `root` makes the paths of
/// edited files inside the repository relative to it.
pub fn read_from(
    path: &Path,
    offset: u64,
    client: &dyn Client,
    root: Option<&Path>,
) -> std::io::Result<Update> {
    // The client names the file, so a link is followed to a regular file.
    read_from_with(path, Links::Follow, offset, client, root)
}

/// [`read_from`] with links handled as `links` says.
pub fn read_from_with(
    path: &Path,
    links: Links,
    offset: u64,
    client: &dyn Client,
    root: Option<&Path>,
) -> std::io::Result<Update> {
    // Through the read gate: a FIFO named as the transcript is refused at once instead of
    // blocking the hook.
    let mut file = handover_base::read_gate::open(path, links)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    let len = file.metadata()?.len();
    let mut update = Update {
        offset,
        ..Update::default()
    };
    let mut start = offset;
    if len < offset {
        update.restarted = true;
        start = 0;
    }
    let mut first_line_cut = false;
    if len - start > MAX_READ {
        let from = len - MAX_READ;
        update.skipped = from - start;
        start = from;
        first_line_cut = true;
    }
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    file.take(len - start).read_to_end(&mut buf)?;
    let Some(last_newline) = buf.iter().rposition(|&b| b == b'\n') else {
        // No complete line yet (or one longer than MAX_READ: it is skipped once complete).
        update.offset = start;
        return Ok(update);
    };
    update.offset = start + last_newline as u64 + 1;
    let mut lines = buf[..last_newline].split(|&b| b == b'\n');
    if first_line_cut {
        if let Some(cut) = lines.next() {
            update.skipped += cut.len() as u64 + 1;
        }
    }
    for line in lines {
        client.transcript_facts(line, root, &mut update.facts);
    }
    Ok(update)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Write;

    fn claude_line(v: serde_json::Value) -> String {
        format!("{v}\n")
    }

    #[test]
    fn reads_only_complete_lines_and_resumes_at_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let first = claude_line(serde_json::json!(
            {"type":"user","timestamp":"T1","message":{"role":"user","content":"fix the parser"}}
        ));
        let second = claude_line(serde_json::json!(
            {"type":"user","timestamp":"T2","message":{"role":"user","content":"and test it"}}
        ));
        let mut f = File::create(&path).unwrap();
        f.write_all(first.as_bytes()).unwrap();
        // Half of the second line: not read yet.
        f.write_all(&second.as_bytes()[..10]).unwrap();
        f.flush().unwrap();
        let u = read_from(&path, 0, &handover_clients::claude::Claude, None).unwrap();
        assert_eq!(u.offset, first.len() as u64);
        assert_eq!(
            u.facts,
            vec![
                Fact::At("T1".into()),
                Fact::Request("fix the parser".into())
            ]
        );
        f.write_all(&second.as_bytes()[10..]).unwrap();
        f.flush().unwrap();
        let u = read_from(&path, u.offset, &handover_clients::claude::Claude, None).unwrap();
        assert_eq!(u.offset, (first.len() + second.len()) as u64);
        assert_eq!(
            u.facts,
            vec![Fact::At("T2".into()), Fact::Request("and test it".into())]
        );
        // Nothing new: nothing read.
        let again = read_from(&path, u.offset, &handover_clients::claude::Claude, None).unwrap();
        assert!(again.facts.is_empty());
        assert_eq!(again.offset, u.offset);
        // A replaced (shorter) file is read from its start.
        std::fs::write(&path, &first).unwrap();
        let r = read_from(&path, u.offset, &handover_clients::claude::Claude, None).unwrap();
        assert!(r.restarted);
        assert_eq!(r.offset, first.len() as u64);
    }
}
