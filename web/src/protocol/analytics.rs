//! What the Analytics tab's scan answers ([`crate::protocol::Reply::Analytics`]): a few hundred
//! numbers, whatever the file's size.

use serde::{Deserialize, Serialize};

/// The largest partitions listed.
pub const TOP_PARTITIONS: usize = 10;

/// One of the largest partitions, as the table shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopPartition {
    pub key: String,
    pub token: String,
    pub bytes: u64,
    pub rows: u64,
    pub cells: u64,
    pub tombstones: u64,
    pub ttl_cells: u64,
}

/// A bucket of the "what becomes droppable or expires" timeline
/// (`sstable_engine::analytics::TimelineBucket`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineBar {
    pub from_secs: i64,
    pub to_secs: i64,
    pub tombstones_droppable: u64,
    pub ttl_cells_expiring: u64,
}

/// The tombstone report at one gc grace (`sstable_engine::analytics::TombstonesReport`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TombstoneFigures {
    pub gc_grace_secs: i64,
    pub now_secs: i64,
    /// Where "now" came from (`NowSource`, as `{:?}` prints it).
    pub now_source: String,
    pub gc_before_secs: i64,
    pub total: u64,
    pub droppable: u64,
    pub invalid_local_deletion_time: u64,
    pub ttl_total: u64,
    pub ttl_expired: u64,
    /// Statistics.db's estimated droppable ratio and the one counted here (when it has STATS).
    pub estimated_droppable_ratio: Option<f64>,
    pub counted_droppable_ratio: Option<f64>,
    pub timeline: Vec<TimelineBar>,
}

/// What a scan answers: the partitions summary, the largest partitions, the tombstone report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalyticsScan {
    pub partitions: u64,
    pub rows: u64,
    pub cells: u64,
    pub tombstones: u64,
    /// Tombstones by kind: partition, row, range, complex, cell.
    pub tombstones_by_kind: [u64; 5],
    pub ttl_cells: u64,
    /// `(bucket upper bound in bytes, partitions)`, the non-empty buckets.
    pub size_histogram: Vec<(u64, u64)>,
    pub top: Vec<TopPartition>,
    pub tombstone_report: TombstoneFigures,
    /// Data.db bytes read, and the scan's time in the worker (the time of the pass that made
    /// it, when the report came from the worker's kept scan).
    pub bytes_read: u64,
    pub millis: f64,
    /// Answered from the scan the worker kept (a new gc grace), without reading Data.db.
    pub reused: bool,
}
