//! The contract every hook executable keeps: exit 0, print valid output or nothing, nothing on
//! stderr unless debugging, finish within a bounded time, whatever happens inside: a panic, an
//! error, a hung file system.

use crate::call::agent;
use crate::call::debug;
use crate::call::input::{self, MAX_INPUT_BYTES};
use crate::call::plugin;
use crate::call::Call;
use handover_clients::Agent;
use handover_clients::HookInput;
use handover_clients::Response;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// After this long the watchdog ends the process with exit 0 and no output: a late answer is
/// worth less than the agent's time.
pub const HARD_LIMIT: Duration = Duration::from_millis(2500);
/// How long to wait for the client to close stdin; after that the hook ends silently.
pub const STDIN_WAIT: Duration = Duration::from_millis(1000);

/// Held while stdout is written, so the watchdog never cuts an answer in half.
static OUTPUT: Mutex<()> = Mutex::new(());
/// Set once the answer went out before the hook's last work ([`answer_now`]): `run` writes
/// nothing more.
static ANSWERED: AtomicBool = AtomicBool::new(false);
/// The last panic message, for the debug log only (the default hook would print to stderr).
static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// What a hook's logic returns: the answer, and a few words for the debug log.
pub struct Outcome {
    pub response: Response,
    pub note: String,
}

impl Outcome {
    pub fn new(response: Response, note: impl Into<String>) -> Outcome {
        Outcome {
            response,
            note: note.into(),
        }
    }
    pub fn silent(note: impl Into<String>) -> Outcome {
        Outcome::new(Response::Silent, note)
    }
}

pub type Logic = fn(&Call) -> anyhow::Result<Outcome>;

/// The whole life of a hook process. `name` is for the debug log.
pub fn run(name: &str, logic: Logic) -> ExitCode {
    let started = Instant::now();
    one_malloc_arena();
    let debug = debug::target();
    let watchdog = start_watchdog(name, started, debug.clone());
    panic::set_hook(Box::new(|info| {
        if let Ok(mut p) = PANIC.lock() {
            *p = Some(info.to_string());
        }
    }));

    // Read on this thread; the watchdog ends the process if the client never closes stdin.
    // Without a watchdog, stdin is not read at all (nothing would bound the read): the
    // payload is empty and the hook says nothing.
    let mut stdin = std::io::stdin().lock();
    let payload = match &watchdog {
        Some(stdin_read) => {
            let payload = input::read_capped(&mut stdin, MAX_INPUT_BYTES);
            let _ = stdin_read.send(());
            payload
        }
        None => input::Payload::default(),
    };

    // The client that encodes the answer: known once the call is built (an answer can only
    // come after that; before it, the answer is silence in every client's form).
    let truncated = payload.truncated;
    let bytes = std::sync::Arc::new(payload.bytes);
    let mut agent = None;
    let (response, line) = settle(|| {
        let mut input = HookInput::parse(&bytes);
        if input.hook_event_name.is_none() {
            // A client whose hook input names no event (GitHub Copilot CLI): the installed
            // command names it.
            input.hook_event_name = agent::flag_values(std::env::args().skip(1), "--event").pop();
        }
        let exe = std::env::current_exe().ok();
        let mut call = Call::new(
            agent::from_args(std::env::args().skip(1)),
            input,
            handover_clients::project_dir(&|var| std::env::var_os(var)).as_deref(),
            std::env::current_dir().ok().as_deref(),
            exe.as_deref(),
        );
        agent = Some(call.agent);
        // The time spent waiting for stdin counts against the watchdog too.
        call.deadline = started + crate::call::budget::WORK_BUDGET;
        // A whole payload only: a copy must not work from a prefix (crate::call::detach).
        if !truncated {
            call.payload = bytes.clone();
        }
        call.finishing_since_ms =
            crate::call::detach::finishing_since(std::env::args().skip(1), call.now_ms);
        if let Some(began) = call.finishing_since_ms {
            call.now_ms = began;
        }
        let env = |name: &str| std::env::var_os(name);
        let outcome = if let Some(host) = handover_clients::guest_of(call.agent, &call.input, &env)
        {
            // Another client runs this agent's entry (GitHub Copilot CLI runs Claude Code's):
            // that client's own entry answers, so each moment is answered once.
            Ok(Outcome::silent(format!(
                "run by {}: its own entry answers",
                handover_clients::of(host).display_name
            )))
        } else if plugin::via_plugin(std::env::args().skip(1)) && defer_to_settings(name, &call) {
            Ok(Outcome::silent(
                "plugin: the agent's settings run this hook too; they answer",
            ))
        } else {
            logic(&call)
        };
        let head = format!(
            "agent={} event={}",
            call.agent.as_str(),
            call.input.hook_event_name.as_deref().unwrap_or("?")
        );
        (head, outcome)
    });

    if !ANSWERED.load(Ordering::SeqCst) {
        if let Ok(_guard) = OUTPUT.lock() {
            write_answer(agent.unwrap_or(Agent::DEFAULT), &response);
        }
    }
    if let Some(target) = &debug {
        debug::log(
            target,
            &format!(
                "{name}: {line} -> {} in {} ms{}",
                response.describe(),
                started.elapsed().as_millis(),
                if truncated {
                    " (stdin over the cap, ignored)"
                } else {
                    ""
                }
            ),
        );
    }
    // Only a payload over the cap has more to read past (so the client's write does not fail
    // on a broken pipe); a stdin left open has nothing coming, and waiting would only delay
    // the client.
    if truncated {
        input::drain(&mut stdin);
    }
    ExitCode::SUCCESS
}

/// Writes `response` (in `agent`'s client's form) now and closes the hook's stdout, for a hook
/// whose work after this changes nothing in its answer (PreCompact's save: the record, the
/// journal's snapshot). A client that reads the answer to the end of the output goes on at
/// once instead of waiting for that work: OpenCode's and Kilo Code's plugin awaits PreCompact's
/// answer before the summarizer request, in the client's busy process (docs/benchmarks.md). A
/// client that waits for the process to exit waits as before. The process then ends as every
/// hook does: when its work is done, or at the watchdog's limit. `run` prints nothing more; its
/// debug line still describes this answer.
pub fn answer_now(agent: Agent, response: &Response) {
    if let Ok(_guard) = OUTPUT.lock() {
        write_answer(agent, response);
        ANSWERED.store(true, Ordering::SeqCst);
        stdout_to_null();
    }
}

/// Writes `response` in `agent`'s client's form to stdout and flushes it; the caller holds
/// OUTPUT, so the watchdog never cuts it in half.
fn write_answer(agent: Agent, response: &Response) {
    let bytes = handover_clients::of(agent).encode(response);
    let mut out = std::io::stdout().lock();
    // A closed pipe is the client's business; nothing to do about it here.
    let _ = out.write_all(&bytes).and_then(|_| out.flush());
}

/// Points the process's stdout at /dev/null: the client's pipe is closed (it sees the end of
/// the answer), and descriptor 1 stays taken, so no file opened later can become stdout.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // libc's dup2: std has no safe way to replace a descriptor
fn stdout_to_null() {
    use std::os::fd::{AsRawFd, IntoRawFd};
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else {
        return;
    };
    if null.as_raw_fd() == libc::STDOUT_FILENO {
        // Descriptor 1 was free (process_start opens it at the start, so this is not
        // expected) and /dev/null took it: kept there, for the rest of the process.
        let _ = null.into_raw_fd();
        return;
    }
    // SAFETY: dup2 only makes descriptor 1 a copy of `null`'s, which is open for the whole
    // call; no memory is touched through pointers, and stdout's buffer was flushed (under
    // OUTPUT) before. On failure descriptor 1 is left as it was: the answer is out either way,
    // and the pipe then closes when the process ends, as before.
    unsafe {
        libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO);
    }
}

/// Elsewhere the pipe closes when the process ends, as before.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn stdout_to_null() {}

/// Every thread allocates from the main thread's heap. glibc gives each new thread that
/// allocates an arena of its own (a heap mapping of its own, touched as used and kept), and a
/// hook's threads (the watchdog, a bounded scan) allocate little and briefly: three arenas were
/// 156 KiB of a PreCompact's 4 MiB peak (docs/benchmarks.md, "Peak RSS"). Malloc's lock is
/// then shared, but only for the short time of each allocation. Called first, before any
/// other thread exists.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // libc's mallopt: std has no way to set the allocator's arenas
fn one_malloc_arena() {
    // SAFETY: mallopt only changes a setting of glibc's allocator, which it reads under its
    // own lock; no memory is touched through pointers. Its result (0 on failure) changes
    // nothing we rely on: without it there are more arenas, as before.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn one_malloc_arena() {}

/// Never twice (see crate::call::plugin): the plugin's copy of hook `name` yields to the settings'.
fn defer_to_settings(name: &str, call: &Call) -> bool {
    let Some(event) = call.input.hook_event_name.as_deref() else {
        return false;
    };
    let layers = plugin::Layers::from_env(
        call.input.cwd.as_deref(),
        call.store.as_ref().map(|s| s.root()),
    );
    layers.settings_also_run(call.agent, name, event)
}

/// Runs a hook's work and turns whatever comes out of it (an answer, an error, a panic) into
/// the answer to print and a line for the debug log. Errors and panics answer nothing.
pub fn settle(work: impl FnOnce() -> (String, anyhow::Result<Outcome>)) -> (Response, String) {
    match panic::catch_unwind(AssertUnwindSafe(work)) {
        Ok((head, Ok(outcome))) => (outcome.response, format!("{head} {}", outcome.note)),
        Ok((head, Err(e))) => (Response::Silent, format!("{head} error: {e:#}")),
        Err(_) => {
            let msg = PANIC
                .lock()
                .ok()
                .and_then(|p| p.clone())
                .unwrap_or_default();
            (Response::Silent, format!("panic: {msg}"))
        }
    }
}

/// The one helper thread of a hook process. It waits `STDIN_WAIT` for the main thread to say
/// stdin was read (a message on the returned channel), and ends the process silently if it
/// was not: the client never closed stdin, so there is no input to answer. Then it ends the
/// process at `HARD_LIMIT` after `started`, answer or not. None when no thread could be
/// started.
fn start_watchdog(
    name: &str,
    started: Instant,
    debug: Option<debug::Target>,
) -> Option<mpsc::Sender<()>> {
    let name = name.to_string();
    let (stdin_read, read) = mpsc::channel::<()>();
    std::thread::Builder::new()
        .spawn(move || {
            let waited = stdin_wait(&read, started + STDIN_WAIT);
            let why = if waited {
                std::thread::sleep(
                    (started + HARD_LIMIT).saturating_duration_since(Instant::now()),
                );
                format!("gave up after {} ms", HARD_LIMIT.as_millis())
            } else {
                format!("stdin not closed within {} ms", STDIN_WAIT.as_millis())
            };
            // Wait for an answer being written to be complete, then stop everything.
            let _guard = OUTPUT.lock();
            if let Some(target) = &debug {
                debug::log(target, &format!("{name}: {why}"));
            }
            #[allow(clippy::exit)] // the one place a hook may end itself: the time limit
            std::process::exit(0);
        })
        .ok()
        .map(|_| stdin_read)
}

/// Waits until `deadline` for the main thread to report stdin read: true when it did (or is
/// gone, which only happens once the process ends), false when the time ran out.
fn stdin_wait(read: &mpsc::Receiver<()>, deadline: Instant) -> bool {
    match read.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
        Err(RecvTimeoutError::Timeout) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_pass_through_errors_and_panics_answer_nothing() {
        let (r, line) = settle(|| {
            (
                "h".into(),
                Ok(Outcome::new(Response::Plain("x".into()), "ok")),
            )
        });
        assert_eq!(r, Response::Plain("x".into()));
        assert_eq!(line, "h ok");
        let (r, line) = settle(|| ("h".into(), Err(anyhow::anyhow!("disk full"))));
        assert_eq!(r, Response::Silent);
        assert!(line.contains("disk full"), "{line}");
        let (r, line) = settle(|| -> (String, anyhow::Result<Outcome>) {
            panic!("boom");
        });
        assert_eq!(r, Response::Silent);
        assert!(line.starts_with("panic"), "{line}");
    }

    #[test]
    fn the_watchdog_waits_for_stdin_until_its_deadline_only() {
        let (tx, rx) = mpsc::channel::<()>();
        let start = Instant::now();
        assert!(!stdin_wait(&rx, start + Duration::from_millis(50)));
        assert!(start.elapsed() >= Duration::from_millis(50));
        tx.send(()).unwrap();
        assert!(stdin_wait(&rx, Instant::now() + Duration::from_secs(60)));
        drop(tx);
        assert!(stdin_wait(&rx, Instant::now() + Duration::from_secs(60)));
    }
}
