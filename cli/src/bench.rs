//! `sstable-inspect bench PATH`: how fast verification and row decoding run next to the limits
//! measured in the same run on the same bytes — a memcpy, one raw `crc32fast` pass, and raw LZ4
//! decompression of every chunk. Row decoding: the decode-only scan
//! (`ScanCounts` over `SyncDriver::visit_all`: every row, cell and tombstone decoded and counted), and `dump --jsonl`
//! and `dump --json` (this binary, output to /dev/null), and the partitions pass
//! (`sstablepartitions`' figures, `analytics::partitions` on the borrowing decoder), and `export
//! --format parquet` (`sstable-arrow`, into a sink), as MB/s of
//! uncompressed data, rows/s and ratios to raw LZ4. Reported, never asserted. Data.db is read into memory first so that disk
//! speed is not measured (except by the `dump` runs, which read the file as `dump` does).

use std::time::Instant;

use sstable_arrow::write::{BatchWriter, Format};
use sstable_arrow::{RowBatchReader, RowOptions};
use sstable_engine::analytics::{
    self, PartitionColumn, PartitionFilter, PartitionScan, PartitionsCollector,
};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{
    DataFileReader, DataSchema, DecodeOptions, ScanCounts, VisitStep,
};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::{decompress_all_chunks, Compressor};
use sstable_engine::dump::{DumpFormat, DumpWriter};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::verify::{Verifier, VerifyOptions};
use sstable_native::clock::InstantClock;

use crate::bench_scan::{best_cpu_of, data_files, data_reader, header_schema, mb_s, scan_counts};
use crate::{files, Outcome};

/// The better of two (wall, CPU) timings, each part on its own.
fn best_timing(a: (f64, Option<f64>), b: (f64, Option<f64>)) -> (f64, Option<f64>) {
    let cpu = match (a.1, b.1) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    (a.0.min(b.0), cpu)
}

/// Best of `runs` timings of `f`, in seconds.
fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `sstable-inspect bench PATH [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An SSTable component file or a directory (its first SSTable is measured)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Run only the row-decoding part named (`scan`, `dump` (--jsonl), `dump-json`, `partitions`),
    /// for a profiler; `partitions-jobs`: the `partitions` command with 1 and 2 threads
    #[arg(long, value_name = "PART")]
    only: Option<String>,
    /// With `--only scan`: the scan read from the file and split over N threads (`--jobs`)
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// PATH is one table's directory of several SSTables: the merged read vs each SSTable
    /// alone, its peak memory (`bench_merge`)
    #[arg(long)]
    table: bool,
    /// With --table: a second replica's directory; `diff` of the two vs merging both
    #[arg(long, value_name = "DIR", requires = "table")]
    replica: Option<String>,
    /// With --table: "now" for TTL expiry, seconds since the epoch (default: the clock)
    #[arg(long, value_name = "SECS", requires = "table")]
    now: Option<i64>,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    if args.table {
        let now = args
            .now
            .or_else(crate::now::now_seconds)
            .ok_or("no clock: give --now")?;
        let dir = args.paths.first().ok_or("no table directory")?;
        return crate::bench_merge::run(dir, args.replica.as_deref(), now, args.json);
    }
    let paths: Vec<&str> = args.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    let sstable = found.grouping.sstables.first().ok_or("no SSTable found")?;
    let (metadata, io_errors) = files::load_metadata(&found, sstable);
    if let Some(e) = io_errors.first() {
        return Err(e.clone());
    }
    let data_path = sstable
        .file(&ComponentType::Data)
        .and_then(|i| found.paths.get(i))
        .ok_or("no Data.db")?;
    let data = std::fs::read(data_path).map_err(|e| format!("{}: {e}", data_path.display()))?;
    if !metadata.descriptor.version.has_row_format() {
        return crate::bench_legacy::run(&sstable.prefix, &metadata, &data, args.json);
    }
    if args.only.as_deref() == Some("partitions-jobs") {
        return partitions_scaling(&found, sstable, &metadata);
    }
    if let (Some("scan"), Some(jobs)) = (args.only.as_deref(), args.jobs) {
        let t = Instant::now();
        let c = split_scan(&found, sstable, &metadata, jobs)?;
        println!(
            "{} rows in {:.3} s (--jobs {jobs})",
            c.rows + c.static_rows,
            t.elapsed().as_secs_f64()
        );
        return Ok(Outcome::Clean);
    }
    let n = data.len();
    let runs = 3;
    // Row decoding, from the bytes in memory: the decode-only scan, and the `dump` writer into
    // /dev/null exactly as `dump` drives it.
    let schema = header_schema(&metadata)?;
    let new_reader = || data_reader(&metadata, &schema, n);
    // `--only`: that pass alone (first, so that a profiler's process total is the pass).
    if let Some(part) = &args.only {
        return only(part, &metadata, &schema, new_reader, &data);
    }

    let mut copy = vec![0u8; n];
    let memcpy = best_of(runs, || copy.copy_from_slice(&data));
    let mut crc = 0;
    let crc32 = best_of(runs, || crc = crc32fast::hash(&data));
    std::hint::black_box((crc, &copy));

    // Raw LZ4: every chunk decompressed into one reused buffer (never re-zeroed, as the
    // decoder's window), nothing else.
    let lz4 = metadata
        .compression
        .as_ref()
        .filter(|c| Compressor::from_class_name(&c.compressor) == Compressor::Lz4)
        .map(|ci| {
            let mut out = Vec::new();
            let mut uncompressed = 0usize;
            let (secs, cpu) = best_cpu_of(runs, || {
                uncompressed = decompress_all_chunks(ci, &data, &mut out) as usize;
            });
            (secs, uncompressed, cpu)
        });

    let verify = |decompress: bool| -> Result<(f64, bool), String> {
        let mut valid = false;
        let secs = best_of(runs, || {
            let clock = InstantClock::new();
            let Some(mut v) = Verifier::for_sstable(
                &metadata,
                VerifyOptions {
                    decompress,
                    ..VerifyOptions::default()
                },
            ) else {
                return;
            };
            // A read or decode error ends the run; the report says what was not checked.
            let files = data_files(&data);
            let _ = SyncDriver::new(SliceSource { files: &files }).run(&mut v, &clock);
            valid = v.finish(&sstable.prefix).valid;
        });
        Ok((secs, valid))
    };
    let (verify_secs, valid) = verify(false)?;
    let (verify_decompress_secs, _) = verify(true)?;

    let mut failure = None;
    let mut counts = ScanCounts::default();
    let scan = best_cpu_of(runs, || match scan_counts(&mut new_reader(), &data) {
        Ok(c) => counts = c,
        Err(e) => failure = Some(format!("decode-only scan: {e}")),
    });
    let uncompressed = metadata
        .compression
        .as_ref()
        .map_or(n as u64, |c| c.data_length_bytes.value) as usize;
    let rows = counts.rows + counts.static_rows;
    let dump_runs = if uncompressed > 200_000_000 { 1 } else { 5 };
    let mut dump = |format: DumpFormat| {
        best_cpu_of(1, || {
            let Ok(null) = std::fs::File::create("/dev/null") else {
                failure = Some("cannot open /dev/null".to_owned());
                return;
            };
            let mut out = std::io::BufWriter::with_capacity(1 << 16, null);
            if let Err(e) = dump_all(&mut new_reader(), &schema, format, &data, &mut out) {
                failure = Some(format!("dump: {e}"));
            }
        })
    };
    // Interleaved, best of each: the machine's speed drifts over seconds, and the two are
    // compared as a ratio.
    let (mut dump_jsonl, mut dump_json) = ((f64::INFINITY, None), (f64::INFINITY, None));
    for _ in 0..dump_runs {
        dump_jsonl = best_timing(dump_jsonl, dump(DumpFormat::JsonLines));
        dump_json = best_timing(dump_json, dump(DumpFormat::Json));
    }
    let mut partitions_seen = 0u64;
    let partitions = best_cpu_of(runs, || {
        match partitions_pass(&metadata, &schema, &mut new_reader(), &data) {
            Ok(n) => partitions_seen = n,
            Err(e) => failure = Some(format!("partitions pass: {e}")),
        }
    });
    // The `partitions` command as it runs (from the file, `--jobs` at its default), against
    // `verify --decompress` of the same bytes: the wall-clock goal is ≤ 2 ×.
    let default_jobs = crate::jobs::default_jobs();
    let partitions_command = partitions_jobs(&found, sstable, &metadata, default_jobs, runs)?;
    let mut exported_rows = 0u64;
    let export = best_cpu_of(dump_runs, || match export_parquet(&metadata, &data) {
        Ok(n) => exported_rows = n,
        Err(e) => failure = Some(format!("export --format parquet: {e}")),
    });
    // One Arrow row per row and static row, and one per partition without rows.
    if failure.is_none()
        && !(rows..=rows.saturating_add(counts.partitions)).contains(&exported_rows)
    {
        failure = Some(format!(
            "export wrote {exported_rows} rows, the scan counted {rows} in {} partitions",
            counts.partitions
        ));
    }
    if partitions_seen != counts.partitions {
        failure = Some(format!(
            "the partitions pass saw {partitions_seen} partitions, the scan {}",
            counts.partitions
        ));
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let lz4_times = lz4.map(|(s, _, cpu)| (s, cpu));
    // Throughput and ratio to raw LZ4, by wall time and (where known) by CPU time.
    let row_report = |(wall, cpu): (f64, Option<f64>)| {
        serde_json::json!({
            "wall_secs": wall,
            "cpu_secs": cpu,
            "mb_s": mb_s(uncompressed, wall),
            "rows_per_s": rows as f64 / wall.max(1e-9),
            "vs_lz4": lz4_times.map(|(l, _)| l / wall),
            "cpu_mb_s": cpu.map(|c| mb_s(uncompressed, c)),
            "cpu_rows_per_s": cpu.map(|c| rows as f64 / c.max(1e-9)),
            "cpu_vs_lz4": lz4_times.and_then(|(_, l)| l.zip(cpu)).map(|(l, c)| l / c),
        })
    };
    let report = serde_json::json!({
        "sstable": sstable.prefix,
        "data_bytes": n,
        "runs": runs,
        "memcpy_mb_s": mb_s(n, memcpy),
        "crc32fast_mb_s": mb_s(n, crc32),
        "lz4_decompress_mb_s": lz4.map(|(s, u, _)| mb_s(u, s)),
        "lz4_decompress_stored_mb_s": lz4.map(|(s, _, _)| mb_s(n, s)),
        "verify_mb_s": mb_s(n, verify_secs),
        "verify_decompress_mb_s": mb_s(n, verify_decompress_secs),
        "verify_vs_crc32": crc32 / verify_secs,
        "verify_vs_memcpy": memcpy / verify_secs,
        "verify_decompress_vs_crc32_plus_lz4": lz4.map(|(s, _, _)| (crc32 + s) / verify_decompress_secs),
        "valid": valid,
        "uncompressed_bytes": uncompressed,
        "rows": rows,
        "scan_counts": counts,
        "lz4_decompress": lz4_times.map(row_report),
        "scan": row_report(scan),
        "dump_jsonl": row_report(dump_jsonl),
        "dump_json": row_report(dump_json),
        "partitions_pass": row_report(partitions),
        "export_parquet": row_report(export),
        "dump_json_vs_jsonl": dump_json.0 / dump_jsonl.0.max(1e-9),
        "dump_json_vs_jsonl_cpu": dump_json.1.zip(dump_jsonl.1).map(|(a, b)| a / b.max(1e-9)),
        "dump_runs": dump_runs,
        "partitions_command_jobs": default_jobs,
        "partitions_command_secs": partitions_command,
        "partitions_command_vs_verify_decompress": partitions_command / verify_decompress_secs.max(1e-9),
    });
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "bench {} — Data.db {} bytes in memory, best of {runs}",
            sstable.prefix, n
        );
        println!("  memcpy                 {:>8.0} MB/s", mb_s(n, memcpy));
        println!("  crc32fast (raw)        {:>8.0} MB/s", mb_s(n, crc32));
        if let Some((s, _, _)) = lz4 {
            println!(
                "  LZ4 decompress (raw)   {:>8.0} MB/s of stored bytes",
                mb_s(n, s)
            );
        }
        println!(
            "  verify                 {:>8.0} MB/s  = {:.2} × raw crc32fast",
            mb_s(n, verify_secs),
            crc32 / verify_secs
        );
        println!(
            "  verify --decompress    {:>8.0} MB/s  = {:.2} × (raw crc32fast + raw LZ4)",
            mb_s(n, verify_decompress_secs),
            lz4.map(|(s, _, _)| (crc32 + s) / verify_decompress_secs)
                .unwrap_or(0.0)
        );
        println!("  valid: {valid}");
        println!(
            "  rows: {} rows, {} cells, {} uncompressed bytes; MB/s of uncompressed data, wall (CPU)",
            rows, counts.cells, uncompressed
        );
        let line = |name: &str, (wall, cpu): (f64, Option<f64>)| {
            let ratio = lz4_times.map_or(String::new(), |(l, lc)| {
                let by_cpu = lc
                    .zip(cpu)
                    .map_or(String::new(), |(l, c)| format!(" ({:.2})", l / c));
                format!("  = {:.2}{by_cpu} × raw LZ4", l / wall)
            });
            let cpu_text = cpu.map_or(String::new(), |c| {
                format!(
                    " ({:.0}, {:.0} rows/s)",
                    mb_s(uncompressed, c),
                    rows as f64 / c
                )
            });
            println!(
                "  {name:<22} {:>8.0} MB/s {:>10.0} rows/s{cpu_text}{ratio}",
                mb_s(uncompressed, wall),
                rows as f64 / wall.max(1e-9)
            );
        };
        if let Some(t) = lz4_times {
            line("LZ4 decompress (raw)", t);
        }
        line("decode-only scan", scan);
        line("dump --jsonl > null", dump_jsonl);
        line("dump --json > null", dump_json);
        line("partitions pass", partitions);
        line("export --format parquet", export);
        println!(
            "  dump --json / --jsonl  {:.2} × the time{} (best of {dump_runs})",
            dump_json.0 / dump_jsonl.0.max(1e-9),
            dump_json
                .1
                .zip(dump_jsonl.1)
                .map_or(String::new(), |(a, b)| format!(
                    ", {:.2} × the CPU time",
                    a / b
                ))
        );
        println!(
            "  partitions (command, --jobs {default_jobs}, from the file) {:.3} s = {:.2} × verify --decompress (goal ≤ 2 ×; wall clock)",
            partitions_command,
            partitions_command / verify_decompress_secs.max(1e-9)
        );
    }
    Ok(if valid {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}

/// The decode-only scan read from the file and split over `jobs` threads, the ranges' counts
/// merged in file order.
fn split_scan(
    found: &files::FoundFiles,
    sstable: &sstable_engine::sstable_set::SSTableFiles,
    metadata: &SSTableMetadata,
    jobs: usize,
) -> Result<ScanCounts, String> {
    let reader = DataFileReader::for_sstable(metadata, DecodeOptions::default())
        .map_err(|e| e.to_string())?;
    let mut counts = ScanCounts::default();
    let mut error = None;
    crate::jobs::scan_split(
        found,
        sstable,
        metadata,
        &reader,
        jobs.max(1),
        |reader, driver| {
            let mut c = ScanCounts::default();
            let e = driver.visit_all(reader, &mut c, &NoClock).err();
            (c, e.map(|e| e.to_string()))
        },
        |run| {
            if let Some(c) = &run.value {
                counts.merge(c);
            }
            error = run.error;
            error.is_none()
        },
    );
    error.map_or(Ok(counts), Err)
}

/// `dump` of every partition into `out`, as the `dump` command drives the writer.
fn dump_all(
    reader: &mut DataFileReader,
    schema: &DataSchema,
    format: DumpFormat,
    data: &[u8],
    out: &mut impl std::io::Write,
) -> Result<(), String> {
    let mut writer = DumpWriter::new(schema, format, None, None);
    let mut first = true;
    let json = format == DumpFormat::Json;
    let mut io = Ok(());
    if json {
        io = out.write_all(b"[\n");
    }
    let files = data_files(data);
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    loop {
        match driver
            .visit_next(reader, &mut writer, &NoClock)
            .map_err(|e| e.to_string())?
        {
            VisitStep::Finished | VisitStep::NeedMoreData => break,
            VisitStep::Visited => {
                if writer.has_output() {
                    if json && !first {
                        io = io.and(out.write_all(b",\n"));
                    }
                    first = false;
                    writer.drain_output(|bytes| {
                        if io.is_ok() {
                            io = out.write_all(bytes);
                        }
                    });
                }
            }
        }
    }
    if json {
        io = io.and(out.write_all(b"\n]\n"));
    }
    io.and(out.flush()).map_err(|e| e.to_string())
}

/// `export --format parquet` of every row as the command writes it, into a sink (Snappy pages,
/// row groups of 16 MiB): the rows written.
fn export_parquet(metadata: &SSTableMetadata, data: &[u8]) -> Result<u64, String> {
    let files = [(ComponentType::Data, data)];
    let options = RowOptions {
        batch_rows: sstable_arrow::DEFAULT_BATCH_ROWS,
        cell_metadata: false,
        mapping: Format::Parquet.mapping(),
    };
    let mut reader = RowBatchReader::new(metadata, SliceSource { files: &files }, options, None)
        .map_err(|e| e.to_string())?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let mut writer =
        BatchWriter::new(Format::Parquet, std::io::sink(), &schema).map_err(|e| e.to_string())?;
    let mut rows = 0u64;
    for batch in reader.by_ref() {
        let batch = batch.map_err(|e| e.to_string())?;
        rows = rows.saturating_add(batch.num_rows() as u64);
        writer.write(&batch).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    Ok(rows)
}

/// The partitions pass as `sstable-inspect partitions` runs it (every partition's figures and
/// the summary), over the bytes in memory. Returns the number of partitions.
fn partitions_pass(
    metadata: &SSTableMetadata,
    schema: &DataSchema,
    reader: &mut DataFileReader,
    data: &[u8],
) -> Result<u64, String> {
    let (now_secs, _) = analytics::default_now(metadata);
    let mut scan = PartitionScan::new(schema.key_type.clone(), metadata.partitioner(), now_secs);
    let mut collector = PartitionsCollector::new(PartitionFilter::default(), None);
    let files = data_files(data);
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    while let VisitStep::Visited = driver
        .visit_next(reader, &mut scan, &NoClock)
        .map_err(|e| e.to_string())?
    {
        if let Some((key, p)) = scan.take_finished() {
            collector.add(&key, p);
        }
    }
    let (_, summary) = collector.finish();
    Ok(summary.partitions)
}

/// `--only PART`: one row-decoding part, once, with nothing else measured (for a profiler such
/// as `valgrind --tool=callgrind`).
/// Wall seconds of the `partitions` command's pass (from the file, as the command reads it)
/// with `jobs` threads, best of `runs`.
fn partitions_jobs(
    found: &files::FoundFiles,
    sstable: &sstable_engine::sstable_set::SSTableFiles,
    metadata: &SSTableMetadata,
    jobs: usize,
    runs: usize,
) -> Result<f64, String> {
    let mut failure = None;
    let secs = best_of(runs, || {
        let r = crate::partitions::report(
            found,
            sstable,
            metadata,
            PartitionFilter::default(),
            Some((10, PartitionColumn::Bytes)),
            None,
            jobs,
        );
        if let Err(e) = r {
            failure = Some(e);
        }
    });
    failure.map_or(Ok(secs), Err)
}

/// `--only partitions-jobs`: the `partitions` pass with 1 and 2 threads, interleaved (best of
/// 3 each), and the ratio. Wall clock: on a machine other work shares, the ratio measures the
/// neighbours too — the real scaling needs a quiet machine.
fn partitions_scaling(
    found: &files::FoundFiles,
    sstable: &sstable_engine::sstable_set::SSTableFiles,
    metadata: &SSTableMetadata,
) -> Result<Outcome, String> {
    let (mut one, mut two) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        one = one.min(partitions_jobs(found, sstable, metadata, 1, 1)?);
        two = two.min(partitions_jobs(found, sstable, metadata, 2, 1)?);
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "partitions --jobs 1 {one:.3} s, --jobs 2 {two:.3} s: {:.2} × (load average {})",
        one / two.max(1e-9),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(Outcome::Clean)
}

fn only(
    part: &str,
    metadata: &SSTableMetadata,
    schema: &DataSchema,
    new_reader: impl Fn() -> DataFileReader,
    data: &[u8],
) -> Result<Outcome, String> {
    let t = Instant::now();
    let what = match part {
        "scan" => {
            let c = scan_counts(&mut new_reader(), data).map_err(|e| e.to_string())?;
            format!("{} rows", c.rows + c.static_rows)
        }
        "dump" | "dump-json" => {
            let null = std::fs::File::create("/dev/null").map_err(|e| e.to_string())?;
            let mut out = std::io::BufWriter::with_capacity(1 << 16, null);
            let (format, what) = if part == "dump" {
                (DumpFormat::JsonLines, "dump --jsonl")
            } else {
                (DumpFormat::Json, "dump --json")
            };
            dump_all(&mut new_reader(), schema, format, data, &mut out)?;
            what.to_owned()
        }
        "partitions" => format!(
            "{} partitions",
            partitions_pass(metadata, schema, &mut new_reader(), data)?
        ),
        other => {
            return Err(format!(
                "--only {other}: expected scan, dump, dump-json or partitions"
            ))
        }
    };
    println!("{what} in {:.3} s", t.elapsed().as_secs_f64());
    Ok(Outcome::Clean)
}
