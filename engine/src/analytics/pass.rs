//! The Analytics pass: [`PartitionScan`] (with a [`PartitionsCollector`] of the top partitions by
//! size) and [`TombstoneScan`] fed side by side by one borrowing pass over Data.db, as
//! `sstable-inspect partitions` and `tombstones` count. A pass covers the whole data or one
//! range of a split scan ([`super::split`]); what a range gives ([`RangeFigures`]) crosses a
//! worker boundary as it is (serde), and [`merge_in_order`] merges the ranges in file order,
//! seams checked ([`InOrder`]), into the sequential pass's figures exactly.
//!
//! Memory: one partition's counters, the top partitions, one count per distinct second of
//! deletion or expiry time; a range's figures are the same size.
//!
//! Src: `tools/SSTablePartitions.java`, `tools/SSTableMetadataViewer.java` (droppable
//! tombstones), `db/compaction/CompactionManager.java` (parallel scans over disjoint ranges).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::{Deserialize, Serialize};

use super::partitions::{PartitionColumn, PartitionFilter, PartitionScan, PartitionsCollector};
use super::split::{After, InOrder, RangeEnd, ScanRange};
use super::tombstones::TombstoneScan;
use crate::clock::Clock;
use crate::component::data::{
    CellView, ColumnSchema, ComplexColumnHead, DataFileReader, DataVisitor, PartitionEnd,
    PartitionStart, RangeTombstoneMarker, RowEnd, RowView, VisitStep,
};
use crate::metadata::SSTableMetadata;
use crate::range::{RangeSource, SyncDriver};
use crate::types::AbstractType;

/// Both scans fed by one borrowing pass, and the collector of the finished partitions.
#[derive(Debug, Clone)]
pub struct AnalyticsPass {
    partitions: PartitionScan,
    tombstones: TombstoneScan,
    collector: PartitionsCollector,
}

impl AnalyticsPass {
    /// A pass over `metadata`'s Data.db (partition keys of `key_type`) keeping the `top`
    /// largest partitions; TTL cells are classified at [`super::default_now`].
    pub fn new(metadata: &SSTableMetadata, key_type: AbstractType, top: usize) -> Self {
        let (now, _) = super::default_now(metadata);
        AnalyticsPass {
            partitions: PartitionScan::new(key_type, metadata.partitioner(), now),
            tombstones: TombstoneScan::new(),
            collector: PartitionsCollector::new(
                PartitionFilter::default(),
                Some((top, PartitionColumn::Bytes)),
            ),
        }
    }

    /// After each visited item: a finished partition goes to the collector.
    pub fn after_step(&mut self) {
        if let Some((key, p)) = self.partitions.take_finished() {
            self.collector.add(&key, p);
        }
    }

    /// What the pass counted.
    pub fn finish(mut self) -> PassFigures {
        self.after_step();
        PassFigures {
            collector: self.collector,
            tombstones: self.tombstones,
        }
    }
}

impl DataVisitor for AnalyticsPass {
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

/// What a pass counted: the partitions collector and the tombstone scan.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PassFigures {
    pub collector: PartitionsCollector,
    pub tombstones: TombstoneScan,
}

impl PassFigures {
    /// Adds the figures of the range that follows in the file.
    pub fn merge(&mut self, next: PassFigures) {
        self.collector.merge(next.collector);
        self.tombstones.merge(next.tombstones);
    }
}

/// What one range's pass gave, and where it stopped.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RangeFigures {
    /// `None` when the range could not be started (`error` says why).
    pub figures: Option<PassFigures>,
    /// The error that stopped the range (a sequential pass stops at the same one).
    pub error: Option<String>,
    /// Uncompressed position the range stopped at.
    pub stopped_at: u64,
    /// The reading it ended with ([`RangeEnd::frozen_udts`]).
    pub frozen_udts: bool,
    /// Data.db bytes read (a chunk on a seam is read by both ranges).
    pub bytes_read: u64,
}

impl RangeEnd for RangeFigures {
    fn stopped_at(&self) -> u64 {
        self.stopped_at
    }

    fn frozen_udts(&self) -> bool {
        self.frozen_udts
    }

    fn failed(&self) -> bool {
        self.error.is_some() || self.figures.is_none()
    }
}

/// The ranges merged in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The figures of the ranges that held (`None` when none was handed over).
    pub figures: Option<PassFigures>,
    /// The first error in file order.
    pub error: Option<String>,
    /// Where the rest must be scanned from, as one range to the end, and with which reading
    /// (a seam that failed, or a range whose result is missing).
    pub rest: Option<(u64, bool)>,
    /// Data.db bytes the merged ranges read.
    pub bytes_read: u64,
}

/// Merges `results` (`(range index, figures)`, any order) of a scan split into `ranges`, in file
/// order, every seam checked: the result is the sequential pass's, or says from where the rest
/// must be scanned ([`Merged::rest`]; merge that scan's figures after).
pub fn merge_in_order(
    ranges: &[ScanRange],
    results: impl IntoIterator<Item = (usize, RangeFigures)>,
) -> Merged {
    let mut order = InOrder::new(ranges.to_vec());
    for (i, r) in results {
        order.insert(i, r);
    }
    let mut merged = Merged {
        figures: None,
        error: None,
        rest: None,
        bytes_read: 0,
    };
    while let Some((r, after)) = order.pop() {
        merged.bytes_read = merged.bytes_read.saturating_add(r.bytes_read);
        if let Some(f) = r.figures {
            match &mut merged.figures {
                Some(m) => m.merge(f),
                None => merged.figures = Some(f),
            }
        }
        match after {
            After::Next => {}
            After::Rest { start, frozen_udts } => merged.rest = Some((start, frozen_udts)),
            After::End => {
                merged.error = r.error.or_else(|| {
                    merged
                        .figures
                        .is_none()
                        .then(|| "the range could not be started".to_owned())
                });
                // A failure: the figures before it are not the sequential pass's answer.
                if merged.error.is_some() {
                    merged.figures = None;
                }
            }
        }
    }
    if !order.is_over() {
        // A missing result: the seam before it held, so the rest starts at its start.
        merged.rest = ranges
            .get(order.handed())
            .map(|r| (r.start, false))
            .or(merged.rest);
    }
    merged
}

/// One range's pass, synchronously through `driver` (the engine's tests; a front end with an
/// event loop runs the same steps in slices).
pub fn scan_range<S: RangeSource>(
    metadata: &SSTableMetadata,
    driver: &mut SyncDriver<S>,
    range: ScanRange,
    frozen_udts: bool,
    top: usize,
    clock: &dyn Clock,
) -> RangeFigures {
    let before = driver.stats().bytes;
    let started = super::data_reader(metadata).and_then(|(mut reader, key_type)| {
        reader.scan_range(range, frozen_udts)?;
        Ok((reader, key_type))
    });
    let (mut reader, key_type): (DataFileReader, AbstractType) = match started {
        Ok(s) => s,
        Err(e) => {
            return RangeFigures {
                figures: None,
                error: Some(e.to_string()),
                stopped_at: range.start,
                frozen_udts,
                bytes_read: 0,
            }
        }
    };
    let mut pass = AnalyticsPass::new(metadata, key_type, top);
    let mut error = None;
    loop {
        match driver.visit_next(&mut reader, &mut pass, clock) {
            Ok(VisitStep::Visited) => pass.after_step(),
            Ok(VisitStep::Finished | VisitStep::NeedMoreData) => break,
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    RangeFigures {
        figures: Some(pass.finish()),
        error,
        stopped_at: reader.position(),
        frozen_udts: reader.decoder().reads_bare_udts_as_frozen(),
        bytes_read: driver.stats().bytes.saturating_sub(before),
    }
}
