//! SQL over a table's SSTables on DataFusion: the rows of every 3.0+ SSTable found (as
//! `sstable-arrow` decodes them, with the `<column>__writetime` / `__ttl` /
//! `__local_deletion_time` columns of `--cell-metadata`) registered as table `t`.
//!
//! DataFusion 55 is built on arrow 59 and the decoder's batches are arrow 60: they cross
//! through Arrow IPC ([`bridge`]), safe code and one copy per batch.
//!
//! Not yet: projection and key/token filters pushed into the decoder (a `MemTable` holds the
//! decoded rows), the merged read of several SSTables (their rows are concatenated).

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use sstable_arrow::{RowBatchReader, RowOptions};
use sstable_native::files::{self, ComponentFiles};

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
}

/// The rows of the 3.0+ SSTables under `paths`, as one table.
pub fn load_table(
    paths: &[&str],
    now_seconds: Option<i64>,
) -> Result<(SchemaRef, Vec<RecordBatch>), SqlError> {
    let found = files::find(paths).map_err(|e| SqlError::Read(e.to_string()))?;
    let mut schema: Option<arrow_schema::SchemaRef> = None;
    let mut rows = Vec::new();
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        if let Some(e) = io_errors.into_iter().next() {
            return Err(SqlError::Read(format!("{}: {e}", sstable.prefix)));
        }
        let options = RowOptions {
            cell_metadata: true,
            ..RowOptions::default()
        };
        let source = ComponentFiles::new(&found, sstable);
        let reader = RowBatchReader::new(&metadata, source, options, now_seconds)
            .map_err(|e| SqlError::Read(format!("{}: {e}", sstable.prefix)))?;
        let s = arrow_array::RecordBatchReader::schema(&reader);
        match &schema {
            Some(first) if first.fields() != s.fields() => {
                return Err(SqlError::Read(format!(
                    "{}: its columns differ from the first SSTable's",
                    sstable.prefix
                )))
            }
            _ => schema = Some(s),
        }
        let mut reader = reader;
        for b in reader.by_ref() {
            rows.push(b.map_err(|e| SqlError::Read(format!("{}: {e}", sstable.prefix)))?);
        }
        // A chunk whose checksum failed is not a row source to answer from.
        if let Some(f) = reader.take_findings().into_iter().next() {
            return Err(SqlError::Read(format!("{}: {}", sstable.prefix, f.message)));
        }
    }
    let schema = schema.ok_or_else(|| SqlError::Read("no 3.0+ SSTable found".to_owned()))?;
    bridge::to_datafusion(&schema, &rows).map_err(SqlError::Read)
}

/// Runs `sql` over the table `t` of `paths`.
pub fn query(
    sql: &str,
    paths: &[&str],
    now_seconds: Option<i64>,
) -> Result<Vec<RecordBatch>, SqlError> {
    let (schema, batches) = load_table(paths, now_seconds)?;
    let table =
        MemTable::try_new(schema, vec![batches]).map_err(|e| SqlError::Read(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| SqlError::Read(e.to_string()))?;
    runtime.block_on(async {
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
        ctx.register_table("t", Arc::new(table))
            .map_err(|e| SqlError::Query(e.to_string()))?;
        let df = ctx
            .sql(sql)
            .await
            .map_err(|e| SqlError::Query(e.to_string()))?;
        df.collect()
            .await
            .map_err(|e| SqlError::Query(e.to_string()))
    })
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
