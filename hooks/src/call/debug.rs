//! The debug log: silent unless `HANDOVER_HOOK_DEBUG` is set. `1` (or `stderr`) writes one line
//! per hook call to stderr; an absolute path appends the line to that file instead (useful
//! because clients hide a hook's stderr or show it as an error).

use std::io::Write;
use std::path::PathBuf;

pub const ENV: &str = "HANDOVER_HOOK_DEBUG";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Stderr,
    File(PathBuf),
}

pub fn target_from(value: Option<&str>) -> Option<Target> {
    match value.map(str::trim) {
        None | Some("") | Some("0") | Some("false") => None,
        Some(v) if v.starts_with('/') => Some(Target::File(PathBuf::from(v))),
        Some(_) => Some(Target::Stderr),
    }
}

pub fn target() -> Option<Target> {
    target_from(std::env::var(ENV).ok().as_deref())
}

/// Writes one line, redacted (its notes may quote the client's input); failures are ignored
/// (the log must never be why a hook fails).
pub fn log(target: &Target, line: &str) {
    let line = format!(
        "{}\n",
        handover_handoff::sanitize::redacted(line).replace('\n', " ")
    );
    match target {
        Target::Stderr => {
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        Target::File(path) => {
            // Only a regular file (or none yet): opening a FIFO would hang the hook.
            if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
                return;
            }
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = f.write_all(line.as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_by_default_stderr_or_file_when_asked() {
        assert_eq!(target_from(None), None);
        assert_eq!(target_from(Some("0")), None);
        assert_eq!(target_from(Some("1")), Some(Target::Stderr));
        assert_eq!(
            target_from(Some("/tmp/h.log")),
            Some(Target::File("/tmp/h.log".into()))
        );
    }
}
