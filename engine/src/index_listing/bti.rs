//! The BTI step of the listing: Partitions.db's footer, then the trie in key order, page by
//! page; for a payload P ≥ 0 the `TrieIndexEntry` in Rows.db (with the partition's row-index
//! trie when blocks are wanted), for P < 0 the key from the Data.db header (in
//! [`super::IndexListing`]).
//!
//! | stage | reads |
//! |---|---|
//! | footer | the last 24 bytes of Partitions.db, then from the first key to the end (the footer's keys, as [`decode_footer`] checks them) |
//! | trie | 4096-byte pages ([`TriePages`]) |
//! | rows | Rows.db from the entry (4 KiB at first, doubled while it does not fit; with blocks from the end of the previous entry) |
//!
//! Src: `io/sstable/format/bti/PartitionIndex.java`, `PartitionIterator.java`,
//! `TrieIndexEntry.java`, `RowIndexReader.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{
    Candidate, ListedBlocks, ListedPartition, ListingItem, ListingOptions, RowsBlock, TrieListing,
    WalkStep,
};
use crate::component::bti::partitions::{decode_footer, PartitionTarget};
use crate::component::bti::rows::{decode_entry, decode_row_index, RowIndex};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, Pulled, RowsWindow, TriePages, TrieStep};
use crate::version::Version;

/// Bytes of the Partitions.db footer: first-key position, partition count, root position.
const FOOTER_BYTES: u64 = 24;
/// The first and last keys before the footer: two u16-length keys at most.
const MAX_FOOTER_KEYS_BYTES: u64 = 2 * (2 + 0xffff);
/// Rows.db bytes read after an entry's position at first (grown when the entry is longer).
const ROWS_ENTRY_READ_BYTES: u64 = 4096;
/// Data.db position warnings kept (as `PartitionIndex` decoding keeps them).
const MAX_POSITION_WARNINGS: usize = 33;

#[derive(Debug)]
enum Stage {
    /// The last 24 bytes.
    Footer,
    /// From the first key to the end.
    FooterKeys {
        first_key: u64,
    },
    Trie,
    /// A partition waiting for its Rows.db entry, read from `from`.
    Rows {
        partition: Box<ListedPartition>,
        from: u64,
        rows_position: u64,
    },
    Done,
}

/// Partitions.db (and Rows.db) walked partition by partition.
#[derive(Debug)]
pub(super) struct BtiWalk {
    version: Version,
    partitions_len: u64,
    options: ListingOptions,
    stage: Stage,
    trie: Option<TriePages>,
    rows: RowsWindow,
    number: usize,
    expected_count: Option<u64>,
    previous_target: Option<PartitionTarget>,
    position_warnings: Vec<String>,
    /// Where the last Rows.db entry read ends (the next partition's row-index trie starts
    /// there).
    previous_rows_end: u64,
    /// The walk reached the trie's end (the count can be compared).
    trie_ended: bool,
    ready: Option<Candidate>,
    /// Where the trie walk starts ([`TriePages::seeking`]), if not at the first partition.
    seek: Option<Vec<u8>>,
    /// The walk started at a bound: its count is not the footer's.
    sought: bool,
}

impl BtiWalk {
    pub(super) fn new(
        metadata: &SSTableMetadata,
        partitions_len: u64,
        options: ListingOptions,
    ) -> Self {
        let rows_len = metadata.size_of(&ComponentType::Rows).unwrap_or(0);
        BtiWalk {
            version: metadata.descriptor.version,
            partitions_len,
            options,
            stage: Stage::Footer,
            trie: None,
            rows: RowsWindow::new(rows_len, ROWS_ENTRY_READ_BYTES, u64::MAX),
            number: 0,
            expected_count: None,
            previous_target: None,
            position_warnings: Vec::new(),
            previous_rows_end: 0,
            trie_ended: false,
            ready: None,
            seek: None,
            sought: false,
        }
    }

    /// Starts the walk at a byte-comparable bound (see [`super::IndexListing::seeking`]).
    pub(super) fn seek(&mut self, comparable: Vec<u8>) {
        self.seek = Some(comparable);
        self.sought = true;
    }

    /// The footer's partition count, once the whole trie was walked (as a whole-file decode
    /// of Partitions.db gives it).
    pub(super) fn expected_count(&self) -> Option<u64> {
        self.expected_count.filter(|_| self.trie_ended)
    }

    /// The count against the footer's (once the walk ended), then out-of-order positions.
    pub(super) fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut positions = self.position_warnings.clone();
        if let (true, Some(count)) = (self.trie_ended, self.expected_count) {
            if self.number as u64 != count {
                out.push(format!(
                    "the trie lists {} partitions but the footer says {count}",
                    self.number
                ));
                positions.truncate(MAX_POSITION_WARNINGS.saturating_sub(1));
            }
        }
        out.extend(positions);
        out
    }

    pub(super) fn next(&mut self) -> Result<WalkStep> {
        if let Some(c) = self.ready.take() {
            return Ok(Pulled::Item(c));
        }
        loop {
            match &self.stage {
                Stage::Footer | Stage::FooterKeys { .. } => return Ok(Pulled::NeedMoreData),
                Stage::Done => return Ok(Pulled::End),
                Stage::Rows { .. } => match self.rows_entry()? {
                    Some(c) => return Ok(Pulled::Item(c)),
                    None => return Ok(Pulled::NeedMoreData),
                },
                Stage::Trie => {}
            }
            let Some(trie) = self.trie.as_mut() else {
                self.stage = Stage::Done;
                continue;
            };
            let entry = match trie.next_step() {
                Ok(TrieStep::Entry(entry)) => entry,
                Ok(TrieStep::NeedMoreData) => return Ok(Pulled::NeedMoreData),
                Ok(TrieStep::End) => {
                    self.trie_ended = !self.sought;
                    self.stage = Stage::Done;
                    return Ok(Pulled::End);
                }
                Err(e) => {
                    self.stage = Stage::Done;
                    return Err(e);
                }
            };
            let number = self.number;
            self.number = self.number.saturating_add(1);
            let target = entry.payload.target;
            self.note_position(number, target);
            let mut p = ListedPartition::new(number);
            p.trie = Some(TrieListing {
                node_position: entry.node_position,
                key_prefix: entry.key_prefix,
                hash_byte: entry.payload.hash_byte,
                target,
            });
            match target {
                PartitionTarget::Data { data_position } => {
                    p.position = Some(data_position);
                    return Ok(Pulled::Item(
                        if self.options.keys && self.options.data_keys {
                            Candidate::KeyFromHeader(p)
                        } else {
                            Candidate::Ready(ListingItem::Partition(Box::new(p)))
                        },
                    ));
                }
                PartitionTarget::RowIndex { rows_position } => {
                    if !self.options.keys {
                        return Ok(Pulled::Item(Candidate::Ready(ListingItem::Partition(
                            Box::new(p),
                        ))));
                    }
                    p.rows_position = Some(rows_position);
                    let rows_len = self.rows.rows_len();
                    if rows_position >= rows_len {
                        let e = Error::invalid(
                            format!(
                                "the trie points at Rows.db {rows_position}, past its end ({rows_len} bytes)"
                            ),
                            rows_position,
                        )
                        .in_component(ComponentType::Rows);
                        return Ok(Pulled::Item(Candidate::Ready(skipped(
                            number,
                            rows_position,
                            &e,
                        ))));
                    }
                    let from = if self.options.blocks {
                        self.previous_rows_end.min(rows_position)
                    } else {
                        rows_position
                    };
                    self.stage = Stage::Rows {
                        partition: Box::new(p),
                        from,
                        rows_position,
                    };
                }
            }
        }
    }

    /// `PartitionIndex` decoding's warning: a Data.db position not above the previous one.
    fn note_position(&mut self, number: usize, target: PartitionTarget) {
        if let (
            Some(PartitionTarget::Data { data_position: x }),
            PartitionTarget::Data { data_position: y },
        ) = (self.previous_target, target)
        {
            if y <= x && self.position_warnings.len() < MAX_POSITION_WARNINGS {
                self.position_warnings.push(format!(
                    "partition {number}: Data.db position {y} is not above the previous {x}"
                ));
            }
        }
        self.previous_target = Some(target);
    }

    /// The Rows.db entry of the partition waiting for it, from the window held; `None` when
    /// the window must be read first.
    fn rows_entry(&mut self) -> Result<Option<Candidate>> {
        let Stage::Rows {
            from,
            rows_position,
            ..
        } = &self.stage
        else {
            return Ok(None);
        };
        let (from, position) = (*from, *rows_position);
        let version = self.version;
        let blocks = self.options.blocks;
        let decoded = self.rows.decode(from, position, |rows| {
            if blocks {
                decode_row_index(rows, position, &version).map(|ri| {
                    let list = rows_blocks(&ri);
                    (ri.entry, Some(list))
                })
            } else {
                decode_entry(rows, position, &version).map(|e| (e, None))
            }
        });
        let decoded = match decoded {
            Ok(None) => return Ok(None),
            Ok(Some(d)) => Ok(d),
            Err(e) => Err(e),
        };
        let Stage::Rows { mut partition, .. } = core::mem::replace(&mut self.stage, Stage::Trie)
        else {
            return Ok(None);
        };
        Ok(Some(match decoded {
            Ok((entry, blocks)) => {
                self.previous_rows_end = entry.span.end;
                partition.key = Some(entry.key.value);
                partition.position = Some(entry.data_position.value);
                partition.block_count = Some(entry.block_count.value);
                partition.blocks = blocks.map(|b| Ok(ListedBlocks::Rows(b)));
                if self.options.data_headers {
                    Candidate::CheckHeader(*partition)
                } else {
                    Candidate::Ready(ListingItem::Partition(partition))
                }
            }
            Err(e) => Candidate::Ready(skipped(partition.number, position, &e)),
        }))
    }

    pub(super) fn next_read(&self) -> Option<ByteRange> {
        if self.ready.is_some() {
            return None;
        }
        match &self.stage {
            Stage::Footer => Some(ByteRange::new(
                ComponentType::Partitions,
                self.partitions_len.saturating_sub(FOOTER_BYTES),
                FOOTER_BYTES.min(self.partitions_len),
            )),
            Stage::FooterKeys { first_key } => Some(ByteRange::new(
                ComponentType::Partitions,
                *first_key,
                self.partitions_len.saturating_sub(*first_key),
            )),
            Stage::Trie => self.trie.as_ref().and_then(TriePages::next_read),
            Stage::Rows {
                from,
                rows_position,
                ..
            } => Some(self.rows.read_for(*from, *rows_position)),
            Stage::Done => None,
        }
    }

    pub(super) fn supply(&mut self, range: &ByteRange, bytes: &[u8]) -> Result<()> {
        let result = self.supply_inner(range, bytes);
        if result.is_err() {
            self.stage = Stage::Done;
        }
        result
    }

    fn supply_inner(&mut self, range: &ByteRange, bytes: &[u8]) -> Result<()> {
        if (bytes.len() as u64) < range.len {
            return Err(range.short_read(bytes.len() as u64));
        }
        match &self.stage {
            Stage::Footer => {
                let footer_start = range.offset;
                let first_key = bytes
                    .get(..8)
                    .and_then(|b| <[u8; 8]>::try_from(b).ok())
                    .map(i64::from_be_bytes)
                    .and_then(|p| u64::try_from(p).ok())
                    .filter(|&p| {
                        p <= footer_start && footer_start.saturating_sub(p) <= MAX_FOOTER_KEYS_BYTES
                    });
                match first_key {
                    // `decode_footer` checks the footer and its keys.
                    Some(first_key) => self.stage = Stage::FooterKeys { first_key },
                    // Its error names what is wrong with the footer.
                    None => self.read_footer(bytes, range.offset)?,
                }
            }
            Stage::FooterKeys { .. } => self.read_footer(bytes, range.offset)?,
            Stage::Trie => {
                if let Some(trie) = self.trie.as_mut() {
                    trie.supply(range, bytes);
                }
            }
            Stage::Rows { .. } => self.rows.supply(range, bytes),
            Stage::Done => {
                return Err(Error::invalid(
                    "bytes supplied but nothing was asked for",
                    range.offset,
                )
                .in_component(range.component.clone()))
            }
        }
        Ok(())
    }

    fn read_footer(&mut self, tail: &[u8], tail_offset: u64) -> Result<()> {
        let footer = decode_footer(tail, tail_offset)?;
        self.expected_count = Some(footer.partition_count.value);
        // Nodes are checked against the file's end, as a whole-file decode of Partitions.db
        // checks them (the footer's checks keep the root before the keys).
        let pages = TriePages::new(footer.root_position.value, self.partitions_len);
        self.trie = Some(match self.seek.take() {
            Some(comparable) => pages.seeking(comparable),
            None => pages,
        });
        self.stage = Stage::Trie;
        Ok(())
    }

    /// A failed Rows.db read skips that partition; any other ends the listing.
    pub(super) fn abort(&mut self, _range: &ByteRange, error: &Error) {
        match core::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Rows {
                partition,
                rows_position,
                ..
            } => {
                self.ready = Some(Candidate::Ready(skipped(
                    partition.number,
                    rows_position,
                    error,
                )));
                self.stage = Stage::Trie;
            }
            _ => self.stage = Stage::Done,
        }
    }
}

fn skipped(number: usize, rows_position: u64, e: &Error) -> ListingItem {
    ListingItem::Skipped {
        number,
        message: format!("entry {number}: Rows.db {rows_position}: {e}"),
    }
}

/// The row-index blocks of a BTI partition with their widths (the trie's extra entry after
/// the last block points at the end-of-partition byte, which the last block includes).
fn rows_blocks(ri: &RowIndex) -> Vec<RowsBlock> {
    let count = ri.entry.block_count.value as usize;
    ri.blocks
        .iter()
        .take(count)
        .enumerate()
        .map(|(i, b)| {
            let next = i.checked_add(1);
            let width = next.and_then(|n| ri.blocks.get(n)).map(|next_block| {
                let end = if next == Some(count) {
                    next_block.offset.saturating_add(1)
                } else {
                    next_block.offset
                };
                end.saturating_sub(b.offset)
            });
            RowsBlock {
                index: i,
                separator: b.separator.clone(),
                offset: b.offset,
                width,
                open_marker: b.open_marker.clone(),
            }
        })
        .collect()
}
