//! The query: words, all of which must be found (AND), and "quoted phrases", whose words must
//! follow each other with only white space between them (a line break included).
//! Case-insensitive; accents as [`fold`](super::fold) says.

use super::fold::{key_of, Units};
use memchr::memmem::Finder;

/// Longest query, in characters: a search is a few words, and each term costs one pass over
/// the history.
pub const MAX_QUERY_CHARS: usize = 1_000;
/// Most terms in a query (words and phrases).
pub const MAX_TERMS: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing to search for: no words, or only quotes and spaces.
    Empty,
    /// Longer than [`MAX_QUERY_CHARS`].
    TooLong,
    /// More than [`MAX_TERMS`] words and phrases.
    TooManyTerms,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::Empty => write!(f, "the query has no words to search for"),
            QueryError::TooLong => {
                write!(f, "the query is longer than {MAX_QUERY_CHARS} characters")
            }
            QueryError::TooManyTerms => write!(
                f,
                "the query has more than {MAX_TERMS} words and phrases; every one of them must match, so a few are enough"
            ),
        }
    }
}

impl std::error::Error for QueryError {}

/// One word of a term, ready to be searched for.
pub(super) struct Word {
    /// Its key (lowercase, no accents).
    pub key: String,
    pub finder: Finder<'static>,
    /// Its letters with their accents, when it has any: a match must have them too.
    pub accents: Option<Units>,
}

impl Word {
    fn new(text: &str) -> Option<Word> {
        let key = key_of(text);
        if key.is_empty() {
            return None;
        }
        let units = Units::of(text);
        Some(Word {
            finder: Finder::new(key.as_bytes()).into_owned(),
            key,
            accents: units.has_accents().then_some(units),
        })
    }
}

/// A word or a phrase of the query: words that must follow one another.
pub struct Term {
    /// As typed (for messages).
    pub text: String,
    /// Quoted in the query.
    pub quoted: bool,
    pub(super) words: Vec<Word>,
}

impl Term {
    fn new(text: &str, quoted: bool) -> Option<Term> {
        let words: Vec<Word> = text.split_whitespace().filter_map(Word::new).collect();
        (!words.is_empty()).then(|| Term {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            quoted,
            words,
        })
    }
}

/// A parsed query.
pub struct Query {
    pub terms: Vec<Term>,
    /// Every word of an unquoted query of several words, in order, as one phrase: a document
    /// where they follow each other ranks above one where they are scattered. `None` for a
    /// single term.
    pub(super) together: Option<Term>,
}

impl Query {
    /// Splits `input` into words and "quoted phrases" (straight quotes, or “curly” ones); a
    /// quote left open runs to the end. Control characters count as spaces.
    pub fn parse(input: &str) -> Result<Query, QueryError> {
        if input.chars().count() > MAX_QUERY_CHARS {
            return Err(QueryError::TooLong);
        }
        let mut terms: Vec<Term> = Vec::new();
        let mut current = String::new();
        let mut in_quote: Option<char> = None;
        let flush = |text: &mut String, quoted: bool, terms: &mut Vec<Term>| {
            if let Some(term) = Term::new(text, quoted) {
                // The same words in another case are the same term.
                if !terms
                    .iter()
                    .any(|t| t.text.to_lowercase() == term.text.to_lowercase())
                {
                    terms.push(term);
                }
            }
            text.clear();
        };
        for c in input.chars() {
            match (in_quote, c) {
                (None, '"') => {
                    flush(&mut current, false, &mut terms);
                    in_quote = Some('"');
                }
                (None, '“') => {
                    flush(&mut current, false, &mut terms);
                    in_quote = Some('”');
                }
                (Some(close), c) if c == close || (close == '”' && c == '"') => {
                    flush(&mut current, true, &mut terms);
                    in_quote = None;
                }
                (None, c) if c.is_whitespace() || c.is_control() => {
                    flush(&mut current, false, &mut terms);
                }
                (Some(_), c) if c.is_control() => current.push(' '),
                (_, c) => current.push(c),
            }
        }
        flush(&mut current, in_quote.is_some(), &mut terms);
        if terms.is_empty() {
            return Err(QueryError::Empty);
        }
        if terms.len() > MAX_TERMS {
            return Err(QueryError::TooManyTerms);
        }
        let together = (terms.len() > 1)
            .then(|| {
                let all: Vec<&str> = terms.iter().map(|t| t.text.as_str()).collect();
                Term::new(&all.join(" "), false)
            })
            .flatten();
        Ok(Query { terms, together })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The terms of a query as (text, quoted).
    fn terms(input: &str) -> Vec<(String, bool)> {
        Query::parse(input)
            .unwrap()
            .terms
            .iter()
            .map(|t| (t.text.clone(), t.quoted))
            .collect()
    }

    #[test]
    fn words_and_phrases() {
        let cases: &[(&str, &[(&str, bool)])] = &[
            ("token", &[("token", false)]),
            ("  token   format ", &[("token", false), ("format", false)]),
            ("\"token format\"", &[("token format", true)]),
            (
                "jwt \"token  format\" expiry",
                &[("jwt", false), ("token format", true), ("expiry", false)],
            ),
            ("“token format”", &[("token format", true)]),
            ("\"open quote runs on", &[("open quote runs on", true)]),
            ("a\"b c\"d", &[("a", false), ("b c", true), ("d", false)]),
            ("\"one\"", &[("one", true)]),
            ("dup DUP dup", &[("dup", false)]),
            (
                "tab\tand\u{1b}esc",
                &[("tab", false), ("and", false), ("esc", false)],
            ),
            ("ÉTÉ", &[("ÉTÉ", false)]),
        ];
        for (input, want) in cases {
            let want: Vec<(String, bool)> = want.iter().map(|(t, q)| (t.to_string(), *q)).collect();
            assert_eq!(terms(input), want, "{input:?}");
        }
    }

    #[test]
    fn refused_queries() {
        let cases = [
            ("", QueryError::Empty),
            ("   ", QueryError::Empty),
            ("\"\" \"  \"", QueryError::Empty),
            ("\u{301}", QueryError::Empty),
        ];
        for (input, want) in cases {
            assert_eq!(Query::parse(input).err(), Some(want), "{input:?}");
        }
        assert_eq!(
            Query::parse(&"a".repeat(MAX_QUERY_CHARS + 1)).err(),
            Some(QueryError::TooLong)
        );
        let many: Vec<String> = (0..=MAX_TERMS).map(|i| format!("w{i}")).collect();
        assert_eq!(
            Query::parse(&many.join(" ")).err(),
            Some(QueryError::TooManyTerms)
        );
    }

    #[test]
    fn several_terms_are_also_tried_together() {
        let q = Query::parse("token \"format v2\"").unwrap();
        let together = q.together.unwrap();
        assert_eq!(together.text, "token format v2");
        assert_eq!(together.words.len(), 3);
        assert!(Query::parse("token").unwrap().together.is_none());
    }

    #[test]
    fn accented_words_keep_their_accents_to_check() {
        let q = Query::parse("été ete").unwrap();
        assert!(q.terms[0].words[0].accents.is_some());
        assert!(q.terms[1].words[0].accents.is_none());
        assert_eq!(q.terms[0].words[0].key, "ete");
    }
}
