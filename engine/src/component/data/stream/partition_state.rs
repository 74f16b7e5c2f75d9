//! What [`DataDecoder`](super::DataDecoder) remembers about the partition it is in: the
//! previous unfiltered's position (for each row's previous-size check), the previous row's
//! clustering (for the duplicate-clustering check) and the counts its end reports.
//!
//! Src: `db/rows/UnfilteredSerializer.java` (`previousUnfilteredSize`),
//! `db/compaction/Scrubber.java` (duplicate rows).

use super::super::clustering::ClusteringView;
use super::super::partition::PartitionEnd;
use super::super::row::END_OF_PARTITION;
use super::super::{Finding, FindingKind};
use crate::span::{Span, Spanned};

/// What the decoder remembers about the current partition.
#[derive(Debug, Clone, Default)]
pub(super) struct PartitionState {
    pub(super) start: u64,
    pub(super) previous_unfiltered_start: Option<u64>,
    /// The encoded clustering of the previous row (valid when `has_last_clustering`): up to
    /// 16 bytes as a [`ClusteringKey`] (no `memcmp`/`memcpy` call per row), longer ones in a
    /// reused buffer. Equal encodings are equal clusterings.
    last_key: ClusteringKey,
    last_clustering: Vec<u8>,
    has_last_clustering: bool,
    row_count: u64,
    pub(super) marker_count: u64,
    has_static_row: bool,
}

impl PartitionState {
    /// A new partition at `start`, keeping the buffer.
    pub(super) fn reset(&mut self, start: u64) {
        self.start = start;
        self.previous_unfiltered_start = None;
        self.last_key = ClusteringKey::default();
        self.last_clustering.clear();
        self.has_last_clustering = false;
        self.row_count = 0;
        self.marker_count = 0;
        self.has_static_row = false;
    }

    #[inline(always)]
    pub(super) fn check_previous_size(
        &self,
        position: u64,
        stored: &Spanned<u64>,
        is_static: bool,
        findings: &mut Vec<Finding>,
    ) {
        let expected = if is_static {
            0
        } else {
            position.saturating_sub(self.previous_unfiltered_start.unwrap_or(self.start))
        };
        if stored.value != expected {
            findings.push(previous_size_mismatch(stored.value, stored.span, expected));
        }
    }

    /// Cross-row checks (previous size, duplicate clustering) and partition bookkeeping.
    #[inline(always)]
    pub(super) fn after_row(
        &mut self,
        position: u64,
        previous_unfiltered_size: &Spanned<u64>,
        clustering: Option<&ClusteringView<'_>>,
        findings: &mut Vec<Finding>,
    ) {
        let is_static = clustering.is_none();
        self.check_previous_size(position, previous_unfiltered_size, is_static, findings);
        let Some(c) = clustering else {
            self.has_static_row = true;
            return;
        };
        self.previous_unfiltered_start = Some(position);
        self.row_count = self.row_count.saturating_add(1);
        let encoded = c.encoded_values();
        let key = ClusteringKey::of(encoded);
        let same = match key {
            // A short encoding is all in its key; a long one is compared and kept in the buffer.
            Some(k) => self.last_key == k,
            None => self.last_key.len == usize::MAX && self.last_clustering == encoded,
        };
        // Debug builds keep every encoding in the buffer too and compare the two answers.
        debug_assert_eq!(
            self.has_last_clustering && same,
            self.has_last_clustering && self.last_clustering == encoded
        );
        if self.has_last_clustering && same {
            findings.push(duplicate_clustering(c.span));
        }
        match key {
            Some(k) => {
                self.last_key = k;
                if cfg!(debug_assertions) {
                    self.last_clustering.clear();
                    self.last_clustering.extend_from_slice(encoded);
                }
            }
            None => keep_long_clustering(&mut self.last_key, &mut self.last_clustering, encoded),
        }
        self.has_last_clustering = true;
    }

    /// The end-of-partition item for the flags byte at `pos`.
    pub(super) fn end(&self, pos: u64, flags: Spanned<u8>) -> PartitionEnd {
        let mut findings = Vec::new();
        if flags.value != END_OF_PARTITION {
            findings.push(Finding::new(
                FindingKind::UnexpectedFlags,
                flags.span,
                format!(
                    "end-of-partition byte {:#04x} has other bits than 0x01",
                    flags.value
                ),
            ));
        }
        PartitionEnd {
            position: pos,
            flags,
            partition_position: self.start,
            partition_span: Span::new(self.start, pos.saturating_add(1)),
            row_count: self.row_count,
            range_tombstone_marker_count: self.marker_count,
            has_static_row: self.has_static_row,
            findings,
        }
    }
}

/// An encoded clustering of at most 16 bytes as its length and two overlapping word reads:
/// for a given length the words hold every byte, so equal keys are equal encodings. A longer
/// encoding has no key; [`PartitionState`] marks it by `len == usize::MAX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ClusteringKey {
    len: usize,
    low: u64,
    high: u64,
}

impl ClusteringKey {
    #[inline(always)]
    fn of(b: &[u8]) -> Option<Self> {
        let len = b.len();
        let word = |at: usize| -> u64 {
            b.get(at..at.wrapping_add(8))
                .and_then(|w| <[u8; 8]>::try_from(w).ok())
                .map_or(0, u64::from_le_bytes)
        };
        let half = |at: usize| -> u64 {
            b.get(at..at.wrapping_add(4))
                .and_then(|w| <[u8; 4]>::try_from(w).ok())
                .map_or(0, |w| u64::from(u32::from_le_bytes(w)))
        };
        let byte = |at: usize| -> u64 { b.get(at).map_or(0, |&x| u64::from(x)) };
        let (low, high) = match len {
            0 => (0, 0),
            1..=3 => (
                byte(0) | byte(len / 2) << 8 | byte(len.wrapping_sub(1)) << 16,
                0,
            ),
            4..=7 => (half(0) | half(len.wrapping_sub(4)) << 32, 0),
            8..=16 => (word(0), word(len.wrapping_sub(8))),
            _ => return None,
        };
        Some(ClusteringKey { len, low, high })
    }
}

/// [`PartitionState::after_row`]'s keeping of a clustering longer than a key, out of line.
#[cold]
#[inline(never)]
fn keep_long_clustering(key: &mut ClusteringKey, buffer: &mut Vec<u8>, encoded: &[u8]) {
    *key = ClusteringKey {
        len: usize::MAX,
        low: 0,
        high: 0,
    };
    buffer.clear();
    buffer.extend_from_slice(encoded);
}

/// [`PartitionState::after_row`]'s finding, out of line.
#[cold]
#[inline(never)]
fn duplicate_clustering(span: Span) -> Finding {
    Finding::new(
        FindingKind::DuplicateClustering,
        span,
        "this row has the same clustering as the previous row of the partition (duplicate \
         rows; scrub keeps one)"
            .to_owned(),
    )
}

/// [`PartitionState::check_previous_size`]'s finding, out of line (by value: a reference
/// would keep the row's prelude in memory on the hot path).
#[cold]
#[inline(never)]
fn previous_size_mismatch(stored: u64, span: Span, expected: u64) -> Finding {
    Finding::new(
        FindingKind::PreviousSizeMismatch,
        span,
        format!(
            "previous unfiltered size is {stored}, but the previous unfiltered (or the \
             partition start) is {expected} bytes back"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::ClusteringKey;

    #[test]
    fn clustering_keys_are_equal_exactly_for_equal_short_encodings() {
        // Every encoding of lengths 0..=17 over two byte values, each flipped at every position.
        for len in 0..=17usize {
            let base: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(37)).collect();
            let key = ClusteringKey::of(&base);
            assert_eq!(key.is_none(), len > 16, "length {len}");
            assert_eq!(key, ClusteringKey::of(&base.clone()));
            for at in 0..len {
                let mut other = base.clone();
                other[at] ^= 0x80;
                if let Some(k) = key {
                    assert_ne!(
                        Some(k),
                        ClusteringKey::of(&other),
                        "length {len}, byte {at}"
                    );
                }
            }
            if len > 0 && len <= 16 {
                assert_ne!(key, ClusteringKey::of(&base[..len - 1]), "length {len}");
            }
        }
    }
}
