//! `sstable-inspect scrub PATH --out DIR`: one SSTable read partition by partition through the
//! checked Data.db reader and written again as a valid `nb` or `oa` SSTable (the engine's
//! [`Scrubber`], driven by its sync driver over positioned reads), like `sstablescrub` and
//! `scylla sstable scrub`. With no corruption it is a rewrite (`sstableupgrade`): any 3.0+
//! version the decoder reads (`ma` … `oa`, `da`, ScyllaDB `mc`/`md`/`me`) becomes `--version`.
//!
//! Modes: `skip` (default) drops the partitions that do not decode, lie in a chunk whose
//! checksum fails, are out of token order or repeat a key; `segregate` writes out-of-order and
//! repeated partitions to further SSTables, each in key order; `validate` only reports; `abort`
//! stops at the first problem and removes what it wrote. Output files are
//! `DIR/<version>-<G>-big-<Component>`, `G` the first generation above the source's that no
//! file in DIR uses (segregated SSTables take the next ones). The input is only read.
//!
//! Pre-3.0 SSTables (`jb`, `ka`, `la`) record no schema: with `--schema FILE.cql` (the table's
//! `CREATE TABLE`, COMPACT STORAGE too) an intact one is rewritten; a corrupt one stops at the error.
//!
//! Exit status: 0 when nothing was wrong, 1 when a partition was dropped, segregated or cut
//! short, or the SSTable could not be scrubbed, 2 on bad usage.

use std::path::PathBuf;

use sstable_engine::scrub::{ScrubMode, ScrubOptions, ScrubReport};
use sstable_engine::{Format, Version};
use sstable_native::clock::InstantClock;
use sstable_native::scrub::scrub_to_dir;

use crate::files;
use crate::progress::{self, Progress};
use crate::Outcome;

/// `sstable-inspect scrub PATH --out DIR [--mode M] [--version nb|oa] [--schema FILE.cql] [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One SSTable: a component file or its directory
    #[arg(value_name = "PATH")]
    path: String,
    /// The directory the new SSTable(s) are written to (created if missing)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// What to do with a problem partition
    #[arg(long, value_name = "skip|segregate|validate|abort", default_value = "skip", value_parser = mode)]
    mode: ScrubMode,
    /// The version written
    #[arg(long = "version", value_name = "nb|oa", default_value = "nb", value_parser = version)]
    sstable_version: Version,
    /// The table's CREATE TABLE statement, for a 2.x (jb, ka, la) SSTable, which records no
    /// schema (COMPACT STORAGE tables too; an intact SSTable is rewritten, a corrupt one stops)
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<PathBuf>,
    /// Print the engine's ScrubReport (with the files written) as JSON
    #[arg(long)]
    json: bool,
}

fn mode(value: &str) -> Result<ScrubMode, String> {
    ScrubMode::parse(value).ok_or_else(|| "must be skip, segregate, validate or abort".to_owned())
}

fn version(value: &str) -> Result<Version, String> {
    match value {
        "nb" | "oa" => Version::parse(Format::Big, value).ok_or_else(|| "unknown version".into()),
        _ => Err("must be nb or oa".to_owned()),
    }
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    sstable: &'a str,
    files: &'a [Vec<String>],
    #[serde(flatten)]
    report: &'a ScrubReport,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    if args.json {
        progress::disable();
    }
    let (found, sstable) = files::find_one(&args.path)?;
    let create_table = match &args.schema {
        Some(p) => Some(std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?),
        None => None,
    };
    let options = ScrubOptions::new(args.mode, args.sstable_version);
    let mut bar: Option<Progress> = None;
    let done = match scrub_to_dir(
        &found,
        &sstable,
        &args.out,
        options,
        create_table.as_deref(),
        &InstantClock::new(),
        |position, total| {
            bar.get_or_insert_with(|| Progress::bytes(sstable.prefix.clone(), total))
                .set_position(position);
        },
    ) {
        Ok(done) => done,
        Err(e) => {
            // The SSTable cannot be scrubbed (a version without a serialization header, an
            // unreadable Data.db, an output directory not writable): not a usage error.
            eprintln!("{e}");
            return Ok(Outcome::Errors);
        }
    };
    drop(bar);
    for e in &done.io_errors {
        eprintln!("{}: {e}", sstable.prefix);
    }
    let written: Vec<Vec<String>> = done
        .files
        .iter()
        .map(|f| f.iter().map(|p| p.display().to_string()).collect())
        .collect();
    let report = &done.report;
    if args.json {
        let json = JsonReport {
            sstable: &sstable.prefix,
            files: &written,
            report,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", human(&sstable.prefix, report, &written));
    }
    Ok(if report.is_clean() && done.io_errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}

fn human(sstable: &str, r: &ScrubReport, written: &[Vec<String>]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{sstable}: scrub ({}) as {}: {} partitions read, {} kept, {} rows written, {} problem(s)",
        r.mode.name(),
        r.version,
        r.partitions_read,
        r.partitions_kept,
        r.rows_kept,
        r.problems.len()
    );
    for p in &r.problems {
        let what = p.outcome(r.mode.writes());
        let end = p.end.map_or("?".to_owned(), |e| e.to_string());
        let more = match p.unnamed_partitions {
            0 => String::new(),
            n => format!(" ({n} partition(s) listed here whose keys could not be read)"),
        };
        let _ = writeln!(
            out,
            "  {what}: key {} token {} Data.db {}..{end}{more}: {}: {}",
            p.key.as_deref().unwrap_or("(unknown)"),
            p.token.as_deref().unwrap_or("?"),
            p.start,
            p.kind.name(),
            p.reason
        );
    }
    for note in r.notes() {
        let _ = writeln!(out, "  {note}");
    }
    for (o, files) in r.outputs.iter().zip(written) {
        let prefix = files
            .first()
            .and_then(|f| f.rsplit_once("-big-").map(|(p, _)| format!("{p}-big")))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  wrote {prefix}-* ({} partitions, {} rows, {} components)",
            o.partitions,
            o.rows,
            files.len()
        );
    }
    out
}
