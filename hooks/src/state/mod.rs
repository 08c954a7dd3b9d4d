//! What a hook knows beyond its input: the per-session state file and the delivery state machine
//! it stores, and how full the context is (the transcript's end, the window's size). Depends on
//! nothing else in this crate.

pub mod delivery;
pub mod session_state;
pub mod transcript;
pub mod window;
