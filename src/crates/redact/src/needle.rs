//! The fixed strings the detectors look for in a whole text, searched without building a
//! searcher at every call.
//!
//! Why: `str::find(&str)` builds a two-way searcher (`StrSearcher::new`) at every call, and
//! every text redacted is searched for a few dozen fixed strings (the `[REDACTED:` marker,
//! `://`, `-----BEGIN `, `ey`, the command names of `cli.rs`, …), for every field a hook
//! redacts: building those searchers was most of the redaction's share of a hook call
//! (docs/benchmarks.md, "Redaction's searchers, one repository open"). A [`Needle`] finds its
//! first byte with `str::find(char)` (the library's `memchr`, no setup) and compares the rest
//! there. At most `needle length` byte comparisons per position, and the needles are short
//! (at most 30 bytes), so the search stays linear in the text.
//!
//! Not memchr's `memmem::Finder` in statics: it saved as many instructions, but its code
//! (searchers and vector prefilters, run once per process) added 0.1-0.3 MiB of resident pages
//! to every hook call (same document), against the hooks' 4 MiB target.
//!
//! Same answers as `str`'s own search: the first (leftmost) occurrence, as a byte offset, and
//! non-overlapping occurrences from left to right (`tests::same_answers_as_str`).

/// A fixed, non-empty string to search for.
pub struct Needle {
    text: &'static str,
}

impl Needle {
    pub const fn new(text: &'static str) -> Needle {
        assert!(!text.is_empty(), "a needle is never empty");
        Needle { text }
    }

    /// The string searched for.
    pub fn text(&self) -> &'static str {
        self.text
    }

    /// `hay.find(needle)`.
    pub fn find(&self, hay: &str) -> Option<usize> {
        self.find_from(hay, 0)
    }

    /// `hay[from..].find(needle).map(|i| from + i)`: an offset into `hay` (`from` must be a
    /// character boundary, as `str` slicing requires).
    pub fn find_from(&self, hay: &str, from: usize) -> Option<usize> {
        let needle = self.text.as_bytes();
        let first = needle[0];
        if !first.is_ascii() {
            return hay[from..].find(self.text).map(|i| from + i);
        }
        let bytes = hay.as_bytes();
        // Always a character boundary: `from`, or just past an ASCII byte.
        let mut at = from;
        loop {
            let i = at + hay[at..].find(char::from(first))?;
            if bytes.len() - i < needle.len() {
                return None;
            }
            if bytes[i + 1..].starts_with(&needle[1..]) {
                return Some(i);
            }
            at = i + 1;
        }
    }

    /// `hay.contains(needle)`.
    pub fn is_in(&self, hay: &str) -> bool {
        self.find(hay).is_some()
    }

    /// Where `hay.match_indices(needle)` finds it: non-overlapping, left to right.
    pub fn occurrences<'h>(&'static self, hay: &'h str) -> impl Iterator<Item = usize> + 'h {
        let mut from = 0;
        std::iter::from_fn(move || {
            let i = self.find_from(hay, from)?;
            from = i + self.text.len();
            Some(i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    static NEEDLES: [Needle; 7] = [
        Needle::new("ey"),
        Needle::new("aa"),
        Needle::new("://"),
        Needle::new("[REDACTED:"),
        Needle::new("-----BEGIN "),
        Needle::new("é"),
        Needle::new("Q~"),
    ];

    /// Texts made mostly of the needles' own pieces, so that matches, near misses, overlaps
    /// (`aaa`) and multi-byte characters are common.
    fn text() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "a",
            "aa",
            "e",
            "y",
            "ey",
            ":",
            "/",
            "://",
            "[REDACTED:",
            "-----",
            "BEGIN ",
            "é",
            "Q",
            "~",
            " ",
            "\n",
            "x",
            "€",
        ]);
        prop::collection::vec(pieces, 0..40).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn same_answers_as_str(hay in text(), from_seed in 0usize..64) {
            for needle in &NEEDLES {
                let n = needle.text();
                prop_assert_eq!(needle.find(&hay), hay.find(n));
                prop_assert_eq!(needle.is_in(&hay), hay.contains(n));
                let by_str: Vec<usize> = hay.match_indices(n).map(|(i, _)| i).collect();
                prop_assert_eq!(needle.occurrences(&hay).collect::<Vec<_>>(), by_str);
                // Every character boundary as a start, as the detectors' loops use them.
                let from = (0..=hay.len())
                    .filter(|&i| hay.is_char_boundary(i))
                    .nth(from_seed)
                    .unwrap_or(hay.len());
                prop_assert_eq!(
                    needle.find_from(&hay, from),
                    hay[from..].find(n).map(|i| from + i)
                );
            }
        }
    }
}
