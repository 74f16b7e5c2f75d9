//! One on-disk atom: a cell or a range tombstone.
//!
//! | mask | body after the mask |
//! |---|---|
//! | `0x10` range tombstone | end name (u16 + bytes), i32 localDeletionTime, i64 markedForDeleteAt |
//! | `0x04` counter | i64 timestampOfLastDelete, i64 timestamp, i32 length + CounterContext |
//! | `0x02` expiring | i32 ttl, i32 local expiration time, i64 timestamp, i32 length + value |
//! | other (`0x00` regular, `0x01` deleted, `0x08` counter update) | i64 timestamp, i32 length + value |
//!
//! The bits are tested in that order, as `OnDiskAtom.Serializer.deserializeFromSSTable` and
//! `ColumnSerializer.deserializeColumnBody` do.
//!
//! Src: `db/OnDiskAtom.java`, `db/ColumnSerializer.java`, `db/RangeTombstone.java`.

use serde::Serialize;

use super::{
    COUNTER_MASK, COUNTER_UPDATE_MASK, DELETION_MASK, EXPIRATION_MASK, RANGE_TOMBSTONE_MASK,
};
use crate::component::data::{
    check_deletion, CounterContext, DecodeOptions, DeletionTime, Finding, FindingKind,
};
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::span::Span;
use crate::version::Version;

/// A pre-3.0 `DeletionTime`: i32 localDeletionTime, i64 markedForDeleteAt.
pub(super) const LEGACY_DELETION_TIME_BYTES: usize = 12;

/// What an atom is, from its mask.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomKind {
    /// A live cell (mask `0x00`).
    Cell,
    /// A tombstone (`0x01`).
    Deleted,
    /// A cell with a TTL (`0x02`).
    Expiring,
    /// A counter cell (`0x04`).
    Counter,
    /// A counter update (`0x08`).
    CounterUpdate,
    /// A range tombstone (`0x10`).
    RangeTombstone,
}

impl AtomKind {
    /// Every kind, in mask-bit order.
    pub const ALL: [AtomKind; 6] = [
        AtomKind::Cell,
        AtomKind::Deleted,
        AtomKind::Expiring,
        AtomKind::Counter,
        AtomKind::CounterUpdate,
        AtomKind::RangeTombstone,
    ];

    /// The kind a mask stands for (the bits tested in Cassandra's order).
    pub fn from_mask(mask: u8) -> AtomKind {
        if mask & RANGE_TOMBSTONE_MASK != 0 {
            AtomKind::RangeTombstone
        } else if mask & COUNTER_MASK != 0 {
            AtomKind::Counter
        } else if mask & EXPIRATION_MASK != 0 {
            AtomKind::Expiring
        } else if mask & COUNTER_UPDATE_MASK != 0 {
            AtomKind::CounterUpdate
        } else if mask & DELETION_MASK != 0 {
            AtomKind::Deleted
        } else {
            AtomKind::Cell
        }
    }

    /// The name in the atoms JSON (`cell`, `deleted`, `expiring`, `counter`, `counter_update`,
    /// `range_tombstone`).
    pub fn name(self) -> &'static str {
        match self {
            AtomKind::Cell => "cell",
            AtomKind::Deleted => "deleted",
            AtomKind::Expiring => "expiring",
            AtomKind::Counter => "counter",
            AtomKind::CounterUpdate => "counter_update",
            AtomKind::RangeTombstone => "range_tombstone",
        }
    }
}

/// A cell's body (`ColumnSerializer`); its bytes are borrowed from the decoder's window.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LegacyCell<'w> {
    pub timestamp_micros: i64,
    pub timestamp_span: Span,
    /// Counter cells: timestampOfLastDelete (µs).
    pub timestamp_of_last_delete_micros: Option<i64>,
    /// Expiring cells: the TTL in seconds.
    pub ttl_secs: Option<i32>,
    /// Expiring cells: the local expiration time in seconds since the epoch.
    pub local_expiration_time_secs: Option<i32>,
    #[serde(skip)]
    pub value: &'w [u8],
    /// The value bytes (after the i32 length).
    pub value_span: Span,
}

/// A range tombstone's body (`RangeTombstone.Serializer`): the end name and the deletion.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LegacyRangeTombstone<'w> {
    #[serde(skip)]
    pub end: &'w [u8],
    /// The end name's bytes (after its length).
    pub end_span: Span,
    pub deletion: DeletionTime,
}

/// What follows an atom's mask.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub enum AtomBody<'w> {
    Cell(LegacyCell<'w>),
    RangeTombstone(LegacyRangeTombstone<'w>),
}

/// One on-disk atom (`OnDiskAtom`): a name, a mask and a body.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Atom<'w> {
    /// Absolute uncompressed Data.db offset of the name's length.
    pub position: u64,
    /// The whole atom.
    pub span: Span,
    /// The name (a cell name, or a range tombstone's start), without its length.
    #[serde(skip)]
    pub name: &'w [u8],
    pub name_span: Span,
    pub mask: u8,
    pub kind: AtomKind,
    pub body: AtomBody<'w>,
    pub findings: Vec<Finding>,
}

impl<'w> Atom<'w> {
    pub fn cell(&self) -> Option<&LegacyCell<'w>> {
        match &self.body {
            AtomBody::Cell(c) => Some(c),
            AtomBody::RangeTombstone(_) => None,
        }
    }

    pub fn range_tombstone(&self) -> Option<&LegacyRangeTombstone<'w>> {
        match &self.body {
            AtomBody::RangeTombstone(t) => Some(t),
            AtomBody::Cell(_) => None,
        }
    }

    /// A deleted cell's local deletion time (its 4-byte value), in seconds.
    pub fn local_deletion_time_secs(&self) -> Option<i32> {
        match (&self.kind, &self.body) {
            (AtomKind::Deleted, AtomBody::Cell(c)) => match c.value {
                [a, b, c2, d] => Some(i32::from_be_bytes([*a, *b, *c2, *d])),
                _ => None,
            },
            _ => None,
        }
    }

    /// A counter cell's decoded CounterContext.
    pub fn counter_context(&self) -> Option<CounterContext> {
        match (&self.kind, &self.body) {
            (AtomKind::Counter, AtomBody::Cell(c)) => {
                CounterContext::decode(c.value, c.value_span.start).ok()
            }
            _ => None,
        }
    }
}

/// Reads the atom whose name (`name`, at `name_span`) was already read: the mask and the body.
pub(super) fn read_atom_body<'w>(
    r: &mut Reader<'w>,
    position: u64,
    name: &'w [u8],
    name_span: Span,
    version: &Version,
    options: &DecodeOptions,
) -> Result<Atom<'w>> {
    let mask_at = r.offset();
    let mask = r.u8("atom mask")?;
    let kind = AtomKind::from_mask(mask);
    let mask_span = Span::new(mask_at, mask_at.saturating_add(1));
    let mut findings = Vec::new();
    if mask & !0x1f != 0 {
        findings.push(Finding::new(
            FindingKind::UnexpectedFlags,
            mask_span,
            format!("atom mask {mask:#04x} sets bits no 2.x writer sets"),
        ));
    }
    let body = if kind == AtomKind::RangeTombstone {
        let end_len = r.u16("range tombstone end name")?;
        let end_start = r.offset();
        let end = r.bytes(usize::from(end_len), "range tombstone end name")?;
        let end_span = r.span_from(end_start);
        // Taken whole first, so a short read names the range tombstone.
        let dt_at = r.offset();
        let dt = r.bytes(LEGACY_DELETION_TIME_BYTES, "range tombstone deletion")?;
        let deletion = DeletionTime::decode(
            &mut Reader::new(dt, dt_at),
            version,
            "range tombstone deletion",
        )?;
        check_deletion(&deletion, "range tombstone", &mut findings);
        AtomBody::RangeTombstone(LegacyRangeTombstone {
            end,
            end_span,
            deletion,
        })
    } else {
        let timestamp_of_last_delete_micros = if kind == AtomKind::Counter {
            Some(r.i64("counter: timestamp of last delete")?)
        } else {
            None
        };
        let (ttl_secs, local_expiration_time_secs) = if kind == AtomKind::Expiring {
            let ttl_at = r.offset();
            let ttl = r.i32("expiring cell: ttl")?;
            let exp = r.i32("expiring cell: local expiration time")?;
            if ttl <= 0 {
                findings.push(Finding::new(
                    FindingKind::InvalidTtl,
                    Span::new(ttl_at, ttl_at.saturating_add(4)),
                    format!("expiring cell with TTL {ttl} s"),
                ));
            }
            if exp < 0 {
                findings.push(Finding::new(
                    FindingKind::OverflowedExpirationTime,
                    Span::new(ttl_at.saturating_add(4), ttl_at.saturating_add(8)),
                    format!(
                        "local expiration time {exp} is negative: an expiry past 2038 that \
                         overflowed (CASSANDRA-14092)"
                    ),
                ));
            }
            (Some(ttl), Some(exp))
        } else {
            (None, None)
        };
        let ts_at = r.offset();
        let timestamp_micros = r.i64("cell timestamp")?;
        let timestamp_span = r.span_from(ts_at);
        let len_at = r.offset();
        let len = r.i32("cell value length")?;
        let len = u64::try_from(len).map_err(|_| {
            r.invalid_at(format!("negative value length {len}"), len_at, "cell value")
        })?;
        if len > options.max_value_bytes {
            return Err(Error::new(
                ErrorKind::LengthTooLarge {
                    length: len,
                    limit: options.max_value_bytes,
                },
                len_at,
            )
            .context("cell value (longer than max_value_bytes)"));
        }
        let value_start = r.offset();
        let n = usize::try_from(len)
            .map_err(|_| r.invalid_at("value length too large", len_at, "cell value"))?;
        let value = r.bytes(n, "cell value")?;
        let value_span = r.span_from(value_start);
        match kind {
            AtomKind::Deleted if value.len() != 4 => findings.push(Finding::new(
                FindingKind::InvalidLocalDeletionTime,
                value_span,
                format!(
                    "a deleted cell's value is its 4-byte local deletion time, this one has {} bytes",
                    value.len()
                ),
            )),
            AtomKind::Counter => {
                if let Err(msg) = CounterContext::decode(value, value_start) {
                    findings.push(Finding::new(
                        FindingKind::BadCounterContext,
                        value_span,
                        format!("counter cell: {msg}"),
                    ));
                }
            }
            AtomKind::CounterUpdate => findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                mask_span,
                "a counter update (mask 0x08) in an SSTable: Cassandra only writes those to \
                 memtables and the commit log"
                    .to_owned(),
            )),
            _ => {}
        }
        if mask & DELETION_MASK != 0 && kind != AtomKind::Deleted {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                mask_span,
                format!("atom mask {mask:#04x} combines the deletion bit with another kind"),
            ));
        }
        AtomBody::Cell(LegacyCell {
            timestamp_micros,
            timestamp_span,
            timestamp_of_last_delete_micros,
            ttl_secs,
            local_expiration_time_secs,
            value,
            value_span,
        })
    };
    Ok(Atom {
        position,
        span: r.span_from(position),
        name,
        name_span,
        mask,
        kind,
        body,
        findings,
    })
}
