//! CRC32 by slicing-by-16: sixteen 256-entry tables, 16 input bytes per step (the table method
//! zlib and crc32fast fall back to without a CRC instruction). `TABLES[k][b]` is the register
//! contribution of byte `b` followed by `k` zero bytes.

use super::POLY;

/// The sixteen slicing tables, computed at compile time.
#[allow(clippy::indexing_slicing)] // const evaluation: an out-of-range index fails the build
pub(crate) const TABLES: [[u32; 256]; 16] = {
    let mut t = [[0u32; 256]; 16];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 16 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            s += 1;
        }
        i += 1;
    }
    t
};

/// `table[byte]`: the index is a byte, so the bounds check folds away.
#[inline(always)]
fn at(table: &[u32; 256], byte: u32) -> u32 {
    table.get((byte & 0xff) as usize).copied().unwrap_or(0)
}

/// One table: `TABLES[k]`.
#[inline(always)]
fn table(k: usize) -> &'static [u32; 256] {
    match TABLES.get(k) {
        Some(t) => t,
        None => &EMPTY,
    }
}
static EMPTY: [u32; 256] = [0; 256];

/// Continues the raw register `state` (not inverted) over `bytes`.
pub fn update(mut state: u32, bytes: &[u8]) -> u32 {
    let (blocks, rest) = bytes.as_chunks::<16>();
    let t: [&[u32; 256]; 16] = std::array::from_fn(table);
    let [t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15] = t;
    for block in blocks {
        let [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15] = *block;
        let w = state ^ u32::from_le_bytes([b0, b1, b2, b3]);
        state = at(t15, w)
            ^ at(t14, w >> 8)
            ^ at(t13, w >> 16)
            ^ at(t12, w >> 24)
            ^ at(t11, u32::from(b4))
            ^ at(t10, u32::from(b5))
            ^ at(t9, u32::from(b6))
            ^ at(t8, u32::from(b7))
            ^ at(t7, u32::from(b8))
            ^ at(t6, u32::from(b9))
            ^ at(t5, u32::from(b10))
            ^ at(t4, u32::from(b11))
            ^ at(t3, u32::from(b12))
            ^ at(t2, u32::from(b13))
            ^ at(t1, u32::from(b14))
            ^ at(t0, u32::from(b15));
    }
    for &b in rest {
        state = (state >> 8) ^ at(t0, state ^ u32::from(b));
    }
    state
}

/// The CRC32 of `bytes` by this path alone.
pub fn crc32(bytes: &[u8]) -> u32 {
    !update(!0, bytes)
}
