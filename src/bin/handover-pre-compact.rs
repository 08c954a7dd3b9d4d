//! `handover-pre-compact`: see handover_hooks::events::pre_compact and docs/hooks.md.
//! On Linux with glibc it starts from its own C `main` (handover_hooks::call::process_start).
#![cfg_attr(all(target_os = "linux", target_env = "gnu"), no_main)]

handover_hooks::hook_main!(
    "handover-pre-compact",
    handover_hooks::events::pre_compact::run
);
