//! `handover-context-watch`: see handover_hooks::events::context_watch and docs/hooks.md.
//! On Linux with glibc it starts from its own C `main` (handover_hooks::call::process_start).
#![cfg_attr(all(target_os = "linux", target_env = "gnu"), no_main)]

handover_hooks::hook_main!(
    "handover-context-watch",
    handover_hooks::events::context_watch::run
);
