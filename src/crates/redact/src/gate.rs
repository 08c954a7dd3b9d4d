//! Does a value look like a secret? The entropy gate that keeps prose readable: `correcthorse`,
//! `linux-x86_64`, `v1.4.2`, paths and hash digests stay; random-looking strings go.

/// Shannon entropy in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * log2(p)
        })
        .sum()
}

/// Base-2 logarithm of a positive, finite, normal `x` (a frequency above), within a few units
/// in the last place of `f64::log2` and exact at powers of two (so an entropy of exactly 3 bits
/// stays 3). Here rather than `f64::log2` because that one is libm's: it was the only libm
/// function in the hook executables, and loading libm made every hook call map 0.57 MiB more
/// (docs/benchmarks.md, "Peak RSS").
fn log2(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    // x = 2^exponent * m, m in [1/sqrt 2, sqrt 2): ln m from a short, fast-converging series.
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        exponent += 1;
    }
    // ln m = 2 atanh s = 2 (s + s^3/3 + s^5/5 + ...), s = (m - 1) / (m + 1), |s| < 0.172:
    // each term is 34 times smaller than the one before; 12 terms are past f64's precision.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut power = s;
    let mut series = 0.0;
    for k in 0..12 {
        series += power / f64::from(2 * k + 1);
        power *= s2;
    }
    f64::from(exponent) + 2.0 * series * std::f64::consts::LOG2_E
}

/// Characters a token or key value is made of (base64, base64url, hex, separators, and the
/// symbols passwords use).
pub fn is_value_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'_' | b'-'
                | b'+'
                | b'/'
                | b'='
                | b'.'
                | b'~'
                | b'%'
                | b'|'
                | b'!'
                | b'#'
                | b'@'
                | b'^'
                | b'*'
                | b'$'
        )
}

/// `chain_Anvil2_Key`, `SalesResults-1.2`, `DOC_Vector_5_32`, `jjwt-jackson-0.11.2`: an
/// identifier or version made of words and numbers, not a random string. Needs two parts or
/// more: `hunter2` alone is a password.
pub fn is_made_of_words(s: &str) -> bool {
    let parts: Vec<&str> = s.split(['_', '-', '.']).filter(|p| !p.is_empty()).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            let letters = p.trim_end_matches(|c: char| c.is_ascii_digit());
            p.bytes().all(|b| b.is_ascii_digit())
                || (!letters.is_empty()
                    && letters.bytes().all(|b| b.is_ascii_alphabetic())
                    && is_word_like(letters))
        })
}

/// Letters that read as words: `Vector`, `SalesResults`, `requiredCharacteristicTypes`, `qat`,
/// `ALL_CAPS`, `DOC`; not `mrCnsPjmlmmeoIkph`, not `JXQZRWPLMKTVBNHG` (capitals need vowels
/// too: the body of an AWS key id is sixteen of them).
pub fn is_word_like(letters: &str) -> bool {
    if letters.len() <= 4 {
        return true;
    }
    // `AAAAAAAA`, `abababab`: a run of one or two letters is padding, not a word.
    let mut distinct = letters
        .bytes()
        .map(|b| b.to_ascii_lowercase())
        .collect::<Vec<_>>();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() <= 2 {
        return false;
    }
    if letters.bytes().all(|b| b.is_ascii_uppercase()) {
        return vowel_ratio(letters) >= WORD_VOWELS;
    }
    // CamelCase: every piece starts a word and is at least three letters long.
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in letters.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            pieces.push(&letters[start..i]);
            start = i;
        }
    }
    pieces.push(&letters[start..]);
    if pieces.len() == 1 {
        // One lower-case run: English words read about 38 % vowels, random letters 23 %.
        return vowel_ratio(letters) >= WORD_VOWELS;
    }
    let camel = pieces
        .iter()
        .all(|p| p.len() >= 3 && p.bytes().skip(1).all(|b| b.is_ascii_lowercase()));
    camel && vowel_ratio(letters) >= WORD_VOWELS
}

/// The share of vowels (`y` included) from which letters read as words. English words run
/// about 38 % (`Results` 29 %, `Vector` 33 %), random letters 23 % on average.
const WORD_VOWELS: f64 = 0.30;

/// English runs about 38 % vowels; random letters 23 %.
pub fn vowel_ratio(letters: &str) -> f64 {
    let vowels = letters
        .bytes()
        .filter(|b| b"aeiouyAEIOUY".contains(b))
        .count();
    vowels as f64 / letters.len().max(1) as f64
}

struct Classes {
    lower: bool,
    upper: bool,
    digit: bool,
    hex_only: bool,
}

fn classes(s: &str) -> Classes {
    Classes {
        lower: s.bytes().any(|b| b.is_ascii_lowercase()),
        upper: s.bytes().any(|b| b.is_ascii_uppercase()),
        digit: s.bytes().any(|b| b.is_ascii_digit()),
        hex_only: s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'),
    }
}

/// A digest labelled with its algorithm (`sha256:…`, `sha384-…`, `SHA256:…`, `md5=…`): a
/// checksum, a Subresource Integrity value or a key fingerprint, never a credential.
fn is_labelled_digest(s: &str) -> bool {
    let lower = s.get(..7).unwrap_or(s).to_ascii_lowercase();
    ["sha1", "sha224", "sha256", "sha384", "sha512", "md5"]
        .iter()
        .any(|alg| {
            lower
                .strip_prefix(alg)
                .is_some_and(|rest| rest.starts_with([':', '-', '=', '~']))
        })
}

/// `src/auth/token.rs`, `uploads/2f0c…/avatar.png`, `./x`, `~/.config`: a path, not a secret.
/// Base64 has `/` too, but then usually `+` or `=` as well.
fn is_path_like(s: &str) -> bool {
    if s.starts_with(['/', '.', '~']) {
        return true;
    }
    if !s.contains('/') || s.contains(['+', '=']) {
        return false;
    }
    s.split('/').any(|seg| {
        let word = seg.split('.').next().unwrap_or(seg);
        (word.len() >= 3 && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            || seg.rsplit_once('.').is_some_and(|(_, ext)| {
                (1..=4).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_lowercase())
            })
    })
}

/// `1.4.2`, `v2.0.1-rc.1`, `2026-11-23T10:00:00Z`, `20261123.4`: versions and times.
fn is_version_or_time(s: &str) -> bool {
    let body = s.strip_prefix(['v', 'V']).unwrap_or(s);
    body.bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b':' | b'T' | b'Z' | b'+'))
        || body
            .split(['.', '-'])
            .all(|p| p.bytes().all(|b| b.is_ascii_digit()) || p.len() <= 3)
}

/// The common part: made of value characters, long enough, not a path, digest, version or
/// identifier, not a flag or a `$VARIABLE`.
fn plausible(s: &str, min_len: usize) -> bool {
    s.len() >= min_len
        && s.bytes().all(is_value_byte)
        && !s.starts_with("--")
        && !s.starts_with('$')
        && !s.contains("${")
        && !is_made_of_words(s)
        && !s.contains("://")
        && !is_labelled_digest(s)
        && !is_path_like(s)
        && !is_version_or_time(s)
        && !has_placeholder_run(s)
        && !is_public_value(s)
        && !is_package_coordinate(s)
}

/// Identifiers their provider documents as public, and public key material: Stripe object ids
/// and publishable keys (`cus_…`, `pk_live_…`), Google OAuth client ids, age recipients, the
/// base64 body of an SSH public key (`AAAAC3NzaC1lZDI1NTE5…`: the wire format starts with the
/// length and name of the key type, so the encoded prefix names it).
pub fn is_public_value(s: &str) -> bool {
    const PUBLIC_PREFIXES: &[&str] = &[
        "pk_live_", "pk_test_", "cus_", "acct_", "price_", "prod_", "sub_", "pi_", "pm_", "ch_",
        "in_", "evt_", "txn_", "seti_", "card_", "age1",
    ];
    const SSH_KEY_TYPES: &[&str] = &[
        "AAAAB3NzaC1yc2E",            // ssh-rsa
        "AAAAB3NzaC1kc3M",            // ssh-dss
        "AAAAC3NzaC1lZDI1NTE5",       // ssh-ed25519
        "AAAAE2VjZHNhLXNoYTItbmlzdH", // ecdsa-sha2-nistp…
        "AAAAGnNrLXNzaC1lZDI1NTE5",   // sk-ssh-ed25519@openssh.com
        "AAAAInNrLWVjZHNhLXNoYTIt",   // sk-ecdsa-sha2-…@openssh.com
    ];
    PUBLIC_PREFIXES.iter().any(|p| {
        s.strip_prefix(p)
            .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_alphanumeric()))
    }) || SSH_KEY_TYPES.iter().any(|p| s.starts_with(p))
        || s.ends_with(".apps.googleusercontent.com")
}

/// `jjwt-jackson-0.11.2`, `io.jsonwebtoken:jjwt-api:0.12.5`, `left-pad@1.3.0`: a package and
/// its version.
pub fn is_package_coordinate(s: &str) -> bool {
    let Some(cut) = s.rfind(['-', ':', '@']) else {
        return false;
    };
    let (name, version) = (&s[..cut], &s[cut + 1..]);
    let version = version.strip_prefix('v').unwrap_or(version);
    version.contains('.')
        && version.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && version.starts_with(|c: char| c.is_ascii_digit())
        && !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b':' | b'_')
        })
}

/// `xxxxxxxx`, `XXXX-XXXX`, `00000000`, `abcdefghijkl`, `0123456789`, `123123123123`,
/// `<your key>`, `…EXAMPLE`, a value cut short with `...`: placeholders shaped like secrets.
/// A random key holds none of these: six equal characters, ten consecutive ones, or a piece
/// of two or three characters repeated four times come up in well under one in a thousand
/// random keys. (`12345678-ABCD-…`, `123456789…`, nine in a row or fewer, is left to the other
/// tests: gitleaks' own samples of real keys look like that.)
pub fn has_placeholder_run(s: &str) -> bool {
    let b = s.as_bytes();
    let (mut same, mut ascending) = (1, 1);
    for i in 1..b.len() {
        let (prev, cur) = (b[i - 1], b[i]);
        // `A` runs are base64 of zero bytes, as in real keys (`AAAAAAAAAAC7…`).
        same = if cur == prev && cur.is_ascii_alphanumeric() && cur != b'A' {
            same + 1
        } else {
            1
        };
        let next = prev.to_ascii_lowercase().wrapping_add(1);
        ascending = if cur.is_ascii_alphanumeric()
            && prev.is_ascii_alphanumeric()
            && cur.to_ascii_lowercase() == next
        {
            ascending + 1
        } else {
            1
        };
        if same >= 6 || ascending >= 10 {
            return true;
        }
    }
    if repeats_a_short_piece(b) {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    s.ends_with("...")
        || s.ends_with('…')
        || s.contains("EXAMPLE")
        || [
            "placeholder",
            "your_",
            "your-",
            "yourtoken",
            "changeme",
            "redacted",
            "_here",
            "here_",
            "tokenhere",
            "keyhere",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

/// `123123123123`, `abababab`: a piece of one to three characters, four times in a row.
fn repeats_a_short_piece(b: &[u8]) -> bool {
    (2..=3).any(|period| {
        let mut run = 0;
        for i in period..b.len() {
            // One character repeated (`AAAAAAAA`, base64 of zeros) is not a repeated piece.
            let uniform = b[i + 1 - period..=i].iter().all(|&c| c == b[i]);
            run = if b[i] == b[i - period] && b[i].is_ascii_alphanumeric() && !uniform {
                run + 1
            } else {
                0
            };
            if run >= period * 3 {
                return true;
            }
        }
        false
    })
}

/// A value that names code rather than holding a secret: `self.password`, `config.apiKey`,
/// `settings.CLIENT_SECRET`, `var.db_password` (a path of identifiers that read as words), or
/// a variable named like a secret (`password`, `api_key`, `secretKey`). Only for unquoted
/// values: a quoted string is data.
pub fn is_code_reference(value: &str) -> bool {
    let ident = |p: &str| {
        p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && p.split('_').filter(|w| !w.is_empty()).all(|w| {
                let letters = w.trim_end_matches(|c: char| c.is_ascii_digit());
                !letters.is_empty()
                    && letters.bytes().all(|b| b.is_ascii_alphabetic())
                    && is_word_like(letters)
            })
    };
    // A path of identifiers made of letters (digits only at the ends of pieces): tokens with
    // dots (`hvs.CAES…`, `ya29.a0Af…`) mix digits into their letters.
    let path_part = |p: &str| {
        p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && p.len() <= 40
            && p.split('_').filter(|w| !w.is_empty()).all(|w| {
                let letters = w.trim_end_matches(|c: char| c.is_ascii_digit());
                !letters.is_empty() && letters.bytes().all(|b| b.is_ascii_alphabetic())
            })
    };
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() >= 2 {
        return parts.iter().all(|p| path_part(p));
    }
    (ident(value) || value.contains('_') && path_part(value))
        && crate::keywords::key_strength(value) != crate::keywords::KeyStrength::None
}

/// The value of a key that names a secret weakly (`…_KEY`, a provider's name, `sig`): random
/// enough to be a credential. Letters and digits mixed, or a long hex string.
pub fn looks_like_secret(s: &str) -> bool {
    if !plausible(s, 12) {
        return false;
    }
    let c = classes(s);
    if !(c.digit && (c.lower || c.upper)) {
        return false;
    }
    if c.hex_only {
        // Hex: a digest, an id or a key; only long ones are worth redacting by shape.
        return s.len() >= 32;
    }
    entropy(s) >= if s.len() >= 20 { 3.3 } else { 3.0 }
}

/// A value found near a secret word in prose, but after it ("use X for the Stripe account"):
/// must look strongly random, and hex ids (commits, digests, UUIDs) do not count.
pub fn looks_strongly_random(s: &str) -> bool {
    if !plausible(s, 20) {
        return false;
    }
    let c = classes(s);
    !c.hex_only && c.digit && (c.lower || c.upper) && entropy(s) >= 3.8
}

/// No secret word needed at all: 32+ characters with lower, upper and digits, high entropy
/// (a base64 or alphanumeric key). Hex and lower-case-only strings are left to the other rules.
pub fn looks_like_bare_key(s: &str) -> bool {
    if !plausible(s, 32) {
        return false;
    }
    let c = classes(s);
    c.lower && c.upper && c.digit && !c.hex_only && entropy(s) >= 4.2 && mean_run(s) < 1.9
}

/// The mean length of runs of one character class (lower, upper, digit, other): about 1.6 for
/// random base64, longer for identifiers (`SN_id_Gost28147_89_None_KeyMeshing`) and alphabets.
fn mean_run(s: &str) -> f64 {
    let class = |b: u8| match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let bytes = s.as_bytes();
    let runs = 1 + bytes
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    bytes.len() as f64 / runs as f64
}

/// Values that are clearly not secrets: references, placeholders and code.
pub fn value_is_placeholder(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    // Code rather than a secret: a call (`lexer.next()`) or a read from the environment.
    const REFERENCES: &[&str] = &[
        "process.env",
        "os.environ",
        "os.getenv",
        "env::",
        "std::env",
        "getenv",
        "env[",
    ];
    value.starts_with(crate::span::MARK)
        || value.contains('(')
        || value.len() < 3
        || has_placeholder_run(value)
        || is_public_value(value)
        // `access_token=ACCESS_TOKEN`: a constant's name standing in for the value.
        || (value.len() >= 4 && value.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
        || REFERENCES.iter().any(|r| v.starts_with(r))
        || value.starts_with(['$', '<', '{', '[', '&'])
        // `%DB_PASSWORD%` (Windows), `%{password}`, `%(password)s`: a variable.
        || value.starts_with('%')
            && (value.len() > 1 && value.ends_with('%') || value.starts_with("%{") || value.starts_with("%("))
        || value
            .chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.' || c == '•')
        || matches!(
            v.as_str(),
            "true"
                | "false"
                | "yes"
                | "no"
                | "none"
                | "null"
                | "nil"
                | "on"
                | "off"
                | "required"
                | "optional"
                | "redacted"
                | "unset"
                | "empty"
                | "password"
                | "passwd"
                | "pass"
                | "pwd"
                | "secret"
                | "token"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_agrees_with_libm_on_every_frequency_and_is_exact_at_powers_of_two() {
        // Every frequency a string of up to 600 bytes can have.
        for n in 1..=600u32 {
            for c in 1..=n {
                let p = f64::from(c) / f64::from(n);
                let (ours, libm) = (log2(p), p.log2());
                assert!(
                    (ours - libm).abs() <= 4.0 * f64::EPSILON * libm.abs().max(1.0),
                    "log2({c}/{n}): {ours} against libm's {libm}"
                );
            }
        }
        for k in -60..=60 {
            assert_eq!(log2(2f64.powi(k)), f64::from(k));
        }
        // An entropy of exactly 3 bits (eight bytes, each once) is still exactly 3: the
        // gate's `>= 3.0` keeps its verdict.
        assert_eq!(entropy("abcdefgh"), 3.0);
        assert_eq!(entropy("aabbccddeeffgghh"), 3.0);
    }

    #[test]
    fn prose_values_are_not_secrets() {
        for s in [
            "correcthorse",
            "src/auth/token.rs",
            "v1.4.2",
            "2026-11-23T10:00:00Z",
            "sha256:0928b5b7a767c76fb008f86bebb2737f6a6f0fb23c6f5da2cec255404e4fb440",
            "a4c123b1612dd272d1371c17",
            "XXXXXXXXXXXXXXXXXXXX",
            "linux-x86_64",
        ] {
            assert!(!looks_like_secret(s), "{s}");
            assert!(!looks_like_bare_key(s), "{s}");
        }
    }

    #[test]
    fn random_values_are() {
        for s in [
            "hz1h0rncw0lwk21mqtv1trxgo91xsynp",
            "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
            "c8464f0a9653cdb146d1ac0f4e7ca9de",
        ] {
            assert!(looks_like_secret(s), "{s}");
        }
        assert!(looks_like_bare_key("Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB"));
    }
}
