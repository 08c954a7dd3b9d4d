//! Hostile `.git` contents, written directly as an unpacked tarball would bring them: FIFOs,
//! sparse files, a compressed bomb (an object of 256 MiB of zeros, a few hundred KB on disk,
//! loose or packed), a pack whose deltas by id form a loop. And the measure of a command run
//! against them: its wall time, killed past a bound, and its peak RSS.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// What a compressed bomb inflates to.
pub const BOMB_BYTES: u64 = 256 * 1024 * 1024;

pub fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A file of `len` bytes that takes no room on disk (a hole).
pub fn sparse(path: &Path, len: u64) {
    let _ = std::fs::remove_file(path);
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

/// git with `stdin`. Not the harness's `repo::git_command`: this file is also compiled into
/// handover-git's unit tests (src/crates/git/src/objects_tests.rs), which cannot use the
/// harness (it depends on handover-git), so it stands alone.
fn git(dir: &Path, args: &[&str], stdin: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A loose commit object of [`BOMB_BYTES`] in the repository at `dir`: a well-formed commit
/// of the empty tree whose message is zeros (git compresses it: about 260 KB on disk, and can
/// push it); its id.
pub fn loose_bomb(dir: &Path) -> String {
    let bomb = bomb();
    put(&dir.join(".git/objects"), &bomb.loose);
    bomb.id.clone()
}

/// [`loose_bomb`] in a pack of its own instead (no loose copy); its id.
pub fn packed_bomb(dir: &Path) -> String {
    let bomb = bomb();
    for file in &bomb.pack {
        put(&dir.join(".git/objects"), file);
    }
    bomb.id.clone()
}

/// The bomb's files as git wrote them, each (its path under `objects/`, its bytes).
struct Bomb {
    id: String,
    loose: (PathBuf, Vec<u8>),
    pack: Vec<(PathBuf, Vec<u8>)>,
}

/// Made by git once per test process and copied from then on: compressing 256 MiB twice
/// (hash-object, then pack-objects) took seconds for every repository that wanted one.
fn bomb() -> &'static Bomb {
    static BOMB: std::sync::OnceLock<Bomb> = std::sync::OnceLock::new();
    BOMB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("handover-bomb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q"], b"");
        let mut commit = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 0 +0000\ncommitter A <a@example.com> 0 +0000\n\n".to_vec();
        commit.resize(BOMB_BYTES as usize, 0);
        let id = git(
            &dir,
            &[
                "hash-object",
                "-t",
                "commit",
                "--literally",
                "-w",
                "--stdin",
            ],
            &commit,
        );
        let objects = dir.join(".git/objects");
        let loose_at = PathBuf::from(&id[..2]).join(&id[2..]);
        let loose = (loose_at.clone(), std::fs::read(objects.join(&loose_at)).unwrap());
        git(
            &dir,
            &["pack-objects", "-q", ".git/objects/pack/pack"],
            format!("{id}\n").as_bytes(),
        );
        let pack = std::fs::read_dir(objects.join("pack"))
            .unwrap()
            .map(|entry| {
                let at = PathBuf::from("pack").join(entry.unwrap().file_name());
                let bytes = std::fs::read(objects.join(&at)).unwrap();
                (at, bytes)
            })
            .collect::<Vec<_>>();
        let has = |ext: &str| pack.iter().any(|(at, _)| at.extension() == Some(ext.as_ref()));
        assert!(has("pack") && has("idx"), "a pack and its index: {pack:?}");
        std::fs::remove_dir_all(&dir).unwrap();
        Bomb { id, loose, pack }
    })
}

/// Writes `file` (a path under `objects`, its bytes) into `objects`.
fn put(objects: &Path, (at, bytes): &(PathBuf, Vec<u8>)) {
    let path = objects.join(at);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A zlib stream holding `data` in one stored (uncompressed) block.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    assert!(data.len() < 0xffff);
    let len = data.len() as u16;
    let mut out = vec![0x78, 0x01, 0x01];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

/// A pack of two objects, each a delta by id whose base is the other (a loop git never
/// writes), with its version 2 index, in `dir`'s object database. The ids, sorted.
pub fn delta_loop(dir: &Path) -> [String; 2] {
    let ids: [[u8; 20]; 2] = [[0x11; 20], [0x22; 20]];
    // Base of 5 bytes, result of 5 bytes, insert 5 bytes.
    let delta = zlib_stored(&[5, 5, 5, b'l', b'o', b'o', b'p', b'!']);
    let mut pack = b"PACK\0\0\0\x02\0\0\0\x02".to_vec();
    let mut offsets = Vec::new();
    for base in [ids[1], ids[0]] {
        offsets.push(pack.len() as u32);
        // Type 7 (delta by id), size 8: one header byte.
        pack.push((7 << 4) | 8);
        pack.extend_from_slice(&base);
        pack.extend_from_slice(&delta);
    }
    // The checksum is only compared with the index's copy: any 20 bytes, the same in both.
    let checksum = [0x5a; 20];
    pack.extend_from_slice(&checksum);
    let mut idx = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
    for first in 0..256u32 {
        let count = ids.iter().filter(|id| u32::from(id[0]) <= first).count() as u32;
        idx.extend_from_slice(&count.to_be_bytes());
    }
    for id in &ids {
        idx.extend_from_slice(id);
    }
    idx.extend_from_slice(&[0; 8]); // CRCs
    for offset in &offsets {
        idx.extend_from_slice(&offset.to_be_bytes());
    }
    idx.extend_from_slice(&checksum);
    idx.extend_from_slice(&[0; 20]);
    let packs = dir.join(".git/objects/pack");
    std::fs::create_dir_all(&packs).unwrap();
    std::fs::write(packs.join("pack-loop.pack"), pack).unwrap();
    std::fs::write(packs.join("pack-loop.idx"), idx).unwrap();
    ids.map(|id| id.iter().map(|b| format!("{b:02x}")).collect())
}

/// Points the current branch of the repository at `dir` at `id` (a loose ref).
pub fn set_head(dir: &Path, id: &str) {
    let head = std::fs::read_to_string(dir.join(".git/HEAD")).unwrap();
    let target = head.trim().strip_prefix("ref: ").unwrap();
    std::fs::write(dir.join(".git").join(target), format!("{id}\n")).unwrap();
}

/// How a command ran: its output, wall time, and peak RSS in KiB (None without GNU time).
pub struct Measured {
    pub output: Output,
    pub elapsed: Duration,
    pub max_rss_kib: Option<u64>,
}

impl Measured {
    pub fn text(&self) -> String {
        format!(
            "{}{}",
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        )
    }

    /// Finished within `secs` and, where GNU time measured it, within `mib` of memory.
    pub fn assert_bounded(&self, what: &str, secs: u64, mib: u64) {
        assert!(
            self.elapsed < Duration::from_secs(secs),
            "{what} took {:?}: {}",
            self.elapsed,
            self.text()
        );
        if let Some(kib) = self.max_rss_kib {
            assert!(
                kib < mib * 1024,
                "{what} peaked at {} MiB: {}",
                kib / 1024,
                self.text()
            );
        }
    }
}

/// Runs `cmd` with `stdin` (then closed), output captured, under GNU time when it is
/// installed, killed after `kill_after` (a hang fails the test instead of hanging it).
pub fn measure(cmd: Command, stdin: &[u8], kill_after: Duration) -> Measured {
    let report: Option<PathBuf> = Path::new("/usr/bin/time").exists().then(|| {
        let file = tempfile::NamedTempFile::new().unwrap();
        file.into_temp_path().keep().unwrap()
    });
    let mut run = match &report {
        Some(report) => {
            let mut timed = Command::new("/usr/bin/time");
            timed
                .arg("-f")
                .arg("%M")
                .arg("-o")
                .arg(report)
                .arg(cmd.get_program())
                .args(cmd.get_args());
            if let Some(dir) = cmd.get_current_dir() {
                timed.current_dir(dir);
            }
            for (k, v) in cmd.get_envs() {
                match v {
                    Some(v) => timed.env(k, v),
                    None => timed.env_remove(k),
                };
            }
            timed
        }
        None => cmd,
    };
    run.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = run.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The command may not read it all (that is allowed): ignore a broken pipe.
        let _ = std::io::Write::write_all(&mut input, &stdin);
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut b);
        b
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > kill_after {
            // GNU time forwards nothing: kill its child too (it is the only one).
            let _ = Command::new("pkill")
                .args(["-KILL", "-P", &child.id().to_string()])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{:?} still running after {kill_after:?}",
                run.get_args().collect::<Vec<_>>()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    let _ = writer.join();
    let output = Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    };
    let max_rss_kib = report.and_then(|report| {
        let text = std::fs::read_to_string(&report).ok();
        let _ = std::fs::remove_file(&report);
        text?.lines().last()?.trim().parse().ok()
    });
    Measured {
        output,
        elapsed,
        max_rss_kib,
    }
}
