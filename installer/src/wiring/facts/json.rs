//! How the facts look in `handover status --json` (its "agents" field): serde helpers for the
//! fields whose JSON shape is not their Rust shape, kept as the output always was.

use super::*;
use serde::{Serialize, Serializer};
use std::path::Path;

pub(super) fn by_scope<S: Serializer>(scopes: &[ScopeStatus], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(scopes.iter().map(|x| (x.scope.as_str(), x)))
}

pub(super) fn live_by_scope<S: Serializer>(scopes: &[LiveScope], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(
        scopes
            .iter()
            .filter_map(|x| Some((x.scope.as_str(), x.hooks.as_ref().ok()?))),
    )
}

pub(super) fn instructions_map<S: Serializer>(
    files: &[InstructionsFile],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(files.iter().map(|f| (&f.name, f.present)))
}

/// The `Ok` value itself (an `Err` is skipped before this is called).
pub(super) fn ok_value<S: Serializer, T: Serialize, E>(
    r: &Result<T, E>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match r {
        Ok(v) => v.serialize(s),
        Err(_) => s.serialize_none(),
    }
}

pub(super) fn ok_only<S: Serializer, T: Serialize, E>(
    r: &Result<T, E>,
    s: S,
) -> Result<S::Ok, S::Error> {
    r.as_ref().ok().serialize(s)
}

pub(super) fn folder_trust<S: Serializer>(
    t: &Result<FolderTrust, String>,
    s: S,
) -> Result<S::Ok, S::Error> {
    t.as_ref().ok().map(FolderTrust::as_str).serialize(s)
}

pub(super) fn on_off<S: Serializer>(flags: &FeatureFlags, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if flags.disabled() { "off" } else { "on" })
}

pub(super) fn plugin_ids<S: Serializer>(
    plugins: &[(String, bool)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(plugins.iter().map(|(id, _)| id))
}

pub(super) fn display_path<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&p.display())
}

pub(super) fn display_paths<S: Serializer>(ps: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ps.iter().map(|p| p.display().to_string()))
}

pub(super) fn exe_names<S: Serializer>(v: &[HookExe], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|e| e.file_name()))
}

pub(super) fn count<S: Serializer, T>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(v.len() as u64)
}

pub(super) fn own_commands<S: Serializer>(ms: &[Mention], s: S) -> Result<S::Ok, S::Error> {
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
