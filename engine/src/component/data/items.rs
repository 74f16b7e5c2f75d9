//! The owned items of the decoder's `next_item`: [`ItemBuilder`] is the visitor that builds
//! one [`DataItem`] from the views of one step.

use super::cell::{ColumnData, ComplexColumn};
use super::partition::{PartitionEnd, PartitionStart};
use super::row::Row;
use super::schema::ColumnSchema;
use super::view::{
    CellView, ComplexColumnHead, DataVisitor, RangeTombstoneMarker, RowEnd, RowView,
};
use super::DataItem;
use crate::span::Span;

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
