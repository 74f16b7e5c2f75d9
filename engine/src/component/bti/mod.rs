//! BTI ("Big Trie-Indexed", `da`, Cassandra 5.0; also Scylla `ms`/`mt`): Index.db and
//! Summary.db are replaced by two on-disk tries over byte-comparable keys.
//!
//! | file | layout | module |
//! |---|---|---|
//! | Partitions.db | trie pages ‖ first key ‖ last key ‖ footer (first-key position, partition count, root; 3 × i64) | [`partitions`] |
//! | Rows.db | per partition with ≥ 2 row-index blocks: its trie pages ‖ `TrieIndexEntry` (key, Data.db position, root, block count, deletion) | [`rows`] |
//! | trie nodes | 16 node types (4-bit type, 4-bit payload flags), backward pointer distances of 4/8/12/16/24/32/40/64 bits | [`trie`] |
//! | keys | byte-comparable forms of partition keys and clustering prefixes | [`bytecomparable`] |
//!
//! Data.db, Statistics.db, Filter.db and compression are as in `oa`. Tries are written bottom-up
//! (children before parents), packed so that no node crosses a 4096-byte page; the partition
//! trie keeps only each key's shortest unique prefix, so a hit must be confirmed against the
//! key stored at the target.
//!
//! ScyllaDB's `ms`/`mt` (named `big`: [`crate::descriptor::index_format`]) write the same
//! Partitions.db and Rows.db layouts (scylladb `sstables/trie/bti_partition_index_writer.cc`,
//! `bti_index_reader.cc`: footer, payload flags and hash byte, `TrieIndexEntry` fields) with
//! `me`'s Data.db and Statistics.db. Two differences: the partition key inside the trie is
//! ScyllaDB's typed per-column form ([`bytecomparable::scylla_partition_key`]), and a Rows.db
//! partition deletion may start with `C0` followed by a negative 8-byte timestamp (a ScyllaDB
//! extension this decoder does not read). [`write`] writes a Partitions.db for tests.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/bti/BtiFormat.md` (design and layout),
//! `.../bti/PartitionIndex.java`, `PartitionIndexBuilder.java`, `RowIndexReader.java`,
//! `RowIndexWriter.java`, `TrieIndexEntry.java`, `src/java/org/apache/cassandra/io/tries/TrieNode.java`,
//! `Walker.java`, `src/java/org/apache/cassandra/io/util/SizedInts.java`,
//! `src/java/org/apache/cassandra/utils/bytecomparable/ByteComparable.md`, `ByteSource.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

pub mod bytecomparable;
pub mod partitions;
pub mod rows;
pub mod trie;
pub mod walk;
pub mod write;

pub use partitions::{
    PartitionIndex, PartitionIndexEntry, PartitionIndexFooter, PartitionLookup, PartitionPayload,
    PartitionTarget,
};
pub use rows::{RowIndex, RowIndexBlock, TrieIndexEntry};
pub use trie::{NodeType, TrieBytes, TrieNode};
pub use walk::{PartitionWalk, WalkEntry, WalkStep};
