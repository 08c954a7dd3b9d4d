//! The `handover` command. All work happens in `cli`; this only turns its result into an exit
//! code, in one place.
//!
//! Output that cannot be written is not a crash: every command writes through
//! `cli::output::stdout()`, whose failures are typed (`OutputError`), and are told apart here by
//! that type: a closed pipe (`handover status | head -1`) ends quietly with success (the reader
//! had what it wanted); any other output failure (`> /dev/full`) is one line on stderr and exit
//! code 1. `println!` (which panics on both) is denied in this crate.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;
use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    let result = cli::run().and_then(|code| {
        cli::output::stdout().flush()?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        Err(e) => match cli::output::output_error(&e) {
            Some(o) if o.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Some(o) => {
                cli::output::warn(format_args!("handover: {o}"));
                ExitCode::from(1)
            }
            None => {
                let _ = writeln!(std::io::stderr(), "handover: {e:#}");
                if let Some(hint) = cli::output::permission_hint(&e) {
                    let _ = writeln!(std::io::stderr(), "hint: {hint}");
                }
                ExitCode::from(1)
            }
        },
    }
}
