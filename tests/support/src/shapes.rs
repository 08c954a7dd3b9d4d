//! The repositories and handoff shapes the hook benchmark (tests/benches/hooks.rs) and the CI
//! guard (tests/timing/hot_path.rs)
//! run the hooks against: a git repository of any number of committed files, and in it, one
//! at a time, each shape a user meets (no handoff; a handoff on a clean tree; a handoff listing
//! 10 or 100 uncommitted files; the last session's record with edited files; a handoff and a
//! record together).
//!
//! One repository per size holds every shape: a shape's `.handover/` and `handover.md` wait in
//! a stash beside the repository and are moved in (renames) before a run and out after it,
//! and the files it lists as uncommitted are changed or created before and put back after.

use handover_handoff::model::{Content, GitSnapshot, Handoff, ImportantFile, Status};
use handover_handoff::store::Store;
use handover_record::{files as records, SessionRecord};
use std::path::{Path, PathBuf};

/// The session the hooks run as; the record of the session before it is `RECORD_SESSION`.
pub const SESSION: &str = "bench-session";
const RECORD_SESSION: &str = "bench-previous-session";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    NoHandoff,
    CleanHandoff,
    Listed10,
    Listed100,
    Records,
    HandoffAndRecords,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::NoHandoff,
        Shape::CleanHandoff,
        Shape::Listed10,
        Shape::Listed100,
        Shape::Records,
        Shape::HandoffAndRecords,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::NoHandoff => "no handoff",
            Shape::CleanHandoff => "handoff, clean tree",
            Shape::Listed10 => "handoff listing 10 files",
            Shape::Listed100 => "handoff listing 100 files",
            Shape::Records => "last session's record (10 files)",
            Shape::HandoffAndRecords => "handoff + record",
        }
    }

    /// The shape named `key` (`none`, `clean`, `listed10`, `listed100`, `records`, `both`).
    pub fn from_key(key: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.key() == key)
    }

    pub fn key(self) -> &'static str {
        match self {
            Shape::NoHandoff => "none",
            Shape::CleanHandoff => "clean",
            Shape::Listed10 => "listed10",
            Shape::Listed100 => "listed100",
            Shape::Records => "records",
            Shape::HandoffAndRecords => "both",
        }
    }

    /// Uncommitted files while this shape is in place: half changed, half new.
    fn uncommitted(self) -> usize {
        match self {
            Shape::NoHandoff | Shape::CleanHandoff => 0,
            Shape::Listed10 | Shape::Records | Shape::HandoffAndRecords => 10,
            Shape::Listed100 => 100,
        }
    }

    fn handoff(self) -> bool {
        !matches!(self, Shape::NoHandoff | Shape::Records)
    }

    fn record(self) -> bool {
        matches!(self, Shape::Records | Shape::HandoffAndRecords)
    }
}

/// A repository of `files` committed files and the stash of every shape's store.
pub struct Fixture {
    pub root: PathBuf,
    stash: PathBuf,
    files: usize,
}

/// Runs git as the tests do (crate::repo::git_command), and never a background `git gc
/// --auto` (it would pack the repository while the first rounds run: every round must see the
/// same repository).
pub fn git(dir: &Path, args: &[&str]) {
    git_out(dir, args, &[], b"");
}

/// [`git`] with `stdin` and `env`, returning what it printed (trimmed).
fn git_out(dir: &Path, args: &[&str], env: &[(&str, &Path)], stdin: &[u8]) -> String {
    let mut cmd = crate::repo::git_command(dir);
    cmd.args(["-c", "gc.auto=0"])
        .args(args)
        .envs(env.iter().copied());
    crate::repo::git_output_with_input(&mut cmd, stdin)
}

/// The path of committed file `i`: 100 files per directory.
fn tracked(i: usize) -> String {
    format!("src/d{:04}/f{i}.rs", i / 100)
}

/// What `enter` writes into a shape's changed files.
const CHANGED: &str = "// changed\n";

fn original(i: usize) -> String {
    format!("pub const N: usize = {i};\n")
}

fn untracked(i: usize) -> String {
    format!("src/new/n{i}.rs")
}

impl Fixture {
    /// Writes `files` files and commits them (`git add -A`: about 2 s for 100,000 files here),
    /// then prepares every shape's store.
    pub fn build(dir: &Path, files: usize) -> Fixture {
        Fixture::build_with(dir, files, &Shape::ALL)
    }

    /// [`Fixture::build`] with only `shapes` prepared.
    pub fn build_with(dir: &Path, files: usize, shapes: &[Shape]) -> Fixture {
        let root = Fixture::init(dir);
        for i in 0..files {
            if i % 100 == 0 {
                std::fs::create_dir_all(root.join(format!("src/d{:04}", i / 100))).expect("mkdir");
            }
            std::fs::write(root.join(tracked(i)), original(i)).expect("write");
        }
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", "files"]);
        // Packed now, as a clone is and as the background `gc --auto` a commit of this many
        // files starts would leave it, rather than while the rounds run.
        git(&root, &["gc", "-q"]);
        Fixture::finish(dir, root, files, shapes)
    }

    /// A repository whose commit and index hold `files` files but whose working tree holds
    /// only the files the shapes touch: `git fast-import` writes one pack and `git read-tree`
    /// the full index (8 MB at 100,000 files), in a second or two instead of writing, hashing
    /// and later deleting every file. For measuring what must not depend on the working tree
    /// or the index (SessionStart); the files never written count as deleted to a scan.
    pub fn build_sparse(dir: &Path, files: usize, shapes: &[Shape]) -> Fixture {
        let root = Fixture::init(dir);
        let mut stream = Vec::new();
        stream.extend_from_slice(
            b"commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\nfiles\n",
        );
        for i in 0..files {
            let content = original(i);
            stream.extend_from_slice(
                format!(
                    "M 100644 inline {}\ndata {}\n{content}\n",
                    tracked(i),
                    content.len()
                )
                .as_bytes(),
            );
        }
        git_out(&root, &["fast-import", "--quiet"], &[], &stream);
        git(&root, &["read-tree", "HEAD"]);
        // The file every handoff names as important.
        std::fs::create_dir_all(root.join("src/d0000")).expect("mkdir");
        std::fs::write(root.join(tracked(1)), original(1)).expect("write");
        Fixture::finish(dir, root, files, shapes)
    }

    /// A fixture [`Fixture::build`] left in `dir` earlier (the bench's `HOOK_BENCH_KEEP`).
    pub fn reopen(dir: &Path, files: usize) -> Fixture {
        Fixture {
            root: dir.join("repo").canonicalize().expect("canonical"),
            stash: dir.join("stash"),
            files,
        }
    }

    fn init(dir: &Path) -> PathBuf {
        let root = dir.join("repo");
        std::fs::create_dir_all(&root).expect("mkdir");
        std::fs::create_dir_all(dir.join("stash")).expect("mkdir");
        git(&root, &["init", "-q", "-b", "main"]);
        root
    }

    fn finish(dir: &Path, root: PathBuf, files: usize, shapes: &[Shape]) -> Fixture {
        let stash = dir.join("stash");
        let root = root.canonicalize().expect("canonical");
        let fixture = Fixture { root, stash, files };
        for &shape in shapes {
            fixture.prepare(shape);
        }
        fixture
    }

    /// Takes away what the hooks remember in the git directory about HEAD's tree
    /// (`git::head_entries`), so that the next hook reads HEAD's trees as the first one at a
    /// new HEAD does. Returns the file's bytes, for [`Fixture::restore_head_entries`].
    pub fn forget_head_entries(&self) -> Option<Vec<u8>> {
        let file = self.head_entries_file();
        let saved = std::fs::read(&file).ok();
        let _ = std::fs::remove_file(&file);
        saved
    }

    /// What the hooks remember in the git directory about HEAD's tree, left in place (for
    /// [`Fixture::restore_head_entries`] after a run at another HEAD rewrote it).
    pub fn head_entries(&self) -> Option<Vec<u8>> {
        std::fs::read(self.head_entries_file()).ok()
    }

    /// Puts back what [`Fixture::forget_head_entries`] took away.
    pub fn restore_head_entries(&self, saved: Option<Vec<u8>>) {
        let file = self.head_entries_file();
        match saved {
            Some(bytes) => std::fs::write(&file, bytes).expect("restore"),
            None => {
                let _ = std::fs::remove_file(&file);
            }
        }
    }

    fn head_entries_file(&self) -> PathBuf {
        self.root
            .join(".git")
            .join(handover_git::head_entries::FILE_NAME)
    }

    /// The commit after HEAD that a session start meets after the user committed part of the
    /// work: HEAD with the first changed file of the shapes that list files committed as
    /// `enter` changes it (so the working tree matches it there). Made once, without moving HEAD or
    /// touching the index (a temporary index), and kept under `refs/bench/after`; its objects
    /// are loose, as a local commit's are. Returns (HEAD, that commit).
    pub fn commit_after(&self) -> (String, String) {
        let head = git_out(&self.root, &["rev-parse", "HEAD"], &[], b"");
        if let Some(after) = self.after() {
            return (head, after);
        }
        let path = tracked(self.changed_index(0));
        let blob = git_out(
            &self.root,
            &["hash-object", "-w", "--stdin"],
            &[],
            CHANGED.as_bytes(),
        );
        let index = self.stash.join("after.index");
        let env = [("GIT_INDEX_FILE", index.as_path())];
        git_out(&self.root, &["read-tree", "HEAD"], &env, b"");
        let info = format!("100644,{blob},{path}");
        git_out(
            &self.root,
            &["update-index", "--cacheinfo", &info],
            &env,
            b"",
        );
        let tree = git_out(&self.root, &["write-tree"], &env, b"");
        let _ = std::fs::remove_file(&index);
        let after = git_out(
            &self.root,
            &["commit-tree", &tree, "-p", &head, "-m", "one listed file"],
            &[],
            b"",
        );
        git_out(
            &self.root,
            &["update-ref", "refs/bench/after", &after],
            &[],
            b"",
        );
        (head, after)
    }

    fn after(&self) -> Option<String> {
        let at = self.root.join(".git/refs/bench/after");
        Some(std::fs::read_to_string(at).ok()?.trim().to_string())
    }

    /// Points the branch HEAD names (`main`) at `commit`, as a commit or a pull does: its
    /// loose ref file written (it takes precedence over a packed one).
    pub fn move_head(&self, commit: &str) {
        std::fs::write(
            self.root.join(".git/refs/heads/main"),
            format!("{commit}\n"),
        )
        .expect("ref");
    }

    /// Makes the working tree and the store what `shape` describes.
    pub fn enter(&self, shape: Shape) {
        let (changed, new) = self.split(shape);
        for i in 0..changed {
            let path = self.root.join(tracked(self.changed_index(i)));
            // A sparse fixture has no directory there yet.
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, CHANGED).expect("write");
        }
        if new > 0 {
            std::fs::create_dir_all(self.root.join("src/new")).expect("mkdir");
        }
        for i in 0..new {
            std::fs::write(self.root.join(untracked(i)), "// new\n").expect("write");
        }
        let (store, markdown) = self.stashed(shape);
        if store.exists() {
            std::fs::rename(&store, self.root.join(".handover")).expect("store in");
        }
        if markdown.exists() {
            std::fs::rename(&markdown, self.root.join("handover.md")).expect("markdown in");
        }
    }

    /// Puts everything `enter` changed back: committed contents, no new files, the store back
    /// in its stash.
    pub fn leave(&self, shape: Shape) {
        let (changed, _) = self.split(shape);
        for i in 0..changed {
            let i = self.changed_index(i);
            std::fs::write(self.root.join(tracked(i)), original(i)).expect("write");
        }
        let _ = std::fs::remove_dir_all(self.root.join("src/new"));
        // What the hooks created (session state, their own session's record) stays with the
        // shape, as it stays in a repository between hook calls.
        let (store, markdown) = self.stashed(shape);
        let here = self.root.join(".handover");
        if here.exists() {
            std::fs::rename(&here, &store).expect("store out");
        }
        let md = self.root.join("handover.md");
        if md.exists() {
            std::fs::rename(&md, &markdown).expect("markdown out");
        }
    }

    /// How many of the shape's uncommitted files are changed committed files (half, or all
    /// the repository has) and how many are new.
    fn split(&self, shape: Shape) -> (usize, usize) {
        let n = shape.uncommitted();
        let changed = (n / 2).min(self.files);
        (changed, n - changed)
    }

    /// Changed files are spread over the tree, one per directory where there are enough.
    fn changed_index(&self, i: usize) -> usize {
        (i * 100 + i % 100) % self.files
    }

    fn stashed(&self, shape: Shape) -> (PathBuf, PathBuf) {
        (
            self.stash.join(format!("{}.handover", shape.key())),
            self.stash.join(format!("{}.md", shape.key())),
        )
    }

    fn prepare(&self, shape: Shape) {
        if !shape.handoff() && !shape.record() {
            return;
        }
        self.enter_tree_only(shape);
        if shape.handoff() {
            save_handoff(&self.root, Some(self.snapshot(shape)));
        }
        if shape.record() {
            let mut record = SessionRecord::new(RECORD_SESSION, handover_clients::Agent::Claude);
            let (changed, new) = self.split(shape);
            record.files_edited = (0..changed)
                .map(|i| tracked(self.changed_index(i)))
                .chain((0..new).map(untracked))
                .collect();
            record.files_edited_total = (changed + new) as u64;
            record.work_since_handoff = true;
            // Newer than the handoff just written, so SessionStart shows "since the handoff".
            record.updated_ms = handover_base::clock::millis(std::time::SystemTime::now()) + 1000;
            record.updated = handover_base::clock::now_rfc3339();
            records::save(&handover_handoff::store::Store::at(&self.root), &record)
                .expect("record");
        }
        self.leave(shape);
    }

    /// What `git::snapshot` records for `shape`, built from what `enter` changed rather than
    /// by scanning 100,000 files once per shape (tests/boot/git_snapshot.rs tests the scan).
    fn snapshot(&self, shape: Shape) -> GitSnapshot {
        let head = handover_git::read_head_files(&self.root).expect("HEAD");
        let (changed, new) = self.split(shape);
        let mut dirty: Vec<String> = (0..changed)
            .map(|i| tracked(self.changed_index(i)))
            .collect();
        let mut untracked: Vec<String> = (0..new).map(untracked).collect();
        dirty.sort();
        untracked.sort();
        GitSnapshot {
            root: self.root.to_string_lossy().into_owned(),
            branch: head.branch,
            detached: head.detached,
            head: head.head,
            dirty,
            untracked,
            ..GitSnapshot::default()
        }
    }

    /// `enter` for a shape whose store does not exist yet.
    fn enter_tree_only(&self, shape: Shape) {
        let (store, markdown) = self.stashed(shape);
        assert!(!store.exists() && !markdown.exists());
        self.enter(shape);
    }
}

fn save_handoff(root: &Path, git: Option<GitSnapshot>) {
    let mut h = Handoff {
        schema_version: handover_handoff::model::SCHEMA_VERSION,
        id: "bench".into(),
        created_at: handover_base::clock::now_rfc3339(),
        git,
        content: Content {
            goal: "Benchmark the hooks".into(),
            status: Status {
                in_progress: vec!["Measure session-start".into()],
                ..Status::default()
            },
            important_files: vec![ImportantFile {
                path: tracked(1),
                why: "referenced, so verification checks it".into(),
            }],
            next_action: Some("Read the figures".into()),
            ..Content::default()
        },
        ..Handoff::default()
    };
    // As `handover write` stores it: with the digest of the handover.md written beside it.
    let markdown = handover_handoff::markdown::render(&h);
    h.markdown_sha256 = Some(handover_handoff::hand_edits::digest(markdown.as_bytes()));
    handover_handoff::store::seal(&mut h);
    Store::at(root).save(&h, &markdown).expect("save");
}
