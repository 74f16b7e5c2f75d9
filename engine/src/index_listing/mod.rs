//! Every partition an SSTable's index lists, in index order, as one streaming reader
//! ([`IndexListing`]) that speaks the byte-range protocol and is pulled through a driver
//! ([`SyncDriver::pull`](crate::range::SyncDriver::pull),
//! [`AsyncDriver::pull`](crate::range::AsyncDriver::pull)): `sstable-inspect index` and the
//! page's index view both list through it.
//!
//! | step | big (Index.db) | BTI (Partitions.db, Rows.db) | module |
//! |---|---|---|---|
//! | index | entries in 64 KiB windows ([`IndexEntries`](crate::range::IndexEntries)) | footer, then the trie page by page ([`TriePages`](crate::range::TriePages)) | `big`, `bti` |
//! | blocks (optional) | the promoted index's `IndexInfo` blocks, read on its own past the window | the partition's row-index trie, read with its entry | `big`, `bti` |
//! | row index entry | — | the `TrieIndexEntry` a payload P ≥ 0 points at ([`RowsWindow`](crate::range::RowsWindow)) | `bti` |
//! | Data.db header (optional) | the partition header at the entry's position (the key checked against it) | the same; for P < 0 the only source of the key | here |
//!
//! Memory is bounded by the windows (an Index.db window, four trie pages, a Rows.db window, a
//! Data.db chunk), never by the file. A partition whose Rows.db entry or (P < 0) Data.db
//! header cannot be read is reported as [`ListingItem::Skipped`] and the listing goes on.
//!
//! Src: `io/sstable/format/big/RowIndexEntry.java`, `io/sstable/format/bti/PartitionIterator.java`,
//! `TrieIndexEntry.java`, `RowIndexReader.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

mod big;
mod bti;

use serde::Serialize;

use self::big::BigWalk;
use self::bti::BtiWalk;
use crate::checked_data::CheckedDataReader;
use crate::clock::Clock;
use crate::component::bti::partitions::PartitionTarget;
use crate::component::data::{DecodeOptions, PartitionStart};
use crate::component::index::{DeletionTime, IndexInfo};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, PullReader, Pulled, RangeReader};
use crate::span::Span;
use crate::version::Format;

/// What to read besides the index itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingOptions {
    /// Each partition's row-index blocks (`IndexInfo`, or the Rows.db trie).
    pub blocks: bool,
    /// At most this many `IndexInfo` blocks per partition.
    pub max_blocks: u32,
    /// A promoted index longer than this is not read for its blocks (an error in its place).
    pub max_promoted_bytes: u64,
    /// Read the partition header at each partition's Data.db position.
    pub data_headers: bool,
    /// BTI: read the Rows.db entries and (P < 0) the Data.db headers that hold the keys;
    /// without, the trie alone (each partition's key prefix and payload).
    pub keys: bool,
    /// BTI, with `keys`: a partition without a row index (P < 0) gets its key from its Data.db
    /// header; without, it is listed with its Data.db position and no key (Data.db not read).
    pub data_keys: bool,
}

impl ListingOptions {
    /// What `sstable-inspect index` lists: every key, checked against its Data.db header;
    /// the blocks when `blocks`.
    pub fn full(blocks: bool) -> ListingOptions {
        ListingOptions {
            blocks,
            max_blocks: u32::MAX,
            max_promoted_bytes: u64::MAX,
            data_headers: true,
            keys: true,
            data_keys: true,
        }
    }

    /// The index file alone: Index.db entries; BTI, the trie's prefixes and payloads.
    pub fn index_only() -> ListingOptions {
        ListingOptions {
            blocks: false,
            max_blocks: u32::MAX,
            max_promoted_bytes: u64::MAX,
            data_headers: false,
            keys: false,
            data_keys: false,
        }
    }
}

/// Where the BTI trie lists a partition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrieListing {
    pub node_position: u64,
    /// The shortest byte-comparable prefix that tells the key from its neighbours.
    pub key_prefix: Vec<u8>,
    pub hash_byte: Option<u8>,
    pub target: PartitionTarget,
}

/// One block of a BTI partition's row-index trie, with its width (the next block's offset,
/// or for the last one the end-of-partition byte, which it includes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowsBlock {
    pub index: usize,
    /// The byte-comparable separator (empty for the first block).
    pub separator: Vec<u8>,
    /// Block start relative to the partition start.
    pub offset: i64,
    pub width: Option<i64>,
    pub open_marker: Option<DeletionTime>,
}

/// A partition's row-index blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum ListedBlocks {
    Index(Vec<IndexInfo>),
    Rows(Vec<RowsBlock>),
}

/// One partition as the index lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedPartition {
    /// Number in index order, from 0 (skipped partitions count).
    pub number: usize,
    /// The raw key (from Index.db, Rows.db or the Data.db header); `None` when only the trie
    /// was read.
    pub key: Option<Vec<u8>>,
    /// Uncompressed Data.db position, where known.
    pub position: Option<u64>,
    /// Row-index blocks (big: from the promoted index's header, where it has one).
    pub block_count: Option<u32>,
    /// Big: where the entry starts in Index.db, and its promoted index.
    pub index_offset: Option<u64>,
    pub promoted_span: Option<Span>,
    /// BTI: the trie's node and payload.
    pub trie: Option<TrieListing>,
    /// BTI: the Rows.db entry's position (P ≥ 0).
    pub rows_position: Option<u64>,
    /// With [`ListingOptions::blocks`].
    pub blocks: Option<Result<ListedBlocks>>,
    /// With [`ListingOptions::data_headers`]: the header at [`ListedPartition::position`].
    pub data_header: Option<Result<PartitionStart>>,
}

impl ListedPartition {
    fn new(number: usize) -> ListedPartition {
        ListedPartition {
            number,
            key: None,
            position: None,
            block_count: None,
            index_offset: None,
            promoted_span: None,
            trie: None,
            rows_position: None,
            blocks: None,
            data_header: None,
        }
    }
}

/// What [`IndexListing`] yields.
#[derive(Debug, Clone, PartialEq)]
pub enum ListingItem {
    Partition(Box<ListedPartition>),
    /// The partition's key could not be read: why (e.g. `entry 3: Rows.db 120: …`).
    Skipped {
        number: usize,
        message: String,
    },
}

/// The SSTable has no index file to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingIndex(pub ComponentType);

impl core::fmt::Display for MissingIndex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "the SSTable has no {}", self.0)
    }
}

/// What a walk gave: an item, or a partition whose Data.db header is read next.
#[derive(Debug)]
enum Candidate {
    Ready(ListingItem),
    /// The header checks the key.
    CheckHeader(ListedPartition),
    /// The header gives the key (BTI, P < 0).
    KeyFromHeader(ListedPartition),
}

#[derive(Debug)]
enum Walk {
    Big(Box<BigWalk>),
    Bti(Box<BtiWalk>),
}

/// What a walk produced when pulled.
type WalkStep = Pulled<Candidate>;

/// A Data.db header being read for a partition.
#[derive(Debug)]
struct HeaderRead {
    partition: ListedPartition,
    position: u64,
    gives_key: bool,
}

/// The index listing of one SSTable (see the module docs).
#[derive(Debug)]
pub struct IndexListing {
    walk: Walk,
    data: Option<CheckedDataReader>,
    data_error: Option<Error>,
    header: Option<HeaderRead>,
    ready: Option<ListingItem>,
}

impl IndexListing {
    /// The listing of `metadata`'s index (Index.db, or Partitions.db and Rows.db), of the
    /// size the metadata records.
    pub fn for_sstable(
        metadata: &SSTableMetadata,
        options: ListingOptions,
    ) -> core::result::Result<IndexListing, MissingIndex> {
        let component = index_component(metadata);
        let len = metadata
            .size_of(&component)
            .ok_or(MissingIndex(component))?;
        Ok(IndexListing::new(metadata, len, options))
    }

    /// The listing of an index file of `index_len` bytes.
    pub fn new(metadata: &SSTableMetadata, index_len: u64, options: ListingOptions) -> Self {
        let walk = match metadata.descriptor.format {
            Format::Big => Walk::Big(Box::new(BigWalk::new(metadata, index_len, options))),
            Format::Bti => Walk::Bti(Box::new(BtiWalk::new(metadata, index_len, options))),
        };
        let wants_data = options.data_headers
            || (options.keys && options.data_keys && metadata.descriptor.format == Format::Bti);
        let (data, data_error) = if wants_data {
            match CheckedDataReader::for_sstable(metadata, DecodeOptions::default()) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e)),
            }
        } else {
            (None, None)
        };
        IndexListing {
            walk,
            data,
            data_error,
            header: None,
            ready: None,
        }
    }

    /// Big format: the entries from Index.db offset `offset` on (an entry start: a page the
    /// caller listed before), numbered from `number`. BTI listings always start at the first
    /// partition.
    pub fn starting_at(mut self, offset: u64, number: usize) -> Self {
        if let Walk::Big(b) = &mut self.walk {
            b.start_at(offset);
            b.number_from(number);
        }
        self
    }

    /// BTI: the partitions from a byte-comparable bound on (a partition key's form, or a
    /// prefix of one such as a token's): the first one listed is the partition whose unique
    /// prefix the bound passes through — its key may sort before the bound, the trie holding
    /// prefixes only — or else the first after the bound; all later ones sort after it. Numbers
    /// count from 0 there, and the footer's count is not compared. Big listings start where
    /// [`IndexListing::starting_at`] puts them.
    pub fn seeking(mut self, comparable: Vec<u8>) -> Self {
        if let Walk::Bti(b) = &mut self.walk {
            b.seek(comparable);
        }
        self
    }

    /// Why Data.db headers are not read (no reader could be built for Data.db).
    pub fn data_error(&self) -> Option<&Error> {
        self.data_error.as_ref()
    }

    /// BTI: the partition count Partitions.db's footer records (once the footer was read).
    pub fn expected_count(&self) -> Option<u64> {
        match &self.walk {
            Walk::Big(_) => None,
            Walk::Bti(b) => b.expected_count(),
        }
    }

    /// BTI: suspicious values of Partitions.db (the count against the footer's, Data.db
    /// positions out of order), complete once the listing ended.
    pub fn warnings(&self) -> Vec<String> {
        match &self.walk {
            Walk::Big(_) => Vec::new(),
            Walk::Bti(b) => b.warnings(),
        }
    }

    fn walk_next(&mut self) -> Result<WalkStep> {
        match &mut self.walk {
            Walk::Big(b) => b.next(),
            Walk::Bti(b) => b.next(),
        }
    }

    /// Starts the Data.db header read a candidate needs, or settles it at once.
    fn start_header(&mut self, partition: ListedPartition, gives_key: bool) -> Option<ListingItem> {
        let position = partition.position.unwrap_or(0);
        let Some(data) = self.data.as_mut() else {
            return Some(if gives_key {
                ListingItem::Skipped {
                    number: partition.number,
                    message: format!(
                        "entry {}: Data.db {position} not read: the key is unknown",
                        partition.number
                    ),
                }
            } else {
                ListingItem::Partition(Box::new(partition))
            });
        };
        let read = HeaderRead {
            partition,
            position,
            gives_key,
        };
        match data.seek_to_partition(position) {
            Ok(()) => {
                self.header = Some(read);
                None
            }
            Err(e) => Some(read.finish(Err(e))),
        }
    }
}

impl HeaderRead {
    fn finish(self, header: Result<PartitionStart>) -> ListingItem {
        let HeaderRead {
            mut partition,
            position,
            gives_key,
        } = self;
        if gives_key {
            match &header {
                Ok(start) => partition.key = Some(start.key.bytes.bytes.clone()),
                Err(e) => {
                    return ListingItem::Skipped {
                        number: partition.number,
                        message: format!(
                            "entry {}: no partition header at Data.db {position}: {e}",
                            partition.number
                        ),
                    }
                }
            }
        }
        partition.data_header = Some(header);
        ListingItem::Partition(Box::new(partition))
    }
}

impl PullReader for IndexListing {
    type Item = ListingItem;

    fn pull(&mut self) -> Result<Pulled<ListingItem>> {
        loop {
            if let Some(item) = self.ready.take() {
                return Ok(Pulled::Item(item));
            }
            if let Some(read) = &self.header {
                let polled = self
                    .data
                    .as_mut()
                    .and_then(|d| d.poll_partition_start(read.position));
                let Some(header) = polled else {
                    return Ok(Pulled::NeedMoreData);
                };
                if let Some(read) = self.header.take() {
                    return Ok(Pulled::Item(read.finish(header)));
                }
            }
            let candidate = match self.walk_next()? {
                Pulled::Item(c) => c,
                Pulled::NeedMoreData => return Ok(Pulled::NeedMoreData),
                Pulled::End => return Ok(Pulled::End),
            };
            let settled = match candidate {
                Candidate::Ready(item) => Some(item),
                Candidate::CheckHeader(p) => self.start_header(p, false),
                Candidate::KeyFromHeader(p) => self.start_header(p, true),
            };
            if let Some(item) = settled {
                return Ok(Pulled::Item(item));
            }
        }
    }
}

impl RangeReader for IndexListing {
    fn next_read(&self) -> Option<ByteRange> {
        if self.ready.is_some() {
            return None;
        }
        if self.header.is_some() {
            return self.data.as_ref().and_then(RangeReader::next_read);
        }
        match &self.walk {
            Walk::Big(b) => b.next_read(),
            Walk::Bti(b) => b.next_read(),
        }
    }

    /// An error reading a partition's Data.db header is that partition's (the listing goes
    /// on); any other stops the listing.
    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        if self.header.is_some() {
            let supplied = match self.data.as_mut() {
                Some(d) => d.supply(range, bytes, clock),
                None => Ok(()),
            };
            if let Err(e) = supplied {
                self.ready = self.header.take().map(|read| read.finish(Err(e)));
            }
            return Ok(());
        }
        match &mut self.walk {
            Walk::Big(b) => b.supply(range, bytes),
            Walk::Bti(b) => b.supply(range, bytes),
        }
    }

    fn abort(&mut self, range: &ByteRange, error: &Error, _clock: &dyn Clock) {
        if let Some(read) = self.header.take() {
            self.ready = Some(read.finish(Err(error.clone())));
            return;
        }
        match &mut self.walk {
            Walk::Big(b) => b.abort(range, error),
            Walk::Bti(b) => b.abort(range, error),
        }
    }
}

/// The component an SSTable's partitions are listed from.
pub fn index_component(metadata: &SSTableMetadata) -> ComponentType {
    match metadata.descriptor.format {
        Format::Big => ComponentType::PrimaryIndex,
        Format::Bti => ComponentType::Partitions,
    }
}
