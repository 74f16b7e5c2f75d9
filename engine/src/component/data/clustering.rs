//! Clustering prefixes: a row's clustering and a range tombstone marker's bound or boundary.
//!
//! | part | encoding | where |
//! |---|---|---|
//! | kind | u8 `ClusteringPrefix.Kind` ordinal | bounds/boundaries only |
//! | size | u16 number of values | bounds/boundaries only |
//! | header | unsigned vint before each batch of 32 values: bit `2·(i mod 32)` = empty, bit `2·(i mod 32)+1` = null | |
//! | value | fixed-length type: exactly that many bytes; else unsigned vint length + bytes | neither bit set |
//!
//! A row clustering has no kind and no size: exactly one value per clustering type (nothing at
//! all when the table has no clustering columns). Kind ordinals: 0 EXCL_END_BOUND,
//! 1 INCL_START_BOUND, 2 EXCL_END_INCL_START_BOUNDARY, 3 STATIC_CLUSTERING, 4 CLUSTERING,
//! 5 INCL_END_EXCL_START_BOUNDARY, 6 INCL_END_BOUND, 7 EXCL_START_BOUND (8 SSTABLE_LOWER_BOUND
//! and 9 SSTABLE_UPPER_BOUND exist only in memory).
//!
//! Src: `src/java/org/apache/cassandra/db/ClusteringPrefix.java` (`Kind`, `Serializer`:
//! `serializeValuesWithoutSize`, `deserializeValuesWithoutSize`, `isNull`, `isEmpty`),
//! `db/Clustering.java` (`Serializer`), `db/ClusteringBoundOrBoundary.java` (`Serializer`),
//! `db/marshal/AbstractType.java` (`readValue`, `valueLengthIfFixed`).

use serde::Serialize;

use super::schema::DataSchema;
use super::{DecodeOptions, SpannedBytes};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Span, Spanned};

/// `ClusteringPrefix.Kind`, by ordinal.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusteringPrefixKind {
    ExclEndBound,
    InclStartBound,
    ExclEndInclStartBoundary,
    StaticClustering,
    Clustering,
    InclEndExclStartBoundary,
    InclEndBound,
    ExclStartBound,
    SstableLowerBound,
    SstableUpperBound,
}

impl ClusteringPrefixKind {
    pub fn from_ordinal(ordinal: u8) -> Option<Self> {
        use ClusteringPrefixKind::*;
        Some(match ordinal {
            0 => ExclEndBound,
            1 => InclStartBound,
            2 => ExclEndInclStartBoundary,
            3 => StaticClustering,
            4 => Clustering,
            5 => InclEndExclStartBoundary,
            6 => InclEndBound,
            7 => ExclStartBound,
            8 => SstableLowerBound,
            9 => SstableUpperBound,
            _ => return None,
        })
    }

    pub fn ordinal(self) -> u8 {
        self as u8
    }

    /// Cassandra's constant name, e.g. `INCL_START_BOUND`.
    pub fn name(self) -> &'static str {
        use ClusteringPrefixKind::*;
        match self {
            ExclEndBound => "EXCL_END_BOUND",
            InclStartBound => "INCL_START_BOUND",
            ExclEndInclStartBoundary => "EXCL_END_INCL_START_BOUNDARY",
            StaticClustering => "STATIC_CLUSTERING",
            Clustering => "CLUSTERING",
            InclEndExclStartBoundary => "INCL_END_EXCL_START_BOUNDARY",
            InclEndBound => "INCL_END_BOUND",
            ExclStartBound => "EXCL_START_BOUND",
            SstableLowerBound => "SSTABLE_LOWER_BOUND",
            SstableUpperBound => "SSTABLE_UPPER_BOUND",
        }
    }

    /// A boundary closes one range and opens the next (two deletion times follow).
    pub fn is_boundary(self) -> bool {
        matches!(
            self,
            ClusteringPrefixKind::ExclEndInclStartBoundary
                | ClusteringPrefixKind::InclEndExclStartBoundary
        )
    }

    /// Kinds a range tombstone marker may have on disk: bounds 0, 1, 6, 7 and boundaries 2, 5.
    pub fn is_marker_kind(self) -> bool {
        use ClusteringPrefixKind::*;
        matches!(
            self,
            ExclEndBound
                | InclStartBound
                | ExclEndInclStartBoundary
                | InclEndExclStartBoundary
                | InclEndBound
                | ExclStartBound
        )
    }

    /// Whether the bound opens a range (start bounds and both boundaries).
    pub fn is_start(self) -> bool {
        use ClusteringPrefixKind::*;
        matches!(
            self,
            InclStartBound | ExclStartBound | ExclEndInclStartBoundary | InclEndExclStartBoundary
        )
    }
}

/// Whether a clustering value is present, empty or null (header bits).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusteringValueState {
    Present,
    /// Header bit `2·(i mod 32)`: an empty (zero-length) value; no bytes follow.
    Empty,
    /// Header bit `2·(i mod 32)+1`: null (absent); no bytes follow.
    Null,
}

/// One clustering value; render it with `DataSchema::clustering_types[index]`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ClusteringValue {
    /// Position among the clustering columns.
    pub index: usize,
    pub state: ClusteringValueState,
    /// The value bytes without their length prefix (empty unless `Present`); the span covers
    /// the length prefix too (zero-length when not present).
    pub value: SpannedBytes,
}

/// A row's clustering (`Clustering.Serializer`): one value per clustering column.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Clustering {
    pub span: Span,
    /// One empty/null header before each batch of 32 values.
    pub headers: Vec<Spanned<u64>>,
    pub values: Vec<ClusteringValue>,
}

impl Clustering {
    /// The values' bytes (empty for empty and null values), for comparisons.
    pub fn value_bytes(&self) -> impl Iterator<Item = (&ClusteringValueState, &[u8])> {
        self.values
            .iter()
            .map(|v| (&v.state, v.value.bytes.as_slice()))
    }
}

/// A range tombstone marker's `ClusteringBoundOrBoundary`: kind, size, values.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ClusteringBoundOrBoundary {
    pub span: Span,
    pub kind: Spanned<ClusteringPrefixKind>,
    pub size: Spanned<u16>,
    pub headers: Vec<Spanned<u64>>,
    pub values: Vec<ClusteringValue>,
}

/// Reads one value of a type with `fixed` length (or a vint length), refusing lengths over the
/// configured maximum before looking at the bytes.
pub(crate) fn read_value<'a>(
    r: &mut Reader<'a>,
    fixed: Option<u32>,
    options: &DecodeOptions,
    what: &'static str,
) -> Result<&'a [u8]> {
    let len = match fixed {
        Some(n) => u64::from(n),
        None => {
            let start = r.offset();
            let len = r.unsigned_vint(what)?;
            if len > options.max_value_bytes {
                return Err(r.invalid_at(
                    format!(
                        "value length {len} exceeds the maximum value size of {} bytes",
                        options.max_value_bytes
                    ),
                    start,
                    what,
                ));
            }
            len
        }
    };
    r.bytes_u64(len, what)
}

/// `deserializeValuesWithoutSize` for the first `count` of `fixed_lengths`' columns: calls
/// `value(index, state, bytes, span)` per value and `header(header)` per header, allocating
/// nothing.
fn walk_values<'a>(
    r: &mut Reader<'a>,
    fixed_lengths: &[Option<u32>],
    count: usize,
    options: &DecodeOptions,
    what: &'static str,
    mut header_seen: impl FnMut(Spanned<u64>),
    mut value: impl FnMut(usize, ClusteringValueState, &'a [u8], Span),
) -> Result<()> {
    let mut header = 0u64;
    for (index, fixed) in fixed_lengths.iter().take(count).enumerate() {
        if index % 32 == 0 {
            let start = r.offset();
            header = r.unsigned_vint(what)?;
            header_seen(Spanned {
                value: header,
                span: r.span_from(start),
            });
        }
        let bit = 2 * (index % 32) as u32;
        let start = r.offset();
        let (state, bytes): (_, &'a [u8]) = if header & (1u64 << (bit + 1)) != 0 {
            (ClusteringValueState::Null, &[])
        } else if header & (1u64 << bit) != 0 {
            (ClusteringValueState::Empty, &[])
        } else {
            (
                ClusteringValueState::Present,
                read_value(r, *fixed, options, what)?,
            )
        };
        value(index, state, bytes, r.span_from(start));
    }
    Ok(())
}

/// `deserializeValuesWithoutSize` into owned headers and values.
fn read_values(
    r: &mut Reader<'_>,
    fixed_lengths: &[Option<u32>],
    count: usize,
    options: &DecodeOptions,
    what: &'static str,
) -> Result<(Vec<Spanned<u64>>, Vec<ClusteringValue>)> {
    let mut headers = Vec::with_capacity(count.div_ceil(32));
    let mut values = Vec::with_capacity(count);
    walk_values(
        r,
        fixed_lengths,
        count,
        options,
        what,
        |h| headers.push(h),
        |index, state, bytes, span| {
            values.push(ClusteringValue {
                index,
                state,
                value: SpannedBytes {
                    bytes: bytes.to_vec(),
                    span,
                },
            })
        },
    )?;
    Ok((headers, values))
}

/// `Clustering.serializer.deserialize`: one value per clustering type (owned; the decoder
/// reads [`ClusteringView`]s).
#[cfg(test)]
pub(crate) fn read_clustering(
    r: &mut Reader<'_>,
    schema: &DataSchema,
    options: &DecodeOptions,
) -> Result<Clustering> {
    let start = r.offset();
    let count = schema.clustering_types.len();
    let (headers, values) = read_values(
        r,
        &schema.clustering_fixed_lengths_bytes,
        count,
        options,
        "row clustering",
    )?;
    Ok(Clustering {
        span: r.span_from(start),
        headers,
        values,
    })
}

/// A row's clustering decoded in place: its encoded headers and values borrow the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusteringView<'a> {
    pub span: Span,
    /// The encoded clustering (headers and values), as stored.
    pub bytes: &'a [u8],
    fixed_lengths: &'a [Option<u32>],
}

impl<'a> ClusteringView<'a> {
    /// Calls `f(index, state, value bytes)` for each value, in order (nothing allocated).
    pub fn for_each_value(&self, mut f: impl FnMut(usize, ClusteringValueState, &'a [u8])) {
        let mut r = Reader::new(self.bytes, self.span.start);
        let count = self.fixed_lengths.len();
        // The bytes were checked when the view was read: this cannot fail.
        let _ = walk_values(
            &mut r,
            self.fixed_lengths,
            count,
            &UNLIMITED,
            "row clustering",
            |_| {},
            |i, state, bytes, _| f(i, state, bytes),
        );
    }

    /// The owned clustering.
    pub fn to_clustering(&self) -> Clustering {
        let mut r = Reader::new(self.bytes, self.span.start);
        let count = self.fixed_lengths.len();
        let (headers, values) = read_values(
            &mut r,
            self.fixed_lengths,
            count,
            &UNLIMITED,
            "row clustering",
        )
        .unwrap_or_default();
        Clustering {
            span: self.span,
            headers,
            values,
        }
    }
}

/// Limits for re-reading bytes that were already checked.
const UNLIMITED: DecodeOptions = DecodeOptions {
    now_seconds: None,
    max_value_bytes: u64::MAX,
    max_unfiltered_bytes: u64::MAX,
};

/// `Clustering.serializer.deserialize` in place: checks every value, keeps a view.
pub(crate) fn read_clustering_view<'a>(
    r: &mut Reader<'a>,
    schema: &'a DataSchema,
    options: &DecodeOptions,
) -> Result<ClusteringView<'a>> {
    let start = r.offset();
    let rest = r.rest();
    let fixed_lengths = schema.clustering_fixed_lengths_bytes.as_slice();
    walk_values(
        r,
        fixed_lengths,
        fixed_lengths.len(),
        options,
        "row clustering",
        |_| {},
        |_, _, _, _| {},
    )?;
    let len = usize::try_from(r.offset() - start).unwrap_or(0);
    Ok(ClusteringView {
        span: r.span_from(start),
        bytes: rest.get(..len).unwrap_or(&[]),
        fixed_lengths,
    })
}

/// `ClusteringBoundOrBoundary.serializer.deserialize`: kind, size, values. Kinds that a marker
/// cannot have on disk and sizes beyond the clustering columns are errors.
pub(crate) fn read_bound(
    r: &mut Reader<'_>,
    schema: &DataSchema,
    options: &DecodeOptions,
) -> Result<ClusteringBoundOrBoundary> {
    const WHAT: &str = "range tombstone bound";
    let start = r.offset();
    let ordinal = r.u8(WHAT)?;
    let kind = ClusteringPrefixKind::from_ordinal(ordinal)
        .filter(|k| k.is_marker_kind())
        .ok_or_else(|| {
            r.invalid_at(
                format!("{ordinal} is not a range tombstone bound kind (0, 1, 2, 5, 6 or 7)"),
                start,
                WHAT,
            )
        })?;
    let kind = Spanned {
        value: kind,
        span: r.span_from(start),
    };
    let size_start = r.offset();
    let size = r.u16(WHAT)?;
    if usize::from(size) > schema.clustering_types.len() {
        return Err(r.invalid_at(
            format!(
                "bound has {size} values but the table has {} clustering columns",
                schema.clustering_types.len()
            ),
            size_start,
            WHAT,
        ));
    }
    let size = Spanned {
        value: size,
        span: r.span_from(size_start),
    };
    let (headers, values) = read_values(
        r,
        &schema.clustering_fixed_lengths_bytes,
        usize::from(size.value),
        options,
        WHAT,
    )?;
    Ok(ClusteringBoundOrBoundary {
        span: r.span_from(start),
        kind,
        size,
        headers,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::data::DeltaBase;
    use crate::types::AbstractType;
    use crate::version::{Format, Version};

    fn schema(clustering: usize) -> DataSchema {
        DataSchema::from_parts(
            Version::parse(Format::Big, "nb").unwrap(),
            AbstractType::Int32,
            vec![AbstractType::Int32; clustering],
            vec![],
            vec![],
            DeltaBase {
                min_timestamp_micros: 0,
                min_local_deletion_time_raw: 0,
                min_ttl_secs: 0,
                unsigned_deletion_time: false,
            },
        )
    }

    #[test]
    fn a_header_before_every_32_values() {
        // 33 Int32 values: value 1 empty (bit 2), value 31 present, value 32 empty (second
        // header, bit 0).
        let mut b = vec![0x04];
        for i in 0..32i32 {
            if i != 1 {
                b.extend_from_slice(&i.to_be_bytes());
            }
        }
        b.push(0x01);
        let mut r = Reader::new(&b, 100);
        let c = read_clustering(&mut r, &schema(33), &DecodeOptions::default()).unwrap();
        assert!(r.is_empty());
        assert_eq!(c.headers.len(), 2);
        assert_eq!(
            c.headers[1].span,
            Span::new(100 + b.len() as u64 - 1, 100 + b.len() as u64)
        );
        assert_eq!(c.values[1].state, ClusteringValueState::Empty);
        assert_eq!(c.values[31].value.bytes, 31i32.to_be_bytes());
        assert_eq!(c.values[32].state, ClusteringValueState::Empty);
        assert_eq!(c.values.len(), 33);
    }

    #[test]
    fn bounds_check_kind_size_and_value_limits() {
        let s = schema(2);
        let opts = DecodeOptions::default();
        // INCL_END_BOUND, 1 value, second column null would need size 2: bit 3 = null.
        let b = [6, 0, 2, 0x08, 0, 0, 0, 7];
        let bound = read_bound(&mut Reader::new(&b, 0), &s, &opts).unwrap();
        assert_eq!(bound.kind.value, ClusteringPrefixKind::InclEndBound);
        assert_eq!(bound.values[1].state, ClusteringValueState::Null);
        // CLUSTERING (4) is not a marker kind; 3 values for 2 columns; unknown kind 12.
        assert!(read_bound(&mut Reader::new(&[4, 0, 0], 0), &s, &opts).is_err());
        assert!(read_bound(&mut Reader::new(&[1, 0, 3, 0], 0), &s, &opts).is_err());
        assert!(read_bound(&mut Reader::new(&[12, 0, 0], 0), &s, &opts).is_err());
        // A vint length above the maximum value size is refused before reading.
        let text = DataSchema::from_parts(
            Version::parse(Format::Big, "nb").unwrap(),
            AbstractType::Int32,
            vec![AbstractType::Utf8],
            vec![],
            vec![],
            s.delta_base,
        );
        let small = DecodeOptions {
            max_value_bytes: 3,
            ..DecodeOptions::default()
        };
        let e =
            read_clustering(&mut Reader::new(&[0, 4, 1, 2, 3, 4], 0), &text, &small).unwrap_err();
        assert!(matches!(e.kind(), crate::error::ErrorKind::InvalidValue(_)));
        let c = read_clustering(&mut Reader::new(&[0, 3, 1, 2, 3], 0), &text, &small).unwrap();
        assert_eq!(c.values[0].value.bytes, [1, 2, 3]);
        assert_eq!(c.values[0].value.span, Span::new(1, 5));
    }
}
