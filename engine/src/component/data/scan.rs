//! The decode-only scan (what `sstable-inspect bench` times): [`ScanCounts`] counts what a
//! visitor sees; [`SyncDriver::visit_all`](crate::range::SyncDriver::visit_all) drives it over a
//! whole file.

use serde::Serialize;

use super::partition::{PartitionEnd, PartitionStart};
use super::schema::ColumnSchema;
use super::view::{
    CellKind, CellView, ComplexColumnHead, DataVisitor, RangeTombstoneMarker, RowEnd, RowView,
};

/// What a decode-only scan counted.
#[derive(Serialize, Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanCounts {
    pub partitions: u64,
    /// Partitions with a partition-level deletion.
    pub partition_deletions: u64,
    pub static_rows: u64,
    /// Regular rows.
    pub rows: u64,
    /// Rows (static or regular) with a row deletion.
    pub row_deletions: u64,
    pub range_tombstone_markers: u64,
    /// Complex columns with a (non-LIVE) complex deletion.
    pub complex_deletions: u64,
    pub cells: u64,
    pub live_cells: u64,
    pub tombstone_cells: u64,
    pub expiring_cells: u64,
    pub expired_cells: u64,
    /// Bytes of cell values.
    pub value_bytes: u64,
    /// Findings on rows, markers and partitions.
    pub findings: u64,
    /// Uncompressed bytes of the partitions seen (to the end of the last one).
    pub data_bytes: u64,
}

impl ScanCounts {
    /// Adds the counts of the range that follows in the file (`data_bytes`: to its end).
    pub fn merge(&mut self, next: &ScanCounts) {
        for (a, b) in [
            (&mut self.partitions, next.partitions),
            (&mut self.partition_deletions, next.partition_deletions),
            (&mut self.static_rows, next.static_rows),
            (&mut self.rows, next.rows),
            (&mut self.row_deletions, next.row_deletions),
            (
                &mut self.range_tombstone_markers,
                next.range_tombstone_markers,
            ),
            (&mut self.complex_deletions, next.complex_deletions),
            (&mut self.cells, next.cells),
            (&mut self.live_cells, next.live_cells),
            (&mut self.tombstone_cells, next.tombstone_cells),
            (&mut self.expiring_cells, next.expiring_cells),
            (&mut self.expired_cells, next.expired_cells),
            (&mut self.value_bytes, next.value_bytes),
            (&mut self.findings, next.findings),
        ] {
            add(a, b);
        }
        if next.partitions > 0 {
            self.data_bytes = next.data_bytes;
        }
    }
}

impl DataVisitor for ScanCounts {
    fn partition_start(&mut self, start: &PartitionStart) {
        add(&mut self.partitions, 1);
        add(
            &mut self.partition_deletions,
            u64::from(!start.deletion.is_live()),
        );
        add(&mut self.findings, start.findings.len() as u64);
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        if row.is_static {
            add(&mut self.static_rows, 1);
        } else {
            add(&mut self.rows, 1);
        }
        add(&mut self.row_deletions, u64::from(row.deletion.is_some()));
    }

    fn complex_column_start(&mut self, _column: &ColumnSchema, head: &ComplexColumnHead) {
        add(
            &mut self.complex_deletions,
            u64::from(
                head.complex_deletion
                    .as_ref()
                    .is_some_and(|d| !d.deletes_nothing()),
            ),
        );
    }

    #[inline]
    fn cell(&mut self, _column: &ColumnSchema, cell: &CellView<'_>) {
        // Per cell, plain adds: every cell is at least one byte of one scan's Data.db and its
        // value is bytes of it, so these counts stay below the file's size (< 2^64) and cannot
        // wrap ([`ScanCounts::merge`] still saturates).
        self.cells = self.cells.wrapping_add(1);
        self.value_bytes = self.value_bytes.wrapping_add(cell.value.len() as u64);
        let count = match cell.kind {
            CellKind::Live => &mut self.live_cells,
            CellKind::Tombstone => &mut self.tombstone_cells,
            CellKind::Expiring => &mut self.expiring_cells,
            CellKind::Expired => &mut self.expired_cells,
        };
        *count = count.wrapping_add(1);
    }

    fn row_end(&mut self, end: &RowEnd<'_>) {
        add(&mut self.findings, end.findings.len() as u64);
    }

    fn range_tombstone_marker(&mut self, marker: &RangeTombstoneMarker) {
        add(&mut self.range_tombstone_markers, 1);
        add(&mut self.findings, marker.findings.len() as u64);
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        add(&mut self.findings, end.findings.len() as u64);
        self.data_bytes = end.partition_span.end;
    }
}

/// A count plus `n` (saturating: a count never wraps).
#[inline(always)]
fn add(count: &mut u64, n: u64) {
    *count = count.saturating_add(n);
}
