//! Running the `git` command for travel: transport (fetch, push) goes through the user's own
//! git, its configuration and credentials, so every remote git understands works (a bare
//! directory, ssh, https). Object writes go through it too, so repositories libgit2 cannot
//! open (reftable, SHA-256) are served the same way. Every process is started the one way
//! ([`handover_base::git_process`]): no hook, fsmonitor or lazy fetch, and transport refuses
//! the programs the repository's own configuration names.

use anyhow::{bail, Context};
use handover_base::git_process::Git;
use std::path::Path;
use std::process::Output;

/// Runs a local git command (no transport) with `input` on stdin (or nothing), returning the
/// whole output whatever the exit status: callers that interpret a refusal need it.
pub fn run_raw(root: &Path, args: &[&str], input: Option<&[u8]>) -> anyhow::Result<Output> {
    let mut git = Git::local(root).args(args);
    if let Some(bytes) = input {
        git = git.input(bytes);
    }
    git.output()
        .with_context(|| format!("`git {}` did not run", args.join(" ")))
}

/// Runs `git fetch` or `git push` with `remote`: the whole output whatever the exit status (a
/// push lease's refusal is read from it); an error when git did not start, or when the
/// repository's own configuration names a program the transport would run.
pub fn transport(root: &Path, remote: &str, args: &[&str]) -> anyhow::Result<Output> {
    Ok(Git::transport(root, remote).args(args).output()?)
}

/// Runs git; its stdout, trimmed, when it succeeds, else an error quoting git's own words
/// (sanitized: a remote's text reaches them).
pub fn run(root: &Path, args: &[&str], input: Option<&[u8]>) -> anyhow::Result<String> {
    let out = run_raw(root, args, input)?;
    if !out.status.success() {
        bail!(
            "`git {}` failed; {}",
            args.join(" "),
            super::git_said(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `git rev-parse --verify --quiet <name>^{commit}`: the commit a ref names, None when it does
/// not exist.
pub fn resolve(root: &Path, refname: &str) -> anyhow::Result<Option<String>> {
    let spec = format!("{refname}^{{commit}}");
    let out = run_raw(root, &["rev-parse", "--verify", "--quiet", &spec], None)?;
    if !out.status.success() {
        return Ok(None);
    }
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(Some(id).filter(|s| !s.is_empty()))
}

/// Writes `bytes` as a blob into the object database; its id.
pub fn write_blob(root: &Path, bytes: &[u8]) -> anyhow::Result<String> {
    run(root, &["hash-object", "-w", "--stdin"], Some(bytes))
}

/// A commit of `tree` with `parents` (the first one is the previous handoff, when there is
/// one); its id. The identity is handover's own, so a push
/// works where no `user.email` is configured and carries no personal address.
pub fn commit(root: &Path, tree: &str, parents: &[&str], message: &str) -> anyhow::Result<String> {
    let mut args = vec![
        "-c",
        "user.name=handover",
        "-c",
        "user.email=handover@localhost",
        "-c",
        "commit.gpgSign=false",
        "commit-tree",
        tree,
    ];
    for p in parents {
        args.extend(["-p", p]);
    }
    run(root, &args, Some(message.as_bytes()))
}
