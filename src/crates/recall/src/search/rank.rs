//! Matching one document and ranking it: every term must be found somewhere in it (AND); the
//! line to show is the one that holds the most of the query; the [`Rank`] orders documents.

use super::fold::{is_word_char, Keys};
use super::query::{Query, Term};
use std::cmp::Reverse;
use std::ops::Range;

/// How much a field says about a piece of work. Decisions, warnings, blockers and the goal
/// outrank the narrative and the task lists, which outrank evidence (commands run, files).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Weight {
    Evidence,
    Context,
    Key,
}

/// A named text of a document (a handoff's decisions, a record's request).
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    pub name: &'a str,
    pub weight: Weight,
    pub text: &'a str,
}

/// What is searched: named fields, in the order a tie between them is settled, and a time
/// (any number that grows with time, e.g. seconds since 1970) for "newer first".
#[derive(Clone, Debug, Default)]
pub struct Document<'a> {
    pub fields: Vec<Field<'a>>,
    pub time: i64,
}

/// Why one document comes before another, compared in this order (greater is better): how
/// many terms matched as whole words (`log`, not inside `login`); whether the query's words
/// follow each other as typed (always, for a single word or phrase); whether the line shown
/// holds every term; the weight of its field; the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rank {
    pub whole_words: usize,
    pub phrase: bool,
    pub together: bool,
    pub weight: Weight,
    pub time: i64,
}

impl Rank {
    fn key(&self) -> (usize, bool, bool, Weight, i64) {
        (
            self.whole_words,
            self.phrase,
            self.together,
            self.weight,
            self.time,
        )
    }
}

impl Ord for Rank {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A document that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    pub rank: Rank,
    /// The field of the line to show (an index into the document's fields).
    pub field: usize,
    /// That line, as a byte range of the field's text.
    pub line: Range<usize>,
    /// Every field holding a match, the shown one first, then by weight.
    pub fields: Vec<usize>,
}

/// Occurrences kept per term and document: enough to rank, bounded for a hostile document
/// (a megabyte of one letter).
const MAX_OCCURRENCES: usize = 16;
/// Candidates examined per term and document (a key match whose accents or phrase do not fit
/// is examined and dropped).
const MAX_CANDIDATES: usize = 4_096;

/// One place a term matched: the field (span) and its key bytes.
#[derive(Clone, Debug)]
pub(super) struct Occurrence {
    pub span: usize,
    pub key: Range<usize>,
    pub whole: bool,
}

/// Every place `term` matches in `keys`, whose spans are the folded `texts`.
pub(super) fn occurrences(keys: &Keys, texts: &[&str], term: &Term) -> Vec<Occurrence> {
    let Some(first) = term.words.first() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut words: Vec<Range<usize>> = Vec::with_capacity(term.words.len());
    for start in first
        .finder
        .find_iter(keys.key.as_bytes())
        .take(MAX_CANDIDATES)
    {
        if !follow(&keys.key, start, term, &mut words) {
            continue;
        }
        let span = keys.span_of(start);
        let accents_fit = term.words.iter().zip(&words).all(|(word, at)| {
            word.accents.as_ref().is_none_or(|accents| {
                let text = texts.get(span).copied().unwrap_or("");
                let original = keys.original(span, at.start)..keys.original(span, at.end);
                accents.accepts(text.get(original).unwrap_or(""))
            })
        });
        if !accents_fit {
            continue;
        }
        let end = words.last().map_or(start, |w| w.end);
        found.push(Occurrence {
            span,
            key: start..end,
            whole: is_whole(&keys.key, start..end),
        });
        if found.len() == MAX_OCCURRENCES {
            break;
        }
    }
    found
}

/// Whether the term's words follow one another from `start` in `key`, each after at least one
/// white space (a line break counts); their key ranges in `words`.
fn follow(key: &str, start: usize, term: &Term, words: &mut Vec<Range<usize>>) -> bool {
    words.clear();
    let mut at = start;
    for (i, word) in term.words.iter().enumerate() {
        if i > 0 {
            let rest = key.get(at..).unwrap_or("");
            let skipped = rest.len() - rest.trim_start().len();
            if skipped == 0 {
                return false;
            }
            at += skipped;
            if !key.get(at..).unwrap_or("").starts_with(&word.key) {
                return false;
            }
        }
        words.push(at..at + word.key.len());
        at += word.key.len();
    }
    true
}

/// Whether `range` of `key` is whole words: no letter or digit glued to either end (an end
/// that is itself punctuation, as in `-v`, needs no such boundary).
fn is_whole(key: &str, range: Range<usize>) -> bool {
    let inside = key.get(range.clone()).unwrap_or("");
    let before = key.get(..range.start).and_then(|s| s.chars().next_back());
    let after = key.get(range.end..).and_then(|s| s.chars().next());
    let first_is_word = inside.chars().next().is_some_and(is_word_char);
    let last_is_word = inside.chars().next_back().is_some_and(is_word_char);
    let glued_before = first_is_word && before.is_some_and(is_word_char);
    let glued_after = last_is_word && after.is_some_and(is_word_char);
    !glued_before && !glued_after
}

/// The line of span `span` holding key bytes `range` (from the line break before its start to
/// the one after its end).
fn line_of(keys: &Keys, span: usize, range: &Range<usize>) -> Range<usize> {
    let Some(s) = keys.spans.get(span) else {
        return range.clone();
    };
    let key = keys.key.as_bytes();
    let before = key.get(s.key.start..range.start).unwrap_or(&[]);
    let after = key.get(range.end..s.key.end).unwrap_or(&[]);
    let start = memchr::memrchr(b'\n', before).map_or(s.key.start, |i| s.key.start + i + 1);
    let end = memchr::memchr(b'\n', after).map_or(s.key.end, |i| range.end + i);
    start..end
}

/// What one line of a document holds of the query.
#[derive(Clone, Debug)]
struct Line {
    span: usize,
    key: Range<usize>,
    /// Bit `i`: term `i` matched on this line.
    terms: u32,
    /// Bit `i`: term `i` matched as whole words on this line.
    whole: u32,
    /// The query's words follow one another on this line.
    together: bool,
}

/// Finds and ranks documents for one query; keeps its buffers from one document to the next.
pub struct Matcher<'q> {
    query: &'q Query,
    keys: Keys,
}

impl<'q> Matcher<'q> {
    pub fn new(query: &'q Query) -> Matcher<'q> {
        Matcher {
            query,
            keys: Keys::default(),
        }
    }

    /// The document's match, or `None` when a term is missing from it.
    pub fn find(&mut self, doc: &Document) -> Option<Match> {
        self.keys.clear();
        for field in &doc.fields {
            self.keys.push(field.text);
        }
        let key = self.keys.key.as_bytes();
        // Cheap first: one search per term's first word, before anything is collected.
        let all_there = self.query.terms.iter().all(|t| {
            t.words
                .first()
                .is_some_and(|w| w.finder.find(key).is_some())
        });
        if !all_there {
            return None;
        }
        let texts: Vec<&str> = doc.fields.iter().map(|f| f.text).collect();
        let mut lines: Vec<Line> = Vec::new();
        let mut whole_words = 0;
        for (i, term) in self.query.terms.iter().enumerate() {
            let found = occurrences(&self.keys, &texts, term);
            if found.is_empty() {
                return None;
            }
            whole_words += usize::from(found.iter().any(|o| o.whole));
            for o in found {
                let key = line_of(&self.keys, o.span, &o.key);
                lines.push(Line {
                    span: o.span,
                    key,
                    terms: 1 << i,
                    whole: u32::from(o.whole) << i,
                    together: false,
                });
            }
        }
        let mut phrase = true;
        if let Some(together) = &self.query.together {
            let found = occurrences(&self.keys, &texts, together);
            phrase = !found.is_empty();
            for o in found {
                let key = line_of(&self.keys, o.span, &o.key);
                lines.push(Line {
                    span: o.span,
                    key,
                    terms: 0,
                    whole: 0,
                    together: true,
                });
            }
        }
        let lines = merged(lines);
        let weight = |span: usize| doc.fields.get(span).map_or(Weight::Evidence, |f| f.weight);
        let best = lines.iter().max_by_key(|l| {
            (
                l.together,
                l.terms.count_ones(),
                l.whole.count_ones(),
                weight(l.span),
                Reverse(l.span),
                Reverse(l.key.start),
            )
        })?;
        let all_terms = (1u32 << self.query.terms.len()) - 1;
        let mut fields: Vec<usize> = lines.iter().map(|l| l.span).collect();
        fields.sort_by_key(|&s| (s != best.span, Reverse(weight(s)), s));
        fields.dedup();
        Some(Match {
            rank: Rank {
                whole_words,
                phrase,
                together: best.terms == all_terms || best.together,
                weight: weight(best.span),
                time: doc.time,
            },
            field: best.span,
            line: self.keys.original(best.span, best.key.start)
                ..self.keys.original(best.span, best.key.end),
            fields,
        })
    }
}

/// The lines, one entry per line (a phrase that runs over a line break keeps the longer
/// range).
fn merged(mut lines: Vec<Line>) -> Vec<Line> {
    lines.sort_by_key(|l| (l.span, l.key.start));
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    for line in lines {
        match out.last_mut() {
            Some(last) if last.span == line.span && last.key.start == line.key.start => {
                last.key.end = last.key.end.max(line.key.end);
                last.terms |= line.terms;
                last.whole |= line.whole;
                last.together |= line.together;
            }
            _ => out.push(line),
        }
    }
    out
}

/// Sorts matches best first (`T` carries whatever the caller needs to show them).
pub fn best_first<T>(hits: &mut [(T, Match)]) {
    hits.sort_by_key(|hit| Reverse(hit.1.rank));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(fields: &[(&'a str, Weight, &'a str)], time: i64) -> Document<'a> {
        Document {
            fields: fields
                .iter()
                .map(|&(name, weight, text)| Field { name, weight, text })
                .collect(),
            time,
        }
    }

    /// Whether `query` matches a document of one field holding `text`.
    fn matches(query: &str, text: &str) -> bool {
        let q = Query::parse(query).unwrap();
        Matcher::new(&q)
            .find(&doc(&[("f", Weight::Context, text)], 0))
            .is_some()
    }

    #[test]
    fn what_matches() {
        let cases = [
            ("token", "The Token format", true),
            ("TOKEN", "the token format", true),
            ("token format", "format of the token", true),
            ("token missing", "the token format", false),
            ("\"token format\"", "the TOKEN format", true),
            ("\"token format\"", "the token\n  format", true),
            ("\"token format\"", "format token", false),
            ("\"token format\"", "token, format", false),
            ("\"token format\"", "tokenformat", false),
            ("ÉTÉ", "l'été dernier", true),
            ("été", "L'ÉTÉ DERNIER", true),
            ("été", "l'ete dernier", false),
            ("ete", "l'été dernier", true),
            ("ete", "l'ÉTÉ dernier", true),
            ("café", "cafe\u{301} noir", true),
            ("straße", "STRASSE", false),
            ("log", "login", true),
            ("σοφος", "ΣΟΦΟΣ", true),
            ("-v", "cargo test -v", true),
        ];
        for (query, text, want) in cases {
            assert_eq!(matches(query, text), want, "{query:?} in {text:?}");
        }
    }

    #[test]
    fn a_match_never_runs_from_one_field_into_the_next() {
        let q = Query::parse("\"alpha beta\"").unwrap();
        let d = doc(
            &[("a", Weight::Key, "alpha"), ("b", Weight::Key, "beta")],
            0,
        );
        assert_eq!(Matcher::new(&q).find(&d), None);
    }

    #[test]
    fn the_line_shown_holds_the_most_of_the_query() {
        let q = Query::parse("token format").unwrap();
        let d = doc(
            &[
                ("decisions", Weight::Key, "use a token\nkeep it short"),
                (
                    "narrative",
                    Weight::Context,
                    "first line\nthe token format is JWT\nlast",
                ),
                ("ran", Weight::Evidence, "cargo fmt"),
            ],
            0,
        );
        let m = Matcher::new(&q).find(&d).unwrap();
        assert_eq!(m.field, 1);
        assert_eq!(&d.fields[1].text[m.line.clone()], "the token format is JWT");
        assert_eq!(m.fields, vec![1, 0]);
        assert!(m.rank.phrase && m.rank.together);
    }

    #[test]
    fn the_line_maps_back_through_accents() {
        let q = Query::parse("paris").unwrap();
        let text = "Été\nÀ PARIS, l'été\nfin";
        let d = doc(&[("n", Weight::Context, text)], 0);
        let m = Matcher::new(&q).find(&d).unwrap();
        assert_eq!(&text[m.line], "À PARIS, l'été");
    }

    /// The order of documents for a query, by their names.
    fn order(query: &str, docs: &[(&'static str, Document)]) -> Vec<&'static str> {
        let q = Query::parse(query).unwrap();
        let mut matcher = Matcher::new(&q);
        let mut hits: Vec<(&str, Match)> = docs
            .iter()
            .filter_map(|(name, d)| matcher.find(d).map(|m| (*name, m)))
            .collect();
        best_first(&mut hits);
        hits.into_iter().map(|(name, _)| name).collect()
    }

    #[test]
    fn ranking() {
        use Weight::*;
        type Named<'a> = (&'a str, &'a [(&'a str, Weight, &'a str)], i64);
        let cases: &[(&str, &[Named], &[&str])] = &[
            (
                "jwt",
                &[
                    ("evidence", &[("ran", Evidence, "grep jwt src/")], 9),
                    ("decision", &[("decisions", Key, "Use JWT tokens")], 1),
                ],
                &["decision", "evidence"],
            ),
            (
                "token format",
                &[
                    (
                        "scattered",
                        &[
                            ("decisions", Key, "the token is opaque"),
                            ("warnings", Key, "format may change"),
                        ],
                        9,
                    ),
                    ("phrase", &[("ran", Evidence, "check the token format")], 1),
                ],
                &["phrase", "scattered"],
            ),
            (
                "log",
                &[
                    ("fragment", &[("decisions", Key, "fix the login page")], 9),
                    ("whole", &[("ran", Evidence, "handover log")], 1),
                ],
                &["whole", "fragment"],
            ),
            (
                "cache",
                &[
                    ("older", &[("goal", Key, "drop the cache")], 1),
                    ("newer", &[("goal", Key, "the cache again")], 2),
                    ("oldest", &[("goal", Key, "cache it")], 0),
                ],
                &["newer", "older", "oldest"],
            ),
            (
                "token format",
                &[
                    (
                        "apart",
                        &[("narrative", Context, "token here\nformat there")],
                        9,
                    ),
                    ("one line", &[("narrative", Context, "format the token")], 1),
                ],
                &["one line", "apart"],
            ),
        ];
        for (query, docs, want) in cases {
            let docs: Vec<(&str, Document)> = docs
                .iter()
                .map(|(name, fields, time)| (*name, doc(fields, *time)))
                .collect();
            assert_eq!(order(query, &docs), *want, "{query}");
        }
    }

    #[test]
    fn a_hostile_document_is_bounded() {
        let text = "a".repeat(1 << 20);
        let q = Query::parse("aa").unwrap();
        let d = doc(&[("f", Weight::Context, &text)], 0);
        let m = Matcher::new(&q).find(&d).unwrap();
        assert_eq!(m.line, 0..text.len());
        assert_eq!(m.rank.whole_words, 0);
    }
}
