//! Reading hook commands back: the one definition of "ours" lives in handover-base
//! ([`handover_base::hook_command`]) so the hook executables (the plugin's "never twice" check)
//! and the installer recognise exactly the same commands.

pub use handover_base::hook_command::*;
