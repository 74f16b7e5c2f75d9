//! Which partitions a set of uncompressed Data.db ranges overlap, from Index.db read by windows.
//!
//! A verification failure names the partitions whose bytes a failing chunk holds. Index.db lists
//! every partition with its start in the uncompressed Data.db, in order, so partition `i` is
//! `[position_i, position_{i+1})` and the last one ends at the data length. [`PartitionFinder`]
//! walks the entries with [`IndexEntries`] only when there is something to name, keeps only the
//! partitions that overlap a wanted range, and stops at the first entry past the last range.
//!
//! Src: `io/sstable/format/big/BigTableScanner.java` (partition bounds from consecutive index
//! entries), `db/compaction/Verifier.java` (which partition a bad chunk belongs to).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::clock::Clock;
use crate::component::summary::display_key;
use crate::error::{Error, Result};
use crate::range::{ByteRange, IndexEntries, IndexEntryStep, RangeReader};
use crate::types::value::{format_value, split_composite_key};
use crate::types::AbstractType;
use crate::version::Version;

/// At most this many partitions are kept per wanted range.
pub const MAX_PARTITIONS_PER_RANGE: usize = 100;

/// A partition's bytes in the *uncompressed* Data.db stream, `[start, end)`, with its key as a
/// report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionRange {
    pub key: String,
    pub start: u64,
    pub end: u64,
}

/// The partitions overlapping some uncompressed Data.db ranges (see the module docs).
#[derive(Debug, Clone)]
pub struct PartitionFinder {
    entries: IndexEntries,
    key_type: Option<AbstractType>,
    data_len: u64,
    /// Wanted `[start, end)` ranges, sorted.
    wanted: Vec<(u64, u64)>,
    /// Per wanted range, the partitions found.
    found: Vec<Vec<PartitionRange>>,
    /// The previous entry: key and position (its end is the next entry's position).
    previous: Option<(Vec<u8>, u64)>,
    done: bool,
}

/// A partition key as reports show it: each column as cqlsh prints it, `:`-joined; without a
/// key type, printable text or hex.
pub fn render_key(key_type: Option<&AbstractType>, key: &[u8]) -> String {
    match key_type {
        Some(t) => match split_composite_key(t, key) {
            Ok(parts) if parts.len() > 1 => parts
                .into_iter()
                .map(|c| c.value.text)
                .collect::<Vec<_>>()
                .join(":"),
            _ => format_value(t, key).text,
        },
        None => display_key(key),
    }
}

/// The indexes of the `wanted` ranges that partition `[start, end)` overlaps (a partition of
/// no bytes counts as one byte, so it is named where it starts).
pub(crate) fn overlapping(
    wanted: &[(u64, u64)],
    start: u64,
    end: u64,
) -> impl Iterator<Item = usize> + '_ {
    let end = end.max(start.saturating_add(1));
    wanted
        .iter()
        .enumerate()
        .filter(move |(_, &(ws, we))| start < we && ws < end)
        .map(|(i, _)| i)
}

impl PartitionFinder {
    /// `ranges`: uncompressed `[start, end)` byte ranges; `index_len`: Index.db's size;
    /// `data_len`: the uncompressed data length.
    pub fn new(
        version: Version,
        index_len: u64,
        data_len: u64,
        key_type: Option<AbstractType>,
        ranges: &[(u64, u64)],
    ) -> PartitionFinder {
        let mut wanted: Vec<(u64, u64)> = ranges.iter().copied().filter(|(s, e)| s < e).collect();
        crate::sort::sort(&mut wanted);
        wanted.dedup();
        PartitionFinder {
            entries: IndexEntries::new(version, index_len),
            key_type,
            data_len,
            found: vec![Vec::new(); wanted.len()],
            done: wanted.is_empty(),
            wanted,
            previous: None,
        }
    }

    /// The partitions overlapping `[start, end)`, one of the ranges given to [`PartitionFinder::new`].
    pub fn partitions(&self, start: u64, end: u64) -> &[PartitionRange] {
        self.wanted
            .iter()
            .position(|&w| w == (start, end))
            .and_then(|i| self.found.get(i))
            .map_or(&[], Vec::as_slice)
    }

    /// Every range given, with the partitions it overlaps.
    pub fn results(&self) -> impl Iterator<Item = ((u64, u64), &[PartitionRange])> {
        self.wanted
            .iter()
            .copied()
            .zip(self.found.iter().map(Vec::as_slice))
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Closes the partition that started at the previous entry: it ends at `end`.
    fn close_previous(&mut self, end: u64) {
        let Some((key, start)) = self.previous.take() else {
            return;
        };
        let end = end.max(start);
        let mut rendered: Option<String> = None;
        for i in overlapping(&self.wanted, start, end) {
            let Some(list) = self.found.get_mut(i) else {
                continue;
            };
            if list.len() < MAX_PARTITIONS_PER_RANGE {
                let key = rendered
                    .get_or_insert_with(|| render_key(self.key_type.as_ref(), &key))
                    .clone();
                list.push(PartitionRange { key, start, end });
            }
        }
    }

    /// Consumes the entries of the window supplied last.
    fn advance(&mut self) -> Result<()> {
        let last_end = self.wanted.iter().map(|w| w.1).max().unwrap_or(0);
        loop {
            match self.entries.next_entry()? {
                IndexEntryStep::Entry(e) => {
                    let position = e.position.value;
                    self.close_previous(position);
                    if position >= last_end {
                        self.done = true;
                        return Ok(());
                    }
                    self.previous = Some((e.key.value, position));
                }
                IndexEntryStep::NeedMoreData => return Ok(()),
                IndexEntryStep::End => {
                    self.close_previous(self.data_len);
                    self.done = true;
                    return Ok(());
                }
            }
        }
    }
}

impl RangeReader for PartitionFinder {
    fn next_read(&self) -> Option<ByteRange> {
        if self.done {
            return None;
        }
        self.entries.next_read()
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        let result = self
            .entries
            .supply(range, bytes, clock)
            .and_then(|()| self.advance());
        if result.is_err() {
            self.done = true;
        }
        result
    }

    fn abort(&mut self, _range: &ByteRange, _error: &Error, _clock: &dyn Clock) {
        self.done = true;
    }
}
