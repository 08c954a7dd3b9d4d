//! What every detector reports and what replaces a secret: a byte span of the scanned text with
//! the kind of secret in it, and the `[REDACTED:<kind>]` marker. The detectors (one module each)
//! and the merging in lib.rs all stand on this.

pub const MARK: &str = "[REDACTED:";

pub fn marker(kind: &str) -> String {
    format!("{MARK}{kind}]")
}

/// A secret found: bytes `start..end` of the text scanned.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

impl Span {
    pub fn new(start: usize, end: usize, kind: &'static str) -> Span {
        Span { start, end, kind }
    }
}
