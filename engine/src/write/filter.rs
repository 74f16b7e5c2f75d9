//! Filter.db for nb/oa: the partition-key bloom filter in the new byte format (`na`+) and the
//! `(h2, h1)` hash order (`ma`+), sized as `FilterFactory.getFilter(expectedKeys, fpChance)`.
//!
//! | field | type |
//! |---|---|
//! | hash count `k` | i32 |
//! | word count `W` | i32 (`m = 64·W` bits) |
//! | bitset | `8·W` bytes; bit `i` = bit `i mod 8` of byte `i / 8` |
//!
//! Key `key` sets bits `|h2 + j·h1 mod 2^64| mod m` for `j < k`, `(h1, h2)` = Cassandra's Murmur3
//! x64/128 of the raw key. Sizing: [`BloomSpecification::for_fp_chance`] (`b` bits per key, `k`
//! hashes), `m = n·b + 20` rounded up to whole words (`OffHeapBitSet`). The bitset is allocated up
//! front from the expected key count, like Cassandra's.
//!
//! Src: `utils/BloomFilter.java`, `utils/BloomFilterSerializer.java`, `utils/FilterFactory.java`,
//! `utils/BloomCalculations.java`, `utils/obs/OffHeapBitSet.java`.

use super::bytes::Out;
use crate::component::filter::BloomSpecification;
use crate::error::{Error, Result};
use crate::hash::murmur3_x64_128;

/// Filters are refused above this many bitset bytes (2 GiB): a wasm32 `usize` and Cassandra's
/// own limits stop there.
pub const MAX_BITSET_BYTES: u64 = 1 << 31;

#[derive(Debug)]
pub struct BloomFilterBuilder {
    hash_count: u32,
    bits: u64,
    bitset: Vec<u8>,
}

impl BloomFilterBuilder {
    /// `None` when the chance is ≥ 1 (Cassandra writes no Filter.db then).
    pub fn new(expected_keys: u64, fp_chance: f64) -> Result<Option<Self>> {
        if fp_chance.is_nan() || fp_chance <= 0.0 {
            return Err(Error::invalid(
                format!("bloom filter fp chance {fp_chance} must be > 0"),
                0,
            ));
        }
        if fp_chance >= 1.0 {
            return Ok(None);
        }
        let spec = BloomSpecification::for_fp_chance(fp_chance).ok_or_else(|| {
            Error::invalid(
                format!("bloom filter fp chance {fp_chance} is below what 20 bits per key give"),
                0,
            )
        })?;
        let bits = spec.bitset_size_bits(expected_keys.max(1));
        if bits / 8 > MAX_BITSET_BYTES {
            return Err(Error::invalid(
                format!("a bloom filter of {bits} bits is too large"),
                0,
            ));
        }
        let bytes = usize::try_from(bits / 8)
            .map_err(|_| Error::invalid("bloom filter too large for this platform", 0))?;
        Ok(Some(BloomFilterBuilder {
            hash_count: spec.hash_count,
            bits,
            bitset: vec![0; bytes],
        }))
    }

    pub fn add(&mut self, key: &[u8]) {
        let (h1, h2) = murmur3_x64_128(key, 0);
        let mut base = h2;
        for _ in 0..self.hash_count {
            let index = base.unsigned_abs().checked_rem(self.bits).unwrap_or(0);
            if let Some(b) = usize::try_from(index >> 3)
                .ok()
                .and_then(|i| self.bitset.get_mut(i))
            {
                *b |= 1 << (index & 7);
            }
            base = base.wrapping_add(h1);
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.bitset.len()
    }

    /// Filter.db.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bitset.len().saturating_add(8));
        out.i32(self.hash_count as i32);
        out.i32((self.bits / 64) as i32);
        out.extend_from_slice(&self.bitset);
        out
    }
}
