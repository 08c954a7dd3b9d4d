//! Secrets without a key: a random-looking word near a secret word or a provider's name in a
//! sentence ("the Mailgun key is 9f3…", "use Zf3D… for the Stripe sandbox"), and long
//! high-entropy keys on their own. Words are whitespace-separated; quotes and punctuation around
//! a word are not part of it. A sentence or line ends the search for a keyword.

use crate::gate::{looks_like_bare_key, looks_like_secret, looks_strongly_random};
use crate::keywords::{is_not_a_secret_word, is_prose_keyword, names_provider, names_public};
use crate::span::Span;

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

/// What a word says about a value near it; computed once per word, when first needed.
#[derive(Clone, Copy, Default)]
struct Says {
    /// `id`, `hash`, `commit`, …: the value is something else.
    not_a_secret: bool,
    /// A provider's name.
    provider: bool,
    /// A secret word or a key naming a secret.
    keyword: bool,
    /// A key naming something public (`publicKey`).
    public: bool,
    /// A `[REDACTED:…]` marker: says nothing about this value.
    marker: bool,
}

struct Context<'a> {
    words: Vec<Word<'a>>,
    says: Vec<Option<Says>>,
}

impl Context<'_> {
    fn says(&mut self, k: usize) -> Says {
        if let Some(s) = self.says[k] {
            return s;
        }
        let core = self.words[k].core;
        let s = if core.contains(crate::span::MARK) {
            Says {
                marker: true,
                ..Says::default()
            }
        } else {
            Says {
                not_a_secret: is_not_a_secret_word(core),
                provider: names_provider(core),
                keyword: is_prose_keyword(core),
                public: names_public(core),
                marker: false,
            }
        };
        self.says[k] = Some(s);
        s
    }
}

/// How a candidate value looks, judged once.
struct Looks {
    /// Passes the entropy gate ([`looks_like_secret`]).
    secret: bool,
    /// Passes the entropy gate or the provider floor: enough before a provider's name.
    floor: bool,
    /// Passes the provider floor ([`passes_provider_floor`]): enough after a provider's name,
    /// where a commit id ("commit <40 hex> broke the GitHub login") must not count.
    floor_after: bool,
    /// Strongly random ([`looks_strongly_random`]).
    strong: bool,
}

pub fn find(text: &str, out: &mut Vec<Span>) {
    let words = words(text);
    let mut cx = Context {
        says: vec![None; words.len()],
        words,
    };
    for i in 0..cx.words.len() {
        let w = &cx.words[i];
        if w.core.is_empty() || w.core.contains(crate::span::MARK) || w.is_key {
            continue;
        }
        let (core, start, end) = (w.core, w.start, w.end);
        // `NAME=value` as one word: the value is the candidate (the name stays readable).
        let (offset, value) = match assigned_value(core) {
            Some(v) => (core.len() - v.len(), v),
            None => (0, core),
        };
        // Every rule below wants 12+ characters with letters and digits: most words stop here.
        if value.len() < 12
            || !value.bytes().any(|b| b.is_ascii_digit())
            || !value.bytes().any(|b| b.is_ascii_alphabetic())
        {
            continue;
        }
        let secret = looks_like_secret(value);
        let floor_after = passes_provider_floor(value);
        let looks = Looks {
            secret,
            floor: secret || floor_after,
            floor_after,
            strong: looks_strongly_random(value),
        };
        let after_id_word = |cx: &mut Context| i > 0 && cx.says(i - 1).not_a_secret;
        let near_keyword = keyword_before(&mut cx, i, &looks)
            || (keyword_after(&mut cx, i, &looks) && !after_id_word(&mut cx));
        let kind = if near_keyword {
            "secret_in_text"
        } else if looks_like_bare_key(value) {
            "high_entropy_key"
        } else {
            continue;
        };
        // `PublicKey = <v>`, `publicKey: "<v>"`: the key says the value is public.
        let public = (1..=2)
            .any(|back| i >= back && !cx.words[i - back].ends_sentence && cx.says(i - back).public)
            || (offset > 0 && names_public(&core[..offset]));
        if !public {
            out.push(Span::new(start + offset, end, kind));
        }
    }
}

/// A keyword before the value: a secret word within [`BEFORE`] words for a value that passes
/// [`looks_like_secret`]; a provider's name also within [`PROVIDER_BEFORE`] words ("the Algolia
/// API returned 401 for <v>"), and for a value that only passes the provider floor
/// ([`passes_provider_floor`]: "the Kucoin key is daa80f…58c5").
fn keyword_before(cx: &mut Context, i: usize, looks: &Looks) -> bool {
    if !looks.floor {
        return false;
    }
    for back in 1..=PROVIDER_BEFORE.min(i) {
        if cx.words[i - back].ends_sentence {
            return false;
        }
        let says = cx.says(i - back);
        if says.not_a_secret {
            return false;
        }
        if says.marker {
            continue; // a redaction names a kind, not this value
        }
        if says.provider || looks.secret && back <= BEFORE && says.keyword {
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
    if is_hex {
        value.len() >= 20
            && !digest_length
            && value.bytes().any(|b| b.is_ascii_digit())
            && value.bytes().any(|b| b.is_ascii_alphabetic())
    } else {
        looks_like_secret(value)
    }
}

/// A keyword after the value: any secret word for a strongly random value; a provider's name
/// also for a value that only passes the provider floor ("use fuidbt38o8y686s for the Dropbox
/// account", "I pasted daa80f…58c5 into the Kucoin settings").
fn keyword_after(cx: &mut Context, i: usize, looks: &Looks) -> bool {
    if cx.words[i].ends_sentence || !looks.strong && !looks.floor_after {
        return false;
    }
    for k in i + 1..(i + 1 + AFTER).min(cx.words.len()) {
        let says = cx.says(k);
        if says.not_a_secret {
            return false;
        }
        if says.marker {
            continue; // a redaction names a kind, not this value
        }
        if looks.strong && says.keyword || says.provider {
            return true;
        }
        if cx.words[k].ends_sentence {
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
