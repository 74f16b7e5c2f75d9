//! Tombstones and TTLs for a `gc_grace_seconds` and a "now": which tombstones compaction may
//! drop now, when the others become droppable, which TTL cells have expired and when the others
//! expire — counted over Data.db, beside Statistics.db's estimate.
//!
//! Rules (Cassandra 4.x/5.0): a tombstone is droppable when its local deletion time is before
//! `gcBefore = now − gc_grace_seconds` (`DeletionPurger.shouldPurge`, `localDeletionTime <
//! gcBefore`); an expiring cell has expired when `now ≥ localExpirationTime` (`Cell.isLive`) and
//! then, as a tombstone, is droppable once its expiration time is before `gcBefore`. A range
//! tombstone boundary counts once, at the later of its two deletion times.
//!
//! Invalid local deletion times (negative before oa, `0xFFFFFFFE` from oa) are counted as
//! tombstones of their kind but kept out of the droppable figures and the timeline (their time
//! means nothing); an expiring cell whose pre-oa expiry overflowed i32 (CASSANDRA-14092) is
//! counted at the time it was meant to expire, and reported as overflowed.
//!
//! "Now" defaults to the newest valid tombstone local deletion time seen (else Statistics.db's
//! maxTimestamp): never the wall clock. The report says which.
//!
//! Memory: one count per distinct second of deletion or expiry time.
//!
//! Src: `db/DeletionPurger.java`, `db/rows/Cell.java`, `db/compaction/CompactionController.java`,
//! `io/sstable/metadata/StatsMetadata.java` (`getEstimatedDroppableTombstoneRatio`),
//! `utils/streamhist/TombstoneHistogram.java`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::partitions::{expiry_secs, marker_ldt, NowSource, TombstoneCounts};
use crate::component::data::{
    CellKind, CellView, ColumnSchema, ComplexColumnHead, DataItem, DataVisitor, DeletionTime,
    LocalDeletionTime, PartitionStart, RangeTombstoneMarker, Row, RowView,
};
use crate::component::statistics::StatsMetadata;

/// Number of timeline buckets after "now".
pub const TIMELINE_BUCKETS: u64 = 24;

/// Collects every tombstone's local deletion time and every expiring cell's expiry.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct TombstoneScan {
    by_kind: TombstoneCounts,
    /// Valid tombstone local deletion times (s) → count.
    tombstone_ldts: BTreeMap<i64, u64>,
    /// Expiring cell expiry times (s) → count.
    expiries: BTreeMap<i64, u64>,
    invalid: u64,
    overflowed: u64,
    cells: u64,
}

impl TombstoneScan {
    pub fn new() -> Self {
        Self::default()
    }

    fn deletion(&mut self, d: &DeletionTime) {
        let ldt = d.local_deletion_time;
        if ldt.is_invalid() {
            self.invalid = self.invalid.saturating_add(1);
        } else {
            {
                let n = self.tombstone_ldts.entry(ldt.secs).or_default();
                *n = n.saturating_add(1);
            }
        }
    }

    fn row(&mut self, r: &Row) {
        self.row_deletion(r.deletion.as_ref().map(|d| &d.time));
        for c in &r.column_data {
            if let crate::component::data::ColumnData::Complex(c) = c {
                self.complex_deletion(c.complex_deletion.as_ref());
            }
        }
        for cell in r.cells() {
            self.count_cell(cell.kind, cell.local_deletion_time);
        }
    }

    fn row_deletion(&mut self, d: Option<&DeletionTime>) {
        if let Some(d) = d.filter(|d| !d.deletes_nothing()) {
            self.by_kind.row = self.by_kind.row.saturating_add(1);
            self.deletion(d);
        }
    }

    fn complex_deletion(&mut self, d: Option<&DeletionTime>) {
        if let Some(d) = d.filter(|d| !d.deletes_nothing()) {
            self.by_kind.complex = self.by_kind.complex.saturating_add(1);
            self.deletion(d);
        }
    }

    fn count_cell(&mut self, kind: CellKind, ldt: Option<LocalDeletionTime>) {
        self.cells = self.cells.saturating_add(1);
        let Some(ldt) = ldt else {
            return;
        };
        match kind {
            CellKind::Tombstone => {
                self.by_kind.cell = self.by_kind.cell.saturating_add(1);
                if ldt.is_invalid() {
                    self.invalid = self.invalid.saturating_add(1);
                } else {
                    {
                        let n = self.tombstone_ldts.entry(ldt.secs).or_default();
                        *n = n.saturating_add(1);
                    }
                }
            }
            CellKind::Expiring | CellKind::Expired => {
                if ldt.is_invalid() {
                    if ldt.unsigned {
                        self.invalid = self.invalid.saturating_add(1);
                        return;
                    }
                    self.overflowed = self.overflowed.saturating_add(1);
                }
                {
                    let n = self.expiries.entry(expiry_secs(&ldt)).or_default();
                    *n = n.saturating_add(1);
                }
            }
            CellKind::Live => {}
        }
    }

    fn partition(&mut self, p: &PartitionStart) {
        if !p.deletion.is_live() {
            self.by_kind.partition = self.by_kind.partition.saturating_add(1);
            self.deletion(&p.deletion);
        }
    }

    fn marker(&mut self, m: &RangeTombstoneMarker) {
        self.by_kind.range = self.by_kind.range.saturating_add(1);
        let (ldt, invalid) = marker_ldt(&m.deletion);
        if invalid {
            self.invalid = self.invalid.saturating_add(1);
        } else {
            {
                let n = self.tombstone_ldts.entry(ldt.secs).or_default();
                *n = n.saturating_add(1);
            }
        }
    }

    /// A 2.x partition header (its partition deletion).
    pub(crate) fn legacy_partition(&mut self, p: &PartitionStart) {
        self.partition(p);
    }

    /// A 2.x cell atom of `kind` (a deleted cell's local deletion time, an expiring cell's
    /// local expiration time).
    pub(crate) fn legacy_cell(&mut self, kind: CellKind, ldt: Option<LocalDeletionTime>) {
        self.count_cell(kind, ldt);
    }

    /// A 2.x range tombstone atom: one range tombstone, at its deletion's local time.
    pub(crate) fn legacy_range_tombstone(&mut self, d: &DeletionTime) {
        self.by_kind.range = self.by_kind.range.saturating_add(1);
        self.deletion(d);
    }

    /// Adds the scan of the range that follows this one in the file.
    pub fn merge(&mut self, next: TombstoneScan) {
        self.by_kind.add(&next.by_kind);
        for (secs, n) in next.tombstone_ldts {
            let c = self.tombstone_ldts.entry(secs).or_default();
            *c = c.saturating_add(n);
        }
        for (secs, n) in next.expiries {
            let c = self.expiries.entry(secs).or_default();
            *c = c.saturating_add(n);
        }
        self.invalid = self.invalid.saturating_add(next.invalid);
        self.overflowed = self.overflowed.saturating_add(next.overflowed);
        self.cells = self.cells.saturating_add(next.cells);
    }

    /// Feeds one decoded item.
    pub fn push(&mut self, item: &DataItem) {
        match item {
            DataItem::PartitionStart(p) => self.partition(p),
            DataItem::StaticRow(r) | DataItem::Row(r) => self.row(r),
            DataItem::RangeTombstoneMarker(m) => self.marker(m),
            DataItem::PartitionEnd(_) => {}
        }
    }

    /// The newest valid tombstone local deletion time seen.
    pub fn newest_local_deletion_time_secs(&self) -> Option<i64> {
        self.tombstone_ldts.keys().next_back().copied()
    }

    /// The report at `now_secs` (`None`: the newest tombstone ldt, else `stats`' maxTimestamp).
    pub fn report(
        &self,
        sstable: &str,
        gc_grace_secs: i64,
        now_secs: Option<i64>,
        stats: Option<&StatsMetadata>,
    ) -> TombstonesReport {
        let (now, now_source) = match now_secs {
            Some(n) => (n, NowSource::Given),
            None => match self.newest_local_deletion_time_secs() {
                Some(n) => (n, NowSource::NewestLocalDeletionTime),
                None => match stats {
                    Some(s) => (
                        s.max_timestamp_micros.value.div_euclid(1_000_000),
                        NowSource::MaxTimestamp,
                    ),
                    None => (0, NowSource::None),
                },
            },
        };
        let gc_before = now.saturating_sub(gc_grace_secs);
        let sum = |m: &BTreeMap<i64, u64>, range: std::ops::Range<i64>| -> u64 {
            if range.start >= range.end {
                return 0;
            }
            m.range(range).map(|(_, n)| *n).sum()
        };
        let valid_tombstones: u64 = self.tombstone_ldts.values().sum();
        let droppable = sum(&self.tombstone_ldts, i64::MIN..gc_before);
        let ttl_total: u64 = self.expiries.values().sum();
        let expired = sum(&self.expiries, i64::MIN..now.saturating_add(1));
        let expired_droppable = sum(&self.expiries, i64::MIN..gc_before);

        // After now: tombstones become droppable at ldt + gc_grace (the first second with
        // ldt < now' − gc_grace is ldt + gc_grace + 1); TTL cells expire at their expiry.
        let first = now.saturating_add(1);
        let next_drop = self
            .tombstone_ldts
            .range(gc_before..)
            .next()
            .map(|(t, _)| t.saturating_add(gc_grace_secs).saturating_add(1));
        let last_drop = self
            .tombstone_ldts
            .keys()
            .next_back()
            .map(|t| t.saturating_add(gc_grace_secs).saturating_add(1));
        let last_expiry = self.expiries.keys().next_back().copied();
        let last = [last_drop, last_expiry]
            .into_iter()
            .flatten()
            .filter(|t| *t >= first)
            .max();
        let mut timeline = Vec::new();
        if let Some(last) = last {
            let span = last.saturating_sub(first).saturating_add(1).max(1);
            let buckets = TIMELINE_BUCKETS as i64;
            let width = span
                .saturating_add(buckets.saturating_sub(1))
                .checked_div(buckets)
                .unwrap_or(1);
            let mut from = first;
            while from <= last {
                let to = from.saturating_add(width);
                let drop_range = from.saturating_sub(gc_grace_secs).saturating_sub(1)
                    ..to.saturating_sub(gc_grace_secs).saturating_sub(1);
                timeline.push(TimelineBucket {
                    from_secs: from,
                    to_secs: to,
                    tombstones_droppable: sum(&self.tombstone_ldts, drop_range),
                    ttl_cells_expiring: sum(&self.expiries, from..to),
                });
                from = to;
            }
        }
        let statistics = stats.map(|s| {
            estimated(
                s,
                gc_before,
                self.cells,
                droppable.saturating_add(expired_droppable),
            )
        });
        TombstonesReport {
            sstable: sstable.to_owned(),
            now_secs: now,
            now_source,
            gc_grace_secs,
            gc_before_secs: gc_before,
            tombstones: TombstoneFigures {
                total: self.by_kind.total(),
                by_kind: self.by_kind,
                droppable,
                not_yet_droppable: valid_tombstones.saturating_sub(droppable),
                invalid_local_deletion_time: self.invalid,
                next_droppable_at_secs: next_drop,
                all_droppable_at_secs: last_drop.filter(|t| *t > now),
            },
            ttl_cells: TtlFigures {
                total: ttl_total,
                expired,
                live: ttl_total.saturating_sub(expired),
                expired_droppable,
                overflowed_expiration: self.overflowed,
                next_expiry_secs: self.expiries.range(first..).next().map(|(t, _)| *t),
                last_expiry_secs: last_expiry,
            },
            timeline,
            statistics,
        }
    }
}

/// The same counting as [`TombstoneScan::push`], from views (nothing allocated per row or cell).
impl DataVisitor for TombstoneScan {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.partition(start);
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        self.row_deletion(row.deletion.as_ref().map(|d| &d.time));
    }

    fn complex_column_start(&mut self, _column: &ColumnSchema, head: &ComplexColumnHead) {
        self.complex_deletion(head.complex_deletion.as_ref());
    }

    fn cell(&mut self, _column: &ColumnSchema, cell: &CellView<'_>) {
        self.count_cell(cell.kind, cell.local_deletion_time);
    }

    fn range_tombstone_marker(&mut self, marker: &RangeTombstoneMarker) {
        self.marker(marker);
    }
}

fn estimated(s: &StatsMetadata, gc_before: i64, cells: u64, counted: u64) -> DroppableEstimate {
    // StatsMetadata.getEstimatedDroppableTombstoneRatio: the drop-time histogram's sum up to
    // gcBefore over the estimated cell count (mean cells per partition × partitions).
    let histogram = &s.estimated_tombstone_drop_time;
    let before: i64 = histogram
        .bins
        .iter()
        .filter(|b| b.point_secs <= gc_before)
        .map(|b| b.count)
        .sum();
    let per_partition = &s.estimated_cell_per_partition_count;
    let estimated_cells = per_partition
        .mean()
        .unwrap_or(0)
        .saturating_mul(per_partition.total_count());
    DroppableEstimate {
        estimated_droppable: before,
        estimated_cells,
        estimated_droppable_ratio: if estimated_cells > 0 {
            before as f64 / estimated_cells as f64
        } else {
            0.0
        },
        counted_droppable: counted,
        counted_cells: cells,
        counted_droppable_ratio: if cells > 0 {
            counted as f64 / cells as f64
        } else {
            0.0
        },
    }
}

/// Tombstone figures at "now".
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TombstoneFigures {
    pub total: u64,
    pub by_kind: TombstoneCounts,
    /// Valid local deletion time before gcBefore.
    pub droppable: u64,
    pub not_yet_droppable: u64,
    /// Negative (before oa) or `0xFFFFFFFE` (oa) local deletion times: counted in `total`, in
    /// neither `droppable` nor `not_yet_droppable`.
    pub invalid_local_deletion_time: u64,
    /// When the next not-yet-droppable tombstone becomes droppable.
    pub next_droppable_at_secs: Option<i64>,
    /// When the last one does (absent when all are droppable now).
    pub all_droppable_at_secs: Option<i64>,
}

/// Expiring-cell figures at "now".
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TtlFigures {
    pub total: u64,
    pub expired: u64,
    pub live: u64,
    /// Expired before gcBefore: droppable as tombstones.
    pub expired_droppable: u64,
    /// Pre-oa expiries past 2038 that overflowed i32 (counted at their intended time).
    pub overflowed_expiration: u64,
    pub next_expiry_secs: Option<i64>,
    pub last_expiry_secs: Option<i64>,
}

/// What happens in `[from_secs, to_secs)`.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct TimelineBucket {
    pub from_secs: i64,
    pub to_secs: i64,
    pub tombstones_droppable: u64,
    pub ttl_cells_expiring: u64,
}

/// Statistics.db's estimated droppable ratio beside the counted one.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DroppableEstimate {
    /// Tombstone drop-time histogram bins at or before gcBefore.
    pub estimated_droppable: i64,
    /// Mean cells per partition × partitions (Statistics.db).
    pub estimated_cells: i64,
    pub estimated_droppable_ratio: f64,
    /// Droppable tombstones + expired-and-droppable TTL cells, counted.
    pub counted_droppable: u64,
    pub counted_cells: u64,
    pub counted_droppable_ratio: f64,
}

/// One SSTable's tombstones report (the `tombstones --json` element).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TombstonesReport {
    pub sstable: String,
    pub now_secs: i64,
    pub now_source: NowSource,
    pub gc_grace_secs: i64,
    pub gc_before_secs: i64,
    pub tombstones: TombstoneFigures,
    pub ttl_cells: TtlFigures,
    pub timeline: Vec<TimelineBucket>,
    /// `None` without Statistics.db's STATS.
    pub statistics: Option<DroppableEstimate>,
}
