//! `sstable-inspect bench PATH` on a 2.0–2.2 SSTable (`jb`, `ka`, `la`): a full atom decode of
//! Data.db (`LegacyDataFileReader` through the engine's `SyncDriver`: every chunk decompressed,
//! every atom's name, value, timestamp, TTL and deletion decoded; then again with the atoms
//! grouped into rows by `RowGrouper`) next to a raw decompression pass over the same chunks, as
//! atoms/s, MB/s of uncompressed data and ratios to the raw pass. A small file is decoded
//! `passes` times per timing so that one timing lasts long enough to measure; the best of
//! `RUNS` timings is kept, by wall and (where Linux has it) CPU time. Reported, never asserted.
//! Data.db is read into memory first, so disk speed is not measured.

use std::time::Instant;

use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::legacy_data::{
    LegacyDataFileReader, LegacyItem, LegacyLayout, LegacyStep, RowGrouper,
};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::range::{SliceSource, SyncDriver};

use sstable_engine::info::SSTableMetadata;

use crate::Outcome;

/// Timings taken; the best is reported.
const RUNS: usize = 5;
/// Uncompressed bytes one timing decodes at least (a small file is decoded several times).
const MIN_BYTES_PER_TIMING: u64 = 64 << 20;

/// CPU time of this thread so far (`/proc/thread-self/schedstat`, ns), where Linux has it.
fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Best wall and CPU seconds of [`RUNS`] calls of `f`.
fn best_of(mut f: impl FnMut() -> Result<(), String>) -> Result<Timing, String> {
    let mut best = Timing {
        wall_secs: f64::INFINITY,
        cpu_secs: None,
    };
    for _ in 0..RUNS {
        let cpu = thread_cpu_secs();
        let t = Instant::now();
        f()?;
        best.wall_secs = best.wall_secs.min(t.elapsed().as_secs_f64().max(1e-9));
        if let (Some(before), Some(after)) = (cpu, thread_cpu_secs()) {
            let secs = (after - before).max(1e-9);
            best.cpu_secs = Some(best.cpu_secs.map_or(secs, |c: f64| c.min(secs)));
        }
    }
    Ok(best)
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
struct Timing {
    wall_secs: f64,
    cpu_secs: Option<f64>,
}

/// What one decode pass counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
struct Counts {
    partitions: u64,
    atoms: u64,
    rows: u64,
}

/// `bench` on a 2.x SSTable (`bench` found and loaded it, and read its Data.db into `data`).
pub fn run(
    prefix: &str,
    metadata: &SSTableMetadata,
    data: &[u8],
    json: bool,
) -> Result<Outcome, String> {
    let version = metadata.descriptor.version;
    let stored_bytes = data.len() as u64;
    let uncompressed_bytes = metadata
        .compression
        .as_ref()
        .map_or(stored_bytes, |c| c.data_length_bytes.value);
    let passes = (MIN_BYTES_PER_TIMING / uncompressed_bytes.max(1)).clamp(1, 10_000) as usize;

    // Raw decompression: every chunk decompressed, nothing else.
    let raw = match &metadata.compression {
        None => None,
        Some(ci) => {
            let compressor = Compressor::from_class_name(&ci.compressor);
            let mut out = Vec::new();
            let timing = best_of(|| {
                for _ in 0..passes {
                    for i in 0..ci.chunk_offsets.len() {
                        let (start, end) = ci
                            .chunk_span(i, stored_bytes)
                            .ok_or_else(|| format!("chunk {i} has no span"))?;
                        let stored = data
                            .get(start as usize..(end as usize).saturating_sub(4))
                            .ok_or_else(|| format!("chunk {i} is past the end"))?;
                        let expected = ci.chunk_uncompressed_len(i).unwrap_or(0) as usize;
                        decompress_chunk(&compressor, stored, expected, &mut out)
                            .map_err(|e| format!("chunk {i}: {e}"))?;
                        std::hint::black_box(&out);
                    }
                }
                Ok(())
            })?;
            Some((compressor, timing))
        }
    };

    // The full decode, as `dump --atoms` and the page drive it, with and without row grouping.
    let files = [(ComponentType::Data, data)];
    let decode = |group_rows: bool| -> Result<Counts, String> {
        let mut counts = Counts::default();
        for _ in 0..passes {
            let options = DecodeOptions::default();
            let mut reader =
                LegacyDataFileReader::for_sstable(metadata, options).map_err(|e| e.to_string())?;
            let mut driver = SyncDriver::new(SliceSource { files: &files });
            let mut grouper = RowGrouper::new(LegacyLayout::inferred(), None);
            counts = Counts::default();
            loop {
                // Each step borrows the reader's window: it is counted while the borrow lasts.
                let finished = driver
                    .with_next_step(&mut reader, &NoClock, |step| {
                        let LegacyStep::Item(item) = step else {
                            return true;
                        };
                        match &item {
                            LegacyItem::Atom(_) => counts.atoms += 1,
                            LegacyItem::PartitionEnd(_) => counts.partitions += 1,
                            LegacyItem::PartitionStart(_) => {}
                        }
                        if group_rows {
                            if let Some(p) = grouper.push(&item) {
                                counts.rows += p.rows.len() as u64;
                            }
                        }
                        false
                    })
                    .map_err(|e| e.to_string())?;
                if finished {
                    break;
                }
            }
        }
        Ok(counts)
    };
    let mut counts = Counts::default();
    let atoms = best_of(|| {
        counts = decode(false)?;
        Ok(())
    })?;
    let mut row_counts = Counts::default();
    let rows = best_of(|| {
        row_counts = decode(true)?;
        Ok(())
    })?;
    counts.rows = row_counts.rows;

    let per_pass = |t: Timing| Timing {
        wall_secs: t.wall_secs / passes as f64,
        cpu_secs: t.cpu_secs.map(|c| c / passes as f64),
    };
    let report = |name: &str, t: Timing| {
        let t = per_pass(t);
        let raw = raw.as_ref().map(|(_, r)| per_pass(*r));
        serde_json::json!({
            "what": name,
            "wall_secs": t.wall_secs,
            "cpu_secs": t.cpu_secs,
            "atoms_per_s": counts.atoms as f64 / t.wall_secs,
            "cpu_atoms_per_s": t.cpu_secs.map(|c| counts.atoms as f64 / c),
            "mb_s": uncompressed_bytes as f64 / 1e6 / t.wall_secs,
            "cpu_mb_s": t.cpu_secs.map(|c| uncompressed_bytes as f64 / 1e6 / c),
            "times_raw_decompression": raw.map(|r| t.wall_secs / r.wall_secs),
            "cpu_times_raw_decompression": raw.and_then(|r| Some(t.cpu_secs? / r.cpu_secs?)),
        })
    };
    let lines = [
        report("atoms (decompress + decode)", atoms),
        report("atoms grouped into rows", rows),
    ];
    if json {
        let out = serde_json::json!({
            "sstable": prefix,
            "version": version.to_string(),
            "stored_bytes": stored_bytes,
            "uncompressed_bytes": uncompressed_bytes,
            "passes_per_timing": passes,
            "runs": RUNS,
            "counts": counts,
            "raw_decompression": raw.as_ref().map(|(c, r)| {
                let r = per_pass(*r);
                serde_json::json!({
                    "compressor": format!("{c:?}"),
                    "wall_secs": r.wall_secs,
                    "cpu_secs": r.cpu_secs,
                    "mb_s": uncompressed_bytes as f64 / 1e6 / r.wall_secs,
                    "cpu_mb_s": r.cpu_secs.map(|c| uncompressed_bytes as f64 / 1e6 / c),
                })
            }),
            "decode": lines,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(Outcome::Clean);
    }
    println!(
        "bench {} ({version}, pre-3.0 atoms) — Data.db {stored_bytes} bytes stored, \
         {uncompressed_bytes} uncompressed, in memory; {} partitions, {} atoms, {} rows; \
         {passes} passes per timing, best of {RUNS}; wall (CPU)",
        prefix, counts.partitions, counts.atoms, counts.rows
    );
    let fmt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or(String::new(), f);
    match &raw {
        Some((c, r)) => {
            let r = per_pass(*r);
            println!(
                "  raw {c:?} decompression     {:>8.0}{} MB/s of uncompressed data",
                uncompressed_bytes as f64 / 1e6 / r.wall_secs,
                fmt(r.cpu_secs, &|c| format!(
                    " ({:.0})",
                    uncompressed_bytes as f64 / 1e6 / c
                )),
            );
        }
        None => println!("  raw decompression: none (Data.db is uncompressed)"),
    }
    for l in &lines {
        let num = |k: &str| l.get(k).and_then(serde_json::Value::as_f64);
        println!(
            "  {:<30} {:>8.0}{} MB/s {:>10.0}{} atoms/s{}",
            l.get("what").and_then(|v| v.as_str()).unwrap_or(""),
            num("mb_s").unwrap_or(0.0),
            fmt(num("cpu_mb_s"), &|c| format!(" ({c:.0})")),
            num("atoms_per_s").unwrap_or(0.0),
            fmt(num("cpu_atoms_per_s"), &|c| format!(" ({c:.0})")),
            fmt(num("times_raw_decompression"), &|w| format!(
                "  = {w:.2}{} × the raw decompression time",
                fmt(num("cpu_times_raw_decompression"), &|c| format!(
                    " ({c:.2})"
                ))
            )),
        );
    }
    Ok(Outcome::Clean)
}
