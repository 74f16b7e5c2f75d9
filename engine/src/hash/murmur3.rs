//! Cassandra's MurmurHash3 x64/128 and the Murmur3Partitioner token.
//!
//! Src: `utils/MurmurHash.java` (`hash3_x64_128`), `dht/Murmur3Partitioner.java` (`getToken`,
//! `normalize`), `utils/BloomFilter.java` (filters hash the raw key bytes with seed 0).
//!
//! | step | what Cassandra does |
//! |---|---|
//! | body | every 16-byte block = two **little-endian** u64 `k1`, `k2`, mixed into `h1`, `h2` as in the reference MurmurHash3_x64_128 |
//! | tail | the last `len & 15` bytes: byte `i` is **sign-extended** to 64 bits (Java `(long) byte`) before `<< 8·(i mod 8)`; bytes 0–7 fold into `k1`, 8–14 into `k2` |
//! | finalise | `h ^= len`, `h1 += h2`, `h2 += h1`, `fmix64` both, `h1 += h2`, `h2 += h1` |
//! | token | `h1` as i64; `i64::MIN` becomes `i64::MAX`; the empty key gets the minimum token `i64::MIN` |
//!
//! The sign extension is the one deviation from the reference hash: a tail byte ≥ 0x80 sets every
//! bit above it in its 64-bit lane, so keys whose length is not a multiple of 16 and whose tail has
//! such a byte hash differently from `mmh3`/Guava. Body bytes are masked, so whole blocks agree.
//!
//! Check value (sstable-format.md §11.1): key `00 00 00 00` (int 0) → token
//! −3485513579396041028 (`0xcfa0f7ddd84c76bc`).

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

/// The minimum Murmur3 token (`Murmur3Partitioner.MINIMUM`), given to the empty key.
pub const MINIMUM_TOKEN: i64 = i64::MIN;

/// Up to 8 bytes as a little-endian u64, each byte masked to 8 bits (a body lane).
fn lane_le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Up to 8 tail bytes folded the way Cassandra does: each byte sign-extended, shifted, XORed.
fn lane_sign_extended(bytes: &[u8]) -> u64 {
    // Byte i is shifted by 8 × i bits; the shift amounts stop at 56 (8 bytes).
    let shifts = (0u32..64).step_by(8);
    bytes.iter().zip(shifts).fold(0u64, |acc, (&b, shift)| {
        // `as i8 as i64` is Java's `(long) byte`: 0x80..=0xff become negative.
        let widened = i64::from(b as i8) as u64;
        acc ^ (widened << shift)
    })
}

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// Cassandra's `MurmurHash.hash3_x64_128(key, 0, key.length, seed)`: the pair `(h1, h2)` as Java
/// longs, including the sign-extended tail quirk (see the module docs).
pub fn murmur3_x64_128(key: &[u8], seed: u64) -> (i64, i64) {
    x64_128(key, seed, lane_sign_extended)
}

/// The reference `MurmurHash3_x64_128` (tail bytes unsigned), as Guava's
/// `Hashing.murmur3_128(seed)` computes it: what `db/Digest.java` `forValidator()` hashes with.
pub fn murmur3_x64_128_reference(key: &[u8], seed: u64) -> (u64, u64) {
    let (h1, h2) = x64_128(key, seed, lane_le);
    (h1 as u64, h2 as u64)
}

fn x64_128(key: &[u8], seed: u64, tail_lane: fn(&[u8]) -> u64) -> (i64, i64) {
    let mut h1 = seed;
    let mut h2 = seed;

    let blocks = key.chunks_exact(16);
    let tail = blocks.remainder();
    for block in blocks {
        let (lo, hi) = block.split_at(8);
        h1 ^= mix_k1(lane_le(lo));
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(lane_le(hi));
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }

    let (tail_k1, tail_k2) = tail.split_at(tail.len().min(8));
    if !tail_k2.is_empty() {
        h2 ^= mix_k2(tail_lane(tail_k2));
    }
    if !tail_k1.is_empty() {
        h1 ^= mix_k1(tail_lane(tail_k1));
    }

    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1 as i64, h2 as i64)
}

/// The Murmur3Partitioner token of a partition key: `h1` (seed 0), with `i64::MIN` mapped to
/// `i64::MAX`; the empty key gets [`MINIMUM_TOKEN`].
pub fn murmur3_token(key: &[u8]) -> i64 {
    if key.is_empty() {
        return MINIMUM_TOKEN;
    }
    match murmur3_x64_128(key, 0).0 {
        i64::MIN => i64::MAX,
        h1 => h1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values were computed independently with a scratch Python implementation of the
    // Java code (checked against the reference mmh3 vector for "foo": h1 = -2129773440516405919,
    // h2 = 9128664383759220103), not with this module.

    #[test]
    fn int_zero_gives_the_documented_token() {
        assert_eq!(murmur3_token(&[0, 0, 0, 0]), -3485513579396041028);
        assert_eq!(murmur3_token(&[0, 0, 0, 0]) as u64, 0xcfa0_f7dd_d84c_76bc);
        assert_eq!(
            murmur3_x64_128(&[0, 0, 0, 0], 0),
            (-3485513579396041028, 6383328099726337777)
        );
    }

    #[test]
    fn ascii_keys_match_reference_murmur3() {
        // Tails without bytes >= 0x80 agree with the reference hash.
        assert_eq!(
            murmur3_x64_128(b"foo", 0),
            (-2129773440516405919, 9128664383759220103)
        );
        assert_eq!(
            murmur3_x64_128(b"0", 0),
            (3083240331115144064, 4219285596688309769)
        );
        assert_eq!(
            murmur3_x64_128(b"hello world", 0),
            (5998619086395760910, -6082315267429669967)
        );
        // One whole block, then a block plus one tail byte.
        let block: Vec<u8> = (0u8..16).collect();
        assert_eq!(
            murmur3_x64_128(&block, 0),
            (4920504430128807728, -6084252774064723899)
        );
        let block_plus_one: Vec<u8> = (0u8..17).collect();
        assert_eq!(
            murmur3_x64_128(&block_plus_one, 0),
            (6662781046685680142, -4512885640352061404)
        );
        // A high byte in a body block is masked, not sign-extended: the reference value.
        let mut high_in_body = vec![0xabu8];
        high_in_body.extend_from_slice(&[b'x'; 20]);
        assert_eq!(
            murmur3_x64_128(&high_in_body, 0),
            (-2019061371883790517, -3692635358657702932)
        );
    }

    #[test]
    fn tail_bytes_from_0x80_are_sign_extended_unlike_the_reference() {
        // (key, Cassandra value, reference MurmurHash3 value) — the two values must differ.
        type Case<'a> = (&'a [u8], (i64, i64), (i64, i64));
        let cases: [Case; 4] = [
            (
                &[0x80],
                (-5284281814142962636, 7980414882014114757),
                (7017059463262962058, 348074537521252385),
            ),
            (
                &[0xff],
                (-4442228696663692417, -6049531771631615289),
                (5177511712917721324, -419090864707416530),
            ),
            (
                &[
                    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c,
                    0x8d, 0x8e,
                ],
                (63099782945186636, 2182381563788159242),
                (-4930462673054268231, -4493465867977430751),
            ),
            (
                &[0xff; 17],
                (-4128212798341382003, 3989950299795791994),
                (-7803652383643453137, -282931518139972532),
            ),
        ];
        for (key, cassandra, reference) in cases {
            assert_eq!(murmur3_x64_128(key, 0), cassandra, "{key:02x?}");
            assert_ne!(cassandra, reference);
        }
    }

    #[test]
    fn seed_and_empty_key() {
        assert_eq!(murmur3_x64_128(&[], 0), (0, 0));
        assert_eq!(
            murmur3_x64_128(b"abc", 42),
            (974194376405153750, 8435366532673256752)
        );
        assert_eq!(
            murmur3_x64_128(&[0x80, 0x81], u64::MAX),
            (7610352289659012167, 4300164925627439595)
        );
        assert_eq!(murmur3_token(&[]), MINIMUM_TOKEN);
    }

    #[test]
    fn token_is_h1() {
        for key in [&b"0"[..], b"foo", &[1, 2, 3, 4, 5, 6, 7, 8, 9]] {
            assert_eq!(murmur3_token(key), murmur3_x64_128(key, 0).0);
        }
    }
}
