//! The line shown for a hit: at most a given number of characters around the first match,
//! every match in it marked.

use super::fold::Keys;
use super::query::Query;
use super::rank::occurrences;
use std::ops::Range;

/// Opens a match in [`Snippet::marked`].
pub const MARK_OPEN: char = '⟦';
/// Closes a match in [`Snippet::marked`].
pub const MARK_CLOSE: char = '⟧';

/// A bounded piece of one line, in pieces that are or are not a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    pub pieces: Vec<(String, bool)>,
    /// Text of the line was left out before the first piece.
    pub cut_start: bool,
    /// Text of the line was left out after the last piece.
    pub cut_end: bool,
}

impl Snippet {
    /// The snippet as one string, each match between [`MARK_OPEN`] and [`MARK_CLOSE`], `…`
    /// where the line was cut. A mark character of the text itself becomes a plain bracket,
    /// so text cannot pass for a match.
    pub fn marked(&self) -> String {
        let mut out = String::new();
        if self.cut_start {
            out.push('…');
        }
        for (text, is_match) in &self.pieces {
            if *is_match {
                out.push(MARK_OPEN);
            }
            out.extend(text.chars().map(|c| match c {
                MARK_OPEN => '[',
                MARK_CLOSE => ']',
                c => c,
            }));
            if *is_match {
                out.push(MARK_CLOSE);
            }
        }
        if self.cut_end {
            out.push('…');
        }
        out
    }
}

/// `line` cut to at most `max_chars` characters (not counting marks and ellipses) around its
/// first match, with every match of `query`'s terms marked; `None` when no term matches in it
/// (a match that was inside a secret, before redaction, is not there any more).
pub fn snippet(query: &Query, line: &str, max_chars: usize) -> Option<Snippet> {
    let mut keys = Keys::default();
    keys.push(line);
    let mut marks: Vec<Range<usize>> = query
        .terms
        .iter()
        .flat_map(|term| occurrences(&keys, &[line], term))
        .map(|o| keys.original(0, o.key.start)..keys.original(0, o.key.end))
        .collect();
    marks.sort_by_key(|m| m.start);
    let marks = merged(marks);
    let first = marks.first()?.clone();
    let window = window(line, first, max_chars.max(1));
    let mut pieces = Vec::new();
    let mut at = window.start;
    for mark in &marks {
        let start = mark.start.clamp(window.start, window.end);
        let end = mark.end.clamp(window.start, window.end);
        if start >= end {
            continue;
        }
        if at < start {
            pieces.push((line.get(at..start).unwrap_or("").to_string(), false));
        }
        pieces.push((line.get(start..end).unwrap_or("").to_string(), true));
        at = end;
    }
    if at < window.end {
        pieces.push((line.get(at..window.end).unwrap_or("").to_string(), false));
    }
    Some(Snippet {
        pieces,
        cut_start: window.start > 0,
        cut_end: window.end < line.len(),
    })
}

/// Overlapping or touching marks as one.
fn merged(marks: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(marks.len());
    for mark in marks {
        match out.last_mut() {
            Some(last) if mark.start <= last.end => last.end = last.end.max(mark.end),
            _ => out.push(mark),
        }
    }
    out
}

/// The byte range of at most `max` characters of `line` to show: all of it when it fits, else
/// starting a little before `first` (a third of the room left by the match), moved back when
/// that would leave room unused at the end.
fn window(line: &str, first: Range<usize>, max: usize) -> Range<usize> {
    // Counting stops past `max`: a huge line costs no more than a short one here.
    if line.chars().nth(max).is_none() {
        return 0..line.len();
    }
    let match_chars = line.get(first.clone()).map_or(0, |m| m.chars().count());
    let before = max.saturating_sub(match_chars) / 3;
    let head = line.get(..first.start).unwrap_or("");
    let start = head
        .char_indices()
        .rev()
        .take(before)
        .last()
        .map_or(first.start, |(i, _)| i);
    let tail = line.get(start..).unwrap_or("");
    match tail.char_indices().nth(max) {
        Some((i, _)) => start..start + i,
        None => {
            // The end of the line is in reach: show the last `max` characters.
            let from_end = line.char_indices().rev().nth(max - 1).map_or(0, |(i, _)| i);
            from_end..line.len()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(query: &str, line: &str, max: usize) -> Option<String> {
        let q = Query::parse(query).unwrap();
        snippet(&q, line, max).map(|s| s.marked())
    }

    #[test]
    fn marks_and_bounds() {
        let long = format!("{} the token format {}", "x".repeat(200), "y".repeat(200));
        let cases: &[(&str, &str, usize, Option<&str>)] = &[
            ("token", "the Token format", 80, Some("the ⟦Token⟧ format")),
            (
                "token format",
                "format the token",
                80,
                Some("⟦format⟧ the ⟦token⟧"),
            ),
            (
                "\"token format\"",
                "a token  format b",
                80,
                Some("a ⟦token  format⟧ b"),
            ),
            ("été", "L'ÉTÉ", 80, Some("L'⟦ÉTÉ⟧")),
            (
                "ete",
                "cafe\u{301} e\u{301}te\u{301}",
                80,
                Some("cafe\u{301} ⟦e\u{301}te\u{301}⟧"),
            ),
            ("absent", "the token", 80, None),
            ("tok", "⟦forged⟧ token", 80, Some("[forged] ⟦tok⟧en")),
            ("ab", "abab", 80, Some("⟦abab⟧")),
            ("token", "0123456789 token", 8, Some("…89 ⟦token⟧")),
            (
                "abcdefghij",
                "xxxxxxxxxxxx abcdefghij yyyyyyyyyyyy",
                4,
                Some("…⟦abcd⟧…"),
            ),
            ("end", "0123456789 the end", 8, Some("… the ⟦end⟧")),
            (
                "token",
                &long,
                30,
                Some("…xxx the ⟦token⟧ format yyyyyyyyy…"),
            ),
        ];
        for (query, line, max, want) in cases {
            assert_eq!(
                marked(query, line, *max).as_deref(),
                *want,
                "{query:?} in {line:?}"
            );
        }
    }

    #[test]
    fn a_huge_line_gives_a_short_snippet() {
        let line = format!("{}needle{}", "é".repeat(1 << 20), "a".repeat(1 << 20));
        let s = marked("needle", &line, 100).unwrap();
        assert!(s.chars().count() <= 104, "{}", s.chars().count());
        assert!(s.contains("⟦needle⟧"));
    }
}
