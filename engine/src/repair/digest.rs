//! A partition's validation digest: `db/Digest.java` `forValidator()` over
//! `db/rows/UnfilteredRowIterators.java` `digest` of the partition as validation compaction
//! sees it (purged at gcBefore: [`purge`](super::purge)).

use crate::component::common::clustering::{ClusteringPrefixBuf, ClusteringValueState};
use crate::component::common::deletion::{DeletionTime, LocalDeletionTime};
use crate::component::data::{Cell, ColumnData, DataSchema, LivenessInfo, Row};
use crate::hash::murmur3_x64_128_reference;
use crate::merge::{MergedPartition, MergedUnfiltered};

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
            Some(c) => {
                for v in &c.values {
                    if v.state != ClusteringValueState::Null {
                        self.update(&v.bytes);
                    }
                }
                self.byte(c.kind.ordinal());
            }
            None => self.byte(static_kind),
        }
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
        // `AbstractCell.digest`: value (a counter's context as stored), timestamp, ttl,
        // isCounterCell, path.
        self.update(&c.value.bytes);
        self.long(c.timestamp_micros);
        self.int(c.ttl_secs.unwrap_or(0) as u32);
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

/// `DeletionTime.isLive()`.
pub(crate) fn is_live(d: &DeletionTime) -> bool {
    d.marked_for_delete_at_micros == NO_TIMESTAMP
}

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
