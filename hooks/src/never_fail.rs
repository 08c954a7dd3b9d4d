//! The contract every hook executable keeps: exit 0, print valid output or nothing, nothing on
//! stderr unless debugging, finish within a bounded time, whatever happens inside: a panic, an
//! error, a hung file system.

use crate::agent;
use crate::call::Call;
use crate::debug;
use crate::input::{HookInput, StdinReader, MAX_INPUT_BYTES};
use crate::output::Response;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// After this long the watchdog ends the process with exit 0 and no output: a late answer is
/// worth less than the agent's time.
pub const HARD_LIMIT: Duration = Duration::from_millis(2500);
/// How long to wait for the client to close stdin.
const STDIN_WAIT: Duration = Duration::from_millis(1000);

/// Held while stdout is written, so the watchdog never cuts an answer in half.
static OUTPUT: Mutex<()> = Mutex::new(());
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
    let debug = debug::target();
    start_watchdog(name, debug.clone());
    panic::set_hook(Box::new(|info| {
        if let Ok(mut p) = PANIC.lock() {
            *p = Some(info.to_string());
        }
    }));

    let stdin = StdinReader::spawn(std::io::stdin(), MAX_INPUT_BYTES);
    let payload = stdin.payload(STDIN_WAIT);

    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        let input = HookInput::parse(&payload.bytes);
        let exe = std::env::current_exe().ok();
        let call = Call::new(
            agent::from_args(std::env::args().skip(1)),
            input,
            std::env::var("CLAUDE_PROJECT_DIR").ok().as_deref(),
            std::env::current_dir().ok().as_deref(),
            exe.as_deref(),
        );
        let outcome = logic(&call);
        (call.agent, call.input.hook_event_name.clone(), outcome)
    }));

    let (response, line) = match result {
        Ok((agent, event, Ok(outcome))) => (
            outcome.response,
            format!(
                "agent={} event={} {}",
                agent.as_str(),
                event.as_deref().unwrap_or("?"),
                outcome.note
            ),
        ),
        Ok((agent, event, Err(e))) => (
            Response::Silent,
            format!(
                "agent={} event={} error: {e:#}",
                agent.as_str(),
                event.as_deref().unwrap_or("?")
            ),
        ),
        Err(_) => {
            let msg = PANIC
                .lock()
                .ok()
                .and_then(|p| p.clone())
                .unwrap_or_default();
            (Response::Silent, format!("panic: {msg}"))
        }
    };

    let bytes = response.encode();
    if let Ok(_guard) = OUTPUT.lock() {
        let mut out = std::io::stdout().lock();
        // A closed pipe is the client's business; nothing to do about it here.
        let _ = out.write_all(&bytes).and_then(|_| out.flush());
    }
    if let Some(target) = &debug {
        debug::log(
            target,
            &format!(
                "{name}: {line} -> {} in {} ms{}",
                response.describe(),
                started.elapsed().as_millis(),
                if payload.truncated {
                    " (stdin over the cap, ignored)"
                } else {
                    ""
                }
            ),
        );
    }
    stdin.finish(started + HARD_LIMIT - Duration::from_millis(100));
    ExitCode::SUCCESS
}

fn start_watchdog(name: &str, debug: Option<debug::Target>) {
    let name = name.to_string();
    std::thread::spawn(move || {
        std::thread::sleep(HARD_LIMIT);
        // Wait for an answer being written to be complete, then stop everything.
        let _guard = OUTPUT.lock();
        if let Some(target) = &debug {
            debug::log(
                target,
                &format!("{name}: gave up after {} ms", HARD_LIMIT.as_millis()),
            );
        }
        #[allow(clippy::exit)] // the one place a hook may end itself: the time limit
        std::process::exit(0);
    });
}
