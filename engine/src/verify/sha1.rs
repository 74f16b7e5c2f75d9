//! A small streaming SHA-1 (FIPS 180-4), for the `Digest.sha1` that Cassandra 2.0 (`jb`, and
//! older `ic`) writes beside Data.db. Not for security: it only recomputes a stored file hash.
//!
//! | step | what |
//! |---|---|
//! | state | five u32 words, initialised to `67452301 efcdab89 98badcfe 10325476 c3d2e1f0` |
//! | block | 64 bytes → 16 big-endian words, expanded to 80 with `w[t] = rotl1(w[t-3] ^ w[t-8] ^ w[t-14] ^ w[t-16])` |
//! | rounds | 4 × 20 rounds with `ch`, `parity`, `maj`, `parity` and constants `5a827999 6ed9eba1 8f1bbcdc ca62c1d6` |
//! | padding | `0x80`, zeros to 56 mod 64, then the message length in bits as u64 BE |
//!
//! The algorithm is FIPS 180-4 §6.1. That a 2.0 `Digest.sha1` is the SHA-1 of every byte of Data.db
//! is checked on the `jb/Keyspace1` fixture (see `component/digest.rs` for the file's text layout).

const BLOCK_BYTES: usize = 64;

/// An in-progress SHA-1.
#[derive(Clone)]
pub struct Sha1 {
    state: [u32; 5],
    /// Bytes of an unfinished block (always fewer than 64).
    pending: Vec<u8>,
    len_bytes: u64,
}

impl Default for Sha1 {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Sha1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sha1")
            .field("len_bytes", &self.len_bytes)
            .finish()
    }
}

impl Sha1 {
    pub fn new() -> Self {
        Sha1 {
            state: [
                0x6745_2301,
                0xefcd_ab89,
                0x98ba_dcfe,
                0x1032_5476,
                0xc3d2_e1f0,
            ],
            pending: Vec::with_capacity(BLOCK_BYTES),
            len_bytes: 0,
        }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        self.len_bytes = self.len_bytes.wrapping_add(bytes.len() as u64);
        if !self.pending.is_empty() {
            let need = BLOCK_BYTES - self.pending.len();
            let (head, rest) = bytes
                .split_at_checked(need.min(bytes.len()))
                .unwrap_or((bytes, &[]));
            self.pending.extend_from_slice(head);
            bytes = rest;
            if self.pending.len() == BLOCK_BYTES {
                compress(&mut self.state, &self.pending);
                self.pending.clear();
            }
        }
        let mut blocks = bytes.chunks_exact(BLOCK_BYTES);
        for block in &mut blocks {
            compress(&mut self.state, block);
        }
        self.pending.extend_from_slice(blocks.remainder());
    }

    /// The 20-byte digest.
    pub fn finish(mut self) -> [u8; 20] {
        let bit_len = self.len_bytes.wrapping_mul(8);
        let mut tail = core::mem::take(&mut self.pending);
        tail.push(0x80);
        while tail.len() % BLOCK_BYTES != BLOCK_BYTES - 8 {
            tail.push(0);
        }
        tail.extend_from_slice(&bit_len.to_be_bytes());
        for block in tail.chunks_exact(BLOCK_BYTES) {
            compress(&mut self.state, block);
        }
        let mut out = [0u8; 20];
        for (dst, word) in out.chunks_exact_mut(4).zip(self.state) {
            dst.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    /// The digest as 40 lowercase hex digits.
    pub fn finish_hex(self) -> String {
        use core::fmt::Write as _;
        self.finish()
            .iter()
            .fold(String::with_capacity(40), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            })
    }
}

/// One 64-byte block. The message schedule is kept as a 16-word window: `w[0]` is the word of
/// the current round and `w[k]` the word of round `t + k`.
fn compress(state: &mut [u32; 5], block: &[u8]) {
    let mut w = [0u32; 16];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        let mut b = [0u8; 4];
        b.copy_from_slice(bytes);
        *word = u32::from_be_bytes(b);
    }
    let [mut a, mut b, mut c, mut d, mut e] = *state;
    for t in 0..80 {
        let (f, k) = match t {
            0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
            20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
            _ => (b ^ c ^ d, 0xca62_c1d6),
        };
        let temp = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(w[0]);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = temp;
        // w[t + 16] from w[t + 13], w[t + 8], w[t + 2], w[t].
        let next = (w[13] ^ w[8] ^ w[2] ^ w[0]).rotate_left(1);
        w.rotate_left(1);
        w[15] = next;
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e]) {
        *s = s.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(data: &[u8]) -> String {
        let mut h = Sha1::new();
        h.update(data);
        h.finish_hex()
    }

    #[test]
    fn fips_vectors() {
        assert_eq!(hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        let million = vec![b'a'; 1_000_000];
        assert_eq!(hex(&million), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    }

    #[test]
    fn split_updates_match_one_update() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 31 % 251) as u8).collect();
        let whole = hex(&data);
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 128, 999, 1000] {
            let mut h = Sha1::new();
            h.update(&data[..split]);
            h.update(&data[split..]);
            assert_eq!(h.finish_hex(), whole, "split at {split}");
        }
        let mut h = Sha1::new();
        for b in &data {
            h.update(core::slice::from_ref(b));
        }
        assert_eq!(h.finish_hex(), whole);
    }
}
