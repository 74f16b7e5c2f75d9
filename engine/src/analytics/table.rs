//! Many SSTables of one table: each one's [min, max] timestamp and local deletion times, token
//! ranges and their overlaps, level, repairedAt, pending repair, origin, and the fully expired
//! SSTables with the SSTables that block their removal — from Statistics.db (and Summary.db for
//! the key range before `oa`), no Data.db read.
//!
//! Rules, with `gcBefore = now − gc_grace_seconds`:
//! * an SSTable is a *candidate* when its maxLocalDeletionTime is before gcBefore (every cell has
//!   expired or is a tombstone older than gc grace);
//! * `sstableexpiredblockers` (`SSTableExpiredBlockers.checkForExpiredSSTableBlockers`): another
//!   SSTable *blocks* a candidate when its minTimestamp ≤ the candidate's maxTimestamp and its
//!   maxLocalDeletionTime > gcBefore (it may hold data the candidate's tombstones shadow);
//! * `CompactionController.getFullyExpiredSSTables`: a candidate is *fully expired* (compaction
//!   drops it whole) when its maxTimestamp is below the minTimestamp of every non-candidate
//!   (maxLocalDeletionTime ≥ gcBefore). Cassandra looks only at the overlapping SSTables; like
//!   `sstableexpiredblockers` this report looks at every SSTable given, and says for each blocker
//!   whether its token range overlaps the candidate's.
//!
//! "Now" defaults to the newest finite maxLocalDeletionTime (else the newest maxTimestamp), never
//! the wall clock; the report says which.
//!
//! Src: `tools/SSTableExpiredBlockers.java`, `db/compaction/CompactionController.java`,
//! `io/sstable/metadata/StatsMetadata.java`.

use serde::Serialize;

use super::partitions::NowSource;
use crate::metadata::SSTableMetadata;
use crate::token::Token;

/// One SSTable's times and placement.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TableSSTable {
    pub sstable: String,
    pub generation: String,
    pub version: String,
    pub min_timestamp_micros: Option<i64>,
    pub max_timestamp_micros: Option<i64>,
    pub min_local_deletion_time_secs: Option<i64>,
    /// `None` when it is NO_DELETION_TIME (live, non-expiring data: never expires).
    pub max_local_deletion_time_secs: Option<i64>,
    pub min_ttl_secs: Option<i32>,
    pub max_ttl_secs: Option<i32>,
    pub level: Option<i32>,
    pub repaired_at_millis: Option<i64>,
    pub pending_repair: Option<String>,
    pub originating_host_id: Option<String>,
    pub first_key_hex: Option<String>,
    pub last_key_hex: Option<String>,
    pub first_token: Option<Token>,
    pub last_token: Option<Token>,
    pub partitions_estimate: Option<i64>,
    pub data_bytes: Option<u64>,
    /// maxLocalDeletionTime < gcBefore.
    pub expiry_candidate: bool,
    pub fully_expired: bool,
    /// The SSTables that block this one (by `sstableexpiredblockers`' rule).
    pub blocked_by: Vec<Blocker>,
}

/// An SSTable that blocks a candidate's removal.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Blocker {
    pub sstable: String,
    /// Whether its token range overlaps the candidate's (compaction only looks at those).
    pub overlaps: bool,
}

/// Two SSTables whose token ranges overlap.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    pub a: String,
    pub b: String,
}

/// The `table --json` report.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TableReport {
    pub now_secs: i64,
    pub now_source: NowSource,
    pub gc_grace_secs: i64,
    pub gc_before_secs: i64,
    pub sstables: Vec<TableSSTable>,
    pub overlaps: Vec<Overlap>,
    pub fully_expired: Vec<String>,
    /// Candidates that something blocks.
    pub blocked: Vec<String>,
}

/// Builds the report from each SSTable's name and decoded metadata.
pub fn table_report(
    sstables: &[(String, &SSTableMetadata)],
    gc_grace_secs: i64,
    now_secs: Option<i64>,
) -> TableReport {
    let mut rows: Vec<TableSSTable> = sstables.iter().map(|(n, m)| describe(n, m)).collect();
    let (now, now_source) = match now_secs {
        Some(n) => (n, NowSource::Given),
        None => match rows
            .iter()
            .filter_map(|r| r.max_local_deletion_time_secs)
            .max()
        {
            Some(n) => (n, NowSource::NewestLocalDeletionTime),
            None => match rows.iter().filter_map(|r| r.max_timestamp_micros).max() {
                Some(t) => (t.div_euclid(1_000_000), NowSource::MaxTimestamp),
                None => (0, NowSource::None),
            },
        },
    };
    let gc_before = now.saturating_sub(gc_grace_secs);
    // NO_DELETION_TIME (None) is never before gcBefore.
    let max_ldt = |r: &TableSSTable| r.max_local_deletion_time_secs.unwrap_or(i64::MAX);
    for r in rows.iter_mut() {
        r.expiry_candidate = max_ldt(r) < gc_before;
    }
    let mut overlaps = Vec::new();
    for (i, a) in rows.iter().enumerate() {
        for b in rows.iter().skip(i.saturating_add(1)) {
            if token_overlap(a, b) {
                overlaps.push(Overlap {
                    a: a.sstable.clone(),
                    b: b.sstable.clone(),
                });
            }
        }
    }
    let snapshot = rows.clone();
    for r in rows.iter_mut().filter(|r| r.expiry_candidate) {
        let max_ts = r.max_timestamp_micros.unwrap_or(i64::MAX);
        r.blocked_by = snapshot
            .iter()
            .filter(|o| o.sstable != r.sstable)
            .filter(|o| {
                o.min_timestamp_micros.unwrap_or(i64::MIN) <= max_ts && max_ldt(o) > gc_before
            })
            .map(|o| Blocker {
                sstable: o.sstable.clone(),
                overlaps: token_overlap(o, r),
            })
            .collect();
        let min_constructive = snapshot
            .iter()
            .filter(|o| !o.expiry_candidate)
            .filter_map(|o| o.min_timestamp_micros)
            .min()
            .unwrap_or(i64::MAX);
        r.fully_expired = max_ts < min_constructive;
    }
    TableReport {
        now_secs: now,
        now_source,
        gc_grace_secs,
        gc_before_secs: gc_before,
        fully_expired: rows
            .iter()
            .filter(|r| r.fully_expired)
            .map(|r| r.sstable.clone())
            .collect(),
        blocked: rows
            .iter()
            .filter(|r| r.expiry_candidate && !r.blocked_by.is_empty())
            .map(|r| r.sstable.clone())
            .collect(),
        sstables: rows,
        overlaps,
    }
}

/// Seconds of a Statistics.db local deletion time; `None` for NO_DELETION_TIME. A pre-oa
/// expiry past 2038 that overflowed i32 is read as the time it was meant to be.
fn ldt_secs(l: &crate::component::statistics::LocalDeletionTime) -> Option<i64> {
    (!l.is_none()).then(|| l.expiry_secs())
}

/// Whether the [first, last] token ranges of two SSTables intersect (unknown ranges: no).
fn token_overlap(a: &TableSSTable, b: &TableSSTable) -> bool {
    match (&a.first_token, &a.last_token, &b.first_token, &b.last_token) {
        (Some(af), Some(al), Some(bf), Some(bl)) => af <= bl && bf <= al,
        _ => false,
    }
}

fn describe(name: &str, m: &SSTableMetadata) -> TableSSTable {
    let stats = m.statistics.as_ref().and_then(|s| s.stats.as_ref());
    let (first, last) = match (
        stats.and_then(|s| s.first_key.as_ref()),
        stats.and_then(|s| s.last_key.as_ref()),
        m.summary.as_ref(),
    ) {
        (Some(f), Some(l), _) => (Some(f.bytes.clone()), Some(l.bytes.clone())),
        (_, _, Some(s)) => (
            Some(s.first_key.value.clone()),
            Some(s.last_key.value.clone()),
        ),
        // BTI without a key range in Statistics.db (ScyllaDB ms/mt, DSE): Partitions.db's footer.
        _ => match &m.partition_index_footer {
            Some(f) => (
                Some(f.first_key.value.clone()),
                Some(f.last_key.value.clone()),
            ),
            None => (None, None),
        },
    };
    let partitioner = m.partitioner();
    let uuid = |u: Option<&crate::component::statistics::OptionalUuid>| {
        u.and_then(|u| u.uuid.as_ref()).map(|s| s.value.clone())
    };
    TableSSTable {
        sstable: name.to_owned(),
        generation: m.descriptor.id.to_string(),
        version: m.descriptor.version.to_string(),
        min_timestamp_micros: stats.map(|s| s.min_timestamp_micros.value),
        max_timestamp_micros: stats.map(|s| s.max_timestamp_micros.value),
        min_local_deletion_time_secs: stats
            .and_then(|s| s.min_local_deletion_time.as_ref())
            .and_then(|l| ldt_secs(&l.value)),
        max_local_deletion_time_secs: stats
            .and_then(|s| ldt_secs(&s.max_local_deletion_time.value)),
        min_ttl_secs: stats.and_then(|s| s.min_ttl_secs.as_ref()).map(|t| t.value),
        max_ttl_secs: stats.and_then(|s| s.max_ttl_secs.as_ref()).map(|t| t.value),
        level: stats.map(|s| s.sstable_level.value),
        repaired_at_millis: stats.map(|s| s.repaired_at_millis.value),
        pending_repair: uuid(stats.and_then(|s| s.pending_repair.as_ref())),
        originating_host_id: uuid(stats.and_then(|s| s.originating_host_id.as_ref())),
        first_key_hex: first.as_deref().map(crate::span::hex),
        last_key_hex: last.as_deref().map(crate::span::hex),
        first_token: first.as_deref().map(|k| partitioner.token(k)),
        last_token: last.as_deref().map(|k| partitioner.token(k)),
        partitions_estimate: stats.map(|s| s.estimated_partition_count),
        data_bytes: m.size_of(&crate::component::ComponentType::Data),
        expiry_candidate: false,
        fully_expired: false,
        blocked_by: Vec::new(),
    }
}
