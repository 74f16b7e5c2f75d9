//! Writing SSTables: big format `nb` (Cassandra 4.x) and `oa` (5.0), sans-I/O.
//!
//! [`SSTableWriter`] takes partitions in token order and emits each component's bytes through a
//! [`ComponentSink`] the caller implements (files in the CLI, memory in tests). It holds a bounded
//! working set — the current Data.db chunk, the row being serialized, the current partition's
//! IndexInfo blocks — plus what Cassandra also keeps for a whole table (bloom bitset, one summary
//! key per 128 partitions, chunk offsets, histograms), so a multi-GiB Data.db streams through.
//! [`generate()`] produces deterministic test tables of any size from a seed.
//!
//! | component | written by | Cassandra writer |
//! |---|---|---|
//! | Data.db | [`data`], [`chunks`] | `io/sstable/format/big/BigTableWriter.java`, `format/SortedTablePartitionWriter.java`, `db/rows/UnfilteredSerializer.java`, `db/rows/Cell.java`, `db/ClusteringPrefix.java`, `db/Columns.java`, `io/compress/CompressedSequentialWriter.java`, `io/util/ChecksummedSequentialWriter.java` |
//! | Index.db | [`index`] | `format/big/BigFormatPartitionWriter.java`, `format/big/RowIndexEntry.java`, `io/sstable/IndexInfo.java` |
//! | Summary.db | [`index`] | `io/sstable/indexsummary/IndexSummaryBuilder.java`, `IndexSummary.java` |
//! | Filter.db | [`filter`] | `utils/BloomFilterSerializer.java`, `utils/FilterFactory.java` |
//! | Statistics.db | [`metadata`], [`hll`], [`histogram`] | `io/sstable/metadata/MetadataCollector.java`, `MetadataSerializer.java`, `StatsMetadata.java`, `db/SerializationHeader.java`, `utils/EstimatedHistogram.java`, stream-lib `HyperLogLogPlus` |
//! | CompressionInfo.db / CRC.db | [`chunks`] | `io/compress/CompressionMetadata.java`, `io/util/ChecksumWriter.java` |
//! | Digest.crc32, TOC.txt | [`writer`] | `io/util/ChecksumWriter.java`, `format/TOCComponent.java` |
//!
//! Codecs: LZ4, Snappy, Deflate, Zstd and Noop through [`crate::compress::compress_chunk`], or
//! none (CRC.db). Counter cells are written as their CounterContext bytes (the generator makes
//! none). Not written: Scylla.db, BTI (`da`), chunks stored raw by `min_compress_ratio`,
//! compressor options. [`decoded`] turns the 3.0+ decoder's partitions into the writer's model
//! (scrub, upgrade); [`legacy`] turns a 2.x partition's atoms into it (upgrade, and the merged
//! read of 2.x SSTables).
//!
//! Arithmetic is checked by clippy (`arithmetic_side_effects`): sizes that go into the files
//! (Summary.db, Statistics.db offsets, promoted-index sizes) use checked ops and fail with an
//! error; positions and counts of bytes this writer produced saturate (they stay far below
//! 2^63); the histogram and HyperLogLog keep Java's `long`/`int` arithmetic as explicit
//! `wrapping_` ops.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

pub mod bytes;
pub mod chunks;
pub mod data;
pub mod decoded;
pub mod expected;
pub mod filter;
pub mod generate;
pub mod histogram;
pub mod hll;
pub mod index;
pub mod legacy;
pub mod metadata;
pub mod model;
pub mod overlap;
mod overlap_model;
pub mod overlap_zombies;
pub mod replicas;
pub mod schema;
pub mod writer;

use std::collections::BTreeMap;

pub use data::EncodingStats;
pub use decoded::{schema_from_data_schema, DecodedConverter, PartitionCollector};
pub use expected::{expected_counts, ExpectedPartition, ExpectedTombstones};
pub use generate::{generate, GenerateOptions, Generated, SplitMix64};
pub use metadata::{CommitLogPosition, SSTableFacts, TokenSpaceCoverage};
pub use model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered, NO_DELETION_TIME,
};
pub use schema::{ColumnDef, TableSchema};
pub use writer::{SSTableWriter, WriteOptions, WriteSummary};

use crate::component::ComponentType;
use crate::error::Result;
use crate::token::Partitioner;

/// Where component bytes go. Each call appends `bytes` to `component`'s file; every component
/// but Data.db and Index.db arrives in one call, at [`SSTableWriter::finish`].
pub trait ComponentSink {
    fn write(&mut self, component: &ComponentType, bytes: &[u8]) -> Result<()>;
}

impl<T: ComponentSink + ?Sized> ComponentSink for &mut T {
    fn write(&mut self, component: &ComponentType, bytes: &[u8]) -> Result<()> {
        (**self).write(component, bytes)
    }
}

/// Keeps every component in memory (tests, the browser).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MemorySink {
    pub files: BTreeMap<ComponentType, Vec<u8>>,
}

impl MemorySink {
    pub fn get(&self, component: &ComponentType) -> Option<&[u8]> {
        self.files.get(component).map(Vec::as_slice)
    }
}

impl ComponentSink for MemorySink {
    fn write(&mut self, component: &ComponentType, bytes: &[u8]) -> Result<()> {
        self.files
            .entry(component.clone())
            .or_default()
            .extend_from_slice(bytes);
        Ok(())
    }
}

/// Drops the bytes, counting them per component (memory tests, benchmarks).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CountingSink {
    pub bytes: BTreeMap<ComponentType, u64>,
}

impl ComponentSink for CountingSink {
    fn write(&mut self, component: &ComponentType, bytes: &[u8]) -> Result<()> {
        let total = self.bytes.entry(component.clone()).or_default();
        *total = total.saturating_add(bytes.len() as u64);
        Ok(())
    }
}

/// Sorts partition keys into the order an sstable stores them (token, then key bytes) and drops
/// duplicates: Murmur3 for real tables, ByteOrdered to match Cassandra's legacy test data.
pub fn sort_keys_by_token(keys: &mut Vec<Vec<u8>>, partitioner: &Partitioner) {
    keys.sort_by_cached_key(|k| (partitioner.token(k), k.clone()));
    keys.dedup();
}
