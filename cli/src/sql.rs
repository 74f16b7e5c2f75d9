//! `sstable-inspect sql "SELECT … FROM t …" PATH…`: SQL over the rows of the merged read of the
//! table's SSTables (what `read` returns, at `--now`; 2.x ones with the table's CREATE TABLE)
//! on DataFusion (the `sstable-sql` crate), printed as a table, `--json` or `--csv`, or written
//! as Parquet (`--parquet FILE`). Key and clustering columns carry the names of the schema.cql
//! beside the SSTables (or `--schema`); `--stats` prints the bytes read. Bad SQL or an unknown
//! column: DataFusion's message, exit 2; an SSTable that does not read: the engine's message
//! (SSTable, component, offset), exit 1.

use std::io::Write;

use sstable_sql::{Format, SqlError};

use crate::Outcome;

/// `sstable-inspect sql QUERY PATH... [--json | --csv | --parquet FILE] [--stats]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The query; the table is `t` (its columns as `export --cell-metadata` names them)
    #[arg(value_name = "QUERY")]
    query: String,
    /// SSTable component files or directories (one table)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// An array of JSON objects, one per row
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// CSV with a header line
    #[arg(long, conflicts_with = "parquet")]
    csv: bool,
    /// Write the result to FILE as Parquet (Snappy) instead of printing it
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    parquet: Option<std::path::PathBuf>,
    /// The table's CQL schema (CREATE TABLE …): key and clustering columns get its names
    /// (default: the schema.cql beside the SSTables, if any)
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<String>,
    /// Print to stderr the bytes read from each component and Data.db's reads
    #[arg(long)]
    stats: bool,
    /// "Now", seconds since the epoch, for TTL expiry in the merged read (default: the clock)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
}

pub fn run(a: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = a.paths.iter().map(String::as_str).collect();
    let format = if a.json {
        Format::Json
    } else if a.csv {
        Format::Csv
    } else {
        Format::Table
    };
    let (loaded, manifest_findings) = crate::schema::load(&paths, a.schema.as_deref())?;
    let names = loaded.as_ref().map(|l| {
        (
            l.file.table.partition_key.as_slice(),
            l.file.table.clustering.as_slice(),
        )
    });
    match sstable_sql::query_with_log(
        &a.query,
        &paths,
        a.now.or_else(crate::now::now_seconds),
        names,
        loaded.as_ref().map(|l| &l.file),
    ) {
        Ok((schema, batches, log)) => {
            if a.stats {
                for (component, bytes) in &log.bytes_by_component {
                    eprintln!("read: {component} {bytes} bytes");
                }
                let reads: Vec<String> = log
                    .data_reads
                    .iter()
                    .map(|(offset, len)| format!("{offset}+{len}"))
                    .collect();
                eprintln!(
                    "read: Data.db reads {} ({} bytes): {}",
                    log.data_reads.len(),
                    log.data_bytes(),
                    reads.join(" ")
                );
            }
            if let Some(path) = &a.parquet {
                let file =
                    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
                sstable_sql::write_parquet(&schema, &batches, std::io::BufWriter::new(file))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            } else {
                let bytes = sstable_sql::render(&batches, format)?;
                let mut out = crate::output::stdout();
                let _ = out.write_all(&bytes);
                let _ = out.flush();
            }
            Ok(if manifest_findings {
                Outcome::Errors
            } else {
                Outcome::Clean
            })
        }
        Err(SqlError::Query(m)) => Err(m),
        Err(SqlError::Read(m)) => {
            eprintln!("error: {m}");
            Ok(Outcome::Errors)
        }
    }
}
