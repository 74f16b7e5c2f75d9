//! The partitions report (Cassandra's `sstablepartitions`): one streamed pass over Data.db gives,
//! per partition, its key, token, position, size, rows, cells, tombstones by kind and TTL cells.
//!
//! Counting rules: `rows` regular rows (not the static row); `cells` every cell (static row and
//! complex elements included, tombstones and expiring cells included); tombstones by kind —
//! `partition` 1 for a deleted partition, `row` rows with a row deletion, `range` range tombstone
//! markers (bounds and boundaries, one each), `complex` complex-column deletions, `cell` cell
//! tombstones; `ttl_cells` expiring cells still live at "now" (`now < localExpirationTime`, as
//! `Cell.isLive`), `expired_ttl_cells` the others. `bytes` is the partition's uncompressed
//! length in Data.db (from its key to its end-of-partition byte), what `sstablepartitions`
//! reports as its size.
//!
//! Memory: one partition's counters, the top-N list and a size histogram; never the partitions.
//!
//! Src: `tools/SSTablePartitions.java`, `db/rows/Cell.java` (`isLive`),
//! `utils/EstimatedHistogram.java` (the bucket offsets used for percentiles).

use serde::{Deserialize, Serialize};

use super::histogram::LogHistogram;
use crate::component::data::{
    Cell, CellKind, CellView, ColumnData, ColumnSchema, ComplexColumnHead, DataItem, DataVisitor,
    LocalDeletionTime, MarkerDeletion, PartitionEnd, PartitionStart, RangeTombstoneMarker, Row,
    RowView,
};
use crate::token::{Partitioner, Token};
use crate::types::value::format_value;
use crate::types::AbstractType;

/// Tombstones by kind.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TombstoneCounts {
    pub partition: u64,
    pub row: u64,
    pub range: u64,
    pub complex: u64,
    pub cell: u64,
}

impl TombstoneCounts {
    pub fn total(&self) -> u64 {
        self.partition
            .saturating_add(self.row)
            .saturating_add(self.range)
            .saturating_add(self.complex)
            .saturating_add(self.cell)
    }

    pub fn add(&mut self, o: &TombstoneCounts) {
        self.partition = self.partition.saturating_add(o.partition);
        self.row = self.row.saturating_add(o.row);
        self.range = self.range.saturating_add(o.range);
        self.complex = self.complex.saturating_add(o.complex);
        self.cell = self.cell.saturating_add(o.cell);
    }
}

/// The figures of one partition.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct PartitionStats {
    /// The key as cqlsh prints it (`0x…` hex when it does not decode).
    pub key: String,
    pub key_hex: String,
    pub token: Token,
    /// Uncompressed Data.db offset of the partition.
    pub position: u64,
    /// Uncompressed length of the partition in Data.db.
    pub bytes: u64,
    pub rows: u64,
    pub cells: u64,
    pub tombstones: TombstoneCounts,
    /// Expiring cells live at "now".
    pub ttl_cells: u64,
    /// Expiring cells expired at "now".
    pub expired_ttl_cells: u64,
}

impl PartitionStats {
    /// The names of [`PartitionStats::counts`], as the flat tables (CSV, Arrow) name them.
    pub const COUNT_COLUMNS: [&'static str; 11] = [
        "position",
        "bytes",
        "rows",
        "cells",
        "partition_tombstones",
        "row_tombstones",
        "range_tombstones",
        "complex_tombstones",
        "cell_tombstones",
        "ttl_cells",
        "expired_ttl_cells",
    ];

    /// The partition's figures in the order of [`PartitionStats::COUNT_COLUMNS`].
    pub fn counts(&self) -> [u64; 11] {
        let t = &self.tombstones;
        [
            self.position,
            self.bytes,
            self.rows,
            self.cells,
            t.partition,
            t.row,
            t.range,
            t.complex,
            t.cell,
            self.ttl_cells,
            self.expired_ttl_cells,
        ]
    }

    /// The value of a sort column.
    pub fn value(&self, column: PartitionColumn) -> u64 {
        match column {
            PartitionColumn::Position => self.position,
            PartitionColumn::Bytes => self.bytes,
            PartitionColumn::Rows => self.rows,
            PartitionColumn::Cells => self.cells,
            PartitionColumn::Tombstones => self.tombstones.total(),
            PartitionColumn::TtlCells => self.ttl_cells,
            PartitionColumn::ExpiredTtlCells => self.expired_ttl_cells,
        }
    }
}

/// A column of the report that partitions can be filtered on and sorted by.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PartitionColumn {
    Position,
    Bytes,
    Rows,
    Cells,
    Tombstones,
    TtlCells,
    ExpiredTtlCells,
}

impl PartitionColumn {
    pub const ALL: [PartitionColumn; 7] = [
        PartitionColumn::Position,
        PartitionColumn::Bytes,
        PartitionColumn::Rows,
        PartitionColumn::Cells,
        PartitionColumn::Tombstones,
        PartitionColumn::TtlCells,
        PartitionColumn::ExpiredTtlCells,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            PartitionColumn::Position => "position",
            PartitionColumn::Bytes => "bytes",
            PartitionColumn::Rows => "rows",
            PartitionColumn::Cells => "cells",
            PartitionColumn::Tombstones => "tombstones",
            PartitionColumn::TtlCells => "ttl_cells",
            PartitionColumn::ExpiredTtlCells => "expired_ttl_cells",
        }
    }

    /// By name (`bytes`, `rows`, …; `size` = `bytes`).
    pub fn parse(name: &str) -> Option<PartitionColumn> {
        if name == "size" {
            return Some(PartitionColumn::Bytes);
        }
        PartitionColumn::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Which partitions the report lists (`sstablepartitions`' `--min-size`, `--min-rows`,
/// `--min-cells`, `--min-tombstones`, `--key`). Summaries always cover every partition.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionFilter {
    pub min_size_bytes: u64,
    pub min_rows: u64,
    pub min_cells: u64,
    pub min_tombstones: u64,
    /// Raw key bytes; empty = every key.
    pub keys: Vec<Vec<u8>>,
}

impl PartitionFilter {
    pub fn matches(&self, key: &[u8], p: &PartitionStats) -> bool {
        p.bytes >= self.min_size_bytes
            && p.rows >= self.min_rows
            && p.cells >= self.min_cells
            && p.tombstones.total() >= self.min_tombstones
            && (self.keys.is_empty() || self.keys.iter().any(|k| k.as_slice() == key))
    }
}

/// Accumulates one partition at a time, from the borrowing decoder's events (it is a
/// [`DataVisitor`]: nothing allocated per row or cell; [`PartitionScan::take_finished`] after
/// each step) or from owned items ([`PartitionScan::push`]).
#[derive(Debug, Clone)]
pub struct PartitionScan {
    key_type: AbstractType,
    partitioner: Partitioner,
    now_secs: i64,
    current: Option<(Vec<u8>, PartitionStats)>,
    finished: Option<(Vec<u8>, PartitionStats)>,
    /// Cells the visitor saw in the current partition (added to its figures at its end: one
    /// add a cell, nothing else for a live one).
    visited_cells: u64,
}

/// Whether an expiring cell is still live at `now_secs` (`Cell.isLive`): `now < expiry`. A pre-oa
/// expiry that overflowed i32 is compared as the time it was meant to be.
pub(crate) fn expiry_secs(ldt: &LocalDeletionTime) -> i64 {
    ldt.expiry_secs()
}

impl PartitionScan {
    pub fn new(key_type: AbstractType, partitioner: Partitioner, now_secs: i64) -> PartitionScan {
        PartitionScan {
            key_type,
            partitioner,
            now_secs,
            current: None,
            finished: None,
            visited_cells: 0,
        }
    }

    pub fn now_secs(&self) -> i64 {
        self.now_secs
    }

    /// The partition that the last [`DataVisitor::partition_end`] closed: its raw key and
    /// figures (once).
    pub fn take_finished(&mut self) -> Option<(Vec<u8>, PartitionStats)> {
        self.finished.take()
    }

    fn start(&mut self, p: &PartitionStart) {
        let key = p.key.bytes.bytes.clone();
        let stats = PartitionStats {
            key: format_value(&self.key_type, &key).text,
            key_hex: crate::span::hex(&key),
            token: self.partitioner.token(&key),
            position: p.position,
            bytes: 0,
            rows: 0,
            cells: 0,
            tombstones: TombstoneCounts {
                partition: u64::from(!p.deletion.is_live()),
                ..TombstoneCounts::default()
            },
            ttl_cells: 0,
            expired_ttl_cells: 0,
        };
        self.current = Some((key, stats));
        self.visited_cells = 0;
    }

    fn end(&mut self, e: &PartitionEnd) -> Option<(Vec<u8>, PartitionStats)> {
        let (key, mut s) = self.current.take()?;
        s.bytes = e.partition_span.end.saturating_sub(e.partition_span.start);
        s.cells = s
            .cells
            .saturating_add(core::mem::take(&mut self.visited_cells));
        Some((key, s))
    }

    /// Feeds one item; returns the partition's figures (and raw key) at its end.
    pub fn push(&mut self, item: &DataItem) -> Option<(Vec<u8>, PartitionStats)> {
        match item {
            DataItem::PartitionStart(p) => {
                self.start(p);
                None
            }
            DataItem::StaticRow(r) => {
                if let Some((_, s)) = &mut self.current {
                    add_row(s, r, self.now_secs);
                }
                None
            }
            DataItem::Row(r) => {
                if let Some((_, s)) = &mut self.current {
                    s.rows = s.rows.saturating_add(1);
                    add_row(s, r, self.now_secs);
                }
                None
            }
            DataItem::RangeTombstoneMarker(_) => {
                if let Some((_, s)) = &mut self.current {
                    s.tombstones.range = s.tombstones.range.saturating_add(1);
                }
                None
            }
            DataItem::PartitionEnd(e) => self.end(e),
        }
    }
}

/// The same counting as [`PartitionScan::push`], from views.
impl DataVisitor for PartitionScan {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.start(start);
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        // The rows are the decoder's count at the partition's end (`PartitionEnd::row_count`,
        // the rows that are not static); only a row deletion, rare, is counted here.
        if row
            .deletion
            .as_ref()
            .is_some_and(|d| !d.time.deletes_nothing())
        {
            if let Some((_, s)) = &mut self.current {
                s.tombstones.row = s.tombstones.row.saturating_add(1);
            }
        }
    }

    fn complex_column_start(&mut self, _column: &ColumnSchema, head: &ComplexColumnHead) {
        if let Some((_, s)) = &mut self.current {
            s.tombstones.complex = s.tombstones.complex.saturating_add(u64::from(
                head.complex_deletion
                    .as_ref()
                    .is_some_and(|d| !d.deletes_nothing()),
            ));
        }
    }

    #[inline(always)]
    fn cell(&mut self, _column: &ColumnSchema, cell: &CellView<'_>) {
        // A cell is at least one byte of the partition: the count cannot wrap. The decoder
        // hands cells only inside a partition (after `partition_start`).
        self.visited_cells = self.visited_cells.wrapping_add(1);
        // Live cells, nearly all of them, count nothing else: only the kind is read, so the
        // decoder builds nothing more of the view (the rest runs out of line).
        if cell.kind != CellKind::Live {
            if let Some((_, s)) = &mut self.current {
                // By value: a reference into the view would make the decoder store all of it.
                count_cell_out_of_line(s, cell.kind, cell.local_deletion_time, self.now_secs);
            }
        }
    }

    fn range_tombstone_marker(&mut self, _marker: &RangeTombstoneMarker) {
        if let Some((_, s)) = &mut self.current {
            s.tombstones.range = s.tombstones.range.saturating_add(1);
        }
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        if let Some((_, s)) = &mut self.current {
            s.rows = end.row_count;
        }
        self.finished = self.end(end);
    }
}

fn add_row(s: &mut PartitionStats, r: &Row, now_secs: i64) {
    if r.deletion
        .as_ref()
        .is_some_and(|d| !d.time.deletes_nothing())
    {
        s.tombstones.row = s.tombstones.row.saturating_add(1);
    }
    for c in &r.column_data {
        if let ColumnData::Complex(c) = c {
            if c.complex_deletion
                .as_ref()
                .is_some_and(|d| !d.deletes_nothing())
            {
                s.tombstones.complex = s.tombstones.complex.saturating_add(1);
            }
        }
    }
    for cell in r.cells() {
        s.cells = s.cells.saturating_add(1);
        add_cell(s, cell, now_secs);
    }
}

fn add_cell(s: &mut PartitionStats, cell: &Cell, now_secs: i64) {
    count_cell(s, cell.kind, cell.local_deletion_time.as_ref(), now_secs);
}

/// [`count_cell`] of a cell that is not live, out of line (the decoder's cell loop stays small).
#[inline(never)]
fn count_cell_out_of_line(
    s: &mut PartitionStats,
    kind: CellKind,
    ldt: Option<LocalDeletionTime>,
    now_secs: i64,
) {
    count_cell(s, kind, ldt.as_ref(), now_secs);
}

/// Tombstone and TTL counts of one cell.
#[inline]
fn count_cell(
    s: &mut PartitionStats,
    kind: CellKind,
    ldt: Option<&LocalDeletionTime>,
    now_secs: i64,
) {
    match kind {
        CellKind::Tombstone => s.tombstones.cell = s.tombstones.cell.saturating_add(1),
        CellKind::Expiring | CellKind::Expired => match ldt {
            Some(ldt) if now_secs >= expiry_secs(ldt) => {
                s.expired_ttl_cells = s.expired_ttl_cells.saturating_add(1)
            }
            _ => s.ttl_cells = s.ttl_cells.saturating_add(1),
        },
        CellKind::Live => {}
    }
}

/// The later local deletion time of a marker (a boundary closes one deletion and opens
/// another), and whether either is invalid.
pub(crate) fn marker_ldt(d: &MarkerDeletion) -> (LocalDeletionTime, bool) {
    match d {
        MarkerDeletion::Bound(t) => (t.local_deletion_time, t.local_deletion_time.is_invalid()),
        MarkerDeletion::Boundary { end, start } => {
            let e = end.local_deletion_time;
            let s = start.local_deletion_time;
            let later = if s.secs >= e.secs { s } else { e };
            (later, e.is_invalid() || s.is_invalid())
        }
    }
}

/// Count, total, min, max and percentiles of one column over every partition.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ColumnSummary {
    pub total: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    /// Percentiles as Cassandra's EstimatedHistogram gives them: the upper offset of the bucket
    /// holding the percentile (exact up to 8; within 20 % above), capped at `max`.
    pub p50: u64,
    pub p75: u64,
    pub p90: u64,
    pub p95: u64,
    pub p99: u64,
}

/// The summary of every partition of an SSTable (filters do not apply).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PartitionsSummary {
    pub partitions: u64,
    pub bytes: ColumnSummary,
    pub rows: ColumnSummary,
    pub cells: ColumnSummary,
    pub tombstones: ColumnSummary,
    pub tombstones_by_kind: TombstoneCounts,
    pub ttl_cells: u64,
    pub expired_ttl_cells: u64,
    /// Partitions with a partition deletion, with any tombstone, with any TTL cell.
    pub deleted_partitions: u64,
    pub partitions_with_tombstones: u64,
    /// The partition size distribution: `[upper_bytes, count]` per non-empty bucket
    /// (EstimatedHistogram offsets; a partition of `n` bytes counts in the first bucket ≥ n).
    pub size_histogram: Vec<(u64, u64)>,
}

/// Everything the pass keeps: the partitions that pass the filter (all, or the top N by a
/// column), and the summary of all. It crosses a worker boundary as it is (serde; the page's
/// split scan, the analytics pass).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PartitionsCollector {
    pub filter: PartitionFilter,
    /// `Some((n, column))`: keep only the top `n` by `column` (largest first; ties by position).
    pub top: Option<(usize, PartitionColumn)>,
    #[serde(with = "kept_wire")]
    kept: Vec<PartitionStats>,
    count: u64,
    hist: [LogHistogram; 4],
    sums: [u64; 4],
    mins: [u64; 4],
    maxs: [u64; 4],
    by_kind: TombstoneCounts,
    ttl_cells: u64,
    expired_ttl_cells: u64,
    deleted: u64,
    with_tombstones: u64,
}

impl PartitionsCollector {
    pub fn new(filter: PartitionFilter, top: Option<(usize, PartitionColumn)>) -> Self {
        PartitionsCollector {
            filter,
            top,
            kept: Vec::new(),
            count: 0,
            hist: Default::default(),
            sums: [0; 4],
            mins: [u64::MAX; 4],
            maxs: [0; 4],
            by_kind: TombstoneCounts::default(),
            ttl_cells: 0,
            expired_ttl_cells: 0,
            deleted: 0,
            with_tombstones: 0,
        }
    }

    pub fn add(&mut self, key: &[u8], p: PartitionStats) {
        self.count = self.count.saturating_add(1);
        let values = [p.bytes, p.rows, p.cells, p.tombstones.total()];
        for (i, v) in values.into_iter().enumerate() {
            if let Some(h) = self.hist.get_mut(i) {
                h.add(v);
            }
            if let Some(s) = self.sums.get_mut(i) {
                *s = s.saturating_add(v);
            }
            if let Some(m) = self.mins.get_mut(i) {
                *m = (*m).min(v);
            }
            if let Some(m) = self.maxs.get_mut(i) {
                *m = (*m).max(v);
            }
        }
        self.by_kind.add(&p.tombstones);
        self.ttl_cells = self.ttl_cells.saturating_add(p.ttl_cells);
        self.expired_ttl_cells = self.expired_ttl_cells.saturating_add(p.expired_ttl_cells);
        self.deleted = self.deleted.saturating_add(p.tombstones.partition);
        self.with_tombstones = self
            .with_tombstones
            .saturating_add(u64::from(p.tombstones.total() > 0));
        if !self.filter.matches(key, &p) {
            return;
        }
        self.kept.push(p);
        if let Some((n, column)) = self.top {
            if self.kept.len() > n.saturating_mul(2).max(64) {
                sort_top(&mut self.kept, column);
                self.kept.truncate(n);
            }
        }
    }

    /// Adds the collector of the range that follows this one in the file (same filter and
    /// top): the result is the one a single pass over both ranges gives.
    pub fn merge(&mut self, next: PartitionsCollector) {
        self.count = self.count.saturating_add(next.count);
        for (h, o) in self.hist.iter_mut().zip(&next.hist) {
            h.merge(o);
        }
        for (s, o) in self.sums.iter_mut().zip(next.sums) {
            *s = s.saturating_add(o);
        }
        for (m, o) in self.mins.iter_mut().zip(next.mins) {
            *m = (*m).min(o);
        }
        for (m, o) in self.maxs.iter_mut().zip(next.maxs) {
            *m = (*m).max(o);
        }
        self.by_kind.add(&next.by_kind);
        self.ttl_cells = self.ttl_cells.saturating_add(next.ttl_cells);
        self.expired_ttl_cells = self
            .expired_ttl_cells
            .saturating_add(next.expired_ttl_cells);
        self.deleted = self.deleted.saturating_add(next.deleted);
        self.with_tombstones = self.with_tombstones.saturating_add(next.with_tombstones);
        // File order: the next range's partitions come after. Top N: the order (value, then
        // position) is total, so the top of the union is the top of the two tops.
        self.kept.extend(next.kept);
        if let Some((n, column)) = self.top {
            if self.kept.len() > n.saturating_mul(2).max(64) {
                sort_top(&mut self.kept, column);
                self.kept.truncate(n);
            }
        }
    }

    /// The kept partitions (file order, or top N largest first) and the summary.
    pub fn finish(mut self) -> (Vec<PartitionStats>, PartitionsSummary) {
        if let Some((n, column)) = self.top {
            sort_top(&mut self.kept, column);
            self.kept.truncate(n);
        }
        let column = |i: usize| {
            let h = self.hist.get(i).cloned().unwrap_or_default();
            let total = self.sums.get(i).copied().unwrap_or(0);
            let max = self.maxs.get(i).copied().unwrap_or(0);
            let pct = |p: f64| h.percentile(p).min(max);
            ColumnSummary {
                total,
                min: if self.count == 0 {
                    0
                } else {
                    self.mins.get(i).copied().unwrap_or(0)
                },
                max,
                mean: if self.count == 0 {
                    0.0
                } else {
                    total as f64 / self.count as f64
                },
                p50: pct(0.50),
                p75: pct(0.75),
                p90: pct(0.90),
                p95: pct(0.95),
                p99: pct(0.99),
            }
        };
        let summary = PartitionsSummary {
            partitions: self.count,
            bytes: column(0),
            rows: column(1),
            cells: column(2),
            tombstones: column(3),
            tombstones_by_kind: self.by_kind,
            ttl_cells: self.ttl_cells,
            expired_ttl_cells: self.expired_ttl_cells,
            deleted_partitions: self.deleted,
            partitions_with_tombstones: self.with_tombstones,
            size_histogram: self
                .hist
                .first()
                .map(LogHistogram::non_empty)
                .unwrap_or_default(),
        };
        (self.kept, summary)
    }
}

fn sort_top(kept: &mut [PartitionStats], column: PartitionColumn) {
    crate::sort::sort_by(kept, |a, b| {
        b.value(column)
            .cmp(&a.value(column))
            .then(a.position.cmp(&b.position))
    });
}

/// One SSTable's partitions report (the `partitions --json` element).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PartitionsReport {
    pub sstable: String,
    /// The "now" TTL cells were classified at, and where it came from.
    pub now_secs: i64,
    pub now_source: NowSource,
    pub partitions: Vec<PartitionStats>,
    pub summary: PartitionsSummary,
}

/// Where a report's "now" came from.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NowSource {
    /// Given by the caller (`--now`).
    Given,
    /// The newest tombstone local deletion time seen.
    NewestLocalDeletionTime,
    /// Statistics.db's maxTimestamp, in seconds (the newest write).
    MaxTimestamp,
    /// Nothing to go by: 0.
    None,
}

/// The kept partitions of a [`PartitionsCollector`] across a worker boundary: the token as its
/// variant and value (its `Serialize` prints it as text, which does not say the partitioner).
pub(crate) mod kept_wire {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{PartitionStats, TombstoneCounts};
    use crate::token::Token;

    #[derive(Serialize, Deserialize)]
    enum WireToken {
        Murmur3(i64),
        /// `(high, low)` 64 bits of the `u128`.
        Random(Option<(u64, u64)>),
        Bytes(Vec<u8>),
        String(String),
        Key(Vec<u8>),
    }

    #[derive(Serialize, Deserialize)]
    struct WirePartition {
        key: String,
        key_hex: String,
        token: WireToken,
        position: u64,
        bytes: u64,
        rows: u64,
        cells: u64,
        tombstones: TombstoneCounts,
        ttl_cells: u64,
        expired_ttl_cells: u64,
    }

    fn to_wire(p: &PartitionStats) -> WirePartition {
        let token = match &p.token {
            Token::Murmur3(t) => WireToken::Murmur3(*t),
            Token::Random(t) => {
                WireToken::Random(t.map(|t| (t.checked_shr(64).unwrap_or(0) as u64, t as u64)))
            }
            Token::Bytes(b) => WireToken::Bytes(b.clone()),
            Token::String(s) => WireToken::String(s.clone()),
            Token::Key(b) => WireToken::Key(b.clone()),
        };
        WirePartition {
            key: p.key.clone(),
            key_hex: p.key_hex.clone(),
            token,
            position: p.position,
            bytes: p.bytes,
            rows: p.rows,
            cells: p.cells,
            tombstones: p.tombstones,
            ttl_cells: p.ttl_cells,
            expired_ttl_cells: p.expired_ttl_cells,
        }
    }

    fn from_wire(w: WirePartition) -> PartitionStats {
        let token = match w.token {
            WireToken::Murmur3(t) => Token::Murmur3(t),
            WireToken::Random(t) => Token::Random(
                t.map(|(hi, lo)| u128::from(hi).checked_shl(64).unwrap_or(0) | u128::from(lo)),
            ),
            WireToken::Bytes(b) => Token::Bytes(b),
            WireToken::String(s) => Token::String(s),
            WireToken::Key(b) => Token::Key(b),
        };
        PartitionStats {
            key: w.key,
            key_hex: w.key_hex,
            token,
            position: w.position,
            bytes: w.bytes,
            rows: w.rows,
            cells: w.cells,
            tombstones: w.tombstones,
            ttl_cells: w.ttl_cells,
            expired_ttl_cells: w.expired_ttl_cells,
        }
    }

    pub fn serialize<S: Serializer>(kept: &[PartitionStats], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(kept.iter().map(to_wire))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PartitionStats>, D::Error> {
        Ok(Vec::<WirePartition>::deserialize(d)?
            .into_iter()
            .map(from_wire)
            .collect())
    }
}
