//! Clustering bounds in STATS: the legacy min/max clustering values (2.x: column names) and the
//! improved min/max of 5.0, the clustering types and the covered `Slice`.
//!
//! Src: `io/sstable/metadata/StatsMetadata.java`, `db/Slice.java`, `db/ClusteringBound.java`,
//! `db/ClusteringPrefix.java`, `serializers/AbstractTypeSerializer.java`.

use serde::Serialize;

use crate::component::common::count::read_int_count;
use crate::component::common::{
    ClusteringLayout, ClusteringPrefix, ClusteringPrefixBuf, ClusteringValueState,
};
use crate::component::statistics::{bytes_display, leaf, spanned_leaf, RawBytes};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::types::parse_type;

use super::short_type;

/// Legacy min or max clustering values (2.x: column names): one per clustering column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusteringValues {
    pub span: Span,
    pub count: Spanned<u32>,
    pub values: Vec<RawBytes>,
}

impl ClusteringValues {
    pub(in crate::component::statistics) fn decode(
        r: &mut Reader<'_>,
        what: &'static str,
    ) -> Result<Self> {
        let start = r.offset();
        let count = read_int_count(r, what, "value count")?;
        let n = r.check_count(u64::from(count.value), 2, what)?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            let v_start = r.offset();
            let bytes = r.short_length_bytes(what)?;
            values.push(RawBytes {
                bytes: bytes.to_vec(),
                span: r.span_from(v_start),
            });
        }
        Ok(ClusteringValues {
            span: r.span_from(start),
            count,
            values,
        })
    }

    pub(in crate::component::statistics) fn to_node(&self, label: &str) -> Node {
        let mut children = vec![spanned_leaf("count", &self.count)];
        for (i, v) in self.values.iter().enumerate() {
            children.push(leaf(&format!("value {i}"), bytes_display(&v.bytes), v.span));
        }
        Node::new(
            label,
            format!("{} values", self.values.len()),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// A covered-slice bound as a node: kind, size, headers, values.
pub(super) fn bound_node(label: &str, b: &ClusteringPrefixBuf) -> Node {
    let mut children = Vec::new();
    if let Some(span) = b.kind_span {
        children.push(leaf(
            "kind",
            format!("{} ({})", b.kind.ordinal(), b.kind.name()),
            span,
        ));
    }
    if let Some(size) = &b.size {
        children.push(spanned_leaf("size", size));
    }
    for (i, h) in b.headers.iter().enumerate() {
        children.push(leaf(
            &format!("header {i}"),
            format!(
                "0x{:x} (empty/null bits for values {}..)",
                h.value,
                i.saturating_mul(32)
            ),
            h.span,
        ));
    }
    for v in &b.values {
        let value = match v.state {
            ClusteringValueState::Present => bytes_display(&v.bytes),
            ClusteringValueState::Empty => "empty".to_owned(),
            ClusteringValueState::Null => "null".to_owned(),
        };
        children.push(leaf(&format!("value {}", v.index), value, v.span));
    }
    Node::new(
        label,
        format!("{} with {} values", b.kind.name(), b.values.len()),
        Some(b.span),
    )
    .with_children(children)
}

/// The fixed value length of each clustering type string (`None` = vint-length, also for a
/// type string that does not parse).
pub(super) fn clustering_fixed_lengths(types: &[Spanned<String>]) -> Vec<Option<u32>> {
    types
        .iter()
        .map(|t| {
            parse_type(&t.value)
                .ok()
                .and_then(|t| t.value_length_if_fixed())
        })
        .collect()
}

/// The improved min/max (5.0): clustering types and the covered `Slice`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoveredClustering {
    pub span: Span,
    pub type_count: Spanned<u64>,
    /// `AbstractType` strings, e.g. `org.apache.cassandra.db.marshal.UTF8Type`.
    pub clustering_types: Vec<Spanned<String>>,
    pub start: ClusteringPrefixBuf,
    pub end: ClusteringPrefixBuf,
}

impl CoveredClustering {
    pub(super) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let start = r.offset();
        let type_count = r.spanned(|r| r.unsigned_vint("STATS: clustering type count"))?;
        let n = r.check_count(type_count.value, 1, "STATS: clustering types")?;
        let mut clustering_types = Vec::with_capacity(n);
        for _ in 0..n {
            clustering_types.push(r.spanned(|r| {
                r.vint_length_bytes("STATS: clustering type")
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            })?);
        }
        let fixed = clustering_fixed_lengths(&clustering_types);
        let layout = ClusteringLayout::new(&fixed);
        let start_bound =
            ClusteringPrefix::read_bound(r, layout, "STATS: covered slice start bound")?.to_owned();
        let end_bound =
            ClusteringPrefix::read_bound(r, layout, "STATS: covered slice end bound")?.to_owned();
        Ok(CoveredClustering {
            span: r.span_from(start),
            type_count,
            clustering_types,
            start: start_bound,
            end: end_bound,
        })
    }

    pub(super) fn to_node(&self) -> Node {
        let mut types = vec![spanned_leaf("count", &self.type_count)];
        for (i, t) in self.clustering_types.iter().enumerate() {
            types.push(spanned_leaf(&format!("type {i}"), t));
        }
        let types_span = Span::new(
            self.type_count.span.start,
            self.clustering_types
                .last()
                .map_or(self.type_count.span.end, |t| t.span.end),
        );
        Node::new(
            "covered clustering (improved min/max)",
            format!("{} clustering types", self.clustering_types.len()),
            Some(self.span),
        )
        .with_children(vec![
            Node::new(
                "clustering types",
                self.clustering_types
                    .iter()
                    .map(|t| short_type(&t.value))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(types_span),
            )
            .with_children(types),
            bound_node("slice start", &self.start),
            bound_node("slice end", &self.end),
        ])
    }
}
