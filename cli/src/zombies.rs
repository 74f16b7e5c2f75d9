//! `sstable-inspect zombies`: resurrection risks of one table (`sstable_engine::merge::zombies`)
//! — every tombstone droppable at (now, gc_grace) that shadows live data in another SSTable,
//! with both SSTables, the key, the clustering, both timestamps and whether the two meet in
//! compaction (levels, token ranges, the purge evaluator's timestamp check), and the droppable
//! tombstones that shadow nothing (garbage). The SSTables are merged partition by partition;
//! memory stays bounded by the partitions being merged. Exit 0 when the scan ran (findings or
//! not), 1 on an error.

use std::io::Write;

use serde_json::{json, Value};
use sstable_engine::analytics::table_report;
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::datetime::{iso8601_micros, iso8601_secs};
use sstable_engine::merge::zombies::{DroppableTombstone, ZombieFinder, ZombieTombstoneKind};
use sstable_engine::merge::MergeOptions;

use crate::now::now_seconds;
use crate::progress;
use crate::read::{open_table, OpenTable};
use crate::Outcome;

/// `sstable-inspect zombies DIR --gc-grace S [--now T] [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table's SSTables: component files or directories (one table; 2.x ones need
    /// `--schema`)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// The table's gc_grace_seconds: a tombstone is droppable when its local deletion time is
    /// before now − this
    #[arg(long = "gc-grace", value_name = "SECS")]
    gc_grace: i64,
    /// "Now", seconds since the epoch (default: the clock)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
    /// One JSON object: gc_before, the SSTables, the resurrections and the garbage
    #[arg(long)]
    json: bool,
    /// The table's CREATE TABLE statement (a .cql file), for 2.x SSTables (jb, ka, la), which
    /// record no schema (default: the schema.cql beside the SSTables, if any)
    #[arg(long, value_name = "FILE.cql")]
    schema: Option<String>,
}

fn tombstone_json(t: &DroppableTombstone, names: &[String]) -> Value {
    json!({
        "sstable": names.get(t.sstable),
        "kind": t.kind,
        "static": t.is_static,
        "clustering": t.clustering,
        "range_end": t.range_end,
        "range_inclusive": t.range_inclusive,
        "column": t.column,
        "path": t.path_hex,
        "marked_for_delete_at": t.marked_for_delete_at_micros,
        "marked_for_delete_at_iso": iso8601_micros(t.marked_for_delete_at_micros),
        "local_deletion_time": t.local_deletion_time_secs,
        "local_deletion_time_iso": iso8601_secs(t.local_deletion_time_secs),
    })
}

fn describe(t: &DroppableTombstone) -> String {
    let mut s = format!("{:?}", t.kind);
    if t.is_static {
        s.push_str(" static");
    }
    if !t.clustering.is_empty() {
        s.push_str(&format!(" at ({})", t.clustering.join(", ")));
    }
    if let Some(end) = &t.range_end {
        s.push_str(&format!("..({})", end.join(", ")));
    }
    if let Some(c) = &t.column {
        s.push_str(&format!(" column {c}"));
    }
    if let Some(p) = &t.path_hex {
        s.push_str(&format!(" path 0x{p}"));
    }
    // An expired cell or liveness: its timestamp, and when its TTL ran out.
    let (stamp, when) = match t.kind {
        ZombieTombstoneKind::ExpiredCell | ZombieTombstoneKind::ExpiredLiveness => {
            ("timestamp", "expired")
        }
        _ => ("markedForDeleteAt", "deleted"),
    };
    format!(
        "{s}, {stamp} {}, {when} {}",
        t.marked_for_delete_at_micros,
        iso8601_secs(t.local_deletion_time_secs)
    )
}

pub fn run(a: Args) -> Result<Outcome, String> {
    if a.json {
        progress::disable();
    }
    let Some(now) = a.now.or_else(now_seconds) else {
        return Err("no clock: give --now".to_owned());
    };
    let options = DecodeOptions::at(now);
    let merge_options = MergeOptions {
        now_seconds: Some(now),
        explain: false,
    };
    let OpenTable {
        merger,
        names,
        metadata,
        ..
    } = match open_table(&a.paths, a.schema.as_deref(), options, merge_options) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let described: Vec<(String, &sstable_engine::info::SSTableMetadata)> =
        names.iter().cloned().zip(metadata.iter()).collect();
    let placements = table_report(&described, a.gc_grace, Some(now)).sstables;
    let mut finder = ZombieFinder::new(merger, placements, now, a.gc_grace);
    let mut out = std::io::BufWriter::new(crate::output::stdout());
    let (mut resurrections, mut garbage) = (Vec::new(), Vec::new());
    let (mut resurrection_count, mut garbage_count) = (0usize, 0usize);
    let (mut partitions, mut outcome) = (0u64, Outcome::Clean);
    loop {
        let p = match finder.next_partition(&NoClock) {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(e) => {
                eprintln!("error: {e}");
                outcome = Outcome::Errors;
                break;
            }
        };
        partitions = partitions.saturating_add(1);
        let key = json!({"key": p.key_text, "key_hex": sstable_engine::span::hex(&p.key)});
        resurrection_count = resurrection_count.saturating_add(p.resurrections.len());
        garbage_count = garbage_count.saturating_add(p.garbage.len());
        for r in &p.resurrections {
            if !a.json {
                let _ = writeln!(
                    out,
                    "resurrection: key {}: {} in {} shadows {} piece(s) of {} in {} (newest {}); \
                     token ranges intersect: {}, levels {:?}/{:?}, the purge evaluator keeps the tombstone while both are live: {}",
                    p.key_text,
                    describe(&r.tombstone),
                    names.get(r.tombstone.sstable).map_or("?", String::as_str),
                    r.shadowed_pieces,
                    if r.shadowed_is_static {
                        "the static row".to_owned()
                    } else {
                        format!("row ({})", r.shadowed_clustering.join(", "))
                    },
                    names.get(r.shadowed_sstable).map_or("?", String::as_str),
                    r.shadowed_timestamp_micros,
                    r.compaction
                        .token_ranges_intersect
                        .map_or("unknown".to_owned(), |b| b.to_string()),
                    r.compaction.tombstone_level,
                    r.compaction.shadowed_level,
                    r.compaction.purge_evaluator_keeps_tombstone,
                );
            }
            if !a.json {
                continue;
            }
            resurrections.push(json!({
                "partition": key,
                "tombstone": tombstone_json(&r.tombstone, &names),
                "shadowed": {
                    "sstable": names.get(r.shadowed_sstable),
                    "static": r.shadowed_is_static,
                    "clustering": r.shadowed_clustering,
                    "timestamp": r.shadowed_timestamp_micros,
                    "timestamp_iso": iso8601_micros(r.shadowed_timestamp_micros),
                    "pieces": r.shadowed_pieces,
                },
                "compaction": r.compaction,
            }));
        }
        for t in &p.garbage {
            if !a.json {
                let _ = writeln!(
                    out,
                    "garbage: key {}: {} in {} shadows nothing",
                    p.key_text,
                    describe(t),
                    names.get(t.sstable).map_or("?", String::as_str)
                );
            }
            if a.json {
                garbage.push(json!({"partition": key, "tombstone": tombstone_json(t, &names)}));
            }
        }
    }
    if a.json {
        let report = json!({
            "now": now,
            "gc_grace_seconds": a.gc_grace,
            "gc_before": finder.gc_before_secs(),
            "sstables": names,
            "partitions": partitions,
            "complete": matches!(outcome, Outcome::Clean),
            "resurrections": resurrections,
            "garbage": garbage,
        });
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        let _ = writeln!(out, "{text}");
    } else {
        let _ = writeln!(
            out,
            "{} SSTables, {partitions} partitions at now {now} (gc_before {}): {} resurrection risk(s), {} droppable tombstone(s) that shadow nothing{}",
            names.len(),
            finder.gc_before_secs(),
            resurrection_count,
            garbage_count,
            if matches!(outcome, Outcome::Clean) { "" } else { " (scan stopped by an error)" }
        );
    }
    let _ = out.flush();
    Ok(outcome)
}
