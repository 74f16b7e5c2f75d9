//! What the Analytics tab's scan answers ([`crate::protocol::Reply::Analytics`]): a few hundred
//! numbers, whatever the file's size; and the steps of a scan split over the worker pool
//! ([`AnalyticsStep`]): a range's figures cross as the engine's `RangeFigures` (its collector's
//! top partitions and one count per distinct deletion or expiry second).

use serde::{Deserialize, Serialize};
use sstable_engine::analytics::{RangeFigures, ScanRange};

use super::wire;

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
    /// Ranges the scan was split into (1: one worker scanned it all).
    pub ranges: u32,
}

/// Which step of the Analytics scan a [`crate::protocol::Request::Analytics`] asks for. With one
/// worker the scan is one step ([`AnalyticsStep::Whole`]); with more, the page asks one worker
/// for the split ([`AnalyticsStep::Plan`]), every worker for ranges ([`AnalyticsStep::Range`]),
/// and one for their merge ([`AnalyticsStep::Combine`]), as Verify splits by chunks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum AnalyticsStep {
    /// The whole scan in this worker (a scan of the same files it kept answers at once).
    Whole,
    /// A kept scan's answer; else Data.db's partition-aligned ranges, at most `ranges`
    /// (`sstable_engine::analytics::split_ranges`), or the whole scan when there is one.
    Plan { ranges: usize },
    /// One range's figures.
    Range { range: ScanRange },
    /// The ranges' figures merged in file order (`sstable_engine::analytics::merge_in_order`,
    /// the rest scanned here past a seam that failed), answered at the gc grace; `millis`: the
    /// time the page saw the ranges take.
    Combine {
        ranges: Vec<ScanRange>,
        parts: Vec<RangePart>,
        millis: f64,
    },
}

/// One range's figures (the engine's `RangeFigures`) as the worker encoded them ([`wire`]): the
/// UI thread hands them from the range's reply to the merge's request as they are, never
/// decoding them (a range's tombstone counts per second can be many).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RangePart(#[serde(with = "wire::handle")] pub wasm_bindgen::JsValue);

impl RangePart {
    /// Encodes `figures` by the protocol's encoding.
    pub fn encode(figures: &RangeFigures) -> Result<Self, String> {
        wire::to_js(figures)
            .map(RangePart)
            .map_err(|e| format!("a range's figures could not be sent: {e}"))
    }

    /// The figures back (in the merging worker).
    pub fn decode(&self) -> Result<RangeFigures, String> {
        wire::from_js(&self.0).map_err(|e| format!("a range's figures could not be read: {e}"))
    }
}

/// What a worker answers to a step ([`crate::protocol::Reply::Analytics`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum AnalyticsAnswer {
    /// The scan's answer (of [`AnalyticsStep::Whole`] or [`AnalyticsStep::Combine`], or of a
    /// plan that needed no split).
    Scan(Box<AnalyticsScan>),
    /// The ranges to scan.
    Plan(Vec<ScanRange>),
    /// One range's figures.
    Range(RangePart),
}
