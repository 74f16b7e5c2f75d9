//! Index.db entry by entry, in bounded windows, through the [`RangeReader`] protocol.
//!
//! [`IndexEntries`] owns one window of Index.db (64 KiB, doubled while a single entry header
//! does not fit, up to 64 MiB) and steps through it with the component's
//! [`crate::component::index::IndexCursor`]; a promoted index past the window is skipped, not
//! read. Every entry moves the position forward, so a walk reads each byte at most twice.
//!
//! Src: `io/sstable/format/big/RowIndexEntry.java` (`Serializer.deserialize`).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::clock::Clock;
use crate::component::index::{IndexEntry, IndexFile, IndexStep};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::range::{ByteRange, RangeReader};
use crate::version::Version;

/// Bytes of Index.db asked for at a time.
pub const INDEX_WINDOW_BYTES: u64 = 64 * 1024;
/// An entry header (key, position, promoted-index header) longer than this is an error.
pub const MAX_INDEX_WINDOW_BYTES: u64 = 64 << 20;

/// What [`IndexEntries::next_entry`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexEntryStep {
    Entry(IndexEntry),
    /// Read [`RangeReader::next_read`] and supply it, then ask again.
    NeedMoreData,
    /// The end of the file (or of the range).
    End,
}

/// The entries of Index.db (or of `[start, end)` of it), read by windows.
#[derive(Debug, Clone)]
pub struct IndexEntries {
    version: Version,
    file_len: u64,
    end: u64,
    next: u64,
    window: Vec<u8>,
    window_start: u64,
    window_bytes: u64,
    need: bool,
    done: bool,
}

impl IndexEntries {
    /// Every entry of an Index.db of `file_len` bytes.
    pub fn new(version: Version, file_len: u64) -> IndexEntries {
        IndexEntries::range(version, file_len, 0, file_len)
    }

    /// The entries starting in `[start, end)` (an entry start, e.g. from Summary.db).
    pub fn range(version: Version, file_len: u64, start: u64, end: u64) -> IndexEntries {
        IndexEntries {
            version,
            file_len,
            end: end.min(file_len),
            next: start,
            window: Vec::new(),
            window_start: start,
            window_bytes: INDEX_WINDOW_BYTES,
            need: true,
            done: false,
        }
    }

    /// Where the next entry starts.
    pub fn offset(&self) -> u64 {
        self.next
    }

    /// The window supplied last (to decode a promoted index that lies inside it).
    pub fn window(&self) -> IndexFile<'_> {
        IndexFile::new(&self.window, self.window_start, self.version)
    }

    /// The next entry, [`IndexEntryStep::NeedMoreData`] or the end. After an error the walk is
    /// finished.
    pub fn next_entry(&mut self) -> Result<IndexEntryStep> {
        if self.done || self.next >= self.end {
            self.done = true;
            return Ok(IndexEntryStep::End);
        }
        if self.need {
            return Ok(IndexEntryStep::NeedMoreData);
        }
        let window_end = self.window_start.saturating_add(self.window.len() as u64);
        let eof = window_end >= self.file_len;
        let file = IndexFile::new(&self.window, self.window_start, self.version);
        let mut cursor = file.cursor_at(self.next, eof);
        let step = cursor.next_step();
        match step {
            Ok(IndexStep::Entry(e)) => {
                if e.span.end <= self.next {
                    self.done = true;
                    return Err(Error::invalid("an index entry of no bytes", self.next)
                        .in_component(ComponentType::PrimaryIndex));
                }
                self.next = e.span.end;
                Ok(IndexEntryStep::Entry(e))
            }
            Ok(IndexStep::NeedMoreBytes { offset }) => {
                if offset < self.next {
                    self.done = true;
                    return Err(Error::invalid(
                        format!("the index walk went back from {} to {offset}", self.next),
                        offset,
                    )
                    .in_component(ComponentType::PrimaryIndex));
                }
                if offset == self.window_start {
                    // Not even one entry header fits in the window.
                    if self.window_bytes >= MAX_INDEX_WINDOW_BYTES {
                        self.done = true;
                        return Err(Error::invalid(
                            format!(
                                "the entry at {offset} is longer than {MAX_INDEX_WINDOW_BYTES} bytes"
                            ),
                            offset,
                        )
                        .context("index entry")
                        .in_component(ComponentType::PrimaryIndex));
                    }
                    self.window_bytes = self.window_bytes.saturating_mul(2);
                } else {
                    self.window_bytes = INDEX_WINDOW_BYTES;
                }
                self.next = offset;
                self.need = true;
                if self.next >= self.end {
                    self.done = true;
                    return Ok(IndexEntryStep::End);
                }
                Ok(IndexEntryStep::NeedMoreData)
            }
            Ok(IndexStep::End) => {
                self.done = true;
                Ok(IndexEntryStep::End)
            }
            Err(e) => {
                self.done = true;
                Err(e.in_component(ComponentType::PrimaryIndex))
            }
        }
    }
}

impl RangeReader for IndexEntries {
    fn next_read(&self) -> Option<ByteRange> {
        (self.need && !self.done && self.next < self.end).then(|| {
            ByteRange::new(
                ComponentType::PrimaryIndex,
                self.next,
                self.window_bytes
                    .min(self.file_len.saturating_sub(self.next)),
            )
        })
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], _clock: &dyn Clock) -> Result<()> {
        if (bytes.len() as u64) < range.len {
            self.done = true;
            return Err(range
                .short_read(bytes.len() as u64)
                .context("Index.db (shorter than its size)"));
        }
        let take = usize::try_from(range.len).unwrap_or(usize::MAX);
        self.window.clear();
        self.window
            .extend_from_slice(bytes.get(..take).unwrap_or(bytes));
        self.window_start = range.offset;
        self.need = false;
        Ok(())
    }

    fn abort(&mut self, _range: &ByteRange, _error: &Error, _clock: &dyn Clock) {
        self.done = true;
    }
}
