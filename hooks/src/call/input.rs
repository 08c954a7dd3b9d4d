//! The hook's stdin (handover_clients::HookInput: one JSON object, every field optional), read
//! with a size cap and a time limit so that a huge or never-closed stdin can neither exhaust memory nor hang the hook.

use std::io::Read;

/// The most of stdin that is kept and parsed. Real payloads are a few KiB; a longer one (a
/// pasted 100 MB prompt) is read past and ignored, never buffered whole.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

/// What came in on stdin.
#[derive(Debug, Default)]
pub struct Payload {
    pub bytes: Vec<u8>,
    /// More than `MAX_INPUT_BYTES` arrived: `bytes` is a prefix, not a whole document.
    pub truncated: bool,
}

/// Reads `reader` to its end, keeping the first `cap` bytes; stops at the first byte past the
/// cap (`truncated`: the rest is for [`drain`], after the answer). Runs on the hook's main
/// thread: a stdin that is never closed is the watchdog's business (`never_fail`), which ends
/// the process silently after `never_fail::STDIN_WAIT`. One thread fewer than a reader thread
/// handing the payload over: thread starts and the wake-ups between them were a measurable
/// part of a hook's whole run (docs/benchmarks.md).
pub fn read_capped<R: Read>(reader: &mut R, cap: usize) -> Payload {
    // Room for a usual payload up front, not zeroed: `read_to_end` reads into it directly (a
    // zeroed 64 KiB chunk was a tenth of a do-nothing hook's instructions). Bytes read before
    // an error are kept, as before.
    let mut bytes = Vec::with_capacity(16 * 1024);
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let _ = reader.by_ref().take(limit).read_to_end(&mut bytes);
    let truncated = bytes.len() > cap;
    bytes.truncate(cap);
    Payload { bytes, truncated }
}

/// Reads past whatever is left (so the client's write does not fail with a broken pipe). The
/// watchdog bounds it.
pub fn drain<R: Read>(reader: &mut R) {
    let _ = std::io::copy(reader, &mut std::io::sink());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn a_long_stdin_is_capped_and_drained() {
        let mut data = Cursor::new(vec![b'x'; 1000]);
        let p = read_capped(&mut data, 100);
        assert_eq!(p.bytes.len(), 100);
        assert!(p.truncated);
        assert!(data.position() < 1000, "the rest is left for drain");
        drain(&mut data);
        assert_eq!(data.position(), 1000);
    }

    #[test]
    fn a_short_stdin_is_read_whole() {
        let p = read_capped(&mut Cursor::new(b"{}".to_vec()), 100);
        assert_eq!(p.bytes, b"{}");
        assert!(!p.truncated);
    }

    #[test]
    fn a_stdin_of_exactly_the_cap_is_whole() {
        let p = read_capped(&mut Cursor::new(vec![b' '; 100]), 100);
        assert_eq!(p.bytes.len(), 100);
        assert!(!p.truncated);
    }
}
