//! The Partitions.db trie walked in key order over a few cached pages, for every reader that
//! lists partitions from the trie (the BTI partition finder, the index listing).
//!
//! | read | when |
//! |---|---|
//! | the page holding the root | first |
//! | the page holding the next node | the walk leaves the pages held |
//! | one page more (up to [`MAX_NODE_PAGES`]) | a node or payload runs past the end of its page |
//!
//! The last [`MAX_CACHED_PAGES`] windows are kept (the walk returns to parents on earlier
//! pages), so memory does not grow with the file.
//!
//! Src: `io/sstable/format/bti/PartitionIndex.java` (`IndexPosIterator`), `io/tries/Walker.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::ByteRange;
use crate::component::bti::trie::{TrieBytes, PAGE_SIZE};
use crate::component::bti::walk::{PartitionWalk, WalkEntry, WalkStep};
use crate::component::ComponentType;
use crate::error::{Error, Result};

/// A trie node (with its payload) spread over more pages than this is an error.
pub const MAX_NODE_PAGES: u64 = 16;
/// Partitions.db windows kept (the walk returns to parents on later pages).
pub const MAX_CACHED_PAGES: usize = 4;

/// What [`TriePages::next_step`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum TrieStep {
    Entry(WalkEntry),
    /// Read [`TriePages::next_read`] and supply it.
    NeedMoreData,
    /// Every partition was listed.
    End,
}

/// A [`PartitionWalk`] with the pages it walks over.
#[derive(Debug, Clone)]
pub struct TriePages {
    walk: PartitionWalk,
    /// Partitions.db windows, newest first: (start, bytes, pages).
    pages: Vec<(u64, Vec<u8>, u64)>,
    read: Option<ByteRange>,
}

impl TriePages {
    /// A walk from `root` of a trie that ends at `trie_end` (the footer's first-key position).
    pub fn new(root: u64, trie_end: u64) -> TriePages {
        TriePages {
            walk: PartitionWalk::new(root, trie_end),
            pages: Vec::new(),
            read: Some(page_read(root, 1, trie_end)),
        }
    }

    /// The walk started at a byte-comparable bound ([`PartitionWalk::seek`]).
    pub fn seeking(mut self, comparable: Vec<u8>) -> TriePages {
        self.walk = self.walk.seek(comparable);
        self
    }

    /// The Partitions.db range the walk needs next, if it needs one.
    pub fn next_read(&self) -> Option<ByteRange> {
        self.read.clone()
    }

    /// The bytes of `range` (one [`TriePages::next_read`] gave).
    pub fn supply(&mut self, range: &ByteRange, bytes: &[u8]) {
        let take = usize::try_from(range.len).unwrap_or(usize::MAX);
        let bytes = bytes.get(..take).unwrap_or(bytes);
        self.pages.retain(|(start, _, _)| *start != range.offset);
        let pages = range.len.div_ceil(PAGE_SIZE).max(1);
        self.pages.insert(0, (range.offset, bytes.to_vec(), pages));
        self.pages.truncate(MAX_CACHED_PAGES);
        self.read = None;
    }

    /// The next partition from the pages held, or the read needed to go on. After an error the
    /// walk is finished.
    pub fn next_step(&mut self) -> Result<TrieStep> {
        if self.read.is_some() {
            return Ok(TrieStep::NeedMoreData);
        }
        let windows: Vec<TrieBytes<'_>> = self
            .pages
            .iter()
            .map(|(start, bytes, _)| TrieBytes::partitions(bytes, *start))
            .collect();
        let step = self.walk.next(&windows)?;
        drop(windows);
        match step {
            WalkStep::Entry(entry) => Ok(TrieStep::Entry(entry)),
            WalkStep::End => Ok(TrieStep::End),
            WalkStep::NeedBytes { position, grow } => {
                let pages = if grow {
                    let held = self
                        .pages
                        .iter()
                        .find(|(start, b, _)| {
                            *start <= position && position < start.saturating_add(b.len() as u64)
                        })
                        .map_or(1, |p| p.2);
                    if held >= MAX_NODE_PAGES {
                        return Err(Error::invalid(
                            format!(
                                "the trie node at {position} runs over more than {MAX_NODE_PAGES} pages"
                            ),
                            position,
                        )
                        .context("partition index trie node")
                        .in_component(ComponentType::Partitions));
                    }
                    held.saturating_add(1)
                } else {
                    1
                };
                self.read = Some(page_read(position, pages, self.walk.trie_end()));
                Ok(TrieStep::NeedMoreData)
            }
        }
    }
}

/// `pages` pages of Partitions.db from the page holding `position`, not past `trie_end`.
fn page_read(position: u64, pages: u64, trie_end: u64) -> ByteRange {
    let start = position.saturating_sub(position % PAGE_SIZE);
    let len = pages
        .saturating_mul(PAGE_SIZE)
        .min(trie_end.saturating_sub(start))
        .max(1);
    ByteRange::new(ComponentType::Partitions, start, len)
}
