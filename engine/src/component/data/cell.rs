//! Cells and complex columns: decoding a cell into its view, and the owned forms.
//!
//! Cell (`Cell.Serializer`):
//!
//! | part | encoding | when |
//! |---|---|---|
//! | flags | u8: 0x01 IS_DELETED, 0x02 IS_EXPIRING, 0x04 HAS_EMPTY_VALUE, 0x08 USE_ROW_TIMESTAMP, 0x10 USE_ROW_TTL | always |
//! | timestamp | delta vint | unless USE_ROW_TIMESTAMP |
//! | local deletion time | delta vint | (deleted or expiring) and not USE_ROW_TTL |
//! | ttl | delta vint | expiring and not USE_ROW_TTL |
//! | cell path | vint length + bytes | cells of complex columns |
//! | value | fixed-length type: the bytes; else vint length + bytes (always for complex columns) | unless HAS_EMPTY_VALUE |
//!
//! Complex column (`UnfilteredSerializer.writeComplexColumn`): [complex deletion: timestamp delta,
//! ldt delta — for every complex column when the row has HAS_COMPLEX_DELETION], unsigned vint
//! cell count, cells.
//!
//! Counter cells' values are decoded by [`CounterContext`] (`counter`); the views and flags
//! are in `view`.
//!
//! Src: `src/java/org/apache/cassandra/db/rows/Cell.java` (`Serializer`), `db/rows/BufferCell.java`,
//! `db/rows/UnfilteredSerializer.java` (`readComplexColumn`), `db/rows/CellPath.java`,
//! `db/marshal/CollectionType.java` (`cellPathSerializer`), `db/context/CounterContext.java`
//! (`headerLength`, `total`, `ContextState`).

use serde::Serialize;

use super::counter::CounterContext;
use super::deletion::{
    check_deletion, check_expiration, deletion_is_suspicious, expiration_is_suspicious,
    read_delta_deletion_time, DeletionTime, LivenessInfo, LocalDeletionTime,
};
use super::schema::{ColumnSchema, DeltaBase};
use super::view::{
    CellEnds, CellKind, CellView, ComplexColumnHead, DataVisitor, HAS_EMPTY_VALUE, IS_DELETED,
    IS_EXPIRING, USE_ROW_TIMESTAMP, USE_ROW_TTL,
};
use super::{DecodeOptions, Finding, FindingKind, SpannedBytes};
use crate::component::common::read_value;
use crate::error::Result;
use crate::reader::{vint_at, Reader};
use crate::span::{Span, Spanned};

/// One cell. Render its value with the column's type
/// ([`ColumnSchema::cell_value_type`](super::ColumnSchema::cell_value_type)).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Cell {
    pub span: Span,
    /// Index into `DataSchema::columns(is_static)` of the row.
    pub column_index: usize,
    pub flags: Spanned<u8>,
    pub kind: CellKind,
    pub timestamp_micros: i64,
    /// `None` when taken from the row (USE_ROW_TIMESTAMP).
    pub timestamp_span: Option<Span>,
    /// Tombstones: when deleted; expiring cells: when they expire. `None` for plain live cells.
    pub local_deletion_time: Option<LocalDeletionTime>,
    /// `None` when absent or taken from the row (USE_ROW_TTL).
    pub local_deletion_time_span: Option<Span>,
    /// Expiring cells only.
    pub ttl_secs: Option<i32>,
    /// `None` when absent or taken from the row (USE_ROW_TTL).
    pub ttl_span: Option<Span>,
    /// Cells of complex columns: the path (list: TimeUUID; set: element; map: key; UDT: 2-byte
    /// field index), without its length prefix.
    pub path: Option<SpannedBytes>,
    /// The raw value bytes (empty with HAS_EMPTY_VALUE); the span covers the length prefix.
    pub value: SpannedBytes,
    /// Live cells of counter columns: the decoded CounterContext.
    pub counter: Option<CounterContext>,
}

impl Cell {
    pub fn is_tombstone(&self) -> bool {
        self.kind == CellKind::Tombstone
    }

    pub fn is_expiring(&self) -> bool {
        matches!(self.kind, CellKind::Expiring | CellKind::Expired)
    }

    /// The cell as a view borrowing it (the inverse of [`CellView::to_cell`]), so a visitor
    /// can be handed owned cells, e.g. a merged row's. Its part spans are the cell's.
    pub fn view(&self) -> CellView<'_> {
        let start = self.span.start;
        let rel = |end: u64| u32::try_from(end.saturating_sub(start)).unwrap_or(u32::MAX);
        let timestamp = self.timestamp_span.map_or(1, |s| rel(s.end));
        let local_deletion_time = self
            .local_deletion_time_span
            .map_or(timestamp, |s| rel(s.end));
        let ttl = self.ttl_span.map_or(local_deletion_time, |s| rel(s.end));
        let path = self.path.as_ref().map_or(ttl, |p| rel(p.span.end));
        CellView {
            position: start,
            column_index: self.column_index,
            flags: self.flags.value,
            kind: self.kind,
            timestamp_micros: self.timestamp_micros,
            local_deletion_time: self.local_deletion_time,
            ttl_secs: self.ttl_secs,
            path: self.path.as_ref().map(|p| p.bytes.as_slice()),
            value: &self.value.bytes,
            ends: CellEnds {
                timestamp,
                local_deletion_time,
                ttl,
                path,
                value: rel(self.span.end),
            },
            counter: self.counter.clone().map(Box::new),
        }
    }
}

impl<'a> CellView<'a> {
    /// The owned cell.
    pub fn to_cell(&self) -> Cell {
        Cell {
            span: self.span(),
            column_index: self.column_index,
            flags: Spanned {
                value: self.flags,
                span: self.flags_span(),
            },
            kind: self.kind,
            timestamp_micros: self.timestamp_micros,
            timestamp_span: self.timestamp_span(),
            local_deletion_time: self.local_deletion_time,
            local_deletion_time_span: self.local_deletion_time_span(),
            ttl_secs: self.ttl_secs,
            ttl_span: self.ttl_span(),
            path: self
                .path
                .zip(self.path_span())
                .map(|(bytes, span)| SpannedBytes {
                    bytes: bytes.to_vec(),
                    span,
                }),
            value: SpannedBytes {
                bytes: self.value.to_vec(),
                span: self.value_span(),
            },
            counter: self.counter.as_deref().cloned(),
        }
    }

    /// Decodes one cell of `column` in place (`Cell.Serializer.deserialize`): flags, the
    /// timestamp, deletion time and TTL vints the flags announce, the path of a complex
    /// column's cell, the value (fixed length or vint length, resolved once per column in
    /// [`ColumnSchema::fixed_value_length_bytes`]). The cell starts at `bytes[*at]` (`bytes`'
    /// first byte is at absolute `offset`, and `bytes` is shorter than 4 GiB: the caller checks
    /// that once per row) and `*at` moves past it: the row's cells are read from one slice and
    /// one position, with no reader call per cell. Allocates nothing unless it has a finding or
    /// is a counter; the checks of deleted and expiring cells run out of line. The view goes to
    /// `v` (built once, in place).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn visit<V: DataVisitor + ?Sized>(
        bytes: &'a [u8],
        offset: u64,
        at: &mut usize,
        column: &ColumnSchema,
        column_index: usize,
        row: &RowTimes,
        base: &DeltaBase,
        options: &DecodeOptions,
        findings: &mut Vec<Finding>,
        v: &mut V,
    ) -> Result<()> {
        let start = *at;
        if let Some(end) = Self::visit_fast(
            bytes,
            start,
            offset,
            column,
            column_index,
            row,
            base,
            options,
            findings,
            v,
        ) {
            #[cfg(debug_assertions)]
            Self::check_fast_path(
                bytes,
                start,
                offset,
                end,
                column,
                column_index,
                row,
                base,
                options,
            );
            *at = end;
            return Ok(());
        }
        let mut r =
            Reader::at(bytes, offset, start).for_component(crate::component::ComponentType::Data);
        let cell = Self::read_checked(&mut r, column, column_index, row, base, options, findings)?;
        v.cell(column, &cell);
        *at = r.position();
        Ok(())
    }

    /// Debug builds (every test run): the fast path's cell equals the checked path's, field by
    /// field (the ends of its parts, so its spans, included), with the same length and the same
    /// findings — the two decode the same layout and must be kept in step. Allocates nothing
    /// for a plain cell (`tests/data_alloc.rs` counts a debug build's allocations).
    #[cfg(debug_assertions)]
    #[allow(clippy::too_many_arguments)]
    fn check_fast_path(
        bytes: &'a [u8],
        start: usize,
        offset: u64,
        end: usize,
        column: &ColumnSchema,
        column_index: usize,
        row: &RowTimes,
        base: &DeltaBase,
        options: &DecodeOptions,
    ) {
        /// Everything a cell view holds, without allocating (borrowed parts by address and
        /// length: the two views must borrow the same bytes).
        #[derive(Debug, PartialEq)]
        struct Seen {
            position: u64,
            column_index: usize,
            flags: u8,
            kind: CellKind,
            timestamp_micros: i64,
            local_deletion_time: Option<LocalDeletionTime>,
            ttl_secs: Option<i32>,
            path: Option<(usize, usize)>,
            value: (usize, usize),
            ends: CellEnds,
            counter: Option<i64>,
        }
        fn seen(c: &CellView<'_>) -> Seen {
            Seen {
                position: c.position,
                column_index: c.column_index,
                flags: c.flags,
                kind: c.kind,
                timestamp_micros: c.timestamp_micros,
                local_deletion_time: c.local_deletion_time,
                ttl_secs: c.ttl_secs,
                path: c.path.map(|p| (p.as_ptr() as usize, p.len())),
                value: (c.value.as_ptr() as usize, c.value.len()),
                ends: c.ends,
                counter: c.counter.as_ref().map(|c| c.total),
            }
        }
        /// Keeps what the one cell it is given holds.
        #[derive(Default)]
        struct Keep(Option<Seen>);
        impl DataVisitor for Keep {
            fn cell(&mut self, _column: &ColumnSchema, cell: &CellView<'_>) {
                self.0 = Some(seen(cell));
            }
        }
        let mut fast = Keep::default();
        let mut fast_findings = Vec::new();
        let fast_end = Self::visit_fast(
            bytes,
            start,
            offset,
            column,
            column_index,
            row,
            base,
            options,
            &mut fast_findings,
            &mut fast,
        );
        let mut checked_reader = Reader::at(bytes, offset, start);
        let mut checked_findings = Vec::new();
        let checked = Self::read_checked(
            &mut checked_reader,
            column,
            column_index,
            row,
            base,
            options,
            &mut checked_findings,
        );
        let at = checked_reader.offset();
        debug_assert_eq!(fast_end, Some(end));
        debug_assert_eq!(
            checked_reader.position(),
            end,
            "cell lengths differ at {at}"
        );
        debug_assert_eq!(
            checked.ok().as_ref().map(seen),
            fast.0,
            "fast and checked cells differ at {at}"
        );
        debug_assert_eq!(checked_findings, fast_findings);
    }

    /// Decodes the cell at `bytes[start]` (`bytes`' first byte is at absolute `offset`; `bytes`
    /// is shorter than 4 GiB) by plain slice reads, hands it to `v` and returns where it ends;
    /// `None` when it does not decode (nothing was visited: [`CellView::read_checked`] reads it
    /// again for the error and its offset).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn visit_fast<V: DataVisitor + ?Sized>(
        bytes: &'a [u8],
        start: usize,
        offset: u64,
        column: &ColumnSchema,
        column_index: usize,
        row: &RowTimes,
        base: &DeltaBase,
        options: &DecodeOptions,
        findings: &mut Vec<Finding>,
        v: &mut V,
    ) -> Option<usize> {
        // Offsets inside the cell: `at >= start`, and both are below `bytes.len()` < 4 GiB.
        let rel = |at: usize| at.wrapping_sub(start) as u32;
        let f = *bytes.get(start)?;
        let position = offset.wrapping_add(start as u64);
        let mut at = start.wrapping_add(1);
        let timestamp_micros = if f & USE_ROW_TIMESTAMP != 0 {
            row.timestamp_micros
        } else {
            base.min_timestamp_micros
                .wrapping_add(vint_at(bytes, &mut at)? as i64)
        };
        let timestamp_end = rel(at);
        // A plain live cell (by far the most common: no deletion time, no TTL of its own or of
        // the row, no unknown flag, not a counter) has nothing to check and nothing more to
        // read before its path and value: its view is built and visited here, in one straight
        // line; the other cells below.
        if f & !(USE_ROW_TIMESTAMP | HAS_EMPTY_VALUE) == 0 && !column.is_counter {
            let (path, path_end, value) =
                path_and_value(bytes, &mut at, start, f, column, options)?;
            v.cell(
                column,
                &CellView {
                    position,
                    column_index,
                    flags: f,
                    kind: CellKind::Live,
                    timestamp_micros,
                    local_deletion_time: None,
                    ttl_secs: None,
                    path,
                    value,
                    ends: CellEnds {
                        timestamp: timestamp_end,
                        local_deletion_time: timestamp_end,
                        ttl: timestamp_end,
                        path: path_end,
                        value: rel(at),
                    },
                    counter: None,
                },
            );
            return Some(at);
        }
        // A live cell without the row's TTL has no deletion time, no TTL and nothing to check
        // about them: one test for the three flags.
        let (ldt, ttl, ldt_end, ttl_end, kind, unusual) =
            if f & (USE_ROW_TTL | IS_DELETED | IS_EXPIRING) == 0 {
                (
                    None,
                    None,
                    timestamp_end,
                    timestamp_end,
                    CellKind::Live,
                    false,
                )
            } else {
                let (mut ldt, mut ttl) = (None, None);
                if f & USE_ROW_TTL != 0 {
                    ldt = row.local_expiration_time;
                    ttl = row.ttl_secs;
                } else if f & (IS_DELETED | IS_EXPIRING) != 0 {
                    let raw = base
                        .min_local_deletion_time_raw
                        .wrapping_add(vint_at(bytes, &mut at)? as u32);
                    ldt = Some(LocalDeletionTime::new(raw, base.unsigned_deletion_time));
                }
                let ldt_end = rel(at);
                if f & (USE_ROW_TTL | IS_EXPIRING) == IS_EXPIRING {
                    ttl = Some(
                        base.min_ttl_secs
                            .wrapping_add(vint_at(bytes, &mut at)? as u32 as i32),
                    );
                }
                let kind = cell_kind(f, ldt, ttl, options);
                (ldt, ttl, ldt_end, rel(at), kind, ldt.is_some())
            };
        let (path, path_end, value) = path_and_value(bytes, &mut at, start, f, column, options)?;
        let value_end = rel(at);
        // Built where the visitor reads it (a macro, not a closure, so that it is always
        // inlined): fields the visitor does not read are never stored.
        macro_rules! cell {
            () => {
                CellView {
                    position,
                    column_index,
                    flags: f,
                    kind,
                    timestamp_micros,
                    local_deletion_time: ldt,
                    ttl_secs: ttl,
                    path,
                    value,
                    ends: CellEnds {
                        timestamp: timestamp_end,
                        local_deletion_time: ldt_end,
                        ttl: ttl_end,
                        path: path_end,
                        value: value_end,
                    },
                    counter: None,
                }
            };
        }
        if unusual || f & !0x1f != 0 || column.is_counter {
            Self::check_and_visit(cell!(), column, findings, v);
        } else {
            v.cell(column, &cell!());
        }
        Some(at)
    }

    /// An unusual cell (a deletion time, unknown flags, a counter): its findings, then `v`.
    /// Out of line, so that the plain cell's view is built only where the visitor reads it.
    #[cold]
    #[inline(never)]
    fn check_and_visit<V: DataVisitor + ?Sized>(
        mut cell: CellView<'a>,
        column: &ColumnSchema,
        findings: &mut Vec<Finding>,
        v: &mut V,
    ) {
        cell.check(column, findings);
        v.cell(column, &cell);
    }

    /// [`CellView::visit`]'s cell through the checked [`Reader`]: the same cell, or the error (with its
    /// offset) of one that does not decode.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    #[inline(never)]
    fn read_checked(
        r: &mut Reader<'a>,
        column: &ColumnSchema,
        column_index: usize,
        row: &RowTimes,
        base: &DeltaBase,
        options: &DecodeOptions,
        findings: &mut Vec<Finding>,
    ) -> Result<CellView<'a>> {
        let position = r.offset();
        let start = r.position();
        // A cell is far shorter than 4 GiB (a row is capped by `max_unfiltered_bytes`); the
        // offsets saturate rather than wrap.
        let rel =
            |r: &Reader<'a>| u32::try_from(r.position().wrapping_sub(start)).unwrap_or(u32::MAX);
        let f = r.u8("cell flags")?;
        let timestamp_micros = if f & USE_ROW_TIMESTAMP != 0 {
            row.timestamp_micros
        } else {
            let delta = r.unsigned_vint("cell timestamp")?;
            base.min_timestamp_micros.wrapping_add(delta as i64)
        };
        let timestamp_end = rel(r);
        let (mut ldt, mut ttl) = (None, None);
        if f & USE_ROW_TTL != 0 {
            ldt = row.local_expiration_time;
            ttl = row.ttl_secs;
        } else if f & (IS_DELETED | IS_EXPIRING) != 0 {
            let delta = r.unsigned_vint("cell local deletion time")?;
            let raw = base.min_local_deletion_time_raw.wrapping_add(delta as u32);
            ldt = Some(LocalDeletionTime::new(raw, base.unsigned_deletion_time));
        }
        let ldt_end = rel(r);
        if f & (USE_ROW_TTL | IS_EXPIRING) == IS_EXPIRING {
            let delta = r.unsigned_vint("cell ttl")?;
            ttl = Some(base.min_ttl_secs.wrapping_add(delta as u32 as i32));
        }
        let ttl_end = rel(r);
        let path = if column.is_complex() {
            Some(r.vint_length_bytes("cell path")?)
        } else {
            None
        };
        let path_end = rel(r);
        let value: &'a [u8] = if f & HAS_EMPTY_VALUE != 0 {
            &[]
        } else {
            read_value(
                r,
                column.fixed_value_length_bytes,
                options.max_value_bytes,
                "cell",
            )?
        };
        let kind = cell_kind(f, ldt, ttl, options);
        let mut cell = CellView {
            position,
            column_index,
            flags: f,
            kind,
            timestamp_micros,
            local_deletion_time: ldt,
            ttl_secs: ttl,
            path,
            value,
            ends: CellEnds {
                timestamp: timestamp_end,
                local_deletion_time: ldt_end,
                ttl: ttl_end,
                path: path_end,
                value: rel(r),
            },
            counter: None,
        };
        if f & !0x1f != 0 || ldt.is_some() || column.is_counter {
            cell.check(column, findings);
        }
        Ok(cell)
    }

    /// The findings of an unusual cell (unknown flags, both deleted and expiring, a bad
    /// deletion time or TTL) and a counter's context.
    #[inline(never)]
    fn check(&mut self, column: &ColumnSchema, findings: &mut Vec<Finding>) {
        let f = self.flags;
        if f & !0x1f != 0 {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                self.flags_span(),
                format!("cell flags {f:#04x} set unknown bits"),
            ));
        }
        if f & IS_DELETED != 0 && f & IS_EXPIRING != 0 {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                self.flags_span(),
                "cell is flagged both deleted and expiring".to_owned(),
            ));
        }
        let span = self.span();
        let what = || format!("cell of column {}", column.name);
        match (self.kind, self.local_deletion_time, self.ttl_secs) {
            (CellKind::Tombstone, Some(t), _) if t.is_invalid() => {
                findings.push(Finding::new(
                    FindingKind::InvalidLocalDeletionTime,
                    self.local_deletion_time_span().unwrap_or(span),
                    format!(
                        "tombstone {} has the invalid local deletion time {} (raw {:#010x})",
                        what(),
                        t.secs,
                        t.raw
                    ),
                ));
            }
            (CellKind::Expiring | CellKind::Expired, Some(t), Some(ttl_v))
                if expiration_is_suspicious(ttl_v, &t) =>
            {
                check_expiration(
                    &what(),
                    &Spanned {
                        value: ttl_v,
                        span: self.ttl_span().unwrap_or(span),
                    },
                    &Spanned {
                        value: t,
                        span: self.local_deletion_time_span().unwrap_or(span),
                    },
                    findings,
                );
            }
            _ => {}
        }
        if column.is_counter && self.kind != CellKind::Tombstone && !self.value.is_empty() {
            let value_span = self.value_span();
            let value_start = value_span.end.saturating_sub(self.value.len() as u64);
            match CounterContext::decode(self.value, value_start) {
                Ok(c) => self.counter = Some(Box::new(c)),
                Err(msg) => {
                    findings.push(Finding::new(
                        FindingKind::BadCounterContext,
                        value_span,
                        format!("counter {}: {msg}", what()),
                    ));
                }
            }
        }
    }
}

/// The row's liveness as its cells read it (USE_ROW_TIMESTAMP, USE_ROW_TTL): taken from the
/// [`LivenessInfo`] once per row, not per cell.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowTimes {
    /// `LivenessInfo.EMPTY` has NO_TIMESTAMP (`Long.MIN_VALUE`).
    pub timestamp_micros: i64,
    pub local_expiration_time: Option<LocalDeletionTime>,
    pub ttl_secs: Option<i32>,
}

impl RowTimes {
    #[inline(always)]
    pub(crate) fn of(liveness: Option<&LivenessInfo>) -> RowTimes {
        match liveness {
            Some(l) => RowTimes {
                timestamp_micros: l.timestamp_micros.value,
                local_expiration_time: l.local_expiration_time.as_ref().map(|t| t.value),
                ttl_secs: l.ttl_secs.as_ref().map(|t| t.value),
            },
            None => RowTimes {
                timestamp_micros: i64::MIN,
                local_expiration_time: None,
                ttl_secs: None,
            },
        }
    }
}

/// What a cell with flags `f`, deletion time and TTL is (`Cell.isTombstone`, `isExpiring`,
/// expired at the caller's `now_seconds`).
#[inline(always)]
fn cell_kind(
    f: u8,
    ldt: Option<LocalDeletionTime>,
    ttl: Option<i32>,
    options: &DecodeOptions,
) -> CellKind {
    if f & IS_DELETED != 0 {
        CellKind::Tombstone
    } else if ttl.is_some_and(|t| t != 0) {
        let expired = match (options.now_seconds, ldt) {
            (Some(now), Some(t)) => t.expiry_secs() <= now,
            _ => false,
        };
        if expired {
            CellKind::Expired
        } else {
            CellKind::Expiring
        }
    } else {
        CellKind::Live
    }
}

/// The `len` bytes at `bytes[*at..]`, moving `at` past them; `None` past the end.
#[inline(always)]
fn take_at<'a>(bytes: &'a [u8], at: &mut usize, len: usize) -> Option<&'a [u8]> {
    let taken = bytes.get(*at..)?.get(..len)?;
    // `*at + len <= bytes.len()`: no wrap.
    *at = at.wrapping_add(len);
    Some(taken)
}

/// A cell's path, where the path ends relative to the cell's first byte, and its value.
type PathAndValue<'a> = (Option<&'a [u8]>, u32, &'a [u8]);

/// A cell's path (complex columns) and value at `bytes[*at..]` (the cell's flags `f` at
/// `bytes[start]`), moving `at` past them: the path, where it ends relative to `start`, the
/// value. `None` past the end or with a value length above the cap.
#[inline(always)]
fn path_and_value<'a>(
    bytes: &'a [u8],
    at: &mut usize,
    start: usize,
    f: u8,
    column: &ColumnSchema,
    options: &DecodeOptions,
) -> Option<PathAndValue<'a>> {
    let path = if column.is_complex() {
        let len = usize::try_from(vint_at(bytes, at)?).ok()?;
        Some(take_at(bytes, at, len)?)
    } else {
        None
    };
    // Both below `bytes.len()` < 4 GiB (the row's check), `*at >= start`.
    let path_end = at.wrapping_sub(start) as u32;
    let value: &'a [u8] = if f & HAS_EMPTY_VALUE != 0 {
        &[]
    } else {
        let len = match column.fixed_value_length_bytes {
            Some(n) => usize::try_from(n).ok()?,
            None => {
                let len = vint_at(bytes, at)?;
                if len > options.max_value_bytes {
                    return None;
                }
                usize::try_from(len).ok()?
            }
        };
        take_at(bytes, at, len)?
    };
    Some((path, path_end, value))
}

impl ComplexColumnHead {
    /// Reads the complex deletion and cell count; the caller reads `cell_count` cells next
    /// (after [`Reader::check_count`] with 2 bytes per cell).
    #[inline(always)]
    pub(crate) fn read(
        r: &mut Reader<'_>,
        column: &ColumnSchema,
        column_index: usize,
        has_complex_deletion: bool,
        base: &DeltaBase,
        findings: &mut Vec<Finding>,
    ) -> Result<(ComplexColumnHead, usize)> {
        let start = r.offset();
        let complex_deletion = if has_complex_deletion {
            let d = read_delta_deletion_time(r, base, "complex deletion")?;
            if deletion_is_suspicious(&d) {
                check_deletion(
                    &d,
                    &format!("complex deletion of column {}", column.name),
                    findings,
                );
            }
            Some(d)
        } else {
            None
        };
        let cell_count = r.spanned(|r| r.unsigned_vint("complex column cell count"))?;
        // A cell is at least a flags byte and a path length.
        let n = r.check_count(cell_count.value, 2, "complex column cells")?;
        Ok((
            ComplexColumnHead {
                start,
                column_index,
                complex_deletion,
                cell_count,
            },
            n,
        ))
    }
}

impl ComplexColumnHead {
    /// [`ComplexColumnHead::read`] of a column in a row without complex deletions, by plain
    /// slice reads at `bytes[start]` (`bytes`' first byte at absolute `offset`): the head, the
    /// cell count and where the head ends; `None` when the count does not decode or its cells
    /// cannot fit (the checked read then gives the error and its offset).
    #[inline(always)]
    pub(crate) fn read_fast(
        bytes: &[u8],
        offset: u64,
        start: usize,
        column_index: usize,
    ) -> Option<(ComplexColumnHead, usize, usize)> {
        let mut at = start;
        let count = vint_at(bytes, &mut at)?;
        // A cell is at least a flags byte and a path length (`Reader::check_count`).
        let remaining = bytes.len().checked_sub(at)?;
        if count > (remaining / 2) as u64 {
            return None;
        }
        let n = usize::try_from(count).ok()?;
        let first = offset.saturating_add(start as u64);
        let head = ComplexColumnHead {
            start: first,
            column_index,
            complex_deletion: None,
            cell_count: Spanned {
                value: count,
                span: Span::new(first, offset.saturating_add(at as u64)),
            },
        };
        Some((head, n, at))
    }

    /// Debug builds (every test run): the fast head equals the checked one.
    #[cfg(debug_assertions)]
    pub(crate) fn check_fast_path(
        bytes: &[u8],
        offset: u64,
        start: usize,
        column: &ColumnSchema,
        column_index: usize,
        base: &DeltaBase,
        fast: (&ComplexColumnHead, usize, usize),
    ) {
        let mut r = Reader::at(bytes, offset, start);
        let mut findings = Vec::new();
        let checked = Self::read(&mut r, column, column_index, false, base, &mut findings)
            .ok()
            .map(|(head, n)| (head, n, r.position()));
        debug_assert_eq!(
            checked.as_ref().map(|(h, n, end)| (h, *n, *end)),
            Some(fast),
            "fast and checked complex column heads differ at {}",
            r.offset()
        );
        debug_assert!(findings.is_empty());
    }
}

/// A complex column's data: its deletion and its cells.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ComplexColumn {
    pub span: Span,
    /// Index into `DataSchema::columns(is_static)` of the row.
    pub column_index: usize,
    /// Present for every complex column when the row has HAS_COMPLEX_DELETION; one with
    /// [`DeletionTime::deletes_nothing`] deletes nothing (its ldt may be garbage,
    /// CASSANDRA-21333).
    pub complex_deletion: Option<DeletionTime>,
    pub cell_count: Spanned<u64>,
    pub cells: Vec<Cell>,
}

/// The data of one present column of a row.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub enum ColumnData {
    Simple(Cell),
    Complex(ComplexColumn),
}

impl ColumnData {
    pub fn column_index(&self) -> usize {
        match self {
            ColumnData::Simple(c) => c.column_index,
            ColumnData::Complex(c) => c.column_index,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            ColumnData::Simple(c) => c.span,
            ColumnData::Complex(c) => c.span,
        }
    }

    /// The simple cell, or the complex column's cells.
    pub fn cells(&self) -> &[Cell] {
        match self {
            ColumnData::Simple(c) => core::slice::from_ref(c),
            ColumnData::Complex(c) => &c.cells,
        }
    }
}
