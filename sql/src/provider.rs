//! The table `t` as a DataFusion [`TableProvider`] over the merged read of the table's
//! SSTables (`sstable_engine::merge::TableMerger` through `sstable_arrow::MergedRowReader`):
//! the rows a read of the whole table returns, each partition's versions reconciled and
//! shadowed data dropped at `now`, as `sstable-inspect read` shows them. A table of one SSTable
//! is the trivial merge.
//!
//! `scan` plans a [`StreamingTableExec`] of one [`PartitionStream`]: the SSTables are opened
//! when DataFusion executes the plan and rows are decoded as it pulls batches, so memory is a
//! batch and the merge window. Pushed into the decoding:
//!
//! * the projection: only the projected columns' values are converted
//!   (`RowBatcher::with_columns`);
//! * a partition-key equality (`partition_key = '…'`): each SSTable's lookup (bloom filter,
//!   summary and index, or the BTI trie) gives the partition's position, its read starts there
//!   and ends after that partition, so only its chunks are read; an SSTable where the key is
//!   absent is left out of the merge;
//! * a token range (`__token >= A AND __token < B`, the Murmur3 token, bigint): the merge
//!   starts at A (`TableMerger::seek`: each SSTable's read at its first partition at or after
//!   A, found through its index — Index.db entries from the Summary.db sample before A, or the
//!   BTI trie — an SSTable wholly before A not read) and stops at the first partition past B;
//! * a `LIMIT` DataFusion gives the scan: batches of at most that many rows, and no batch
//!   is decoded after DataFusion has its rows.
//!
//! The key and token filters are reported [`Inexact`](TableProviderFilterPushDown::Inexact):
//! an SSTable whose index cannot answer is read whole, and DataFusion filters again on top.
//! With a schema (schema.cql, `--schema`) the key and clustering columns carry its names.
//! Every read goes through a [`CountingSource`]; its totals are the [`ReadLog`]. The chunk a
//! lookup read to confirm the partition is not read again by the merge (the source keeps the
//! last Data.db read).
//!
//! 2.x SSTables (`jb`, `ka`, `la`) need the table's `CREATE TABLE` (schema.cql, `--schema`):
//! the merge inputs come from the engine's one constructor
//! (`sstable_engine::merge::inputs::table_inputs`), so a 2.x SSTable is merged like a 3.0+ one,
//! alone or beside 3.0+ SSTables; its key is parsed with the schema's key type and found
//! through its Index.db, and a token range starts from its Index.db too (the same seek). The
//! column schema is the merge reader's (`MergeReader::schema`); a COMPACT STORAGE table's too, as
//! Cassandra 3.0 has it (a static compact table's columns static behind a hidden clustering column).

use std::sync::{Arc, Mutex};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator, TableProviderFilterPushDown};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use sstable_arrow::{row_schema, MergedRowReader, PartitionFilter, RowOptions, TOKEN_COLUMN};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::cql_schema::CqlSchemaFile;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::inputs::{legacy_schema, merge_reader, table_inputs, TableSSTable};
use sstable_engine::merge::{MergeOptions, SeekTo, TableMerger};
use sstable_engine::sstable_set::SSTableFiles;
use sstable_engine::token::{Partitioner, Token};
use sstable_engine::types::value::parse_partition_key;
use sstable_engine::write::TableSchema;
use sstable_native::files::{self, ComponentFiles};

pub use crate::source::{CountingSource, ReadLog};
use crate::{bridge, SqlError};

/// What a scan asks of the partitions (pushed-down filters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    /// A partition key as cqlsh prints it (an equality on a one-column key).
    pub key: Option<String>,
    /// Murmur3 tokens, both ends included (`__token` bounds).
    pub tokens: Option<(i64, i64)>,
}

/// The table of the SSTables under some paths (see the module docs).
#[derive(Debug, Clone)]
pub struct SSTableTable {
    paths: Vec<String>,
    now_seconds: Option<i64>,
    /// [`sstable_arrow::row_schema`] with cell metadata (and `__token` last for a Murmur3
    /// table), as DataFusion's arrow; its key and clustering columns named as the schema names
    /// them, when one was given.
    schema: SchemaRef,
    /// Whether the table has the `__token` column.
    token: bool,
    /// The partition key column's name (a one-column key), for the key filter.
    key_column: Option<String>,
    log: Arc<Mutex<ReadLog>>,
    /// The table's `CREATE TABLE`, for its 2.x SSTables' merge inputs.
    cql: Option<CqlSchemaFile>,
    /// The engine's schema of it, when an SSTable is 2.x (its key type parses a key filter).
    legacy: Option<TableSchema>,
}

fn options() -> RowOptions {
    RowOptions {
        cell_metadata: true,
        ..RowOptions::default()
    }
}

impl SSTableTable {
    /// The table of `paths`: its schema is the first SSTable's merge reader's (no Data.db read
    /// yet). With `names` (a schema's partition key and clustering column names, in order)
    /// those columns are named so, where their counts match the SSTable's; else
    /// `partition_key`, `partition_key_0`, …, `clustering_0`, ….
    ///
    /// 2.x SSTables are read with `cql`, the table's `CREATE TABLE` (an error without one).
    pub fn open(
        paths: &[&str],
        now_seconds: Option<i64>,
        names: Option<(&[String], &[String])>,
        cql: Option<&CqlSchemaFile>,
    ) -> Result<Self, SqlError> {
        let found = files::find(paths).map_err(|e| SqlError::Read(e.to_string()))?;
        let sstables = &found.grouping.sstables;
        let is_legacy = |s: &SSTableFiles| !s.descriptor.version.has_row_format();
        let any_legacy = sstables.iter().any(is_legacy);
        let mut legacy = None;
        if any_legacy {
            let Some(cql) = cql else {
                return Err(SqlError::Read(
                    "2.x SSTables: SQL needs the table's schema (schema.cql beside them or --schema FILE.cql)".to_owned(),
                ));
            };
            legacy = legacy_schema(Some(cql))
                .map_err(|e| SqlError::Read(format!("the table's CREATE TABLE: {e}")))?;
        }
        let decode = DecodeOptions {
            now_seconds,
            ..DecodeOptions::default()
        };
        let mut schema = None;
        let mut token = false;
        let mut first_error = None;
        for sstable in sstables {
            let (metadata, _) = files::load_metadata(&found, sstable);
            match merge_reader(&metadata, legacy.as_ref(), decode) {
                Ok(r) => {
                    let s = row_schema(r.schema(), &options());
                    let (s, _) = bridge::to_datafusion(&s, &[]).map_err(SqlError::Read)?;
                    token = metadata.partitioner() == Partitioner::Murmur3;
                    schema = Some(s);
                    break;
                }
                Err(e) => {
                    first_error.get_or_insert_with(|| format!("{}: {e}", sstable.prefix));
                }
            }
        }
        let schema = schema.ok_or_else(|| {
            SqlError::Read(first_error.unwrap_or_else(|| "no SSTable found".to_owned()))
        })?;
        let schema = if token {
            let mut fields: Vec<Field> =
                schema.fields().iter().map(|f| f.as_ref().clone()).collect();
            fields.push(Field::new(TOKEN_COLUMN, DataType::Int64, true));
            Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
        } else {
            schema
        };
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
            token,
            key_column,
            log: Arc::new(Mutex::new(ReadLog::default())),
            cql: cql.cloned(),
            legacy,
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

    /// The rows of the merged read of the table's SSTables, as a stream of batches decoded as
    /// they are pulled: the columns at `projection` (`None`: all), in that order; only the
    /// partitions `wanted` names where the index can find them; with `limit`, batches of at
    /// most `limit` rows.
    pub fn rows(
        &self,
        projection: Option<&[usize]>,
        wanted: &Wanted,
        limit: Option<usize>,
    ) -> Result<MergedRows, SqlError> {
        MergedRows::open(self, projection, wanted, limit)
    }
}

/// Rows per batch of a scan: at most its `LIMIT` (no more is decoded than asked for).
fn batch_rows(limit: Option<usize>) -> usize {
    limit.map_or(sstable_arrow::DEFAULT_BATCH_ROWS, |l| {
        l.clamp(1, sstable_arrow::DEFAULT_BATCH_ROWS)
    })
}

/// The merged read of a scan, as DataFusion batches (an iterator; see [`SSTableTable::rows`]).
pub struct MergedRows {
    reader: Option<MergedRowReader<CountingSource<ComponentFiles>>>,
    /// Batch column order → the projection's order.
    order: Vec<usize>,
    projected: SchemaRef,
}

impl MergedRows {
    fn open(
        table: &SSTableTable,
        projection: Option<&[usize]>,
        wanted: &Wanted,
        limit: Option<usize>,
    ) -> Result<Self, SqlError> {
        let options = RowOptions {
            batch_rows: batch_rows(limit),
            ..options()
        };
        let paths: Vec<&str> = table.paths.iter().map(String::as_str).collect();
        let found = files::find(&paths).map_err(|e| SqlError::Read(e.to_string()))?;
        // Decoded: the projected columns in schema order (`_kind` for none: its rows count).
        let mut decoded: Vec<usize> = projection.map_or_else(
            || (0..table.schema.fields().len()).collect(),
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
                table
                    .schema
                    .project(p)
                    .map_err(|e| SqlError::Read(e.to_string()))?,
            ),
            None => Arc::clone(&table.schema),
        };
        let decode = DecodeOptions {
            now_seconds: table.now_seconds,
            ..DecodeOptions::default()
        };
        // The SSTables the read needs, each with where its read starts (`None`: the start).
        let mut metadatas = Vec::new();
        let mut starts = Vec::new();
        let mut sources = Vec::new();
        let mut key_bytes = None;
        for sstable in &found.grouping.sstables {
            let err =
                |e: &dyn std::fmt::Display| SqlError::Read(format!("{}: {e}", sstable.prefix));
            let (metadata, io_errors) = files::load_metadata(&found, sstable);
            if let Some(e) = io_errors.into_iter().next() {
                return Err(err(&e));
            }
            let mut source =
                CountingSource::new(ComponentFiles::new(&found, sstable), Arc::clone(&table.log));
            let mut position = None;
            // A 2.x SSTable records no key type: the schema's.
            let bytes = wanted.key.as_deref().and_then(|k| {
                match (&table.legacy, metadata.descriptor.version.has_row_format()) {
                    (Some(schema), false) => parse_partition_key(&schema.key_type(), k).ok(),
                    _ => metadata.parse_key(k).ok(),
                }
            });
            if let Some(bytes) = bytes {
                let found_key =
                    sstable_engine::lookup::lookup_with(&metadata, &bytes, &mut source, &NoClock);
                key_bytes = Some(bytes);
                match (&found_key.partition_position, &found_key.stopped_at) {
                    (Some(p), _) if found_key.found => position = Some(*p),
                    (_, Some(stop)) if stop.is_absent() => continue,
                    (_, Some(sstable_engine::lookup::StopReason::Error { message, .. })) => {
                        return Err(err(message))
                    }
                    // No lookup possible here: the whole SSTable (filtered as it is merged).
                    _ => {}
                }
            }
            let name = sstable
                .prefix
                .rsplit('/')
                .next()
                .unwrap_or(&sstable.prefix)
                .to_owned();
            metadatas.push(metadata);
            starts.push((name, position));
            sources.push(source);
        }
        if metadatas.is_empty() {
            // No SSTable holds the key (or the token range).
            return Ok(MergedRows {
                reader: None,
                order,
                projected,
            });
        }
        let sstables: Vec<TableSSTable<'_, _>> = metadatas
            .iter()
            .zip(&starts)
            .zip(sources)
            .map(|((metadata, (name, _)), source)| TableSSTable {
                name: name.clone(),
                metadata,
                source,
            })
            .collect();
        let (mut inputs, partitioner) = table_inputs(sstables, table.cql.as_ref(), decode)
            .map_err(|e| SqlError::Read(e.to_string()))?;
        for (input, (name, position)) in inputs.iter_mut().zip(&starts) {
            if let Some(p) = position {
                input
                    .reader
                    .seek_to_partition(*p)
                    .map_err(|e| SqlError::Read(format!("{name}: {e}")))?;
            }
        }
        let merge_options = MergeOptions {
            now_seconds: table.now_seconds,
            explain: false,
        };
        let mut merger = TableMerger::new(inputs, partitioner.clone(), merge_options)
            .map_err(|e| SqlError::Read(e.to_string()))?;
        if let (None, Some((first, _))) = (&key_bytes, wanted.tokens) {
            // Each SSTable's read starts at its first partition at or after the range (the
            // engine's seek: Summary.db sample and Index.db, or the BTI trie); one whose
            // partitions all sort before it is not read.
            let metadata: Vec<&SSTableMetadata> = metadatas.iter().collect();
            merger
                .seek(&metadata, SeekTo::Token(Token::Murmur3(first)), &NoClock)
                .map_err(|e| SqlError::Read(e.to_string()))?;
        }
        let filter = match (key_bytes, wanted.tokens) {
            (Some(k), _) => PartitionFilter::Key(k),
            (None, Some((first, last))) => PartitionFilter::Tokens { first, last },
            (None, None) => PartitionFilter::All,
        };
        let reader =
            MergedRowReader::new(merger, partitioner, options, Some(&decoded), table.token)
                .with_filter(filter);
        Ok(MergedRows {
            reader: Some(reader),
            order,
            projected,
        })
    }

    fn convert(&self, b: &arrow_array::RecordBatch) -> Result<RecordBatch, SqlError> {
        let schema = b.schema();
        let (_, batches) =
            bridge::to_datafusion(&schema, std::slice::from_ref(b)).map_err(SqlError::Read)?;
        let b = batches
            .into_iter()
            .next()
            .ok_or_else(|| SqlError::Read("a batch was lost in conversion".to_owned()))?;
        let b = b
            .project(&self.order)
            .map_err(|e| SqlError::Read(e.to_string()))?;
        // Under the table's names.
        RecordBatch::try_new_with_options(
            Arc::clone(&self.projected),
            b.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
        )
        .map_err(|e| SqlError::Read(e.to_string()))
    }
}

impl Iterator for MergedRows {
    type Item = Result<RecordBatch, SqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.reader.as_mut()?.next()?;
        let out = match b {
            Ok(b) => self.convert(&b),
            Err(e) => Err(SqlError::Read(arrow_error_text(&e))),
        };
        if out.is_err() {
            self.reader = None;
        }
        Some(out)
    }
}

/// An Arrow error's text: the engine's or the merge's own message when it holds one.
fn arrow_error_text(e: &arrow_schema::ArrowError) -> String {
    match e {
        arrow_schema::ArrowError::ExternalError(inner) => inner.to_string(),
        other => other.to_string(),
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

/// The inclusive token bounds a filter `__token <op> literal` (either side) sets:
/// `(lower, upper)`, one of them `None`.
fn token_bound(e: &Expr) -> Option<(Option<i64>, Option<i64>)> {
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = e else {
        return None;
    };
    let (column, literal, op) = match (left.as_ref(), right.as_ref()) {
        (Expr::Column(c), Expr::Literal(v, _)) => (c, v, *op),
        (Expr::Literal(v, _), Expr::Column(c)) => (c, v, op.swap()?),
        _ => return None,
    };
    if column.name != TOKEN_COLUMN {
        return None;
    }
    let v = match literal {
        ScalarValue::Int64(Some(v)) => *v,
        ScalarValue::Int32(Some(v)) => i64::from(*v),
        ScalarValue::Int16(Some(v)) => i64::from(*v),
        ScalarValue::Int8(Some(v)) => i64::from(*v),
        _ => return None,
    };
    match op {
        Operator::Eq => Some((Some(v), Some(v))),
        Operator::GtEq => Some((Some(v), None)),
        Operator::Gt => Some((Some(v.checked_add(1)?), None)),
        Operator::LtEq => Some((None, Some(v))),
        Operator::Lt => Some((None, Some(v.checked_sub(1)?))),
        _ => None,
    }
}

/// The token range all of `filters` together allow, if any of them bounds `__token`.
fn token_range(filters: &[Expr]) -> Option<(i64, i64)> {
    let mut range: Option<(i64, i64)> = None;
    for f in filters {
        if let Some((lo, hi)) = token_bound(f) {
            let (a, b) = range.unwrap_or((i64::MIN, i64::MAX));
            range = Some((lo.map_or(a, |l| a.max(l)), hi.map_or(b, |h| b.min(h))));
        }
    }
    range
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
            .map(|f| {
                let token = self.token && token_bound(f).is_some();
                if token || self.key(f).is_some() {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let wanted = Wanted {
            key: filters.iter().find_map(|f| self.key(f)),
            tokens: token_range(filters).filter(|_| self.token),
        };
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => Arc::clone(&self.schema),
        };
        let scan = MergedScan {
            // The same table (its read log shared).
            table: self.clone(),
            projection: projection.cloned(),
            wanted,
            limit,
            schema: Arc::clone(&schema),
        };
        let exec = StreamingTableExec::try_new(
            schema,
            vec![Arc::new(scan) as Arc<dyn PartitionStream>],
            None,
            Vec::new(),
            false,
            limit,
        )?;
        Ok(Arc::new(exec))
    }
}

/// One scan of the table: opened when DataFusion executes it, its rows decoded as the stream
/// is polled ([`MergedRows`]).
#[derive(Debug)]
struct MergedScan {
    table: SSTableTable,
    projection: Option<Vec<usize>>,
    wanted: Wanted,
    limit: Option<usize>,
    /// The projected schema.
    schema: SchemaRef,
}

impl PartitionStream for MergedScan {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let failed = |e: SqlError| DataFusionError::External(Box::new(ReadFailed(e.to_string())));
        let rows = self
            .table
            .rows(self.projection.as_deref(), &self.wanted, self.limit);
        let stream: Box<dyn Iterator<Item = datafusion::error::Result<RecordBatch>> + Send> =
            match rows {
                Ok(rows) => Box::new(rows.map(move |r| r.map_err(failed))),
                Err(e) => Box::new(std::iter::once(Err(failed(e)))),
            };
        Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            futures::stream::iter(stream),
        ))
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
