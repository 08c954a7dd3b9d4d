//! A test on a file's raw bytes, before it is parsed: can it hold a hit for the query at all?
//! Search reads thousands of stored handoffs and records to find the few that match; parsing,
//! checking and labelling each one costs far more than looking at its bytes, so a file that
//! cannot match is skipped unparsed ([`Prefilter::may_match`]) and only the candidates go the
//! full way (parsed, checked, redacted, matched exactly as before). Same hits either way.
//!
//! Why a skipped file cannot match: a term matches when each of its words' keys (lowercase,
//! accents off) is found in a field's key. For a file of plain ASCII (and the few [`SYMBOLS`]),
//! whose only escapes are `\"`, `\\` and `\/`, every field is a JSON string of the file as
//! written but for those escapes, which stand for characters that are no letter or digit (no
//! `\u` escapes, no controls to strip, nothing to fold but case), or our own text around them (`" — "`, `"(alternatives: "`, `"(exit "`),
//! or a redaction marker put in at read (`[REDACTED:github_token]`). So each ASCII letter-and-
//! digit run of a word's key is in the file's lowercased bytes, unless it could come from our
//! own text or a marker: such a run is not used to skip. Any other file (another escape,
//! another character past ASCII, DEL) is a candidate: folding, escapes and control stripping can
//! make its text.
//!
//! A quoted phrase of plain words goes further ([`Phrase`]): its words must follow one another
//! in the bytes, white space between them, so a file that holds them only apart is skipped even
//! when one of them is a marker's word (`token` in `"token format"`).

use super::query::Query;
use memchr::memmem::Finder;

/// Characters past ASCII that a file may hold and still be skipped: symbols handover writes
/// itself (`⏎` for a line break in a record, `…` where text was cut) and common punctuation.
/// Each folds to itself (no letter or digit) and no sanitizing removes it
/// (`tests::the_symbols_make_no_word_and_stay`).
const SYMBOLS: &[char] = &[
    '⏎', '—', '–', '…', '«', '»', '“', '”', '‘', '’', '·', '→', '•',
];

/// Words our own text puts into a field (`handover_recall::item`'s fields): a run found in one
/// of them may come from us, not the file.
const OUR_WORDS: &[&str] = &["alternatives", "exit"];

/// Every kind a redaction marker can name (`[REDACTED:<kind>]`, handover_redact), and the
/// marker's own word: a run found in one of them may come from a redaction made at read.
/// `tests::every_kind_the_redactor_names_is_listed` checks this against the redactor's sources.
pub(super) const MARKER_WORDS: &[&str] = &[
    "redacted",
    "jwt",
    "1password_api_key",
    "1password_key",
    "1password_token",
    "age_key",
    "airtable_token",
    "alibaba_key",
    "api_key",
    "artifactory_key",
    "atlassian_token",
    "aws_access_key",
    "aws_bedrock_key",
    "azure_client_secret",
    "bearer_token",
    "clickhouse_key",
    "clojars_token",
    "cloudflare_key",
    "databricks_token",
    "digitalocean_token",
    "dnkey_token",
    "docker_token",
    "doppler_token",
    "dropbox_token",
    "duffel_token",
    "dynatrace_token",
    "easypost_token",
    "facebook_token",
    "flutterwave_key",
    "flyio_token",
    "frameio_token",
    "github_token",
    "gitlab_token",
    "google_api_key",
    "google_oauth",
    "grafana_token",
    "harness_key",
    "heroku_key",
    "high_entropy_key",
    "huggingface_token",
    "infracost_token",
    "intra42_secret",
    "linear_key",
    "lob_key",
    "mailgun_key",
    "mapbox_token",
    "newrelic_key",
    "notion_token",
    "npm_token",
    "octopus_key",
    "openshift_token",
    "perplexity_key",
    "plaid_token",
    "planetscale_token",
    "postman_key",
    "prefect_key",
    "private_key",
    "pulumi_token",
    "pypi_token",
    "readme_key",
    "refresh_token",
    "rubygems_token",
    "scalingo_token",
    "secret_assignment",
    "secret_in_text",
    "sendgrid_key",
    "sendinblue_key",
    "sentry_token",
    "settlemint_token",
    "shippo_token",
    "shopify_token",
    "slack_token",
    "sourcegraph_token",
    "square_token",
    "stripe_key",
    "telegram_token",
    "terraform_token",
    "twilio_key",
    "twitter_token",
    "typeform_token",
    "url_password",
    "vault_token",
    "webhook_url",
    "yandex_key",
];

/// The runs of a query a file must hold (lowercased) to be worth parsing.
pub struct Prefilter {
    needles: Vec<Finder<'static>>,
    /// Quoted phrases of words that are letters and digits only: their words must follow one
    /// another in the file's lowercased bytes, white space between them ([`Phrase`]).
    phrases: Vec<Phrase>,
}

/// A phrase a file must hold as it is written: each word, then white space, then the next.
///
/// Why a file without it cannot match the phrase: a phrase matches where each word's key
/// follows the one before after white space only. With every word made of ASCII letters and
/// digits, none of that can come from outside the file's own text: a redaction marker
/// (`[REDACTED:kind]`) is neither preceded nor followed by white space inside its brackets, and
/// our own text puts white space after a letter or digit only in `(exit N`, which a word found
/// inside `exit` or `alternatives` leaves to the per-word rule. So the words and the white
/// space between them are the file's text, which in a plain file is its bytes (the escapes
/// `\"`, `\\`, `\/` make neither), lowercased.
struct Phrase {
    first: Finder<'static>,
    rest: Vec<Vec<u8>>,
}

impl Phrase {
    /// The phrase of a quoted term, when its words allow the rule.
    fn of(words: &[&str]) -> Option<Phrase> {
        let usable = |w: &&str| {
            !w.is_empty()
                && w.bytes().all(|b| b.is_ascii_alphanumeric())
                && !OUR_WORDS.iter().any(|ours| ours.contains(*w))
        };
        if words.len() < 2 || !words.iter().all(usable) {
            return None;
        }
        let (first, rest) = words.split_first()?;
        Some(Phrase {
            first: Finder::new(first.as_bytes()).into_owned(),
            rest: rest.iter().map(|w| w.as_bytes().to_vec()).collect(),
        })
    }

    /// Whether `lower` holds the phrase: its first word, then for each next word at least one
    /// white space byte and the word.
    fn in_bytes(&self, lower: &[u8]) -> bool {
        let first_len = self.first.needle().len();
        self.first.find_iter(lower).any(|start| {
            let mut at = start + first_len;
            self.rest.iter().all(|word| {
                let rest = lower.get(at..).unwrap_or_default();
                let gap = rest
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace() || **b == 0x0b)
                    .count();
                let follows = gap > 0 && rest.get(gap..).is_some_and(|r| r.starts_with(word));
                at += gap + word.len();
                follows
            })
        })
    }
}

impl Prefilter {
    pub fn of(query: &Query) -> Prefilter {
        let mut needles: Vec<String> = Vec::new();
        for term in &query.terms {
            for word in &term.words {
                for run in word.key.split(|c: char| !c.is_ascii_alphanumeric()) {
                    let ours = OUR_WORDS
                        .iter()
                        .chain(MARKER_WORDS)
                        .any(|w| w.contains(run));
                    if !run.is_empty() && !ours && !needles.iter().any(|n| n == run) {
                        needles.push(run.to_string());
                    }
                }
            }
        }
        let phrases = query
            .terms
            .iter()
            .filter(|term| term.quoted)
            .filter_map(|term| {
                let words: Vec<&str> = term.words.iter().map(|w| w.key.as_str()).collect();
                Phrase::of(&words)
            })
            .collect();
        Prefilter {
            needles: needles
                .iter()
                .map(|n| Finder::new(n.as_bytes()).into_owned())
                .collect(),
            phrases,
        }
    }

    /// Nothing can be skipped: every file is a candidate.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty() && self.phrases.is_empty()
    }

    /// False only when the file's bytes cannot hold a hit (see the module's comment).
    pub fn may_match(&self, bytes: &[u8]) -> bool {
        if self.is_empty() {
            return true;
        }
        if !plain(bytes) {
            return true;
        }
        let lower = bytes.to_ascii_lowercase();
        self.needles.iter().all(|n| n.find(&lower).is_some())
            && self.phrases.iter().all(|p| p.in_bytes(&lower))
    }
}

/// ASCII but DEL, the [`SYMBOLS`], and no escape but `\"`, `\\`, `\/`.
fn plain(bytes: &[u8]) -> bool {
    // Nearly every file is ASCII: checked a word at a time, then only its backslashes looked
    // at, instead of every byte.
    if bytes.is_ascii() {
        return memchr::memchr(0x7f, bytes).is_none() && escapes_are_plain(bytes);
    }
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'\\' => {
                if !matches!(bytes.get(at + 1), Some(b'"' | b'\\' | b'/')) {
                    return false;
                }
                at += 2;
            }
            0x7f => return false,
            0..=0x7e => at += 1,
            _ => {
                let len = match b {
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    0xf0..=0xf7 => 4,
                    _ => return false,
                };
                let symbol = bytes
                    .get(at..at + len)
                    .and_then(|c| std::str::from_utf8(c).ok())
                    .and_then(|c| c.chars().next())
                    .is_some_and(|c| SYMBOLS.contains(&c));
                if !symbol {
                    return false;
                }
                at += len;
            }
        }
    }
    true
}

/// Every backslash of `bytes` starts `\"`, `\\` or `\/`.
fn escapes_are_plain(bytes: &[u8]) -> bool {
    let mut from = 0;
    while let Some(found) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\\', rest))
    {
        let at = from + found;
        if !matches!(bytes.get(at + 1), Some(b'"' | b'\\' | b'/')) {
            return false;
        }
        from = at + 2;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn may(query: &str, text: &str) -> bool {
        Prefilter::of(&Query::parse(query).unwrap()).may_match(text.as_bytes())
    }

    #[test]
    fn only_a_plain_ascii_file_without_the_words_is_skipped() {
        assert!(may("Tokenizer", r#"{"goal": "Replace the TOKENIZER"}"#));
        assert!(!may("tokenizer", r#"{"goal": "Replace the parser"}"#));
        assert!(!may("tokenizer parser", r#"{"goal": "the parser"}"#));
        assert!(!may("\"token format\"", r#"{"goal": "the date formula"}"#));
        // The escapes and symbols that make no word: skipped.
        assert!(!may(
            "tokenizer",
            r#"{"command": "wc -l \"$f\" ⏎ done — \\n…"}"#
        ));
        assert!(may(
            "tokenizer",
            r#"{"command": "wc -l \"tokenizer\" ⏎ done"}"#
        ));
        // Another escape, another byte past ASCII, DEL: parsed, whatever the words.
        assert!(may("tokenizer", r#"{"goal": "tok\u0065nizer"}"#));
        assert!(may("tokenizer", r#"{"goal": "tok\benizer"}"#));
        assert!(may("tokenizer", "{\"goal\": \"to\u{301}kenizer\"}"));
        assert!(may("tokenizer", "{\"goal\": \"tok\u{200b}enizer\"}"));
        assert!(may("ete", r#"{"goal": "été"}"#));
        assert!(may("tokenizer", "{\"goal\": \"x\u{7f}\"}"));
        // Words our text or a redaction marker can hold never skip a file.
        assert!(may("exit", r#"{"command": "make"}"#));
        assert!(may("token", r#"{"request": "ghp_secret"}"#));
        assert!(may("redacted", "{}"));
    }

    #[test]
    fn a_phrase_skips_a_file_where_its_words_are_only_apart() {
        let apart = r#"{"goal": "the token is in the format", "why": "format token"}"#;
        assert!(!may("\"token format\"", apart));
        // Its words alone still need only be somewhere.
        assert!(may("token format", apart));
        // Any case, any white space between the words, inside longer words at the ends.
        assert!(may("\"token format\"", r#"{"goal": "the TOKEN   Format"}"#));
        assert!(may("\"token format\"", r#"{"goal": "mytoken formats"}"#));
        assert!(may(
            "\"the token format\"",
            r#"{"goal": "The Token Format"}"#
        ));
        assert!(!may(
            "\"the token format\"",
            r#"{"goal": "the tokenformat"}"#
        ));
        // Found only once escapes are read or letters folded: parsed.
        assert!(may("\"token format\"", r#"{"goal": "token\nformat"}"#));
        assert!(may("\"token format\"", r#"{"goal": "token\u0020format"}"#));
        assert!(may("\"token format\"", "{\"goal\": \"TOKÉN format\"}"));
        assert!(may(
            "\"token format\"",
            "{\"goal\": \"to\u{301}ken format\"}"
        ));
        // A word our own text may hold next to white space (`(exit 101, failed)`): the
        // phrase is not used, its other words are.
        assert!(may(
            "\"exit 101\"",
            r#"{"command": "make", "exit_code": 101}"#
        ));
        assert!(!may(
            "\"exit 101\"",
            r#"{"command": "make", "exit_code": 2}"#
        ));
    }

    #[test]
    fn the_symbols_make_no_word_and_stay() {
        for c in SYMBOLS {
            let text = c.to_string();
            assert!(!c.is_ascii() && !c.is_alphanumeric(), "{c}");
            assert_eq!(super::super::fold::key_of(&text), text, "{c}");
            assert_eq!(
                handover_handoff::sanitize::strip_controls(&text),
                text,
                "{c}"
            );
            assert_eq!(handover_handoff::sanitize::one_line(&text), text, "{c}");
        }
    }

    /// Every kind the redactor can name in a marker is a string literal of its sources; each
    /// literal shaped like a kind (`lower_snake_case`) is listed, or found inside one that is.
    #[test]
    fn every_kind_the_redactor_names_is_listed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../redact/src");
        let mut missing = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            // The detectors, not their tests' samples.
            let code: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            for literal in code.split('"').skip(1).step_by(2) {
                let kind_shaped = literal.contains('_')
                    && !literal.starts_with('_')
                    && !literal.ends_with('_')
                    && literal
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                    && !literal.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
                if kind_shaped && !MARKER_WORDS.iter().any(|w| w.contains(literal)) {
                    missing.push(literal.to_string());
                }
            }
        }
        assert!(missing.is_empty(), "add to MARKER_WORDS: {missing:?}");
    }
}
