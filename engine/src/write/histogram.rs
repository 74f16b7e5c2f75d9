//! The two STATS histograms, built as Cassandra builds them.
//!
//! | histogram | rule | Src |
//! |---|---|---|
//! | [`EstimatedHistogram`] | offsets 1, 2, 3, …, each `round(prev × 1.2)` (+1 if equal); a value counts in the first bucket whose offset is ≥ it, the last bucket is overflow; serialized as i32 n + n × (i64 previous offset, i64 count) | `utils/EstimatedHistogram.java` |
//! | [`TombstoneHistogramBuilder`] | Ben-Haim & Tom-Tov streaming histogram of local deletion times rounded up to 60 s, ≤ 100 bins, fed through a 2^17-slot spool; closest bins merged into their weighted mean | `utils/streamhist/StreamingTombstoneHistogramBuilder.java`, `TombstoneHistogram.java` |
//!
//! Bucket counts: partition sizes 150 offsets (nb, `EstimatedHistogram(150)`) or 155 (oa), cells
//! per partition 118 (`MetadataCollector.defaultCellPerPartitionCountHistogram`).

use super::bytes::Out;

/// `EstimatedHistogram`.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimatedHistogram {
    offsets: Vec<i64>,
    counts: Vec<i64>,
}

impl EstimatedHistogram {
    /// A histogram with `bucket_offsets` offsets (and one more bucket for overflow).
    pub fn new(bucket_offsets: usize) -> Self {
        let mut offsets = Vec::with_capacity(bucket_offsets);
        let mut last: i64 = 1;
        if bucket_offsets > 0 {
            offsets.push(last);
        }
        while offsets.len() < bucket_offsets {
            // Java Math.round(double): floor(x + 0.5).
            let mut next = (last as f64 * 1.2 + 0.5).floor() as i64;
            if next == last {
                next = next.saturating_add(1);
            }
            offsets.push(next);
            last = next;
        }
        let counts = vec![0; bucket_offsets.saturating_add(1)];
        EstimatedHistogram { offsets, counts }
    }

    pub fn add(&mut self, value: i64) {
        let index = self.offsets.partition_point(|&o| o < value);
        if let Some(c) = self.counts.get_mut(index) {
            *c = c.saturating_add(1);
        }
    }

    pub fn counts(&self) -> &[i64] {
        &self.counts
    }

    pub fn offsets(&self) -> &[i64] {
        &self.offsets
    }

    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.i32(self.counts.len() as i32);
        for (i, count) in self.counts.iter().enumerate() {
            let offset = self.offsets.get(i.saturating_sub(1)).copied().unwrap_or(0);
            out.i64(offset);
            out.i64(*count);
        }
    }
}

/// `SSTable.TOMBSTONE_HISTOGRAM_BIN_SIZE`.
pub const TOMBSTONE_HISTOGRAM_BIN_SIZE: usize = 100;
/// `SSTable.TOMBSTONE_HISTOGRAM_SPOOL_SIZE` (rounded up to a power of two by the builder).
pub const TOMBSTONE_HISTOGRAM_SPOOL_SIZE: usize = 100_000;
/// `SSTable.TOMBSTONE_HISTOGRAM_TTL_ROUND_SECONDS`.
pub const TOMBSTONE_HISTOGRAM_ROUND_SECONDS: i64 = 60;

/// The point of a free spool slot (no rounded deletion time reaches it).
const EMPTY_SLOT: u32 = u32::MAX;

/// `StreamingTombstoneHistogramBuilder` with Cassandra's default sizes.
#[derive(Debug, Clone)]
pub struct TombstoneHistogramBuilder {
    /// Sorted (point, count) bins; at most `max_bins` after every flush.
    bins: Vec<(i64, i64)>,
    /// Sorted (distance, left point) pairs between neighbouring bins.
    distances: Vec<(i64, i64)>,
    max_bins: usize,
    /// Open-addressing spool of (point, count), [`EMPTY_SLOT`] points mark free slots;
    /// allocated on first use (2 MiB, like Cassandra's `int[]`).
    spool: Vec<(u32, u32)>,
    spool_capacity: usize,
    spool_size: usize,
    max_point: i64,
}

impl TombstoneHistogramBuilder {
    /// `max_point` = `Cell.MAX_DELETION_TIME` of the version (rounding never goes above it).
    pub fn new(max_point: i64) -> Self {
        TombstoneHistogramBuilder {
            bins: Vec::new(),
            distances: Vec::new(),
            max_bins: TOMBSTONE_HISTOGRAM_BIN_SIZE,
            spool: Vec::new(),
            spool_capacity: TOMBSTONE_HISTOGRAM_SPOOL_SIZE.next_power_of_two(),
            spool_size: 0,
            max_point,
        }
    }

    fn round(&self, point: i64) -> i64 {
        let d = point.rem_euclid(TOMBSTONE_HISTOGRAM_ROUND_SECONDS);
        if d == 0 {
            return point;
        }
        // Java long arithmetic; 0 < d < round, so this moves up to the next multiple.
        let up = point
            .wrapping_add(TOMBSTONE_HISTOGRAM_ROUND_SECONDS)
            .wrapping_sub(d);
        up.min(self.max_point)
    }

    /// Bytes held by the spool and bins.
    pub fn memory_bytes(&self) -> usize {
        let pairs = self
            .bins
            .capacity()
            .saturating_add(self.distances.capacity());
        self.spool
            .capacity()
            .saturating_mul(8)
            .saturating_add(pairs.saturating_mul(16))
    }

    /// `update(p)`: one tombstone (or expiring value) at local deletion time `point`.
    pub fn update(&mut self, point: i64) {
        let p = self.round(point);
        if self.spool.is_empty() {
            self.spool = vec![(EMPTY_SLOT, 0); self.spool_capacity.saturating_mul(2)];
        }
        if !self.spool_add(p, 1) {
            self.flush();
            // After a flush the spool is empty: this cannot fail.
            let _ = self.spool_add(p, 1);
        }
    }

    fn spool_hash(point: i64) -> i64 {
        // Java: (int) (i * 948701839L) on an int point.
        i64::from((point as i32 as i64).wrapping_mul(948_701_839) as i32)
    }

    fn spool_add(&mut self, point: i64, delta: u32) -> bool {
        if self.spool_size > self.spool_capacity {
            return false;
        }
        let Ok(point32) = u32::try_from(point) else {
            // Outside the spool's range: straight into the bins.
            self.flush_value(point, i64::from(delta));
            return true;
        };
        let len = self.spool.len();
        // Java int arithmetic on the spool's power-of-two capacity.
        let start =
            ((self.spool_capacity as i64).wrapping_sub(1) & Self::spool_hash(point)) as usize;
        for attempt in 0..100 {
            let Some(slot) = start.wrapping_add(attempt).checked_rem(len) else {
                return false;
            };
            match self.spool.get_mut(slot) {
                Some(s) if s.0 == EMPTY_SLOT => {
                    *s = (point32, delta);
                    self.spool_size = self.spool_size.saturating_add(1);
                    return true;
                }
                Some((p, c)) if *p == point32 => {
                    *c = c.wrapping_add(delta);
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// `flushHistogram`: drains the spool into the bins in slot order.
    fn flush(&mut self) {
        let mut drained = Vec::with_capacity(self.spool_size);
        for slot in self.spool.iter_mut() {
            if slot.0 != EMPTY_SLOT {
                drained.push(*slot);
                *slot = (EMPTY_SLOT, 0);
            }
        }
        self.spool_size = 0;
        for (p, c) in drained {
            self.flush_value(i64::from(p), i64::from(c));
        }
    }

    fn add_distance(&mut self, left: i64, right: i64) {
        // Java long subtraction.
        let key = (right.wrapping_sub(left), left);
        let at = self.distances.partition_point(|d| *d < key);
        self.distances.insert(at, key);
    }

    fn remove_distance(&mut self, left: i64, right: i64) {
        let key = (right.wrapping_sub(left), left);
        if let Ok(at) = self.distances.binary_search(&key) {
            self.distances.remove(at);
        }
    }

    fn flush_value(&mut self, point: i64, count: i64) {
        match self.bins.binary_search_by_key(&point, |b| b.0) {
            Ok(i) => {
                if let Some(b) = self.bins.get_mut(i) {
                    b.1 = b.1.wrapping_add(count); // Java long addition
                }
            }
            Err(i) => {
                let prev = i.checked_sub(1).and_then(|j| self.bins.get(j)).map(|b| b.0);
                let next = self.bins.get(i).map(|b| b.0);
                self.bins.insert(i, (point, count));
                if let (Some(p), Some(n)) = (prev, next) {
                    self.remove_distance(p, n);
                }
                if let Some(p) = prev {
                    self.add_distance(p, point);
                }
                if let Some(n) = next {
                    self.add_distance(point, n);
                }
            }
        }
        if self.bins.len() > self.max_bins {
            self.merge_closest();
        }
    }

    fn merge_closest(&mut self) {
        if self.distances.is_empty() {
            return;
        }
        let (distance, p1) = self.distances.remove(0);
        let p2 = p1.wrapping_add(distance); // Java long addition
        let Ok(i) = self.bins.binary_search_by_key(&p1, |b| b.0) else {
            return;
        };
        let (Some(&(_, v1)), Some(&(_, v2))) =
            (self.bins.get(i), self.bins.get(i.saturating_add(1)))
        else {
            return;
        };
        let prev = i.checked_sub(1).and_then(|j| self.bins.get(j)).map(|b| b.0);
        let next = self.bins.get(i.saturating_add(2)).map(|b| b.0);
        let sum = v1.wrapping_add(v2); // Java long addition
                                       // The weighted mean, computed wide (Java's long arithmetic cannot overflow for int counts).
                                       // Two i64 × i64 products and their sum always fit in an i128.
        let weighted = i128::from(p1)
            .wrapping_mul(i128::from(v1))
            .wrapping_add(i128::from(p2).wrapping_mul(i128::from(v2)));
        let mean = weighted.checked_div(i128::from(sum.max(1))).unwrap_or(0);
        let merged = self.round(i64::try_from(mean).unwrap_or(self.max_point));
        self.bins.remove(i.saturating_add(1));
        if let Some(b) = self.bins.get_mut(i) {
            *b = (merged, sum);
        }
        if let Some(n) = next {
            self.remove_distance(p2, n);
            self.add_distance(merged, n);
        }
        if let Some(p) = prev {
            self.remove_distance(p, p1);
            self.add_distance(p, merged);
        }
    }

    /// `build()`: the bins after draining the spool.
    pub fn build(&mut self) -> Vec<(i64, i64)> {
        self.flush();
        self.bins.clone()
    }
}

/// Serializes tombstone bins: nb `(maxBinSize, n, n × (f64, i64))`, oa `(maxBinSize, n,
/// n × (i64, i32))`; `maxBinSize` is written as `n`.
pub fn serialize_tombstone_histogram(out: &mut Vec<u8>, bins: &[(i64, i64)], unsigned: bool) {
    out.i32(bins.len() as i32);
    out.i32(bins.len() as i32);
    for (point, count) in bins {
        if unsigned {
            out.i64(*point);
            out.i32((*count).min(i64::from(i32::MAX)) as i32);
        } else {
            out.f64(*point as f64);
            out.i64(*count);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimated_histogram_offsets_follow_cassandra() {
        let h = EstimatedHistogram::new(150);
        assert_eq!(
            &h.offsets()[..16],
            &[1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17, 20, 24, 29, 35]
        );
        assert_eq!(h.counts().len(), 151);
        let mut h = EstimatedHistogram::new(4);
        for v in [0, 1, 2, 3, 4, 5, 100] {
            h.add(v);
        }
        assert_eq!(h.counts(), &[2, 1, 1, 1, 2]);
    }

    #[test]
    fn tombstone_bins_round_up_and_merge() {
        let mut b = TombstoneHistogramBuilder::new(i64::from(i32::MAX) - 1);
        b.update(61);
        b.update(119);
        b.update(120);
        b.update(0);
        assert_eq!(b.build(), vec![(0, 1), (120, 3)]);
        let mut b = TombstoneHistogramBuilder::new(i64::from(i32::MAX) - 1);
        for i in 0..150 {
            b.update(i * 600);
        }
        let bins = b.build();
        assert_eq!(bins.len(), 100);
        assert_eq!(bins.iter().map(|b| b.1).sum::<i64>(), 150);
        assert!(bins.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
