//! CRC32 by folding with a sparse multiple of the polynomial (the "Chorba" method: Sam Russell,
//! *Chorba: A novel CRC32 implementation*, arXiv:2412.16398, 2024; zlib-ng's
//! `crc32_chorba_small`): no table and no multiplication for all but the last 40 bytes of each half.
//!
//! A CRC is the message polynomial modulo the CRC polynomial P, so replacing the message with any
//! message equal to it modulo P (same length) leaves the CRC unchanged. P divides the sparse
//! polynomial `Q = x^300 + x^155 + x^117 + x^89 + 1` (checked by a test below), so a 1 bit at
//! stream position `p` may be replaced by 1 bits at `p + 145`, `p + 183`, `p + 211` and
//! `p + 300`. Walking the message front to back and moving each 64-bit word forward that way
//! leaves zeros behind — whose CRC from a zero register is zero — and a short tail that carries
//! everything; a table CRC ([`super::scalar`]) finishes that tail. The initial register enters as
//! the first 32 message bits (a raw CRC from register `r` is the CRC from 0 of the message with
//! `r` XORed into its first four bytes).
//!
//! In the reflected bit order of CRC32, stream bit `64·j + b` is bit `b` of little-endian word
//! `j`, so moving word `w` of index `j` forward by 145 = 2·64 + 17 bits is `w << 17` into word
//! `j + 2` and `w >> 47` into word `j + 3`, and likewise for the other three distances: a word
//! feeds words 2 to 5 places on. The message is cut into two halves folded side by side, one per
//! 64-bit lane of a [`Lanes`] — one `v128` with `simd128` ([`super::simd128`]), two `u64`s
//! elsewhere ([`Words`]) — so a step's result is needed only two steps later, and the two CRCs are
//! joined at the end with [`super::combine`]'s operator.

use super::scalar;
use super::{multiply_mod_poly, x_pow_8n};

/// Two 64-bit lanes (lane 0 the first half of the message, lane 1 the second) and the few lane
/// operations the fold needs.
pub(crate) trait Lanes: Copy {
    /// `[first, second]`.
    fn from_words(first: u64, second: u64) -> Self;
    /// The two lanes.
    fn words(self) -> [u64; 2];
    fn xor(self, other: Self) -> Self;
    /// Each lane shifted left (towards later stream bits) by `N` bits.
    fn shl<const N: u32>(self) -> Self;
    /// Each lane shifted right by `N` bits.
    fn shr<const N: u32>(self) -> Self;
}

/// [`Lanes`] as two `u64`s: the portable path (and the model the `simd128` one is tested
/// against).
#[derive(Clone, Copy)]
pub(crate) struct Words([u64; 2]);

impl Lanes for Words {
    #[inline(always)]
    fn from_words(first: u64, second: u64) -> Self {
        Words([first, second])
    }
    #[inline(always)]
    fn words(self) -> [u64; 2] {
        self.0
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        let ([a, b], [c, d]) = (self.0, other.0);
        Words([a ^ c, b ^ d])
    }
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        let [a, b] = self.0;
        Words([a << N, b << N])
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        let [a, b] = self.0;
        Words([a >> N, b >> N])
    }
}

/// Words at the end of each half that receive the fold instead of being folded (a word feeds up
/// to 5 places on).
const PENDING_WORDS: usize = 5;
/// Below this many bytes the table path alone is as fast.
pub(crate) const MIN_BYTES: usize = 512;

/// Continues the raw register `state` (not inverted) over `bytes`, folding the two halves in the
/// lanes of `L`.
#[inline(always)]
pub(crate) fn update_with<L: Lanes>(state: u32, bytes: &[u8]) -> u32 {
    if bytes.len() < MIN_BYTES {
        return scalar::update(state, bytes);
    }
    // Each half: `half_words` words; what does not fill two halves (under 16 bytes) follows.
    let half_words = bytes.len() / 16;
    let half_bytes = half_words.saturating_mul(8);
    let (first, rest) = bytes.split_at(half_bytes.min(bytes.len()));
    let (second, rest) = rest.split_at(half_bytes.min(rest.len()));
    let (first, _) = first.as_chunks::<8>();
    let (second, _) = second.as_chunks::<8>();
    let folded_words = half_words.saturating_sub(PENDING_WORDS);
    let word = |w: &[u8; 8]| u64::from_le_bytes(*w);
    // pending[i]: what word j + i has received from earlier words (word 0 of the first half: the
    // register).
    let zero = L::from_words(0, 0);
    let (mut p0, mut p1, mut p2, mut p3, mut p4) =
        (L::from_words(u64::from(state), 0), zero, zero, zero, zero);
    for (a, b) in first.iter().zip(second).take(folded_words) {
        let v = L::from_words(word(a), word(b)).xor(p0);
        let by2 = v.shl::<17>().xor(v.shl::<55>());
        let by3 = v.shr::<47>().xor(v.shr::<9>()).xor(v.shl::<19>());
        let by4 = v.shr::<45>().xor(v.shl::<44>());
        let by5 = v.shr::<20>();
        p0 = p1;
        p1 = p2.xor(by2);
        p2 = p3.xor(by3);
        p3 = p4.xor(by4);
        p4 = by5;
    }
    // Each half's last five words, with what they received, from a zero register.
    let pending = [p0, p1, p2, p3, p4].map(L::words);
    let last = |half: &[[u8; 8]], lane: usize| {
        let mut bytes = [0u8; 8 * PENDING_WORDS];
        let tail = half.get(folded_words..).unwrap_or(&[]);
        for ((out, w), p) in bytes
            .as_chunks_mut::<8>()
            .0
            .iter_mut()
            .zip(tail)
            .zip(&pending)
        {
            let received = p.get(lane).copied().unwrap_or(0);
            *out = (word(w) ^ received).to_le_bytes();
        }
        scalar::update(0, &bytes)
    };
    let (crc_first, crc_second) = (last(first, 0), last(second, 1));
    // The first half's register moved over the second half's bytes, plus the second's.
    let joined = multiply_mod_poly(x_pow_8n(half_bytes as u64), crc_first) ^ crc_second;
    scalar::update(joined, rest)
}

/// Continues the raw register `state` (not inverted) over `bytes` with the portable lanes.
pub fn update(state: u32, bytes: &[u8]) -> u32 {
    update_with::<Words>(state, bytes)
}

/// The CRC32 of `bytes` by the portable fold alone.
pub fn crc32(bytes: &[u8]) -> u32 {
    !update(!0, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Raw CRC from a zero register of `len_bytes` bytes with single 1 bits at `bits`.
    fn crc_of_bits(len_bytes: usize, bits: &[usize]) -> u32 {
        let mut message = vec![0u8; len_bytes];
        for &bit in bits {
            message[bit / 8] ^= 1 << (bit % 8);
        }
        scalar::update(0, &message)
    }

    #[test]
    fn the_fold_distances_keep_the_crc() {
        // A bit at p equals, modulo P, bits at p + 145, 183, 211 and 300.
        for p in [0usize, 1, 7, 63, 64, 100] {
            assert_eq!(
                crc_of_bits(64, &[p]),
                crc_of_bits(64, &[p + 145, p + 183, p + 211, p + 300]),
                "bit {p}"
            );
        }
        // And not at other distances: the test can fail.
        assert_ne!(
            crc_of_bits(64, &[0]),
            crc_of_bits(64, &[145, 183, 211, 301])
        );
    }

    #[test]
    fn equals_crc32fast_around_the_thresholds() {
        let data = crate::checksum::tests::noise(8192 + 8, 13);
        for len in (0..600).chain([1023, 1024, 4095, 8192]) {
            for align in [0, 1, 3, 8] {
                let bytes = &data[align..align + len];
                assert_eq!(
                    crc32(bytes),
                    crc32fast::hash(bytes),
                    "len {len} align {align}"
                );
            }
        }
    }
}
