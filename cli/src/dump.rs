//! `sstable-inspect dump`: every partition, row, cell and tombstone of Data.db, values rendered
//! like cqlsh. Human text by default, sstabledump's JSON shape with `--json`, one partition per
//! line with `--jsonl`. Data.db is read chunk by chunk by positioned reads; memory stays bounded
//! by one partition.

use std::io::Write;

use sstable_engine::component::data::{DataFileReader, DataSchema, DecodeOptions, DecodeStep};
use sstable_engine::component::ComponentType;
use sstable_engine::cql_schema::parse_create_table;
use sstable_engine::dump::{PartitionBuilder, PartitionJson};

use crate::files::{self, RangeFile};
use crate::progress::{self, Progress};
use crate::Outcome;

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
    let table = match &a.schema {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            Some(parse_create_table(&text).map_err(|e| format!("{path}: {e}"))?)
        }
        None => None,
    };
    let mut out = std::io::BufWriter::new(crate::output::stdout());
    let mut errors = false;
    let mut first_json = true;
    if a.json {
        let _ = writeln!(out, "[");
    }
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        for e in io_errors {
            eprintln!("error: {e}");
            errors = true;
        }
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
        let Some(data_path) = sstable
            .file(&ComponentType::Data)
            .and_then(|i| found.paths.get(i))
        else {
            eprintln!("error: {}: no Data.db", sstable.prefix);
            errors = true;
            continue;
        };
        let mut file =
            RangeFile::open(data_path).map_err(|e| format!("{}: {e}", data_path.display()))?;
        let progress = Progress::bytes(&sstable.prefix, file.len_bytes);
        let now = now_seconds();
        let options = DecodeOptions {
            now_seconds: now,
            ..DecodeOptions::default()
        };
        let mut reader = match &metadata.compression {
            Some(ci) => {
                DataFileReader::compressed(schema.clone(), options, ci.clone(), file.len_bytes)
            }
            None => DataFileReader::uncompressed(schema.clone(), options, file.len_bytes),
        };
        let mut builder = PartitionBuilder::new(now);
        let mut emitted = 0u64;
        if !a.json && !a.jsonl {
            let _ = writeln!(
                out,
                "SSTable {} ({} {})",
                sstable.prefix, sstable.descriptor.format, sstable.descriptor.version
            );
        }
        loop {
            if a.limit.is_some_and(|l| emitted >= l) {
                break;
            }
            let step = match reader.next_item() {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {}: {e}", sstable.prefix);
                    errors = true;
                    break;
                }
            };
            match step {
                DecodeStep::Finished => break,
                DecodeStep::NeedMoreData => {
                    let Some((offset, len)) = reader.next_read() else {
                        break;
                    };
                    let len = usize::try_from(len).map_err(|_| "read too large".to_owned())?;
                    let bytes = file
                        .read_at(offset, len)
                        .map_err(|e| format!("{}: {e}", data_path.display()))?;
                    progress.set_position(offset.saturating_add(bytes.len() as u64));
                    if let Err(e) = reader.supply(offset, &bytes) {
                        eprintln!("error: {}: {e}", sstable.prefix);
                        errors = true;
                        break;
                    }
                }
                DecodeStep::Item(item) => {
                    if let Some(p) = builder.push(&schema, &item) {
                        if !wanted.is_empty()
                            && !wanted.iter().any(|k| hex(k) == p.partition.key_hex)
                        {
                            continue;
                        }
                        emitted += 1;
                        write_partition(&mut out, &p, &a, &mut first_json, table.as_ref(), &schema);
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

use sstable_engine::span::hex;

/// "Now" for expiry: `$SSTABLE_INSPECT_NOW_SECONDS` when set (tests pin it so their output does
/// not age), else the system clock.
fn now_seconds() -> Option<i64> {
    if let Some(s) = std::env::var_os("SSTABLE_INSPECT_NOW_SECONDS") {
        return s.to_str().and_then(|s| s.parse().ok());
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .ok()
}

fn write_partition(
    out: &mut impl Write,
    p: &PartitionJson,
    a: &Args,
    first_json: &mut bool,
    table: Option<&sstable_engine::cql_schema::CqlTable>,
    schema: &DataSchema,
) {
    if a.json {
        let sep = if *first_json { "" } else { ",\n" };
        *first_json = false;
        let _ = write!(
            out,
            "{sep}{}",
            serde_json::to_string_pretty(p).unwrap_or_default()
        );
        return;
    }
    if a.jsonl {
        let _ = writeln!(out, "{}", serde_json::to_string(p).unwrap_or_default());
        return;
    }
    let key_names: Vec<String> = match table {
        Some(t) => t.partition_key.clone(),
        None => (0..p.partition.key.len())
            .map(|i| format!("key{i}"))
            .collect(),
    };
    let key = key_names
        .iter()
        .zip(&p.partition.key)
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "partition {key} (0x{}) at {}",
        p.partition.key_hex, p.partition.position
    );
    if let Some(d) = &p.partition.deletion_info {
        let _ = writeln!(
            out,
            "  partition deletion: marked {} local {}",
            d.marked_deleted, d.local_delete_time
        );
    }
    let ck_names: Vec<String> = match table {
        Some(t) => t.clustering.clone(),
        None => (0..schema.clustering_types.len())
            .map(|i| format!("ck{i}"))
            .collect(),
    };
    for r in &p.rows {
        let clustering = ck_names
            .iter()
            .zip(&r.clustering)
            .map(|(n, v)| format!("{n}={}", v.as_deref().unwrap_or("null")))
            .collect::<Vec<_>>()
            .join(", ");
        let mut line = format!("  {} at {}", r.r#type, r.position);
        if !clustering.is_empty() {
            line.push_str(&format!(" [{clustering}]"));
        }
        if let Some(l) = &r.liveness_info {
            line.push_str(&format!(" ts={}", l.tstamp));
            if let Some(ttl) = l.ttl {
                line.push_str(&format!(" ttl={ttl}"));
            }
        }
        if let Some(d) = &r.deletion_info {
            line.push_str(&format!(" DELETED at {}", d.marked_deleted));
        }
        for (side, b) in [("start", &r.start), ("end", &r.end)] {
            if let Some(b) = b {
                let values = b
                    .clustering
                    .iter()
                    .map(|v| v.clone().unwrap_or_else(|| "null".into()))
                    .collect::<Vec<_>>();
                line.push_str(&format!(
                    " {side} {} [{}] deleted {}",
                    b.r#type,
                    values.join(", "),
                    b.deletion_info.marked_deleted
                ));
            }
        }
        let _ = writeln!(out, "{line}");
        for c in &r.cells {
            let path = c
                .path
                .as_ref()
                .map(|p| format!("[{}]", p.join(", ")))
                .unwrap_or_default();
            let value = match (&c.value, &c.deletion_info) {
                (_, Some(d)) => format!(" = <tombstone, deleted {}>", d.local_delete_time),
                (Some(v), None) => format!(" = {v}"),
                (None, None) => String::new(),
            };
            let mut line = format!("    {}{path}{value}", c.name);
            if let Some(ttl) = c.ttl {
                line.push_str(&format!(
                    " (ttl {ttl}, expires {})",
                    c.expires_at.as_deref().unwrap_or("?")
                ));
            }
            if c.expired == Some(true) {
                line.push_str(" EXPIRED");
            }
            if let Some(n) = &c.value_note {
                line.push_str(&format!(" [{n}]"));
            }
            let _ = writeln!(out, "{line}");
        }
        for f in &r.findings {
            let _ = writeln!(out, "    finding: {f}");
        }
    }
    for f in &p.partition.findings {
        let _ = writeln!(out, "  finding: {f}");
    }
}
