//! On-disk trie nodes (`TrieNode`) and bounded walks over them (`Walker`).
//!
//! Byte 0 of a node: high nibble = node type, low nibble = payload flags `pb` (0 = no payload),
//! except for the two `SINGLE_NOPAYLOAD` types whose low nibble holds pointer bits. Pointers are
//! unsigned *distances*: child = node position − distance (tries are written children first).
//! Multi-byte integers are big-endian. 12-bit pointer arrays pack two pointers in 3 bytes:
//! pointer j is the big-endian u16 at `base + ⌊3j/2⌋`, its top 12 bits for even j, low 12 bits
//! for odd j. In `DENSE` nodes a distance of 0 means "no child".
//!
//! | type | name | after byte 0 | payload at |
//! |---|---|---|---|
//! | 0 | `PAYLOAD_ONLY` | – | npos+1 |
//! | 1 | `SINGLE_NOPAYLOAD_4` | transition (distance = low nibble) | none |
//! | 2 | `SINGLE_8` | transition, 1-byte distance | npos+3 |
//! | 3 | `SINGLE_NOPAYLOAD_12` | distance bits 7..0 (11..8 = low nibble), transition | none |
//! | 4 | `SINGLE_16` | transition, 2-byte distance | npos+4 |
//! | 5 | `SPARSE_8` | count c, c transitions (ascending), c × 1 byte | npos+2+2c |
//! | 6 | `SPARSE_12` | c, transitions, c × 12 bits | npos+2+c+⌈3c/2⌉ |
//! | 7 | `SPARSE_16` | c, transitions, c × 2 bytes | npos+2+3c |
//! | 8 | `SPARSE_24` | c, transitions, c × 3 bytes | npos+2+4c |
//! | 9 | `SPARSE_40` | c, transitions, c × 5 bytes | npos+2+6c |
//! | 10 | `DENSE_12` | first byte f, len−1, len × 12 bits (for f … f+len−1) | npos+3+⌈3·len/2⌉ |
//! | 11 | `DENSE_16` | f, len−1, len × 2 bytes | npos+3+2·len |
//! | 12 | `DENSE_24` | f, len−1, len × 3 bytes | npos+3+3·len |
//! | 13 | `DENSE_32` | f, len−1, len × 4 bytes | npos+3+4·len |
//! | 14 | `DENSE_40` | f, len−1, len × 5 bytes | npos+3+5·len |
//! | 15 | `LONG_DENSE` | f, len−1, len × 8 bytes | npos+3+8·len |
//!
//! Robustness: a distance of 0 (outside `DENSE`) or one larger than the node's position is an
//! error, so every followed pointer goes strictly backwards and no path can loop; walks are also
//! capped by a node budget (the window size), so shared sub-tries in a corrupt file cannot blow
//! up either.
//!
//! Src: `src/java/org/apache/cassandra/io/tries/TrieNode.java`, `.../io/tries/Walker.java`,
//! `.../io/tries/ValueIterator.java`, `.../io/util/SizedInts.java`,
//! `.../io/sstable/format/bti/BtiFormat.md` ("Trie nodes").
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use serde::Serialize;

use crate::component::ComponentType;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;
use crate::span::{Node, Span};

/// Tries are laid out in pages of this size; no node crosses a page boundary.
pub const PAGE_SIZE: u64 = 4096;

/// `TrieNode.Types`, by the ordinal in the node's high nibble.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum NodeType {
    PayloadOnly,
    SingleNoPayload4,
    Single8,
    SingleNoPayload12,
    Single16,
    Sparse8,
    Sparse12,
    Sparse16,
    Sparse24,
    Sparse40,
    Dense12,
    Dense16,
    Dense24,
    Dense32,
    Dense40,
    LongDense,
}

/// How pointers are stored in a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pointers {
    /// 12-bit packed.
    Twelve,
    /// Whole bytes.
    Bytes(usize),
}

impl NodeType {
    /// From the high nibble of a node's first byte.
    pub fn from_ordinal(ordinal: u8) -> NodeType {
        match ordinal & 0x0f {
            0 => NodeType::PayloadOnly,
            1 => NodeType::SingleNoPayload4,
            2 => NodeType::Single8,
            3 => NodeType::SingleNoPayload12,
            4 => NodeType::Single16,
            5 => NodeType::Sparse8,
            6 => NodeType::Sparse12,
            7 => NodeType::Sparse16,
            8 => NodeType::Sparse24,
            9 => NodeType::Sparse40,
            10 => NodeType::Dense12,
            11 => NodeType::Dense16,
            12 => NodeType::Dense24,
            13 => NodeType::Dense32,
            14 => NodeType::Dense40,
            _ => NodeType::LongDense,
        }
    }

    pub fn ordinal(self) -> u8 {
        match self {
            NodeType::PayloadOnly => 0,
            NodeType::SingleNoPayload4 => 1,
            NodeType::Single8 => 2,
            NodeType::SingleNoPayload12 => 3,
            NodeType::Single16 => 4,
            NodeType::Sparse8 => 5,
            NodeType::Sparse12 => 6,
            NodeType::Sparse16 => 7,
            NodeType::Sparse24 => 8,
            NodeType::Sparse40 => 9,
            NodeType::Dense12 => 10,
            NodeType::Dense16 => 11,
            NodeType::Dense24 => 12,
            NodeType::Dense32 => 13,
            NodeType::Dense40 => 14,
            NodeType::LongDense => 15,
        }
    }

    /// Cassandra's name, e.g. `SPARSE_12`.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::PayloadOnly => "PAYLOAD_ONLY",
            NodeType::SingleNoPayload4 => "SINGLE_NOPAYLOAD_4",
            NodeType::Single8 => "SINGLE_8",
            NodeType::SingleNoPayload12 => "SINGLE_NOPAYLOAD_12",
            NodeType::Single16 => "SINGLE_16",
            NodeType::Sparse8 => "SPARSE_8",
            NodeType::Sparse12 => "SPARSE_12",
            NodeType::Sparse16 => "SPARSE_16",
            NodeType::Sparse24 => "SPARSE_24",
            NodeType::Sparse40 => "SPARSE_40",
            NodeType::Dense12 => "DENSE_12",
            NodeType::Dense16 => "DENSE_16",
            NodeType::Dense24 => "DENSE_24",
            NodeType::Dense32 => "DENSE_32",
            NodeType::Dense40 => "DENSE_40",
            NodeType::LongDense => "LONG_DENSE",
        }
    }

    /// Whether the type can carry a payload (the `SINGLE_NOPAYLOAD` types cannot).
    pub fn can_have_payload(self) -> bool {
        !matches!(
            self,
            NodeType::SingleNoPayload4 | NodeType::SingleNoPayload12
        )
    }

    fn sparse_pointers(self) -> Option<Pointers> {
        Some(match self {
            NodeType::Sparse8 => Pointers::Bytes(1),
            NodeType::Sparse12 => Pointers::Twelve,
            NodeType::Sparse16 => Pointers::Bytes(2),
            NodeType::Sparse24 => Pointers::Bytes(3),
            NodeType::Sparse40 => Pointers::Bytes(5),
            _ => return None,
        })
    }

    fn dense_pointers(self) -> Option<Pointers> {
        Some(match self {
            NodeType::Dense12 => Pointers::Twelve,
            NodeType::Dense16 => Pointers::Bytes(2),
            NodeType::Dense24 => Pointers::Bytes(3),
            NodeType::Dense32 => Pointers::Bytes(4),
            NodeType::Dense40 => Pointers::Bytes(5),
            NodeType::LongDense => Pointers::Bytes(8),
            _ => return None,
        })
    }
}

/// One outgoing edge of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub byte: u8,
    /// Absolute position of the child node.
    pub child: u64,
    /// The stored distance (node position − child).
    pub distance: u64,
}

/// A decoded trie node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrieNode {
    /// Absolute position of byte 0.
    pub position: u64,
    pub node_type: NodeType,
    /// Low nibble of byte 0 (0 for the `SINGLE_NOPAYLOAD` types).
    pub payload_flags: u8,
    /// Where the payload (if any) starts: the end of the node proper.
    pub payload_position: u64,
    /// Existing children in ascending transition order (dense holes skipped).
    pub transitions: Vec<Transition>,
}

impl TrieNode {
    /// The node proper (without its payload).
    pub fn span(&self) -> Span {
        Span::new(self.position, self.payload_position)
    }

    pub fn has_payload(&self) -> bool {
        self.payload_flags != 0
    }

    pub fn has_children(&self) -> bool {
        !self.transitions.is_empty()
    }

    /// The child reached by `byte`, if any.
    pub fn child(&self, byte: u8) -> Option<u64> {
        self.transitions
            .binary_search_by_key(&byte, |t| t.byte)
            .ok()
            .and_then(|i| self.transitions.get(i))
            .map(|t| t.child)
    }

    pub fn to_node(&self, label: &str) -> Node {
        let edges: Vec<String> = self
            .transitions
            .iter()
            .take(16)
            .map(|t| format!("{:02x}→{}", t.byte, t.child))
            .collect();
        let more = if self.transitions.len() > 16 {
            format!(" … ({} in all)", self.transitions.len())
        } else {
            String::new()
        };
        Node::new(
            label,
            format!(
                "{} @{}, payload flags {}, children [{}{more}]",
                self.node_type.name(),
                self.position,
                self.payload_flags,
                edges.join(" ")
            ),
            Some(self.span()),
        )
    }
}

/// A window of a trie file (Partitions.db or Rows.db): `data` holds the bytes from absolute
/// `base_offset`.
#[derive(Debug, Clone, Copy)]
pub struct TrieBytes<'a> {
    data: &'a [u8],
    base_offset: u64,
    component: &'a ComponentType,
}

/// Components as statics, so a `TrieBytes` stays `Copy`.
static PARTITIONS: ComponentType = ComponentType::Partitions;
static ROWS: ComponentType = ComponentType::Rows;

impl<'a> TrieBytes<'a> {
    /// A window of Partitions.db.
    pub fn partitions(data: &'a [u8], base_offset: u64) -> Self {
        TrieBytes {
            data,
            base_offset,
            component: &PARTITIONS,
        }
    }

    /// A window of Rows.db.
    pub fn rows(data: &'a [u8], base_offset: u64) -> Self {
        TrieBytes {
            data,
            base_offset,
            component: &ROWS,
        }
    }

    pub fn base_offset(&self) -> u64 {
        self.base_offset
    }

    pub fn len_bytes(&self) -> u64 {
        self.data.len() as u64
    }

    pub fn end_offset(&self) -> u64 {
        self.base_offset.saturating_add(self.data.len() as u64)
    }

    pub fn component(&self) -> &ComponentType {
        self.component
    }

    /// A reader from absolute `position` to the end of the window.
    pub fn reader_at(&self, position: u64) -> Result<Reader<'a>> {
        let missing = || {
            Error::new(
                ErrorKind::MissingBytes {
                    wanted_start: position,
                    wanted_end: position.saturating_add(1),
                },
                position,
            )
            .in_component(self.component.clone())
        };
        let rel = position
            .checked_sub(self.base_offset)
            .and_then(|rel| usize::try_from(rel).ok())
            .ok_or_else(missing)?;
        if rel > self.data.len() {
            return Err(Error::new(
                ErrorKind::UnexpectedEof {
                    needed_bytes: 1,
                    available_bytes: 0,
                },
                position,
            )
            .in_component(self.component.clone()));
        }
        let bytes = self.data.get(rel..).unwrap_or(&[]);
        Ok(Reader::new(bytes, position).for_component(self.component.clone()))
    }

    /// Decodes the node at absolute `position`.
    pub fn node(&self, position: u64) -> Result<TrieNode> {
        let mut r = self.reader_at(position)?;
        let b0 = r.u8("trie node type")?;
        let node_type = NodeType::from_ordinal(b0 >> 4);
        let nibble = b0 & 0x0f;
        let mut transitions = Vec::new();
        let payload_flags = if node_type.can_have_payload() {
            nibble
        } else {
            0
        };
        match node_type {
            NodeType::PayloadOnly => {}
            NodeType::SingleNoPayload4 => {
                let byte = r.u8("trie transition byte")?;
                transitions.push(edge(&r, position, byte, u64::from(nibble))?);
            }
            NodeType::SingleNoPayload12 => {
                let low = r.u8("trie pointer")?;
                let byte = r.u8("trie transition byte")?;
                let distance = (u64::from(nibble) << 8) | u64::from(low);
                transitions.push(edge(&r, position, byte, distance)?);
            }
            NodeType::Single8 | NodeType::Single16 => {
                let byte = r.u8("trie transition byte")?;
                let width = if node_type == NodeType::Single8 { 1 } else { 2 };
                let distance = read_unsigned(&mut r, width, "trie pointer")?;
                transitions.push(edge(&r, position, byte, distance)?);
            }
            t => {
                if let Some(pointers) = t.sparse_pointers() {
                    read_sparse(&mut r, position, pointers, &mut transitions)?;
                } else if let Some(pointers) = t.dense_pointers() {
                    read_dense(&mut r, position, pointers, &mut transitions)?;
                }
            }
        }
        Ok(TrieNode {
            position,
            node_type,
            payload_flags,
            payload_position: r.offset(),
            transitions,
        })
    }

    /// Walks the whole trie under `root` in key order and lists every node with a payload and
    /// the transition bytes leading to it. Visits at most `max_nodes` nodes.
    pub fn payloads(&self, root: u64, max_nodes: usize) -> Result<Vec<TriePayload>> {
        let mut out = Vec::new();
        let mut key = Vec::new();
        let mut visited = 0usize;
        // Each frame: the node and the index of the next transition to follow.
        let mut stack: Vec<(TrieNode, usize)> = Vec::new();
        let root_node = self.visit(root, &mut visited, max_nodes)?;
        if root_node.has_payload() {
            out.push(TriePayload::new(&root_node, &key));
        }
        stack.push((root_node, 0));
        while let Some((node, next)) = stack.last_mut() {
            let Some(t) = node.transitions.get(*next).copied() else {
                stack.pop();
                key.pop();
                continue;
            };
            *next = next.saturating_add(1);
            let child = self.visit(t.child, &mut visited, max_nodes)?;
            key.push(t.byte);
            if child.has_payload() {
                out.push(TriePayload::new(&child, &key));
            }
            stack.push((child, 0));
        }
        Ok(out)
    }

    fn visit(&self, position: u64, visited: &mut usize, max_nodes: usize) -> Result<TrieNode> {
        *visited = visited.saturating_add(1);
        if *visited > max_nodes {
            return Err(Error::invalid(
                format!("trie walk visited more than {max_nodes} nodes: shared or cyclic pointers"),
                position,
            )
            .in_component(self.component.clone()));
        }
        self.node(position)
    }

    /// Follows `key` from `root` while the trie has transitions for it (`Walker.follow`).
    pub fn follow(&self, root: u64, key: &[u8]) -> Result<Followed> {
        let mut node = self.node(root)?;
        let mut path = vec![node.position];
        let mut matched = 0usize;
        for &b in key {
            let Some(child) = node.child(b) else {
                break;
            };
            node = self.node(child)?;
            path.push(node.position);
            matched = matched.saturating_add(1);
        }
        Ok(Followed {
            node,
            matched,
            path,
        })
    }
}

/// Where [`TrieBytes::follow`] stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Followed {
    /// The last node reached.
    pub node: TrieNode,
    /// How many key bytes were consumed.
    pub matched: usize,
    /// Positions of the nodes passed, root first.
    pub path: Vec<u64>,
}

/// A node with a payload found by [`TrieBytes::payloads`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TriePayload {
    /// The transition bytes from the root.
    pub key: Vec<u8>,
    pub node_position: u64,
    pub node_type: NodeType,
    pub payload_flags: u8,
    pub payload_position: u64,
}

impl TriePayload {
    fn new(node: &TrieNode, key: &[u8]) -> Self {
        TriePayload {
            key: key.to_vec(),
            node_position: node.position,
            node_type: node.node_type,
            payload_flags: node.payload_flags,
            payload_position: node.payload_position,
        }
    }
}

/// An edge with its distance checked: non-zero and not before the start of the file.
fn edge(r: &Reader<'_>, position: u64, byte: u8, distance: u64) -> Result<Transition> {
    let child = position.checked_sub(distance).filter(|_| distance != 0);
    let Some(child) = child else {
        return Err(r.invalid_at(
            format!(
                "trie pointer distance {distance} from node {position} does not point backwards into the file"
            ),
            position,
            "trie pointer",
        ));
    };
    Ok(Transition {
        byte,
        child,
        distance,
    })
}

/// `SizedInts.readUnsigned`: `width` big-endian bytes.
pub(crate) fn read_unsigned(r: &mut Reader<'_>, width: usize, what: &'static str) -> Result<u64> {
    let bytes = r.bytes(width, what)?;
    Ok(bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
}

/// `SizedInts.read`: `width` (0…8) big-endian bytes, sign-extended.
pub(crate) fn read_signed(r: &mut Reader<'_>, width: usize, what: &'static str) -> Result<i64> {
    if width == 0 {
        return Ok(0);
    }
    let raw = read_unsigned(r, width, what)?;
    // 1 ≤ width ≤ 8: a shift of 0…56 bits.
    let shift = 64u32.saturating_sub(8u32.saturating_mul(width.min(8) as u32));
    Ok(((raw << shift) as i64) >> shift)
}

/// `count` pointers starting at the reader's position.
fn read_pointers(r: &mut Reader<'_>, count: usize, pointers: Pointers) -> Result<Vec<u64>> {
    match pointers {
        Pointers::Bytes(width) => {
            r.check_count(count as u64, width as u64, "trie pointers")?;
            let mut out = Vec::with_capacity(count);
            for _ in 0..count {
                out.push(read_unsigned(r, width, "trie pointer")?);
            }
            Ok(out)
        }
        Pointers::Twelve => {
            let len = count.saturating_mul(3).div_ceil(2);
            let bytes = r.bytes(len, "trie 12-bit pointers")?;
            let mut out = Vec::with_capacity(count);
            for j in 0..count {
                let at = j.saturating_mul(3) / 2;
                let hi = bytes.get(at).copied().unwrap_or(0);
                let lo = bytes.get(at.saturating_add(1)).copied().unwrap_or(0);
                let word = (u64::from(hi) << 8) | u64::from(lo);
                out.push(if j % 2 == 0 { word >> 4 } else { word & 0xfff });
            }
            Ok(out)
        }
    }
}

fn read_sparse(
    r: &mut Reader<'_>,
    position: u64,
    pointers: Pointers,
    out: &mut Vec<Transition>,
) -> Result<()> {
    let count = usize::from(r.u8("trie sparse child count")?);
    let bytes = r.bytes(count, "trie sparse transitions")?;
    let distances = read_pointers(r, count, pointers)?;
    let mut previous: Option<u8> = None;
    for (&byte, distance) in bytes.iter().zip(distances) {
        if previous.is_some_and(|p| byte <= p) {
            return Err(r.invalid_at(
                format!("sparse trie node transitions are not ascending at 0x{byte:02x}"),
                position,
                "trie sparse transitions",
            ));
        }
        previous = Some(byte);
        out.push(edge(r, position, byte, distance)?);
    }
    Ok(())
}

fn read_dense(
    r: &mut Reader<'_>,
    position: u64,
    pointers: Pointers,
    out: &mut Vec<Transition>,
) -> Result<()> {
    let first = r.u8("trie dense first transition")?;
    let len_minus_one = r.u8("trie dense length")?;
    let len = usize::from(len_minus_one).saturating_add(1);
    if usize::from(first).saturating_add(len) > 256 {
        return Err(r.invalid_at(
            format!("dense trie node range 0x{first:02x} + {len} passes 0xff"),
            position,
            "trie dense length",
        ));
    }
    let distances = read_pointers(r, len, pointers)?;
    for (i, distance) in distances.into_iter().enumerate() {
        if distance == 0 {
            continue;
        }
        let byte = u8::try_from(usize::from(first).saturating_add(i)).unwrap_or(u8::MAX);
        out.push(edge(r, position, byte, distance)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trie(bytes: &[u8]) -> TrieBytes<'_> {
        TrieBytes::partitions(bytes, 0)
    }

    #[test]
    fn twelve_bit_packing() {
        // DENSE_12 at 10 over 0x61..=0x63 with distances 10, 0 (hole), 3.
        let mut bytes = vec![0u8; 10];
        bytes.extend_from_slice(&[0xa0, 0x61, 0x02, 0x00, 0xa0, 0x00, 0x00, 0x30]);
        let n = trie(&bytes).node(10).unwrap();
        assert_eq!(n.node_type, NodeType::Dense12);
        assert_eq!(n.payload_position, 10 + 3 + 5);
        assert_eq!(
            n.transitions,
            [
                Transition {
                    byte: 0x61,
                    child: 0,
                    distance: 10
                },
                Transition {
                    byte: 0x63,
                    child: 7,
                    distance: 3
                }
            ]
        );
        // SPARSE_12 with 3 children: 0xabc, 0x123, 0x456 → ab c1 23 45 60.
        let mut bytes = vec![0u8; 0x1000];
        bytes.extend_from_slice(&[0x61, 3, 1, 2, 3, 0xab, 0xc1, 0x23, 0x45, 0x60]);
        let n = trie(&bytes).node(0x1000).unwrap();
        let d: Vec<u64> = n.transitions.iter().map(|t| t.distance).collect();
        assert_eq!(d, [0xabc, 0x123, 0x456]);
        assert_eq!(n.payload_flags, 1);
        assert_eq!(n.payload_position, 0x1000 + 2 + 3 + 5);
    }

    #[test]
    fn every_node_type_and_pointer_size() {
        let base = 0x1_0000_0000u64;
        let data = |node: &[u8]| {
            let mut v = vec![0u8; 0x100];
            v.extend_from_slice(node);
            v
        };
        // (bytes, type, expected distance of the single child, payload offset)
        let cases: Vec<(Vec<u8>, NodeType, u64, u64)> = vec![
            (vec![0x05], NodeType::PayloadOnly, 0, 1),
            (vec![0x17, 0x41], NodeType::SingleNoPayload4, 7, 2),
            (vec![0x21, 0x41, 0x20], NodeType::Single8, 0x20, 3),
            (vec![0x30, 0xff, 0x41], NodeType::SingleNoPayload12, 0xff, 3),
            (vec![0x41, 0x41, 0x00, 0x80], NodeType::Single16, 0x80, 4),
            (vec![0x51, 1, 0x41, 0x09], NodeType::Sparse8, 9, 4),
            (vec![0x61, 1, 0x41, 0x0a, 0xb0], NodeType::Sparse12, 0xab, 5),
            (vec![0x71, 1, 0x41, 0x00, 0x99], NodeType::Sparse16, 0x99, 5),
            (vec![0x81, 1, 0x41, 0, 0, 0x42], NodeType::Sparse24, 0x42, 6),
            (
                vec![0x91, 1, 0x41, 0, 0, 0, 0, 0x42],
                NodeType::Sparse40,
                0x42,
                8,
            ),
            (vec![0xa1, 0x41, 0, 0x0a, 0xb0], NodeType::Dense12, 0xab, 5),
            (vec![0xb1, 0x41, 0, 0, 0x10], NodeType::Dense16, 0x10, 5),
            (vec![0xc1, 0x41, 0, 0, 0, 0x10], NodeType::Dense24, 0x10, 6),
            (
                vec![0xd1, 0x41, 0, 0, 0, 0, 0x10],
                NodeType::Dense32,
                0x10,
                7,
            ),
            (
                vec![0xe1, 0x41, 0, 0, 0, 0, 0, 0x10],
                NodeType::Dense40,
                0x10,
                8,
            ),
            (
                vec![0xf1, 0x41, 0, 0, 0, 0, 0, 0, 0, 0, 0x10],
                NodeType::LongDense,
                0x10,
                11,
            ),
        ];
        for (i, (bytes, ty, distance, payload)) in cases.into_iter().enumerate() {
            let d = data(&bytes);
            let t = TrieBytes::partitions(&d, base);
            let n = t.node(base + 0x100).unwrap();
            assert_eq!(n.node_type, ty, "case {i}");
            assert_eq!(n.node_type.ordinal() as usize, i);
            assert_eq!(n.payload_position, base + 0x100 + payload, "case {i}");
            if ty == NodeType::PayloadOnly {
                assert!(n.transitions.is_empty());
                assert_eq!(n.payload_flags, 5);
            } else {
                assert_eq!(n.transitions.len(), 1, "case {i}");
                assert_eq!(n.transitions[0].byte, 0x41);
                assert_eq!(n.transitions[0].distance, distance, "case {i}");
                assert_eq!(n.child(0x41), Some(base + 0x100 - distance));
            }
            if !ty.can_have_payload() {
                assert_eq!(n.payload_flags, 0);
            }
        }
    }

    #[test]
    fn bad_pointers_are_errors() {
        // Distance 0 in a SINGLE node would point at itself.
        assert!(trie(&[0x21, 0x41, 0x00]).node(0).is_err());
        // Pointing before the start of the file.
        assert!(trie(&[0x00, 0x21, 0x41, 0x05]).node(1).is_err());
        // Unsorted sparse transitions.
        assert!(trie(&[0, 0, 0x52, 2, 0x42, 0x41, 1, 2]).node(2).is_err());
        // Dense range past 0xff.
        assert!(trie(&[0, 0xb0, 0xff, 1, 0, 1, 0, 1]).node(1).is_err());
    }

    #[test]
    fn walk_is_ordered_and_bounded() {
        // 0: leaf "a" (payload 1), 2: leaf "b", 4: root SPARSE_8 with payload, children a, b.
        let bytes = [0x01, 0xaa, 0x01, 0xbb, 0x51, 2, b'a', b'b', 4, 2, 0xcc];
        let t = trie(&bytes);
        let p = t.payloads(4, 100).unwrap();
        let keys: Vec<&[u8]> = p.iter().map(|p| p.key.as_slice()).collect();
        assert_eq!(keys, [&b""[..], b"a", b"b"]);
        assert_eq!(p[1].payload_position, 1);
        assert!(t.payloads(4, 2).is_err());
        let f = t.follow(4, b"bz").unwrap();
        assert_eq!(f.matched, 1);
        assert_eq!(f.node.position, 2);
        assert_eq!(f.path, [4, 2]);
    }
}
