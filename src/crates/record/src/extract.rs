//! Facts from a transcript, read incrementally: from the offset where the last update stopped to
//! the last complete line. The cost of an update depends on what was appended since the last
//! one, never on the size of the file. Both formats are internal to their clients: unknown,
//! broken and partial lines are skipped.
//!
//! Each client's format is read by its own module (`handover_clients::Client::transcript_facts`
//! and its `Behaviour::line_facts`, e.g. handover_clients::claude): this file only knows lines
//! and offsets.

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
    client: &Client,
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
    client: &Client,
    root: Option<&Path>,
) -> std::io::Result<Update> {
    let opened = open(path, links, offset)?;
    let mut facts = Vec::new();
    let mut update = opened.read_each(client, root, |fact| facts.push(fact))?;
    update.facts = facts;
    Ok(update)
}

/// A transcript opened for one read from `offset`: [`Opened::restarted`] says, before any fact
/// is read, whether the read starts over (the caller's record then starts over too), and
/// [`Opened::read_each`] hands the facts over one line at a time.
pub struct Opened {
    file: std::fs::File,
    /// The file's length when opened: the read ends there, whatever is appended meanwhile.
    len: u64,
    /// Where the read starts.
    start: u64,
    /// The first line is the end of one cut by `MAX_READ`: skipped.
    first_line_cut: bool,
    update: Update,
}

/// Opens `path` for a read from `offset` (see [`read_from`]).
pub fn open(path: &Path, links: Links, offset: u64) -> std::io::Result<Opened> {
    // Through the read gate: a FIFO named as the transcript is refused at once instead of
    // blocking the hook.
    let file = handover_base::read_gate::open(path, links)?
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
    Ok(Opened {
        file,
        len,
        start,
        first_line_cut,
        update,
    })
}

impl Opened {
    /// The file is shorter than the offset: it was replaced, and is read from its start.
    pub fn restarted(&self) -> bool {
        self.update.restarted
    }

    /// Reads the complete lines from the start to the length seen at [`open`], handing each
    /// line's facts to `on_fact` as the line is read: what is held at once is one line, not
    /// the read (up to [`MAX_READ`]). The returned update has no facts; its offset is just
    /// after the last complete line.
    pub fn read_each(
        self,
        client: &Client,
        root: Option<&Path>,
        mut on_fact: impl FnMut(Fact),
    ) -> std::io::Result<Update> {
        use std::io::BufRead;
        let Opened {
            mut file,
            len,
            start,
            first_line_cut,
            mut update,
        } = self;
        file.seek(SeekFrom::Start(start))?;
        let mut reader = std::io::BufReader::with_capacity(64 * 1024, file.take(len - start));
        let mut line = Vec::new();
        let mut facts = Vec::new();
        let mut read = 0u64;
        let mut skip_first = first_line_cut;
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            // The end, or a line not complete yet (or one longer than MAX_READ: it is skipped
            // once complete): the next update starts at it.
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            read += n as u64;
            if std::mem::take(&mut skip_first) {
                update.skipped += n as u64;
                continue;
            }
            client.transcript_facts(&line[..n - 1], root, &mut facts);
            facts.drain(..).for_each(&mut on_fact);
        }
        update.offset = start + read;
        Ok(update)
    }
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
        let u = read_from(&path, 0, &handover_clients::claude::CLIENT, None).unwrap();
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
        let u = read_from(&path, u.offset, &handover_clients::claude::CLIENT, None).unwrap();
        assert_eq!(u.offset, (first.len() + second.len()) as u64);
        assert_eq!(
            u.facts,
            vec![Fact::At("T2".into()), Fact::Request("and test it".into())]
        );
        // Nothing new: nothing read.
        let again = read_from(&path, u.offset, &handover_clients::claude::CLIENT, None).unwrap();
        assert!(again.facts.is_empty());
        assert_eq!(again.offset, u.offset);
        // A replaced (shorter) file is read from its start.
        std::fs::write(&path, &first).unwrap();
        let r = read_from(&path, u.offset, &handover_clients::claude::CLIENT, None).unwrap();
        assert!(r.restarted);
        assert_eq!(r.offset, first.len() as u64);
    }
}
