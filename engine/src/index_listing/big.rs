//! The big format's step of the listing: Index.db entries in windows, and each entry's
//! promoted-index (`IndexInfo`) blocks — decoded from the window when it holds them, else read
//! on their own.
//!
//! Src: `io/sstable/format/big/RowIndexEntry.java`, `io/sstable/IndexInfo.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::{Candidate, ListedBlocks, ListedPartition, ListingItem, ListingOptions, WalkStep};
use crate::component::index::{clustering_value_lengths, IndexEntry, IndexFile, IndexInfo};
use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, IndexEntries, PullReader, Pulled, RangeReader};
use crate::span::Span;
use crate::version::Version;

/// Index.db walked entry by entry.
#[derive(Debug)]
pub(super) struct BigWalk {
    version: Version,
    index_len: u64,
    entries: IndexEntries,
    options: ListingOptions,
    /// The clustering value lengths of the `IndexInfo` names.
    lengths: Vec<Option<u32>>,
    number: usize,
    /// A partition waiting for its promoted index, read on its own.
    promoted: Option<(ListedPartition, IndexEntry, Span)>,
    ready: Option<Candidate>,
}

impl BigWalk {
    pub(super) fn new(metadata: &SSTableMetadata, index_len: u64, options: ListingOptions) -> Self {
        let version = metadata.descriptor.version;
        BigWalk {
            version,
            index_len,
            entries: IndexEntries::new(version, index_len),
            options,
            lengths: clustering_value_lengths(&metadata.clustering_types()),
            number: 0,
            promoted: None,
            ready: None,
        }
    }

    /// Lists from the entry at `offset` on.
    pub(super) fn start_at(&mut self, offset: u64) {
        self.entries = IndexEntries::range(self.version, self.index_len, offset, self.index_len);
    }

    /// Numbers the partitions listed next from `number` on (a page that starts mid-file).
    pub(super) fn number_from(&mut self, number: usize) {
        self.number = number;
    }

    pub(super) fn next(&mut self) -> Result<WalkStep> {
        if let Some(c) = self.ready.take() {
            return Ok(Pulled::Item(c));
        }
        if self.promoted.is_some() {
            return Ok(Pulled::NeedMoreData);
        }
        let e = match self.entries.pull()? {
            Pulled::Item(e) => e,
            Pulled::NeedMoreData => return Ok(Pulled::NeedMoreData),
            Pulled::End => return Ok(Pulled::End),
        };
        let mut p = ListedPartition::new(self.number);
        self.number = self.number.saturating_add(1);
        p.key = Some(e.key.value.clone());
        p.position = Some(e.position.value);
        p.block_count = e.block_count;
        p.index_offset = Some(e.span.start);
        p.promoted_span = e.promoted_span;
        if self.options.blocks {
            match e.promoted_span {
                None => p.blocks = Some(Ok(ListedBlocks::Index(Vec::new()))),
                Some(span) if span.len_bytes() > self.options.max_promoted_bytes => {
                    p.blocks = Some(Err(Error::invalid(
                        format!(
                            "the promoted index is {} bytes, over the {}-byte limit",
                            span.len_bytes(),
                            self.options.max_promoted_bytes
                        ),
                        span.start,
                    )
                    .in_component(ComponentType::PrimaryIndex)));
                }
                Some(span) => {
                    let window = self.entries.window();
                    let held = window.window();
                    if held.start <= span.start && span.end <= held.end {
                        p.blocks = Some(self.blocks(&window, &e));
                    } else {
                        self.promoted = Some((p, e, span));
                        return Ok(Pulled::NeedMoreData);
                    }
                }
            }
        }
        Ok(Pulled::Item(self.candidate(p)))
    }

    fn candidate(&self, p: ListedPartition) -> Candidate {
        if self.options.data_headers {
            Candidate::CheckHeader(p)
        } else {
            Candidate::Ready(ListingItem::Partition(Box::new(p)))
        }
    }

    /// The `IndexInfo` blocks of `e`'s promoted index, from `file` (which holds it).
    fn blocks(&self, file: &IndexFile<'_>, e: &IndexEntry) -> Result<ListedBlocks> {
        let Some(promoted) = file.promoted_index(e)? else {
            return Ok(ListedBlocks::Index(Vec::new()));
        };
        let count = promoted.block_count.value.min(self.options.max_blocks);
        let blocks: Result<Vec<IndexInfo>> = (0..count)
            .map(|j| file.block(&promoted, j, &self.lengths))
            .collect();
        blocks.map(ListedBlocks::Index)
    }

    pub(super) fn next_read(&self) -> Option<ByteRange> {
        if self.ready.is_some() {
            return None;
        }
        match &self.promoted {
            Some((_, _, span)) => Some(ByteRange::new(
                ComponentType::PrimaryIndex,
                span.start,
                span.len_bytes(),
            )),
            None => self.entries.next_read(),
        }
    }

    pub(super) fn supply(&mut self, range: &ByteRange, bytes: &[u8]) -> Result<()> {
        let Some((mut p, e, span)) = self.promoted.take() else {
            return self.entries.supply(range, bytes, &crate::clock::NoClock);
        };
        let blocks = if (bytes.len() as u64) < range.len {
            // As a read of the span past the file's end reports it.
            Err(Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: span.start,
                    wanted_end: span.end,
                },
                span.start,
            )
            .in_component(ComponentType::PrimaryIndex))
        } else {
            let file = IndexFile::new(bytes, span.start, self.version);
            self.blocks(&file, &e)
        };
        p.blocks = Some(blocks);
        self.ready = Some(self.candidate(p));
        Ok(())
    }

    pub(super) fn abort(&mut self, range: &ByteRange, error: &Error) {
        match self.promoted.take() {
            Some((mut p, _, _)) => {
                p.blocks = Some(Err(error.clone()));
                self.ready = Some(self.candidate(p));
            }
            None => self.entries.abort(range, error, &crate::clock::NoClock),
        }
    }
}
