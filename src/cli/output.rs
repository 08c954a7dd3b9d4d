//! Standard output for every command, with its failures typed.
//!
//! Every command writes through [`stdout`] (never `println!`, which panics when stdout is a
//! closed pipe or a full disk; `clippy::print_stdout` is denied in this crate). A failed write
//! comes back as an `io::Error` that wraps an [`OutputError`], travels up with `?` like any
//! other error, and `main` tells it apart by its type (not by any message text): a closed pipe
//! ends quietly with success (the reader had what it wanted), any other output failure is one
//! line on stderr and exit code 1.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// `--quiet`: set once, before the command runs; the one piece of process state here, because
/// every write in every command would otherwise have to carry it.
static QUIET: AtomicBool = AtomicBool::new(false);

pub fn set_quiet() {
    QUIET.store(true, Ordering::Relaxed);
}

/// `--quiet` was given: nothing reaches stdout, so nothing can be shown to confirm.
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// The version of every `--json` shape (the `version` field; docs/cli.md). Raised when a field
/// is removed or changes meaning; new fields may appear within a version.
pub const JSON_VERSION: u32 = 1;

/// Writing to standard output failed: this is what `main` looks for.
#[derive(Debug)]
pub struct OutputError(io::Error);

impl OutputError {
    pub fn kind(&self) -> io::ErrorKind {
        self.0.kind()
    }
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write the output: {}", self.0)
    }
}

impl std::error::Error for OutputError {}

fn typed(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), OutputError(e))
}

/// The process's standard output, whose errors are [`OutputError`]s.
pub struct Stdout;

/// Standard output for one command's writes.
pub fn stdout() -> Stdout {
    Stdout
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if QUIET.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        io::stdout().write(buf).map_err(typed)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush().map_err(typed)
    }
}

/// The output failure behind `e`, if that is what it is.
pub fn output_error(e: &anyhow::Error) -> Option<&OutputError> {
    e.chain().find_map(|cause| {
        cause
            .downcast_ref::<OutputError>()
            .or_else(|| cause.downcast_ref::<io::Error>()?.get_ref()?.downcast_ref())
    })
}

/// What to do about a file-system refusal behind `e`, said after the error itself: a bare
/// "Permission denied (os error 13)" names the file but not the fix. None for other errors.
pub fn permission_hint(e: &anyhow::Error) -> Option<&'static str> {
    let io = e
        .chain()
        .find_map(|cause| cause.downcast_ref::<io::Error>())?;
    match io.kind() {
        io::ErrorKind::PermissionDenied => Some(
            "you may not write there: check the owner and mode of that file and of the directory \
             holding it (`ls -ld`), and run handover as the user who owns the repository, or \
             give yourself write access (`chmod u+w`)",
        ),
        io::ErrorKind::ReadOnlyFilesystem => {
            Some("the file system is mounted read-only: handoffs need a writable working tree")
        }
        _ => None,
    }
}

/// A line on stderr that never fails the command (stderr is where failures are said; if even
/// that is gone there is no one left to tell).
pub fn warn(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_failure_is_found_by_type_through_any_context() {
        let e: anyhow::Error = typed(io::Error::from(io::ErrorKind::BrokenPipe)).into();
        let e = e.context("printing the report");
        assert_eq!(
            output_error(&e).map(OutputError::kind),
            Some(io::ErrorKind::BrokenPipe)
        );
        // The same kind from anything else (reading a file) is not an output failure.
        let other: anyhow::Error = io::Error::from(io::ErrorKind::BrokenPipe).into();
        assert!(output_error(&other).is_none());
        let plain = anyhow::anyhow!("cannot write the output: Broken pipe");
        assert!(output_error(&plain).is_none());
    }
}
