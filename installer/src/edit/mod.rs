//! Editing other programs' files without damaging them: pure functions from text to text plus
//! a report of what changed, unit-tested on strings. A JSON document that keeps its keys and
//! numbers as written (`json_doc`) and its look (`json_layout`), the hook entries in it
//! (`hooks_doc`, `hooks_file`; what counts as a command of ours is `handover_base::hook_command`), the handover section of an instruction file
//! (`instructions`), the MCP server's entry (`mcp_entry`), a TOML document (`toml_doc`), one file's planned edit (`file_edit`) and its `--dry-run` diff (`diff`).
//! Nothing here reads or writes a file, or knows which client a file belongs to beyond what the
//! caller passes.

pub mod diff;
pub mod file_edit;
pub mod hooks_doc;
pub mod hooks_file;
pub mod instructions;
pub mod json_doc;
pub mod json_layout;
pub mod mcp_entry;
pub mod toml_doc;
