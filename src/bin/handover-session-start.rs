//! `handover-session-start`: see handover_hooks::events::session_start and docs/hooks.md.
//! On Linux with glibc it starts from its own C `main` (handover_hooks::call::process_start).
#![cfg_attr(all(target_os = "linux", target_env = "gnu"), no_main)]

handover_hooks::hook_main!(
    "handover-session-start",
    handover_hooks::events::session_start::run
);
