//! Column builders: serialized CQL values (borrowed from the decode window) appended to Arrow
//! builders, one builder tree per column ([`ValueBuilder`]).
//!
//! | value | bytes |
//! |---|---|
//! | fixed-width numbers, `timestamp`, `date`, `time`, `uuid` | big-endian, exact length |
//! | frozen `list`, `set` | i32 count, per element i32 length (< 0: null) + bytes |
//! | frozen `map` | i32 count, per entry key and value as list elements |
//! | tuple, frozen UDT | per field i32 length (< 0: null) + bytes; missing trailing fields are null |
//! | `vector<T, n>` | `n` fixed-length elements back to back, else per element an unsigned vint length + bytes |
//! | `duration` | signed vints: months, days, nanoseconds |
//! | non-frozen collection / UDT | one cell per element: list values, set elements in the cell path, map keys in the path and values in the value, UDT fields by their 2-byte index in the path |
//!
//! A value that does not decode as its type (wrong length, invalid UTF-8, a collection whose
//! counts exceed its bytes) becomes null and is counted in [`ValueCounts::undecodable`]; a
//! 0-byte value of a type that has no empty form (Cassandra's "empty" value) becomes null and is
//! counted in [`ValueCounts::empty`]. Nothing panics and nothing is allocated from a length read
//! from the value: every count is checked against the bytes that remain, in a first pass,
//! before anything is appended.
//!
//! Src: `serializers/CollectionSerializer.java`, `ListSerializer.java`, `MapSerializer.java`,
//! `TupleType.java`, `UserType.java`, `VectorType.java`, `DurationSerializer.java`.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, FixedSizeBinaryBuilder, Float32Builder,
    Float64Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder,
    Time64NanosecondBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, ListArray, MapArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::ArrowError;
use sstable_engine::reader::Reader;
use sstable_engine::types::value::format_value;

use crate::types::{duration_fields, list_item_field, map_entries_field, struct_fields, Mapped};

/// Values that became null because they did not decode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValueCounts {
    /// Values (or collection elements) that did not decode as their type.
    pub undecodable: u64,
    /// 0-byte values of types without an empty form.
    pub empty: u64,
}

/// 2^31: the `date` of 1970-01-01 (`SimpleDateSerializer`).
const DATE_EPOCH: i64 = 1 << 31;

/// Appends values of one CQL type to Arrow builders.
pub(crate) struct ValueBuilder {
    mapped: Mapped,
    kind: Kind,
}

// One per column and nested type, never in bulk: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Kind {
    Boolean(BooleanBuilder),
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    Float32(Float32Builder),
    Float64(Float64Builder),
    Utf8(StringBuilder),
    Binary(BinaryBuilder),
    Uuid(FixedSizeBinaryBuilder),
    TimestampMs(TimestampMillisecondBuilder),
    Date32(Date32Builder),
    Time64Ns(Time64NanosecondBuilder),
    Duration {
        months: Int32Builder,
        days: Int32Builder,
        nanos: Int64Builder,
        nulls: NullBufferBuilder,
    },
    List {
        element: Box<ValueBuilder>,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
    },
    Map {
        keys: Box<ValueBuilder>,
        values: Box<ValueBuilder>,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
    },
    Struct {
        fields: Vec<ValueBuilder>,
        nulls: NullBufferBuilder,
        /// Non-frozen UDTs: the next field a cell may fill.
        next_field: usize,
    },
}

/// The elements of a serialized collection: i32 count, then i32 length + bytes each.
struct Elements<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Elements<'a> {
    /// Checks the count against the bytes (each element takes at least 4) before any use.
    fn new(bytes: &'a [u8], per_element: usize) -> Option<Elements<'a>> {
        let (count, rest) = split_i32(bytes)?;
        let count = usize::try_from(count).ok()?;
        if count > rest.len() / per_element.max(1) {
            return None;
        }
        Some(Elements { rest, left: count })
    }

    /// The next element (`None` inside for a null one); `Err` when the bytes end early.
    fn next_element(&mut self) -> Result<Option<&'a [u8]>, ()> {
        let (len, rest) = split_i32(self.rest).ok_or(())?;
        if len < 0 {
            self.rest = rest;
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| ())?;
        let value = rest.get(..len).ok_or(())?;
        self.rest = rest.get(len..).ok_or(())?;
        Ok(Some(value))
    }

    /// Whether `count` elements (`per_entry` each: 1 for list elements, 2 for map entries)
    /// read exactly to the end of the bytes.
    fn check(mut self, per_entry: usize) -> bool {
        let total = self.left.saturating_mul(per_entry);
        for _ in 0..total {
            if self.next_element().is_err() {
                return false;
            }
        }
        self.rest.is_empty()
    }
}

fn split_i32(bytes: &[u8]) -> Option<(i32, &[u8])> {
    let (head, rest) = bytes.split_first_chunk::<4>()?;
    Some((i32::from_be_bytes(*head), rest))
}

/// Tuple / UDT fields: per field an i32 length (< 0: null) and bytes; `Err` when malformed.
fn struct_fields_of(bytes: &[u8], field_count: usize) -> Result<StructFields<'_>, ()> {
    // First pass: every field in bounds, nothing after the last one.
    let mut walk = StructFields {
        rest: bytes,
        left: field_count,
    };
    while !walk.rest.is_empty() {
        if walk.left == 0 {
            return Err(());
        }
        walk.left = walk.left.saturating_sub(1);
        let (len, rest) = split_i32(walk.rest).ok_or(())?;
        let len = usize::try_from(len).unwrap_or(0);
        walk.rest = rest.get(len..).ok_or(())?;
    }
    Ok(StructFields {
        rest: bytes,
        left: field_count,
    })
}

struct StructFields<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for StructFields<'a> {
    /// `None` inside: a null (or missing trailing) field.
    type Item = Option<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left = self.left.saturating_sub(1);
        let Some((len, rest)) = split_i32(self.rest) else {
            return Some(None);
        };
        if len < 0 {
            self.rest = rest;
            return Some(None);
        }
        let len = usize::try_from(len).unwrap_or(0);
        let value = rest.get(..len);
        self.rest = rest.get(len..).unwrap_or_default();
        Some(value)
    }
}

/// The elements of a `vector<T, n>` value, checked: `n` slices.
fn vector_elements(bytes: &[u8], dimension: u32, fixed: Option<u32>) -> Option<Vec<&[u8]>> {
    let n = usize::try_from(dimension).ok()?;
    match fixed {
        Some(width) => {
            let width = usize::try_from(width).ok()?;
            if width == 0 || bytes.len() != n.checked_mul(width)? {
                return None;
            }
            Some(bytes.chunks_exact(width).collect())
        }
        None => {
            // Each element takes at least one byte (its vint length).
            if n > bytes.len() {
                return None;
            }
            let mut r = Reader::new(bytes, 0);
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(r.vint_length_bytes("vector element").ok()?);
            }
            r.is_empty().then_some(out)
        }
    }
}

/// A list or set offset after `len` children (`i32`, as Arrow's `List` has).
fn offset(len: usize) -> Result<i32, ArrowError> {
    i32::try_from(len).map_err(|_| {
        ArrowError::InvalidArgumentError(
            "more than 2^31 collection elements in one batch".to_owned(),
        )
    })
}

impl ValueBuilder {
    pub(crate) fn new(mapped: &Mapped) -> ValueBuilder {
        let kind = match mapped {
            Mapped::Boolean => Kind::Boolean(BooleanBuilder::new()),
            Mapped::Int8 => Kind::Int8(Int8Builder::new()),
            Mapped::Int16 => Kind::Int16(Int16Builder::new()),
            Mapped::Int32 => Kind::Int32(Int32Builder::new()),
            Mapped::Int64 | Mapped::Counter => Kind::Int64(Int64Builder::new()),
            Mapped::Float32 => Kind::Float32(Float32Builder::new()),
            Mapped::Float64 => Kind::Float64(Float64Builder::new()),
            Mapped::Utf8 | Mapped::Text(_) => Kind::Utf8(StringBuilder::new()),
            Mapped::Binary => Kind::Binary(BinaryBuilder::new()),
            Mapped::Uuid => Kind::Uuid(FixedSizeBinaryBuilder::new(16)),
            Mapped::TimestampMs => {
                Kind::TimestampMs(TimestampMillisecondBuilder::new().with_timezone("UTC"))
            }
            Mapped::Date32 => Kind::Date32(Date32Builder::new()),
            Mapped::Time64Ns => Kind::Time64Ns(Time64NanosecondBuilder::new()),
            Mapped::Duration => Kind::Duration {
                months: Int32Builder::new(),
                days: Int32Builder::new(),
                nanos: Int64Builder::new(),
                nulls: NullBufferBuilder::new(0),
            },
            Mapped::List { element, .. } | Mapped::Vector { element, .. } => Kind::List {
                element: Box::new(ValueBuilder::new(element)),
                offsets: vec![0],
                nulls: NullBufferBuilder::new(0),
            },
            Mapped::Map { key, value } => Kind::Map {
                keys: Box::new(ValueBuilder::new(key)),
                values: Box::new(ValueBuilder::new(value)),
                offsets: vec![0],
                nulls: NullBufferBuilder::new(0),
            },
            Mapped::Struct(fields) => Kind::Struct {
                fields: fields.iter().map(|(_, m)| ValueBuilder::new(m)).collect(),
                nulls: NullBufferBuilder::new(0),
                next_field: 0,
            },
        };
        ValueBuilder {
            mapped: mapped.clone(),
            kind,
        }
    }

    /// Appends a null.
    pub(crate) fn append_null(&mut self) {
        match &mut self.kind {
            Kind::Boolean(b) => b.append_null(),
            Kind::Int8(b) => b.append_null(),
            Kind::Int16(b) => b.append_null(),
            Kind::Int32(b) => b.append_null(),
            Kind::Int64(b) => b.append_null(),
            Kind::Float32(b) => b.append_null(),
            Kind::Float64(b) => b.append_null(),
            Kind::Utf8(b) => b.append_null(),
            Kind::Binary(b) => b.append_null(),
            Kind::Uuid(b) => b.append_null(),
            Kind::TimestampMs(b) => b.append_null(),
            Kind::Date32(b) => b.append_null(),
            Kind::Time64Ns(b) => b.append_null(),
            Kind::Duration {
                months,
                days,
                nanos,
                nulls,
            } => {
                months.append_value(0);
                days.append_value(0);
                nanos.append_value(0);
                nulls.append_null();
            }
            Kind::List { offsets, nulls, .. } | Kind::Map { offsets, nulls, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
                nulls.append_null();
            }
            Kind::Struct { fields, nulls, .. } => {
                for f in fields.iter_mut() {
                    f.append_null();
                }
                nulls.append_null();
            }
        }
    }

    /// Appends a serialized value (null when it does not decode, counted in `counts`).
    pub(crate) fn append_bytes(&mut self, bytes: &[u8], counts: &mut ValueCounts) {
        if bytes.is_empty() && !self.allows_empty() {
            counts.empty = counts.empty.saturating_add(1);
            self.append_null();
            return;
        }
        if !self.try_append(bytes, counts) {
            counts.undecodable = counts.undecodable.saturating_add(1);
            self.append_null();
        }
    }

    /// Appends a `counter` total.
    pub(crate) fn append_i64(&mut self, v: i64) {
        match &mut self.kind {
            Kind::Int64(b) => b.append_value(v),
            Kind::Utf8(b) => b.append_value(v.to_string()),
            _ => self.append_null(),
        }
    }

    /// Whether a 0-byte value is an ordinary value (text, blob; rendered text shows `dump`'s
    /// rendering of Cassandra's empty value).
    fn allows_empty(&self) -> bool {
        matches!(self.mapped, Mapped::Utf8 | Mapped::Binary | Mapped::Text(_))
    }

    /// Appends `bytes` when they decode; false (nothing appended) when they do not.
    fn try_append(&mut self, bytes: &[u8], counts: &mut ValueCounts) -> bool {
        match &mut self.kind {
            Kind::Boolean(b) => match bytes {
                [v] => {
                    b.append_value(*v != 0);
                    true
                }
                _ => false,
            },
            Kind::Int8(b) => be(bytes)
                .map(|v| b.append_value(i8::from_be_bytes(v)))
                .is_some(),
            Kind::Int16(b) => be(bytes)
                .map(|v| b.append_value(i16::from_be_bytes(v)))
                .is_some(),
            Kind::Int32(b) => be(bytes)
                .map(|v| b.append_value(i32::from_be_bytes(v)))
                .is_some(),
            Kind::Int64(b) => be(bytes)
                .map(|v| b.append_value(i64::from_be_bytes(v)))
                .is_some(),
            Kind::Float32(b) => be(bytes)
                .map(|v| b.append_value(f32::from_be_bytes(v)))
                .is_some(),
            Kind::Float64(b) => be(bytes)
                .map(|v| b.append_value(f64::from_be_bytes(v)))
                .is_some(),
            Kind::TimestampMs(b) => be(bytes)
                .map(|v| b.append_value(i64::from_be_bytes(v)))
                .is_some(),
            Kind::Date32(b) => be(bytes)
                .and_then(|v| i32::try_from(i64::from(u32::from_be_bytes(v)) - DATE_EPOCH).ok())
                .map(|d| b.append_value(d))
                .is_some(),
            Kind::Time64Ns(b) => be(bytes)
                .map(i64::from_be_bytes)
                .filter(|n| (0..86_400_000_000_000).contains(n))
                .map(|n| b.append_value(n))
                .is_some(),
            Kind::Uuid(b) => bytes.len() == 16 && b.append_value(bytes).is_ok(),
            Kind::Binary(b) => {
                b.append_value(bytes);
                true
            }
            Kind::Utf8(b) => match &self.mapped {
                Mapped::Text(t) => {
                    let f = format_value(t, bytes);
                    if f.note.is_some() && f.text.starts_with("0x") {
                        return false;
                    }
                    b.append_value(&f.text);
                    true
                }
                _ => match core::str::from_utf8(bytes) {
                    Ok(s) => {
                        b.append_value(s);
                        true
                    }
                    Err(_) => false,
                },
            },
            Kind::Duration {
                months,
                days,
                nanos,
                nulls,
            } => {
                let mut r = Reader::new(bytes, 0);
                let (Ok(m), Ok(d), Ok(n)) = (
                    r.signed_vint("months"),
                    r.signed_vint("days"),
                    r.signed_vint("nanoseconds"),
                ) else {
                    return false;
                };
                let (Ok(m), Ok(d)) = (i32::try_from(m), i32::try_from(d)) else {
                    return false;
                };
                if !r.is_empty() {
                    return false;
                }
                months.append_value(m);
                days.append_value(d);
                nanos.append_value(n);
                nulls.append_non_null();
                true
            }
            Kind::List {
                element,
                offsets,
                nulls,
            } => {
                let elements: Vec<Option<&[u8]>> = match &self.mapped {
                    Mapped::Vector {
                        dimension,
                        fixed_bytes,
                        ..
                    } => match vector_elements(bytes, *dimension, *fixed_bytes) {
                        Some(v) => v.into_iter().map(Some).collect(),
                        None => return false,
                    },
                    _ => {
                        let Some(walk) = Elements::new(bytes, 4) else {
                            return false;
                        };
                        let mut check = Elements {
                            rest: walk.rest,
                            left: walk.left,
                        };
                        if !Elements::check(
                            Elements {
                                rest: walk.rest,
                                left: walk.left,
                            },
                            1,
                        ) {
                            return false;
                        }
                        let mut out = Vec::with_capacity(walk.left);
                        for _ in 0..walk.left {
                            match check.next_element() {
                                Ok(v) => out.push(v),
                                Err(()) => return false,
                            }
                        }
                        out
                    }
                };
                for e in elements {
                    match e {
                        Some(v) => element.append_bytes(v, counts),
                        None => element.append_null(),
                    }
                }
                let Ok(end) = offset(element.len()) else {
                    return false;
                };
                offsets.push(end);
                nulls.append_non_null();
                true
            }
            Kind::Map {
                keys,
                values,
                offsets,
                nulls,
            } => {
                let Some(walk) = Elements::new(bytes, 8) else {
                    return false;
                };
                if !Elements::check(
                    Elements {
                        rest: walk.rest,
                        left: walk.left,
                    },
                    2,
                ) {
                    return false;
                }
                let mut walk = walk;
                for _ in 0..walk.left {
                    let (Ok(k), Ok(v)) = (walk.next_element(), walk.next_element()) else {
                        return false;
                    };
                    append_entry(keys, values, k, v, counts);
                }
                let Ok(end) = offset(keys.len()) else {
                    return false;
                };
                offsets.push(end);
                nulls.append_non_null();
                true
            }
            Kind::Struct { fields, nulls, .. } => {
                let Ok(values) = struct_fields_of(bytes, fields.len()) else {
                    return false;
                };
                for (f, v) in fields.iter_mut().zip(values) {
                    match v {
                        Some(v) => f.append_bytes(v, counts),
                        None => f.append_null(),
                    }
                }
                nulls.append_non_null();
                true
            }
        }
    }

    /// Starts a non-frozen collection or UDT value (its cells follow).
    pub(crate) fn begin_cells(&mut self) {
        if let Kind::Struct { next_field, .. } = &mut self.kind {
            *next_field = 0;
        }
    }

    /// One cell of a non-frozen collection or UDT.
    pub(crate) fn append_cell(&mut self, path: &[u8], value: &[u8], counts: &mut ValueCounts) {
        let is_set = matches!(self.mapped, Mapped::List { is_set: true, .. });
        match &mut self.kind {
            Kind::List { element, .. } => {
                element.append_bytes(if is_set { path } else { value }, counts);
            }
            Kind::Map { keys, values, .. } => {
                append_entry(keys, values, Some(path), Some(value), counts);
            }
            Kind::Struct {
                fields, next_field, ..
            } => {
                let index = match <[u8; 2]>::try_from(path) {
                    Ok(i) => usize::from(u16::from_be_bytes(i)),
                    Err(_) => usize::MAX,
                };
                if index < *next_field || index >= fields.len() {
                    counts.undecodable = counts.undecodable.saturating_add(1);
                    return;
                }
                for f in fields.iter_mut().take(index).skip(*next_field) {
                    f.append_null();
                }
                if let Some(f) = fields.get_mut(index) {
                    f.append_bytes(value, counts);
                }
                *next_field = index.saturating_add(1);
            }
            _ => counts.undecodable = counts.undecodable.saturating_add(1),
        }
    }

    /// Ends a non-frozen value; `any_cell`: whether a live cell was appended (an empty
    /// collection is null, as in CQL).
    pub(crate) fn end_cells(&mut self, any_cell: bool) -> Result<(), ArrowError> {
        match &mut self.kind {
            Kind::List {
                element,
                offsets,
                nulls,
            } => {
                offsets.push(offset(element.len())?);
                nulls.append(any_cell);
            }
            Kind::Map {
                keys,
                offsets,
                nulls,
                ..
            } => {
                offsets.push(offset(keys.len())?);
                nulls.append(any_cell);
            }
            Kind::Struct {
                fields,
                nulls,
                next_field,
            } => {
                for f in fields.iter_mut().skip(*next_field) {
                    f.append_null();
                }
                *next_field = 0;
                nulls.append(any_cell);
            }
            _ => self.append_null(),
        }
        Ok(())
    }

    /// Values appended so far.
    pub(crate) fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        match &self.kind {
            Kind::Boolean(b) => b.len(),
            Kind::Int8(b) => b.len(),
            Kind::Int16(b) => b.len(),
            Kind::Int32(b) => b.len(),
            Kind::Int64(b) => b.len(),
            Kind::Float32(b) => b.len(),
            Kind::Float64(b) => b.len(),
            Kind::Utf8(b) => b.len(),
            Kind::Binary(b) => b.len(),
            Kind::Uuid(b) => b.len(),
            Kind::TimestampMs(b) => b.len(),
            Kind::Date32(b) => b.len(),
            Kind::Time64Ns(b) => b.len(),
            Kind::Duration { nulls, .. } | Kind::Struct { nulls, .. } => nulls.len(),
            Kind::List { offsets, .. } | Kind::Map { offsets, .. } => {
                offsets.len().saturating_sub(1)
            }
        }
    }

    /// The values appended since the last call, as an array (the builders start over).
    pub(crate) fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        Ok(match &mut self.kind {
            Kind::Boolean(b) => Arc::new(b.finish()),
            Kind::Int8(b) => Arc::new(b.finish()),
            Kind::Int16(b) => Arc::new(b.finish()),
            Kind::Int32(b) => Arc::new(b.finish()),
            Kind::Int64(b) => Arc::new(b.finish()),
            Kind::Float32(b) => Arc::new(b.finish()),
            Kind::Float64(b) => Arc::new(b.finish()),
            Kind::Utf8(b) => Arc::new(b.finish()),
            Kind::Binary(b) => Arc::new(b.finish()),
            Kind::Uuid(b) => Arc::new(b.finish()),
            Kind::TimestampMs(b) => Arc::new(b.finish()),
            Kind::Date32(b) => Arc::new(b.finish()),
            Kind::Time64Ns(b) => Arc::new(b.finish()),
            Kind::Duration {
                months,
                days,
                nanos,
                nulls,
            } => Arc::new(StructArray::try_new(
                duration_fields(),
                vec![
                    Arc::new(months.finish()),
                    Arc::new(days.finish()),
                    Arc::new(nanos.finish()),
                ],
                nulls.finish(),
            )?),
            Kind::List {
                element,
                offsets,
                nulls,
            } => {
                let item = match &self.mapped {
                    Mapped::List { element, .. } | Mapped::Vector { element, .. } => {
                        list_item_field(element)
                    }
                    _ => return Err(mismatch()),
                };
                let offsets = std::mem::replace(offsets, vec![0]);
                Arc::new(ListArray::try_new(
                    item,
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    element.finish()?,
                    nulls.finish(),
                )?)
            }
            Kind::Map {
                keys,
                values,
                offsets,
                nulls,
            } => {
                let Mapped::Map { key, value } = &self.mapped else {
                    return Err(mismatch());
                };
                let entries_field = map_entries_field(key, value);
                let arrow_schema::DataType::Struct(entry_fields) = entries_field.data_type() else {
                    return Err(mismatch());
                };
                let entries = StructArray::try_new(
                    entry_fields.clone(),
                    vec![keys.finish()?, values.finish()?],
                    None,
                )?;
                let offsets = std::mem::replace(offsets, vec![0]);
                Arc::new(MapArray::try_new(
                    entries_field,
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    entries,
                    nulls.finish(),
                    false,
                )?)
            }
            Kind::Struct { fields, nulls, .. } => {
                let Mapped::Struct(defs) = &self.mapped else {
                    return Err(mismatch());
                };
                let arrays = fields
                    .iter_mut()
                    .map(ValueBuilder::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                let len = nulls.len();
                let nulls = nulls.finish();
                if defs.is_empty() {
                    Arc::new(StructArray::new_empty_fields(len, nulls))
                } else {
                    Arc::new(StructArray::try_new(struct_fields(defs), arrays, nulls)?)
                }
            }
        })
    }
}

/// A map entry: skipped (and counted) when its key does not decode, as a map key cannot be null.
fn append_entry(
    keys: &mut ValueBuilder,
    values: &mut ValueBuilder,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    counts: &mut ValueCounts,
) {
    let before = counts.undecodable;
    let Some(key) = key else {
        counts.undecodable = counts.undecodable.saturating_add(1);
        return;
    };
    let mut key_counts = ValueCounts::default();
    if key.is_empty() && !keys.allows_empty() || !keys.try_append(key, &mut key_counts) {
        counts.undecodable = before.saturating_add(1);
        return;
    }
    counts.undecodable = counts.undecodable.saturating_add(key_counts.undecodable);
    counts.empty = counts.empty.saturating_add(key_counts.empty);
    match value {
        Some(v) => values.append_bytes(v, counts),
        None => values.append_null(),
    }
}

fn mismatch() -> ArrowError {
    ArrowError::SchemaError("builder and mapping disagree".to_owned())
}

fn be<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    <[u8; N]>::try_from(bytes).ok()
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::Array;
    use sstable_engine::types::parse_type;
    use sstable_engine::types::value::parse_value;

    use super::*;
    use crate::TypeMapping;

    fn builder(t: &str) -> (ValueBuilder, sstable_engine::types::AbstractType) {
        let t = parse_type(t).unwrap();
        (ValueBuilder::new(&Mapped::of(&t, TypeMapping::Nested)), t)
    }

    /// Appends each value; returns the array and the counts.
    fn append_all(t: &str, values: &[&[u8]]) -> (ArrayRef, ValueCounts) {
        let (mut b, _) = builder(t);
        let mut counts = ValueCounts::default();
        for v in values {
            b.append_bytes(v, &mut counts);
        }
        (b.finish().unwrap(), counts)
    }

    #[test]
    fn malformed_values_are_null_and_counted_never_a_panic() {
        let list = parse_value(
            &parse_type("FrozenType(ListType(Int32Type))").unwrap(),
            "[1, 2]",
        )
        .unwrap();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("Int32Type", vec![0, 0, 1]),
            ("LongType", vec![1; 9]),
            ("UTF8Type", vec![0xff, 0xfe]),
            ("UUIDType", vec![0; 15]),
            ("TimeType", (-1i64).to_be_bytes().to_vec()),
            // Two vints, not three.
            ("DurationType", vec![2, 4]),
            // A month count beyond i32.
            ("DurationType", vec![0xf8, 0xff, 0xff, 0xff, 0xfe, 0, 0]),
            // A count far beyond the bytes, a truncated element, a trailing byte.
            (
                "FrozenType(ListType(Int32Type))",
                vec![0x7f, 0xff, 0xff, 0xff],
            ),
            (
                "FrozenType(ListType(Int32Type))",
                list[..list.len() - 1].to_vec(),
            ),
            (
                "FrozenType(ListType(Int32Type))",
                [list.as_slice(), &[0]].concat(),
            ),
            (
                "FrozenType(MapType(Int32Type,Int32Type))",
                vec![0, 0, 0, 1, 0, 0, 0, 4],
            ),
            ("TupleType(Int32Type)", vec![0, 0, 0, 4, 0, 0, 0, 1, 9]),
            ("VectorType(Int32Type , 2)", vec![0; 7]),
        ];
        for (t, bytes) in &cases {
            let (array, counts) = append_all(t, &[bytes]);
            assert_eq!(array.len(), 1, "{t}");
            assert!(array.is_null(0), "{t}: {bytes:?}");
            assert_eq!(counts.undecodable, 1, "{t}: {bytes:?}");
        }
        // Every truncation of a valid nested value: one row each, never a panic.
        let t = "FrozenType(MapType(UTF8Type,FrozenType(ListType(TupleType(Int32Type,UTF8Type)))))";
        let full = parse_value(
            &parse_type(t).unwrap(),
            "{'a': [(1, 'x'), (2, null)], 'b': []}",
        )
        .unwrap();
        let prefixes: Vec<&[u8]> = (0..=full.len()).map(|n| &full[..n]).collect();
        let (array, counts) = append_all(t, &prefixes);
        assert_eq!(array.len(), prefixes.len());
        assert_eq!(
            array.null_count(),
            prefixes.len() - 1,
            "only the whole value decodes"
        );
        assert_eq!(counts.undecodable + counts.empty, prefixes.len() as u64 - 1);
    }

    #[test]
    fn empty_values_are_null_except_for_text_and_blob() {
        let (ints, counts) = append_all("Int32Type", &[&[], &[0, 0, 0, 5]]);
        assert!(ints.is_null(0));
        assert_eq!(ints.as_primitive::<Int32Type>().value(1), 5);
        assert_eq!(counts.empty, 1);
        let (text, counts) = append_all("UTF8Type", &[&[]]);
        assert_eq!(text.as_string::<i32>().value(0), "");
        assert_eq!(counts, ValueCounts::default());
    }

    #[test]
    fn non_frozen_cells_gather_into_one_value() {
        // A UDT whose field 1 is missing and field 2 is set: field 1 is null.
        let (mut b, _) = builder("UserType(ks,75,61:Int32Type,62:Int32Type,63:LongType)");
        let mut counts = ValueCounts::default();
        b.begin_cells();
        b.append_cell(&[0, 0], &7i32.to_be_bytes(), &mut counts);
        b.append_cell(&[0, 2], &9i64.to_be_bytes(), &mut counts);
        b.end_cells(true).unwrap();
        // No live cell: null.
        b.begin_cells();
        b.end_cells(false).unwrap();
        let array = b.finish().unwrap();
        let s = array.as_struct();
        assert_eq!(s.len(), 2);
        assert_eq!(s.column(0).as_primitive::<Int32Type>().value(0), 7);
        assert!(s.column(1).is_null(0));
        assert_eq!(s.column(2).as_primitive::<Int64Type>().value(0), 9);
        assert!(s.is_null(1));
        assert_eq!(counts, ValueCounts::default());
    }
}
