//! A count stored as a Java `int` that must not be negative (`in.readInt()`, then a `< 0`
//! check): Summary.db's entry count, CompressionInfo.db's option and chunk counts, the bloom
//! filter's bitset word count, the counts in Statistics.db and the legacy promoted index; and
//! a Java `long` that must not be negative (legacy Index.db positions, `IndexInfo` offsets and
//! widths, the Partitions.db footer).
//!
//! Src: `io/sstable/indexsummary/IndexSummary.java` (`IndexSummarySerializer.deserialize`),
//! `io/compress/CompressionMetadata.java`, `utils/BloomFilterSerializer.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use crate::error::Result;
use crate::reader::Reader;
use crate::span::Spanned;

/// Reads a big-endian `int` count with its 4-byte span; a negative one is an error
/// "negative {noun} {value}" at its offset, reading `what`. The caller still checks the count
/// against the bytes it needs ([`Reader::check_count`]) before allocating.
pub fn read_int_count(r: &mut Reader<'_>, what: &'static str, noun: &str) -> Result<Spanned<u32>> {
    let start = r.offset();
    let raw = r.i32(what)?;
    let value = u32::try_from(raw)
        .map_err(|_| r.invalid_at(format!("negative {noun} {raw}"), start, what))?;
    Ok(Spanned {
        value,
        span: r.span_from(start),
    })
}

/// Reads a big-endian `long` with its 8-byte span; a negative one is an error
/// "negative {noun} {value}" at its offset, reading `what`.
pub fn read_non_negative_long(
    r: &mut Reader<'_>,
    what: &'static str,
    noun: &str,
) -> Result<Spanned<u64>> {
    let start = r.offset();
    let raw = r.i64(what)?;
    let value = u64::try_from(raw)
        .map_err(|_| r.invalid_at(format!("negative {noun} {raw}"), start, what))?;
    Ok(Spanned {
        value,
        span: r.span_from(start),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    #[test]
    fn reads_a_count_and_refuses_a_negative_one_at_its_offset() {
        let bytes = [0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe];
        let mut r = Reader::new(&bytes, 0x40);
        let count = read_int_count(&mut r, "entry count", "entry count").unwrap();
        assert_eq!(count.value, 258);
        assert_eq!(count.span, Span::new(0x40, 0x44));
        let e = read_int_count(&mut r, "chunk count", "chunk count").unwrap_err();
        assert_eq!(e.offset(), 0x44);
        assert_eq!(e.message(), "negative chunk count -2 (reading chunk count)");
    }

    #[test]
    fn reads_a_long_and_refuses_a_negative_one_at_its_offset() {
        let mut bytes = 0x1_0000_0002i64.to_be_bytes().to_vec();
        bytes.extend_from_slice(&(-3i64).to_be_bytes());
        let mut r = Reader::new(&bytes, 0x10);
        let v = read_non_negative_long(&mut r, "offset", "block offset").unwrap();
        assert_eq!(v.value, 0x1_0000_0002);
        assert_eq!(v.span, Span::new(0x10, 0x18));
        let e = read_non_negative_long(&mut r, "width", "block width").unwrap_err();
        assert_eq!(e.offset(), 0x18);
        assert_eq!(e.message(), "negative block width -3 (reading width)");
    }
}
