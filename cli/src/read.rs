//! `sstable-inspect read`: what a read of the whole table returns — the SSTables of one table
//! merged partition by partition (`sstable_engine::merge`), reconciled as Cassandra's read path
//! does, each cell, row marker and tombstone with the SSTable it came from; with `--explain`,
//! each piece that lost and what beat it. sstabledump's JSON shape with `--json` (plus
//! `sstable`, `sstables`, `*_sstable` and `explain` members), text otherwise. Data.db is read
//! chunk by chunk per SSTable; memory stays bounded by the partitions being merged. `--key`
//! starts the merge at the first key asked for (`TableMerger::seek`: each SSTable's read
//! positioned through its index) and reads in token order up to the last one. JSON
//! members come in name order (serde_json's map), not in sstabledump's order. Any mix of 3.0+
//! and 2.x SSTables (`jb`, `ka`, `la`) merges; 2.x ones are read with the table's `CREATE
//! TABLE` (`--schema FILE.cql`, else the schema.cql beside them), as `dump` reads them.

use std::io::Write;

use serde_json::{json, Value};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{ColumnData, DataSchema, DecodeOptions, MarkerDeletion};
use sstable_engine::datetime::{iso8601_micros, iso8601_secs};
use sstable_engine::dump::{PartitionBuilder, PartitionJson};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::{
    Beaten, Loss, MergeOptions, MergedMarker, MergedPartition, MergedRow, MergedUnfiltered, SeekTo,
};

use sstable_native::repair::TableOptions;

use crate::files;
use crate::now::now_seconds;
use crate::progress;
use crate::Outcome;

/// `sstable-inspect read DIR [--key K] [--limit N] [--json] [--explain] [--now S] [--gc-grace S]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table's SSTables: component files or directories (one table; 2.x ones need
    /// `--schema`)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Only this partition key, as cqlsh prints it (`:` between the components of a composite
    /// key) or `0x…` hex; may be given more than once; may begin with `-`
    #[arg(long = "key", value_name = "K", allow_hyphen_values = true)]
    keys: Vec<String>,
    /// At most N merged partitions
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// sstabledump's JSON (one array of partitions) with the SSTable of every part
    #[arg(long)]
    json: bool,
    /// Every cell, liveness or tombstone that lost, and what beat it (newer version, which
    /// tombstone, expired TTL) from which SSTable
    #[arg(long)]
    explain: bool,
    /// "Now", seconds since the epoch, for TTL expiry (default: the clock)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
    /// The table's gc_grace_seconds: every tombstone (partition, row, range bound, cell) gets
    /// `droppable`: its local deletion time is before now − this (Cassandra's default 864000)
    #[arg(long = "gc-grace", value_name = "SECS", default_value_t = 864_000)]
    gc_grace: i64,
    /// The table's CREATE TABLE statement (a .cql file), for 2.x SSTables (jb, ka, la), which
    /// record no schema (default: the schema.cql beside the SSTables, if any)
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<String>,
}

/// One table's SSTables opened for a merge: the merger, each SSTable's name and metadata.
pub(crate) use sstable_native::repair::OpenTable;

/// Finds the SSTables under `paths` (one directory, one table) and opens them for the merge
/// (`sstable_native::repair::open_table`, which has the engine build the inputs); the table's
/// schema (`--schema`, else a schema.cql beside the SSTables) reads its 2.x SSTables.
/// `Err(Ok(outcome))` when an error was already printed.
pub(crate) fn open_table(
    paths: &[String],
    schema: Option<&str>,
    options: DecodeOptions,
    merge_options: MergeOptions,
) -> Result<OpenTable, Result<Outcome, String>> {
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let found = files::find(&paths).map_err(|e| Err(e.to_string()))?;
    if found.grouping.sstables.is_empty() {
        return Err(Err("no SSTable found".to_owned()));
    }
    let directories: std::collections::BTreeSet<&str> = found
        .grouping
        .sstables
        .iter()
        .map(|s| s.directory.as_str())
        .collect();
    if directories.len() > 1 {
        return Err(Err(format!(
            "the SSTables are in {} directories ({}): read merges one table's directory",
            directories.len(),
            directories.into_iter().collect::<Vec<_>>().join(", ")
        )));
    }
    let any_legacy = found
        .grouping
        .sstables
        .iter()
        .any(|s| !s.descriptor.version.has_row_format());
    // `--schema`, else the schema.cql beside the SSTables (a snapshot's): only 2.x needs one.
    let loaded = if schema.is_some() || any_legacy {
        crate::schema::load(&paths, schema).map_err(Err)?.0
    } else {
        None
    };
    let options = TableOptions {
        schema: loaded.as_ref().map(|l| &l.file),
        decode: options,
        merge: merge_options,
        short_names: true,
    };
    sstable_native::repair::open_table(&paths, options).map_err(|e| {
        eprintln!("error: {e}");
        Ok(Outcome::Errors)
    })
}

/// `--key` values: parsed per the table's key type (the schema's for a 2.x first SSTable,
/// which records none; else the first SSTable's header).
pub(crate) fn parse_keys(
    keys: &[String],
    first: &SSTableMetadata,
    merger_schema: &DataSchema,
) -> Result<Vec<Vec<u8>>, String> {
    keys.iter()
        .map(|k| {
            if first.descriptor.version.has_row_format() {
                first.parse_key(k)
            } else {
                sstable_engine::types::value::parse_partition_key(&merger_schema.key_type, k)
                    .map_err(|e| e.to_string())
            }
        })
        .collect::<Result<_, _>>()
        .map_err(|e| format!("bad --key: {e}"))
}

pub fn run(a: Args) -> Result<Outcome, String> {
    if a.json {
        progress::disable();
    }
    let now = a.now.or_else(now_seconds);
    let options = DecodeOptions {
        now_seconds: now,
        ..DecodeOptions::default()
    };
    let merge_options = MergeOptions {
        now_seconds: now,
        explain: a.explain,
    };
    let OpenTable {
        mut merger,
        names,
        metadata,
        partitioner,
    } = match open_table(&a.paths, a.schema.as_deref(), options, merge_options) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let Some(first) = metadata.first() else {
        return Err("no SSTable found".to_owned());
    };
    let wanted = parse_keys(&a.keys, first, merger.schema())?;
    let last_wanted = wanted
        .iter()
        .max_by(|a, b| partitioner.compare_keys(a, b))
        .cloned();
    if let Some(first_wanted) = wanted.iter().min_by(|a, b| partitioner.compare_keys(a, b)) {
        // The merge starts at the first wanted key: each SSTable's read positioned through
        // its index, nothing before the key read or merged.
        let sstables: Vec<&SSTableMetadata> = metadata.iter().collect();
        if let Err(e) = merger.seek(&sstables, SeekTo::Key(first_wanted.clone()), &NoClock) {
            eprintln!("error: {e}");
            return Ok(Outcome::Errors);
        }
    }
    let schema = merger.schema().clone();
    let mut out = std::io::BufWriter::with_capacity(256 << 10, crate::output::stdout());
    if a.json {
        let _ = write!(out, "[");
    }
    let gc_before = now.map(|n| n.saturating_sub(a.gc_grace));
    let mut printed = 0u64;
    let mut outcome = Outcome::Clean;
    loop {
        if a.limit.is_some_and(|l| printed >= l) {
            break;
        }
        let partition = match merger.next_partition(&NoClock) {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(e) => {
                eprintln!("error: {e}");
                outcome = Outcome::Errors;
                break;
            }
        };
        let key = &partition.start.key.bytes.bytes;
        if let Some(last) = &last_wanted {
            // Partitions come in token order: past the last wanted key, none is left to find.
            if partitioner.compare_keys(key, last) == core::cmp::Ordering::Greater {
                break;
            }
        }
        if !wanted.is_empty() && !wanted.contains(key) {
            continue;
        }
        let mut builder = PartitionBuilder::new(now);
        let Some(dump) = partition
            .to_items()
            .iter()
            .find_map(|i| builder.push(&schema, i))
        else {
            continue;
        };
        let value = with_provenance(&schema, &dump, &partition, &names, gc_before, a.explain);
        if a.json {
            let sep = if printed == 0 { "\n" } else { ",\n" };
            let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
            let _ = write!(out, "{sep}{text}");
        } else {
            write_text(&mut out, &value);
        }
        printed = printed.saturating_add(1);
    }
    if a.json {
        let _ = writeln!(out, "\n]");
    }
    let _ = out.flush();
    Ok(outcome)
}

/// Sets `path`'s last member inside the objects `path` names (nothing when one is missing).
fn set(v: &mut Value, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = v;
    for p in parents {
        match cur.get_mut(*p) {
            Some(next) => cur = next,
            None => return,
        }
    }
    if let Some(o) = cur.as_object_mut() {
        o.insert((*last).to_owned(), value);
    }
}

static NULL: Value = Value::Null;

/// The value at `path`, or null.
fn at<'v>(v: &'v Value, path: &[&str]) -> &'v Value {
    path.iter().try_fold(v, |c, p| c.get(*p)).unwrap_or(&NULL)
}

/// A row or marker of the merge, beside its JSON.
enum MergedJson<'a> {
    Row(&'a MergedRow),
    Marker(&'a MergedMarker),
}

fn name(names: &[String], source: usize) -> Value {
    names
        .get(source)
        .map_or(Value::Null, |n| Value::String(n.clone()))
}

fn droppable(d_local_secs: i64, gc_before: Option<i64>) -> Option<bool> {
    gc_before.map(|g| d_local_secs < g)
}

/// The dump's JSON with the SSTable of every part, and the losses when asked.
/// A row's kept complex (collection) deletions: column, time, SSTable.
fn complex_deletions(
    r: &MergedRow,
    schema: &DataSchema,
    names: &[String],
    gc_before: Option<i64>,
) -> Vec<Value> {
    r.complex_deletion_sources
        .iter()
        .filter_map(|(index, source)| {
            let d = r.row.column_data.iter().find_map(|c| match c {
                ColumnData::Complex(c) if c.column_index == *index => c.complex_deletion.as_ref(),
                _ => None,
            })?;
            let column = schema.columns(r.row.is_static).get(*index)?;
            Some(json!({
                "name": column.name,
                "marked_deleted": iso8601_micros(d.marked_for_delete_at_micros),
                "local_delete_time": iso8601_secs(d.local_deletion_time.secs),
                "droppable": droppable(d.local_deletion_time.secs, gc_before),
                "sstable": name(names, *source),
            }))
        })
        .collect()
}

fn with_provenance(
    schema: &DataSchema,
    dump: &PartitionJson,
    p: &MergedPartition,
    names: &[String],
    gc_before: Option<i64>,
    explain: bool,
) -> Value {
    let mut v = serde_json::to_value(dump).unwrap_or(Value::Null);
    set(
        &mut v,
        &["partition", "sstables"],
        Value::Array(p.sources.iter().map(|s| name(names, *s)).collect()),
    );
    if let Some(s) = p.deletion_source {
        set(
            &mut v,
            &["partition", "deletion_info", "sstable"],
            name(names, s),
        );
        if let Some(d) = droppable(p.start.deletion.local_deletion_time.secs, gc_before) {
            set(
                &mut v,
                &["partition", "deletion_info", "droppable"],
                Value::Bool(d),
            );
        }
    }
    let rows = p
        .static_row
        .iter()
        .map(MergedJson::Row)
        .chain(p.unfiltereds.iter().map(|u| match u {
            MergedUnfiltered::Row(r) => MergedJson::Row(r),
            MergedUnfiltered::Marker(m) => MergedJson::Marker(m),
        }));
    if let Some(Value::Array(out_rows)) = v.get_mut("rows") {
        for (json_row, merged) in out_rows.iter_mut().zip(rows) {
            match merged {
                MergedJson::Row(r) => {
                    let complex = complex_deletions(r, schema, names, gc_before);
                    if !complex.is_empty() {
                        set(json_row, &["complex_deletions"], Value::Array(complex));
                    }
                    set(
                        json_row,
                        &["sstables"],
                        Value::Array(r.sources.iter().map(|s| name(names, *s)).collect()),
                    );
                    if let Some(s) = r.liveness_source {
                        set(json_row, &["liveness_info", "sstable"], name(names, s));
                    }
                    if let (Some(s), Some(d)) = (r.deletion_source, &r.row.deletion) {
                        set(json_row, &["deletion_info", "sstable"], name(names, s));
                        if let Some(dr) = droppable(d.time.local_deletion_time.secs, gc_before) {
                            set(json_row, &["deletion_info", "droppable"], Value::Bool(dr));
                        }
                    }
                    if let Some(Value::Array(cells)) = json_row.get_mut("cells") {
                        for ((cell, s), c) in
                            cells.iter_mut().zip(&r.cell_sources).zip(r.row.cells())
                        {
                            set(cell, &["sstable"], name(names, *s));
                            let ldt = c.local_deletion_time.filter(|_| c.is_tombstone());
                            if let Some(d) = ldt.and_then(|l| droppable(l.secs, gc_before)) {
                                set(cell, &["deletion_info", "droppable"], Value::Bool(d));
                            }
                        }
                    }
                }
                MergedJson::Marker(m) => {
                    let (end, start) = match &m.marker.deletion {
                        MarkerDeletion::Bound(d) if m.marker.bound.kind.is_start() => {
                            (None, Some(d))
                        }
                        MarkerDeletion::Bound(d) => (Some(d), None),
                        MarkerDeletion::Boundary { end, start } => (Some(end), Some(start)),
                    };
                    for (side, d) in [("end", end), ("start", start)] {
                        let dropped =
                            d.and_then(|d| droppable(d.local_deletion_time.secs, gc_before));
                        if let Some(dr) = dropped {
                            set(
                                json_row,
                                &[side, "deletion_info", "droppable"],
                                Value::Bool(dr),
                            );
                        }
                    }
                    if let Some(s) = m.start_source {
                        set(json_row, &["start", "sstable"], name(names, s));
                    }
                    if let Some(s) = m.end_source {
                        set(json_row, &["end", "sstable"], name(names, s));
                    }
                }
            }
        }
    }
    if explain {
        set(
            &mut v,
            &["explain"],
            Value::Array(p.losses.iter().map(|l| loss_json(l, names)).collect()),
        );
    }
    v
}

fn loss_json(l: &Loss, names: &[String]) -> Value {
    let beaten_by = match &l.beaten_by {
        Beaten::Newer {
            source,
            timestamp_micros,
        } => {
            json!({"newer": {"sstable": name(names, *source), "tstamp": iso8601_micros(*timestamp_micros)}})
        }
        Beaten::Tombstone {
            kind,
            source,
            marked_for_delete_at_micros,
        } => json!({"tombstone": {
            "kind": format!("{kind:?}"),
            "sstable": name(names, *source),
            "marked_deleted": iso8601_micros(*marked_for_delete_at_micros),
        }}),
        Beaten::Expired { expires_at_secs } => {
            json!({"expired": {"expires_at": iso8601_secs(*expires_at_secs)}})
        }
    };
    json!({
        "lost": format!("{:?}", l.what),
        "sstable": name(names, l.source),
        "static": l.is_static,
        "clustering_hex": l.clustering.iter().map(|c| sstable_engine::span::hex(&c.bytes)).collect::<Vec<_>>(),
        "column": l.column,
        "path_hex": l.path,
        "tstamp": iso8601_micros(l.timestamp_micros),
        "beaten_by": beaten_by,
    })
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// One partition in words: the header, then each row and marker with its cells, each part
/// followed by `[sstable]`; then the losses.
fn write_text(out: &mut impl Write, v: &Value) {
    let h = at(v, &["partition"]);
    let _ = writeln!(
        out,
        "Partition {} (0x{}) in {}",
        text(at(h, &["key"])),
        text(at(h, &["key_hex"])),
        text(at(h, &["sstables"]))
    );
    if at(h, &["deletion_info"]).is_object() {
        let d = at(h, &["deletion_info"]);
        let _ = writeln!(
            out,
            "  partition deletion at {} [{}]",
            text(at(d, &["marked_deleted"])),
            text(at(d, &["sstable"]))
        );
    }
    for r in at(v, &["rows"]).as_array().into_iter().flatten() {
        let kind = text(at(r, &["type"]));
        if kind.starts_with("range_tombstone") {
            for side in ["end", "start"] {
                let b = &r[side];
                if b.is_object() {
                    let _ = writeln!(
                        out,
                        "  range tombstone {side} {} {} deleted at {} [{}]",
                        text(at(b, &["type"])),
                        text(at(b, &["clustering"])),
                        text(at(b, &["deletion_info", "marked_deleted"])),
                        text(at(b, &["sstable"]))
                    );
                }
            }
            continue;
        }
        let _ = writeln!(out, "  {kind} {}", text(at(r, &["clustering"])));
        if at(r, &["liveness_info"]).is_object() {
            let l = at(r, &["liveness_info"]);
            let _ = writeln!(
                out,
                "    liveness {} [{}]",
                text(at(l, &["tstamp"])),
                text(at(l, &["sstable"]))
            );
        }
        if at(r, &["deletion_info"]).is_object() {
            let d = at(r, &["deletion_info"]);
            let _ = writeln!(
                out,
                "    row deletion at {} [{}]",
                text(at(d, &["marked_deleted"])),
                text(at(d, &["sstable"]))
            );
        }
        for c in at(r, &["cells"]).as_array().into_iter().flatten() {
            let path = if at(c, &["path"]).is_array() {
                format!("[{}]", text(at(c, &["path"]).get(0).unwrap_or(&NULL)))
            } else {
                String::new()
            };
            let value = if at(c, &["deletion_info"]).is_object() {
                "<tombstone>".to_owned()
            } else {
                text(at(c, &["value"]))
            };
            let expired = if *at(c, &["expired"]) == Value::Bool(true) {
                " (expired)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "    {}{path} = {value} @ {}{expired} [{}]",
                text(at(c, &["name"])),
                text(at(c, &["tstamp"])),
                text(at(c, &["sstable"]))
            );
        }
    }
    for l in at(v, &["explain"]).as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "  lost: {} {}{} {} @ {} [{}] — beaten by {}",
            text(at(l, &["lost"])),
            text(at(l, &["column"])),
            at(l, &["path_hex"])
                .as_str()
                .map_or_else(String::new, |p| format!("[0x{p}]")),
            text(at(l, &["clustering_hex"])),
            text(at(l, &["tstamp"])),
            text(at(l, &["sstable"])),
            at(l, &["beaten_by"])
        );
    }
}
