//! `sstable-inspect dump`: every partition, row, cell and tombstone of Data.db, values rendered
//! like cqlsh. Human text by default, sstabledump's JSON shape with `--json`, one partition per
//! line with `--jsonl`. Data.db is read chunk by chunk by positioned reads; memory stays bounded
//! by one partition.

use std::io::Write;

use sstable_engine::component::data::{DataFileReader, DataSchema, DecodeOptions, VisitStep};
use sstable_engine::component::ComponentType;
use sstable_engine::dump::{DumpFormat, DumpWriter};

use crate::files;
use crate::jobs;
use crate::now::now_seconds;
use crate::progress::{self, Progress};
use crate::Outcome;
use sstable_engine::analytics::data_len_bytes;
use sstable_engine::clock::NoClock;
use std::sync::Mutex;

/// `sstable-inspect dump PATH... [--json | --jsonl] [--key K]... [--limit N] [--schema FILE.cql]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// sstabledump's JSON: one array of partitions
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    /// One partition per line, as JSON
    #[arg(long)]
    jsonl: bool,
    /// Only this partition key, as cqlsh prints it (`:` between the components of a composite
    /// key) or `0x…` hex; may be given more than once; may begin with `-`
    #[arg(long = "key", value_name = "K", allow_hyphen_values = true)]
    keys: Vec<String>,
    /// At most N partitions per SSTable
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// A CREATE TABLE statement naming the columns, checked against the serialization header
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<String>,
    /// 2.0–2.2 SSTables (jb, ka, la): the on-disk atoms of each partition (cells, tombstones,
    /// counters, range tombstones), like sstable2json; 2.x SSTables without it: rows as for 3.0+
    #[arg(long)]
    atoms: bool,
    /// Threads the scan is split over (default: the cores); the output is the same for any N
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
}

/// One range's dump: its partitions' bytes, in file order.
#[derive(Default)]
struct RangeOutput {
    bytes: Vec<u8>,
    partitions: u64,
}

pub fn run(a: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = a.paths.iter().map(String::as_str).collect();
    if a.json || a.jsonl {
        progress::disable();
    }
    // 2.0–2.2 SSTables (pre-3.0 cell layout) and `--atoms`: cli/src/atoms.rs.
    let legacy = crate::atoms::Options {
        paths: &paths,
        json: a.json,
        jsonl: a.jsonl,
        atoms: a.atoms,
        keys: &a.keys,
        limit: a.limit,
        schema: a.schema.as_deref(),
    };
    if let Some(outcome) = crate::atoms::run_if_legacy(&legacy)? {
        return Ok(outcome);
    }
    let found = files::find(&paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    // `--schema`, else the schema.cql beside the SSTables (a snapshot's).
    let (loaded, manifest_findings) = crate::schema::load(&paths, a.schema.as_deref())?;
    let table = loaded.map(|l| l.file.table);
    let jobs = a.jobs.unwrap_or_else(jobs::default_jobs).max(1);
    // Locked by the one thread that writes at a time: a sequential run's range as it goes, or
    // the main thread handing over finished ranges in file order.
    let out = Mutex::new(std::io::BufWriter::with_capacity(
        256 << 10,
        crate::output::stdout(),
    ));
    let lock = || out.lock().unwrap_or_else(|p| p.into_inner());
    let mut errors = manifest_findings;
    let mut first_json = true;
    let mut findings = Vec::new();
    if a.json {
        let _ = writeln!(lock(), "[");
    }
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        errors |= crate::output::print_errors(io_errors);
        let Some(header) = metadata.statistics.as_ref().and_then(|s| s.header.as_ref()) else {
            eprintln!(
                "error: {}: no serialization header (version {} predates the 3.0 row format, or Statistics.db did not decode)",
                sstable.prefix, sstable.descriptor.version
            );
            errors = true;
            continue;
        };
        let schema = match DataSchema::from_header(header, &sstable.descriptor.version) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
                continue;
            }
        };
        if let Some(t) = &table {
            for m in t.check(header) {
                eprintln!("schema mismatch: {}: {m}", sstable.prefix);
            }
        }
        let wanted: Vec<Vec<u8>> = match a.keys.iter().map(|k| metadata.parse_key(k)).collect() {
            Ok(k) => k,
            Err(e) => return Err(format!("bad --key: {e}")),
        };
        if sstable.file(&ComponentType::Data).is_none() {
            eprintln!("error: {}: no Data.db", sstable.prefix);
            errors = true;
            continue;
        }
        let progress = Progress::bytes(
            &sstable.prefix,
            metadata.size_of(&ComponentType::Data).unwrap_or(0),
        );
        let now = now_seconds();
        let options = DecodeOptions {
            now_seconds: now,
            ..DecodeOptions::default()
        };
        let reader = match DataFileReader::for_sstable(&metadata, options) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
                continue;
            }
        };
        let format = if a.json {
            DumpFormat::Json
        } else if a.jsonl {
            DumpFormat::JsonLines
        } else {
            DumpFormat::Text
        };
        if format == DumpFormat::Text {
            let _ = writeln!(
                lock(),
                "SSTable {} ({} {})",
                sstable.prefix,
                sstable.descriptor.format,
                sstable.descriptor.version
            );
        }
        // `--limit` counts partitions across the file: one range.
        let jobs = if a.limit.is_some() { 1 } else { jobs };
        let data_len = data_len_bytes(&metadata).unwrap_or(0).max(1);
        let file_len = metadata.size_of(&ComponentType::Data).unwrap_or(0);
        let sequential = jobs <= 1;
        let separate_first = !first_json;
        jobs::scan_split(
            &found,
            sstable,
            &metadata,
            &reader,
            jobs,
            |reader, driver| {
                let mut writer = DumpWriter::new(&schema, format, now, table.as_ref())
                    .with_wanted_keys(wanted.clone());
                // One range's output, partitions in file order (",\n"-separated for --json);
                // the sequential run writes straight to stdout.
                let mut range = RangeOutput::default();
                let error = loop {
                    if a.limit.is_some_and(|l| writer.partitions_written() >= l) {
                        break None;
                    }
                    let step = match driver.visit_next(reader, &mut writer, &NoClock) {
                        Ok(s) => s,
                        Err(e) => break Some(e.to_string()),
                    };
                    if sequential {
                        progress.set_position(driver.stats().bytes);
                    }
                    match step {
                        VisitStep::Finished | VisitStep::NeedMoreData => break None,
                        // At most one partition ends per step: its bytes are all the writer holds.
                        VisitStep::Visited if writer.has_output() => {
                            let after_another =
                                range.partitions > 0 || (sequential && separate_first);
                            if format == DumpFormat::Json && after_another {
                                range.bytes.extend_from_slice(b",\n");
                            }
                            range.partitions = range.partitions.saturating_add(1);
                            writer.drain_output(|bytes| range.bytes.extend_from_slice(bytes));
                            if sequential {
                                let _ = lock().write_all(&range.bytes);
                                range.bytes.clear();
                            }
                        }
                        VisitStep::Visited => {}
                    }
                };
                (range, error)
            },
            |run| {
                if let Some(range) = run.value {
                    if range.partitions > 0 {
                        let mut o = lock();
                        if format == DumpFormat::Json && !first_json && !sequential {
                            let _ = o.write_all(b",\n");
                        }
                        first_json = false;
                        let _ = o.write_all(&range.bytes);
                    }
                }
                if !sequential {
                    let done =
                        u128::from(run.stopped_at) * u128::from(file_len) / u128::from(data_len);
                    progress.set_position(u64::try_from(done).unwrap_or(file_len));
                }
                for f in run.findings {
                    findings.push(f);
                }
                match run.error {
                    Some(e) => {
                        eprintln!("error: {}: {e}", sstable.prefix);
                        errors = true;
                        false
                    }
                    None => true,
                }
            },
        );
        for f in findings.drain(..) {
            eprintln!("finding: {}: {f}", sstable.prefix);
        }
    }
    let mut out = lock();
    if a.json {
        let _ = writeln!(out, "\n]");
    }
    let _ = out.flush();
    Ok(if errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}
