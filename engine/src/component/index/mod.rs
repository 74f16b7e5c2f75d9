//! Index.db (big format): one `RowIndexEntry` per partition, in token order, each optionally
//! carrying a *promoted index* (the partition's `IndexInfo` blocks) when the partition spans at
//! least two row-index blocks.
//!
//! | field | `ma` and later | `jb` … `la` (2.0–2.2) |
//! |---|---|---|
//! | key | u16 length + bytes | same |
//! | position (uncompressed Data.db) | unsigned vint | i64 |
//! | promoted-index size (0 = none) | unsigned vint (32-bit) | i32 |
//! | header length (key + deletion + static row in Data.db) | unsigned vint | – |
//! | partition deletion | `DeletionTime` (12 bytes; from `oa` 1 byte when live) | i32 ldt + i64 mfda |
//! | block count n | unsigned vint (32-bit) | i32 |
//! | n × `IndexInfo` | see below | see below |
//! | n × offset | i32: `IndexInfo` j relative to the first one (first = 0) | – |
//!
//! `IndexInfo` (`ma`+): first clustering and last clustering (`ClusteringPrefix`: u8 kind; kind 4
//! `CLUSTERING` = values for every clustering column, other kinds = u16 size + values; values in
//! batches of 32 behind an unsigned-vint header of empty/null bits, each value fixed-length or
//! vint-length), unsigned vint offset of the block from the partition start, **signed** vint
//! `width − 65536` (`IndexInfo.Serializer.WIDTH_BASE`), bool end-open marker, [`DeletionTime`
//! of the range tombstone still open at the block's end].
//!
//! `IndexInfo` (before `ma`): first name and last name (u16 length + cell name bytes; for
//! compound tables a composite: per component u16 length, bytes, end-of-component byte), i64
//! offset, i64 width. No offsets table: block j is found by walking blocks 0…j−1.
//!
//! The promoted size covers everything after its own field. Large partitions are not
//! materialised here (CASSANDRA-11206 / CASSANDRA-12731: IndexInfo blocks are read on demand
//! through the offsets table): listing entries reads only the key, position, size and the
//! promoted header; [`IndexFile::promoted_index`] reads the header and offsets; and
//! [`IndexFile::block`] decodes one `IndexInfo`.
//!
//! Sans-I/O: an [`IndexFile`] is a window of the file (`data` starting at `base_offset`); an
//! [`IndexCursor`] steps entry by entry and answers [`IndexStep::NeedMoreBytes`] at the end of a
//! window that is not the end of the file.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/big/RowIndexEntry.java`,
//! `.../io/sstable/IndexInfo.java`, `.../db/ClusteringPrefix.java` (`Serializer`,
//! `serializeValuesWithoutSize`), `.../db/DeletionTime.java`,
//! `.../format/big/BigFormatPartitionWriter.java`; cassandra-3.0 `db/RowIndexEntry.java`,
//! `io/sstable/IndexInfo.java`; cassandra-2.1/2.2 `db/RowIndexEntry.java`,
//! `io/sstable/IndexHelper.java` (old `IndexInfo`), `db/composites/CompoundSparseCellNameType`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

pub use crate::component::common::DeletionTime;
use crate::component::crc::push_warnings;
use crate::component::summary::display_key;
use crate::error::{Error, Result};
use crate::span::{serialize_spanned_hex, Node, Span, Spanned};
use crate::version::Version;

mod cursor;
mod promoted;

pub use cursor::{IndexCursor, IndexFile};
pub use promoted::{CompositeComponent, IndexInfo, IndexName, LegacyCellName, PromotedIndex};

/// `IndexInfo.Serializer.WIDTH_BASE`: widths are stored as `width − 64 KiB` (signed vint).
pub const WIDTH_BASE: i64 = 64 * 1024;
/// At most this many entries / blocks / findings become children in `to_node` trees.
pub const MAX_CHILD_NODES: usize = 100;
/// At most this many order or consistency findings are listed one by one.
const MAX_LISTED_FINDINGS: usize = 32;

/// Which Index.db entry layout a version writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IndexLayout {
    /// `jb` … `la`: i64 position, i32 promoted size, old `IndexInfo`, no offsets table.
    Legacy,
    /// `ma` and later: vint position and size, header length, offsets table.
    Current,
}

impl IndexLayout {
    pub fn for_version(version: &Version) -> IndexLayout {
        if version.has_row_format() {
            IndexLayout::Current
        } else {
            IndexLayout::Legacy
        }
    }
}

/// One entry of Index.db as listed (the promoted index is not decoded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexEntry {
    /// The whole entry: key to the end of the promoted index.
    pub span: Span,
    /// Raw partition key bytes; the span includes the u16 length.
    #[serde(serialize_with = "serialize_spanned_hex")]
    pub key: Spanned<Vec<u8>>,
    /// Partition start in the uncompressed Data.db.
    pub position: Spanned<u64>,
    /// Bytes of the promoted index after this field (0 = none).
    pub promoted_size: Spanned<u64>,
    /// The promoted index bytes, when there is one.
    pub promoted_span: Option<Span>,
    /// Number of `IndexInfo` blocks, read from the promoted index header.
    pub block_count: Option<u32>,
}

impl IndexEntry {
    pub fn has_promoted_index(&self) -> bool {
        self.promoted_span.is_some()
    }

    fn to_node(&self, i: usize) -> Node {
        let mut children = vec![
            Node::new("key", display_key(&self.key.value), Some(self.key.span)),
            Node::new(
                "Data.db position",
                self.position.value.to_string(),
                Some(self.position.span),
            ),
            Node::new(
                "promoted index size",
                format!("{} bytes", self.promoted_size.value),
                Some(self.promoted_size.span),
            ),
        ];
        if let Some(p) = self.promoted_span {
            children.push(Node::new(
                "promoted index",
                match self.block_count {
                    Some(n) => format!("{n} IndexInfo blocks (decoded on demand)"),
                    None => "not decoded".to_owned(),
                },
                Some(p),
            ));
        }
        let blocks = match self.block_count {
            Some(n) => format!(", {n} blocks"),
            None => String::new(),
        };
        Node::new(
            format!("partition {i}"),
            format!(
                "{} → Data.db {}{blocks}",
                display_key(&self.key.value),
                self.position.value
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// What one step of an [`IndexCursor`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexStep {
    Entry(IndexEntry),
    /// The window ends inside the entry (or before the next one) at absolute `offset`: supply a
    /// window starting there (or earlier) and step again.
    NeedMoreBytes {
        offset: u64,
    },
    /// The end of the file.
    End,
}

/// The value lengths of clustering columns for [`IndexFile::block`]: `Some(n)` for fixed-length
/// types, `None` for vint-length ones (`AbstractType.valueLengthIfFixed`).
pub use crate::component::common::fixed_value_lengths as clustering_value_lengths;

/// Why decoding a whole Index.db stopped early.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecodeStop {
    pub offset: u64,
    pub message: String,
}

/// A listed Index.db: every entry (without its `IndexInfo` blocks).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrimaryIndex {
    /// The bytes this listing covers.
    pub span: Span,
    pub version: Version,
    pub layout: IndexLayout,
    pub entries: Vec<IndexEntry>,
    /// Entries with a promoted index.
    pub promoted_count: usize,
    /// Set by [`decode_partial`] when an entry could not be decoded.
    pub stopped: Option<DecodeStop>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

/// Lists a whole Index.db; fails on the first undecodable entry.
pub fn decode(bytes: &[u8], version: &Version) -> Result<PrimaryIndex> {
    let (index, error) = decode_partial(bytes, version);
    match error {
        Some(e) => Err(e),
        None => Ok(index),
    }
}

/// Lists a whole Index.db, keeping the entries before an undecodable one.
pub fn decode_partial(bytes: &[u8], version: &Version) -> (PrimaryIndex, Option<Error>) {
    let file = IndexFile::whole(bytes, *version);
    let mut cursor = file.cursor(true);
    let mut entries = Vec::new();
    let mut error = None;
    loop {
        match cursor.next_step() {
            Ok(IndexStep::Entry(e)) => entries.push(e),
            Ok(IndexStep::End | IndexStep::NeedMoreBytes { .. }) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let warnings = position_warnings(&entries);
    let promoted_count = entries.iter().filter(|e| e.has_promoted_index()).count();
    let stopped = error.as_ref().map(|e| DecodeStop {
        offset: e.offset(),
        message: e.message(),
    });
    let end = entries.last().map_or(0, |e| e.span.end);
    (
        PrimaryIndex {
            span: Span::new(
                0,
                if error.is_some() {
                    end
                } else {
                    bytes.len() as u64
                },
            ),
            version: *version,
            layout: IndexLayout::for_version(version),
            entries,
            promoted_count,
            stopped,
            warnings,
        },
        error,
    )
}

/// Data.db positions must grow from entry to entry; the first is normally 0.
fn position_warnings(entries: &[IndexEntry]) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(first) = entries.first() {
        if first.position.value != 0 {
            warnings.push(format!(
                "the first partition starts at Data.db {}, not 0",
                first.position.value
            ));
        }
    }
    let mut bad = 0usize;
    for (i, pair) in entries.windows(2).enumerate() {
        if let [a, b] = pair {
            if b.position.value <= a.position.value {
                bad = bad.saturating_add(1);
                if bad <= MAX_LISTED_FINDINGS {
                    warnings.push(format!(
                        "partition {}: Data.db position {} is not above the previous {}",
                        i.saturating_add(1),
                        b.position.value,
                        a.position.value
                    ));
                }
            }
        }
    }
    if bad > MAX_LISTED_FINDINGS {
        warnings.push(format!(
            "… and {} more positions out of order",
            bad.saturating_sub(MAX_LISTED_FINDINGS)
        ));
    }
    warnings
}

impl PrimaryIndex {
    /// The partition keys, in file order.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.entries.iter().map(|e| e.key.value.as_slice())
    }

    pub fn to_node(&self) -> Node {
        let nodes = Node::capped_list(
            &self.entries,
            MAX_CHILD_NODES,
            "partitions",
            || {
                self.entries
                    .get(MAX_CHILD_NODES)
                    .zip(self.entries.last())
                    .map(|(a, b)| Span::new(a.span.start, b.span.end))
            },
            |(i, e)| e.to_node(i),
        );
        let mut children = vec![Node::new(
            "partitions",
            format!(
                "{} ({} with a promoted index)",
                self.entries.len(),
                self.promoted_count
            ),
            Some(self.span),
        )
        .with_children(nodes)];
        if let Some(s) = &self.stopped {
            children.push(Node::new(
                "decoding stopped",
                s.message.clone(),
                Some(Span::new(s.offset, s.offset.saturating_add(1))),
            ));
        }
        push_warnings(&mut children, &self.warnings);
        let range = match (self.entries.first(), self.entries.last()) {
            (Some(a), Some(b)) => format!(
                ", keys {} … {}",
                display_key(&a.key.value),
                display_key(&b.key.value)
            ),
            _ => String::new(),
        };
        Node::new(
            "Index.db",
            format!(
                "{} partitions ({} layout){range}",
                self.entries.len(),
                match self.layout {
                    IndexLayout::Legacy => "pre-3.0",
                    IndexLayout::Current => "3.0+",
                }
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests;
