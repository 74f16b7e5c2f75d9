//! Cell values, clustering values and times written straight into the dump's byte buffer:
//! integers, booleans, blobs, UUIDs, text, dates and timestamps by hand, every other type
//! through [`format_value`], hex by table lookup.
//!
//! Src: `tools/JsonTransformer.java`.

use super::float::{push_double_fast, push_float_fast};
use crate::datetime::{civil_from_days, iso8601_micros, iso8601_secs};
use crate::dump::json::{
    eight_digits_word, hex_pair, needs_escape, plain_ascii, plain_text, push_hex, push_i64,
    push_padded, string_bytes, DIGIT_PAIRS,
};
use crate::types::value::{format_cell_path, format_value};
use crate::types::AbstractType;

/// A JSON string whose text `f` writes straight into `out` (escaped afterwards only when it
/// needs it, through `scratch`; not checked when `f` says its text needs no escape); returns
/// what `f` returns.
pub(super) fn json_string_with<R>(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    f: impl FnOnce(&mut Vec<u8>) -> (R, bool),
) -> R {
    out.push(b'"');
    let start = out.len();
    let (r, plain) = f(out);
    match out.get(start..).filter(|t| !plain && needs_escape(t)) {
        Some(text) => {
            scratch.clear();
            scratch.extend_from_slice(text);
            out.truncate(start.saturating_sub(1));
            string_bytes(out, scratch);
        }
        None => out.push(b'"'),
    }
    r
}

/// `bytes` of type `t` as a JSON string (quoted, escaped when it needs it) into `out`, like
/// [`json_string_with`] of [`render`] but with one call for the common types ([`fast_value`]
/// straight between the quotes); returns the note, if any.
#[inline]
pub(super) fn json_value(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    t: Option<&AbstractType>,
    bytes: &[u8],
) -> Option<String> {
    if let Some(t) = t {
        out.push(b'"');
        let start = out.len();
        match fast_value(out, t.base(), bytes, false) {
            Fast::Plain => {
                out.push(b'"');
                return None;
            }
            Fast::NeedsEscape => {
                scratch.clear();
                scratch.extend_from_slice(out.get(start..).unwrap_or_default());
                out.truncate(start.saturating_sub(1));
                string_bytes(out, scratch);
                return None;
            }
            Fast::No => out.truncate(start.saturating_sub(1)),
        }
    }
    json_string_with(out, scratch, |o| render(o, t, bytes))
}

/// Writes `bytes` of type `t` like cqlsh into `out`; returns the note, if any, and whether the
/// text written is known to need no JSON escape.
pub(super) fn render(
    out: &mut Vec<u8>,
    t: Option<&AbstractType>,
    bytes: &[u8],
) -> (Option<String>, bool) {
    match t {
        Some(t) => match fast_value(out, t.base(), bytes, false) {
            Fast::Plain => (None, true),
            Fast::NeedsEscape => (None, false),
            Fast::No => {
                let f = format_value(t, bytes);
                out.extend_from_slice(f.text.as_bytes());
                (f.note, false)
            }
        },
        None => {
            out.extend_from_slice(b"0x");
            push_hex(out, bytes);
            (Some("no type for this value".to_owned()), true)
        }
    }
}

/// A cell path as a JSON string, like [`json_string_with`] of [`render_path`], with one call
/// for the common paths (a list's UUID, a set's or map's simple key between its quotes).
#[inline]
pub(super) fn json_path(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    column_type: &AbstractType,
    path: &[u8],
) {
    out.push(b'"');
    let start = out.len();
    let fast = match column_type.base() {
        AbstractType::List { .. } => match <[u8; 16]>::try_from(path) {
            Ok(uuid) => {
                push_uuid(out, &uuid);
                Fast::Plain
            }
            Err(_) => Fast::No,
        },
        AbstractType::Set { element: t, .. } | AbstractType::Map { key: t, .. } => {
            fast_value(out, t.base(), path, true)
        }
        _ => Fast::No,
    };
    match fast {
        Fast::Plain => out.push(b'"'),
        Fast::NeedsEscape => {
            scratch.clear();
            scratch.extend_from_slice(out.get(start..).unwrap_or_default());
            out.truncate(start.saturating_sub(1));
            string_bytes(out, scratch);
        }
        Fast::No => {
            out.truncate(start.saturating_sub(1));
            json_string_with(out, scratch, |o| ((), render_path(o, column_type, path)));
        }
    }
}

/// A cell path like [`format_cell_path`]; returns whether the text written is known to need no
/// JSON escape.
pub(super) fn render_path(out: &mut Vec<u8>, column_type: &AbstractType, path: &[u8]) -> bool {
    let fast = match column_type.base() {
        AbstractType::List { .. } => match <[u8; 16]>::try_from(path) {
            Ok(uuid) => {
                push_uuid(out, &uuid);
                Fast::Plain
            }
            Err(_) => Fast::No,
        },
        AbstractType::Set { element: t, .. } | AbstractType::Map { key: t, .. } => {
            fast_value(out, t.base(), path, true)
        }
        _ => Fast::No,
    };
    if fast == Fast::No {
        out.extend_from_slice(format_cell_path(column_type, path).as_bytes());
    }
    fast == Fast::Plain
}

/// What [`fast_value`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fast {
    /// Not handled here, nothing written.
    No,
    /// Written; no byte of it needs a JSON escape (digits, hex, dates, `True`…).
    Plain,
    /// Written text that holds a `"`.
    NeedsEscape,
}

impl From<bool> for Fast {
    fn from(written: bool) -> Fast {
        if written {
            Fast::Plain
        } else {
            Fast::No
        }
    }
}

/// The common types written directly, exactly as `format_value` renders them (`nested`: inside a
/// collection, where text is quoted).
fn fast_value(out: &mut Vec<u8>, t: &AbstractType, bytes: &[u8], nested: bool) -> Fast {
    let written = match t {
        AbstractType::Utf8 | AbstractType::Ascii => {
            // Printable ASCII needs no escape (and no quote doubling when nested).
            let quote = if nested { b'\'' } else { b'\\' };
            let Some(has_double_quote) = plain_text(bytes, quote) else {
                return Fast::No;
            };
            if nested {
                out.push(b'\'');
            }
            out.extend_from_slice(bytes);
            if nested {
                out.push(b'\'');
            }
            return if has_double_quote {
                Fast::NeedsEscape
            } else {
                Fast::Plain
            };
        }
        AbstractType::Int32 => fixed(bytes).is_some_and(|b: [u8; 4]| {
            push_i64(out, i64::from(i32::from_be_bytes(b)));
            true
        }),
        AbstractType::Long => fixed(bytes).is_some_and(|b: [u8; 8]| {
            push_i64(out, i64::from_be_bytes(b));
            true
        }),
        AbstractType::Short => fixed(bytes).is_some_and(|b: [u8; 2]| {
            push_i64(out, i64::from(i16::from_be_bytes(b)));
            true
        }),
        AbstractType::Byte => fixed(bytes).is_some_and(|b: [u8; 1]| {
            push_i64(out, i64::from(i8::from_be_bytes(b)));
            true
        }),
        AbstractType::Double => fixed(bytes).is_some_and(|b: [u8; 8]| {
            push_double_fast(out, f64::from_be_bytes(b));
            true
        }),
        AbstractType::Float => fixed(bytes).is_some_and(|b: [u8; 4]| {
            push_float_fast(out, f32::from_be_bytes(b));
            true
        }),
        AbstractType::Boolean => match bytes {
            [0] => {
                out.extend_from_slice(b"False");
                true
            }
            [1] => {
                out.extend_from_slice(b"True");
                true
            }
            _ => false,
        },
        AbstractType::Bytes => {
            out.extend_from_slice(b"0x");
            push_hex(out, bytes);
            true
        }
        AbstractType::Uuid | AbstractType::LexicalUuid => fixed(bytes).is_some_and(|b| {
            push_uuid(out, &b);
            true
        }),
        AbstractType::TimeUuid => match fixed::<16>(bytes) {
            Some(b) if b.get(6).is_some_and(|v| v >> 4 == 1) => {
                push_uuid(out, &b);
                true
            }
            _ => false,
        },
        AbstractType::Timestamp | AbstractType::Date if !nested => {
            fixed::<8>(bytes).is_some_and(|b| push_timestamp(out, i64::from_be_bytes(b)))
        }
        _ => false,
    };
    Fast::from(written)
}

/// A timestamp of `ms` milliseconds since the epoch as cqlsh shows it
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`); `false`, nothing written, outside years 1–9999.
fn push_timestamp(out: &mut Vec<u8>, ms: i64) -> bool {
    IsoMillis::default().push(out, ms)
}

/// [`push_timestamp`] with the last day's `YYYY-MM-DD` kept: a column's timestamps are mostly
/// of the same few days, so the civil date is not worked out anew for each.
#[derive(Debug, Default)]
pub(super) struct IsoMillis {
    days: Option<i64>,
    /// `YYYY-MM-DDT00:00:00`, of which the first 10 bytes are written.
    date: [u8; 19],
}

impl IsoMillis {
    #[inline]
    // Digit arithmetic on values below 86,400,000; the `ms` digits' shift is 40 bits.
    #[allow(clippy::arithmetic_side_effects)]
    pub(super) fn push(&mut self, out: &mut Vec<u8>, ms: i64) -> bool {
        let days = ms.div_euclid(86_400_000);
        if self.days != Some(days) {
            let (y, m, d) = civil_from_days(days);
            if !(1..=9999).contains(&y) {
                return false;
            }
            self.date = iso_date_time(y, m, d, 0);
            self.days = Some(days);
        }
        let of_day = ms.rem_euclid(86_400_000).unsigned_abs();
        out.extend_from_slice(self.date.get(..10).unwrap_or_default());
        let time = iso_date_time(0, 1, 1, (of_day / 1000) as i64);
        out.extend_from_slice(time.get(10..).unwrap_or_default());
        // `.mmmZ`: the last three digits of the eight, between `.` and `Z`.
        let digits = eight_digits_word(of_day % 1000);
        let fraction = (digits >> 40) << 8 | u64::from(b'.') | u64::from(b'Z') << 32;
        out.extend_from_slice(fraction.to_le_bytes().get(..5).unwrap_or_default());
        true
    }
}

/// A value type whose common cases the JSON writer (both layouts) handles inline, worked out
/// once per column ([`ValueKind::of`]), so a cell branches on it instead of matching its type
/// (through [`json_value`] and [`fast_value`]) for every value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueKind {
    Text,
    Int,
    Long,
    Boolean,
    Double,
    Bytes,
    Uuid,
    Timestamp,
    /// Any other type: through [`json_value`].
    Other,
}

impl ValueKind {
    pub(super) fn of(t: &AbstractType) -> ValueKind {
        match t.base() {
            AbstractType::Utf8 | AbstractType::Ascii => ValueKind::Text,
            AbstractType::Int32 => ValueKind::Int,
            AbstractType::Long => ValueKind::Long,
            AbstractType::Boolean => ValueKind::Boolean,
            AbstractType::Double => ValueKind::Double,
            AbstractType::Bytes => ValueKind::Bytes,
            AbstractType::Uuid | AbstractType::LexicalUuid => ValueKind::Uuid,
            AbstractType::Timestamp => ValueKind::Timestamp,
            _ => ValueKind::Other,
        }
    }
}

/// `bytes` of type `t`, whose kind is `kind`, as a JSON string into `out`: what [`json_value`]
/// writes, the common kinds inline (text without anything to escape, integers, booleans,
/// doubles, blobs, UUIDs, timestamps), the rest and every value of an unexpected length through
/// [`json_value`]; returns the note, if any.
#[inline(always)]
pub(super) fn kind_value(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    millis: &mut IsoMillis,
    kind: ValueKind,
    t: &AbstractType,
    bytes: &[u8],
) -> Option<String> {
    let start = out.len();
    out.push(b'"');
    let written = match kind {
        ValueKind::Text => {
            // Printable ASCII without `\\` and `"` is written as it is.
            let plain = plain_ascii(bytes, b'\\');
            if plain {
                out.extend_from_slice(bytes);
            }
            plain
        }
        ValueKind::Int => fixed(bytes).is_some_and(|b: [u8; 4]| {
            push_i64(out, i64::from(i32::from_be_bytes(b)));
            true
        }),
        ValueKind::Long => fixed(bytes).is_some_and(|b: [u8; 8]| {
            push_i64(out, i64::from_be_bytes(b));
            true
        }),
        ValueKind::Boolean => match bytes {
            [0] => {
                out.extend_from_slice(b"False");
                true
            }
            [1] => {
                out.extend_from_slice(b"True");
                true
            }
            _ => false,
        },
        ValueKind::Double => fixed(bytes).is_some_and(|b: [u8; 8]| {
            push_double_fast(out, f64::from_be_bytes(b));
            true
        }),
        ValueKind::Bytes => {
            out.extend_from_slice(b"0x");
            push_hex(out, bytes);
            true
        }
        ValueKind::Uuid => fixed(bytes).is_some_and(|b| {
            push_uuid(out, &b);
            true
        }),
        ValueKind::Timestamp => {
            fixed::<8>(bytes).is_some_and(|b| millis.push(out, i64::from_be_bytes(b)))
        }
        ValueKind::Other => false,
    };
    if written {
        out.push(b'"');
        return None;
    }
    out.truncate(start);
    json_value(out, scratch, Some(t), bytes)
}

/// How a complex column's cell paths are written by the JSON writer, worked out once per
/// column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PathKind {
    /// A list's: a 16-byte time UUID.
    ListUuid,
    /// A set's element or a map's key of text: `'…'` between the JSON quotes.
    Text,
    /// Any other: through [`json_path`].
    Other,
}

impl PathKind {
    pub(super) fn of(column_type: &AbstractType) -> PathKind {
        match column_type.base() {
            AbstractType::List { .. } => PathKind::ListUuid,
            AbstractType::Set { element: t, .. } | AbstractType::Map { key: t, .. }
                if ValueKind::of(t) == ValueKind::Text =>
            {
                PathKind::Text
            }
            _ => PathKind::Other,
        }
    }
}

/// The closing `]` of a cell path (after its one element; pretty: its line break and indent).
pub(super) fn path_close(pretty: bool) -> &'static [u8] {
    if pretty {
        b"\n          ]"
    } else {
        b"]"
    }
}

/// A cell path as a JSON string and the `]` after it (the path is a one-element array; pretty,
/// `P`: the line break and indent before the `]`), as [`json_path`] writes it, the common kinds
/// inline.
#[inline(always)]
pub(super) fn kind_path<const P: bool>(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    kind: PathKind,
    column_type: &AbstractType,
    path: &[u8],
) {
    let close = path_close(P);
    match kind {
        PathKind::ListUuid => {
            if let Some(uuid) = fixed(path) {
                if P {
                    push_quoted_uuid(out, &uuid);
                    out.extend_from_slice(close);
                } else {
                    push_quoted_uuid_path(out, &uuid);
                }
                return;
            }
        }
        PathKind::Text => {
            // Nested text is quoted with `'`: printable ASCII without `\\`, `'` and `"` needs
            // neither quote doubling nor a JSON escape.
            if plain_ascii(path, b'\'') {
                out.extend_from_slice(b"\"'");
                out.extend_from_slice(path);
                if P {
                    out.extend_from_slice(b"'\"");
                    out.extend_from_slice(close);
                } else {
                    out.extend_from_slice(b"'\"]");
                }
                return;
            }
        }
        PathKind::Other => {}
    }
    json_path(out, scratch, column_type, path);
    out.extend_from_slice(close);
}

fn fixed<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    <[u8; N]>::try_from(bytes).ok()
}

/// 8-4-4-4-12 lowercase hex digits.
fn push_uuid(out: &mut Vec<u8>, b: &[u8; 16]) {
    out.extend_from_slice(&uuid_text(b));
}

/// [`push_uuid`]'s text between JSON quotes, in one copy.
fn push_quoted_uuid(out: &mut Vec<u8>, b: &[u8; 16]) {
    let [t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31, t32, t33, t34, t35] =
        uuid_text(b);
    out.extend_from_slice(&[
        b'"', t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18,
        t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31, t32, t33, t34, t35, b'"',
    ]);
}

/// [`push_uuid`]'s text between JSON quotes and before the `]` of a one-element array: a list
/// cell's path, in one copy.
fn push_quoted_uuid_path(out: &mut Vec<u8>, b: &[u8; 16]) {
    let [t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31, t32, t33, t34, t35] =
        uuid_text(b);
    out.extend_from_slice(&[
        b'"', t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18,
        t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31, t32, t33, t34, t35, b'"',
        b']',
    ]);
}

/// 8-4-4-4-12 lowercase hex digits, one table lookup per byte.
#[inline(always)]
fn uuid_text(b: &[u8; 16]) -> [u8; 36] {
    let [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15] = *b;
    let [a0, a1] = hex_pair(v0);
    let [a2, a3] = hex_pair(v1);
    let [a4, a5] = hex_pair(v2);
    let [a6, a7] = hex_pair(v3);
    let [b0, b1] = hex_pair(v4);
    let [b2, b3] = hex_pair(v5);
    let [c0, c1] = hex_pair(v6);
    let [c2, c3] = hex_pair(v7);
    let [d0, d1] = hex_pair(v8);
    let [d2, d3] = hex_pair(v9);
    let [e0, e1] = hex_pair(v10);
    let [e2, e3] = hex_pair(v11);
    let [e4, e5] = hex_pair(v12);
    let [e6, e7] = hex_pair(v13);
    let [e8, e9] = hex_pair(v14);
    let [ea, eb] = hex_pair(v15);
    [
        a0, a1, a2, a3, a4, a5, a6, a7, b'-', b0, b1, b2, b3, b'-', c0, c1, c2, c3, b'-', d0, d1,
        d2, d3, b'-', e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, ea, eb,
    ]
}

/// `YYYY-MM-DDTHH:MM:SS` (19 bytes) of a date in years 0–9999 and seconds into the day, written
/// two digits at a time into a stack buffer.
// Digit indices: `v % 100 * 2` < 200.
#[allow(clippy::arithmetic_side_effects)]
fn iso_date_time(y: i64, m: u32, d: u32, secs_of_day: i64) -> [u8; 19] {
    let two = |v: u64| -> [u8; 2] {
        let i = (v % 100) as usize * 2;
        match DIGIT_PAIRS.get(i..i + 2) {
            Some(&[a, b]) => [a, b],
            _ => *b"00",
        }
    };
    let y = y.unsigned_abs();
    let s = secs_of_day.unsigned_abs();
    let [y0, y1] = two(y / 100);
    let [y2, y3] = two(y);
    let [m0, m1] = two(u64::from(m));
    let [d0, d1] = two(u64::from(d));
    let [h0, h1] = two(s / 3600);
    let [n0, n1] = two(s % 3600 / 60);
    let [s0, s1] = two(s % 60);
    [
        y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, b'T', h0, h1, b':', n0, n1, b':', s0, s1,
    ]
}

/// [`iso8601_secs`] into `out`.
pub(super) fn push_iso_secs(out: &mut Vec<u8>, secs: i64) {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    if !(0..=9999).contains(&y) {
        out.extend_from_slice(iso8601_secs(secs).as_bytes());
        return;
    }
    out.extend_from_slice(&iso_date_time(y, m, d, secs.rem_euclid(86_400)));
    out.push(b'Z');
}

/// [`push_iso_micros`] with the last second's `YYYY-MM-DDTHH:MM:SS` kept: a row's or cell's
/// timestamp is mostly in the same second as the one before it, so only the microseconds are
/// written anew.
#[derive(Debug, Default)]
pub(super) struct IsoMicros {
    secs: Option<i64>,
    text: [u8; 19],
}

impl IsoMicros {
    /// The time and the JSON string's closing quote: `YYYY-MM-DDTHH:MM:SS.ffffffZ"`, in one copy.
    #[inline]
    pub(super) fn push_quoted(&mut self, out: &mut Vec<u8>, micros: i64) {
        let secs = micros.div_euclid(1_000_000);
        if self.secs != Some(secs) {
            let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
            if !(0..=9999).contains(&y) {
                out.extend_from_slice(iso8601_micros(micros).as_bytes());
                out.push(b'"');
                return;
            }
            self.text = iso_date_time(y, m, d, secs.rem_euclid(86_400));
            self.secs = Some(secs);
        }
        out.extend_from_slice(&self.text);
        // `.ffffffZ` in one word: the six digits of the eight, between `.` and `Z`.
        let digits = eight_digits_word(micros.rem_euclid(1_000_000).unsigned_abs());
        let fraction = (digits >> 16) << 8 | u64::from(b'.') | u64::from(b'Z') << 56;
        out.extend_from_slice(&fraction.to_le_bytes());
        out.push(b'"');
    }
}

/// [`iso8601_micros`] into `out`.
pub(super) fn push_iso_micros(out: &mut Vec<u8>, micros: i64) {
    let secs = micros.div_euclid(1_000_000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    if !(0..=9999).contains(&y) {
        out.extend_from_slice(iso8601_micros(micros).as_bytes());
        return;
    }
    out.extend_from_slice(&iso_date_time(y, m, d, secs.rem_euclid(86_400)));
    out.push(b'.');
    push_padded(out, micros.rem_euclid(1_000_000).unsigned_abs(), 6);
    out.push(b'Z');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_second_gives_what_iso8601_micros_gives() {
        let mut iso = IsoMicros::default();
        let mut micros: i64 = -62_167_219_200_000_001; // just before year 0
        let mut values = vec![0, -1, 1, 999_999, 1_000_000, i64::MIN, i64::MAX, micros];
        for step in [
            1i64,
            7,
            999_999,
            1_000_001,
            86_400_000_000,
            31_556_952_123_457,
        ] {
            for _ in 0..200 {
                micros = micros.wrapping_add(step.wrapping_mul(37));
                values.push(micros);
                values.push(micros.wrapping_add(3)); // the same second again, mostly
            }
        }
        for v in values {
            let mut out = Vec::new();
            iso.push_quoted(&mut out, v);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                format!("{}\"", iso8601_micros(v)),
                "{v}"
            );
        }
    }
}
