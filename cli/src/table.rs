//! `sstable-inspect table`: the SSTables of one table directory side by side
//! (`sstable_engine::analytics::table`): [min, max] timestamps and local deletion times, token
//! ranges and overlaps, level, repairedAt, pending repair, origin, and the fully expired SSTables
//! with their blockers (`sstableexpiredblockers`). Reads metadata only. `--json` prints one
//! `TableReport`. Exit status: 0 clean, 1 when any SSTable's metadata could not be read, 2 on bad
//! usage.

use std::fmt::Write as _;

use sstable_engine::analytics::{table_report, TableReport};
use sstable_engine::datetime::{iso8601_micros, iso8601_secs};

use crate::files;
use crate::Outcome;

/// Cassandra's default `gc_grace_seconds` (10 days).
const DEFAULT_GC_GRACE_SECS: i64 = 864_000;

/// `sstable-inspect table DIR... [--gc-grace SECS] [--now SECS] [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The table's directory (or its SSTables' files)
    #[arg(required = true, value_name = "DIR")]
    paths: Vec<String>,
    /// The table's gc_grace_seconds
    #[arg(long = "gc-grace", value_name = "SECS", default_value_t = DEFAULT_GC_GRACE_SECS)]
    gc_grace: i64,
    /// "Now", seconds since the epoch (default: the newest finite maxLocalDeletionTime)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<Outcome, String> {
    let gc_grace = a.gc_grace;
    let now = a.now;
    let paths: Vec<&str> = a.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    let mut errors = false;
    let mut loaded = Vec::new();
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        errors |= crate::output::print_errors(io_errors);
        for e in &metadata.errors {
            eprintln!("error: {}: {e}", sstable.prefix);
            errors = true;
        }
        loaded.push((sstable.prefix.clone(), metadata));
    }
    let refs: Vec<(String, &sstable_engine::info::SSTableMetadata)> =
        loaded.iter().map(|(n, m)| (n.clone(), m)).collect();
    let report = table_report(&refs, gc_grace, now);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", human(&report));
    }
    Ok(if errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

fn human(r: &TableReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} SSTables; now {} ({}) [{:?}], gc_grace {} s, gcBefore {}",
        r.sstables.len(),
        iso8601_secs(r.now_secs),
        r.now_secs,
        r.now_source,
        r.gc_grace_secs,
        iso8601_secs(r.gc_before_secs)
    );
    let opt = |v: Option<i64>, f: fn(i64) -> String| v.map(f).unwrap_or_else(|| "-".to_owned());
    for s in &r.sstables {
        let _ = writeln!(o, "{}", s.sstable);
        let _ = writeln!(
            o,
            "  timestamps {} … {}",
            opt(s.min_timestamp_micros, iso8601_micros),
            opt(s.max_timestamp_micros, iso8601_micros)
        );
        let _ = writeln!(
            o,
            "  local deletion times {} … {}",
            opt(s.min_local_deletion_time_secs, iso8601_secs),
            s.max_local_deletion_time_secs
                .map(iso8601_secs)
                .unwrap_or_else(|| "none (live data that never expires)".to_owned())
        );
        let _ = writeln!(
            o,
            "  tokens {} … {}",
            s.first_token
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_else(|| "-".into()),
            s.last_token
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_else(|| "-".into())
        );
        let _ = writeln!(
            o,
            "  level {}  repairedAt {}  pending repair {}  origin {}",
            s.level.map(|l| l.to_string()).unwrap_or_else(|| "-".into()),
            s.repaired_at_millis
                .map(|l| l.to_string())
                .unwrap_or_else(|| "-".into()),
            s.pending_repair.as_deref().unwrap_or("-"),
            s.originating_host_id.as_deref().unwrap_or("-")
        );
        if s.fully_expired {
            let _ = writeln!(o, "  FULLY EXPIRED: compaction can drop it whole");
        }
        if !s.blocked_by.is_empty() {
            let names: Vec<String> = s
                .blocked_by
                .iter()
                .map(|b| {
                    format!(
                        "{}{}",
                        b.sstable,
                        if b.overlaps {
                            ""
                        } else {
                            " (token ranges do not overlap)"
                        }
                    )
                })
                .collect();
            let _ = writeln!(o, "  expired but blocked by: {}", names.join(", "));
        }
    }
    if !r.overlaps.is_empty() {
        let _ = writeln!(o, "token range overlaps:");
        for ov in &r.overlaps {
            let _ = writeln!(o, "  {} ↔ {}", ov.a, ov.b);
        }
    }
    o
}
