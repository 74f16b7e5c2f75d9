//! `sstable-inspect info`: every metadata component of every SSTable found, like sstablemetadata
//! but for all components. `--json` prints the engine's stable `InfoReport` array.

use std::fmt::Write as _;

use sstable_engine::datetime::iso8601_micros as iso_micros;
use sstable_engine::info::InfoReport;

use crate::{files, Outcome};

/// `sstable-inspect info PATH... [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Print the stable JSON report array
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    let paths: Vec<&str> = args.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    let mut reports = Vec::new();
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        let mut report = metadata.report(&sstable.prefix);
        for e in io_errors {
            report.errors.push(sstable_engine::info::ErrorReport {
                component: None,
                offset: 0,
                message: e,
            });
        }
        reports.push(report);
    }
    let any_errors = reports.iter().any(|r| !r.errors.is_empty());
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
        );
    } else {
        for r in &reports {
            print!("{}", human(r));
        }
        for i in &found.grouping.ignored {
            eprintln!("ignored {}: {}", i.path, i.reason);
        }
    }
    Ok(if any_errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

fn human(r: &InfoReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "SSTable: {}", r.sstable);
    let _ = writeln!(
        out,
        "  version {}  format {}  generation {}",
        r.version, r.format, r.generation
    );
    let _ = writeln!(out, "  components: {}", r.components.present.join(", "));
    if !r.components.missing.is_empty() {
        let _ = writeln!(
            out,
            "  missing (listed in TOC.txt): {}",
            r.components.missing.join(", ")
        );
    }
    if !r.components.unlisted.is_empty() {
        let _ = writeln!(
            out,
            "  not listed in TOC.txt: {}",
            r.components.unlisted.join(", ")
        );
    }
    if let Some(v) = &r.validation {
        let _ = writeln!(out, "  Partitioner: {}", v.partitioner);
        let _ = writeln!(
            out,
            "  Bloom Filter FP chance: {}",
            v.bloom_filter_fp_chance
        );
    }
    if let Some(s) = &r.stats {
        let _ = writeln!(
            out,
            "  Minimum timestamp: {} ({})",
            s.min_timestamp,
            iso_micros(s.min_timestamp)
        );
        let _ = writeln!(
            out,
            "  Maximum timestamp: {} ({})",
            s.max_timestamp,
            iso_micros(s.max_timestamp)
        );
        if let Some(v) = s.min_local_deletion_time {
            let _ = writeln!(out, "  SSTable min local deletion time: {v}");
        }
        let _ = writeln!(
            out,
            "  SSTable max local deletion time: {}",
            s.max_local_deletion_time
        );
        if let (Some(a), Some(b)) = (s.min_ttl, s.max_ttl) {
            let _ = writeln!(out, "  TTL min: {a}  max: {b}");
        }
        let _ = writeln!(out, "  Compression ratio: {}", s.compression_ratio);
        let _ = writeln!(out, "  SSTable Level: {}", s.sstable_level);
        let _ = writeln!(out, "  Repaired at: {}", s.repaired_at);
        if let (Some(rows), Some(cols)) = (s.total_rows, s.total_columns_set) {
            let _ = writeln!(out, "  totalRows: {rows}  totalColumnsSet: {cols}");
        }
        let _ = writeln!(
            out,
            "  Estimated partitions: {}",
            s.estimated_partition_count
        );
        if let Some(c) = s.estimated_cardinality {
            let _ = writeln!(out, "  Estimated cardinality: {c}");
        }
        let _ = writeln!(
            out,
            "  Metadata checksums: {}",
            if s.metadata_checksums_ok {
                "ok"
            } else {
                "FAILED"
            }
        );
    }
    if let Some(h) = &r.header {
        let cql = |t: &Option<String>, raw: &str| t.clone().unwrap_or_else(|| raw.to_owned());
        let _ = writeln!(
            out,
            "  Partition key: {}",
            cql(&h.key_cql_type, &h.key_type)
        );
        for (i, c) in h.clustering_types.iter().enumerate() {
            let _ = writeln!(out, "  Clustering {i}: {}", cql(&c.cql_type, &c.r#type));
        }
        for c in &h.static_columns {
            let _ = writeln!(
                out,
                "  Static column {}: {}",
                c.name,
                cql(&c.cql_type, &c.r#type)
            );
        }
        for c in &h.regular_columns {
            let _ = writeln!(
                out,
                "  Regular column {}: {}",
                c.name,
                cql(&c.cql_type, &c.r#type)
            );
        }
    }
    if let Some(c) = &r.compression {
        let _ = writeln!(
            out,
            "  Compression: {} chunk {} B, {} chunks, uncompressed {} B{}",
            c.compressor,
            c.chunk_length,
            c.chunk_count,
            c.data_length,
            c.ratio
                .map(|x| format!(", ratio {x:.3}"))
                .unwrap_or_default()
        );
    }
    if let Some(f) = &r.filter {
        let _ = writeln!(
            out,
            "  Bloom filter: {} hashes, {} bits, {} set ({:.1}%), {} byte format{}",
            f.hash_count,
            f.bitset_bits,
            f.bits_set,
            f.fill_ratio * 100.0,
            f.format,
            f.expected_fp_rate
                .map(|p| format!(", expected FP rate {p:.5}"))
                .unwrap_or_default()
        );
    }
    if let Some(d) = &r.digest {
        let _ = writeln!(out, "  Digest ({:?}): {}", d.algorithm, d.value);
    }
    for f in &r.findings {
        let _ = writeln!(out, "  finding in {}: {}", f.component, f.message);
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
    out
}
