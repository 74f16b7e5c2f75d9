//! `sstable-inspect lookup PATH KEY [--hex] [--json]`: the read path of one partition key through
//! one SSTable — bloom filter, Summary.db / Index.db (big) or Partitions.db / Rows.db (bti), then
//! Data.db — with the byte range and time of every step, and the partition when it is found.
//!
//! KEY is typed as cqlsh prints it and parsed per the SerializationHeader's key type (text for
//! pre-3.0 SSTables, which record none); `--hex` or a `0x` prefix gives the raw key bytes. Each
//! range is read with a positioned read of the component file (never the whole Data.db or
//! Index.db), through the engine's sync driver. Every Data.db byte read is checked: a compressed
//! chunk against its checksum, an uncompressed file's chunk against CRC.db. Exit status: 0 when the key is found or certainly absent (the output says
//! which), 1 when the read path is broken (a component missing, truncated or corrupt, a chunk
//! that fails its checksum: the lookup stops with an error naming the component and offset) or
//! the lookup cannot answer (a key type it cannot order), 2 on bad usage (including a KEY that does not parse).
//!
//! `lookup DIR KEY` on a directory of several SSTables of one table (`--now` for TTLs; 2.x
//! SSTables read with `--schema` or the schema.cql beside them) looks the key up in each, names those that hold it (what `nodetool getsstables` answers),
//! shows each one's partition as its own dump does, and the merged answer
//! (`sstable_engine::merge::merge_versions`, the read path's reconciliation) with the SSTable
//! of every row's cells; exit 1 when an SSTable's read path is broken or the merge fails.
//!
//! Also the CLI's side shared with `index`: loading SSTables ([`load_sstables`]), the clock and
//! key rendering.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{json, Value};
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::lookup::{
    decodes_rows, lookup_with, read_partition_with, CheckedDataReader, LookupResult, LookupStep,
    PartitionRead,
};
use sstable_engine::range::SyncDriver;
use sstable_engine::types::value::{format_value, split_composite_key};
use sstable_engine::types::AbstractType;
use sstable_engine::Error;
use sstable_native::clock::InstantClock;

use crate::files::ComponentFiles;
use crate::{files, Outcome};

/// Every SSTable under `paths`: files and decoded metadata (the small components read whole,
/// Data.db and the indexes only measured).
pub(crate) fn load_sstables(
    paths: &[&str],
) -> Result<Vec<(ComponentFiles, SSTableMetadata)>, String> {
    let found = files::find(paths)?;
    let mut out = Vec::new();
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        if let Some(e) = io_errors.into_iter().next() {
            return Err(e);
        }
        out.push((ComponentFiles::new(&found, sstable), metadata));
    }
    for i in &found.grouping.ignored {
        eprintln!("ignored {}: {}", i.path, i.reason);
    }
    Ok(out)
}

/// A partition key's columns, rendered per the key type (cqlsh style). Without a key type
/// (before 3.0): printable UTF-8 as text, anything else as `0x…` hex.
pub(crate) fn render_key(key_type: Option<&AbstractType>, key: &[u8]) -> Vec<String> {
    match key_type {
        Some(t) => match split_composite_key(t, key) {
            Ok(parts) => parts.into_iter().map(|c| c.value.text).collect(),
            Err(_) => vec![hex(key)],
        },
        None => match std::str::from_utf8(key) {
            Ok(s) if !s.is_empty() && !s.chars().any(char::is_control) => {
                vec![format_value(&AbstractType::Utf8, key).text]
            }
            _ => vec![hex(key)],
        },
    }
}

/// `0x` and the bytes in hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    format!("0x{}", sstable_engine::span::hex(bytes))
}

/// Raw hex digits (an optional `0x` prefix), for `--hex`.
fn parse_hex_key(text: &str) -> Result<Vec<u8>, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if !digits.len().is_multiple_of(2) {
        return Err(format!("KEY `{text}`: an odd number of hex digits"));
    }
    (0..digits.len() / 2)
        .map(|i| {
            digits
                .get(2 * i..2 * i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| format!("KEY `{text}`: not hex"))
        })
        .collect()
}

/// `sstable-inspect lookup PATH KEY [--hex] [--json]`
#[derive(clap::Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct Args {
    /// A component file or an SSTable's directory; a directory of several SSTables (one table)
    /// is looked up in each of them, then their parts merged
    #[arg(value_name = "PATH")]
    path: String,
    /// The partition key as cqlsh prints it (text before 3.0; `:` between the components of a
    /// composite key), or `0x…` hex; a negative number as is (`-5`), other text starting with
    /// `-` after `--`
    #[arg(value_name = "KEY")]
    key: String,
    /// KEY is hex digits (with or without 0x)
    #[arg(long)]
    hex: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// A table lookup's "now", seconds since the epoch, for TTL expiry (default: the clock)
    #[arg(long, value_name = "SECS")]
    now: Option<i64>,
    /// A table lookup's CREATE TABLE statement (a .cql file), for 2.x SSTables (jb, ka, la),
    /// which record no schema (default: the schema.cql beside the SSTables, if any)
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<String>,
}

pub fn run(args: Args) -> Result<Outcome, String> {
    let (path, key_text) = (args.path.as_str(), args.key.as_str());
    let mut sstables = load_sstables(&[path])?;
    if sstables.len() > 1 {
        return table_lookup(&args, sstables);
    }
    let Some((mut files, metadata)) = sstables.pop() else {
        return Err(format!("{path}: no SSTable"));
    };
    let key = if args.hex {
        parse_hex_key(key_text)?
    } else {
        metadata
            .parse_key(key_text)
            .map_err(|e| format!("KEY `{key_text}`: {e}"))?
    };
    let clock = InstantClock::new();
    let result = lookup_with(&metadata, &key, &mut files, &clock);
    let mut errors: Vec<String> = metadata.errors.iter().map(|e| e.to_string()).collect();
    // An error, or a lookup that could not answer (unsupported, unfinished): never "absent".
    if let Some(reason) = result.stopped_at.as_ref().filter(|r| !r.is_absent()) {
        errors.push(reason.describe());
    }
    let partition = match result.partition_position {
        Some(position) if decodes_rows(&metadata.descriptor.version) => {
            match CheckedDataReader::for_sstable(&metadata, DecodeOptions::default()).and_then(
                |mut reader| {
                    let mut driver = SyncDriver::new(&mut files);
                    read_partition_with(&mut reader, position, &mut driver, &clock, |_| {})
                },
            ) {
                Ok(p) => Some(Ok(p)),
                Err(e) => {
                    errors.push(e.to_string());
                    Some(Err(e))
                }
            }
        }
        _ => None,
    };
    let key_type = metadata.key_type();
    let report = report_json(
        &files.prefix,
        key_text,
        &key,
        key_type.as_ref(),
        &result,
        partition.as_ref(),
        &errors,
    );
    let text = if args.json {
        let mut t = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        t.push('\n');
        t
    } else {
        human(&report, &result, partition.as_ref())
    };
    // A closed pipe is not an error of the lookup.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(if errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}

fn step_json(s: &LookupStep) -> Value {
    json!({
        "component": s.component.file_suffix(),
        "offset": s.offset,
        "length": s.length,
        "touched_bytes": s.touched_bytes,
        "nanos": s.nanos,
        "note": s.note,
    })
}

/// The JSON report; its keys are a stable contract (add, never rename).
fn report_json(
    sstable: &str,
    key_text: &str,
    key: &[u8],
    key_type: Option<&AbstractType>,
    r: &LookupResult,
    partition: Option<&Result<PartitionRead, Error>>,
    errors: &[String],
) -> Value {
    let bloom = match &r.bloom {
        Some(b) => json!({
            "filter": true,
            "maybe_present": b.maybe_present,
            "false_negative": b.false_negative,
            "bits": b.bits.iter().map(|bit| json!({
                "index": bit.index,
                "set": bit.set,
                "byte_offset": bit.byte_offset,
            })).collect::<Vec<_>>(),
        }),
        None => json!({"filter": false, "maybe_present": true, "bits": []}),
    };
    let mut steps: Vec<Value> = r.steps.iter().map(step_json).collect();
    let partition_json = match (r.partition_position, &r.partition_start) {
        (Some(position), Some(start)) => {
            let mut p = json!({
                "key": render_key(key_type, &start.key.bytes.bytes),
                "hex": hex(&start.key.bytes.bytes),
                "position": position,
                "deletion": if start.deletion.is_live() { "live" } else { "deleted" },
                "rows": Value::Null,
            });
            if let Some(Ok(read)) = partition {
                steps.extend(read.steps.iter().map(step_json));
                if let Some(fields) = p.as_object_mut() {
                    fields.insert("rows".into(), json!(read.rows));
                    fields.insert("static_row".into(), json!(read.has_static_row));
                    fields.insert(
                        "range_tombstone_markers".into(),
                        json!(read.range_tombstone_markers),
                    );
                    fields.insert("end".into(), json!(read.end.partition_span.end));
                    fields.insert("length".into(), json!(read.end.partition_span.len_bytes()));
                }
            }
            p
        }
        _ => Value::Null,
    };
    json!({
        "sstable": sstable,
        "key": {"text": key_text, "hex": hex(key), "rendered": render_key(key_type, key)},
        "found": r.found,
        "token": r.token.to_string(),
        "bloom": bloom,
        "steps": steps,
        "index_entry": r.index_entry.as_ref().map(|h| json!({
            "component": h.component.file_suffix(),
            "offset": h.offset,
            "scanned_entries": h.scanned_entries,
            "blocks": h.block_count,
        })),
        "partition": partition_json,
        "stopped_at": r.stopped_at.as_ref().map(|s| json!({
            "stage": s.name(),
            "description": s.describe(),
            "detail": serde_json::to_value(s).unwrap_or(Value::Null),
        })),
        "total_nanos": total_nanos(r, partition),
        "errors": errors,
    })
}

/// Every step's time: the lookup's and the partition read's.
fn total_nanos(r: &LookupResult, partition: Option<&Result<PartitionRead, Error>>) -> u64 {
    let rows = match partition {
        Some(Ok(p)) => p.steps.iter().fold(0u64, |a, s| a.saturating_add(s.nanos)),
        _ => 0,
    };
    r.total_nanos().saturating_add(rows)
}

fn millis(nanos: u64) -> String {
    format!("{:.3} ms", nanos as f64 / 1e6)
}

fn human(
    report: &Value,
    r: &LookupResult,
    partition: Option<&Result<PartitionRead, Error>>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "lookup of {} ({}) in {}",
        report
            .pointer("/key/text")
            .and_then(Value::as_str)
            .unwrap_or(""),
        report
            .pointer("/key/hex")
            .and_then(Value::as_str)
            .unwrap_or(""),
        report["sstable"].as_str().unwrap_or("")
    );
    let _ = writeln!(out, "  token {}", r.token);
    match &r.bloom {
        Some(b) => {
            let bits: Vec<String> = b
                .bits
                .iter()
                .map(|bit| format!("{}{}", bit.index, if bit.set { "" } else { " (clear)" }))
                .collect();
            let _ = writeln!(
                out,
                "  bloom filter: {} — bits {}",
                if b.maybe_present {
                    "may be present"
                } else if b.false_negative {
                    "absent, but the index holds the key: Filter.db is corrupt (a false negative)"
                } else {
                    "absent"
                },
                bits.join(", ")
            );
        }
        None => {
            let _ = writeln!(out, "  bloom filter: none");
        }
    }
    let mut steps: Vec<&LookupStep> = r.steps.iter().collect();
    if let Some(Ok(p)) = partition {
        steps.extend(&p.steps);
    }
    for (i, s) in steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>2}. {:<18} [{}, +{}) {:>10}  {}",
            i + 1,
            s.component.file_suffix(),
            s.offset,
            s.length,
            millis(s.nanos),
            s.note
        );
    }
    match (&r.stopped_at, r.partition_position) {
        (None, Some(position)) => {
            let rows = match partition {
                Some(Ok(p)) => format!(
                    ", {} rows{}{}",
                    p.rows,
                    if p.has_static_row {
                        " + static row"
                    } else {
                        ""
                    },
                    if p.range_tombstone_markers > 0 {
                        format!(", {} range tombstone markers", p.range_tombstone_markers)
                    } else {
                        String::new()
                    }
                ),
                Some(Err(e)) => format!(", rows not decoded: {e}"),
                None => ", rows not decoded (pre-3.0 cell layout)".to_owned(),
            };
            let _ = writeln!(
                out,
                "  found: partition {} at Data.db {position}{rows}",
                report.pointer("/partition/key").unwrap_or(&Value::Null)
            );
        }
        (Some(reason), _) => {
            let _ = writeln!(out, "  not found: {}", reason.describe());
        }
        (None, None) => {}
    }
    let _ = writeln!(out, "  total {}", millis(total_nanos(r, partition)));
    if let Some(errors) = report["errors"].as_array() {
        for e in errors {
            let _ = writeln!(out, "  error: {}", e.as_str().unwrap_or(""));
        }
    }
    out
}

/// `lookup DIR KEY` over a whole table: the lookup in every SSTable (those that hold the key
/// are what `nodetool getsstables` answers), each one's partition as its single-SSTable dump
/// shows it, and the merged answer (`merge::merge_versions`, Cassandra's read-path
/// reconciliation) with the SSTable of every part. Each SSTable is read by the engine's merge
/// reader (`merge::inputs::merge_reader`: 3.0+, or 2.x with the schema); JSON members: `sstables`
/// (each `sstable`, `found`, `partition`), `holding`, `merged`, `errors`.
fn table_lookup(
    args: &Args,
    sstables: Vec<(ComponentFiles, SSTableMetadata)>,
) -> Result<Outcome, String> {
    use sstable_engine::component::data::DataSchema;
    use sstable_engine::dump::PartitionBuilder;
    use sstable_engine::merge::{merge_versions, MergeOptions, PartitionVersion};

    use sstable_engine::merge::inputs::{legacy_schema, merge_reader};

    let key_text = args.key.as_str();
    let Some((_, first)) = sstables.first() else {
        return Err("no SSTable".to_owned());
    };
    let any_legacy = sstables
        .iter()
        .any(|(_, m)| !decodes_rows(&m.descriptor.version));
    // 2.x SSTables record no schema: `--schema`, else the schema.cql beside them.
    let loaded = if any_legacy || args.schema.is_some() {
        crate::schema::load(&[args.path.as_str()], args.schema.as_deref())?.0
    } else {
        None
    };
    let legacy = legacy_schema(loaded.as_ref().map(|l| &l.file))
        .map_err(|e| format!("the table's CREATE TABLE: {e}"))?;
    if any_legacy && legacy.is_none() {
        return Err(format!(
            "{}: a table lookup reads its 2.x SSTables with the table's CREATE TABLE, which they \
             do not record: give --schema FILE.cql (or a schema.cql beside them)",
            args.path
        ));
    }
    let key = if args.hex {
        parse_hex_key(key_text)?
    } else {
        match (&legacy, decodes_rows(&first.descriptor.version)) {
            (Some(schema), false) => {
                sstable_engine::types::value::parse_partition_key(&schema.key_type(), key_text)
                    .map_err(|e| e.to_string())
            }
            _ => first.parse_key(key_text),
        }
        .map_err(|e| format!("KEY `{key_text}`: {e}"))?
    };
    let now = args.now.or_else(crate::now::now_seconds);
    let clock = InstantClock::new();
    let mut errors: Vec<String> = Vec::new();
    let mut per_sstable = Vec::new();
    let mut holding = Vec::new();
    let mut schemas: Vec<(
        String,
        DataSchema,
        Vec<sstable_engine::component::data::DataItem>,
    )> = Vec::new();
    for (mut files, metadata) in sstables {
        let name = files
            .prefix
            .rsplit('/')
            .next()
            .unwrap_or(&files.prefix)
            .to_owned();
        errors.extend(metadata.errors.iter().map(|e| format!("{name}: {e}")));
        let result = lookup_with(&metadata, &key, &mut files, &clock);
        if let Some(reason) = result.stopped_at.as_ref().filter(|r| !r.is_absent()) {
            errors.push(format!("{name}: {}", reason.describe()));
        }
        let mut part = Value::Null;
        if let Some(position) = result.partition_position {
            // The engine's reader of this SSTable (3.0+ rows, or 2.x atoms as rows).
            let options = DecodeOptions {
                now_seconds: now,
                ..DecodeOptions::default()
            };
            let read = merge_reader(&metadata, legacy.as_ref(), options)
                .and_then(|mut reader| {
                    let mut driver = SyncDriver::new(&mut files);
                    let items = reader.read_partition_at(position, &mut driver, &clock)?;
                    Ok((reader.schema().clone(), items))
                })
                .map_err(|e| format!("{name}: {e}"));
            match read {
                Ok((schema, items)) => {
                    let mut builder = PartitionBuilder::new(now);
                    if let Some(dump) = items.iter().find_map(|i| builder.push(&schema, i)) {
                        part = serde_json::to_value(&dump).unwrap_or(Value::Null);
                    }
                    holding.push(name.clone());
                    schemas.push((name.clone(), schema, items));
                }
                Err(e) => errors.push(e),
            }
        }
        per_sstable.push(json!({
            "sstable": name,
            "found": result.found,
            "position": result.partition_position,
            "partition": part,
        }));
    }
    let versions = schemas
        .iter()
        .map(|(name, schema, items)| PartitionVersion {
            name: name.clone(),
            schema,
            items: items.clone(),
        })
        .collect();
    let options = MergeOptions {
        now_seconds: now,
        explain: false,
    };
    let merged = match merge_versions(versions, options) {
        Ok(Some(m)) => {
            let mut builder = PartitionBuilder::new(now);
            let dump = schemas.first().and_then(|(_, schema, _)| {
                m.to_items().iter().find_map(|i| builder.push(schema, i))
            });
            let cell_sources: Vec<Value> = m
                .unfiltereds
                .iter()
                .filter_map(|u| match u {
                    sstable_engine::merge::MergedUnfiltered::Row(r) => Some(json!(r
                        .cell_sources
                        .iter()
                        .map(|s| holding.get(*s))
                        .collect::<Vec<_>>())),
                    sstable_engine::merge::MergedUnfiltered::Marker(_) => None,
                })
                .collect();
            let static_sources = m.static_row.as_ref().map(|r| {
                r.cell_sources
                    .iter()
                    .map(|s| holding.get(*s))
                    .collect::<Vec<_>>()
            });
            json!({
                "partition": dump,
                "deletion_sstable": m.deletion_source.and_then(|s| holding.get(s)),
                "static_cell_sstables": static_sources,
                "row_cell_sstables": cell_sources,
            })
        }
        Ok(None) => Value::Null,
        Err(e) => {
            errors.push(e.to_string());
            Value::Null
        }
    };
    let report = json!({
        "key": {"text": key_text, "hex": hex(&key), "rendered": render_key(first_key_type(&schemas).as_ref(), &key)},
        "sstables": per_sstable,
        "holding": holding,
        "merged": merged,
        "errors": errors,
    });
    let text = if args.json {
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n"
    } else {
        let field = |v: &'_ Value, k: &str| v.get(k).cloned().unwrap_or(Value::Null);
        let listed = report
            .get("sstables")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "lookup of {key_text} ({}) in {} SSTables",
            hex(&key),
            listed.len()
        );
        for s in &listed {
            let _ = writeln!(
                out,
                "  {}: {}",
                field(s, "sstable").as_str().unwrap_or(""),
                if field(s, "found").as_bool() == Some(true) {
                    format!(
                        "holds the key at Data.db {}: {}",
                        field(s, "position"),
                        field(s, "partition")
                    )
                } else {
                    "does not hold the key".to_owned()
                }
            );
        }
        let merged = report
            .pointer("/merged/partition")
            .cloned()
            .unwrap_or(Value::Null);
        let _ = writeln!(out, "  merged: {merged}");
        for e in &errors {
            let _ = writeln!(out, "  error: {e}");
        }
        out
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(if errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Errors
    })
}

fn first_key_type(
    schemas: &[(
        String,
        sstable_engine::component::data::DataSchema,
        Vec<sstable_engine::component::data::DataItem>,
    )],
) -> Option<AbstractType> {
    schemas.first().map(|(_, s, _)| s.key_type.clone())
}
