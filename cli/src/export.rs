//! `sstable-inspect export`: each 3.0+ SSTable's rows (or its partitions report) written as one
//! Parquet, Arrow IPC or CSV file in `--out`, through `sstable-arrow`: Data.db is read chunk by
//! chunk and written batch by batch, so memory stays at one batch whatever the file size. With
//! `--jobs` N > 1 the rows' scan is split over threads like `dump`'s (`jobs::scan_split`): each
//! range's rows are batched on its thread and the ranges' batches cut again in file order into
//! the batches one scan cuts (`sstable_arrow::Rechunker`), so the file is byte for byte the
//! sequential run's; memory is then the ranges in flight (at most `2 × N`, each ≤ 8 MiB of
//! uncompressed data, as Arrow batches). The
//! type mapping and the columns are `sstable_arrow`'s (`arrow/src/types.rs`, `rows.rs`).
//!
//! Output names: `<table directory>.<SSTable file prefix>.<ext>` (`legacy_na_clust.na-1-big.parquet`),
//! with `-2`, `-3`, … appended when two SSTables would share a name. Exit status: 0 when every
//! SSTable was exported, 1 when any could not be read or written.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use arrow_array::RecordBatch;
use sstable_arrow::write::{BatchWriter, Format};
use sstable_arrow::{PartitionBatchReader, Rechunker, RowBatchReader, RowBatcher, RowOptions};
use sstable_engine::analytics::{self, data_len_bytes};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataFileReader, DecodeOptions, VisitStep};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::sstable_set::SSTableFiles;

use crate::files::{self, ComponentFiles, FoundFiles};
use crate::jobs;
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
    /// Threads the rows' scan is split over (default: the cores); the file written is the same
    /// for any N (the partitions report is always one scan)
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
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
    let jobs = a.jobs.unwrap_or_else(jobs::default_jobs).max(1);
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
            let now = crate::now::now_seconds();
            let written = if jobs > 1 {
                let split = Split {
                    found: &found,
                    sstable,
                    metadata: &metadata,
                    jobs,
                    progress: &progress,
                };
                split_rows(&split, &out_path, a.format, options, now)
            } else {
                RowBatchReader::new(&metadata, source, options, now)
                    .map_err(|e| e.to_string())
                    .and_then(|mut r| {
                        let rows = write_all(&out_path, a.format, &mut r, |r| {
                            progress.set_position(r.bytes_read())
                        })?;
                        let findings = r.take_findings().into_iter().map(|f| f.message);
                        Ok((rows, findings.collect(), r.counts().values.undecodable))
                    })
            };
            written.map(|(rows, findings, undecodable)| {
                for f in findings {
                    eprintln!("finding: {}: {f}", sstable.prefix);
                }
                if undecodable > 0 {
                    eprintln!(
                        "warning: {}: {undecodable} values did not decode as their type (written as null)",
                        sstable.prefix
                    );
                }
                format!("{rows} rows")
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

/// What a split export reads.
struct Split<'a> {
    found: &'a FoundFiles,
    sstable: &'a SSTableFiles,
    metadata: &'a SSTableMetadata,
    jobs: usize,
    progress: &'a Progress,
}

/// One range's rows: its batches in order, its undecodable values.
struct RangeRows {
    batches: Vec<RecordBatch>,
    undecodable: u64,
}

/// The rows export of `--jobs` N > 1: the scan split into ranges (`jobs::scan_split`), each
/// range's rows batched by its own [`RowBatcher`], the ranges' batches cut again by a
/// [`Rechunker`] into the batches one scan cuts, so the file is the sequential run's byte for
/// byte. The rows written, the chunk findings, the undecodable values; a failed export's file
/// is removed.
fn split_rows(
    s: &Split<'_>,
    path: &Path,
    format: Format,
    options: RowOptions,
    now: Option<i64>,
) -> Result<(u64, Vec<String>, u64), String> {
    let decode = DecodeOptions {
        now_seconds: now,
        ..DecodeOptions::default()
    };
    let template = DataFileReader::for_sstable(s.metadata, decode)
        .map_err(|e| sstable_arrow::engine_error(e).to_string())?;
    let batcher = || RowBatcher::new(template.decoder().schema(), options);
    let schema = batcher().schema();
    let written = (|| {
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut writer = BatchWriter::new(format, out, &schema).map_err(|e| e.to_string())?;
        let mut rechunker = Rechunker::new(Arc::clone(&schema), options.batch_rows);
        let mut rows = 0u64;
        let mut findings = Vec::new();
        let mut undecodable = 0u64;
        let mut failed: Option<String> = None;
        let data_len = data_len_bytes(s.metadata).unwrap_or(0).max(1);
        let file_len = s.metadata.size_of(&ComponentType::Data).unwrap_or(0);
        jobs::scan_split(
            s.found,
            s.sstable,
            s.metadata,
            &template,
            s.jobs,
            |reader, driver| {
                let mut batcher = batcher();
                let mut range = RangeRows {
                    batches: Vec::new(),
                    undecodable: 0,
                };
                let error = loop {
                    match driver.visit_next(reader, &mut batcher, &NoClock) {
                        Ok(VisitStep::Visited) => {}
                        Ok(VisitStep::Finished | VisitStep::NeedMoreData) => {
                            batcher.finish();
                            break None;
                        }
                        Err(e) => break Some(sstable_arrow::engine_error(e).to_string()),
                    }
                    while let Some(b) = batcher.take_batch() {
                        match b {
                            Ok(b) => range.batches.push(b),
                            Err(e) => return (range, Some(e.to_string())),
                        }
                    }
                };
                while let Some(b) = batcher.take_batch() {
                    match b {
                        Ok(b) => range.batches.push(b),
                        Err(e) => return (range, Some(e.to_string())),
                    }
                }
                range.undecodable = batcher.counts().values.undecodable;
                (range, error)
            },
            |run| {
                findings.extend(run.findings);
                if let Some(range) = run.value {
                    undecodable = undecodable.saturating_add(range.undecodable);
                    for b in range.batches {
                        rows = rows.saturating_add(b.num_rows() as u64);
                        let pushed = rechunker.push(b, |b| writer.write(&b));
                        if let Err(e) = pushed {
                            failed = Some(e.to_string());
                            return false;
                        }
                    }
                }
                let done = u128::from(run.stopped_at) * u128::from(file_len) / u128::from(data_len);
                s.progress
                    .set_position(u64::try_from(done).unwrap_or(file_len));
                match run.error {
                    Some(e) => {
                        failed = Some(e);
                        false
                    }
                    None => true,
                }
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        rechunker
            .finish(|b| writer.write(&b))
            .map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
        Ok((rows, findings, undecodable))
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
