//! `handover-session-start`: see handover_hooks::events::session_start and docs/hooks.md.
fn main() -> std::process::ExitCode {
    handover_hooks::call::never_fail::run(
        "handover-session-start",
        handover_hooks::events::session_start::run,
    )
}
