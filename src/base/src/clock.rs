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

pub fn unix_now() -> (u64, u32) {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs(), d.subsec_nanos())
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
}
