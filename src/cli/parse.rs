//! How the command line is parsed: clap's definition (the types in `mod.rs`) plus where `-C`
//! means something. `-C` is global, so `handover -C DIR status` and `handover status -C DIR`
//! both work; the commands that work on no repository neither offer it (help, completion
//! scripts) nor accept it.

use super::Cli;
use std::path::{Path, PathBuf};

/// The commands that work on no repository, and why `-C` means nothing to them.
const WITHOUT_DIR: [(&str, &str); 3] = [
    ("demo", "the tour builds a temporary repository of its own"),
    (
        "completions",
        "a completion script is the same for every repository",
    ),
    (
        "trust-plugin",
        "the plugin's hooks are one set for every repository, trusted once per user",
    ),
];

/// The command line as clap parses it: `-C` is global (`handover -C DIR status` and
/// `handover status -C DIR` both work) but not offered where it would do nothing. A global
/// option cannot be left out of one subcommand, so those get a hidden `-C` of their own (clap
/// then propagates neither the global one nor its help there), and [`refuse_unused_dir`]
/// turns a `-C` given to them, before or after the subcommand, into a usage error.
fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    for (name, _) in WITHOUT_DIR {
        cmd = cmd.mut_subcommand(name, |sc| {
            sc.arg(
                clap::Arg::new("dir")
                    .short('C')
                    .long("dir")
                    .value_parser(clap::value_parser!(PathBuf))
                    .hide(true),
            )
        });
    }
    cmd
}

/// The command line for completion scripts, which list hidden options too (clap_complete's
/// scripts offer every option a subcommand has): `-C` is given to each command that takes it
/// instead of globally, so the scripts offer it exactly there.
pub fn completion_command() -> clap::Command {
    use clap::CommandFactory;
    let cmd = Cli::command().mut_arg("dir", |a| a.global(false));
    let Some(dir) = cmd.get_arguments().find(|a| a.get_id() == "dir").cloned() else {
        return cmd;
    };
    let takes_dir: Vec<String> = cmd
        .get_subcommands()
        .map(|sc| sc.get_name().to_string())
        .filter(|name| WITHOUT_DIR.iter().all(|(n, _)| n != name))
        .collect();
    takes_dir.into_iter().fold(cmd, |cmd, name| {
        cmd.mut_subcommand(name, |sc| sc.arg(dir.clone()))
    })
}

pub fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(std::env::args_os())?;
    let cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))?;
    if let (Some(dir), Some(name)) = (&cli.dir, matches.subcommand_name()) {
        refuse_unused_dir(dir, name, &cmd)?;
    }
    Ok(cli)
}

/// `-C` given to a command that works on no repository: a usage error naming the fix, rather
/// than an option silently ignored.
fn refuse_unused_dir(dir: &Path, name: &str, cmd: &clap::Command) -> Result<(), clap::Error> {
    let Some((_, why)) = WITHOUT_DIR.iter().find(|(n, _)| *n == name) else {
        return Ok(());
    };
    // The subcommand's usage line under the message, as for clap's own usage errors.
    let mut sub = cmd.find_subcommand(name).unwrap_or(cmd).clone();
    Err(sub.error(
        clap::error::ErrorKind::ArgumentConflict,
        format!(
            "-C {} does nothing for `handover {name}` ({why}): leave it out",
            dir.display()
        ),
    ))
}
