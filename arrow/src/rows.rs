//! Data.db rows as Arrow record batches: [`RowBatcher`] is a
//! [`DataVisitor`](sstable_engine::component::data::DataVisitor) of the engine's borrowing scan
//! that appends each row's values (views into the decode window) straight to Arrow builders and
//! cuts a [`RecordBatch`] every [`RowOptions::batch_rows`] rows.
//!
//! One Arrow row per:
//!
//! | `_kind` | what | columns filled |
//! |---|---|---|
//! | `row` | a regular row | partition key, clustering, regular columns |
//! | `static` | a partition's static row (sstabledump's `static_block`) | partition key, static columns |
//! | `partition` | a partition without rows (a partition deletion, or only range tombstones) | partition key |
//!
//! Columns, in order: `_kind`; `_position` (the row's uncompressed Data.db offset); the
//! partition key columns (`partition_key`, or `partition_key_0`, … for a composite key; the
//! SerializationHeader has no names for them); `clustering_0`, …; the static columns, then the
//! regular columns, by name; with [`RowOptions::cell_metadata`] each simple column is followed by
//! `<name>__writetime` (Timestamp µs UTC), `<name>__ttl` (Int32 seconds) and
//! `<name>__local_deletion_time` (Timestamp s UTC: a tombstone's deletion time, an expiring
//! cell's expiry). A cell tombstone is a null value (its writetime and deletion time are set);
//! a column absent from the row is null. A non-frozen collection or UDT gathers its cells; one
//! with no live cell is null, as in CQL. Range tombstone markers are not rows.
//!
//! Memory: the builders of one batch, and the partition key of the current partition.
//!
//! Src: `db/rows/UnfilteredSerializer.java`, `tools/JsonTransformer.java` (what sstabledump
//! shows per row).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder, TimestampSecondBuilder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef, TimeUnit};
use sstable_engine::component::data::{
    CellKind, CellView, ClusteringValueState, ColumnData, ColumnSchema, ComplexColumnHead,
    DataItem, DataSchema, DataVisitor, PartitionEnd, PartitionStart, Row, RowEnd, RowView,
};
use sstable_engine::token::{Partitioner, Token};
use sstable_engine::types::AbstractType;

use crate::types::{arrow_field, Mapped, TypeMapping};
use crate::value::{ValueBuilder, ValueCounts};

/// Rows per batch unless told otherwise.
pub const DEFAULT_BATCH_ROWS: usize = 8192;

/// How rows become batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowOptions {
    /// Rows per record batch (the last one may have fewer). At least 1.
    pub batch_rows: usize,
    /// Add `__writetime`, `__ttl` and `__local_deletion_time` after each simple column.
    pub cell_metadata: bool,
    /// Nested CQL types as Arrow types, or as text (CSV).
    pub mapping: TypeMapping,
}

impl Default for RowOptions {
    fn default() -> Self {
        RowOptions {
            batch_rows: DEFAULT_BATCH_ROWS,
            cell_metadata: false,
            mapping: TypeMapping::Nested,
        }
    }
}

/// `_kind` of a row that is a regular row.
pub const KIND_ROW: &str = "row";
/// `_kind` of a static row.
pub const KIND_STATIC: &str = "static";
/// `_kind` of a partition without rows.
pub const KIND_PARTITION: &str = "partition";

/// The Arrow schema of a table's rows (see the module docs for the columns).
pub fn row_schema(schema: &DataSchema, options: &RowOptions) -> SchemaRef {
    let mut fields = vec![
        Field::new("_kind", DataType::Utf8, false),
        Field::new("_position", DataType::UInt64, false),
    ];
    let names = key_names(schema);
    for (name, t) in names.iter().zip(&schema.key_component_types) {
        fields.push(arrow_field(name, t, options.mapping));
    }
    for (i, t) in schema.clustering_types.iter().enumerate() {
        fields.push(arrow_field(&format!("clustering_{i}"), t, options.mapping));
    }
    for c in schema.static_columns.iter().chain(&schema.regular_columns) {
        fields.push(arrow_field(&c.name, &c.column_type, options.mapping));
        if options.cell_metadata && !c.is_complex() {
            fields.extend(metadata_fields(&c.name));
        }
    }
    Arc::new(Schema::new(fields))
}

fn key_names(schema: &DataSchema) -> Vec<String> {
    match schema.key_component_types.len() {
        1 => vec!["partition_key".to_owned()],
        n => (0..n).map(|i| format!("partition_key_{i}")).collect(),
    }
}

fn metadata_fields(name: &str) -> [Field; 3] {
    [
        Field::new(
            format!("{name}__writetime"),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new(format!("{name}__ttl"), DataType::Int32, true),
        Field::new(
            format!("{name}__local_deletion_time"),
            DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
            true,
        ),
    ]
}

/// One static or regular column's builders.
struct ColumnBuilder {
    values: ValueBuilder,
    complex: bool,
    counter: bool,
    meta: Option<MetaBuilders>,
    /// Whether the values are built (a column subset may leave them out: not converted).
    wanted: bool,
    /// Whether the current row gave this column a value (or a tombstone).
    present: bool,
    /// Complex columns: whether a live cell was appended in the current row.
    any_cell: bool,
}

struct MetaBuilders {
    writetime: TimestampMicrosecondBuilder,
    ttl: Int32Builder,
    local_deletion: TimestampSecondBuilder,
}

impl MetaBuilders {
    fn new() -> Self {
        MetaBuilders {
            writetime: TimestampMicrosecondBuilder::new().with_timezone("UTC"),
            ttl: Int32Builder::new(),
            local_deletion: TimestampSecondBuilder::new().with_timezone("UTC"),
        }
    }

    fn append(&mut self, cell: &CellView<'_>) {
        self.writetime.append_value(cell.timestamp_micros);
        let expiring = matches!(cell.kind, CellKind::Expiring | CellKind::Expired);
        self.ttl.append_option(cell.ttl_secs.filter(|_| expiring));
        let ldt = cell.local_deletion_time.and_then(|l| match cell.kind {
            CellKind::Tombstone => Some(l.secs),
            CellKind::Expiring | CellKind::Expired => Some(l.expiry_secs()),
            CellKind::Live => None,
        });
        self.local_deletion.append_option(ldt);
    }

    fn append_null(&mut self) {
        self.writetime.append_null();
        self.ttl.append_null();
        self.local_deletion.append_null();
    }

    fn finish(&mut self) -> [ArrayRef; 3] {
        [
            Arc::new(self.writetime.finish()),
            Arc::new(self.ttl.finish()),
            Arc::new(self.local_deletion.finish()),
        ]
    }
}

impl ColumnBuilder {
    /// `wanted`: whether the value column is built; `meta_wanted`: its metadata columns.
    fn new(c: &ColumnSchema, options: &RowOptions, wanted: bool, meta_wanted: bool) -> Self {
        ColumnBuilder {
            values: ValueBuilder::new(&Mapped::of(&c.column_type, options.mapping)),
            complex: c.is_complex(),
            counter: c.is_counter,
            meta: (options.cell_metadata && !c.is_complex() && meta_wanted).then(MetaBuilders::new),
            wanted,
            present: false,
            any_cell: false,
        }
    }
}

/// Totals of an export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowCounts {
    pub partitions: u64,
    /// Arrow rows of each `_kind`.
    pub rows: u64,
    pub static_rows: u64,
    pub empty_partitions: u64,
    /// Values that became null (see [`ValueCounts`]).
    pub values: ValueCounts,
}

/// A [`DataVisitor`] that turns rows into record batches (see the module docs).
pub struct RowBatcher {
    /// The schema of the batches: [`row_schema`], or the subset of its columns asked for.
    schema: SchemaRef,
    /// Per column of [`row_schema`]: whether it is in the batches.
    wanted: Vec<bool>,
    /// Partitions whose end was visited.
    partitions_ended: u64,
    options: RowOptions,
    kind: StringBuilder,
    position: UInt64Builder,
    keys: Vec<ValueBuilder>,
    key_types: Vec<AbstractType>,
    clusterings: Vec<ValueBuilder>,
    statics: Vec<ColumnBuilder>,
    regulars: Vec<ColumnBuilder>,
    /// The current partition's key components (copied: the window moves on).
    key_components: Vec<Vec<u8>>,
    /// Whether the current partition's key split into its components.
    key_ok: bool,
    partition_position: u64,
    rows_in_partition: u64,
    /// The open row: static?
    row_is_static: Option<bool>,
    /// Complex column of the open row whose cells are arriving.
    open_complex: Option<(bool, usize)>,
    rows_in_batch: usize,
    ready: VecDeque<RecordBatch>,
    error: Option<ArrowError>,
    counts: RowCounts,
    /// The `__token` column ([`RowBatcher::with_token`]): the partitioner, the builder, and
    /// the current partition's token.
    token: Option<(Partitioner, Int64Builder)>,
    current_token: Option<i64>,
}

/// The name of the token column [`RowBatcher::with_token`] adds.
pub const TOKEN_COLUMN: &str = "__token";

impl RowBatcher {
    pub fn new(schema: &DataSchema, options: RowOptions) -> RowBatcher {
        RowBatcher::with_columns(schema, options, None)
    }

    /// Only the columns of [`row_schema`] at `columns` (in schema order, whatever order they
    /// are given in; `None`: all). The values of the other columns are not converted or built.
    pub fn with_columns(
        schema: &DataSchema,
        options: RowOptions,
        columns: Option<&[usize]>,
    ) -> RowBatcher {
        let options = RowOptions {
            batch_rows: options.batch_rows.max(1),
            ..options
        };
        let full = row_schema(schema, &options);
        let wanted: Vec<bool> = (0..full.fields().len())
            .map(|i| columns.is_none_or(|c| c.contains(&i)))
            .collect();
        let kept: Vec<usize> = wanted
            .iter()
            .enumerate()
            .filter_map(|(i, w)| w.then_some(i))
            .collect();
        let projected = match full.project(&kept) {
            Ok(s) => Arc::new(s),
            Err(_) => Arc::clone(&full),
        };
        let is_wanted = |i: usize| wanted.get(i).copied().unwrap_or(false);
        // Column numbers of the static and regular columns and their metadata in `full`.
        let mut next = 2usize
            .saturating_add(schema.key_component_types.len())
            .saturating_add(schema.clustering_types.len());
        let mut column = |c: &ColumnSchema| {
            let value = is_wanted(next);
            next = next.saturating_add(1);
            let mut meta = false;
            if options.cell_metadata && !c.is_complex() {
                meta = (0..3).any(|k| is_wanted(next.saturating_add(k)));
                next = next.saturating_add(3);
            }
            ColumnBuilder::new(c, &options, value, meta)
        };
        let statics: Vec<ColumnBuilder> = schema.static_columns.iter().map(&mut column).collect();
        let regulars: Vec<ColumnBuilder> = schema.regular_columns.iter().map(&mut column).collect();
        let mapped = |t: &AbstractType| ValueBuilder::new(&Mapped::of(t, options.mapping));
        RowBatcher {
            schema: projected,
            wanted,
            partitions_ended: 0,
            options,
            kind: StringBuilder::new(),
            position: UInt64Builder::new(),
            keys: schema.key_component_types.iter().map(mapped).collect(),
            key_types: schema.key_component_types.clone(),
            clusterings: schema.clustering_types.iter().map(mapped).collect(),
            statics,
            regulars,
            key_components: Vec::new(),
            key_ok: false,
            partition_position: 0,
            rows_in_partition: 0,
            row_is_static: None,
            open_complex: None,
            rows_in_batch: 0,
            ready: VecDeque::new(),
            error: None,
            counts: RowCounts::default(),
            token: None,
            current_token: None,
        }
    }

    /// Adds a last column `__token` (Int64): each row's partition key token under
    /// `partitioner` when it is Murmur3 (`LongToken`), else null. Before any row is pushed.
    pub fn with_token(mut self, partitioner: Partitioner) -> RowBatcher {
        let mut fields: Vec<Field> = self
            .schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.push(Field::new(TOKEN_COLUMN, DataType::Int64, true));
        self.schema = Arc::new(Schema::new(fields));
        self.token = Some((partitioner, Int64Builder::new()));
        self
    }

    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    pub fn counts(&self) -> RowCounts {
        self.counts
    }

    /// Partitions whose end was visited (a one-partition read stops after the first).
    pub fn partitions_ended(&self) -> u64 {
        self.partitions_ended
    }

    /// A finished batch, if one is ready; the first error building one, once.
    pub fn take_batch(&mut self) -> Option<Result<RecordBatch, ArrowError>> {
        if let Some(e) = self.error.take() {
            return Some(Err(e));
        }
        self.ready.pop_front().map(Ok)
    }

    /// Cuts the rows appended so far into a last batch (after the last partition).
    pub fn finish(&mut self) {
        if self.rows_in_batch > 0 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        match self.build_batch() {
            Ok(b) => self.ready.push_back(b),
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
            }
        }
        self.rows_in_batch = 0;
    }

    fn build_batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let rows = self.rows_in_batch;
        let mut all: Vec<Option<ArrayRef>> = vec![
            Some(Arc::new(self.kind.finish())),
            Some(Arc::new(self.position.finish())),
        ];
        for b in self.keys.iter_mut().chain(self.clusterings.iter_mut()) {
            all.push(Some(b.finish()?));
        }
        for c in self.statics.iter_mut().chain(self.regulars.iter_mut()) {
            // A column left out was not built: its place is kept empty.
            all.push(if c.wanted {
                Some(c.values.finish()?)
            } else {
                None
            });
            match c.meta.as_mut() {
                Some(m) => all.extend(m.finish().map(Some)),
                None if self.options.cell_metadata && !c.complex => {
                    all.extend([None, None, None]);
                }
                None => {}
            }
        }
        let mut columns: Vec<ArrayRef> = all
            .into_iter()
            .zip(&self.wanted)
            .filter(|(_, w)| **w)
            .filter_map(|(c, _)| c)
            .collect();
        if let Some((_, b)) = self.token.as_mut() {
            columns.push(Arc::new(b.finish()));
        }
        RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )
    }

    /// Starts an Arrow row: kind, position, key; clustering from `clustering` (none: nulls).
    fn start_row(&mut self, kind: &str, position: u64) {
        self.kind.append_value(kind);
        self.position.append_value(position);
        if let Some((_, b)) = self.token.as_mut() {
            b.append_option(self.current_token);
        }
        for (i, b) in self.keys.iter_mut().enumerate() {
            match self.key_components.get(i).filter(|_| self.key_ok) {
                Some(bytes) => b.append_bytes(bytes, &mut self.counts.values),
                None => b.append_null(),
            }
        }
        for c in self.statics.iter_mut().chain(self.regulars.iter_mut()) {
            c.present = false;
            c.any_cell = false;
        }
    }

    /// Ends an Arrow row: nulls for every column the row did not fill.
    fn end_row(&mut self) {
        self.close_complex();
        for c in self.statics.iter_mut().chain(self.regulars.iter_mut()) {
            if !c.present {
                if c.wanted {
                    c.values.append_null();
                }
                if let Some(m) = c.meta.as_mut() {
                    m.append_null();
                }
            }
        }
        self.rows_in_partition = self.rows_in_partition.saturating_add(1);
        self.rows_in_batch = self.rows_in_batch.saturating_add(1);
        if self.rows_in_batch >= self.options.batch_rows {
            self.flush();
        }
    }

    fn close_complex(&mut self) {
        if let Some((is_static, index)) = self.open_complex.take() {
            let columns = if is_static {
                &mut self.statics
            } else {
                &mut self.regulars
            };
            if let Some(c) = columns.get_mut(index).filter(|c| c.wanted) {
                let any = c.any_cell;
                if let Err(e) = c.values.end_cells(any) {
                    self.error.get_or_insert(e);
                }
            }
        }
    }

    /// The clustering values of a row (index, state, bytes), nulls for those not given.
    fn append_clustering<'v>(
        &mut self,
        values: impl Iterator<Item = (usize, ClusteringValueState, &'v [u8])>,
    ) {
        let mut filled = 0;
        for (index, state, bytes) in values {
            let Some(b) = self.clusterings.get_mut(index) else {
                continue;
            };
            match state {
                ClusteringValueState::Null => b.append_null(),
                ClusteringValueState::Empty => b.append_bytes(&[], &mut self.counts.values),
                ClusteringValueState::Present => b.append_bytes(bytes, &mut self.counts.values),
            }
            filled = index.saturating_add(1);
        }
        for b in self.clusterings.iter_mut().skip(filled) {
            b.append_null();
        }
    }

    /// An owned item (e.g. of a merged partition, `MergedPartition::to_items`), appended as
    /// the scan's views of it would be: the same rows and values as a scan of a file holding
    /// these items. `schema`: the one this batcher was made for.
    pub fn push_item(&mut self, schema: &DataSchema, item: &DataItem) {
        match item {
            DataItem::PartitionStart(p) => self.partition_start(p),
            DataItem::StaticRow(r) | DataItem::Row(r) => self.push_row(schema, r),
            DataItem::RangeTombstoneMarker(_) => {}
            DataItem::PartitionEnd(e) => self.partition_end(e),
        }
    }

    /// An owned row or static row (see [`RowBatcher::push_item`]), between the visitor's
    /// `partition_start` and `partition_end` of its partition.
    pub fn push_row(&mut self, schema: &DataSchema, r: &Row) {
        self.row_is_static = Some(r.is_static);
        if r.is_static {
            self.counts.static_rows = self.counts.static_rows.saturating_add(1);
            self.start_row(KIND_STATIC, r.position);
            for b in &mut self.clusterings {
                b.append_null();
            }
        } else {
            self.counts.rows = self.counts.rows.saturating_add(1);
            self.start_row(KIND_ROW, r.position);
            let values = r.clustering.iter().flat_map(|c| &c.values);
            self.append_clustering(values.map(|v| (v.index, v.state, v.bytes.as_slice())));
        }
        let columns = schema.columns(r.is_static);
        for data in &r.column_data {
            let Some(column) = columns.get(data.column_index()) else {
                continue;
            };
            match data {
                ColumnData::Simple(c) => self.cell(column, &c.view()),
                ColumnData::Complex(c) => {
                    self.open_complex_column(r.is_static, c.column_index);
                    for cell in &c.cells {
                        self.cell(column, &cell.view());
                    }
                    self.close_complex();
                }
            }
        }
        if self.row_is_static.take().is_some() {
            self.end_row();
        }
    }

    fn column_mut(&mut self, is_static: bool, index: usize) -> Option<&mut ColumnBuilder> {
        if is_static {
            self.statics.get_mut(index)
        } else {
            self.regulars.get_mut(index)
        }
    }

    fn open_complex_column(&mut self, is_static: bool, index: usize) {
        if self.open_complex == Some((is_static, index)) {
            return;
        }
        self.close_complex();
        if let Some(c) = self.column_mut(is_static, index) {
            if c.complex && !c.present {
                c.present = true;
                if c.wanted {
                    c.values.begin_cells();
                }
            }
        }
        self.open_complex = Some((is_static, index));
    }
}

impl DataVisitor for RowBatcher {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.counts.partitions = self.counts.partitions.saturating_add(1);
        self.partition_position = start.position;
        self.rows_in_partition = 0;
        if let Some((partitioner, _)) = &self.token {
            self.current_token = match partitioner.token(&start.key.bytes.bytes) {
                Token::Murmur3(t) => Some(t),
                _ => None,
            };
        }
        let components = &start.key.components;
        self.key_ok = components.len() == self.key_types.len();
        self.key_components.resize_with(components.len(), Vec::new);
        for (dst, c) in self.key_components.iter_mut().zip(components) {
            dst.clear();
            dst.extend_from_slice(&c.value.bytes);
        }
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        self.row_is_static = Some(row.is_static);
        if row.is_static {
            self.counts.static_rows = self.counts.static_rows.saturating_add(1);
            self.start_row(KIND_STATIC, row.position);
            for b in &mut self.clusterings {
                b.append_null();
            }
        } else {
            self.counts.rows = self.counts.rows.saturating_add(1);
            self.start_row(KIND_ROW, row.position);
            let values = row.clustering.iter().flat_map(|c| c.values());
            self.append_clustering(values.map(|v| (v.index, v.state, v.bytes)));
        }
    }

    fn complex_column_start(&mut self, column: &ColumnSchema, head: &ComplexColumnHead) {
        self.open_complex_column(column.is_static, head.column_index);
    }

    fn cell(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        let is_static = self.row_is_static.unwrap_or(column.is_static);
        let complex = column.is_complex();
        if complex {
            self.open_complex_column(is_static, cell.column_index);
        }
        let mut counts = self.counts.values;
        if let Some(c) = self.column_mut(is_static, cell.column_index) {
            if c.complex {
                if cell.kind != CellKind::Tombstone && c.wanted {
                    c.values
                        .append_cell(cell.path.unwrap_or_default(), cell.value, &mut counts);
                    c.any_cell = true;
                }
            } else if !c.present {
                c.present = true;
                if !c.wanted {
                    // Left out: not converted.
                } else if cell.kind == CellKind::Tombstone {
                    c.values.append_null();
                } else if let (true, Some(ctx)) = (c.counter, &cell.counter) {
                    c.values.append_i64(ctx.total);
                } else {
                    c.values.append_bytes(cell.value, &mut counts);
                }
                if let Some(m) = c.meta.as_mut() {
                    m.append(cell);
                }
            }
        }
        self.counts.values = counts;
    }

    fn complex_column_end(&mut self, _end: u64) {
        self.close_complex();
    }

    fn row_end(&mut self, _end: &RowEnd<'_>) {
        if self.row_is_static.take().is_some() {
            self.end_row();
        }
    }

    fn partition_end(&mut self, _end: &PartitionEnd) {
        self.partitions_ended = self.partitions_ended.saturating_add(1);
        if self.rows_in_partition == 0 {
            self.counts.empty_partitions = self.counts.empty_partitions.saturating_add(1);
            self.start_row(KIND_PARTITION, self.partition_position);
            for b in &mut self.clusterings {
                b.append_null();
            }
            self.end_row();
        }
    }
}

/// The field names of a schema, for lookups.
pub fn field_index(schema: &Schema) -> HashMap<&str, usize> {
    schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name().as_str(), i))
        .collect()
}
