//! Numbers: arbitrary-precision two's complement ↔ decimal (`IntegerType`, the unscaled part of
//! `DecimalType`), `BigDecimal.toString`'s layout, and cqlsh's layout of floating point.
//!
//! The base conversion works on 32-bit limbs: bytes → limbs, then repeated division by 10^9
//! (each pass yields nine decimal digits); the inverse multiplies by 10^9 and adds. Both are
//! quadratic, which is why callers cap the length ([`super::MAX_BIGNUM_BYTES`]).

use core::fmt::Write;

const CHUNK: u32 = 1_000_000_000;
const CHUNK_DIGITS: usize = 9;

/// A big-endian two's complement integer (`BigInteger(byte[])`) as a decimal string. Empty
/// input reads as 0.
pub(super) fn twos_complement_to_decimal(bytes: &[u8]) -> String {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let magnitude = if negative {
        negate(bytes)
    } else {
        bytes.to_vec()
    };
    let digits = unsigned_to_decimal(&magnitude);
    if negative {
        format!("-{digits}")
    } else {
        digits
    }
}

/// Two's complement negation of a big-endian number (invert, add one), same width. For the
/// most negative value of a width the result read as *unsigned* is its magnitude.
fn negate(bytes: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = bytes.iter().map(|b| !b).collect();
    for b in out.iter_mut().rev() {
        let (sum, carry) = b.overflowing_add(1);
        *b = sum;
        if !carry {
            break;
        }
    }
    out
}

/// An unsigned big-endian number as decimal digits ("0" for zero or empty input).
fn unsigned_to_decimal(bytes: &[u8]) -> String {
    // Big-endian limbs, the first one holding the leading `len % 4` bytes.
    let mut limbs: Vec<u32> = Vec::with_capacity((bytes.len() / 4).saturating_add(1));
    let head = bytes.len() % 4;
    let (first, rest) = bytes.split_at(head);
    if !first.is_empty() {
        limbs.push(first.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b)));
    }
    for chunk in rest.chunks(4) {
        limbs.push(chunk.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b)));
    }
    let mut chunks: Vec<u32> = Vec::new();
    let mut start = 0;
    loop {
        while limbs.get(start) == Some(&0) {
            start = start.saturating_add(1);
        }
        let Some(active) = limbs.get_mut(start..) else {
            break;
        };
        if active.is_empty() {
            break;
        }
        let mut rem: u64 = 0;
        for limb in active.iter_mut() {
            let cur = (rem << 32) | u64::from(*limb);
            // cur < CHUNK << 32, so the quotient fits in 32 bits.
            let chunk = u64::from(CHUNK);
            *limb = u32::try_from(cur.checked_div(chunk).unwrap_or(0)).unwrap_or(u32::MAX);
            rem = cur.checked_rem(chunk).unwrap_or(0);
        }
        chunks.push(u32::try_from(rem).unwrap_or(0));
    }
    let mut out =
        String::with_capacity(chunks.len().saturating_mul(CHUNK_DIGITS).saturating_add(1));
    match chunks.split_last() {
        None => out.push('0'),
        Some((top, lower)) => {
            let _ = write!(out, "{top}");
            for c in lower.iter().rev() {
                let _ = write!(out, "{c:09}");
            }
        }
    }
    out
}

/// Decimal digits (ASCII `0-9` only, at least one) to the minimal big-endian two's complement
/// encoding of `±digits` (`BigInteger.toByteArray`: zero is one `00` byte). `None` if `digits`
/// holds anything but digits.
pub(super) fn decimal_to_twos_complement(digits: &str, negative: bool) -> Option<Vec<u8>> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Little-endian limbs of the magnitude.
    let mut limbs: Vec<u32> = Vec::new();
    let lead = digits.len() % CHUNK_DIGITS;
    let mut pieces: Vec<&str> = Vec::with_capacity((digits.len() / CHUNK_DIGITS).saturating_add(1));
    let (first, mut rest) = digits.split_at(lead);
    if !first.is_empty() {
        pieces.push(first);
    }
    while let Some((piece, tail)) = rest.split_at_checked(CHUNK_DIGITS) {
        pieces.push(piece);
        rest = tail;
    }
    for piece in pieces {
        let add: u32 = piece.parse().ok()?;
        let mut carry = u64::from(add);
        for limb in limbs.iter_mut() {
            // < 2^32 × 10^9 + 2^32: never overflows, checked all the same.
            let cur = u64::from(*limb)
                .checked_mul(u64::from(CHUNK))?
                .checked_add(carry)?;
            *limb = (cur & 0xffff_ffff) as u32;
            carry = cur >> 32;
        }
        if carry != 0 {
            limbs.push(u32::try_from(carry).ok()?);
        }
    }
    // Magnitude bytes, big-endian, with one leading zero byte as room for the sign bit.
    let mut bytes: Vec<u8> = Vec::with_capacity(limbs.len().saturating_mul(4).saturating_add(1));
    bytes.push(0);
    for limb in limbs.iter().rev() {
        bytes.extend_from_slice(&limb.to_be_bytes());
    }
    let is_zero = bytes.iter().all(|&b| b == 0);
    let mut encoded = if negative && !is_zero {
        negate(&bytes)
    } else {
        bytes
    };
    // Drop redundant sign bytes: 00 before a byte < 0x80, ff before a byte ≥ 0x80.
    let mut drop = 0;
    while let (Some(&b0), Some(&b1)) = (encoded.get(drop), encoded.get(drop.saturating_add(1))) {
        let redundant = (b0 == 0 && b1 & 0x80 == 0) || (b0 == 0xff && b1 & 0x80 != 0);
        if !redundant {
            break;
        }
        drop = drop.saturating_add(1);
    }
    encoded.drain(..drop);
    Some(encoded)
}

/// `BigDecimal.toString` for `unscaled × 10^-scale`, given the unscaled value as an optional
/// `-` and its digits: plain notation when `scale ≥ 0` and the adjusted exponent
/// (`-scale + digits - 1`) is at least -6, otherwise one digit, the rest after a point, and
/// `E±n`.
pub(super) fn big_decimal_string(unscaled: &str, scale: i32) -> String {
    let (sign, coeff) = match unscaled.strip_prefix('-') {
        Some(c) => ("-", c),
        None => ("", unscaled),
    };
    let len = coeff.len() as i64;
    // |scale| < 2^31 and len < 2^63: exact in i64.
    let adjusted = len.saturating_sub(1).saturating_sub(i64::from(scale));
    let mut out = String::with_capacity(coeff.len().saturating_add(16));
    out.push_str(sign);
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            out.push_str(coeff);
        } else if coeff.len() > scale {
            let (int, frac) = coeff.split_at(coeff.len().saturating_sub(scale));
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        } else {
            out.push_str("0.");
            out.extend(core::iter::repeat_n('0', scale.saturating_sub(coeff.len())));
            out.push_str(coeff);
        }
    } else {
        let mut chars = coeff.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        let rest = chars.as_str();
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('E');
        if adjusted >= 0 {
            out.push('+');
        }
        let _ = write!(out, "{adjusted}");
    }
    out
}

/// A `BigDecimal` string (`[+-]digits[.digits][e[+-]digits]`, `.5` and `5.` allowed) as its
/// sign, all its digits (the unscaled value) and its scale. Err: why not.
pub(super) fn parse_big_decimal(s: &str) -> Result<(bool, String, i32), String> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (
            body.get(..at).unwrap_or(""),
            Some(body.get(at.saturating_add(1)..).unwrap_or("")),
        ),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return Err(format!("expected a decimal number, found '{s}'"));
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !all_digits(digits) {
                return Err(format!("bad exponent in '{s}'"));
            }
            e.strip_prefix('+')
                .unwrap_or(e)
                .parse()
                .map_err(|_| format!("exponent out of range in '{s}'"))?
        }
    };
    let scale = (frac.len() as i64)
        .checked_sub(exponent)
        .and_then(|v| i32::try_from(v).ok())
        .ok_or_else(|| format!("scale of '{s}' does not fit in 32 bits"))?;
    let mut digits = String::with_capacity(int.len().saturating_add(frac.len()));
    digits.push_str(int);
    digits.push_str(frac);
    Ok((negative, digits, scale))
}

/// The shortest decimal digits that read back to a finite float: sign, significant digits
/// (no leading or trailing zeros; `0` for zero) and the decimal exponent of the first digit.
/// `text` is Rust's `{:e}` rendering (`1.5e-7`, `0e0`) or `ryu`'s (`126336.01712674214`,
/// `1e-7`, `0.0001`, `0.0`).
struct ShortestDigits {
    negative: bool,
    digits: [u8; 24],
    len: usize,
    exp: i64,
}

impl ShortestDigits {
    fn parse(text: &str) -> ShortestDigits {
        let bytes = text.as_bytes();
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', r)) => (true, r),
            _ => (false, bytes),
        };
        let (mantissa, e) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
            Some(i) => (
                rest.get(..i).unwrap_or(&[]),
                rest.get(i.saturating_add(1)..).unwrap_or(&[]),
            ),
            None => (rest, &[][..]),
        };
        let e = {
            let (neg, digits) = match e.split_first() {
                Some((b'-', d)) => (true, d),
                Some((b'+', d)) => (false, d),
                _ => (false, e),
            };
            let v = digits.iter().fold(0i64, |v, &b| {
                v.saturating_mul(10)
                    .saturating_add(i64::from(b.wrapping_sub(b'0')))
            });
            if neg {
                v.saturating_neg()
            } else {
                v
            }
        };
        let mut digits = [b'0'; 24];
        let mut len = 0usize;
        // Digits before the point (or all, without one), and zeros before the first significant
        // digit.
        let int_len = mantissa
            .iter()
            .position(|&b| b == b'.')
            .unwrap_or(mantissa.len()) as i64;
        let mut leading_zeros = 0i64;
        for &b in mantissa {
            if !b.is_ascii_digit() {
                continue;
            }
            if len == 0 && b == b'0' {
                leading_zeros = leading_zeros.saturating_add(1);
                continue;
            }
            if let Some(slot) = digits.get_mut(len) {
                *slot = b;
                len = len.saturating_add(1);
            }
        }
        while len > 1 && digits.get(len.saturating_sub(1)) == Some(&b'0') {
            len = len.saturating_sub(1);
        }
        if len == 0 {
            return ShortestDigits {
                negative,
                digits,
                len: 1,
                exp: 0,
            };
        }
        ShortestDigits {
            negative,
            digits,
            len,
            exp: int_len
                .saturating_sub(1)
                .saturating_sub(leading_zeros)
                .saturating_add(e),
        }
    }

    fn digits(&self) -> &[u8] {
        self.digits.get(..self.len).unwrap_or(&[])
    }

    /// Lays the digits out the way cqlsh's `%g` does, but with the shortest digits: plain
    /// notation for exponents -4…15, else `d.ddde±XX` (at least two exponent digits).
    fn layout(&self, out: &mut Vec<u8>) {
        let digits = self.digits();
        let exp = self.exp;
        if self.negative {
            out.push(b'-');
        }
        if (-4..16).contains(&exp) {
            if exp >= 0 {
                // 0 <= exp < 16 here.
                let int_len = (exp as usize).saturating_add(1);
                if digits.len() <= int_len {
                    out.extend_from_slice(digits);
                    out.extend(core::iter::repeat_n(
                        b'0',
                        int_len.saturating_sub(digits.len()),
                    ));
                } else {
                    let (int, frac) = digits.split_at(int_len);
                    out.extend_from_slice(int);
                    out.push(b'.');
                    out.extend_from_slice(frac);
                }
            } else {
                out.extend_from_slice(b"0.");
                out.extend(core::iter::repeat_n(
                    b'0',
                    exp.unsigned_abs().saturating_sub(1) as usize,
                ));
                out.extend_from_slice(digits);
            }
        } else {
            if let Some((first, frac)) = digits.split_first() {
                out.push(*first);
                if !frac.is_empty() {
                    out.push(b'.');
                    out.extend_from_slice(frac);
                }
            }
            out.push(b'e');
            out.push(if exp < 0 { b'-' } else { b'+' });
            // A float's decimal exponent has at most three digits; at least two are written.
            let e = exp.unsigned_abs().min(999);
            if e >= 100 {
                out.push(b'0'.saturating_add((e / 100) as u8));
            }
            out.push(b'0'.saturating_add((e / 10 % 10) as u8));
            out.push(b'0'.saturating_add((e % 10) as u8));
        }
    }
}

/// Rust's `{:e}` rendering of a float, on the stack (at most 32 bytes: `-d.dddddddddddddddde-ddd`).
struct SciText {
    buf: [u8; 32],
    len: usize,
}

impl Write for SciText {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(core::fmt::Error)?;
        let slot = self.buf.get_mut(self.len..end).ok_or(core::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The digits of a finite float by Rust's shortest round-trip formatting (`{:e}`: the digits
/// closest to the value; an exact tie rounds up), without allocating.
fn shortest_digits(v: impl core::fmt::LowerExp) -> ShortestDigits {
    let mut sci = SciText {
        buf: [0; 32],
        len: 0,
    };
    let _ = write!(sci, "{v:e}");
    let text = sci
        .buf
        .get(..sci.len)
        .and_then(|b| core::str::from_utf8(b).ok())
        .unwrap_or("0e0");
    ShortestDigits::parse(text)
}

/// Whether the shortest digits of the finite float `m · 2^e` (`m` the integer significand)
/// might be an exact tie between two candidates — the one case where `ryu` (ties to even) and
/// Rust's `{:e}` (ties up) differ. A tie at digit unit 10^k needs the value to be an odd
/// multiple of 5·10^(k-1) — a lowest set bit of 2^(k-1), so k = 1 - f for a value with f ≥ 2
/// fractional bits — and two candidates but no multiple of 10^(k+1) within half the float
/// spacing 2^e: 10^k ≤ 2^e < 10^(k+1), k = ⌊e·log10 2⌋. Integers never tie. Conservative (one
/// unit of margin each way): a "maybe" only takes the slower exact path.
pub(crate) fn may_tie(m: u64, e: i32) -> bool {
    if m == 0 {
        return false;
    }
    let lowest_bit = i64::from(e).saturating_add(i64::from(m.trailing_zeros()));
    if lowest_bit >= -1 {
        return false;
    }
    let k_needed = lowest_bit.saturating_add(2);
    let k_spacing = i64::from(e).saturating_mul(30_103).div_euclid(100_000);
    k_needed.abs_diff(k_spacing) <= 1
}

/// `m` and `e` with |v| = m · 2^e for a finite `f64`.
pub(crate) fn f64_parts(v: f64) -> (u64, i32) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp.saturating_sub(1075))
    }
}

/// `m` and `e` with |v| = m · 2^e for a finite `f32`.
pub(crate) fn f32_parts(v: f32) -> (u64, i32) {
    let bits = v.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = u64::from(bits & ((1u32 << 23) - 1));
    if exp == 0 {
        (frac, -149)
    } else {
        (frac | (1u64 << 23), exp.saturating_sub(150))
    }
}

/// A finite or special `f64` as cqlsh shows it (`NaN`, `Infinity`, shortest digits laid out
/// like `%g`), into `out`, without allocating. The digits are Rust's `{:e}` digits (closest to
/// the value, an exact tie rounded up), found by `ryu` except where a tie is possible.
pub(crate) fn push_double(out: &mut Vec<u8>, v: f64) {
    if v.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if v.is_infinite() {
        out.extend_from_slice(if v > 0.0 { b"Infinity" } else { b"-Infinity" });
    } else {
        let (m, e) = f64_parts(v);
        if may_tie(m, e) {
            shortest_digits(v).layout(out);
        } else {
            ShortestDigits::parse(ryu::Buffer::new().format_finite(v)).layout(out);
        }
    }
}

/// [`push_double`] of an `f32` (its own shortest digits, not the widened `f64`'s).
pub(crate) fn push_float(out: &mut Vec<u8>, v: f32) {
    if v.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if v.is_infinite() {
        out.extend_from_slice(if v > 0.0 { b"Infinity" } else { b"-Infinity" });
    } else {
        let (m, e) = f32_parts(v);
        if may_tie(m, e) {
            shortest_digits(v).layout(out);
        } else {
            ShortestDigits::parse(ryu::Buffer::new().format_finite(v)).layout(out);
        }
    }
}

/// Cassandra's unsigned vint (`VIntCoding.writeUnsignedVInt`): the count of extra bytes as
/// leading 1-bits of the first byte, then the value big-endian; 9 bytes (`ff` + 8) above 2^56.
pub(super) fn write_unsigned_vint(value: u64, out: &mut Vec<u8>) {
    let bits = u64::BITS.saturating_sub(value.leading_zeros());
    let extra = bits.saturating_sub(1) / 7;
    if extra >= 8 {
        out.push(0xff);
        out.extend_from_slice(&value.to_be_bytes());
        return;
    }
    let be = value.to_be_bytes();
    let first_marker = (0xff00u32 >> extra) as u8;
    let top = if extra == 0 {
        value as u8
    } else {
        // extra < 8 here, so the shift is below 64.
        (value >> extra.saturating_mul(8)) as u8
    };
    out.push(first_marker | top);
    out.extend(be.iter().skip(8usize.saturating_sub(extra as usize)));
}

/// Cassandra's signed vint: zigzag, then [`write_unsigned_vint`].
pub(super) fn write_signed_vint(value: i64, out: &mut Vec<u8>) {
    write_unsigned_vint(((value << 1) ^ (value >> 63)) as u64, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vints_match_the_format_table() {
        use crate::reader::Reader;
        let cases: &[(u64, &[u8])] = &[
            (0, &[0x00]),
            (127, &[0x7f]),
            (128, &[0x80, 0x80]),
            (300, &[0x81, 0x2c]),
            (16383, &[0xbf, 0xff]),
            (16384, &[0xc0, 0x40, 0x00]),
            ((1 << 21) - 1, &[0xdf, 0xff, 0xff]),
            (
                (1 << 56) - 1,
                &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
            (1 << 56, &[0xff, 0x01, 0, 0, 0, 0, 0, 0, 0]),
            (1 << 63, &[0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]),
        ];
        for (v, bytes) in cases {
            let mut out = Vec::new();
            write_unsigned_vint(*v, &mut out);
            assert_eq!(out, bytes.to_vec(), "{v}");
        }
        for v in [0i64, 1, -1, 63, -64, 64, -1000, i64::MAX, i64::MIN, 1 << 40] {
            let mut out = Vec::new();
            write_signed_vint(v, &mut out);
            let mut r = Reader::new(&out, 0);
            assert_eq!(r.signed_vint("v").unwrap(), v);
            assert!(r.is_empty());
        }
        let mut out = Vec::new();
        write_signed_vint(-1000, &mut out);
        assert_eq!(out, vec![0x87, 0xcf]);
    }

    #[test]
    fn twos_complement_conversions() {
        // Expected values from Python's int.from_bytes(b, 'big', signed=True).
        let cases: &[(&[u8], &str)] = &[
            (&[0x00], "0"),
            (&[0x01], "1"),
            (&[0x7f], "127"),
            (&[0x80], "-128"),
            (&[0xff], "-1"),
            (&[0x00, 0x80], "128"),
            (&[0xff, 0x7f], "-129"),
            (&[0x3b, 0x9a, 0xca, 0x00], "1000000000"),
            (
                &[0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                "18446744073709551615",
            ),
            (
                &[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "-170141183460469231731687303715884105728",
            ),
            (
                &[0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "340282366920938463463374607431768211456",
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(twos_complement_to_decimal(bytes), *want, "{bytes:02x?}");
            let (neg, digits) = match want.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, *want),
            };
            assert_eq!(
                decimal_to_twos_complement(digits, neg).unwrap(),
                bytes.to_vec(),
                "{want}"
            );
        }
        // Non-minimal encodings still read right.
        assert_eq!(twos_complement_to_decimal(&[0, 0, 1]), "1");
        assert_eq!(twos_complement_to_decimal(&[0xff, 0xff, 0xfe]), "-2");
        assert_eq!(twos_complement_to_decimal(&[]), "0");
        assert_eq!(decimal_to_twos_complement("000", true).unwrap(), vec![0]);
        assert_eq!(decimal_to_twos_complement("", false), None);
        assert_eq!(decimal_to_twos_complement("1a", false), None);
    }

    #[test]
    fn big_decimal_layout_matches_java() {
        // Expected values: Java BigDecimal(new BigInteger(u), scale).toString(), which Python's
        // str(Decimal) matches.
        let cases = [
            ("123", 0, "123"),
            ("123", 2, "1.23"),
            ("150", 2, "1.50"),
            ("1", 6, "0.000001"),
            ("1", 7, "1E-7"),
            ("123", 10, "1.23E-8"),
            ("1", -3, "1E+3"),
            ("123", -2, "1.23E+4"),
            ("0", 2, "0.00"),
            ("0", -2, "0E+2"),
            ("0", 0, "0"),
            ("-5", 1, "-0.5"),
            ("-12345", -1, "-1.2345E+5"),
            ("12345678901234567890", 30, "1.2345678901234567890E-11"),
        ];
        for (u, scale, want) in cases {
            assert_eq!(big_decimal_string(u, scale), want, "{u} scale {scale}");
        }
    }

    #[test]
    fn big_decimal_parsing() {
        assert_eq!(parse_big_decimal("1.50").unwrap(), (false, "150".into(), 2));
        assert_eq!(parse_big_decimal("-1E+3").unwrap(), (true, "1".into(), -3));
        assert_eq!(
            parse_big_decimal("1.23E-8").unwrap(),
            (false, "123".into(), 10)
        );
        assert_eq!(parse_big_decimal(".5").unwrap(), (false, "5".into(), 1));
        assert_eq!(parse_big_decimal("5.").unwrap(), (false, "5".into(), 0));
        assert_eq!(parse_big_decimal("+7e2").unwrap(), (false, "7".into(), -2));
        for bad in [
            "",
            ".",
            "e5",
            "1e",
            "1.2.3",
            "abc",
            "1e+-2",
            "1e99999999999",
            "--1",
        ] {
            assert!(parse_big_decimal(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn float_layout_matches_cqlsh_g() {
        // Python: '%g'-style layout of repr's digits.
        let cases = [
            (1.5f64, "1.5"),
            (1.0, "1"),
            (100.0, "100"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e20, "1e+20"),
            (1e15, "1000000000000000"),
            (1e16, "1e+16"),
            (123456789.125, "123456789.125"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (-0.0, "-0"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        let text = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut out = Vec::new();
            f(&mut out);
            String::from_utf8(out).unwrap()
        };
        for (v, want) in cases {
            assert_eq!(text(&|o| push_double(o, v)), want, "{v}");
        }
        assert_eq!(text(&|o| push_float(o, 1.1f32)), "1.1");
        assert_eq!(text(&|o| push_float(o, 3.4028235e38f32)), "3.4028235e+38");
        assert_eq!(text(&|o| push_double(o, f64::NAN)), "NaN");
        assert_eq!(text(&|o| push_double(o, f64::NEG_INFINITY)), "-Infinity");
    }

    /// The stack rendering gives what the allocating `format!("{v:e}")` gives, over many bit
    /// patterns of every magnitude; plain renderings parse to the same digits.
    #[test]
    fn ryu_and_stack_renderings_equal_the_allocating_one() {
        let via = |sci: &str| {
            let mut out = Vec::new();
            ShortestDigits::parse(sci).layout(&mut out);
            out
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..100_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = f64::from_bits(if i % 4 == 0 { x >> 12 } else { x });
            if d.is_finite() {
                let mut ours = Vec::new();
                push_double(&mut ours, d);
                assert_eq!(ours, via(&format!("{d:e}")), "{d:e}");
            }
            let f = f32::from_bits(x as u32);
            if f.is_finite() {
                let mut ours = Vec::new();
                push_float(&mut ours, f);
                assert_eq!(ours, via(&format!("{f:e}")), "{f:e}");
            }
        }
        // Tie-prone values: short binary fractions at the top of the precision.
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let shift = (x % 60) as i32;
            let d = (x >> 11) as f64 / f64::from(2u32).powi(shift) / 4.0;
            let f = ((x >> 40) as f32) / 2f32.powi((i % 30) as i32);
            for d in [d, -d] {
                let mut ours = Vec::new();
                push_double(&mut ours, d);
                assert_eq!(ours, via(&format!("{d:e}")), "{d:e}");
            }
            let mut ours = Vec::new();
            push_float(&mut ours, f);
            assert_eq!(ours, via(&format!("{f:e}")), "{f:e}");
        }
        for (d, want) in [
            (2f64.powi(49) + 0.25, "562949953421312.3"),
            (2f64.powi(49) + 0.75, "562949953421312.8"),
        ] {
            let mut ours = Vec::new();
            push_double(&mut ours, d);
            assert_eq!(String::from_utf8(ours).unwrap(), want);
        }
        let mut ours = Vec::new();
        // An exact tie: 312985.125 is halfway between 312985.12 and 312985.13.
        push_float(&mut ours, 312_985.0f32 + 0.125);
        assert_eq!(String::from_utf8(ours).unwrap(), "312985.13");
        for (plain, sci) in [
            ("126336.01712674214", "1.2633601712674214e5"),
            ("0.0001", "1e-4"),
            ("100.0", "1e2"),
            ("-0.0", "-0e0"),
            ("0.0", "0e0"),
        ] {
            assert_eq!(via(plain), via(sci), "{plain}");
        }
    }
}
