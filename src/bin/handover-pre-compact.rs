//! `handover-pre-compact`: see handover_hooks::pre_compact and docs/hooks.md.
fn main() -> std::process::ExitCode {
    handover_hooks::never_fail::run("handover-pre-compact", handover_hooks::pre_compact::run)
}
