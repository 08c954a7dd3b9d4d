//! The one way handover starts a `git` process (the hooks' fallback for repositories libgit2
//! cannot read, `write`, `boot`, `status`, and travel: push, pull, share). Every caller goes
//! through [`Git`]; `tests/project/git_processes.rs` fails on any other `Command::new` of git in
//! production code.
//!
//! Why one builder: a repository that arrived as a tarball or a copy brings its own `.git/config`,
//! and git obeys parts of it by running programs. A hand-typed `git push` in such a repository
//! runs what it names; a git that handover starts must not. So every process gets:
//! - `-c core.fsmonitor=false` (a program git runs whenever it reads the index) and
//!   `-c core.hooksPath=/dev/null` (no hook: not `.git/hooks/` either, since hooks are looked up
//!   only under the hooks path; `pre-push` and `reference-transaction` included);
//! - `GIT_NO_LAZY_FETCH=1`: in a partial clone (`extensions.partialClone`) git fetches a missing
//!   object from the promisor remote on the spot, which runs that remote's `uploadpack` program
//!   or `core.sshCommand`; with the variable, a missing object is an error instead;
//! - no pager (`--no-pager`, `GIT_PAGER=cat`), no editor (`GIT_EDITOR=true`), standard input
//!   from `/dev/null` unless bytes are given, and no index refresh written behind the user's back
//!   (`GIT_OPTIONAL_LOCKS=0`);
//! - the repository at the root given, whatever an outer process (a git hook around the agent)
//!   exported: `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_COMMON_DIR`,
//!   `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES` removed; a caller that
//!   builds a tree in a private index of its own says so ([`Git::index_file`]), and only then
//!   is `GIT_INDEX_FILE` set, to that file.
//!
//! Then by kind:
//! - [`Git::local`] (everything but transport; the only kind the hooks use): no transport at
//!   all. `GIT_ALLOW_PROTOCOL` names no protocol, which overrides every `protocol.*.allow` of
//!   any configuration, so even a git older than 2.44 (which ignores `GIT_NO_LAZY_FETCH`)
//!   cannot reach a remote; and `GIT_TERMINAL_PROMPT=0`: nothing ever asks for a password.
//! - [`Git::reading_work_tree`], for commands that may hash work-tree files (`status`): every
//!   filter driver the configuration names gets empty `clean`, `smudge` and `process` commands
//!   and `required=false`, which git treats as no filter.
//! - [`Git::transport`] (fetch, push): the user's own transport, configuration and credentials,
//!   so every remote git understands works; but what only the repository's own configuration
//!   (`.git/config`, `config.worktree` and the files they include) says about programs to run
//!   or files to write is refused before git starts, with the key named and how to fix it (see
//!   [`REFUSED_KEYS`]); the same keys in the user's global or system configuration are obeyed.
//!   Refused, not overridden: a value such as `remote.<name>.uploadpack` also names the
//!   program run on an ssh server, so replacing it silently could break a push in a way the
//!   user cannot see. On the command line, which overrides every file: `protocol.ext.allow=never`
//!   (a URL `ext::<command>` runs the command), no signed push (`push.gpgSign=false`: it would
//!   run `gpg.program`) and no submodule recursion (git in each submodule, under its own
//!   configuration). Terminal prompts stay on: the user runs `handover push` and may have to
//!   give a password, as for `git push`.
//!
//! Reading configuration (`git config --show-scope --list`, git 2.26 or newer) runs nothing, so
//! it is how both lists are made; when it fails, the command is not run.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Given on every git command line (the command line overrides every configuration file).
const ALWAYS: &[&str] = &["core.fsmonitor=false", "core.hooksPath=/dev/null"];

/// Added for transport (see the module's comment).
const TRANSPORT: &[&str] = &[
    "protocol.ext.allow=never",
    "push.gpgSign=false",
    "push.recurseSubmodules=no",
    "fetch.recurseSubmodules=false",
    "submodule.recurse=false",
];

/// Keys that name a program git runs during a fetch or a push, or a file it writes then (lower
/// case, as `git config` prints them; `*` stands for one subsection), refused for transport when
/// the repository's own configuration sets them. `remote.<name>.*` is checked for the remote
/// used only.
pub const REFUSED_KEYS: &[&str] = &[
    // The program run for the other side of a local or ssh transport.
    "remote.<remote>.uploadpack",
    "remote.<remote>.receivepack",
    // `git-remote-<vcs>`: a remote helper picked by name.
    "remote.<remote>.vcs",
    // The ssh client, the git:// proxy, the password prompt.
    "core.sshcommand",
    "core.gitproxy",
    "core.askpass",
    // Run by fetch-pack for each alternate object store.
    "core.alternaterefscommand",
    // Credential helpers (`!<shell command>` or `git-credential-<name>`).
    "credential.helper",
    "credential.*.helper",
    // Writes the cookies an https server sends into the file `http.cookieFile` names, anywhere.
    "http.savecookies",
    "http.*.savecookies",
];

/// Why a git process was not started.
#[derive(Debug)]
pub enum GitError {
    /// `git` could not be started (not installed, or the system refused).
    Spawn { command: String, error: io::Error },
    /// The configuration could not be listed, so what it names could not be switched off.
    Unlisted { why: String },
    /// The repository's own configuration names a program transport would run (or a file it
    /// would write).
    Refused { key: String, remote: String },
}

impl fmt::Display for GitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitError::Spawn { command, error } => {
                write!(f, "cannot run `{command}`: {error} (is git installed?)")
            }
            GitError::Unlisted { why } => write!(
                f,
                "cannot read the repository's git configuration, so git is not run with it: {why}"
            ),
            GitError::Refused { key, remote } => write!(
                f,
                "refused: this repository's own git configuration sets `{key}`, which makes git run a program \
                 (or write a file) of the repository's choosing to reach `{remote}`; handover follows no such setting from a \
                 repository's own configuration (a repository that arrived as a tarball or a copy brings its .git/config). \
                 If you set it yourself, move it to your global configuration (`git config --global {key} <value>`, then \
                 `git config --unset-all {key}` here, or remove it from the file the repository's configuration includes), \
                 or run `git push` / `git fetch` yourself"
            ),
        }
    }
}

impl std::error::Error for GitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GitError::Spawn { error, .. } => Some(error),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// No transport; `filters` empties every filter driver.
    Local { filters: bool },
    /// Fetch or push with this remote.
    Transport { remote: String },
}

/// A `git -C <root> ...` command, built the one way (see the module's comment).
#[derive(Clone, Debug)]
pub struct Git {
    root: PathBuf,
    kind: Kind,
    args: Vec<OsString>,
    input: Option<Vec<u8>>,
    /// A private index file instead of the repository's ([`Git::index_file`]).
    index_file: Option<PathBuf>,
}

impl Git {
    /// A command that reaches no remote: plumbing, object and ref writes, configuration.
    pub fn local(root: &Path) -> Git {
        Git::new(root, Kind::Local { filters: false })
    }

    /// A fetch or a push with `remote` (a configured remote's name).
    pub fn transport(root: &Path, remote: &str) -> Git {
        Git::new(
            root,
            Kind::Transport {
                remote: remote.to_string(),
            },
        )
    }

    fn new(root: &Path, kind: Kind) -> Git {
        Git {
            root: root.to_path_buf(),
            kind,
            args: Vec::new(),
            input: None,
            index_file: None,
        }
    }

    /// Uses `path` as the index (`GIT_INDEX_FILE`), never the repository's: for building a
    /// tree from chosen contents (`handover push --with-changes`) without touching the user's
    /// index. Set after an outer process's `GIT_INDEX_FILE` is removed, so only this one holds.
    pub fn index_file(mut self, path: &Path) -> Git {
        self.index_file = Some(path.to_path_buf());
        self
    }

    /// The command may read or hash work-tree files (`status`): no filter driver runs.
    pub fn reading_work_tree(mut self) -> Git {
        if let Kind::Local { filters } = &mut self.kind {
            *filters = true;
        }
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Git {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Git
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// Bytes for git's standard input (otherwise it reads `/dev/null`).
    pub fn input(mut self, bytes: &[u8]) -> Git {
        self.input = Some(bytes.to_vec());
        self
    }

    /// `git <args>` as a person would type it, for messages.
    pub fn shown(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        format!("git {}", args.join(" "))
    }

    /// Runs the command: its whole output whatever its exit status (callers that read a
    /// refusal, a push lease, need it). An error only when git was not started: it could not
    /// be, the configuration could not be listed, or transport was refused.
    pub fn output(&self) -> Result<Output, GitError> {
        let mut config: Vec<String> = ALWAYS.iter().map(|c| (*c).to_string()).collect();
        match &self.kind {
            Kind::Local { filters: false } => {}
            Kind::Local { filters: true } => {
                let drivers = filter_drivers(&self.listing()?);
                // `-c filter.a=b.clean=` is read as the key `filter.a`: such a driver could not
                // be switched off, so nothing runs.
                if let Some(name) = drivers.iter().find(|d| d.contains('=')) {
                    return Err(GitError::Unlisted {
                        why: format!(
                            "the filter driver `{}` has a name git's command line cannot switch off",
                            shown_name(name)
                        ),
                    });
                }
                for driver in drivers {
                    for (key, value) in [
                        ("clean", ""),
                        ("smudge", ""),
                        ("process", ""),
                        ("required", "false"),
                    ] {
                        config.push(format!("filter.{driver}.{key}={value}"));
                    }
                }
            }
            Kind::Transport { remote } => {
                if let Some(key) = refused_key(&self.listing()?, remote) {
                    return Err(GitError::Refused {
                        key,
                        remote: shown_name(remote),
                    });
                }
                config.extend(TRANSPORT.iter().map(|c| (*c).to_string()));
            }
        }
        let mut cmd = self.command(&config);
        cmd.args(&self.args);
        run(cmd, self.input.as_deref(), &self.shown())
    }

    /// Every configuration entry git sees here, with its scope (`git config --show-scope -z
    /// --list`, which follows includes and runs nothing), under the same environment.
    fn listing(&self) -> Result<Vec<Entry>, GitError> {
        // The same switches as every command (they list as scope `command`, never refused).
        let always: Vec<String> = ALWAYS.iter().map(|c| (*c).to_string()).collect();
        let mut cmd = self.command(&always);
        cmd.args(["config", "--show-scope", "-z", "--list"]);
        let out = run(cmd, None, "git config --list")?;
        // 1: nothing configured at all (outside a repository, an empty configuration).
        match out.status.code() {
            Some(0) => Ok(entries(&out.stdout)),
            Some(1) if out.stdout.is_empty() => Ok(Vec::new()),
            _ => Err(GitError::Unlisted {
                why: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// `git --no-pager -C <root> -c <config>...` with the environment every kind shares.
    fn command(&self, config: &[String]) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("--no-pager").arg("-C").arg(&self.root);
        for c in config {
            cmd.arg("-c").arg(c);
        }
        for var in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_COMMON_DIR",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        ] {
            cmd.env_remove(var);
        }
        if let Some(index) = &self.index_file {
            cmd.env("GIT_INDEX_FILE", index);
        }
        cmd.env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_NO_LAZY_FETCH", "1")
            .env("GIT_PAGER", "cat")
            .env("GIT_EDITOR", "true")
            .env("GIT_SEQUENCE_EDITOR", "true");
        if let Kind::Local { .. } = self.kind {
            // A colon-separated list of the protocols allowed: this one names none.
            cmd.env("GIT_ALLOW_PROTOCOL", "none")
                .env("GIT_TERMINAL_PROMPT", "0");
        }
        cmd
    }
}

/// Starts `cmd` with `input` (or nothing) on its standard input and collects its output. The
/// input is written from its own thread, so a git that answers before reading all of it cannot
/// stall both sides.
fn run(mut cmd: Command, input: Option<&[u8]>, shown: &str) -> Result<Output, GitError> {
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let spawn_error = |error| GitError::Spawn {
        command: shown.to_string(),
        error,
    };
    let mut child = cmd.spawn().map_err(spawn_error)?;
    let stdin = child.stdin.take();
    std::thread::scope(|s| {
        if let (Some(mut stdin), Some(bytes)) = (stdin, input) {
            // A write that fails (git exited early) shows in git's status and stderr.
            s.spawn(move || {
                let _ = stdin.write_all(bytes);
            });
        }
        child.wait_with_output().map_err(spawn_error)
    })
}

/// One configuration entry: where it was set (`local`, `worktree`, `global`, `system`,
/// `command`) and its key (section and variable in lower case, a subsection as written).
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    scope: String,
    key: String,
}

/// Parses `git config --show-scope -z --list`: `scope\0key\nvalue\0` or `scope\0key\0`.
fn entries(listed: &[u8]) -> Vec<Entry> {
    let mut fields = listed.split(|&b| b == 0);
    let mut out = Vec::new();
    while let (Some(scope), Some(entry)) = (fields.next(), fields.next()) {
        let key = entry.split(|&b| b == b'\n').next().unwrap_or_default();
        out.push(Entry {
            scope: String::from_utf8_lossy(scope).into_owned(),
            key: String::from_utf8_lossy(key).into_owned(),
        });
    }
    out
}

/// The filter drivers configured (keys `filter.<name>.<variable>`; a name may hold dots), in
/// any scope, that git can be given back on its command line.
fn filter_drivers(listed: &[Entry]) -> Vec<String> {
    let mut names: Vec<String> = listed
        .iter()
        .filter_map(|e| {
            let (name, _variable) = e.key.strip_prefix("filter.")?.rsplit_once('.')?;
            Some(name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The first key of [`REFUSED_KEYS`] the repository's own configuration (scope `local` or
/// `worktree`, included files counting as the file that includes them) sets for `remote`.
fn refused_key(listed: &[Entry], remote: &str) -> Option<String> {
    listed
        .iter()
        .filter(|e| e.scope == "local" || e.scope == "worktree")
        .find(|e| is_refused(&e.key, remote))
        .map(|e| shown_name(&e.key))
}

fn is_refused(key: &str, remote: &str) -> bool {
    let Some((section, rest)) = key.split_once('.') else {
        return false;
    };
    let (subsection, variable) = match rest.rsplit_once('.') {
        Some((sub, var)) => (Some(sub), var),
        None => (None, rest),
    };
    REFUSED_KEYS.iter().any(|pattern| {
        let Some((p_section, p_rest)) = pattern.split_once('.') else {
            return false;
        };
        let (p_sub, p_var) = match p_rest.rsplit_once('.') {
            Some((sub, var)) => (Some(sub), var),
            None => (None, p_rest),
        };
        let sub_matches = match (p_sub, subsection) {
            (None, None) | (Some("*"), Some(_)) => true,
            (Some("<remote>"), Some(s)) => s == remote,
            _ => false,
        };
        p_section == section && p_var == variable && sub_matches
    })
}

/// A name from a configuration file, for a message: printable ASCII only (anything else as
/// `?`), at most 120 characters.
fn shown_name(name: &str) -> String {
    name.chars()
        .take(120)
        .map(|c| if c.is_ascii_graphic() { c } else { '?' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::{git, git_output, init_at, temp_repo};

    #[test]
    fn the_listing_is_read_with_scopes_and_keys_without_values() {
        let listed = b"global\0user.name\nT\0local\0core.bare\nfalse\0local\0filter.a.b.clean\ncat\0worktree\0core.sshcommand\0\
global\0filter.lfs.clean\ngit-lfs clean -- %f\0global\0filter.lfs.process\ngit-lfs filter-process\0\
local\0filter.evil.required\n\0";
        let got = entries(listed);
        let keys: Vec<(&str, &str)> = got
            .iter()
            .map(|e| (e.scope.as_str(), e.key.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("global", "user.name"),
                ("local", "core.bare"),
                ("local", "filter.a.b.clean"),
                ("worktree", "core.sshcommand"),
                ("global", "filter.lfs.clean"),
                ("global", "filter.lfs.process"),
                ("local", "filter.evil.required"),
            ]
        );
        assert_eq!(filter_drivers(&got), ["a.b", "evil", "lfs"]);
        assert!(entries(b"").is_empty());
    }

    #[test]
    fn program_keys_count_only_in_the_repositorys_own_scopes_and_for_the_remote_used() {
        let e = |scope: &str, key: &str| Entry {
            scope: scope.into(),
            key: key.into(),
        };
        let cases = [
            (
                e("local", "remote.origin.uploadpack"),
                Some("remote.origin.uploadpack"),
            ),
            (
                e("worktree", "remote.origin.receivepack"),
                Some("remote.origin.receivepack"),
            ),
            (e("local", "remote.origin.vcs"), Some("remote.origin.vcs")),
            (e("local", "remote.other.uploadpack"), None),
            (e("local", "remote.Origin.uploadpack"), None),
            (e("global", "remote.origin.uploadpack"), None),
            (e("system", "core.sshcommand"), None),
            (e("command", "core.sshcommand"), None),
            (e("local", "core.sshcommand"), Some("core.sshcommand")),
            (e("local", "core.gitproxy"), Some("core.gitproxy")),
            (e("local", "core.askpass"), Some("core.askpass")),
            (
                e("local", "core.alternaterefscommand"),
                Some("core.alternaterefscommand"),
            ),
            (e("local", "credential.helper"), Some("credential.helper")),
            (
                e("local", "credential.https://h\u{1b}[2J.helper"),
                Some("credential.https://h?[2J.helper"),
            ),
            (e("local", "credential.username"), None),
            (e("local", "http.savecookies"), Some("http.savecookies")),
            (
                e("local", "http.https://h.example.savecookies"),
                Some("http.https://h.example.savecookies"),
            ),
            (e("local", "http.cookiefile"), None),
            (e("local", "core.fsmonitor"), None),
            (e("local", "remote.origin.url"), None),
        ];
        for (entry, want) in cases {
            assert_eq!(
                refused_key(std::slice::from_ref(&entry), "origin").as_deref(),
                want,
                "{entry:?}"
            );
        }
    }

    #[test]
    fn a_missing_object_in_a_partial_clone_is_never_fetched() {
        let (tmp, root) = repo_beside();
        let base = tmp.path();
        let (script, marker) = (base.join("upload.sh"), base.join("ran"));
        // Exits at once: git waits for an upload-pack's answer before writing to it, so a spy
        // reading its input would hang.
        spy_then(&script, &marker, "exit 1");
        git(base, &["init", "-q", "--bare", "far.git"]);
        let far = base.join("far.git");
        for (k, v) in [
            ("core.repositoryformatversion", "1"),
            ("extensions.partialClone", "origin"),
            ("remote.origin.promisor", "true"),
            ("remote.origin.url", far.to_str().unwrap()),
            ("remote.origin.uploadpack", script.to_str().unwrap()),
        ] {
            git(&root, &["config", k, v]);
        }
        let missing = "0123456789012345678901234567890123456789";
        let out = Git::local(&root)
            .args(["cat-file", "-p", missing])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(!marker.exists(), "the promisor remote's program ran");
        // The control: git itself runs it.
        let _ = git_output(&root, &["cat-file", "-p", missing]);
        assert!(marker.exists());
    }

    /// A new repository at `<tmp>/repo`: room beside it for scripts and markers it must not
    /// hold.
    fn repo_beside() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        init_at(&root);
        (tmp, root)
    }

    /// An executable script `<dir>/<name>` that creates `<dir>/ran` and exits 0: (script, marker).
    fn spy_in(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        let (script, marker) = (dir.join(name), dir.join("ran"));
        spy(&script, &marker);
        (script, marker)
    }

    /// An executable script at `path` that creates `marker`, reads its input and exits 0.
    fn spy(path: &Path, marker: &Path) {
        spy_then(path, marker, "cat >/dev/null");
    }

    /// An executable script at `path` that creates `marker`, then runs `then`.
    fn spy_then(path: &Path, marker: &Path, then: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(
            path,
            format!("#!/bin/sh\ntouch '{}'\n{then}\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// A driver whose name holds `=` cannot be given back on git's command line (`-c` splits at
    /// the first `=`): the command is not run at all.
    #[test]
    fn a_filter_driver_that_cannot_be_switched_off_stops_the_command() {
        let (tmp, root) = repo_beside();
        std::fs::write(root.join("a.txt"), "x\n").unwrap();
        std::fs::write(root.join(".gitattributes"), "* filter=a=b\n").unwrap();
        git(&root, &["add", "-A"]);
        let (script, marker) = spy_in(tmp.path(), "clean.sh");
        git(
            &root,
            &["config", "filter.a=b.clean", script.to_str().unwrap()],
        );
        std::fs::write(root.join("a.txt"), "changed\n").unwrap();
        let err = Git::local(&root)
            .reading_work_tree()
            .args(["status", "--porcelain"])
            .output()
            .unwrap_err();
        assert!(err.to_string().contains("`a=b`"), "{err}");
        assert!(!marker.exists(), "the clean filter ran");
        // The control: git itself runs it.
        git(&root, &["status", "--porcelain"]);
        assert!(marker.exists());
    }

    /// `core.hooksPath=/dev/null` switches off the default `.git/hooks/` too, not only a
    /// hooks path the configuration names.
    #[test]
    fn a_hook_in_dot_git_hooks_does_not_run() {
        let (tmp, root) = repo_beside();
        git(
            &root,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "one",
            ],
        );
        let marker = tmp.path().join("ran");
        spy(&root.join(".git/hooks/reference-transaction"), &marker);
        git(&root, &["update-ref", "refs/plain", "HEAD"]);
        assert!(marker.exists(), "git itself runs the hook");
        std::fs::remove_file(&marker).unwrap();
        let out = Git::local(&root)
            .args(["update-ref", "refs/ours", "HEAD"])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(!marker.exists(), "the hook ran");
    }

    /// A URL `ext::<command>` runs the command; the repository's own configuration cannot allow
    /// it for our transport.
    #[test]
    fn an_ext_url_is_never_run_even_when_the_repository_allows_it() {
        let (tmp, root) = repo_beside();
        let (script, marker) = spy_in(tmp.path(), "helper.sh");
        let url = format!("ext::{} %S", script.display());
        git(&root, &["config", "remote.origin.url", &url]);
        git(&root, &["config", "protocol.ext.allow", "always"]);
        let out = Git::transport(&root, "origin")
            .args(["fetch", "origin"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(!marker.exists(), "the ext:: command ran");
    }

    #[test]
    fn the_repositorys_own_program_keys_refuse_transport_with_the_key_named() {
        let (_tmp, root) = repo_beside();
        git(&root, &["config", "remote.origin.url", "/nowhere"]);
        // Through an include: the included file counts as the repository's own.
        std::fs::write(root.join(".git/more"), "[core]\n\tsshCommand = evil\n").unwrap();
        git(&root, &["config", "include.path", "more"]);
        let err = Git::transport(&root, "origin")
            .args(["fetch", "origin"])
            .output()
            .unwrap_err();
        assert!(matches!(err, GitError::Refused { .. }), "{err}");
        let said = err.to_string();
        assert!(said.contains("sets `core.sshcommand`"), "{said}");
        assert!(
            said.contains("git config --global core.sshcommand"),
            "{said}"
        );
        // A local command is not refused: it reaches no remote.
        assert!(Git::local(&root)
            .args(["config", "--list"])
            .output()
            .is_ok());
    }

    #[test]
    fn input_reaches_git_and_no_input_is_an_empty_stdin() {
        let tmp = temp_repo();
        let out = Git::local(tmp.path())
            .args(["hash-object", "--stdin"])
            .input(b"hello\n")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        let out = Git::local(tmp.path())
            .args(["hash-object", "--stdin"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
            "the empty blob: nothing was read from the terminal"
        );
    }

    /// A private index is used (and the repository's never written) only when asked for; an
    /// outer `GIT_INDEX_FILE` never reaches git either way.
    #[test]
    fn a_private_index_is_used_only_when_asked_for() {
        let tmp = temp_repo();
        let private = tmp.path().join("private-index");
        let blob = "ce013625030ba8dba906f756967f9e9ca394464a";
        let entry = format!("100644,{blob},a.txt");
        let staged = Git::local(tmp.path())
            .index_file(&private)
            .args(["update-index", "--add", "--cacheinfo", &entry])
            .output()
            .unwrap();
        assert!(staged.status.success(), "{staged:?}");
        assert!(private.exists());
        assert!(
            !tmp.path().join(".git/index").exists(),
            "the repository's index was not written"
        );
        let listed = |git: Git| {
            String::from_utf8_lossy(&git.args(["ls-files"]).output().unwrap().stdout).into_owned()
        };
        assert_eq!(
            listed(Git::local(tmp.path()).index_file(&private)),
            "a.txt\n"
        );
        assert_eq!(listed(Git::local(tmp.path())), "");
    }
}
