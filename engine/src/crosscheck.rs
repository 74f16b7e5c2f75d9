//! Cross-checks between an SSTable's partition index and the components that must agree with it.
//!
//! | check | what must hold | Cassandra's side |
//! |---|---|---|
//! | key order | each indexed key sorts after the previous one by (token, key bytes); the same key twice is a duplicate | `DecoratedKey.compareTo`, `SortedTableWriter` (keys are appended in order) |
//! | bloom filter | no indexed key tests absent (a false negative loses data) | `BloomFilter.isPresent` |
//! | Data.db positions | positions grow and lie inside the (uncompressed) data | `RowIndexEntry.position`, `TrieIndexEntry` |
//! | Data.db keys | the partition header at each position holds the indexed key | `BigTableReader.getRowIndexEntry` (CASSANDRA-4687 sanity check), `BtiTableReader.getExactPosition` |
//! | Summary.db | every sample names the start of an Index.db entry holding its key; at full sampling sample j is entry j·min_index_interval; first/last keys are Index.db's | `IndexSummaryBuilder`, `IndexSummary` |
//! | Partitions.db | each trie prefix is a prefix of the key's byte-comparable form and the payload's hash byte is the key's; the trie lists the footer's partition count | `PartitionIndexBuilder`, `PartitionIndex.Reader` |
//!
//! [`CrossChecker`] is fed one indexed partition at a time ([`CrossChecker::add_entry`]) so that
//! an index of any size is checked in bounded memory; the caller reads the partition header at
//! each position (for example with [`crate::lookup::read_partition_start_with`]) and passes it to
//! [`CrossChecker::check_data_key`]. Each [`CrossCheckFinding`] names the entry: its number in
//! index order, its key and its Data.db position. Only the first [`MAX_LISTED_FINDINGS`] are
//! kept; all are counted.
//!
//! Before 3.0 (`jb` … `la`) the partition header has the same layout (u16-length key, 12-byte
//! `DeletionTime`), so the key check applies there too.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/big/BigTableReader.java`,
//! `.../format/bti/BtiTableReader.java`, `.../indexsummary/IndexSummaryBuilder.java`,
//! `.../format/bti/PartitionIndexBuilder.java`, `db/DecoratedKey.java`, `utils/BloomFilter.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::cmp::Ordering;

use serde::Serialize;

use crate::component::bti::bytecomparable::partition_key;
use crate::component::bti::partitions::hash_byte;
use crate::component::data::PartitionStart;
use crate::component::filter::BloomFilter;
use crate::component::summary::{display_key, BASE_SAMPLING_LEVEL};
use crate::error::Error;
use crate::metadata::SSTableMetadata;
use crate::span::serialize_opt_hex;
use crate::token::{Partitioner, Token};

/// At most this many findings are listed one by one (all are counted).
pub const MAX_LISTED_FINDINGS: usize = 100;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum CrossCheckKind {
    /// A key sorts before the previous one.
    KeyOrder,
    /// The same key as the previous entry.
    DuplicateKey,
    /// The bloom filter says an indexed key is absent.
    BloomFalseNegative,
    /// A Data.db position is not above the previous entry's.
    PositionOrder,
    /// A Data.db position is at or past the end of the data.
    PositionPastEnd,
    /// The partition header at the position holds another key.
    DataKeyMismatch,
    /// No partition header could be read at the position.
    DataUnreadable,
    /// Summary.db disagrees with Index.db.
    SummaryMismatch,
    /// A Partitions.db prefix or hash byte does not fit the key it leads to.
    TrieMismatch,
    /// The number of partitions differs from what the index says.
    PartitionCount,
}

/// One disagreement, naming the entry it is about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossCheckFinding {
    pub kind: CrossCheckKind,
    /// The entry's number in index order (0-based); `None` for whole-file findings.
    pub entry: Option<usize>,
    /// The entry's raw key.
    #[serde(serialize_with = "serialize_opt_hex")]
    pub key: Option<Vec<u8>>,
    /// The entry's Data.db position.
    pub position: Option<u64>,
    pub message: String,
}

/// One indexed partition, as an index lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexedPartition<'k> {
    /// Number in index order, from 0.
    pub number: usize,
    /// Raw partition key.
    pub key: &'k [u8],
    /// Uncompressed Data.db position.
    pub position: u64,
    /// Where the entry starts in Index.db (big format; used for the Summary.db check).
    pub index_offset: Option<u64>,
}

/// The findings of a [`CrossChecker`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossCheckReport {
    /// Entries checked.
    pub checked: usize,
    /// Partition headers read from Data.db and compared.
    pub data_keys_checked: usize,
    /// Summary.db samples compared.
    pub summary_samples_checked: usize,
    /// All findings, listed or not.
    pub finding_count: usize,
    pub findings: Vec<CrossCheckFinding>,
}

impl CrossCheckReport {
    /// No finding.
    pub fn is_clean(&self) -> bool {
        self.finding_count == 0
    }

    /// Findings of one kind.
    pub fn of_kind(&self, kind: CrossCheckKind) -> impl Iterator<Item = &CrossCheckFinding> {
        self.findings.iter().filter(move |f| f.kind == kind)
    }
}

#[derive(Debug, Clone)]
struct Sample {
    number: usize,
    position: u64,
    key: Vec<u8>,
}

#[derive(Debug, Clone)]
struct SummaryState {
    samples: Vec<Sample>,
    next: usize,
    /// `min_index_interval` when the summary is at full sampling.
    full_interval: Option<usize>,
    first_key: Vec<u8>,
    last_key: Vec<u8>,
    checked: usize,
}

/// Incremental cross-checks of one SSTable's index (see the module docs).
#[derive(Debug, Clone)]
pub struct CrossChecker<'m> {
    partitioner: Partitioner,
    filter: Option<&'m BloomFilter>,
    data_len_bytes: Option<u64>,
    summary: Option<SummaryState>,
    previous: Option<(usize, Vec<u8>, Token, u64)>,
    first_key: Option<Vec<u8>>,
    checked: usize,
    data_keys_checked: usize,
    finding_count: usize,
    findings: Vec<CrossCheckFinding>,
}

impl<'m> CrossChecker<'m> {
    /// Checks against `metadata`'s partitioner, bloom filter, Summary.db and data length
    /// (CompressionInfo's uncompressed length, else the Data.db size).
    pub fn new(metadata: &'m SSTableMetadata) -> Self {
        let data_len_bytes = metadata
            .compression
            .as_ref()
            .map(|c| c.data_length_bytes.value)
            .or_else(|| metadata.size_of(&crate::ComponentType::Data));
        let summary = metadata.summary.as_ref().map(|s| {
            let full = s
                .sampling_level
                .as_ref()
                .is_none_or(|l| l.value == BASE_SAMPLING_LEVEL);
            SummaryState {
                samples: s
                    .entries
                    .iter()
                    .enumerate()
                    .map(|(number, e)| Sample {
                        number,
                        position: e.index_position.value,
                        key: e.key.value.clone(),
                    })
                    .collect(),
                next: 0,
                full_interval: full
                    .then(|| usize::try_from(s.min_index_interval.value).ok())
                    .flatten()
                    .filter(|&n| n > 0),
                first_key: s.first_key.value.clone(),
                last_key: s.last_key.value.clone(),
                checked: 0,
            }
        });
        CrossChecker {
            partitioner: metadata.partitioner(),
            filter: metadata.filter.as_ref(),
            data_len_bytes,
            summary,
            previous: None,
            first_key: None,
            checked: 0,
            data_keys_checked: 0,
            finding_count: 0,
            findings: Vec::new(),
        }
    }

    fn note(&mut self, kind: CrossCheckKind, p: Option<&IndexedPartition<'_>>, message: String) {
        self.finding_count = self.finding_count.saturating_add(1);
        if self.findings.len() < MAX_LISTED_FINDINGS {
            self.findings.push(CrossCheckFinding {
                kind,
                entry: p.map(|p| p.number),
                key: p.map(|p| p.key.to_vec()),
                position: p.map(|p| p.position),
                message,
            });
        }
    }

    /// Checks one entry against the previous one, the bloom filter, the data length and
    /// Summary.db. Entries must come in index order.
    pub fn add_entry(&mut self, p: &IndexedPartition<'_>) {
        self.checked = self.checked.saturating_add(1);
        let token = self.partitioner.token(p.key);
        let n = p.number;
        if let Some((pn, pkey, ptoken, ppos)) = self.previous.take() {
            match ptoken.cmp(&token).then_with(|| pkey.as_slice().cmp(p.key)) {
                Ordering::Less => {}
                Ordering::Equal => self.note(
                    CrossCheckKind::DuplicateKey,
                    Some(p),
                    format!(
                        "entry {n}: key {} repeats entry {pn}",
                        display_key(p.key)
                    ),
                ),
                Ordering::Greater => self.note(
                    CrossCheckKind::KeyOrder,
                    Some(p),
                    format!(
                        "entry {n}: key {} (token {token}) sorts before entry {pn}'s {} (token {ptoken}) under {}",
                        display_key(p.key),
                        display_key(&pkey),
                        self.partitioner
                    ),
                ),
            }
            if p.position <= ppos {
                self.note(
                    CrossCheckKind::PositionOrder,
                    Some(p),
                    format!(
                        "entry {n} ({}): Data.db position {} is not above entry {pn}'s {ppos}",
                        display_key(p.key),
                        p.position
                    ),
                );
            }
        }
        if let Some(len) = self.data_len_bytes {
            if p.position >= len {
                self.note(
                    CrossCheckKind::PositionPastEnd,
                    Some(p),
                    format!(
                        "entry {n} ({}): Data.db position {} is past the end of the data ({len} bytes)",
                        display_key(p.key),
                        p.position
                    ),
                );
            }
        }
        if let Some(f) = self.filter {
            if !f.contains(p.key) {
                self.note(
                    CrossCheckKind::BloomFalseNegative,
                    Some(p),
                    format!(
                        "entry {n}: the bloom filter says key {} is absent",
                        display_key(p.key)
                    ),
                );
            }
        }
        if let Some(offset) = p.index_offset {
            self.check_samples(p, offset);
        }
        if self.first_key.is_none() {
            self.first_key = Some(p.key.to_vec());
        }
        self.previous = Some((n, p.key.to_vec(), token, p.position));
    }

    fn check_samples(&mut self, p: &IndexedPartition<'_>, offset: u64) {
        let Some(mut s) = self.summary.take() else {
            return;
        };
        while let Some(sample) = s.samples.get(s.next) {
            if sample.position > offset {
                break;
            }
            s.next = s.next.saturating_add(1);
            s.checked = s.checked.saturating_add(1);
            let j = sample.number;
            if sample.position < offset {
                self.note(
                    CrossCheckKind::SummaryMismatch,
                    None,
                    format!(
                        "Summary.db sample {j} ({}): Index.db position {} is not the start of an entry",
                        display_key(&sample.key),
                        sample.position
                    ),
                );
                continue;
            }
            if sample.key != p.key {
                self.note(
                    CrossCheckKind::SummaryMismatch,
                    Some(p),
                    format!(
                        "Summary.db sample {j} has key {} but Index.db entry {} at {offset} holds {}",
                        display_key(&sample.key),
                        p.number,
                        display_key(p.key)
                    ),
                );
            }
            if let Some(interval) = s.full_interval {
                let expected = j.saturating_mul(interval);
                if p.number != expected {
                    self.note(
                        CrossCheckKind::SummaryMismatch,
                        Some(p),
                        format!(
                            "Summary.db sample {j} is Index.db entry {}, but at full sampling with \
                             interval {interval} it should be entry {expected}",
                            p.number
                        ),
                    );
                }
            }
        }
        self.summary = Some(s);
    }

    /// Compares the partition header read at the entry's position (or the error reading it)
    /// with the indexed key.
    pub fn check_data_key(
        &mut self,
        p: &IndexedPartition<'_>,
        read: core::result::Result<&PartitionStart, &Error>,
    ) {
        let n = p.number;
        match read {
            Ok(start) => {
                self.data_keys_checked = self.data_keys_checked.saturating_add(1);
                let stored = &start.key.bytes.bytes;
                if stored.as_slice() != p.key {
                    self.note(
                        CrossCheckKind::DataKeyMismatch,
                        Some(p),
                        format!(
                            "entry {n}: key {} points at Data.db {}, which holds key {}",
                            display_key(p.key),
                            p.position,
                            display_key(stored)
                        ),
                    );
                }
            }
            Err(e) => self.note(
                CrossCheckKind::DataUnreadable,
                Some(p),
                format!(
                    "entry {n}: key {} points at Data.db {}, where no partition header decodes: {e}",
                    display_key(p.key),
                    p.position
                ),
            ),
        }
    }

    /// BTI: the trie prefix that led to the entry must be a prefix of the key's byte-comparable
    /// form, and its hash byte (if any) the key's.
    pub fn check_trie_prefix(
        &mut self,
        p: &IndexedPartition<'_>,
        prefix: &[u8],
        stored_hash: Option<u8>,
    ) {
        let n = p.number;
        let Some(comparable) = partition_key(&self.partitioner, p.key) else {
            return;
        };
        if !comparable.starts_with(prefix) {
            self.note(
                CrossCheckKind::TrieMismatch,
                Some(p),
                format!(
                    "entry {n}: the trie path to it is not a prefix of key {}'s byte-comparable form",
                    display_key(p.key)
                ),
            );
        }
        if let Some(stored) = stored_hash {
            let expected = hash_byte(p.key);
            if stored != expected {
                self.note(
                    CrossCheckKind::TrieMismatch,
                    Some(p),
                    format!(
                        "entry {n}: hash byte 0x{stored:02x}, but key {}'s is 0x{expected:02x}",
                        display_key(p.key)
                    ),
                );
            }
        }
    }

    /// Records a whole-file finding (an index that could not be read to its end, …).
    pub fn add_finding(&mut self, kind: CrossCheckKind, message: String) {
        self.note(kind, None, message);
    }

    /// The report; `expected_count` is the partition count the index itself states
    /// (Partitions.db footer), if any.
    pub fn finish(mut self, expected_count: Option<u64>) -> CrossCheckReport {
        if let Some(mut s) = self.summary.take() {
            let last_key = self.previous.as_ref().map(|(_, k, _, _)| k.clone());
            while let Some(sample) = s.samples.get(s.next) {
                s.next = s.next.saturating_add(1);
                s.checked = s.checked.saturating_add(1);
                let message = format!(
                    "Summary.db sample {} ({}): Index.db position {} is past the last entry",
                    sample.number,
                    display_key(&sample.key),
                    sample.position
                );
                self.note(CrossCheckKind::SummaryMismatch, None, message);
            }
            if let Some(first) = self.first_key.clone() {
                if first != s.first_key {
                    self.note(
                        CrossCheckKind::SummaryMismatch,
                        None,
                        format!(
                            "Summary.db first key {} but Index.db starts with {}",
                            display_key(&s.first_key),
                            display_key(&first)
                        ),
                    );
                }
            }
            if let Some(last) = last_key {
                if last != s.last_key {
                    self.note(
                        CrossCheckKind::SummaryMismatch,
                        None,
                        format!(
                            "Summary.db last key {} but Index.db ends with {}",
                            display_key(&s.last_key),
                            display_key(&last)
                        ),
                    );
                }
            }
            self.summary = Some(s);
        }
        if let Some(expected) = expected_count {
            if expected != self.checked as u64 {
                let message = format!(
                    "the index states {expected} partitions but lists {}",
                    self.checked
                );
                self.note(CrossCheckKind::PartitionCount, None, message);
            }
        }
        CrossCheckReport {
            checked: self.checked,
            data_keys_checked: self.data_keys_checked,
            summary_samples_checked: self.summary.as_ref().map_or(0, |s| s.checked),
            finding_count: self.finding_count,
            findings: self.findings,
        }
    }
}
