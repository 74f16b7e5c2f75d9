//! Clustering prefixes: a row's clustering, a range tombstone marker's bound or boundary, a
//! `Slice` bound (STATS' covered clustering) and `IndexInfo`'s first/last names — one decoder.
//!
//! | form | Cassandra serializer | kind byte | size | kinds accepted |
//! |---|---|---|---|---|
//! | row clustering | `Clustering.Serializer` | – | – (one value per clustering column) | (CLUSTERING) |
//! | marker bound/boundary | `ClusteringBoundOrBoundary.Serializer` | u8 | u16 | 0, 1, 2, 5, 6, 7 |
//! | slice bound | `ClusteringBound.Serializer` (via `Slice.Serializer`) | u8 | u16 | 0, 1, 6, 7 |
//! | index prefix | `ClusteringPrefix.Serializer` | u8 | u16 unless kind 4 | 0–7 except 3 (4 = CLUSTERING: one value per column, no size) |
//!
//! Values (`serializeValuesWithoutSize`): an unsigned-vint header before each batch of 32 values,
//! bit `2·(i mod 32)` = empty, bit `2·(i mod 32)+1` = null (null is tested first); a value with
//! neither bit is its type's fixed length in bytes, or an unsigned vint length + bytes. A size
//! above the number of clustering columns is an error, and so is a vint length above
//! [`ClusteringLayout::max_value_bytes`] (`DatabaseDescriptor.getMaxValueSize`, 256 MiB).
//!
//! Kind ordinals (`ClusteringPrefix.Kind`): 0 EXCL_END_BOUND, 1 INCL_START_BOUND,
//! 2 EXCL_END_INCL_START_BOUNDARY, 3 STATIC_CLUSTERING, 4 CLUSTERING,
//! 5 INCL_END_EXCL_START_BOUNDARY, 6 INCL_END_BOUND, 7 EXCL_START_BOUND; 8 SSTABLE_LOWER_BOUND
//! and 9 SSTABLE_UPPER_BOUND exist only in memory (5.0) and are never read from a file.
//!
//! Src: `src/java/org/apache/cassandra/db/ClusteringPrefix.java` (`Kind`, `Serializer`,
//! `serializeValuesWithoutSize`, `deserializeValuesWithoutSize`), `db/Clustering.java`,
//! `db/ClusteringBoundOrBoundary.java`, `db/ClusteringBound.java`, `db/Slice.java`,
//! `db/marshal/AbstractType.java` (`readBuffer`, `valueLengthIfFixed`).

use serde::Serialize;

use crate::error::Result;
use crate::reader::{vint_at, Reader};
use crate::span::{serialize_hex, Span, Spanned};
use crate::types::AbstractType;

/// `DatabaseDescriptor.getMaxValueSize()`'s default: 256 MiB.
pub const DEFAULT_MAX_VALUE_BYTES: u64 = 256 << 20;

/// `ClusteringPrefix.Kind`, by ordinal.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// Ordinal → kind and Cassandra's constant name: the one kind table.
const KINDS: [(ClusteringPrefixKind, &str); 10] = [
    (ClusteringPrefixKind::ExclEndBound, "EXCL_END_BOUND"),
    (ClusteringPrefixKind::InclStartBound, "INCL_START_BOUND"),
    (
        ClusteringPrefixKind::ExclEndInclStartBoundary,
        "EXCL_END_INCL_START_BOUNDARY",
    ),
    (ClusteringPrefixKind::StaticClustering, "STATIC_CLUSTERING"),
    (ClusteringPrefixKind::Clustering, "CLUSTERING"),
    (
        ClusteringPrefixKind::InclEndExclStartBoundary,
        "INCL_END_EXCL_START_BOUNDARY",
    ),
    (ClusteringPrefixKind::InclEndBound, "INCL_END_BOUND"),
    (ClusteringPrefixKind::ExclStartBound, "EXCL_START_BOUND"),
    (
        ClusteringPrefixKind::SstableLowerBound,
        "SSTABLE_LOWER_BOUND",
    ),
    (
        ClusteringPrefixKind::SstableUpperBound,
        "SSTABLE_UPPER_BOUND",
    ),
];

impl ClusteringPrefixKind {
    pub fn from_ordinal(ordinal: u8) -> Option<Self> {
        KINDS.get(usize::from(ordinal)).map(|(k, _)| *k)
    }

    pub fn ordinal(self) -> u8 {
        self as u8
    }

    /// Cassandra's constant name, e.g. `INCL_START_BOUND`.
    pub fn name(self) -> &'static str {
        KINDS
            .get(usize::from(self.ordinal()))
            .map_or("unknown kind", |(_, name)| name)
    }

    /// The name of an ordinal read from a file, `unknown kind` when it is none.
    pub fn name_of_ordinal(ordinal: u8) -> &'static str {
        Self::from_ordinal(ordinal).map_or("unknown kind", Self::name)
    }

    /// A boundary closes one range and opens the next (two deletion times follow in a marker).
    pub fn is_boundary(self) -> bool {
        use ClusteringPrefixKind::*;
        matches!(self, ExclEndInclStartBoundary | InclEndExclStartBoundary)
    }

    /// A bound: 0, 1, 6, 7 (and the in-memory SSTable bounds).
    pub fn is_bound(self) -> bool {
        use ClusteringPrefixKind::*;
        matches!(
            self,
            ExclEndBound
                | InclStartBound
                | InclEndBound
                | ExclStartBound
                | SstableLowerBound
                | SstableUpperBound
        )
    }

    /// Kinds a range tombstone marker may have on disk: bounds 0, 1, 6, 7 and boundaries 2, 5.
    pub fn is_marker_kind(self) -> bool {
        self.is_boundary() || (self.is_bound() && self.is_serializable())
    }

    /// Kinds that are written to files at all (`ClusteringPrefix.Serializer`): 0–7 except 3.
    pub fn is_serializable(self) -> bool {
        use ClusteringPrefixKind::*;
        !matches!(
            self,
            StaticClustering | SstableLowerBound | SstableUpperBound
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

/// The per-SSTable facts a clustering decoder needs, resolved once (not per value): each
/// clustering column's fixed value length (`None` = vint-length) and the value cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusteringLayout<'t> {
    /// `AbstractType.valueLengthIfFixed` of each clustering column, in order.
    pub fixed_lengths_bytes: &'t [Option<u32>],
    /// Vint lengths above this are errors (checked before the bytes are looked at).
    pub max_value_bytes: u64,
}

impl<'t> ClusteringLayout<'t> {
    /// A layout with the default value cap ([`DEFAULT_MAX_VALUE_BYTES`]).
    pub const fn new(fixed_lengths_bytes: &'t [Option<u32>]) -> Self {
        ClusteringLayout {
            fixed_lengths_bytes,
            max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
        }
    }

    pub const fn with_max_value_bytes(mut self, max_value_bytes: u64) -> Self {
        self.max_value_bytes = max_value_bytes;
        self
    }

    /// Number of clustering columns.
    pub fn column_count(&self) -> usize {
        self.fixed_lengths_bytes.len()
    }
}

/// The fixed value lengths of clustering types, for a [`ClusteringLayout`]: compute once per
/// SSTable (`AbstractType.valueLengthIfFixed`).
pub fn fixed_value_lengths(types: &[AbstractType]) -> Vec<Option<u32>> {
    types
        .iter()
        .map(AbstractType::value_length_if_fixed)
        .collect()
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

/// One clustering value, borrowed from the decoded bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusteringValue<'a> {
    /// Position among the clustering columns.
    pub index: usize,
    pub state: ClusteringValueState,
    /// The value bytes without their length prefix (empty unless `Present`).
    pub bytes: &'a [u8],
    /// Length prefix and bytes (zero-length at the value's position when not present).
    pub span: Span,
}

impl ClusteringValue<'_> {
    pub fn to_owned(&self) -> ClusteringValueBuf {
        ClusteringValueBuf {
            index: self.index,
            state: self.state,
            bytes: self.bytes.to_vec(),
            span: self.span,
        }
    }
}

/// A decoded clustering prefix that borrows its values from the input: decoding checks every
/// header, length and cap once and allocates nothing; [`ClusteringPrefix::values`] walks the
/// checked bytes again and yields `&'a [u8]` views with their absolute spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusteringPrefix<'a> {
    /// The whole prefix (kind, size, headers, values).
    pub span: Span,
    /// `Clustering` for a row clustering, whose kind is not stored.
    pub kind: ClusteringPrefixKind,
    /// `None` when no kind byte was read (row clustering).
    pub kind_span: Option<Span>,
    /// Bounds and boundaries only.
    pub size: Option<Spanned<u16>>,
    /// Number of values (the size, or every clustering column).
    count: usize,
    /// The header and value bytes, starting at absolute `values_offset`.
    values_bytes: &'a [u8],
    values_offset: u64,
    layout: ClusteringLayout<'a>,
}

/// Walks headers and values of already checked bytes; stops at the first (impossible) error.
struct Walk<'a> {
    r: Reader<'a>,
    layout: ClusteringLayout<'a>,
    index: usize,
    count: usize,
    header: u64,
}

impl<'a> Walk<'a> {
    /// The next value, and the header read before it when a batch of 32 values begins there.
    #[inline]
    fn next_value(&mut self) -> Option<(Option<Spanned<u64>>, ClusteringValue<'a>)> {
        if self.index >= self.count {
            return None;
        }
        let mut header = None;
        if self.index.is_multiple_of(32) {
            let h = self
                .r
                .spanned(|r| r.unsigned_vint("clustering header"))
                .ok()?;
            self.header = h.value;
            header = Some(h);
        }
        let fixed = self.layout.fixed_lengths_bytes.get(self.index).copied()?;
        let value = read_value_at(
            &mut self.r,
            self.index,
            self.header,
            fixed,
            &self.layout,
            "",
        )
        .ok()?;
        self.index = self.index.saturating_add(1);
        Some((header, value))
    }
}

/// Iterator over the values of a [`ClusteringPrefix`]: a walk over the checked bytes by slice
/// reads (a header where a batch of 32 values begins, then each value's fixed length or vint
/// length), without the checked reader's bookkeeping; like [`Walk`], it stops at the first
/// (impossible) error.
pub struct ClusteringValues<'a> {
    bytes: &'a [u8],
    /// Absolute offset of `bytes[0]`.
    offset: u64,
    at: usize,
    fixed_lengths_bytes: &'a [Option<u32>],
    index: usize,
    count: usize,
    header: u64,
}

impl<'a> Iterator for ClusteringValues<'a> {
    type Item = ClusteringValue<'a>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.index >= self.count {
            return None;
        }
        let index = self.index;
        if index.is_multiple_of(32) {
            self.header = vint_at(self.bytes, &mut self.at)?;
        }
        // `index % 32 < 32`, so both shifts are below 64.
        let bit = ((index % 32) as u32).wrapping_mul(2);
        let header = self.header.checked_shr(bit).unwrap_or(0);
        let start = self.at;
        let (state, bytes) = if header & 0b10 != 0 {
            (ClusteringValueState::Null, &[][..])
        } else if header & 0b01 != 0 {
            (ClusteringValueState::Empty, &[][..])
        } else {
            let length = match self.fixed_lengths_bytes.get(index).copied()? {
                Some(n) => usize::try_from(n).ok()?,
                None => usize::try_from(vint_at(self.bytes, &mut self.at)?).ok()?,
            };
            let end = self.at.checked_add(length)?;
            let bytes = self.bytes.get(self.at..end)?;
            self.at = end;
            (ClusteringValueState::Present, bytes)
        };
        self.index = index.saturating_add(1);
        let absolute = |at: usize| self.offset.saturating_add(at as u64);
        Some(ClusteringValue {
            index,
            state,
            bytes,
            span: Span::new(absolute(start), absolute(self.at)),
        })
    }
}

/// Iterator over the empty/null headers (one before each batch of 32 values).
pub struct ClusteringHeaders<'a>(Walk<'a>);

impl Iterator for ClusteringHeaders<'_> {
    type Item = Spanned<u64>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let (Some(h), _) = self.0.next_value()? {
                return Some(h);
            }
        }
    }
}

/// `AbstractType.readValue`: a value of a type with `fixed` length (exactly that many bytes) or
/// a vint length + bytes, refusing lengths over `max_value_bytes` before looking at the bytes.
/// The one value reader of clustering values and Data.db cell values; borrows the input.
#[inline(always)]
pub fn read_value<'a>(
    r: &mut Reader<'a>,
    fixed: Option<u32>,
    max_value_bytes: u64,
    what: &'static str,
) -> Result<&'a [u8]> {
    let len = match fixed {
        Some(n) => u64::from(n),
        None => {
            let start = r.offset();
            let len = r.unsigned_vint(what)?;
            if len > max_value_bytes {
                return Err(r.invalid_at(
                    format!(
                        "value length {len} exceeds the maximum value size of {max_value_bytes} bytes"
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

/// Reads value `index` under `header`: null, empty, or fixed / capped vint-length bytes.
fn read_value_at<'a>(
    r: &mut Reader<'a>,
    index: usize,
    header: u64,
    fixed: Option<u32>,
    layout: &ClusteringLayout<'_>,
    what: &'static str,
) -> Result<ClusteringValue<'a>> {
    // `index % 32 < 32`, so both shifts are below 64.
    let bit = (index % 32).saturating_mul(2);
    let is_null = header
        .checked_shr(bit.saturating_add(1) as u32)
        .unwrap_or(0)
        & 1
        != 0;
    let is_empty = header.checked_shr(bit as u32).unwrap_or(0) & 1 != 0;
    let start = r.offset();
    let (state, bytes) = if is_null {
        (ClusteringValueState::Null, &[][..])
    } else if is_empty {
        (ClusteringValueState::Empty, &[][..])
    } else {
        (
            ClusteringValueState::Present,
            read_value(r, fixed, layout.max_value_bytes, what)?,
        )
    };
    Ok(ClusteringValue {
        index,
        state,
        bytes,
        span: r.span_from(start),
    })
}

impl<'p> ClusteringPrefix<'p> {
    /// `Clustering.Serializer.deserialize`: a row's clustering, one value per clustering column
    /// (nothing at all when the table has none).
    #[inline(always)]
    pub fn read_clustering<'a: 'p, 'l: 'p>(
        r: &mut Reader<'a>,
        layout: ClusteringLayout<'l>,
        what: &'static str,
    ) -> Result<Self> {
        let start = r.offset();
        Self::read_values(
            r,
            layout,
            start,
            ClusteringPrefixKind::Clustering,
            None,
            None,
            what,
        )
    }

    /// [`ClusteringPrefix::read_clustering`] by plain slice reads (the row decoder's fast path):
    /// the clustering at `bytes[*at..]` (`bytes`' first byte at absolute `offset`), `at` moved
    /// past it; `None` wherever the checked read would fail (a value or header past the end, a
    /// vint length above the cap), which then reads it again for the error and its offset.
    #[inline(always)]
    pub(crate) fn clustering_at<'a: 'p, 'l: 'p>(
        bytes: &'a [u8],
        offset: u64,
        at: &mut usize,
        layout: ClusteringLayout<'l>,
    ) -> Option<Self> {
        let start = *at;
        let mut p = start;
        let mut header = 0u64;
        for (index, fixed) in layout.fixed_lengths_bytes.iter().enumerate() {
            if index.is_multiple_of(32) {
                header = vint_at(bytes, &mut p)?;
            }
            // `index % 32 < 32`: the shift is below 64.
            let bit = (index % 32).wrapping_mul(2) as u32;
            if (header >> bit) & 0b11 == 0 {
                let len = match fixed {
                    Some(n) => usize::try_from(*n).ok()?,
                    None => {
                        let len = vint_at(bytes, &mut p)?;
                        if len > layout.max_value_bytes {
                            return None;
                        }
                        usize::try_from(len).ok()?
                    }
                };
                let end = p.checked_add(len)?;
                if end > bytes.len() {
                    return None;
                }
                p = end;
            }
        }
        let values_bytes = bytes.get(start..p)?;
        // `start <= p <= bytes.len()`: positions of the input, so the offsets cannot wrap.
        let values_offset = offset.wrapping_add(start as u64);
        *at = p;
        Some(ClusteringPrefix {
            span: Span::new(values_offset, offset.wrapping_add(p as u64)),
            kind: ClusteringPrefixKind::Clustering,
            kind_span: None,
            size: None,
            count: layout.column_count(),
            values_bytes,
            values_offset,
            layout,
        })
    }

    /// `ClusteringBoundOrBoundary.Serializer.deserialize`: a range tombstone marker's u8 kind
    /// (0, 1, 2, 5, 6 or 7), u16 size and values.
    pub fn read_bound_or_boundary<'a: 'p, 'l: 'p>(
        r: &mut Reader<'a>,
        layout: ClusteringLayout<'l>,
        what: &'static str,
    ) -> Result<Self> {
        Self::read_kind_and_values(
            r,
            layout,
            ClusteringPrefixKind::is_marker_kind,
            "a range tombstone bound or boundary kind (0, 1, 2, 5, 6 or 7)",
            what,
        )
    }

    /// `ClusteringBound.Serializer.deserialize` (a `Slice`'s start or end): u8 kind (0, 1, 6 or
    /// 7), u16 size and values.
    pub fn read_bound<'a: 'p, 'l: 'p>(
        r: &mut Reader<'a>,
        layout: ClusteringLayout<'l>,
        what: &'static str,
    ) -> Result<Self> {
        Self::read_kind_and_values(
            r,
            layout,
            |k| k.is_bound() && k.is_serializable(),
            "a bound kind (0, 1, 6 or 7)",
            what,
        )
    }

    /// `ClusteringPrefix.Serializer.deserialize` (`IndexInfo`'s first/last names): u8 kind;
    /// kind 4 `CLUSTERING` → one value per clustering column, no size; any other kind Cassandra
    /// writes (0–7 except 3) → u16 size + values.
    pub fn read_prefix<'a: 'p, 'l: 'p>(
        r: &mut Reader<'a>,
        layout: ClusteringLayout<'l>,
        what: &'static str,
    ) -> Result<Self> {
        Self::read_kind_and_values(
            r,
            layout,
            ClusteringPrefixKind::is_serializable,
            "a clustering kind Cassandra writes (0–7 except 3)",
            what,
        )
    }

    fn read_kind_and_values<'a: 'p, 'l: 'p>(
        r: &mut Reader<'a>,
        layout: ClusteringLayout<'l>,
        accept: impl Fn(ClusteringPrefixKind) -> bool,
        expected: &str,
        what: &'static str,
    ) -> Result<Self> {
        let start = r.offset();
        let ordinal = r.u8(what)?;
        let kind = ClusteringPrefixKind::from_ordinal(ordinal)
            .filter(|k| accept(*k))
            .ok_or_else(|| {
                r.invalid_at(
                    format!(
                        "clustering kind {ordinal} ({}) is not {expected}",
                        ClusteringPrefixKind::name_of_ordinal(ordinal)
                    ),
                    start,
                    what,
                )
            })?;
        let kind_span = Some(r.span_from(start));
        if kind == ClusteringPrefixKind::Clustering {
            return Self::read_values(r, layout, start, kind, kind_span, None, what);
        }
        let size = r.spanned(|r| r.u16(what))?;
        if usize::from(size.value) > layout.column_count() {
            return Err(r.invalid_at(
                format!(
                    "{} has {} values but the table has {} clustering columns",
                    kind.name(),
                    size.value,
                    layout.column_count()
                ),
                size.span.start,
                what,
            ));
        }
        Self::read_values(r, layout, start, kind, kind_span, Some(size), what)
    }

    /// `deserializeValuesWithoutSize` for `size` (or all) columns: checks every header, length
    /// and cap, and keeps the checked bytes.
    #[inline(always)]
    fn read_values<'a: 'p, 'l: 'p>(
        r: &mut Reader<'a>,
        layout: ClusteringLayout<'l>,
        start: u64,
        kind: ClusteringPrefixKind,
        kind_span: Option<Span>,
        size: Option<Spanned<u16>>,
        what: &'static str,
    ) -> Result<Self> {
        let count = size
            .as_ref()
            .map_or(layout.column_count(), |s| usize::from(s.value));
        let values_offset = r.offset();
        let values_start = r.position();
        let mut header = 0u64;
        for (index, fixed) in layout.fixed_lengths_bytes.iter().take(count).enumerate() {
            if index.is_multiple_of(32) {
                header = r.unsigned_vint(what)?;
            }
            // Only checked here (the values are walked again on request): a value is stored
            // unless its empty (bit 2i) or null (bit 2i+1) header bit is set.
            let bit = (index % 32).wrapping_mul(2) as u32;
            if header.checked_shr(bit).unwrap_or(0) & 0b11 == 0 {
                read_value(r, *fixed, layout.max_value_bytes, what)?;
            }
        }
        let values_bytes = r
            .consumed_since(values_start)
            .ok_or_else(|| r.invalid_at("reader moved backwards", values_offset, what))?;
        Ok(ClusteringPrefix {
            span: r.span_from(start),
            kind,
            kind_span,
            size,
            count,
            values_bytes,
            values_offset,
            layout,
        })
    }

    fn walk(&self) -> Walk<'p> {
        Walk {
            r: Reader::new(self.values_bytes, self.values_offset),
            layout: self.layout,
            index: 0,
            count: self.count,
            header: 0,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The values in column order, borrowed from the input, with their absolute spans.
    pub fn values(&self) -> ClusteringValues<'p> {
        ClusteringValues {
            bytes: self.values_bytes,
            offset: self.values_offset,
            at: 0,
            fixed_lengths_bytes: self.layout.fixed_lengths_bytes,
            index: 0,
            count: self.count,
            header: 0,
        }
    }

    /// The headers and values as stored (without kind and size), borrowed from the input: equal
    /// bytes are equal prefixes of the same kind (the duplicate-row check compares these).
    pub fn encoded_values(&self) -> &'p [u8] {
        self.values_bytes
    }

    /// The empty/null headers with their spans.
    pub fn headers(&self) -> ClusteringHeaders<'p> {
        ClusteringHeaders(self.walk())
    }

    /// An owned copy, for callers that keep the prefix beyond the input's lifetime.
    pub fn to_owned(&self) -> ClusteringPrefixBuf {
        ClusteringPrefixBuf {
            span: self.span,
            kind: self.kind,
            kind_span: self.kind_span,
            size: self.size.clone(),
            headers: {
                // Sized up front: markers are owned on the scan path, one per marker.
                let mut headers = Vec::with_capacity(self.count.div_ceil(32));
                headers.extend(self.headers());
                headers
            },
            values: {
                let mut values = Vec::with_capacity(self.count);
                values.extend(self.values().map(|v| v.to_owned()));
                values
            },
        }
    }
}

/// An owned clustering value ([`ClusteringValue::to_owned`]).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct ClusteringValueBuf {
    pub index: usize,
    pub state: ClusteringValueState,
    /// Hex in JSON.
    #[serde(serialize_with = "serialize_hex")]
    pub bytes: Vec<u8>,
    pub span: Span,
}

/// An owned clustering prefix ([`ClusteringPrefix::to_owned`]).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct ClusteringPrefixBuf {
    pub span: Span,
    pub kind: ClusteringPrefixKind,
    pub kind_span: Option<Span>,
    pub size: Option<Spanned<u16>>,
    pub headers: Vec<Spanned<u64>>,
    pub values: Vec<ClusteringValueBuf>,
}

impl ClusteringPrefixBuf {
    /// The values' states and bytes (empty for empty and null values), for comparisons.
    pub fn value_bytes(&self) -> impl Iterator<Item = (&ClusteringValueState, &[u8])> {
        self.values.iter().map(|v| (&v.state, v.bytes.as_slice()))
    }

    /// The first value's bytes (empty for an empty or null value).
    pub fn first_value(&self) -> Option<&[u8]> {
        self.values.first().map(|v| v.bytes.as_slice())
    }
}

#[cfg(test)]
mod tests;
