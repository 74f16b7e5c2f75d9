//! CRC32 (IEEE 802.3, reflected, polynomial `0xEDB88320`: `java.util.zip.CRC32`, zlib's `crc32`),
//! fast on every target, with the combination that appends one checksum to another.
//!
//! | target | path | why |
//! |---|---|---|
//! | native | `crc32fast` (PCLMULQDQ / ARMv8 CRC where the CPU has them) | it measures fastest |
//! | `wasm32` + `simd128` | [`simd128`]: the [`chorba`] fold, two 64-bit words per `v128` | wasm has no carry-less multiply; the fold needs only shifts and XORs |
//! | `wasm32` without `simd128` | [`chorba`] on `u64` pairs | the same fold, scalar |
//!
//! Inputs under [`chorba::MIN_BYTES`] and the last 40 bytes of each half the fold leaves go through [`scalar`]
//! (slicing-by-16, the table method).
//!
//! Every path returns what `crc32fast::hash` returns, on every input and alignment (tests below,
//! and in the browser in `tests/browser.rs`). [`implementation`] names the path this build runs.
//!
//! Src: `src/java/org/apache/cassandra/utils/ChecksumType.java` (CRC32 is `java.util.zip.CRC32`);
//! the combination is zlib's `crc32_combine` (multiplication modulo the polynomial by x^(8n)).

pub mod chorba;
pub mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod simd128;

/// The reflected CRC32 polynomial.
pub(crate) const POLY: u32 = 0xEDB8_8320;

/// Which CRC32 code this build runs: `"crc32fast"` (native), `"wasm simd128 chorba"` or
/// `"wasm scalar chorba"`.
pub const fn implementation() -> &'static str {
    #[cfg(not(target_arch = "wasm32"))]
    {
        "crc32fast"
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        "wasm simd128 chorba"
    }
    #[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
    {
        "wasm scalar chorba"
    }
}

/// The CRC32 of `bytes` (the same value as `crc32fast::hash`).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut h = Crc32::new();
    h.update(bytes);
    h.finalize()
}

/// Continues the *raw* register `state` (not inverted) over `bytes` with the fastest path built.
#[cfg(target_arch = "wasm32")]
fn update_raw(state: u32, bytes: &[u8]) -> u32 {
    #[cfg(target_feature = "simd128")]
    {
        simd128::update(state, bytes)
    }
    #[cfg(not(target_feature = "simd128"))]
    {
        chorba::update(state, bytes)
    }
}

/// A CRC32 in progress: the same API as `crc32fast::Hasher` (`new`, `update`, `finalize`,
/// `combine`), so either can stand for the other.
#[derive(Clone, Debug)]
pub struct Crc32 {
    #[cfg(not(target_arch = "wasm32"))]
    inner: crc32fast::Hasher,
    /// The CRC32 so far (finalised form: inverted register).
    #[cfg(target_arch = "wasm32")]
    value: u32,
    /// Bytes seen so far.
    len_bytes: u64,
}

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}

impl Crc32 {
    /// The CRC32 of no bytes.
    pub fn new() -> Crc32 {
        Crc32 {
            #[cfg(not(target_arch = "wasm32"))]
            inner: crc32fast::Hasher::new(),
            #[cfg(target_arch = "wasm32")]
            value: 0,
            len_bytes: 0,
        }
    }

    /// The state after `len_bytes` bytes whose CRC32 is `value` (what [`Crc32::finalize`] and
    /// [`Crc32::len_bytes`] gave): a CRC32 sent elsewhere and combined there.
    pub fn from_parts(value: u32, len_bytes: u64) -> Crc32 {
        Crc32 {
            #[cfg(not(target_arch = "wasm32"))]
            inner: crc32fast::Hasher::new_with_initial_len(value, len_bytes),
            #[cfg(target_arch = "wasm32")]
            value,
            len_bytes,
        }
    }

    /// Bytes seen so far (appended with [`Crc32::update`] or [`Crc32::combine`]).
    pub fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    /// Appends `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        #[cfg(not(target_arch = "wasm32"))]
        self.inner.update(bytes);
        #[cfg(target_arch = "wasm32")]
        {
            self.value = !update_raw(!self.value, bytes);
        }
        self.len_bytes = self.len_bytes.wrapping_add(bytes.len() as u64);
    }

    /// The CRC32 of every byte appended.
    pub fn finalize(self) -> u32 {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.inner.finalize()
        }
        #[cfg(target_arch = "wasm32")]
        {
            self.value
        }
    }

    /// Appends the bytes `other` has seen, without seeing them again: afterwards `self` is the
    /// CRC32 of both runs, one after the other.
    pub fn combine(&mut self, other: &Crc32) {
        #[cfg(not(target_arch = "wasm32"))]
        self.inner.combine(&other.inner);
        #[cfg(target_arch = "wasm32")]
        {
            self.value = combine(self.value, other.value, other.len_bytes);
        }
        self.len_bytes = self.len_bytes.wrapping_add(other.len_bytes);
    }
}

/// The CRC32 of `A ‖ B` from `crc_a = CRC32(A)`, `crc_b = CRC32(B)` and `len_b_bytes = |B|`
/// (zlib's `crc32_combine`).
pub fn combine(crc_a: u32, crc_b: u32, len_b_bytes: u64) -> u32 {
    multiply_mod_poly(x_pow_8n(len_b_bytes), crc_a) ^ crc_b
}

/// `a · b mod P` for polynomials in reflected order (bit 31 is x^0). Branch-free: the bits of
/// `a` select by masks, not by jumps (random bits would mispredict half the branches, and this
/// runs twice per verified chunk: the fold's join and the digest's combine).
pub(crate) fn multiply_mod_poly(a: u32, mut b: u32) -> u32 {
    let mut product = 0u32;
    let mut rest = a;
    while rest != 0 {
        // All ones when the current coefficient of `a` (bit 31 of `rest`) is 1.
        let take = 0u32.wrapping_sub(rest >> 31);
        product ^= b & take;
        rest <<= 1;
        b = (b >> 1) ^ (POLY & 0u32.wrapping_sub(b & 1));
    }
    product
}

/// `x^(2^k) mod P` for k = 0..64, reflected.
#[allow(clippy::indexing_slicing)] // const evaluation: an out-of-range index fails the build
const X_POW_2K: [u32; 64] = {
    let mut table = [0u32; 64];
    let mut p = 1u32 << 30; // x^1
    let mut k = 0;
    while k < 64 {
        table[k] = p;
        // p = p · p mod P (multiply_mod_poly, spelt out: const fns cannot call loops through traits).
        let mut product = 0u32;
        let mut bit = 1u32 << 31;
        let mut b = p;
        while bit != 0 {
            if p & bit != 0 {
                product ^= b;
            }
            bit >>= 1;
            b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
        }
        p = product;
        k += 1;
    }
    table
};

/// `x^(8n) mod P`: the operator that shifts a CRC register over `n` zero bytes.
pub(crate) fn x_pow_8n(mut n_bytes: u64) -> u32 {
    let mut p = 1u32 << 31; // x^0
    let mut k = 3usize; // 8n = n · 2^3
    while n_bytes != 0 {
        if n_bytes & 1 != 0 {
            p = multiply_mod_poly(X_POW_2K.get(k).copied().unwrap_or(p), p);
        }
        n_bytes >>= 1;
        k = k.wrapping_add(1);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic bytes (xorshift), so failures reproduce.
    pub(crate) fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn known_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(scalar::crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn every_length_and_alignment_equals_crc32fast() {
        let data = noise(4096 + 64, 7);
        for align in 0..16 {
            for len in 0..=4096usize.min(data.len() - align) {
                let bytes = &data[align..align + len];
                let want = crc32fast::hash(bytes);
                assert_eq!(
                    scalar::crc32(bytes),
                    want,
                    "scalar, len {len} align {align}"
                );
                assert_eq!(
                    chorba::crc32(bytes),
                    want,
                    "chorba, len {len} align {align}"
                );
                assert_eq!(crc32(bytes), want, "len {len} align {align}");
            }
        }
    }

    #[test]
    fn combine_equals_one_pass() {
        let data = noise(70_000, 3);
        for split in [0, 1, 15, 16, 17, 4095, 65_536, 69_999, 70_000] {
            let (a, b) = data.split_at(split);
            let want = crc32fast::hash(&data);
            assert_eq!(
                combine(crc32(a), crc32(b), b.len() as u64),
                want,
                "split {split}"
            );
            let mut h = Crc32::new();
            h.update(a);
            let mut h2 = Crc32::new();
            h2.update(b);
            h.combine(&h2);
            assert_eq!(h.finalize(), want, "split {split}");
        }
    }

    #[test]
    fn from_parts_continues_and_combines() {
        let data = noise(10_000, 5);
        let (a, b) = data.split_at(3_333);
        let mut h = Crc32::from_parts(crc32(a), a.len() as u64);
        h.update(b);
        assert_eq!(h.len_bytes(), 10_000);
        assert_eq!(h.finalize(), crc32fast::hash(&data));
        let mut first = Crc32::from_parts(crc32(a), a.len() as u64);
        first.combine(&Crc32::from_parts(crc32(b), b.len() as u64));
        assert_eq!(first.finalize(), crc32fast::hash(&data));
    }

    #[test]
    fn streaming_in_pieces_equals_one_pass() {
        let data = noise(100_003, 11);
        let mut h = Crc32::new();
        let mut raw = !0u32;
        let mut folded = !0u32;
        for piece in data.chunks(777) {
            h.update(piece);
            raw = scalar::update(raw, piece);
            folded = chorba::update(folded, piece);
        }
        assert_eq!(h.finalize(), crc32fast::hash(&data));
        assert_eq!(!raw, crc32fast::hash(&data));
        assert_eq!(!folded, crc32fast::hash(&data));
    }
}
