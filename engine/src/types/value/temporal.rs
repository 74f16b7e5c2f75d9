//! Dates, times, timestamps and durations: `TimestampSerializer`, `SimpleDateSerializer`,
//! `TimeSerializer` and `cql3/Duration.java`, in the proleptic Gregorian calendar (as cqlsh's
//! Python `datetime` and Java's `java.time` use; Java's older `SimpleDateFormat` switches to the
//! Julian calendar before 1582-10-15, which this module does not copy).
//!
//! Day arithmetic uses the well-known era-based civil-from-days conversion (400-year eras of
//! 146 097 days, March-based years), exact for every `i64` millisecond timestamp.

use core::fmt::Write;

pub(super) const MILLIS_PER_DAY: i64 = 86_400_000;
pub(super) const NANOS_PER_DAY: i64 = 86_400_000_000_000;
const NANOS_PER_MICRO: i64 = 1_000;
const NANOS_PER_MILLI: i64 = 1_000_000;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
const NANOS_PER_MINUTE: i64 = 60 * NANOS_PER_SECOND;
const NANOS_PER_HOUR: i64 = 60 * NANOS_PER_MINUTE;
/// The day number of 1970-01-01 in a `date` value.
pub(super) const DATE_EPOCH_DAY: i64 = 1 << 31;
/// Years accepted when parsing (keeps every intermediate product inside `i64`).
const MAX_PARSED_YEAR: i64 = 1_000_000_000;

pub(super) use crate::datetime::civil_from_days;

/// Days since 1970-01-01 of a valid (year, month, day); `|year|` ≤ [`MAX_PARSED_YEAR`].
pub(super) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Howard Hinnant's algorithm. With |year| ≤ MAX_PARSED_YEAR, month 1–12 and day 1–31 every
    // intermediate is far inside i64, so the wrapping ops below never wrap.
    let y = if month <= 2 {
        year.wrapping_sub(1)
    } else {
        year
    };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let shifted_month = if m > 2 {
        m.wrapping_sub(3)
    } else {
        m.wrapping_add(9)
    };
    let doy = (shifted_month.wrapping_mul(153).wrapping_add(2) / 5)
        .wrapping_add(i64::from(day))
        .wrapping_sub(1);
    let doe = yoe
        .wrapping_mul(365)
        .wrapping_add(yoe / 4)
        .wrapping_sub(yoe / 100)
        .wrapping_add(doy);
    era.wrapping_mul(146_097)
        .wrapping_add(doe)
        .wrapping_sub(719_468)
}

fn is_leap(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(year) => 29,
        _ => 28,
    }
}

/// A year as ISO 8601 / `java.time` write it: four digits for 0–9999, `+` and all digits
/// above, `-` and at least four digits below zero.
fn write_year(out: &mut String, year: i64) {
    if year > 9999 {
        let _ = write!(out, "+{year}");
    } else if year < 0 {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    } else {
        let _ = write!(out, "{year:04}");
    }
}

fn year_note(year: i64) -> Option<String> {
    (!(1..=9999).contains(&year)).then(|| format!("year {year} is outside 0001-9999"))
}

/// `YYYY-MM-DD` of a day count since the epoch, and a note for years outside 1–9999.
fn format_days(days: i64) -> (String, i64) {
    let (y, m, d) = civil_from_days(days);
    let mut out = String::with_capacity(12);
    write_year(&mut out, y);
    let _ = write!(out, "-{m:02}-{d:02}");
    (out, y)
}

/// A timestamp (ms since the epoch) as `YYYY-MM-DDTHH:MM:SS.mmmZ`, plus a note when the year
/// is outside 0001–9999 (cqlsh then prints the raw milliseconds instead).
pub(super) fn format_timestamp(ms: i64) -> (String, Option<String>) {
    let days = ms.div_euclid(MILLIS_PER_DAY);
    let of_day = ms.rem_euclid(MILLIS_PER_DAY);
    let (mut out, year) = format_days(days);
    let _ = write!(
        out,
        "T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3_600_000,
        of_day / 60_000 % 60,
        of_day / 1_000 % 60,
        of_day % 1_000
    );
    let note = year_note(year).map(|n| format!("{n} ({ms} ms since the epoch)"));
    (out, note)
}

/// A `date` value (unsigned days, 2^31 = 1970-01-01) as `YYYY-MM-DD`, plus a note for years
/// outside 0001–9999.
pub(super) fn format_date(raw: u32) -> (String, Option<String>) {
    let (text, year) = format_days(i64::from(raw).wrapping_sub(DATE_EPOCH_DAY)); // u32 − 2^31: exact
    (text, year_note(year))
}

/// A `time` value (ns since midnight) as `HH:MM:SS.nnnnnnnnn`; `None` outside one day.
pub(super) fn format_time(nanos: i64) -> Option<String> {
    if !(0..NANOS_PER_DAY).contains(&nanos) {
        return None;
    }
    let secs = nanos / NANOS_PER_SECOND;
    Some(format!(
        "{:02}:{:02}:{:02}.{:09}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        nanos % NANOS_PER_SECOND
    ))
}

/// `Duration.toString`: `-` if any part is negative, then years and months, days, and (when
/// non-zero) the nanoseconds split into h, m, s, ms, us, ns; only non-zero units are written.
/// A zero duration, an empty string in Java, is written `0s`.
pub(super) fn format_duration(months: i32, days: i32, nanos: i64) -> String {
    let mut out = String::new();
    if months < 0 || days < 0 || nanos < 0 {
        out.push('-');
    }
    let unit = |out: &mut String, value: u64, per: u64, name: &str| -> u64 {
        if value == 0 || value < per {
            return value;
        }
        let _ = write!(out, "{}{name}", value.checked_div(per).unwrap_or(0));
        value.checked_rem(per).unwrap_or(value)
    };
    let rest = unit(&mut out, u64::from(months.unsigned_abs()), 12, "y");
    unit(&mut out, rest, 1, "mo");
    unit(&mut out, u64::from(days.unsigned_abs()), 1, "d");
    if nanos != 0 {
        let mut rest = nanos.unsigned_abs();
        for (per, name) in [
            (NANOS_PER_HOUR, "h"),
            (NANOS_PER_MINUTE, "m"),
            (NANOS_PER_SECOND, "s"),
            (NANOS_PER_MILLI, "ms"),
            (NANOS_PER_MICRO, "us"),
            (1, "ns"),
        ] {
            rest = unit(&mut out, rest, per.unsigned_abs(), name);
        }
    }
    if out.is_empty() {
        out.push_str("0s");
    }
    out
}

/// A small scanner over ASCII-structured text.
struct Scan<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Scan<'a> {
    /// Moves the cursor `n` bytes on; it never passes the end of the text, so this cannot
    /// saturate.
    fn advance(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n);
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.advance(c.len_utf8());
            true
        } else {
            false
        }
    }

    fn eat_any(&mut self, set: &[char]) -> Option<char> {
        let c = self.peek().filter(|c| set.contains(c))?;
        self.advance(c.len_utf8());
        Some(c)
    }

    /// The run of ASCII digits at the cursor (possibly empty).
    fn digits(&mut self) -> &'a str {
        let rest = self.rest();
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        self.advance(n);
        rest.get(..n).unwrap_or("")
    }

    /// Exactly `n` ASCII digits as a number.
    fn fixed(&mut self, n: usize, what: &str) -> Result<u32, String> {
        let rest = self.rest();
        let part = rest
            .get(..n)
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| format!("expected {n} digits for the {what}"))?;
        self.advance(n);
        part.parse().map_err(|_| format!("bad {what}"))
    }

    fn skip_spaces(&mut self) {
        while self.eat(' ') {}
    }
}

/// `[+-]YYYY…-MM-DD` at the cursor, as days since the epoch.
fn scan_date(sc: &mut Scan<'_>) -> Result<i64, String> {
    let negative = matches!(sc.eat_any(&['+', '-']), Some('-'));
    let digits = sc.digits();
    if digits.len() < 4 {
        return Err("expected a date as YYYY-MM-DD".into());
    }
    let year: i64 = digits
        .parse()
        .ok()
        .filter(|y| *y <= MAX_PARSED_YEAR)
        .ok_or_else(|| format!("year {digits} is out of range"))?;
    // 0 <= year <= MAX_PARSED_YEAR: negation is exact.
    let year = if negative { year.wrapping_neg() } else { year };
    if !sc.eat('-') {
        return Err("expected '-' after the year".into());
    }
    let month = sc.fixed(2, "month")?;
    if !sc.eat('-') {
        return Err("expected '-' after the month".into());
    }
    let day = sc.fixed(2, "day")?;
    if !(1..=12).contains(&month) {
        return Err(format!("month {month} is not 1-12"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(format!("day {day} does not exist in {year}-{month:02}"));
    }
    Ok(days_from_civil(year, month, day))
}

/// `HH:MM[:SS[.fffffffff]]` at the cursor, as nanoseconds of the day. With `seconds_required`
/// (the `time` type) the seconds must be there; hours may have one or two digits there, as
/// `TimeSerializer` parses them with `Integer.parseInt`.
fn scan_clock(sc: &mut Scan<'_>, seconds_required: bool) -> Result<i64, String> {
    let number = |sc: &mut Scan<'_>, what: &str, max: i64| -> Result<i64, String> {
        let d = sc.digits();
        if d.is_empty() || d.len() > 2 {
            return Err(format!("expected two digits for the {what}"));
        }
        let v: i64 = d.parse().map_err(|_| format!("bad {what}"))?;
        if v > max {
            return Err(format!("{what} {v} is out of range"));
        }
        Ok(v)
    };
    let hours = number(sc, "hour", 23)?;
    if !sc.eat(':') {
        return Err("expected ':' after the hour".into());
    }
    let minutes = number(sc, "minute", 59)?;
    // Every field is range-checked (hours ≤ 23, minutes and seconds ≤ 59, fraction < 10^9), so
    // the sum stays below one day of nanoseconds: the wrapping ops never wrap.
    let mut nanos = hours
        .wrapping_mul(NANOS_PER_HOUR)
        .wrapping_add(minutes.wrapping_mul(NANOS_PER_MINUTE));
    if sc.eat(':') {
        nanos = nanos.wrapping_add(number(sc, "second", 59)?.wrapping_mul(NANOS_PER_SECOND));
        if sc.eat('.') {
            let frac = sc.digits();
            if frac.is_empty() || frac.len() > 9 {
                return Err("expected 1 to 9 digits after '.'".into());
            }
            let mut value: i64 = frac.parse().map_err(|_| "bad fraction".to_owned())?;
            for _ in frac.len()..9 {
                value = value.wrapping_mul(10);
            }
            nanos = nanos.wrapping_add(value);
        }
    } else if seconds_required {
        return Err("expected HH:MM:SS[.fffffffff]".into());
    }
    Ok(nanos)
}

/// Whether `s` is `-?digits` (Cassandra's raw-number form for timestamps, dates and times).
fn is_raw_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A timestamp as milliseconds since the epoch: an integer, or an ISO 8601 date with optional
/// time and zone (no zone = UTC). Sub-millisecond digits must be zero.
pub(super) fn parse_timestamp(s: &str) -> Result<i64, String> {
    if is_raw_integer(s) {
        return s
            .parse()
            .map_err(|_| format!("'{s}' does not fit in 64 bits"));
    }
    let mut sc = Scan { s, pos: 0 };
    let days = scan_date(&mut sc)?;
    let mut nanos_of_day = 0;
    let before_time = sc.pos;
    if sc.eat_any(&['T', 't', ' ']).is_some() {
        if sc.peek().is_some_and(|c| c.is_ascii_digit()) {
            nanos_of_day = scan_clock(&mut sc, false)?;
        } else {
            sc.pos = before_time;
        }
    }
    if nanos_of_day % NANOS_PER_MILLI != 0 {
        return Err("timestamps have millisecond precision".into());
    }
    sc.skip_spaces();
    let offset_minutes = scan_zone(&mut sc)?;
    if !sc.rest().is_empty() {
        return Err(format!("unexpected '{}' after the timestamp", sc.rest()));
    }
    // |days| ≤ 366 × MAX_PARSED_YEAR, so the sum cannot overflow an i128.
    let ms = i128::from(days)
        .wrapping_mul(i128::from(MILLIS_PER_DAY))
        .wrapping_add(i128::from(nanos_of_day / NANOS_PER_MILLI))
        .wrapping_sub(i128::from(offset_minutes).wrapping_mul(60_000));
    i64::try_from(ms).map_err(|_| "timestamp out of the 64-bit millisecond range".into())
}

/// `Z`, `UTC`, `GMT`, `±HH`, `±HHMM`, `±HH:MM` or nothing (UTC), as minutes east of UTC.
fn scan_zone(sc: &mut Scan<'_>) -> Result<i64, String> {
    let rest = sc.rest();
    if rest.is_empty() {
        return Ok(0);
    }
    for name in ["Z", "z", "UTC", "GMT"] {
        if rest == name {
            sc.pos = sc.s.len();
            return Ok(0);
        }
    }
    let Some(sign) = sc.eat_any(&['+', '-']) else {
        return Err(format!("unknown time zone '{rest}' (use Z or ±HH:MM)"));
    };
    let hours = i64::from(sc.fixed(2, "zone hours")?);
    sc.eat(':');
    let minutes = if sc.rest().is_empty() {
        0
    } else {
        i64::from(sc.fixed(2, "zone minutes")?)
    };
    if hours > 18 || minutes > 59 {
        return Err("zone offset out of range".into());
    }
    // hours ≤ 18 and minutes ≤ 59 (checked above): exact.
    let total = hours.wrapping_mul(60).wrapping_add(minutes);
    Ok(if sign == '-' {
        total.wrapping_neg()
    } else {
        total
    })
}

/// A `date` value: `YYYY-MM-DD` or the raw unsigned day number (2^31 = 1970-01-01).
pub(super) fn parse_date(s: &str) -> Result<u32, String> {
    if is_raw_integer(s) {
        return s
            .parse::<u32>()
            .map_err(|_| format!("raw day number '{s}' is not in 0..4294967295"));
    }
    let mut sc = Scan { s, pos: 0 };
    let days = scan_date(&mut sc)?;
    if !sc.rest().is_empty() {
        return Err(format!("unexpected '{}' after the date", sc.rest()));
    }
    u32::try_from(days.wrapping_add(DATE_EPOCH_DAY)) // |days| ≤ 366 × 10^9: exact
        .map_err(|_| format!("date '{s}' is outside the range of the date type"))
}

/// A `time` value: `HH:MM:SS[.fffffffff]` or raw nanoseconds of the day.
pub(super) fn parse_time(s: &str) -> Result<i64, String> {
    if is_raw_integer(s) {
        return s
            .parse::<i64>()
            .ok()
            .filter(|n| (0..NANOS_PER_DAY).contains(n))
            .ok_or_else(|| format!("raw time '{s}' is not in 0..{}", NANOS_PER_DAY - 1));
    }
    let mut sc = Scan { s, pos: 0 };
    let nanos = scan_clock(&mut sc, true)?;
    if !sc.rest().is_empty() {
        return Err(format!("unexpected '{}' after the time", sc.rest()));
    }
    Ok(nanos)
}

/// Accumulates a duration unit by unit, in Cassandra's unit order (`Duration.Builder`).
#[derive(Default)]
struct DurationBuilder {
    months: i64,
    days: i64,
    nanos: i64,
    last_unit: u8,
}

impl DurationBuilder {
    /// Adds `n` of unit `index` (1 = years … 10 = nanoseconds).
    fn add(&mut self, index: u8, n: i64) -> Result<(), String> {
        const NAMES: [&str; 11] = [
            "",
            "years",
            "months",
            "weeks",
            "days",
            "hours",
            "minutes",
            "seconds",
            "milliseconds",
            "microseconds",
            "nanoseconds",
        ];
        let name = |i: u8| NAMES.get(usize::from(i)).copied().unwrap_or("?");
        if index == self.last_unit {
            return Err(format!("the {} are given twice", name(index)));
        }
        if index < self.last_unit {
            return Err(format!(
                "the {} must come before the {}",
                name(index),
                name(self.last_unit)
            ));
        }
        self.last_unit = index;
        let (slot, per, limit) = match index {
            1 => (&mut self.months, 12, i64::from(i32::MAX)),
            2 => (&mut self.months, 1, i64::from(i32::MAX)),
            3 => (&mut self.days, 7, i64::from(i32::MAX)),
            4 => (&mut self.days, 1, i64::from(i32::MAX)),
            5 => (&mut self.nanos, NANOS_PER_HOUR, i64::MAX),
            6 => (&mut self.nanos, NANOS_PER_MINUTE, i64::MAX),
            7 => (&mut self.nanos, NANOS_PER_SECOND, i64::MAX),
            8 => (&mut self.nanos, NANOS_PER_MILLI, i64::MAX),
            9 => (&mut self.nanos, NANOS_PER_MICRO, i64::MAX),
            _ => (&mut self.nanos, 1, i64::MAX),
        };
        let total = n
            .checked_mul(per)
            .and_then(|v| v.checked_add(*slot))
            .filter(|v| *v <= limit)
            .ok_or_else(|| format!("too many {} for a duration", name(index)))?;
        *slot = total;
        Ok(())
    }

    fn build(self, negative: bool) -> (i32, i32, i64) {
        let months = i32::try_from(self.months).unwrap_or(i32::MAX);
        let days = i32::try_from(self.days).unwrap_or(i32::MAX);
        if negative {
            (
                months.saturating_neg(),
                days.saturating_neg(),
                self.nanos.saturating_neg(),
            )
        } else {
            (months, days, self.nanos)
        }
    }
}

/// A duration as (months, days, nanoseconds): Cassandra's unit form (`1y2mo3w4d5h6m7s8ms9us10ns`,
/// units in that order, any case, `µs` too) or ISO 8601 (`P1Y2M3DT4H5M6S`, `P3W`), with an
/// optional leading `-`.
pub(super) fn parse_duration(s: &str) -> Result<(i32, i32, i64), String> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let mut b = DurationBuilder::default();
    let mut sc = Scan { s: body, pos: 0 };
    let number = |sc: &mut Scan<'_>| -> Result<i64, String> {
        let d = sc.digits();
        if d.is_empty() {
            return Err(format!("expected a number at '{}'", sc.rest()));
        }
        d.parse().map_err(|_| format!("{d} is too large"))
    };
    if sc.eat_any(&['P', 'p']).is_some() {
        let mut time_part = false;
        if sc.rest().is_empty() {
            return Err("expected units after 'P'".into());
        }
        while !sc.rest().is_empty() {
            if !time_part && sc.eat_any(&['T', 't']).is_some() {
                time_part = true;
                continue;
            }
            let n = number(&mut sc)?;
            let designator = sc
                .eat_any(&['Y', 'M', 'W', 'D', 'H', 'S', 'y', 'm', 'w', 'd', 'h', 's'])
                .map(|c| c.to_ascii_uppercase());
            let index = match (time_part, designator) {
                (false, Some('Y')) => 1,
                (false, Some('M')) => 2,
                (false, Some('W')) => 3,
                (false, Some('D')) => 4,
                (true, Some('H')) => 5,
                (true, Some('M')) => 6,
                (true, Some('S')) => 7,
                _ => return Err(format!("unexpected unit at '{}'", sc.rest())),
            };
            b.add(index, n)?;
        }
    } else {
        if body.is_empty() {
            return Err("expected a duration such as 1h30m".into());
        }
        while !sc.rest().is_empty() {
            let n = number(&mut sc)?;
            let rest = sc.rest();
            let unit_len = rest
                .char_indices()
                .find(|(_, c)| c.is_ascii_digit())
                .map_or(rest.len(), |(i, _)| i);
            let unit = rest.get(..unit_len).unwrap_or("").to_lowercase();
            sc.advance(unit_len);
            let index = match unit.as_str() {
                "y" => 1,
                "mo" => 2,
                "w" => 3,
                "d" => 4,
                "h" => 5,
                "m" => 6,
                "s" => 7,
                "ms" => 8,
                "us" | "µs" => 9,
                "ns" => 10,
                "" => return Err("expected a unit after the number".into()),
                other => return Err(format!("unknown duration unit '{other}'")),
            };
            b.add(index, n)?;
        }
    }
    Ok(b.build(negative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_conversions() {
        // Python: (date(y, m, d) - date(1970, 1, 1)).days
        for (days, ymd) in [
            (0, (1970, 1, 1)),
            (-1, (1969, 12, 31)),
            (18_761, (2021, 5, 14)),
            (11_016, (2000, 2, 29)),
            (-719_162, (1, 1, 1)),
            (2_932_896, (9999, 12, 31)),
            (-719_528, (0, 1, 1)),
        ] {
            assert_eq!(civil_from_days(days), ymd, "{days}");
            assert_eq!(days_from_civil(ymd.0, ymd.1, ymd.2), days, "{ymd:?}");
        }
        for days in (-1_000_000..1_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(
            format_timestamp(1_620_986_780_251).0,
            "2021-05-14T10:06:20.251Z"
        );
        assert_eq!(
            format_timestamp(0),
            ("1970-01-01T00:00:00.000Z".into(), None)
        );
        assert_eq!(format_timestamp(-1).0, "1969-12-31T23:59:59.999Z");
        // Python: datetime(1900,1,1,tzinfo=utc).timestamp()*1000 = -2208988800000
        assert_eq!(
            format_timestamp(-2_208_988_800_000).0,
            "1900-01-01T00:00:00.000Z"
        );
        let (text, note) = format_timestamp(253_402_300_800_000);
        assert_eq!(text, "+10000-01-01T00:00:00.000Z");
        assert_eq!(
            note.unwrap(),
            "year 10000 is outside 0001-9999 (253402300800000 ms since the epoch)"
        );
        // i64::MIN ms: Python → year -292275055, May 17 16:47:04.192 (proleptic Gregorian).
        assert_eq!(
            format_timestamp(i64::MIN).0,
            "-292275055-05-16T16:47:04.192Z"
        );
        assert_eq!(
            format_timestamp(i64::MAX).0,
            "+292278994-08-17T07:12:55.807Z"
        );

        for (text, ms) in [
            ("2021-05-14T10:06:20.251Z", 1_620_986_780_251),
            ("2021-05-14 10:06:20.251", 1_620_986_780_251),
            ("2021-05-14T12:06:20.251+02:00", 1_620_986_780_251),
            ("2021-05-14T12:06:20.251+0200", 1_620_986_780_251),
            ("2021-05-14 12:06:20.251 +02", 1_620_986_780_251),
            ("2021-05-14T05:06:20.251-05:00", 1_620_986_780_251),
            ("2021-05-14", 1_620_950_400_000),
            ("2021-05-14Z", 1_620_950_400_000),
            ("2021-05-14 10:06", 1_620_986_760_000),
            ("1620986780251", 1_620_986_780_251),
            ("-5", -5),
            ("+10000-01-01T00:00:00.000Z", 253_402_300_800_000),
            ("-292275055-05-16T16:47:04.192Z", i64::MIN),
        ] {
            assert_eq!(parse_timestamp(text), Ok(ms), "{text}");
        }
        for bad in [
            "2021-13-01",
            "2021-02-29",
            "2021-05-14T25:00",
            "2021-05-14T10:06:20.2511",
            "2021-05-14X",
            "21-05-14",
            "2021-05-14T10:06:20Z junk",
            "99999999999999999999",
            "2021-05-14 +25:00",
            "",
        ] {
            assert!(parse_timestamp(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(format_date(1 << 31), ("1970-01-01".into(), None));
        assert_eq!(format_date((1 << 31) + 18_761).0, "2021-05-14");
        assert_eq!(format_date(0).0, "-5877641-06-23");
        assert_eq!(format_date(u32::MAX).0, "+5881580-07-11");
        assert!(format_date(0).1.is_some());
        assert_eq!(parse_date("2021-05-14"), Ok((1 << 31) + 18_761));
        assert_eq!(parse_date("-5877641-06-23"), Ok(0));
        assert_eq!(parse_date("+5881580-07-11"), Ok(u32::MAX));
        assert_eq!(parse_date("2147483648"), Ok(1 << 31));
        assert!(parse_date("-5877641-06-22").is_err());
        assert!(parse_date("4294967296").is_err());
        assert!(parse_date("-1").is_err());

        assert_eq!(format_time(0).unwrap(), "00:00:00.000000000");
        assert_eq!(
            format_time(NANOS_PER_DAY - 1).unwrap(),
            "23:59:59.999999999"
        );
        assert_eq!(
            format_time(36_380_123_456_789).unwrap(),
            "10:06:20.123456789"
        );
        assert_eq!(format_time(NANOS_PER_DAY), None);
        assert_eq!(format_time(-1), None);
        assert_eq!(parse_time("10:06:20.123456789"), Ok(36_380_123_456_789));
        assert_eq!(parse_time("10:06:20.1"), Ok(36_380_100_000_000));
        assert_eq!(parse_time("1:02:03"), Ok(3_723_000_000_000));
        assert_eq!(parse_time("36380123456789"), Ok(36_380_123_456_789));
        for bad in [
            "24:00:00",
            "10:60:00",
            "10:06",
            "10:06:20.",
            "10:06:20.1234567890",
            "-1",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        let cases = [
            ((14, 2, 3_723_004_005_006), "1y2mo2d1h2m3s4ms5us6ns"),
            ((1, 2, 0), "1mo2d"),
            ((0, 0, 1), "1ns"),
            ((0, 0, NANOS_PER_HOUR * 25), "25h"),
            ((-12, -3, -NANOS_PER_MINUTE), "-1y3d1m"),
            ((0, 0, 0), "0s"),
            (
                (i32::MAX, i32::MAX, i64::MAX),
                "178956970y7mo2147483647d2562047h47m16s854ms775us807ns",
            ),
        ];
        for ((m, d, n), text) in cases {
            assert_eq!(format_duration(m, d, n), text);
            assert_eq!(parse_duration(text), Ok((m, d, n)), "{text}");
        }
        assert_eq!(
            format_duration(i32::MIN, 0, i64::MIN),
            "-178956970y8mo2562047h47m16s854ms775us808ns"
        );
        assert_eq!(parse_duration("1H30M"), Ok((0, 0, 90 * NANOS_PER_MINUTE)));
        assert_eq!(parse_duration("2w"), Ok((0, 14, 0)));
        assert_eq!(parse_duration("3µs"), Ok((0, 0, 3_000)));
        assert_eq!(
            parse_duration("P1Y2M3DT4H5M6S"),
            Ok((14, 3, 14_706 * NANOS_PER_SECOND))
        );
        assert_eq!(parse_duration("P2W"), Ok((0, 14, 0)));
        assert_eq!(parse_duration("-PT1S"), Ok((0, 0, -NANOS_PER_SECOND)));
        for bad in [
            "",
            "-",
            "1",
            "1x",
            "1m1h",
            "1d1d",
            "P",
            "P1H",
            "2147483648mo",
            "1y2147483647mo",
            "h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
