//! Data.db in the 3.0+ row format (`ma` … `oa`, `nc`, `da`): partitions, rows, cells and range
//! tombstone markers, decoded as a bounded stream.
//!
//! | part | encoding | since |
//! |---|---|---|
//! | partition key | u16 length + bytes (CompositeType parts for multi-column keys) | ma |
//! | partition deletion | i32 ldt + i64 mfda (12 bytes) | ma |
//! | partition deletion | `0x80` (LIVE) or i64 mfda + u32 ldt | oa, da |
//! | static row | iff the header has static columns: flags `0x80`, extended `0x01`, size, body | ma |
//! | unfiltereds | rows ([`Row`]) and range tombstone markers ([`RangeTombstoneMarker`]) in clustering order | ma |
//! | end of partition | `0x01` | ma |
//!
//! A row: flags, [extended flags], clustering ([`Clustering`]), row size, previous size,
//! [liveness], [deletion], [column subset ([`ColumnSubset`])], one [`Cell`] per simple column
//! and a [`ComplexColumn`] per complex one. Every timestamp, TTL and local deletion time is a
//! delta against the header's EncodingStats ([`DeltaBase`]). Each submodule starts with the
//! table of its part; the schema ([`DataSchema`]) is resolved once per SSTable from
//! Statistics.db's SerializationHeader.
//!
//! Driving it:
//! * [`DataDecoder`] is the sans-I/O push decoder over *uncompressed* bytes: `push`, `finish`,
//!   `next_item` → [`DecodeStep`] (owned items), or `visit_next` with a [`DataVisitor`]
//!   (borrowed: rows and cells as views into the window, [`RowView`] / [`CellView`], nothing
//!   allocated per row or cell). [`ScanCounts`] is the decode-only scan's visitor.
//! * [`DataFileReader`] sits on top for the physical file, plain or compressed
//!   (CompressionInfo.db): it speaks the one byte-range protocol
//!   ([`RangeReader`](crate::range::RangeReader): the range it needs, then its bytes). It is
//!   [`ChunkedDataReader`] over a [`DataDecoder`]; the same reader feeds the 2.x
//!   [`LegacyDataDecoder`](crate::component::legacy_data::LegacyDataDecoder) through the
//!   [`PushDecoder`] trait, whose [`Window`] both decoders share. The drivers run it:
//!   [`SyncDriver::items`](crate::range::SyncDriver::items) (owned items),
//!   [`SyncDriver::visit_all`](crate::range::SyncDriver::visit_all) (a borrowing scan), and
//!   their async twins.
//!
//! Suspicious but decodable things (a row size that does not match its body, negative or
//! overflowed deletion times, duplicate clusterings, …) are [`Finding`]s on the item. Errors
//! carry [`ComponentType::Data`](crate::ComponentType::Data), the absolute uncompressed offset
//! and what was read; after one, seek to the next partition from the index.
//!
//! Src: `src/java/org/apache/cassandra/db/rows/UnfilteredSerializer.java`,
//! `db/rows/Cell.java`, `db/Columns.java`, `db/ClusteringPrefix.java`, `db/DeletionTime.java`,
//! `db/LivenessInfo.java`, `db/SerializationHeader.java`, `db/context/CounterContext.java`,
//! `io/sstable/format/SortedTablePartitionWriter.java`, `io/util/CompressedChunkReader.java`.

// Layers, each using only those above it: the parts and the views a visitor sees, then the
// decoders of a cell, a row, the owned items, the stream, the physical file and the scan.
mod clustering;
mod columns;
mod counter;
mod deletion;
mod partition;
mod schema;
mod view;

mod cell;
mod row;

mod items;
mod stream;

mod file;
mod scan;

mod node;

use serde::Serialize;

pub use crate::component::common::{
    ClusteringPrefixKind, ClusteringValueBuf, ClusteringValueState,
};
pub use cell::{Cell, ColumnData, ComplexColumn};
pub use clustering::{Clustering, ClusteringBoundOrBoundary, ClusteringView};
pub use columns::{ColumnSubset, ColumnsEncoding};
pub use counter::{CounterContext, CounterShard, CounterShardKind};
pub(crate) use deletion::check_deletion;
pub use deletion::{
    DeletionTime, DeletionTimeEncoding, LivenessInfo, LocalDeletionTime, EXPIRED_LIVENESS_TTL_SECS,
};
pub(crate) use file::headers_only_schema;
pub use file::{ChunkedDataReader, DataFileReader, ScanRange};
pub use node::{partition_node, HexValues, ValueRenderer};
pub(crate) use partition::read_partition_start;
pub use partition::{KeyComponent, PartitionEnd, PartitionKey, PartitionStart};
pub use row::{
    Row, END_OF_PARTITION, EXTENSION_FLAG, HAS_ALL_COLUMNS, HAS_COMPLEX_DELETION, HAS_DELETION,
    HAS_SHADOWABLE_DELETION, HAS_TIMESTAMP, HAS_TTL, IS_MARKER, IS_STATIC,
    SCYLLA_HAS_SHADOWABLE_TOMBSTONE,
};
pub use scan::ScanCounts;
pub use schema::{ColumnKind, ColumnSchema, DataSchema, DeltaBase};
pub(crate) use stream::waits_for_more;
pub use stream::{DataDecoder, DecodeStep, PushDecoder, VisitStep, Window};
pub use view::{
    CellKind, CellView, ComplexColumnHead, DataVisitor, MarkerDeletion, RangeTombstoneMarker,
    RowDeletion, RowEnd, RowView, HAS_EMPTY_VALUE, IS_DELETED, IS_EXPIRING, USE_ROW_TIMESTAMP,
    USE_ROW_TTL,
};

use crate::span::{serialize_hex, Span};

/// Limits and the clock for decoding.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// "Now" in seconds since the epoch: expiring cells whose local expiration time is ≤ this
    /// are [`CellKind::Expired`]. `None`: no cell is classified as expired.
    pub now_seconds: Option<i64>,
    /// Largest value length accepted (Cassandra's `max_value_size`, 256 MiB by default); a
    /// larger length is an error, never an allocation or a wait for more data.
    pub max_value_bytes: u64,
    /// Largest declared row / marker size accepted.
    pub max_unfiltered_bytes: u64,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            now_seconds: None,
            max_value_bytes: 256 << 20,
            max_unfiltered_bytes: 256 << 20,
        }
    }
}

impl DecodeOptions {
    /// Default limits with `now_seconds` set.
    pub fn at(now_seconds: i64) -> Self {
        DecodeOptions {
            now_seconds: Some(now_seconds),
            ..DecodeOptions::default()
        }
    }
}

/// Raw bytes from Data.db and the span they came from (serialized as hex).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct SpannedBytes {
    #[serde(serialize_with = "serialize_hex")]
    pub bytes: Vec<u8>,
    pub span: Span,
}

pub(crate) use crate::span::hex;

/// What a [`Finding`] is about.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// A row's or marker's declared size differs from the bytes its body used.
    SizeMismatch,
    /// A stored previous-unfiltered size differs from the real distance.
    PreviousSizeMismatch,
    /// A local deletion time Cassandra treats as invalid (negative before oa, `0xFFFFFFFE`
    /// from oa, or earlier than its TTL allows).
    InvalidLocalDeletionTime,
    /// A pre-oa expiry past 2038 that overflowed the signed 32-bit field (CASSANDRA-14092).
    OverflowedExpirationTime,
    /// A negative TTL.
    InvalidTtl,
    /// A row with the same clustering as the previous row.
    DuplicateClustering,
    /// Bare UserType columns had to be read as frozen (CASSANDRA-15035).
    FrozenUdtInterpretation,
    /// Flag bits that are unknown, contradictory or out of place.
    UnexpectedFlags,
    /// A counter value that is not a valid CounterContext.
    BadCounterContext,
    /// A partition key that does not split into its CompositeType components.
    BadPartitionKey,
    /// A compressed chunk whose stored CRC32 does not match its bytes.
    ChunkChecksumMismatch,
}

/// Something suspicious about an item that did not stop decoding.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    /// The bytes it is about (uncompressed Data.db offsets; for chunk checksums, the stored
    /// chunk in the physical file).
    pub span: Span,
    pub message: String,
}

impl Finding {
    pub fn new(kind: FindingKind, span: Span, message: String) -> Finding {
        Finding {
            kind,
            span,
            message,
        }
    }
}

/// One decoded piece of Data.db, in file order.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub enum DataItem {
    PartitionStart(PartitionStart),
    StaticRow(Row),
    Row(Row),
    RangeTombstoneMarker(RangeTombstoneMarker),
    PartitionEnd(PartitionEnd),
}

impl DataItem {
    /// Absolute uncompressed Data.db offset of the item's first byte.
    pub fn position(&self) -> u64 {
        match self {
            DataItem::PartitionStart(p) => p.position,
            DataItem::StaticRow(r) | DataItem::Row(r) => r.position,
            DataItem::RangeTombstoneMarker(m) => m.position,
            DataItem::PartitionEnd(e) => e.position,
        }
    }

    /// The item's bytes (for rows and markers, up to their declared end).
    pub fn span(&self) -> Span {
        match self {
            DataItem::PartitionStart(p) => p.span,
            DataItem::StaticRow(r) | DataItem::Row(r) => r.span,
            DataItem::RangeTombstoneMarker(m) => m.span,
            DataItem::PartitionEnd(e) => e.flags.span,
        }
    }

    pub fn findings(&self) -> &[Finding] {
        match self {
            DataItem::PartitionStart(p) => &p.findings,
            DataItem::StaticRow(r) | DataItem::Row(r) => &r.findings,
            DataItem::RangeTombstoneMarker(m) => &m.findings,
            DataItem::PartitionEnd(e) => &e.findings,
        }
    }
}
