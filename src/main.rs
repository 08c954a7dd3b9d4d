//! The `handover` command. All work happens in `cli`; this only turns its result into an exit
//! code, in one place.
//!
//! Output that cannot be written is not a crash: `println!` panics when stdout is a closed pipe
//! (`handover status | head -1`) or a full disk (`> /dev/full`). That panic is caught here,
//! after unwinding has run every destructor (so `demo` removes its temporary repository):
//! a closed pipe ends quietly (the reader had what it wanted), any other output error is
//! reported in one line with exit code 1.

use std::any::Any;
use std::io::Write;
use std::process::ExitCode;

mod cli;

/// The start of the message `println!` panics with when stdout cannot be written.
const PRINT_FAILED: &str = "failed printing to stdout: ";

fn main() -> ExitCode {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if output_error(info.payload()).is_none() {
            default_hook(info);
        }
    }));
    match std::panic::catch_unwind(cli::run) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            let _ = writeln!(std::io::stderr(), "handover: {e:#}");
            ExitCode::from(1)
        }
        Err(payload) => match output_error(payload.as_ref()) {
            Some(error) if error.starts_with("Broken pipe") => ExitCode::SUCCESS,
            Some(error) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "handover: cannot write the output: {error}"
                );
                ExitCode::from(1)
            }
            None => std::panic::resume_unwind(payload),
        },
    }
}

/// The I/O error of a failed `println!`, when that is what the panic was.
fn output_error(payload: &(dyn Any + Send)) -> Option<&str> {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    message.strip_prefix(PRINT_FAILED)
}
