//! The fixed strings the detectors look for in a whole text, each with its searcher built once
//! per process.
//!
//! Why: `str::find(&str)` builds a two-way searcher (`StrSearcher::new`) at every call, and
//! every text redacted is searched for a few dozen fixed strings (the `[REDACTED:` marker,
//! `://`, `-----BEGIN `, `ey`, the command names of `cli.rs`, …), several times when a hook
//! redacts many fields: building those searchers was 15-20 % of a hook call's instructions
//! (docs/benchmarks.md, "Redaction's searchers built once"). A [`Needle`] is a `static`
//! holding memchr's `memmem::Finder`, built on first use.
//!
//! Same answers as `str`'s own search: the first (leftmost) occurrence, as a byte offset, and
//! non-overlapping occurrences from left to right. A needle that is UTF-8 found in a text that
//! is UTF-8 starts and ends on character boundaries, so every offset slices the text as
//! `str::find`'s did (`tests::same_answers_as_str`).

use memchr::memmem::Finder;
use std::sync::OnceLock;

/// A fixed string to search for, with its searcher built on first use.
pub struct Needle {
    text: &'static str,
    finder: OnceLock<Finder<'static>>,
}

impl Needle {
    pub const fn new(text: &'static str) -> Needle {
        Needle {
            text,
            finder: OnceLock::new(),
        }
    }

    /// The string searched for.
    pub fn text(&self) -> &'static str {
        self.text
    }

    fn finder(&self) -> &Finder<'static> {
        self.finder.get_or_init(|| Finder::new(self.text))
    }

    /// `hay.find(needle)`.
    pub fn find(&self, hay: &str) -> Option<usize> {
        self.finder().find(hay.as_bytes())
    }

    /// `hay[from..].find(needle).map(|i| from + i)`: an offset into `hay` (`from` must be a
    /// character boundary, as `str` slicing requires).
    pub fn find_from(&self, hay: &str, from: usize) -> Option<usize> {
        self.find(&hay[from..]).map(|i| from + i)
    }

    /// `hay.contains(needle)`.
    pub fn is_in(&self, hay: &str) -> bool {
        self.find(hay).is_some()
    }

    /// Where `hay.match_indices(needle)` finds it: non-overlapping, left to right.
    pub fn occurrences<'h>(&'static self, hay: &'h str) -> impl Iterator<Item = usize> + 'h {
        self.finder().find_iter(hay.as_bytes())
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
