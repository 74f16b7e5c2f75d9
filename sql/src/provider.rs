//! The table `t` as a DataFusion [`TableProvider`]: `scan` decodes only the projected columns
//! (the others' values are not converted, `RowBatcher::with_columns`), and a partition-key
//! equality (`partition_key = '…'`) is answered through the engine's lookup (bloom filter,
//! summary and index, or the BTI trie), so only the chunks of that partition's Data.db bytes are
//! read (`RowBatchReader::only_partition_at`).
//!
//! With a schema (schema.cql, `--schema`) the key and clustering columns carry its names.
//!
//! The key filter is reported [`Inexact`](TableProviderFilterPushDown::Inexact): an SSTable
//! whose lookup cannot run (no index) is scanned whole, so DataFusion filters again on top.
//! Every read goes through a [`CountingSource`]; its totals are the [`ReadLog`].
//!
//! A `LIMIT` DataFusion pushes into the scan (no filter left above it) stops the reading once
//! that many rows are read.
//!
//! Not yet: the scan decodes when planned (its batches are then served from memory), not as a
//! stream; a token range is not pushed down.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::datasource::{MemTable, TableProvider, TableType};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use sstable_arrow::{RowBatchReader, RowOptions};
use sstable_engine::byte_range::{ByteRange, RangeSource};
use sstable_engine::clock::NoClock;
use sstable_native::files::{self, ComponentFiles};

use crate::{bridge, SqlError};

/// The bytes read from each component (by its file-name suffix), and Data.db's reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadLog {
    pub bytes_by_component: BTreeMap<String, u64>,
    /// `(offset, length)` of every Data.db read, in order.
    pub data_reads: Vec<(u64, u64)>,
}

impl ReadLog {
    /// Bytes read from Data.db.
    pub fn data_bytes(&self) -> u64 {
        self.data_reads
            .iter()
            .fold(0u64, |a, (_, l)| a.saturating_add(*l))
    }
}

/// A [`RangeSource`] that records what it reads in a shared [`ReadLog`].
pub struct CountingSource<S> {
    inner: S,
    log: Arc<Mutex<ReadLog>>,
}

impl<S: RangeSource> RangeSource for CountingSource<S> {
    fn read_into(
        &mut self,
        range: &ByteRange,
        buf: &mut Vec<u8>,
    ) -> sstable_engine::error::Result<()> {
        self.inner.read_into(range, buf)?;
        let n = buf.len() as u64;
        if let Ok(mut log) = self.log.lock() {
            let name = range.component.to_string();
            if name == "Data.db" {
                log.data_reads.push((range.offset, n));
            }
            let e = log.bytes_by_component.entry(name).or_insert(0);
            *e = e.saturating_add(n);
        }
        Ok(())
    }
}

/// The table of the 3.0+ SSTables under some paths (see the module docs).
#[derive(Debug)]
pub struct SSTableTable {
    paths: Vec<String>,
    now_seconds: Option<i64>,
    /// [`sstable_arrow::row_schema`] with cell metadata, as DataFusion's arrow; its key and
    /// clustering columns named as the schema names them, when one was given.
    schema: SchemaRef,
    /// The partition key column's name (a one-column key), for the key filter.
    key_column: Option<String>,
    log: Arc<Mutex<ReadLog>>,
}

fn options() -> RowOptions {
    RowOptions {
        cell_metadata: true,
        ..RowOptions::default()
    }
}

impl SSTableTable {
    /// The table of `paths`: its schema is the first SSTable's (no Data.db read yet). With
    /// `names` (a schema's partition key and clustering column names, in order) those columns
    /// are named so, where their counts match the SSTable's; else `partition_key`,
    /// `partition_key_0`, …, `clustering_0`, ….
    pub fn open(
        paths: &[&str],
        now_seconds: Option<i64>,
        names: Option<(&[String], &[String])>,
    ) -> Result<Self, SqlError> {
        let found = files::find(paths).map_err(|e| SqlError::Read(e.to_string()))?;
        let mut schema = None;
        for sstable in &found.grouping.sstables {
            let (metadata, _) = files::load_metadata(&found, sstable);
            let source = ComponentFiles::new(&found, sstable);
            if let Ok(r) = RowBatchReader::new(&metadata, source, options(), now_seconds) {
                let s = arrow_array::RecordBatchReader::schema(&r);
                let (s, _) = bridge::to_datafusion(&s, &[]).map_err(SqlError::Read)?;
                schema = Some(s);
                break;
            }
        }
        let schema = schema.ok_or_else(|| SqlError::Read("no 3.0+ SSTable found".to_owned()))?;
        let schema = match names {
            Some(names) => renamed(&schema, names),
            None => schema,
        };
        let key_columns: Vec<&str> = schema
            .fields()
            .iter()
            .skip(2)
            .take_while(|f| !f.name().starts_with("clustering_"))
            .map(|f| f.name().as_str())
            .collect();
        let key_column = key_columns
            .first()
            .filter(|_| {
                schema
                    .fields()
                    .iter()
                    .all(|f| f.name() != "partition_key_0")
            })
            .map(|k| (*k).to_owned());
        Ok(SSTableTable {
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
            now_seconds,
            schema,
            key_column,
            log: Arc::new(Mutex::new(ReadLog::default())),
        })
    }

    /// The key a filter asks for, if it is an equality on a one-column partition key.
    fn key(&self, e: &Expr) -> Option<String> {
        key_equality(e, self.key_column.as_deref()?)
    }

    /// What the scans read so far.
    pub fn read_log(&self) -> ReadLog {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The rows of the columns at `projection` (`None`: all), in that order; with `key` (a
    /// partition key as cqlsh prints it) only that partition's, where a lookup can run; with
    /// `limit`, reading stops once that many rows are read (batches of at most `limit` rows).
    pub fn read(
        &self,
        projection: Option<&[usize]>,
        key: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<RecordBatch>, SqlError> {
        let mut rows = 0usize;
        let options = RowOptions {
            batch_rows: limit.map_or(sstable_arrow::DEFAULT_BATCH_ROWS, |l| {
                l.clamp(1, sstable_arrow::DEFAULT_BATCH_ROWS)
            }),
            ..options()
        };
        let paths: Vec<&str> = self.paths.iter().map(String::as_str).collect();
        let found = files::find(&paths).map_err(|e| SqlError::Read(e.to_string()))?;
        // Decoded: the projected columns in schema order (`_kind` for none: its rows count).
        let mut decoded: Vec<usize> = projection.map_or_else(
            || (0..self.schema.fields().len()).collect(),
            <[usize]>::to_vec,
        );
        decoded.sort_unstable();
        decoded.dedup();
        if decoded.is_empty() {
            decoded.push(0);
        }
        let order: Vec<usize> = match projection {
            None => (0..decoded.len()).collect(),
            Some(p) => p
                .iter()
                .filter_map(|c| decoded.iter().position(|d| d == c))
                .collect(),
        };
        let projected = match projection {
            Some(p) => Arc::new(
                self.schema
                    .project(p)
                    .map_err(|e| SqlError::Read(e.to_string()))?,
            ),
            None => Arc::clone(&self.schema),
        };
        let mut out = Vec::new();
        for sstable in &found.grouping.sstables {
            if limit.is_some_and(|l| rows >= l) {
                break;
            }
            let err =
                |e: &dyn std::fmt::Display| SqlError::Read(format!("{}: {e}", sstable.prefix));
            let (metadata, io_errors) = files::load_metadata(&found, sstable);
            if let Some(e) = io_errors.into_iter().next() {
                return Err(err(&e));
            }
            let source = || CountingSource {
                inner: ComponentFiles::new(&found, sstable),
                log: Arc::clone(&self.log),
            };
            let mut position = None;
            if let Some(bytes) = key.and_then(|k| metadata.parse_key(k).ok()) {
                let found_key =
                    sstable_engine::lookup::lookup_with(&metadata, &bytes, source(), &NoClock);
                match (&found_key.partition_position, &found_key.stopped_at) {
                    (Some(p), _) if found_key.found => position = Some(*p),
                    (_, Some(stop)) if stop.is_absent() => continue,
                    (_, Some(sstable_engine::lookup::StopReason::Error { message, .. })) => {
                        return Err(err(message))
                    }
                    // No lookup possible here: the whole SSTable (DataFusion filters on top).
                    _ => {}
                }
            }
            let reader = RowBatchReader::with_columns(
                &metadata,
                source(),
                options,
                self.now_seconds,
                Some(&decoded),
            )
            .map_err(|e| err(&e))?;
            let mut reader = match position {
                Some(p) => reader.only_partition_at(p).map_err(|e| err(&e))?,
                None => reader,
            };
            let schema = arrow_array::RecordBatchReader::schema(&reader);
            let mut batches = Vec::new();
            for b in reader.by_ref() {
                let b = b.map_err(|e| err(&e))?;
                rows = rows.saturating_add(b.num_rows());
                batches.push(b);
                if limit.is_some_and(|l| rows >= l) {
                    break;
                }
            }
            // A chunk whose checksum failed is not a row source to answer from.
            if let Some(f) = reader.take_findings().into_iter().next() {
                return Err(err(&f.message));
            }
            let (_, batches) = bridge::to_datafusion(&schema, &batches).map_err(SqlError::Read)?;
            for b in batches {
                let b = b.project(&order).map_err(|e| err(&e))?;
                // Under the table's names.
                let b = RecordBatch::try_new_with_options(
                    Arc::clone(&projected),
                    b.columns().to_vec(),
                    &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
                )
                .map_err(|e| err(&e))?;
                out.push(b);
            }
        }
        Ok(out)
    }
}

/// `schema` with its key and clustering columns named by `names` (see [`SSTableTable::open`]).
fn renamed(schema: &SchemaRef, (keys, clustering): (&[String], &[String])) -> SchemaRef {
    let is_key = |n: &str| n == "partition_key" || n.starts_with("partition_key_");
    let key_count = schema.fields().iter().filter(|f| is_key(f.name())).count();
    let clustering_count = schema
        .fields()
        .iter()
        .filter(|f| f.name().starts_with("clustering_"))
        .count();
    let (mut k, mut c) = (0usize, 0usize);
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let name = if is_key(f.name()) && key_count == keys.len() {
                k += 1;
                keys.get(k - 1)
            } else if f.name().starts_with("clustering_") && clustering_count == clustering.len() {
                c += 1;
                clustering.get(c - 1)
            } else {
                None
            };
            match name {
                Some(n) => f.as_ref().clone().with_name(n),
                None => f.as_ref().clone(),
            }
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The key a filter `<key column> = literal` (either side) asks for, as cqlsh prints it.
fn key_equality(e: &Expr, key_column: &str) -> Option<String> {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = e else {
        return None;
    };
    if *op != Operator::Eq {
        return None;
    }
    let (column, literal) = match (left.as_ref(), right.as_ref()) {
        (Expr::Column(c), Expr::Literal(v, _)) | (Expr::Literal(v, _), Expr::Column(c)) => (c, v),
        _ => return None,
    };
    if column.name != key_column || literal.is_null() {
        return None;
    }
    match literal {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        ScalarValue::Int8(Some(_))
        | ScalarValue::Int16(Some(_))
        | ScalarValue::Int32(Some(_))
        | ScalarValue::Int64(Some(_)) => Some(literal.to_string()),
        _ => None,
    }
}

#[async_trait]
impl TableProvider for SSTableTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> datafusion::error::Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| match self.key(f) {
                Some(_) => TableProviderFilterPushDown::Inexact,
                None => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let key = filters.iter().find_map(|f| self.key(f));
        let batches = self
            .read(projection.map(Vec::as_slice), key.as_deref(), limit)
            .map_err(|e| DataFusionError::External(Box::new(ReadFailed(e.to_string()))))?;
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => Arc::clone(&self.schema),
        };
        MemTable::try_new(schema, vec![batches])?
            .scan(state, None, &[], limit)
            .await
    }
}

/// A read error carried through DataFusion (told apart from its own by [`crate::query`]).
#[derive(Debug)]
pub struct ReadFailed(pub String);

impl std::fmt::Display for ReadFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadFailed {}
