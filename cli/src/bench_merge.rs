//! `sstable-inspect bench --table DIR [--replica DIR_B]`: the merged read of one table's
//! SSTables (`sstable_engine::merge`, as `read DIR` opens it) next to each SSTable read alone,
//! its peak memory, and `diff DIR DIR_B` next to merging both. Reported, never asserted.
//!
//! | figure | what |
//! |---|---|
//! | merge vs singles | CPU seconds of the k-way merge of every SSTable, against the sum of each SSTable read alone through the same reader (a merge of one) and against the sum of their decode-only scans (`ScanCounts`, Data.db in memory); ratio = summed single time / merge time, i.e. the merge's rate as a fraction of the summed single-SSTable rate |
//! | peak memory | the process' peak resident set (`VmHWM` of /proc/self/status, reset through /proc/self/clear_refs before the run), during the merge and during the diff |
//! | diff vs merge | CPU seconds of `diff` of the two replicas (both merged, purged, hashed and compared in lockstep), against merging each replica alone |
//!
//! Times are this thread's CPU time (`/proc/thread-self/schedstat`), best of 2, so that a busy
//! machine's neighbours are not measured; the files are read as the commands read them (the
//! page cache warm after the first run).

use std::time::Instant;

use serde_json::json;
use sstable_engine::clock::NoClock;
use sstable_engine::component::ComponentType;
use sstable_engine::repair::{depth_for, diff_replicas, ValidationOptions, MAX_DEPTH};
use sstable_native::repair::open_replica;

use crate::bench_scan::{best_cpu_of, data_reader, header_schema, mb_s, scan_counts};
use crate::{files, Outcome};

/// The process' peak resident set in bytes (`VmHWM`), where Linux reports it.
fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Resets `VmHWM` to the current resident set (`echo 5 > /proc/self/clear_refs`).
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Every partition of the merge of the SSTables under `paths`: (partitions, rows).
fn merge_all(paths: &[&str], now: i64) -> Result<(u64, u64), String> {
    let mut merger = open_replica(paths, now)?.merger;
    let (mut partitions, mut rows) = (0u64, 0u64);
    while let Some(p) = merger.next_partition(&NoClock).map_err(|e| e.to_string())? {
        partitions += 1;
        rows += p.unfiltereds.len() as u64;
    }
    Ok((partitions, rows))
}

fn diff_all(dirs: &[&str], now: i64) -> Result<usize, String> {
    let replicas = dirs
        .iter()
        .map(|d| open_replica(&[*d], now))
        .collect::<Result<Vec<_>, _>>()?;
    let estimate = replicas
        .iter()
        .map(|r| r.estimated_partitions)
        .max()
        .unwrap_or(0);
    let options = ValidationOptions {
        now_seconds: now,
        gc_before_seconds: now.saturating_sub(864_000),
        depth: depth_for(estimate, MAX_DEPTH),
        range: None,
    };
    let validators = replicas.into_iter().map(|r| r.validator(options)).collect();
    let report = diff_replicas(validators, &NoClock).map_err(|(_, e)| e.to_string())?;
    Ok(report.partition_diffs.len())
}

/// CPU seconds (wall where the CPU time is unknown) of the best of 2 runs of `f`; its result.
fn timed<T>(mut f: impl FnMut() -> Result<T, String>) -> Result<(f64, T), String> {
    let mut out = None;
    let mut err = None;
    let (wall, cpu) = best_cpu_of(2, || match f() {
        Ok(v) => out = Some(v),
        Err(e) => err = Some(e),
    });
    if let Some(e) = err {
        return Err(e);
    }
    let v = out.ok_or("no run")?;
    Ok((cpu.unwrap_or(wall), v))
}

pub fn run(dir: &str, replica: Option<&str>, now: i64, json: bool) -> Result<Outcome, String> {
    let found = files::find(&[dir])?;
    let mut data_paths = Vec::new();
    for sstable in &found.grouping.sstables {
        let path = sstable
            .file(&ComponentType::Data)
            .and_then(|i| found.paths.get(i))
            .ok_or_else(|| format!("{}: no Data.db", sstable.prefix))?;
        data_paths.push((sstable, path.clone()));
    }
    if data_paths.len() < 2 {
        return Err(format!("{dir}: a table of at least 2 SSTables is merged"));
    }
    let data_bytes: u64 = data_paths
        .iter()
        .map(|(_, p)| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .sum();

    // The merge first, its peak memory from a fresh high-water mark.
    let reset = reset_peak_rss();
    let before = peak_rss_bytes();
    let wall = Instant::now();
    let (partitions, rows) = merge_all(&[dir], now)?;
    let first_wall = wall.elapsed().as_secs_f64();
    let merge_peak = peak_rss_bytes().filter(|_| reset);
    let (merge_secs, _) = timed(|| merge_all(&[dir], now))?;

    // Each SSTable alone: through the merge's reader, and the decode-only scan in memory.
    let mut singles_secs = 0.0;
    let mut scans_secs = 0.0;
    let mut uncompressed_bytes = 0u64;
    for (sstable, path) in &data_paths {
        let p = path.to_string_lossy().into_owned();
        singles_secs += timed(|| merge_all(&[p.as_str()], now))?.0;
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        if let Some(e) = io_errors.first() {
            return Err(e.clone());
        }
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let schema = header_schema(&metadata)?;
        let n = data.len();
        uncompressed_bytes += metadata
            .compression
            .as_ref()
            .map_or(n as u64, |c| c.data_length_bytes.value);
        scans_secs += timed(|| {
            scan_counts(&mut data_reader(&metadata, &schema, n), &data)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })?
        .0;
    }

    let diff = match replica {
        None => None,
        Some(b) => {
            let reset = reset_peak_rss();
            let _ = diff_all(&[dir, b], now)?;
            let peak = peak_rss_bytes().filter(|_| reset);
            let (diff_secs, differing) = timed(|| diff_all(&[dir, b], now))?;
            let (b_secs, _) = timed(|| merge_all(&[b], now))?;
            Some((diff_secs, merge_secs + b_secs, differing, peak))
        }
    };

    let mib = |b: Option<u64>| b.map(|b| b as f64 / (1024.0 * 1024.0));
    if json {
        let v = json!({
            "sstables": data_paths.len(),
            "data_bytes": data_bytes,
            "uncompressed_bytes": uncompressed_bytes,
            "partitions": partitions,
            "rows_and_markers": rows,
            "merge_cpu_secs": merge_secs,
            "merge_first_wall_secs": first_wall,
            "singles_merge_reader_cpu_secs": singles_secs,
            "singles_scan_cpu_secs": scans_secs,
            "merge_rate_vs_singles": singles_secs / merge_secs.max(1e-9),
            "merge_rate_vs_scans": scans_secs / merge_secs.max(1e-9),
            "merge_peak_rss_bytes": merge_peak,
            "rss_before_bytes": before,
            "diff": diff.map(|(d, m, n, peak)| json!({
                "diff_cpu_secs": d,
                "merge_both_cpu_secs": m,
                "diff_vs_merge_both": d / m.max(1e-9),
                "differing_partitions": n,
                "diff_peak_rss_bytes": peak,
            })),
        });
        println!("{v}");
        return Ok(Outcome::Clean);
    }
    println!(
        "{} SSTables, {:.1} MB of Data.db ({:.1} MB uncompressed), {partitions} merged partitions, {rows} rows and markers",
        data_paths.len(),
        data_bytes as f64 / 1e6,
        uncompressed_bytes as f64 / 1e6
    );
    println!(
        "merge: {merge_secs:.3} s CPU ({:.1} MB/s uncompressed; first run {first_wall:.3} s wall)",
        mb_s(uncompressed_bytes as usize, merge_secs)
    );
    println!(
        "each SSTable alone, summed: {singles_secs:.3} s through the merge's reader, {scans_secs:.3} s decode-only scan"
    );
    println!(
        "merge rate / summed single-SSTable rate: {:.2} (merge's reader), {:.2} (decode-only scan)",
        singles_secs / merge_secs.max(1e-9),
        scans_secs / merge_secs.max(1e-9)
    );
    match mib(merge_peak) {
        Some(m) => println!(
            "merge peak RSS (VmHWM): {m:.1} MiB (RSS before: {:.1} MiB)",
            mib(before).unwrap_or(0.0)
        ),
        None => println!("merge peak RSS: not available (no /proc/self/clear_refs)"),
    }
    if let Some((d, m, n, peak)) = diff {
        println!(
            "diff of the two replicas: {d:.3} s CPU ({n} differing partitions); merging both: {m:.3} s; diff / merge both: {:.2}",
            d / m.max(1e-9)
        );
        if let Some(p) = mib(peak) {
            println!("diff peak RSS (VmHWM): {p:.1} MiB");
        }
    }
    Ok(Outcome::Clean)
}
