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

/// Lays out a float the way cqlsh's `%g` does, but with the shortest digits that read back to
/// the same value. `sci` is Rust's `{:e}` rendering of a finite value (`-1.5e-7`, `1e20`,
/// `0e0`): plain notation for exponents -4…15, else `d.ddde±XX` (at least two exponent digits).
pub(super) fn layout_float(sci: &str) -> String {
    let (negative, rest) = match sci.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, sci),
    };
    let (mantissa, exp) = rest.split_once('e').unwrap_or((rest, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::with_capacity(digits.len().saturating_add(24));
    if negative {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            // 0 <= exp < 16 here.
            let int_len = (exp as usize).saturating_add(1);
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(core::iter::repeat_n(
                    '0',
                    int_len.saturating_sub(digits.len()),
                ));
            } else {
                let (int, frac) = digits.split_at(int_len);
                out.push_str(int);
                out.push('.');
                out.push_str(frac);
            }
        } else {
            out.push_str("0.");
            out.extend(core::iter::repeat_n(
                '0',
                exp.unsigned_abs().saturating_sub(1) as usize,
            ));
            out.push_str(&digits);
        }
    } else {
        let mut chars = digits.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        let frac = chars.as_str();
        if !frac.is_empty() {
            out.push('.');
            out.push_str(frac);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        );
    }
    out
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
        for (v, want) in cases {
            assert_eq!(layout_float(&format!("{v:e}")), want, "{v}");
        }
        assert_eq!(layout_float(&format!("{:e}", 1.1f32)), "1.1");
        assert_eq!(
            layout_float(&format!("{:e}", 3.4028235e38f32)),
            "3.4028235e+38"
        );
    }
}
