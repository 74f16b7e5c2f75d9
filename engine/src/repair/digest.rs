//! A partition's validation digest: `db/Digest.java` `forValidator()` over
//! `db/rows/UnfilteredRowIterators.java` `digest` of the partition as validation compaction
//! sees it (purged at gcBefore: [`purge`](super::purge)).

use crate::component::common::clustering::ClusteringPrefixKind;
use crate::component::common::clustering::{ClusteringPrefixBuf, ClusteringValueState};
use crate::component::common::deletion::{DeletionTime, LocalDeletionTime};
use crate::component::data::{
    Cell, CellKind, ColumnData, DataSchema, LivenessInfo, MarkerDeletion, RangeTombstoneMarker, Row,
};
use crate::hash::murmur3_x64_128_reference;
use crate::merge::{MergedPartition, MergedUnfiltered};

use super::purge::{cell_changes, is_live, liveness_purged, purgeable};

/// `Row.Kind.ROW.ordinal()`.
const ROW_KIND_ORDINAL: u8 = 0;
/// `LivenessInfo.NO_TIMESTAMP`, `DeletionTime.LIVE`'s markedForDeleteAt.
const NO_TIMESTAMP: i64 = i64::MIN;

/// The bytes a `Digest` is updated with, hashed when finished (`Digest.forValidator()`:
/// Guava's `concatenating(murmur3_128(1000), murmur3_128(2000))`).
#[derive(Debug, Default)]
pub struct ValidatorDigest {
    input: Vec<u8>,
}

impl ValidatorDigest {
    fn update(&mut self, bytes: &[u8]) {
        self.input.extend_from_slice(bytes);
    }
    fn long(&mut self, v: i64) {
        self.update(&v.to_be_bytes());
    }
    fn int(&mut self, v: u32) {
        self.update(&v.to_be_bytes());
    }
    fn byte(&mut self, v: u8) {
        self.input.push(v);
    }

    /// `Digest.inputBytes()`.
    pub fn input_bytes(&self) -> u64 {
        self.input.len() as u64
    }

    /// The 256-bit digest: murmur3_128 seed 1000 then seed 2000, each h1 then h2 little-endian.
    pub fn finish(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        let (a1, a2) = murmur3_x64_128_reference(&self.input, 1000);
        let (b1, b2) = murmur3_x64_128_reference(&self.input, 2000);
        let words = [a1, a2, b1, b2].map(u64::to_le_bytes);
        for (o, b) in out.iter_mut().zip(words.iter().flatten()) {
            *o = *b;
        }
        out
    }

    fn deletion(&mut self, d: Option<&DeletionTime>, unsigned: bool) {
        // `DeletionTime.digest`: markedForDeleteAt, then localDeletionTime as stored.
        match d {
            Some(d) => {
                self.long(d.marked_for_delete_at_micros);
                self.int(d.local_deletion_time.raw);
            }
            None => {
                self.long(NO_TIMESTAMP);
                self.int(LocalDeletionTime::none(unsigned).raw);
            }
        }
    }

    fn clustering(&mut self, c: Option<&ClusteringPrefixBuf>, static_kind: u8) {
        // `ClusteringPrefix.digest`: each non-null value, then the kind's ordinal.
        match c {
            Some(c) => self.clustering_as(c, c.kind),
            None => self.byte(static_kind),
        }
    }

    /// `c`'s values with `kind` (a boundary purged on one side is a bound).
    fn clustering_as(&mut self, c: &ClusteringPrefixBuf, kind: ClusteringPrefixKind) {
        for v in &c.values {
            if v.state != ClusteringValueState::Null {
                self.update(&v.bytes);
            }
        }
        self.byte(kind.ordinal());
    }

    fn liveness(&mut self, l: Option<&LivenessInfo>) {
        // `LivenessInfo.digest` (+ `ExpiringLivenessInfo`: localExpirationTime, ttl).
        match l {
            Some(l) => {
                self.long(l.timestamp_micros.value);
                if let (Some(ttl), Some(exp)) = (&l.ttl_secs, &l.local_expiration_time) {
                    self.int(exp.value.raw);
                    self.int(ttl.value as u32);
                }
            }
            None => self.long(NO_TIMESTAMP),
        }
    }

    fn cell(&mut self, c: &Cell) {
        self.cell_as(c, false);
    }

    /// `AbstractCell.digest`: value (a counter's context as stored), timestamp, ttl,
    /// isCounterCell, path; `tombstoned`: the cell as purge rewrites an expired cell (no
    /// value, no ttl).
    fn cell_as(&mut self, c: &Cell, tombstoned: bool) {
        if !tombstoned {
            self.update(&c.value.bytes);
        }
        self.long(c.timestamp_micros);
        let ttl = if tombstoned {
            0
        } else {
            c.ttl_secs.unwrap_or(0)
        };
        self.int(ttl as u32);
        self.byte(u8::from(c.counter.is_some()));
        if let Some(p) = &c.path {
            self.update(&p.bytes);
        }
    }

    fn row(&mut self, r: &Row, unsigned: bool) {
        // `AbstractRow.digest`: kind, clustering, deletion, liveness, each column's data.
        self.byte(ROW_KIND_ORDINAL);
        self.clustering(r.clustering.as_ref(), STATIC_CLUSTERING_ORDINAL);
        self.deletion(r.deletion.as_ref().map(|d| &d.time), unsigned);
        self.liveness(r.liveness.as_ref());
        for data in &r.column_data {
            match data {
                ColumnData::Simple(c) => self.cell(c),
                ColumnData::Complex(c) => {
                    if let Some(d) = &c.complex_deletion {
                        if !is_live(d) {
                            self.deletion(Some(d), unsigned);
                        }
                    }
                    for cell in &c.cells {
                        self.cell(cell);
                    }
                }
            }
        }
    }
}

/// `ClusteringPrefix.Kind.STATIC_CLUSTERING.ordinal()`.
const STATIC_CLUSTERING_ORDINAL: u8 = 3;

/// `UnfilteredRowIterators.digest` of a (purged) merged partition: key, partition deletion,
/// regular column names, static column names when there is a static row, isReverseOrder
/// (false), the static row (`Rows.EMPTY_STATIC_ROW` when none), then every row and marker.
pub fn digest_partition(p: &MergedPartition, schema: &DataSchema) -> ValidatorDigest {
    let mut d = ValidatorDigest::default();
    let unsigned = p.start.deletion.local_deletion_time.unsigned;
    d.update(&p.start.key.bytes.bytes);
    d.deletion(
        (!is_live(&p.start.deletion)).then_some(&p.start.deletion),
        unsigned,
    );
    for c in &schema.regular_columns {
        d.update(c.name.as_bytes());
    }
    if p.static_row.is_some() {
        for c in &schema.static_columns {
            d.update(c.name.as_bytes());
        }
    }
    d.byte(0);
    match &p.static_row {
        Some(s) => d.row(&s.row, unsigned),
        None => {
            d.byte(ROW_KIND_ORDINAL);
            d.byte(STATIC_CLUSTERING_ORDINAL);
            d.deletion(None, unsigned);
            d.liveness(None);
        }
    }
    for u in &p.unfiltereds {
        match u {
            MergedUnfiltered::Row(r) => d.row(&r.row, unsigned),
            MergedUnfiltered::Marker(m) => {
                // `RangeTombstoneBoundMarker.digest` / `…BoundaryMarker.digest`.
                d.clustering(Some(&m.marker.bound), STATIC_CLUSTERING_ORDINAL);
                match &m.marker.deletion {
                    crate::component::data::MarkerDeletion::Bound(t) => {
                        d.deletion(Some(t), unsigned)
                    }
                    crate::component::data::MarkerDeletion::Boundary { end, start } => {
                        d.deletion(Some(end), unsigned);
                        d.deletion(Some(start), unsigned);
                    }
                }
            }
        }
    }
    d
}

/// A cell as validation's purge leaves it: `None` dropped, `Some(true)` an expired cell
/// rewritten as a tombstone, `Some(false)` unchanged (`purge::purge_row`'s rules).
fn purged_cell(c: &Cell, gc_before_secs: i64) -> Option<bool> {
    if !cell_changes(c, gc_before_secs) {
        return Some(false);
    }
    let ldt = c.local_deletion_time.map(|l| l.secs);
    match c.kind {
        CellKind::Tombstone if ldt.is_some_and(|t| t < gc_before_secs) => None,
        CellKind::Expired => (ldt.unwrap_or(i64::MIN) >= gc_before_secs).then_some(true),
        _ => Some(false),
    }
}

/// What validation's purge leaves of a row (as `purge::purge_row` decides it).
struct PurgeAt {
    now_secs: i64,
    gc_before_secs: i64,
}

impl PurgeAt {
    fn complex_deletion<'a>(
        &self,
        c: &'a crate::component::data::ComplexColumn,
    ) -> Option<&'a DeletionTime> {
        c.complex_deletion
            .as_ref()
            .filter(|d| !purgeable(d, self.gc_before_secs) && !is_live(d))
    }

    fn column_survives(&self, d: &ColumnData) -> bool {
        match d {
            ColumnData::Simple(c) => purged_cell(c, self.gc_before_secs).is_some(),
            ColumnData::Complex(c) => {
                self.complex_deletion(c).is_some()
                    || c.cells
                        .iter()
                        .any(|c| purged_cell(c, self.gc_before_secs).is_some())
            }
        }
    }

    fn deletion<'a>(&self, r: &'a Row) -> Option<&'a DeletionTime> {
        r.deletion
            .as_ref()
            .map(|d| &d.time)
            .filter(|d| !purgeable(d, self.gc_before_secs))
    }

    fn liveness<'a>(&self, r: &'a Row) -> Option<&'a LivenessInfo> {
        r.liveness
            .as_ref()
            .filter(|l| !liveness_purged(l, self.now_secs, self.gc_before_secs))
    }

    fn row_survives(&self, r: &Row) -> bool {
        self.deletion(r).is_some()
            || self.liveness(r).is_some()
            || r.column_data.iter().any(|d| self.column_survives(d))
    }

    /// The marker's kind and deletions after purge (a boundary purged on one side is the
    /// other side's bound); `None` when purged whole.
    fn marker<'a>(
        &self,
        m: &'a RangeTombstoneMarker,
    ) -> Option<(
        ClusteringPrefixKind,
        &'a DeletionTime,
        Option<&'a DeletionTime>,
    )> {
        use ClusteringPrefixKind::*;
        let gc = self.gc_before_secs;
        match &m.deletion {
            MarkerDeletion::Bound(t) => (!purgeable(t, gc)).then_some((m.bound.kind, t, None)),
            MarkerDeletion::Boundary { end, start } => {
                let inclusive_start = m.bound.kind == ExclEndInclStartBoundary;
                match (purgeable(end, gc), purgeable(start, gc)) {
                    (true, true) => None,
                    (true, false) => Some((
                        if inclusive_start {
                            InclStartBound
                        } else {
                            ExclStartBound
                        },
                        start,
                        None,
                    )),
                    (false, true) => Some((
                        if inclusive_start {
                            ExclEndBound
                        } else {
                            InclEndBound
                        },
                        end,
                        None,
                    )),
                    (false, false) => Some((m.bound.kind, end, Some(start))),
                }
            }
        }
    }
}

impl ValidatorDigest {
    fn purged_row(&mut self, r: &Row, at: &PurgeAt, unsigned: bool) {
        self.byte(ROW_KIND_ORDINAL);
        self.clustering(r.clustering.as_ref(), STATIC_CLUSTERING_ORDINAL);
        self.deletion(at.deletion(r), unsigned);
        self.liveness(at.liveness(r));
        for data in &r.column_data {
            match data {
                ColumnData::Simple(c) => {
                    if let Some(tombstoned) = purged_cell(c, at.gc_before_secs) {
                        self.cell_as(c, tombstoned);
                    }
                }
                ColumnData::Complex(c) => {
                    if let Some(d) = at.complex_deletion(c) {
                        self.deletion(Some(d), unsigned);
                    }
                    for cell in &c.cells {
                        if let Some(tombstoned) = purged_cell(cell, at.gc_before_secs) {
                            self.cell_as(cell, tombstoned);
                        }
                    }
                }
            }
        }
    }
}

/// [`digest_partition`] of `purge_partition(p, now_secs, gc_before_secs)`, computed from `p`
/// itself (no purged copy is built); `None` when purging leaves nothing (not hashed).
pub fn digest_purged_partition(
    p: &MergedPartition,
    schema: &DataSchema,
    now_secs: i64,
    gc_before_secs: i64,
) -> Option<ValidatorDigest> {
    let at = PurgeAt {
        now_secs,
        gc_before_secs,
    };
    let deletion = &p.start.deletion;
    let deletion = (!is_live(deletion) && !purgeable(deletion, gc_before_secs)).then_some(deletion);
    let static_row = p.static_row.as_ref().filter(|s| at.row_survives(&s.row));
    let survives = |u: &&MergedUnfiltered| match u {
        MergedUnfiltered::Row(r) => at.row_survives(&r.row),
        MergedUnfiltered::Marker(m) => at.marker(&m.marker).is_some(),
    };
    if deletion.is_none() && static_row.is_none() && !p.unfiltereds.iter().any(|u| survives(&u)) {
        return None;
    }
    let mut d = ValidatorDigest::default();
    let unsigned = p.start.deletion.local_deletion_time.unsigned;
    d.update(&p.start.key.bytes.bytes);
    d.deletion(deletion, unsigned);
    for c in &schema.regular_columns {
        d.update(c.name.as_bytes());
    }
    if static_row.is_some() {
        for c in &schema.static_columns {
            d.update(c.name.as_bytes());
        }
    }
    d.byte(0);
    match static_row {
        Some(s) => d.purged_row(&s.row, &at, unsigned),
        None => {
            d.byte(ROW_KIND_ORDINAL);
            d.byte(STATIC_CLUSTERING_ORDINAL);
            d.deletion(None, unsigned);
            d.liveness(None);
        }
    }
    for u in p.unfiltereds.iter().filter(survives) {
        match u {
            MergedUnfiltered::Row(r) => d.purged_row(&r.row, &at, unsigned),
            MergedUnfiltered::Marker(m) => {
                if let Some((kind, first, second)) = at.marker(&m.marker) {
                    d.clustering_as(&m.marker.bound, kind);
                    d.deletion(Some(first), unsigned);
                    if let Some(second) = second {
                        d.deletion(Some(second), unsigned);
                    }
                }
            }
        }
    }
    Some(d)
}
