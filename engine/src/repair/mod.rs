//! Replica comparison offline: each replica's merged content ([`TableMerger`]) hashed per token
//! range into a Merkle tree as Cassandra's validation compaction does, and the replicas' trees
//! and partitions compared.
//!
//! | part | what | Src |
//! |---|---|---|
//! | `purge` | a merged partition purged at gcBefore, as validation compaction hands it on | `db/rows/AbstractCell.java` `purge`, `db/rows/BTreeRow.java` `purge`, `db/partitions/PurgeFunction.java` |
//! | [`digest`] | a partition's 256-bit digest: murmur3_128 seeds 1000 and 2000 concatenated over `UnfilteredRowIterators.digest`; a diff digests the merged partition as purge would leave it ([`digest_purged_partition`]), building the purged copy only for a partition that differs | `repair/Validator.java` `rowHash`, `db/Digest.java` `forValidator`, `db/rows/UnfilteredRowIterators.java` `digest` |
//! | [`tree`] | the Merkle tree over the full Murmur3 range, leaves XOR-combined; its depth | `utils/MerkleTree.java`, `repair/ValidationManager.java` |
//! | [`diff_replicas`], [`ReplicaDiff`] | the replicas merged side by side in token order: trees, differing ranges and partitions (step by step: [`ReplicaDiff::step`]) | `utils/MerkleTree.java` `difference` |
//! | [`compare`] | inside a differing partition: the rows, cells and tombstones that differ, each replica's version side by side and which one wins | `db/rows/Cells.java`, `db/LivenessInfo.java`, `db/DeletionTime.java` |
//!
//! Followed exactly: the digest's hash (Guava's murmur3_128 with seeds 1000 and 2000, 16 bytes
//! each, h1 then h2 little-endian, concatenated); what `UnfilteredRowIterators.digest` feeds it
//! in order (key, partition deletion, regular column names, static column names when there is
//! a static row, the reverse flag, the static row — `EMPTY_STATIC_ROW`'s fields when none —
//! then each row: kind, clustering values and kind, deletion, liveness with ttl and expiry,
//! each cell's value, timestamp, ttl, counter flag and path, complex deletions; each marker:
//! bound and deletion times); longs and ints big-endian as `Digest.updateWithLong/Int`; the
//! XOR combination in leaves and inner nodes; a partition purged to nothing is not hashed;
//! the depth `min(ceil(log2(estimated partitions)), 20)`.
//!
//! Not followed exactly: the column names digested are the merge schema's (the first
//! SSTable's header), where Cassandra digests the merged iterator's columns; a counter cell's
//! value is digested as stored, where `updateWithCounterContext` leaves out local shards; a
//! row deletion's shadowable flag is not digested; the local deletion time is digested as the
//! SSTable stores it (signed before 5.0's `oa`/`da`, unsigned after), so replicas written by
//! different major versions always differ; the tree has equal-width leaves at one depth for
//! every replica (Cassandra's trees split where partitions are and may differ in depth per
//! replica), and differing ranges are the differing leaves, adjacent ones coalesced, where
//! `MerkleTree.difference` reports the largest differing subtrees. Only Murmur3 tables are
//! hashed. The bytes a repair would stream are estimated as each side's digest input bytes
//! (`RowHash.size`, what `MerkleTree` sums as a range's size) over the differing ranges, not
//! the SSTable sections a stream session would send.

pub mod compare;
pub mod digest;
mod purge;
pub mod tree;

use core::cmp::Ordering;

use serde::Serialize;

use crate::clock::Clock;
use crate::merge::{MergeError, MergedPartition, TableMerger};
use crate::range::RangeSource;
use crate::token::{Partitioner, Token};

pub use compare::{PieceDiff, PieceKind, PieceState, PieceVersion};
pub use digest::{digest_partition, digest_purged_partition, ValidatorDigest};
pub use purge::{purge_changes, purge_partition};
pub use tree::{depth_for, Leaf, MerkleTree, MAX_DEPTH};

/// What validation is done at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidationOptions {
    /// "Now" for TTL expiry (give the readers the same `DecodeOptions::now_seconds`).
    pub now_seconds: i64,
    /// Tombstones deleted before this (now − gc_grace) are purged.
    pub gc_before_seconds: i64,
    pub depth: u8,
    /// Only partitions whose token is in (start, end] are hashed and compared.
    pub range: Option<(i64, i64)>,
}

/// One partition as one replica's validation hashes it.
#[derive(Debug, Clone)]
pub struct ValidatedPartition {
    pub token: i64,
    pub key: Vec<u8>,
    pub digest: [u8; 32],
    pub input_bytes: u64,
    /// The newest timestamp in it (cells, liveness, deletions).
    pub max_timestamp_micros: i64,
}

/// The token of a Murmur3 key.
fn murmur3_token(partitioner: &Partitioner, key: &[u8]) -> Option<i64> {
    match partitioner.token(key) {
        Token::Murmur3(t) => Some(t),
        _ => None,
    }
}

fn max_timestamp(p: &MergedPartition) -> i64 {
    let mut max = p.start.deletion.marked_for_delete_at_micros;
    let rows = p
        .static_row
        .iter()
        .map(|r| &r.row)
        .chain(p.unfiltereds.iter().filter_map(|u| match u {
            crate::merge::MergedUnfiltered::Row(r) => Some(&r.row),
            crate::merge::MergedUnfiltered::Marker(_) => None,
        }));
    for r in rows {
        if let Some(l) = &r.liveness {
            max = max.max(l.timestamp_micros.value);
        }
        if let Some(d) = &r.deletion {
            max = max.max(d.time.marked_for_delete_at_micros);
        }
        for c in r.cells() {
            max = max.max(c.timestamp_micros);
        }
    }
    for u in &p.unfiltereds {
        if let crate::merge::MergedUnfiltered::Marker(m) = u {
            match &m.marker.deletion {
                crate::component::data::MarkerDeletion::Bound(t) => {
                    max = max.max(t.marked_for_delete_at_micros)
                }
                crate::component::data::MarkerDeletion::Boundary { end, start } => {
                    max = max
                        .max(end.marked_for_delete_at_micros)
                        .max(start.marked_for_delete_at_micros)
                }
            }
        }
    }
    max
}

/// One replica's validation: its merged partitions purged, digested and added to its tree.
#[derive(Debug)]
pub struct Validator<S> {
    merger: TableMerger<S>,
    partitioner: Partitioner,
    options: ValidationOptions,
    pub tree: MerkleTree,
    /// Keep each partition's merged and purged versions ([`diff_replicas`] compares the
    /// pieces of those that differ).
    keep_partitions: bool,
    peeked: Option<Entry>,
    finished: bool,
}

/// One partition a replica holds in the range: validated (`None` when purged to nothing, so
/// not hashed) and, when kept (a diff), its merged version: the purged one is built only for a
/// partition that differs between replicas ([`Entry::sides`]).
#[derive(Debug)]
struct Entry {
    token: i64,
    key: Vec<u8>,
    validated: Option<ValidatedPartition>,
    merged: Option<MergedPartition>,
    /// Whether purging changes `merged` (when it does not, the merged version is the purged).
    purge_changes: bool,
    /// `merged` purged, when purging changes it and the partition differs.
    purged: Option<MergedPartition>,
}

impl Entry {
    /// Builds the purged version of a kept partition (when purging changes it) and sets the
    /// newest timestamp of what validation hashed: for a partition that differs.
    fn prepare(&mut self, now: i64, gc_before: i64) {
        let Some(merged) = &self.merged else {
            return;
        };
        if self.purge_changes && self.purged.is_none() {
            self.purged = purge_partition(merged.clone(), now, gc_before);
        }
        let hashed = if self.purge_changes {
            self.purged.as_ref()
        } else {
            Some(merged)
        };
        if let (Some(v), Some(h)) = (&mut self.validated, hashed) {
            v.max_timestamp_micros = max_timestamp(h);
        }
    }

    /// The merged and the purged versions (`None`: purged to nothing), after
    /// [`Entry::prepare`].
    fn sides(&self) -> compare::ReplicaSide<'_> {
        let merged = self.merged.as_ref()?;
        Some(if self.purge_changes {
            (merged, self.purged.as_ref())
        } else {
            (merged, Some(merged))
        })
    }
}

fn in_range(range: Option<(i64, i64)>, token: i64) -> bool {
    match range {
        None => true,
        Some((start, end)) if start < end => token > start && token <= end,
        // A wrapping range (start, MIN] or (start, end] past the maximum.
        Some((start, end)) => token > start || token <= end,
    }
}

impl<S: RangeSource> Validator<S> {
    pub fn new(
        merger: TableMerger<S>,
        partitioner: Partitioner,
        options: ValidationOptions,
    ) -> Self {
        Validator {
            merger,
            partitioner,
            tree: MerkleTree::new(options.depth),
            options,
            keep_partitions: false,
            peeked: None,
            finished: false,
        }
    }

    /// The next partition that validation hashes (added to the tree), in token order.
    pub fn next_partition(
        &mut self,
        clock: &dyn Clock,
    ) -> Result<Option<ValidatedPartition>, MergeError> {
        loop {
            match self.next_entry(clock)? {
                None => return Ok(None),
                Some(Entry {
                    validated: Some(v), ..
                }) => return Ok(Some(v)),
                Some(_) => {}
            }
        }
    }

    /// The next partition in the range, hashed or purged to nothing.
    fn next_entry(&mut self, clock: &dyn Clock) -> Result<Option<Entry>, MergeError> {
        if let Some(p) = self.peeked.take() {
            return Ok(Some(p));
        }
        while !self.finished {
            let Some(p) = self.merger.next_partition(clock)? else {
                self.finished = true;
                break;
            };
            let key = &p.start.key.bytes.bytes;
            let Some(token) = murmur3_token(&self.partitioner, key) else {
                return Err(MergeError {
                    sstable: self.merger.source_names().join(", "),
                    partition_key_hex: Some(crate::span::hex(key)),
                    last_merged_key_hex: None,
                    error: crate::error::Error::invalid(
                        "only Murmur3Partitioner tables are hashed for repair",
                        0,
                    )
                    .in_component(crate::component::ComponentType::Statistics),
                });
            };
            if !in_range(self.options.range, token) {
                continue;
            }
            let key = key.clone();
            let (now, gc_before) = (self.options.now_seconds, self.options.gc_before_seconds);
            let validated_as = |d: ValidatorDigest, max_timestamp_micros: i64| {
                (d.input_bytes() > 0).then(|| ValidatedPartition {
                    token,
                    key: key.clone(),
                    digest: d.finish(),
                    input_bytes: d.input_bytes(),
                    max_timestamp_micros,
                })
            };
            let entry = if self.keep_partitions {
                // A diff: the merged version is kept and hashed as purge would leave it; the
                // purged copy (and the newest timestamp) only for a partition that differs.
                let schema = self.merger.schema();
                let validated = digest_purged_partition(&p, schema, now, gc_before)
                    .and_then(|d| validated_as(d, i64::MIN));
                let purge_changes = purge_changes(&p, now, gc_before);
                Entry {
                    token,
                    key,
                    validated,
                    merged: Some(p),
                    purge_changes,
                    purged: None,
                }
            } else {
                let purged = purge_partition(p, now, gc_before);
                let validated = purged.as_ref().and_then(|p| {
                    validated_as(digest_partition(p, self.merger.schema()), max_timestamp(p))
                });
                if validated.is_none() {
                    continue;
                }
                Entry {
                    token,
                    key,
                    validated,
                    merged: None,
                    purge_changes: false,
                    purged: None,
                }
            };
            if let Some(v) = &entry.validated {
                self.tree.add(token, &v.digest, v.input_bytes);
            }
            return Ok(Some(entry));
        }
        Ok(None)
    }

    fn peek(&mut self, clock: &dyn Clock) -> Result<Option<&Entry>, MergeError> {
        if self.peeked.is_none() {
            self.peeked = self.next_entry(clock)?;
        }
        Ok(self.peeked.as_ref())
    }
}

/// A token range whose hashes differ between replicas.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct RangeDiff {
    /// (start, end]
    pub start_token: i64,
    pub end_token: i64,
    /// Per replica: partitions and digest input bytes in the range (what that replica would
    /// stream to the others for it).
    pub partitions: Vec<u64>,
    pub bytes: Vec<u64>,
}

/// A partition that differs: on which replicas it is, which replica is newest, the pieces
/// that differ and each replica's bytes.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct PartitionDiff {
    pub token: i64,
    pub key_hex: String,
    /// Per replica: its digest in hex, `None` when the replica does not have it (or
    /// validation purged it to nothing).
    pub digests: Vec<Option<String>>,
    /// Per replica: its newest timestamp in the partition.
    pub max_timestamps_micros: Vec<Option<i64>>,
    /// The replica holding the newest timestamp (the first such).
    pub newest: usize,
    /// Per replica: the partition's digest input bytes (0 where it has none): what it would
    /// stream for this partition to a replica whose digest differs.
    pub bytes: Vec<u64>,
    /// The pieces (rows, cells, tombstones) that differ, side by side.
    pub pieces: Vec<PieceDiff>,
}

#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct DiffReport {
    pub depth: u8,
    pub replicas: usize,
    /// Per replica: partitions hashed, and the root hash in hex.
    pub partitions: Vec<u64>,
    pub roots: Vec<String>,
    pub mismatching_ranges: Vec<RangeDiff>,
    pub partition_diffs: Vec<PartitionDiff>,
    /// `[from][to]`: the digest input bytes replica `from` would stream to replica `to` when
    /// the mismatching leaves are streamed whole, as repair streams a differing range (the
    /// leaves where the two replicas' hashes differ).
    pub stream_bytes_by_range: Vec<Vec<u64>>,
    /// `[from][to]`: the same, counting only the partitions whose digests differ between
    /// the two (what a partition-exact repair would stream).
    pub stream_bytes_by_partition: Vec<Vec<u64>>,
}

/// Validates every replica in lockstep (token order) and compares: memory is the partitions
/// being merged, one validated partition per replica (with its merged and purged versions),
/// and the trees. [`ReplicaDiff`] step by step.
pub fn diff_replicas<S: RangeSource>(
    replicas: Vec<Validator<S>>,
    clock: &dyn Clock,
) -> Result<DiffReport, (usize, MergeError)> {
    let mut diff = ReplicaDiff::new(replicas);
    while diff.step(clock)? {}
    Ok(diff.finish())
}

/// [`diff_replicas`] one partition token at a time, for a caller that yields between steps
/// (the page's worker: progress and cancel).
#[derive(Debug)]
pub struct ReplicaDiff<S> {
    replicas: Vec<Validator<S>>,
    partition_diffs: Vec<PartitionDiff>,
    /// `[from][to]`: the bytes of the differing partitions `from` would stream to `to`.
    by_partition: Vec<Vec<u64>>,
}

impl<S: RangeSource> ReplicaDiff<S> {
    pub fn new(mut replicas: Vec<Validator<S>>) -> Self {
        let n = replicas.len();
        for r in &mut replicas {
            r.keep_partitions = true;
        }
        ReplicaDiff {
            replicas,
            partition_diffs: Vec::new(),
            by_partition: vec![vec![0u64; n]; n],
        }
    }

    /// The partitions that differ so far.
    pub fn partition_diffs(&self) -> &[PartitionDiff] {
        &self.partition_diffs
    }

    /// Compares the next partition (the smallest (token, key) of any replica); `Ok(false)`
    /// once every replica is done. An error names the replica (its index).
    pub fn step(&mut self, clock: &dyn Clock) -> Result<bool, (usize, MergeError)> {
        let n = self.replicas.len();
        let mut smallest: Option<(i64, Vec<u8>)> = None;
        for (i, r) in self.replicas.iter_mut().enumerate() {
            if let Some(p) = r.peek(clock).map_err(|e| (i, e))? {
                let better = match &smallest {
                    None => true,
                    Some((t, k)) => {
                        (p.token, p.key.as_slice()).cmp(&(*t, k.as_slice())) == Ordering::Less
                    }
                };
                if better {
                    smallest = Some((p.token, p.key.clone()));
                }
            }
        }
        let Some((token, key)) = smallest else {
            return Ok(false);
        };
        let mut here: Vec<Option<Entry>> = Vec::with_capacity(n);
        for r in &mut self.replicas {
            let take = r
                .peeked
                .as_ref()
                .is_some_and(|p| p.token == token && p.key == key);
            here.push(if take { r.peeked.take() } else { None });
        }
        let validated: Vec<Option<&ValidatedPartition>> = here
            .iter()
            .map(|e| e.as_ref().and_then(|e| e.validated.as_ref()))
            .collect();
        let first = validated.first().and_then(|p| p.map(|p| p.digest));
        let same = validated.iter().all(|p| p.map(|p| p.digest) == first) && first.is_some();
        if same || validated.iter().all(Option::is_none) {
            return Ok(true);
        }
        let (now, gc_before) = self.replicas.first().map_or((0, 0), |r| {
            (r.options.now_seconds, r.options.gc_before_seconds)
        });
        for e in here.iter_mut().flatten() {
            e.prepare(now, gc_before);
        }
        let validated: Vec<Option<&ValidatedPartition>> = here
            .iter()
            .map(|e| e.as_ref().and_then(|e| e.validated.as_ref()))
            .collect();
        let stamps: Vec<Option<i64>> = validated
            .iter()
            .map(|p| p.map(|p| p.max_timestamp_micros))
            .collect();
        let mut newest = 0;
        let mut newest_stamp = None;
        for (i, s) in stamps.iter().enumerate() {
            if s.is_some() && *s > newest_stamp {
                newest = i;
                newest_stamp = *s;
            }
        }
        let bytes: Vec<u64> = validated
            .iter()
            .map(|p| p.map_or(0, |p| p.input_bytes))
            .collect();
        for (from, row) in self.by_partition.iter_mut().enumerate() {
            for (to, cell) in row.iter_mut().enumerate() {
                let (a, b) = (validated.get(from), validated.get(to));
                let differ = a.map(|p| p.map(|p| p.digest)) != b.map(|p| p.map(|p| p.digest));
                if differ {
                    *cell += bytes.get(from).copied().unwrap_or(0);
                }
            }
        }
        let sides: Vec<compare::ReplicaSide<'_>> = here
            .iter()
            .map(|e| e.as_ref().and_then(Entry::sides))
            .collect();
        let schemas: Vec<&crate::component::data::DataSchema> =
            self.replicas.iter().map(|r| r.merger.schema()).collect();
        let pieces = compare::partition_pieces(&sides, &schemas, replicas_now(&self.replicas));
        self.partition_diffs.push(PartitionDiff {
            token,
            key_hex: crate::span::hex(&key),
            digests: validated
                .iter()
                .map(|p| p.map(|p| crate::span::hex(&p.digest)))
                .collect(),
            max_timestamps_micros: stamps,
            newest,
            bytes,
            pieces,
        });
        Ok(true)
    }

    /// The report: the trees compared, and the partitions that differ.
    pub fn finish(self) -> DiffReport {
        let trees: Vec<&MerkleTree> = self.replicas.iter().map(|r| &r.tree).collect();
        DiffReport {
            depth: trees.first().map_or(0, |t| t.depth()),
            replicas: self.replicas.len(),
            partitions: trees
                .iter()
                .map(|t| t.leaves().iter().map(|l| l.partitions).sum())
                .collect(),
            roots: trees.iter().map(|t| crate::span::hex(&t.root())).collect(),
            mismatching_ranges: compare_trees(&trees),
            partition_diffs: self.partition_diffs,
            stream_bytes_by_range: stream_by_range(&trees),
            stream_bytes_by_partition: self.by_partition,
        }
    }
}

fn replicas_now<S>(replicas: &[Validator<S>]) -> i64 {
    replicas.first().map_or(0, |r| r.options.now_seconds)
}

/// `[from][to]`: `from`'s bytes in the leaves whose hashes differ between the two trees.
fn stream_by_range(trees: &[&MerkleTree]) -> Vec<Vec<u64>> {
    trees
        .iter()
        .map(|from| {
            trees
                .iter()
                .map(|to| {
                    from.leaves()
                        .iter()
                        .zip(to.leaves())
                        .filter(|(a, b)| a.hash != b.hash)
                        .map(|(a, _)| a.bytes)
                        .sum()
                })
                .collect()
        })
        .collect()
}

/// The leaves whose hashes differ between any two trees (of one depth), adjacent ones
/// coalesced.
pub fn compare_trees(trees: &[&MerkleTree]) -> Vec<RangeDiff> {
    let Some(first) = trees.first() else {
        return Vec::new();
    };
    let mut out: Vec<RangeDiff> = Vec::new();
    let mut last_leaf: Option<usize> = None;
    for (i, leaf) in first.leaves().iter().enumerate() {
        let differs = trees
            .iter()
            .any(|t| t.leaves().get(i).map(|l| l.hash) != Some(leaf.hash));
        if !differs {
            continue;
        }
        let (start, end) = first.range_of(i);
        let counts: Vec<u64> = trees
            .iter()
            .map(|t| t.leaves().get(i).map_or(0, |l| l.partitions))
            .collect();
        let bytes: Vec<u64> = trees
            .iter()
            .map(|t| t.leaves().get(i).map_or(0, |l| l.bytes))
            .collect();
        match (out.last_mut(), last_leaf) {
            (Some(r), Some(j)) if j + 1 == i => {
                r.end_token = end;
                for (a, b) in r.partitions.iter_mut().zip(&counts) {
                    *a += b;
                }
                for (a, b) in r.bytes.iter_mut().zip(&bytes) {
                    *a += b;
                }
            }
            _ => out.push(RangeDiff {
                start_token: start,
                end_token: end,
                partitions: counts,
                bytes,
            }),
        }
        last_leaf = Some(i);
    }
    out
}
