//! The two histograms kept in STATS: [`EstimatedHistogram`] (partition sizes, cells per partition)
//! and [`TombstoneHistogram`] (estimated tombstone drop times).
//!
//! | structure | layout |
//! |---|---|
//! | EstimatedHistogram | i32 `n` = bucket count; `n` × (i64 offset, i64 count). Entry 0 and entry 1 both carry `offsets[0]`, entry i ≥ 1 carries `offsets[i−1]`; the last bucket counts values above the last offset (overflow) |
//! | TombstoneHistogram before oa (2.x `StreamingHistogram` too) | i32 maxBinSize, i32 `n`, `n` × (f64 point, i64 count) |
//! | TombstoneHistogram oa, da | i32 maxBinSize, i32 `n`, `n` × (i64 point, i32 count) |
//!
//! Src: `src/java/org/apache/cassandra/utils/EstimatedHistogram.java`,
//! `src/java/org/apache/cassandra/utils/streamhist/TombstoneHistogram.java`,
//! `src/java/org/apache/cassandra/utils/StreamingHistogram.java` (cassandra-2.2).

use serde::Serialize;

use super::{leaf, spanned_leaf};
use crate::component::common::count::read_int_count;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};

/// One bucket of an [`EstimatedHistogram`] as written: the offset stored beside it and its count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistogramBucket {
    /// The offset written with this entry: `offsets[0]` for entries 0 and 1, else `offsets[i−1]`
    /// (the previous bucket's upper bound).
    pub stored_offset: i64,
    pub count: i64,
    pub span: Span,
}

/// Cassandra's `EstimatedHistogram`: counts in buckets whose upper bounds grow by ×1.2.
///
/// Bucket `i` (`i < n−1`) counts values in `(offsets[i−1], offsets[i]]`; the last bucket counts
/// values above the largest offset (overflow).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstimatedHistogram {
    pub span: Span,
    /// `n`, the number of buckets (offsets + 1).
    pub bucket_count: Spanned<i32>,
    pub buckets: Vec<HistogramBucket>,
}

impl EstimatedHistogram {
    /// Reads one serialized histogram (`EstimatedHistogramSerializer.deserialize`).
    pub fn decode(r: &mut Reader<'_>) -> Result<EstimatedHistogram> {
        let start = r.offset();
        let bucket_count = r.spanned(|r| r.i32("EstimatedHistogram: bucket count"))?;
        if bucket_count.value <= 0 {
            return Err(r.invalid_at(
                format!(
                    "bucket count {} (a histogram has at least one bucket)",
                    bucket_count.value
                ),
                bucket_count.span.start,
                "EstimatedHistogram: bucket count",
            ));
        }
        let n = r.check_count(
            u64::from(bucket_count.value.unsigned_abs()),
            16,
            "EstimatedHistogram: buckets",
        )?;
        let mut buckets = Vec::with_capacity(n);
        for _ in 0..n {
            let bucket_start = r.offset();
            let stored_offset = r.i64("EstimatedHistogram: bucket offset")?;
            let count = r.i64("EstimatedHistogram: bucket count")?;
            buckets.push(HistogramBucket {
                stored_offset,
                count,
                span: r.span_from(bucket_start),
            });
        }
        Ok(EstimatedHistogram {
            span: r.span_from(start),
            bucket_count,
            buckets,
        })
    }

    /// The bucket upper bounds (`getBucketOffsets()`), one fewer than the buckets.
    pub fn bucket_offsets(&self) -> Vec<i64> {
        self.buckets
            .iter()
            .skip(1)
            .map(|b| b.stored_offset)
            .collect()
    }

    /// Upper bound of bucket `i`; `None` for the overflow bucket.
    pub fn bucket_offset(&self, i: usize) -> Option<i64> {
        self.buckets.get(i.checked_add(1)?).map(|b| b.stored_offset)
    }

    /// The bucket counts (`getBuckets(false)`).
    pub fn counts(&self) -> Vec<i64> {
        self.buckets.iter().map(|b| b.count).collect()
    }

    /// Sum of all counts, overflow bucket included (`count()`); saturates instead of wrapping.
    pub fn total_count(&self) -> i64 {
        self.buckets
            .iter()
            .fold(0i64, |sum, b| sum.saturating_add(b.count))
    }

    /// The count in the overflow (last) bucket.
    pub fn overflow_count(&self) -> i64 {
        self.buckets.last().map_or(0, |b| b.count)
    }

    /// Whether a value above the largest offset was recorded (`isOverflowed()`).
    pub fn is_overflowed(&self) -> bool {
        self.overflow_count() > 0
    }

    /// The buckets below the overflow bucket, with their upper bounds.
    fn bounded(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        let last = self.buckets.len().saturating_sub(1);
        self.buckets
            .iter()
            .take(last)
            .enumerate()
            .filter_map(|(i, b)| Some((self.bucket_offset(i)?, b.count)))
    }

    /// The smallest value that could have been recorded (`min()`); 0 when empty.
    pub fn min(&self) -> i64 {
        for (i, b) in self.buckets.iter().enumerate() {
            if b.count > 0 {
                return match i.checked_sub(1).and_then(|p| self.bucket_offset(p)) {
                    Some(prev) => prev.saturating_add(1),
                    None => 0,
                };
            }
        }
        0
    }

    /// The largest value that could have been recorded (`max()`); `None` when overflowed.
    pub fn max(&self) -> Option<i64> {
        if self.is_overflowed() {
            return None;
        }
        let mut max = 0;
        for (offset, count) in self.bounded() {
            if count > 0 {
                max = offset;
            }
        }
        Some(max)
    }

    /// Count-weighted mean of the bucket upper bounds, rounded up (`mean()`); `None` when
    /// overflowed (Cassandra refuses then). An empty histogram gives 0, as in Cassandra.
    pub fn mean(&self) -> Option<i64> {
        if self.is_overflowed() {
            return None;
        }
        let mut elements: i128 = 0;
        let mut sum: i128 = 0;
        for (offset, count) in self.bounded() {
            elements = elements.saturating_add(i128::from(count));
            sum = sum.saturating_add(i128::from(count).saturating_mul(i128::from(offset)));
        }
        if elements == 0 {
            return Some(0);
        }
        Some((sum as f64 / elements as f64).ceil() as i64)
    }

    /// The bucket upper bound at percentile `p` in `0.0..=1.0` (`percentile()`); `None` when
    /// overflowed or `p` is out of range.
    pub fn percentile(&self, p: f64) -> Option<i64> {
        if self.is_overflowed() || !(0.0..=1.0).contains(&p) {
            return None;
        }
        let wanted = (self.total_count() as f64 * p).ceil() as i64;
        if wanted <= 0 {
            return Some(0);
        }
        let mut elements: i64 = 0;
        for (offset, count) in self.bounded() {
            elements = elements.saturating_add(count);
            if elements >= wanted {
                return Some(offset);
            }
        }
        Some(0)
    }

    pub fn to_node(&self, label: &str) -> Node {
        let summary = match (self.mean(), self.is_overflowed()) {
            (_, true) => format!(
                "{} buckets, total count {}, overflowed ({} above {})",
                self.buckets.len(),
                self.total_count(),
                self.overflow_count(),
                self.bucket_offsets().last().copied().unwrap_or(0)
            ),
            (Some(mean), false) => format!(
                "{} buckets, total count {}, min {}, mean {}, p50 {}, p95 {}, p99 {}, max {}",
                self.buckets.len(),
                self.total_count(),
                self.min(),
                mean,
                self.percentile(0.5).unwrap_or(0),
                self.percentile(0.95).unwrap_or(0),
                self.percentile(0.99).unwrap_or(0),
                self.max().unwrap_or(0)
            ),
            (None, false) => format!("{} buckets", self.buckets.len()),
        };
        let offsets = self.bucket_offsets();
        let last = self.buckets.len().saturating_sub(1);
        let mut children = vec![spanned_leaf("bucket count", &self.bucket_count)];
        for (i, b) in self.buckets.iter().enumerate() {
            let upper = offsets.get(i);
            let lower = i.checked_sub(1).and_then(|p| offsets.get(p));
            let range = match (i == last, upper, lower) {
                (true, _, _) => match offsets.last() {
                    Some(o) => format!("> {o} (overflow)"),
                    None => "overflow".to_owned(),
                },
                (false, Some(upper), Some(lower)) => format!("({lower}, {upper}]"),
                (false, Some(upper), None) => format!("≤ {upper}"),
                (false, None, _) => String::new(),
            };
            children.push(leaf(
                &format!("bucket {i}"),
                format!(
                    "{range}: count {} (stored offset {})",
                    b.count, b.stored_offset
                ),
                b.span,
            ));
        }
        Node::new(label, summary, Some(self.span)).with_children(children)
    }
}

/// Which bin encoding a [`TombstoneHistogram`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TombstoneHistogramLayout {
    /// Before oa (and 2.x `StreamingHistogram`): f64 point, i64 count.
    Legacy,
    /// oa, da: i64 point, i32 count.
    UnsignedDeletionTime,
}

/// One bin: a local deletion time (seconds) and how many tombstones expire around it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TombstoneBin {
    /// The point in seconds; a legacy f64 point is converted with a saturating cast (NaN → 0).
    pub point_secs: i64,
    pub count: i64,
    pub span: Span,
}

/// `TombstoneHistogram` (2.x: `StreamingHistogram`): estimated tombstone drop times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TombstoneHistogram {
    pub span: Span,
    pub layout: TombstoneHistogramLayout,
    /// Written for compatibility (100 in old writers, the bin count in new ones); ignored on read.
    pub max_bin_size: Spanned<i32>,
    pub bin_count: Spanned<u32>,
    pub bins: Vec<TombstoneBin>,
}

impl TombstoneHistogram {
    pub fn decode(r: &mut Reader<'_>, layout: TombstoneHistogramLayout) -> Result<Self> {
        let start = r.offset();
        let max_bin_size = r.spanned(|r| r.i32("TombstoneHistogram: max bin size"))?;
        let bin_count = read_int_count(r, "TombstoneHistogram: bin count", "bin count")?;
        let n = r.check_count(u64::from(bin_count.value), 12, "TombstoneHistogram: bins")?;
        let mut bins = Vec::with_capacity(n);
        for _ in 0..n {
            let bin_start = r.offset();
            let (point_secs, count) = match layout {
                TombstoneHistogramLayout::Legacy => {
                    let point = r.f64("TombstoneHistogram: bin point")?;
                    (point as i64, r.i64("TombstoneHistogram: bin count")?)
                }
                TombstoneHistogramLayout::UnsignedDeletionTime => {
                    let point = r.i64("TombstoneHistogram: bin point")?;
                    (point, i64::from(r.i32("TombstoneHistogram: bin count")?))
                }
            };
            bins.push(TombstoneBin {
                point_secs,
                count,
                span: r.span_from(bin_start),
            });
        }
        Ok(TombstoneHistogram {
            span: r.span_from(start),
            layout,
            max_bin_size,
            bin_count,
            bins,
        })
    }

    /// Sum of all bin counts.
    pub fn total_count(&self) -> i64 {
        self.bins
            .iter()
            .fold(0i64, |sum, b| sum.saturating_add(b.count))
    }

    pub fn to_node(&self, label: &str) -> Node {
        let layout = match self.layout {
            TombstoneHistogramLayout::Legacy => "f64 point, i64 count",
            TombstoneHistogramLayout::UnsignedDeletionTime => "i64 point, i32 count",
        };
        let mut children = vec![
            spanned_leaf("max bin size (ignored)", &self.max_bin_size),
            spanned_leaf("bin count", &self.bin_count),
        ];
        for (i, b) in self.bins.iter().enumerate() {
            children.push(leaf(
                &format!("bin {i}"),
                format!(
                    "{} ({}): {} tombstones",
                    b.point_secs,
                    super::format_unix_secs(b.point_secs),
                    b.count
                ),
                b.span,
            ));
        }
        Node::new(
            label,
            format!(
                "{} bins ({layout}), {} tombstones",
                self.bins.len(),
                self.total_count()
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serialize(entries: &[(i64, i64)]) -> Vec<u8> {
        let mut out = (entries.len() as i32).to_be_bytes().to_vec();
        for (o, c) in entries {
            out.extend_from_slice(&o.to_be_bytes());
            out.extend_from_slice(&c.to_be_bytes());
        }
        out
    }

    #[test]
    fn estimated_histogram_helpers_match_cassandra() {
        // offsets [1, 2, 3], buckets [0, 2, 1, 0]: two values of 2, one of 3.
        let bytes = serialize(&[(1, 0), (1, 2), (2, 1), (3, 0)]);
        let mut r = Reader::new(&bytes, 100);
        let h = EstimatedHistogram::decode(&mut r).unwrap();
        assert!(r.is_empty());
        assert_eq!(h.span, Span::new(100, 100 + 4 + 64));
        assert_eq!(h.bucket_offsets(), vec![1, 2, 3]);
        assert_eq!(h.total_count(), 3);
        assert_eq!(h.min(), 2);
        assert_eq!(h.max(), Some(3));
        assert_eq!(h.mean(), Some(3)); // ceil(7 / 3)
        assert_eq!(h.percentile(0.5), Some(2));
        assert_eq!(h.percentile(1.0), Some(3));
        assert!(!h.is_overflowed());
    }

    #[test]
    fn overflowed_histogram_has_no_mean() {
        let bytes = serialize(&[(1, 0), (1, 0), (2, 5)]);
        let h = EstimatedHistogram::decode(&mut Reader::new(&bytes, 0)).unwrap();
        assert!(h.is_overflowed());
        assert_eq!(h.mean(), None);
        assert_eq!(h.max(), None);
        assert_eq!(h.total_count(), 5);
    }

    #[test]
    fn absurd_bucket_counts_are_errors() {
        for n in [0i32, -1, i32::MAX] {
            let bytes = n.to_be_bytes();
            assert!(EstimatedHistogram::decode(&mut Reader::new(&bytes, 0)).is_err());
        }
    }

    #[test]
    fn tombstone_histogram_layouts() {
        let mut legacy = vec![0, 0, 0, 100, 0, 0, 0, 1];
        legacy.extend_from_slice(&1_500_000_000f64.to_be_bytes());
        legacy.extend_from_slice(&7i64.to_be_bytes());
        let h = TombstoneHistogram::decode(
            &mut Reader::new(&legacy, 0),
            TombstoneHistogramLayout::Legacy,
        )
        .unwrap();
        assert_eq!(h.bins.len(), 1);
        assert_eq!(
            h.bins.first().map(|b| (b.point_secs, b.count)),
            Some((1_500_000_000, 7))
        );

        let mut new = vec![0, 0, 0, 1, 0, 0, 0, 1];
        new.extend_from_slice(&3_000_000_000i64.to_be_bytes());
        new.extend_from_slice(&9i32.to_be_bytes());
        let h = TombstoneHistogram::decode(
            &mut Reader::new(&new, 0),
            TombstoneHistogramLayout::UnsignedDeletionTime,
        )
        .unwrap();
        assert_eq!(
            h.bins.first().map(|b| (b.point_secs, b.count)),
            Some((3_000_000_000, 9))
        );
        assert_eq!(h.span, Span::new(0, 20));
    }

    #[test]
    fn a_negative_bin_count_is_an_error_at_the_count() {
        let bytes = [0, 0, 0, 100, 0xff, 0xff, 0xff, 0xff];
        let e = TombstoneHistogram::decode(
            &mut Reader::new(&bytes, 0x20),
            TombstoneHistogramLayout::Legacy,
        )
        .unwrap_err();
        assert_eq!(e.offset(), 0x24);
        assert_eq!(
            e.message(),
            "negative bin count -1 (reading TombstoneHistogram: bin count)"
        );
    }
}
