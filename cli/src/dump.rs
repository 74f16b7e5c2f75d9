//! `sstable-inspect dump`: every partition, row, cell and tombstone of Data.db, values rendered
//! like cqlsh. Human text by default, sstabledump's JSON shape with `--json`, one partition per
//! line with `--jsonl`. Data.db is read chunk by chunk by positioned reads; memory stays bounded
//! by one partition.

use std::io::Write;

use sstable_engine::component::data::{DataFileReader, DataSchema, DecodeOptions, VisitStep};
use sstable_engine::component::ComponentType;
use sstable_engine::dump::{DumpFormat, DumpWriter};

use crate::files::{self, ComponentFiles};
use crate::now::now_seconds;
use crate::progress::{self, Progress};
use crate::Outcome;
use sstable_engine::clock::NoClock;
use sstable_engine::range::SyncDriver;

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
    let mut out = std::io::BufWriter::with_capacity(256 << 10, crate::output::stdout());
    let mut errors = manifest_findings;
    let mut first_json = true;
    if a.json {
        let _ = writeln!(out, "[");
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
        let mut reader = match DataFileReader::for_sstable(&metadata, options) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
                continue;
            }
        };
        // Data.db chunk by chunk, through the engine's sync driver.
        let mut files = ComponentFiles::new(&found, sstable);
        let mut driver = SyncDriver::new(&mut files);
        let format = if a.json {
            DumpFormat::Json
        } else if a.jsonl {
            DumpFormat::JsonLines
        } else {
            DumpFormat::Text
        };
        let mut writer =
            DumpWriter::new(&schema, format, now, table.as_ref()).with_wanted_keys(wanted);
        if format == DumpFormat::Text {
            let _ = writeln!(
                out,
                "SSTable {} ({} {})",
                sstable.prefix, sstable.descriptor.format, sstable.descriptor.version
            );
        }
        loop {
            if a.limit.is_some_and(|l| writer.partitions_written() >= l) {
                break;
            }
            let step = match driver.visit_next(&mut reader, &mut writer, &NoClock) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {}: {e}", sstable.prefix);
                    errors = true;
                    break;
                }
            };
            progress.set_position(driver.stats().bytes);
            match step {
                VisitStep::Finished => break,
                VisitStep::NeedMoreData => break,
                VisitStep::Visited => {
                    // At most one partition ends per step: its bytes are all the writer holds.
                    if writer.has_output() {
                        if format == DumpFormat::Json && !first_json {
                            let _ = out.write_all(b",\n");
                        }
                        first_json = false;
                        writer.drain_output(|bytes| {
                            let _ = out.write_all(bytes);
                        });
                    }
                }
            }
        }
        for f in reader.take_findings() {
            eprintln!("finding: {}: {}", sstable.prefix, f.message);
        }
    }
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
