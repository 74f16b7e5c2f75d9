//! The COMPACTION cardinality estimator: stream-lib's `HyperLogLogPlus(13, 25)` fed with
//! Cassandra's `MurmurHash.hash2_64` of every partition key, serialized by `getBytes()`.
//!
//! | field | encoding |
//! |---|---|
//! | codec version | i32 `−2` |
//! | p, sp | LEB128 varints (13, 25) |
//! | format | LEB128: 1 = sparse, 0 = normal |
//! | sparse | LEB128 count, then LEB128 deltas (32-bit wrapping) of the encoded hashes sorted by sparse index |
//! | normal | LEB128 byte length, then `⌈2^p / 6⌉` (+1 unless a multiple of 32) i32 words of six 5-bit registers |
//!
//! Sparse encoding of a hash `x` (`encodeHash`): `idx` = top `sp` bits; if the `sp − p` bits after
//! the top `p` are all zero, `((idx << 6) | (runLength ^ 63)) << 1 | 1`, else `idx << 1`; the run
//! length is `nlz((x << p) | 1 << (p − 1)) + 1`. The set keeps one entry per sparse index (the
//! smallest encoded value, i.e. the longest run) and turns into the normal registers when it grows
//! past `0.75 · 2^p` entries. The final bytes do not depend on when Cassandra's temp list was
//! merged: sparse iff at most 6144 distinct sparse indexes were seen, registers = max run length.
//!
//! Src: stream-lib `com/clearspring/analytics/stream/cardinality/HyperLogLogPlus.java`,
//! `RegisterSet.java`, `util/Varint.java`; Cassandra `utils/MurmurHash.java` (`hash2_64`),
//! `io/sstable/metadata/MetadataCollector.java` (`addKey`), `CompactionMetadata.java`.

use std::collections::BTreeMap;

use super::bytes::Out;

pub const P: u32 = 13;
pub const SP: u32 = 25;

/// Cassandra's `MurmurHash.hash2_64(key, 0, len, seed)` (MurmurHash64A with Java's sign-extended
/// tail bytes).
pub fn murmur_hash2_64(key: &[u8], seed: u64) -> i64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = (seed & 0xffff_ffff) ^ M.wrapping_mul(key.len() as u64);
    let blocks = key.chunks_exact(8);
    let tail = blocks.remainder();
    for block in blocks {
        let mut k = block
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    if !tail.is_empty() {
        // Byte i is shifted by 8 × i bits (at most 7 tail bytes); XOR makes the order irrelevant.
        for (&b, shift) in tail.iter().zip((0u32..64).step_by(8)) {
            h ^= (i64::from(b as i8) as u64) << shift;
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h as i64
}

/// Run length of `x` after the top `p` bits (`numberOfLeadingZeros((x << p) | 1 << (p−1)) + 1`).
fn run_length(x: u64, p: u32) -> u32 {
    // p is P or SP (≥ 1) and leading_zeros() ≤ 64: neither op can overflow.
    ((x << p) | (1u64 << p.saturating_sub(1)))
        .leading_zeros()
        .saturating_add(1)
}

/// `encodeHash(x, p, sp)` as a Java int (bits).
fn encode_hash(x: u64) -> u32 {
    let idx = (x >> (64 - SP)) as u32;
    let zero_test = idx << ((32 - SP) + P);
    if zero_test == 0 {
        let invrl = run_length(x, P) ^ 63;
        (((idx << 6) | invrl) << 1) | 1
    } else {
        idx << 1
    }
}

fn sparse_index(k: u32) -> u32 {
    if k & 1 == 1 {
        k >> 7
    } else {
        k >> 1
    }
}

fn decode_run_length(k: u32) -> u32 {
    if k & 1 == 1 {
        ((k >> 1) & 63) ^ 63
    } else {
        (k << (P + (31 - SP))).leading_zeros().saturating_add(1)
    }
}

/// `HyperLogLogPlus(13, 25)`.
#[derive(Debug, Clone)]
pub struct HyperLogLogPlus {
    /// Sparse index → smallest encoded value (Java signed comparison).
    sparse: Option<BTreeMap<u32, u32>>,
    /// Normal registers, as `RegisterSet` words.
    registers: Vec<u32>,
}

/// Words of a `RegisterSet` of `count` registers (`getSizeForCount`).
fn register_words(count: u32) -> usize {
    let bits = (count / 6) as usize;
    if bits == 0 {
        1
    } else if bits.is_multiple_of(32) {
        bits
    } else {
        bits.saturating_add(1)
    }
}

impl Default for HyperLogLogPlus {
    fn default() -> Self {
        Self::new()
    }
}

impl HyperLogLogPlus {
    pub fn new() -> Self {
        HyperLogLogPlus {
            sparse: Some(BTreeMap::new()),
            registers: Vec::new(),
        }
    }

    fn threshold() -> usize {
        ((1u32 << P) as f64 * 0.75) as usize
    }

    /// `offerHashed(long)`.
    pub fn offer_hashed(&mut self, hash: i64) {
        let x = hash as u64;
        if let Some(set) = &mut self.sparse {
            let k = encode_hash(x);
            set.entry(sparse_index(k))
                .and_modify(|v| {
                    if (k as i32) < (*v as i32) {
                        *v = k;
                    }
                })
                .or_insert(k);
            if set.len() > Self::threshold() {
                self.convert_to_normal();
            }
        } else {
            let idx = (x >> (64 - P)) as u32;
            self.update_register(idx, run_length(x, P));
        }
    }

    /// Adds a partition key (`MetadataCollector.addKey`).
    pub fn add_key(&mut self, key: &[u8]) {
        self.offer_hashed(murmur_hash2_64(key, 0));
    }

    fn convert_to_normal(&mut self) {
        self.registers = vec![0; register_words(1 << P)];
        if let Some(set) = self.sparse.take() {
            for k in set.values() {
                let idx = sparse_index(*k) >> (SP - P);
                self.update_register(idx, decode_run_length(*k));
            }
        }
    }

    /// `RegisterSet.updateIfGreater` (values above 31 spill like Java's unmasked shift does).
    fn update_register(&mut self, position: u32, value: u32) {
        let bucket = (position / 6) as usize;
        let shift = (position % 6).saturating_mul(5); // ≤ 25
        let mask = 0x1fu32 << shift;
        if let Some(word) = self.registers.get_mut(bucket) {
            // Java: `long curVal = M[b] & mask; long newVal = value << shift;` (int shift).
            let current = i64::from((*word & mask) as i32);
            let new = i64::from((value as i32).wrapping_shl(shift));
            if current < new {
                *word = ((i64::from((*word & !mask) as i32)) | new) as u32;
            }
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.sparse
            .as_ref()
            .map_or(0, |s| s.len().saturating_mul(24))
            .saturating_add(self.registers.len().saturating_mul(4))
    }

    /// `getBytes()`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.i32(-2);
        out.leb128_u32(P);
        out.leb128_u32(SP);
        match &self.sparse {
            Some(set) => {
                out.leb128_u32(1);
                out.leb128_u32(set.len() as u32);
                let mut previous = 0u32;
                for k in set.values() {
                    out.leb128_u32(k.wrapping_sub(previous));
                    previous = *k;
                }
            }
            None => {
                out.leb128_u32(0);
                out.leb128_u32(self.registers.len().saturating_mul(4) as u32);
                for w in &self.registers {
                    out.u32(*w);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::statistics::HyperLogLogPlus as Decoded;
    use crate::reader::Reader;

    fn decode(bytes: &[u8]) -> Decoded {
        Decoded::decode(&mut Reader::new(bytes, 0)).unwrap()
    }

    #[test]
    fn sparse_and_normal_forms_decode() {
        let mut h = HyperLogLogPlus::new();
        for i in 0..1000u32 {
            h.add_key(&i.to_be_bytes());
        }
        let d = decode(&h.to_bytes());
        assert!(d.sparse_set.is_some());
        assert!((990..=1010).contains(&d.estimated_cardinality));
        for i in 1000..100_000u32 {
            h.add_key(&i.to_be_bytes());
        }
        let d = decode(&h.to_bytes());
        assert!(d.register_set.is_some());
        let e = d.estimated_cardinality as f64;
        assert!((e - 100_000.0).abs() < 5_000.0, "estimate {e}");
    }
}
