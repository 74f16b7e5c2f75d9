//! The columns a row holds: all of the header's (row flag HAS_ALL_COLUMNS) or a subset
//! (`Columns.Serializer.serializeSubset`).
//!
//! Superset = the sorted header columns of the row's kind (static or regular), N of them.
//!
//! | first unsigned vint | N | what follows | meaning |
//! |---|---|---|---|
//! | 0 | any | nothing | every column is present |
//! | bitmap | < 64 | nothing | bit i set = column i is **missing** |
//! | m (missing count) | ≥ 64 | if `N − m < N / 2`: N − m vints, the indices of the *present* columns | ascending |
//! | m | ≥ 64 | else: m vints, the indices of the *missing* columns | ascending |
//!
//! Src: `src/java/org/apache/cassandra/db/Columns.java` (`Serializer.serializeSubset`,
//! `deserializeSubset`, `encodeBitmap`, `serializeLargeSubset`, `deserializeLargeSubset`).

use serde::Serialize;

use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// How a row's column subset was stored.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnsEncoding {
    /// Row flag HAS_ALL_COLUMNS: no subset stored.
    AllColumnsFlag,
    /// A stored `0`: every column present.
    AllPresent,
    /// N < 64: a bitmap of the missing columns.
    MissingBitmap(u64),
    /// N ≥ 64: the indices of the present columns.
    PresentIndices,
    /// N ≥ 64: the indices of the missing columns.
    MissingIndices,
}

/// The columns present in one row, as indices into `DataSchema::columns(is_static)`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ColumnSubset {
    /// The stored subset; `None` with [`ColumnsEncoding::AllColumnsFlag`].
    pub span: Option<Span>,
    pub encoding: ColumnsEncoding,
    /// The vints as stored (the first is the bitmap / missing count).
    pub stored: Vec<Spanned<u64>>,
    /// Present columns, ascending.
    pub present: Vec<usize>,
    /// N: the number of header columns of the row's kind.
    pub superset_count: usize,
}

impl ColumnSubset {
    /// All `superset_count` columns, announced by the HAS_ALL_COLUMNS row flag.
    pub(crate) fn all(superset_count: usize) -> ColumnSubset {
        ColumnSubset {
            span: None,
            encoding: ColumnsEncoding::AllColumnsFlag,
            stored: Vec::new(),
            present: (0..superset_count).collect(),
            superset_count,
        }
    }

    /// `Columns.serializer.deserializeSubset` against a superset of `superset_count` columns.
    pub(crate) fn read(r: &mut Reader<'_>, superset_count: usize) -> Result<ColumnSubset> {
        let mut stored = Vec::new();
        let mut present = Vec::new();
        let (span, encoding) = Self::read_into(r, superset_count, Some(&mut stored), &mut present)?;
        Ok(ColumnSubset {
            span: Some(span),
            encoding,
            stored,
            present,
            superset_count,
        })
    }

    /// [`ColumnSubset::read`] into a caller's buffers (cleared first): the present indices,
    /// and the stored vints when asked for. Allocates nothing once the buffers have grown.
    pub(crate) fn read_into(
        r: &mut Reader<'_>,
        superset_count: usize,
        stored: Option<&mut Vec<Spanned<u64>>>,
        present: &mut Vec<usize>,
    ) -> Result<(Span, ColumnsEncoding)> {
        let (span, encoding, columns) = Self::read_present(r, superset_count, stored, present)?;
        if let PresentColumns::Bits(bits) = columns {
            present.extend(PresentColumns::Bits(bits).iter(&[]));
        }
        Ok((span, encoding))
    }

    /// [`ColumnSubset::read_into`] without listing the columns of a superset below 64: those
    /// come back as a bit set ([`PresentColumns::Bits`], `present` left empty); larger subsets
    /// are listed in `present` ([`PresentColumns::Listed`]).
    #[inline(always)]
    pub(crate) fn read_present(
        r: &mut Reader<'_>,
        superset_count: usize,
        mut stored: Option<&mut Vec<Spanned<u64>>>,
        present: &mut Vec<usize>,
    ) -> Result<(Span, ColumnsEncoding, PresentColumns)> {
        const WHAT: &str = "row column subset";
        present.clear();
        let start = r.offset();
        let first = r.spanned(|r| r.unsigned_vint(WHAT))?;
        let encoded = first.value;
        if let Some(s) = stored.as_deref_mut() {
            s.clear();
            s.push(first);
        }
        if encoded != 0 && superset_count < 64 {
            // The bitmap of the missing columns, inline (the common case); the rest out of line.
            if encoded >> superset_count != 0 {
                return Err(bitmap_error(r, encoded, superset_count, start));
            }
            // The present columns are the clear bits below `superset_count` (< 64).
            let bits = !encoded & low_bits(superset_count);
            return Ok((
                r.span_from(start),
                ColumnsEncoding::MissingBitmap(encoded),
                PresentColumns::Bits(bits),
            ));
        }
        Self::read_all_or_large(r, superset_count, stored, present, start, encoded)
    }

    /// [`ColumnSubset::read_present`] after its first vint `encoded` (at `start`), when that is
    /// 0 (every column) or the superset has 64 columns or more (indices follow).
    #[inline(never)]
    fn read_all_or_large(
        r: &mut Reader<'_>,
        superset_count: usize,
        mut stored: Option<&mut Vec<Spanned<u64>>>,
        present: &mut Vec<usize>,
        start: u64,
        encoded: u64,
    ) -> Result<(Span, ColumnsEncoding, PresentColumns)> {
        const WHAT: &str = "row column subset";
        let n = superset_count as u64;
        let encoding = if encoded == 0 {
            let all = PresentColumns::all(superset_count, present);
            return Ok((r.span_from(start), ColumnsEncoding::AllPresent, all));
        } else if superset_count < 64 {
            if encoded >> n != 0 {
                return Err(bitmap_error(r, encoded, superset_count, start));
            }
            let bits = !encoded & low_bits(superset_count);
            return Ok((
                r.span_from(start),
                ColumnsEncoding::MissingBitmap(encoded),
                PresentColumns::Bits(bits),
            ));
        } else {
            let missing = encoded;
            if missing > n {
                return Err(r.invalid_at(
                    format!("{missing} missing columns, but the header has only {superset_count}"),
                    start,
                    WHAT,
                ));
            }
            // `missing <= n` was checked above.
            let present_count = n.saturating_sub(missing);
            if present_count < n / 2 {
                // Each index is at least one byte.
                let count = r.check_count(present_count, 1, WHAT)?;
                for _ in 0..count {
                    let idx = read_index(
                        r,
                        stored.as_deref_mut(),
                        superset_count,
                        present.last().copied(),
                        WHAT,
                    )?;
                    present.push(idx);
                }
                ColumnsEncoding::PresentIndices
            } else {
                let count = r.check_count(missing, 1, WHAT)?;
                let mut next = 0usize;
                let mut previous = None;
                for _ in 0..count {
                    let idx = read_index(r, stored.as_deref_mut(), superset_count, previous, WHAT)?;
                    previous = Some(idx);
                    present.extend(next..idx);
                    // `idx < superset_count`, so this does not overflow.
                    next = idx.saturating_add(1);
                }
                present.extend(next..superset_count);
                ColumnsEncoding::MissingIndices
            }
        };
        Ok((r.span_from(start), encoding, PresentColumns::Listed))
    }
}

/// The error of a column bitmap that marks columns beyond a superset of `superset_count` (< 64).
#[cold]
#[inline(never)]
fn bitmap_error(r: &Reader<'_>, encoded: u64, superset_count: usize, start: u64) -> crate::Error {
    r.invalid_at(
        format!("column bitmap {encoded:#x} marks columns beyond the header's {superset_count}"),
        start,
        "row column subset",
    )
}

/// The columns present in a row: a bit set (bit i = column i) for supersets of at most 64
/// columns, else the list the reader filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PresentColumns {
    Bits(u64),
    Listed,
}

/// The `n` low bits set (all 64 for `n >= 64`).
pub(crate) fn low_bits(n: usize) -> u64 {
    u32::try_from(n)
        .ok()
        .and_then(|n| 1u64.checked_shl(n))
        .map_or(u64::MAX, |b| b.wrapping_sub(1))
}

impl PresentColumns {
    /// Every one of `superset_count` columns (listed into `present` above 64).
    pub(crate) fn all(superset_count: usize, present: &mut Vec<usize>) -> PresentColumns {
        present.clear();
        if superset_count <= 64 {
            PresentColumns::Bits(low_bits(superset_count))
        } else {
            present.extend(0..superset_count);
            PresentColumns::Listed
        }
    }

    /// The present column indices, ascending (`listed`: what the reader filled).
    pub(crate) fn iter(self, listed: &[usize]) -> PresentIter<'_> {
        match self {
            PresentColumns::Bits(bits) => PresentIter {
                bits,
                listed: [].iter(),
            },
            PresentColumns::Listed => PresentIter {
                bits: 0,
                listed: listed.iter(),
            },
        }
    }
}

/// The indices of [`PresentColumns::iter`]: the set bits by their trailing zeros, then the
/// listed ones (one of the two is empty).
pub(crate) struct PresentIter<'a> {
    bits: u64,
    listed: core::slice::Iter<'a, usize>,
}

impl Iterator for PresentIter<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.bits != 0 {
            let i = self.bits.trailing_zeros() as usize;
            self.bits &= self.bits.wrapping_sub(1);
            return Some(i);
        }
        self.listed.next().copied()
    }
}

/// One column index of a large subset: below N and above the previous one.
fn read_index(
    r: &mut Reader<'_>,
    stored: Option<&mut Vec<Spanned<u64>>>,
    superset_count: usize,
    previous: Option<usize>,
    what: &'static str,
) -> Result<usize> {
    let v = r.spanned(|r| r.unsigned_vint(what))?;
    let idx = usize::try_from(v.value)
        .ok()
        .filter(|&i| i < superset_count && previous.is_none_or(|p| i > p))
        .ok_or_else(|| {
            r.invalid_at(
                format!(
                    "column index {} is not an ascending index below {superset_count}",
                    v.value
                ),
                v.span.start,
                what,
            )
        })?;
    if let Some(s) = stored {
        s.push(v);
    }
    Ok(idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vint(v: u64, out: &mut Vec<u8>) {
        // Cassandra's unsigned vint, enough for the values used here.
        if v < 0x80 {
            out.push(v as u8);
        } else if v < 0x4000 {
            out.push(0x80 | (v >> 8) as u8);
            out.push(v as u8);
        } else {
            out.push(0xc0 | (v >> 16) as u8);
            out.push((v >> 8) as u8);
            out.push(v as u8);
        }
    }

    #[test]
    fn small_bitmap_marks_missing_columns() {
        let s = ColumnSubset::read(&mut Reader::new(&[0b0101], 0), 4).unwrap();
        assert_eq!(s.present, [1, 3]);
        assert_eq!(s.encoding, ColumnsEncoding::MissingBitmap(5));
        assert!(ColumnSubset::read(&mut Reader::new(&[0b10000], 0), 4).is_err());
        let s = ColumnSubset::read(&mut Reader::new(&[0], 0), 4).unwrap();
        assert_eq!(s.present, [0, 1, 2, 3]);
    }

    #[test]
    fn large_subsets_list_present_or_missing_indices() {
        // 70 columns, 3 present (< 35): present indices.
        let mut b = Vec::new();
        vint(67, &mut b);
        for i in [2, 40, 69] {
            vint(i, &mut b);
        }
        let s = ColumnSubset::read(&mut Reader::new(&b, 0), 70).unwrap();
        assert_eq!(s.present, [2, 40, 69]);
        assert_eq!(s.encoding, ColumnsEncoding::PresentIndices);
        // 70 columns, 2 missing: missing indices.
        let mut b = Vec::new();
        vint(2, &mut b);
        vint(0, &mut b);
        vint(64, &mut b);
        let s = ColumnSubset::read(&mut Reader::new(&b, 0), 70).unwrap();
        assert_eq!(s.present.len(), 68);
        assert!(!s.present.contains(&0) && !s.present.contains(&64));
        assert_eq!(s.encoding, ColumnsEncoding::MissingIndices);
        // Not ascending, out of range, too many missing: errors.
        assert!(ColumnSubset::read(&mut Reader::new(&[2, 5, 5], 0), 70).is_err());
        assert!(ColumnSubset::read(&mut Reader::new(&[1, 70], 0), 70).is_err());
        assert!(ColumnSubset::read(&mut Reader::new(&[71], 0), 70).is_err());
    }
}
