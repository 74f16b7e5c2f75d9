//! The read path for one partition key, sans-I/O: what Cassandra reads, in order, to find a
//! partition in one SSTable — and where it stops when the key is not there.
//!
//! | step | big (`jb` … `oa`) | bti (`da`) | in memory? |
//! |---|---|---|---|
//! | 1 token | the partitioner's token of the key (`IPartitioner.getToken`) | same | yes |
//! | 2 bloom filter | probe `k` bits of Filter.db; one clear bit → absent (`BloomNegative`) once the index confirms it: a key the index holds is a false negative, Filter.db corrupt (`BloomOutcome::false_negative`) | same | yes (Filter.db decoded by the caller) |
//! | 3 key range | key before Summary.db's first key or after its last → absent (`OutsideKeyRange`) | – (only for early-opened sstables) | yes |
//! | 4 sample | binary search of Summary.db for the greatest sampled key ≤ the key: the Index.db range `[its position, the next sample's position)` | – | yes (Summary.db decoded by the caller) |
//! | 5 index | scan that Index.db range entry by entry for the key (`IndexMiss` when the range ends or a greater key shows up) | descend the Partitions.db trie page by page with the key's byte-comparable form, check the hash byte (`PartitionIndexMiss`); a payload P ≥ 0 → read the `TrieIndexEntry` at Rows.db P and compare its key (`RowIndexKeyMismatch`) | reads |
//! | 6 data | read the partition header at the Data.db position and compare its key (`DataKeyMismatch`) | same | reads |
//!
//! [`Lookup`] is the state machine, speaking the engine's byte-range protocol
//! ([`RangeReader`]): `next_read` names the byte range it needs next ([`ByteRange`]: component,
//! offset, length), the caller's driver ([`crate::range::SyncDriver`],
//! [`crate::range::AsyncDriver`]) reads it (a `pread`, a Blob slice) and hands it to `supply`
//! with a [`Clock`]. Every read becomes a [`LookupStep`]
//! (component, byte range, bytes the decoder examined, nanoseconds since the previous step —
//! the caller's read included — and a note); the in-memory steps (filter, summary) are steps
//! too. When nothing more is asked for, [`Lookup::into_result`] gives the [`LookupResult`]:
//! found or not, the token, the bloom probes, the steps, the partition's Data.db position and,
//! on a miss, the [`StopReason`]. [`lookup_with`] runs it over a [`RangeSource`].
//!
//! ## A miss only when the path is sound
//!
//! "Absent" is said only by a structure that was read whole and is consistent, and each
//! negative is confirmed by the next structure where one can: a clear bloom bit by the index (a
//! key the index holds is a bloom false negative), a key outside Summary.db's range by the edge
//! range of Index.db, an Index.db range scanned to a greater key by that entry's Data.db
//! partition (it must hold the entry's key), and in the trie a missing transition by the first
//! partition under the nearest transition, a hash byte or a Rows.db/Data.db key that differs by
//! the key found there (it must share the prefix the trie matched; the sought key itself there
//! means a corrupt hash byte or transition, said as such, and the lookup finds it). A descent
//! that ends on a node without a payload is a corrupt trie. A component of the path
//! that does not decode (Filter.db, Summary.db, Index.db, Partitions.db, Rows.db, Data.db) or an
//! index or Data.db that is missing (a missing Filter.db or Summary.db is what Cassandra rebuilds
//! on open: no filter is probed, Index.db is scanned from its start), a sample past the end of Index.db, an Index.db that ends before Summary.db's last
//! key, a trie pointer outside the trie, a Summary.db sample whose Index.db entry holds another
//! key, an index entry whose Data.db partition holds another key (big format; both errors name
//! both offsets), a compressed chunk whose checksum fails (checked on every chunk read, as
//! Cassandra's `CompressedChunkReader` does) or, in an uncompressed Data.db, a CRC.db chunk
//! whose checksum fails (checked on every read, which Cassandra does not do) stop the lookup
//! with [`StopReason::Error`].
//!
//! Every walk is bounded: the trie descent follows at most one node per key byte and each node
//! may span at most 16 pages; a read that does not move the walk forward is an error, so the
//! number of reads is bounded by the file's size over the window.
//!
//! Reads are bounded: Index.db in windows of [`INDEX_READ_BYTES`] inside the sampled range,
//! Partitions.db one 4096-byte page at a time (a node never crosses a page), the Rows.db entry
//! alone, Data.db one compressed chunk (or [`DATA_PLAIN_READ_BYTES`] of a plain file, widened
//! to the CRC.db chunks it touches) at a time up to the end of the partition header. Decoding the partition's rows is left to the caller:
//! [`data_file_reader`] and [`read_partition_with`] do it from the returned position.
//!
//! Before 3.0 (`jb`, `ka`, `la`) rows are in the old cell layout, which is not decoded; the
//! partition header (key, then the 12-byte `DeletionTime`) is the same, so the key check at the
//! Data.db position still holds.
//!
//! Src (re-implemented, not copied): `io/sstable/format/big/BigTableReader.java`
//! (`getRowIndexEntry`: bloom filter, min/max keys, summary binary search, index scan),
//! `io/sstable/indexsummary/IndexSummary.java` (`binarySearch`,
//! `getScanPositionFromBinarySearchResult`), `io/sstable/format/bti/BtiTableReader.java`
//! (`getExactPosition`), `io/sstable/format/bti/PartitionIndex.java` (`exactCandidate`),
//! `io/sstable/format/bti/TrieIndexEntry.java`, `io/tries/Walker.java`,
//! `utils/BloomFilter.java` (`isPresent`).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

mod data_header;
mod index_scan;
mod partition_read;
mod protocol;
mod result;
mod start;
mod summary_search;
mod trie_descent;

pub use crate::checked_data::CheckedDataReader;
pub use partition_read::{
    decodes_rows, read_partition_start_with, read_partition_with, PartitionRead,
};
pub use result::{BloomBit, BloomOutcome, IndexHit, LookupResult, LookupStep, StopReason};

use crate::clock::Clock;
use crate::component::data::PartitionStart;
use crate::component::ComponentType;
use crate::error::Error;
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, RangeSource, SyncDriver};
use crate::token::{Partitioner, Token};
use crate::version::{Format, Version};

/// Bytes of Index.db asked for at a time while scanning a sampled range.
pub const INDEX_READ_BYTES: u64 = 64 * 1024;
/// Bytes of an uncompressed Data.db asked for at a time while reading a partition header.
pub const DATA_PLAIN_READ_BYTES: u64 = 4 * 1024;
/// An Index.db entry header (key, position, promoted-index header) longer than this is an error.
const MAX_INDEX_WINDOW_BYTES: u64 = 64 << 20;
/// A trie node (with its payload) spread over more pages than this is an error.
const MAX_TRIE_WINDOW_PAGES: u64 = 16;
/// Bytes of the Partitions.db footer: first-key position, partition count, root position.
const FOOTER_BYTES: u64 = 24;
/// After the key, a `TrieIndexEntry` holds at most 3 vints of 9 bytes and a 12-byte deletion.
const TRIE_ENTRY_TAIL_BYTES: u64 = 3 * 9 + 12;

/// A byte range of one component that the lookup needs next (Data.db: the physical file, a
/// chunk start when compressed).
pub type ReadRequest = ByteRange;

#[derive(Debug, Clone)]
struct IndexScan {
    range_start: u64,
    range_end: u64,
    file_len: u64,
    next_offset: u64,
    window_bytes: u64,
    scanned: usize,
    /// The Summary.db sample the range starts at: its key and where its entry starts in
    /// Summary.db. The Index.db entry at `range_start` must hold that key.
    sample: Option<Sample>,
}

/// A Summary.db sample: its key and where its entry starts in Summary.db.
type Sample = (Vec<u8>, u64);

#[derive(Debug, Clone)]
struct TrieDescent {
    comparable: Vec<u8>,
    matched: usize,
    node: u64,
    file_len: u64,
    pages: u64,
    nodes_visited: usize,
    /// After "no transition" for the key's byte: walking down a neighbouring transition to its
    /// first payload, whose key must share the prefix the trie gives it.
    neighbour: bool,
}

#[derive(Debug, Clone)]
enum Stage {
    IndexScan(IndexScan),
    PartitionsFooter {
        file_len: u64,
    },
    PartitionsNode(TrieDescent),
    RowsEntry {
        position: u64,
        window: crate::range::RowsWindow,
    },
    DataHeader {
        position: u64,
    },
    Done,
}

/// The read path of one key through one SSTable (see the module docs).
#[derive(Debug, Clone)]
pub struct Lookup {
    key: Vec<u8>,
    token: Token,
    partitioner: Partitioner,
    version: Version,
    /// The partition key type (SERIALIZATION-HEADER): ScyllaDB's trie keys are typed per column.
    key_type: Option<crate::types::AbstractType>,
    /// Rows.db size (bti).
    rows_len: Option<u64>,
    bloom: Option<BloomOutcome>,
    /// The bloom filter said absent: the rest of the path confirms it or finds Filter.db corrupt.
    bloom_negative: bool,
    /// Summary.db's key range excludes the key: the edge range of Index.db confirms it or finds
    /// Summary.db corrupt.
    outside: Option<&'static str>,
    /// An index miss being confirmed by the Data.db partition of the entry that ended it.
    confirming: Option<ConfirmMiss>,
    /// bti: the byte-comparable prefix the trie matched on the way to its payload. The key of
    /// the partition (or Rows.db entry) it leads to must share it, else the trie is corrupt.
    trie_prefix: Option<Vec<u8>>,
    /// bti: the payload's hash byte differed from the key's; the partition it leads to is read
    /// anyway, to tell a corrupt hash byte (the key is there) from an absent key.
    hash_mismatch: Option<(u8, u8)>,
    /// bti: the trie had no transition for the key's byte after this many matched bytes; the
    /// first partition under the nearest transition is read to confirm the trie there.
    no_transition_after: Option<usize>,
    steps: Vec<LookupStep>,
    last_nanos: u64,
    stage: Stage,
    data: core::result::Result<Box<CheckedDataReader>, Error>,
    /// The key sorts at or before Summary.db's last key: a scan of the last sampled range must
    /// pass a greater key before Index.db ends.
    before_last_key: bool,
    /// Index.db size (big).
    index_len: u64,
    index_hit: Option<IndexHit>,
    partition_position: Option<u64>,
    partition_start: Option<PartitionStart>,
    found: bool,
    stopped_at: Option<StopReason>,
}

/// An Index.db scan ended at an entry whose key sorts after the sought one: before "absent",
/// the partition that entry points to must hold the entry's key (else Index.db is corrupt).
#[derive(Debug, Clone)]
struct ConfirmMiss {
    index_key: Vec<u8>,
    index_offset: u64,
    miss: StopReason,
}

/// How one supplied range was used.
struct Processed {
    touched_bytes: u64,
    note: String,
}

/// Runs a whole lookup over `source` (positioned reads of the component files). A failed read
/// ends the lookup with [`StopReason::Error`].
pub fn lookup_with<S: RangeSource>(
    metadata: &SSTableMetadata,
    key: &[u8],
    source: S,
    clock: &dyn Clock,
) -> LookupResult {
    let mut lookup = Lookup::new(metadata, key.to_vec(), clock);
    // An error ends the lookup and is in its result.
    let _ = SyncDriver::new(source).run(&mut lookup, clock);
    lookup.into_result()
}

/// The errors that break the read path before it starts: an index or Data.db listed in TOC.txt
/// but missing, or a component of the path present but undecodable.
fn broken_path(m: &SSTableMetadata) -> Option<Error> {
    let path: &[ComponentType] = match m.descriptor.format {
        Format::Big => &[
            ComponentType::Filter,
            ComponentType::Summary,
            ComponentType::PrimaryIndex,
            ComponentType::Data,
        ],
        Format::Bti => &[
            ComponentType::Filter,
            ComponentType::Partitions,
            ComponentType::Rows,
            ComponentType::Data,
        ],
    };
    // A missing Filter.db or Summary.db is rebuilt by Cassandra on open (the lookup then probes
    // no filter, or scans Index.db from its start); a missing index or Data.db breaks the path.
    if let Some(c) = path.iter().find(|c| {
        m.components.missing.contains(c)
            && !matches!(c, ComponentType::Filter | ComponentType::Summary)
    }) {
        return Some(
            Error::invalid(
                format!("{c} is listed in TOC.txt but missing: the read path is broken"),
                0,
            )
            .in_component(c.clone()),
        );
    }
    if let Some(e) = m
        .errors
        .iter()
        .find(|e| e.component().is_some_and(|c| path.contains(c)))
    {
        return Some(e.clone());
    }
    for (c, decoded) in [
        (ComponentType::Filter, m.filter.is_some()),
        (ComponentType::Summary, m.summary.is_some()),
    ] {
        if path.contains(&c) && m.size_of(&c).is_some() && !decoded {
            return Some(
                Error::invalid(format!("{c} is present but was not decoded"), 0)
                    .in_component(c.clone()),
            );
        }
    }
    // The partitioner (Statistics.db's VALIDATION) orders the index and the key type
    // (SERIALIZATION-HEADER) gives the key's byte-comparable form: a metadata checksum that
    // fails leaves both untrusted.
    if let Some(c) = m
        .statistics
        .as_ref()
        .and_then(|s| s.checksums.iter().find(|c| !c.ok))
    {
        return Some(
            Error::invalid(
                format!(
                    "the metadata checksum of the {} fails (stored {:#010x}, computed {:#010x}): the partitioner and key type the lookup needs cannot be trusted",
                    c.part, c.stored.value, c.computed
                ),
                c.stored.span.start,
            )
            .in_component(ComponentType::Statistics),
        );
    }
    // The partitioner (Statistics.db's VALIDATION) orders the index: without it the key's
    // token, and so "outside the key range" or an index miss, cannot be trusted.
    if m.statistics
        .as_ref()
        .and_then(|s| s.partitioner())
        .is_none()
    {
        let how = if m.size_of(&ComponentType::Statistics).is_some() {
            "does not decode"
        } else {
            "is missing"
        };
        return Some(
            Error::invalid(
                format!(
                    "Statistics.db {how}: the partitioner, and so the key's token and its place in the index, is unknown"
                ),
                0,
            )
            .in_component(ComponentType::Statistics),
        );
    }
    None
}
