//! Running 32-bit checksums that can be appended to one another, so the whole-file digest is
//! built from the per-chunk checksums instead of a second pass over the bytes.
//!
//! | algorithm | state | appending B (n bytes) to A |
//! |---|---|---|
//! | CRC32 | `checksum::Crc32` (value + length) | `Hasher::combine` (GF(2) shift of A by n bytes, xor B) |
//! | Adler32 | `s1 = 1 + Σ bytes`, `s2 = Σ s1` (mod 65521), length | `s1 = s1A + s1B − 1`, `s2 = s2A + s2B + n·(s1A − 1)` (mod 65521) |
//!
//! Src: `src/java/org/apache/cassandra/utils/ChecksumType.java` (CRC32 and Adler32 are
//! `java.util.zip`'s, the same functions as zlib's).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::component::crc::ChecksumType;

/// The Adler32 modulus.
const ADLER_MOD: u64 = 65_521;

/// A checksum in progress, with the number of bytes it has seen.
#[derive(Clone)]
pub(crate) enum Running {
    Crc32(crate::checksum::Crc32),
    Adler32 { value: u32, len_bytes: u64 },
}

impl Running {
    pub(crate) fn new(kind: ChecksumType) -> Running {
        match kind {
            ChecksumType::Crc32 => Running::Crc32(crate::checksum::Crc32::new()),
            ChecksumType::Adler32 => Running::Adler32 {
                value: 1,
                len_bytes: 0,
            },
        }
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match self {
            Running::Crc32(h) => h.update(bytes),
            Running::Adler32 { value, len_bytes } => {
                let mut a = adler32::RollingAdler32::from_value(*value);
                a.update_buffer(bytes);
                *value = a.hash();
                *len_bytes = len_bytes.wrapping_add(bytes.len() as u64);
            }
        }
    }

    /// The checksum and the number of bytes it covers.
    pub(crate) fn len_bytes(&self) -> u64 {
        match self {
            Running::Crc32(h) => h.len_bytes(),
            Running::Adler32 { len_bytes, .. } => *len_bytes,
        }
    }

    /// The state after `len_bytes` bytes whose checksum is `value`.
    pub(crate) fn from_parts(kind: ChecksumType, value: u32, len_bytes: u64) -> Running {
        match kind {
            ChecksumType::Crc32 => {
                Running::Crc32(crate::checksum::Crc32::from_parts(value, len_bytes))
            }
            ChecksumType::Adler32 => Running::Adler32 { value, len_bytes },
        }
    }

    pub(crate) fn kind(&self) -> ChecksumType {
        match self {
            Running::Crc32(_) => ChecksumType::Crc32,
            Running::Adler32 { .. } => ChecksumType::Adler32,
        }
    }

    pub(crate) fn value(&self) -> u32 {
        match self {
            Running::Crc32(h) => h.clone().finalize(),
            Running::Adler32 { value, .. } => *value,
        }
    }

    /// Appends `other` (the checksum of the bytes that follow): afterwards `self` is the checksum
    /// of both runs. Returns `false`, leaving `self` unchanged, when the algorithms differ.
    pub(crate) fn append(&mut self, other: &Running) -> bool {
        match (self, other) {
            (Running::Crc32(a), Running::Crc32(b)) => {
                a.combine(b);
                true
            }
            (
                Running::Adler32 { value, len_bytes },
                Running::Adler32 {
                    value: b,
                    len_bytes: n,
                },
            ) => {
                *value = adler32_append(*value, *b, *n);
                *len_bytes = len_bytes.wrapping_add(*n);
                true
            }
            _ => false,
        }
    }
}

/// The Adler32 of `A ‖ B` from `adler32(A)`, `adler32(B)` and `len(B)`.
// Every term is below 2^16 and every product below 2^33: nothing can overflow a u64.
#[allow(clippy::arithmetic_side_effects)]
fn adler32_append(a: u32, b: u32, len_b: u64) -> u32 {
    let (s1a, s2a) = (u64::from(a & 0xffff), u64::from(a >> 16));
    let (s1b, s2b) = (u64::from(b & 0xffff), u64::from(b >> 16));
    let n = len_b % ADLER_MOD;
    // s1A − 1 may be −1 (mod): add the modulus before subtracting.
    let s1 = (s1a + s1b + ADLER_MOD - 1) % ADLER_MOD;
    let s2 = (s2a + s2b + n * ((s1a + ADLER_MOD - 1) % ADLER_MOD)) % ADLER_MOD;
    // Both are below 65521, so they fit in 16 bits.
    ((s2 as u32) << 16) | (s1 as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appending_equals_hashing_the_concatenation() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i * 131 % 256) as u8).collect();
        for kind in [ChecksumType::Crc32, ChecksumType::Adler32] {
            let whole = kind.checksum(&data);
            for split in [0, 1, 5551, 5552, 65_521, 65_522, 69_999, 70_000] {
                let (x, y) = data.split_at(split);
                let mut a = Running::new(kind);
                a.update(x);
                let mut b = Running::new(kind);
                b.update(y);
                assert!(a.append(&b));
                assert_eq!(a.value(), whole, "{kind:?} split {split}");
            }
        }
        let mut a = Running::new(ChecksumType::Crc32);
        assert!(!a.append(&Running::new(ChecksumType::Adler32)));
        // Wikipedia's example: Adler32("Wikipedia") = 0x11E60398.
        let mut w = Running::new(ChecksumType::Adler32);
        w.update(b"Wiki");
        let mut p = Running::new(ChecksumType::Adler32);
        p.update(b"pedia");
        w.append(&p);
        assert_eq!(w.value(), 0x11e6_0398);
    }
}
