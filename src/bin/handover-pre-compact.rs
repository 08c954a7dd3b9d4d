//! `handover-pre-compact`: see handover_hooks::events::pre_compact and docs/hooks.md.
fn main() -> std::process::ExitCode {
    handover_hooks::call::never_fail::run(
        "handover-pre-compact",
        handover_hooks::events::pre_compact::run,
    )
}
