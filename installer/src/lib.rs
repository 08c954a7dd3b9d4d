//! Editing other programs' configuration files (Claude Code, Codex) without damaging them.

pub mod atomic;
