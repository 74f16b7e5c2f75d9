//! `sstable-inspect tombstones`: tombstones and TTL cells for a `gc_grace_seconds` and a "now"
//! (`sstable_engine::analytics::tombstones`): droppable now, when the rest become droppable,
//! expired TTL cells and when the others expire (a bucketed timeline), and Statistics.db's
//! estimated droppable ratio beside the counted one. "Now" defaults to the newest tombstone
//! local deletion time seen, and the report says so: never the wall clock. `--json` prints an
//! array of `TombstonesReport`. Exit status: 0 clean, 1 when any SSTable could not be read, 2 on
//! bad usage.

use std::fmt::Write as _;

use sstable_engine::analytics::TombstonesReport;
use sstable_engine::datetime::iso8601_secs;

use crate::files;
use crate::partitions::tombstone_scan;
use crate::Outcome;

/// `sstable-inspect tombstones PATH... --gc-grace SECS [--now SECS] [--json]`
#[derive(clap::Args, Debug)]
pub struct Args {
    /// SSTable component files or directories
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// The table's gc_grace_seconds (Cassandra's default is 864000)
    #[arg(long = "gc-grace", value_name = "SECS", required = true)]
    gc_grace: i64,
    /// "Now", seconds since the epoch (default: the newest tombstone local deletion time seen)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    now: Option<i64>,
    /// Print an array of reports, one per SSTable
    #[arg(long)]
    json: bool,
    /// Threads the scan is split over (default: the cores); the report is the same for any N
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
}

pub fn run(a: Args) -> Result<Outcome, String> {
    let gc_grace = a.gc_grace;
    let now = a.now;
    let jobs = a.jobs.unwrap_or_else(crate::jobs::default_jobs).max(1);
    let paths: Vec<&str> = a.paths.iter().map(String::as_str).collect();
    let found = files::find(&paths)?;
    if found.grouping.sstables.is_empty() {
        return Err("no SSTable found".to_owned());
    }
    let mut errors = false;
    let mut reports = Vec::new();
    for sstable in &found.grouping.sstables {
        let (metadata, io_errors) = files::load_metadata(&found, sstable);
        errors |= crate::output::print_errors(io_errors);
        match tombstone_scan(&found, sstable, &metadata, jobs) {
            Ok(scan) => {
                let stats = metadata.statistics.as_ref().and_then(|s| s.stats.as_ref());
                reports.push(scan.report(&sstable.prefix, gc_grace, now, stats));
            }
            Err(e) => {
                eprintln!("error: {}: {e}", sstable.prefix);
                errors = true;
            }
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
        );
    } else {
        for r in &reports {
            print!("{}", human(r));
        }
    }
    Ok(if errors {
        Outcome::Errors
    } else {
        Outcome::Clean
    })
}

fn when(secs: i64) -> String {
    format!("{} ({secs})", iso8601_secs(secs))
}

fn human(r: &TombstonesReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "SSTable {}", r.sstable);
    let _ = writeln!(
        o,
        "  now {} [{:?}], gc_grace {} s, gcBefore {}",
        when(r.now_secs),
        r.now_source,
        r.gc_grace_secs,
        when(r.gc_before_secs)
    );
    let t = &r.tombstones;
    let _ = writeln!(
        o,
        "  tombstones {}: {} partition, {} row, {} range, {} complex, {} cell",
        t.total,
        t.by_kind.partition,
        t.by_kind.row,
        t.by_kind.range,
        t.by_kind.complex,
        t.by_kind.cell
    );
    let _ = writeln!(
        o,
        "    droppable now {}, not yet {}, invalid local deletion time {}",
        t.droppable, t.not_yet_droppable, t.invalid_local_deletion_time
    );
    if let Some(n) = t.next_droppable_at_secs {
        let _ = writeln!(o, "    next droppable at {}", when(n));
    }
    if let Some(n) = t.all_droppable_at_secs {
        let _ = writeln!(o, "    all droppable at {}", when(n));
    }
    let c = &r.ttl_cells;
    let _ = writeln!(
        o,
        "  TTL cells {}: expired {} (droppable {}), live {}, overflowed expiry {}",
        c.total, c.expired, c.expired_droppable, c.live, c.overflowed_expiration
    );
    if let Some(n) = c.last_expiry_secs {
        let _ = writeln!(o, "    last expiry {}", when(n));
    }
    if let Some(s) = &r.statistics {
        let _ = writeln!(
            o,
            "  droppable ratio: estimated (Statistics.db) {:.4} = {}/{}, counted {:.4} = {}/{}",
            s.estimated_droppable_ratio,
            s.estimated_droppable,
            s.estimated_cells,
            s.counted_droppable_ratio,
            s.counted_droppable,
            s.counted_cells
        );
    }
    if !r.timeline.is_empty() {
        let _ = writeln!(
            o,
            "  timeline (from → to: tombstones becoming droppable, TTL cells expiring):"
        );
        for b in &r.timeline {
            let _ = writeln!(
                o,
                "    {} → {}: {:>8} {:>8}",
                iso8601_secs(b.from_secs),
                iso8601_secs(b.to_secs),
                b.tombstones_droppable,
                b.ttl_cells_expiring
            );
        }
    }
    o
}
