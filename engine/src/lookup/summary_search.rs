//! The big-format start: Index.db's size, Summary.db's key range and its binary search for the
//! Index.db range to scan (`IndexSummary.binarySearch`).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use core::cmp::Ordering;

use super::{IndexScan, Lookup, Sample, Stage, StopReason, INDEX_READ_BYTES};
use crate::clock::Clock;
use crate::component::summary::{display_key, IndexSummary};
use crate::component::ComponentType;
use crate::info::SSTableMetadata;

impl Lookup {
    pub(super) fn start_big(&mut self, metadata: &SSTableMetadata, clock: &dyn Clock) {
        let Some(file_len) = metadata.size_of(&ComponentType::PrimaryIndex) else {
            self.stop(StopReason::Error {
                component: Some(ComponentType::PrimaryIndex),
                offset: 0,
                message: "the SSTable has no Index.db: the read path is broken".to_owned(),
            });
            return;
        };
        self.index_len = file_len;
        let data_len = metadata.size_of(&ComponentType::Data).unwrap_or(0);
        if file_len == 0 && data_len > 0 {
            // Every partition of Data.db has an Index.db entry: an empty index is a broken
            // path, not evidence that the key is absent.
            self.stop(StopReason::Error {
                component: Some(ComponentType::PrimaryIndex),
                offset: 0,
                message: format!(
                    "Index.db is empty but Data.db holds {data_len} bytes: Index.db is truncated"
                ),
            });
            return;
        }
        let (range_start, range_end, sample) = match &metadata.summary {
            Some(summary) => match self.search_summary(summary, file_len, clock) {
                Some(range) => range,
                None => return,
            },
            None => (0, file_len, None),
        };
        if range_start >= range_end {
            // Nothing to scan (an empty Index.db, or a sample at its end).
            self.stop(StopReason::IndexMiss {
                scanned_entries: 0,
                range_start,
                range_end,
                passed_key: false,
            });
            return;
        }
        self.stage = Stage::IndexScan(IndexScan {
            range_start,
            range_end,
            file_len,
            next_offset: range_start,
            window_bytes: INDEX_READ_BYTES,
            scanned: 0,
            sample,
        });
    }

    /// Key range check and binary search (`IndexSummary.binarySearch`): the Index.db range to
    /// scan and the sample it starts at (key, Summary.db offset), or `None` when the lookup
    /// stopped.
    pub(super) fn search_summary(
        &mut self,
        summary: &IndexSummary,
        index_len: u64,
        clock: &dyn Clock,
    ) -> Option<(u64, u64, Option<Sample>)> {
        let p = &self.partitioner;
        let key = self.key.as_slice();
        let outside = if p.compare_keys(key, &summary.first_key.value) == Ordering::Less {
            Some("before the first key")
        } else if p.compare_keys(key, &summary.last_key.value) == Ordering::Greater {
            Some("after the last key")
        } else {
            None
        };
        let entries = &summary.entries;
        let mut lo = 0usize;
        let mut hi = entries.len();
        let mut compared = 0usize;
        let mut touched = 0u64;
        let mut span: Option<(u64, u64)> = None;
        // The greatest sampled key ≤ the key: entries[lo - 1] after the loop.
        if outside.is_none() {
            while lo < hi {
                let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
                let Some(e) = entries.get(mid) else { break };
                compared = compared.saturating_add(1);
                touched = touched.saturating_add(e.span().len_bytes());
                let s = e.span();
                span = Some(span.map_or((s.start, s.end), |(a, b)| (a.min(s.start), b.max(s.end))));
                if p.compare_keys(&e.key.value, key) == Ordering::Greater {
                    hi = mid;
                } else {
                    lo = mid.saturating_add(1);
                }
            }
        }
        let (offset, length) = span.map_or_else(
            || {
                let s = summary.first_key.span;
                (s.start, s.len_bytes())
            },
            |(a, b)| (a, b.saturating_sub(a)),
        );
        if let Some(side) = outside {
            // Confirmed by the edge range of Index.db (its first or its last sample's range):
            // a key found there means Summary.db's key range is corrupt.
            let (start, end) = if side == "before the first key" {
                let end = entries
                    .iter()
                    .map(|e| e.index_position.value)
                    .find(|&pos| pos > 0)
                    .unwrap_or(index_len);
                (0, end)
            } else {
                let start = entries.last().map_or(0, |e| e.index_position.value);
                (start, index_len)
            };
            let (start, end) = (start.min(index_len), end.min(index_len));
            self.push_step(
                ComponentType::Summary,
                offset,
                length,
                summary
                    .first_key
                    .span
                    .len_bytes()
                    .saturating_add(summary.last_key.span.len_bytes()),
                format!(
                    "key range {} … {}: the key sorts {side}; Index.db [{start}, {end}) to confirm",
                    display_key(&summary.first_key.value),
                    display_key(&summary.last_key.value)
                ),
                clock,
            );
            self.outside = Some(side);
            return Some((start.min(end), end, None));
        }
        let sampled = lo.checked_sub(1);
        let start = sampled
            .and_then(|j| entries.get(j))
            .map_or(0, |e| e.index_position.value);
        let next = entries
            .iter()
            .skip(sampled.map_or(0, |j| j.saturating_add(1)))
            .map(|e| e.index_position.value)
            .find(|&pos| pos > start);
        if let Some(past) = [Some(start), next]
            .into_iter()
            .flatten()
            // Every sample is the start of an Index.db entry: none can be at or past its end.
            .find(|&pos| pos >= index_len)
        {
            self.push_step(
                ComponentType::Summary,
                offset,
                length,
                touched,
                format!("a sample points at Index.db {past}, past its end ({index_len} bytes)"),
                clock,
            );
            self.stop(StopReason::Error {
                component: Some(ComponentType::PrimaryIndex),
                offset: index_len,
                message: format!(
                    "Summary.db points at Index.db {past}, but Index.db has {index_len} bytes: \
                     Index.db is truncated or Summary.db is corrupt"
                ),
            });
            return None;
        }
        self.before_last_key = true;
        let end = next.unwrap_or(index_len).min(index_len);
        let note = match sampled.and_then(|j| entries.get(j).map(|e| (j, e))) {
            Some((j, e)) => format!(
                "{compared} comparisons over {} samples: sample {j} ({}) → Index.db [{start}, {end})",
                entries.len(),
                display_key(&e.key.value)
            ),
            None => format!(
                "{compared} comparisons over {} samples: the key sorts before every sample → \
                 Index.db [0, {end})",
                entries.len()
            ),
        };
        self.push_step(ComponentType::Summary, offset, length, touched, note, clock);
        let sample = sampled
            .and_then(|j| entries.get(j))
            .map(|e| (e.key.value.clone(), e.span().start));
        Some((start.min(end), end, sample))
    }
}
