//! The Analytics tab's partitions and tombstones scan, run in a worker ([`crate::worker`]): one
//! pass over Data.db through the borrowing decoder, the engine's [`AnalyticsPass`] (partitions
//! and tombstones side by side, as `sstable-inspect partitions` and `tombstones` count), read by
//! the worker's `RangeSource` through the engine's [`SyncDriver`]. Nothing here does I/O or
//! touches the DOM; the UI thread renders the [`AnalyticsScan`] that comes back: a few hundred
//! numbers, whatever the file's size.
//!
//! Split over the pool ([`AnalyticsStep`], `crate::analytics_scan` on the UI side): a plan
//! (the engine's `split_ranges` from the index), one range per job ([`scan_range`], its
//! `RangeFigures` sent back), and a merge in file order with the engine's `merge_in_order`,
//! seams checked; past a seam that did not hold, the merging worker scans the rest itself, so
//! the answer is the one-worker scan's.
//!
//! Memory: one partition's counters, the top partitions, and one count per distinct second of
//! deletion or expiry time ([`TombstoneScan`]). The finished scan is kept by the worker
//! ([`ScanState`]) so a new `gc_grace_seconds` is answered without reading Data.db again.

use sstable_engine::analytics::{
    self, merge_in_order, AnalyticsPass, PartitionColumn, PartitionFilter, PartitionStats,
    PartitionsCollector, PartitionsSummary, RangeFigures, ScanRange, TombstoneScan,
};
use sstable_engine::component::data::VisitStep;
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{RangeSource, SyncDriver};

use std::cell::RefCell;
use std::rc::Rc;

use super::{FileSource, Loaded, ReadAhead};
use crate::loader;
use crate::protocol::analytics::{
    AnalyticsAnswer, AnalyticsScan, AnalyticsStep, RangePart, TimelineBar, TombstoneFigures,
    TopPartition, TOP_PARTITIONS,
};
use crate::protocol::CANCELLED;

/// Decode at most this long before yielding to the worker's event loop (a cancel can arrive).
const SLICE_MILLIS: f64 = 50.0;
/// Items decoded between two looks at the clock.
const ITEMS_PER_CHECK: u32 = 256;

/// A finished pass, as a worker keeps it.
pub struct ScanState {
    top: Vec<PartitionStats>,
    summary: PartitionsSummary,
    tombstones: TombstoneScan,
    bytes_read: u64,
    millis: f64,
    /// Ranges the scan was split into.
    ranges: u32,
}

impl ScanState {
    /// A scan that read `bytes_read` bytes since `started_millis`, its top partitions and summary
    /// from `collector`.
    fn finished(
        collector: PartitionsCollector,
        tombstones: TombstoneScan,
        bytes_read: u64,
        started_millis: f64,
        ranges: usize,
    ) -> Self {
        let (top, summary) = collector.finish();
        Self {
            top,
            summary,
            tombstones,
            bytes_read,
            millis: loader::now_millis() - started_millis,
            ranges: u32::try_from(ranges).unwrap_or(u32::MAX),
        }
    }

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
            ranges: self.ranges,
        }
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
    if !metadata.descriptor.version.has_row_format() {
        return scan_legacy(metadata, source, data_bytes, progress, is_cancelled).await;
    }
    let started = loader::now_millis();
    let whole = analytics::whole_range(metadata).ok_or("no Data.db length")?;
    let r = scan_range(
        metadata,
        source,
        whole,
        false,
        data_bytes,
        progress,
        is_cancelled,
    )
    .await?;
    let figures = r.figures.ok_or("the scan could not start")?;
    if let Some(e) = r.error {
        return Err(e);
    }
    Ok(ScanState::finished(
        figures.collector,
        figures.tombstones,
        r.bytes_read,
        started,
        1,
    ))
}

/// One range of a split scan (or the whole data): the engine's [`AnalyticsPass`] from
/// `range.start` to the first partition at or after `range.end`, in slices as [`scan`]. A decode
/// error ends the range and is in its figures (the merge decides whether it counts); a cancel
/// is an error.
pub async fn scan_range<S: RangeSource>(
    metadata: &SSTableMetadata,
    source: S,
    range: ScanRange,
    frozen_udts: bool,
    data_bytes: u64,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<RangeFigures, String> {
    let clock = loader::PerformanceClock;
    let (mut reader, key_type) = analytics::data_reader(metadata).map_err(|e| e.to_string())?;
    if let Err(e) = reader.scan_range(range, frozen_udts) {
        return Ok(RangeFigures {
            figures: None,
            error: Some(e.to_string()),
            stopped_at: range.start,
            frozen_udts,
            bytes_read: 0,
        });
    }
    let mut pass = AnalyticsPass::new(metadata, key_type, TOP_PARTITIONS);
    let mut driver = SyncDriver::new(source);
    let mut slices = Slices::new(loader::now_millis());
    let mut error = None;
    loop {
        slices
            .tick(driver.stats().bytes, data_bytes, progress, is_cancelled)
            .await?;
        match driver.visit_next(&mut reader, &mut pass, &clock) {
            Ok(VisitStep::Visited) => pass.after_step(),
            Ok(VisitStep::Finished | VisitStep::NeedMoreData) => break,
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    let bytes_read = driver.stats().bytes;
    progress(bytes_read, data_bytes);
    Ok(RangeFigures {
        figures: Some(pass.finish()),
        error,
        stopped_at: reader.position(),
        frozen_udts: reader.decoder().reads_bare_udts_as_frozen(),
        bytes_read,
    })
}

/// [`scan`] of a 2.x (`jb`, `ka`, `la`) SSTable: its atoms through the 2.x decoder, grouped into
/// rows and counted by `analytics::LegacyScan`, in the same slices.
async fn scan_legacy<S: RangeSource>(
    metadata: &SSTableMetadata,
    source: S,
    data_bytes: u64,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<ScanState, String> {
    use sstable_engine::component::legacy_data::LegacyStep;
    let started = loader::now_millis();
    let clock = loader::PerformanceClock;
    let mut reader = analytics::legacy_data_reader(metadata).map_err(|e| e.to_string())?;
    let (now, _) = analytics::default_now(metadata);
    let mut scan = analytics::LegacyScan::new(metadata.partitioner(), now);
    let mut collector = PartitionsCollector::new(
        PartitionFilter::default(),
        Some((TOP_PARTITIONS, PartitionColumn::Bytes)),
    );
    let mut driver = SyncDriver::new(source);
    let mut slices = Slices::new(started);
    loop {
        slices
            .tick(driver.stats().bytes, data_bytes, progress, is_cancelled)
            .await?;
        let done = driver
            .with_next_step(&mut reader, &clock, |step| match step {
                LegacyStep::Item(item) => {
                    if let Some((key, p)) = scan.push(&item) {
                        collector.add(&key, p);
                    }
                    false
                }
                LegacyStep::NeedMoreData | LegacyStep::Finished => true,
            })
            .map_err(|e| e.to_string())?;
        if done {
            break;
        }
    }
    let bytes_read = driver.stats().bytes;
    progress(bytes_read, data_bytes);
    Ok(ScanState::finished(
        collector,
        scan.tombstones,
        bytes_read,
        started,
        1,
    ))
}

/// The slices of a scan: every [`ITEMS_PER_CHECK`] items (or every `every`), once
/// [`SLICE_MILLIS`] have passed, the progress is reported and the worker yields to its event
/// loop, so a cancel can arrive.
pub(super) struct Slices {
    started_millis: f64,
    items: u32,
    every: u32,
}

impl Slices {
    fn new(started_millis: f64) -> Self {
        Self::every(started_millis, ITEMS_PER_CHECK)
    }

    /// Slices that look at the clock every `items` items (e.g. 1 for whole partitions).
    pub(super) fn every(started_millis: f64, items: u32) -> Self {
        Self {
            started_millis,
            items: 0,
            every: items.max(1),
        }
    }

    /// Called once per item: `Err(CANCELLED)` once the job was cancelled.
    pub(super) async fn tick(
        &mut self,
        bytes_read: u64,
        data_bytes: u64,
        progress: &dyn Fn(u64, u64),
        is_cancelled: &dyn Fn() -> bool,
    ) -> Result<(), String> {
        self.items = self.items.wrapping_add(1);
        if self.items.is_multiple_of(self.every)
            && loader::now_millis() - self.started_millis >= SLICE_MILLIS
        {
            progress(bytes_read, data_bytes);
            loader::yield_to_event_loop().await;
            if is_cancelled() {
                return Err(CANCELLED.to_owned());
            }
            self.started_millis = loader::now_millis();
        }
        Ok(())
    }
}

/// A finished analytics scan and the identity of the files it read.
pub(super) type KeptScan = Option<(String, Rc<ScanState>)>;

/// One step of the analytics scan of the SSTable `loaded` ([`AnalyticsStep`]; Data.db read
/// with `FileReaderSync`), answered at `gc_grace_secs`. A finished scan is kept, so the same
/// files at another gc grace are answered without reading Data.db again.
pub(super) async fn run(
    loaded: &Loaded,
    scans: &RefCell<KeptScan>,
    sstable: &str,
    gc_grace_secs: i64,
    step: AnalyticsStep,
    progress: &dyn Fn(u64, u64),
    is_cancelled: &dyn Fn() -> bool,
) -> Result<AnalyticsAnswer, String> {
    let kept = scans
        .borrow()
        .as_ref()
        .filter(|(id, _)| *id == loaded.identity)
        .map(|(_, s)| s.clone());
    let answer = |state: &ScanState, reused: bool| {
        AnalyticsAnswer::Scan(Box::new(state.answer(
            sstable,
            &loaded.metadata,
            gc_grace_secs,
            reused,
        )))
    };
    let data_bytes = loaded
        .handles
        .iter()
        .find(|(c, _)| *c == ComponentType::Data)
        .map(|(_, f)| f.size() as u64)
        .ok_or("no Data.db was given")?;
    let source = || {
        ReadAhead::new(FileSource {
            files: &loaded.handles,
            raw_crc32_millis: None,
        })
    };
    let keep = |state: ScanState| {
        let state = Rc::new(state);
        *scans.borrow_mut() = Some((loaded.identity.clone(), state.clone()));
        answer(&state, false)
    };
    let metadata = &loaded.metadata;
    if let Some(kept) = kept.filter(|_| !matches!(step, AnalyticsStep::Range { .. })) {
        return Ok(answer(&kept, true));
    }
    match step {
        AnalyticsStep::Plan { ranges }
            if ranges > 1 && metadata.descriptor.version.has_row_format() =>
        {
            let mut driver = SyncDriver::new(source());
            let split =
                analytics::split_ranges(metadata, &mut driver, ranges, &loader::PerformanceClock);
            if split.len() > 1 {
                return Ok(AnalyticsAnswer::Plan(split));
            }
            let state = scan(metadata, source(), data_bytes, progress, is_cancelled).await?;
            Ok(keep(state))
        }
        AnalyticsStep::Whole | AnalyticsStep::Plan { .. } => {
            let state = scan(metadata, source(), data_bytes, progress, is_cancelled).await?;
            Ok(keep(state))
        }
        AnalyticsStep::Range { range } => {
            let figures = scan_range(
                metadata,
                source(),
                range,
                false,
                data_bytes,
                progress,
                is_cancelled,
            )
            .await?;
            Ok(AnalyticsAnswer::Range(RangePart::encode(&figures)?))
        }
        AnalyticsStep::Combine {
            ranges,
            parts,
            millis,
        } => {
            let started = loader::now_millis() - millis;
            let parts = parts
                .iter()
                .map(RangePart::decode)
                .collect::<Result<Vec<_>, _>>()?;
            let merged = merge_in_order(&ranges, parts.into_iter().enumerate());
            if let Some(e) = merged.error {
                return Err(e);
            }
            let mut figures = merged.figures;
            let mut bytes_read = merged.bytes_read;
            if let Some((start, frozen_udts)) = merged.rest {
                // A seam that did not hold: the rest as one range, here.
                let end = analytics::data_len_bytes(metadata).ok_or("no Data.db length")?;
                let rest = scan_range(
                    metadata,
                    source(),
                    ScanRange { start, end },
                    frozen_udts,
                    data_bytes,
                    progress,
                    is_cancelled,
                )
                .await?;
                if let Some(e) = rest.error {
                    return Err(e);
                }
                bytes_read = bytes_read.saturating_add(rest.bytes_read);
                match (&mut figures, rest.figures) {
                    (Some(f), Some(r)) => f.merge(r),
                    (None, r) => figures = r,
                    (Some(_), None) => {
                        return Err("the rest of the scan could not start".to_owned())
                    }
                }
            }
            let figures = figures.ok_or("no range was scanned")?;
            Ok(keep(ScanState::finished(
                figures.collector,
                figures.tombstones,
                bytes_read,
                started,
                ranges.len(),
            )))
        }
    }
}
