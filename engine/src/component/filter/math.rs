//! The maths of a bloom filter: false-positive rates, the best hash count, and how Cassandra
//! sizes a filter for a false-positive chance ([`BloomSpecification`]).
//!
//! Src: `utils/BloomCalculations.java`, `utils/FilterFactory.java`.
//!
//! A bloom filter with `m` bits and `k` hash functions holding `n` keys leaves any given bit clear
//! with probability `(1 − 1/m)^(kn) ≈ e^(−kn/m)`, so a key that was never added finds all its `k`
//! bits set — a false positive — with probability
//!
//! ```text
//! p ≈ (1 − e^(−kn/m))^k
//! ```
//!
//! ([`false_positive_rate`],
//! [`BloomFilter::expected_fp_rate`](super::BloomFilter::expected_fp_rate)). For a fixed number
//! of bits per key `b = m/n` the rate is lowest at `k = b·ln 2` ([`optimal_hash_count`]), where
//! each bit is set with probability ½ and `p = 2^(−k) = e^(−b·(ln 2)²) ≈ 0.6185^b` ([`optimal_fp_rate_for`]).
//!
//! Cassandra does not use the closed form: `FilterFactory.getFilter(n, fpChance)` asks
//! `BloomCalculations.computeBloomSpec(20, fpChance)`, which looks `p(b, k)` up in a table for
//! `b` = 2…20 "buckets per element" (the formula above rounded to three significant digits; only
//! `p(5, 3)` is listed as 0.092). It takes the smallest `b` whose best `k` meets the chance, then
//! lowers `k` while the chance is still met. The bitset gets `n·b + 20` bits, rounded up to whole
//! words. Examples ([`BloomSpecification::for_fp_chance`]): chance 0.1 → b = 5, k = 3; 0.01 (the
//! default) → b = 10, k = 5 (p = 0.00943); 0.001 → b = 15, k = 7; 0.0001 → b = 20, k = 10. The
//! `BloomFilter1000` fixtures are 1,000,000 keys at 0.0001: 20,000,020 bits = 312,501 words =
//! 2,500,016 bytes with the 8-byte header. A chance ≥ 1 means no filter (no Filter.db).
//!
//! With `X` of the `m` bits set, the number of keys is estimated as `n ≈ −(m/k)·ln(1 − X/m)`
//! (Swamidass & Baldi, 2007;
//! [`BloomFilter::estimated_key_count`](super::BloomFilter::estimated_key_count)) and the
//! false-positive rate for a random absent key is `(X/m)^k`
//! ([`BloomFilter::fill_fp_rate`](super::BloomFilter::fill_fp_rate)).

use serde::Serialize;

use super::{BITSET_EXCESS_BITS, MAX_BUCKETS_PER_ELEMENT};

/// `(1 − e^(−k·n/m))^k` for `k` hashes, `m` bits and `n` keys (1 when `m` is 0).
pub fn false_positive_rate(hash_count: u32, bitset_size_bits: u64, keys: u64) -> f64 {
    if bitset_size_bits == 0 {
        return 1.0;
    }
    let k = f64::from(hash_count);
    let per_bit = (-k * keys as f64 / bitset_size_bits as f64).exp();
    (1.0 - per_bit).powf(k)
}

/// `b·ln 2`: the hash count that minimises the false-positive rate at `b` bits per key.
pub fn optimal_hash_count(bits_per_key: f64) -> f64 {
    bits_per_key * core::f64::consts::LN_2
}

/// `e^(−b·(ln 2)²) ≈ 0.6185^b`: the lowest false-positive rate `b` bits per key can give.
pub fn optimal_fp_rate_for(bits_per_key: f64) -> f64 {
    let ln2 = core::f64::consts::LN_2;
    (-bits_per_key * ln2 * ln2).exp()
}

/// Highest hash count `BloomCalculations` tabulates for each number of buckets per element.
const TABULATED_MAX_HASH_COUNT: [u32; 21] = [
    0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 8, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14,
];

/// `BloomCalculations`' false-positive table entry for `b` buckets per element and `k` hashes:
/// `(1 − e^(−k/b))^k` rounded to three significant digits (`p(5, 3)` is tabulated as 0.092).
/// `None` outside the table; 1.0 for `k = 0` or `b < 2`.
pub fn tabulated_fp_rate(buckets_per_element: u32, hash_count: u32) -> Option<f64> {
    let max_k = *TABULATED_MAX_HASH_COUNT.get(usize::try_from(buckets_per_element).ok()?)?;
    if hash_count > max_k {
        return None;
    }
    if hash_count == 0 || buckets_per_element < 2 {
        return Some(1.0);
    }
    if (buckets_per_element, hash_count) == (5, 3) {
        return Some(0.092);
    }
    let k = f64::from(hash_count);
    let exact = (1.0 - (-k / f64::from(buckets_per_element)).exp()).powf(k);
    Some(round_significant(exact, 3))
}

fn round_significant(x: f64, digits: i32) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = x.log10().floor() as i32;
    let scale = 10f64.powi(digits.saturating_sub(1).saturating_sub(magnitude));
    (x * scale).round() / scale
}

/// The hash count whose tabulated rate is lowest for `b` buckets per element (first on ties).
fn best_hash_count(buckets_per_element: u32) -> u32 {
    let max_k = TABULATED_MAX_HASH_COUNT
        .get(buckets_per_element as usize)
        .copied()
        .unwrap_or(0);
    let mut best_k = 1;
    let mut best = f64::MAX;
    for k in 0..=max_k {
        if let Some(p) = tabulated_fp_rate(buckets_per_element, k) {
            if p < best {
                best = p;
                best_k = k.max(1);
            }
        }
    }
    best_k
}

/// What `FilterFactory.getFilter(n, fpChance)` builds (`BloomCalculations.BloomSpecification`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BloomSpecification {
    /// `k`.
    pub hash_count: u32,
    /// Bits per key, `b`.
    pub buckets_per_element: u32,
    /// The tabulated false-positive rate for this `(b, k)`.
    pub fp_rate: f64,
}

impl BloomSpecification {
    /// Cassandra's choice for a table's `bloom_filter_fp_chance` (`computeBloomSpec(20, chance)`):
    /// `None` when the chance is ≥ 1 (no filter is written), not a number, or below the best
    /// tabulated rate (Cassandra refuses it).
    pub fn for_fp_chance(max_fp_chance: f64) -> Option<BloomSpecification> {
        if max_fp_chance.is_nan() || max_fp_chance >= 1.0 {
            return None;
        }
        let spec = |k: u32, b: u32| BloomSpecification {
            hash_count: k,
            buckets_per_element: b,
            fp_rate: tabulated_fp_rate(b, k).unwrap_or(1.0),
        };
        // Chances at or above p(2, 1): Cassandra passes (optimal k for 2, 2) in swapped order.
        if max_fp_chance >= tabulated_fp_rate(2, 1).unwrap_or(1.0) {
            return Some(spec(2, best_hash_count(2)));
        }
        let max_b = MAX_BUCKETS_PER_ELEMENT;
        let floor = tabulated_fp_rate(max_b, best_hash_count(max_b)).unwrap_or(0.0);
        if max_fp_chance < floor {
            return None;
        }
        let mut b = 2;
        let mut k = best_hash_count(b);
        while tabulated_fp_rate(b, k).unwrap_or(1.0) > max_fp_chance && b < max_b {
            b = b.saturating_add(1);
            k = best_hash_count(b);
        }
        while let Some(fewer) = k.checked_sub(1).filter(|&fewer| fewer >= 1) {
            if tabulated_fp_rate(b, fewer).unwrap_or(1.0) > max_fp_chance {
                break;
            }
            k = fewer;
        }
        Some(spec(k, b))
    }

    /// Bitset size Cassandra allocates for `keys` keys: `keys·b + 20` bits, rounded up to words.
    pub fn bitset_size_bits(&self, keys: u64) -> u64 {
        let bits = keys
            .saturating_mul(u64::from(self.buckets_per_element))
            .saturating_add(BITSET_EXCESS_BITS);
        bits.div_ceil(64).saturating_mul(64)
    }
}
