//! `handover-context-watch`: see handover_hooks::events::context_watch and docs/hooks.md.
fn main() -> std::process::ExitCode {
    handover_hooks::call::never_fail::run(
        "handover-context-watch",
        handover_hooks::events::context_watch::run,
    )
}
