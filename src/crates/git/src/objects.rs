//! A few objects (commits and trees) read from the object database with positioned reads of
//! exactly the bytes they need, instead of through libgit2, which maps every pack and its
//! index whole.
//!
//! Why: a mapped file counts in the hook's resident memory by the pages touched, and the
//! kernel maps 64 KiB around every page fault of a file mapping (fault-around; `MADV_RANDOM`
//! does not stop it). A session start that reads 50 trees of a 100,000-file repository touched
//! 50 spots of its 6 MB pack and as many of its 2.8 MB pack index: 2.9 MiB more peak RSS
//! than the same start with nothing to read (docs/benchmarks.md). Read here, each object
//! costs its index lookup (the fanout table, one slice of ids, one offset), its compressed
//! bytes and its delta chain, in buffers freed when the object is.
//!
//! Only the common layout is read: version 2 pack indexes, packs of version 2 or 3, loose
//! objects, SHA-1 ids, in the object directory and those its `info/alternates` lead to.
//! Anything else (a version 1 index, an object found in none of the packs, a damaged or
//! unexpected byte) answers Ok(None), and the caller asks libgit2, which answers as it always
//! did: this reader never decides that an object is missing.
//!
//! It does decide two things, which libgit2 is then never asked ([`Refusal`]): an object
//! whose header declares more than [`MAX_OBJECT_BYTES`] is too big to verify (a 256 MiB
//! commit of zeros is 1.2 MB on disk; libgit2 would inflate it whole), and a delta chain
//! longer than [`MAX_DELTA_DEPTH`] or through more than [`MAX_PACK_HOPS`] packs is damaged (a
//! chain of deltas by id that loops made libgit2 run on with growing memory). Both are read
//! from headers (a pack entry's, a loose object's first bytes, a delta's first bytes) before
//! anything larger than the cap is inflated.
//!
//! Like the libgit2 reads beside it (strict hash verification off, see `LazyRepo::get`), it
//! does not hash what it read: whoever controls the repository decides what its objects
//! say.
//!
//! The repository's files are untrusted: each file is opened without blocking (a FIFO in
//! place of a pack cannot hang the hook), must be a regular file, and every length read from
//! it is checked against the file's size and the caps above before anything is allocated.

use super::parsed::{CommitFields, TreeEntries};
use flate2::{Decompress, FlushDecompress, Status};
use git2::{ObjectType, Oid, Repository};
use std::cell::{OnceCell, RefCell};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The largest commit or tree handover reads (a tree of about 100,000 entries); an object
/// declared larger is too big to verify ([`Refusal::TooBig`]).
pub const MAX_OBJECT_BYTES: u64 = 4 * 1024 * 1024;
/// The longest delta chain followed (git writes at most 50 by default, 4095 at most); a
/// longer one (a loop of deltas by id never ends) is damaged.
const MAX_DELTA_DEPTH: usize = 4096;
/// How many times a chain may continue in another pack (a base by id outside the delta's
/// pack, which git's own packs never need): each is a call deeper on the stack. More is
/// damaged.
const MAX_PACK_HOPS: usize = 4;
/// A fanout bucket's ids are read in one piece up to this size (8 KiB in a 100,000-object
/// pack); a larger bucket is searched id by id.
const BUCKET_READ_BYTES: u64 = 64 * 1024;
/// Compressed bytes read per positioned read while inflating.
const CHUNK_BYTES: usize = 8 * 1024;
const ID_BYTES: usize = 20;

/// An object's type and contents.
pub struct Object {
    pub kind: ObjectType,
    pub data: Vec<u8>,
}

/// An object this reader will not read and libgit2 must not be asked for: a definite answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its header (or its delta's) declares `size` bytes, over [`MAX_OBJECT_BYTES`].
    TooBig { id: Oid, size: u64 },
    /// Its delta chain loops, or runs past [`MAX_DELTA_DEPTH`] deltas or [`MAX_PACK_HOPS`]
    /// packs; or it is a loose object whose file is far larger than the cap allows.
    Damaged { id: Oid },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::TooBig { id, size } => write!(
                f,
                "object {id} is too big to verify: {}, over handover's {} cap (a commit or a tree is a few KB; this one may be a compressed bomb)",
                super::preflight::size_text(*size),
                super::preflight::size_text(MAX_OBJECT_BYTES)
            ),
            Refusal::Damaged { id } => write!(
                f,
                "object {id} is damaged: its delta chain loops or runs past {MAX_DELTA_DEPTH} deltas, or its file is far larger than the object it holds"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// What the reader says of one object: Ok(Some) read here, Ok(None) left to libgit2, Err
/// refused ([`Refusal`]).
pub type Answer<T> = Result<Option<T>, Refusal>;

/// The object database of one repository, for one hook call: its packs' indexes opened on the
/// first read.
pub struct Objects {
    /// The object directory, then those its alternates lead to.
    dirs: Vec<PathBuf>,
    packs: OnceCell<Vec<Pack>>,
    /// [`BUCKET_READ_BYTES`], smaller in tests (to search id by id in small packs).
    bucket_read_bytes: u64,
    /// The buffer index slices and compressed bytes are read into: zeroed once, reused by
    /// every read of the call.
    scratch: RefCell<Vec<u8>>,
}

/// One pack and its index, open, with the index's fanout table.
struct Pack {
    idx: File,
    pack: File,
    idx_len: u64,
    pack_len: u64,
    /// How many ids sort at or before each first byte; the last is the object count.
    fanout: Vec<u32>,
}

impl Objects {
    /// The object database of `repo`, with the directories its alternates lead to; None when
    /// those cannot be read (a FIFO, a chain too long: `git::preflight` refuses such a
    /// repository before it is opened). Ids of another length than SHA-1's are left to
    /// libgit2 one by one ([`Objects::look`]).
    pub fn of(repo: &Repository) -> Option<Objects> {
        Objects::in_common_dir(repo.commondir())
    }

    /// [`Objects::of`] the repository whose common directory is `common` (a plain layout's
    /// `.git`, read without libgit2: `crate::plain`).
    pub fn in_common_dir(common: &Path) -> Option<Objects> {
        let dirs = super::preflight::object_dirs(&common.join("objects"), |_| Ok(())).ok()?;
        Some(Objects::at(dirs, BUCKET_READ_BYTES))
    }

    fn at(dirs: Vec<PathBuf>, bucket_read_bytes: u64) -> Objects {
        Objects {
            dirs,
            packs: OnceCell::new(),
            bucket_read_bytes,
            scratch: RefCell::new(Vec::new()),
        }
    }

    /// The object `id`: Ok(None) when this reader cannot tell (see the module's comment),
    /// a [`Refusal`] when it is too big or damaged.
    pub fn look(&self, id: Oid) -> Answer<Object> {
        self.read_at_depth(id, 0, 0).map_err(|why| why.of(id))
    }

    /// [`Objects::look`] with a refusal as "cannot tell" (the tests' comparison with libgit2).
    #[cfg(test)]
    pub fn read(&self, id: Oid) -> Option<Object> {
        self.look(id).ok().flatten()
    }

    /// The commit `id`, parsed ([`CommitFields`]); Ok(None) when it is not read here (libgit2
    /// then decides whether it exists and is a commit).
    pub fn commit(&self, id: Oid) -> Answer<CommitFields> {
        Ok(self
            .look(id)?
            .filter(|o| o.kind == ObjectType::Commit)
            .and_then(|o| CommitFields::parse(o.data)))
    }

    /// The tree `id`, parsed ([`TreeEntries`]); Ok(None) when it is not read here.
    pub fn tree(&self, id: Oid) -> Answer<TreeEntries> {
        Ok(self
            .look(id)?
            .filter(|o| o.kind == ObjectType::Tree)
            .and_then(|o| TreeEntries::parse(o.data)))
    }

    fn read_at_depth(&self, id: Oid, depth: usize, hops: usize) -> Result<Option<Object>, Why> {
        let Some(id) = as_id(id) else {
            return Ok(None);
        };
        for pack in self.packs() {
            if let Some(offset) = self.find(pack, &id) {
                return self.read_packed(pack, offset, depth, hops);
            }
        }
        for dir in &self.dirs {
            if let Some(object) = read_loose(dir, &id)? {
                return Ok(Some(object));
            }
        }
        Ok(None)
    }

    fn packs(&self) -> &[Pack] {
        self.packs.get_or_init(|| {
            self.dirs
                .iter()
                .flat_map(|dir| open_packs(&dir.join("pack")))
                .collect()
        })
    }

    /// `id`'s offset in `pack`, through the shared buffer.
    fn find(&self, pack: &Pack, id: &[u8; ID_BYTES]) -> Option<u64> {
        pack.find(id, self.bucket_read_bytes, &mut self.scratch.borrow_mut())
    }

    /// The inflated data of the entry `header` of `pack`, through the shared buffer.
    fn inflate(&self, pack: &Pack, header: &Header) -> Option<Vec<u8>> {
        pack.inflate(header.data_at, header.size, &mut self.scratch.borrow_mut())
    }

    /// The object at `offset` of `pack`: its delta chain followed down to a whole object, then
    /// the deltas applied back up. Every header on the way is checked against the cap before
    /// anything is inflated; a delta's result size before it is applied.
    fn read_packed(
        &self,
        pack: &Pack,
        offset: u64,
        depth: usize,
        hops: usize,
    ) -> Result<Option<Object>, Why> {
        let mut deltas: Vec<Header> = Vec::new();
        let mut at = offset;
        let base = loop {
            if depth + deltas.len() > MAX_DELTA_DEPTH {
                return Err(Why::Damaged);
            }
            let Some(header) = pack.header(at) else {
                return Ok(None);
            };
            if header.size > MAX_OBJECT_BYTES {
                return Err(Why::TooBig(header.size));
            }
            match header.base {
                Base::None(kind) => {
                    let Some(data) = self.inflate(pack, &header) else {
                        return Ok(None);
                    };
                    break Object { kind, data };
                }
                Base::Offset(base_at) => {
                    deltas.push(header);
                    at = base_at;
                }
                Base::Id(base_id) => {
                    deltas.push(header);
                    // In the same pack, as git writes them; else anywhere in the database.
                    match self.find(pack, &base_id) {
                        Some(base_at) => at = base_at,
                        None => {
                            let Ok(id) = Oid::from_bytes(&base_id) else {
                                return Ok(None);
                            };
                            if hops == MAX_PACK_HOPS {
                                return Err(Why::Damaged);
                            }
                            match self.read_at_depth(id, depth + deltas.len(), hops + 1)? {
                                Some(base) => break base,
                                None => return Ok(None),
                            }
                        }
                    }
                }
            }
        };
        let mut object = base;
        for header in deltas.iter().rev() {
            let Some(delta) = self.inflate(pack, header) else {
                return Ok(None);
            };
            if let Some(size) = delta_result_size(&delta).filter(|&n| n > MAX_OBJECT_BYTES) {
                return Err(Why::TooBig(size));
            }
            match apply_delta(&object.data, &delta) {
                Some(data) => object.data = data,
                None => return Ok(None),
            }
        }
        Ok(Some(object))
    }
}

/// Why an object is refused, before the id it is said of is known ([`Refusal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    TooBig(u64),
    Damaged,
}

impl Why {
    fn of(self, id: Oid) -> Refusal {
        match self {
            Why::TooBig(size) => Refusal::TooBig { id, size },
            Why::Damaged => Refusal::Damaged { id },
        }
    }
}

/// The first `len` bytes of `scratch`, grown (zeroed) only when it is shorter.
fn sized(scratch: &mut Vec<u8>, len: usize) -> &mut [u8] {
    if scratch.len() < len {
        scratch.resize(len, 0);
    }
    &mut scratch[..len]
}

/// `id`'s bytes, when it is a SHA-1 id.
fn as_id(id: Oid) -> Option<[u8; ID_BYTES]> {
    id.as_bytes().try_into().ok()
}

/// A file of the object database, opened for reading without blocking (on Unix: a FIFO
/// cannot hang the call) and only when it is a regular file; with its size.
fn open_regular(path: &Path) -> Option<(File, u64)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).ok()?;
    let meta = file.metadata().ok()?;
    meta.is_file().then_some((file, meta.len()))
}

/// Up to `buf.len()` bytes of `file` at `at`: how many were read.
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, at)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, at)
    }
}

/// Exactly `buf.len()` bytes of `file` at `at`.
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match read_at(file, buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

/// Every `pack-*.idx` in `dir` with its pack, both valid in their headers. A pack that is not
/// is skipped (its objects are then left to libgit2).
fn open_packs(dir: &Path) -> Vec<Pack> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut packs = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(stem) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".idx"))
            .filter(|s| s.starts_with("pack-"))
        else {
            continue;
        };
        if let Some(pack) = Pack::open(
            &dir.join(name.as_os_str()),
            &dir.join(format!("{stem}.pack")),
        ) {
            packs.push(pack);
        }
    }
    packs
}

/// Where a pack entry's whole object is: nowhere (it is whole, of this type), at an earlier
/// offset of the same pack, or under an id.
#[derive(Clone, Copy)]
enum Base {
    None(ObjectType),
    Offset(u64),
    Id([u8; ID_BYTES]),
}

/// A pack entry's header: its size once inflated, where its compressed data starts, and its
/// base.
struct Header {
    size: u64,
    data_at: u64,
    base: Base,
}

impl Pack {
    fn open(idx_path: &Path, pack_path: &Path) -> Option<Pack> {
        let (idx, idx_len) = open_regular(idx_path)?;
        let (pack, pack_len) = open_regular(pack_path)?;
        // Version 2 index: magic, version, 256 fanout counts.
        let mut head = [0u8; 8 + 256 * 4];
        read_exact_at(&idx, &mut head, 0).ok()?;
        if head[..8] != [0xff, b't', b'O', b'c', 0, 0, 0, 2] {
            return None;
        }
        let fanout: Vec<u32> = head[8..]
            .chunks_exact(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if fanout.windows(2).any(|w| w[0] > w[1]) {
            return None;
        }
        // Ids, checksums and offsets of every object, and the two trailing checksums, at least.
        let count = u64::from(fanout[255]);
        if idx_len < 8 + 1024 + count * (ID_BYTES as u64 + 8) + 2 * ID_BYTES as u64 {
            return None;
        }
        let mut pack_head = [0u8; 12];
        read_exact_at(&pack, &mut pack_head, 0).ok()?;
        if &pack_head[..4] != b"PACK"
            || !matches!(pack_head[7], 2 | 3)
            || pack_head[4..7] != [0, 0, 0]
        {
            return None;
        }
        Some(Pack {
            idx,
            pack,
            idx_len,
            pack_len,
            fanout,
        })
    }

    fn count(&self) -> u64 {
        u64::from(self.fanout[255])
    }

    /// The offset in the pack of the object `id`, by the index: the ids sorting under its
    /// first byte read in one piece (or searched one by one when there are many), then its
    /// offset.
    fn find(
        &self,
        id: &[u8; ID_BYTES],
        bucket_read_bytes: u64,
        scratch: &mut Vec<u8>,
    ) -> Option<u64> {
        let first = usize::from(id[0]);
        let lo = if first == 0 {
            0
        } else {
            u64::from(self.fanout[first - 1])
        };
        let hi = u64::from(self.fanout[first]);
        let ids_at = 8 + 1024;
        let id_len = ID_BYTES as u64;
        let index = if (hi - lo) * id_len <= bucket_read_bytes {
            let ids = sized(scratch, ((hi - lo) * id_len) as usize);
            read_exact_at(&self.idx, ids, ids_at + lo * id_len).ok()?;
            // Sorted: a binary search over the slice.
            let (mut a, mut b) = (0, ids.len() / ID_BYTES);
            let found = loop {
                if a >= b {
                    return None;
                }
                let mid = a + (b - a) / 2;
                match ids[mid * ID_BYTES..(mid + 1) * ID_BYTES].cmp(id.as_slice()) {
                    std::cmp::Ordering::Equal => break mid,
                    std::cmp::Ordering::Less => a = mid + 1,
                    std::cmp::Ordering::Greater => b = mid,
                }
            };
            lo + found as u64
        } else {
            let (mut lo, mut hi) = (lo, hi);
            let mut candidate = [0u8; ID_BYTES];
            loop {
                if lo >= hi {
                    return None;
                }
                let mid = lo + (hi - lo) / 2;
                read_exact_at(&self.idx, &mut candidate, ids_at + mid * id_len).ok()?;
                match candidate.as_slice().cmp(id.as_slice()) {
                    std::cmp::Ordering::Equal => break mid,
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                }
            }
        };
        let count = self.count();
        let offsets_at = ids_at + count * (id_len + 4);
        let mut small = [0u8; 4];
        read_exact_at(&self.idx, &mut small, offsets_at + index * 4).ok()?;
        let small = u32::from_be_bytes(small);
        let offset = if small & 0x8000_0000 == 0 {
            u64::from(small)
        } else {
            // Beyond 2 GiB: an index into the table of 8-byte offsets that follows.
            let large_at = offsets_at + count * 4 + u64::from(small & 0x7fff_ffff) * 8;
            if large_at + 8 > self.idx_len {
                return None;
            }
            let mut large = [0u8; 8];
            read_exact_at(&self.idx, &mut large, large_at).ok()?;
            u64::from_be_bytes(large)
        };
        // After the pack's header, before its trailing checksum.
        (offset >= 12 && offset + id_len <= self.pack_len).then_some(offset)
    }

    /// The entry header at `at`: type and size (a base-128 number, 4 bits in the first byte),
    /// then for a delta its base (a distance back, or an id).
    fn header(&self, at: u64) -> Option<Header> {
        let mut bytes = [0u8; 32];
        let read = read_at(&self.pack, &mut bytes, at).ok()?;
        let bytes = &bytes[..read];
        let mut i = 0;
        let mut byte = *bytes.first()?;
        let kind = (byte >> 4) & 7;
        let mut size = u64::from(byte & 0x0f);
        let mut shift = 4;
        while byte & 0x80 != 0 {
            i += 1;
            byte = *bytes.get(i)?;
            if shift > 57 {
                return None;
            }
            size |= u64::from(byte & 0x7f) << shift;
            shift += 7;
        }
        i += 1;
        let base = match kind {
            1 => Base::None(ObjectType::Commit),
            2 => Base::None(ObjectType::Tree),
            3 => Base::None(ObjectType::Blob),
            4 => Base::None(ObjectType::Tag),
            6 => {
                // A distance back, base 128 with an offset added per continuation byte.
                let mut byte = *bytes.get(i)?;
                i += 1;
                let mut back = u64::from(byte & 0x7f);
                while byte & 0x80 != 0 {
                    byte = *bytes.get(i)?;
                    i += 1;
                    back = back.checked_add(1)?.checked_mul(128)? | u64::from(byte & 0x7f);
                }
                if back == 0 || back > at {
                    return None;
                }
                Base::Offset(at - back)
            }
            7 => {
                let id: [u8; ID_BYTES] = bytes.get(i..i + ID_BYTES)?.try_into().ok()?;
                i += ID_BYTES;
                Base::Id(id)
            }
            _ => return None,
        };
        Some(Header {
            size,
            data_at: at + i as u64,
            base,
        })
    }

    /// The zlib stream at `at`, which must inflate to exactly `size` bytes.
    fn inflate(&self, at: u64, size: u64, scratch: &mut Vec<u8>) -> Option<Vec<u8>> {
        let mut inflater = Decompress::new(true);
        let mut out = Vec::with_capacity(usize::try_from(size).ok()?);
        // Compressed, `size` bytes take at most a little more (zlib's stored blocks): most
        // objects come in one read of about their size.
        let guess = size.saturating_add(size / 64 + 64).min(CHUNK_BYTES as u64) as usize;
        let chunk = sized(scratch, guess);
        let mut at = at;
        loop {
            if at >= self.pack_len {
                return None;
            }
            let read = read_at(&self.pack, chunk, at).ok()?;
            if read == 0 {
                return None;
            }
            let before = inflater.total_in();
            let status = inflate_into(&mut inflater, &chunk[..read], &mut out, size)?;
            at += inflater.total_in() - before;
            if status == Status::StreamEnd {
                break;
            }
        }
        (out.len() as u64 == size).then_some(out)
    }
}

/// Inflates `input` into `out`, never past `size` bytes in all: Some(StreamEnd) at the
/// stream's end, Some(Ok) when it wants more input, None when the stream is damaged or holds
/// more than `size` bytes.
fn inflate_into(
    inflater: &mut Decompress,
    input: &[u8],
    out: &mut Vec<u8>,
    size: u64,
) -> Option<Status> {
    let mut input = input;
    loop {
        let (in_before, out_before) = (inflater.total_in(), out.len());
        let status = if (out.len() as u64) < size {
            inflater
                .decompress_vec(input, out, FlushDecompress::None)
                .ok()?
        } else {
            // All the bytes the header promised: only the stream's end may follow.
            let mut spare = [0u8; 1];
            let status = inflater
                .decompress(input, &mut spare, FlushDecompress::None)
                .ok()?;
            if inflater.total_out() > size {
                return None;
            }
            status
        };
        let used = (inflater.total_in() - in_before) as usize;
        input = &input[used..];
        match status {
            Status::StreamEnd => return Some(Status::StreamEnd),
            _ if input.is_empty() => return Some(Status::Ok),
            // No progress with input left: the stream is damaged.
            _ if used == 0 && out.len() == out_before => return None,
            _ => {}
        }
    }
}

/// A loose object, `objects/ab/cdef…`: a zlib stream of `<type> <size>\0<contents>`. Its
/// header is inflated from the file's first bytes and its size checked before the rest is
/// read: a bomb is refused from its first kilobyte.
fn read_loose(dir: &Path, id: &[u8; ID_BYTES]) -> Result<Option<Object>, Why> {
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(&hex[..2]).join(&hex[2..]);
    let Some((file, len)) = open_regular(&path) else {
        // Something that is not a file stands there (a FIFO libgit2 would wait on forever):
        // damaged. Nothing there: not found here.
        return match std::fs::symlink_metadata(&path) {
            Ok(_) => Err(Why::Damaged),
            Err(_) => Ok(None),
        };
    };
    let mut first = [0u8; 1024];
    let Ok(read) = read_at(&file, &mut first, 0) else {
        return Ok(None);
    };
    let Some((kind, size)) = loose_header(&first[..read]) else {
        return Ok(None);
    };
    if size > MAX_OBJECT_BYTES {
        return Err(Why::TooBig(size));
    }
    // Compressed, an object of at most the cap is at most a little larger: more bytes than
    // that are not a loose object git wrote (and libgit2 would read them all).
    if len > MAX_OBJECT_BYTES + MAX_OBJECT_BYTES / 64 + 1024 {
        return Err(Why::Damaged);
    }
    Ok(read_loose_whole(&file, len, kind, size))
}

/// The type and declared size of a loose object, from the first bytes of its file.
fn loose_header(compressed: &[u8]) -> Option<(ObjectType, u64)> {
    let mut inflater = Decompress::new(true);
    let mut head = Vec::with_capacity(64);
    inflater
        .decompress_vec(compressed, &mut head, FlushDecompress::None)
        .ok()?;
    let nul = head.iter().position(|&b| b == 0)?;
    let (kind, size) = std::str::from_utf8(&head[..nul]).ok()?.split_once(' ')?;
    let kind = match kind {
        "commit" => ObjectType::Commit,
        "tree" => ObjectType::Tree,
        "blob" => ObjectType::Blob,
        "tag" => ObjectType::Tag,
        _ => return None,
    };
    if size.is_empty() || !size.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((kind, size.parse().ok()?))
}

/// The whole loose object in `file` (`len` bytes), declared `kind` and `size` (at most the
/// cap).
fn read_loose_whole(file: &File, len: u64, kind: ObjectType, size: u64) -> Option<Object> {
    let mut compressed = vec![0u8; usize::try_from(len).ok()?];
    read_exact_at(file, &mut compressed, 0).ok()?;
    let mut inflater = Decompress::new(true);
    // The header first: "commit 4194304\0" and a few digits more at most.
    let mut head = Vec::with_capacity(64);
    let status = inflater
        .decompress_vec(&compressed, &mut head, FlushDecompress::None)
        .ok()?;
    let nul = head.iter().position(|&b| b == 0)?;
    let mut data = Vec::with_capacity(size as usize);
    data.extend_from_slice(head.get(nul + 1..)?);
    if data.len() as u64 > size {
        return None;
    }
    let status = if status == Status::StreamEnd {
        status
    } else {
        let used = inflater.total_in() as usize;
        inflate_into(&mut inflater, &compressed[used..], &mut data, size)?
    };
    (status == Status::StreamEnd && data.len() as u64 == size).then_some(Object { kind, data })
}

/// The size of the object a delta makes (its second number), from its first bytes.
fn delta_result_size(delta: &[u8]) -> Option<u64> {
    let mut numbers = delta_sizes(delta);
    numbers.next()?;
    numbers.next()
}

/// The base-128 numbers at the start of a delta: the base's size, then the result's.
fn delta_sizes(delta: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || delta_size(delta, &mut at))
}

/// One size at `at` of a delta's header (7 bits a byte, low first, the high bit saying another
/// byte follows), `at` moved past it; None when it runs off the end or past 64 bits.
fn delta_size(delta: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *delta.get(*at)?;
        *at += 1;
        if shift > 63 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
}

/// `base` with `delta` applied: the two sizes, then instructions that copy a span of the base
/// or insert the bytes that follow them.
fn apply_delta(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    if delta_size(delta, &mut at)? != base.len() as u64 {
        return None;
    }
    let result_size = delta_size(delta, &mut at)?;
    if result_size > MAX_OBJECT_BYTES {
        return None;
    }
    let mut out = Vec::with_capacity(result_size as usize);
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            // Copy: up to 4 offset bytes and 3 size bytes, each present when its bit is set.
            let mut fields = [0u64; 2];
            for (field, (bits, shift_bits)) in
                fields.iter_mut().zip([(op & 0x0f, 4), (op >> 4 & 0x07, 3)])
            {
                for i in 0..shift_bits {
                    if bits & (1 << i) != 0 {
                        *field |= u64::from(*delta.get(at)?) << (8 * i);
                        at += 1;
                    }
                }
            }
            let [offset, mut len] = fields;
            if len == 0 {
                len = 0x10000;
            }
            let end = offset.checked_add(len)?;
            if end > base.len() as u64 {
                return None;
            }
            out.extend_from_slice(&base[offset as usize..end as usize]);
        } else if op != 0 {
            out.extend_from_slice(delta.get(at..at + usize::from(op))?);
            at += usize::from(op);
        } else {
            return None;
        }
        if out.len() as u64 > result_size {
            return None;
        }
    }
    (out.len() as u64 == result_size).then_some(out)
}

#[cfg(test)]
#[path = "objects_tests.rs"]
mod tests;
