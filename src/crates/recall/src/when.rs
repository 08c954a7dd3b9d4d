//! Times for people and for filters: "3 hours ago", and `--since`/`--until` values ("2 days",
//! "yesterday", "2026-11-20", an RFC 3339 time).

const SECOND: u64 = 1000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// `then_ms` relative to `now_ms`, for people: "just now", "5 minutes ago", "3 hours ago",
/// "yesterday", "4 days ago", and the date itself past 30 days (or for a time in the future
/// or unknown).
pub fn relative(then_ms: u64, now_ms: u64) -> String {
    if then_ms == 0 {
        return "at an unknown time".to_string();
    }
    let Some(ago) = now_ms.checked_sub(then_ms) else {
        return date(then_ms);
    };
    let plural = |n: u64, unit: &str| {
        if n == 1 {
            format!("1 {unit} ago")
        } else {
            format!("{n} {unit}s ago")
        }
    };
    match ago {
        a if a < MINUTE => "just now".to_string(),
        a if a < HOUR => plural(a / MINUTE, "minute"),
        a if a < DAY => plural(a / HOUR, "hour"),
        a if a < 2 * DAY => "yesterday".to_string(),
        a if a <= 30 * DAY => plural(a / DAY, "day"),
        _ => date(then_ms),
    }
}

/// `2026-11-20`.
pub fn date(ms: u64) -> String {
    let full = handover_base::clock::format_rfc3339(ms / 1000);
    full.get(..10).unwrap_or(&full).to_string()
}

/// RFC 3339 to the second, UTC.
pub fn rfc3339(ms: u64) -> String {
    handover_base::clock::format_rfc3339(ms / 1000)
}

/// A `--since`/`--until` value as milliseconds since the epoch: a duration back from now
/// ("2 days", "3h", "90 minutes ago", "1 week"), `today`, `yesterday`, a date (`2026-11-20`,
/// its midnight UTC) or an RFC 3339 time. The error says what is accepted.
pub fn parse_moment(text: &str, now_ms: u64) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let midnight = now_ms - now_ms % DAY;
    match t.as_str() {
        "now" => return Ok(now_ms),
        "today" => return Ok(midnight),
        "yesterday" => return Ok(midnight.saturating_sub(DAY)),
        _ => {}
    }
    if let Some(ms) = handover_base::clock::parse_rfc3339_ms(text.trim()) {
        return Ok(ms);
    }
    if t.len() == 10 {
        if let Some(ms) = handover_base::clock::parse_rfc3339_ms(&format!("{t}T00:00:00Z")) {
            return Ok(ms);
        }
    }
    if let Some(back) = duration_ms(&t) {
        return Ok(now_ms.saturating_sub(back));
    }
    Err(format!(
        "cannot read the time {}: give a duration back from now (`2 days`, `3h`, `90 minutes`, `1 week`), `today`, `yesterday`, a date (`2026-11-20`) or an RFC 3339 time (`2026-11-20T14:00:00Z`)",
        handover_handoff::sanitize::quote(text)
    ))
}

/// "2 days", "2days", "3h", "90 minutes ago": the number, then the unit.
fn duration_ms(t: &str) -> Option<u64> {
    let t = t.strip_suffix("ago").unwrap_or(t).trim();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = t[..digits].parse().ok()?;
    let unit = match t[digits..].trim() {
        "s" | "sec" | "secs" | "second" | "seconds" => SECOND,
        "m" | "min" | "mins" | "minute" | "minutes" => MINUTE,
        "h" | "hr" | "hrs" | "hour" | "hours" => HOUR,
        "d" | "day" | "days" => DAY,
        "w" | "week" | "weeks" => 7 * DAY,
        _ => return None,
    };
    n.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_795_939_200_000; // 2026-11-29T08:00:00Z

    #[test]
    fn relative_times_read_like_a_person_would_say_them() {
        assert_eq!(relative(NOW - 10 * SECOND, NOW), "just now");
        assert_eq!(relative(NOW - MINUTE, NOW), "1 minute ago");
        assert_eq!(relative(NOW - 3 * HOUR, NOW), "3 hours ago");
        assert_eq!(relative(NOW - 30 * HOUR, NOW), "yesterday");
        assert_eq!(relative(NOW - 4 * DAY, NOW), "4 days ago");
        assert_eq!(relative(NOW - 40 * DAY, NOW), "2026-10-20");
        assert_eq!(relative(NOW + DAY, NOW), "2026-11-30");
        assert_eq!(relative(0, NOW), "at an unknown time");
    }

    #[test]
    fn moments_are_durations_days_dates_or_times() {
        assert_eq!(parse_moment("2 days", NOW), Ok(NOW - 2 * DAY));
        assert_eq!(parse_moment("3h", NOW), Ok(NOW - 3 * HOUR));
        assert_eq!(parse_moment("90 minutes ago", NOW), Ok(NOW - 90 * MINUTE));
        assert_eq!(parse_moment("1 Week", NOW), Ok(NOW - 7 * DAY));
        assert_eq!(parse_moment("today", NOW), Ok(NOW - 8 * HOUR));
        assert_eq!(parse_moment("yesterday", NOW), Ok(NOW - 8 * HOUR - DAY));
        assert_eq!(parse_moment("2026-11-28", NOW), Ok(NOW - 8 * HOUR - DAY));
        assert_eq!(parse_moment("2026-11-29T07:00:00Z", NOW), Ok(NOW - HOUR));
        let e = parse_moment("last tuesday", NOW).unwrap_err();
        assert!(e.contains("«last tuesday»") && e.contains("2 days"), "{e}");
        assert!(parse_moment("99999999999999999999 days", NOW).is_err());
    }
}
