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
//! [`Lookup`] is the state machine: [`Lookup::next_read`] names the byte range it needs next
//! ([`ReadRequest`]: component, offset, length), the caller reads it (a `pread`, a Blob slice)
//! and hands it to [`Lookup::supply`] with a [`Clock`]. Every read becomes a [`LookupStep`]
//! (component, byte range, bytes the decoder examined, nanoseconds since the previous step —
//! the caller's read included — and a note); the in-memory steps (filter, summary) are steps
//! too. When nothing more is asked for, [`Lookup::into_result`] gives the [`LookupResult`]:
//! found or not, the token, the bloom probes, the steps, the partition's Data.db position and,
//! on a miss, the [`StopReason`]. [`lookup_with`] drives the loop for native callers.
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

use core::cmp::Ordering;

use serde::Serialize;

use crate::clock::Clock;
use crate::component::bti::bytecomparable::partition_key;
use crate::component::bti::partitions::{decode_payload, hash_byte, NotFound, PartitionTarget};
use crate::component::bti::rows::decode_entry;
use crate::component::bti::trie::{TrieBytes, PAGE_SIZE};
use crate::component::data::{
    DataFileReader, DataItem, DataSchema, DecodeOptions, DecodeStep, DeltaBase, PartitionEnd,
    PartitionStart,
};
use crate::component::index::{IndexFile, IndexStep};
use crate::component::summary::{display_key, IndexSummary};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::info::SSTableMetadata;
use crate::reader::Reader;
use crate::span::serialize_hex;
use crate::token::{Partitioner, Token};
use crate::types::AbstractType;
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

/// A byte range of one component that the lookup needs next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadRequest {
    pub component: ComponentType,
    /// Absolute offset in the component file (Data.db: the physical file, a chunk start when
    /// compressed).
    pub offset: u64,
    pub len: u64,
}

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
    data: core::result::Result<Box<DataFileReader>, Error>,
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
            data: data_file_reader(metadata).map(Box::new),
            index_hit: None,
            partition_position: None,
            partition_start: None,
            found: false,
            stopped_at: None,
            key,
        };
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
            self.stop(StopReason::Unsupported {
                reason: "the SSTable has no Index.db".to_owned(),
            });
            return;
        };
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
                let mid = lo + (hi - lo) / 2;
                let Some(e) = entries.get(mid) else { break };
                compared += 1;
                touched = touched.saturating_add(e.span().len_bytes());
                let s = e.span();
                span = Some(span.map_or((s.start, s.end), |(a, b)| (a.min(s.start), b.max(s.end))));
                if p.compare_keys(&e.key.value, key) == Ordering::Greater {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
        }
        let (offset, length) = span.map_or_else(
            || {
                let s = summary.first_key.span;
                (s.start, s.len_bytes())
            },
            |(a, b)| (a, b - a),
        );
        if let Some(side) = outside {
            self.push_step(
                ComponentType::Summary,
                offset,
                length,
                summary.first_key.span.len_bytes() + summary.last_key.span.len_bytes(),
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
            .skip(sampled.map_or(0, |j| j + 1))
            .map(|e| e.index_position.value)
            .find(|&pos| pos > start);
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
            self.stop(StopReason::Unsupported {
                reason: "the SSTable has no Partitions.db".to_owned(),
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

    /// The byte range to read next, or `None` when the lookup is done.
    pub fn next_read(&self) -> Option<ReadRequest> {
        match &self.stage {
            Stage::IndexScan(s) => Some(ReadRequest {
                component: ComponentType::PrimaryIndex,
                offset: s.next_offset,
                len: s
                    .window_bytes
                    .min(s.range_end.saturating_sub(s.next_offset)),
            }),
            Stage::PartitionsFooter { file_len } => Some(ReadRequest {
                component: ComponentType::Partitions,
                offset: file_len - FOOTER_BYTES,
                len: FOOTER_BYTES,
            }),
            Stage::PartitionsNode(d) => {
                let start = d.node - d.node % PAGE_SIZE;
                Some(ReadRequest {
                    component: ComponentType::Partitions,
                    offset: start,
                    len: (d.pages * PAGE_SIZE).min(d.file_len.saturating_sub(start)),
                })
            }
            Stage::RowsEntry {
                position,
                file_len,
                window_bytes,
            } => Some(ReadRequest {
                component: ComponentType::Rows,
                offset: *position,
                len: (*window_bytes).min(file_len.saturating_sub(*position)),
            }),
            Stage::DataHeader { .. } => {
                let reader = self.data.as_ref().ok()?;
                reader.next_read().map(|(offset, len)| ReadRequest {
                    component: ComponentType::Data,
                    offset,
                    len,
                })
            }
            Stage::Done => None,
        }
    }

    /// Hands over the bytes of the range [`Lookup::next_read`] asked for. A decoding error ends
    /// the lookup (its result stops at [`StopReason::Error`]) and is also returned.
    pub fn supply(&mut self, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        let Some(request) = self.next_read() else {
            return Err(
                Error::invalid("bytes supplied but nothing was asked for", 0).context("lookup"),
            );
        };
        let len = bytes.len() as u64;
        let outcome = if len < request.len {
            Err(Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: request.offset,
                    wanted_end: request.offset.saturating_add(request.len),
                },
                request.offset.saturating_add(len),
            )
            .context("lookup read (short read)")
            .in_component(request.component.clone()))
        } else {
            let bytes = usize::try_from(request.len)
                .ok()
                .and_then(|n| bytes.get(..n))
                .unwrap_or(bytes);
            self.process(request.offset, bytes)
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
    pub fn abort(&mut self, error: Error, clock: &dyn Clock) {
        let (component, offset, len) = self
            .next_read()
            .map_or((ComponentType::Data, error.offset(), 0), |r| {
                (r.component, r.offset, r.len)
            });
        let error = error.in_component(component.clone());
        self.push_step(
            component,
            offset,
            len,
            0,
            format!("read failed: {error}"),
            clock,
        );
        self.stop(StopReason::from_error(&error));
    }

    fn process(&mut self, offset: u64, bytes: &[u8]) -> Result<Processed> {
        match core::mem::replace(&mut self.stage, Stage::Done) {
            Stage::IndexScan(scan) => self.scan_index(scan, offset, bytes),
            Stage::PartitionsFooter { file_len } => self.read_footer(file_len, offset, bytes),
            Stage::PartitionsNode(d) => self.descend(d, offset, bytes),
            Stage::RowsEntry {
                position,
                file_len,
                window_bytes,
            } => self.read_rows_entry(position, file_len, window_bytes, bytes),
            Stage::DataHeader { position } => self.read_data_header(position, offset, bytes),
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
                    scan.scanned += 1;
                    touched_end = touched_end.max(e.span.end.min(window_end));
                    let compared = self.partitioner.compare_keys(&e.key.value, &self.key);
                    if e.key.value == self.key {
                        let n = scan.scanned - 1;
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
                            touched_bytes: touched_end - offset,
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
                            touched_bytes: touched_end - offset,
                            note: format!(
                                "{} entries compared; {} at Index.db {} sorts after the key: absent",
                                scan.scanned - first_scanned,
                                display_key(&e.key.value),
                                e.span.start
                            ),
                        });
                    }
                }
                IndexStep::NeedMoreBytes { offset: at } => {
                    let compared = scan.scanned - first_scanned;
                    if at >= scan.range_end {
                        return Ok(self.index_range_exhausted(scan, offset, touched_end, compared));
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
                        touched_bytes: touched_end - offset,
                        note: format!("{compared} entries compared; continuing at Index.db {at}"),
                    });
                }
                IndexStep::End => {
                    let compared = scan.scanned - first_scanned;
                    return Ok(self.index_range_exhausted(scan, offset, touched_end, compared));
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
    ) -> Processed {
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
        Processed {
            touched_bytes: touched_end.saturating_sub(offset),
            note,
        }
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
                d.pages += 1;
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
                let page = d.node - d.node % PAGE_SIZE;
                let note = format!(
                    "{} nodes, {} of {} key bytes matched; next node at {} (page {})",
                    d.nodes_visited - visited_before,
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
            d.nodes_visited += 1;
            touched = touched.saturating_add(node.span().len_bytes());
            if let Some(&b) = d.comparable.get(d.matched) {
                if let Some(child) = node.child(b) {
                    d.matched += 1;
                    d.node = child;
                    continue;
                }
                if node.has_children() {
                    let note = format!(
                        "{} nodes; no transition for byte 0x{b:02x} after {} of {} key bytes: absent",
                        d.nodes_visited - visited_before,
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
            let nodes = d.nodes_visited - visited_before;
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
                        self.stop(StopReason::Unsupported {
                            reason: "the SSTable has no Rows.db".to_owned(),
                        });
                        return Ok(Processed {
                            touched_bytes: touched,
                            note,
                        });
                    };
                    self.stage = Stage::RowsEntry {
                        position: rows_position,
                        file_len,
                        window_bytes: 2 + self.key.len() as u64 + TRIE_ENTRY_TAIL_BYTES,
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
            let touched = 2 + stored.len() as u64;
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
            Ok(reader) => reader.seek_to_partition(position),
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

    fn read_data_header(&mut self, position: u64, offset: u64, bytes: &[u8]) -> Result<Processed> {
        match self.data.as_mut() {
            Ok(reader) => reader.supply(offset, bytes)?,
            Err(e) => return Err(e.clone()),
        }
        let compressed = self.data.as_ref().is_ok_and(|r| r.is_compressed());
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

/// Runs a whole lookup, reading each requested range with `read_at(component, offset, len)`
/// (a `pread` of that component file). A failed read ends the lookup with
/// [`StopReason::Error`].
pub fn lookup_with<F>(
    metadata: &SSTableMetadata,
    key: &[u8],
    mut read_at: F,
    clock: &dyn Clock,
) -> LookupResult
where
    F: FnMut(&ComponentType, u64, usize) -> Result<Vec<u8>>,
{
    let mut lookup = Lookup::new(metadata, key.to_vec(), clock);
    while let Some(request) = lookup.next_read() {
        let read = usize::try_from(request.len)
            .map_err(|_| {
                Error::invalid(format!("read of {} bytes", request.len), request.offset)
                    .in_component(request.component.clone())
            })
            .and_then(|len| read_at(&request.component, request.offset, len));
        match read {
            // An error ends the lookup and is in its result.
            Ok(bytes) => {
                let _ = lookup.supply(&bytes, clock);
            }
            Err(e) => lookup.abort(e, clock),
        }
    }
    lookup.into_result()
}

/// A Data.db reader for the SSTable: rows decoded per the SerializationHeader (3.0+); before
/// 3.0 (no header, old cell layout) partition headers only, with the key as raw bytes.
pub fn data_file_reader(metadata: &SSTableMetadata) -> Result<DataFileReader> {
    let version = metadata.descriptor.version;
    let header = metadata.statistics.as_ref().and_then(|s| s.header.as_ref());
    let schema = match header {
        Some(h) if version.has_row_format() => DataSchema::from_header(h, &version)?,
        _ if version.has_row_format() => {
            return Err(Error::invalid(
                "Statistics.db has no SerializationHeader: rows cannot be decoded",
                0,
            )
            .in_component(ComponentType::Statistics))
        }
        _ => headers_only_schema(version),
    };
    let file_len = metadata.size_of(&ComponentType::Data).ok_or_else(|| {
        Error::invalid("the SSTable has no Data.db", 0).in_component(ComponentType::Data)
    })?;
    let options = DecodeOptions::default();
    Ok(match &metadata.compression {
        Some(c) => DataFileReader::compressed(schema, options, c.clone(), file_len),
        None => DataFileReader::uncompressed(schema, options, file_len)
            .with_read_block_bytes(DATA_PLAIN_READ_BYTES),
    })
}

/// Before 3.0 a partition starts as in 3.0 (u16-length key, then i32 local deletion time and
/// i64 markedForDeleteAt); nothing after the header is decoded.
fn headers_only_schema(version: Version) -> DataSchema {
    DataSchema::from_parts(
        version,
        AbstractType::Bytes,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        DeltaBase {
            min_timestamp_micros: 0,
            min_local_deletion_time_raw: 0,
            min_ttl_secs: 0,
            unsigned_deletion_time: false,
        },
    )
}

/// Whether [`read_partition_with`] can decode this SSTable's rows (3.0+ row format).
pub fn decodes_rows(version: &Version) -> bool {
    version.has_row_format()
}

/// The partition header at uncompressed Data.db `position`, reading with `read_at(offset, len)`.
pub fn read_partition_start_with<F>(
    reader: &mut DataFileReader,
    position: u64,
    mut read_at: F,
) -> Result<PartitionStart>
where
    F: FnMut(u64, usize) -> Result<Vec<u8>>,
{
    reader.seek_to_partition(position)?;
    loop {
        match reader.next_item()? {
            DecodeStep::Item(DataItem::PartitionStart(s)) => return Ok(s),
            DecodeStep::Item(other) => {
                return Err(Error::invalid(
                    format!(
                        "expected a partition header at Data.db {position}, found an item at {}",
                        other.position()
                    ),
                    position,
                )
                .in_component(ComponentType::Data))
            }
            DecodeStep::Finished => {
                return Err(Error::invalid(
                    format!("no partition at Data.db {position}: the data ends there"),
                    position,
                )
                .in_component(ComponentType::Data))
            }
            DecodeStep::NeedMoreData => {
                supply_next(reader, &mut read_at)?;
            }
        }
    }
}

fn supply_next<F>(reader: &mut DataFileReader, read_at: &mut F) -> Result<(u64, u64)>
where
    F: FnMut(u64, usize) -> Result<Vec<u8>>,
{
    let Some((offset, len)) = reader.next_read() else {
        return Err(Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: 1,
                available_bytes: 0,
            },
            reader.data_len_bytes(),
        )
        .context("Data.db")
        .in_component(ComponentType::Data));
    };
    let n = usize::try_from(len).map_err(|_| {
        Error::invalid(format!("read of {len} bytes"), offset).in_component(ComponentType::Data)
    })?;
    let bytes = read_at(offset, n)?;
    reader.supply(offset, &bytes)?;
    Ok((offset, len))
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
pub fn read_partition_with<F, G>(
    reader: &mut DataFileReader,
    position: u64,
    mut read_at: F,
    clock: &dyn Clock,
    mut on_item: G,
) -> Result<PartitionRead>
where
    F: FnMut(u64, usize) -> Result<Vec<u8>>,
    G: FnMut(&DataItem),
{
    reader.seek_to_partition(position)?;
    let mut steps = Vec::new();
    let mut last = clock.now_nanos();
    let mut start: Option<PartitionStart> = None;
    let mut items = 0usize;
    loop {
        match reader.next_item()? {
            DecodeStep::NeedMoreData => {
                let (offset, length) = supply_next(reader, &mut read_at)?;
                let now = clock.now_nanos();
                steps.push(LookupStep {
                    component: ComponentType::Data,
                    offset,
                    length,
                    touched_bytes: length,
                    nanos: now.saturating_sub(last),
                    note: format!(
                        "rows of the partition at {position}: read {}, {items} items decoded before it",
                        steps.len() + 1
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
                    reader.decoder().position(),
                )
                .context("the data ends inside the partition")
                .in_component(ComponentType::Data))
            }
            DecodeStep::Item(item) => {
                items += 1;
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
