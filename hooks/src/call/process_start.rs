//! A hook process's start without std's runtime start. On Linux with glibc the hook executables
//! define the C `main` themselves (`#![no_main]` and [`hook_main!`](crate::hook_main)) and do
//! here only what a hook needs of what std does before `main`. std's start cost a SessionStart
//! 109 K instructions and 27 system calls, most of them glibc reading and parsing
//! `/proc/self/maps` to locate the main thread's stack guard (docs/benchmarks.md, "Where a
//! hook's time goes").
//!
//! What std's start does, and what a hook keeps:
//! - fds 0-2 opened on `/dev/null` when the caller left them closed: kept
//!   ([`standard_fds_open`]). Otherwise the first file a hook opens would take the number of
//!   stdout, and the answer would be written into that file.
//! - `SIGPIPE` ignored: kept ([`ignore_sigpipe`]). A client that stops reading before the answer
//!   is written would otherwise end the hook by a signal; ignored, the write fails and
//!   `never_fail` goes on to exit 0. A child process gets the default back, as with std's start
//!   (std's `Command` resets it in the child).
//! - the stack-overflow handler (an alternate signal stack, the main thread's guard page
//!   located): left out. An overflow still ends the process by a signal (`SIGSEGV` instead of
//!   std's message and `SIGABRT`); the hooks' recursion is bounded by their inputs' caps.
//! - the main thread's name: left out; only std's default panic hook prints it, and
//!   `never_fail` replaces that hook.
//!
//! `std::env::args` does not depend on it: glibc hands the arguments to std before any `main`.

/// What a hook process needs before its work: the standard fds open, `SIGPIPE` ignored.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn prepare() {
    standard_fds_open();
    ignore_sigpipe();
}

/// Opens `/dev/null` on each of fds 0-2 that is closed, as std's start does: one `poll` when
/// all three are open. A failure leaves them as they are (std would abort; a hook must not).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // libc's poll and open: std has no safe way to ask whether a fd is open
fn standard_fds_open() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // Bounded: an interrupted poll is retried a few times, then the fds are left as they are.
    for _ in 0..3 {
        // SAFETY: `fds` is a live array of three pollfd, the length passed; a zero timeout
        // returns at once. Nothing else is touched.
        let polled = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        if polled >= 0 {
            break;
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
    for pfd in fds {
        if pfd.revents & libc::POLLNVAL != 0 {
            // SAFETY: a NUL-terminated path and plain flags; the fd is deliberately kept open
            // for the life of the process (open returns the lowest closed fd, the one found
            // closed, as the closed ones are opened in increasing order).
            unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        }
    }
}

/// Ignores `SIGPIPE` for this process, as std's start does.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // libc's signal: std has no safe way to set a signal's disposition
fn ignore_sigpipe() {
    // SAFETY: SIG_IGN installs no handler (no code of ours runs in a signal context), and it is
    // set before any other thread exists. Its result changes nothing we rely on.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// A hook executable's entry point: `hook_main!("handover-session-start", <its logic>)` in a
/// src/bin/ file that starts with
/// `#![cfg_attr(all(target_os = "linux", target_env = "gnu"), no_main)]`. On Linux with glibc
/// it is the C `main` ([`prepare`], then `never_fail::run`); elsewhere an ordinary Rust `main`
/// after std's start.
#[macro_export]
macro_rules! hook_main {
    ($name:literal, $logic:path) => {
        // SAFETY: the one `main` symbol of a `#![no_main]` executable, called by the C runtime
        // with its usual arguments (ignored here: std reads them itself); it never unwinds
        // (`never_fail::run` catches the hook's panics).
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        #[allow(unsafe_code)]
        #[unsafe(no_mangle)]
        extern "C" fn main() -> ::std::ffi::c_int {
            $crate::call::process_start::prepare();
            let code = $crate::call::never_fail::run($name, $logic);
            ::std::ffi::c_int::from(code != ::std::process::ExitCode::SUCCESS)
        }

        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        fn main() -> ::std::process::ExitCode {
            $crate::call::never_fail::run($name, $logic)
        }
    };
}
