//! Running the `git` command for travel: transport (fetch, push) goes through the user's own
//! git, its configuration and credentials, so every remote git understands works (a bare
//! directory, ssh, https). Object writes go through it too, so repositories libgit2 cannot
//! open (reftable, SHA-256) are served the same way.

use anyhow::{bail, Context};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A `git -C <root>` command aimed at this repository only, whatever an outer process set.
fn base(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env("GIT_OPTIONAL_LOCKS", "0");
    cmd
}

/// Runs git with `input` on stdin (or nothing), returning the whole output whatever the exit
/// status: callers that interpret a refusal (a push lease) need it.
pub fn run_raw(root: &Path, args: &[&str], input: Option<&[u8]>) -> anyhow::Result<Output> {
    let mut cmd = base(root);
    cmd.args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().context("cannot run `git`: is git installed?")?;
    if let Some(bytes) = input {
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(bytes)
                .with_context(|| format!("cannot write to `git {}`", args.join(" ")))?;
        }
    }
    child
        .wait_with_output()
        .with_context(|| format!("`git {}` did not finish", args.join(" ")))
}

/// Runs git; its stdout, trimmed, when it succeeds, else an error quoting git's own words.
pub fn run(root: &Path, args: &[&str], input: Option<&[u8]>) -> anyhow::Result<String> {
    let out = run_raw(root, args, input)?;
    if !out.status.success() {
        bail!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
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
