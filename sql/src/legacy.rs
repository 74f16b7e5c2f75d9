//! The 2.x SSTables (`jb`, `ka`, `la`) of a COMPACT STORAGE table in SQL, when the table's
//! schema is known (schema.cql or `--schema`); other 2.x tables are merged like 3.0+ ones
//! ([`crate::provider`]; the engine does not convert COMPACT STORAGE from 2.x): each SSTable's atoms grouped into CQL rows by the engine's `RowGrouper` (what
//! `dump` prints for 2.x, values rendered with the schema's types), then typed as the schema
//! says: `int`, `bigint`, `smallint`, `tinyint`, `boolean`, `float`, `double`, `timestamp` as
//! those Arrow types, others as the text dump prints. Columns as for 3.0+: `_kind`,
//! `_position`, the key and clustering columns by their names, then each regular or static
//! column with its `__writetime`, `__ttl` and `__local_deletion_time`. Non-frozen collections
//! are not columns yet.
//!
//! Not the merged read: the SSTables' rows are read one SSTable after the other, and no filter
//! or projection is pushed into the decoding.
//! Batches are built as partitions complete, at most `batch_rows` rows each.

use std::sync::{Arc, Mutex};

use arrow::array::{ArrayRef, Int32Builder, StringBuilder, UInt64Builder};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::legacy_data::{
    LegacyDataFileReader, LegacyLayout, LegacyStep, RowGrouper,
};
use sstable_engine::dump::PartitionJson;
use sstable_engine::range::SyncDriver;
use sstable_engine::types::AbstractType;
use sstable_native::files::{self, ComponentFiles, FoundFiles};

use crate::source::{CountingSource, ReadLog};
use crate::SqlError;

/// The Arrow type a 2.x value of `t` is given (its rendered text cast to it).
fn value_type(t: &AbstractType) -> DataType {
    match t.base() {
        AbstractType::Int32 => DataType::Int32,
        AbstractType::Long | AbstractType::Counter => DataType::Int64,
        AbstractType::Short => DataType::Int16,
        AbstractType::Byte => DataType::Int8,
        AbstractType::Boolean => DataType::Boolean,
        AbstractType::Float => DataType::Float32,
        AbstractType::Double => DataType::Float64,
        AbstractType::Timestamp => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        _ => DataType::Utf8,
    }
}

/// The simple (one cell) columns of the layout: multi-cell collections are left out.
fn simple_columns(layout: &LegacyLayout) -> Vec<&(String, AbstractType)> {
    layout
        .columns
        .iter()
        .filter(|(_, t)| !t.is_multi_cell())
        .collect()
}

/// The key component types of the layout (one for a one-column key).
fn key_types(layout: &LegacyLayout) -> Vec<AbstractType> {
    match &layout.key_type {
        Some(AbstractType::Composite(ts)) => ts.clone(),
        Some(t) => vec![t.clone()],
        None => Vec::new(),
    }
}

/// The table's columns (see the module docs).
pub fn legacy_schema(layout: &LegacyLayout) -> SchemaRef {
    let mut fields = vec![
        Field::new("_kind", DataType::Utf8, false),
        Field::new("_position", DataType::UInt64, false),
    ];
    for (name, t) in layout.partition_key_names.iter().zip(key_types(layout)) {
        fields.push(Field::new(name, value_type(&t), true));
    }
    for (name, t) in layout.clustering_names.iter().zip(&layout.clustering_types) {
        fields.push(Field::new(name, value_type(t), true));
    }
    for (name, t) in simple_columns(layout) {
        fields.push(Field::new(name, value_type(t), true));
        fields.push(Field::new(
            format!("{name}__writetime"),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ));
        fields.push(Field::new(format!("{name}__ttl"), DataType::Int32, true));
        fields.push(Field::new(
            format!("{name}__local_deletion_time"),
            DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
            true,
        ));
    }
    Arc::new(Schema::new(fields))
}

/// One column being built: text (cast at the end) or a TTL.
enum Column {
    Text(StringBuilder),
    Ttl(Int32Builder),
}

/// The rows of a table's 2.x SSTables as batches (see the module docs).
pub struct LegacyRows {
    found: FoundFiles,
    layout: LegacyLayout,
    now_seconds: Option<i64>,
    log: Arc<Mutex<ReadLog>>,
    schema: SchemaRef,
    batch_rows: usize,
    next_sstable: usize,
    current: Option<(
        String,
        LegacyDataFileReader,
        SyncDriver<CountingSource<ComponentFiles>>,
    )>,
    grouper: RowGrouper,
    kind: StringBuilder,
    position: UInt64Builder,
    columns: Vec<Column>,
    rows: usize,
    failed: bool,
}

impl LegacyRows {
    pub fn open(
        paths: &[&str],
        layout: LegacyLayout,
        now_seconds: Option<i64>,
        log: Arc<Mutex<ReadLog>>,
        batch_rows: usize,
    ) -> Result<Self, SqlError> {
        let found = files::find(paths).map_err(|e| SqlError::Read(e.to_string()))?;
        let schema = legacy_schema(&layout);
        let columns = schema
            .fields()
            .iter()
            .skip(2)
            .map(|f| {
                if f.name().ends_with("__ttl") {
                    Column::Ttl(Int32Builder::new())
                } else {
                    Column::Text(StringBuilder::new())
                }
            })
            .collect();
        Ok(LegacyRows {
            found,
            grouper: RowGrouper::new(layout.clone(), now_seconds),
            layout,
            now_seconds,
            log,
            schema,
            batch_rows: batch_rows.max(1),
            next_sstable: 0,
            current: None,
            kind: StringBuilder::new(),
            position: UInt64Builder::new(),
            columns,
            rows: 0,
            failed: false,
        })
    }

    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// Opens the next SSTable; `Ok(false)` after the last.
    fn open_next(&mut self) -> Result<bool, SqlError> {
        let Some(sstable) = self.found.grouping.sstables.get(self.next_sstable) else {
            return Ok(false);
        };
        self.next_sstable = self.next_sstable.saturating_add(1);
        let err = |e: &dyn std::fmt::Display| SqlError::Read(format!("{}: {e}", sstable.prefix));
        let (metadata, io_errors) = files::load_metadata(&self.found, sstable);
        if let Some(e) = io_errors.into_iter().next() {
            return Err(err(&e));
        }
        let options = DecodeOptions {
            now_seconds: self.now_seconds,
            ..DecodeOptions::default()
        };
        let reader = LegacyDataFileReader::for_sstable(&metadata, options).map_err(|e| err(&e))?;
        let source = CountingSource::new(
            ComponentFiles::new(&self.found, sstable),
            Arc::clone(&self.log),
        );
        self.grouper = RowGrouper::new(self.layout.clone(), self.now_seconds);
        self.current = Some((sstable.prefix.clone(), reader, SyncDriver::new(source)));
        Ok(true)
    }

    /// The next partition of the current SSTable; `Ok(None)` at its end.
    fn next_partition(&mut self) -> Result<Option<PartitionJson>, SqlError> {
        let Some((name, reader, driver)) = self.current.as_mut() else {
            return Ok(None);
        };
        loop {
            let grouper = &mut self.grouper;
            let step = driver.with_next_step(reader, &NoClock, |step| match step {
                LegacyStep::Item(item) => Some(grouper.push(&item)),
                LegacyStep::Finished | LegacyStep::NeedMoreData => None,
            });
            match step {
                Ok(Some(Some(p))) => return Ok(Some(p)),
                Ok(Some(None)) => {}
                Ok(None) => return Ok(None),
                Err(e) => return Err(SqlError::Read(format!("{name}: {e}"))),
            }
        }
    }

    fn text(&mut self, i: usize, v: Option<&str>) {
        if let Some(Column::Text(b)) = self.columns.get_mut(i) {
            b.append_option(v);
        }
    }

    fn ttl(&mut self, i: usize, v: Option<i32>) {
        if let Some(Column::Ttl(b)) = self.columns.get_mut(i) {
            b.append_option(v);
        }
    }

    /// Appends the partition's rows (a partition without rows: one `partition` row).
    fn push(&mut self, p: &PartitionJson) {
        let keys = self.layout.partition_key_names.len();
        let clustering = self.layout.clustering_names.len();
        let names: Vec<String> = simple_columns(&self.layout)
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        let rows: Vec<_> = p
            .rows
            .iter()
            .filter(|r| r.r#type == "row" || r.r#type == "static_block")
            .collect();
        let emit = |this: &mut Self, kind: &str, position: u64, r: Option<&_>| {
            let r: Option<&sstable_engine::dump::UnfilteredJson> = r;
            this.kind.append_value(kind);
            this.position.append_value(position);
            for k in 0..keys {
                this.text(k, p.partition.key.get(k).map(String::as_str));
            }
            for c in 0..clustering {
                let v = r
                    .and_then(|r| r.clustering.get(c))
                    .and_then(|v| v.as_deref());
                this.text(keys + c, v);
            }
            for (n, name) in names.iter().enumerate() {
                let at = keys + clustering + 4 * n;
                let cell =
                    r.and_then(|r| r.cells.iter().find(|c| c.name == *name && c.path.is_none()));
                let tombstone = cell.and_then(|c| c.deletion_info.as_ref());
                let value = cell
                    .filter(|_| tombstone.is_none())
                    .and_then(|c| c.value.as_deref());
                this.text(at, value);
                this.text(at + 1, cell.and_then(|c| c.tstamp.as_deref()));
                this.ttl(at + 2, cell.and_then(|c| c.ttl));
                let ldt = tombstone
                    .map(|d| d.local_delete_time.as_str())
                    .or_else(|| cell.and_then(|c| c.expires_at.as_deref()));
                this.text(at + 3, ldt);
            }
            this.rows = this.rows.saturating_add(1);
        };
        if rows.is_empty() {
            emit(
                self,
                sstable_arrow::rows::KIND_PARTITION,
                p.partition.position,
                None,
            );
        }
        for r in rows {
            let kind = if r.r#type == "row" {
                sstable_arrow::rows::KIND_ROW
            } else {
                sstable_arrow::rows::KIND_STATIC
            };
            emit(self, kind, r.position, Some(r));
        }
    }

    /// The rows appended so far as a batch, each column cast to the schema's type.
    fn flush(&mut self) -> Result<RecordBatch, SqlError> {
        let mut arrays: Vec<ArrayRef> = vec![
            Arc::new(self.kind.finish()),
            Arc::new(self.position.finish()),
        ];
        for (c, f) in self
            .columns
            .iter_mut()
            .zip(self.schema.fields().iter().skip(2))
        {
            let a: ArrayRef = match c {
                Column::Text(b) => Arc::new(b.finish()),
                Column::Ttl(b) => Arc::new(b.finish()),
            };
            let a = if a.data_type() == f.data_type() {
                a
            } else {
                cast(&a, f.data_type()).map_err(|e| SqlError::Read(format!("{}: {e}", f.name())))?
            };
            arrays.push(a);
        }
        let rows = self.rows;
        self.rows = 0;
        RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| SqlError::Read(e.to_string()))
    }

    fn step(&mut self) -> Result<Option<RecordBatch>, SqlError> {
        loop {
            if self.rows >= self.batch_rows {
                return self.flush().map(Some);
            }
            if self.current.is_none() && !self.open_next()? {
                return if self.rows > 0 {
                    self.flush().map(Some)
                } else {
                    Ok(None)
                };
            }
            match self.next_partition()? {
                Some(p) => self.push(&p),
                None => self.current = None,
            }
        }
    }
}

impl Iterator for LegacyRows {
    type Item = Result<RecordBatch, SqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let out = self.step().transpose();
        if matches!(out, Some(Err(_))) {
            self.failed = true;
        }
        out
    }
}
