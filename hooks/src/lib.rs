//! The hook executables' library: one module per job. The executables' `main`s (the root
//! package's src/bin/) only pick their logic and hand it to `never_fail::run`.

pub mod agent;
pub mod budget;
pub mod call;
pub mod context_watch;
pub mod debug;
pub mod detach;
pub mod input;
pub mod locate;
pub mod never_fail;
pub mod plugin;
pub mod pre_compact;
pub mod scan;
pub mod session_record;
pub mod session_start;
pub mod session_state;
pub mod shell_env;
pub mod startup;
pub mod transcript;
pub mod window;
