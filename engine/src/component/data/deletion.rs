//! Deletion times, liveness info and the delta-encoded time fields of Data.db.
//!
//! Partition-level deletion (a fixed layout):
//!
//! | versions | layout | LIVE (no deletion) |
//! |---|---|---|
//! | ma … nc | i32 localDeletionTime (s), i64 markedForDeleteAt (µs): 12 bytes | ldt `0x7FFFFFFF`, mfda `i64::MIN` |
//! | oa, da | first byte `0x80` alone = LIVE (1 byte); a first byte with bit 7 set but other bits is corrupt; else i64 mfda (top bit 0) then u32 ldt: 12 bytes | the byte `80` |
//!
//! Everything else (row deletion, liveness, cells, complex deletion, range tombstone markers) is
//! delta-encoded against the header's EncodingStats ([`DeltaBase`]): unsigned vints, in the order
//!
//! | field | order |
//! |---|---|
//! | DeletionTime (row, shadowable, complex, marker) | timestamp delta, ldt delta |
//! | LivenessInfo | timestamp delta, [ttl delta, ldt delta] |
//! | Cell | timestamp delta, ldt delta, ttl delta |
//!
//! Timestamps add in wrapping 64-bit arithmetic; ldt and TTL deltas are truncated to 32 bits and
//! add wrapping at 32 bits. The ldt is read as u32 in oa/da (`0xFFFFFFFF` = none, `0xFFFFFFFE` =
//! invalid) and as i32 before (`i32::MAX` = none, negative = invalid or an overflowed expiry).
//!
//! Src: `src/java/org/apache/cassandra/db/DeletionTime.java` (`Serializer`, `LegacySerializer`,
//! `build`), `db/SerializationHeader.java` (`readTimestamp`, `readLocalDeletionTime`,
//! `readTTL`, `readDeletionTime`), `db/LivenessInfo.java`, `db/rows/Cell.java`
//! (`decodeLocalDeletionTime`, `NO_DELETION_TIME`, `INVALID_DELETION_TIME`),
//! `utils/CassandraUInt.java`.

use serde::Serialize;

use super::schema::DeltaBase;
use super::{Finding, FindingKind};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Span, Spanned};
use crate::version::Version;

/// `LivenessInfo.EXPIRED_LIVENESS_TTL`: the TTL of an already-expired primary key liveness.
pub const EXPIRED_LIVENESS_TTL_SECS: i32 = i32::MAX;

/// A local deletion (or expiration) time in seconds, as its 32 stored bits and as Cassandra
/// reads them for the SSTable's version.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalDeletionTime {
    /// The 32-bit pattern.
    pub raw: u32,
    /// Seconds since the epoch: `raw` as u32 (oa/da) or as i32 (before).
    pub secs: i64,
    /// Whether the SSTable stores unsigned deletion times (oa/da).
    pub unsigned: bool,
}

impl LocalDeletionTime {
    pub fn new(raw: u32, unsigned: bool) -> Self {
        let secs = if unsigned {
            i64::from(raw)
        } else {
            i64::from(raw as i32)
        };
        LocalDeletionTime {
            raw,
            secs,
            unsigned,
        }
    }

    /// `NO_DELETION_TIME`: `0xFFFFFFFF` (oa/da) or `i32::MAX` (before).
    pub fn is_none(&self) -> bool {
        if self.unsigned {
            self.raw == u32::MAX
        } else {
            self.raw == i32::MAX as u32
        }
    }

    /// Values Cassandra refuses as deletion times: negative before oa (corruption, or an expiry
    /// past 2038 that overflowed), `0xFFFFFFFE` (`INVALID_DELETION_TIME`) in oa/da.
    pub fn is_invalid(&self) -> bool {
        if self.unsigned {
            self.raw == u32::MAX - 1
        } else {
            (self.raw as i32) < 0
        }
    }

    /// The time to compare with "now" for expiry: the stored value, but read unsigned when a
    /// pre-oa expiry overflowed i32 (the time it was meant to be).
    pub fn expiry_secs(&self) -> i64 {
        if self.is_invalid() && !self.unsigned {
            i64::from(self.raw)
        } else {
            self.secs
        }
    }
}

/// How a [`DeletionTime`] was stored.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeletionTimeEncoding {
    /// Before oa: i32 ldt, i64 mfda (12 bytes).
    Legacy,
    /// oa/da: the single byte `0x80` (LIVE).
    UnsignedLive,
    /// oa/da: i64 mfda, u32 ldt (12 bytes).
    Unsigned,
    /// Inside rows and markers: timestamp and ldt deltas (unsigned vints).
    Delta,
}

/// Cassandra's `DeletionTime`: markedForDeleteAt (µs) and localDeletionTime (s).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DeletionTime {
    pub span: Span,
    pub encoding: DeletionTimeEncoding,
    pub marked_for_delete_at_micros: i64,
    /// `None` for the 1-byte LIVE form.
    pub marked_for_delete_at_span: Option<Span>,
    pub local_deletion_time: LocalDeletionTime,
    /// `None` for the 1-byte LIVE form.
    pub local_deletion_time_span: Option<Span>,
}

impl DeletionTime {
    /// Deletes nothing: markedForDeleteAt is `i64::MIN` (`DeletionTime.LIVE`). A delta-encoded
    /// LIVE time (a complex column without a deletion) may carry a garbage ldt in oa/da
    /// (CASSANDRA-21333), so the ldt is not looked at.
    pub fn is_live(&self) -> bool {
        self.marked_for_delete_at_micros == i64::MIN
    }

    /// Whether [`DeletionTime::check`] has a finding to add (so callers can build the
    /// description only then).
    pub(crate) fn is_suspicious(&self) -> bool {
        !self.is_live() && self.local_deletion_time.is_invalid()
    }

    /// A finding when the deletion is not live and its ldt is invalid.
    pub(crate) fn check(&self, what: &str, findings: &mut Vec<Finding>) {
        if self.is_live() || !self.local_deletion_time.is_invalid() {
            return;
        }
        findings.push(Finding::new(
            FindingKind::InvalidLocalDeletionTime,
            self.local_deletion_time_span.unwrap_or(self.span),
            format!(
                "{what} has an invalid local deletion time {} (raw {:#010x}); Cassandra treats it \
                 as INVALID_DELETION_TIME",
                self.local_deletion_time.secs, self.local_deletion_time.raw
            ),
        ));
    }
}

/// Reads a partition-level DeletionTime in the version's fixed layout.
pub(crate) fn read_partition_deletion(
    r: &mut Reader<'_>,
    version: &Version,
) -> Result<DeletionTime> {
    const WHAT: &str = "partition deletion";
    let start = r.offset();
    if version.has_uint_deletion_time() {
        let first = r.peek_u8().unwrap_or(0);
        if first & 0x80 != 0 {
            let flags = r.u8(WHAT)?;
            if flags != 0x80 {
                return Err(r.invalid_at(
                    format!(
                        "invalid DeletionTime flags {flags:#04x} (only 0x80, LIVE, has bit 7 set)"
                    ),
                    start,
                    WHAT,
                ));
            }
            return Ok(DeletionTime {
                span: r.span_from(start),
                encoding: DeletionTimeEncoding::UnsignedLive,
                marked_for_delete_at_micros: i64::MIN,
                marked_for_delete_at_span: None,
                local_deletion_time: LocalDeletionTime::new(u32::MAX, true),
                local_deletion_time_span: None,
            });
        }
        let mfda = r.i64(WHAT)?;
        let mfda_span = r.span_from(start);
        let ldt_start = r.offset();
        let ldt = r.u32(WHAT)?;
        return Ok(DeletionTime {
            span: r.span_from(start),
            encoding: DeletionTimeEncoding::Unsigned,
            marked_for_delete_at_micros: mfda,
            marked_for_delete_at_span: Some(mfda_span),
            local_deletion_time: LocalDeletionTime::new(ldt, true),
            local_deletion_time_span: Some(r.span_from(ldt_start)),
        });
    }
    let ldt = r.u32(WHAT)?;
    let ldt_span = r.span_from(start);
    let mfda_start = r.offset();
    let mfda = r.i64(WHAT)?;
    Ok(DeletionTime {
        span: r.span_from(start),
        encoding: DeletionTimeEncoding::Legacy,
        marked_for_delete_at_micros: mfda,
        marked_for_delete_at_span: Some(r.span_from(mfda_start)),
        local_deletion_time: LocalDeletionTime::new(ldt, false),
        local_deletion_time_span: Some(ldt_span),
    })
}

/// `SerializationHeader.readTimestamp`: minTimestamp + delta, wrapping.
pub(crate) fn read_timestamp(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<Spanned<i64>> {
    let start = r.offset();
    let delta = r.unsigned_vint(what)?;
    Ok(Spanned {
        value: base.min_timestamp_micros.wrapping_add(delta as i64),
        span: r.span_from(start),
    })
}

/// `SerializationHeader.readLocalDeletionTime`: minLocalDeletionTime + (delta truncated to 32
/// bits), wrapping at 32 bits.
pub(crate) fn read_local_deletion_time(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<Spanned<LocalDeletionTime>> {
    let start = r.offset();
    let delta = r.unsigned_vint(what)?;
    let raw = base.min_local_deletion_time_raw.wrapping_add(delta as u32);
    Ok(Spanned {
        value: LocalDeletionTime::new(raw, base.unsigned_deletion_time),
        span: r.span_from(start),
    })
}

/// `SerializationHeader.readTTL`: minTTL + (delta truncated to 32 bits), wrapping.
pub(crate) fn read_ttl(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<Spanned<i32>> {
    let start = r.offset();
    let delta = r.unsigned_vint(what)?;
    Ok(Spanned {
        value: base.min_ttl_secs.wrapping_add(delta as u32 as i32),
        span: r.span_from(start),
    })
}

/// `SerializationHeader.readDeletionTime`: timestamp delta, then ldt delta.
pub(crate) fn read_delta_deletion_time(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<DeletionTime> {
    let start = r.offset();
    let mfda = read_timestamp(r, base, what)?;
    let ldt = read_local_deletion_time(r, base, what)?;
    Ok(DeletionTime {
        span: r.span_from(start),
        encoding: DeletionTimeEncoding::Delta,
        marked_for_delete_at_micros: mfda.value,
        marked_for_delete_at_span: Some(mfda.span),
        local_deletion_time: ldt.value,
        local_deletion_time_span: Some(ldt.span),
    })
}

/// A row's primary key liveness (`LivenessInfo`): timestamp, and for expiring rows TTL and
/// local expiration time.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LivenessInfo {
    pub span: Span,
    pub timestamp_micros: Spanned<i64>,
    /// Present when the row is expiring (HAS_TTL).
    pub ttl_secs: Option<Spanned<i32>>,
    /// Present when the row is expiring (HAS_TTL).
    pub local_expiration_time: Option<Spanned<LocalDeletionTime>>,
}

impl LivenessInfo {
    pub fn is_expiring(&self) -> bool {
        self.ttl_secs.is_some()
    }

    /// `LivenessInfo.ExpiredLivenessInfo`: TTL `EXPIRED_LIVENESS_TTL` (materialized views).
    pub fn is_expired_liveness(&self) -> bool {
        self.ttl_secs
            .as_ref()
            .is_some_and(|t| t.value == EXPIRED_LIVENESS_TTL_SECS)
    }

    /// Reads the liveness fields the row flags announce.
    pub(crate) fn read(
        r: &mut Reader<'_>,
        base: &DeltaBase,
        has_ttl: bool,
        findings: &mut Vec<Finding>,
    ) -> Result<LivenessInfo> {
        let start = r.offset();
        let timestamp_micros = read_timestamp(r, base, "row liveness: timestamp")?;
        let (ttl_secs, local_expiration_time) = if has_ttl {
            let ttl = read_ttl(r, base, "row liveness: ttl")?;
            let ldt = read_local_deletion_time(r, base, "row liveness: local expiration time")?;
            (Some(ttl), Some(ldt))
        } else {
            (None, None)
        };
        let info = LivenessInfo {
            span: r.span_from(start),
            timestamp_micros,
            ttl_secs,
            local_expiration_time,
        };
        if let (Some(ttl), Some(ldt)) = (&info.ttl_secs, &info.local_expiration_time) {
            check_expiration("row liveness", ttl, ldt, findings);
        }
        Ok(info)
    }
}

/// Whether [`check_expiration`] has a finding to add for this pair.
pub(crate) fn expiration_is_suspicious(ttl_secs: i32, t: &LocalDeletionTime) -> bool {
    ttl_secs < 0
        || t.is_invalid()
        || (ttl_secs > 0 && ttl_secs != EXPIRED_LIVENESS_TTL_SECS && t.secs < i64::from(ttl_secs))
}

/// Findings for an expiring TTL / local expiration time pair (`Cell.decodeLocalDeletionTime`).
pub(crate) fn check_expiration(
    what: &str,
    ttl: &Spanned<i32>,
    ldt: &Spanned<LocalDeletionTime>,
    findings: &mut Vec<Finding>,
) {
    if ttl.value < 0 {
        findings.push(Finding::new(
            FindingKind::InvalidTtl,
            ttl.span,
            format!("{what} has a negative TTL {} s", ttl.value),
        ));
    }
    let t = &ldt.value;
    if t.is_invalid() && !t.unsigned {
        findings.push(Finding::new(
            FindingKind::OverflowedExpirationTime,
            ldt.span,
            format!(
                "{what} expires at {} s (unsigned), past 2038: it overflowed the signed 32-bit \
                 local expiration time and reads as {} (CASSANDRA-14092); Cassandra 5.0 reads it \
                 as INVALID_DELETION_TIME",
                t.raw, t.secs
            ),
        ));
    } else if t.is_invalid() {
        findings.push(Finding::new(
            FindingKind::InvalidLocalDeletionTime,
            ldt.span,
            format!(
                "{what} has the invalid local expiration time {:#010x}",
                t.raw
            ),
        ));
    } else if ttl.value > 0
        && ttl.value != EXPIRED_LIVENESS_TTL_SECS
        && t.secs < i64::from(ttl.value)
    {
        findings.push(Finding::new(
            FindingKind::InvalidLocalDeletionTime,
            ldt.span,
            format!(
                "{what} expires at {} s, before its TTL of {} s could have elapsed since the \
                 epoch (Cassandra reads it as INVALID_DELETION_TIME)",
                t.secs, ttl.value
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    #[test]
    fn partition_deletion_both_layouts() {
        let nb = Version::parse(Format::Big, "nb").unwrap();
        let oa = Version::parse(Format::Big, "oa").unwrap();
        let live_legacy = [0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0];
        let d = read_partition_deletion(&mut Reader::new(&live_legacy, 10), &nb).unwrap();
        assert!(d.is_live() && d.local_deletion_time.is_none());
        assert_eq!(d.span, Span::new(10, 22));
        let d = read_partition_deletion(&mut Reader::new(&[0x80], 0), &oa).unwrap();
        assert!(d.is_live() && d.encoding == DeletionTimeEncoding::UnsignedLive);
        assert!(read_partition_deletion(&mut Reader::new(&[0x81], 0), &oa).is_err());
        let mut bytes = 1_677_485_274_992_000i64.to_be_bytes().to_vec();
        bytes.extend_from_slice(&0xffff_fff0u32.to_be_bytes());
        let d = read_partition_deletion(&mut Reader::new(&bytes, 0), &oa).unwrap();
        assert_eq!(d.marked_for_delete_at_micros, 1_677_485_274_992_000);
        assert_eq!(d.local_deletion_time.secs, 0xffff_fff0);
        let mut neg = (-1i32).to_be_bytes().to_vec();
        neg.extend_from_slice(&5i64.to_be_bytes());
        let d = read_partition_deletion(&mut Reader::new(&neg, 0), &nb).unwrap();
        assert_eq!(d.local_deletion_time.secs, -1);
        let mut f = Vec::new();
        d.check("partition deletion", &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FindingKind::InvalidLocalDeletionTime);
    }

    #[test]
    fn deltas_wrap() {
        let base = DeltaBase {
            min_timestamp_micros: 100,
            min_local_deletion_time_raw: 0x8000_0000,
            min_ttl_secs: 10,
            unsigned_deletion_time: false,
        };
        // ts delta = u64::MAX (9 bytes) wraps to 99; ldt delta 0x8000_0000 wraps to 0.
        let bytes = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0, 0x80, 0, 0, 0, 0x05,
        ];
        let mut r = Reader::new(&bytes, 0);
        assert_eq!(read_timestamp(&mut r, &base, "t").unwrap().value, 99);
        let ldt = read_local_deletion_time(&mut r, &base, "t").unwrap();
        assert_eq!(ldt.value.raw, 0);
        assert_eq!(read_ttl(&mut r, &base, "t").unwrap().value, 15);
    }
}
