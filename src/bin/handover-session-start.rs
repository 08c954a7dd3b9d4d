//! `handover-session-start`: see handover_hooks::session_start and docs/hooks.md.
fn main() -> std::process::ExitCode {
    handover_hooks::never_fail::run("handover-session-start", handover_hooks::session_start::run)
}
