//! The Analytics tab's partitions and tombstones scan, run in a worker ([`crate::worker`]): one
//! pass over Data.db through the borrowing decoder, `sstable_engine::analytics`'
//! [`PartitionScan`] and [`TombstoneScan`] side by side (as `sstable-inspect partitions` and
//! `tombstones` count), read by the worker's `RangeSource` through the engine's [`SyncDriver`].
//! Nothing here does I/O or touches the DOM; the UI thread renders the [`AnalyticsScan`] that
//! comes back: a few hundred numbers, whatever the file's size.
//!
//! Memory: one partition's counters, the top partitions, and one count per distinct second of
//! deletion or expiry time ([`TombstoneScan`]). The finished scan is kept by the worker
//! ([`ScanState`]) so a new `gc_grace_seconds` is answered without reading Data.db again.

use serde::{Deserialize, Serialize};
use sstable_engine::analytics::{
    self, PartitionColumn, PartitionFilter, PartitionScan, PartitionStats, PartitionsCollector,
    PartitionsSummary, TombstoneScan,
};
use sstable_engine::component::data::CellView;
use sstable_engine::component::data::{
    ColumnSchema, ComplexColumnHead, DataVisitor, PartitionEnd, PartitionStart,
    RangeTombstoneMarker, RowEnd, RowView, VisitStep,
};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{RangeSource, SyncDriver};

use crate::loader;

/// The largest partitions listed.
pub const TOP_PARTITIONS: usize = 10;
/// Decode at most this long before yielding to the worker's event loop (a cancel can arrive).
const SLICE_MILLIS: f64 = 50.0;
/// Items decoded between two looks at the clock.
const ITEMS_PER_CHECK: u32 = 256;
/// The error of a cancelled scan (the pool's `CANCELLED`).
const CANCELLED: &str = "cancelled";

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

/// A finished pass, as a worker keeps it.
pub struct ScanState {
    top: Vec<PartitionStats>,
    summary: PartitionsSummary,
    tombstones: TombstoneScan,
    bytes_read: u64,
    millis: f64,
}

impl ScanState {
    /// The answer for `sstable` at `gc_grace_secs` ("now": the newest tombstone, as the CLI).
    pub fn answer(
        &self,
        sstable: &str,
        metadata: &SSTableMetadata,
        gc_grace_secs: i64,
        reused: bool,
    ) -> AnalyticsScan {
        let stats = metadata.statistics.as_ref().and_then(|s| s.stats.as_ref());
        let t = self.tombstones.report(sstable, gc_grace_secs, None, stats);
        let s = &self.summary;
        let k = &s.tombstones_by_kind;
        AnalyticsScan {
            partitions: s.partitions,
            rows: s.rows.total,
            cells: s.cells.total,
            tombstones: s.tombstones.total,
            tombstones_by_kind: [k.partition, k.row, k.range, k.complex, k.cell],
            ttl_cells: s.ttl_cells,
            size_histogram: s.size_histogram.clone(),
            top: self
                .top
                .iter()
                .map(|p| TopPartition {
                    key: p.key.clone(),
                    token: p.token.to_string(),
                    bytes: p.bytes,
                    rows: p.rows,
                    cells: p.cells,
                    tombstones: p.tombstones.total(),
                    ttl_cells: p.ttl_cells,
                })
                .collect(),
            tombstone_report: TombstoneFigures {
                gc_grace_secs,
                now_secs: t.now_secs,
                now_source: format!("{:?}", t.now_source),
                gc_before_secs: t.gc_before_secs,
                total: t.tombstones.total,
                droppable: t.tombstones.droppable,
                invalid_local_deletion_time: t.tombstones.invalid_local_deletion_time,
                ttl_total: t.ttl_cells.total,
                ttl_expired: t.ttl_cells.expired,
                estimated_droppable_ratio: t
                    .statistics
                    .as_ref()
                    .map(|s| s.estimated_droppable_ratio),
                counted_droppable_ratio: t.statistics.as_ref().map(|s| s.counted_droppable_ratio),
                timeline: t
                    .timeline
                    .iter()
                    .map(|b| TimelineBar {
                        from_secs: b.from_secs,
                        to_secs: b.to_secs,
                        tombstones_droppable: b.tombstones_droppable,
                        ttl_cells_expiring: b.ttl_cells_expiring,
                    })
                    .collect(),
            },
            bytes_read: self.bytes_read,
            millis: self.millis,
            reused,
        }
    }
}

/// Both scans fed by one borrowing pass.
struct Both {
    partitions: PartitionScan,
    tombstones: TombstoneScan,
}

impl DataVisitor for Both {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.partitions.partition_start(start);
        self.tombstones.partition_start(start);
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        self.partitions.row_start(row);
        self.tombstones.row_start(row);
    }

    fn complex_column_start(&mut self, column: &ColumnSchema, head: &ComplexColumnHead) {
        self.partitions.complex_column_start(column, head);
        self.tombstones.complex_column_start(column, head);
    }

    fn cell(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        self.partitions.cell(column, cell);
        self.tombstones.cell(column, cell);
    }

    fn complex_column_end(&mut self, end: u64) {
        self.partitions.complex_column_end(end);
        self.tombstones.complex_column_end(end);
    }

    fn row_end(&mut self, end: &RowEnd<'_>) {
        self.partitions.row_end(end);
        self.tombstones.row_end(end);
    }

    fn range_tombstone_marker(&mut self, marker: &RangeTombstoneMarker) {
        self.partitions.range_tombstone_marker(marker);
        self.tombstones.range_tombstone_marker(marker);
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        self.partitions.partition_end(end);
        self.tombstones.partition_end(end);
    }
}

/// Scans Data.db of `metadata`'s SSTable from `source`. `progress(read, total)` hears the
/// compressed bytes read after each slice of about [`SLICE_MILLIS`]; between slices the worker
/// yields to its event loop and `is_cancelled` is asked (a cancelled scan is an error).
pub async fn scan<S: RangeSource>(
    metadata: &SSTableMetadata,
    source: S,
    data_bytes: u64,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<ScanState, String> {
    let started = loader::now_millis();
    let clock = loader::PerformanceClock;
    let (mut reader, key_type) = analytics::data_reader(metadata).map_err(|e| e.to_string())?;
    let (now, _) = analytics::default_now(metadata);
    let mut both = Both {
        partitions: PartitionScan::new(key_type, metadata.partitioner(), now),
        tombstones: TombstoneScan::new(),
    };
    let mut collector = PartitionsCollector::new(
        PartitionFilter::default(),
        Some((TOP_PARTITIONS, PartitionColumn::Bytes)),
    );
    let mut driver = SyncDriver::new(source);
    let mut slice_started = started;
    let mut items = 0u32;
    loop {
        items = items.wrapping_add(1);
        if items.is_multiple_of(ITEMS_PER_CHECK)
            && loader::now_millis() - slice_started >= SLICE_MILLIS
        {
            progress(driver.stats().bytes, data_bytes);
            loader::yield_to_event_loop().await;
            if is_cancelled() {
                return Err(CANCELLED.to_owned());
            }
            slice_started = loader::now_millis();
        }
        let step = driver
            .visit_next(&mut reader, &mut both, &clock)
            .map_err(|e| e.to_string())?;
        match step {
            VisitStep::Visited => {
                if let Some((key, p)) = both.partitions.take_finished() {
                    collector.add(&key, p);
                }
            }
            VisitStep::Finished | VisitStep::NeedMoreData => break,
        }
    }
    let bytes_read = driver.stats().bytes;
    progress(bytes_read, data_bytes);
    let (top, summary) = collector.finish();
    Ok(ScanState {
        top,
        summary,
        tombstones: both.tombstones,
        bytes_read,
        millis: loader::now_millis() - started,
    })
}
