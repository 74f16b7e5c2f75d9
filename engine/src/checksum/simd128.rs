//! The [`super::chorba`] fold with WebAssembly `simd128`: the two halves' words are the two
//! `u64x2` lanes of one `v128`, so each step is two 64-bit loads, nine `i64x2` shifts and XORs.
//! WebAssembly has no carry-less multiply, and this needs none.

use core::arch::wasm32::{u64x2, u64x2_extract_lane, u64x2_shl, u64x2_shr, v128, v128_xor};

use super::chorba::{self, Lanes};

/// [`Lanes`] as one `v128` (`u64x2`).
#[derive(Clone, Copy)]
pub(crate) struct Vector(v128);

impl Lanes for Vector {
    #[inline(always)]
    fn from_words(first: u64, second: u64) -> Self {
        Vector(u64x2(first, second))
    }
    #[inline(always)]
    fn words(self) -> [u64; 2] {
        [
            u64x2_extract_lane::<0>(self.0),
            u64x2_extract_lane::<1>(self.0),
        ]
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        Vector(v128_xor(self.0, other.0))
    }
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        Vector(u64x2_shl(self.0, N))
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        Vector(u64x2_shr(self.0, N))
    }
}

/// Continues the raw register `state` (not inverted) over `bytes`.
pub fn update(state: u32, bytes: &[u8]) -> u32 {
    chorba::update_with::<Vector>(state, bytes)
}
