//! Full-text search over documents made of named fields, whatever they come from (a handoff,
//! a session record): a [`Query`] of words, all of which must match (AND), and "quoted
//! phrases"; matching that ignores case and treats accents as a person would (an accented
//! query word matches that accented word in any case, `ÉTÉ` finds `été`; an unaccented one
//! matches with or without accents, `ete` finds `été` too); documents ranked ([`Rank`]) and the
//! line of each hit cut to a bound with its matches marked ([`snippet`]).
//!
//! Pure: no files, no redaction, no display. The caller builds [`Document`]s, runs a
//! [`Matcher`] over them, sorts with [`best_first`], and for each hit shown redacts and
//! sanitizes its line first, then marks it with [`snippet`] (a match inside a secret is then
//! gone, and so is the hit).
//!
//! Fast by construction: each document is folded once (lowercase, accents off; ASCII text by
//! a byte loop), and each term is one SIMD substring search over the whole document before
//! anything else is looked at. No regular expressions.

mod accents;
mod fold;
mod prefilter;
mod query;
mod rank;
mod snippet;

pub use self::prefilter::Prefilter;
pub use self::query::{Query, QueryError, Term, MAX_QUERY_CHARS, MAX_TERMS};
pub use self::rank::{best_first, Document, Field, Match, Matcher, Rank, Weight};
pub use self::snippet::{snippet, Snippet, MARK_CLOSE, MARK_OPEN};
