//! Serialized cell values and partition keys ↔ text, the way cqlsh shows them.
//!
//! [`format_value`] renders the bytes of a value of any
//! [`AbstractType`](super::AbstractType); [`parse_value`] and [`parse_partition_key`] turn what
//! a user types back into bytes (for `dump --key` and `lookup`); [`split_composite_key`] shows
//! each column of a multi-column partition key and [`format_cell_path`] names the element a
//! non-frozen collection cell belongs to.
//!
//! Src (the truth): each `db/marshal/*Type.java` (`getString`, `fromString`, `toJSONString`),
//! `serializers/*Serializer.java` (byte layouts, validation, `toString`), `cql3/Duration.java`,
//! `db/marshal/AbstractCompositeType.java` + `CompositeType.java` + `DynamicCompositeType.java`,
//! `db/context/CounterContext.java`, `db/marshal/VectorType.java`; and cqlsh's
//! `pylib/cqlshlib/formatting.py` for how values are *shown*.
//!
//! # Rendering (cqlsh style)
//!
//! | type | bytes | shown as |
//! |---|---|---|
//! | `ascii`, `text` | the string | unquoted at top level, `'…'` (with `''`) inside collections, tuples and UDTs; `\` doubled, control characters as `\n` `\t` `\r` `\xNN` (cqlsh's `format_value_text`) |
//! | `blob` | raw | `0x…` lowercase hex |
//! | `boolean` | 1 byte | `True` / `False`: cqlsh prints Python's `str(bool)`; Java's `getString` would say `true`/`false` |
//! | `tinyint` `smallint` `int` `bigint` | 1/2/4/8 bytes BE | decimal |
//! | `counter` | 8 bytes BE, or a `CounterContext` (header, 32-byte shards) | the value, or the context's total (`CounterContext.total`) |
//! | `varint` | two's complement BE, any length | decimal (converted here; values over [`MAX_BIGNUM_BYTES`] stay hex with a note) |
//! | `decimal` | i32 scale + varint unscaled | `BigDecimal.toString` (`1.50`, `1E+3`, `1E-7`); Python's `Decimal` prints the same |
//! | `float`, `double` | IEEE 754 BE | shortest digits that read back to the same value, laid out like cqlsh's `%g`: plain for 1e-4 ≤ \|x\| < 1e16 (`1.5`, `100`, `0.001`), else `1e+20`, `1.5e-07`; `NaN`, `Infinity`, `-Infinity`. cqlsh itself rounds to 5 (float) or 12 (double) significant digits by default; this keeps every digit needed to read the value back |
//! | `timestamp` (and legacy `DateType`) | i64 ms since the epoch | ISO 8601 UTC with milliseconds, `2021-05-14T10:06:20.251Z` (`TimestampSerializer`'s UTC format, as sstabledump prints; cqlsh's default would be `2021-05-14 10:06:20.251000+0000`); years outside 0001–9999 use ISO's expanded form (`+10000-…`, `-0001-…`, proleptic Gregorian) with a note |
//! | `date` | u32 days, 2^31 = 1970-01-01 | `YYYY-MM-DD` (`SimpleDateSerializer`, same year rules) |
//! | `time` | i64 ns of the day | `HH:MM:SS.nnnnnnnnn` (`TimeSerializer.toString`) |
//! | `duration` | signed vints months, days, nanos | `1y2mo3d4h5m6s7ms8us9ns` (`Duration.toString`); a zero duration, which Java prints as an empty string, is shown as `0s` |
//! | `inet` | 4 or 16 bytes | dotted IPv4; IPv6 in RFC 5952 form (`::1`, `2001:db8::1`, `::ffff:1.2.3.4`) as cqlsh (`socket.inet_ntop`) shows it. Java's `InetAddress.getHostAddress` (sstabledump) would print `0:0:0:0:0:0:0:1`; [`parse_value`] accepts both |
//! | `uuid`, `timeuuid` | 16 bytes | `8-4-4-4-12` lowercase (a `timeuuid` that is not version 1 gets a note) |
//! | `list`, `set` | i32 count, per element i32 length + bytes (< 0 = null) | `[a, b]`, `{a, b}` in stored order |
//! | `map` | i32 count, key and value as above | `{k: v}` |
//! | `tuple` | per field i32 length + bytes; missing trailing fields are null | `(a, b, null)` |
//! | UDT | as a tuple | `{name: 1, other: 'x'}` with the decoded field names |
//! | `vector` | fixed-length elements back to back, else per element unsigned vint length + bytes (`VectorType`'s serializers) | `[1.5, 2.5]` |
//! | `ReversedType(T)` | as `T` | as `T` |
//! | `CompositeType` | per component u16 length, bytes, end-of-component byte (optional `FFFF` static prefix) | `a:b` like `AbstractCompositeType.getString`: each component rendered as here, `:` escaped as `\:`, a `!` appended after a trailing `\` or `!`, a non-zero end-of-component byte ends the value with `:!` (> 0) or `:_` (< 0) |
//! | `DynamicCompositeType` | per component a u16 header (alias `0x80xx` or class-name length + name), then as `CompositeType` | `alias@value` or `class@value` per component, joined and escaped as above (`a@1:org.apache.cassandra.db.marshal.UTF8Type@x`) |
//! | `EmptyType` | nothing | empty string |
//! | custom types, `ColumnToCollectionType` | raw | `0x…` with a note |
//!
//! A value that does not decode as its type (wrong length for an int, invalid UTF-8, a
//! collection that claims more elements than its bytes hold, …) is shown as `0x…` hex with a
//! [`FormattedValue::note`] saying why; a malformed element inside a collection is shown as hex
//! in place and its note is passed up, prefixed with where it is. An empty (0-byte) value of a
//! type that has a non-empty encoding is shown as an empty string with a note, as cqlsh shows
//! Cassandra's "empty" values. Nothing here panics; counts read from the value are checked
//! against the bytes that remain before they drive anything.
//!
//! # Parsing
//!
//! [`parse_value`] accepts, per type: the forms above; integers with an optional sign; `true`
//! / `false` (any case); `0x…` or bare hex for blobs; timestamps as integer milliseconds or
//! ISO 8601 dates and times (`2021-05-14`, `2021-05-14 10:06`, `2021-05-14T10:06:20.251Z`,
//! offsets `+02:00` / `+0200` / `+02` / `Z`; **no zone means UTC**, where Cassandra would use
//! its server's zone); dates as `YYYY-MM-DD` or the raw unsigned day number; times as
//! `HH:MM:SS[.fffffffff]` or raw nanoseconds; durations in Cassandra's unit form
//! (`1h30m`, `-2d`, units `y mo w d h m s ms us µs ns`) or ISO 8601 (`P1Y2M3DT4H`, `P2W`);
//! IPv4/IPv6 text; UUIDs in `8-4-4-4-12` form (a `timeuuid` must be version 1); `NaN`,
//! `Infinity` for floats. Frozen collections, tuples, UDTs and vectors take cqlsh's literal
//! syntax (`[1, 2]`, `{'a': 1}`, `(1, 'x')`, `{f: 1}`); their elements are written in the order
//! given (Cassandra stores set elements and map keys sorted by their type: write them sorted, as
//! they are printed). Strings inside literals are quoted `'…'` with `''` for a quote; bare
//! words are accepted for every element type and end at a blank, `,`, a bracket or a `:` (a
//! `time`, `timestamp`, `date` or `inet` word keeps a `:` that a letter or digit follows), so
//! quote anything else that holds those characters. A UDT literal may give its fields in any
//! order (names matched exactly, else case-insensitively); fields left out are null, as are
//! missing trailing tuple fields.
//!
//! **Backslash escapes.** Because text values are printed with cqlsh's escapes, parsing a text
//! value (top level or quoted) undoes them: `\\` → `\`, `\n` `\t` `\r`, `\xNN`, `\uNNNN`,
//! `\UNNNNNNNN`. A backslash followed by anything else is kept as it is. So what
//! [`format_value`] prints always parses back to the same bytes, but a key typed as `C:\temp`
//! means `C:` + TAB + `emp`; type `C:\\temp`.
//!
//! [`parse_partition_key`] adds, for a `CompositeType` key, the components separated by `:`
//! exactly as [`format_value`] (and sstabledump) prints them: a `:` inside a component is
//! written `\:`, and a component that ends with `\` or `!` gets one more `!` appended
//! (`AbstractCompositeType.escape`). A key that is `0x` followed only by hex digits is taken
//! as the raw key bytes, whatever the key type (so a text key that looks like that can only be
//! given in hex).

// Not yet checked for unchecked arithmetic (owned elsewhere; issue #11 item 1).
#[allow(clippy::arithmetic_side_effects)]
mod format;
mod num;
mod parse;
mod temporal;
#[cfg(test)]
mod tests;
mod text;

use core::fmt;

use serde::Serialize;

pub use format::{
    format_cell_path, format_nested_value, format_value, split_composite_key, KeyComponent,
};
pub(crate) use num::{f32_parts, f64_parts, may_tie, push_double, push_float};
pub use parse::{parse_partition_key, parse_value};

/// Longest `varint` (or `decimal` unscaled value) converted to decimal digits, in bytes; longer
/// ones are shown in hex with a note (the conversion is quadratic in the length).
pub const MAX_BIGNUM_BYTES: usize = 16 * 1024;

/// A rendered value: the text, and why it is not the plain rendering when it is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormattedValue {
    /// The value as cqlsh would show it, or `0x…` hex when it does not decode.
    pub text: String,
    /// Why the value is shown differently from a well-formed value of its type (hex fallback,
    /// empty value, out-of-range year, …); `None` for an ordinary value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl FormattedValue {
    /// A well-formed value.
    pub fn plain(text: impl Into<String>) -> Self {
        FormattedValue {
            text: text.into(),
            note: None,
        }
    }

    /// A value with a note.
    pub fn noted(text: impl Into<String>, note: impl Into<String>) -> Self {
        FormattedValue {
            text: text.into(),
            note: Some(note.into()),
        }
    }

    /// `bytes` as `0x…` hex, with a note saying why.
    pub fn hex(bytes: &[u8], note: impl Into<String>) -> Self {
        Self::noted(text::hex(bytes), note)
    }
}

impl fmt::Display for FormattedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a typed-in value could not be turned into bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueParseError {
    /// Byte offset in the input text where the problem was found.
    pub position: usize,
    /// What is wrong ("expected …, found …").
    pub message: String,
}

impl ValueParseError {
    pub(crate) fn new(position: usize, message: impl Into<String>) -> Self {
        ValueParseError {
            position,
            message: message.into(),
        }
    }

    /// The same error, `by` bytes further into a larger input.
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        self.position = self.position.saturating_add(by);
        self
    }
}

impl fmt::Display for ValueParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset {})", self.message, self.position)
    }
}

impl std::error::Error for ValueParseError {}
