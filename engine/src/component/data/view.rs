//! What a [`DataVisitor`] is handed: rows and cells as views into the decode window
//! ([`RowView`], [`CellView`]: values as `&[u8]`, typed by the column given alongside), the
//! events around them ([`ComplexColumnHead`], [`RowEnd`], [`RangeTombstoneMarker`]) and the
//! visitor trait. Nothing is allocated per row or per cell on this path (findings aside);
//! callers that keep items build owned ones ([`DataItem`](super::DataItem) through
//! [`DataDecoder::next_item`](super::DataDecoder::next_item)). The bottom layer of the row
//! decoder: `cell` and `row` decode into these, `stream` drives a visitor, `file` feeds it.
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
//! Src: `src/java/org/apache/cassandra/db/rows/UnfilteredSerializer.java`,
//! `io/sstable/SSTableIdentityIterator.java`, `db/rows/Cell.java` (the flags).

use serde::Serialize;

use super::clustering::{ClusteringBoundOrBoundary, ClusteringView};
use super::columns::{ColumnSubset, ColumnsEncoding};
use super::counter::CounterContext;
use super::deletion::{DeletionTime, LivenessInfo, LocalDeletionTime};
use super::partition::{PartitionEnd, PartitionStart};
use super::schema::ColumnSchema;
use super::Finding;
use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// Cell flag: the cell is a tombstone.
pub const IS_DELETED: u8 = 0x01;
/// Cell flag: the cell has a TTL.
pub const IS_EXPIRING: u8 = 0x02;
/// Cell flag: no value bytes follow.
pub const HAS_EMPTY_VALUE: u8 = 0x04;
/// Cell flag: the timestamp is the row's liveness timestamp.
pub const USE_ROW_TIMESTAMP: u8 = 0x08;
/// Cell flag: TTL and local expiration time are the row's.
pub const USE_ROW_TTL: u8 = 0x10;

/// What a cell is.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    Live,
    Tombstone,
    /// Has a TTL and has not expired at the caller's `now_seconds` (or no time was given).
    Expiring,
    /// Has a TTL and its local expiration time is ≤ the caller's `now_seconds`.
    Expired,
}

/// One cell decoded in place: its path and value borrow the decode window. Lean: the decoded
/// values, the flags, and where each stored part ends (relative to the flags byte); the spans
/// are computed on request ([`CellView::span`], [`CellView::timestamp_span`], …). Built into a
/// [`Cell`] only by callers that keep it ([`CellView::to_cell`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CellView<'a> {
    /// Absolute uncompressed Data.db offset of the flags byte.
    pub position: u64,
    /// Index into `DataSchema::columns(is_static)` of the row.
    pub column_index: usize,
    pub flags: u8,
    pub kind: CellKind,
    /// The cell's timestamp, or the row's (USE_ROW_TIMESTAMP).
    pub timestamp_micros: i64,
    /// Tombstones: when deleted; expiring cells: when they expire (the cell's or the row's).
    pub local_deletion_time: Option<LocalDeletionTime>,
    /// Expiring cells only (the cell's or the row's).
    pub ttl_secs: Option<i32>,
    /// Cells of complex columns: the path bytes (without their length).
    pub path: Option<&'a [u8]>,
    /// The value bytes (empty with HAS_EMPTY_VALUE).
    pub value: &'a [u8],
    pub(super) ends: CellEnds,
    /// Live cells of counter columns: the decoded CounterContext (boxed: the view stays small
    /// for the cells that are not counters).
    pub counter: Option<Box<CounterContext>>,
}

/// Where each stored part of a cell ends, in bytes after its flags byte (the parts that are not
/// stored end where the previous one does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct CellEnds {
    pub(super) timestamp: u32,
    pub(super) local_deletion_time: u32,
    pub(super) ttl: u32,
    pub(super) path: u32,
    /// The end of the value: the cell's length.
    pub(super) value: u32,
}

impl CellView<'_> {
    pub fn is_tombstone(&self) -> bool {
        self.kind == CellKind::Tombstone
    }

    pub fn is_expiring(&self) -> bool {
        matches!(self.kind, CellKind::Expiring | CellKind::Expired)
    }

    fn at(&self, relative: u32) -> u64 {
        self.position.saturating_add(u64::from(relative))
    }

    /// The whole cell.
    pub fn span(&self) -> Span {
        Span::new(self.position, self.at(self.ends.value))
    }

    /// The flags byte.
    pub fn flags_span(&self) -> Span {
        Span::new(self.position, self.at(1))
    }

    /// `None` when the timestamp is the row's (USE_ROW_TIMESTAMP).
    pub fn timestamp_span(&self) -> Option<Span> {
        (self.flags & USE_ROW_TIMESTAMP == 0)
            .then(|| Span::new(self.at(1), self.at(self.ends.timestamp)))
    }

    /// `None` when absent or taken from the row (USE_ROW_TTL).
    pub fn local_deletion_time_span(&self) -> Option<Span> {
        (self.flags & USE_ROW_TTL == 0 && self.flags & (IS_DELETED | IS_EXPIRING) != 0).then(|| {
            Span::new(
                self.at(self.ends.timestamp),
                self.at(self.ends.local_deletion_time),
            )
        })
    }

    /// `None` when absent or taken from the row (USE_ROW_TTL).
    pub fn ttl_span(&self) -> Option<Span> {
        (self.flags & USE_ROW_TTL == 0 && self.flags & IS_EXPIRING != 0).then(|| {
            Span::new(
                self.at(self.ends.local_deletion_time),
                self.at(self.ends.ttl),
            )
        })
    }

    /// The path with its length prefix (cells of complex columns).
    pub fn path_span(&self) -> Option<Span> {
        self.path
            .map(|_| Span::new(self.at(self.ends.ttl), self.at(self.ends.path)))
    }

    /// The value with its length prefix.
    pub fn value_span(&self) -> Span {
        Span::new(self.at(self.ends.path), self.at(self.ends.value))
    }
}

/// The head of a complex column: its deletion and cell count, before its cells.
#[derive(Debug, Clone, PartialEq)]
pub struct ComplexColumnHead {
    /// First byte of the column's data.
    pub start: u64,
    pub column_index: usize,
    pub complex_deletion: Option<DeletionTime>,
    pub cell_count: Spanned<u64>,
}

/// `Row.Deletion`: the row tombstone and whether it is shadowable.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RowDeletion {
    pub time: DeletionTime,
    /// Extended flag HAS_SHADOWABLE_DELETION.
    pub is_shadowable: bool,
}

/// A row decoded in place up to its column data: what a [`DataVisitor`] sees before the row's
/// cells. Its clustering and column subset borrow the decode window.
#[derive(Debug, Clone, PartialEq)]
pub struct RowView<'a> {
    /// Absolute uncompressed Data.db offset of the flags byte.
    pub position: u64,
    /// From the flags byte to the declared end of the row.
    pub span: Span,
    pub is_static: bool,
    pub flags: Spanned<u8>,
    pub extended_flags: Option<Spanned<u8>>,
    /// `None` for the static row.
    pub clustering: Option<ClusteringView<'a>>,
    pub row_size: Spanned<u64>,
    pub previous_unfiltered_size: Spanned<u64>,
    pub liveness: Option<LivenessInfo>,
    pub deletion: Option<RowDeletion>,
    pub scylla_shadowable_deletion: Option<DeletionTime>,
    pub columns_encoding: ColumnsEncoding,
    /// The stored column subset (`None` with HAS_ALL_COLUMNS) and its bytes.
    pub columns_span: Option<Span>,
    pub columns_bytes: &'a [u8],
    /// N: the number of header columns of the row's kind.
    pub superset_count: usize,
}

impl RowView<'_> {
    /// The owned column subset.
    pub fn column_subset(&self) -> ColumnSubset {
        match self.columns_span {
            None => ColumnSubset::all(self.superset_count),
            Some(span) => ColumnSubset::read(
                &mut Reader::new(self.columns_bytes, span.start),
                self.superset_count,
            )
            .unwrap_or_else(|_| ColumnSubset::all(self.superset_count)),
        }
    }
}

/// The end of a row, after its cells: where its body ended and its findings (body, size,
/// previous size, duplicate clustering).
#[derive(Debug, Clone, PartialEq)]
pub struct RowEnd<'f> {
    pub position: u64,
    pub is_static: bool,
    /// Where decoding of the body stopped.
    pub body_end: u64,
    /// The declared end of the row.
    pub declared_end: u64,
    pub findings: &'f [Finding],
}

/// A marker's deletion: one time for a bound, two for a boundary.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub enum MarkerDeletion {
    Bound(DeletionTime),
    /// Stored end first, then start.
    Boundary {
        end: DeletionTime,
        start: DeletionTime,
    },
}

/// A range tombstone bound or boundary marker.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct RangeTombstoneMarker {
    /// Absolute uncompressed Data.db offset of the flags byte.
    pub position: u64,
    /// From the flags byte to the declared end.
    pub span: Span,
    pub flags: Spanned<u8>,
    /// Markers are never written with extended flags; kept if present.
    pub extended_flags: Option<Spanned<u8>>,
    pub bound: ClusteringBoundOrBoundary,
    pub marker_size: Spanned<u64>,
    pub previous_unfiltered_size: Spanned<u64>,
    pub deletion: MarkerDeletion,
    pub findings: Vec<Finding>,
}

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
