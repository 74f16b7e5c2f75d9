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
pub use crate::component::common::{DeletionTime, DeletionTimeEncoding, LocalDeletionTime};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// `LivenessInfo.EXPIRED_LIVENESS_TTL`: the TTL of an already-expired primary key liveness.
pub const EXPIRED_LIVENESS_TTL_SECS: i32 = i32::MAX;

/// A finding when a deletion time that deletes something ([`DeletionTime::deletes_nothing`] is
/// false) carries an invalid local deletion time.
pub(crate) fn check_deletion(d: &DeletionTime, what: &str, findings: &mut Vec<Finding>) {
    if !deletion_is_suspicious(d) {
        return;
    }
    findings.push(Finding::new(
        FindingKind::InvalidLocalDeletionTime,
        d.local_deletion_time_span.unwrap_or(d.span),
        format!(
            "{what} has an invalid local deletion time {} (raw {:#010x}); Cassandra treats it \
             as INVALID_DELETION_TIME",
            d.local_deletion_time.secs, d.local_deletion_time.raw
        ),
    ));
}

/// Whether [`check_deletion`] has a finding to add (so callers can build the description only
/// then). Keyed on [`DeletionTime::deletes_nothing`], not `is_live`: a delta-encoded complex
/// deletion that deletes nothing may carry a garbage ldt (CASSANDRA-21333) and is not flagged.
pub(crate) fn deletion_is_suspicious(d: &DeletionTime) -> bool {
    !d.deletes_nothing() && d.local_deletion_time.is_invalid()
}

/// `SerializationHeader.readTimestamp`: minTimestamp + delta, wrapping.
#[inline(always)]
pub(crate) fn read_timestamp(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<Spanned<i64>> {
    r.spanned(|r| {
        let delta = r.unsigned_vint(what)?;
        Ok(base.min_timestamp_micros.wrapping_add(delta as i64))
    })
}

/// `SerializationHeader.readLocalDeletionTime`: minLocalDeletionTime + (delta truncated to 32
/// bits), wrapping at 32 bits.
#[inline(always)]
pub(crate) fn read_local_deletion_time(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<Spanned<LocalDeletionTime>> {
    r.spanned(|r| {
        let delta = r.unsigned_vint(what)?;
        let raw = base.min_local_deletion_time_raw.wrapping_add(delta as u32);
        Ok(LocalDeletionTime::new(raw, base.unsigned_deletion_time))
    })
}

/// `SerializationHeader.readTTL`: minTTL + (delta truncated to 32 bits), wrapping.
#[inline(always)]
pub(crate) fn read_ttl(
    r: &mut Reader<'_>,
    base: &DeltaBase,
    what: &'static str,
) -> Result<Spanned<i32>> {
    r.spanned(|r| {
        let delta = r.unsigned_vint(what)?;
        Ok(base.min_ttl_secs.wrapping_add(delta as u32 as i32))
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
    #[inline(always)]
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

    #[test]
    fn complex_deletion_with_garbage_ldt_deletes_nothing_and_is_not_flagged() {
        // CASSANDRA-21333: markedForDeleteAt i64::MIN with a garbage ldt.
        let d = DeletionTime {
            span: Span::new(0, 2),
            encoding: DeletionTimeEncoding::Delta,
            marked_for_delete_at_micros: i64::MIN,
            marked_for_delete_at_span: None,
            local_deletion_time: LocalDeletionTime::new(u32::MAX - 1, true),
            local_deletion_time_span: None,
        };
        assert!(d.deletes_nothing() && !d.is_live());
        let mut f = Vec::new();
        check_deletion(&d, "complex deletion", &mut f);
        assert!(f.is_empty());
        let deleted = DeletionTime {
            marked_for_delete_at_micros: 5,
            ..d
        };
        check_deletion(&deleted, "complex deletion", &mut f);
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
