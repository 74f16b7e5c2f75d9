//! `sstable-inspect export`: each 3.0+ SSTable's rows (or its partitions report) written as one
//! Parquet, Arrow IPC or CSV file in `--out`, through `sstable-arrow`: Data.db is read chunk by
//! chunk and written batch by batch, so memory stays at one batch whatever the file size. The
//! type mapping and the columns are `sstable_arrow`'s (`arrow/src/types.rs`, `rows.rs`).
//!
//! Output names: `<table directory>.<SSTable file prefix>.<ext>` (`legacy_na_clust.na-1-big.parquet`),
//! with `-2`, `-3`, … appended when two SSTables would share a name. Exit status: 0 when every
//! SSTable was exported, 1 when any could not be read or written.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sstable_arrow::write::{BatchWriter, Format};
use sstable_arrow::{PartitionBatchReader, RowBatchReader, RowOptions};
use sstable_engine::analytics;
use sstable_engine::component::ComponentType;

use crate::files::{self, ComponentFiles};
use crate::progress::Progress;
use crate::Outcome;

/// `sstable-inspect export PATH... --format parquet|arrow|csv --out DIR`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Output format: parquet (Snappy), arrow (IPC file) or csv (values as `dump` prints them)
    #[arg(long, value_name = "FORMAT", value_parser = format)]
    format: Format,
    /// Directory for the output files (created if missing)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// What to export: rows, or the partitions report (one row per partition)
    #[arg(long, value_name = "WHAT", default_value = "rows", value_parser = ["rows", "partitions"])]
    table: String,
    /// Add __writetime, __ttl and __local_deletion_time columns after each simple column
    #[arg(long)]
    cell_metadata: bool,
    /// Rows per record batch (Parquet row groups are cut at 16 MiB of encoded pages)
    #[arg(long, value_name = "N", default_value_t = sstable_arrow::DEFAULT_BATCH_ROWS)]
    batch_rows: usize,
}

fn format(value: &str) -> Result<Format, String> {
    match value {
        "parquet" => Ok(Format::Parquet),
        "arrow" | "ipc" | "feather" => Ok(Format::Arrow),
        "csv" => Ok(Format::Csv),
        _ => Err("must be one of parquet, arrow, csv".to_owned()),
    }
}

pub fn run(a: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = a.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let mut used = HashSet::new();
    let mut errors = false;
    for sstable in &found.grouping.sstables {
        let out_path = output_path(&a.out, &sstable.prefix, a.format, &mut used);
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        errors |= crate::output::print_errors(io_errors);
        if !metadata.descriptor.version.has_row_format() {
            eprintln!(
                "error: {}: version {} predates the 3.0 row format: not exported",
                sstable.prefix, sstable.descriptor.version
            );
            errors = true;
            continue;
        }
        let progress = Progress::bytes(
            &sstable.prefix,
            metadata.size_of(&ComponentType::Data).unwrap_or(0),
        );
        let source = ComponentFiles::new(&found, sstable);
        let exported = if a.table == "partitions" {
            let (now, _) = analytics::default_now(&metadata);
            PartitionBatchReader::new(&metadata, source, a.batch_rows, now)
                .map_err(|e| e.to_string())
                .and_then(|mut r| {
                    write_all(&out_path, a.format, &mut r, |r| {
                        progress.set_position(r.bytes_read())
                    })
                })
                .map(|rows| format!("{rows} partitions"))
        } else {
            let options = RowOptions {
                batch_rows: a.batch_rows,
                cell_metadata: a.cell_metadata,
                mapping: a.format.mapping(),
            };
            RowBatchReader::new(&metadata, source, options, crate::now::now_seconds())
                .map_err(|e| e.to_string())
                .and_then(|mut r| {
                    let rows = write_all(&out_path, a.format, &mut r, |r| {
                        progress.set_position(r.bytes_read())
                    })?;
                    for f in r.take_findings() {
                        eprintln!("finding: {}: {}", sstable.prefix, f.message);
                    }
                    let c = r.counts();
                    if c.values.undecodable > 0 {
                        eprintln!(
                            "warning: {}: {} values did not decode as their type (written as null)",
                            sstable.prefix, c.values.undecodable
                        );
                    }
                    Ok(format!("{rows} rows"))
                })
        };
        drop(progress);
        match exported {
            Ok(what) => eprintln!("{}: {what} → {}", sstable.prefix, out_path.display()),
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
            }
        }
    }
    Ok(if errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

/// Streams `reader`'s batches into a new file at `path`; the rows written. A file whose export
/// failed is removed.
fn write_all<R: arrow_array::RecordBatchReader>(
    path: &Path,
    format: Format,
    reader: &mut R,
    mut after_batch: impl FnMut(&R),
) -> Result<u64, String> {
    let written = (|| {
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let out = std::io::BufWriter::with_capacity(1 << 20, file);
        let schema = reader.schema();
        let mut writer = BatchWriter::new(format, out, &schema).map_err(|e| e.to_string())?;
        let mut rows = 0u64;
        while let Some(batch) = reader.next() {
            let batch = batch.map_err(|e| e.to_string())?;
            rows = rows.saturating_add(batch.num_rows() as u64);
            writer.write(&batch).map_err(|e| e.to_string())?;
            after_batch(reader);
        }
        writer.finish().map_err(|e| e.to_string())?;
        Ok(rows)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}

/// `<dir>/<table directory>.<file prefix>.<ext>`, unique within this run.
fn output_path(dir: &Path, prefix: &str, format: Format, used: &mut HashSet<String>) -> PathBuf {
    let p = Path::new(prefix);
    let file = p
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sstable".to_owned());
    let stem = match p
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy().into_owned())
    {
        Some(table) if !table.is_empty() => format!("{table}.{file}"),
        _ => file,
    };
    let mut name = format!("{stem}.{}", format.extension());
    let mut n = 1u32;
    while !used.insert(name.clone()) {
        n = n.saturating_add(1);
        name = format!("{stem}-{n}.{}", format.extension());
    }
    dir.join(name)
}
