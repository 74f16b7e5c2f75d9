//! Borrowed decoding: a [`DataVisitor`] is handed each partition boundary, row, cell and range
//! tombstone marker as the decoder reads it, with rows and cells as views into the decode window
//! ([`RowView`], [`CellView`]: values as `&[u8]`, typed by the column given alongside). Nothing
//! is allocated per row or per cell on this path (findings aside); callers that keep items build
//! owned ones ([`DataItem`] through [`DataDecoder::next_item`](super::DataDecoder::next_item)).
//!
//! Events of one partition, in file order:
//!
//! | event | when |
//! |---|---|
//! | [`DataVisitor::partition_start`] | key and partition deletion read |
//! | [`DataVisitor::row_start`] | a row's (or the static row's) head, liveness, deletion and column subset read |
//! | [`DataVisitor::cell`] | each cell of a simple column |
//! | [`DataVisitor::complex_column_start`], `cell`…, [`DataVisitor::complex_column_end`] | each complex column |
//! | [`DataVisitor::row_end`] | after the row's cells, with its findings |
//! | [`DataVisitor::range_tombstone_marker`] | a bound or boundary marker (owned: they are few) |
//! | [`DataVisitor::partition_end`] | the end-of-partition byte, with the partition's span and counts |
//!
//! [`ScanCounts`] is the decode-only scan (what `sstable-inspect bench` times):
//! [`scan_counts`] drives it over a whole file.
//!
//! Src: `src/java/org/apache/cassandra/db/rows/UnfilteredSerializer.java`,
//! `io/sstable/SSTableIdentityIterator.java`.

use serde::Serialize;

use super::cell::{CellKind, CellView, ColumnData, ComplexColumn, ComplexColumnHead};
use super::file::DataFileReader;
use super::partition::{PartitionEnd, PartitionStart};
use super::row::{RangeTombstoneMarker, Row, RowEnd, RowView};
use super::schema::ColumnSchema;
use super::stream::VisitStep;
use super::DataItem;
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::span::Span;

/// Receives what the decoder reads, in file order (see the module table). Every method has an
/// empty default, so a visitor implements only what it needs.
pub trait DataVisitor {
    fn partition_start(&mut self, _start: &PartitionStart) {}
    fn row_start(&mut self, _row: &RowView<'_>) {}
    fn complex_column_start(&mut self, _column: &ColumnSchema, _head: &ComplexColumnHead) {}
    /// A cell of `column` (of the row given to the last `row_start`).
    fn cell(&mut self, _column: &ColumnSchema, _cell: &CellView<'_>) {}
    /// The first byte after the complex column's last cell.
    fn complex_column_end(&mut self, _end: u64) {}
    fn row_end(&mut self, _end: &RowEnd<'_>) {}
    fn range_tombstone_marker(&mut self, _marker: &RangeTombstoneMarker) {}
    fn partition_end(&mut self, _end: &PartitionEnd) {}
}

/// A visitor that looks at nothing (for trial decodes).
pub(crate) struct IgnoreAll;

impl DataVisitor for IgnoreAll {}

/// Builds the owned [`DataItem`] of one step.
#[derive(Debug, Default)]
pub(crate) struct ItemBuilder {
    row: Option<Row>,
    in_complex: bool,
    item: Option<DataItem>,
}

impl ItemBuilder {
    pub(crate) fn take(&mut self) -> Option<DataItem> {
        self.item.take()
    }
}

impl DataVisitor for ItemBuilder {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.item = Some(DataItem::PartitionStart(start.clone()));
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        self.row = Some(row.to_row_head());
        self.in_complex = false;
    }

    fn complex_column_start(&mut self, _column: &ColumnSchema, head: &ComplexColumnHead) {
        if let Some(row) = self.row.as_mut() {
            row.column_data.push(ColumnData::Complex(ComplexColumn {
                span: Span::new(head.start, head.start),
                column_index: head.column_index,
                complex_deletion: head.complex_deletion.clone(),
                cell_count: head.cell_count.clone(),
                cells: Vec::new(),
            }));
            self.in_complex = true;
        }
    }

    fn cell(&mut self, _column: &ColumnSchema, cell: &CellView<'_>) {
        let Some(row) = self.row.as_mut() else {
            return;
        };
        match row.column_data.last_mut() {
            Some(ColumnData::Complex(c)) if self.in_complex => c.cells.push(cell.to_cell()),
            _ => row.column_data.push(ColumnData::Simple(cell.to_cell())),
        }
    }

    fn complex_column_end(&mut self, end: u64) {
        if let Some(ColumnData::Complex(c)) =
            self.row.as_mut().and_then(|r| r.column_data.last_mut())
        {
            c.span.end = end;
        }
        self.in_complex = false;
    }

    fn row_end(&mut self, end: &RowEnd<'_>) {
        if let Some(mut row) = self.row.take() {
            row.body_end = end.body_end;
            row.findings = end.findings.to_vec();
            self.item = Some(if row.is_static {
                DataItem::StaticRow(row)
            } else {
                DataItem::Row(row)
            });
        }
    }

    fn range_tombstone_marker(&mut self, marker: &RangeTombstoneMarker) {
        self.item = Some(DataItem::RangeTombstoneMarker(marker.clone()));
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        self.item = Some(DataItem::PartitionEnd(end.clone()));
    }
}

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
