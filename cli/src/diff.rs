//! `sstable-inspect diff DIR_A DIR_B [DIR_C…]`: each directory is one replica of one table; its
//! SSTables are merged (`sstable_engine::merge`), purged at gcBefore and hashed per token range
//! into a Merkle tree as Cassandra's validation does (`sstable_engine::repair`); the replicas'
//! mismatching ranges, the partitions that differ (which replica is newest), inside each the
//! rows, cells and tombstones that differ side by side (`repair::compare`), and the bytes each
//! replica would stream to each other one (its digest input bytes: what Cassandra's tree counts
//! as a range's size), for the mismatching ranges whole and for the differing partitions only.
//! Streaming: all replicas are read in lockstep.

use sstable_engine::clock::NoClock;
use sstable_engine::repair::{depth_for, diff_replicas, PieceDiff, ValidationOptions, MAX_DEPTH};
use sstable_native::repair::open_replica_with_schema;

use crate::now::now_seconds;
use crate::Outcome;

/// `sstable-inspect diff DIR_A DIR_B [DIR_C…] [--depth N] [--range START:END] [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One directory per replica (SSTables of one table, Murmur3Partitioner; 2.x ones need
    /// `--schema`)
    #[arg(required = true, num_args = 2.., value_name = "DIR")]
    dirs: Vec<String>,
    /// The Merkle tree's depth (default: ceil(log2(estimated partitions)), at most 20, as
    /// ValidationManager chooses it from the largest replica's estimate)
    #[arg(long, value_name = "N")]
    depth: Option<u8>,
    /// Only tokens in (START, END]
    #[arg(long, value_name = "START:END", allow_hyphen_values = true)]
    range: Option<String>,
    /// The report as JSON
    #[arg(long)]
    json: bool,
    /// "Now", seconds since the epoch, for TTL expiry (default: the clock)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
    /// gc_grace_seconds: tombstones deleted before now − this are purged before hashing
    #[arg(long = "gc-grace", value_name = "SECS", default_value_t = 864_000)]
    gc_grace: i64,
    /// The table's CREATE TABLE statement (a .cql file), for 2.x SSTables (jb, ka, la), which
    /// record no schema
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<String>,
}

fn parse_range(s: &str) -> Result<(i64, i64), String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| format!("bad --range {s}: START:END"))?;
    let t = |x: &str| {
        x.trim()
            .parse::<i64>()
            .map_err(|e| format!("bad --range {s}: {e}"))
    };
    Ok((t(a)?, t(b)?))
}

pub fn run(a: Args) -> Result<Outcome, String> {
    crate::progress::disable();
    let now = a
        .now
        .or_else(now_seconds)
        .ok_or_else(|| "no clock: give --now".to_owned())?;
    let range = a.range.as_deref().map(parse_range).transpose()?;
    let loaded = match &a.schema {
        Some(path) => crate::schema::load(&[path.as_str()], Some(path))?.0,
        None => None,
    };
    let mut replicas = Vec::new();
    for dir in &a.dirs {
        match open_replica_with_schema(&[dir.as_str()], now, loaded.as_ref().map(|l| &l.file)) {
            Ok(r) => replicas.push(r),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(Outcome::Errors);
            }
        }
    }
    let estimate = replicas
        .iter()
        .map(|r| r.estimated_partitions)
        .max()
        .unwrap_or(0);
    let depth = a.depth.unwrap_or_else(|| depth_for(estimate, MAX_DEPTH));
    let validation = ValidationOptions {
        now_seconds: now,
        gc_before_seconds: now.saturating_sub(a.gc_grace),
        depth,
        range,
    };
    let validators = replicas
        .into_iter()
        .map(|r| r.validator(validation))
        .collect();
    let report = match diff_replicas(validators, &NoClock) {
        Ok(r) => r,
        Err((i, e)) => {
            let dir = a.dirs.get(i).map_or("?", String::as_str);
            eprintln!("error: replica {dir}: {e}");
            return Ok(Outcome::Errors);
        }
    };
    if a.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        println!(
            "depth {} ({} leaves); partitions hashed per replica: {:?}",
            report.depth,
            1u64 << report.depth,
            report.partitions
        );
        for (dir, root) in a.dirs.iter().zip(&report.roots) {
            println!("  {dir}: root {root}");
        }
        println!("{} mismatching ranges", report.mismatching_ranges.len());
        for r in &report.mismatching_ranges {
            println!(
                "  ({}, {}]: partitions {:?}, bytes each would stream {:?}",
                r.start_token, r.end_token, r.partitions, r.bytes
            );
        }
        println!("{} differing partitions", report.partition_diffs.len());
        for p in &report.partition_diffs {
            let on: Vec<&str> = a
                .dirs
                .iter()
                .zip(&p.digests)
                .filter(|(_, d)| d.is_some())
                .map(|(n, _)| n.as_str())
                .collect();
            let newest = a.dirs.get(p.newest).map_or("?", String::as_str);
            println!(
                "  0x{} (token {}): on {}; newest on {newest}; bytes each would stream {:?}",
                p.key_hex,
                p.token,
                on.join(", "),
                p.bytes
            );
            for piece in &p.pieces {
                println!("    {}", describe_piece(piece, &a.dirs));
            }
        }
        println!("bytes each replica would stream to each other (ranges whole / differing partitions only):");
        for (from, (ranges, parts)) in report
            .stream_bytes_by_range
            .iter()
            .zip(&report.stream_bytes_by_partition)
            .enumerate()
        {
            for (to, (r, p)) in ranges.iter().zip(parts).enumerate() {
                if from != to {
                    let name = |i: usize| a.dirs.get(i).map_or("?", String::as_str);
                    println!("  {} -> {}: {r} / {p}", name(from), name(to));
                }
            }
        }
    }
    Ok(Outcome::Clean)
}

/// One differing piece on one line: where, then each replica's version (`-` where it has
/// none), then which replica's version wins.
fn describe_piece(p: &PieceDiff, dirs: &[String]) -> String {
    let mut at = format!("{:?}", p.kind);
    if p.is_static {
        at.push_str(" static");
    }
    if !p.clustering.is_empty() {
        at.push_str(&format!(" ({})", p.clustering.join(", ")));
    }
    if let Some(b) = &p.bound {
        at.push_str(&format!(" {b}"));
    }
    if let Some(c) = &p.column {
        at.push_str(&format!(" {c}"));
    }
    if let Some(path) = &p.path {
        at.push_str(&format!("[{path}]"));
    }
    let sides: Vec<String> = p
        .versions
        .iter()
        .zip(dirs)
        .map(|(v, dir)| match v {
            None => format!("{dir}: -"),
            Some(v) => format!("{dir}: {v}"),
        })
        .collect();
    let winner = p
        .newest
        .and_then(|i| dirs.get(i))
        .map_or_else(String::new, |d| format!("; {d} wins"));
    let same = if p.differs {
        ""
    } else {
        " (beside the differences: validation hashes it on no replica)"
    };
    format!("{at}{same}: {}{winner}", sides.join(" | "))
}
