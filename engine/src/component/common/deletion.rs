//! `DeletionTime` and the local deletion time it carries: the one decoder of both.
//!
//! | versions | serialized `DeletionTime` | LIVE |
//! |---|---|---|
//! | before `oa` | i32 localDeletionTime (s), i64 markedForDeleteAt (µs): 12 bytes | ldt `0x7FFFFFFF`, mfda `i64::MIN` |
//! | `oa`, `da` | a first byte with bit 7 set is a flags byte: `0x80` alone = LIVE (1 byte), any other = corrupt; else i64 mfda (top bit 0) then u32 ldt: 12 bytes | the byte `80` |
//!
//! Used by the partition header of Data.db, Index.db's `RowIndexEntry` and `IndexInfo`'s end-open
//! marker. Rows, cells and markers delta-encode theirs against the header's EncodingStats; that
//! reading belongs to `component::data`, which builds a [`DeletionTime`] with
//! [`DeletionTimeEncoding::Delta`].
//!
//! A local deletion time is 32 bits: read as i32 before `oa` (`i32::MAX` = none, negative =
//! invalid, e.g. an expiry past 2038 that overflowed) and as u32 from `oa` (`0xFFFFFFFF` = none,
//! `0xFFFFFFFE` = `INVALID_DELETION_TIME`).
//!
//! Src: `src/java/org/apache/cassandra/db/DeletionTime.java` (`Serializer`, `LegacySerializer`,
//! `isLive`), `db/rows/Cell.java` (`NO_DELETION_TIME`, `INVALID_DELETION_TIME`),
//! `utils/CassandraUInt.java`.

use serde::Serialize;

use crate::datetime::iso8601_secs;
use crate::error::{ErrorKind, Result};
use crate::reader::Reader;
use crate::span::{Node, Span};
use crate::version::Version;

/// The `oa` flags byte of a LIVE `DeletionTime` (`DeletionTime.Serializer.IS_LIVE_DELETION`).
pub const IS_LIVE_DELETION: u8 = 0x80;

/// A local deletion (or expiration) time in seconds, as its 32 stored bits and as Cassandra
/// reads them for the SSTable's version (`Cell.NO_DELETION_TIME`, `CassandraUInt`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalDeletionTime {
    /// The 32-bit pattern.
    pub raw: u32,
    /// Seconds since the epoch: `raw` as u32 (`oa`/`da`) or as i32 (before).
    pub secs: i64,
    /// Whether the SSTable stores unsigned deletion times (`oa`/`da`).
    pub unsigned: bool,
}

impl LocalDeletionTime {
    /// `NO_DELETION_TIME` of either encoding.
    pub const fn none(unsigned: bool) -> Self {
        if unsigned {
            LocalDeletionTime {
                raw: u32::MAX,
                secs: u32::MAX as i64,
                unsigned,
            }
        } else {
            LocalDeletionTime {
                raw: i32::MAX as u32,
                secs: i32::MAX as i64,
                unsigned,
            }
        }
    }

    pub fn new(raw: u32, unsigned: bool) -> Self {
        let secs = if unsigned {
            i64::from(raw)
        } else {
            i64::from(i32::from_be_bytes(raw.to_be_bytes()))
        };
        LocalDeletionTime {
            raw,
            secs,
            unsigned,
        }
    }

    /// Reads the 4 stored bytes (`STATS`' min/max local deletion time).
    pub fn decode(r: &mut Reader<'_>, unsigned: bool, what: &'static str) -> Result<Self> {
        Ok(LocalDeletionTime::new(r.u32(what)?, unsigned))
    }

    /// `NO_DELETION_TIME`: `0xFFFFFFFF` (`oa`/`da`) or `i32::MAX` (before).
    pub fn is_none(&self) -> bool {
        *self == LocalDeletionTime::none(self.unsigned)
    }

    /// Seconds since the epoch, `None` for [`LocalDeletionTime::is_none`].
    pub fn secs_if_set(&self) -> Option<i64> {
        (!self.is_none()).then_some(self.secs)
    }

    /// Values Cassandra refuses as deletion times: negative before `oa` (corruption, or an expiry
    /// past 2038 that overflowed), `0xFFFFFFFE` (`INVALID_DELETION_TIME`) in `oa`/`da`.
    pub fn is_invalid(&self) -> bool {
        if self.unsigned {
            self.raw == u32::MAX - 1
        } else {
            self.secs < 0
        }
    }

    /// The time to compare with "now" for expiry: the stored value, but read unsigned when a
    /// pre-`oa` expiry overflowed i32 (the time it was meant to be).
    pub fn expiry_secs(&self) -> i64 {
        if self.is_invalid() && !self.unsigned {
            i64::from(self.raw)
        } else {
            self.secs
        }
    }

    /// `none (0x7fffffff)`, `… (invalid marker 0xfffffffe)` or `1442880000 (2015-09-22T00:00:00Z)`.
    pub fn display(&self) -> String {
        if self.is_none() {
            format!("none ({:#010x})", self.raw)
        } else if self.is_invalid() && self.unsigned {
            format!(
                "{} (invalid / overflowed marker {:#010x})",
                self.secs, self.raw
            )
        } else {
            format!("{} ({})", self.secs, iso8601_secs(self.secs))
        }
    }
}

/// How a [`DeletionTime`] was stored.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeletionTimeEncoding {
    /// Before `oa`: i32 ldt, i64 mfda (12 bytes).
    Legacy,
    /// `oa`/`da`: the single flags byte `0x80` (LIVE).
    UnsignedLive,
    /// `oa`/`da`: i64 mfda, u32 ldt (12 bytes).
    Unsigned,
    /// Inside rows and markers: timestamp and ldt deltas (unsigned vints), read by `data`.
    Delta,
}

/// Cassandra's `DeletionTime`: markedForDeleteAt (µs) and localDeletionTime (s).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DeletionTime {
    pub span: Span,
    pub encoding: DeletionTimeEncoding,
    /// `i64::MIN` when nothing is deleted.
    pub marked_for_delete_at_micros: i64,
    /// `None` for the 1-byte LIVE form.
    pub marked_for_delete_at_span: Option<Span>,
    pub local_deletion_time: LocalDeletionTime,
    /// `None` for the 1-byte LIVE form.
    pub local_deletion_time_span: Option<Span>,
}

impl DeletionTime {
    /// `DeletionTime.getSerializer(version).deserialize`: the version's fixed form.
    pub fn decode(r: &mut Reader<'_>, version: &Version, what: &'static str) -> Result<Self> {
        if version.has_uint_deletion_time() {
            Self::decode_uint(r, what)
        } else {
            Self::decode_legacy(r, what)
        }
    }

    /// `LegacySerializer` (before `oa`): i32 ldt, i64 mfda.
    pub fn decode_legacy(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let start = r.offset();
        let ldt = r.spanned(|r| r.u32(what))?;
        let mfda = r.spanned(|r| r.i64(what))?;
        Ok(DeletionTime {
            span: r.span_from(start),
            encoding: DeletionTimeEncoding::Legacy,
            marked_for_delete_at_micros: mfda.value,
            marked_for_delete_at_span: Some(mfda.span),
            local_deletion_time: LocalDeletionTime::new(ldt.value, false),
            local_deletion_time_span: Some(ldt.span),
        })
    }

    /// `Serializer` (`oa`/`da`): the flags byte `0x80` (LIVE), or i64 mfda with a clear top bit
    /// and a u32 ldt. A first byte with bit 7 set and other bits is corrupt (Cassandra throws).
    pub fn decode_uint(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let start = r.offset();
        let first = r.peek_u8().ok_or_else(|| {
            r.error(
                ErrorKind::UnexpectedEof {
                    needed_bytes: 1,
                    available_bytes: 0,
                },
                what,
            )
        })?;
        if first & IS_LIVE_DELETION != 0 {
            r.skip(1, what)?;
            if first != IS_LIVE_DELETION {
                return Err(r.invalid_at(
                    format!(
                        "invalid DeletionTime flags {first:#04x} (only 0x80, LIVE, has bit 7 set)"
                    ),
                    start,
                    what,
                ));
            }
            return Ok(DeletionTime {
                span: r.span_from(start),
                encoding: DeletionTimeEncoding::UnsignedLive,
                marked_for_delete_at_micros: i64::MIN,
                marked_for_delete_at_span: None,
                local_deletion_time: LocalDeletionTime::none(true),
                local_deletion_time_span: None,
            });
        }
        let mfda = r.spanned(|r| r.i64(what))?;
        let ldt = r.spanned(|r| r.u32(what))?;
        Ok(DeletionTime {
            span: r.span_from(start),
            encoding: DeletionTimeEncoding::Unsigned,
            marked_for_delete_at_micros: mfda.value,
            marked_for_delete_at_span: Some(mfda.span),
            local_deletion_time: LocalDeletionTime::new(ldt.value, true),
            local_deletion_time_span: Some(ldt.span),
        })
    }

    /// `DeletionTime.isLive()`: markedForDeleteAt is `Long.MIN_VALUE` **and** the local deletion
    /// time is `NO_DELETION_TIME` — the one definition of "deletes nothing".
    pub fn is_live(&self) -> bool {
        self.marked_for_delete_at_micros == i64::MIN && self.local_deletion_time.is_none()
    }

    /// markedForDeleteAt is `Long.MIN_VALUE`, so it shadows no timestamp (`DeletionTime.deletes`
    /// is `timestamp <= markedForDeleteAt`), whatever the local deletion time says. Not
    /// [`DeletionTime::is_live`]: Data.db's delta-encoded times (rows, complex columns, markers)
    /// are judged by this, because a complex deletion that deletes nothing can be written with a
    /// garbage local deletion time (CASSANDRA-21333) and must still count as no deletion.
    pub fn deletes_nothing(&self) -> bool {
        self.marked_for_delete_at_micros == i64::MIN
    }

    /// markedForDeleteAt, `None` when live.
    pub fn marked_for_delete_at_if_deleted(&self) -> Option<i64> {
        (!self.is_live()).then_some(self.marked_for_delete_at_micros)
    }

    /// The local deletion time in seconds, `None` when live.
    pub fn local_deletion_time_if_deleted(&self) -> Option<i64> {
        (!self.is_live()).then_some(self.local_deletion_time.secs)
    }

    /// "live" or "deleted at … µs, local deletion time … s".
    pub fn display(&self) -> String {
        if self.is_live() {
            "live".to_owned()
        } else {
            format!(
                "deleted at {} µs, local deletion time {} s",
                self.marked_for_delete_at_micros, self.local_deletion_time.secs
            )
        }
    }

    /// One node with the two fields as children when they are stored.
    pub fn to_node(&self, label: &str) -> Node {
        let mut children = Vec::new();
        if let Some(span) = self.marked_for_delete_at_span {
            children.push(Node::new(
                "markedForDeleteAt",
                format!("{} µs", self.marked_for_delete_at_micros),
                Some(span),
            ));
        }
        if let Some(span) = self.local_deletion_time_span {
            children.push(Node::new(
                "localDeletionTime",
                self.local_deletion_time.display(),
                Some(span),
            ));
        }
        Node::new(label, self.display(), Some(self.span)).with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;
    use crate::write::data::DataEncoder;
    use crate::write::{EncodingStats, TableSchema};

    fn version(v: &str) -> Version {
        Version::parse(Format::Big, v).unwrap()
    }

    /// The writer's encoding of `dt` in `v`, read back.
    fn round_trip(v: &str, dt: crate::write::ModelDeletion) -> DeletionTime {
        let schema = TableSchema::new(
            vec![crate::types::AbstractType::Int32],
            vec![],
            vec![],
            vec![],
        )
        .unwrap();
        let enc = DataEncoder::new(schema, version(v), EncodingStats::NO_STATS);
        let mut out = Vec::new();
        enc.write_deletion_time(&mut out, &dt);
        assert_eq!(out.len(), enc.deletion_time_size(&dt));
        let mut r = Reader::new(&out, 500);
        let d = DeletionTime::decode(&mut r, &version(v), "t").unwrap();
        assert!(r.is_empty());
        assert_eq!(d.span, Span::new(500, 500 + out.len() as u64));
        d
    }

    #[test]
    fn live_round_trips_in_both_encodings() {
        let nb = round_trip("nb", crate::write::ModelDeletion::LIVE);
        assert!(nb.is_live());
        assert_eq!(nb.encoding, DeletionTimeEncoding::Legacy);
        assert_eq!(nb.local_deletion_time.raw, 0x7fff_ffff);
        assert_eq!(nb.display(), "live");
        let oa = round_trip("oa", crate::write::ModelDeletion::LIVE);
        assert!(oa.is_live());
        assert_eq!(oa.encoding, DeletionTimeEncoding::UnsignedLive);
        assert_eq!(oa.span.len_bytes(), 1);
        assert_eq!(oa.marked_for_delete_at_span, None);
        assert_eq!(oa.marked_for_delete_at_if_deleted(), None);
    }

    #[test]
    fn deletions_round_trip_with_field_spans() {
        let dt = crate::write::ModelDeletion::new(1_677_485_274_992_000, 0xffff_fff0);
        let oa = round_trip("oa", dt);
        assert!(!oa.is_live());
        assert_eq!(oa.marked_for_delete_at_micros, 1_677_485_274_992_000);
        assert_eq!(oa.local_deletion_time.secs, 0xffff_fff0);
        assert_eq!(oa.marked_for_delete_at_span, Some(Span::new(500, 508)));
        assert_eq!(oa.local_deletion_time_span, Some(Span::new(508, 512)));
        // nb caps the u32 below i32::MAX (LegacySerializer).
        let nb = round_trip("nb", dt);
        assert_eq!(nb.local_deletion_time.secs, i64::from(i32::MAX - 1));
        assert_eq!(nb.local_deletion_time_span, Some(Span::new(500, 504)));
        assert_eq!(
            nb.local_deletion_time_if_deleted(),
            Some(i64::from(i32::MAX - 1))
        );
        let small = round_trip("nb", crate::write::ModelDeletion::new(5, 1_442_880_000));
        assert_eq!(
            small.display(),
            "deleted at 5 µs, local deletion time 1442880000 s"
        );
    }

    #[test]
    fn live_needs_both_fields_like_cassandra() {
        // mfda = MIN but a real ldt: not DeletionTime.LIVE (isLive checks both).
        let mut b = 1_000i32.to_be_bytes().to_vec();
        b.extend_from_slice(&i64::MIN.to_be_bytes());
        let d = DeletionTime::decode_legacy(&mut Reader::new(&b, 0), "t").unwrap();
        assert!(!d.is_live());
        // ldt = none but mfda set: not live either.
        let mut b = i32::MAX.to_be_bytes().to_vec();
        b.extend_from_slice(&7i64.to_be_bytes());
        assert!(!DeletionTime::decode_legacy(&mut Reader::new(&b, 0), "t")
            .unwrap()
            .is_live());
    }

    #[test]
    fn flags_other_than_live_and_truncation_are_errors_with_offsets() {
        let e = DeletionTime::decode_uint(&mut Reader::new(&[0x81], 40), "t").unwrap_err();
        assert_eq!(e.offset(), 40);
        assert!(matches!(e.kind(), ErrorKind::InvalidValue(_)));
        let e = DeletionTime::decode_uint(&mut Reader::new(&[], 41), "t").unwrap_err();
        assert_eq!(e.offset(), 41);
        // 11 of 12 bytes: the u32 ldt at offset 8 is cut.
        let e = DeletionTime::decode_uint(&mut Reader::new(&[0; 11], 100), "t").unwrap_err();
        assert_eq!(e.offset(), 108);
        let e =
            DeletionTime::decode(&mut Reader::new(&[0; 3], 7), &version("nb"), "t").unwrap_err();
        assert_eq!(e.offset(), 7);
    }

    #[test]
    fn local_deletion_time_readings() {
        let signed = LocalDeletionTime::new(0xffff_fffe, false);
        assert_eq!(signed.secs, -2);
        assert!(signed.is_invalid() && !signed.is_none());
        assert_eq!(signed.expiry_secs(), 0xffff_fffe);
        let unsigned = LocalDeletionTime::new(0xffff_fffe, true);
        assert_eq!(unsigned.secs, 0xffff_fffe);
        assert!(unsigned.is_invalid());
        assert!(LocalDeletionTime::new(u32::MAX, true).is_none());
        assert!(LocalDeletionTime::new(0x7fff_ffff, false).is_none());
        assert!(!LocalDeletionTime::new(0x7fff_ffff, true).is_none());
        assert_eq!(LocalDeletionTime::new(u32::MAX, true).secs_if_set(), None);
        assert_eq!(
            LocalDeletionTime::new(1_442_880_000, true).display(),
            "1442880000 (2015-09-22T00:00:00Z)"
        );
        assert_eq!(
            LocalDeletionTime::none(false).display(),
            "none (0x7fffffff)"
        );
        let t = LocalDeletionTime::decode(&mut Reader::new(&[0xff; 4], 0), false, "t").unwrap();
        assert_eq!(t.secs, -1);
    }
}
