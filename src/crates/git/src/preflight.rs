//! The look at a repository's files before libgit2 opens it: every file under `.git` that
//! libgit2 reads on the way (when it opens the repository, resolves HEAD, reads the index,
//! lists the packs, checks ignores) must be a regular file within a size cap.
//!
//! Why: libgit2 opens these files blocking and reads them whole. In a repository that came as
//! a tarball everything under `.git` is the stranger's: a FIFO in place of the index, a
//! packed-ref or a pack index hung `boot` and `status` forever, and a sparse `HEAD` of 300 MiB
//! (4 KB on disk) cost a SessionStart 311 MB. So each file is looked at first: read the read
//! gate's way (`O_NONBLOCK`, `fstat` on the descriptor) when its content matters (`HEAD`,
//! `commondir`, `config`, the refs HEAD resolves through, `alternates`), else one `stat`
//! (which never opens, so never blocks). About 30 system calls per repository opened.
//!
//! What is checked (missing files are fine, git does without them):
//! - in the git directory: `HEAD`, `commondir`, `gitdir`, `index`, `config.worktree`;
//! - in the common directory: `config` and every file it names that libgit2 reads (an
//!   `[include]` or `[includeIf]` path, `core.excludesFile`, `core.attributesFile`, whatever
//!   the condition: a file libgit2 might read is checked), `packed-refs`, `shallow`,
//!   `info/grafts`, `info/exclude`, `info/attributes`, the loose refs HEAD resolves through and
//!   those the verdict looks up (`refs/remotes/origin/HEAD`, `refs/heads/main`,
//!   `refs/heads/master`), `objects/info/alternates` and, in each object directory it leads
//!   to, `objects/pack/*` (any type of file there but a regular one or a directory is refused:
//!   no size cap, packs are large) and the commit-graph.
//!
//! Loose objects are not looked at here (there may be millions): the object reader
//! (`git::objects`) opens each one it reads without blocking, and the commands' watchdogs bound
//! the rest. A file swapped after this look is not caught: a tarball does not change while it
//! is read.

use handover_base::read_gate::{self, Links, Rejected};
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// `HEAD`, `commondir`, `gitdir`, a loose ref, `objects/info/alternates`: a line or a few.
pub const SMALL_CAP: u64 = 64 * KIB;
/// `config` and the files it includes, `info/exclude`, `info/attributes`: hand-written; the
/// largest real ones are a few KB.
pub const CONFIG_CAP: u64 = MIB;
/// `packed-refs`: tens of MB in the largest repositories (a line per ref, 100,000s of tags).
pub const PACKED_REFS_CAP: u64 = 256 * MIB;
/// `shallow` and `info/grafts`: a commit id per line; 4 MiB is 100,000 shallow points, where a
/// `--depth` clone has one per branch it fetched.
pub const SHALLOW_CAP: u64 = 4 * MIB;
/// The index: about 100 bytes per tracked path, so 256 MiB is some 2.5 million paths, five
/// times Chromium's checkout (an index of about 50 MB). libgit2 reads it whole: the cap is
/// also what a hostile index can cost in memory.
pub const INDEX_CAP: u64 = 256 * MIB;
/// Files in one `objects/pack` directory (git keeps a few; `gc` packs them together).
const MAX_PACK_FILES: usize = 10_000;
/// Object directories followed through `alternates` (git follows 5 levels).
const MAX_OBJECT_DIRS: usize = 16;
/// Config files followed through includes (git allows 10 levels).
const MAX_CONFIG_FILES: usize = 32;
/// How many times HEAD may point to another symbolic ref.
const MAX_SYMREF_DEPTH: u32 = 5;

/// A file under `.git` that libgit2 would read and that handover does not let it read: the
/// read gate's refusal (its `what`: "a FIFO, socket or device, not a regular file", "too big:
/// 300 MiB, over the 64 KiB cap"), said as what stops verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable(pub Rejected);

impl Unreadable {
    fn at(path: &Path, what: impl Into<String>) -> Unreadable {
        Unreadable(Rejected {
            path: path.to_path_buf(),
            what: what.into(),
        })
    }
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot verify: {} is {}, which handover does not let git read; a real repository has no such file: remove it or restore it from a good copy",
            self.0.path.display(),
            self.0.what
        )
    }
}

impl std::error::Error for Unreadable {}

/// The [`Unreadable`] behind an error from `git::open`, if that is what stopped it.
pub fn unreadable(error: &anyhow::Error) -> Option<&Unreadable> {
    error.downcast_ref::<Unreadable>()
}

/// `n` bytes as people read them: "300 MiB", "64 KiB", "12 bytes".
pub fn size_text(n: u64) -> String {
    if n >= MIB {
        format!("{} MiB", n.div_ceil(MIB))
    } else if n >= KIB {
        format!("{} KiB", n.div_ceil(KIB))
    } else {
        format!("{n} bytes")
    }
}

/// Checks the files libgit2 would read to open the repository found from `start` (as
/// `Repository::discover` finds it) and to answer handover's questions. Ok when there is no
/// repository to find: libgit2 then finds none either.
pub fn check(start: &Path) -> Result<(), Unreadable> {
    let Some(git_dir) = find_git_dir(start)? else {
        return Ok(());
    };
    let common = match read_text(&git_dir.join("commondir"), SMALL_CAP)? {
        Some(text) => crate::from_git_file(&git_dir, &text),
        None => git_dir.clone(),
    };
    for (name, cap) in [("gitdir", SMALL_CAP), ("index", INDEX_CAP)] {
        look(&git_dir.join(name), cap)?;
    }
    for (name, cap) in [
        ("packed-refs", PACKED_REFS_CAP),
        ("shallow", SHALLOW_CAP),
        ("info/grafts", SHALLOW_CAP),
        ("info/exclude", CONFIG_CAP),
        ("info/attributes", CONFIG_CAP),
    ] {
        look(&common.join(name), cap)?;
    }
    let mut configs = 0;
    config(&common.join("config"), &mut configs, 0)?;
    config(&git_dir.join("config.worktree"), &mut configs, 0)?;
    refs(&git_dir, &common)?;
    object_dirs(&common.join("objects"), |dir| {
        pack_files(&dir.join("pack"))?;
        look(&dir.join("info").join("commit-graph"), u64::MAX)
    })
    .map(|_| ())
}

/// The git directory `Repository::discover` would open from `start`: the first ancestor with
/// a `.git` directory, or a `.git` file (`gitdir: <path>`, read through the gate), or that is
/// itself a git directory (a bare repository).
fn find_git_dir(start: &Path) -> Result<Option<PathBuf>, Unreadable> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        if let Ok(meta) = std::fs::metadata(&dot_git) {
            if meta.is_dir() {
                return Ok(Some(dot_git));
            }
            if let Some(text) = read_text(&dot_git, SMALL_CAP)? {
                let Some(target) = text.lines().next().and_then(|l| l.strip_prefix("gitdir:"))
                else {
                    return Ok(None);
                };
                return Ok(Some(crate::from_git_file(dir, target)));
            }
        }
        if dir.join("objects").is_dir() && std::fs::symlink_metadata(dir.join("HEAD")).is_ok() {
            return Ok(Some(dir.to_path_buf()));
        }
    }
    Ok(None)
}

/// A file libgit2 reads and handover does not: it must be a regular file of at most `cap`
/// bytes, or a directory (which libgit2 reports as an error of its own), or missing. One
/// `stat` (links followed, as libgit2 follows them): a FIFO is never opened, so nothing
/// blocks.
fn look(path: &Path, cap: u64) -> Result<(), Unreadable> {
    let Ok(meta) = std::fs::metadata(path) else {
        // Missing (or a link to nothing): libgit2 does without it, or reports it itself.
        return Ok(());
    };
    if meta.is_dir() {
        return Ok(());
    }
    if !meta.is_file() {
        return Err(Unreadable::at(
            path,
            "a FIFO, socket or device, not a regular file",
        ));
    }
    within(path, meta.len(), cap)
}

/// `len` bytes at `path` are within `cap`.
fn within(path: &Path, len: u64, cap: u64) -> Result<(), Unreadable> {
    if len > cap {
        return Err(Unreadable::at(
            path,
            format!(
                "too big: {}, over the {} cap",
                size_text(len),
                size_text(cap)
            ),
        ));
    }
    Ok(())
}

/// The file at `path`, to be read, through the read gate (`O_NONBLOCK`, `fstat` on the
/// descriptor) when it is a regular file; None when nothing (or a directory) is there.
/// Anything else that stands there is [`Unreadable`].
fn file(path: &Path) -> Result<Option<File>, Unreadable> {
    let file = match read_gate::open(path, Links::Follow) {
        Ok(Some(f)) => f,
        Ok(None) => return Ok(None),
        Err(e) => match read_gate::rejection(&e) {
            Some(r) if r.what.starts_with("a directory") => return Ok(None),
            Some(r) => return Err(Unreadable(r.clone())),
            // Not readable for another reason (permissions): libgit2 reports it itself.
            None => return Ok(None),
        },
    };
    Ok(Some(file))
}

/// [`file`], read as text (lossy: only its lines that matter are looked at), when it holds at
/// most `cap` bytes (more is [`Unreadable`]).
fn read_text(path: &Path, cap: u64) -> Result<Option<String>, Unreadable> {
    use std::io::Read;
    let Some(file) = file(path)? else {
        return Ok(None);
    };
    // Room for the usual few lines at once (one read, then the one that finds the end).
    let mut bytes = Vec::with_capacity(4096);
    // At most `cap` + 1 bytes, even if the file grew since its size was checked.
    let read = (&file).take(cap + 1).read_to_end(&mut bytes);
    if read.is_err() {
        return Ok(None);
    }
    if bytes.len() as u64 > cap {
        // Its size only now, for the message: the usual file is read without asking.
        within(path, file.metadata().map_or(cap + 1, |m| m.len()), cap)?;
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// A config file, and the files it names that libgit2 reads.
fn config(path: &Path, seen: &mut usize, depth: u32) -> Result<(), Unreadable> {
    *seen += 1;
    let Some(text) = read_text(path, CONFIG_CAP)? else {
        return Ok(());
    };
    let base = path.parent().unwrap_or(Path::new("."));
    for (section, key, value) in config_entries(&text) {
        let names_file = match section.as_str() {
            "include" | "includeif" => key == "path",
            "core" => key == "excludesfile" || key == "attributesfile",
            _ => false,
        };
        if !names_file {
            continue;
        }
        let named = expand(&value, base);
        if section == "core" {
            look(&named, CONFIG_CAP)?;
        } else if depth >= 10 || *seen >= MAX_CONFIG_FILES {
            return Err(Unreadable::at(
                path,
                format!("a config whose includes go deeper than handover follows ({MAX_CONFIG_FILES} files)"),
            ));
        } else {
            config(&named, seen, depth + 1)?;
        }
    }
    Ok(())
}

/// A path as git reads it from a config value: `~/` is the home directory, a relative path
/// is relative to the config file's directory.
fn expand(value: &str, base: &Path) -> PathBuf {
    if let Some(rest) = value.strip_prefix("~/") {
        if let Some(home) = std::env::var_os("HOME") {
            return PathBuf::from(home).join(rest);
        }
    }
    let path = Path::new(value);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// `(section, key, value)` of each `key = value` line of a git config, section and key in
/// lower case (`[includeIf "gitdir:~/x/"]` is section `includeif`), the value unquoted. Only as
/// much of git's syntax as finding file names needs: a line continued with `\` is not joined
/// (git's include paths and file names are one line).
pub(crate) fn config_entries(text: &str) -> Vec<(String, String, String)> {
    let mut entries = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let mut line = line.trim_start();
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else {
                continue;
            };
            let header = &rest[..end];
            section = header
                .split(|c: char| c.is_whitespace() || c == '"' || c == '.')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            // A key may follow the header on the same line.
            line = rest[end + 1..].trim_start();
        }
        if line.starts_with(['#', ';']) || line.is_empty() {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        entries.push((
            section.clone(),
            key.trim().to_ascii_lowercase(),
            config_value(value),
        ));
    }
    entries
}

/// A config value: surrounding space dropped, quotes removed, `\"` and `\\` unescaped, a
/// comment after it dropped.
fn config_value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            _ => out.push(c),
        }
    }
    out.trim_end().to_string()
}

/// The loose refs libgit2 reads for handover: HEAD's chain of symbolic refs, and the refs the
/// verdict's default branch is looked up by.
fn refs(git_dir: &Path, common: &Path) -> Result<(), Unreadable> {
    let ref_path = |name: &str| {
        let per_worktree = !name.starts_with("refs/")
            || name.starts_with("refs/worktree/")
            || name.starts_with("refs/bisect/");
        if per_worktree { git_dir } else { common }.join(name)
    };
    let mut next = Some("HEAD".to_string());
    let mut read = Vec::new();
    for _ in 0..=MAX_SYMREF_DEPTH {
        let Some(name) = next.take().filter(|n| !n.contains("..")) else {
            break;
        };
        let text = read_text(&ref_path(&name), SMALL_CAP)?;
        next = text.and_then(|t| t.trim().strip_prefix("ref:").map(|r| r.trim().to_string()));
        read.push(name);
    }
    for name in [
        "refs/remotes/origin/HEAD",
        "refs/heads/main",
        "refs/heads/master",
    ] {
        if !read.iter().any(|r| r == name) {
            look(&ref_path(name), SMALL_CAP)?;
        }
    }
    Ok(())
}

/// The object directory `objects` and those its `info/alternates` lead to (read through the
/// gate, relative paths from the directory that names them), each given to `check` once.
/// The object reader (`git::objects`) reads from the same list.
pub(crate) fn object_dirs(
    objects: &Path,
    mut check: impl FnMut(&Path) -> Result<(), Unreadable>,
) -> Result<Vec<PathBuf>, Unreadable> {
    let mut dirs = vec![objects.to_path_buf()];
    let mut at = 0;
    while at < dirs.len() {
        let dir = dirs[at].clone();
        at += 1;
        check(&dir)?;
        let alternates = dir.join("info").join("alternates");
        let Some(text) = read_text(&alternates, SMALL_CAP)? else {
            continue;
        };
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if dirs.len() == MAX_OBJECT_DIRS {
                return Err(Unreadable::at(
                    &alternates,
                    format!("a chain of more than {MAX_OBJECT_DIRS} object directories"),
                ));
            }
            let next = expand(line, &dir);
            if !dirs.contains(&next) {
                dirs.push(next);
            }
        }
    }
    Ok(dirs)
}

/// Every file in a pack directory must be a regular file (or a directory): libgit2 opens the
/// indexes, packs and multi-pack-index it finds there.
fn pack_files(dir: &Path) -> Result<(), Unreadable> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for (n, entry) in entries.flatten().enumerate() {
        if n == MAX_PACK_FILES {
            return Err(Unreadable::at(
                dir,
                format!("a pack directory of more than {MAX_PACK_FILES} files"),
            ));
        }
        let is_plain = entry.file_type().is_ok_and(|t| t.is_file() || t.is_dir());
        if !is_plain {
            // A link (followed by the gate: its target must be a regular file), or worse.
            look(&entry.path(), u64::MAX)?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use crate::hostile_git::mkfifo;
    use std::fs;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(ok.success());
        dir
    }

    #[test]
    fn a_plain_repository_passes() {
        let dir = repo();
        assert_eq!(check(dir.path()), Ok(()));
        assert_eq!(check(&dir.path().join("sub/dir")), Ok(()));
        let none = tempfile::tempdir().unwrap();
        assert_eq!(check(none.path()), Ok(()));
    }

    #[test]
    fn fifos_anywhere_libgit2_reads_are_refused() {
        for name in [
            "index",
            "packed-refs",
            "refs/heads/main",
            "refs/heads/master",
            "shallow",
            "info/exclude",
            "objects/info/alternates",
            "objects/pack/pack-1.idx",
            "included",
            "excludes",
        ] {
            let dir = repo();
            let git = dir.path().join(".git");
            fs::create_dir_all(git.join("objects/pack")).unwrap();
            fs::create_dir_all(git.join("info")).unwrap();
            fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
            let config = fs::read_to_string(git.join("config")).unwrap();
            fs::write(
                git.join("config"),
                format!("{config}[include]\n\tpath = included\n[core]\n excludesFile = \"excludes\" # mine\n"),
            )
            .unwrap();
            let _ = fs::remove_file(git.join(name));
            mkfifo(&git.join(name));
            let refused = check(dir.path()).unwrap_err();
            assert_eq!(refused.0.path, git.join(name), "{name}");
            assert!(refused.0.what.contains("FIFO"), "{name}: {refused}");
        }
    }

    #[test]
    fn sparse_files_over_their_cap_are_refused_by_size() {
        for (name, len) in [
            ("HEAD", 300 * MIB),
            ("config", 400 * MIB),
            ("packed-refs", 1536 * MIB),
            ("shallow", 400 * MIB),
        ] {
            let dir = repo();
            let path = dir.path().join(".git").join(name);
            fs::File::create(&path).unwrap().set_len(len).unwrap();
            let refused = check(dir.path()).unwrap_err();
            assert_eq!(refused.0.path, path);
            assert!(refused.0.what.starts_with("too big: "), "{refused}");
            assert!(refused.to_string().contains("cannot verify"), "{refused}");
        }
    }

    /// The look costs about 30 system calls: far under a millisecond in a
    /// repository with a config, refs, an index and packs (printed with `--nocapture`; the
    /// bound is generous for a loaded machine and a debug build).
    #[test]
    fn the_look_costs_nothing_noticeable() {
        let dir = repo();
        let run = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
        };
        fs::write(dir.path().join("a"), "a\n").unwrap();
        run(&["add", "a"]);
        run(&[
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-qm",
            "a",
        ]);
        run(&["gc", "-q"]);
        let rounds = 1000;
        let started = std::time::Instant::now();
        for _ in 0..rounds {
            assert_eq!(check(dir.path()), Ok(()));
        }
        let each = started.elapsed() / rounds;
        println!("git::preflight::check: {each:?} per repository");
        assert!(each < std::time::Duration::from_millis(2), "{each:?}");
    }

    #[test]
    fn config_lines_are_read_as_git_reads_them() {
        let entries = config_entries(
            "[core]\n\tbare = false\n[includeIf \"gitdir:~/w/\"]\n  Path = \"a b\\\\c\" ; note\n[include]path=x\n# [include] path = no\n",
        );
        let wanted: Vec<(String, String, String)> = [
            ("core", "bare", "false"),
            ("includeif", "path", "a b\\c"),
            ("include", "path", "x"),
        ]
        .iter()
        .map(|(s, k, v)| (s.to_string(), k.to_string(), v.to_string()))
        .collect();
        assert_eq!(entries, wanted);
    }
}
