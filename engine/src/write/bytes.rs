//! Big-endian output primitives: the write side of [`crate::reader::Reader`].
//!
//! | writer | layout (sstable-format.md §2) | Src |
//! |---|---|---|
//! | [`Out::unsigned_vint`] | Cassandra vint: leading 1-bits of the first byte count the extra bytes | `utils/vint/VIntCoding.java` |
//! | [`Out::signed_vint`] | zigzag, then unsigned vint | same |
//! | [`Out::short_length_bytes`] / [`Out::int_length_bytes`] / [`Out::vint_length_bytes`] | u16 / i32 / vint length + bytes | `utils/ByteBufferUtil.java` |
//! | [`Out::utf`] | `DataOutput.writeUTF`: u16 length + Java modified UTF-8 | `java.io.DataOutputStream` |
//! | [`Out::leb128_u32`] | stream-lib `Varint.writeUnsignedVarInt` (7 bits per byte, low group first) | stream-lib `util/Varint.java` |

use crate::error::{Error, Result};

/// Bytes an unsigned vint of `value` takes (`VIntCoding.computeUnsignedVIntSize`): 1 byte per 7
/// value bits up to 8 bytes, 9 bytes above 56 bits.
pub fn unsigned_vint_size(value: u64) -> usize {
    let magnitude = (value | 1).leading_zeros() as usize;
    // magnitude ≤ 63, so 639 − 9 × magnitude ≥ 72: never below zero.
    639usize.saturating_sub(magnitude.saturating_mul(9)) >> 6
}

/// Appending big-endian encoders on a byte buffer.
pub trait Out {
    fn u8(&mut self, v: u8);
    fn u16(&mut self, v: u16);
    fn i32(&mut self, v: i32);
    fn u32(&mut self, v: u32);
    fn i64(&mut self, v: i64);
    fn f64(&mut self, v: f64);
    fn unsigned_vint(&mut self, v: u64);
    fn signed_vint(&mut self, v: i64);
    /// u16 length + bytes; longer than 65535 bytes is an error.
    fn short_length_bytes(&mut self, bytes: &[u8], what: &str) -> Result<()>;
    /// i32 length + bytes.
    fn int_length_bytes(&mut self, bytes: &[u8], what: &str) -> Result<()>;
    /// Unsigned vint length + bytes.
    fn vint_length_bytes(&mut self, bytes: &[u8]);
    /// `writeUTF`: u16 length + modified UTF-8.
    fn utf(&mut self, s: &str) -> Result<()>;
    fn leb128_u32(&mut self, v: u32);
}

impl Out for Vec<u8> {
    fn u8(&mut self, v: u8) {
        self.push(v);
    }

    fn u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_be_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_be_bytes());
    }

    fn u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_be_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.extend_from_slice(&v.to_be_bytes());
    }

    fn f64(&mut self, v: f64) {
        self.extend_from_slice(&v.to_be_bytes());
    }

    fn unsigned_vint(&mut self, v: u64) {
        let size = unsigned_vint_size(v);
        if size == 1 {
            self.push(v as u8);
            return;
        }
        let extra = size.saturating_sub(1); // size ≥ 2 here
        let be = v.to_be_bytes();
        // The low `extra` bytes follow the first byte; a 9-byte vint's first byte is all ones.
        let first = if extra >= 8 {
            0xff
        } else {
            // extra ≤ 7 here, so the shift is below 64.
            let high = (v >> extra.saturating_mul(8)) as u8;
            high | !(0xffu8 >> extra)
        };
        self.push(first);
        self.extend_from_slice(be.get(8usize.saturating_sub(extra)..).unwrap_or(&[]));
    }

    fn signed_vint(&mut self, v: i64) {
        self.unsigned_vint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn short_length_bytes(&mut self, bytes: &[u8], what: &str) -> Result<()> {
        let len = u16::try_from(bytes.len()).map_err(|_| {
            Error::invalid(
                format!("{what}: {} bytes do not fit a u16 length", bytes.len()),
                0,
            )
        })?;
        self.u16(len);
        self.extend_from_slice(bytes);
        Ok(())
    }

    fn int_length_bytes(&mut self, bytes: &[u8], what: &str) -> Result<()> {
        let len = i32::try_from(bytes.len()).map_err(|_| {
            Error::invalid(
                format!("{what}: {} bytes do not fit an i32 length", bytes.len()),
                0,
            )
        })?;
        self.i32(len);
        self.extend_from_slice(bytes);
        Ok(())
    }

    fn vint_length_bytes(&mut self, bytes: &[u8]) {
        self.unsigned_vint(bytes.len() as u64);
        self.extend_from_slice(bytes);
    }

    fn utf(&mut self, s: &str) -> Result<()> {
        let encoded = modified_utf8(s);
        self.short_length_bytes(&encoded, "writeUTF string")
    }

    fn leb128_u32(&mut self, mut v: u32) {
        while v & !0x7f != 0 {
            self.push(((v & 0x7f) as u8) | 0x80);
            v >>= 7;
        }
        self.push(v as u8);
    }
}

/// Java's modified UTF-8: U+0000 as `c0 80`, supplementary characters as two 3-byte surrogates.
pub fn modified_utf8(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for unit in s.encode_utf16() {
        match unit {
            0x0001..=0x007f => out.push(unit as u8),
            0x0000 | 0x0080..=0x07ff => {
                out.push(0xc0 | ((unit >> 6) as u8 & 0x1f));
                out.push(0x80 | (unit as u8 & 0x3f));
            }
            _ => {
                out.push(0xe0 | ((unit >> 12) as u8 & 0x0f));
                out.push(0x80 | ((unit >> 6) as u8 & 0x3f));
                out.push(0x80 | (unit as u8 & 0x3f));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::Reader;

    fn vint(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        out.unsigned_vint(v);
        out
    }

    #[test]
    fn unsigned_vints_match_the_format_table() {
        assert_eq!(vint(0), [0x00]);
        assert_eq!(vint(127), [0x7f]);
        assert_eq!(vint(128), [0x80, 0x80]);
        assert_eq!(vint(300), [0x81, 0x2c]);
        assert_eq!(vint(16383), [0xbf, 0xff]);
        assert_eq!(vint(16384), [0xc0, 0x40, 0x00]);
        assert_eq!(vint((1 << 21) - 1), [0xdf, 0xff, 0xff]);
        assert_eq!(
            vint((1 << 56) - 1),
            [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
        assert_eq!(vint(1 << 56), [0xff, 0x01, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(vint(1 << 63), [0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn vints_round_trip_through_the_reader() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for shift in 0..64 {
            for v in [1u64 << shift, (1u64 << shift) - 1, x >> shift] {
                let bytes = vint(v);
                assert_eq!(bytes.len(), unsigned_vint_size(v));
                let mut r = Reader::new(&bytes, 0);
                assert_eq!(r.unsigned_vint("t").unwrap(), v);
                assert!(r.is_empty());
                let mut s = Vec::new();
                s.signed_vint(v as i64);
                assert_eq!(Reader::new(&s, 0).signed_vint("t").unwrap(), v as i64);
            }
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
    }

    #[test]
    fn signed_vints_are_zigzag() {
        for (v, want) in [
            (-1i64, &[0x01][..]),
            (1, &[0x02]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x80]),
            (-1000, &[0x87, 0xcf]),
        ] {
            let mut out = Vec::new();
            out.signed_vint(v);
            assert_eq!(out, want);
        }
    }

    #[test]
    fn modified_utf8_and_leb128() {
        assert_eq!(modified_utf8("a\u{0}b"), [0x61, 0xc0, 0x80, 0x62]);
        assert_eq!(
            modified_utf8("\u{1F600}"),
            [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]
        );
        let mut out = Vec::new();
        out.leb128_u32(300);
        out.leb128_u32(u32::MAX);
        assert_eq!(out, [0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    }
}
