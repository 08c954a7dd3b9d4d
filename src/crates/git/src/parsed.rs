//! Trees and commits read by [`super::objects`], parsed to give exactly what libgit2's
//! `Tree::get_name` and `Commit` give for them, or nothing: a tree or a commit that is not
//! plainly well formed is left to libgit2 (the callers then read it there), so that an odd
//! object never gets two different answers.

use git2::Oid;

/// libgit2's modes (`git_filemode_t`), as `TreeEntry::filemode` gives them: the one set the
/// crate compares tree entries with.
pub const MODE_TREE: i32 = 0o040000;
pub const MODE_BLOB: i32 = 0o100644;
pub const MODE_BLOB_EXECUTABLE: i32 = 0o100755;
pub const MODE_LINK: i32 = 0o120000;
pub const MODE_COMMIT: i32 = 0o160000;
const ID_BYTES: usize = 20;

/// A tree's entries, checked whole when parsed: every entry well formed, the names unique and
/// in git's order.
pub struct TreeEntries {
    data: Vec<u8>,
    /// Where each entry starts in `data`, in git's order: looked up by binary search. (Four
    /// bytes an entry: a hook call keeps every tree it read, 50 of them for a handoff listing
    /// files in 50 directories; objects are at most a few MiB, so every offset fits.)
    entries: Box<[u32]>,
}

/// One entry as stored: its mode, name and id.
struct Raw<'d> {
    mode: u32,
    name: &'d [u8],
    id: &'d [u8],
}

impl TreeEntries {
    /// None when the tree is not one this module answers for: an entry that does not parse
    /// the way libgit2 parses it (octal mode of at most 16 bits, a space, a name, a NUL, an
    /// id), an empty name or one with a `/`, the same name twice, or entries out of git's
    /// order (libgit2 finds a name by binary search, which could miss it then).
    pub fn parse(data: Vec<u8>) -> Option<TreeEntries> {
        // In git's order a file's key is its name, so the files' names come sorted: a name
        // twice can only be a file and a directory of that name, found by binary search.
        let mut files: Vec<&[u8]> = Vec::new();
        let mut entries = Vec::new();
        let mut last: Option<(&[u8], bool)> = None;
        let mut rest = data.as_slice();
        let at = |part: &[u8]| (part.as_ptr() as usize - data.as_ptr() as usize) as u32;
        while !rest.is_empty() {
            let entry = at(rest);
            let (raw, after) = next_entry(rest)?;
            rest = after;
            if raw.name.is_empty() || raw.name.contains(&b'/') {
                return None;
            }
            let dir = is_dir(raw.mode);
            if let Some(before) = last {
                if git_order(before, (raw.name, dir)) != std::cmp::Ordering::Less {
                    return None;
                }
            }
            if !dir {
                files.push(raw.name);
            } else if files.binary_search(&raw.name).is_ok() {
                return None;
            }
            last = Some((raw.name, dir));
            entries.push(entry);
        }
        drop(files);
        Some(TreeEntries {
            entries: entries.into_boxed_slice(),
            data,
        })
    }

    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        self.data.len() + self.entries.len() * std::mem::size_of::<u32>()
    }

    /// The entry named `name`: its id and its mode as libgit2's `TreeEntry::filemode` gives it.
    pub fn get(&self, name: &str) -> Option<(Oid, i32)> {
        // A file sorts by its name, a directory as if its name ended in `/`: one search each.
        let name = name.as_bytes();
        let raw = |at: u32| next_entry(&self.data[at as usize..]).map(|(raw, _)| raw);
        let found = [false, true].into_iter().find_map(|dir| {
            self.entries
                .binary_search_by(|&at| match raw(at) {
                    Some(stored) => git_order((stored.name, is_dir(stored.mode)), (name, dir)),
                    // Parsed whole before: not reached.
                    None => std::cmp::Ordering::Less,
                })
                .ok()
        })?;
        let raw = raw(self.entries[found])?;
        Some((Oid::from_bytes(raw.id).ok()?, normalized_mode(raw.mode)))
    }
}

/// The entry at the start of `bytes` and what follows it; None when it does not parse.
fn next_entry(bytes: &[u8]) -> Option<(Raw<'_>, &[u8])> {
    let space = bytes.iter().position(|&b| b == b' ')?;
    let digits = &bytes[..space];
    if digits.is_empty() || digits.len() > 6 || !digits.iter().all(|b| (b'0'..=b'7').contains(b)) {
        return None;
    }
    let mode = digits
        .iter()
        .fold(0u32, |mode, d| mode * 8 + u32::from(d - b'0'));
    if mode > u32::from(u16::MAX) {
        return None;
    }
    let rest = &bytes[space + 1..];
    let nul = rest.iter().position(|&b| b == 0)?;
    let name = &rest[..nul];
    let id = rest.get(nul + 1..nul + 1 + ID_BYTES)?;
    Some((Raw { mode, name, id }, &rest[nul + 1 + ID_BYTES..]))
}

fn is_dir(mode: u32) -> bool {
    mode_type(mode) == MODE_TREE as u32
}

fn mode_type(mode: u32) -> u32 {
    mode & 0o170000
}

/// libgit2's `normalize_filemode`, which `TreeEntry::filemode` applies to the stored mode.
fn normalized_mode(mode: u32) -> i32 {
    if mode_type(mode) == MODE_TREE as u32 {
        MODE_TREE
    } else if mode & 0o100 != 0 {
        MODE_BLOB_EXECUTABLE
    } else if mode_type(mode) == MODE_COMMIT as u32 {
        MODE_COMMIT
    } else if mode_type(mode) == MODE_LINK as u32 {
        MODE_LINK
    } else {
        MODE_BLOB
    }
}

/// git's order of tree entries: by name, a directory's name as if it ended in `/`.
fn git_order(a: (&[u8], bool), b: (&[u8], bool)) -> std::cmp::Ordering {
    let common = a.0.len().min(b.0.len());
    a.0[..common].cmp(&b.0[..common]).then_with(|| {
        // Past the shorter name: the next byte, or `/` for a directory's end, nothing for a
        // file's.
        let next = |(name, dir): (&[u8], bool)| name.get(common).copied().or(dir.then_some(b'/'));
        next(a).cmp(&next(b))
    })
}

/// What a hook needs of a commit: its tree, its parents and its message's summary.
pub struct CommitFields {
    pub tree: Oid,
    pub parents: Vec<Oid>,
    data: Vec<u8>,
    /// Where the message starts in `data` (its end when there is none).
    message_at: usize,
}

impl CommitFields {
    /// None when libgit2 might not parse the commit as it does here: the headers must start
    /// `tree <id>`, `parent <id>` lines, `author` lines and a `committer` line, each author
    /// and committer with an e-mail in `<>` (libgit2's checks; the rest of a signature it
    /// reads leniently).
    pub fn parse(data: Vec<u8>) -> Option<CommitFields> {
        let mut at = 0;
        let tree = id_header(&data, &mut at, b"tree ")?;
        let mut parents = Vec::new();
        while let Some(parent) = id_header(&data, &mut at, b"parent ") {
            parents.push(parent);
        }
        signature(&data, &mut at, b"author ")?;
        while data[at..].starts_with(b"author ") {
            signature(&data, &mut at, b"author ")?;
        }
        signature(&data, &mut at, b"committer ")?;
        // The other headers run to the first empty line; the message follows it. A commit
        // that ends without one has an empty message (as in libgit2).
        let message_at = if data.get(at) == Some(&b'\n') {
            at + 1
        } else {
            data[at..]
                .windows(2)
                .position(|w| w == b"\n\n")
                .map_or(data.len(), |i| at + i + 2)
        };
        Some(CommitFields {
            tree,
            parents,
            data,
            message_at,
        })
    }

    /// libgit2's `Commit::summary_bytes`: the message's first paragraph (up to an empty or
    /// blank line, or a NUL), leading line breaks skipped, every run of whitespace that holds
    /// a line break made one space, trailing whitespace dropped.
    pub fn summary(&self) -> Vec<u8> {
        let message = &self.data[self.message_at..];
        let message = &message[..message
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(message.len())];
        let start = message
            .iter()
            .position(|&b| b != b'\n')
            .unwrap_or(message.len());
        let message = &message[start..];
        let mut summary = Vec::new();
        let mut space: Option<(usize, bool)> = None;
        for (i, &c) in message.iter().enumerate() {
            if c == b'\n' {
                let next = &message[i + 1..];
                // The end, an empty line, or a line of blanks ends the paragraph.
                match next.iter().position(|&b| !is_space_not_lf(b)) {
                    None => break,
                    Some(j) if next[j] == b'\n' => break,
                    Some(_) => {}
                }
            }
            if is_space(c) {
                let (from, newline) = space.unwrap_or((i, false));
                space = Some((from, newline || c == b'\n'));
            } else {
                if let Some((from, newline)) = space.take() {
                    if newline {
                        summary.push(b' ');
                    } else {
                        summary.extend_from_slice(&message[from..i]);
                    }
                }
                summary.push(c);
            }
        }
        summary
    }
}

/// `git__isspace`.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `git__isspace_nonlf`.
fn is_space_not_lf(c: u8) -> bool {
    c != b'\n' && is_space(c)
}

/// A `<name><40 hex digits>\n` header at `at`, stepped over.
fn id_header(data: &[u8], at: &mut usize, name: &[u8]) -> Option<Oid> {
    let rest = data[*at..].strip_prefix(name)?;
    let hex = rest.get(..ID_BYTES * 2)?;
    if rest.get(ID_BYTES * 2) != Some(&b'\n') || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let id = Oid::from_str(std::str::from_utf8(hex).ok()?).ok()?;
    *at += name.len() + ID_BYTES * 2 + 1;
    Some(id)
}

/// A signature line at `at` (libgit2's `git_signature__parse` failures: no line break, nothing
/// after the name, no `<` before a `>`), stepped over.
fn signature(data: &[u8], at: &mut usize, name: &[u8]) -> Option<()> {
    let rest = &data[*at..];
    let end = rest.iter().position(|&b| b == b'\n')?;
    let line = rest[..end].strip_prefix(name)?;
    if line.is_empty() {
        return None;
    }
    let open = line.iter().rposition(|&b| b == b'<')?;
    let close = line.iter().rposition(|&b| b == b'>')?;
    if close <= open {
        return None;
    }
    *at += end + 1;
    Some(())
}
