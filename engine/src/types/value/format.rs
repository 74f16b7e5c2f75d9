//! Bytes → text for every [`AbstractType`] (the table in the parent module's docs).

use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

use serde::Serialize;

use super::num::{big_decimal_string, push_double, push_float, twos_complement_to_decimal};
use super::temporal::{format_date, format_duration, format_time, format_timestamp};
use super::text::{composite_escape, escape_text, hex};
use super::{FormattedValue, MAX_BIGNUM_BYTES};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::Span;
use crate::types::{parse_type, AbstractType, MAX_NESTING_DEPTH};

/// How deep values may nest while formatting. Types from [`parse_type`] nest at most
/// [`MAX_NESTING_DEPTH`] deep, but a `DynamicCompositeType` value names the types of its
/// components in its own bytes, so its nesting is bounded here instead.
const MAX_FORMAT_DEPTH: usize = 2 * MAX_NESTING_DEPTH;

/// Longest vector of zero-length elements rendered (its bytes do not bound its output).
const MAX_EMPTY_ELEMENT_VECTOR: usize = 1024;

/// Renders a serialized value of type `t` the way cqlsh shows it (see the module docs). Never
/// fails: a value that does not decode is shown as `0x…` with a note.
pub fn format_value(t: &AbstractType, bytes: &[u8]) -> FormattedValue {
    fmt(t, bytes, false, 0)
}

/// A value of type `t` as cqlsh shows it inside a collection, tuple or UDT: text and the other
/// quoted types in `'…'`.
pub fn format_nested_value(t: &AbstractType, bytes: &[u8]) -> FormattedValue {
    fmt(t, bytes, true, 0)
}

/// The element a cell of a non-frozen collection or UDT column belongs to, from its cell path
/// (format doc §4.7): a list cell's 16-byte timeuuid, a set cell's element, a map cell's key
/// (both rendered as inside a collection, so text is quoted: `'k'`), a UDT cell's field name
/// (from its 2-byte field index; `field #N` when the type has no such field). A path that does
/// not decode, or a type that is not a collection or UDT, gives `0x…` hex.
pub fn format_cell_path(collection_type: &AbstractType, path: &[u8]) -> String {
    match collection_type.base() {
        AbstractType::List { .. } => match <[u8; 16]>::try_from(path) {
            Ok(uuid) => uuid_string(&uuid),
            Err(_) => hex(path),
        },
        AbstractType::Set { element, .. } => fmt(element, path, true, 0).text,
        AbstractType::Map { key, .. } => fmt(key, path, true, 0).text,
        AbstractType::UserType { fields, .. } => match <[u8; 2]>::try_from(path) {
            Ok(index) => {
                let index = u16::from_be_bytes(index);
                match fields.get(usize::from(index)) {
                    Some((name, _)) => escape_text(name, false),
                    None => format!("field #{index}"),
                }
            }
            Err(_) => hex(path),
        },
        _ => hex(path),
    }
}

/// One column of a partition key, with where its bytes are in the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyComponent {
    /// The component's bytes relative to the key's first byte: for a `CompositeType` key the
    /// u16 length, the value and the end-of-component byte (and, for a `DynamicCompositeType`,
    /// the comparator header before them); the whole key otherwise.
    pub span: Span,
    /// The value's bytes alone, relative to the key's first byte.
    pub value_span: Span,
    /// The end-of-component byte (always 0 in a partition key; 0 for a single-column key).
    pub end_of_component: u8,
    /// The rendered value.
    pub value: FormattedValue,
}

/// Splits a partition key into its columns: one per `CompositeType` (or
/// `DynamicCompositeType`) component, or the whole key for a single-column key type. Err (with
/// the offset relative to the key's first byte) when a composite key is truncated, has more
/// components than its type, or has bytes after a non-zero end-of-component byte.
pub fn split_composite_key(key_type: &AbstractType, key: &[u8]) -> Result<Vec<KeyComponent>> {
    let kind = match key_type.base() {
        AbstractType::Composite(types) => CompositeKind::Static(types),
        AbstractType::DynamicComposite(aliases) => CompositeKind::Dynamic(aliases),
        other => {
            let whole = Span::new(0, key.len() as u64);
            return Ok(vec![KeyComponent {
                span: whole,
                value_span: whole,
                end_of_component: 0,
                value: format_value(other, key),
            }]);
        }
    };
    let (_, components) = read_components(kind, key, 0)?;
    Ok(components
        .into_iter()
        .map(|c| {
            let mut value = fmt(&c.ty, c.value, false, 1);
            if let Some(why) = c.type_note {
                value.note.get_or_insert(why);
            }
            KeyComponent {
                span: Span::new(c.start as u64, c.end as u64),
                value_span: Span::new(c.value_start as u64, (c.value_start + c.value.len()) as u64),
                end_of_component: c.end_of_component,
                value,
            }
        })
        .collect())
}

/// Whether a 0-byte value is an ordinary value of `t` (rather than Cassandra's "empty" value).
fn allows_empty(t: &AbstractType) -> bool {
    matches!(
        t,
        AbstractType::Ascii
            | AbstractType::Utf8
            | AbstractType::Bytes
            | AbstractType::Empty
            | AbstractType::Composite(_)
            | AbstractType::DynamicComposite(_)
            | AbstractType::Custom(_)
            | AbstractType::ColumnToCollection(_)
            | AbstractType::PartitionerDefinedOrder { base: None, .. }
    )
}

/// The formatter behind [`format_value`]. `nested`: inside a collection, tuple or UDT (cqlsh
/// then quotes text, timestamps and inet addresses).
fn fmt(t: &AbstractType, bytes: &[u8], nested: bool, depth: usize) -> FormattedValue {
    let t = t.base();
    if depth > MAX_FORMAT_DEPTH {
        return FormattedValue::hex(bytes, "value nests too deeply to format");
    }
    if bytes.is_empty() && !allows_empty(t) {
        return FormattedValue::noted("", "empty value (0 bytes)");
    }
    match t {
        AbstractType::Ascii => ascii(bytes, nested),
        AbstractType::Utf8 => match core::str::from_utf8(bytes) {
            Ok(s) => FormattedValue::plain(escape_text(s, nested)),
            Err(e) => {
                FormattedValue::hex(bytes, format!("invalid UTF-8 at byte {}", e.valid_up_to()))
            }
        },
        AbstractType::Bytes => FormattedValue::plain(hex(bytes)),
        AbstractType::Boolean => boolean(bytes),
        AbstractType::Byte => match <[u8; 1]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(i8::from_be_bytes(b).to_string()),
            Err(_) => wrong_length(bytes, "tinyint", 1),
        },
        AbstractType::Short => match <[u8; 2]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(i16::from_be_bytes(b).to_string()),
            Err(_) => wrong_length(bytes, "smallint", 2),
        },
        AbstractType::Int32 => match <[u8; 4]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(i32::from_be_bytes(b).to_string()),
            Err(_) => wrong_length(bytes, "int", 4),
        },
        AbstractType::Long => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(i64::from_be_bytes(b).to_string()),
            Err(_) => wrong_length(bytes, "bigint", 8),
        },
        AbstractType::Counter => counter(bytes),
        AbstractType::Integer => {
            if bytes.len() > MAX_BIGNUM_BYTES {
                FormattedValue::hex(bytes, too_long("varint", bytes.len()))
            } else {
                FormattedValue::plain(twos_complement_to_decimal(bytes))
            }
        }
        AbstractType::Decimal => decimal(bytes),
        AbstractType::Double => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(double_text(f64::from_be_bytes(b))),
            Err(_) => wrong_length(bytes, "double", 8),
        },
        AbstractType::Float => match <[u8; 4]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(float_text(f32::from_be_bytes(b))),
            Err(_) => wrong_length(bytes, "float", 4),
        },
        AbstractType::Timestamp | AbstractType::Date => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => {
                let (text, note) = format_timestamp(i64::from_be_bytes(b));
                FormattedValue {
                    text: maybe_quote(text, nested),
                    note,
                }
            }
            Err(_) => wrong_length(bytes, "timestamp", 8),
        },
        AbstractType::SimpleDate => match <[u8; 4]>::try_from(bytes) {
            Ok(b) => {
                let (text, note) = format_date(u32::from_be_bytes(b));
                FormattedValue { text, note }
            }
            Err(_) => wrong_length(bytes, "date", 4),
        },
        AbstractType::Time => match <[u8; 8]>::try_from(bytes) {
            Ok(b) => {
                let nanos = i64::from_be_bytes(b);
                match format_time(nanos) {
                    Some(text) => FormattedValue::plain(text),
                    None => FormattedValue::hex(
                        bytes,
                        format!("time value {nanos} ns is outside one day"),
                    ),
                }
            }
            Err(_) => wrong_length(bytes, "time", 8),
        },
        AbstractType::Duration => duration(bytes),
        AbstractType::Inet => {
            let text = if let Ok(v4) = <[u8; 4]>::try_from(bytes) {
                Ipv4Addr::from(v4).to_string()
            } else if let Ok(v6) = <[u8; 16]>::try_from(bytes) {
                Ipv6Addr::from(v6).to_string()
            } else {
                return FormattedValue::hex(
                    bytes,
                    format!("inet value has {} bytes, expected 4 or 16", bytes.len()),
                );
            };
            FormattedValue::plain(maybe_quote(text, nested))
        }
        AbstractType::Uuid | AbstractType::LexicalUuid => match <[u8; 16]>::try_from(bytes) {
            Ok(b) => FormattedValue::plain(uuid_string(&b)),
            Err(_) => wrong_length(bytes, "uuid", 16),
        },
        AbstractType::TimeUuid => match <[u8; 16]>::try_from(bytes) {
            Ok(b) => {
                let version = b.get(6).map_or(0, |v| v >> 4);
                if version == 1 {
                    FormattedValue::plain(uuid_string(&b))
                } else {
                    FormattedValue::noted(
                        uuid_string(&b),
                        format!("a timeuuid must be version 1, this is version {version}"),
                    )
                }
            }
            Err(_) => wrong_length(bytes, "timeuuid", 16),
        },
        AbstractType::Empty => {
            if bytes.is_empty() {
                FormattedValue::plain("")
            } else {
                FormattedValue::hex(bytes, format!("EmptyType value has {} bytes", bytes.len()))
            }
        }
        AbstractType::List { element, .. } => list_like(element, bytes, ('[', ']'), "list", depth),
        AbstractType::Set { element, .. } => list_like(element, bytes, ('{', '}'), "set", depth),
        AbstractType::Map { key, value, .. } => map(key, value, bytes, depth),
        AbstractType::Tuple(types) => fields(
            types.iter().map(|t| (None, t)),
            types.len(),
            bytes,
            "tuple",
            depth,
        ),
        AbstractType::UserType { fields: f, .. } => fields(
            f.iter().map(|(name, t)| (Some(name.as_str()), t)),
            f.len(),
            bytes,
            "user type",
            depth,
        ),
        AbstractType::Vector { element, dimension } => vector(element, *dimension, bytes, depth),
        AbstractType::Composite(types) => composite(CompositeKind::Static(types), bytes, depth),
        AbstractType::DynamicComposite(aliases) => {
            composite(CompositeKind::Dynamic(aliases), bytes, depth)
        }
        AbstractType::PartitionerDefinedOrder {
            base: Some(base), ..
        } => fmt(base, bytes, nested, depth + 1),
        AbstractType::PartitionerDefinedOrder { base: None, .. } => FormattedValue::hex(
            bytes,
            "PartitionerDefinedOrder without a key type: raw bytes",
        ),
        AbstractType::ColumnToCollection(_) => {
            FormattedValue::hex(bytes, "ColumnToCollectionType: raw bytes")
        }
        AbstractType::Custom(class) => {
            FormattedValue::hex(bytes, format!("custom type {class}: raw bytes"))
        }
        // `base()` removed every ReversedType.
        AbstractType::Reversed(inner) => fmt(inner, bytes, nested, depth + 1),
    }
}

fn maybe_quote(text: String, nested: bool) -> String {
    if nested {
        format!("'{text}'")
    } else {
        text
    }
}

fn wrong_length(bytes: &[u8], name: &str, expected: usize) -> FormattedValue {
    FormattedValue::hex(
        bytes,
        format!(
            "{name} value has {} bytes, expected {expected}",
            bytes.len()
        ),
    )
}

fn too_long(name: &str, len: usize) -> String {
    format!(
        "{name} of {len} bytes is longer than the {MAX_BIGNUM_BYTES} bytes converted to decimal"
    )
}

/// `8-4-4-4-12` lowercase hex.
fn uuid_string(b: &[u8; 16]) -> String {
    let h = hex(b);
    let h = h.get(2..).unwrap_or("");
    let part = |from: usize, to: usize| h.get(from..to).unwrap_or("");
    format!(
        "{}-{}-{}-{}-{}",
        part(0, 8),
        part(8, 12),
        part(12, 16),
        part(16, 20),
        part(20, 32)
    )
}

fn ascii(bytes: &[u8], nested: bool) -> FormattedValue {
    match core::str::from_utf8(bytes) {
        Ok(s) if s.is_ascii() => FormattedValue::plain(escape_text(s, nested)),
        Ok(s) => FormattedValue::noted(
            escape_text(s, nested),
            "ascii value holds non-ASCII characters",
        ),
        Err(_) => {
            let at = bytes.iter().position(|b| !b.is_ascii()).unwrap_or(0);
            FormattedValue::hex(bytes, format!("non-ASCII byte at {at} in an ascii value"))
        }
    }
}

/// cqlsh prints Python's `str(bool)`: `True` / `False`.
fn boolean(bytes: &[u8]) -> FormattedValue {
    match bytes {
        [0] => FormattedValue::plain("False"),
        [1] => FormattedValue::plain("True"),
        [b] => FormattedValue::noted("True", format!("boolean byte 0x{b:02x} is not 0 or 1")),
        _ => wrong_length(bytes, "boolean", 1),
    }
}

fn double_text(v: f64) -> String {
    let mut out = Vec::with_capacity(24);
    push_double(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

fn float_text(v: f32) -> String {
    let mut out = Vec::with_capacity(24);
    push_float(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

/// A counter: a bare 8-byte value, or a `CounterContext` whose shards are summed.
fn counter(bytes: &[u8]) -> FormattedValue {
    if let Ok(b) = <[u8; 8]>::try_from(bytes) {
        return FormattedValue::plain(i64::from_be_bytes(b).to_string());
    }
    match counter_context_total(bytes) {
        Ok(total) => FormattedValue::plain(total.to_string()),
        Err(why) => FormattedValue::hex(bytes, why),
    }
}

/// `CounterContext.total`: i16 header count `n` (negative when local shards must be cleared),
/// `|n|` i16 shard indexes, then 32-byte shards (16-byte counter id, i64 clock, i64 count);
/// the counts are summed with wrap-around like Java's `long`.
fn counter_context_total(bytes: &[u8]) -> core::result::Result<i64, String> {
    const SHARD_BYTES: usize = 32;
    let n = match bytes {
        [a, b, ..] => i16::from_be_bytes([*a, *b]).unsigned_abs(),
        _ => {
            return Err(format!(
                "counter value has {} bytes: neither 8 bytes nor a counter context",
                bytes.len()
            ))
        }
    };
    let header_bytes = 2 + 2 * usize::from(n);
    let shards = bytes.get(header_bytes..).ok_or_else(|| {
        format!(
            "counter context header lists {n} shards but the value has only {} bytes",
            bytes.len()
        )
    })?;
    if !shards.len().is_multiple_of(SHARD_BYTES) {
        return Err(format!(
            "counter context has {} bytes of shards, not a multiple of {SHARD_BYTES}",
            shards.len()
        ));
    }
    let mut total: i64 = 0;
    for shard in shards.chunks_exact(SHARD_BYTES) {
        let count = shard
            .get(24..32)
            .and_then(|c| <[u8; 8]>::try_from(c).ok())
            .map_or(0, i64::from_be_bytes);
        total = total.wrapping_add(count);
    }
    Ok(total)
}

/// i32 scale, then the unscaled value as a varint (`DecimalSerializer`).
fn decimal(bytes: &[u8]) -> FormattedValue {
    let (Some(scale), Some(unscaled)) = (bytes.get(..4), bytes.get(4..)) else {
        return FormattedValue::hex(bytes, "decimal value shorter than its 4-byte scale");
    };
    if unscaled.is_empty() {
        return FormattedValue::hex(bytes, "decimal value has a scale but no unscaled value");
    }
    if unscaled.len() > MAX_BIGNUM_BYTES {
        return FormattedValue::hex(bytes, too_long("decimal", unscaled.len()));
    }
    let scale = <[u8; 4]>::try_from(scale).map_or(0, i32::from_be_bytes);
    FormattedValue::plain(big_decimal_string(
        &twos_complement_to_decimal(unscaled),
        scale,
    ))
}

/// Signed vints months, days, nanoseconds (`DurationSerializer`), validated like Cassandra.
fn duration(bytes: &[u8]) -> FormattedValue {
    let mut r = Reader::new(bytes, 0);
    let parts = (|| -> Result<(i64, i64, i64)> {
        Ok((
            r.signed_vint("duration months")?,
            r.signed_vint("duration days")?,
            r.signed_vint("duration nanoseconds")?,
        ))
    })();
    let (months, days, nanos) = match parts {
        Ok(p) => p,
        Err(e) => return FormattedValue::hex(bytes, format!("duration: {e}")),
    };
    if !r.is_empty() {
        return FormattedValue::hex(
            bytes,
            format!("{} bytes after the duration", r.remaining_bytes()),
        );
    }
    let (Ok(m), Ok(d)) = (i32::try_from(months), i32::try_from(days)) else {
        return FormattedValue::hex(
            bytes,
            format!("duration months {months} or days {days} do not fit in 32 bits"),
        );
    };
    let all_pos = m >= 0 && d >= 0 && nanos >= 0;
    let all_neg = m <= 0 && d <= 0 && nanos <= 0;
    if !all_pos && !all_neg {
        return FormattedValue::hex(
            bytes,
            format!("duration parts have different signs ({m}, {d}, {nanos})"),
        );
    }
    FormattedValue::plain(format_duration(m, d, nanos))
}

/// Collects the rendered parts of a collection and the first note among them.
#[derive(Default)]
struct Parts {
    items: Vec<String>,
    note: Option<String>,
}

impl Parts {
    fn push(&mut self, label: impl FnOnce() -> String, v: FormattedValue) {
        if let (None, Some(n)) = (&self.note, v.note) {
            self.note = Some(format!("{}: {n}", label()));
        }
        self.items.push(v.text);
    }

    fn finish(self, open: char, close: char) -> FormattedValue {
        let mut text = String::new();
        text.push(open);
        text.push_str(&self.items.join(", "));
        text.push(close);
        FormattedValue {
            text,
            note: self.note,
        }
    }
}

/// i32 length + bytes; a negative length is a null (`CollectionSerializer.readValue`).
fn element<'a>(r: &mut Reader<'a>, what: &'static str) -> Result<Option<&'a [u8]>> {
    let len = r.i32(what)?;
    match u64::try_from(len) {
        Ok(len) => r.bytes_u64(len, what).map(Some),
        Err(_) => Ok(None),
    }
}

/// The i32 element count of a collection, checked against the bytes that follow (each element
/// takes at least `min_bytes_each`).
fn collection_count(
    r: &mut Reader<'_>,
    bytes: &[u8],
    what: &str,
    min_bytes_each: u64,
) -> core::result::Result<usize, FormattedValue> {
    let count = r
        .i32("collection size")
        .map_err(|e| FormattedValue::hex(bytes, format!("{what}: {e}")))?;
    let n = u64::try_from(count).map_err(|_| {
        FormattedValue::hex(
            bytes,
            format!("{what} has a negative element count {count}"),
        )
    })?;
    r.check_count(n, min_bytes_each, "collection elements")
        .map_err(|_| {
            FormattedValue::hex(
                bytes,
                format!(
                    "{what} claims {count} elements but only {} bytes follow",
                    r.remaining_bytes()
                ),
            )
        })
}

fn list_like(
    elem: &AbstractType,
    bytes: &[u8],
    (open, close): (char, char),
    what: &str,
    depth: usize,
) -> FormattedValue {
    let mut r = Reader::new(bytes, 0);
    let n = match collection_count(&mut r, bytes, what, 4) {
        Ok(n) => n,
        Err(hexed) => return hexed,
    };
    let mut parts = Parts::default();
    for i in 0..n {
        match element(&mut r, "collection element") {
            Ok(Some(b)) => parts.push(|| format!("element {i}"), fmt(elem, b, true, depth + 1)),
            Ok(None) => parts.items.push("null".into()),
            Err(e) => return FormattedValue::hex(bytes, format!("{what} element {i}: {e}")),
        }
    }
    if !r.is_empty() {
        return FormattedValue::hex(
            bytes,
            format!(
                "{} bytes after the last {what} element",
                r.remaining_bytes()
            ),
        );
    }
    parts.finish(open, close)
}

fn map(key: &AbstractType, value: &AbstractType, bytes: &[u8], depth: usize) -> FormattedValue {
    let mut r = Reader::new(bytes, 0);
    let n = match collection_count(&mut r, bytes, "map", 8) {
        Ok(n) => n,
        Err(hexed) => return hexed,
    };
    let mut parts = Parts::default();
    for i in 0..n {
        let entry = element(&mut r, "map key").and_then(|k| Ok((k, element(&mut r, "map value")?)));
        let (k, v) = match entry {
            Ok(kv) => kv,
            Err(e) => return FormattedValue::hex(bytes, format!("map entry {i}: {e}")),
        };
        let k = k.map_or_else(
            || FormattedValue::plain("null"),
            |b| fmt(key, b, true, depth + 1),
        );
        let v = v.map_or_else(
            || FormattedValue::plain("null"),
            |b| fmt(value, b, true, depth + 1),
        );
        let note = match (k.note, v.note) {
            (Some(n), _) => Some(format!("key: {n}")),
            (None, Some(n)) => Some(format!("value: {n}")),
            (None, None) => None,
        };
        parts.push(
            || format!("map entry {i}"),
            FormattedValue {
                text: format!("{}: {}", k.text, v.text),
                note,
            },
        );
    }
    if !r.is_empty() {
        return FormattedValue::hex(
            bytes,
            format!("{} bytes after the last map entry", r.remaining_bytes()),
        );
    }
    parts.finish('{', '}')
}

/// A tuple (`(a, b)`) or, with field names, a UDT (`{a: 1, b: 'x'}`): i32 length + bytes per
/// field, fields missing at the end are null (`TupleType.split`).
fn fields<'t>(
    types: impl Iterator<Item = (Option<&'t str>, &'t AbstractType)>,
    type_count: usize,
    bytes: &[u8],
    what: &str,
    depth: usize,
) -> FormattedValue {
    let mut r = Reader::new(bytes, 0);
    let mut parts = Parts::default();
    let mut named = false;
    for (i, (name, t)) in types.enumerate() {
        let v = if r.is_empty() {
            FormattedValue::plain("null")
        } else {
            match element(&mut r, "field") {
                Ok(Some(b)) => fmt(t, b, true, depth + 1),
                Ok(None) => FormattedValue::plain("null"),
                Err(e) => return FormattedValue::hex(bytes, format!("{what} field {i}: {e}")),
            }
        };
        match name {
            Some(name) => {
                named = true;
                let label = escape_text(name, false);
                parts.push(
                    || format!("field {label}"),
                    FormattedValue {
                        text: format!("{label}: {}", v.text),
                        note: v.note,
                    },
                );
            }
            None => parts.push(|| format!("field {i}"), v),
        }
    }
    if !r.is_empty() {
        return FormattedValue::hex(
            bytes,
            format!(
                "{what} value has more than its {type_count} fields ({} bytes left)",
                r.remaining_bytes()
            ),
        );
    }
    if named {
        parts.finish('{', '}')
    } else {
        parts.finish('(', ')')
    }
}

/// `VectorType`: fixed-length elements back to back, or an unsigned vint length before each.
fn vector(elem: &AbstractType, dimension: u32, bytes: &[u8], depth: usize) -> FormattedValue {
    let dim = usize::try_from(dimension).unwrap_or(usize::MAX);
    let mut parts = Parts::default();
    match elem.value_length_if_fixed() {
        Some(0) => {
            // Only an empty value (handled before) fits; its dimension could be anything.
            if !bytes.is_empty() || dim > MAX_EMPTY_ELEMENT_VECTOR {
                return FormattedValue::hex(bytes, "vector of zero-length elements");
            }
        }
        Some(len) => {
            let expected = u64::from(len) * u64::from(dimension);
            if bytes.len() as u64 != expected {
                return FormattedValue::hex(
                    bytes,
                    format!(
                        "vector value has {} bytes, expected {dimension} × {len} = {expected}",
                        bytes.len()
                    ),
                );
            }
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            for (i, chunk) in bytes.chunks(len).enumerate() {
                parts.push(|| format!("element {i}"), fmt(elem, chunk, true, depth + 1));
            }
        }
        None => {
            if dim > bytes.len() {
                return FormattedValue::hex(
                    bytes,
                    format!(
                        "vector of {dimension} elements cannot fit in {} bytes",
                        bytes.len()
                    ),
                );
            }
            let mut r = Reader::new(bytes, 0);
            for i in 0..dim {
                match r.vint_length_bytes("vector element") {
                    Ok(b) => parts.push(|| format!("element {i}"), fmt(elem, b, true, depth + 1)),
                    Err(e) => {
                        return FormattedValue::hex(bytes, format!("vector element {i}: {e}"))
                    }
                }
            }
            if !r.is_empty() {
                return FormattedValue::hex(
                    bytes,
                    format!(
                        "{} bytes after the last vector element",
                        r.remaining_bytes()
                    ),
                );
            }
        }
    }
    parts.finish('[', ']')
}

/// Where a composite's component types come from.
#[derive(Clone, Copy)]
enum CompositeKind<'t> {
    /// `CompositeType`: the i-th type.
    Static(&'t [AbstractType]),
    /// `DynamicCompositeType`: named in each component's header (by alias or class name).
    Dynamic(&'t [(char, AbstractType)]),
}

/// One component of a composite value.
struct Component<'a, 't> {
    /// First byte (the header or the length), relative to the value's first byte.
    start: usize,
    value_start: usize,
    value: &'a [u8],
    end_of_component: u8,
    /// One past the end-of-component byte.
    end: usize,
    /// `DynamicCompositeType`: the alias or class name that named the type.
    label: Option<String>,
    ty: Cow<'t, AbstractType>,
    /// Why the component's type is unknown (it is then read as bytes).
    type_note: Option<String>,
}

/// Reads every component (`AbstractCompositeType.validate`'s rules). `base_offset` is added to
/// error offsets. Returns whether the value had `CompositeType`'s static prefix `FFFF`.
fn read_components<'a, 't>(
    kind: CompositeKind<'t>,
    bytes: &'a [u8],
    base_offset: u64,
) -> Result<(bool, Vec<Component<'a, 't>>)> {
    let mut r = Reader::new(bytes, base_offset);
    let is_static = matches!(kind, CompositeKind::Static(_)) && bytes.starts_with(&[0xff, 0xff]);
    if is_static {
        r.skip(2, "static marker")?;
    }
    let mut out = Vec::new();
    while !r.is_empty() {
        let start = r.position();
        let (label, ty, type_note) = match kind {
            CompositeKind::Static(types) => match types.get(out.len()) {
                Some(t) => (None, Cow::Borrowed(t), None),
                None => {
                    return Err(r.invalid_at(
                        format!(
                            "more components than the {} types of the CompositeType",
                            types.len()
                        ),
                        r.offset(),
                        "composite component",
                    ))
                }
            },
            CompositeKind::Dynamic(aliases) => dynamic_header(&mut r, aliases)?,
        };
        let len = r.u16("component length")?;
        let value_start = r.position();
        let value = r.bytes(usize::from(len), "component value")?;
        let end_of_component = r.u8("end-of-component byte")?;
        out.push(Component {
            start,
            value_start,
            value,
            end_of_component,
            end: r.position(),
            label,
            ty,
            type_note,
        });
        if end_of_component != 0 && !r.is_empty() {
            return Err(r.invalid_at(
                "bytes after a non-zero end-of-component byte",
                r.offset(),
                "composite component",
            ));
        }
    }
    Ok((is_static, out))
}

type DynamicType<'t> = (Option<String>, Cow<'t, AbstractType>, Option<String>);

/// A `DynamicCompositeType` comparator header: u16 with the top bit set = alias in the low
/// byte; otherwise the length of the UTF-8 class name that follows.
fn dynamic_header<'t>(
    r: &mut Reader<'_>,
    aliases: &'t [(char, AbstractType)],
) -> Result<DynamicType<'t>> {
    let header = r.u16("comparator header")?;
    if header & 0x8000 != 0 {
        let alias = char::from((header & 0xff) as u8);
        return Ok(match aliases.iter().find(|(c, _)| *c == alias) {
            Some((_, t)) => (Some(alias.to_string()), Cow::Borrowed(t), None),
            None => (
                Some(alias.to_string()),
                Cow::Owned(AbstractType::Bytes),
                Some(format!("unknown alias '{alias}'")),
            ),
        });
    }
    let name = String::from_utf8_lossy(r.bytes(usize::from(header), "comparator name")?);
    Ok(match parse_type(&name) {
        Ok(t) => (Some(name.into_owned()), Cow::Owned(t), None),
        Err(e) => (
            Some(name.clone().into_owned()),
            Cow::Owned(AbstractType::Bytes),
            Some(format!("type '{name}': {e}")),
        ),
    })
}

/// `AbstractCompositeType.getString`: components joined by `:`, each escaped, a non-zero
/// end-of-component byte shown as `:!` / `:_`.
fn composite(kind: CompositeKind<'_>, bytes: &[u8], depth: usize) -> FormattedValue {
    let (is_static, components) = match read_components(kind, bytes, 0) {
        Ok(c) => c,
        Err(e) => return FormattedValue::hex(bytes, format!("composite: {e}")),
    };
    let mut text = String::new();
    let mut note = is_static.then(|| "static composite (FFFF prefix)".to_owned());
    for (i, c) in components.iter().enumerate() {
        if i > 0 {
            text.push(':');
        }
        if let Some(label) = &c.label {
            text.push_str(label);
            text.push('@');
        }
        let v = fmt(&c.ty, c.value, false, depth + 1);
        if note.is_none() {
            if let Some(n) = c.type_note.clone().or(v.note) {
                note = Some(format!("component {i}: {n}"));
            }
        }
        text.push_str(&composite_escape(&v.text));
        if c.end_of_component != 0 {
            text.push_str(if c.end_of_component >= 0x80 {
                ":_"
            } else {
                ":!"
            });
        }
    }
    FormattedValue { text, note }
}
