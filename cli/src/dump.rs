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
use crate::Outcome;

struct Args<'a> {
    paths: Vec<&'a str>,
    json: bool,
    jsonl: bool,
    keys: Vec<&'a str>,
    limit: Option<u64>,
    schema: Option<&'a str>,
}

fn parse_args(args: &[String]) -> Result<Args<'_>, String> {
    let mut a = Args {
        paths: Vec::new(),
        json: false,
        jsonl: false,
        keys: Vec::new(),
        limit: None,
        schema: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => a.json = true,
            "--jsonl" => a.jsonl = true,
            "--key" => a.keys.push(it.next().ok_or("--key needs a value")?),
            "--limit" => {
                let n = it.next().ok_or("--limit needs a number")?;
                a.limit = Some(n.parse().map_err(|_| format!("bad --limit `{n}`"))?);
            }
            "--schema" => a.schema = Some(it.next().ok_or("--schema needs a file")?),
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`")),
            s => a.paths.push(s),
        }
    }
    if a.paths.is_empty() {
        return Err("no PATH given".to_owned());
    }
    if a.json && a.jsonl {
        return Err("--json and --jsonl exclude each other".to_owned());
    }
    Ok(a)
}

pub fn run(args: &[String]) -> Result<Outcome, String> {
    let a = parse_args(args)?;
    let found = files::find(&a.paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    let table = match a.schema {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            Some(parse_create_table(&text).map_err(|e| format!("{path}: {e}"))?)
        }
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
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
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .ok();
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

fn write_partition(
    out: &mut impl Write,
    p: &PartitionJson,
    a: &Args<'_>,
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
