//! `sstable-inspect verify`: every checksum of every SSTable found — compressed chunk checksums,
//! CRC.db, the whole-file digest, the na+ Statistics.db metadata CRCs — in one pass over Data.db,
//! optionally decompressing every chunk (`--decompress`). Data.db is read by positioned reads of
//! the ranges the engine's [`Verifier`] asks for, never whole; metadata components are read whole.
//! `--json` prints the engine's [`VerifyReport`] array.
//!
//! Exit status: 0 when every SSTable is valid, 1 when any check fails or anything cannot be read,
//! 2 on bad usage.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use sstable_engine::clock::Clock;
use sstable_engine::component::ComponentType;
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput};
use sstable_engine::sstable_set::SSTableFiles;
use sstable_engine::verify::{Phase, PhaseTiming, Verifier, VerifyOptions, VerifyReport};

use crate::progress::{self, Progress};
use crate::{files, Outcome};

/// The native monotonic clock for the engine's timings.
struct InstantClock(Instant);

impl Clock for InstantClock {
    fn now_nanos(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// `sstable-inspect verify PATH... [--json] [--decompress]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Print the engine's VerifyReport array as JSON
    #[arg(long)]
    json: bool,
    /// Also decompress every chunk (LZ4, Snappy, Deflate, Zstd)
    #[arg(long)]
    decompress: bool,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = args.paths.iter().map(String::as_str).collect();
    if args.json {
        progress::disable();
    }
    let found = files::find(&paths)?;
    let options = VerifyOptions {
        decompress: args.decompress,
        ..VerifyOptions::default()
    };
    let clock = InstantClock(Instant::now());
    let reports: Vec<VerifyReport> = found
        .grouping
        .sstables
        .iter()
        .map(|s| verify_one(s, &found.paths, options, &clock))
        .collect();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
        );
    } else {
        for r in &reports {
            print!("{}", human(r));
        }
        let invalid = reports.iter().filter(|r| !r.valid).count();
        println!(
            "{} SSTable(s) verified: {} valid, {invalid} invalid",
            reports.len(),
            reports.len() - invalid
        );
        for i in &found.grouping.ignored {
            eprintln!("ignored {}: {}", i.path, i.reason);
        }
    }
    if reports.is_empty() {
        eprintln!("no SSTable found");
        return Ok(Outcome::Errors);
    }
    Ok(if reports.iter().all(|r| r.valid) {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}

/// Reads the metadata components, then Data.db range by range as the verifier asks.
fn verify_one(
    sstable: &SSTableFiles,
    paths: &[PathBuf],
    options: VerifyOptions,
    clock: &InstantClock,
) -> VerifyReport {
    let mut io_errors: Vec<(String, String)> = Vec::new();
    let mut contents: Vec<(ComponentType, Option<Vec<u8>>, u64)> = Vec::new();
    let mut data_path: Option<&Path> = None;
    for (component, index) in &sstable.files {
        let Some(path) = paths.get(*index) else {
            continue;
        };
        let size = match std::fs::metadata(path) {
            Ok(m) => m.len(),
            Err(e) => {
                io_errors.push((component.to_string(), format!("{}: {e}", path.display())));
                continue;
            }
        };
        if *component == ComponentType::Data {
            data_path = Some(path);
        }
        let bytes = if reads_whole(component) {
            match std::fs::read(path) {
                Ok(b) => Some(b),
                Err(e) => {
                    io_errors.push((component.to_string(), format!("{}: {e}", path.display())));
                    None
                }
            }
        } else {
            None
        };
        contents.push((component.clone(), bytes, size));
    }
    let inputs: Vec<ComponentInput<'_>> = contents
        .iter()
        .map(|(component, bytes, size)| ComponentInput {
            component,
            size_bytes: *size,
            bytes: bytes.as_deref(),
        })
        .collect();
    let metadata = decode_metadata(&sstable.descriptor, &inputs);
    let verifier = Verifier::for_sstable(&metadata, options);
    let mut report = match (verifier, data_path) {
        (Some(v), Some(path)) => read_and_verify(v, path, &sstable.prefix, clock),
        _ => {
            let mut r = VerifyReport {
                sstable: sstable.prefix.clone(),
                valid: false,
                complete: false,
                data_bytes: 0,
                verified_bytes: 0,
                checks: Vec::new(),
                timings: Vec::new(),
                errors: Vec::new(),
            };
            r.push_error(Some("Data.db"), 0, "no Data.db: nothing to verify");
            r
        }
    };
    for (component, message) in io_errors {
        report.push_error(Some(&component), 0, message);
    }
    report
}

fn read_and_verify(
    mut v: Verifier,
    path: &Path,
    sstable: &str,
    clock: &InstantClock,
) -> VerifyReport {
    let (mut read_nanos, mut read_bytes) = (0u64, 0u64);
    let mut buf = Vec::new();
    let mut failure: Option<(u64, String)> = None;
    match File::open(path) {
        Ok(mut file) => {
            let data_bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
            let progress = Progress::bytes(sstable, data_bytes);
            while let Some((offset, len)) = v.next_read() {
                progress.set_position(offset);
                let Ok(n) = usize::try_from(len) else {
                    failure = Some((
                        offset,
                        format!("a read of {len} bytes does not fit in memory"),
                    ));
                    break;
                };
                buf.resize(n, 0);
                let start = clock.now_nanos();
                let read = file
                    .seek(SeekFrom::Start(offset))
                    .and_then(|_| file.read_exact(&mut buf));
                read_nanos += clock.now_nanos().saturating_sub(start);
                if let Err(e) = read {
                    failure = Some((
                        offset,
                        format!("{}: reading {len} bytes: {e}", path.display()),
                    ));
                    break;
                }
                read_bytes += len;
                if let Err(e) = v.supply(offset, &buf, clock) {
                    failure = Some((e.offset(), e.to_string()));
                    break;
                }
            }
        }
        Err(e) => failure = Some((0, format!("{}: {e}", path.display()))),
    }
    let mut report = v.finish(sstable);
    report
        .timings
        .insert(0, PhaseTiming::new(Phase::Read, read_nanos, read_bytes));
    if let Some((offset, message)) = failure {
        report.push_error(Some("Data.db"), offset, message);
    }
    report
}

fn timing_text(t: &PhaseTiming) -> String {
    let phase = match t.phase {
        Phase::Read => "read",
        Phase::Checksum => "checksum",
        Phase::Decompress => "decompress",
        Phase::Digest => "digest",
    };
    let rate = t
        .mb_per_s
        .map(|r| format!(", {r:.0} MB/s"))
        .unwrap_or_default();
    format!(
        "{phase} {:.3} ms / {} bytes{rate}",
        t.nanos as f64 / 1e6,
        t.bytes
    )
}

fn human(r: &VerifyReport) -> String {
    let mut out = String::new();
    let status = if r.valid { "VALID" } else { "INVALID" };
    let _ = write!(out, "SSTable: {}  {status}", r.sstable);
    if !r.complete && r.data_bytes > 0 {
        let _ = write!(
            out,
            " (stopped after {} of {} bytes)",
            r.verified_bytes, r.data_bytes
        );
    }
    out.push('\n');
    for c in &r.checks {
        let kind = serde_json::to_value(c.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let status = if c.ok {
            "ok".to_owned()
        } else {
            format!("{} FAILED", c.failed)
        };
        let _ = write!(
            out,
            "  {:<18} {:<10} {:<8} {:>7} checked  {status}",
            c.component, kind, c.algorithm, c.checked
        );
        if let Some(note) = &c.note {
            let _ = write!(out, "  ({note})");
        }
        out.push('\n');
        for f in &c.failures {
            let _ = write!(out, "    {}", f.message);
            if !f.partitions.is_empty() {
                let _ = write!(out, "; partitions: {}", f.partitions.join(", "));
            }
            out.push('\n');
        }
        if c.failed > c.failures.len() as u64 {
            let _ = writeln!(out, "    … and {} more", c.failed - c.failures.len() as u64);
        }
    }
    for e in &r.errors {
        let _ = writeln!(
            out,
            "  error in {} at offset {}: {}",
            e.component.as_deref().unwrap_or("?"),
            e.offset,
            e.message
        );
    }
    if !r.timings.is_empty() {
        let t: Vec<String> = r.timings.iter().map(timing_text).collect();
        let _ = writeln!(out, "  timings: {}", t.join("; "));
    }
    out
}
