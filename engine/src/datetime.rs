//! Calendar arithmetic for display: Unix times as ISO-8601 UTC, for any i64 (proleptic Gregorian,
//! Howard Hinnant's days-from-civil algorithm). No clock is read here.

/// (year, month 1–12, day 1–31) of the day `days` after 1970-01-01.
// Bounded: `doe` is in 0..146_097, so `yoe` < 400, `doy` < 366, `mp` < 12; `era` is at most
// i64::MAX / 146_097, so `era * 400` fits.
#[allow(clippy::arithmetic_side_effects)]
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Seconds since the epoch as `2021-05-14T10:06:20Z`.
pub fn iso8601_secs(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Microseconds since the epoch (Cassandra's write timestamps) as `2021-05-14T10:06:20.251000Z`.
pub fn iso8601_micros(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let whole = iso8601_secs(secs);
    format!("{}.{frac:06}Z", whole.trim_end_matches('Z'))
}

/// A duration in seconds as `20y 0d 0h 0m 0s`-style text, largest unit first (for TTLs).
pub fn human_seconds(secs: i64) -> String {
    if secs == 0 {
        return "0s".to_owned();
    }
    let sign = if secs < 0 { "-" } else { "" };
    let mut rest = secs.unsigned_abs();
    let mut parts = Vec::new();
    for (unit, size) in [("d", 86_400u64), ("h", 3_600), ("m", 60), ("s", 1)] {
        let n = rest.checked_div(size).unwrap_or(0);
        rest = rest.checked_rem(size).unwrap_or(0);
        if n > 0 {
            parts.push(format!("{n}{unit}"));
        }
    }
    format!("{sign}{}", parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601_secs(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601_secs(1_754_552_891), "2025-08-07T07:48:11Z");
        assert_eq!(iso8601_secs(-1), "1969-12-31T23:59:59Z");
        assert_eq!(iso8601_secs(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(
            iso8601_micros(1_442_880_000_000_000),
            "2015-09-22T00:00:00.000000Z"
        );
        assert_eq!(iso8601_micros(-1), "1969-12-31T23:59:59.999999Z");
        // Extremes must not panic.
        let _ = iso8601_secs(i64::MAX);
        let _ = iso8601_secs(i64::MIN);
        let _ = iso8601_micros(i64::MIN);
    }

    #[test]
    fn human_durations() {
        assert_eq!(human_seconds(630_720_000), "7300d");
        assert_eq!(human_seconds(3_661), "1h 1m 1s");
        assert_eq!(human_seconds(0), "0s");
    }
}
