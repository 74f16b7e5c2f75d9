//! Partitions.db: the partition index trie (`PartitionIndex`).
//!
//! | part | layout |
//! |---|---|
//! | trie pages | nodes, children before parents, no node crossing a 4096-byte page |
//! | first key | u16 length + bytes (smallest partition key) |
//! | last key | u16 length + bytes |
//! | footer (last 24 bytes) | i64 position of the first key, i64 partition count, i64 root node position |
//!
//! The trie maps the *shortest unique prefix* of each key's byte-comparable form
//! ([`super::bytecomparable::partition_key`]) to a payload:
//!
//! | payload flags `pb` | payload |
//! |---|---|
//! | 8 … 15 (every Cassandra 5 file) | hash byte (low 8 bits of Murmur3 `h2` of the key, whatever the partitioner), then `pb − 7` bytes signed position P |
//! | 1 … 7 | `pb` bytes signed position P, no hash byte |
//!
//! P ≥ 0: the partition has a row index; its `TrieIndexEntry` starts at Rows.db position P.
//! P < 0: no row index; the partition starts at Data.db position `~P` (= −P − 1).
//!
//! Exact lookup (`PartitionIndex.Reader.exactCandidate`): follow the key's byte-comparable bytes;
//! stopping at a node that still has children while bytes remain means absent; then the hash
//! byte must match; the caller confirms the full key at the target (Data.db or Rows.db start
//! with the key).
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/format/bti/PartitionIndex.java`,
//! `PartitionIndexBuilder.java`, `BtiFormat.md` ("Partition index"),
//! `src/java/org/apache/cassandra/io/util/SizedInts.java`, `db/DecoratedKey.java`
//! (`filterHashLowerBits`).
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use super::bytecomparable::{self, partition_key};
use super::trie::{read_signed, NodeType, TrieBytes, TrieNode};
use crate::component::common::count::read_non_negative_long;
use crate::component::crc::push_warnings;
use crate::component::summary::display_key;
use crate::error::{ErrorKind, Result};
use crate::hash::murmur3_x64_128;
use crate::span::{Node, Span, Spanned};
use crate::token::Partitioner;

/// Bytes of the footer: three i64.
pub const FOOTER_BYTES: u64 = 24;
/// `PartitionIndex.FLAG_HAS_HASH_BYTE`.
pub const FLAG_HAS_HASH_BYTE: u8 = 8;
/// At most this many partitions become children in [`PartitionIndex::to_node`].
pub const MAX_CHILD_NODES: usize = 100;

/// The footer and the first/last keys before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionIndexFooter {
    /// First key through the end of the file.
    pub span: Span,
    pub first_key_position: Spanned<u64>,
    pub partition_count: Spanned<u64>,
    pub root_position: Spanned<u64>,
    pub first_key: Spanned<Vec<u8>>,
    pub last_key: Spanned<Vec<u8>>,
}

impl PartitionIndexFooter {
    pub fn to_node(&self) -> Node {
        Node::new(
            "footer",
            format!(
                "{} partitions, root at {}",
                self.partition_count.value, self.root_position.value
            ),
            Some(self.span),
        )
        .with_children(vec![
            Node::new(
                "first key",
                display_key(&self.first_key.value),
                Some(self.first_key.span),
            ),
            Node::new(
                "last key",
                display_key(&self.last_key.value),
                Some(self.last_key.span),
            ),
            Node::new(
                "first key position",
                self.first_key_position.value.to_string(),
                Some(self.first_key_position.span),
            ),
            Node::new(
                "partition count",
                self.partition_count.value.to_string(),
                Some(self.partition_count.span),
            ),
            Node::new(
                "root position",
                self.root_position.value.to_string(),
                Some(self.root_position.span),
            ),
        ])
    }
}

/// Decodes the footer. `tail` holds the end of the file from absolute `tail_offset` and must
/// reach back to the first key (for a small file: the whole file with offset 0).
pub fn decode_footer(tail: &[u8], tail_offset: u64) -> Result<PartitionIndexFooter> {
    let trie = TrieBytes::partitions(tail, tail_offset);
    let file_len = trie.end_offset();
    let footer_start = file_len.checked_sub(FOOTER_BYTES).ok_or_else(|| {
        crate::error::Error::new(
            ErrorKind::UnexpectedEof {
                needed_bytes: FOOTER_BYTES,
                available_bytes: file_len,
            },
            0,
        )
        .context("Partitions.db footer")
        .in_component(trie.component().clone())
    })?;
    let mut r = trie.reader_at(footer_start)?;
    let first_key_position = read_non_negative_long(&mut r, "footer: first key position", "value")?;
    let partition_count = read_non_negative_long(&mut r, "footer: partition count", "value")?;
    let root_position = read_non_negative_long(&mut r, "footer: root position", "value")?;
    let fk = first_key_position.value;
    if fk > footer_start {
        return Err(r.invalid_at(
            format!("first key position {fk} is past the footer at {footer_start}"),
            first_key_position.span.start,
            "footer: first key position",
        ));
    }
    if root_position.value >= fk.max(1) {
        return Err(r.invalid_at(
            format!(
                "root node position {} is not before the keys at {fk}",
                root_position.value
            ),
            root_position.span.start,
            "footer: root position",
        ));
    }
    let mut k = trie.reader_at(fk)?;
    let first_key = spanned_key(&mut k, "first key")?;
    let last_key = spanned_key(&mut k, "last key")?;
    if k.offset() > footer_start {
        return Err(k.invalid_at(
            "the first and last keys run into the footer",
            fk,
            "last key",
        ));
    }
    Ok(PartitionIndexFooter {
        span: Span::new(fk, file_len),
        first_key_position,
        partition_count,
        root_position,
        first_key,
        last_key,
    })
}

/// Where a partition index payload points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PartitionTarget {
    /// The partition has a row index: its entry starts at this Rows.db position.
    RowIndex { rows_position: u64 },
    /// No row index: the partition starts at this Data.db position.
    Data { data_position: u64 },
}

impl PartitionTarget {
    pub fn display(&self) -> String {
        match self {
            PartitionTarget::RowIndex { rows_position } => format!("Rows.db {rows_position}"),
            PartitionTarget::Data { data_position } => format!("Data.db {data_position}"),
        }
    }
}

/// A decoded partition payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionPayload {
    pub span: Span,
    pub payload_flags: u8,
    /// Low 8 bits of the key's Murmur3 `h2` (`pb` ≥ 8).
    pub hash_byte: Option<u8>,
    /// The stored signed position P.
    pub position: i64,
    pub target: PartitionTarget,
}

/// Decodes the payload of a node (`PartitionIndex.getIndexPos`); `None` for `pb` = 0.
pub fn decode_payload(
    trie: &TrieBytes<'_>,
    payload_position: u64,
    payload_flags: u8,
) -> Result<Option<PartitionPayload>> {
    if payload_flags == 0 {
        return Ok(None);
    }
    let mut r = trie.reader_at(payload_position)?;
    let (hash_byte, width) = if payload_flags >= FLAG_HAS_HASH_BYTE {
        let h = r.u8("partition payload: hash byte")?;
        (
            Some(h),
            usize::from(payload_flags.saturating_sub(FLAG_HAS_HASH_BYTE - 1)),
        )
    } else {
        (None, usize::from(payload_flags))
    };
    let position = read_signed(&mut r, width, "partition payload: position")?;
    let target = if position >= 0 {
        PartitionTarget::RowIndex {
            rows_position: position.unsigned_abs(),
        }
    } else {
        PartitionTarget::Data {
            data_position: (!position).unsigned_abs(),
        }
    };
    Ok(Some(PartitionPayload {
        span: r.span_from(payload_position),
        payload_flags,
        hash_byte,
        position,
        target,
    }))
}

/// One partition as the trie lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionIndexEntry {
    /// The shortest byte-comparable prefix that tells this key from its neighbours.
    pub key_prefix: Vec<u8>,
    pub node_position: u64,
    pub node_type: NodeType,
    pub payload: PartitionPayload,
}

impl PartitionIndexEntry {
    fn to_node(&self, i: usize) -> Node {
        let hash = match self.payload.hash_byte {
            Some(h) => format!(", hash 0x{h:02x}"),
            None => String::new(),
        };
        Node::new(
            format!("partition {i}"),
            format!(
                "prefix {} → {}{hash}",
                bytecomparable::describe(&self.key_prefix),
                self.payload.target.display()
            ),
            Some(Span::new(self.node_position, self.payload.span.end)),
        )
        .with_children(vec![
            Node::new(
                "node",
                format!("{} @{}", self.node_type.name(), self.node_position),
                Some(Span::new(self.node_position, self.payload.span.start)),
            ),
            Node::new(
                "payload",
                format!(
                    "flags {}, P = {}{hash}",
                    self.payload.payload_flags, self.payload.position
                ),
                Some(self.payload.span),
            ),
        ])
    }
}

/// Lists every partition under `root` in key order. `max_nodes` bounds the walk.
pub fn walk(trie: &TrieBytes<'_>, root: u64, max_nodes: usize) -> Result<Vec<PartitionIndexEntry>> {
    let payloads = trie.payloads(root, max_nodes)?;
    let mut out = Vec::with_capacity(payloads.len());
    for p in payloads {
        if let Some(payload) = decode_payload(trie, p.payload_position, p.payload_flags)? {
            out.push(PartitionIndexEntry {
                key_prefix: p.key,
                node_position: p.node_position,
                node_type: p.node_type,
                payload,
            });
        }
    }
    Ok(out)
}

/// A decoded Partitions.db.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionIndex {
    pub span: Span,
    pub footer: PartitionIndexFooter,
    pub root: TrieNode,
    /// Every partition, in key order.
    pub entries: Vec<PartitionIndexEntry>,
    /// Suspicious values (decoding went on).
    pub warnings: Vec<String>,
}

/// Decodes a whole Partitions.db: footer, keys and a full walk.
pub fn decode(bytes: &[u8]) -> Result<PartitionIndex> {
    let footer = decode_footer(bytes, 0)?;
    let trie = TrieBytes::partitions(bytes, 0);
    let root = trie.node(footer.root_position.value)?;
    let entries = walk(&trie, footer.root_position.value, bytes.len())?;
    let mut warnings = Vec::new();
    if entries.len() as u64 != footer.partition_count.value {
        warnings.push(format!(
            "the trie lists {} partitions but the footer says {}",
            entries.len(),
            footer.partition_count.value
        ));
    }
    for (i, pair) in entries.windows(2).enumerate() {
        if let [a, b] = pair {
            if let (
                PartitionTarget::Data { data_position: x },
                PartitionTarget::Data { data_position: y },
            ) = (a.payload.target, b.payload.target)
            {
                if y <= x {
                    warnings.push(format!(
                        "partition {}: Data.db position {y} is not above the previous {x}",
                        i.saturating_add(1)
                    ));
                }
            }
        }
        if warnings.len() > 32 {
            break;
        }
    }
    Ok(PartitionIndex {
        span: Span::new(0, bytes.len() as u64),
        footer,
        root,
        entries,
        warnings,
    })
}

impl PartitionIndex {
    pub fn to_node(&self) -> Node {
        let nodes = Node::capped_list(
            &self.entries,
            MAX_CHILD_NODES,
            "partitions",
            || None,
            |(i, e)| e.to_node(i),
        );
        let trie_span = Span::new(0, self.footer.span.start);
        let mut children = vec![
            self.footer.to_node(),
            self.root.to_node("root node"),
            Node::new(
                "partitions",
                format!("{} (in key order)", self.entries.len()),
                Some(trie_span),
            )
            .with_children(nodes),
        ];
        push_warnings(&mut children, &self.warnings);
        Node::new(
            "Partitions.db",
            format!(
                "{} partitions, keys {} … {}",
                self.footer.partition_count.value,
                display_key(&self.footer.first_key.value),
                display_key(&self.footer.last_key.value)
            ),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// Why an exact lookup found nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum NotFound {
    /// The walk stopped at a node with children while key bytes remained.
    NoTransition,
    /// The walk ended at a node without a payload.
    NoPayload,
    /// The stored hash byte differs from the key's.
    HashMismatch { stored: u8, expected: u8 },
}

/// The result of [`lookup`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PartitionLookup {
    /// A candidate: the caller must compare the key stored at the target with the sought key.
    Candidate {
        /// How many byte-comparable bytes the trie matched.
        matched_bytes: usize,
        payload: PartitionPayload,
    },
    Absent(NotFound),
}

/// The hash byte the partition index stores for `key`: the low 8 bits of Murmur3 `h2`
/// (`DecoratedKey.filterHashLowerBits`).
pub fn hash_byte(key: &[u8]) -> u8 {
    (murmur3_x64_128(key, 0).1 & 0xff) as u8
}

/// Looks up `key` (raw partition key bytes) from `root` (`exactCandidate`). `None` when the
/// partitioner's byte-comparable form is not supported (see [`super::bytecomparable`]).
pub fn lookup(
    trie: &TrieBytes<'_>,
    root: u64,
    partitioner: &Partitioner,
    key: &[u8],
) -> Result<Option<PartitionLookup>> {
    let Some(comparable) = partition_key(partitioner, key) else {
        return Ok(None);
    };
    let followed = trie.follow(root, &comparable)?;
    let node = &followed.node;
    if followed.matched < comparable.len() && node.has_children() {
        return Ok(Some(PartitionLookup::Absent(NotFound::NoTransition)));
    }
    let Some(payload) = decode_payload(trie, node.payload_position, node.payload_flags)? else {
        return Ok(Some(PartitionLookup::Absent(NotFound::NoPayload)));
    };
    if let Some(stored) = payload.hash_byte {
        let expected = hash_byte(key);
        if stored != expected {
            return Ok(Some(PartitionLookup::Absent(NotFound::HashMismatch {
                stored,
                expected,
            })));
        }
    }
    Ok(Some(PartitionLookup::Candidate {
        matched_bytes: followed.matched,
        payload,
    }))
}

fn spanned_key(r: &mut crate::reader::Reader<'_>, what: &'static str) -> Result<Spanned<Vec<u8>>> {
    r.spanned(|r| r.short_length_bytes(what).map(<[u8]>::to_vec))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `da/legacy_da_simple/da-1-bti-Partitions.db` (MANIFEST §2), 58 bytes.
    pub(crate) const DA_SIMPLE: [u8; 58] = [
        0x08, 0x09, 0xff, 0x08, 0x37, 0xe9, 0x08, 0xdd, 0xd1, 0x08, 0x02, 0xb9, 0x08, 0x2f, 0xa1,
        0xa0, 0x30, 0x04, 0x00, 0xf0, 0x0c, 0x00, 0x90, 0x06, 0x00, 0x30, 0x1b, 0x40, 0x00, 0x01,
        0x30, 0x00, 0x01, 0x34, 0, 0, 0, 0, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0x05, 0, 0, 0, 0,
        0, 0, 0, 0x1a,
    ];

    #[test]
    fn decodes_the_da_simple_trie() {
        let p = decode(&DA_SIMPLE).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.footer.partition_count.value, 5);
        assert_eq!(p.footer.root_position.value, 26);
        assert_eq!(p.footer.first_key.value, b"0");
        assert_eq!(p.footer.last_key.value, b"4");
        assert_eq!(p.root.node_type, NodeType::SingleNoPayload4);
        let prefixes: Vec<&[u8]> = p.entries.iter().map(|e| e.key_prefix.as_slice()).collect();
        assert_eq!(
            prefixes,
            [
                &[0x40, 0x30][..],
                &[0x40, 0x31],
                &[0x40, 0x32],
                &[0x40, 0x33],
                &[0x40, 0x34]
            ]
        );
        assert_eq!(
            p.entries[0].payload.target,
            PartitionTarget::Data { data_position: 0 }
        );
        assert_eq!(p.entries[0].payload.hash_byte, Some(hash_byte(b"0")));
        let trie = TrieBytes::partitions(&DA_SIMPLE, 0);
        for k in [b"0", b"1", b"2", b"3", b"4"] {
            let found = lookup(&trie, 26, &Partitioner::ByteOrdered, k)
                .unwrap()
                .unwrap();
            assert!(matches!(found, PartitionLookup::Candidate { .. }), "{k:?}");
        }
        assert_eq!(
            lookup(&trie, 26, &Partitioner::ByteOrdered, b"5").unwrap(),
            Some(PartitionLookup::Absent(NotFound::NoTransition))
        );
        let _ = p.to_node();
    }

    #[test]
    fn payload_widths_sign_extend() {
        let bytes = [0x0a, 0x77, 0xff, 0xfe];
        let trie = TrieBytes::partitions(&bytes, 0);
        // pb 10: hash byte + 3 bytes.
        let p = decode_payload(&trie, 0, 10).unwrap().unwrap();
        assert_eq!(p.hash_byte, Some(0x0a));
        assert_eq!(
            p.position,
            i64::from_be_bytes([0, 0, 0, 0, 0, 0x77, 0xff, 0xfe])
        );
        // pb 2: no hash byte, two bytes 0xfffe = −2 → Data.db 1.
        let p = decode_payload(&trie, 2, 2).unwrap().unwrap();
        assert_eq!(p.hash_byte, None);
        assert_eq!(p.target, PartitionTarget::Data { data_position: 1 });
        assert!(decode_payload(&trie, 0, 0).unwrap().is_none());
    }
}
