//! A bucketed distribution with Cassandra's EstimatedHistogram offsets (1, 2, 3, …, each about
//! 1.2 × the previous), for percentiles and the size chart without keeping every value.
//!
//! Src: `utils/EstimatedHistogram.java` (`newOffsets`, `percentile`).

/// Buckets: enough for every u64 (the 1.2 growth passes 2^64 before 240).
const BUCKETS: usize = 240;

/// EstimatedHistogram's bucket upper offsets: 1, 2, 3, …, `round(prev × 1.2)` (at least prev + 1).
pub fn bucket_offsets() -> Vec<u64> {
    let mut out = Vec::with_capacity(BUCKETS);
    let mut last = 1u64;
    out.push(last);
    while out.len() < BUCKETS {
        let mut next = ((last as f64) * 1.2).round() as u64;
        if next <= last {
            next = last.saturating_add(1);
        }
        if next >= u64::MAX / 2 {
            out.push(u64::MAX);
            break;
        }
        out.push(next);
        last = next;
    }
    out
}

/// Counts per EstimatedHistogram bucket.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Default, PartialEq, Eq)]
pub struct LogHistogram {
    /// (upper offset, count); built on the first `add`.
    buckets: Vec<(u64, u64)>,
    count: u64,
}

impl LogHistogram {
    pub fn add(&mut self, value: u64) {
        if self.buckets.is_empty() {
            self.buckets = bucket_offsets().into_iter().map(|o| (o, 0)).collect();
        }
        let i = self.buckets.partition_point(|(o, _)| *o < value);
        let last = self.buckets.len().saturating_sub(1);
        if let Some(b) = self.buckets.get_mut(i.min(last)) {
            b.1 = b.1.saturating_add(1);
        }
        self.count = self.count.saturating_add(1);
    }

    /// Adds the counts of `other` (the histogram of another range of the same scan).
    pub fn merge(&mut self, other: &LogHistogram) {
        if other.buckets.is_empty() {
            return;
        }
        if self.buckets.is_empty() {
            self.buckets = other.buckets.iter().map(|&(o, _)| (o, 0)).collect();
        }
        for (b, o) in self.buckets.iter_mut().zip(&other.buckets) {
            b.1 = b.1.saturating_add(o.1);
        }
        self.count = self.count.saturating_add(other.count);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The upper offset of the bucket holding the `p` quantile (`EstimatedHistogram.percentile`);
    /// 0 when empty.
    pub fn percentile(&self, p: f64) -> u64 {
        let wanted = ((self.count as f64) * p).ceil() as u64;
        if wanted == 0 {
            return 0;
        }
        let mut seen = 0u64;
        for (offset, n) in &self.buckets {
            seen = seen.saturating_add(*n);
            if seen >= wanted {
                return *offset;
            }
        }
        self.buckets.last().map(|b| b.0).unwrap_or(0)
    }

    /// `(upper offset, count)` of every non-empty bucket.
    pub fn non_empty(&self) -> Vec<(u64, u64)> {
        self.buckets.iter().copied().filter(|b| b.1 > 0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_start_like_cassandra() {
        let o = bucket_offsets();
        assert_eq!(&o[..12], &[1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17]);
        assert!(o.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn percentiles_pick_the_bucket() {
        let mut h = LogHistogram::default();
        for v in [0, 1, 2, 3, 9, 100] {
            h.add(v);
        }
        assert_eq!(h.percentile(0.5), 2);
        assert_eq!(h.percentile(1.0), 103);
        assert_eq!(
            h.non_empty(),
            vec![(1, 2), (2, 1), (3, 1), (10, 1), (103, 1)]
        );
    }
}
