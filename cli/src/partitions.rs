//! `sstable-inspect partitions`: Cassandra's `sstablepartitions` — one streamed pass over each
//! SSTable's Data.db giving, per partition, key, token, position, size, rows, cells, tombstones by
//! kind and TTL cells (`sstable_engine::analytics::partitions`), with filters, top N by any
//! column and summary percentiles. `--json` prints an array of `PartitionsReport`, `--csv` one
//! line per partition. Exit status: 0 clean, 1 when any SSTable could not be read, 2 on bad usage.

use std::io::Write;

use sstable_engine::analytics::{
    self, NowSource, PartitionColumn, PartitionFilter, PartitionScan, PartitionStats,
    PartitionsCollector, PartitionsReport, TombstoneScan,
};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataVisitor, VisitStep};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::SyncDriver;
use sstable_engine::sstable_set::SSTableFiles;
use sstable_engine::types::AbstractType;

use crate::files::{self, FoundFiles};
use crate::jobs;
use crate::Outcome;

/// `sstable-inspect partitions PATH... [--json | --csv] [filters] [--top N --by COL] [--now SECS]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Print an array of reports, one per SSTable
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print one CSV line per partition
    #[arg(long)]
    csv: bool,
    /// List only partitions of at least this many bytes (uncompressed)
    #[arg(long = "min-size", value_name = "BYTES", default_value_t = 0)]
    min_size: u64,
    /// List only partitions with at least this many rows
    #[arg(long = "min-rows", value_name = "N", default_value_t = 0)]
    min_rows: u64,
    /// List only partitions with at least this many cells
    #[arg(long = "min-cells", value_name = "N", default_value_t = 0)]
    min_cells: u64,
    /// List only partitions with at least this many tombstones
    #[arg(long = "min-tombstones", value_name = "N", default_value_t = 0)]
    min_tombstones: u64,
    /// List only this partition key (repeatable; as cqlsh prints it, or 0x… hex)
    #[arg(long = "key", value_name = "KEY", allow_hyphen_values = true)]
    keys: Vec<String>,
    /// List only the N largest partitions by --by (default bytes)
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Sort column: bytes, rows, cells, tombstones, ttl_cells, expired_ttl_cells, position
    #[arg(long, value_name = "COL", value_parser = column)]
    by: Option<PartitionColumn>,
    /// "Now" for TTL cells, seconds since the epoch (default: Statistics.db's maxTimestamp)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
    /// Threads the scan is split over (default: the cores); the output is the same for any N
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
}

fn column(value: &str) -> Result<PartitionColumn, String> {
    PartitionColumn::parse(value).ok_or_else(|| {
        format!(
            "must be one of {}",
            PartitionColumn::ALL.map(|c| c.name()).join(", ")
        )
    })
}

/// Drives one pass over an SSTable's Data.db through the borrowing decoder, split into
/// partition-aligned ranges run on `jobs` threads (`crate::jobs`): per range, `start` builds
/// (for the partition key type) the visitor that sees every partition, row and cell and the
/// range's state, and `after_step` runs after each visited item; `merge` receives each range's visitor and
/// state in file order. The first error in file order stops the pass, as it stops a sequential
/// one.
pub(crate) fn scan_data<V, T>(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &SSTableMetadata,
    jobs: usize,
    start: impl Fn(&AbstractType) -> (V, T) + Sync,
    after_step: impl Fn(&mut V, &mut T) + Sync,
    mut merge: impl FnMut(V, T),
) -> Result<(), String>
where
    V: DataVisitor + Send,
    T: Send,
{
    let (reader, key_type) = analytics::data_reader(metadata).map_err(|e| e.to_string())?;
    if sstable.file(&ComponentType::Data).is_none() {
        return Err("no Data.db".to_owned());
    }
    let mut error = None;
    jobs::scan_split(
        found,
        sstable,
        metadata,
        &reader,
        jobs,
        |reader, driver| {
            let (mut v, mut state) = start(&key_type);
            // Data.db chunk by chunk, through the engine's sync driver.
            loop {
                match driver.visit_next(reader, &mut v, &NoClock) {
                    Ok(VisitStep::Visited) => after_step(&mut v, &mut state),
                    Ok(VisitStep::Finished | VisitStep::NeedMoreData) => return ((v, state), None),
                    Err(e) => return ((v, state), Some(e.to_string())),
                }
            }
        },
        |run| {
            if let Some(e) = run.error {
                error = Some(e);
                return false;
            }
            if let Some((v, state)) = run.value {
                merge(v, state);
            }
            true
        },
    );
    error.map_or(Ok(()), Err)
}

fn filter_and_top(
    a: &Args,
    metadata: &SSTableMetadata,
) -> Result<(PartitionFilter, Option<(usize, PartitionColumn)>), String> {
    let keys = a
        .keys
        .iter()
        .map(|k| {
            metadata
                .parse_key(k)
                .map_err(|e| format!("bad --key `{k}`: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let filter = PartitionFilter {
        min_size_bytes: a.min_size,
        min_rows: a.min_rows,
        min_cells: a.min_cells,
        min_tombstones: a.min_tombstones,
        keys,
    };
    let top = match (a.top, a.by) {
        (Some(n), by) => Some((n, by.unwrap_or(PartitionColumn::Bytes))),
        (None, Some(by)) => Some((usize::MAX, by)),
        (None, None) => None,
    };
    Ok((filter, top))
}

/// The partitions report of one SSTable.
pub(crate) fn report(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &SSTableMetadata,
    filter: PartitionFilter,
    top: Option<(usize, PartitionColumn)>,
    now: Option<i64>,
    jobs: usize,
) -> Result<PartitionsReport, String> {
    let (now_secs, now_source) = match now {
        Some(n) => (n, NowSource::Given),
        None => analytics::default_now(metadata),
    };
    if !metadata.descriptor.version.has_row_format() {
        // 2.x: atoms grouped into rows (`analytics::legacy`), one sequential pass.
        let mut collector = PartitionsCollector::new(filter, top);
        legacy_scan(found, sstable, metadata, now_secs, |key, p| {
            collector.add(key, p)
        })?;
        let (partitions, summary) = collector.finish();
        return Ok(PartitionsReport {
            sstable: sstable.prefix.clone(),
            now_secs,
            now_source,
            partitions,
            summary,
        });
    }
    let mut collector: Option<PartitionsCollector> = None;
    scan_data(
        found,
        sstable,
        metadata,
        jobs,
        |key_type| {
            (
                PartitionScan::new(key_type.clone(), metadata.partitioner(), now_secs),
                PartitionsCollector::new(filter.clone(), top),
            )
        },
        |scan, collector| {
            if let Some((key, p)) = scan.take_finished() {
                collector.add(&key, p);
            }
        },
        |_, next| match &mut collector {
            Some(c) => c.merge(next),
            None => collector = Some(next),
        },
    )?;
    let collector = collector.unwrap_or_else(|| PartitionsCollector::new(filter, top));
    let (partitions, summary) = collector.finish();
    Ok(PartitionsReport {
        sstable: sstable.prefix.clone(),
        now_secs,
        now_source,
        partitions,
        summary,
    })
}

pub fn run(a: Args) -> Result<Outcome, String> {
    let now = a.now;
    let jobs = a.jobs.unwrap_or_else(jobs::default_jobs).max(1);
    let paths: Vec<&str> = a.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut reports = Vec::new();
    let mut errors = false;
    if a.csv {
        let _ = writeln!(
            out,
            "sstable,key,token,{}",
            PartitionStats::COUNT_COLUMNS.join(",")
        );
    }
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        errors |= crate::output::print_errors(io_errors);
        let (filter, top) = filter_and_top(&a, &metadata)?;
        let r = match report(&found, sstable, &metadata, filter, top, now, jobs) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
                continue;
            }
        };
        if a.csv {
            for p in &r.partitions {
                let _ = write!(out, "{},{},{}", csv(&r.sstable), csv(&p.key), p.token);
                for v in p.counts() {
                    let _ = write!(out, ",{v}");
                }
                let _ = writeln!(out);
            }
        } else if !a.json {
            let _ = write!(out, "{}", human(&r));
        }
        reports.push(r);
    }
    if a.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
        );
    }
    let _ = out.flush();
    Ok(if errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

/// A CSV field, quoted when it has to be (RFC 4180).
pub(crate) fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn human(r: &PartitionsReport) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "SSTable {} (TTL cells classified at now = {} s, {:?})",
        r.sstable, r.now_secs, r.now_source
    );
    let _ = writeln!(
        o,
        "  {:<24} {:>21} {:>12} {:>12} {:>8} {:>9} {:>10} {:>8}",
        "key", "token", "position", "bytes", "rows", "cells", "tombstones", "ttl"
    );
    for p in &r.partitions {
        let _ = writeln!(
            o,
            "  {:<24} {:>21} {:>12} {:>12} {:>8} {:>9} {:>10} {:>8}",
            p.key,
            p.token.to_string(),
            p.position,
            p.bytes,
            p.rows,
            p.cells,
            p.tombstones.total(),
            p.ttl_cells
        );
    }
    let s = &r.summary;
    let _ = writeln!(o, "  summary: {} partitions", s.partitions);
    for (name, c) in [
        ("bytes", &s.bytes),
        ("rows", &s.rows),
        ("cells", &s.cells),
        ("tombstones", &s.tombstones),
    ] {
        let _ = writeln!(
            o,
            "    {name:<10} total {:>12}  min {:>10}  p50 {:>10}  p75 {:>10}  p90 {:>10}  p95 {:>10}  p99 {:>10}  max {:>10}",
            c.total, c.min, c.p50, c.p75, c.p90, c.p95, c.p99, c.max
        );
    }
    let t = &s.tombstones_by_kind;
    let _ = writeln!(
        o,
        "    tombstones: {} partition, {} row, {} range, {} complex, {} cell; TTL cells {} live, {} expired",
        t.partition, t.row, t.range, t.complex, t.cell, s.ttl_cells, s.expired_ttl_cells
    );
    o
}

/// Feeds a whole pass to a tombstone scan (the `tombstones` command).
pub(crate) fn tombstone_scan(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &SSTableMetadata,
    jobs: usize,
) -> Result<TombstoneScan, String> {
    if !metadata.descriptor.version.has_row_format() {
        let (now, _) = analytics::default_now(metadata);
        return legacy_scan(found, sstable, metadata, now, |_, _| {});
    }
    let mut scan = TombstoneScan::new();
    scan_data(
        found,
        sstable,
        metadata,
        jobs,
        |_| (TombstoneScan::new(), ()),
        |_, _| {},
        |next, ()| scan.merge(next),
    )?;
    Ok(scan)
}

/// The 2.x pass (`jb`, `ka`, `la`): each partition's raw key and figures to `on_partition`;
/// returns the tombstone scan.
fn legacy_scan(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &SSTableMetadata,
    now_secs: i64,
    on_partition: impl FnMut(&[u8], PartitionStats),
) -> Result<TombstoneScan, String> {
    let mut reader = analytics::legacy_data_reader(metadata).map_err(|e| e.to_string())?;
    let mut scan = analytics::LegacyScan::new(metadata.partitioner(), now_secs);
    let mut driver = SyncDriver::new(files::ComponentFiles::new(found, sstable));
    analytics::scan_legacy(&mut reader, &mut driver, &mut scan, &NoClock, on_partition)
        .map_err(|e| e.to_string())?;
    Ok(scan.tombstones)
}
