//! `sstable-inspect generate`: writes a deterministic test SSTable (big format `nb` or `oa`)
//! with the engine's writer (`sstable_engine::write::generate`).
//!
//! Files are `DIR/<version>-<generation>-big-<Component>` (`--generation`, default 1); the engine emits bytes per component and this
//! module writes them through `sstable_native::scrub::OutputFiles` (one buffered file per component). `--chunk-kib` is the compressed
//! chunk length (default 16), or the CRC.db chunk size with `--compression none` (default 64).
//! `--ttl-min`/`--ttl-max` bound the TTLs drawn, `--static-ttl-fraction` makes static rows
//! expire too (with `--ttl-fraction 1` every live cell expires), `--skew K` gives one partition in
//! 8 K times the rows, `--base-timestamp` sets the writes' time (µs; deletions and expiries count
//! from it). The same options always give the same bytes. Exit status: 0 written, 1 on an I/O or writer
//! error, 2 on bad usage (nothing written).

use std::path::PathBuf;

use sstable_engine::compress::Compressor;
use sstable_engine::write::overlap::{write_overlapping_copies, OverlapOptions};
use sstable_engine::write::{self, GenerateOptions};
use sstable_engine::{Format, Version};

use sstable_native::scrub::OutputFiles;

use crate::Outcome;

/// `sstable-inspect generate --out DIR --version nb|oa --compression … --partitions N
/// --rows-per-partition M [--chunk-kib K] [--seed S] [--ttl-fraction F] [--tombstone-fraction F]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The directory to write DIR/<version>-<G>-big-* into (created if missing)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The SSTable version
    #[arg(long = "version", value_name = "nb|oa", value_parser = sstable_version)]
    sstable_version: Version,
    /// The Data.db compressor (`none`: uncompressed, with CRC.db)
    #[arg(long, value_name = "lz4|snappy|deflate|zstd|none", value_parser = compressor)]
    compression: Compression,
    /// Number of partitions
    #[arg(long, value_name = "N", value_parser = partition_count)]
    partitions: u64,
    /// Rows in each partition (below 2^31)
    #[arg(long = "rows-per-partition", value_name = "M", value_parser = rows_per_partition)]
    rows_per_partition: u64,
    /// Compressed chunk length in KiB (default 16), or the CRC.db chunk size with
    /// `--compression none` (default 64); a power of two
    #[arg(long = "chunk-kib", value_name = "K", value_parser = chunk_kib)]
    chunk_kib: Option<u32>,
    /// Seed of the generated values: the same options always give the same bytes
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Probability, 0 to 1, that a row is written with a TTL
    #[arg(long = "ttl-fraction", value_name = "F", value_parser = fraction, default_value_t = 0.0)]
    ttl_fraction: f64,
    /// Probability, 0 to 1, that a row carries a tombstone (row, cell, collection or range)
    #[arg(
        long = "tombstone-fraction",
        value_name = "F",
        value_parser = fraction,
        default_value_t = 0.0
    )]
    tombstone_fraction: f64,
    /// Shortest TTL drawn, in seconds (default 60)
    #[arg(long = "ttl-min", value_name = "S")]
    ttl_min: Option<i32>,
    /// Longest TTL drawn, in seconds (default 30 days)
    #[arg(long = "ttl-max", value_name = "S")]
    ttl_max: Option<i32>,
    /// Probability, 0 to 1, that a partition's static row expires too (with --ttl-fraction 1
    /// and this 1, every live cell expires)
    #[arg(long = "static-ttl-fraction", value_name = "F", value_parser = fraction, default_value_t = 0.0)]
    static_ttl_fraction: f64,
    /// Skewed partition sizes: one partition in 8 gets K times the rows
    #[arg(long, value_name = "K", default_value_t = 0)]
    skew: u64,
    /// The generation in the file names, DIR/<version>-<G>-big-*
    #[arg(long, value_name = "G", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    generation: u64,
    /// Time of the writes in microseconds since the epoch (deletions and expiries count from it)
    #[arg(long = "base-timestamp", value_name = "MICROS")]
    base_timestamp: Option<i64>,
    /// Write one table as N overlapping SSTables, generations G … G+N−1
    /// (`write::overlap`: `id bigint, ck int, s text static, n int, v text, tags set<text>`; the
    /// same keys in several, newer timestamps overwriting, deletions shadowing other SSTables'
    /// rows, TTLs expired an hour after the writes; LZ4; uses --version, --partitions,
    /// --rows-per-partition, --seed, --generation, --base-timestamp, --chunk-kib)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..=64))]
    overlapping: Option<u64>,
    /// With --overlapping (≥ 3): add the resurrection cases of `write::overlap_zombies`
    /// (tombstones 30 days old, 10 partitions of their own; needs --rows-per-partition ≥ 10),
    /// which `zombies --gc-grace S` (3600 < S < 30 days + 3600) at the printed --now finds
    #[arg(long, requires = "overlapping")]
    zombies: bool,
    /// With --overlapping: N replicas DIR/node1 … DIR/nodeN of the table, each with one more
    /// SSTable of its own holding the injected divergences (`write::replicas`: a partition
    /// missing on one node, an older cell, an extra row, an extra range tombstone, a TTL expired
    /// on one side), printed one per line
    #[arg(long, value_name = "N", requires = "overlapping", value_parser = clap::value_parser!(u64).range(2..=16))]
    replicas: Option<u64>,
    /// With --replicas: also a row deletion past gc_grace over a row every node holds
    /// (`TombstonePastGcGrace`, in a second SSTable of that node's own): validation purges it,
    /// so the node lacks the row the others would stream back
    #[arg(long = "all-divergences", requires = "replicas")]
    all_divergences: bool,
}

/// `--compression`: a compressor, or none.
#[derive(Debug, Clone)]
struct Compression(Option<Compressor>);

fn sstable_version(value: &str) -> Result<Version, String> {
    match value {
        "nb" | "oa" => Version::parse(Format::Big, value).ok_or_else(|| "unknown version".into()),
        _ => Err("must be nb or oa".to_owned()),
    }
}

fn compressor(value: &str) -> Result<Compression, String> {
    Ok(Compression(match value {
        "lz4" => Some(Compressor::Lz4),
        "snappy" => Some(Compressor::Snappy),
        "deflate" => Some(Compressor::Deflate),
        "zstd" => Some(Compressor::Zstd),
        "none" => None,
        _ => return Err("must be lz4, snappy, deflate, zstd or none".to_owned()),
    }))
}

fn partition_count(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err("not a number".to_owned()),
    }
}

fn rows_per_partition(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if n >= 1 << 31 => Err("must be below 2^31".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err("not a number".to_owned()),
    }
}

fn chunk_kib(value: &str) -> Result<u32, String> {
    let k: u32 = value.parse().map_err(|_| "not a number".to_owned())?;
    if k == 0 || !k.is_power_of_two() || k > 1 << 20 {
        return Err("must be a power of two up to 2^20".to_owned());
    }
    Ok(k)
}

fn fraction(value: &str) -> Result<f64, String> {
    let f: f64 = value.parse().map_err(|_| "not a number".to_owned())?;
    if (0.0..=1.0).contains(&f) {
        Ok(f)
    } else {
        Err("must be between 0 and 1".to_owned())
    }
}

pub fn run(args: Args) -> Result<Outcome, String> {
    let Args {
        out,
        sstable_version: version,
        compression: Compression(compression),
        partitions,
        rows_per_partition: rows,
        chunk_kib,
        seed,
        ttl_fraction,
        tombstone_fraction,
        ttl_min,
        ttl_max,
        static_ttl_fraction,
        skew,
        generation,
        base_timestamp,
        overlapping,
        zombies,
        replicas,
        all_divergences,
    } = args;
    if let Some(n) = overlapping {
        let rows = u32::try_from(rows).map_err(|_| "--rows-per-partition: too many".to_owned())?;
        let mut o = OverlapOptions::new(version, n as usize, partitions, rows, seed);
        o.zombies = zombies;
        if let Some(b) = base_timestamp {
            o.base_timestamp_micros = b;
            o.now_secs = (b / 1_000_000).saturating_add(3_600);
        }
        if let Some(k) = chunk_kib {
            o.chunk_length_bytes = k.saturating_mul(1024);
        }
        if let Some(nodes) = replicas {
            return write_replicas(&out, &o, nodes as usize, generation, all_divergences);
        }
        return write_overlapping(&out, &o, generation);
    }

    let mut options = GenerateOptions::new(version, partitions, rows);
    options.compression = compression;
    options.chunk_kib = chunk_kib;
    options.seed = seed;
    options.ttl_fraction = ttl_fraction;
    options.tombstone_fraction = tombstone_fraction;
    options.static_ttl_fraction = static_ttl_fraction;
    options.skew = skew;
    if let Some(b) = base_timestamp {
        options.base_timestamp_micros = b;
    }
    options.ttl_range_secs = (
        ttl_min.unwrap_or(options.ttl_range_secs.0),
        ttl_max.unwrap_or(options.ttl_range_secs.1),
    );
    if options.ttl_range_secs.0 < 1 || options.ttl_range_secs.1 < options.ttl_range_secs.0 {
        return Err(format!(
            "--ttl-min/--ttl-max: {}..{} s is not a positive range",
            options.ttl_range_secs.0, options.ttl_range_secs.1
        ));
    }

    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("error: {}: {e}", out.display());
        return Ok(Outcome::Errors);
    }
    let sink = OutputFiles::new(out.join(format!("{version}-{generation}-big")));
    let generated = match write::generate(&options, sink) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    };
    let summary = generated.summary;
    let paths = match generated.sink.close() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    };
    println!(
        "wrote {} files to {}: {} partitions, {} rows, {} range tombstone markers; Data.db {} bytes \
         ({} uncompressed, {} chunks), digest {}",
        paths.len(),
        out.display(),
        summary.partitions,
        summary.rows,
        summary.markers,
        summary.stored_length,
        summary.data_length,
        summary.chunk_count,
        summary.digest
    );
    Ok(Outcome::Clean)
}

/// `--overlapping N`: the N SSTables of one table, each an [`OutputFiles`].
fn write_overlapping(
    out: &PathBuf,
    o: &OverlapOptions,
    generation: u64,
) -> Result<Outcome, String> {
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("error: {}: {e}", out.display());
        return Ok(Outcome::Errors);
    }
    let version = o.version;
    // Streamed: one partition at a time, the model not kept.
    let table = write_overlapping_copies(
        o,
        1,
        |_, i| {
            OutputFiles::new(out.join(format!(
                "{version}-{}-big",
                generation.saturating_add(i as u64)
            )))
        },
        |_| {},
    );
    let table = match table {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    };
    for (sink, summary) in table.copies.into_iter().flatten() {
        let prefix = sink.prefix().to_path_buf();
        if let Err(e) = sink.close() {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
        println!(
            "wrote {}-*: {} partitions, {} rows, {} range tombstone markers",
            prefix.display(),
            summary.partitions,
            summary.rows,
            summary.markers
        );
    }
    println!(
        "one table of {} partitions as overlapping SSTables; read it at --now {}",
        table.partitions, o.now_secs
    );
    if o.zombies {
        let garbage = table
            .expected_zombies
            .iter()
            .filter(|z| z.shadowed.is_none())
            .count();
        println!(
            "with resurrection cases: zombies --now {} --gc-grace 864000 finds {} resurrections and {garbage} droppable tombstones that shadow nothing",
            o.now_secs,
            table.expected_zombies.len().saturating_sub(garbage)
        );
    }
    Ok(Outcome::Clean)
}

/// `--replicas N`: DIR/node1 … DIR/nodeN, each the overlapping SSTables and its own.
fn write_replicas(
    out: &std::path::Path,
    o: &OverlapOptions,
    nodes: usize,
    generation: u64,
    all_divergences: bool,
) -> Result<Outcome, String> {
    use sstable_engine::write::replicas::{
        generate_replicas, ALL_DIVERGENCE_KINDS, DIVERGENCE_KINDS,
    };
    let kinds: &[_] = if all_divergences {
        &ALL_DIVERGENCE_KINDS
    } else {
        &DIVERGENCE_KINDS
    };
    let version = o.version;
    for node in 0..nodes {
        let dir = out.join(format!("node{}", node.saturating_add(1)));
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("error: {}: {e}", dir.display());
            return Ok(Outcome::Errors);
        }
    }
    let set = generate_replicas(o, nodes, kinds, |node, i| {
        OutputFiles::new(
            out.join(format!("node{}", node.saturating_add(1)))
                .join(format!(
                    "{version}-{}-big",
                    generation.saturating_add(i as u64)
                )),
        )
    });
    let set = match set {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    };
    for sink in set.nodes.into_iter().flatten().map(|(s, _)| s) {
        if let Err(e) = sink.close() {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    }
    for d in &set.divergences {
        let key: String = d.key.iter().map(|b| format!("{b:02x}")).collect();
        println!(
            "divergence {:?} on node{}: partition 0x{key}",
            d.kind,
            d.node.saturating_add(1)
        );
    }
    println!(
        "{nodes} replicas of one table under {}; diff them at --now {}",
        out.display(),
        o.now_secs
    );
    Ok(Outcome::Clean)
}
