//! `sstable-inspect bench PATH`: how fast verification and row decoding run next to the limits
//! measured in the same run on the same bytes — a memcpy, one raw `crc32fast` pass, and raw LZ4
//! decompression of every chunk. Row decoding: the decode-only scan
//! (`data::scan_counts`: every row, cell and tombstone decoded and counted), and `dump --jsonl`
//! and `dump --json` (this binary, output to /dev/null), as MB/s of uncompressed data, rows/s and
//! ratios to raw LZ4. Reported, never asserted. Data.db is read into memory first so that disk
//! speed is not measured (except by the `dump` runs, which read the file as `dump` does).

use std::time::Instant;

use sstable_engine::clock::Clock;
use sstable_engine::component::data::{
    self, DataFileReader, DataSchema, DecodeOptions, ScanCounts,
};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::verify::{Verifier, VerifyOptions};

use crate::{files, Outcome};

struct Wall(Instant);

impl Clock for Wall {
    fn now_nanos(&self) -> u64 {
        self.0.elapsed().as_nanos() as u64
    }
}

fn mb_s(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs.max(1e-9)
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
}

pub fn run(args: Args) -> Result<Outcome, String> {
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
    let n = data.len();
    let runs = 3;

    let mut copy = vec![0u8; n];
    let memcpy = best_of(runs, || copy.copy_from_slice(&data));
    let mut crc = 0;
    let crc32 = best_of(runs, || crc = crc32fast::hash(&data));
    std::hint::black_box((crc, &copy));

    // Raw LZ4: every chunk decompressed, nothing else.
    let lz4 = metadata
        .compression
        .as_ref()
        .filter(|c| Compressor::from_class_name(&c.compressor) == Compressor::Lz4)
        .map(|ci| {
            let mut out = Vec::new();
            let mut uncompressed = 0usize;
            let secs = best_of(runs, || {
                uncompressed = 0;
                for i in 0..ci.chunk_offsets.len() {
                    let Some((start, end)) = ci.chunk_span(i, n as u64) else {
                        continue;
                    };
                    let Some(stored) = data.get(start as usize..(end as usize).saturating_sub(4))
                    else {
                        continue;
                    };
                    let expected = ci.chunk_uncompressed_len(i).unwrap_or(0) as usize;
                    if decompress_chunk(&Compressor::Lz4, stored, expected, &mut out).is_ok() {
                        uncompressed += out.len();
                    }
                }
            });
            (secs, uncompressed)
        });

    let verify = |decompress: bool| -> Result<(f64, bool), String> {
        let mut valid = false;
        let secs = best_of(runs, || {
            let clock = Wall(Instant::now());
            let Some(mut v) = Verifier::for_sstable(
                &metadata,
                VerifyOptions {
                    decompress,
                    ..VerifyOptions::default()
                },
            ) else {
                return;
            };
            while let Some((offset, len)) = v.next_read() {
                let Some(slice) = data.get(offset as usize..offset.saturating_add(len) as usize)
                else {
                    break;
                };
                if v.supply(offset, slice, &clock).is_err() {
                    break;
                }
            }
            valid = v.finish(&sstable.prefix).valid;
        });
        Ok((secs, valid))
    };
    let (verify_secs, valid) = verify(false)?;
    let (verify_decompress_secs, _) = verify(true)?;

    // The decode-only scan, from the bytes in memory.
    let schema = metadata
        .statistics
        .as_ref()
        .and_then(|s| s.header.as_ref())
        .map(|h| DataSchema::from_header(h, &sstable.descriptor.version))
        .transpose()
        .map_err(|e| e.to_string())?;
    let mut scan: Option<(f64, ScanCounts)> = None;
    if let Some(schema) = &schema {
        let mut failure = None;
        let mut counts = ScanCounts::default();
        let secs = best_of(runs, || {
            let mut reader = match &metadata.compression {
                Some(ci) => DataFileReader::compressed(
                    schema.clone(),
                    DecodeOptions::default(),
                    ci.clone(),
                    n as u64,
                ),
                None => {
                    DataFileReader::uncompressed(schema.clone(), DecodeOptions::default(), n as u64)
                }
            };
            match data::scan_counts(&mut reader, |offset, buf| {
                let start = offset as usize;
                let len = buf.len();
                match data.get(start..start + len) {
                    Some(src) => {
                        buf.copy_from_slice(src);
                        Ok(())
                    }
                    None => Err(sstable_engine::Error::invalid("read past the end", offset)),
                }
            }) {
                Ok(c) => counts = c,
                Err(e) => failure = Some(e.to_string()),
            }
        });
        if let Some(e) = failure {
            return Err(format!("decode-only scan: {e}"));
        }
        scan = Some((secs, counts));
    }
    let uncompressed = metadata
        .compression
        .as_ref()
        .map_or(n as u64, |c| c.data_length_bytes.value) as usize;
    let rows = scan.as_ref().map_or(0, |(_, c)| c.rows + c.static_rows);
    // `dump` as users run it: this binary, output to /dev/null.
    let dump_runs = if uncompressed > 200_000_000 { 1 } else { runs };
    let dump = |format: &str| -> Result<f64, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut status = Ok(());
        let secs = best_of(dump_runs, || {
            let result = std::process::Command::new(&exe)
                .arg("dump")
                .arg(data_path.parent().unwrap_or(data_path))
                .arg(format)
                .stdout(std::process::Stdio::null())
                .status();
            if !matches!(&result, Ok(s) if s.success()) {
                status = Err(format!("dump {format} failed: {result:?}"));
            }
        });
        status.map(|()| secs)
    };
    let dump_jsonl_secs = dump("--jsonl")?;
    let dump_json_secs = dump("--json")?;
    let lz4_secs = lz4.map(|(s, _)| s);
    let vs_lz4 = |secs: f64| lz4_secs.map(|l| l / secs);
    let per_s = |count: u64, secs: f64| count as f64 / secs.max(1e-9);

    let report = serde_json::json!({
        "sstable": sstable.prefix,
        "data_bytes": n,
        "runs": runs,
        "memcpy_mb_s": mb_s(n, memcpy),
        "crc32fast_mb_s": mb_s(n, crc32),
        "lz4_decompress_mb_s": lz4.map(|(s, u)| mb_s(u, s)),
        "lz4_decompress_stored_mb_s": lz4.map(|(s, _)| mb_s(n, s)),
        "verify_mb_s": mb_s(n, verify_secs),
        "verify_decompress_mb_s": mb_s(n, verify_decompress_secs),
        "verify_vs_crc32": crc32 / verify_secs,
        "verify_vs_memcpy": memcpy / verify_secs,
        "verify_decompress_vs_crc32_plus_lz4": lz4.map(|(s, _)| (crc32 + s) / verify_decompress_secs),
        "valid": valid,
        "uncompressed_bytes": uncompressed,
        "lz4_decompress_uncompressed_mb_s": lz4.map(|(s, u)| mb_s(u, s)),
        "scan": scan.as_ref().map(|(secs, counts)| serde_json::json!({
            "counts": counts,
            "mb_s": mb_s(uncompressed, *secs),
            "rows_per_s": per_s(rows, *secs),
            "vs_lz4": vs_lz4(*secs),
        })),
        "dump_jsonl": {
            "mb_s": mb_s(uncompressed, dump_jsonl_secs),
            "rows_per_s": per_s(rows, dump_jsonl_secs),
            "vs_lz4": vs_lz4(dump_jsonl_secs),
        },
        "dump_json": {
            "mb_s": mb_s(uncompressed, dump_json_secs),
            "rows_per_s": per_s(rows, dump_json_secs),
            "vs_lz4": vs_lz4(dump_json_secs),
            "vs_jsonl": dump_json_secs / dump_jsonl_secs.max(1e-9),
        },
        "dump_runs": dump_runs,
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
        if let Some((s, _)) = lz4 {
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
            lz4.map(|(s, _)| (crc32 + s) / verify_decompress_secs)
                .unwrap_or(0.0)
        );
        println!("  valid: {valid}");
        let ratio =
            |secs: f64| vs_lz4(secs).map_or(String::new(), |r| format!("  = {r:.2} × raw LZ4"));
        println!(
            "  rows (decoding, {} rows, {} uncompressed bytes; MB/s of uncompressed data):",
            rows, uncompressed
        );
        if let Some((s, _)) = lz4 {
            println!(
                "  LZ4 decompress (raw)   {:>8.0} MB/s of uncompressed bytes",
                mb_s(uncompressed, s)
            );
        }
        if let Some((secs, counts)) = &scan {
            println!(
                "  decode-only scan       {:>8.0} MB/s  {:>10.0} rows/s{}",
                mb_s(uncompressed, *secs),
                per_s(rows, *secs),
                ratio(*secs)
            );
            println!(
                "    {} partitions, {} rows, {} cells ({} tombstones, {} expiring), {} markers",
                counts.partitions,
                counts.rows + counts.static_rows,
                counts.cells,
                counts.tombstone_cells,
                counts.expiring_cells + counts.expired_cells,
                counts.range_tombstone_markers
            );
        }
        for (name, secs) in [
            ("dump --jsonl", dump_jsonl_secs),
            ("dump --json", dump_json_secs),
        ] {
            println!(
                "  {name:<14} > null {:>8.0} MB/s  {:>10.0} rows/s{}",
                mb_s(uncompressed, secs),
                per_s(rows, secs),
                ratio(secs)
            );
        }
        println!(
            "  dump --json / --jsonl  {:>8.2} × the time (best of {dump_runs})",
            dump_json_secs / dump_jsonl_secs.max(1e-9)
        );
    }
    Ok(if valid {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}
