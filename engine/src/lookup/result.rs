//! What a lookup tells: its steps, the bloom probes, the index entry, the outcome and why it
//! stopped.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::bti::partitions::NotFound;
use crate::component::data::PartitionStart;
use crate::component::summary::display_key;
use crate::component::ComponentType;
use crate::error::Error;
use crate::span::serialize_hex;
use crate::token::Token;

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
    /// A probed bit is clear, yet the index and Data.db hold the key: a bloom filter never
    /// says "absent" of a key it was built with, so Filter.db is corrupt (the answer comes
    /// from the index).
    pub false_negative: bool,
}

/// Where a lookup that found nothing stopped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub enum StopReason {
    /// A probed bloom filter bit is clear and the index confirms the key is not there.
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
    /// Whether this says "absent" (a sound structure ruled the key out), rather than that the
    /// lookup could not be done.
    pub fn is_absent(&self) -> bool {
        !matches!(
            self,
            StopReason::Unsupported { .. } | StopReason::Error { .. } | StopReason::Unfinished
        )
    }
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
                passed_key} => format!(
                "not in Index.db: {scanned_entries} entries of [{range_start}, {range_end}) scanned{}",
                if *passed_key {
                    ", the last one sorts after the key"
                } else {
                    ""
                }
            ),
            StopReason::PartitionIndexMiss {
                reason,
                matched_bytes} => format!(
                "not in Partitions.db after {matched_bytes} byte-comparable bytes: {}",
                match reason {
                    NotFound::NoTransition => "no transition for the next byte".to_owned(),
                    NotFound::NoPayload => "the node reached has no payload".to_owned(),
                    NotFound::HashMismatch { stored, expected } =>
                        format!("hash byte 0x{stored:02x}, the key's is 0x{expected:02x}")}
            ),
            StopReason::RowIndexKeyMismatch {
                rows_position,
                stored_key} => format!(
                "Rows.db {rows_position} holds key {} (a shared trie prefix)",
                display_key(stored_key)
            ),
            StopReason::DataKeyMismatch {
                data_position,
                stored_key} => format!(
                "Data.db {data_position} holds key {}",
                display_key(stored_key)
            ),
            StopReason::Unsupported { reason } => format!("cannot look up: {reason}"),
            StopReason::Error {
                component,
                offset,
                message} => format!(
                "error at offset {offset}{}: {message}",
                component
                    .as_ref()
                    .map(|c| format!(" in {c}"))
                    .unwrap_or_default()
            ),
            StopReason::Unfinished => "the lookup was not finished".to_owned()}
    }

    pub(super) fn from_error(e: &Error) -> StopReason {
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
