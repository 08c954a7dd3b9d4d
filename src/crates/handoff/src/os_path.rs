//! Paths stored losslessly in a handoff. JSON strings are Unicode, but a Unix path is bytes: a
//! directory or file name that is not UTF-8 (or holds a control character, which sanitizing
//! removes) cannot round-trip through a string field. Such a path is stored twice: the string
//! field as before (readable, U+FFFD where a byte was not UTF-8), and beside it a `*_bytes`
//! field in a documented form (docs/format.md): every byte that is not printable ASCII, and `%`
//! itself, written `%XX` (two uppercase hex digits), everything else as is. The `*_bytes` field
//! is absent for every other path, so documents of UTF-8 paths are unchanged and older readers
//! still read the string field.

use std::path::{Path, PathBuf};

/// The `*_bytes` form of `path`, when the string form cannot hold it exactly.
pub fn bytes_form(path: &Path) -> Option<String> {
    let bytes = raw(path)?;
    let exact = std::str::from_utf8(&bytes)
        .is_ok_and(|s| !s.chars().any(|c| c.is_control() || is_stripped(c)));
    if exact {
        return None;
    }
    let mut out = String::with_capacity(bytes.len() * 3);
    for b in bytes {
        if (b.is_ascii_graphic() && b != b'%') || b == b' ' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

/// Characters sanitizing removes from strings besides controls (bidirectional overrides).
fn is_stripped(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{2028}' | '\u{2029}')
}

/// The path a `*_bytes` field names. None when it is not in the documented form.
pub fn from_bytes_form(text: &str) -> Option<PathBuf> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    from_raw(bytes)
}

/// The path made of exactly `bytes` (None where paths are not bytes and these are not UTF-8).
pub fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    from_raw(bytes)
}

/// The path from a string field and its optional `*_bytes` companion.
pub fn resolve(text: &str, bytes_form: Option<&str>) -> PathBuf {
    bytes_form
        .and_then(from_bytes_form)
        .unwrap_or_else(|| PathBuf::from(text))
}

#[cfg(unix)]
fn raw(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    Some(path.as_os_str().as_bytes().to_vec())
}

#[cfg(unix)]
fn from_raw(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// Elsewhere paths are Unicode (or nearly): only UTF-8 round-trips.
#[cfg(not(unix))]
fn raw(path: &Path) -> Option<Vec<u8>> {
    path.to_str().map(|s| s.as_bytes().to_vec())
}

#[cfg(not(unix))]
fn from_raw(bytes: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(bytes).ok().map(PathBuf::from)
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn utf8_paths_need_no_bytes_form() {
        assert_eq!(bytes_form(Path::new("/home/dév/a b%c")), None);
    }

    #[test]
    fn other_paths_round_trip() {
        for raw in [
            &b"/tmp/caf\xe9/x"[..],
            b"/tmp/line\nbreak",
            b"/tmp/100%\xff",
            b"/tmp/\xe2\x80\xaeevil",
        ] {
            let p = Path::new(OsStr::from_bytes(raw));
            let form = bytes_form(p).unwrap();
            assert!(
                form.bytes().all(|b| b.is_ascii_graphic() || b == b' '),
                "{form}"
            );
            assert_eq!(from_bytes_form(&form).unwrap(), p);
            assert_eq!(resolve("lossy", Some(&form)), p);
        }
        assert_eq!(
            bytes_form(Path::new(OsStr::from_bytes(b"/a\xe9"))).unwrap(),
            "/a%E9"
        );
        assert_eq!(from_bytes_form("%E"), None);
        assert_eq!(resolve("/plain", None), Path::new("/plain"));
    }
}
