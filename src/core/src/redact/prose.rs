//! Secrets without a key: a random-looking word near a secret word or a provider's name in a
//! sentence ("the Mailgun key is 9f3…", "use Zf3D… for the Stripe sandbox"), and long
//! high-entropy keys on their own. Words are whitespace-separated; quotes and punctuation around
//! a word are not part of it. A sentence or line ends the search for a keyword.

use super::gate::{looks_like_bare_key, looks_like_secret, looks_strongly_random};
use super::keywords::{is_not_a_secret_word, is_prose_keyword, names_provider, names_public};
use super::Span;

/// How many words before a value a keyword may stand ("the Stripe live key is now <v>").
const BEFORE: usize = 4;
/// And a provider's name ("the Algolia API returned 401 for <v>").
const PROVIDER_BEFORE: usize = 6;
/// And after it ("use <v> for the Stripe account").
const AFTER: usize = 4;

struct Word<'a> {
    /// The word without surrounding punctuation, and where that starts and ends.
    core: &'a str,
    start: usize,
    end: usize,
    /// The word ends a sentence or a line: keywords do not reach across it.
    ends_sentence: bool,
    /// The word is a key (`refresh_token1:`, `"1password_api_key":`, `name =`): it names a
    /// value, it is not one.
    is_key: bool,
}

fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut at_line_start = true;
    for raw in text.split_inclusive(char::is_whitespace) {
        let start = pos;
        pos += raw.len();
        let trimmed = raw.trim_end();
        let newline = raw.ends_with('\n');
        let lead = trimmed.len()
            - trimmed
                .trim_start_matches(['(', '"', '\'', '`', '[', '{', '<', '*'])
                .len();
        let body = &trimmed[lead..];
        let core = body.trim_end_matches([
            ')', '"', '\'', '`', ']', '}', '>', ',', ';', ':', '!', '?', '.', '*',
        ]);
        let after = &body[core.len()..];
        let ends_sentence = newline || after.contains(['.', '!', '?', ';']);
        // A key: quoted and followed by a colon (`"refresh_token1":`), or first on its line
        // and followed by one (YAML's `api_token: v`). A value followed by a colon in a
        // sentence ("the key is 9f3…e1: rotate it") is neither.
        let quoted_key = lead > 0
            && matches!(trimmed.as_bytes()[lead - 1], b'"' | b'\'')
            && after.starts_with(['"', '\''])
            && after[1..].starts_with(':');
        let line_key = at_line_start && after.starts_with(':');
        if !trimmed.is_empty() {
            at_line_start = false;
        }
        if newline {
            at_line_start = true;
        }
        out.push(Word {
            core,
            start: start + lead,
            end: start + lead + core.len(),
            ends_sentence,
            is_key: !core.is_empty() && (quoted_key || line_key),
        });
    }
    // `name = value`, `name := value`: the word before the operator is a key.
    for i in 1..out.len() {
        if matches!(out[i].core, "" | "=" | ":=" | "=>" | "?=" | "::=") && out[i].start > 0 {
            let op = text[out[i].start..].split_whitespace().next().unwrap_or("");
            if op.starts_with(['=', ':', '?']) {
                out[i - 1].is_key = true;
            }
        }
    }
    out
}

pub fn find(text: &str, out: &mut Vec<Span>) {
    let words = words(text);
    for (i, w) in words.iter().enumerate() {
        if w.core.is_empty() || w.core.contains(super::MARK) || w.is_key {
            continue;
        }
        // `NAME=value` as one word: the value is the candidate (the name stays readable).
        let (offset, value) = match assigned_value(w.core) {
            Some(v) => (w.core.len() - v.len(), v),
            None => (0, w.core),
        };
        if value.len() < 12 {
            continue; // too short for any rule below
        }
        let after_id_word = || i > 0 && is_not_a_secret_word(words[i - 1].core);
        // `PublicKey = <v>`, `publicKey: "<v>"`: the key says the value is public.
        let public = (1..=2).any(|back| {
            i >= back && names_public(words[i - back].core) && !words[i - back].ends_sentence
        }) || (offset > 0 && names_public(&w.core[..offset]));
        if public {
            continue;
        }
        let near_keyword = keyword_before(&words, i, value)
            || (keyword_after(&words, i, value) && !after_id_word());
        let kind = if near_keyword {
            Some("secret_in_text")
        } else if looks_like_bare_key(value) {
            Some("high_entropy_key")
        } else {
            None
        };
        if let Some(kind) = kind {
            out.push(Span::new(w.start + offset, w.end, kind));
        }
    }
}

/// A keyword before the value: a secret word within [`BEFORE`] words for a value that passes
/// [`looks_like_secret`]; a provider's name also within [`PROVIDER_BEFORE`] words ("the Algolia
/// API returned 401 for <v>"), and for a value that only passes the provider floor
/// ([`passes_provider_floor`]: "the Kucoin key is daa80f…58c5").
fn keyword_before(words: &[Word], i: usize, value: &str) -> bool {
    let secret = looks_like_secret(value);
    let floor = secret || passes_provider_floor(value);
    if !floor {
        return false;
    }
    for back in 1..=PROVIDER_BEFORE.min(i) {
        let w = &words[i - back];
        if w.ends_sentence || is_not_a_secret_word(w.core) {
            return false;
        }
        if w.core.contains(super::MARK) {
            continue; // a redaction names a kind, not this value
        }
        if names_provider(w.core) {
            return true;
        }
        if secret && back <= BEFORE && is_prose_keyword(w.core) {
            return true;
        }
    }
    false
}

/// The entropy floor for a value next to a provider's name: what [`looks_like_secret`] lets
/// through (12+ characters, letters and digits, entropy ≥ 3.0 bits per character, or 3.3 from
/// 20 characters), or hex of 20+ characters that is not a commit or digest length (7–12, 40,
/// 64) — providers' keys without a prefix of their own are often hex.
fn passes_provider_floor(value: &str) -> bool {
    let is_hex = value.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    let digest_length = matches!(value.len(), 7..=12 | 40 | 64);
    looks_like_secret(value) && !is_hex
        || is_hex
            && value.len() >= 20
            && !digest_length
            && value.bytes().any(|b| b.is_ascii_digit())
            && value.bytes().any(|b| b.is_ascii_alphabetic())
}

/// A keyword after the value: any secret word for a strongly random value; a provider's name
/// also for a value that only passes the provider floor ("use fuidbt38o8y686s for the Dropbox
/// account", "I pasted daa80f…58c5 into the Kucoin settings").
fn keyword_after(words: &[Word], i: usize, value: &str) -> bool {
    if words[i].ends_sentence {
        return false;
    }
    let strong = looks_strongly_random(value);
    if !strong && !passes_provider_floor(value) {
        return false;
    }
    for w in words.iter().skip(i + 1).take(AFTER) {
        if is_not_a_secret_word(w.core) {
            return false;
        }
        if w.core.contains(super::MARK) {
            continue; // a redaction names a kind, not this value
        }
        if (strong && is_prose_keyword(w.core)) || names_provider(w.core) {
            return true;
        }
        if w.ends_sentence {
            return false;
        }
    }
    false
}

/// The value of `NAME=value` written as one word, when NAME reads as a name (letters and `_`,
/// `.`, `-`, digits only at its ends: `1PASSWORD_TOKEN`). Base64 padding (`…==`) is not an
/// assignment.
fn assigned_value(word: &str) -> Option<&str> {
    let (name, value) = word.split_once('=')?;
    let letters = name.trim_matches(|c: char| c.is_ascii_digit());
    let is_name = letters.starts_with(|c: char| c.is_ascii_alphabetic())
        && letters
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'.' | b'-'));
    (is_name && !value.is_empty() && !value.starts_with('=')).then_some(value)
}
