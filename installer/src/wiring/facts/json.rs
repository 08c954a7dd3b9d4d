//! How the facts look in `handover status --json` (its "agents" field): serde helpers for the
//! fields whose JSON shape is not their Rust shape, kept as the output always was.

use super::*;
use serde::{Serialize, Serializer};
use std::path::Path;

pub(crate) fn by_scope<S: Serializer>(scopes: &[ScopeStatus], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(scopes.iter().map(|x| (x.scope.as_str(), x)))
}

pub(crate) fn mcp_by_scope<S: Serializer>(
    found: &[(Scope, McpStatus)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(found.iter().map(|(scope, m)| (scope.as_str(), m)))
}

pub(crate) fn instructions_map<S: Serializer>(
    files: &[InstructionsFile],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(files.iter().map(|f| (&f.name, f.present)))
}

/// The `Ok` value itself (an `Err` is skipped before this is called).
pub(crate) fn ok_value<S: Serializer, T: Serialize, E>(
    r: &Result<T, E>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match r {
        Ok(v) => v.serialize(s),
        Err(_) => s.serialize_none(),
    }
}

pub(crate) fn ok_only<S: Serializer, T: Serialize, E>(
    r: &Result<T, E>,
    s: S,
) -> Result<S::Ok, S::Error> {
    r.as_ref().ok().serialize(s)
}

pub(crate) fn display_path<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&p.display())
}

pub(crate) fn display_paths<S: Serializer>(ps: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ps.iter().map(|p| p.display().to_string()))
}

pub(crate) fn exe_names<S: Serializer>(v: &[HookExe], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|e| e.file_name()))
}

pub(crate) fn count<S: Serializer, T>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(v.len() as u64)
}

pub(crate) fn own_commands<S: Serializer>(ms: &[Mention], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct OwnCommand<'a> {
        event: &'a str,
        command: &'a str,
    }
    s.collect_seq(ms.iter().map(|m| OwnCommand {
        event: &m.event,
        command: &m.command,
    }))
}
