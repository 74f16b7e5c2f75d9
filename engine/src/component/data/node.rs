//! Field trees ([`Node`]) of decoded Data.db items for the UI, the CLI and golden files.
//!
//! A partition node holds the partition header, the static row, the rows and markers and the
//! end byte; a row node holds its flags, clustering, sizes, liveness, deletion, column subset
//! and one node per column (cells with their timestamps, TTLs and values). Values are shown by
//! a [`ValueRenderer`]; the default shows hex (CQL rendering lives in the types module).

use super::cell::{Cell, ColumnData};
use super::counter::CounterContext;
use super::deletion::{DeletionTime, LivenessInfo, LocalDeletionTime};
use super::partition::{PartitionEnd, PartitionStart};
use super::row::Row;
use super::schema::DataSchema;
use super::view::CellKind;
use super::view::{MarkerDeletion, RangeTombstoneMarker};
use super::{hex, ColumnsEncoding, DataItem, Finding, SpannedBytes};
use crate::component::common::{ClusteringValueBuf, ClusteringValueState};
use crate::span::{Node, Span, Spanned};
use crate::types::AbstractType;

/// Bytes of a value shown in hex before it is cut.
const HEX_PREVIEW_BYTES: usize = 32;

/// Turns a value of a type into text for the tree.
pub trait ValueRenderer {
    fn render(&self, value_type: &AbstractType, bytes: &[u8]) -> String;
}

impl<F: Fn(&AbstractType, &[u8]) -> String> ValueRenderer for F {
    fn render(&self, value_type: &AbstractType, bytes: &[u8]) -> String {
        self(value_type, bytes)
    }
}

/// The default renderer: `0x…` hex, cut after 32 bytes, with the length.
#[derive(Debug, Clone, Copy, Default)]
pub struct HexValues;

impl ValueRenderer for HexValues {
    fn render(&self, _value_type: &AbstractType, bytes: &[u8]) -> String {
        hex_preview(bytes)
    }
}

fn hex_preview(bytes: &[u8]) -> String {
    match bytes.get(..HEX_PREVIEW_BYTES) {
        Some(head) if bytes.len() > HEX_PREVIEW_BYTES => {
            format!("0x{}… ({} bytes)", hex(head), bytes.len())
        }
        _ => format!("0x{}", hex(bytes)),
    }
}

fn leaf(label: &str, value: impl Into<String>, span: Span) -> Node {
    Node::new(label, value, Some(span))
}

fn spanned_leaf<T: core::fmt::Display>(label: &str, s: &Spanned<T>) -> Node {
    leaf(label, s.value.to_string(), s.span)
}

fn findings_nodes(findings: &[Finding]) -> Vec<Node> {
    findings
        .iter()
        .map(|f| leaf("finding", format!("{:?}: {}", f.kind, f.message), f.span))
        .collect()
}

fn ldt_text(t: &LocalDeletionTime) -> String {
    if t.is_none() {
        "none".to_owned()
    } else if t.is_invalid() && !t.unsigned {
        format!("{} (invalid; {} unsigned)", t.secs, t.raw)
    } else if t.is_invalid() {
        format!("{} (invalid)", t.secs)
    } else {
        format!("{} s", t.secs)
    }
}

fn deletion_node(label: &str, d: &DeletionTime) -> Node {
    let summary = if d.deletes_nothing() {
        "live".to_owned()
    } else {
        format!(
            "markedForDeleteAt {} µs, localDeletionTime {}",
            d.marked_for_delete_at_micros,
            ldt_text(&d.local_deletion_time)
        )
    };
    let mut children = Vec::new();
    if let Some(s) = d.marked_for_delete_at_span {
        children.push(leaf(
            "markedForDeleteAt",
            format!("{} µs", d.marked_for_delete_at_micros),
            s,
        ));
    }
    if let Some(s) = d.local_deletion_time_span {
        children.push(leaf(
            "localDeletionTime",
            ldt_text(&d.local_deletion_time),
            s,
        ));
    }
    leaf(label, summary, d.span).with_children(children)
}

fn liveness_node(l: &LivenessInfo) -> Node {
    let mut children = vec![leaf(
        "timestamp",
        format!("{} µs", l.timestamp_micros.value),
        l.timestamp_micros.span,
    )];
    if let Some(t) = &l.ttl_secs {
        children.push(leaf("ttl", format!("{} s", t.value), t.span));
    }
    if let Some(t) = &l.local_expiration_time {
        children.push(leaf("local expiration time", ldt_text(&t.value), t.span));
    }
    let value = match &l.ttl_secs {
        Some(t) => format!("ts {} µs, ttl {} s", l.timestamp_micros.value, t.value),
        None => format!("ts {} µs", l.timestamp_micros.value),
    };
    leaf("liveness", value, l.span).with_children(children)
}

fn clustering_value_text(
    v: &ClusteringValueBuf,
    schema: &DataSchema,
    renderer: &dyn ValueRenderer,
) -> String {
    match v.state {
        ClusteringValueState::Empty => "empty".to_owned(),
        ClusteringValueState::Null => "null".to_owned(),
        ClusteringValueState::Present => match schema.clustering_types.get(v.index) {
            Some(t) => renderer.render(t, &v.bytes),
            None => hex_preview(&v.bytes),
        },
    }
}

fn clustering_nodes(
    headers: &[Spanned<u64>],
    values: &[ClusteringValueBuf],
    schema: &DataSchema,
    renderer: &dyn ValueRenderer,
) -> Vec<Node> {
    let mut out: Vec<Node> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            leaf(
                &format!("header {i}"),
                format!(
                    "{:#x} (empty/null bits of values {}..)",
                    h.value,
                    i.saturating_mul(32)
                ),
                h.span,
            )
        })
        .collect();
    for v in values {
        let ty = schema
            .clustering_types
            .get(v.index)
            .map_or_else(String::new, |t| format!(" ({})", t.cql()));
        out.push(leaf(
            &format!("value {}{ty}", v.index),
            clustering_value_text(v, schema, renderer),
            v.span,
        ));
    }
    out
}

fn flag_names(flags: u8, names: &[(u8, &str)]) -> String {
    let set: Vec<&str> = names
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    if set.is_empty() {
        format!("{flags:#04x}")
    } else {
        format!("{flags:#04x} ({})", set.join(" | "))
    }
}

const ROW_FLAGS: &[(u8, &str)] = &[
    (0x01, "END_OF_PARTITION"),
    (0x02, "IS_MARKER"),
    (0x04, "HAS_TIMESTAMP"),
    (0x08, "HAS_TTL"),
    (0x10, "HAS_DELETION"),
    (0x20, "HAS_ALL_COLUMNS"),
    (0x40, "HAS_COMPLEX_DELETION"),
    (0x80, "EXTENSION_FLAG"),
];
const EXTENDED_FLAGS: &[(u8, &str)] = &[
    (0x01, "IS_STATIC"),
    (0x02, "HAS_SHADOWABLE_DELETION"),
    (0x80, "SCYLLA_SHADOWABLE_TOMBSTONE"),
];
const CELL_FLAGS: &[(u8, &str)] = &[
    (0x01, "IS_DELETED"),
    (0x02, "IS_EXPIRING"),
    (0x04, "HAS_EMPTY_VALUE"),
    (0x08, "USE_ROW_TIMESTAMP"),
    (0x10, "USE_ROW_TTL"),
];

fn bytes_leaf(label: &str, value: String, b: &SpannedBytes) -> Node {
    leaf(label, value, b.span)
}

fn counter_node(c: &CounterContext) -> Node {
    let mut children = vec![spanned_leaf("header count", &c.header_count)];
    for (i, e) in c.header_elements.iter().enumerate() {
        children.push(leaf(
            &format!("header element {i}"),
            e.value.to_string(),
            e.span,
        ));
    }
    for (i, s) in c.shards.iter().enumerate() {
        children.push(leaf(
            &format!("shard {i}"),
            format!(
                "{:?} id {} clock {} count {}",
                s.kind, s.counter_id, s.clock, s.count
            ),
            s.span,
        ));
    }
    leaf(
        "counter context",
        format!("total {} ({} shards)", c.total, c.shards.len()),
        c.span,
    )
    .with_children(children)
}

fn cell_node(
    label: &str,
    cell: &Cell,
    column_type: Option<&AbstractType>,
    path_type: Option<&AbstractType>,
    renderer: &dyn ValueRenderer,
) -> Node {
    let value_text = |bytes: &[u8]| match column_type {
        Some(t) => renderer.render(t, bytes),
        None => hex_preview(bytes),
    };
    let summary = match cell.kind {
        CellKind::Tombstone => "tombstone".to_owned(),
        _ if cell.counter.is_some() => {
            format!("counter {}", cell.counter.as_ref().map_or(0, |c| c.total))
        }
        CellKind::Live => value_text(&cell.value.bytes),
        CellKind::Expiring => format!(
            "{} (ttl {} s)",
            value_text(&cell.value.bytes),
            cell.ttl_secs.unwrap_or(0)
        ),
        CellKind::Expired => format!("{} (expired)", value_text(&cell.value.bytes)),
    };
    let summary = match (&cell.path, path_type) {
        (Some(p), Some(t)) => format!("[{}] {summary}", renderer.render(t, &p.bytes)),
        (Some(p), None) => format!("[{}] {summary}", hex_preview(&p.bytes)),
        _ => summary,
    };
    let mut children = vec![leaf(
        "flags",
        flag_names(cell.flags.value, CELL_FLAGS),
        cell.flags.span,
    )];
    let inherited = Span::new(cell.flags.span.end, cell.flags.span.end);
    children.push(match cell.timestamp_span {
        Some(s) => leaf("timestamp", format!("{} µs", cell.timestamp_micros), s),
        None => leaf(
            "timestamp",
            format!("{} µs (the row's)", cell.timestamp_micros),
            inherited,
        ),
    });
    if let Some(t) = &cell.local_deletion_time {
        let label = if cell.is_tombstone() {
            "local deletion time"
        } else {
            "local expiration time"
        };
        let span = cell.local_deletion_time_span.unwrap_or(inherited);
        children.push(leaf(label, ldt_text(t), span));
    }
    if let Some(t) = cell.ttl_secs {
        children.push(leaf(
            "ttl",
            format!("{t} s"),
            cell.ttl_span.unwrap_or(inherited),
        ));
    }
    if let Some(p) = &cell.path {
        let text = match path_type {
            Some(t) => renderer.render(t, &p.bytes),
            None => hex_preview(&p.bytes),
        };
        children.push(bytes_leaf("path", text, p));
    }
    if !cell.is_tombstone() || !cell.value.bytes.is_empty() {
        let mut v = bytes_leaf("value", value_text(&cell.value.bytes), &cell.value);
        if let Some(c) = &cell.counter {
            v = v.with_children(vec![counter_node(c)]);
        }
        children.push(v);
    }
    leaf(label, summary, cell.span).with_children(children)
}

impl PartitionStart {
    pub fn to_node(&self, schema: &DataSchema) -> Node {
        self.to_node_with(schema, &HexValues)
    }

    pub fn to_node_with(&self, schema: &DataSchema, renderer: &dyn ValueRenderer) -> Node {
        let components: Vec<Node> = self
            .key
            .components
            .iter()
            .map(|c| {
                let text = match schema.key_component_types.get(c.index) {
                    Some(t) => renderer.render(t, &c.value.bytes),
                    None => hex_preview(&c.value.bytes),
                };
                let mut n = bytes_leaf(&format!("component {}", c.index), text, &c.value);
                if let Some(e) = &c.end_of_component {
                    n = n.with_children(vec![leaf(
                        "end of component",
                        format!("{:#04x}", e.value),
                        e.span,
                    )]);
                }
                n
            })
            .collect();
        let key_text = self
            .key
            .components
            .iter()
            .map(|c| match schema.key_component_types.get(c.index) {
                Some(t) => renderer.render(t, &c.value.bytes),
                None => hex_preview(&c.value.bytes),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let key_text = if key_text.is_empty() {
            hex_preview(&self.key.bytes.bytes)
        } else {
            key_text
        };
        let mut key_children = vec![
            spanned_leaf("length", &self.key.length),
            bytes_leaf("bytes", hex_preview(&self.key.bytes.bytes), &self.key.bytes),
        ];
        key_children.extend(components);
        let mut children = vec![
            leaf("key", key_text.clone(), self.key.span).with_children(key_children),
            deletion_node("partition deletion", &self.deletion),
        ];
        children.extend(findings_nodes(&self.findings));
        leaf(
            "partition",
            format!("key {key_text} at {}", self.position),
            self.span,
        )
        .with_children(children)
    }
}

impl Row {
    pub fn to_node(&self, schema: &DataSchema) -> Node {
        self.to_node_with(schema, &HexValues)
    }

    pub fn to_node_with(&self, schema: &DataSchema, renderer: &dyn ValueRenderer) -> Node {
        let mut children = vec![leaf(
            "flags",
            flag_names(self.flags.value, ROW_FLAGS),
            self.flags.span,
        )];
        if let Some(e) = &self.extended_flags {
            children.push(leaf(
                "extended flags",
                flag_names(e.value, EXTENDED_FLAGS),
                e.span,
            ));
        }
        let mut clustering_text = String::new();
        if let Some(c) = &self.clustering {
            clustering_text = c
                .values
                .iter()
                .map(|v| clustering_value_text(v, schema, renderer))
                .collect::<Vec<_>>()
                .join(", ");
            children.push(
                leaf("clustering", clustering_text.clone(), c.span)
                    .with_children(clustering_nodes(&c.headers, &c.values, schema, renderer)),
            );
        }
        children.push(leaf(
            "row size",
            format!("{} bytes", self.row_size.value),
            self.row_size.span,
        ));
        children.push(leaf(
            "previous unfiltered size",
            format!("{} bytes", self.previous_unfiltered_size.value),
            self.previous_unfiltered_size.span,
        ));
        if let Some(l) = &self.liveness {
            children.push(liveness_node(l));
        }
        if let Some(d) = &self.deletion {
            let label = if d.is_shadowable {
                "row deletion (shadowable)"
            } else {
                "row deletion"
            };
            children.push(deletion_node(label, &d.time));
        }
        if let Some(d) = &self.scylla_shadowable_deletion {
            children.push(deletion_node("Scylla shadowable deletion", d));
        }
        let columns = schema.columns(self.is_static);
        let encoding = match self.columns.encoding {
            ColumnsEncoding::AllColumnsFlag => "all (HAS_ALL_COLUMNS)".to_owned(),
            ColumnsEncoding::AllPresent => "all (subset 0)".to_owned(),
            ColumnsEncoding::MissingBitmap(b) => format!("missing bitmap {b:#x}"),
            ColumnsEncoding::PresentIndices => "present indices".to_owned(),
            ColumnsEncoding::MissingIndices => "missing indices".to_owned(),
        };
        let names = self
            .columns
            .present
            .iter()
            .map(|&i| columns.get(i).map_or("?", |c| c.name.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        let subset = Node::new(
            "columns",
            format!(
                "{} of {}: {names} — {encoding}",
                self.columns.present.len(),
                self.columns.superset_count
            ),
            self.columns.span,
        )
        .with_children(
            self.columns
                .stored
                .iter()
                .enumerate()
                .map(|(i, v)| leaf(&format!("vint {i}"), v.value.to_string(), v.span))
                .collect(),
        );
        children.push(subset);
        for data in &self.column_data {
            let column = columns.get(data.column_index());
            let name = column.map_or_else(
                || format!("column {}", data.column_index()),
                |c| c.name.clone(),
            );
            match data {
                ColumnData::Simple(cell) => {
                    let t = column.and_then(|c| c.cell_value_type(None));
                    children.push(cell_node(&name, cell, t, None, renderer));
                }
                ColumnData::Complex(cc) => {
                    let mut cells = Vec::new();
                    if let Some(d) = &cc.complex_deletion {
                        cells.push(deletion_node("complex deletion", d));
                    }
                    cells.push(spanned_leaf("cell count", &cc.cell_count));
                    for (i, cell) in cc.cells.iter().enumerate() {
                        let path = cell.path.as_ref().map(|p| p.bytes.as_slice());
                        let t = column.and_then(|c| c.cell_value_type(path));
                        let pt = column.and_then(|c| c.cell_path_type.as_ref());
                        cells.push(cell_node(&format!("cell {i}"), cell, t, pt, renderer));
                    }
                    children.push(
                        leaf(&name, format!("{} cells", cc.cells.len()), cc.span)
                            .with_children(cells),
                    );
                }
            }
        }
        children.extend(findings_nodes(&self.findings));
        let label = if self.is_static { "static row" } else { "row" };
        let value = if self.is_static {
            format!("{} cells", self.cells().count())
        } else {
            format!("[{clustering_text}] {} cells", self.cells().count())
        };
        leaf(label, value, self.span).with_children(children)
    }
}

impl RangeTombstoneMarker {
    pub fn to_node(&self, schema: &DataSchema) -> Node {
        self.to_node_with(schema, &HexValues)
    }

    pub fn to_node_with(&self, schema: &DataSchema, renderer: &dyn ValueRenderer) -> Node {
        let b = &self.bound;
        let values = b
            .values
            .iter()
            .map(|v| clustering_value_text(v, schema, renderer))
            .collect::<Vec<_>>()
            .join(", ");
        let mut bound_children = vec![leaf(
            "kind",
            format!("{} ({})", b.kind.ordinal(), b.kind.name()),
            b.kind_span.unwrap_or(b.span),
        )];
        bound_children.extend(b.size.as_ref().map(|size| spanned_leaf("size", size)));
        bound_children.extend(clustering_nodes(&b.headers, &b.values, schema, renderer));
        let mut children = vec![
            leaf(
                "flags",
                flag_names(self.flags.value, ROW_FLAGS),
                self.flags.span,
            ),
            leaf("bound", format!("{} [{values}]", b.kind.name()), b.span)
                .with_children(bound_children),
            leaf(
                "marker size",
                format!("{} bytes", self.marker_size.value),
                self.marker_size.span,
            ),
            leaf(
                "previous unfiltered size",
                format!("{} bytes", self.previous_unfiltered_size.value),
                self.previous_unfiltered_size.span,
            ),
        ];
        match &self.deletion {
            MarkerDeletion::Bound(d) => children.push(deletion_node("deletion", d)),
            MarkerDeletion::Boundary { end, start } => {
                children.push(deletion_node("end deletion", end));
                children.push(deletion_node("start deletion", start));
            }
        }
        children.extend(findings_nodes(&self.findings));
        leaf(
            "range tombstone marker",
            format!("{} [{values}]", b.kind.name()),
            self.span,
        )
        .with_children(children)
    }
}

impl PartitionEnd {
    pub fn to_node(&self) -> Node {
        let mut children = vec![leaf(
            "flags",
            format!("{:#04x}", self.flags.value),
            self.flags.span,
        )];
        children.extend(findings_nodes(&self.findings));
        leaf(
            "end of partition",
            format!(
                "{} rows, {} markers, {} bytes",
                self.row_count,
                self.range_tombstone_marker_count,
                self.partition_span.len_bytes()
            ),
            self.flags.span,
        )
        .with_children(children)
    }
}

impl DataItem {
    pub fn to_node(&self, schema: &DataSchema) -> Node {
        self.to_node_with(schema, &HexValues)
    }

    pub fn to_node_with(&self, schema: &DataSchema, renderer: &dyn ValueRenderer) -> Node {
        match self {
            DataItem::PartitionStart(p) => p.to_node_with(schema, renderer),
            DataItem::StaticRow(r) | DataItem::Row(r) => r.to_node_with(schema, renderer),
            DataItem::RangeTombstoneMarker(m) => m.to_node_with(schema, renderer),
            DataItem::PartitionEnd(e) => e.to_node(),
        }
    }
}

/// One partition as a tree: the items of one partition (its `PartitionStart`, rows and
/// markers, and its `PartitionEnd` if already decoded) become a partition node whose children
/// are the header fields, the rows, the markers and the end byte.
pub fn partition_node(
    items: &[DataItem],
    schema: &DataSchema,
    renderer: &dyn ValueRenderer,
) -> Node {
    let mut node = Node::new("partition", "", None);
    let mut start = None;
    let mut end = None;
    for item in items {
        match item {
            DataItem::PartitionStart(p) => {
                let n = p.to_node_with(schema, renderer);
                node.value = n.value;
                node.children.extend(n.children);
                start = Some(p.position);
                end = Some(p.span.end);
            }
            other => {
                node.children.push(other.to_node_with(schema, renderer));
                end = Some(other.span().end);
                if start.is_none() {
                    start = Some(other.position());
                }
            }
        }
    }
    if let Some(DataItem::PartitionEnd(e)) = items.last() {
        node.value = format!("{} — {} rows", node.value, e.row_count);
    }
    node.span = start.zip(end).map(|(s, e)| Span::new(s, e));
    node
}
