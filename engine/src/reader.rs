//! The cursor every decoder reads through.
//!
//! A [`Reader`] borrows a slice of one component file and knows the absolute file offset of its
//! first byte, so errors and spans always name real file positions. Every read returns `Result`;
//! nothing indexes or panics, and lengths read from the file are checked against the bytes that
//! remain before anything is allocated (see wasmparser's `BinaryReader`).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::span::{Span, Spanned};

/// A bounds-checked big-endian cursor over part of a file.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base_offset: u64,
    component: Option<ComponentType>,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, whose first byte is at `base_offset` in its file.
    pub fn new(data: &'a [u8], base_offset: u64) -> Self {
        Reader {
            data,
            pos: 0,
            base_offset,
            component: None,
        }
    }

    /// A reader over `data` (first byte at `base_offset`) positioned at `pos` (at most
    /// `data.len()`: the end when past it).
    pub fn at(data: &'a [u8], base_offset: u64, pos: usize) -> Self {
        Reader {
            data,
            pos: pos.min(data.len()),
            base_offset,
            component: None,
        }
    }

    /// Tags errors from this reader with `component`.
    pub fn for_component(mut self, component: ComponentType) -> Self {
        self.component = Some(component);
        self
    }

    /// Absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base_offset.saturating_add(self.pos as u64)
    }

    /// Position relative to the start of this reader's slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining_bytes(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn is_empty(&self) -> bool {
        self.remaining_bytes() == 0
    }

    /// The bytes not yet read.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// The bytes from relative position `start` (an earlier [`Reader::position`]) up to the
    /// current position; `None` if `start` is ahead of it.
    pub fn consumed_since(&self, start: usize) -> Option<&'a [u8]> {
        self.data.get(start..self.pos)
    }

    /// The span from absolute offset `start` to the current position.
    #[inline]
    pub fn span_from(&self, start: u64) -> Span {
        Span::new(start, self.offset())
    }

    /// Runs `read` and pairs its value with the bytes it consumed: the one span helper every
    /// decoder uses (`r.spanned(|r| r.u32("count"))?`).
    #[inline(always)]
    pub fn spanned<T>(
        &mut self,
        read: impl FnOnce(&mut Reader<'a>) -> Result<T>,
    ) -> Result<Spanned<T>> {
        let start = self.offset();
        let value = read(self)?;
        Ok(Spanned {
            value,
            span: self.span_from(start),
        })
    }

    /// An error at the current offset, tagged with this reader's component.
    pub fn error(&self, kind: ErrorKind, what: &'static str) -> Error {
        self.error_at(kind, self.offset(), what)
    }

    /// An error at absolute `offset`, tagged with this reader's component.
    pub fn error_at(&self, kind: ErrorKind, offset: u64, what: &'static str) -> Error {
        let e = Error::new(kind, offset).context(what);
        match &self.component {
            Some(c) => e.in_component(c.clone()),
            None => e,
        }
    }

    /// An [`ErrorKind::InvalidValue`] at absolute `offset`.
    pub fn invalid_at(&self, msg: impl Into<String>, offset: u64, what: &'static str) -> Error {
        self.error_at(ErrorKind::InvalidValue(msg.into()), offset, what)
    }

    /// Takes exactly `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.data.get(self.pos..end).map(|s| (s, end))) {
            Some((slice, end)) => {
                self.pos = end;
                Ok(slice)
            }
            None => Err(self.eof(n, what)),
        }
    }

    /// The error of a read of `n` bytes past the end (kept out of the hot paths).
    #[cold]
    #[inline(never)]
    fn eof(&self, n: usize, what: &'static str) -> Error {
        self.error(
            ErrorKind::UnexpectedEof {
                needed_bytes: n as u64,
                available_bytes: self.remaining_bytes() as u64,
            },
            what,
        )
    }

    /// Takes `len` bytes where `len` came from the file: checked before any conversion or allocation.
    #[inline]
    pub fn bytes_u64(&mut self, len: u64, what: &'static str) -> Result<&'a [u8]> {
        let n = self.check_len(len, what)?;
        self.bytes(n, what)
    }

    /// Checks an untrusted length against the bytes remaining and converts it to `usize`.
    #[inline]
    pub fn check_len(&self, len: u64, what: &'static str) -> Result<usize> {
        let remaining = self.remaining_bytes() as u64;
        match usize::try_from(len) {
            Ok(n) if len <= remaining => Ok(n),
            _ => Err(self.too_long(len, what)),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_long(&self, len: u64, what: &'static str) -> Error {
        self.error(
            ErrorKind::LengthTooLarge {
                length: len,
                limit: self.remaining_bytes() as u64,
            },
            what,
        )
    }

    /// Checks an untrusted element count: each element needs at least `min_bytes_each` bytes.
    pub fn check_count(
        &self,
        count: u64,
        min_bytes_each: u64,
        what: &'static str,
    ) -> Result<usize> {
        let needed = count.saturating_mul(min_bytes_each.max(1));
        self.check_len(needed, what)?;
        usize::try_from(count).map_err(|_| self.invalid_at("count too large", self.offset(), what))
    }

    #[inline]
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let slice = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    #[inline]
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos = self.pos.wrapping_add(1);
                Ok(b)
            }
            None => Err(self.eof(1, what)),
        }
    }

    pub fn peek_u8(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    pub fn bool(&mut self, what: &'static str) -> Result<bool> {
        Ok(self.u8(what)? != 0)
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    pub fn i32(&mut self, what: &'static str) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    pub fn i64(&mut self, what: &'static str) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    pub fn f64(&mut self, what: &'static str) -> Result<f64> {
        Ok(f64::from_be_bytes(self.array(what)?))
    }

    pub fn u32_le(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn i64_le(&mut self, what: &'static str) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// Cassandra's unsigned vint (`VIntCoding.readUnsignedVInt`): leading 1-bits of the first byte
    /// count the extra bytes, which follow big-endian. Not LEB128.
    #[inline]
    pub fn unsigned_vint(&mut self, what: &'static str) -> Result<u64> {
        // The one slice decoder: one byte (values below 128, by far the most common) inline,
        // longer ones out of line; the error path apart.
        let mut at = self.pos;
        match vint_at(self.data, &mut at) {
            Some(v) => {
                self.pos = at;
                Ok(v)
            }
            None => Err(self.vint_eof(what)),
        }
    }

    /// The error of a vint that runs past the end of the data.
    #[cold]
    #[inline(never)]
    fn vint_eof(&self, what: &'static str) -> Error {
        let extra = self.data.get(self.pos).map_or(0, |f| f.leading_ones());
        self.error(
            ErrorKind::UnexpectedEof {
                needed_bytes: u64::from(extra).saturating_add(1),
                available_bytes: self.remaining_bytes() as u64,
            },
            what,
        )
    }

    /// Cassandra's signed vint: zigzag over [`Reader::unsigned_vint`].
    #[inline]
    pub fn signed_vint(&mut self, what: &'static str) -> Result<i64> {
        let u = self.unsigned_vint(what)?;
        Ok(((u >> 1) as i64) ^ ((u & 1) as i64).wrapping_neg())
    }

    /// An unsigned vint that must fit in 32 bits (`readUnsignedVInt32`): larger values are errors.
    pub fn unsigned_vint32(&mut self, what: &'static str) -> Result<u32> {
        let start = self.offset();
        let v = self.unsigned_vint(what)?;
        u32::try_from(v)
            .map_err(|_| self.invalid_at(format!("vint {v} does not fit in 32 bits"), start, what))
    }

    /// u16 length + bytes (`ByteBufferUtil.readWithShortLength`).
    pub fn short_length_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let len = self.u16(what)?;
        self.bytes_u64(u64::from(len), what)
    }

    /// i32 length + bytes (`ByteBufferUtil.readWithLength`); a negative length is an error.
    pub fn int_length_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let start = self.offset();
        let len = self.i32(what)?;
        let len = u64::try_from(len)
            .map_err(|_| self.invalid_at(format!("negative length {len}"), start, what))?;
        self.bytes_u64(len, what)
    }

    /// Unsigned vint length + bytes (`ByteBufferUtil.readWithVIntLength`).
    #[inline]
    pub fn vint_length_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let len = self.unsigned_vint(what)?;
        self.bytes_u64(len, what)
    }

    /// Java `DataInput.readUTF`: u16 length + modified UTF-8, decoded leniently.
    pub fn utf(&mut self, what: &'static str) -> Result<String> {
        let bytes = self.short_length_bytes(what)?;
        Ok(decode_modified_utf8(bytes))
    }

    /// A sub-reader over the next `len` bytes (a length-prefixed part); this reader moves past them.
    pub fn sub_reader(&mut self, len: u64, what: &'static str) -> Result<Reader<'a>> {
        let base = self.offset();
        let bytes = self.bytes_u64(len, what)?;
        Ok(Reader {
            data: bytes,
            pos: 0,
            base_offset: base,
            component: self.component.clone(),
        })
    }
}

/// Decodes Java's modified UTF-8 (`c0 80` for U+0000, surrogate pairs as two 3-byte sequences);
/// invalid sequences become U+FFFD.
pub fn decode_modified_utf8(bytes: &[u8]) -> String {
    if let Ok(s) = core::str::from_utf8(bytes) {
        return s.to_owned();
    }
    // Rebuild UTF-16 units, then decode them.
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut it = bytes.iter().copied();
    while let Some(b0) = it.next() {
        let unit = if b0 < 0x80 {
            u16::from(b0)
        } else if b0 & 0xe0 == 0xc0 {
            match it.next() {
                Some(b1) => (u16::from(b0 & 0x1f) << 6) | u16::from(b1 & 0x3f),
                None => 0xfffd,
            }
        } else if b0 & 0xf0 == 0xe0 {
            match (it.next(), it.next()) {
                (Some(b1), Some(b2)) => {
                    (u16::from(b0 & 0x0f) << 12)
                        | (u16::from(b1 & 0x3f) << 6)
                        | u16::from(b2 & 0x3f)
                }
                _ => 0xfffd,
            }
        } else {
            0xfffd
        };
        units.push(unit);
    }
    String::from_utf16_lossy(&units)
}

/// The unsigned vint at `bytes[*at..]` (Cassandra's `VIntCoding.readUnsignedVInt`: the count of
/// extra bytes as leading 1-bits of the first byte, then the value big-endian), moving `at` past
/// it; `None` if it runs past the end. The one vint decoder: [`Reader::unsigned_vint`] and the
/// slice-indexed fast paths of the row decoder read through it.
#[inline(always)]
pub(crate) fn vint_at(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let first = *bytes.get(*at)?;
    if first < 0x80 {
        // `*at` indexes a byte, so it is below `usize::MAX`.
        *at = at.wrapping_add(1);
        return Some(u64::from(first));
    }
    // Inline too: a call per multi-byte vint (~4 a row) cost more than the code it saves.
    vint_long_at(bytes, at, first)
}

/// [`vint_at`] of two or more bytes.
#[inline(always)]
fn vint_long_at(bytes: &[u8], at: &mut usize, first: u8) -> Option<u64> {
    // 1..=8 extra bytes (the first byte is ≥ 0x80); the first byte's value bits are those
    // below its leading 1-bits and their 0 separator (none with 7 or 8 extra bytes).
    let extra = first.leading_ones();
    let start = at.checked_add(1)?;
    let end = start.checked_add(extra as usize)?;
    let high = u64::from(u32::from(first) & (0xffu32 >> extra));
    // 8 * extra: 8..=64.
    let bits = extra.wrapping_mul(8);
    // With 8 bytes readable from `start` (all but the last few bytes of a window), the extra
    // bytes are the top `extra` bytes of one big-endian word: no loop. `end <= start + 8`, so
    // the bounds are those of the extra bytes; the bytes past `end` are shifted out.
    let value = match bytes.get(start..).and_then(|rest| rest.first_chunk::<8>()) {
        Some(word) => {
            let low = u64::from_be_bytes(*word) >> 64u32.wrapping_sub(bits);
            // `high` is 0 when `bits` is 64; the shift is split so that it stays below 64.
            ((high << 1) << bits.wrapping_sub(1)) | low
        }
        None => bytes
            .get(start..end)?
            .iter()
            .fold(high, |v, &b| (v << 8) | u64::from(b)),
    };
    *at = end;
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vint of exactly `bytes`, through the reader and through the slice decoder (at an
    /// offset inside a longer slice too); every shorter prefix is an error / `None`.
    fn vint(bytes: &[u8]) -> u64 {
        let mut r = Reader::new(bytes, 0);
        let v = r.unsigned_vint("test").unwrap();
        assert!(r.is_empty(), "vint {bytes:02x?} left bytes unread");
        let mut padded = vec![0xaa];
        padded.extend_from_slice(bytes);
        padded.push(0x55);
        let mut at = 1;
        assert_eq!(vint_at(&padded, &mut at), Some(v));
        assert_eq!(at, bytes.len() + 1);
        // With 8 or more bytes after the first: the one-word read.
        let mut long = vec![0xaa];
        long.extend_from_slice(bytes);
        long.extend_from_slice(&[0x55; 9]);
        let mut at = 1;
        assert_eq!(vint_at(&long, &mut at), Some(v));
        assert_eq!(at, bytes.len() + 1);
        let mut r = Reader::new(&long, 0);
        r.skip(1, "test").unwrap();
        assert_eq!(r.unsigned_vint("test").unwrap(), v);
        assert_eq!(r.position(), bytes.len() + 1);
        for cut in 0..bytes.len() {
            let short = &bytes[..cut];
            assert!(Reader::new(short, 0).unsigned_vint("test").is_err());
            assert_eq!(vint_at(short, &mut 0), None);
        }
        v
    }

    #[test]
    fn unsigned_vint_matches_the_format_table() {
        assert_eq!(vint(&[0x00]), 0);
        assert_eq!(vint(&[0x7f]), 127);
        assert_eq!(vint(&[0x80, 0x80]), 128);
        assert_eq!(vint(&[0x81, 0x2c]), 300);
        assert_eq!(vint(&[0xbf, 0xff]), 16383);
        assert_eq!(vint(&[0xc0, 0x40, 0x00]), 16384);
        assert_eq!(vint(&[0xdf, 0xff, 0xff]), (1 << 21) - 1);
        assert_eq!(
            vint(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            (1 << 56) - 1
        );
        assert_eq!(vint(&[0xff, 0x01, 0, 0, 0, 0, 0, 0, 0]), 1 << 56);
        assert_eq!(vint(&[0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]), 1 << 63);
    }

    #[test]
    fn signed_vint_is_zigzag() {
        for (bytes, want) in [
            (&[0x01][..], -1i64),
            (&[0x02], 1),
            (&[0x7f], -64),
            (&[0x80, 0x80], 64),
            (&[0x87, 0xcf], -1000),
        ] {
            assert_eq!(Reader::new(bytes, 0).signed_vint("t").unwrap(), want);
        }
    }

    #[test]
    fn truncated_reads_report_absolute_offset() {
        let mut r = Reader::new(&[1, 2, 3], 100).for_component(ComponentType::Statistics);
        assert_eq!(r.u8("a").unwrap(), 1);
        let e = r.i32("chunk length").unwrap_err();
        assert_eq!(e.offset(), 101);
        assert_eq!(e.to_string(), "unexpected end of data (needed 4 bytes, 2 available) at 0x65 in Statistics.db (reading chunk length)");
        let e = Reader::new(&[0xc0, 0x40], 7)
            .unsigned_vint("v")
            .unwrap_err();
        assert_eq!(e.offset(), 7);
    }

    #[test]
    fn absurd_lengths_are_rejected_before_allocation() {
        let mut r = Reader::new(&[0x7f, 0xff, 0xff, 0xff, 0], 0);
        let e = r.int_length_bytes("blob").unwrap_err();
        assert!(matches!(
            e.kind(),
            ErrorKind::LengthTooLarge {
                length: 0x7fff_ffff,
                limit: 1
            }
        ));
        let r = Reader::new(&[0; 16], 0);
        assert!(r.check_count(u64::MAX, 8, "offsets").is_err());
        assert_eq!(r.check_count(2, 8, "offsets").unwrap(), 2);
    }

    #[test]
    fn modified_utf8_decodes_java_nul_and_surrogates() {
        assert_eq!(decode_modified_utf8(b"abc"), "abc");
        assert_eq!(decode_modified_utf8(&[0x61, 0xc0, 0x80, 0x62]), "a\u{0}b");
        // U+1F600 as a CESU-8 surrogate pair.
        assert_eq!(
            decode_modified_utf8(&[0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]),
            "\u{1F600}"
        );
    }
}
