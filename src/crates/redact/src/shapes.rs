//! Tokens recognised by their own shape: a vendor prefix, then a run of characters from a known
//! alphabet, of a known length (after gitleaks' rules, cmd/generate/config/rules/*.go). A prefix
//! must start a word, and a body made of one repeated character (`ghp_xxxx…`) is a placeholder.

use crate::gate::{has_placeholder_run, is_made_of_words, is_word_like};
use crate::needle::Needle;
use crate::span::Span;

/// The alphabet of a token's body.
#[derive(Clone, Copy)]
enum Body {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Za-z0-9_-]`
    Word,
    /// `[A-Za-z0-9_.=-]`
    Dotted,
    /// `[A-Za-z0-9+/=]`
    Base64,
    /// `[A-Za-z0-9+/=_-]`
    Base64Any,
    /// `[A-Za-z0-9%]` (URL-encoded)
    AlnumPercent,
    /// `[0-9a-fA-F]`
    Hex,
    /// `[0-9a-fA-F-]`
    HexDash,
    /// `[A-Z0-9]`
    UpperDigits,
    /// `[A-Z0-9-]`
    UpperDigitsDash,
}

impl Body {
    fn allows(self, b: u8) -> bool {
        match self {
            Body::Alnum => b.is_ascii_alphanumeric(),
            Body::Word => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'),
            Body::Dotted => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'='),
            Body::Base64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
            Body::Base64Any => {
                b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
            }
            Body::AlnumPercent => b.is_ascii_alphanumeric() || b == b'%',
            Body::Hex => b.is_ascii_hexdigit(),
            Body::HexDash => b.is_ascii_hexdigit() || b == b'-',
            Body::UpperDigits => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Body::UpperDigitsDash => b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-',
        }
    }
}

struct Shape {
    kind: &'static str,
    prefixes: &'static [&'static str],
    body: Body,
    min: usize,
    /// The body may not be longer (AWS ids are exactly 16); `usize::MAX` when unbounded.
    max: usize,
    /// The body needs a digit: keeps `sk-some-long-hyphenated-name` a word.
    needs_digit: bool,
}

const fn shape(
    kind: &'static str,
    prefixes: &'static [&'static str],
    body: Body,
    min: usize,
) -> Shape {
    Shape {
        kind,
        prefixes,
        body,
        min,
        max: usize::MAX,
        needs_digit: false,
    }
}

/// The body is exactly `min` long.
const fn exact(s: Shape) -> Shape {
    Shape { max: s.min, ..s }
}

const fn with_digit(s: Shape) -> Shape {
    Shape {
        needs_digit: true,
        ..s
    }
}

use Body::*;

/// Longer prefixes of one family come first (`sk-ant-` before `sk-`): the first match wins.
const SHAPES: &[Shape] = &[
    exact(shape(
        "aws_access_key",
        &["AKIA", "ASIA", "ABIA", "ACCA"],
        UpperDigits,
        16,
    )),
    exact(shape("aws_access_key", &["A3T"], UpperDigits, 17)),
    shape("aws_bedrock_key", &["ABSK"], Base64, 100),
    shape("github_token", &["github_pat_"], Word, 20),
    shape(
        "github_token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        Alnum,
        20,
    ),
    shape(
        "gitlab_token",
        &[
            "glpat-",
            "glptt-",
            "glrt-",
            "gldt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glsoat-",
            "glffct-",
            "glcbt-",
            "GR1348941",
        ],
        Dotted,
        20,
    ),
    shape("gitlab_token", &["_gitlab_session="], Alnum, 32),
    with_digit(shape(
        "api_key",
        &["sk-ant-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"],
        Word,
        20,
    )),
    with_digit(shape(
        "slack_token",
        &[
            "xoxe.xoxb-",
            "xoxe.xoxp-",
            "xoxa-",
            "xoxb-",
            "xoxp-",
            "xoxo-",
            "xoxs-",
            "xoxr-",
            "xoxe-",
            "xapp-",
        ],
        Word,
        10,
    )),
    with_digit(shape(
        "stripe_key",
        &[
            "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_",
        ],
        Alnum,
        10,
    )),
    shape("google_api_key", &["AIza"], Word, 30),
    shape("google_oauth", &["ya29.", "GOCSPX-"], Dotted, 20),
    shape("docker_token", &["dckr_pat_", "dckr_oat_"], Word, 20),
    shape("huggingface_token", &["hf_", "api_org_"], Alnum, 30),
    shape("npm_token", &["npm_"], Alnum, 36),
    shape(
        "pypi_token",
        &["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"],
        Word,
        50,
    ),
    shape("rubygems_token", &["rubygems_"], Hex, 48),
    shape(
        "digitalocean_token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        Hex,
        64,
    ),
    shape("sentry_token", &["sntrys_"], Base64Any, 50),
    shape("sentry_token", &["sntryu_"], Hex, 64),
    shape(
        "shopify_token",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        Hex,
        32,
    ),
    shape("vault_token", &["hvs.", "hvb.", "hvr."], Word, 24),
    shape("heroku_key", &["HRKU-"], Word, 40),
    shape("cloudflare_key", &["v1.0-"], HexDash, 100),
    shape("1password_token", &["ops_eyJ"], Base64, 100),
    shape("1password_key", &["A3-"], UpperDigitsDash, 30),
    shape("age_key", &["AGE-SECRET-KEY-1"], UpperDigits, 50),
    with_digit(shape("airtable_token", &["pat"], Dotted, 70)),
    exact(shape("alibaba_key", &["LTAI"], Alnum, 20)),
    shape("artifactory_key", &["AKCp"], Alnum, 60),
    shape("artifactory_key", &["cmVmd"], Alnum, 55),
    shape("atlassian_token", &["ATATT3"], Dotted, 100),
    shape("clickhouse_key", &["4b1d"], Alnum, 38),
    shape("clojars_token", &["CLOJARS_"], Alnum, 60),
    shape("databricks_token", &["dapi"], HexDash, 32),
    shape(
        "doppler_token",
        &[
            "dp.pt.",
            "dp.st.",
            "dp.ct.",
            "dp.sa.",
            "dp.scim.",
            "dp.audit.",
        ],
        Alnum,
        40,
    ),
    shape(
        "duffel_token",
        &["duffel_test_", "duffel_live_"],
        Dotted,
        40,
    ),
    shape("dynatrace_token", &["dt0c01."], Dotted, 80),
    shape("easypost_token", &["EZAK", "EZTK"], Alnum, 54),
    shape("facebook_token", &["EAAM", "EAAC"], Alnum, 100),
    with_digit(shape(
        "square_token",
        &["EAAA", "sq0atp-", "sq0csp-"],
        Word,
        22,
    )),
    shape(
        "flutterwave_key",
        &["FLWSECK_TEST-", "FLWSECK-", "FLWPUBK_TEST-", "FLWPUBK-"],
        Word,
        12,
    ),
    shape(
        "flyio_token",
        &["fo1_", "fm1a_", "fm1r_", "fm2_"],
        Base64Any,
        40,
    ),
    shape("frameio_token", &["fio-u-"], Dotted, 60),
    shape("grafana_token", &["eyJrIjoi"], Base64, 70),
    shape("grafana_token", &["glc_"], Base64, 32),
    shape("grafana_token", &["glsa_"], Word, 40),
    with_digit(shape("harness_key", &["pat.", "sat."], Dotted, 60)),
    shape("infracost_token", &["ico-"], Alnum, 32),
    shape("intra42_secret", &["s-s4t2ud-", "s-s4t2af-"], Hex, 64),
    shape("linear_key", &["lin_api_"], Alnum, 40),
    exact(shape("mailgun_key", &["key-"], Hex, 32)),
    shape("mapbox_token", &["sk.eyJ"], Dotted, 60),
    shape(
        "newrelic_key",
        &["NRAK-", "NRII-", "NRJS-", "NRAA-"],
        Word,
        19,
    ),
    shape("notion_token", &["ntn_"], Alnum, 40),
    with_digit(shape("notion_token", &["secret_"], Alnum, 43)),
    with_digit(exact(shape("octopus_key", &["API-"], UpperDigits, 26))),
    shape("openshift_token", &["sha256~"], Word, 43),
    shape("perplexity_key", &["pplx-"], Alnum, 48),
    shape(
        "planetscale_token",
        &["pscale_tkn_", "pscale_oauth_", "pscale_pw_"],
        Dotted,
        32,
    ),
    shape("postman_key", &["PMAK-"], HexDash, 59),
    shape("prefect_key", &["pnu_"], Alnum, 36),
    shape("pulumi_token", &["pul-"], Hex, 40),
    shape("readme_key", &["rdme_"], Alnum, 70),
    shape("scalingo_token", &["tk-us-"], Word, 48),
    shape("sendgrid_key", &["SG."], Dotted, 60),
    shape("sendinblue_key", &["xkeysib-"], Word, 80),
    exact(shape(
        "settlemint_token",
        &["sm_aat_", "sm_pat_", "sm_sat_"],
        Alnum,
        16,
    )),
    shape("shippo_token", &["shippo_live_", "shippo_test_"], Hex, 40),
    shape("sourcegraph_token", &["sgp_"], Word, 40),
    exact(shape("twilio_key", &["SK"], Hex, 32)),
    shape(
        "twitter_token",
        &["AAAAAAAAAAAAAAAAAAAAA"],
        AlnumPercent,
        60,
    ),
    shape("typeform_token", &["tfp_"], Dotted, 59),
    shape("yandex_key", &["AQVN"], Word, 35),
    with_digit(exact(shape("yandex_key", &["YC"], Word, 38))),
    with_digit(shape("dropbox_token", &["sl."], Dotted, 100)),
    shape("lob_key", &["live_", "test_"], Hex, 30),
    shape(
        "plaid_token",
        &[
            "access-sandbox-",
            "access-development-",
            "access-production-",
        ],
        HexDash,
        30,
    ),
    shape("dnkey_token", &["dnkey-"], Dotted, 70),
];

/// A token starts a word, and not in the middle of a file name, identifier or base64 blob
/// (`video_box.ico-7a38…png`, `2018-250-xoxo-indieweb-1.jpg`, `…RvfQ+EZAKGqQ…`). After a `/`
/// it may: a branch `fix/ghp_…` or a URL path can hold one.
fn starts_word(text: &[u8], i: usize) -> bool {
    i == 0
        || !(text[i - 1].is_ascii_alphanumeric()
            || matches!(text[i - 1], b'.' | b'-' | b'_' | b'+'))
}

/// Every vendor token in `text`.
pub fn find(text: &str, out: &mut Vec<Span>) {
    infixes(text, out);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !starts_word(bytes, i) {
            i += 1;
            continue;
        }
        match match_at(bytes, i) {
            Some((end, kind)) => {
                out.push(Span::new(i, end, kind));
                i = end;
            }
            None => i += 1,
        }
    }
}

/// The prefixes grouped by their first byte, in table order: a position is compared only with
/// the few prefixes that can start there.
struct Index {
    entries: Vec<(&'static str, &'static Shape)>,
    /// `entries[start[b]..start[b + 1]]` start with byte `b`.
    start: [usize; 257],
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut entries: Vec<(&'static str, &'static Shape)> = SHAPES
            .iter()
            .flat_map(|s| s.prefixes.iter().map(move |p| (*p, s)))
            .collect();
        entries.sort_by_key(|(p, _)| p.as_bytes()[0]); // stable: table order within a byte
        let mut start = [0; 257];
        for (p, _) in &entries {
            start[p.as_bytes()[0] as usize + 1] += 1;
        }
        for b in 0..256 {
            start[b + 1] += start[b];
        }

        Index { entries, start }
    })
}

fn match_at(bytes: &[u8], i: usize) -> Option<(usize, &'static str)> {
    let index = index();
    let b = bytes[i] as usize;
    for &(p, s) in &index.entries[index.start[b]..index.start[b + 1]] {
        if !bytes[i..].starts_with(p.as_bytes()) {
            continue;
        }
        let start = i + p.len();
        let len = bytes[start..]
            .iter()
            .take_while(|&&b| s.body.allows(b))
            .count();
        // A body ending in `.`, `-` or `=` padding is fine, a sentence's full stop is not.
        let len = trim_trailing(&bytes[start..start + len], s.body);
        let body = &bytes[start..start + len];
        // A body followed by `####` or `***` is a token shown masked: what is left is public
        // (Slack's team and user ids).
        let next_ok = bytes
            .get(start + len)
            .is_none_or(|b| !b.is_ascii_alphanumeric() && !matches!(b, b'#' | b'*'));
        let digit_ok = !s.needs_digit || body.iter().any(u8::is_ascii_digit);
        if len >= s.min && len <= s.max && next_ok && digit_ok {
            let text = std::str::from_utf8(body).unwrap_or_default();
            // An AWS key id body is sixteen capitals and digits, words or not (`AKIAJXQZ…`).
            let words =
                s.kind != "aws_access_key" && (reads_as_words(text) || is_made_of_words(text));
            if !has_placeholder_run(text) && !words {
                return Some((start + len, s.kind));
            }
        }
    }
    None
}

fn trim_trailing(body: &[u8], kind: Body) -> usize {
    let mut len = body.len();
    if matches!(kind, Body::Dotted) {
        while len > 0 && body[len - 1] == b'.' {
            len -= 1;
        }
    }
    len
}

/// A letters-only body that reads as words (`hf_requiredCharacteristicTypes…`,
/// `hf_servingcellpriority…`) is an identifier that happens to share a prefix.
fn reads_as_words(body: &str) -> bool {
    body.bytes().all(|b| b.is_ascii_alphabetic()) && body.len() > 4 && is_word_like(body)
}

static INFIXES: [(Needle, &str); 3] = [
    (Needle::new(":A"), "telegram_token"),
    (Needle::new("Q~"), "azure_client_secret"),
    (Needle::new(".atlasv1."), "terraform_token"),
];

/// Tokens whose fixed part is in the middle: Telegram bot tokens (`<bot id>:A<34>`), Azure AD
/// client secrets (`<3><digit>Q~<31..34>`), Terraform Cloud tokens (`<14>.atlasv1.<60..70>`).
fn infixes(text: &str, out: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let count_back = |at: usize, ok: &dyn Fn(u8) -> bool| {
        bytes[..at].iter().rev().take_while(|&&b| ok(b)).count()
    };
    let count_fwd =
        |at: usize, ok: &dyn Fn(u8) -> bool| bytes[at..].iter().take_while(|&&b| ok(b)).count();
    for &(ref needle, kind) in &INFIXES {
        let infix = needle.text();
        let mut from = 0;
        while let Some(i) = needle.find_from(text, from) {
            from = i + infix.len();
            let after = i + infix.len();
            let span = match infix {
                ":A" => {
                    let digits = count_back(i, &|b: u8| b.is_ascii_digit());
                    let body = count_fwd(after, &word);
                    ((5..=16).contains(&digits) && (30..=40).contains(&body))
                        .then(|| (i - digits, after + body))
                }
                "Q~" => {
                    let secret =
                        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'~' | b'.');
                    let before = count_back(i, &secret);
                    let body = count_fwd(after, &|b: u8| secret(b) || b == b'-');
                    let digit_before = i > 0 && bytes[i - 1].is_ascii_digit();
                    // Three characters and a digit, then 31 to 34: gitleaks' bounds.
                    let start = i.saturating_sub(4);
                    let bounded =
                        start == 0 || !secret(bytes[start - 1]) && bytes[start - 1] != b'-';
                    let whole = !bytes.get(after + body).is_some_and(|&b| secret(b));
                    let placeholder = has_placeholder_run(&text[after..after + body]);
                    (before >= 4
                        && digit_before
                        && bounded
                        && whole
                        && !placeholder
                        && (31..=34).contains(&body))
                    .then(|| (start, after + body))
                }
                _ => {
                    let before = count_back(i, &|b: u8| b.is_ascii_alphanumeric());
                    let body = count_fwd(after, &|b: u8| word(b) || b == b'=');
                    let placeholder = has_placeholder_run(&text[i - before..after + body]);
                    (before >= 10 && body >= 40 && !placeholder).then(|| (i - before, after + body))
                }
            };
            if let Some((start, end)) = span {
                out.push(Span::new(start, end, kind));
                from = end;
            }
        }
    }
}
