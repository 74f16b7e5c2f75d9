//! CRC32 with WebAssembly `simd128`, which has no carry-less multiply: the buffer is cut into 16
//! equal streams, one per vector lane, and all 16 registers advance one byte per step with
//! 4-bit table lookups (`i8x16.swizzle` looks up 16 lanes at once). A register is kept as four
//! byte planes (`planes[b]` holds byte `b` of every lane's register), so shifting it by a byte is
//! a renaming, not an instruction. 16×16 input bytes are transposed (four rounds of byte
//! interleaves) so that one vector holds the next byte of every stream. The 16 registers are then
//! joined with [`super::combine`]'s operator; what does not fill the 16 streams goes through
//! [`super::scalar`].

use core::arch::wasm32::{
    i8x16_shuffle, i8x16_swizzle, u8x16, u8x16_extract_lane, u8x16_shr, u8x16_splat, v128,
    v128_and, v128_xor,
};

use super::scalar::{self, TABLES};
use super::{multiply_mod_poly, x_pow_8n};

/// Lanes, and streams.
const LANES: usize = 16;
/// Below this many bytes the scalar path is as fast.
const MIN_BYTES: usize = 2048;

/// Byte `plane` of `TABLES[0][n << shift]` for n = 0..16 (a 16-entry swizzle table).
const fn nibble_table(shift: u32, plane: u32) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        #[allow(clippy::indexing_slicing)] // const evaluation
        {
            out[n] = (TABLES[0][n << shift] >> (8 * plane)) as u8;
        }
        n += 1;
    }
    out
}

fn vector(bytes: [u8; 16]) -> v128 {
    let [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15] = bytes;
    u8x16(
        b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15,
    )
}

fn lanes(v: v128) -> [u8; 16] {
    [
        u8x16_extract_lane::<0>(v),
        u8x16_extract_lane::<1>(v),
        u8x16_extract_lane::<2>(v),
        u8x16_extract_lane::<3>(v),
        u8x16_extract_lane::<4>(v),
        u8x16_extract_lane::<5>(v),
        u8x16_extract_lane::<6>(v),
        u8x16_extract_lane::<7>(v),
        u8x16_extract_lane::<8>(v),
        u8x16_extract_lane::<9>(v),
        u8x16_extract_lane::<10>(v),
        u8x16_extract_lane::<11>(v),
        u8x16_extract_lane::<12>(v),
        u8x16_extract_lane::<13>(v),
        u8x16_extract_lane::<14>(v),
        u8x16_extract_lane::<15>(v),
    ]
}

/// One round of the transpose: `out[2i] = lo(in[i], in[i+8])`, `out[2i+1] = hi(in[i], in[i+8])`.
/// Four rounds move byte (row r, column c) to (row c, column r).
#[inline(always)]
fn interleave_round(v: [v128; 16]) -> [v128; 16] {
    let [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15] = v;
    macro_rules! lo {
        ($a:expr, $b:expr) => {
            i8x16_shuffle::<0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23>($a, $b)
        };
    }
    macro_rules! hi {
        ($a:expr, $b:expr) => {
            i8x16_shuffle::<8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31>($a, $b)
        };
    }
    [
        lo!(a0, a8),
        hi!(a0, a8),
        lo!(a1, a9),
        hi!(a1, a9),
        lo!(a2, a10),
        hi!(a2, a10),
        lo!(a3, a11),
        hi!(a3, a11),
        lo!(a4, a12),
        hi!(a4, a12),
        lo!(a5, a13),
        hi!(a5, a13),
        lo!(a6, a14),
        hi!(a6, a14),
        lo!(a7, a15),
        hi!(a7, a15),
    ]
}

/// Continues the raw register `state` (not inverted) over `bytes`.
pub fn update(state: u32, bytes: &[u8]) -> u32 {
    // Bytes per stream: a multiple of 16, the same for all 16 streams.
    let stream_bytes = bytes.len() / (LANES * 16) * 16;
    let body_bytes = stream_bytes * LANES;
    if bytes.len() < MIN_BYTES || stream_bytes == 0 {
        return scalar::update(state, bytes);
    }
    let Some((body, tail)) = bytes.split_at_checked(body_bytes) else {
        return scalar::update(state, bytes);
    };
    let low: [v128; 4] = std::array::from_fn(|p| vector(nibble_table(0, p as u32)));
    let high: [v128; 4] = std::array::from_fn(|p| vector(nibble_table(4, p as u32)));
    let [l0, l1, l2, l3] = low;
    let [h0, h1, h2, h3] = high;
    let mask = u8x16_splat(0x0f);
    // Lane 0 continues `state`; the other streams start from 0 and are shifted into place later.
    let [s0, s1, s2, s3] = state.to_le_bytes();
    let first = |b: u8| u8x16(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    let (mut p0, mut p1, mut p2, mut p3) = (first(s0), first(s1), first(s2), first(s3));

    let streams: [&[[u8; 16]]; LANES] = std::array::from_fn(|k| {
        body.get(k * stream_bytes..(k + 1) * stream_bytes)
            .unwrap_or(&[])
            .as_chunks::<16>()
            .0
    });
    let blocks = stream_bytes / 16;
    for i in 0..blocks {
        let mut rows: [v128; 16] = std::array::from_fn(|k| {
            vector(
                streams
                    .get(k)
                    .and_then(|s| s.get(i))
                    .copied()
                    .unwrap_or([0; 16]),
            )
        });
        for _ in 0..4 {
            rows = interleave_round(rows);
        }
        for next in rows {
            let x = v128_xor(p0, next);
            let lo = v128_and(x, mask);
            let hi = u8x16_shr(x, 4);
            p0 = v128_xor(p1, v128_xor(i8x16_swizzle(l0, lo), i8x16_swizzle(h0, hi)));
            p1 = v128_xor(p2, v128_xor(i8x16_swizzle(l1, lo), i8x16_swizzle(h1, hi)));
            p2 = v128_xor(p3, v128_xor(i8x16_swizzle(l2, lo), i8x16_swizzle(h2, hi)));
            p3 = v128_xor(i8x16_swizzle(l3, lo), i8x16_swizzle(h3, hi));
        }
    }
    let (b0, b1, b2, b3) = (lanes(p0), lanes(p1), lanes(p2), lanes(p3));
    let shift = x_pow_8n(stream_bytes as u64);
    let mut joined = 0u32;
    for k in 0..LANES {
        let byte = |plane: &[u8; 16]| plane.get(k).copied().unwrap_or(0);
        let register = u32::from_le_bytes([byte(&b0), byte(&b1), byte(&b2), byte(&b3)]);
        joined = if k == 0 {
            register
        } else {
            multiply_mod_poly(shift, joined) ^ register
        };
    }
    scalar::update(joined, tail)
}
