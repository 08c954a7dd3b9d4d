//! Wall-clock timestamps in RFC 3339 (UTC), without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_rfc3339() -> String {
    format_rfc3339(unix_now().0)
}

/// Now, as a file-name-safe stamp with sub-second precision: `20261122T021451.123456789Z`.
/// Archive names sort chronologically by this stamp.
pub fn now_compact() -> String {
    let (secs, nanos) = unix_now();
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}.{nanos:09}Z")
}

/// Milliseconds since the epoch of `t` (0 before the epoch).
pub fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Now, as seconds and nanoseconds since the epoch: the clock every stamp above reads (moved by
/// [`TEST_SHIFT_VAR`] in a debug build).
pub fn unix_now() -> (u64, u32) {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (
        d.as_secs().saturating_add_signed(test_shift_secs()),
        d.subsec_nanos(),
    )
}

/// `HANDOVER_TEST_CLOCK_SHIFT=<seconds>` (signed: `-2` is two seconds ago) moves [`unix_now`],
/// and so every stamp of this module (a handoff's `created_at`, an archive's name, the
/// journal's times), by that many seconds: a test dates two handoffs a second apart without
/// sleeping until the seconds-resolution stamp ticks. Read only by debug builds (the tests'):
/// a release build, what a user installs, never looks at it. Safe even where it is read: an
/// environment variable comes from whoever starts the process (the user, their client), never
/// from a repository's content, and the shift is bounded by [`MAX_TEST_SHIFT_SECS`].
pub const TEST_SHIFT_VAR: &str = "HANDOVER_TEST_CLOCK_SHIFT";

/// The largest shift [`TEST_SHIFT_VAR`] is taken for, either way: a test needs seconds.
pub const MAX_TEST_SHIFT_SECS: i64 = 3600;

#[cfg(debug_assertions)]
fn test_shift_secs() -> i64 {
    test_shift_of(std::env::var(TEST_SHIFT_VAR).ok().as_deref())
}

#[cfg(not(debug_assertions))]
fn test_shift_secs() -> i64 {
    0
}

/// The shift a value of [`TEST_SHIFT_VAR`] asks for: 0 unless it is a whole number of seconds
/// within [`MAX_TEST_SHIFT_SECS`].
#[cfg(any(debug_assertions, test))]
fn test_shift_of(value: Option<&str>) -> i64 {
    value
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|s| s.abs() <= MAX_TEST_SHIFT_SECS)
        .unwrap_or(0)
}

/// Seconds since the epoch as a file-name-safe stamp to the second: `20261122T021500Z`.
pub fn format_compact(secs: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

pub fn format_rfc3339(secs: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC, as the clients write their timestamps) →
/// milliseconds since the Unix epoch; None for anything else.
pub fn parse_rfc3339_ms(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { text.get(r)?.parse().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let rest = &text[19..];
    let (fraction, zone) = match rest.strip_prefix('.') {
        Some(f) => {
            let digits = f.chars().take_while(char::is_ascii_digit).count();
            (&f[..digits], &f[digits..])
        }
        None => ("", rest),
    };
    if zone != "Z"
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || s > 60
    {
        return None;
    }
    let ms: i64 = format!("{fraction:0<3}")[..3].parse().ok()?;
    // Howard Hinnant's days-from-civil.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if mo > 2 { mo - 3 } else { mo + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let total = ((days * 24 + h) * 60 + mi) * 60 + s;
    u64::try_from(total * 1000 + ms).ok()
}

/// Seconds since the epoch → (year, month, day, hour, minute, second), proleptic Gregorian.
/// Howard Hinnant's days-from-civil algorithm, inverted.
fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (leap day) 12:34:56
        assert_eq!(format_rfc3339(951_827_696), "2000-02-29T12:34:56Z");
        // 2026-11-22T02:14:51Z
        assert_eq!(format_rfc3339(1_795_313_691), "2026-11-22T02:14:51Z");
        assert_eq!(format_compact(1_795_314_065), "20261122T022105Z");
        assert_eq!(format_compact(0), "19700101T000000Z");
    }

    #[test]
    fn parses_what_it_formats_and_the_clients_timestamps() {
        for secs in [0, 951_827_696, 1_795_313_691] {
            assert_eq!(parse_rfc3339_ms(&format_rfc3339(secs)), Some(secs * 1000));
        }
        assert_eq!(
            parse_rfc3339_ms("2026-11-22T02:28:27.851Z"),
            Some(1_795_314_507_851)
        );
        assert_eq!(
            parse_rfc3339_ms("2026-11-22T02:28:27.8Z"),
            Some(1_795_314_507_800)
        );
        assert_eq!(parse_rfc3339_ms("2026-11-22T02:28:27+01:00"), None);
        assert_eq!(parse_rfc3339_ms("yesterday"), None);
    }

    #[test]
    fn the_test_shift_is_whole_seconds_within_its_bound() {
        assert_eq!(test_shift_of(None), 0);
        assert_eq!(test_shift_of(Some("-2")), -2);
        assert_eq!(test_shift_of(Some(" 3 ")), 3);
        assert_eq!(test_shift_of(Some("3600")), 3600);
        assert_eq!(test_shift_of(Some("-3601")), 0, "past the bound");
        assert_eq!(test_shift_of(Some("1.5")), 0);
        assert_eq!(test_shift_of(Some("soon")), 0);
    }
}
