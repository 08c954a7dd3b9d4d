//! Folding: a text becomes its search key — lowercase, accents off — once, with the way back
//! from a position in the key to the original text.
//!
//! The key drops accents so that one fast byte search finds every accented form; a query word
//! that has accents is then checked against the original letters ([`Units`]), so `été` finds
//! `ÉTÉ` and `Été` but not `ete`, while `ete` finds all four. Precomposed (`é`) and decomposed
//! (`e` + U+0301) letters fold alike. No expansions: `ß` is not `ss`, `æ` is not `ae`.
//!
//! ASCII text (nearly every handoff) takes a fast path: its key is the same bytes lowercased,
//! so positions need no map.

use super::accents::TABLE;
use std::ops::Range;

/// Combining marks (the accents of a decomposed letter): dropped from the key.
pub(super) fn is_combining(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// The base letter and combining marks of a precomposed lowercase letter (`é` → `e`, U+0301).
pub(super) fn decompose(c: char) -> Option<(char, &'static str)> {
    TABLE
        .binary_search_by_key(&c, |entry| entry.0)
        .ok()
        .and_then(|i| TABLE.get(i))
        .map(|entry| (entry.1, entry.2))
}

/// One lowercase letter without its accents: what the key holds for it.
fn base_of(lower: char) -> char {
    // Greek final sigma is the same letter as σ.
    if lower == 'ς' {
        return 'σ';
    }
    decompose(lower).map_or(lower, |(base, _)| base)
}

/// Where one folded text sits in a [`Keys`] buffer.
#[derive(Clone, Debug)]
pub(super) struct Span {
    /// Its bytes in the key.
    pub key: Range<usize>,
    /// Its slice of the position map; `None` when the key is the text lowercased byte for byte
    /// (ASCII).
    pub map: Option<Range<usize>>,
}

/// The keys of several texts (a document's fields) in one buffer, separated by a NUL byte, so
/// one search per word covers the whole document and no match runs from one field into the
/// next. Reused from one document to the next: folding allocates only while a document is
/// bigger than every one before it.
#[derive(Default)]
pub(super) struct Keys {
    pub key: String,
    pub spans: Vec<Span>,
    /// For each key byte of a non-ASCII text, the byte offset in the original text of the
    /// letter it came from; one more entry at each text's end (its length).
    map: Vec<u32>,
}

impl Keys {
    pub fn clear(&mut self) {
        self.key.clear();
        self.spans.clear();
        self.map.clear();
    }

    /// Folds `text` onto the end of the buffer as the next span.
    pub fn push(&mut self, text: &str) {
        if !self.spans.is_empty() {
            self.key.push('\0');
        }
        let start = self.key.len();
        if text.is_ascii() {
            self.key.push_str(text);
            if let Some(added) = self.key.get_mut(start..) {
                added.make_ascii_lowercase();
            }
            self.spans.push(Span {
                key: start..self.key.len(),
                map: None,
            });
            return;
        }
        let map_start = self.map.len();
        for (at, c) in text.char_indices() {
            for lower in c.to_lowercase() {
                if is_combining(lower) {
                    continue;
                }
                let before = self.key.len();
                self.key.push(base_of(lower));
                let at = u32::try_from(at).unwrap_or(u32::MAX);
                self.map.extend((before..self.key.len()).map(|_| at));
            }
        }
        self.map.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        self.spans.push(Span {
            key: start..self.key.len(),
            map: Some(map_start..self.map.len()),
        });
    }

    /// The span (field) holding key byte `at`.
    pub fn span_of(&self, at: usize) -> usize {
        self.spans
            .partition_point(|s| s.key.end < at)
            .min(self.spans.len().saturating_sub(1))
    }

    /// The byte offset in span `span`'s original text of key byte `at` (a letter's start, or
    /// the span's end).
    pub fn original(&self, span: usize, at: usize) -> usize {
        let Some(s) = self.spans.get(span) else {
            return 0;
        };
        let within = at.clamp(s.key.start, s.key.end) - s.key.start;
        match &s.map {
            None => within,
            Some(m) => self.map.get(m.start + within).map_or(0, |&o| o as usize),
        }
    }
}

/// The letters of a text as base letter and accents, lowercase, whitespace runs as one space:
/// what an accented query word is compared with, letter by letter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Units(Vec<(char, String)>);

impl Units {
    pub fn of(text: &str) -> Units {
        let mut units: Vec<(char, String)> = Vec::new();
        for c in text.chars().flat_map(char::to_lowercase) {
            if is_combining(c) {
                if let Some(last) = units.last_mut() {
                    last.1.push(c);
                }
            } else if c.is_whitespace() {
                if units.last().is_none_or(|u| u.0 != ' ') {
                    units.push((' ', String::new()));
                }
            } else {
                match decompose(c) {
                    Some((base, marks)) => units.push((base, marks.to_string())),
                    None => units.push((base_of(c), String::new())),
                }
            }
        }
        for unit in &mut units {
            if unit.1.chars().count() > 1 {
                let mut marks: Vec<char> = unit.1.chars().collect();
                marks.sort_unstable();
                unit.1 = marks.into_iter().collect();
            }
        }
        Units(units)
    }

    pub fn has_accents(&self) -> bool {
        self.0.iter().any(|u| !u.1.is_empty())
    }

    /// Whether `text` (the original of a key match) has this query's accents: each query
    /// letter with accents needs exactly those on the text's letter; one without takes any.
    pub fn accepts(&self, text: &str) -> bool {
        let found = Units::of(text);
        found.0.len() == self.0.len()
            && self
                .0
                .iter()
                .zip(&found.0)
                .all(|(want, got)| want.0 == got.0 && (want.1.is_empty() || want.1 == got.1))
    }
}

/// `text`'s key alone (a query word).
pub(super) fn key_of(text: &str) -> String {
    let mut keys = Keys::default();
    keys.push(text);
    keys.key
}

/// Whether `c` is part of a word: letters, digits (any script) and `_`.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_lowercase_without_accents() {
        let cases = [
            ("Token FORMAT", "token format"),
            ("ÉTÉ", "ete"),
            ("été", "ete"),
            ("e\u{301}te\u{301}", "ete"),
            ("Ærø Straße", "ærø straße"),
            ("ΣΟΦΟΣ σοφος", "σοφοσ σοφοσ"),
            ("Ångström", "angstrom"),
            ("Tiếng Việt", "tieng viet"),
            ("İstanbul", "istanbul"),
            ("Ёлка", "елка"),
        ];
        for (text, key) in cases {
            assert_eq!(key_of(text), key, "{text}");
        }
    }

    #[test]
    fn positions_map_back_to_the_original_letters() {
        let mut keys = Keys::default();
        keys.push("ASCII first");
        keys.push("Été à Paris");
        assert_eq!(keys.key, "ascii first\0ete a paris");
        let paris = keys.key.find("paris").unwrap();
        assert_eq!(keys.span_of(paris), 1);
        let start = keys.original(1, paris);
        let end = keys.original(1, paris + 5);
        assert_eq!(&"Été à Paris"[start..end], "Paris");
        let ete = keys.key.find("ete").unwrap();
        assert_eq!(keys.span_of(ete), 1);
        assert_eq!(
            &"Été à Paris"[keys.original(1, ete)..keys.original(1, ete + 3)],
            "Été"
        );
        assert_eq!(keys.span_of(2), 0);
        assert_eq!(
            &"ASCII first"[keys.original(0, 6)..keys.original(0, 11)],
            "first"
        );
    }

    #[test]
    fn trailing_combining_marks_stay_with_their_letter() {
        let mut keys = Keys::default();
        keys.push("cafe\u{301} noir");
        let end = keys.original(0, 4);
        assert_eq!(&"cafe\u{301} noir"[..end], "cafe\u{301}");
    }

    #[test]
    fn accents_of_the_query_must_be_on_the_text() {
        let cases = [
            ("été", "ÉTÉ", true),
            ("été", "Été", true),
            ("été", "e\u{301}te\u{301}", true),
            ("été", "ete", false),
            ("été", "êtè", false),
            ("ete", "été", true),
            ("etè", "été", false),
            ("etè", "Etè", true),
            ("token format", "Token   format", true),
        ];
        for (query, text, accepted) in cases {
            assert_eq!(
                Units::of(query).accepts(text),
                accepted,
                "{query} in {text}"
            );
        }
        assert!(Units::of("été").has_accents());
        assert!(!Units::of("ete").has_accents());
    }
}
