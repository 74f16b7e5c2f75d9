//! SQL over a table's SSTables on DataFusion: the rows of the merged read of the SSTables
//! found (as `sstable-arrow` decodes them, with the `<column>__writetime` / `__ttl` /
//! `__local_deletion_time` columns of `--cell-metadata`, and `__token` for a Murmur3 table)
//! registered as table `t`.
//!
//! DataFusion 55 is built on arrow 59 and the decoder's batches are arrow 60: they cross
//! through Arrow IPC ([`bridge`]), safe code and one copy per batch.
//!
//! The table is a [`SSTableTable`] ([`provider`]): rows streamed as DataFusion pulls them,
//! projection pushed into the row decoding, a partition-key equality answered through the
//! index and bloom filter, a `__token` range through the index.
//!
//! 2.x SSTables are read when the table's `CREATE TABLE` is known: merged like 3.0+ ones (the
//! engine's `merge::inputs` makes every merge input), alone or beside 3.0+ SSTables, COMPACT
//! STORAGE tables too.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use datafusion::datasource::TableProvider;
use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};

pub mod provider;
pub mod source;

pub use provider::{ReadFailed, ReadLog, SSTableTable};

/// Why a query did not run.
#[derive(Debug)]
pub enum SqlError {
    /// The SQL, a column or a type: DataFusion's message (bad usage, exit 2).
    Query(String),
    /// Reading or decoding an SSTable: the engine's message (SSTable, component, offset).
    Read(String),
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SqlError::Query(m) | SqlError::Read(m) => f.write_str(m),
        }
    }
}

/// Arrow 60 batches (the decoder's) as arrow 59 batches (DataFusion's), through IPC.
pub mod bridge {
    use super::*;

    pub fn to_datafusion(
        schema: &arrow_schema::Schema,
        batches: &[arrow_array::RecordBatch],
    ) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
        let mut bytes = Vec::new();
        {
            let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, schema)
                .map_err(|e| e.to_string())?;
            for b in batches {
                w.write(b).map_err(|e| e.to_string())?;
            }
            w.finish().map_err(|e| e.to_string())?;
        }
        let reader = arrow::ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| e.to_string())?;
        let schema = reader.schema();
        let out = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        Ok((schema, out))
    }

    /// DataFusion's arrow 59 batches back as arrow 60 batches (for `sstable-arrow`'s writers).
    pub fn from_datafusion(
        schema: &SchemaRef,
        batches: &[RecordBatch],
    ) -> Result<(arrow_schema::SchemaRef, Vec<arrow_array::RecordBatch>), String> {
        let mut bytes = Vec::new();
        {
            let mut w = arrow::ipc::writer::StreamWriter::try_new(&mut bytes, schema)
                .map_err(|e| e.to_string())?;
            for b in batches {
                w.write(b).map_err(|e| e.to_string())?;
            }
            w.finish().map_err(|e| e.to_string())?;
        }
        let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| e.to_string())?;
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        let out = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        Ok((schema, out))
    }
}

/// The result of a query as Parquet (`sstable-arrow`'s writer, Snappy) into `out`.
pub fn write_parquet<W: std::io::Write + Send>(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    out: W,
) -> Result<(), String> {
    let (schema, batches) = bridge::from_datafusion(schema, batches)?;
    let mut w =
        sstable_arrow::write::BatchWriter::new(sstable_arrow::write::Format::Parquet, out, &schema)
            .map_err(|e| e.to_string())?;
    for b in &batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())
}

/// Runs `sql` over the table `t` of `paths`.
pub fn query(
    sql: &str,
    paths: &[&str],
    now_seconds: Option<i64>,
) -> Result<Vec<RecordBatch>, SqlError> {
    query_with_log(sql, paths, now_seconds, None, None).map(|(_, b, _)| b)
}

/// [`query`] with the result's schema (also when it has no rows), and what its scans read;
/// `names`: the partition key and clustering column names of the table's schema, if known;
/// `cql`: the table's `CREATE TABLE`, for 2.x SSTables.
pub fn query_with_log(
    sql: &str,
    paths: &[&str],
    now_seconds: Option<i64>,
    names: Option<(&[String], &[String])>,
    cql: Option<&sstable_engine::cql_schema::CqlSchemaFile>,
) -> Result<(SchemaRef, Vec<RecordBatch>, ReadLog), SqlError> {
    let table = Arc::new(SSTableTable::open(paths, now_seconds, names, cql)?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| SqlError::Read(e.to_string()))?;
    let result = runtime.block_on(async {
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
        ctx.register_table("t", Arc::clone(&table) as Arc<dyn TableProvider>)
            .map_err(|e| SqlError::Query(e.to_string()))?;
        let df = ctx.sql(sql).await.map_err(|e| classify(&e))?;
        let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
        let batches = df.collect().await.map_err(|e| classify(&e))?;
        Ok((schema, batches))
    });
    result.map(|(s, b)| (s, b, table.read_log()))
}

/// A read error of a scan ([`ReadFailed`]) is the engine's; any other is DataFusion's.
fn classify(e: &DataFusionError) -> SqlError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<ReadFailed>() {
            return SqlError::Read(r.0.clone());
        }
        source = s.source();
    }
    SqlError::Query(e.to_string())
}

/// Batches as a text table, JSON (an array of objects) or CSV.
pub fn render(batches: &[RecordBatch], format: Format) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    match format {
        Format::Table => {
            let t =
                arrow::util::pretty::pretty_format_batches(batches).map_err(|e| e.to_string())?;
            out.extend_from_slice(t.to_string().as_bytes());
            out.push(b'\n');
        }
        Format::Json => {
            let mut w = arrow::json::ArrayWriter::new(&mut out);
            let refs: Vec<&RecordBatch> = batches.iter().collect();
            w.write_batches(&refs).map_err(|e| e.to_string())?;
            w.finish().map_err(|e| e.to_string())?;
            out.push(b'\n');
        }
        Format::Csv => {
            let mut w = arrow::csv::Writer::new(&mut out);
            for b in batches {
                w.write(b).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(out)
}

/// How [`render`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}
