//! The decode-only scan (what `sstable-inspect bench` times): [`ScanCounts`] counts what a
//! visitor sees, [`scan_counts`] drives it over a whole file.

use serde::Serialize;

use super::file::DataFileReader;
use super::partition::{PartitionEnd, PartitionStart};
use super::schema::ColumnSchema;
use super::stream::VisitStep;
use super::view::{
    CellKind, CellView, ComplexColumnHead, DataVisitor, RangeTombstoneMarker, RowEnd, RowView,
};
use crate::component::ComponentType;
use crate::error::{Error, Result};

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
        add(&mut self.cells, 1);
        add(&mut self.value_bytes, cell.value.len() as u64);
        match cell.kind {
            CellKind::Live => add(&mut self.live_cells, 1),
            CellKind::Tombstone => add(&mut self.tombstone_cells, 1),
            CellKind::Expiring => add(&mut self.expiring_cells, 1),
            CellKind::Expired => add(&mut self.expired_cells, 1),
        }
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

/// Drives `reader` from its position to the end, reading with `read_at(offset, len)`
/// into a reused buffer, and hands everything to `visitor`. Stops at the first error.
pub fn visit_all_with<F, V>(
    reader: &mut DataFileReader,
    mut read_at: F,
    visitor: &mut V,
) -> Result<()>
where
    F: FnMut(u64, &mut Vec<u8>) -> Result<()>,
    V: DataVisitor + ?Sized,
{
    let mut bytes = Vec::new();
    loop {
        match reader.visit_next(visitor)? {
            VisitStep::Visited => {}
            VisitStep::Finished => return Ok(()),
            VisitStep::NeedMoreData => {
                let Some((offset, len)) = reader.next_read() else {
                    return Ok(());
                };
                let n = usize::try_from(len).map_err(|_| {
                    Error::invalid(format!("read of {len} bytes"), offset)
                        .in_component(ComponentType::Data)
                })?;
                // Sized, not cleared: `read_at` overwrites every byte (no memset per chunk).
                bytes.resize(n, 0);
                read_at(offset, &mut bytes)?;
                reader.supply(offset, &bytes)?;
            }
        }
    }
}

/// The `read_at` of [`visit_all_with`] and [`scan_counts`] for a Data.db held in memory: fills
/// `buf` (already sized) from `data` at `offset`; an error past its end.
pub fn read_at_slice(data: &[u8]) -> impl Fn(u64, &mut Vec<u8>) -> Result<()> + Copy + '_ {
    move |offset, buf| {
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(buf.len())?));
        match range.and_then(|r| data.get(r)) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(Error::new(
                crate::error::ErrorKind::MissingBytes {
                    wanted_start: offset,
                    wanted_end: offset.saturating_add(buf.len() as u64),
                },
                offset,
            )
            .in_component(ComponentType::Data)),
        }
    }
}

/// The decode-only scan: every partition, row and cell of the file decoded and counted,
/// nothing kept. `read_at(offset, buf)` fills `buf` (already sized) from Data.db at `offset`.
pub fn scan_counts<F>(reader: &mut DataFileReader, read_at: F) -> Result<ScanCounts>
where
    F: FnMut(u64, &mut Vec<u8>) -> Result<()>,
{
    let mut counts = ScanCounts::default();
    visit_all_with(reader, read_at, &mut counts)?;
    Ok(counts)
}
