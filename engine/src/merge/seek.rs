//! Starting a table's merge at a key or a token ([`TableMerger::seek`]): each SSTable's read
//! is positioned at its first partition at or after the bound, found through its index as
//! Cassandra's `getPosition(key, Operator.GE)` finds it, so the partitions before the bound are
//! neither read nor merged. Partition order is the partitioner's: token, then key bytes
//! ([`Partitioner::compare_keys`]).
//!
//! | SSTable | where its read starts | reads |
//! |---|---|---|
//! | big (`jb` … `oa`, ScyllaDB `me`) | the Summary.db sample before the bound (`IndexSummary.binarySearch`), then Index.db entries in order up to the first at or after the bound | Index.db windows from the sample: at most one sampling interval of entries |
//! | BTI (`da`, ScyllaDB `ms`) | the Partitions.db trie followed down the bound's byte-comparable bytes (`PartitionIndex.ceiling`, `Walker`), then the first partition whose Rows.db entry's key is at or after the bound; a partition without a row index (its key in Data.db only) is started at, the merge reading past it when it sorts before the bound | the trie pages on the bound's path, at most two Rows.db entries |
//! | no index; BTI: a key whose byte-comparable form is not built here, or a Random or Local token bound | the first partition (partitions before the bound read past) | — |
//!
//! The index walks are the listing's ([`IndexListing`]: `IndexEntries` over Index.db, the
//! trie's `PartitionWalk` started at the bound), so every index structure keeps one decoder. An
//! SSTable whose partitions all sort before the bound is not read. A partition before the bound
//! that an input still meets (an SSTable read from its start) is read past, never merged.
//!
//! Src: `io/sstable/format/big/BigTableReader.java` (`getPosition`, `Operator.GE`),
//! `io/sstable/format/bti/BtiTableReader.java` (`getPosition`), `PartitionIndex.java`
//! (`ceiling`), `io/tries/Walker.java`.

use core::cmp::Ordering;

use crate::clock::Clock;
use crate::component::bti::bytecomparable::{sstable_partition_key, token_prefix};
use crate::error::{Error, Result};
use crate::index_listing::{IndexListing, ListingItem, ListingOptions};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, PullReader, Pulled, RangeReader, RangeSource, SyncDriver};
use crate::token::{Partitioner, Token};
use crate::version::Format;

/// Where a merge starts: the first partition at or after the bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeekTo {
    /// The first partition whose key sorts at or after this key (`read --key`, a wanted key).
    Key(Vec<u8>),
    /// The first partition whose key sorts after this key (a page's cursor: the last key it
    /// showed).
    AfterKey(Vec<u8>),
    /// The first partition whose token is at or after this token.
    Token(Token),
}

impl SeekTo {
    /// Whether a partition of `key` is at or past the bound (the merge keeps it).
    pub fn admits(&self, partitioner: &Partitioner, key: &[u8]) -> bool {
        match self {
            SeekTo::Key(k) => partitioner.compare_keys(key, k) != Ordering::Less,
            SeekTo::AfterKey(k) => partitioner.compare_keys(key, k) == Ordering::Greater,
            SeekTo::Token(t) => partitioner.token(key) >= *t,
        }
    }

    /// The bound's byte-comparable form as `metadata`'s trie orders keys (`None`: the trie
    /// cannot be searched for it).
    fn comparable(&self, metadata: &SSTableMetadata) -> Option<Vec<u8>> {
        match self {
            SeekTo::Key(k) | SeekTo::AfterKey(k) => {
                let key_type = metadata
                    .statistics
                    .as_ref()
                    .and_then(|s| s.header.as_ref())
                    .and_then(|h| crate::types::parse_type(&h.key_type.value).ok());
                sstable_partition_key(
                    &metadata.descriptor.version,
                    &metadata.partitioner(),
                    k,
                    key_type.as_ref(),
                )
            }
            SeekTo::Token(t) => token_prefix(t),
        }
    }
}

/// Where one SSTable's read starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekStart {
    /// The first partition at or after the bound starts at this uncompressed Data.db position.
    At(u64),
    /// Every partition sorts before the bound: nothing to read.
    Past,
    /// No index to search (or none for this bound): from the first partition.
    FromStart,
}

/// One SSTable's [`SeekStart`], found through its index (see the [module docs](self)): a
/// [`PullReader`] of one item, driven by any driver.
#[derive(Debug)]
pub struct PartitionSeek {
    to: SeekTo,
    partitioner: Partitioner,
    listing: Option<IndexListing>,
    /// Settled without the index, not yet pulled.
    settled: Option<SeekStart>,
    done: bool,
}

impl PartitionSeek {
    /// The search for `to` in the SSTable `metadata` describes (its index sizes, Summary.db).
    pub fn new(metadata: &SSTableMetadata, to: SeekTo) -> PartitionSeek {
        let partitioner = metadata.partitioner();
        let options = ListingOptions {
            blocks: false,
            max_blocks: 0,
            max_promoted_bytes: 0,
            data_headers: false,
            keys: true,
            // A partition without a row index is started at: the merge reads its header
            // anyway and reads past it when it sorts before the bound.
            data_keys: false,
        };
        let mut seek = PartitionSeek {
            to,
            partitioner,
            listing: None,
            settled: None,
            done: false,
        };
        let Ok(listing) = IndexListing::for_sstable(metadata, options) else {
            seek.settled = Some(SeekStart::FromStart);
            return seek;
        };
        let listing = match metadata.descriptor.format {
            Format::Big => {
                // The last sample before the bound (samples are in partition order); none: the
                // bound sorts before every sample, Index.db from its start.
                let sample = metadata.summary.as_ref().and_then(|s| {
                    let after = s
                        .entries
                        .partition_point(|e| !seek.to.admits(&seek.partitioner, &e.key.value));
                    after.checked_sub(1).and_then(|i| s.entries.get(i))
                });
                match sample {
                    Some(e) => listing.starting_at(e.index_position.value, 0),
                    None => listing,
                }
            }
            Format::Bti => match seek.to.comparable(metadata) {
                Some(comparable) => listing.seeking(comparable),
                None => {
                    seek.settled = Some(SeekStart::FromStart);
                    return seek;
                }
            },
        };
        seek.listing = Some(listing);
        seek
    }

    fn finish(&mut self, start: SeekStart) -> Result<Pulled<SeekStart>> {
        self.done = true;
        self.listing = None;
        Ok(Pulled::Item(start))
    }
}

impl PullReader for PartitionSeek {
    type Item = SeekStart;

    fn pull(&mut self) -> Result<Pulled<SeekStart>> {
        if self.done {
            return Ok(Pulled::End);
        }
        if let Some(start) = self.settled.take() {
            return self.finish(start);
        }
        loop {
            let Some(listing) = self.listing.as_mut() else {
                return self.finish(SeekStart::FromStart);
            };
            match listing.pull()? {
                Pulled::NeedMoreData => return Ok(Pulled::NeedMoreData),
                Pulled::End => return self.finish(SeekStart::Past),
                // A key the index cannot give: from the start, read past what sorts before.
                Pulled::Item(ListingItem::Skipped { .. }) => {
                    return self.finish(SeekStart::FromStart)
                }
                Pulled::Item(ListingItem::Partition(p)) => match (&p.key, p.position) {
                    (Some(key), Some(position)) => {
                        if self.to.admits(&self.partitioner, key) {
                            return self.finish(SeekStart::At(position));
                        }
                    }
                    // BTI, a partition without a row index (its key only in Data.db): the
                    // first the trie gives sorts after the bound or is the one just before
                    // it, which the merge reads past.
                    (None, Some(position)) => return self.finish(SeekStart::At(position)),
                    (_, None) => return self.finish(SeekStart::FromStart),
                },
            }
        }
    }
}

impl RangeReader for PartitionSeek {
    fn next_read(&self) -> Option<ByteRange> {
        if self.settled.is_some() || self.done {
            return None;
        }
        self.listing.as_ref().and_then(RangeReader::next_read)
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        match self.listing.as_mut() {
            Some(l) => l.supply(range, bytes, clock),
            None => Err(
                Error::invalid("bytes supplied but nothing was asked for", range.offset)
                    .in_component(range.component.clone()),
            ),
        }
    }

    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        if let Some(l) = self.listing.as_mut() {
            l.abort(range, error, clock);
        }
    }
}

/// Where `metadata`'s read of `to` starts, its index read through `driver`.
pub fn seek_start<S: RangeSource>(
    metadata: &SSTableMetadata,
    to: &SeekTo,
    driver: &mut SyncDriver<S>,
    clock: &dyn Clock,
) -> Result<SeekStart> {
    let mut seek = PartitionSeek::new(metadata, to.clone());
    Ok(driver.pull(&mut seek, clock)?.unwrap_or(SeekStart::Past))
}
