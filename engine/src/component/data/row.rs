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
use super::columns::{low_bits, ColumnSubset, ColumnsEncoding, PresentColumns};
use super::deletion::{
    check_deletion, expiration_is_suspicious, read_delta_deletion_time, DeletionTime, LivenessInfo,
    LocalDeletionTime,
};
use super::schema::{ColumnKind, DataSchema};
use super::view::{
    CellView, ComplexColumnHead, DataVisitor, MarkerDeletion, RangeTombstoneMarker, RowDeletion,
    RowView,
};
use super::{DecodeOptions, Finding, FindingKind};
use crate::component::ComponentType;
use crate::error::Result;
use crate::reader::{vint_at, Reader};
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
        Some(size_mismatch(
            what,
            body_end,
            declared_end,
            size.value,
            size.span,
        ))
    }
}

/// [`check_size`]'s finding, out of line (the size by value: a reference would keep the row's
/// head in memory on the hot path).
#[cold]
#[inline(never)]
fn size_mismatch(what: &str, body_end: u64, declared_end: u64, size: u64, span: Span) -> Finding {
    Finding::new(
        FindingKind::SizeMismatch,
        span,
        format!(
            "{what} declares {size} bytes after its size field but its body used {}; decoding \
             continues at the declared end",
            size.saturating_sub(declared_end.saturating_sub(body_end))
        ),
    )
}

/// Reusable buffers of the row decoder (no allocation per row once grown).
#[derive(Debug, Clone, Default)]
pub(crate) struct RowScratch {
    pub present: Vec<usize>,
    pub findings: Vec<Finding>,
}

/// A row's body up to its column data: previous size, liveness, deletions and the column
/// subset, read through the checked [`Reader`] ([`UnfilteredHead::read_prelude`]) or by plain
/// slice reads ([`read_row_fast`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RowPrelude<'a> {
    pub previous_unfiltered_size: Spanned<u64>,
    pub liveness: Option<LivenessInfo>,
    pub deletion: Option<RowDeletion>,
    pub scylla_shadowable_deletion: Option<DeletionTime>,
    pub columns_span: Option<Span>,
    pub columns_encoding: ColumnsEncoding,
    pub present_columns: PresentColumns,
    /// The stored column subset (empty with HAS_ALL_COLUMNS).
    pub columns_bytes: &'a [u8],
}

/// A row read up to its column data (by [`read_row_fast`] or the checked path): its head, its
/// prelude, where its column data starts and where it ends (the declared end), relative to the
/// first byte of the window.
#[derive(Debug, Clone)]
pub(crate) struct RowStart<'a> {
    pub head: UnfilteredHead<Option<ClusteringView<'a>>>,
    pub prelude: RowPrelude<'a>,
    pub data_start: usize,
    pub declared_len: usize,
}

/// The head and prelude of a plain row at `bytes[0]` (absolute `pos`) by plain slice reads,
/// every length and bound checked: flags without END_OF_PARTITION, IS_MARKER and
/// EXTENSION_FLAG (so not the static row), the clustering, the row size (within the cap and
/// the window), then inside the declared body the previous size, the liveness, no row
/// deletion, and every column or a missing-columns bitmap below 64 columns. `None` for any
/// other row, one with a finding to report, or one that does not decode: the checked path
/// ([`read_head`], [`UnfilteredHead::visit_body`]) reads it again for the rest, the findings,
/// the error and its offset, or to wait for more data.
#[inline(always)]
pub(crate) fn read_row_fast<'a>(
    bytes: &'a [u8],
    pos: u64,
    schema: &'a DataSchema,
    options: &DecodeOptions,
) -> Option<RowStart<'a>> {
    let flags = *bytes.first()?;
    if flags & (END_OF_PARTITION | IS_MARKER | EXTENSION_FLAG | HAS_DELETION | HAS_COMPLEX_DELETION)
        != 0
        || flags & (HAS_TTL | HAS_TIMESTAMP) == HAS_TTL
    {
        return None;
    }
    // Positions in `bytes`, so below `usize::MAX`, and `pos` plus them is a position of the
    // file (below 2^64): the additions below cannot wrap.
    let abs = |at: usize| pos.wrapping_add(at as u64);
    let mut at = 1usize;
    let clustering = ClusteringView::clustering_at(
        bytes,
        pos,
        &mut at,
        super::clustering::layout(schema, options),
    )?;
    let size_start = at;
    let size = vint_at(bytes, &mut at)?;
    if size > options.max_unfiltered_bytes {
        return None;
    }
    let body_start = at;
    let declared_len = body_start.checked_add(usize::try_from(size).ok()?)?;
    let body = bytes.get(..declared_len)?;
    let prev_start = at;
    let previous = vint_at(body, &mut at)?;
    let previous_unfiltered_size = Spanned {
        value: previous,
        span: Span::new(abs(prev_start), abs(at)),
    };
    let base = &schema.delta_base;
    let liveness = if flags & HAS_TIMESTAMP != 0 {
        let start = at;
        let delta = vint_at(body, &mut at)?;
        let timestamp_micros = Spanned {
            value: base.min_timestamp_micros.wrapping_add(delta as i64),
            span: Span::new(abs(start), abs(at)),
        };
        let (ttl_secs, local_expiration_time) = if flags & HAS_TTL != 0 {
            let ttl_start = at;
            let ttl = base
                .min_ttl_secs
                .wrapping_add(vint_at(body, &mut at)? as u32 as i32);
            let ldt_start = at;
            let raw = base
                .min_local_deletion_time_raw
                .wrapping_add(vint_at(body, &mut at)? as u32);
            let ldt = LocalDeletionTime::new(raw, base.unsigned_deletion_time);
            if expiration_is_suspicious(ttl, &ldt) {
                return None;
            }
            (
                Some(Spanned {
                    value: ttl,
                    span: Span::new(abs(ttl_start), abs(ldt_start)),
                }),
                Some(Spanned {
                    value: ldt,
                    span: Span::new(abs(ldt_start), abs(at)),
                }),
            )
        } else {
            (None, None)
        };
        Some(LivenessInfo {
            span: Span::new(abs(start), abs(at)),
            timestamp_micros,
            ttl_secs,
            local_expiration_time,
        })
    } else {
        None
    };
    let superset_count = schema.columns(false).len();
    let columns_start = at;
    let (columns_span, columns_encoding, bits) = if flags & HAS_ALL_COLUMNS != 0 {
        if superset_count > 64 {
            return None;
        }
        (
            None,
            ColumnsEncoding::AllColumnsFlag,
            low_bits(superset_count),
        )
    } else {
        let encoded = vint_at(body, &mut at)?;
        // The bitmap of the missing columns below 64 columns (`ColumnSubset::read_present`).
        if encoded == 0 || superset_count >= 64 || encoded >> superset_count != 0 {
            return None;
        }
        (
            Some(Span::new(abs(columns_start), abs(at))),
            ColumnsEncoding::MissingBitmap(encoded),
            !encoded & low_bits(superset_count),
        )
    };
    let columns_bytes = body.get(columns_start..at)?;
    Some(RowStart {
        head: UnfilteredHead {
            position: pos,
            flags: Spanned {
                value: flags,
                span: Span::new(pos, abs(1)),
            },
            extended_flags: None,
            prefix: Some(clustering),
            size: Spanned {
                value: size,
                span: Span::new(abs(size_start), abs(body_start)),
            },
            body_start: abs(body_start),
            declared_end: abs(declared_len),
        },
        prelude: RowPrelude {
            previous_unfiltered_size,
            liveness,
            deletion: None,
            scylla_shadowable_deletion: None,
            columns_span,
            columns_encoding,
            present_columns: PresentColumns::Bits(bits),
            columns_bytes,
        },
        data_start: at,
        declared_len,
    })
}

/// The error of a row's column data, at absolute `offset`.
#[cold]
#[inline(never)]
fn data_error(msg: String, offset: u64) -> crate::Error {
    crate::Error::new(crate::error::ErrorKind::InvalidValue(msg), offset)
        .context("row column data")
        .in_component(ComponentType::Data)
}

impl<'a> UnfilteredHead<Option<ClusteringView<'a>>> {
    /// Decodes the row body from `r`, which holds exactly the declared bytes, handing the row
    /// and its cells to `v` (the trial decodes of an ambiguous frozen-UDT header). Returns where
    /// the body ended and the previous unfiltered size; the body's findings (and a size
    /// mismatch) are left in `scratch.findings`.
    pub(crate) fn visit_body<V: DataVisitor + ?Sized>(
        &self,
        r: &mut Reader<'a>,
        schema: &DataSchema,
        options: &DecodeOptions,
        scratch: &mut RowScratch,
        v: &mut V,
    ) -> Result<(u64, Spanned<u64>)> {
        scratch.findings.clear();
        let prelude = self.read_prelude(r, schema, scratch)?;
        let at = self.visit_columns(&prelude, r.rest(), r.offset(), schema, options, scratch, v)?;
        r.skip(at, "row column data")?;
        let body_end = r.offset();
        self.check_body_end(body_end, &mut scratch.findings);
        Ok((body_end, prelude.previous_unfiltered_size))
    }

    /// A size mismatch finding when the body ended before the declared end.
    #[inline(always)]
    pub(crate) fn check_body_end(&self, body_end: u64, findings: &mut Vec<Finding>) {
        let what = if self.prefix.is_none() {
            "static row"
        } else {
            "row"
        };
        if let Some(f) = check_size(what, body_end, self.declared_end, &self.size) {
            findings.push(f);
        }
    }

    /// The body up to the column data through the checked reader: previous size, liveness,
    /// deletions, column subset (findings into `scratch.findings`, the listed columns of a
    /// large subset into `scratch.present`).
    #[inline(always)]
    pub(crate) fn read_prelude(
        &self,
        r: &mut Reader<'a>,
        schema: &DataSchema,
        scratch: &mut RowScratch,
    ) -> Result<RowPrelude<'a>> {
        let flags = self.flags.value;
        let ext = self.extended_flags.as_ref().map_or(0, |e| e.value);
        let is_static = self.prefix.is_none();
        let base = &schema.delta_base;
        let findings = &mut scratch.findings;
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
        let superset_count = schema.columns(is_static).len();
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
        Ok(RowPrelude {
            previous_unfiltered_size,
            liveness,
            deletion,
            scylla_shadowable_deletion,
            columns_span,
            columns_encoding,
            present_columns,
            columns_bytes: columns_start.get(..columns_len).unwrap_or(&[]),
        })
    }

    /// Hands the row (head and prelude `p`) to `v`, then decodes its column data from `data`
    /// (first byte at absolute `data_offset`; the rest of the declared body), handing each
    /// cell and complex column to `v`. Returns the bytes of `data` the columns used.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn visit_columns<V: DataVisitor + ?Sized>(
        &self,
        p: &RowPrelude<'a>,
        data: &'a [u8],
        data_offset: u64,
        schema: &DataSchema,
        options: &DecodeOptions,
        scratch: &mut RowScratch,
        v: &mut V,
    ) -> Result<usize> {
        let flags = self.flags.value;
        let is_static = self.prefix.is_none();
        let base = &schema.delta_base;
        let header_columns = schema.columns(is_static);
        v.row_start(&RowView {
            position: self.position,
            span: Span::new(self.position, self.declared_end),
            is_static,
            flags: self.flags.clone(),
            extended_flags: self.extended_flags.clone(),
            clustering: self.prefix.clone(),
            row_size: self.size.clone(),
            previous_unfiltered_size: p.previous_unfiltered_size.clone(),
            liveness: p.liveness.clone(),
            deletion: p.deletion.clone(),
            scylla_shadowable_deletion: p.scylla_shadowable_deletion.clone(),
            columns_encoding: p.columns_encoding,
            columns_span: p.columns_span,
            columns_bytes: p.columns_bytes,
            superset_count: header_columns.len(),
        });
        let has_complex_deletion = flags & HAS_COMPLEX_DELETION != 0;
        let row_times = RowTimes::of(p.liveness.as_ref());
        // The column data is read from one slice and one position (`at`), the reader moved
        // past it once at the end. A body is far below 4 GiB (`max_unfiltered_bytes`); one that
        // is not is refused here, once, rather than checked in every cell.
        if u32::try_from(data.len()).is_err() {
            return Err(data_error(
                format!("{} bytes of column data in one row", data.len()),
                data_offset,
            ));
        }
        let mut at = 0usize;
        for index in p.present_columns.iter(&scratch.present) {
            let Some(column) = header_columns.get(index) else {
                return Err(data_error(
                    format!("column index {index} beyond the header"),
                    data_offset.saturating_add(at as u64),
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
                        &mut scratch.findings,
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
                                &mut scratch.findings,
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
                            &mut scratch.findings,
                            v,
                        )?;
                    }
                    v.complex_column_end(data_offset.saturating_add(at as u64));
                }
            }
        }
        Ok(at)
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
