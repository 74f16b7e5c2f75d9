//! [`DumpWriter`]: partitions rendered as `sstable-inspect dump` prints them (text, sstabledump's
//! JSON, one JSON partition per line), written straight into a byte buffer from the borrowed
//! decoder's events. Values are formatted into a reused scratch buffer (integers, booleans,
//! blobs, UUIDs, text and timestamps directly; every other type through
//! [`format_value`](crate::types::value::format_value)), hex by table lookup; no `String` per
//! value and no JSON tree. The output is byte for byte what [`PartitionJson`] serialised by
//! `serde_json` gives (the CLI's golden files hold it).
//!
//! A partition is rendered when its end arrives (its findings include the end byte's), so a
//! partition cut short by an error is never printed, and memory holds one partition.

use super::json::{
    hex_pair, key, needs_escape, plain_text, push_hex, push_i64, push_padded, string, string_bytes,
    Json, DIGIT_PAIRS,
};
use super::{
    header_json, marker_json, BoundJson, DeletionInfoJson, PartitionHeaderJson, UnfilteredJson,
};
use crate::component::data::{
    CellKind, CellView, ClusteringValueState, ColumnSchema, ComplexColumnHead, DataSchema,
    DataVisitor, DeletionTime, PartitionEnd, PartitionStart, RangeTombstoneMarker, RowEnd, RowView,
    USE_ROW_TIMESTAMP,
};
use crate::cql_schema::CqlTable;
use crate::datetime::{civil_from_days, iso8601_micros, iso8601_secs};
use crate::types::value::{format_cell_path, format_value, push_double, push_float};
use crate::types::AbstractType;

/// What [`DumpWriter`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFormat {
    /// Human text: one line per partition, row and cell.
    Text,
    /// sstabledump's JSON: one pretty-printed partition object per partition; the caller writes
    /// the enclosing `[` … `]` and `,\n` between partitions.
    Json,
    /// One compact JSON partition object per line.
    JsonLines,
}

/// Renders partitions from [`DataVisitor`] events into [`DumpWriter::out`].
#[derive(Debug)]
pub struct DumpWriter<'s> {
    schema: &'s DataSchema,
    format: DumpFormat,
    now_seconds: Option<i64>,
    /// Text: the partition key's column names (`None`: `key0`, `key1`, … per component).
    key_names: Option<Vec<String>>,
    /// Text: the clustering columns' names.
    clustering_names: Vec<String>,
    /// Only partitions with one of these raw keys (all when empty).
    wanted_keys: Vec<Vec<u8>>,
    /// Rendered output not yet taken by the caller: whole partitions, and then the head of the
    /// last one, whose rows and tail are still in `rows` and `tail` (see
    /// [`DumpWriter::drain_output`]).
    out: Vec<u8>,
    tail: Vec<u8>,
    last_pending: bool,
    partitions_written: u64,
    // The current partition.
    header: Option<PartitionHeaderJson>,
    skipping: bool,
    rows: Vec<u8>,
    rows_json: Json,
    // The current row.
    cells_open: bool,
    row_json: Json,
    /// Whether the current row is the static row.
    row_is_static: bool,
    scratch: Vec<u8>,
    /// JSON: each column's name as a quoted, escaped JSON string, rendered once per SSTable
    /// (regular columns, then static columns, by column index).
    names_json: [Vec<Vec<u8>>; 2],
}

impl<'s> DumpWriter<'s> {
    /// A writer for partitions of `schema`; `table` names the columns in text output;
    /// `now_seconds` decides the `expired` flags.
    pub fn new(
        schema: &'s DataSchema,
        format: DumpFormat,
        now_seconds: Option<i64>,
        table: Option<&CqlTable>,
    ) -> Self {
        let clustering_names = match table {
            Some(t) => t.clustering.clone(),
            None => (0..schema.clustering_types.len())
                .map(|i| format!("ck{i}"))
                .collect(),
        };
        let pretty = format == DumpFormat::Json;
        DumpWriter {
            schema,
            format,
            now_seconds,
            key_names: table.map(|t| t.partition_key.clone()),
            clustering_names,
            wanted_keys: Vec::new(),
            out: Vec::new(),
            tail: Vec::new(),
            last_pending: false,
            partitions_written: 0,
            header: None,
            skipping: false,
            rows: Vec::new(),
            rows_json: Json::new(pretty, 2),
            cells_open: false,
            row_json: Json::new(pretty, 3),
            row_is_static: false,
            scratch: Vec::new(),
            names_json: [false, true].map(|is_static| {
                schema
                    .columns(is_static)
                    .iter()
                    .map(|c| {
                        let mut name = Vec::new();
                        string(&mut name, &c.name);
                        name
                    })
                    .collect()
            }),
        }
    }

    /// Writes only the partitions with one of these raw keys.
    pub fn with_wanted_keys(mut self, keys: Vec<Vec<u8>>) -> Self {
        self.wanted_keys = keys;
        self
    }

    /// Partitions rendered so far (after the key filter).
    pub fn partitions_written(&self) -> u64 {
        self.partitions_written
    }

    /// Whether rendered output waits in the writer.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty() || self.last_pending
    }

    /// Hands the rendered output to `write` in a few large pieces (no copy into one buffer)
    /// and forgets it.
    pub fn drain_output(&mut self, mut write: impl FnMut(&[u8])) {
        if !self.out.is_empty() {
            write(&self.out);
            self.out.clear();
        }
        if self.last_pending {
            write(&self.rows);
            write(&self.tail);
            self.rows.clear();
            self.tail.clear();
            self.last_pending = false;
        }
    }

    /// Moves a finished partition's rows and tail behind its head before the buffers are reused.
    fn settle_pending(&mut self) {
        if self.last_pending {
            self.out.extend_from_slice(&self.rows);
            self.out.extend_from_slice(&self.tail);
            self.tail.clear();
            self.last_pending = false;
        }
    }

    fn json(&self) -> bool {
        self.format != DumpFormat::Text
    }

    /// Text: `name=value` pairs of a key or clustering, `, `-joined.
    fn text_pairs<'v>(
        out: &mut Vec<u8>,
        names: &[String],
        values: impl IntoIterator<Item = Option<&'v [u8]>>,
    ) {
        for (i, (name, value)) in names.iter().zip(values).enumerate() {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(name.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value.unwrap_or(b"null"));
        }
    }

    fn write_partition(&mut self, header: &PartitionHeaderJson) {
        let out = &mut self.out;
        match self.format {
            DumpFormat::Text => {
                out.extend_from_slice(b"partition ");
                let names: Vec<String> = match &self.key_names {
                    Some(n) => n.clone(),
                    None => (0..header.key.len()).map(|i| format!("key{i}")).collect(),
                };
                Self::text_pairs(out, &names, header.key.iter().map(|k| Some(k.as_bytes())));
                out.extend_from_slice(b" (0x");
                out.extend_from_slice(header.key_hex.as_bytes());
                out.extend_from_slice(b") at ");
                push_i64(out, header.position as i64);
                out.push(b'\n');
                if let Some(d) = &header.deletion_info {
                    out.extend_from_slice(b"  partition deletion: marked ");
                    out.extend_from_slice(d.marked_deleted.as_bytes());
                    out.extend_from_slice(b" local ");
                    out.extend_from_slice(d.local_delete_time.as_bytes());
                    out.push(b'\n');
                }
                let tail = &mut self.tail;
                for f in &header.findings {
                    tail.extend_from_slice(b"  finding: ");
                    tail.extend_from_slice(f.as_bytes());
                    tail.push(b'\n');
                }
            }
            DumpFormat::Json | DumpFormat::JsonLines => {
                let pretty = self.format == DumpFormat::Json;
                let mut j = Json::new(pretty, 0);
                j.begin_object(out);
                key!(j, out, "partition");
                write_header_json(&mut j, out, header);
                key!(j, out, "rows");
                j.begin_array(out);
                let tail = &mut self.tail;
                j.first = self.rows_json.first;
                j.end_array(tail);
                j.end_object(tail);
                if !pretty {
                    tail.push(b'\n');
                }
            }
        }
        self.last_pending = true;
        self.partitions_written = self.partitions_written.saturating_add(1);
    }

    /// The cell's rendered value (into `scratch`) and note; `false` when it shows no value.
    fn cell_value(&mut self, column: &ColumnSchema, cell: &CellView<'_>) -> (bool, Option<String>) {
        self.scratch.clear();
        match shown_value(column, cell) {
            ShownValue::None => (false, None),
            ShownValue::Counter(total) => {
                push_i64(&mut self.scratch, total);
                (true, None)
            }
            ShownValue::Typed(t, bytes) => (true, render(&mut self.scratch, t, bytes).0),
        }
    }

    /// A cell as sstabledump's JSON object: the column's name from the per-SSTable cache, the
    /// value rendered straight into the output.
    fn cell_json(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        let expiring = cell.is_expiring();
        let tombstone = cell.kind == CellKind::Tombstone;
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        let j = &mut self.row_json;
        if !self.cells_open {
            key!(j, rows, "cells");
            j.begin_array(rows);
            self.cells_open = true;
        }
        j.elem(rows);
        j.begin_object(rows);
        key!(j, rows, "name");
        match self
            .names_json
            .get(usize::from(self.row_is_static))
            .and_then(|names| names.get(cell.column_index))
        {
            Some(name) => rows.extend_from_slice(name),
            None => string(rows, &column.name),
        }
        if let Some(p) = cell.path {
            key!(j, rows, "path");
            j.begin_array(rows);
            j.elem(rows);
            json_string_with(rows, scratch, |out| {
                ((), render_path(out, &column.column_type, p))
            });
            j.end_array(rows);
        }
        let note = match shown_value(column, cell) {
            ShownValue::None => None,
            ShownValue::Counter(total) => {
                key!(j, rows, "value");
                rows.push(b'"');
                push_i64(rows, total);
                rows.push(b'"');
                None
            }
            ShownValue::Typed(t, bytes) => {
                key!(j, rows, "value");
                json_string_with(rows, scratch, |out| render(out, t, bytes))
            }
        };
        if let Some(n) = &note {
            j.str_member(rows, "value_note", n);
        }
        if tombstone {
            key!(j, rows, "deletion_info");
            j.begin_object(rows);
            key!(j, rows, "local_delete_time");
            rows.push(b'"');
            if let Some(l) = cell.local_deletion_time {
                push_iso_secs(rows, l.secs);
            }
            rows.push(b'"');
            j.end_object(rows);
        }
        if cell.flags & USE_ROW_TIMESTAMP == 0 {
            key!(j, rows, "tstamp");
            rows.push(b'"');
            push_iso_micros(rows, cell.timestamp_micros);
            rows.push(b'"');
        }
        if expiring {
            if let Some(ttl) = cell.ttl_secs {
                j.int_member(rows, "ttl", i64::from(ttl));
            }
            if let Some(l) = cell.local_deletion_time {
                key!(j, rows, "expires_at");
                rows.push(b'"');
                push_iso_secs(rows, l.expiry_secs());
                rows.push(b'"');
            }
            j.bool_member(rows, "expired", cell.kind == CellKind::Expired);
        }
        if let Some(c) = &cell.counter {
            if !c.shards.is_empty() {
                key!(j, rows, "shards");
                j.begin_array(rows);
                for s in &c.shards {
                    j.elem(rows);
                    let text = format!(
                        "{:?} {} clock {} count {}",
                        s.kind, s.counter_id, s.clock, s.count
                    );
                    string(rows, &text);
                }
                j.end_array(rows);
            }
        }
        j.end_object(rows);
    }
}

/// What a cell shows as its value.
enum ShownValue<'a> {
    /// Nothing: a tombstone, or a set element (its path is the value).
    None,
    /// A counter's total.
    Counter(i64),
    /// The bytes, of this type (`None`: unknown).
    Typed(Option<&'a AbstractType>, &'a [u8]),
}

fn shown_value<'a>(column: &'a ColumnSchema, cell: &'a CellView<'_>) -> ShownValue<'a> {
    if cell.kind == CellKind::Tombstone {
        return ShownValue::None;
    }
    if let Some(counter) = &cell.counter {
        return ShownValue::Counter(counter.total);
    }
    let value_type = column.cell_value_type(cell.path);
    if value_type.is_none() && cell.value.is_empty() {
        return ShownValue::None;
    }
    ShownValue::Typed(value_type, cell.value)
}

/// A JSON string whose text `f` writes straight into `out` (escaped afterwards only when it
/// needs it, through `scratch`; not checked when `f` says its text needs no escape); returns
/// what `f` returns.
fn json_string_with<R>(
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

/// Writes `bytes` of type `t` like cqlsh into `out`; returns the note, if any, and whether the
/// text written is known to need no JSON escape.
fn render(out: &mut Vec<u8>, t: Option<&AbstractType>, bytes: &[u8]) -> (Option<String>, bool) {
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

/// A cell path like [`format_cell_path`]; returns whether the text written is known to need no
/// JSON escape.
fn render_path(out: &mut Vec<u8>, column_type: &AbstractType, path: &[u8]) -> bool {
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
            push_double(out, f64::from_be_bytes(b));
            true
        }),
        AbstractType::Float => fixed(bytes).is_some_and(|b: [u8; 4]| {
            push_float(out, f32::from_be_bytes(b));
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
            let Some(b) = fixed::<8>(bytes) else {
                return Fast::No;
            };
            let ms = i64::from_be_bytes(b);
            let days = ms.div_euclid(86_400_000);
            let of_day = ms.rem_euclid(86_400_000);
            let (y, m, d) = civil_from_days(days);
            if !(1..=9999).contains(&y) {
                return Fast::No;
            }
            push_date(out, y, m, d);
            out.push(b'T');
            push_time(out, of_day / 1000);
            out.push(b'.');
            push_padded(out, (of_day % 1000) as u64, 3);
            out.push(b'Z');
            true
        }
        _ => false,
    };
    Fast::from(written)
}

fn fixed<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
    <[u8; N]>::try_from(bytes).ok()
}

/// 8-4-4-4-12 lowercase hex digits.
fn push_uuid(out: &mut Vec<u8>, b: &[u8; 16]) {
    let h = |i: usize| b.get(i).map_or([b'0'; 2], |&v| hex_pair(v));
    let [a0, a1] = h(0);
    let [a2, a3] = h(1);
    let [a4, a5] = h(2);
    let [a6, a7] = h(3);
    let [b0, b1] = h(4);
    let [b2, b3] = h(5);
    let [c0, c1] = h(6);
    let [c2, c3] = h(7);
    let [d0, d1] = h(8);
    let [d2, d3] = h(9);
    let [e0, e1] = h(10);
    let [e2, e3] = h(11);
    let [e4, e5] = h(12);
    let [e6, e7] = h(13);
    let [e8, e9] = h(14);
    let [ea, eb] = h(15);
    out.extend_from_slice(&[
        a0, a1, a2, a3, a4, a5, a6, a7, b'-', b0, b1, b2, b3, b'-', c0, c1, c2, c3, b'-', d0, d1,
        d2, d3, b'-', e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, ea, eb,
    ]);
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

/// `YYYY-MM-DD` for years 0–9999.
fn push_date(out: &mut Vec<u8>, y: i64, m: u32, d: u32) {
    out.extend_from_slice(iso_date_time(y, m, d, 0).get(..10).unwrap_or(&[]));
}

/// `HH:MM:SS` of seconds into the day.
fn push_time(out: &mut Vec<u8>, secs_of_day: i64) {
    out.extend_from_slice(iso_date_time(0, 1, 1, secs_of_day).get(11..).unwrap_or(&[]));
}

/// [`iso8601_secs`] into `out`.
fn push_iso_secs(out: &mut Vec<u8>, secs: i64) {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    if !(0..=9999).contains(&y) {
        out.extend_from_slice(iso8601_secs(secs).as_bytes());
        return;
    }
    out.extend_from_slice(&iso_date_time(y, m, d, secs.rem_euclid(86_400)));
    out.push(b'Z');
}

/// [`iso8601_micros`] into `out`.
fn push_iso_micros(out: &mut Vec<u8>, micros: i64) {
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

/// A string member whose value `f` writes straight into `out`: an ISO-8601 time, which never
/// needs a JSON escape.
fn rendered_member(
    j: &mut Json,
    out: &mut Vec<u8>,
    key: &'static str,
    f: impl FnOnce(&mut Vec<u8>),
) {
    j.key(out, key);
    out.push(b'"');
    f(out);
    out.push(b'"');
}

fn write_deletion_json(j: &mut Json, out: &mut Vec<u8>, d: &DeletionInfoJson) {
    j.begin_object(out);
    j.str_member(out, "marked_deleted", &d.marked_deleted);
    j.str_member(out, "local_delete_time", &d.local_delete_time);
    if d.invalid_local_delete_time {
        j.bool_member(out, "invalid_local_delete_time", true);
    }
    j.end_object(out);
}

/// A row or marker's `deletion_info` straight from its DeletionTime.
fn write_deletion_time(j: &mut Json, out: &mut Vec<u8>, d: &DeletionTime) {
    j.begin_object(out);
    rendered_member(j, out, "marked_deleted", |s| {
        push_iso_micros(s, d.marked_for_delete_at_micros)
    });
    rendered_member(j, out, "local_delete_time", |s| {
        push_iso_secs(s, d.local_deletion_time.secs)
    });
    if d.local_deletion_time.is_invalid() {
        j.bool_member(out, "invalid_local_delete_time", true);
    }
    j.end_object(out);
}

fn write_header_json(j: &mut Json, out: &mut Vec<u8>, h: &PartitionHeaderJson) {
    j.begin_object(out);
    j.strings_member(out, "key", h.key.iter().map(|k| Some(k.as_str())));
    j.str_member(out, "key_hex", &h.key_hex);
    j.int_member(out, "position", h.position as i64);
    if let Some(d) = &h.deletion_info {
        key!(j, out, "deletion_info");
        write_deletion_json(j, out, d);
    }
    if !h.findings.is_empty() {
        j.strings_member(out, "findings", h.findings.iter().map(|f| Some(f.as_str())));
    }
    j.end_object(out);
}

fn write_bound_json(j: &mut Json, out: &mut Vec<u8>, b: &BoundJson) {
    j.begin_object(out);
    j.str_member(out, "type", b.r#type);
    j.strings_member(out, "clustering", b.clustering.iter().map(|c| c.as_deref()));
    key!(j, out, "deletion_info");
    write_deletion_json(j, out, &b.deletion_info);
    j.end_object(out);
}

/// A range tombstone marker (their [`UnfilteredJson`]s have no clustering, liveness or cells).
fn write_marker_json(j: &mut Json, out: &mut Vec<u8>, u: &UnfilteredJson) {
    j.begin_object(out);
    j.str_member(out, "type", u.r#type);
    j.int_member(out, "position", u.position as i64);
    if let Some(d) = &u.deletion_info {
        key!(j, out, "deletion_info");
        write_deletion_json(j, out, d);
    }
    for (key, b) in [("start", &u.start), ("end", &u.end)] {
        if let Some(b) = b {
            j.key(out, key);
            write_bound_json(j, out, b);
        }
    }
    if !u.findings.is_empty() {
        j.strings_member(out, "findings", u.findings.iter().map(|f| Some(f.as_str())));
    }
    j.end_object(out);
}

impl DataVisitor for DumpWriter<'_> {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.settle_pending();
        self.skipping =
            !self.wanted_keys.is_empty() && !self.wanted_keys.contains(&start.key.bytes.bytes);
        self.rows.clear();
        self.rows_json.first = true;
        self.header = (!self.skipping).then(|| header_json(self.schema, start));
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        if self.skipping {
            return;
        }
        self.cells_open = false;
        self.row_is_static = row.is_static;
        let schema = self.schema;
        let kind = if row.is_static { "static_block" } else { "row" };
        let json = self.json();
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        if !json {
            rows.extend_from_slice(b"  ");
            rows.extend_from_slice(kind.as_bytes());
            rows.extend_from_slice(b" at ");
            push_i64(rows, row.position as i64);
            if let Some(c) = &row.clustering {
                // `name=value` for each value that has a name (names and values zipped).
                let names = &self.clustering_names;
                let before = rows.len();
                let mut count = 0usize;
                rows.extend_from_slice(b" [");
                for v in c.values() {
                    let (i, state, bytes) = (v.index, v.state, v.bytes);
                    let Some(name) = names.get(i) else {
                        continue;
                    };
                    if count > 0 {
                        rows.extend_from_slice(b", ");
                    }
                    rows.extend_from_slice(name.as_bytes());
                    rows.push(b'=');
                    match state {
                        ClusteringValueState::Null => rows.extend_from_slice(b"null"),
                        ClusteringValueState::Empty => {}
                        ClusteringValueState::Present => {
                            let _ = render(rows, schema.clustering_types.get(i), bytes);
                        }
                    }
                    count = count.saturating_add(1);
                }
                if count == 0 {
                    rows.truncate(before);
                } else {
                    rows.push(b']');
                }
            }
            if let Some(l) = &row.liveness {
                rows.extend_from_slice(b" ts=");
                push_iso_micros(rows, l.timestamp_micros.value);
                if let Some(ttl) = &l.ttl_secs {
                    rows.extend_from_slice(b" ttl=");
                    push_i64(rows, i64::from(ttl.value));
                }
            }
            if let Some(d) = &row.deletion {
                rows.extend_from_slice(b" DELETED at ");
                push_iso_micros(rows, d.time.marked_for_delete_at_micros);
            }
            rows.push(b'\n');
            return;
        }
        let mut j = self.rows_json;
        j.elem(rows);
        j.begin_object(rows);
        j.str_member(rows, "type", kind);
        j.int_member(rows, "position", row.position as i64);
        if let Some(c) = &row.clustering {
            if !schema.clustering_types.is_empty() {
                key!(j, rows, "clustering");
                j.begin_array(rows);
                for v in c.values() {
                    let (i, state, bytes) = (v.index, v.state, v.bytes);
                    j.elem(rows);
                    match state {
                        ClusteringValueState::Null => rows.extend_from_slice(b"null"),
                        ClusteringValueState::Empty => rows.extend_from_slice(b"\"\""),
                        ClusteringValueState::Present => {
                            json_string_with(rows, scratch, |out| {
                                ((), render(out, schema.clustering_types.get(i), bytes).1)
                            });
                        }
                    }
                }
                j.end_array(rows);
            }
        }
        if let Some(l) = &row.liveness {
            key!(j, rows, "liveness_info");
            j.begin_object(rows);
            rendered_member(&mut j, rows, "tstamp", |s| {
                push_iso_micros(s, l.timestamp_micros.value)
            });
            if let Some(ttl) = &l.ttl_secs {
                j.int_member(rows, "ttl", i64::from(ttl.value));
            }
            if let Some(e) = &l.local_expiration_time {
                let expires = e.value.expiry_secs();
                rendered_member(&mut j, rows, "expires_at", |s| push_iso_secs(s, expires));
                if let Some(now) = self.now_seconds {
                    j.bool_member(rows, "expired", expires <= now);
                }
            }
            j.end_object(rows);
        }
        if let Some(d) = &row.deletion {
            key!(j, rows, "deletion_info");
            write_deletion_time(&mut j, rows, &d.time);
        }
        self.row_json = j;
    }

    fn complex_column_start(&mut self, _column: &ColumnSchema, _head: &ComplexColumnHead) {}

    fn cell(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        if self.skipping {
            return;
        }
        if self.json() {
            self.cell_json(column, cell);
            return;
        }
        let (has_value, note) = self.cell_value(column, cell);
        let expiring = cell.is_expiring();
        let tombstone = cell.kind == CellKind::Tombstone;
        let rows = &mut self.rows;
        // The value is in `scratch`; the path goes after it.
        let value_end = self.scratch.len();
        if let Some(p) = cell.path {
            render_path(&mut self.scratch, &column.column_type, p);
        }
        let (value, path) = self.scratch.split_at(value_end);
        rows.extend_from_slice(b"    ");
        rows.extend_from_slice(column.name.as_bytes());
        if cell.path.is_some() {
            rows.push(b'[');
            rows.extend_from_slice(path);
            rows.push(b']');
        }
        if tombstone {
            rows.extend_from_slice(b" = <tombstone, deleted ");
            if let Some(l) = cell.local_deletion_time {
                push_iso_secs(rows, l.secs);
            }
            rows.push(b'>');
        } else if has_value {
            rows.extend_from_slice(b" = ");
            rows.extend_from_slice(value);
        }
        if let Some(ttl) = cell.ttl_secs.filter(|_| expiring) {
            rows.extend_from_slice(b" (ttl ");
            push_i64(rows, i64::from(ttl));
            rows.extend_from_slice(b", expires ");
            match cell.local_deletion_time {
                Some(l) => push_iso_secs(rows, l.expiry_secs()),
                None => rows.push(b'?'),
            }
            rows.push(b')');
        }
        if expiring && cell.kind == CellKind::Expired {
            rows.extend_from_slice(b" EXPIRED");
        }
        if let Some(n) = &note {
            rows.extend_from_slice(b" [");
            rows.extend_from_slice(n.as_bytes());
            rows.push(b']');
        }
        rows.push(b'\n');
    }

    fn complex_column_end(&mut self, _end: u64) {}

    fn row_end(&mut self, end: &RowEnd<'_>) {
        if self.skipping {
            return;
        }
        let json = self.json();
        let rows = &mut self.rows;
        if !json {
            for f in end.findings {
                rows.extend_from_slice(b"    finding: ");
                rows.extend_from_slice(f.message.as_bytes());
                rows.push(b'\n');
            }
            return;
        }
        let j = &mut self.row_json;
        if self.cells_open {
            j.end_array(rows);
        }
        if !end.findings.is_empty() {
            j.strings_member(
                rows,
                "findings",
                end.findings.iter().map(|f| Some(f.message.as_str())),
            );
        }
        j.end_object(rows);
        self.rows_json.first = false;
    }

    fn range_tombstone_marker(&mut self, marker: &RangeTombstoneMarker) {
        if self.skipping {
            return;
        }
        let u = marker_json(self.schema, marker);
        let json = self.json();
        let rows = &mut self.rows;
        if json {
            let mut j = self.rows_json;
            j.elem(rows);
            write_marker_json(&mut j, rows, &u);
            self.rows_json.first = false;
            return;
        }
        rows.extend_from_slice(b"  ");
        rows.extend_from_slice(u.r#type.as_bytes());
        rows.extend_from_slice(b" at ");
        push_i64(rows, u.position as i64);
        for (side, b) in [("start", &u.start), ("end", &u.end)] {
            if let Some(b) = b {
                rows.push(b' ');
                rows.extend_from_slice(side.as_bytes());
                rows.push(b' ');
                rows.extend_from_slice(b.r#type.as_bytes());
                rows.extend_from_slice(b" [");
                for (i, v) in b.clustering.iter().enumerate() {
                    if i > 0 {
                        rows.extend_from_slice(b", ");
                    }
                    rows.extend_from_slice(v.as_deref().unwrap_or("null").as_bytes());
                }
                rows.extend_from_slice(b"] deleted ");
                rows.extend_from_slice(b.deletion_info.marked_deleted.as_bytes());
            }
        }
        rows.push(b'\n');
        for f in &u.findings {
            rows.extend_from_slice(b"    finding: ");
            rows.extend_from_slice(f.as_bytes());
            rows.push(b'\n');
        }
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        if self.skipping {
            self.skipping = false;
            return;
        }
        let Some(mut header) = self.header.take() else {
            return;
        };
        header
            .findings
            .extend(end.findings.iter().map(|f| f.message.clone()));
        self.write_partition(&header);
    }
}
