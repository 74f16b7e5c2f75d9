//! A scan of Data.db split into partition-aligned ranges, for threads (the CLI) or workers (the
//! page) to decode side by side; the engine itself stays threadless.
//!
//! The split points are partition positions the index already gives: Index.db entries, or the
//! Partitions.db trie's Data.db targets (a BTI partition with a row index points at Rows.db and
//! is not a split candidate). Without an index there is one range. [`RangeSplitter`] takes the
//! positions in file order and keeps, for each of `count − 1` evenly spaced targets, the first
//! partition at or after it, so it holds `count` positions whatever the index size.
//!
//! A range `[start, end)` is decoded from its start to the first partition starting at or after
//! `end` ([`DataFileReader::scan_range`](crate::component::data::DataFileReader::scan_range)): a
//! partition straddling `end` belongs to the range it starts in. Results are merged in range
//! order, and [`ScanRange::followed_by`] checks each seam: range `k` must stop exactly where
//! range `k + 1` starts (its start was then a true partition boundary, by induction from 0), and
//! must not have switched to the frozen-UDT reading. A seam that fails (an index whose positions
//! are not partition starts) discards the ranges after it and the rest is decoded as one range
//! from where range `k` stopped, so the merged result is always the sequential one.
//!
//! Src: `io/sstable/format/big/BigTableScanner.java` (a scan of a token range from index
//! positions), `db/compaction/CompactionManager.java` (parallel scans over disjoint ranges).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use std::collections::BTreeMap;

use crate::clock::Clock;
pub use crate::component::data::ScanRange;
use crate::component::ComponentType;
use crate::index_listing::{IndexListing, ListingItem, ListingOptions};
use crate::info::SSTableMetadata;
use crate::range::{Pulled, RangeSource, SyncDriver};

/// Picks split points from partition positions given in file order (see the module docs).
#[derive(Debug, Clone)]
pub struct RangeSplitter {
    data_len_bytes: u64,
    /// Target offsets still to place, ascending.
    targets: Vec<u64>,
    next_target: usize,
    /// Chosen split points, ascending and distinct.
    points: Vec<u64>,
    previous: Option<u64>,
}

impl RangeSplitter {
    /// A splitter of `data_len_bytes` of uncompressed data into at most `count` ranges.
    pub fn new(data_len_bytes: u64, count: usize) -> RangeSplitter {
        let count = count.max(1) as u64;
        let targets = (1..count)
            .map(|k| {
                let t = u128::from(data_len_bytes)
                    .saturating_mul(u128::from(k))
                    .checked_div(u128::from(count))
                    .unwrap_or(0);
                u64::try_from(t).unwrap_or(u64::MAX)
            })
            .filter(|&t| t > 0)
            .collect();
        RangeSplitter {
            data_len_bytes,
            targets,
            next_target: 0,
            points: Vec::new(),
            previous: None,
        }
    }

    /// A partition starts at `position`. Positions out of order (a corrupt index) are ignored.
    pub fn offer(&mut self, position: u64) {
        if self.previous.is_some_and(|p| position <= p) || position >= self.data_len_bytes {
            return;
        }
        self.previous = Some(position);
        let mut placed = false;
        while let Some(&t) = self.targets.get(self.next_target) {
            if position < t {
                break;
            }
            self.next_target = self.next_target.saturating_add(1);
            placed = true;
        }
        if placed && position > 0 {
            self.points.push(position);
        }
    }

    /// Whether every target is placed (the rest of the index need not be read).
    pub fn is_done(&self) -> bool {
        self.next_target >= self.targets.len()
    }

    /// The ranges: from 0, cut at the chosen points, the last to the end of the data.
    pub fn ranges(&self) -> Vec<ScanRange> {
        let mut out = Vec::with_capacity(self.points.len().saturating_add(1));
        let mut start = 0;
        for &p in &self.points {
            out.push(ScanRange { start, end: p });
            start = p;
        }
        out.push(ScanRange {
            start,
            end: self.data_len_bytes,
        });
        out
    }
}

/// The whole data as one range.
pub fn whole_range(metadata: &SSTableMetadata) -> Option<ScanRange> {
    data_len_bytes(metadata).map(|end| ScanRange { start: 0, end })
}

/// Uncompressed length of Data.db: CompressionInfo's data length, or the file's size.
pub fn data_len_bytes(metadata: &SSTableMetadata) -> Option<u64> {
    match &metadata.compression {
        Some(c) => Some(c.data_length_bytes.value),
        None => metadata.size_of(&ComponentType::Data),
    }
}

/// Splits `metadata`'s Data.db into at most `count` partition-aligned ranges, reading the index
/// through `driver` until every split point is placed. Without an index, or when the index
/// cannot be read, the ranges found so far (at least one: the whole data).
pub fn split_ranges<S: RangeSource>(
    metadata: &SSTableMetadata,
    driver: &mut SyncDriver<S>,
    count: usize,
    clock: &dyn Clock,
) -> Vec<ScanRange> {
    let Some(data_len) = data_len_bytes(metadata) else {
        return Vec::new();
    };
    let mut splitter = RangeSplitter::new(data_len, count);
    if let Some(mut listing) = split_listing(metadata).filter(|_| count > 1) {
        while !splitter.is_done() {
            match driver.pull(&mut listing, clock) {
                Ok(Some(item)) => {
                    if let Some(p) = listed_position(item) {
                        splitter.offer(p);
                    }
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
    splitter.ranges()
}

/// The Data.db position of a listed partition, where the index gives it.
pub fn listed_position(item: ListingItem) -> Option<u64> {
    match item {
        ListingItem::Partition(p) => p.position,
        ListingItem::Skipped { .. } => None,
    }
}

/// The index listing a split reads (the page pulls it through its async driver and offers the
/// positions to a [`RangeSplitter`] itself).
pub fn split_listing(metadata: &SSTableMetadata) -> Option<IndexListing> {
    IndexListing::for_sstable(metadata, ListingOptions::index_only()).ok()
}

impl RangeSplitter {
    /// Offers one pulled listing step; `false` once nothing more is wanted.
    pub fn offer_pulled(&mut self, step: Pulled<ListingItem>) -> bool {
        match step {
            Pulled::Item(item) => {
                if let Some(p) = listed_position(item) {
                    self.offer(p);
                }
                !self.is_done()
            }
            Pulled::NeedMoreData => true,
            Pulled::End => false,
        }
    }
}

/// What the ordered merge needs of one range's result.
pub trait RangeEnd {
    /// Uncompressed position the range's scan stopped at.
    fn stopped_at(&self) -> u64;
    /// Whether the scan ended reading bare UDTs as frozen (a seam then does not hold).
    fn frozen_udts(&self) -> bool;
    /// Whether the scan stopped at an error (the sequential scan stops at the same one).
    fn failed(&self) -> bool;
}

/// What follows a range handed over by [`InOrder::pop`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// The next range: the seam held.
    Next,
    /// The seam failed: the ranges after are discarded, and the rest of the data is scanned as
    /// one range from `start` (with `frozen_udts` as the range ended reading).
    Rest { start: u64, frozen_udts: bool },
    /// Nothing: this was the last range, or it failed.
    End,
}

/// Hands the results of a split scan over in file order, whatever order they arrive in, and
/// checks every seam ([`ScanRange::followed_by`]): the one ordered merge the CLI's threads and
/// the page's workers share (see the module docs).
#[derive(Debug)]
pub struct InOrder<T> {
    ranges: Vec<ScanRange>,
    pending: BTreeMap<usize, T>,
    next: usize,
    over: bool,
}

impl<T: RangeEnd> InOrder<T> {
    pub fn new(ranges: Vec<ScanRange>) -> Self {
        InOrder {
            ranges,
            pending: BTreeMap::new(),
            next: 0,
            over: false,
        }
    }

    /// Range `index`'s result has arrived (ignored once the merge is over, or out of range).
    pub fn insert(&mut self, index: usize, result: T) {
        if !self.over && index >= self.next && index < self.ranges.len() {
            self.pending.insert(index, result);
        }
    }

    /// The next range's result in file order, if it has arrived, and what follows it. After
    /// [`After::Rest`] or [`After::End`] it returns `None`.
    pub fn pop(&mut self) -> Option<(T, After)> {
        if self.over {
            return None;
        }
        let result = self.pending.remove(&self.next)?;
        let range = self.ranges.get(self.next).copied();
        self.next = self.next.saturating_add(1);
        let after = match (range, self.ranges.get(self.next)) {
            _ if result.failed() => After::End,
            (Some(r), Some(f)) => {
                if r.followed_by(result.stopped_at(), result.frozen_udts(), f) {
                    After::Next
                } else {
                    After::Rest {
                        start: result.stopped_at(),
                        frozen_udts: result.frozen_udts(),
                    }
                }
            }
            _ => After::End,
        };
        if after != After::Next {
            self.over = true;
            self.pending.clear();
        }
        Some((result, after))
    }

    /// How many ranges were handed over.
    pub fn handed(&self) -> usize {
        self.next
    }

    /// Whether the merge is over (the last range, a failure or a failed seam handed over).
    pub fn is_over(&self) -> bool {
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_the_first_partitions_at_or_after_even_targets() {
        let mut s = RangeSplitter::new(1000, 4);
        for p in [0, 100, 240, 260, 510, 700, 760, 990] {
            s.offer(p);
        }
        assert!(s.is_done());
        assert_eq!(
            s.ranges(),
            vec![
                ScanRange { start: 0, end: 260 },
                ScanRange {
                    start: 260,
                    end: 510
                },
                ScanRange {
                    start: 510,
                    end: 760
                },
                ScanRange {
                    start: 760,
                    end: 1000
                },
            ]
        );
    }

    #[test]
    fn one_large_partition_covering_targets_gives_one_point() {
        let mut s = RangeSplitter::new(1000, 4);
        for p in [0, 900] {
            s.offer(p);
        }
        assert_eq!(
            s.ranges(),
            vec![
                ScanRange { start: 0, end: 900 },
                ScanRange {
                    start: 900,
                    end: 1000
                },
            ]
        );
    }

    #[test]
    fn out_of_order_positions_are_ignored_and_no_index_is_one_range() {
        let mut s = RangeSplitter::new(1000, 2);
        s.offer(600);
        s.offer(550);
        assert_eq!(s.ranges().len(), 2);
        assert_eq!(s.ranges()[0], ScanRange { start: 0, end: 600 });
        let none = RangeSplitter::new(1000, 3);
        assert_eq!(
            none.ranges(),
            vec![ScanRange {
                start: 0,
                end: 1000
            }]
        );
    }

    #[test]
    fn a_seam_holds_only_where_the_range_stopped_at_the_next_start() {
        let a = ScanRange { start: 0, end: 260 };
        let b = ScanRange {
            start: 260,
            end: 510,
        };
        assert!(a.followed_by(260, false, &b));
        assert!(!a.followed_by(300, false, &b));
        assert!(!a.followed_by(260, true, &b));
    }

    struct End(u64, bool, bool);

    impl RangeEnd for End {
        fn stopped_at(&self) -> u64 {
            self.0
        }
        fn frozen_udts(&self) -> bool {
            self.1
        }
        fn failed(&self) -> bool {
            self.2
        }
    }

    fn three() -> Vec<ScanRange> {
        vec![
            ScanRange { start: 0, end: 100 },
            ScanRange {
                start: 100,
                end: 200,
            },
            ScanRange {
                start: 200,
                end: 300,
            },
        ]
    }

    #[test]
    fn results_are_handed_over_in_file_order_whatever_order_they_arrive_in() {
        let mut o = InOrder::new(three());
        o.insert(2, End(300, false, false));
        assert!(o.pop().is_none());
        o.insert(1, End(200, false, false));
        assert!(o.pop().is_none());
        o.insert(0, End(100, false, false));
        assert_eq!(o.pop().map(|(r, a)| (r.0, a)), Some((100, After::Next)));
        assert_eq!(o.pop().map(|(r, a)| (r.0, a)), Some((200, After::Next)));
        assert_eq!(o.pop().map(|(r, a)| (r.0, a)), Some((300, After::End)));
        assert!(o.is_over());
        assert_eq!(o.handed(), 3);
    }

    #[test]
    fn a_failed_seam_asks_for_the_rest_and_a_failure_ends_the_merge() {
        let mut o = InOrder::new(three());
        o.insert(1, End(200, false, false));
        o.insert(0, End(130, false, false));
        assert_eq!(
            o.pop().map(|(r, a)| (r.0, a)),
            Some((
                130,
                After::Rest {
                    start: 130,
                    frozen_udts: false
                }
            ))
        );
        assert!(o.pop().is_none());
        let mut o = InOrder::new(three());
        o.insert(0, End(100, true, false));
        assert_eq!(
            o.pop().map(|(_, a)| a),
            Some(After::Rest {
                start: 100,
                frozen_udts: true
            })
        );
        let mut o = InOrder::new(three());
        o.insert(0, End(40, false, true));
        o.insert(1, End(200, false, false));
        assert_eq!(o.pop().map(|(_, a)| a), Some(After::End));
        assert!(o.pop().is_none());
    }
}
