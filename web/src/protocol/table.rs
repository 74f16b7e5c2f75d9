//! What the table-wide jobs answer (issue #25, the page's part): the resurrection risks of the
//! SSTables of one table ([`ZombieReport`], `sstable_engine::merge::zombies`, as `sstable-inspect
//! zombies DIR --json` reports them).
//!
//! The engine's own report types are `Serialize` only; these are their page-side copies, with
//! each SSTable named (not numbered) and the engine's enums as the names the CLI's JSON prints.

use serde::{Deserialize, Serialize};

use super::FileRef;

/// One SSTable as the table-wide jobs take it: its name (path prefix) and its files.
pub type NamedSSTable = (String, Vec<FileRef>);
/// One replica of "Compare replicas": its name and its SSTables.
pub type Replica = (String, Vec<NamedSSTable>);

/// At most this many findings are sent to the page; the counts cover every finding.
pub const ZOMBIE_FINDINGS_SENT: usize = 10_000;

/// A droppable tombstone (`merge::zombies::DroppableTombstone`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TombstoneView {
    pub sstable: String,
    /// `ZombieTombstoneKind` as the CLI's JSON names it (`Partition`, `RangeTombstone`, `Row`,
    /// `ComplexDeletion`, `Cell`, `ExpiredCell`).
    pub kind: String,
    pub is_static: bool,
    pub clustering: Vec<String>,
    pub range_end: Option<Vec<String>>,
    pub column: Option<String>,
    pub path_hex: Option<String>,
    pub marked_for_delete_at_micros: i64,
    pub local_deletion_time_secs: i64,
}

/// The data a droppable tombstone shadows in another SSTable, and whether the two meet in
/// compaction (`merge::zombies::Resurrection` and its `CompactionOverlap`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShadowedView {
    pub sstable: String,
    pub is_static: bool,
    pub clustering: Vec<String>,
    pub timestamp_micros: i64,
    pub pieces: u32,
    pub tombstone_level: Option<i32>,
    pub shadowed_level: Option<i32>,
    pub token_ranges_intersect: Option<bool>,
    pub shadowed_min_timestamp_micros: Option<i64>,
    pub tombstone_max_timestamp_micros: Option<i64>,
    pub purge_evaluator_keeps_tombstone: bool,
    pub same_level_above_zero: bool,
}

/// One finding: a resurrection (`shadowed` set) or droppable garbage (`shadowed` none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZombieFinding {
    pub key_text: String,
    pub key_hex: String,
    pub tombstone: TombstoneView,
    pub shadowed: Option<ShadowedView>,
}

/// The resurrection scan of one table's SSTables at (now, gc_grace).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ZombieReport {
    pub now_secs: i64,
    pub gc_grace_secs: i64,
    pub gc_before_secs: i64,
    /// The SSTables merged, in merge order.
    pub sstables: Vec<String>,
    pub partitions: u64,
    pub resurrections: u64,
    pub garbage: u64,
    /// The first [`ZOMBIE_FINDINGS_SENT`] findings in token order (each partition's
    /// resurrections, then its garbage).
    pub findings: Vec<ZombieFinding>,
    /// Set when the scan stopped at an error (the findings before it are kept): the error
    /// names the SSTable, component and offset.
    pub error: Option<String>,
    /// Data.db bytes read (every SSTable) and the scan's time in the worker.
    pub bytes_read: u64,
    pub millis: f64,
    /// The worker's WebAssembly memory after the scan (`memory.buffer.byteLength`: it only
    /// grows, so this is the worker's peak).
    pub wasm_memory_bytes: f64,
}

/// Merged partitions per page of the data browser's "Merged (table)" mode.
pub const MERGED_PAGE_PARTITIONS: usize = 10;
/// Rows sent per merged partition (the rest only counted), as the data browser's pages.
pub const MERGED_ROWS_SENT: usize = 200;
/// Losses ("why") sent per merged partition (the rest only counted).
pub const MERGED_LOSSES_SENT: usize = 1_000;

/// A page of the table's merged read (`merge::TableMerger` with explain, as `sstable-inspect
/// read DIR --explain`): up to `max_partitions` merged partitions in token order after the
/// cursor `after_key_hex` (from the first partition without one); or the one partition of
/// `wanted_key`. The worker starts the merge there (`TableMerger::seek`), never at the table's
/// first partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedPageRequest {
    /// Merged partitions before the page (its first partition's number, shown; not read).
    pub skip: u64,
    /// The cursor: the last partition key (hex) of the page before; the page starts after it.
    pub after_key_hex: Option<String>,
    pub max_partitions: usize,
    /// As typed: cqlsh's form (`a:b` for a composite key) or `0x…` hex.
    pub wanted_key: Option<String>,
    /// "Now" for TTL expiry, in seconds (the page's clock).
    pub now_secs: i64,
    /// The table's `CREATE TABLE` (typed, or the schema.cql dropped with the files): what its
    /// 2.x SSTables, which record no schema, are read with.
    pub create_table: Option<String>,
}

/// The SSTables of one merged row or marker (`merge::MergedRow`, `merge::MergedMarker`), in
/// the order of the dump's rows (the static row first).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RowSources {
    /// Every SSTable that holds a version of the row.
    pub sstables: Vec<String>,
    pub liveness: Option<String>,
    pub deletion: Option<String>,
    /// One per cell of the dump's row, in its order.
    pub cells: Vec<String>,
    /// Range tombstone markers: the SSTables of the deletion it closes and of the one it opens.
    pub marker_end: Option<String>,
    pub marker_start: Option<String>,
    pub is_static: bool,
    /// The clustering values in hex (what a loss's clustering is matched with).
    pub clustering_hex: Vec<String>,
}

/// One piece that lost the merge and what beat it (`merge::Loss`, `merge::Beaten`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LossView {
    /// `Cell`, `Liveness`, `RowDeletion`, `ComplexDeletion`, `RangeTombstone`,
    /// `PartitionDeletion`.
    pub what: String,
    pub sstable: String,
    pub is_static: bool,
    pub clustering_hex: Vec<String>,
    pub column: Option<String>,
    pub path_hex: Option<String>,
    pub timestamp_micros: i64,
    /// `newer`, `tombstone` or `expired`.
    pub beaten_by: String,
    /// A tombstone's kind (`Partition`, `RangeTombstone`, `Row`, `ComplexDeletion`,
    /// `CellTombstone`).
    pub tombstone_kind: Option<String>,
    /// The SSTable of what won (none for an expired TTL).
    pub winner_sstable: Option<String>,
    /// The winner's timestamp (markedForDeleteAt for a tombstone).
    pub winner_timestamp_micros: Option<i64>,
    pub expires_at_secs: Option<i64>,
}

/// One merged partition: the dump of the merged rows (as `sstable-inspect read` prints them),
/// the SSTable of every part, and what lost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedPartitionView {
    pub partition: sstable_engine::dump::PartitionJson,
    pub sstables: Vec<String>,
    pub deletion_sstable: Option<String>,
    pub rows: Vec<RowSources>,
    /// Rows (static row and markers included) of the merged partition, the ones not sent too.
    pub row_total: usize,
    pub losses: Vec<LossView>,
    pub loss_total: usize,
}

/// A page of the merged read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MergedPage {
    pub sstables: Vec<String>,
    /// The request's `skip`: merged partitions before the page.
    pub skip: u64,
    pub partitions: Vec<MergedPartitionView>,
    /// Another merged partition follows the page.
    pub more: bool,
    /// "Find": no partition of the table has the key.
    pub not_found: Option<String>,
    pub bytes_read: u64,
    pub millis: f64,
    /// The worker's WebAssembly memory after the merge (its peak).
    pub wasm_memory_bytes: f64,
}

/// A page as it crosses to the UI thread: one JSON string (as [`super::pages::PageMessage`]),
/// not thousands of JavaScript objects read back one property at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedPageMessage(pub MergedPage);

impl Serialize for MergedPageMessage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let json = serde_json::to_string(&self.0).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&json)
    }
}

impl<'de> Deserialize<'de> for MergedPageMessage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MergedPageMessage, D::Error> {
        let json = String::deserialize(d)?;
        serde_json::from_str(&json)
            .map(MergedPageMessage)
            .map_err(serde::de::Error::custom)
    }
}

/// At most this many differing partitions are sent (the ranges' counts cover every one).
pub const REPLICA_PARTITIONS_SENT: usize = 10_000;

/// A token range whose Merkle leaves differ (`repair::RangeDiff`): (start, end], and per
/// replica its partitions and the digest input bytes it would stream for the range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeView {
    pub start_token: i64,
    pub end_token: i64,
    pub partitions: Vec<u64>,
    pub bytes: Vec<u64>,
}

/// A partition that differs between replicas (`repair::PartitionDiff`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionDiffView {
    pub token: i64,
    pub key_hex: String,
    /// Per replica: its digest in hex, none when it does not have the partition.
    pub digests: Vec<Option<String>>,
    pub max_timestamps_micros: Vec<Option<i64>>,
    /// The replica holding the newest timestamp.
    pub newest: usize,
}

/// The replicas compared (`repair::diff_replicas`, as `sstable-inspect diff A B [C] --json`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReplicaReport {
    pub depth: u8,
    /// Each replica's name (the directory its files came from) and SSTables.
    pub replicas: Vec<String>,
    pub partitions: Vec<u64>,
    pub roots: Vec<String>,
    pub mismatching_ranges: Vec<RangeView>,
    /// The first [`REPLICA_PARTITIONS_SENT`] differing partitions, in token order.
    pub partition_diffs: Vec<PartitionDiffView>,
    pub partition_diff_total: u64,
    pub now_secs: i64,
    pub gc_before_secs: i64,
    pub bytes_read: u64,
    pub millis: f64,
    /// The worker's WebAssembly memory after the merge and the diff (its peak).
    pub wasm_memory_bytes: f64,
    /// The pieces of the partition asked for ([`ReplicaFocus`]), a page of them.
    pub pieces: Option<PiecesPage>,
}

/// Pieces sent per page of a differing partition's pieces.
pub const PIECES_PAGE: usize = 50;

/// "Compare replicas" for one differing partition: only its token is compared
/// (`ValidationOptions::range` (token − 1, token]) and its differing pieces
/// (`repair::compare`) sent, `skip` of them skipped, at most [`PIECES_PAGE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaFocus {
    pub token: i64,
    pub key_hex: String,
    pub skip: usize,
}

/// A piece on which the replicas differ (`repair::compare::PieceDiff`), as `sstable-inspect
/// diff` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceView {
    /// `PartitionDeletion`, `RowDeletion`, `Liveness`, `ComplexDeletion`, `Cell`,
    /// `RangeTombstoneBound`.
    pub kind: String,
    pub is_static: bool,
    pub clustering: Vec<String>,
    pub bound: Option<String>,
    pub column: Option<String>,
    pub path: Option<String>,
    /// Per replica, its version as the engine words it (`PieceVersion`'s `Display`, the
    /// CLI's `diff` text); none where it has no such piece.
    pub versions: Vec<Option<String>>,
    /// The replica whose version wins reconciliation.
    pub newest: Option<usize>,
    pub differs: bool,
}

/// A page of one differing partition's pieces.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PiecesPage {
    pub key_hex: String,
    pub token: i64,
    pub skip: usize,
    pub pieces: Vec<PieceView>,
    /// Every differing piece of the partition (0: the partition does not differ).
    pub total: usize,
}
