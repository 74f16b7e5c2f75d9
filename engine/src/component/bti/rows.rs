//! Rows.db: one row-index trie per partition with at least two index blocks, each followed by
//! the `TrieIndexEntry` that Partitions.db points at.
//!
//! `TrieIndexEntry` (at the position a Partitions.db payload gives):
//!
//! | field | type |
//! |---|---|
//! | key | u16 length + bytes |
//! | data position | unsigned vint: partition start in Data.db |
//! | root | **signed** vint: root node position − (offset right after the key) |
//! | block count | unsigned vint (32-bit) |
//! | partition deletion | `DeletionTime` in the version's encoding (`da`: 1 byte `80` when live, else 12) |
//!
//! Row-index trie: keys are *separators*, byte-comparable clustering prefixes (≥ the previous
//! block's last row, ≤ the block's first; the first block's separator is empty). Payload
//! (`RowIndexReader.IndexInfo`): `pb & 7` bytes of signed block offset from the partition start
//! (`SizedInts`), then, if `pb & 8`, the `DeletionTime` of a range tombstone open at the start of
//! the block. A lookup takes the greatest separator ≤ the sought clustering. After the last
//! block the writer adds one more entry, keyed just above the last clustering, whose offset is
//! the partition's end-of-partition byte: a trie lists `block count + 1` payloads (verified on
//! the `da` fixtures).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/bti/TrieIndexEntry.java`,
//! `RowIndexReader.java`, `RowIndexWriter.java`, `BtiFormatPartitionWriter.java`,
//! `BtiFormat.md` ("Row index"), `db/DeletionTime.java`.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use super::bytecomparable::describe;
use super::trie::{read_signed, NodeType, TrieBytes};
use crate::component::crc::push_warnings;
use crate::component::index::DeletionTime;
use crate::component::summary::display_key;
use crate::error::Result;
use crate::span::{Node, Span, Spanned};
use crate::version::Version;

/// `RowIndexReader.FLAG_OPEN_MARKER`.
pub const FLAG_OPEN_MARKER: u8 = 8;
/// At most this many blocks become children in [`RowIndex::to_node`].
pub const MAX_CHILD_NODES: usize = 100;

/// The entry of one partition in Rows.db (`TrieIndexEntry`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrieIndexEntry {
    pub span: Span,
    pub key: Spanned<Vec<u8>>,
    /// Partition start in the uncompressed Data.db.
    pub data_position: Spanned<u64>,
    /// The stored signed vint.
    pub root_delta: Spanned<i64>,
    /// Absolute Rows.db position of the row-index trie's root.
    pub root_position: u64,
    pub block_count: Spanned<u32>,
    pub deletion: DeletionTime,
}

/// Decodes the `TrieIndexEntry` at absolute `position` of Rows.db (`rows` is a window of it).
pub fn decode_entry(
    rows: &TrieBytes<'_>,
    position: u64,
    version: &Version,
) -> Result<TrieIndexEntry> {
    let mut r = rows.reader_at(position)?;
    let key = r.spanned(|r| {
        r.short_length_bytes("row index entry: key")
            .map(<[u8]>::to_vec)
    })?;
    let base = r.offset();
    let data_position = r.spanned(|r| r.unsigned_vint("row index entry: data position"))?;
    let root_delta = r.spanned(|r| r.signed_vint("row index entry: root"))?;
    let root_position = base
        .checked_add_signed(root_delta.value)
        .filter(|&p| p < position)
        .ok_or_else(|| {
            r.invalid_at(
                format!(
                    "root delta {} from {base} does not point before the entry at {position}",
                    root_delta.value
                ),
                root_delta.span.start,
                "row index entry: root",
            )
        })?;
    let block_count = r.spanned(|r| r.unsigned_vint32("row index entry: block count"))?;
    let deletion = DeletionTime::decode(&mut r, version, "row index entry: partition deletion")?;
    Ok(TrieIndexEntry {
        span: r.span_from(position),
        key,
        data_position,
        root_delta,
        root_position,
        block_count,
        deletion,
    })
}

impl TrieIndexEntry {
    pub fn to_node(&self) -> Node {
        Node::new(
            "row index entry",
            format!(
                "{} → Data.db {}, {} blocks",
                display_key(&self.key.value),
                self.data_position.value,
                self.block_count.value
            ),
            Some(self.span),
        )
        .with_children(vec![
            Node::new("key", display_key(&self.key.value), Some(self.key.span)),
            Node::new(
                "Data.db position",
                self.data_position.value.to_string(),
                Some(self.data_position.span),
            ),
            Node::new(
                "root",
                format!(
                    "{} (stored as {})",
                    self.root_position, self.root_delta.value
                ),
                Some(self.root_delta.span),
            ),
            Node::new(
                "block count",
                self.block_count.value.to_string(),
                Some(self.block_count.span),
            ),
            self.deletion.to_node("partition deletion"),
        ])
    }
}

/// One row-index block as the trie lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowIndexBlock {
    /// The byte-comparable separator (empty for the first block).
    pub separator: Vec<u8>,
    pub node_position: u64,
    pub node_type: NodeType,
    pub payload_span: Span,
    /// Block start relative to the partition start in Data.db.
    pub offset: i64,
    /// The range tombstone open at the start of the block.
    pub open_marker: Option<DeletionTime>,
}

impl RowIndexBlock {
    fn to_node(&self, i: usize) -> Node {
        let mut children = vec![Node::new(
            "node",
            format!("{} @{}", self.node_type.name(), self.node_position),
            Some(Span::new(self.node_position, self.payload_span.start)),
        )];
        if let Some(d) = &self.open_marker {
            children.push(d.to_node("open range tombstone"));
        }
        Node::new(
            format!("block {i}"),
            format!(
                "separator {} → offset {}",
                describe(&self.separator),
                self.offset
            ),
            Some(Span::new(self.node_position, self.payload_span.end)),
        )
        .with_children(children)
    }
}

/// Lists the blocks of the row-index trie under `root` in separator order.
pub fn walk(
    rows: &TrieBytes<'_>,
    root: u64,
    version: &Version,
    max_nodes: usize,
) -> Result<Vec<RowIndexBlock>> {
    let payloads = rows.payloads(root, max_nodes)?;
    let mut out = Vec::with_capacity(payloads.len());
    for p in payloads {
        let mut r = rows.reader_at(p.payload_position)?;
        let width = usize::from(p.payload_flags & !FLAG_OPEN_MARKER);
        let offset = read_signed(&mut r, width, "row index payload: block offset")?;
        let open_marker = if p.payload_flags & FLAG_OPEN_MARKER != 0 {
            Some(DeletionTime::decode(
                &mut r,
                version,
                "row index payload: open marker",
            )?)
        } else {
            None
        };
        out.push(RowIndexBlock {
            separator: p.key,
            node_position: p.node_position,
            node_type: p.node_type,
            payload_span: r.span_from(p.payload_position),
            offset,
            open_marker,
        });
    }
    Ok(out)
}

/// One partition's row index: entry and blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowIndex {
    pub entry: TrieIndexEntry,
    pub blocks: Vec<RowIndexBlock>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

/// Decodes the entry at `position` and walks its trie. `rows` must cover the trie and the entry.
pub fn decode_row_index(
    rows: &TrieBytes<'_>,
    position: u64,
    version: &Version,
) -> Result<RowIndex> {
    let entry = decode_entry(rows, position, version)?;
    let budget = usize::try_from(rows.len_bytes()).unwrap_or(usize::MAX);
    let blocks = walk(rows, entry.root_position, version, budget)?;
    let mut warnings = Vec::new();
    let count = entry.block_count.value as usize;
    if blocks.len() != count && blocks.len() != count.saturating_add(1) {
        warnings.push(format!(
            "the trie lists {} entries but the entry says {count} blocks (expected {count}, or \
             {} with the end-of-partition entry)",
            blocks.len(),
            count.saturating_add(1)
        ));
    }
    if let Some(first) = blocks.first() {
        if !first.separator.is_empty() {
            warnings.push("the first block's separator is not empty".to_owned());
        }
    }
    for (i, pair) in blocks.windows(2).enumerate() {
        if let [a, b] = pair {
            if b.offset <= a.offset {
                warnings.push(format!(
                    "block {}: offset {} is not above the previous {}",
                    i.saturating_add(1),
                    b.offset,
                    a.offset
                ));
                if warnings.len() > 32 {
                    break;
                }
            }
        }
    }
    Ok(RowIndex {
        entry,
        blocks,
        warnings,
    })
}

impl RowIndex {
    /// The offset (from the partition start) of the end-of-partition byte, when the trie has the
    /// extra final entry `RowIndexWriter` adds after the last block.
    pub fn end_of_partition_offset(&self) -> Option<i64> {
        let count = self.entry.block_count.value as usize;
        (self.blocks.len() == count.saturating_add(1))
            .then(|| self.blocks.last().map(|b| b.offset))
            .flatten()
    }

    pub fn to_node(&self) -> Node {
        let nodes = Node::capped_list(
            &self.blocks,
            MAX_CHILD_NODES,
            "blocks",
            || None,
            |(i, b)| b.to_node(i),
        );
        let mut children = vec![
            self.entry.to_node(),
            Node::new("blocks", self.blocks.len().to_string(), None).with_children(nodes),
        ];
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "row index",
            format!(
                "{}: {} blocks",
                display_key(&self.entry.key.value),
                self.blocks.len()
            ),
            Some(self.entry.span),
        )
        .with_children(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::Format;

    #[test]
    fn entry_with_live_deletion() {
        // A trie (leaf at 0 with a 1-byte offset 4, root SINGLE_8 at 2 → leaf with payload 9)
        // then the entry for key "k".
        let mut bytes = vec![0x01, 0x04, 0x21, 0x40, 0x02, 0x09];
        let entry_at = bytes.len() as u64;
        bytes.extend_from_slice(&[0, 1, b'k', 0x00]);
        // root 2 − (entry_at + 3) = −7 → zigzag 13.
        bytes.extend_from_slice(&[13, 2, 0x80]);
        let da = Version::parse(Format::Bti, "da").unwrap();
        let rows = TrieBytes::rows(&bytes, 0);
        let ri = decode_row_index(&rows, entry_at, &da).unwrap();
        assert_eq!(ri.entry.key.value, b"k");
        assert_eq!(ri.entry.root_position, 2);
        assert_eq!(ri.entry.block_count.value, 2);
        assert!(ri.entry.deletion.is_live());
        assert_eq!(ri.entry.span.end, bytes.len() as u64);
        let offsets: Vec<i64> = ri.blocks.iter().map(|b| b.offset).collect();
        assert_eq!(offsets, [9, 4]);
        assert_eq!(ri.blocks[1].separator, [0x40]);
        // Offsets that do not grow are reported.
        assert_eq!(ri.warnings.len(), 1, "{:?}", ri.warnings);
        let _ = ri.to_node();
    }
}
