//! Cells, complex columns and counter contexts.
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
//! CounterContext (a counter cell's value):
//!
//! | part | encoding |
//! |---|---|
//! | header count n | i16; negative = local shards marked to be cleared, count = abs(n) |
//! | header elements | n × i16: `index + i16::MIN` for a global shard, `index` for a local one |
//! | shards | 32 bytes each: 16-byte counter id (UUID), i64 clock, i64 count; shards without a header element are remote |
//!
//! Src: `src/java/org/apache/cassandra/db/rows/Cell.java` (`Serializer`), `db/rows/BufferCell.java`,
//! `db/rows/UnfilteredSerializer.java` (`readComplexColumn`), `db/rows/CellPath.java`,
//! `db/marshal/CollectionType.java` (`cellPathSerializer`), `db/context/CounterContext.java`
//! (`headerLength`, `total`, `ContextState`).

use serde::Serialize;

use super::deletion::{
    check_deletion, check_expiration, deletion_is_suspicious, expiration_is_suspicious,
    read_delta_deletion_time, read_local_deletion_time, read_timestamp, read_ttl, DeletionTime,
    LivenessInfo, LocalDeletionTime,
};
use super::schema::{ColumnSchema, DeltaBase};
use super::{DecodeOptions, Finding, FindingKind, SpannedBytes};
use crate::component::common::read_value;
use crate::error::Result;
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
}

/// One cell decoded in place: its path and value borrow the decode window. Built into a
/// [`Cell`] only by callers that keep it ([`CellView::to_cell`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CellView<'a> {
    pub span: Span,
    /// Index into `DataSchema::columns(is_static)` of the row.
    pub column_index: usize,
    pub flags: Spanned<u8>,
    pub kind: CellKind,
    pub timestamp_micros: i64,
    /// `None` when taken from the row (USE_ROW_TIMESTAMP).
    pub timestamp_span: Option<Span>,
    pub local_deletion_time: Option<LocalDeletionTime>,
    pub local_deletion_time_span: Option<Span>,
    pub ttl_secs: Option<i32>,
    pub ttl_span: Option<Span>,
    /// Cells of complex columns: the path bytes (without length) and the span with its length.
    pub path: Option<(&'a [u8], Span)>,
    /// The value bytes (empty with HAS_EMPTY_VALUE).
    pub value: &'a [u8],
    /// The value with its length prefix.
    pub value_span: Span,
    /// Live cells of counter columns: the decoded CounterContext (boxed: the view stays small
    /// for the cells that are not counters).
    pub counter: Option<Box<CounterContext>>,
}

impl<'a> CellView<'a> {
    pub fn is_tombstone(&self) -> bool {
        self.kind == CellKind::Tombstone
    }

    pub fn is_expiring(&self) -> bool {
        matches!(self.kind, CellKind::Expiring | CellKind::Expired)
    }

    /// The owned cell.
    pub fn to_cell(&self) -> Cell {
        Cell {
            span: self.span,
            column_index: self.column_index,
            flags: self.flags.clone(),
            kind: self.kind,
            timestamp_micros: self.timestamp_micros,
            timestamp_span: self.timestamp_span,
            local_deletion_time: self.local_deletion_time,
            local_deletion_time_span: self.local_deletion_time_span,
            ttl_secs: self.ttl_secs,
            ttl_span: self.ttl_span,
            path: self.path.map(|(bytes, span)| SpannedBytes {
                bytes: bytes.to_vec(),
                span,
            }),
            value: SpannedBytes {
                bytes: self.value.to_vec(),
                span: self.value_span,
            },
            counter: self.counter.as_deref().cloned(),
        }
    }

    /// Decodes one cell of `column` in place (`Cell.Serializer.deserialize`); allocates nothing
    /// unless it has a finding or is a counter.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn read(
        r: &mut Reader<'a>,
        column: &ColumnSchema,
        column_index: usize,
        row_liveness: Option<&LivenessInfo>,
        base: &DeltaBase,
        options: &DecodeOptions,
        findings: &mut Vec<Finding>,
    ) -> Result<CellView<'a>> {
        const WHAT: &str = "cell";
        let start = r.offset();
        let flags = r.u8("cell flags")?;
        let flags = Spanned {
            value: flags,
            span: r.span_from(start),
        };
        let f = flags.value;
        if f & !0x1f != 0 {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                flags.span,
                format!("cell flags {f:#04x} set unknown bits"),
            ));
        }
        let deleted = f & IS_DELETED != 0;
        let expiring = f & IS_EXPIRING != 0;
        let (timestamp_micros, timestamp_span) = if f & USE_ROW_TIMESTAMP != 0 {
            // LivenessInfo.EMPTY has NO_TIMESTAMP (Long.MIN_VALUE).
            (
                row_liveness.map_or(i64::MIN, |l| l.timestamp_micros.value),
                None,
            )
        } else {
            let ts = read_timestamp(r, base, "cell timestamp")?;
            (ts.value, Some(ts.span))
        };
        let use_row_ttl = f & USE_ROW_TTL != 0;
        let (mut ldt, mut ttl) = (None, None);
        if use_row_ttl {
            if let Some(l) = row_liveness {
                ldt = l.local_expiration_time.as_ref().map(|t| (t.value, None));
                ttl = l.ttl_secs.as_ref().map(|t| (t.value, None));
            }
        } else {
            if deleted || expiring {
                let t = read_local_deletion_time(r, base, "cell local deletion time")?;
                ldt = Some((t.value, Some(t.span)));
            }
            if expiring {
                let t = read_ttl(r, base, "cell ttl")?;
                ttl = Some((t.value, Some(t.span)));
            }
        }
        let path = if column.is_complex() {
            let p_start = r.offset();
            let bytes = r.vint_length_bytes("cell path")?;
            Some((bytes, r.span_from(p_start)))
        } else {
            None
        };
        let v_start = r.offset();
        let value: &'a [u8] = if f & HAS_EMPTY_VALUE != 0 {
            &[]
        } else {
            read_value(
                r,
                column.fixed_value_length_bytes,
                options.max_value_bytes,
                WHAT,
            )?
        };
        let value_span = r.span_from(v_start);
        let span = r.span_from(start);

        let has_ttl = ttl.is_some_and(|(t, _)| t != 0);
        let kind = if deleted {
            CellKind::Tombstone
        } else if has_ttl {
            let expired = match (options.now_seconds, ldt) {
                (Some(now), Some((t, _))) => t.expiry_secs() <= now,
                _ => false,
            };
            if expired {
                CellKind::Expired
            } else {
                CellKind::Expiring
            }
        } else {
            CellKind::Live
        };
        if deleted && expiring {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                flags.span,
                "cell is flagged both deleted and expiring".to_owned(),
            ));
        }
        let what = || format!("cell of column {}", column.name);
        match (kind, ldt, ttl) {
            (CellKind::Tombstone, Some((t, t_span)), _) if t.is_invalid() => {
                findings.push(Finding::new(
                    FindingKind::InvalidLocalDeletionTime,
                    t_span.unwrap_or(span),
                    format!(
                        "tombstone {} has the invalid local deletion time {} (raw {:#010x})",
                        what(),
                        t.secs,
                        t.raw
                    ),
                ));
            }
            (
                CellKind::Expiring | CellKind::Expired,
                Some((t, t_span)),
                Some((ttl_v, ttl_span)),
            ) if expiration_is_suspicious(ttl_v, &t) => {
                check_expiration(
                    &what(),
                    &Spanned {
                        value: ttl_v,
                        span: ttl_span.unwrap_or(span),
                    },
                    &Spanned {
                        value: t,
                        span: t_span.unwrap_or(span),
                    },
                    findings,
                );
            }
            _ => {}
        }
        let counter = if column.is_counter && kind != CellKind::Tombstone && !value.is_empty() {
            let value_start = value_span.end - value.len() as u64;
            match CounterContext::decode(value, value_start) {
                Ok(c) => Some(Box::new(c)),
                Err(msg) => {
                    findings.push(Finding::new(
                        FindingKind::BadCounterContext,
                        value_span,
                        format!("counter {}: {msg}", what()),
                    ));
                    None
                }
            }
        } else {
            None
        };
        Ok(CellView {
            span,
            column_index,
            flags,
            kind,
            timestamp_micros,
            timestamp_span,
            local_deletion_time: ldt.map(|(t, _)| t),
            local_deletion_time_span: ldt.and_then(|(_, s)| s),
            ttl_secs: ttl.map(|(t, _)| t),
            ttl_span: ttl.and_then(|(_, s)| s),
            path,
            value,
            value_span,
            counter,
        })
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

impl ComplexColumnHead {
    /// Reads the complex deletion and cell count; the caller reads `cell_count` cells next
    /// (after [`Reader::check_count`] with 2 bytes per cell).
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
        let count_start = r.offset();
        let count = r.unsigned_vint("complex column cell count")?;
        let cell_count = Spanned {
            value: count,
            span: r.span_from(count_start),
        };
        // A cell is at least a flags byte and a path length.
        let n = r.check_count(count, 2, "complex column cells")?;
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

/// A counter shard's role (`CounterContext`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterShardKind {
    Global,
    Local,
    Remote,
}

/// One shard of a CounterContext.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct CounterShard {
    pub span: Span,
    pub kind: CounterShardKind,
    /// The counter id (a UUID), `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    pub counter_id: String,
    pub clock: i64,
    pub count: i64,
}

/// A counter cell's value (`CounterContext`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct CounterContext {
    pub span: Span,
    /// As stored; negative means "local shards marked to be cleared".
    pub header_count: Spanned<i16>,
    pub header_elements: Vec<Spanned<i16>>,
    pub shards: Vec<CounterShard>,
    /// Sum of every shard's count (`CounterContext.total`), wrapping.
    pub total: i64,
}

impl CounterContext {
    /// Length of one shard: counter id, clock, count.
    pub const SHARD_BYTES: usize = 32;

    /// Decodes a counter context whose first byte is at `base_offset`.
    pub fn decode(bytes: &[u8], base_offset: u64) -> core::result::Result<CounterContext, String> {
        let mut r = Reader::new(bytes, base_offset);
        let start = r.offset();
        let n = r
            .u16("counter header count")
            .map_err(|_| "too short for the 2-byte header count".to_owned())?
            as i16;
        let header_count = Spanned {
            value: n,
            span: r.span_from(start),
        };
        let count = usize::from(n.unsigned_abs());
        if count.saturating_mul(2) > r.remaining_bytes() {
            return Err(format!(
                "{count} header elements do not fit in {} bytes",
                r.remaining_bytes()
            ));
        }
        let mut header_elements = Vec::with_capacity(count);
        for _ in 0..count {
            let s = r.offset();
            let e = r.u16("counter header element").map_err(|e| e.to_string())? as i16;
            header_elements.push(Spanned {
                value: e,
                span: r.span_from(s),
            });
        }
        let body = r.remaining_bytes();
        if !body.is_multiple_of(Self::SHARD_BYTES) {
            return Err(format!(
                "{body} body bytes are not a whole number of {}-byte shards",
                Self::SHARD_BYTES
            ));
        }
        let shard_count = body / Self::SHARD_BYTES;
        let mut kinds = vec![CounterShardKind::Remote; shard_count];
        for e in &header_elements {
            let (index, kind) = if e.value < 0 {
                (
                    usize::from((e.value as u16) ^ 0x8000),
                    CounterShardKind::Global,
                )
            } else {
                (usize::from(e.value as u16), CounterShardKind::Local)
            };
            match kinds.get_mut(index) {
                Some(k) => *k = kind,
                None => {
                    return Err(format!(
                        "header element {} names shard {index} of {shard_count}",
                        e.value
                    ))
                }
            }
        }
        let mut shards = Vec::with_capacity(shard_count);
        let mut total = 0i64;
        for kind in kinds {
            let s = r.offset();
            let id = r.bytes(16, "counter id").map_err(|e| e.to_string())?;
            let counter_id = format_uuid(id);
            let clock = r.i64("counter clock").map_err(|e| e.to_string())?;
            let count = r.i64("counter count").map_err(|e| e.to_string())?;
            total = total.wrapping_add(count);
            shards.push(CounterShard {
                span: r.span_from(s),
                kind,
                counter_id,
                clock,
                count,
            });
        }
        Ok(CounterContext {
            span: r.span_from(start),
            header_count,
            header_elements,
            shards,
            total,
        })
    }
}

/// 16 bytes as `8-4-4-4-12` lowercase hex.
pub(crate) fn format_uuid(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_context_with_one_global_shard() {
        let mut b = vec![0x00, 0x01, 0x80, 0x00];
        b.extend_from_slice(&[0x11; 16]);
        b.extend_from_slice(&7i64.to_be_bytes());
        b.extend_from_slice(&1i64.to_be_bytes());
        let c = CounterContext::decode(&b, 100).unwrap();
        assert_eq!(c.header_count.value, 1);
        assert_eq!(c.shards.len(), 1);
        assert_eq!(c.shards[0].kind, CounterShardKind::Global);
        assert_eq!(c.shards[0].clock, 7);
        assert_eq!(c.total, 1);
        assert_eq!(c.shards[0].span, Span::new(104, 136));
        assert_eq!(
            c.shards[0].counter_id,
            "11111111-1111-1111-1111-111111111111"
        );
        // A remote shard plus a local one.
        let mut b = vec![0x00, 0x01, 0x00, 0x01];
        for count in [5i64, -2] {
            b.extend_from_slice(&[0; 16]);
            b.extend_from_slice(&1i64.to_be_bytes());
            b.extend_from_slice(&count.to_be_bytes());
        }
        let c = CounterContext::decode(&b, 0).unwrap();
        assert_eq!(
            c.shards.iter().map(|s| s.kind).collect::<Vec<_>>(),
            [CounterShardKind::Remote, CounterShardKind::Local]
        );
        assert_eq!(c.total, 3);
        assert!(CounterContext::decode(&b[..40], 0).is_err());
        assert!(CounterContext::decode(&[0x00, 0x01, 0x00, 0x05], 0).is_err());
        assert!(CounterContext::decode(&[0x7f], 0).is_err());
    }
}
