//! Unfiltereds: rows (static and regular) and range tombstone markers.
//!
//! Row (`UnfilteredSerializer`, sstable form):
//!
//! | part | encoding | when |
//! |---|---|---|
//! | flags | u8: 0x01 END_OF_PARTITION, 0x02 IS_MARKER, 0x04 HAS_TIMESTAMP, 0x08 HAS_TTL, 0x10 HAS_DELETION, 0x20 HAS_ALL_COLUMNS, 0x40 HAS_COMPLEX_DELETION, 0x80 EXTENSION_FLAG | always |
//! | extended flags | u8: 0x01 IS_STATIC, 0x02 HAS_SHADOWABLE_DELETION (Cassandra MV), 0x80 Scylla's extra shadowable deletion | flag 0x80 (static rows always) |
//! | clustering | one value per clustering column ([`Clustering`]) | not for static rows |
//! | row size | unsigned vint: bytes after this field to the row's end | |
//! | previous unfiltered size | unsigned vint (static rows: 0) | |
//! | liveness | timestamp delta; with HAS_TTL: ttl delta, ldt delta | HAS_TIMESTAMP |
//! | row deletion | timestamp delta, ldt delta | HAS_DELETION |
//! | Scylla shadowable deletion | timestamp delta, ldt delta | extended 0x80 |
//! | column subset | [`ColumnSubset`] | unless HAS_ALL_COLUMNS |
//! | column data | each present column in sorted order: simple → [`Cell`]; complex → [`ComplexColumn`] | |
//!
//! Range tombstone marker:
//!
//! | part | encoding |
//! |---|---|
//! | flags | `0x02` |
//! | bound | [`ClusteringBoundOrBoundary`]: u8 kind, u16 size, values |
//! | marker size | unsigned vint: bytes after this field to the marker's end |
//! | previous unfiltered size | unsigned vint |
//! | deletion | bound: one DeletionTime; boundary: the **end** deletion, then the **start** one (deltas) |
//!
//! The previous unfiltered size is the distance from the previous unfiltered's first byte;
//! for the first one, the distance from the partition start.
//!
//! Src: `src/java/org/apache/cassandra/db/rows/UnfilteredSerializer.java` (`deserializeOne`,
//! `deserializeStaticRow`, `deserializeRowBody`, `deserializeMarkerBody`, `readExtendedFlags`),
//! `db/rows/Row.java` (`Deletion`), `db/rows/RangeTombstoneBoundMarker.java`,
//! `db/rows/RangeTombstoneBoundaryMarker.java`,
//! `io/sstable/format/SortedTablePartitionWriter.java` (previous sizes); ScyllaDB
//! `sstables/mx/writer.cc` (the extra shadowable tombstone).

use serde::Serialize;

use super::cell::{Cell, ColumnData, RowTimes};
use super::clustering::{
    read_bound, read_clustering_view, Clustering, ClusteringBoundOrBoundary, ClusteringView,
};
use super::columns::{ColumnSubset, ColumnsEncoding, PresentColumns};
use super::deletion::{check_deletion, read_delta_deletion_time, DeletionTime, LivenessInfo};
use super::schema::{ColumnKind, DataSchema};
use super::view::{
    CellView, ComplexColumnHead, DataVisitor, MarkerDeletion, RangeTombstoneMarker, RowDeletion,
    RowView,
};
use super::{DecodeOptions, Finding, FindingKind};
use crate::component::ComponentType;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// Unfiltered flag: nothing follows, the partition ends.
pub const END_OF_PARTITION: u8 = 0x01;
/// Unfiltered flag: a range tombstone marker, not a row.
pub const IS_MARKER: u8 = 0x02;
/// Row flag: primary key liveness timestamp present.
pub const HAS_TIMESTAMP: u8 = 0x04;
/// Row flag: the liveness is expiring (TTL and local expiration time follow).
pub const HAS_TTL: u8 = 0x08;
/// Row flag: row deletion present.
pub const HAS_DELETION: u8 = 0x10;
/// Row flag: every header column present, no subset stored.
pub const HAS_ALL_COLUMNS: u8 = 0x20;
/// Row flag: every complex column carries a deletion time.
pub const HAS_COMPLEX_DELETION: u8 = 0x40;
/// Row flag: an extended-flags byte follows.
pub const EXTENSION_FLAG: u8 = 0x80;
/// Extended flag: the static row.
pub const IS_STATIC: u8 = 0x01;
/// Extended flag: the row deletion is shadowable (deprecated, Cassandra materialized views).
pub const HAS_SHADOWABLE_DELETION: u8 = 0x02;
/// Extended flag (ScyllaDB): an extra shadowable row tombstone follows the row deletion.
pub const SCYLLA_HAS_SHADOWABLE_TOMBSTONE: u8 = 0x80;

/// A static or regular row.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Row {
    /// Absolute uncompressed Data.db offset of the flags byte.
    pub position: u64,
    /// From the flags byte to the declared end of the row.
    pub span: Span,
    pub is_static: bool,
    pub flags: Spanned<u8>,
    pub extended_flags: Option<Spanned<u8>>,
    /// `None` for the static row.
    pub clustering: Option<Clustering>,
    /// Declared bytes after the row size field.
    pub row_size: Spanned<u64>,
    pub previous_unfiltered_size: Spanned<u64>,
    pub liveness: Option<LivenessInfo>,
    pub deletion: Option<RowDeletion>,
    /// ScyllaDB's extra shadowable tombstone (extended flag 0x80).
    pub scylla_shadowable_deletion: Option<DeletionTime>,
    pub columns: ColumnSubset,
    /// One entry per present column, in column order.
    pub column_data: Vec<ColumnData>,
    /// Where decoding of the row's body stopped (the declared end, unless a size finding says
    /// otherwise).
    pub body_end: u64,
    pub findings: Vec<Finding>,
}

impl Row {
    /// The cells of the row, simple and complex, in column order.
    pub fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.column_data.iter().flat_map(ColumnData::cells)
    }

    /// The data of the column at `column_index` (into `DataSchema::columns(self.is_static)`).
    pub fn column(&self, column_index: usize) -> Option<&ColumnData> {
        self.column_data
            .iter()
            .find(|c| c.column_index() == column_index)
    }
}

impl RowView<'_> {
    /// The owned row, without column data, body end and findings (they follow the cells).
    pub fn to_row_head(&self) -> Row {
        Row {
            position: self.position,
            span: self.span,
            is_static: self.is_static,
            flags: self.flags.clone(),
            extended_flags: self.extended_flags.clone(),
            clustering: self.clustering.as_ref().map(ClusteringView::to_owned),
            row_size: self.row_size.clone(),
            previous_unfiltered_size: self.previous_unfiltered_size.clone(),
            liveness: self.liveness.clone(),
            deletion: self.deletion.clone(),
            scylla_shadowable_deletion: self.scylla_shadowable_deletion.clone(),
            columns: self.column_subset(),
            column_data: Vec::new(),
            body_end: self.span.end,
            findings: Vec::new(),
        }
    }
}

/// The part of an unfiltered read before its body: enough to know where it ends.
#[derive(Debug, Clone)]
pub(crate) enum Head<'a> {
    EndOfPartition(Spanned<u8>),
    Row(UnfilteredHead<Option<ClusteringView<'a>>>),
    Marker(UnfilteredHead<ClusteringBoundOrBoundary>),
}

#[derive(Debug, Clone)]
pub(crate) struct UnfilteredHead<P> {
    pub position: u64,
    pub flags: Spanned<u8>,
    pub extended_flags: Option<Spanned<u8>>,
    pub prefix: P,
    pub size: Spanned<u64>,
    pub body_start: u64,
    pub declared_end: u64,
}

/// Reads flags, extended flags, clustering or bound and the size field. `static_row` says
/// whether the static row is expected here.
#[inline(always)]
pub(crate) fn read_head<'a>(
    r: &mut Reader<'a>,
    schema: &'a DataSchema,
    options: &DecodeOptions,
    static_row: bool,
) -> Result<Head<'a>> {
    let position = r.offset();
    let flags = r.spanned(|r| r.u8("unfiltered flags"))?;
    let raw = flags.value;
    if !static_row && raw & END_OF_PARTITION != 0 {
        return Ok(Head::EndOfPartition(flags));
    }
    let extended_flags = if raw & EXTENSION_FLAG != 0 {
        Some(r.spanned(|r| r.u8("extended flags"))?)
    } else {
        None
    };
    let ext = extended_flags.as_ref().map_or(0, |e| e.value);
    let is_marker = raw & IS_MARKER != 0;
    if static_row && (raw & (END_OF_PARTITION | IS_MARKER) != 0 || ext & IS_STATIC == 0) {
        return Err(r.invalid_at(
            format!(
                "expected the static row (the header has static columns), found flags {raw:#04x}{}",
                extended_flags.as_ref().map_or(String::new(), |e| format!(
                    ", extended flags {:#04x}",
                    e.value
                ))
            ),
            position,
            "static row flags",
        ));
    }
    if !static_row && !is_marker && ext & IS_STATIC != 0 {
        return Err(r.invalid_at(
            format!("a non-static position holds a row with the IS_STATIC flag (flags {raw:#04x}, extended {ext:#04x})"),
            position,
            "unfiltered flags",
        ));
    }
    if is_marker {
        let bound = read_bound(r, schema, options)?;
        let (size, body_start, declared_end) = read_size(r, options, "marker size")?;
        Ok(Head::Marker(UnfilteredHead {
            position,
            flags,
            extended_flags,
            prefix: bound,
            size,
            body_start,
            declared_end,
        }))
    } else {
        let clustering = if static_row {
            None
        } else {
            Some(read_clustering_view(r, schema, options)?)
        };
        let (size, body_start, declared_end) = read_size(r, options, "row size")?;
        Ok(Head::Row(UnfilteredHead {
            position,
            flags,
            extended_flags,
            prefix: clustering,
            size,
            body_start,
            declared_end,
        }))
    }
}

#[inline(always)]
fn read_size(
    r: &mut Reader<'_>,
    options: &DecodeOptions,
    what: &'static str,
) -> Result<(Spanned<u64>, u64, u64)> {
    let start = r.offset();
    let size = r.unsigned_vint(what)?;
    let span = r.span_from(start);
    let body_start = r.offset();
    let declared_end = body_start
        .checked_add(size)
        .filter(|_| size <= options.max_unfiltered_bytes);
    match declared_end {
        Some(end) => Ok((Spanned { value: size, span }, body_start, end)),
        None => Err(size_too_large(r, options, what, size, start)),
    }
}

/// [`read_size`]'s error, out of line.
#[cold]
#[inline(never)]
fn size_too_large(
    r: &Reader<'_>,
    options: &DecodeOptions,
    what: &'static str,
    size: u64,
    start: u64,
) -> crate::Error {
    r.invalid_at(
        format!(
            "{what} {size} exceeds the maximum unfiltered size of {} bytes",
            options.max_unfiltered_bytes
        ),
        start,
        what,
    )
}

/// A finding when the body ended before its declared end (a body that runs past it fails to
/// decode inside the declared bytes instead).
#[inline(always)]
fn check_size(
    what: &str,
    body_end: u64,
    declared_end: u64,
    size: &Spanned<u64>,
) -> Option<Finding> {
    if body_end == declared_end {
        None
    } else {
        Some(size_mismatch(what, body_end, declared_end, size))
    }
}

/// [`check_size`]'s finding, out of line.
#[cold]
#[inline(never)]
fn size_mismatch(what: &str, body_end: u64, declared_end: u64, size: &Spanned<u64>) -> Finding {
    Finding::new(
        FindingKind::SizeMismatch,
        size.span,
        format!(
            "{what} declares {} bytes after its size field but its body used {}; decoding \
             continues at the declared end",
            size.value,
            size.value
                .saturating_sub(declared_end.saturating_sub(body_end))
        ),
    )
}

/// Reusable buffers of the row decoder (no allocation per row once grown).
#[derive(Debug, Clone, Default)]
pub(crate) struct RowScratch {
    pub present: Vec<usize>,
    pub findings: Vec<Finding>,
}

impl<'a> UnfilteredHead<Option<ClusteringView<'a>>> {
    /// Decodes the row body from `r`, which holds exactly the declared bytes, handing the row
    /// and its cells to `v`. Returns where the body ended and the previous unfiltered size; the
    /// body's findings (and a size
    /// mismatch) are left in `scratch.findings`.
    pub(crate) fn visit_body<V: DataVisitor + ?Sized>(
        &self,
        r: &mut Reader<'a>,
        schema: &DataSchema,
        options: &DecodeOptions,
        scratch: &mut RowScratch,
        v: &mut V,
    ) -> Result<(u64, Spanned<u64>)> {
        let flags = self.flags.value;
        let ext = self.extended_flags.as_ref().map_or(0, |e| e.value);
        let is_static = self.prefix.is_none();
        let base = &schema.delta_base;
        let findings = &mut scratch.findings;
        findings.clear();
        if ext & !(IS_STATIC | HAS_SHADOWABLE_DELETION | SCYLLA_HAS_SHADOWABLE_TOMBSTONE) != 0 {
            if let Some(e) = &self.extended_flags {
                findings.push(Finding::new(
                    FindingKind::UnexpectedFlags,
                    e.span,
                    format!("extended flags {ext:#04x} set unknown bits"),
                ));
            }
        }
        if flags & HAS_TTL != 0 && flags & HAS_TIMESTAMP == 0 {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                self.flags.span,
                "HAS_TTL without HAS_TIMESTAMP: Cassandra ignores the TTL flag".to_owned(),
            ));
        }
        let previous_unfiltered_size =
            r.spanned(|r| r.unsigned_vint("previous unfiltered size"))?;
        let liveness = if flags & HAS_TIMESTAMP != 0 {
            Some(LivenessInfo::read(r, base, flags & HAS_TTL != 0, findings)?)
        } else {
            None
        };
        let deletion = if flags & HAS_DELETION != 0 {
            let time = read_delta_deletion_time(r, base, "row deletion")?;
            check_deletion(&time, "row deletion", findings);
            Some(RowDeletion {
                time,
                is_shadowable: ext & HAS_SHADOWABLE_DELETION != 0,
            })
        } else {
            None
        };
        let scylla_shadowable_deletion = if ext & SCYLLA_HAS_SHADOWABLE_TOMBSTONE != 0 {
            let time = read_delta_deletion_time(r, base, "Scylla shadowable row deletion")?;
            check_deletion(&time, "Scylla shadowable row deletion", findings);
            Some(time)
        } else {
            None
        };
        let header_columns = schema.columns(is_static);
        let superset_count = header_columns.len();
        let present = &mut scratch.present;
        let columns_start = r.rest();
        let (columns_span, columns_encoding, present_columns) = if flags & HAS_ALL_COLUMNS != 0 {
            let all = PresentColumns::all(superset_count, present);
            (None, ColumnsEncoding::AllColumnsFlag, all)
        } else {
            let (span, encoding, columns) =
                ColumnSubset::read_present(r, superset_count, None, present)?;
            (Some(span), encoding, columns)
        };
        let columns_len = columns_span.map_or(0, |s| usize::try_from(s.len_bytes()).unwrap_or(0));
        v.row_start(&RowView {
            position: self.position,
            span: Span::new(self.position, self.declared_end),
            is_static,
            flags: self.flags.clone(),
            extended_flags: self.extended_flags.clone(),
            clustering: self.prefix.clone(),
            row_size: self.size.clone(),
            previous_unfiltered_size: previous_unfiltered_size.clone(),
            liveness: liveness.clone(),
            deletion,
            scylla_shadowable_deletion,
            columns_encoding,
            columns_span,
            columns_bytes: columns_start.get(..columns_len).unwrap_or(&[]),
            superset_count,
        });
        let has_complex_deletion = flags & HAS_COMPLEX_DELETION != 0;
        let row_times = RowTimes::of(liveness.as_ref());
        // The column data is read from one slice and one position (`at`), the reader moved
        // past it once at the end. A body is far below 4 GiB (`max_unfiltered_bytes`); one that
        // is not is refused here, once, rather than checked in every cell.
        let data = r.rest();
        let data_offset = r.offset();
        if u32::try_from(data.len()).is_err() {
            return Err(r.invalid_at(
                format!("{} bytes of column data in one row", data.len()),
                data_offset,
                "row column data",
            ));
        }
        let mut at = 0usize;
        for index in present_columns.iter(present) {
            let Some(column) = header_columns.get(index) else {
                return Err(r.invalid_at(
                    format!("column index {index} beyond the header"),
                    data_offset.saturating_add(at as u64),
                    "row column data",
                ));
            };
            match column.kind {
                ColumnKind::Simple => {
                    CellView::visit(
                        data,
                        data_offset,
                        &mut at,
                        column,
                        index,
                        &row_times,
                        base,
                        options,
                        findings,
                        v,
                    )?;
                }
                ColumnKind::Complex => {
                    let fast = if has_complex_deletion {
                        None
                    } else {
                        ComplexColumnHead::read_fast(data, data_offset, at, index)
                    };
                    let (head, n) = match fast {
                        Some((head, n, end)) => {
                            #[cfg(debug_assertions)]
                            ComplexColumnHead::check_fast_path(
                                data,
                                data_offset,
                                at,
                                column,
                                index,
                                base,
                                (&head, n, end),
                            );
                            at = end;
                            (head, n)
                        }
                        None => {
                            let mut hr = Reader::at(data, data_offset, at)
                                .for_component(ComponentType::Data);
                            let read = ComplexColumnHead::read(
                                &mut hr,
                                column,
                                index,
                                has_complex_deletion,
                                base,
                                findings,
                            )?;
                            at = hr.position();
                            read
                        }
                    };
                    v.complex_column_start(column, &head);
                    for _ in 0..n {
                        CellView::visit(
                            data,
                            data_offset,
                            &mut at,
                            column,
                            index,
                            &row_times,
                            base,
                            options,
                            findings,
                            v,
                        )?;
                    }
                    v.complex_column_end(data_offset.saturating_add(at as u64));
                }
            }
        }
        r.skip(at, "row column data")?;
        let body_end = r.offset();
        let what = if is_static { "static row" } else { "row" };
        if let Some(f) = check_size(what, body_end, self.declared_end, &self.size) {
            findings.push(f);
        }
        Ok((body_end, previous_unfiltered_size))
    }
}

impl UnfilteredHead<ClusteringBoundOrBoundary> {
    /// Decodes the marker body from `r`, which holds exactly the declared bytes.
    pub(crate) fn read_body(
        &self,
        r: &mut Reader<'_>,
        schema: &DataSchema,
    ) -> Result<RangeTombstoneMarker> {
        let base = &schema.delta_base;
        let mut findings = Vec::new();
        if let Some(e) = &self.extended_flags {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                e.span,
                format!(
                    "a range tombstone marker with extended flags {:#04x} (markers never have them)",
                    e.value
                ),
            ));
        }
        let previous_unfiltered_size =
            r.spanned(|r| r.unsigned_vint("previous unfiltered size"))?;
        let deletion = if self.prefix.kind.is_boundary() {
            let end = read_delta_deletion_time(r, base, "boundary end deletion")?;
            let start = read_delta_deletion_time(r, base, "boundary start deletion")?;
            check_deletion(&end, "range tombstone boundary (end)", &mut findings);
            check_deletion(&start, "range tombstone boundary (start)", &mut findings);
            MarkerDeletion::Boundary { end, start }
        } else {
            let d = read_delta_deletion_time(r, base, "range tombstone deletion")?;
            check_deletion(&d, "range tombstone marker", &mut findings);
            MarkerDeletion::Bound(d)
        };
        let body_end = r.offset();
        findings.extend(check_size(
            "range tombstone marker",
            body_end,
            self.declared_end,
            &self.size,
        ));
        Ok(RangeTombstoneMarker {
            position: self.position,
            span: Span::new(self.position, self.declared_end),
            flags: self.flags.clone(),
            extended_flags: self.extended_flags.clone(),
            bound: self.prefix.clone(),
            marker_size: self.size.clone(),
            previous_unfiltered_size,
            deletion,
            findings,
        })
    }
}
