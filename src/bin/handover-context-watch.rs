//! `handover-context-watch`: see handover_hooks::context_watch and docs/hooks.md.
fn main() -> std::process::ExitCode {
    handover_hooks::never_fail::run("handover-context-watch", handover_hooks::context_watch::run)
}
