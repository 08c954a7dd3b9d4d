//! Handoffs that travel through git: `handover push` publishes the current handoff as a commit
//! on `refs/handover/<branch>` of a remote, `handover pull` fetches those refs into
//! `refs/handover-remote/<remote>/<branch>`, `handover share` adds the fetch refspec so a plain
//! `git fetch` brings them too. Layout and contents: docs/format.md, "Handoffs on a remote".
//!
//! Never the user's branch, index or working tree: objects are written with `git hash-object`
//! / `mktree` / `commit-tree` and moved with `git push` / `git fetch`, through the user's own
//! git configuration and credentials. Nothing here runs from a hook: hooks only read what was
//! fetched ([`fetched::for_startup`]).

pub mod changes;
pub mod fetched;
pub mod names;
pub mod package;

mod command;

use anyhow::{anyhow, bail, Context};
use handover_base::shell::shell_quote;
use handover_handoff::model::Handoff;
use handover_handoff::redaction;
use handover_handoff::sanitize::{quote, redacted};
use handover_handoff::store::{self, Event, LoadOutcome, Store};
use handover_record::{files as records, SessionRecord};
use handover_redact::Redaction;
use package::{Fetched, Origin, Outgoing};
use serde_json::{json, Value};
use std::path::Path;

pub use package::Fetched as FetchedHandoff;

/// The repository's files under `.git` looked at before any `git` runs
/// (`handover_git::preflight`): a FIFO as a config include or the index would hang
/// `git config`, `git fetch` and `git push` as it hangs libgit2.
fn bounded_files(root: &Path) -> anyhow::Result<()> {
    handover_git::preflight::check(root).map_err(anyhow::Error::new)
}

/// Longest stretch of git's own output (with the remote's sideband text in it) quoted in an
/// error of ours.
const GIT_SAID_MAX_CHARS: usize = 600;

/// What git (and, through it, the remote: its `remote:` lines are the remote's own text) said,
/// as an error of ours may quote it: escape sequences and controls stripped, on one line,
/// bounded, inside « » and said to be git's words, so a remote cannot print a line that reads
/// as handover's ("handover: pushed OK").
pub(crate) fn git_said(output: &[u8]) -> String {
    format!(
        "git said (its words and the remote's, not handover's): {}",
        handover_handoff::sanitize::quote_within(
            String::from_utf8_lossy(output).trim(),
            GIT_SAID_MAX_CHARS
        )
    )
}

/// An error naming the problem and the fix when `root` is in no git repository (instead of
/// git's own words from the first command run there).
fn ensure_repository(root: &Path, command: &str) -> anyhow::Result<()> {
    if let Ok(None) = handover_git::open(root) {
        bail!(
            "{} is not in a git repository: handoffs travel through a repository's git remote. Run `handover {command}` in the clone you work in (`cd` into it), or clone the repository first (`git clone <url>`)",
            root.display()
        );
    }
    Ok(())
}

/// The branch handoffs travel for: the current one, checked as a ref name.
pub fn current_branch(root: &Path) -> anyhow::Result<String> {
    let head = match handover_git::read_head_files(root) {
        Some(h) => h,
        None => {
            let repo = handover_git::open(root)?
                .ok_or_else(|| anyhow!("{} is not in a git repository", root.display()))?;
            handover_git::head_info(&repo)?
        }
    };
    let Some(branch) = head.branch else {
        bail!(
            "HEAD is detached: handoffs travel per branch; check out the branch you work on first"
        );
    };
    names::check_branch(&branch)?;
    Ok(branch)
}

/// The remote to use: the one given, else the branch's upstream remote, else `origin`; it
/// must exist.
pub fn choose_remote(
    root: &Path,
    given: Option<&str>,
    branch: Option<&str>,
) -> anyhow::Result<String> {
    let remote = match given {
        Some(r) => r.to_string(),
        None => branch
            .and_then(|b| {
                command::run(
                    root,
                    &["config", "--get", &format!("branch.{b}.remote")],
                    None,
                )
                .ok()
            })
            .filter(|r| !r.is_empty() && r != ".")
            .unwrap_or_else(|| "origin".into()),
    };
    names::check_remote(&remote)?;
    let known = command::run(root, &["remote"], None)?;
    if !known.lines().any(|l| l == remote) {
        bail!(
            "there is no git remote named {} in {}: name one of `git remote -v`, or add it with `git remote add {} <url>`",
            quote(&remote),
            root.display(),
            shell_quote(&remote)
        );
    }
    Ok(remote)
}

/// How to push.
#[derive(Debug, Default)]
pub struct PushOptions<'a> {
    /// The remote (default: the branch's upstream remote, else `origin`).
    pub remote: Option<&'a str>,
    pub force: bool,
    /// Carry the uncommitted work as a snapshot commit (`changes`).
    pub with_changes: bool,
}

/// What a push did.
#[derive(Debug)]
pub struct Pushed {
    /// The uncommitted work that went with the handoff (`--with-changes`; empty when there was
    /// none).
    pub changes: Option<Vec<changes::Going>>,
    /// The uncommitted work that stays on this machine (without `--with-changes`).
    pub stayed: Vec<changes::Going>,
    pub remote: String,
    pub branch: String,
    pub commit: String,
    /// The remote handoff this push replaced with `--force`, when it did not build on it.
    pub replaced: Option<String>,
    /// Secrets redacted at push time that the stored handoff still held.
    pub redactions: Vec<Redaction>,
    pub with_record: bool,
    /// The handoff's HEAD, when this clone's view of the remote branch does not contain it:
    /// the other machine cannot check the handoff against commits it does not have.
    pub head_not_on_remote: Option<String>,
}

/// Why a push did not happen, when it is not a plain error.
#[derive(Debug)]
pub enum PushError {
    /// Another push for the branch happened since this clone last saw the remote.
    Conflict {
        remote: String,
        branch: String,
    },
    Failed(anyhow::Error),
}

impl std::fmt::Display for PushError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PushError::Conflict { remote, branch } => write!(
                f,
                "refused: the handoff for branch {} on {} was pushed from somewhere else since this clone last saw it, \
                 and this push does not build on it. To see both: `handover pull {word}`, then `handover boot` (it shows the local \
                 and the fetched handoff). Then choose: keep theirs with `handover pull {word} --adopt`, or replace theirs with \
                 yours with `handover push {word} --force`.",
                quote(branch),
                quote(remote),
                word = shell_quote(remote)
            ),
            PushError::Failed(e) => write!(f, "{e:#}"),
        }
    }
}

impl From<anyhow::Error> for PushError {
    fn from(e: anyhow::Error) -> Self {
        PushError::Failed(e)
    }
}

/// Publishes the current handoff (and the newest session record of the branch) as one commit
/// on `refs/handover/<branch>` of the remote, on top of the remote handoff this clone last saw.
/// The push carries that expected old value as a lease, so a push that does not build on the
/// remote's current handoff is refused ([`PushError::Conflict`]) unless `force`.
///
/// With `with_changes`, the uncommitted work travels too (see [`changes`]): `before_send` is
/// given its files before anything is pushed, and a file that may not travel refuses the push
/// before a single object is written.
pub fn push(
    store: &Store,
    options: &PushOptions,
    before_send: &mut dyn FnMut(&[changes::Going]),
) -> Result<Pushed, PushError> {
    let force = options.force;
    let root = store.root();
    ensure_repository(root, "push")?;
    bounded_files(root)?;
    let branch = current_branch(root)?;
    let remote = choose_remote(root, options.remote, Some(&branch))?;
    let handoff = match store.load() {
        LoadOutcome::Loaded(l) => l.handoff,
        LoadOutcome::Missing => {
            return Err(anyhow!(
                "no handoff to push in {}: write one with `handover write`",
                root.display()
            )
            .into())
        }
        LoadOutcome::Unrecoverable { problem } => {
            return Err(anyhow!("the handoff cannot be read: {problem}").into())
        }
        LoadOutcome::Refused(r) => return Err(anyhow!(r).into()),
    };
    // A handoff records its branch redacted (`write`): compared with the current branch
    // redacted the same way, as verification compares them.
    if let Some(recorded) = handoff.git.as_ref().and_then(|g| g.branch.as_deref()) {
        if recorded != redacted(&branch) {
            return Err(anyhow!(
                "the handoff was recorded on branch {}, but HEAD is on {}: handoffs travel per branch, so check out the branch \
                 the handoff was recorded on and push from there, or write a handoff for {} first (`handover write`)",
                quote(recorded),
                quote(&branch),
                quote(&branch)
            )
            .into());
        }
    }
    let listed_untracked: Vec<String> = handoff
        .git
        .as_ref()
        .map(|g| g.untracked.clone())
        .unwrap_or_default();
    let snapshot = if options.with_changes {
        snapshot_for_push(root, &handoff, &remote, &branch, &listed_untracked)?
    } else {
        None
    };
    // Said, not required: a repository where it cannot be listed (no commit yet) still pushes.
    let stayed = if options.with_changes {
        Vec::new()
    } else {
        changes::uncommitted(root, &listed_untracked).unwrap_or_default()
    };
    let (mut handoff, mut redactions) = redacted_for_push(handoff)?;
    // This machine's path means nothing elsewhere (a reader verifies against its own tree),
    // and it names a local user: it stays home, in both of its forms.
    if let Some(g) = &mut handoff.git {
        g.root.clear();
        g.root_bytes = None;
    }
    store::seal(&mut handoff);
    let record = newest_record_of(store, &branch)
        .map(redacted_record)
        .transpose()?
        .map(|(r, found)| {
            redactions.extend(found);
            r
        });
    let markdown = handover_handoff::markdown::render(&handoff);
    let origin = Origin {
        machine: package::machine_name(),
        pushed_at: handover_base::clock::now_rfc3339(),
        branch: branch.clone(),
        handover_version: env!("CARGO_PKG_VERSION").into(),
    };
    let manifest = snapshot.as_ref().map(|s| changes::Manifest {
        commit: s.commit.clone(),
        base: s.base.clone(),
        files: s.files.clone(),
    });
    let tree = package::write_tree(
        root,
        &Outgoing {
            handoff: &handoff,
            markdown: &markdown,
            record: record.as_ref(),
            origin: &origin,
            changes: manifest.as_ref(),
        },
    )?;

    let seen_ref = names::fetched_ref(&remote, &branch);
    if force {
        // Replace what is there now, keeping it as the parent: nothing is lost from the
        // handoff's history.
        fetch(root, &remote, Some(&branch))?;
    }
    let base = command::resolve(root, &seen_ref)?;
    let message = format!(
        "handover: handoff {} for {branch} from {}",
        handoff.id, origin.machine
    );
    // The snapshot is the second parent: it travels with the handoff commit, and the first
    // parent stays the previous handoff.
    let parents: Vec<&str> = base
        .as_deref()
        .into_iter()
        .chain(snapshot.as_ref().map(|s| s.commit.as_str()))
        .collect();
    let commit = command::commit(root, &tree, &parents, &message)?;
    if options.with_changes {
        before_send(manifest.as_ref().map_or(&[], |m| m.files.as_slice()));
    }
    let target = names::published_ref(&branch);
    let lease = format!(
        "--force-with-lease={target}:{}",
        base.as_deref().unwrap_or("")
    );
    let refspec = format!("{commit}:{target}");
    let out = command::transport(
        root,
        &remote,
        &["push", "--porcelain", &lease, &remote, &refspec],
    )?;
    if !out.status.success() {
        // `--porcelain` puts the ref's status on stdout, apart from the remote's own
        // messages (its `remote:` lines, on stderr). `stale info`: the lease failed;
        // `[remote rejected]` with `cannot lock ref` / `already exists` (said by the remote):
        // another push updated the ref at the same moment. Either way another push won.
        let status = String::from_utf8_lossy(&out.stdout);
        let said = format!("{status}{}", String::from_utf8_lossy(&out.stderr));
        let lost_race = status.contains("[remote rejected]")
            && (said.contains("cannot lock ref") || said.contains("already exists"));
        if status.contains("[rejected]") || status.contains("stale info") || lost_race {
            return Err(PushError::Conflict { remote, branch });
        }
        return Err(anyhow!(
            "`git push {}` failed; {}",
            shell_quote(&remote),
            git_said(said.as_bytes())
        )
        .into());
    }
    command::run(root, &["update-ref", &seen_ref, &commit], None)?;
    // The timeline's line (`handover log`, redacted by the store); the push happened whether
    // or not it is written.
    let _ = store.append_journal(
        Event::Push,
        json!({"handoff_id": handoff.id, "remote": remote, "branch": branch,
               "commit": commit, "with_changes": manifest.is_some()}),
    );
    let head_not_on_remote = handoff
        .git
        .as_ref()
        .and_then(|g| g.head.clone())
        .filter(|head| !on_remote_branch(root, &remote, &branch, head));
    Ok(Pushed {
        changes: options
            .with_changes
            .then(|| manifest.map(|m| m.files).unwrap_or_default()),
        stayed,
        head_not_on_remote,
        remote,
        branch,
        commit,
        replaced: if force { base } else { None },
        redactions,
        with_record: record.is_some(),
    })
}

/// The snapshot of the uncommitted work, checked and written (not pushed); None when there is
/// no uncommitted work. Only on the handoff's own HEAD, and only when the remote has that
/// commit: the snapshot's parent travels with it, and with it every commit before it that the
/// remote lacks, which a handoff push must not publish behind the user's back.
fn snapshot_for_push(
    root: &Path,
    handoff: &Handoff,
    remote: &str,
    branch: &str,
    listed_untracked: &[String],
) -> anyhow::Result<Option<changes::Snapshot>> {
    let Some(head) = handoff.git.as_ref().and_then(|g| g.head.clone()) else {
        bail!("the handoff records no HEAD commit, so its uncommitted work has nothing to be based on: commit once, write the handoff again (`handover write`), then push with --with-changes");
    };
    let current = command::resolve(root, "HEAD")?;
    if current.as_deref() != Some(head.as_str()) {
        bail!(
            "HEAD moved since the handoff was written (it recorded {}, HEAD is {}): the uncommitted work travels on the handoff's commit. \
             Write the handoff again (`handover write`), then push with --with-changes",
            quote(&head),
            current.as_deref().unwrap_or("unborn")
        );
    }
    if !on_remote_branch(root, remote, branch, &head) {
        bail!(
            "refused: the uncommitted work is based on commit {}, which branch {} of {} does not have (as of this clone's last fetch); \
             sending the work would also send that commit and every one before it the remote lacks. Push the code first \
             (`git push {} {}`), then `handover push --with-changes` again",
            quote(&head),
            quote(branch),
            quote(remote),
            shell_quote(remote),
            shell_quote(branch)
        );
    }
    match changes::snapshot(root, &head, listed_untracked)? {
        Ok(snapshot) => Ok(snapshot),
        Err(refused) => Err(anyhow!("{refused}")),
    }
}

/// `head` is in this clone's remote-tracking branch `<remote>/<branch>` (as of the last fetch).
fn on_remote_branch(root: &Path, remote: &str, branch: &str, head: &str) -> bool {
    let tracking = format!("refs/remotes/{remote}/{branch}");
    command::run_raw(
        root,
        &["merge-base", "--is-ancestor", head, &tracking],
        None,
    )
    .is_ok_and(|out| out.status.success())
}

/// The handoff as it may leave the machine: every string redacted again (a secret that slipped
/// into an older handoff, or one a newer redactor knows, does not travel), then sealed. An
/// `unsettled` redaction (a string that still looked secret after repeated passes) refuses
/// the push.
fn redacted_for_push(mut h: Handoff) -> anyhow::Result<(Handoff, Vec<Redaction>)> {
    let mut found = redaction::redact(&mut h.content);
    for (name, text) in [("agent", &mut h.agent), ("session_id", &mut h.session_id)] {
        if let Some(t) = text {
            handover_redact::redact_field(name, t, &mut found);
        }
    }
    if let Some(g) = &mut h.git {
        handover_redact::redact_field("git.root", &mut g.root, &mut found);
        for (name, text) in [
            ("git.branch", &mut g.branch),
            ("git.upstream", &mut g.upstream),
        ] {
            if let Some(t) = text {
                handover_redact::redact_field(name, t, &mut found);
            }
        }
        for p in g.dirty.iter_mut().chain(g.untracked.iter_mut()) {
            handover_redact::redact_field("git paths", p, &mut found);
        }
    }
    for f in &mut h.files_changed {
        handover_redact::redact_field("files_changed", &mut f.path, &mut found);
    }
    refuse_unsettled(&found)?;
    store::seal(&mut h);
    Ok((h, found))
}

fn refuse_unsettled(found: &[Redaction]) -> anyhow::Result<()> {
    if let Some(r) = found.iter().find(|r| r.kind == "unsettled") {
        bail!(
            "refused: redaction could not settle `{}` (it still looked like a secret after repeated passes), so nothing was pushed; \
             rewrite that field without the secret (`handover write`), then push again",
            r.field
        );
    }
    Ok(())
}

/// The newest session record of `branch` (the record's last known branch), of this working
/// tree's own (record::provenance): a record that came with a clone is not pushed as ours.
fn newest_record_of(store: &Store, branch: &str) -> Option<SessionRecord> {
    let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
    records::list_own(store, now_ms)
        .into_iter()
        .find(|r| r.git.as_ref().and_then(|g| g.branch.as_deref()) == Some(branch))
}

/// A record as it may leave the machine: every string redacted again; the transcript cursor
/// (a local path and offset, meaningless elsewhere) and the working-tree stamp dropped.
fn redacted_record(mut record: SessionRecord) -> anyhow::Result<(SessionRecord, Vec<Redaction>)> {
    record.transcript = Default::default();
    // Where it was written on this machine is nobody else's business.
    record.working_tree = String::new();
    let mut value = serde_json::to_value(&record).context("cannot serialize the record")?;
    let mut found = Vec::new();
    redact_strings(&mut value, "record", &mut found);
    refuse_unsettled(&found)?;
    let record = serde_json::from_value(value).context("cannot rebuild the record")?;
    Ok((record, found))
}

fn redact_strings(value: &mut Value, path: &str, found: &mut Vec<Redaction>) {
    match value {
        Value::String(s) => handover_redact::redact_field(path, s, found),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| redact_strings(v, path, found)),
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                redact_strings(v, &format!("{path}.{k}"), found);
            }
        }
        _ => {}
    }
}

/// `git fetch --prune <remote> +refs/handover/*:refs/handover-remote/<remote>/*` (only the
/// branch's ref when `branch` is given).
fn fetch(root: &Path, remote: &str, branch: Option<&str>) -> anyhow::Result<()> {
    let spec = match branch {
        Some(b) => format!(
            "+{}:{}",
            names::published_ref(b),
            names::fetched_ref(remote, b)
        ),
        None => names::fetch_refspec(remote),
    };
    let mut args = vec!["fetch", "--no-tags", "--quiet"];
    if branch.is_none() {
        args.push("--prune");
    }
    args.extend([remote, spec.as_str()]);
    let out = command::transport(root, remote, &args)?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    // A single branch's ref that does not exist on the remote is not an error: nothing was
    // pushed for it yet.
    if branch.is_some() && said.contains("couldn't find remote ref") {
        if let Some(b) = branch {
            let _ = command::run(
                root,
                &["update-ref", "-d", &names::fetched_ref(remote, b)],
                None,
            );
        }
        return Ok(());
    }
    bail!(
        "`git fetch {}` failed; {}",
        shell_quote(remote),
        git_said(&out.stderr)
    )
}

/// What a pull found for the current branch.
pub struct Pulled {
    pub remote: String,
    pub branch: Option<String>,
    /// The fetched handoff of the current branch, or what is wrong with it.
    pub fetched: Option<Result<Fetched, String>>,
    /// Set when `--adopt` made it the local handoff.
    pub adopted: Option<store::SaveReport>,
    /// Set when `--apply` put the uncommitted work that travelled with it into the working
    /// tree.
    pub applied: Option<changes::Applied>,
}

/// Fetches every pushed handoff of the remote, then reads the current branch's (untrusted);
/// with `adopt`, makes it the local handoff; with `apply` too, first puts the uncommitted work
/// that travelled with it into the working tree (`changes::apply`: nothing is adopted when
/// that is refused).
pub fn pull(
    store: &Store,
    remote: Option<&str>,
    adopt: bool,
    apply: bool,
) -> anyhow::Result<Pulled> {
    let root = store.root();
    ensure_repository(root, "pull")?;
    bounded_files(root)?;
    let branch = current_branch(root).ok();
    let remote = choose_remote(root, remote, branch.as_deref())?;
    fetch(root, &remote, None)?;
    let fetched = branch.as_deref().and_then(|b| {
        fetched::all_for(root, b)
            .into_iter()
            .find(|f| match f {
                Ok(f) => f.remote == remote,
                Err((r, _)) => *r == remote,
            })
            .map(|f| f.map_err(|(_, e)| e))
    });
    let mut adopted = None;
    let mut applied = None;
    if adopt {
        let f = match &fetched {
            Some(Ok(f)) => f,
            Some(Err(e)) => bail!("the fetched handoff cannot be adopted: {e}"),
            None => bail!(
                "{} has no handoff for {}: nothing to adopt",
                quote(&remote),
                branch
                    .as_deref()
                    .map_or("a detached HEAD".to_string(), |b| format!(
                        "branch {}",
                        quote(b)
                    ))
            ),
        };
        if apply {
            let Some(manifest) = &f.changes else {
                bail!(
                    "the handoff from {} carries no uncommitted work (it was pushed without --with-changes), so there is nothing to apply; \
                     nothing was adopted. Adopt it with `handover pull --adopt`",
                    f.label()
                );
            };
            applied = Some(changes::apply(root, &manifest.commit)?);
        }
        adopted = Some(adopt_fetched(store, f, applied.is_some())?);
    }
    journal_pull(
        store,
        &remote,
        branch.as_deref(),
        fetched.as_ref(),
        adopted.is_some(),
    );
    Ok(Pulled {
        remote,
        branch,
        fetched,
        adopted,
        applied,
    })
}

/// The timeline's line for a pull (`handover log`): which handoff came from where, and whether
/// it was adopted. Only into a store that exists already (a pull into a clone where handover
/// never wrote anything leaves no files behind); best effort, the pull happened either way.
fn journal_pull(
    store: &Store,
    remote: &str,
    branch: Option<&str>,
    fetched: Option<&Result<Fetched, String>>,
    adopted: bool,
) {
    if !matches!(
        handover_handoff::safe_fs::kind(&store.journal_path()),
        Ok(handover_handoff::safe_fs::Kind::File)
    ) {
        return;
    }
    // Untrusted text from the fetched commit: the store redacts it like every journal string.
    let (id, machine) = match fetched {
        Some(Ok(f)) => (Some(&f.handoff.id), Some(&f.origin.machine)),
        _ => (None, None),
    };
    let _ = store.append_journal(
        Event::Pull,
        json!({"remote": remote, "branch": branch, "handoff_id": id,
               "machine": machine, "adopted": adopted}),
    );
}

/// Makes a fetched handoff the local one: redacted (it is untrusted input), its recorded root
/// set to this working tree (verification then checks branch, HEAD and files against the
/// other machine's snapshot, without calling it foreign), sealed and saved through the store
/// (the previous local handoff is archived, the journal records the write). Its uncommitted
/// files are recorded as being on the machine it came from (`git.uncommitted_on`), unless
/// `applied` put them here.
fn adopt_fetched(
    store: &Store,
    fetched: &Fetched,
    applied: bool,
) -> anyhow::Result<store::SaveReport> {
    let mut handoff = fetched::as_checked_here(store.root(), fetched);
    if applied {
        if let Some(g) = &mut handoff.git {
            g.uncommitted_on = None;
        }
    }
    let (clean, _) = redacted_for_push(std::mem::take(&mut handoff))?;
    let markdown = handover_handoff::markdown::render(&clean);
    if let Err(e) = crate::guard::ensure(store.root()) {
        bail!("cannot keep handover's files out of git: {e:#}");
    }
    store.save(&clean, &markdown)
}

/// A change `handover share` would make to `.git/config`.
pub struct SharePlan {
    pub remote: String,
    pub refspec: String,
    /// True: add the refspec; false: remove it.
    pub add: bool,
    /// Nothing to do (already so).
    pub unchanged: bool,
}

impl SharePlan {
    /// The change as a diff of the repository's config, for the user's consent.
    pub fn diff(&self) -> String {
        let sign = if self.add { '+' } else { '-' };
        format!(
            "git config (the repository's .git/config), section [remote \"{}\"]:\n{sign}\tfetch = {}",
            self.remote, self.refspec
        )
    }
}

/// What `handover share` (or `share --off`) would change.
pub fn share_plan(root: &Path, remote: Option<&str>, off: bool) -> anyhow::Result<SharePlan> {
    ensure_repository(root, "share")?;
    bounded_files(root)?;
    let branch = current_branch(root).ok();
    let remote = choose_remote(root, remote, branch.as_deref())?;
    let refspec = names::fetch_refspec(&remote);
    let current = command::run_raw(
        root,
        &["config", "--get-all", &format!("remote.{remote}.fetch")],
        None,
    )?;
    let present = String::from_utf8_lossy(&current.stdout)
        .lines()
        .any(|l| l.trim() == refspec);
    Ok(SharePlan {
        unchanged: present != off,
        remote,
        refspec,
        add: !off,
    })
}

/// Applies a plan through `git config` (the user's git writes its own file).
pub fn share_apply(root: &Path, plan: &SharePlan) -> anyhow::Result<()> {
    if plan.unchanged {
        return Ok(());
    }
    let key = format!("remote.{}.fetch", plan.remote);
    if plan.add {
        command::run(root, &["config", "--add", &key, &plan.refspec], None)?;
    } else {
        command::run(
            root,
            &[
                "config",
                "--fixed-value",
                "--unset-all",
                &key,
                &plan.refspec,
            ],
            None,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gits_words_are_quoted_on_one_line_without_escapes() {
        let said = git_said(
            b"remote: \x1b[2J\x1b[31mred\x1b[0m\nremote: handover: pushed OK \xc2\xbb done\n\x1b]0;t\x07\n",
        );
        assert_eq!(
            said,
            "git said (its words and the remote's, not handover's): «remote: red ⏎ remote: handover: pushed OK \" done»"
        );
        let long = git_said("x".repeat(5000).as_bytes());
        assert!(long.chars().count() < GIT_SAID_MAX_CHARS + 80, "{long}");
        assert!(long.ends_with("…»"), "{long}");
    }
}
