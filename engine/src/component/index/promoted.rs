//! One promoted index as decoded: its header and offsets table ([`PromotedIndex`]) and its
//! `IndexInfo` blocks ([`IndexInfo`], first and last clustering or cell name, offset, width,
//! open range tombstone).
//!
//! Src: `.../io/sstable/format/big/RowIndexEntry.java` (`IndexedEntry`),
//! `.../io/sstable/IndexInfo.java`, `.../db/ClusteringPrefix.java`; cassandra-2.1/2.2
//! `io/sstable/IndexHelper.java` (old `IndexInfo`), `db/composites/CompoundSparseCellNameType`.

use serde::Serialize;

use crate::component::common::count::read_non_negative_long;
use crate::component::common::offset_table::{offset_entry_span, offsets_node};
use crate::component::common::DeletionTime;
use crate::component::common::{
    ClusteringLayout, ClusteringPrefix, ClusteringPrefixBuf, ClusteringPrefixKind,
    ClusteringValueBuf, ClusteringValueState,
};
use crate::component::crc::push_warnings;
use crate::component::summary::display_key;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{serialize_hex, Node, Span, Spanned};
use crate::version::Version;

use super::{IndexLayout, MAX_CHILD_NODES, WIDTH_BASE};

/// The decoded header and offsets table of one promoted index (`RowIndexEntry.IndexedEntry` /
/// `ShallowIndexedEntry`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromotedIndex {
    /// Everything after the promoted-size field.
    pub span: Span,
    pub layout: IndexLayout,
    /// Bytes of key + deletion + static row at the start of the partition in Data.db (`ma`+).
    pub header_length: Option<Spanned<u64>>,
    pub deletion: DeletionTime,
    pub block_count: Spanned<u32>,
    /// The serialized `IndexInfo` blocks.
    pub blocks_span: Span,
    /// Offset of each block from the first (`ma`+; empty before).
    pub offsets: Vec<u32>,
    pub offsets_span: Option<Span>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

impl PromotedIndex {
    /// The bytes of offset `i` in the offsets table.
    pub fn offset_span(&self, i: usize) -> Option<Span> {
        offset_entry_span(self.offsets_span?, self.offsets.len(), i)
    }

    pub fn to_node(&self) -> Node {
        let mut children = Vec::new();
        if let Some(h) = &self.header_length {
            children.push(Node::new(
                "header length",
                format!("{} bytes (key, deletion, static row in Data.db)", h.value),
                Some(h.span),
            ));
        }
        children.push(self.deletion.to_node("partition deletion"));
        children.push(Node::new(
            "block count",
            self.block_count.value.to_string(),
            Some(self.block_count.span),
        ));
        children.push(Node::new(
            "IndexInfo blocks",
            format!("{} bytes (decoded on demand)", self.blocks_span.len_bytes()),
            Some(self.blocks_span),
        ));
        if let Some(table) = self.offsets_span {
            children.push(offsets_node(&self.offsets, table, "i32", MAX_CHILD_NODES));
        }
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "promoted index",
            format!(
                "{} blocks, {}",
                self.block_count.value,
                self.deletion.display()
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// A clustering value for display: `empty`, `null`, or the bytes (see [`display_value`]).
fn value_display(v: &ClusteringValueBuf) -> String {
    match v.state {
        ClusteringValueState::Present => display_value(&v.bytes),
        ClusteringValueState::Empty => "empty".to_owned(),
        ClusteringValueState::Null => "null".to_owned(),
    }
}

/// `KIND [v0, v1, …]`.
fn prefix_display(c: &ClusteringPrefixBuf) -> String {
    let values: Vec<String> = c.values.iter().map(value_display).collect();
    format!("{} [{}]", c.kind.name(), values.join(", "))
}

/// A value for display: printable ASCII as quoted text (long values cut, with their length),
/// anything else as hex.
pub(super) fn display_value(bytes: &[u8]) -> String {
    const MAX_SHOWN_CHARS: usize = 40;
    let printable = !bytes.is_empty() && bytes.iter().all(|b| (0x20..0x7f).contains(b));
    if printable && bytes.len() > MAX_SHOWN_CHARS {
        let head = String::from_utf8_lossy(bytes.get(..MAX_SHOWN_CHARS).unwrap_or(bytes));
        return format!("\"{head}…\" ({} bytes)", bytes.len());
    }
    display_key(bytes)
}

/// One component of a pre-3.0 composite cell name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompositeComponent {
    #[serde(serialize_with = "serialize_hex")]
    pub value: Vec<u8>,
    /// The end-of-component byte (0, or −1/1 in slice bounds).
    pub end_of_component: u8,
    pub span: Span,
}

/// A pre-3.0 cell name in an old `IndexInfo` (`jb` … `la`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegacyCellName {
    /// Length prefix and bytes.
    pub span: Span,
    #[serde(serialize_with = "serialize_hex")]
    pub bytes: Vec<u8>,
    /// The composite components, when the name parses as a composite (compound tables); `None`
    /// for simple (non-compound) names.
    pub components: Option<Vec<CompositeComponent>>,
}

impl LegacyCellName {
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let start = r.offset();
        let bytes = r.short_length_bytes(what)?;
        let name_start = start.saturating_add(2);
        let components = parse_composite(bytes, name_start);
        Ok(LegacyCellName {
            span: r.span_from(start),
            bytes: bytes.to_vec(),
            components,
        })
    }

    fn display(&self) -> String {
        match &self.components {
            Some(cs) => {
                let parts: Vec<String> = cs.iter().map(|c| display_value(&c.value)).collect();
                format!("composite [{}]", parts.join(", "))
            }
            None => display_value(&self.bytes),
        }
    }
}

/// Splits a composite (`CompositeType`) name: per component u16 length, bytes, end-of-component
/// byte, consuming all bytes exactly; `None` when the bytes are not shaped like that.
pub(super) fn parse_composite(bytes: &[u8], base: u64) -> Option<Vec<CompositeComponent>> {
    if bytes.is_empty() {
        return None;
    }
    let mut r = Reader::new(bytes, base);
    let mut out = Vec::new();
    while !r.is_empty() {
        let start = r.offset();
        let value = r.short_length_bytes("composite component").ok()?.to_vec();
        let eoc = r.u8("end of component").ok()?;
        out.push(CompositeComponent {
            value,
            end_of_component: eoc,
            span: r.span_from(start),
        });
    }
    Some(out)
}

/// The first or last name of an `IndexInfo` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum IndexName {
    /// `ma`+.
    Clustering(ClusteringPrefixBuf),
    /// `jb` … `la`.
    Legacy(LegacyCellName),
}

impl IndexName {
    pub fn span(&self) -> Span {
        match self {
            IndexName::Clustering(c) => c.span,
            IndexName::Legacy(l) => l.span,
        }
    }

    /// The first clustering value (`ma`+), or the first composite component / the whole name.
    pub fn first_value(&self) -> Option<&[u8]> {
        match self {
            IndexName::Clustering(c) => c.first_value(),
            IndexName::Legacy(l) => match &l.components {
                Some(cs) => cs.first().map(|c| c.value.as_slice()),
                None => Some(l.bytes.as_slice()),
            },
        }
    }

    /// The `ClusteringPrefix.Kind` (`ma`+).
    pub fn kind(&self) -> Option<ClusteringPrefixKind> {
        match self {
            IndexName::Clustering(c) => Some(c.kind),
            IndexName::Legacy(_) => None,
        }
    }

    pub fn display(&self) -> String {
        match self {
            IndexName::Clustering(c) => prefix_display(c),
            IndexName::Legacy(l) => l.display(),
        }
    }
}

/// One row-index block of a partition (`IndexInfo`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexInfo {
    pub span: Span,
    /// Block number j within the promoted index.
    pub index: u32,
    pub first_name: IndexName,
    pub last_name: IndexName,
    /// Block start, relative to the partition start in Data.db.
    pub offset: Spanned<u64>,
    /// Block length in Data.db.
    pub width: Spanned<u64>,
    /// The stored signed vint, `width − 65536` (`ma`+).
    pub width_delta: Option<i64>,
    /// Whether a range tombstone is open at the block's end (`ma`+).
    pub has_end_open_marker: Option<Spanned<bool>>,
    pub end_open_marker: Option<DeletionTime>,
}

impl IndexInfo {
    pub(super) fn decode_current(
        r: &mut Reader<'_>,
        index: u32,
        lengths: &[Option<u32>],
        version: &Version,
    ) -> Result<Self> {
        let start = r.offset();
        let layout = ClusteringLayout::new(lengths);
        let first_name =
            ClusteringPrefix::read_prefix(r, layout, "IndexInfo: first clustering")?.to_owned();
        let last_name =
            ClusteringPrefix::read_prefix(r, layout, "IndexInfo: last clustering")?.to_owned();
        let offset = r.spanned(|r| r.unsigned_vint("IndexInfo: offset"))?;
        let width_start = r.offset();
        let delta = r.signed_vint("IndexInfo: width")?;
        let width = delta.wrapping_add(WIDTH_BASE);
        let width = u64::try_from(width).map_err(|_| {
            r.invalid_at(
                format!("negative block width {width}"),
                width_start,
                "IndexInfo: width",
            )
        })?;
        let width = Spanned {
            value: width,
            span: r.span_from(width_start),
        };
        let has_marker = r.spanned(|r| r.bool("IndexInfo: end open marker flag"))?;
        let end_open_marker = if has_marker.value {
            Some(DeletionTime::decode(
                r,
                version,
                "IndexInfo: end open marker",
            )?)
        } else {
            None
        };
        Ok(IndexInfo {
            span: r.span_from(start),
            index,
            first_name: IndexName::Clustering(first_name),
            last_name: IndexName::Clustering(last_name),
            offset,
            width,
            width_delta: Some(delta),
            has_end_open_marker: Some(has_marker),
            end_open_marker,
        })
    }

    pub(super) fn decode_legacy(r: &mut Reader<'_>, index: u32) -> Result<Self> {
        let start = r.offset();
        let first_name = LegacyCellName::decode(r, "IndexInfo: first name")?;
        let last_name = LegacyCellName::decode(r, "IndexInfo: last name")?;
        let offset = read_non_negative_long(r, "IndexInfo: offset", "block offset")?;
        let width = read_non_negative_long(r, "IndexInfo: width", "block width")?;
        Ok(IndexInfo {
            span: r.span_from(start),
            index,
            first_name: IndexName::Legacy(first_name),
            last_name: IndexName::Legacy(last_name),
            offset,
            width,
            width_delta: None,
            has_end_open_marker: None,
            end_open_marker: None,
        })
    }

    pub(super) fn skip_legacy(r: &mut Reader<'_>) -> Result<()> {
        r.short_length_bytes("IndexInfo: first name")?;
        r.short_length_bytes("IndexInfo: last name")?;
        r.skip(16, "IndexInfo: offset and width")
    }

    pub fn to_node(&self) -> Node {
        let mut children = vec![
            Node::new(
                "first",
                self.first_name.display(),
                Some(self.first_name.span()),
            ),
            Node::new(
                "last",
                self.last_name.display(),
                Some(self.last_name.span()),
            ),
            Node::new(
                "offset",
                format!("{} (from the partition start)", self.offset.value),
                Some(self.offset.span),
            ),
            Node::new(
                "width",
                match self.width_delta {
                    Some(d) => format!("{} bytes (stored as {d} + 65536)", self.width.value),
                    None => format!("{} bytes", self.width.value),
                },
                Some(self.width.span),
            ),
        ];
        if let Some(flag) = &self.has_end_open_marker {
            children.push(Node::new(
                "end open marker",
                flag.value.to_string(),
                Some(flag.span),
            ));
        }
        if let Some(d) = &self.end_open_marker {
            children.push(d.to_node("open range tombstone"));
        }
        Node::new(
            format!("IndexInfo {}", self.index),
            format!(
                "{} … {}, offset {}, width {}",
                self.first_name.display(),
                self.last_name.display(),
                self.offset.value,
                self.width.value
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}
