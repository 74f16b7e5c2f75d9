//! `double` and `float` values written into the dump's buffer exactly as
//! [`push_double`]/[`push_float`] (`types/value/num.rs`) write them — cqlsh's `%g` layout of
//! the shortest digits closest to the value, an exact tie rounded up — but without the digits'
//! round trip through text: `ryu`'s rendering is copied as it is when it already is that layout,
//! which it is for every value with a decimal exponent of -4…15 (ryu writes `d.ddd` there, and
//! `ddd.0` for an integer, whose `.0` is dropped) and no possible tie (where ryu's ties-to-even
//! may differ). Exponents outside that range (`1.5e+300`, `1e-07`) and possible ties take the
//! general path.
//!
//! Src: Cassandra's `DoubleType`/`FloatType` values as cqlsh shows them.

use crate::types::value::{f32_parts, f64_parts, may_tie, push_double, push_float};

/// A `double` as [`push_double`] writes it.
#[inline]
pub(super) fn push_double_fast(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        let (m, e) = f64_parts(v);
        if !may_tie(m, e) {
            let mut buf = ryu::Buffer::new();
            let text = buf.format_finite(v).as_bytes();
            // The shortest digits of 10^-4 ≤ |v| < 10^16 lie in that range too, so ryu writes
            // them in plain notation (its decimal exponent -4…15): no need to look at the text.
            if (1e-4..1e16).contains(&v.abs()) {
                out.extend_from_slice(text.strip_suffix(b".0").unwrap_or(text));
                return;
            }
            if let Some(text) = plain(text) {
                out.extend_from_slice(text);
                return;
            }
        }
    }
    push_double(out, v);
}

/// A `float` as [`push_float`] writes it.
#[inline]
pub(super) fn push_float_fast(out: &mut Vec<u8>, v: f32) {
    if v.is_finite() {
        let (m, e) = f32_parts(v);
        if !may_tie(m, e) {
            let mut buf = ryu::Buffer::new();
            if let Some(text) = plain(buf.format_finite(v).as_bytes()) {
                out.extend_from_slice(text);
                return;
            }
        }
    }
    push_float(out, v);
}

/// `ryu`'s rendering of a finite value as the `%g` layout, when it is one: plain notation of a
/// decimal exponent ≥ -4 (ryu writes `0.0000d…`, exponent -5, in plain notation too: refused,
/// and so is every `e` notation), an integer's `.0` dropped (`0.0` → `0`, `-0.0` → `-0`).
#[inline]
fn plain(text: &[u8]) -> Option<&[u8]> {
    let body = text.strip_prefix(b"-").unwrap_or(text);
    if body.starts_with(b"0.0000") || text.contains(&b'e') {
        return None;
    }
    Some(text.strip_suffix(b".0").unwrap_or(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: the same pseudo-random bit patterns on every run.
    struct Bits(u64);

    impl Bits {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    fn same_double(v: f64) {
        let (mut old, mut new) = (Vec::new(), Vec::new());
        push_double(&mut old, v);
        push_double_fast(&mut new, v);
        assert_eq!(
            String::from_utf8_lossy(&new),
            String::from_utf8_lossy(&old),
            "{v:e} ({:#018x})",
            v.to_bits()
        );
    }

    fn same_float(v: f32) {
        let (mut old, mut new) = (Vec::new(), Vec::new());
        push_float(&mut old, v);
        push_float_fast(&mut new, v);
        assert_eq!(
            String::from_utf8_lossy(&new),
            String::from_utf8_lossy(&old),
            "{v:e} ({:#010x})",
            v.to_bits()
        );
    }

    #[test]
    fn doubles_print_exactly_as_the_general_path_prints_them() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.5,
            1e-4,
            1.5e-4,
            1e-5,
            1.5e-5,
            9.999e-5,
            1e15,
            1e16,
            123_456_789_012_345.6,
            9_007_199_254_740_993.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            5e-324,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            // Exact ties between two shortest candidates (ryu rounds them to even).
            0.3,
            2.5,
            1.25,
            1e23,
            9.5e-5,
        ] {
            same_double(v);
        }
        let mut bits = Bits(0x9e37_79b9_7f4a_7c15);
        for i in 0..300_000u64 {
            let r = bits.next();
            let v = match i % 6 {
                // Any bit pattern: every exponent, subnormals, NaNs, infinities.
                0 => f64::from_bits(r),
                // Subnormals.
                1 => f64::from_bits(r & 0x800f_ffff_ffff_ffff),
                // The plain-notation range, where the copy is taken.
                2 => (r >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((r % 24) as i32 - 6),
                // Integer-valued doubles, small and large.
                3 => ((r >> (r % 64)) as i64) as f64,
                // Few significant bits: short digits and ties.
                4 => (r % 100_000) as f64 / 2f64.powi((r >> 40) as i32 % 40),
                // The generator's values: uniform in ±500,000.
                _ => ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e6,
            };
            same_double(v);
            same_double(-v);
        }
    }

    #[test]
    fn floats_print_exactly_as_the_general_path_prints_them() {
        for v in [
            0.0f32,
            -0.0,
            1.0,
            0.1,
            1e-4,
            1e-5,
            1e13,
            1e14,
            1e15,
            1e16,
            f32::MIN_POSITIVE,
            f32::MAX,
            1e-45,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            2.5,
            0.3,
        ] {
            same_float(v);
        }
        let mut bits = Bits(0x2545_f491_4f6c_dd1d);
        for i in 0..300_000u64 {
            let r = bits.next();
            let v = match i % 4 {
                0 => f32::from_bits(r as u32),
                1 => f32::from_bits((r as u32) & 0x807f_ffff),
                2 => (r >> 40) as f32 / (1u32 << 24) as f32 * 10f32.powi((r % 24) as i32 - 6),
                _ => (r % 100_000) as f32 / 2f32.powi((r >> 40) as i32 % 30),
            };
            same_float(v);
            same_float(-v);
        }
    }
}
