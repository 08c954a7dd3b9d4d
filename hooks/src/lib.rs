//! Shared pieces of the hook executables.
