//! Clustering prefixes in Data.db: a row's clustering and a range tombstone marker's bound or
//! boundary, decoded by the one clustering decoder in
//! [`component::common::clustering`](crate::component::common::clustering).
//!
//! | part | encoding | where |
//! |---|---|---|
//! | kind | u8 `ClusteringPrefix.Kind` ordinal | bounds/boundaries only |
//! | size | u16 number of values | bounds/boundaries only |
//! | header | unsigned vint before each batch of 32 values: bit `2·(i mod 32)` = empty, bit `2·(i mod 32)+1` = null | |
//! | value | fixed-length type: exactly that many bytes; else unsigned vint length + bytes | neither bit set |
//!
//! Rows keep their clustering as a borrowed [`ClusteringPrefix`] (nothing allocated per row);
//! owned rows and markers keep a [`ClusteringPrefixBuf`] ([`Clustering`],
//! [`ClusteringBoundOrBoundary`]).
//!
//! Src: `src/java/org/apache/cassandra/db/Clustering.java` (`Serializer`),
//! `db/ClusteringBoundOrBoundary.java` (`Serializer`).

use super::schema::DataSchema;
use super::DecodeOptions;
use crate::component::common::{ClusteringLayout, ClusteringPrefix, ClusteringPrefixBuf};
use crate::error::Result;
use crate::reader::Reader;

/// A row's clustering (`Clustering.Serializer`), owned: one value per clustering column.
pub type Clustering = ClusteringPrefixBuf;

/// A range tombstone marker's `ClusteringBoundOrBoundary` (kind, size, values), owned.
pub type ClusteringBoundOrBoundary = ClusteringPrefixBuf;

/// A row's clustering decoded in place: its values borrow the window.
pub type ClusteringView<'a> = ClusteringPrefix<'a>;

/// The clustering layout of `schema` with the configured value cap.
#[inline(always)]
pub(crate) fn layout<'a>(schema: &'a DataSchema, options: &DecodeOptions) -> ClusteringLayout<'a> {
    ClusteringLayout::new(&schema.clustering_fixed_lengths_bytes)
        .with_max_value_bytes(options.max_value_bytes)
}

/// `Clustering.serializer.deserialize` in place: checks every value, keeps a view.
#[inline(always)]
pub(crate) fn read_clustering_view<'a>(
    r: &mut Reader<'a>,
    schema: &'a DataSchema,
    options: &DecodeOptions,
) -> Result<ClusteringPrefix<'a>> {
    ClusteringPrefix::read_clustering(r, layout(schema, options), "row clustering")
}

/// `ClusteringBoundOrBoundary.serializer.deserialize`: kind (0, 1, 2, 5, 6 or 7), size (at most
/// the clustering columns), values.
pub(crate) fn read_bound(
    r: &mut Reader<'_>,
    schema: &DataSchema,
    options: &DecodeOptions,
) -> Result<ClusteringBoundOrBoundary> {
    ClusteringPrefix::read_bound_or_boundary(r, layout(schema, options), "range tombstone bound")
        .map(|b| b.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::common::{ClusteringPrefixKind, ClusteringValueState};
    use crate::component::data::DeltaBase;
    use crate::span::Span;
    use crate::types::AbstractType;
    use crate::version::{Format, Version};

    fn schema(clustering: Vec<AbstractType>) -> DataSchema {
        DataSchema::from_parts(
            Version::parse(Format::Big, "nb").unwrap(),
            AbstractType::Int32,
            clustering,
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
    fn rows_and_markers_use_the_schema_layout_and_value_cap() {
        let s = schema(vec![AbstractType::Int32; 2]);
        let opts = DecodeOptions::default();
        let b = [6, 0, 2, 0x08, 0, 0, 0, 7];
        let bound = read_bound(&mut Reader::new(&b, 0), &s, &opts).unwrap();
        assert_eq!(bound.kind, ClusteringPrefixKind::InclEndBound);
        assert_eq!(bound.values[1].state, ClusteringValueState::Null);
        assert!(read_bound(&mut Reader::new(&[4, 0, 0], 0), &s, &opts).is_err());
        let text = schema(vec![AbstractType::Utf8]);
        let small = DecodeOptions {
            max_value_bytes: 3,
            ..DecodeOptions::default()
        };
        assert!(
            read_clustering_view(&mut Reader::new(&[0, 4, 1, 2, 3, 4], 0), &text, &small).is_err()
        );
        let c = read_clustering_view(&mut Reader::new(&[0, 3, 1, 2, 3], 0), &text, &small).unwrap();
        let v = c.values().next().unwrap();
        assert_eq!(v.bytes, [1, 2, 3]);
        assert_eq!(v.span, Span::new(1, 5));
    }
}
