//! What each hook event does. Each executable's logic is one module here; the session record is
//! kept by several of them.

pub mod context_watch;
pub mod pre_compact;
pub mod session_record;
pub mod session_start;
pub mod shell_env;
pub mod startup;
