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

use super::json::{key, push_i64, Json};
use super::{BoundJson, DeletionInfoJson, PartitionHeaderJson, UnfilteredJson};
use crate::component::data::{CellKind, CellView, ColumnSchema, DataSchema, DeletionTime};
use crate::cql_schema::CqlTable;
use crate::types::AbstractType;

mod compact;
mod float;
mod value;
mod visit;

use value::{push_iso_micros, push_iso_secs, render, IsoMicros, IsoMillis, ValueKind};

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

/// Renders partitions from [`DataVisitor`](crate::component::data::DataVisitor) events into
/// [`DumpWriter::out`].
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
    /// JSON: how each column's cells are written in the writer's layout ([`compact::CellPlan`]):
    /// regular columns, then static columns, by column index.
    cell_plans: [Vec<compact::CellPlan<'s>>; 2],
    /// JSON: each clustering column's type and its [`ValueKind`].
    clustering_plans: Vec<(ValueKind, &'s AbstractType)>,
    /// JSON: the last timestamp's second, rendered.
    iso_micros: IsoMicros,
    /// JSON: the last `timestamp` value's day, rendered.
    iso_millis: IsoMillis,
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
            cell_plans: [false, true].map(|is_static| {
                schema
                    .columns(is_static)
                    .iter()
                    .map(|c| compact::CellPlan::new(c, pretty))
                    .collect()
            }),
            clustering_plans: schema
                .clustering_types
                .iter()
                .map(|t| (ValueKind::of(t), t))
                .collect(),
            iso_micros: IsoMicros::default(),
            iso_millis: IsoMillis::default(),
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
}

impl DumpWriter<'_> {
    /// [`DumpWriter::cell_json`] pretty, not inlined into the visitor's `cell`, whose JSON lines
    /// path it would make dearer.
    #[inline(never)]
    fn cell_pretty(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        self.cell_json::<true>(column, cell);
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
