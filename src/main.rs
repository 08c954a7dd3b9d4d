//! The `handover` command. All work happens in `cli`; this only turns its result into an exit
//! code, in one place.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("handover: {e:#}");
            ExitCode::from(1)
        }
    }
}
