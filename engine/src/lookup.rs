//! The read path for one partition key, sans-I/O: what Cassandra reads, in order, to find a
//! partition in one SSTable — and where it stops when the key is not there.
//!
//! | step | big (`jb` … `oa`) | bti (`da`) | in memory? |
//! |---|---|---|---|
//! | 1 token | the partitioner's token of the key (`IPartitioner.getToken`) | same | yes |
//! | 2 bloom filter | probe `k` bits of Filter.db; one clear bit → absent (`BloomNegative`) | same | yes (Filter.db decoded by the caller) |
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
//! "Absent" is said only by a structure that was read whole and is consistent: a clear bloom
//! bit, a key outside Summary.db's range, an Index.db range scanned to a greater key, a trie
//! without the transition, a hash byte or a Rows.db key that differs. A component of the path
//! that does not decode (Filter.db, Summary.db, Index.db, Partitions.db, Rows.db, Data.db) or an
//! index or Data.db that is missing (a missing Filter.db or Summary.db is what Cassandra rebuilds
//! on open: no filter is probed, Index.db is scanned from its start), a sample past the end of Index.db, an Index.db that ends before Summary.db's last
//! key, a trie pointer outside the trie, an index entry whose Data.db partition holds another key
//! (big format) or a compressed chunk whose checksum fails (checked on every chunk read, as
//! Cassandra's `CompressedChunkReader` does) stop the lookup with [`StopReason::Error`].
//!
//! Every walk is bounded: the trie descent follows at most one node per key byte and each node
//! may span at most 16 pages; a read that does not move the walk forward is an error, so the
//! number of reads is bounded by the file's size over the window.
//!
//! Reads are bounded: Index.db in windows of [`INDEX_READ_BYTES`] inside the sampled range,
//! Partitions.db one 4096-byte page at a time (a node never crosses a page), the Rows.db entry
//! alone, Data.db one compressed chunk (or [`DATA_PLAIN_READ_BYTES`] of a plain file) at a time
//! up to the end of the partition header. Decoding the partition's rows is left to the caller:
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

use core::cmp::Ordering;

use serde::Serialize;

use crate::clock::Clock;
use crate::component::bti::bytecomparable::partition_key;
use crate::component::bti::partitions::{decode_payload, hash_byte, NotFound, PartitionTarget};
use crate::component::bti::rows::decode_entry;
use crate::component::bti::trie::{TrieBytes, PAGE_SIZE};
use crate::component::crc::ChecksumType;
use crate::component::data::{
    DataFileReader, DataItem, DecodeOptions, DecodeStep, PartitionEnd, PartitionStart, PushDecoder,
};
use crate::component::index::{IndexFile, IndexStep};
use crate::component::summary::{display_key, IndexSummary};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, ItemReader, RangeReader, RangeSource, SyncDriver};
use crate::reader::Reader;
use crate::span::serialize_hex;
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

/// One step of the read path: a read (or an in-memory probe) and what it told.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LookupStep {
    pub component: ComponentType,
    /// First byte of the range read (or examined, for the in-memory components).
    pub offset: u64,
    /// Bytes in the range.
    pub length: u64,
    /// Bytes the decoder examined in it.
    pub touched_bytes: u64,
    /// Nanoseconds since the previous step ended (for reads: the caller's read and the decoding).
    pub nanos: u64,
    pub note: String,
}

/// One probed bit of the bloom filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BloomBit {
    /// Bit index in the bitset.
    pub index: u64,
    pub set: bool,
    /// Absolute Filter.db offset of the byte that holds it.
    pub byte_offset: u64,
}

/// What the bloom filter said (`BloomFilter.isPresent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BloomOutcome {
    /// Every probed bit is set.
    pub maybe_present: bool,
    pub bits: Vec<BloomBit>,
}

/// Where a lookup that found nothing stopped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub enum StopReason {
    /// A probed bloom filter bit is clear: the key is certainly not in the SSTable.
    BloomNegative,
    /// The key sorts before Summary.db's first key or after its last one.
    OutsideKeyRange {
        /// `"before the first key"` or `"after the last key"`.
        side: &'static str,
    },
    /// The sampled Index.db range was scanned without finding the key.
    IndexMiss {
        /// Entries compared.
        scanned_entries: usize,
        /// The Index.db range the summary pointed at.
        range_start: u64,
        range_end: u64,
        /// The scan stopped at an entry whose key sorts after the sought one (rather than at
        /// the end of the range).
        passed_key: bool,
    },
    /// The Partitions.db trie has no candidate for the key.
    PartitionIndexMiss {
        reason: NotFound,
        /// Byte-comparable bytes of the key the trie matched.
        matched_bytes: usize,
    },
    /// The trie's candidate is a Rows.db entry for another key (a shared prefix).
    RowIndexKeyMismatch {
        rows_position: u64,
        #[serde(serialize_with = "serialize_hex")]
        stored_key: Vec<u8>,
    },
    /// Data.db holds another key at the position the index gave: a shared trie prefix (bti), or
    /// an index that does not match its data (big).
    DataKeyMismatch {
        data_position: u64,
        #[serde(serialize_with = "serialize_hex")]
        stored_key: Vec<u8>,
    },
    /// The lookup cannot be done on this SSTable (missing component, unsupported partitioner).
    Unsupported { reason: String },
    /// A read or decode failed.
    Error {
        component: Option<ComponentType>,
        offset: u64,
        message: String,
    },
    /// [`Lookup::into_result`] was called before the lookup finished.
    Unfinished,
}

impl StopReason {
    /// The variant's name (`"BloomNegative"`, `"IndexMiss"`, …): the stage the lookup stopped at.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::BloomNegative => "BloomNegative",
            StopReason::OutsideKeyRange { .. } => "OutsideKeyRange",
            StopReason::IndexMiss { .. } => "IndexMiss",
            StopReason::PartitionIndexMiss { .. } => "PartitionIndexMiss",
            StopReason::RowIndexKeyMismatch { .. } => "RowIndexKeyMismatch",
            StopReason::DataKeyMismatch { .. } => "DataKeyMismatch",
            StopReason::Unsupported { .. } => "Unsupported",
            StopReason::Error { .. } => "Error",
            StopReason::Unfinished => "Unfinished",
        }
    }

    /// In words, for reports.
    pub fn describe(&self) -> String {
        match self {
            StopReason::BloomNegative => "the bloom filter says the key is absent".to_owned(),
            StopReason::OutsideKeyRange { side } => {
                format!("the key sorts {side} of the SSTable (Summary.db)")
            }
            StopReason::IndexMiss {
                scanned_entries,
                range_start,
                range_end,
                passed_key,
            } => format!(
                "not in Index.db: {scanned_entries} entries of [{range_start}, {range_end}) scanned{}",
                if *passed_key {
                    ", the last one sorts after the key"
                } else {
                    ""
                }
            ),
            StopReason::PartitionIndexMiss {
                reason,
                matched_bytes,
            } => format!(
                "not in Partitions.db after {matched_bytes} byte-comparable bytes: {}",
                match reason {
                    NotFound::NoTransition => "no transition for the next byte".to_owned(),
                    NotFound::NoPayload => "the node reached has no payload".to_owned(),
                    NotFound::HashMismatch { stored, expected } =>
                        format!("hash byte 0x{stored:02x}, the key's is 0x{expected:02x}"),
                }
            ),
            StopReason::RowIndexKeyMismatch {
                rows_position,
                stored_key,
            } => format!(
                "Rows.db {rows_position} holds key {} (a shared trie prefix)",
                display_key(stored_key)
            ),
            StopReason::DataKeyMismatch {
                data_position,
                stored_key,
            } => format!(
                "Data.db {data_position} holds key {}",
                display_key(stored_key)
            ),
            StopReason::Unsupported { reason } => format!("cannot look up: {reason}"),
            StopReason::Error {
                component,
                offset,
                message,
            } => format!(
                "error at offset {offset}{}: {message}",
                component
                    .as_ref()
                    .map(|c| format!(" in {c}"))
                    .unwrap_or_default()
            ),
            StopReason::Unfinished => "the lookup was not finished".to_owned(),
        }
    }

    fn from_error(e: &Error) -> StopReason {
        StopReason::Error {
            component: e.component().cloned(),
            offset: e.offset(),
            message: e.message(),
        }
    }
}

/// The index entry that led to the partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexHit {
    /// Index.db (big) or Rows.db (bti, partitions with a row index); Partitions.db when the
    /// trie payload points at Data.db directly.
    pub component: ComponentType,
    /// Where the entry starts in that component (for Partitions.db: the trie node).
    pub offset: u64,
    /// Index.db: the entry's number within the scanned range (0 = the sampled entry).
    pub scanned_entries: Option<usize>,
    /// Row-index blocks: the promoted index's `IndexInfo` count (big) or the `TrieIndexEntry`
    /// block count (bti); 0 when the partition has no row index.
    pub block_count: u32,
}

/// The outcome of a lookup.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LookupResult {
    pub found: bool,
    /// The raw partition key looked up.
    #[serde(serialize_with = "serialize_hex")]
    pub key: Vec<u8>,
    pub token: Token,
    /// `None` when the SSTable has no bloom filter.
    pub bloom: Option<BloomOutcome>,
    pub steps: Vec<LookupStep>,
    /// The partition's start in the uncompressed Data.db, when found.
    pub partition_position: Option<u64>,
    pub index_entry: Option<IndexHit>,
    /// The decoded partition header (key, partition deletion), when found.
    pub partition_start: Option<PartitionStart>,
    /// `None` when found.
    pub stopped_at: Option<StopReason>,
}

impl LookupResult {
    /// Nanoseconds of every step.
    pub fn total_nanos(&self) -> u64 {
        self.steps
            .iter()
            .fold(0u64, |a, s| a.saturating_add(s.nanos))
    }
}

#[derive(Debug, Clone)]
struct IndexScan {
    range_start: u64,
    range_end: u64,
    file_len: u64,
    next_offset: u64,
    window_bytes: u64,
    scanned: usize,
}

#[derive(Debug, Clone)]
struct TrieDescent {
    comparable: Vec<u8>,
    matched: usize,
    node: u64,
    file_len: u64,
    pages: u64,
    nodes_visited: usize,
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
        file_len: u64,
        window_bytes: u64,
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
    /// Rows.db size (bti).
    rows_len: Option<u64>,
    bloom: Option<BloomOutcome>,
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

/// How one supplied range was used.
struct Processed {
    touched_bytes: u64,
    note: String,
}

impl Lookup {
    /// Starts a lookup of `key` (raw partition key bytes) in the SSTable `metadata` describes:
    /// computes the token, probes the bloom filter and, for big SSTables, searches Summary.db.
    /// The sizes of Index.db / Partitions.db / Rows.db and Data.db must be in `metadata`.
    pub fn new(metadata: &SSTableMetadata, key: Vec<u8>, clock: &dyn Clock) -> Lookup {
        let start = clock.now_nanos();
        let partitioner = metadata.partitioner();
        let token = partitioner.token(&key);
        let mut lookup = Lookup {
            token,
            partitioner,
            version: metadata.descriptor.version,
            rows_len: metadata.size_of(&ComponentType::Rows),
            bloom: None,
            steps: Vec::new(),
            last_nanos: start,
            stage: Stage::Done,
            data: CheckedDataReader::for_sstable(metadata, DecodeOptions::default())
                .map(|r| Box::new(r.with_read_block_bytes(DATA_PLAIN_READ_BYTES))),
            before_last_key: false,
            index_len: 0,
            index_hit: None,
            partition_position: None,
            partition_start: None,
            found: false,
            stopped_at: None,
            key,
        };
        if let Some(e) = broken_path(metadata) {
            lookup.push_step(
                e.component().cloned().unwrap_or(ComponentType::Data),
                e.offset(),
                0,
                0,
                format!("error: {e}"),
                clock,
            );
            lookup.stop(StopReason::from_error(&e));
            return lookup;
        }
        if let Some(filter) = &metadata.filter {
            let probe = filter.might_contain(&lookup.key);
            let bits: Vec<BloomBit> = probe
                .bit_indexes
                .iter()
                .zip(&probe.bits)
                .zip(&probe.byte_offsets)
                .map(|((&index, &set), &byte_offset)| BloomBit {
                    index,
                    set,
                    byte_offset,
                })
                .collect();
            let lo = bits.iter().map(|b| b.byte_offset).min().unwrap_or(0);
            let hi = bits.iter().map(|b| b.byte_offset).max().unwrap_or(lo);
            let clear = bits.iter().filter(|b| !b.set).count();
            let note = if probe.maybe_present {
                format!("{} probes, every bit set: may be present", bits.len())
            } else {
                format!(
                    "{} probes, {clear} clear (first: bit {}): absent",
                    bits.len(),
                    bits.iter().find(|b| !b.set).map_or(0, |b| b.index)
                )
            };
            let mut bytes: Vec<u64> = bits.iter().map(|b| b.byte_offset).collect();
            bytes.sort_unstable();
            bytes.dedup();
            let touched = bytes.len() as u64;
            lookup.bloom = Some(BloomOutcome {
                maybe_present: probe.maybe_present,
                bits,
            });
            lookup.push_step(
                ComponentType::Filter,
                lo,
                hi.saturating_sub(lo).saturating_add(1),
                touched,
                note,
                clock,
            );
            if !probe.maybe_present {
                lookup.stop(StopReason::BloomNegative);
                return lookup;
            }
        }
        match metadata.descriptor.format {
            Format::Bti => lookup.start_bti(metadata),
            Format::Big => lookup.start_big(metadata, clock),
        }
        lookup
    }

    /// The key looked up.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    pub fn token(&self) -> &Token {
        &self.token
    }

    /// The steps so far.
    pub fn steps(&self) -> &[LookupStep] {
        &self.steps
    }

    /// Whether the lookup has finished (nothing more to read).
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    fn stop(&mut self, reason: StopReason) {
        self.found = false;
        self.stopped_at = Some(reason);
        self.stage = Stage::Done;
    }

    fn push_step(
        &mut self,
        component: ComponentType,
        offset: u64,
        length: u64,
        touched_bytes: u64,
        note: String,
        clock: &dyn Clock,
    ) {
        let now = clock.now_nanos();
        self.steps.push(LookupStep {
            component,
            offset,
            length,
            touched_bytes,
            nanos: now.saturating_sub(self.last_nanos),
            note,
        });
        self.last_nanos = now;
    }

    fn start_big(&mut self, metadata: &SSTableMetadata, clock: &dyn Clock) {
        let Some(file_len) = metadata.size_of(&ComponentType::PrimaryIndex) else {
            self.stop(StopReason::Error {
                component: Some(ComponentType::PrimaryIndex),
                offset: 0,
                message: "the SSTable has no Index.db: the read path is broken".to_owned(),
            });
            return;
        };
        self.index_len = file_len;
        let data_len = metadata.size_of(&ComponentType::Data).unwrap_or(0);
        if file_len == 0 && data_len > 0 {
            // Every partition of Data.db has an Index.db entry: an empty index is a broken
            // path, not evidence that the key is absent.
            self.stop(StopReason::Error {
                component: Some(ComponentType::PrimaryIndex),
                offset: 0,
                message: format!(
                    "Index.db is empty but Data.db holds {data_len} bytes: Index.db is truncated"
                ),
            });
            return;
        }
        let (range_start, range_end) = match &metadata.summary {
            Some(summary) => match self.search_summary(summary, file_len, clock) {
                Some(range) => range,
                None => return,
            },
            None => (0, file_len),
        };
        if range_start >= range_end {
            // Nothing to scan (an empty Index.db, or a sample at its end).
            self.stop(StopReason::IndexMiss {
                scanned_entries: 0,
                range_start,
                range_end,
                passed_key: false,
            });
            return;
        }
        self.stage = Stage::IndexScan(IndexScan {
            range_start,
            range_end,
            file_len,
            next_offset: range_start,
            window_bytes: INDEX_READ_BYTES,
            scanned: 0,
        });
    }

    /// Key range check and binary search (`IndexSummary.binarySearch`): the Index.db range to
    /// scan, or `None` when the lookup stopped.
    fn search_summary(
        &mut self,
        summary: &IndexSummary,
        index_len: u64,
        clock: &dyn Clock,
    ) -> Option<(u64, u64)> {
        let p = &self.partitioner;
        let key = self.key.as_slice();
        let outside = if p.compare_keys(key, &summary.first_key.value) == Ordering::Less {
            Some("before the first key")
        } else if p.compare_keys(key, &summary.last_key.value) == Ordering::Greater {
            Some("after the last key")
        } else {
            None
        };
        let entries = &summary.entries;
        let mut lo = 0usize;
        let mut hi = entries.len();
        let mut compared = 0usize;
        let mut touched = 0u64;
        let mut span: Option<(u64, u64)> = None;
        // The greatest sampled key ≤ the key: entries[lo - 1] after the loop.
        if outside.is_none() {
            while lo < hi {
                let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
                let Some(e) = entries.get(mid) else { break };
                compared = compared.saturating_add(1);
                touched = touched.saturating_add(e.span().len_bytes());
                let s = e.span();
                span = Some(span.map_or((s.start, s.end), |(a, b)| (a.min(s.start), b.max(s.end))));
                if p.compare_keys(&e.key.value, key) == Ordering::Greater {
                    hi = mid;
                } else {
                    lo = mid.saturating_add(1);
                }
            }
        }
        let (offset, length) = span.map_or_else(
            || {
                let s = summary.first_key.span;
                (s.start, s.len_bytes())
            },
            |(a, b)| (a, b.saturating_sub(a)),
        );
        if let Some(side) = outside {
            self.push_step(
                ComponentType::Summary,
                offset,
                length,
                summary
                    .first_key
                    .span
                    .len_bytes()
                    .saturating_add(summary.last_key.span.len_bytes()),
                format!(
                    "key range {} … {}: the key sorts {side}",
                    display_key(&summary.first_key.value),
                    display_key(&summary.last_key.value)
                ),
                clock,
            );
            self.stop(StopReason::OutsideKeyRange { side });
            return None;
        }
        let sampled = lo.checked_sub(1);
        let start = sampled
            .and_then(|j| entries.get(j))
            .map_or(0, |e| e.index_position.value);
        let next = entries
            .iter()
            .skip(sampled.map_or(0, |j| j.saturating_add(1)))
            .map(|e| e.index_position.value)
            .find(|&pos| pos > start);
        if let Some(past) = [Some(start), next]
            .into_iter()
            .flatten()
            // Every sample is the start of an Index.db entry: none can be at or past its end.
            .find(|&pos| pos >= index_len)
        {
            self.push_step(
                ComponentType::Summary,
                offset,
                length,
                touched,
                format!("a sample points at Index.db {past}, past its end ({index_len} bytes)"),
                clock,
            );
            self.stop(StopReason::Error {
                component: Some(ComponentType::PrimaryIndex),
                offset: index_len,
                message: format!(
                    "Summary.db points at Index.db {past}, but Index.db has {index_len} bytes: \
                     Index.db is truncated or Summary.db is corrupt"
                ),
            });
            return None;
        }
        self.before_last_key = true;
        let end = next.unwrap_or(index_len).min(index_len);
        let note = match sampled.and_then(|j| entries.get(j).map(|e| (j, e))) {
            Some((j, e)) => format!(
                "{compared} comparisons over {} samples: sample {j} ({}) → Index.db [{start}, {end})",
                entries.len(),
                display_key(&e.key.value)
            ),
            None => format!(
                "{compared} comparisons over {} samples: the key sorts before every sample → \
                 Index.db [0, {end})",
                entries.len()
            ),
        };
        self.push_step(ComponentType::Summary, offset, length, touched, note, clock);
        Some((start.min(end), end))
    }

    fn start_bti(&mut self, metadata: &SSTableMetadata) {
        let Some(file_len) = metadata.size_of(&ComponentType::Partitions) else {
            self.stop(StopReason::Error {
                component: Some(ComponentType::Partitions),
                offset: 0,
                message: "the SSTable has no Partitions.db: the read path is broken".to_owned(),
            });
            return;
        };
        if file_len < FOOTER_BYTES {
            self.stop(StopReason::Error {
                component: Some(ComponentType::Partitions),
                offset: 0,
                message: format!("Partitions.db has {file_len} bytes, less than its footer"),
            });
            return;
        }
        self.stage = Stage::PartitionsFooter { file_len };
    }
}

/// The lookup through the byte-range protocol.
impl RangeReader for Lookup {
    /// The byte range to read next, or `None` when the lookup is done.
    fn next_read(&self) -> Option<ByteRange> {
        match &self.stage {
            Stage::IndexScan(s) => Some(ByteRange::new(
                ComponentType::PrimaryIndex,
                s.next_offset,
                s.window_bytes
                    .min(s.range_end.saturating_sub(s.next_offset)),
            )),
            Stage::PartitionsFooter { file_len } => Some(ByteRange::new(
                ComponentType::Partitions,
                file_len.saturating_sub(FOOTER_BYTES),
                FOOTER_BYTES,
            )),
            Stage::PartitionsNode(d) => {
                let start = d.node.saturating_sub(d.node % PAGE_SIZE);
                Some(ByteRange::new(
                    ComponentType::Partitions,
                    start,
                    d.pages
                        .saturating_mul(PAGE_SIZE)
                        .min(d.file_len.saturating_sub(start)),
                ))
            }
            Stage::RowsEntry {
                position,
                file_len,
                window_bytes,
            } => Some(ByteRange::new(
                ComponentType::Rows,
                *position,
                (*window_bytes).min(file_len.saturating_sub(*position)),
            )),
            Stage::DataHeader { .. } => self.data.as_ref().ok()?.next_read(),
            Stage::Done => None,
        }
    }

    /// Hands over the bytes of the range `next_read` asked for. A decoding error ends the lookup
    /// (its result stops at [`StopReason::Error`]) and is also returned.
    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        let Some(request) = self.next_read() else {
            return Err(
                Error::invalid("bytes supplied but nothing was asked for", range.offset)
                    .context("lookup"),
            );
        };
        let len = bytes.len() as u64;
        let outcome = if request != *range {
            Err(Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: request.offset,
                    wanted_end: request.end(),
                },
                range.offset,
            )
            .context("lookup read (not the range asked for)"))
        } else if len < request.len {
            Err(request.short_read(len).context("lookup read (short read)"))
        } else {
            let bytes = usize::try_from(request.len)
                .ok()
                .and_then(|n| bytes.get(..n))
                .unwrap_or(bytes);
            self.process(&request, bytes, clock)
        };
        match outcome {
            Ok(p) => {
                self.push_step(
                    request.component,
                    request.offset,
                    request.len,
                    p.touched_bytes,
                    p.note,
                    clock,
                );
                Ok(())
            }
            Err(e) => {
                let e = e.in_component(request.component.clone());
                self.push_step(
                    request.component,
                    request.offset,
                    request.len,
                    0,
                    format!("error: {e}"),
                    clock,
                );
                self.stop(StopReason::from_error(&e));
                Err(e)
            }
        }
    }

    /// The caller could not read the range asked for: ends the lookup with this error.
    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        let error = error.clone().in_component(range.component.clone());
        self.push_step(
            range.component.clone(),
            range.offset,
            range.len,
            0,
            format!("read failed: {error}"),
            clock,
        );
        self.stop(StopReason::from_error(&error));
    }
}

impl Lookup {
    fn process(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<Processed> {
        let offset = range.offset;
        match core::mem::replace(&mut self.stage, Stage::Done) {
            Stage::IndexScan(scan) => self.scan_index(scan, offset, bytes),
            Stage::PartitionsFooter { file_len } => self.read_footer(file_len, offset, bytes),
            Stage::PartitionsNode(d) => self.descend(d, offset, bytes),
            Stage::RowsEntry {
                position,
                file_len,
                window_bytes,
            } => self.read_rows_entry(position, file_len, window_bytes, bytes),
            Stage::DataHeader { position } => self.read_data_header(position, range, bytes, clock),
            Stage::Done => Err(Error::invalid("the lookup is finished", offset)),
        }
    }

    fn scan_index(&mut self, mut scan: IndexScan, offset: u64, bytes: &[u8]) -> Result<Processed> {
        let window_end = offset.saturating_add(bytes.len() as u64);
        let eof = window_end >= scan.file_len;
        let file = IndexFile::new(bytes, offset, self.version);
        let mut cursor = file.cursor_at(scan.next_offset, eof);
        let first_scanned = scan.scanned;
        let mut touched_end = offset;
        loop {
            match cursor.next_step()? {
                IndexStep::Entry(e) => {
                    scan.scanned = scan.scanned.saturating_add(1);
                    touched_end = touched_end.max(e.span.end.min(window_end));
                    let compared = self.partitioner.compare_keys(&e.key.value, &self.key);
                    if e.key.value == self.key {
                        let n = scan.scanned.saturating_sub(1);
                        let position = e.position.value;
                        let blocks = e.block_count.unwrap_or(0);
                        self.index_hit = Some(IndexHit {
                            component: ComponentType::PrimaryIndex,
                            offset: e.span.start,
                            scanned_entries: Some(n),
                            block_count: blocks,
                        });
                        self.start_data(position);
                        return Ok(Processed {
                            touched_bytes: touched_end.saturating_sub(offset),
                            note: format!(
                                "entry {n} of the range (Index.db {}) holds the key → Data.db {position}{}",
                                e.span.start,
                                if blocks > 0 {
                                    format!(", promoted index of {blocks} blocks")
                                } else {
                                    String::new()
                                }
                            ),
                        });
                    }
                    if compared == Ordering::Greater {
                        self.stop(StopReason::IndexMiss {
                            scanned_entries: scan.scanned,
                            range_start: scan.range_start,
                            range_end: scan.range_end,
                            passed_key: true,
                        });
                        return Ok(Processed {
                            touched_bytes: touched_end.saturating_sub(offset),
                            note: format!(
                                "{} entries compared; {} at Index.db {} sorts after the key: absent",
                                scan.scanned.saturating_sub(first_scanned),
                                display_key(&e.key.value),
                                e.span.start
                            ),
                        });
                    }
                }
                IndexStep::NeedMoreBytes { offset: at } => {
                    let compared = scan.scanned.saturating_sub(first_scanned);
                    if at < scan.next_offset {
                        return Err(Error::invalid(
                            format!("the index scan went back from {} to {at}", scan.next_offset),
                            at,
                        )
                        .context("index entry"));
                    }
                    if at >= scan.range_end {
                        return self.index_range_exhausted(scan, offset, touched_end, compared);
                    }
                    if at == offset {
                        // Not even one entry header fits: a larger window.
                        if window_end >= scan.range_end
                            || scan.window_bytes >= MAX_INDEX_WINDOW_BYTES
                        {
                            return Err(Error::invalid(
                                format!(
                                    "the Index.db entry at {at} does not fit in [{at}, {window_end})"
                                ),
                                at,
                            )
                            .context("index entry"));
                        }
                        scan.window_bytes = scan.window_bytes.saturating_mul(2);
                    }
                    scan.next_offset = at;
                    self.stage = Stage::IndexScan(scan);
                    return Ok(Processed {
                        touched_bytes: touched_end.saturating_sub(offset),
                        note: format!("{compared} entries compared; continuing at Index.db {at}"),
                    });
                }
                IndexStep::End => {
                    let compared = scan.scanned.saturating_sub(first_scanned);
                    return self.index_range_exhausted(scan, offset, touched_end, compared);
                }
            }
        }
    }

    fn index_range_exhausted(
        &mut self,
        scan: IndexScan,
        offset: u64,
        touched_end: u64,
        compared: usize,
    ) -> Result<Processed> {
        if self.before_last_key && scan.range_end >= self.index_len {
            // Summary.db's last key sorts at or after the key, so the last range must hold a
            // key greater than it: Index.db ends too early.
            return Err(Error::invalid(
                format!(
                    "Index.db ends at {} before any key at or after the sought one, though \
                     Summary.db's last key sorts after it: Index.db is truncated",
                    scan.range_end
                ),
                scan.range_end,
            )
            .context("index scan")
            .in_component(ComponentType::PrimaryIndex));
        }
        let note = format!(
            "{compared} entries compared; the range [{}, {}) ends without the key: absent",
            scan.range_start, scan.range_end
        );
        self.stop(StopReason::IndexMiss {
            scanned_entries: scan.scanned,
            range_start: scan.range_start,
            range_end: scan.range_end,
            passed_key: false,
        });
        Ok(Processed {
            touched_bytes: touched_end.saturating_sub(offset),
            note,
        })
    }

    fn read_footer(&mut self, file_len: u64, offset: u64, bytes: &[u8]) -> Result<Processed> {
        let mut r = Reader::new(bytes, offset).for_component(ComponentType::Partitions);
        let first_key_position = r.i64("footer: first key position")?;
        let count = r.i64("footer: partition count")?;
        let root_start = r.offset();
        let root = r.i64("footer: root position")?;
        let root = u64::try_from(root)
            .ok()
            .filter(|&p| p < file_len)
            .ok_or_else(|| {
                r.invalid_at(
                    format!("root position {root} is outside the {file_len}-byte file"),
                    root_start,
                    "footer: root position",
                )
            })?;
        let Some(comparable) = partition_key(&self.partitioner, &self.key) else {
            self.stop(StopReason::Unsupported {
                reason: format!(
                    "the byte-comparable key form of {} is not supported",
                    self.partitioner
                ),
            });
            return Ok(Processed {
                touched_bytes: FOOTER_BYTES,
                note: format!("footer: {count} partitions, root at {root}"),
            });
        };
        let end = u64::try_from(first_key_position)
            .ok()
            .filter(|&p| p <= file_len)
            .unwrap_or(file_len);
        self.stage = Stage::PartitionsNode(TrieDescent {
            comparable,
            matched: 0,
            node: root,
            file_len: end,
            pages: 1,
            nodes_visited: 0,
        });
        Ok(Processed {
            touched_bytes: FOOTER_BYTES,
            note: format!("footer: {count} partitions, root at {root}"),
        })
    }

    /// Follows the key's byte-comparable bytes through the nodes of one page
    /// (`PartitionIndex.Reader.exactCandidate`, `Walker.follow`).
    fn descend(&mut self, mut d: TrieDescent, offset: u64, bytes: &[u8]) -> Result<Processed> {
        let window_end = offset.saturating_add(bytes.len() as u64);
        let trie = TrieBytes::partitions(bytes, offset);
        let visited_before = d.nodes_visited;
        let mut touched = 0u64;
        let grow = |d: &mut TrieDescent, e: Error| -> Result<()> {
            if is_short(&e) && window_end < d.file_len && d.pages < MAX_TRIE_WINDOW_PAGES {
                d.pages = d.pages.saturating_add(1);
                Ok(())
            } else {
                Err(e)
            }
        };
        loop {
            if d.node >= d.file_len {
                // A window can never hold this node: the walk would ask for it forever.
                return Err(Error::invalid(
                    format!(
                        "trie node position {} is outside the trie, which ends at {}",
                        d.node, d.file_len
                    ),
                    d.node,
                )
                .in_component(ComponentType::Partitions)
                .context("partition index trie node"));
            }
            if d.node < offset || d.node >= window_end {
                if d.nodes_visited == visited_before {
                    // The page read for this node does not hold it: no progress is possible.
                    return Err(Error::invalid(
                        format!(
                            "trie node at {} is not inside the page read for it [{offset}, {window_end})",
                            d.node
                        ),
                        d.node,
                    )
                    .context("partition index trie"));
                }
                let page = d.node.saturating_sub(d.node % PAGE_SIZE);
                let note = format!(
                    "{} nodes, {} of {} key bytes matched; next node at {} (page {})",
                    d.nodes_visited.saturating_sub(visited_before),
                    d.matched,
                    d.comparable.len(),
                    d.node,
                    page / PAGE_SIZE
                );
                d.pages = 1;
                self.stage = Stage::PartitionsNode(d);
                return Ok(Processed {
                    touched_bytes: touched,
                    note,
                });
            }
            let node = match trie.node(d.node) {
                Ok(n) => n,
                Err(e) => {
                    grow(&mut d, e)?;
                    self.stage = Stage::PartitionsNode(d);
                    return Ok(Processed {
                        touched_bytes: touched,
                        note: "a node crosses the page end: reading one more page".to_owned(),
                    });
                }
            };
            d.nodes_visited = d.nodes_visited.saturating_add(1);
            touched = touched.saturating_add(node.span().len_bytes());
            if let Some(&b) = d.comparable.get(d.matched) {
                if let Some(child) = node.child(b) {
                    d.matched = d.matched.saturating_add(1);
                    d.node = child;
                    continue;
                }
                if node.has_children() {
                    let note = format!(
                        "{} nodes; no transition for byte 0x{b:02x} after {} of {} key bytes: absent",
                        d.nodes_visited.saturating_sub(visited_before),
                        d.matched,
                        d.comparable.len()
                    );
                    self.stop(StopReason::PartitionIndexMiss {
                        reason: NotFound::NoTransition,
                        matched_bytes: d.matched,
                    });
                    return Ok(Processed {
                        touched_bytes: touched,
                        note,
                    });
                }
            }
            let payload = match decode_payload(&trie, node.payload_position, node.payload_flags) {
                Ok(p) => p,
                Err(e) => {
                    grow(&mut d, e)?;
                    self.stage = Stage::PartitionsNode(d);
                    return Ok(Processed {
                        touched_bytes: touched,
                        note: "a payload crosses the page end: reading one more page".to_owned(),
                    });
                }
            };
            let nodes = d.nodes_visited.saturating_sub(visited_before);
            let Some(payload) = payload else {
                self.stop(StopReason::PartitionIndexMiss {
                    reason: NotFound::NoPayload,
                    matched_bytes: d.matched,
                });
                return Ok(Processed {
                    touched_bytes: touched,
                    note: format!(
                        "{nodes} nodes; the node at {} has no payload: absent",
                        node.position
                    ),
                });
            };
            touched = touched.saturating_add(payload.span.len_bytes());
            if let Some(stored) = payload.hash_byte {
                let expected = hash_byte(&self.key);
                if stored != expected {
                    self.stop(StopReason::PartitionIndexMiss {
                        reason: NotFound::HashMismatch { stored, expected },
                        matched_bytes: d.matched,
                    });
                    return Ok(Processed {
                        touched_bytes: touched,
                        note: format!(
                            "{nodes} nodes; candidate at {} has hash byte 0x{stored:02x}, the key's \
                             is 0x{expected:02x}: absent",
                            node.position
                        ),
                    });
                }
            }
            let note = format!(
                "{nodes} nodes, {} of {} key bytes matched; payload at {} → {}",
                d.matched,
                d.comparable.len(),
                node.position,
                payload.target.display()
            );
            match payload.target {
                PartitionTarget::RowIndex { rows_position } => {
                    let Some(file_len) = self.rows_len else {
                        return Err(Error::invalid(
                            "the trie points into Rows.db, but the SSTable has no Rows.db",
                            node.position,
                        )
                        .context("partition index payload"));
                    };
                    if rows_position >= file_len {
                        return Err(Error::invalid(
                            format!(
                                "the trie payload points at Rows.db {rows_position}, past its end ({file_len} bytes)"
                            ),
                            node.position,
                        )
                        .context("partition index payload"));
                    }
                    self.stage = Stage::RowsEntry {
                        position: rows_position,
                        file_len,
                        window_bytes: (self.key.len() as u64)
                            .saturating_add(2 + TRIE_ENTRY_TAIL_BYTES),
                    };
                }
                PartitionTarget::Data { data_position } => {
                    self.index_hit = Some(IndexHit {
                        component: ComponentType::Partitions,
                        offset: node.position,
                        scanned_entries: None,
                        block_count: 0,
                    });
                    self.start_data(data_position);
                }
            }
            return Ok(Processed {
                touched_bytes: touched,
                note,
            });
        }
    }
}

fn is_short(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof { .. } | ErrorKind::LengthTooLarge { .. }
    )
}

impl Lookup {
    fn read_rows_entry(
        &mut self,
        position: u64,
        file_len: u64,
        window_bytes: u64,
        bytes: &[u8],
    ) -> Result<Processed> {
        let mut r = Reader::new(bytes, position).for_component(ComponentType::Rows);
        let stored = r.short_length_bytes("row index entry: key")?;
        if stored != self.key.as_slice() {
            let note = format!(
                "row index entry for {}, not the key: absent",
                display_key(stored)
            );
            let touched = (stored.len() as u64).saturating_add(2);
            self.stop(StopReason::RowIndexKeyMismatch {
                rows_position: position,
                stored_key: stored.to_vec(),
            });
            return Ok(Processed {
                touched_bytes: touched,
                note,
            });
        }
        let window = TrieBytes::rows(bytes, position);
        let entry = match decode_entry(&window, position, &self.version) {
            Ok(e) => e,
            Err(e) if is_short(&e) && position.saturating_add(window_bytes) < file_len => {
                self.stage = Stage::RowsEntry {
                    position,
                    file_len,
                    window_bytes: window_bytes.saturating_mul(2),
                };
                return Ok(Processed {
                    touched_bytes: bytes.len() as u64,
                    note: "the entry is longer than the window: reading more".to_owned(),
                });
            }
            Err(e) => return Err(e),
        };
        let data_position = entry.data_position.value;
        let blocks = entry.block_count.value;
        self.index_hit = Some(IndexHit {
            component: ComponentType::Rows,
            offset: position,
            scanned_entries: None,
            block_count: blocks,
        });
        self.start_data(data_position);
        Ok(Processed {
            touched_bytes: entry.span.len_bytes(),
            note: format!(
                "row index entry: the key, {blocks} blocks, {} → Data.db {data_position}",
                entry.deletion.display()
            ),
        })
    }

    fn start_data(&mut self, position: u64) {
        let seek = match self.data.as_mut() {
            Ok(reader) => reader.reader_mut().seek_to_partition(position),
            Err(e) => Err(e.clone()),
        };
        if let Err(e) = seek {
            self.stop(StopReason::from_error(&e));
            return;
        }
        self.stage = Stage::DataHeader { position };
        if let Err(e) = self.poll_data(position) {
            let e = e.in_component(ComponentType::Data);
            self.stop(StopReason::from_error(&e));
        }
    }

    /// Decodes what the Data.db reader holds: `None` while the header is incomplete, else the
    /// bytes of the header and a note (the lookup is then finished).
    fn poll_data(&mut self, position: u64) -> Result<Option<(u64, String)>> {
        let step = match self.data.as_mut() {
            Ok(reader) => reader.next_item()?,
            Err(e) => return Err(e.clone()),
        };
        match step {
            DecodeStep::NeedMoreData => {
                self.stage = Stage::DataHeader { position };
                Ok(None)
            }
            DecodeStep::Finished => Err(Error::invalid(
                format!("no partition at Data.db {position}: the data ends there"),
                position,
            )
            .context("partition header")
            .in_component(ComponentType::Data)),
            DecodeStep::Item(DataItem::PartitionStart(start)) => {
                let touched = start.span.len_bytes();
                let stored = &start.key.bytes.bytes;
                if stored == &self.key {
                    let note = format!(
                        "partition header at {position}: the key, {}",
                        if start.deletion.is_live() {
                            "live"
                        } else {
                            "deleted"
                        }
                    );
                    self.found = true;
                    self.partition_position = Some(position);
                    self.partition_start = Some(start);
                    self.stopped_at = None;
                    self.stage = Stage::Done;
                    Ok(Some((touched, note)))
                } else if self.version.format() == Format::Big {
                    // The index entry held this very key: Data.db does not match its index.
                    Err(Error::invalid(
                        format!(
                            "Index.db gives Data.db {position} for the key, but the partition there holds {}",
                            display_key(stored)
                        ),
                        position,
                    )
                    .context("partition header")
                    .in_component(ComponentType::Data))
                } else {
                    let note = format!(
                        "partition header at {position} holds {}, not the key: absent",
                        display_key(stored)
                    );
                    let stored_key = stored.clone();
                    self.stop(StopReason::DataKeyMismatch {
                        data_position: position,
                        stored_key,
                    });
                    Ok(Some((touched, note)))
                }
            }
            DecodeStep::Item(other) => Err(Error::invalid(
                format!(
                    "expected a partition header at Data.db {position}, found an item at {}",
                    other.position()
                ),
                position,
            )
            .in_component(ComponentType::Data)),
        }
    }

    fn read_data_header(
        &mut self,
        position: u64,
        range: &ByteRange,
        bytes: &[u8],
        clock: &dyn Clock,
    ) -> Result<Processed> {
        match self.data.as_mut() {
            Ok(reader) => reader.supply(range, bytes, clock)?,
            Err(e) => return Err(e.clone()),
        }
        let compressed = self.data.as_ref().is_ok_and(|r| r.reader().is_compressed());
        let what = if compressed {
            "compressed chunk"
        } else {
            "bytes"
        };
        match self.poll_data(position)? {
            None => Ok(Processed {
                touched_bytes: bytes.len() as u64,
                note: format!("{what}: the partition header at {position} continues"),
            }),
            Some((touched, note)) => Ok(Processed {
                touched_bytes: touched,
                note: format!("{what}: {note}"),
            }),
        }
    }

    /// The outcome (a lookup stopped early reports [`StopReason::Unfinished`]).
    pub fn into_result(self) -> LookupResult {
        let stopped_at = match (&self.stage, self.found) {
            (Stage::Done, true) => None,
            (Stage::Done, false) => Some(self.stopped_at.unwrap_or(StopReason::Unfinished)),
            _ => Some(StopReason::Unfinished),
        };
        LookupResult {
            found: stopped_at.is_none(),
            key: self.key,
            token: self.token,
            bloom: self.bloom,
            steps: self.steps,
            partition_position: self.partition_position,
            index_entry: self.index_hit,
            partition_start: self.partition_start,
            stopped_at,
        }
    }
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
    None
}

/// Data.db read as Cassandra reads it (`CompressedChunkReader`): the checksum of every
/// compressed chunk is verified before its bytes are used; a mismatch is an error naming the
/// chunk. Wraps the engine's [`DataFileReader`].
#[derive(Debug, Clone)]
pub struct CheckedDataReader {
    reader: DataFileReader,
    /// For a compressed Data.db (from `jb`, where the checksum covers the stored bytes): the
    /// chunk checksum algorithm and the chunk offsets.
    chunks: Option<(ChecksumType, Vec<u64>)>,
}

impl CheckedDataReader {
    /// The Data.db reader of the SSTable ([`DataFileReader::for_sstable`]), checking chunks.
    pub fn for_sstable(metadata: &SSTableMetadata, options: DecodeOptions) -> Result<Self> {
        let reader = DataFileReader::for_sstable(metadata, options)?;
        let version = metadata.descriptor.version;
        let checked = version.format() == Format::Bti || version.as_str() >= "jb";
        let chunks = metadata.compression.as_ref().filter(|_| checked).map(|c| {
            (
                ChecksumType::for_compressed_chunks(&version),
                c.chunk_offsets.clone(),
            )
        });
        Ok(CheckedDataReader { reader, chunks })
    }

    /// Reads of an uncompressed file ask for `bytes` at a time.
    pub fn with_read_block_bytes(mut self, bytes: u64) -> Self {
        self.reader = self.reader.with_read_block_bytes(bytes);
        self
    }

    pub fn reader(&self) -> &DataFileReader {
        &self.reader
    }

    pub fn reader_mut(&mut self) -> &mut DataFileReader {
        &mut self.reader
    }

    /// Verifies the checksum after the stored chunk `bytes` read at `range`.
    fn check_chunk(&self, range: &ByteRange, bytes: &[u8]) -> Result<()> {
        let Some((algorithm, offsets)) = &self.chunks else {
            return Ok(());
        };
        let Some(i) = offsets.iter().position(|&o| o == range.offset) else {
            return Ok(());
        };
        let want = usize::try_from(range.len)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let Some(split) = want.checked_sub(4) else {
            return Err(Error::invalid(
                format!(
                    "chunk {i} (Data.db {}..{}) is shorter than its checksum",
                    range.offset,
                    range.end()
                ),
                range.offset,
            )
            .context("compressed chunk")
            .in_component(ComponentType::Data));
        };
        let (stored, trailer) = bytes.get(..want).unwrap_or(bytes).split_at(split);
        let expected = match trailer {
            [a, b, c, d] => u32::from_be_bytes([*a, *b, *c, *d]),
            _ => return Ok(()),
        };
        let computed = algorithm.checksum(stored);
        if computed != expected {
            return Err(Error::invalid(
                format!(
                    "chunk {i} (Data.db {}..{}) fails its checksum: stored {} {expected:#010x}, computed {computed:#010x}",
                    range.offset,
                    range.end(),
                    match algorithm {
                        ChecksumType::Crc32 => "CRC32",
                        ChecksumType::Adler32 => "Adler32",
                    }
                ),
                range.offset,
            )
            .context("compressed chunk checksum")
            .in_component(ComponentType::Data));
        }
        Ok(())
    }
}

impl RangeReader for CheckedDataReader {
    fn next_read(&self) -> Option<ByteRange> {
        RangeReader::next_read(&self.reader)
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        self.check_chunk(range, bytes)?;
        RangeReader::supply(&mut self.reader, range, bytes, clock)?;
        // The reader's own CRC32 findings are superseded by the check above.
        let _ = self.reader.take_findings();
        Ok(())
    }
}

impl ItemReader for CheckedDataReader {
    fn next_item(&mut self) -> Result<DecodeStep> {
        self.reader.next_item()
    }
}

/// Whether [`read_partition_with`] can decode this SSTable's rows (3.0+ row format).
pub fn decodes_rows(version: &Version) -> bool {
    version.has_row_format()
}

/// The partition header at uncompressed Data.db `position`.
pub fn read_partition_start_with<S: RangeSource>(
    reader: &mut CheckedDataReader,
    position: u64,
    driver: &mut SyncDriver<S>,
    clock: &dyn Clock,
) -> Result<PartitionStart> {
    reader.reader_mut().seek_to_partition(position)?;
    match driver.next_item(reader, clock)? {
        DecodeStep::Item(DataItem::PartitionStart(s)) => Ok(s),
        DecodeStep::Item(other) => Err(Error::invalid(
            format!(
                "expected a partition header at Data.db {position}, found an item at {}",
                other.position()
            ),
            position,
        )
        .in_component(ComponentType::Data)),
        DecodeStep::Finished | DecodeStep::NeedMoreData => Err(Error::invalid(
            format!("no partition at Data.db {position}: the data ends there"),
            position,
        )
        .in_component(ComponentType::Data)),
    }
}

/// One partition read from Data.db by [`read_partition_with`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionRead {
    pub start: PartitionStart,
    pub has_static_row: bool,
    /// Regular rows.
    pub rows: u64,
    pub range_tombstone_markers: u64,
    pub end: PartitionEnd,
    /// One per Data.db read (chunk or block).
    pub steps: Vec<LookupStep>,
}

/// Decodes the whole partition at uncompressed Data.db `position` (3.0+), handing every item
/// to `on_item` and timing each read with `clock`.
pub fn read_partition_with<S: RangeSource, G>(
    reader: &mut CheckedDataReader,
    position: u64,
    driver: &mut SyncDriver<S>,
    clock: &dyn Clock,
    mut on_item: G,
) -> Result<PartitionRead>
where
    G: FnMut(&DataItem),
{
    reader.reader_mut().seek_to_partition(position)?;
    let mut steps = Vec::new();
    let mut last = clock.now_nanos();
    let mut start: Option<PartitionStart> = None;
    let mut items = 0usize;
    loop {
        match reader.next_item()? {
            DecodeStep::NeedMoreData => {
                let Some(range) = driver.step(reader, clock)? else {
                    return Err(Error::invalid(
                        "the data ends inside the partition",
                        reader.reader().decoder().position(),
                    )
                    .in_component(ComponentType::Data));
                };
                let now = clock.now_nanos();
                steps.push(LookupStep {
                    component: ComponentType::Data,
                    offset: range.offset,
                    length: range.len,
                    touched_bytes: range.len,
                    nanos: now.saturating_sub(last),
                    note: format!(
                        "rows of the partition at {position}: read {}, {items} items decoded before it",
                        steps.len().saturating_add(1)
                    ),
                });
                last = now;
            }
            DecodeStep::Finished => {
                return Err(Error::new(
                    ErrorKind::UnexpectedEof {
                        needed_bytes: 1,
                        available_bytes: 0,
                    },
                    reader.reader().decoder().position(),
                )
                .context("the data ends inside the partition")
                .in_component(ComponentType::Data))
            }
            DecodeStep::Item(item) => {
                items = items.saturating_add(1);
                on_item(&item);
                match item {
                    DataItem::PartitionStart(s) if start.is_none() => start = Some(s),
                    DataItem::PartitionEnd(end) => {
                        let Some(start) = start else {
                            return Err(Error::invalid("partition end without a start", position)
                                .in_component(ComponentType::Data));
                        };
                        return Ok(PartitionRead {
                            start,
                            has_static_row: end.has_static_row,
                            rows: end.row_count,
                            range_tombstone_markers: end.range_tombstone_marker_count,
                            end,
                            steps,
                        });
                    }
                    DataItem::PartitionStart(s) => {
                        return Err(Error::invalid(
                            "a second partition header before the end of the partition",
                            s.position,
                        )
                        .in_component(ComponentType::Data))
                    }
                    _ => {}
                }
            }
        }
    }
}
