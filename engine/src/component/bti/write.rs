//! Writing a Partitions.db: the partition trie over byte-comparable keys, for tests that need a
//! BTI SSTable no fixture has (ScyllaDB `ms`/`mt`, built from a `me` SSTable's Data.db).
//!
//! Follows ScyllaDB's `sstables/trie/bti_partition_index_writer.cc` (and Cassandra's
//! `PartitionIndexBuilder`, which writes the same bytes): each key is cut to the shortest prefix
//! that tells it from both neighbours (`max(mismatch with previous, mismatch with next) + 1`), a
//! leaf per partition carries the payload — flags `(position width − 1) | 8`, the hash byte, then
//! the signed position P in that many big-endian bytes (P ≥ 0 a Rows.db entry, P < 0 `!` the
//! Data.db position) —, and the footer is first key, last key (u16 length each), then the first
//! key's position, the partition count and the root position (3 × u64 big-endian).
//!
//! Simpler than the real writers where the reader cannot tell: every inner node is a
//! `SPARSE_40` (`LONG_DENSE` past 255 children) rather than the smallest type that fits, and a
//! node that would cross a 4096-byte page starts the next page (zero padding), so no node crosses
//! one, as the readers assume.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

use super::bytecomparable::{partition_key, scylla_partition_key};
use super::partitions::{hash_byte, PartitionTarget};
use super::trie::{NodeType, PAGE_SIZE};
use crate::component::index::PrimaryIndex;
use crate::component::ComponentType;
use crate::descriptor::Descriptor;
use crate::metadata::{decode_metadata, reads_whole, ComponentInput};
use crate::token::Partitioner;
use crate::types::AbstractType;

/// One partition to index, in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionToIndex {
    /// The key's byte-comparable form (token and key, terminated).
    pub comparable: Vec<u8>,
    /// The raw partition key (for the footer's first and last key).
    pub key: Vec<u8>,
    pub target: PartitionTarget,
    /// `partitions::hash_byte` of the key.
    pub hash_byte: u8,
}

/// The bytes of a Partitions.db indexing `partitions` (sorted by `comparable`, prefix-free).
/// `None` when they are not sorted and distinct, or a position does not fit 2⁶².
pub fn partitions_db(partitions: &[PartitionToIndex]) -> Option<Vec<u8>> {
    if partitions
        .windows(2)
        .any(|w| matches!(w, [a, b] if a.comparable >= b.comparable))
    {
        return None;
    }
    let prefixes = unique_prefixes(partitions);
    let mut out = Vec::new();
    let root = if partitions.is_empty() {
        None
    } else {
        Some(write_node(&mut out, &prefixes, 0)?)
    };
    let keys_position = out.len() as u64;
    for key in [partitions.first(), partitions.last()] {
        let key = key.map(|p| p.key.as_slice()).unwrap_or(&[]);
        out.extend_from_slice(&u16::try_from(key.len()).ok()?.to_be_bytes());
        out.extend_from_slice(key);
    }
    out.extend_from_slice(&keys_position.to_be_bytes());
    out.extend_from_slice(&(partitions.len() as u64).to_be_bytes());
    out.extend_from_slice(&root.unwrap_or(0).to_be_bytes());
    Some(out)
}

/// The partitions an Index.db lists, to index by trie: each key's byte-comparable form as the
/// writer builds it — ScyllaDB's typed per-column form when `scylla` and it can be built
/// ([`scylla_partition_key`]), else Cassandra's ([`partition_key`]) — and its Data.db position.
/// `None` when a key has no byte-comparable form here.
pub fn partitions_of_index(
    index: &PrimaryIndex,
    partitioner: &Partitioner,
    key_type: Option<&AbstractType>,
    scylla: bool,
) -> Option<Vec<PartitionToIndex>> {
    index
        .entries
        .iter()
        .map(|e| {
            let key = &e.key.value;
            let comparable = scylla
                .then(|| key_type.and_then(|t| scylla_partition_key(partitioner, key, t)))
                .flatten()
                .or_else(|| partition_key(partitioner, key))?;
            Some(PartitionToIndex {
                comparable,
                key: key.clone(),
                target: PartitionTarget::Data {
                    data_position: e.position.value,
                },
                hash_byte: hash_byte(key),
            })
        })
        .collect()
}

/// Components kept as they are when a `me` SSTable becomes `ms`-like (and any Digest.*).
const KEPT_FOR_MS: [ComponentType; 4] = [
    ComponentType::Data,
    ComponentType::Statistics,
    ComponentType::CompressionInfo,
    ComponentType::Filter,
];

/// A ScyllaDB `ms`-like SSTable made of a big `me` one (`files`: each component and its bytes),
/// for tests: file names `ms-<generation>-big-*`; Data.db, Statistics.db, CompressionInfo.db,
/// Filter.db and Digest.* as they are (ScyllaDB's `ms` keeps `me`'s layouts); Index.db and
/// Summary.db replaced by a Partitions.db over Index.db's partitions ([`partitions_of_index`],
/// ScyllaDB's key form) and an empty Rows.db (no partition gets a row index); a TOC.txt listing
/// them. Each file as (name, bytes).
pub fn ms_from_me(
    descriptor: &Descriptor,
    files: &[(ComponentType, Vec<u8>)],
    generation: u64,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let inputs: Vec<ComponentInput<'_>> = files
        .iter()
        .map(|(c, bytes)| ComponentInput {
            component: c,
            size_bytes: bytes.len() as u64,
            bytes: reads_whole(c).then_some(bytes.as_slice()),
        })
        .collect();
    let metadata = decode_metadata(descriptor, &inputs);
    let version = metadata.descriptor.version;
    if version.as_str() != "me" {
        return Err(format!("expected a me SSTable, found {version}"));
    }
    let index_bytes = files
        .iter()
        .find(|(c, _)| *c == ComponentType::PrimaryIndex)
        .ok_or("no Index.db")?;
    let index =
        crate::component::index::decode(&index_bytes.1, &version).map_err(|e| e.to_string())?;
    let key_type = metadata
        .statistics
        .as_ref()
        .and_then(|s| s.header.as_ref())
        .and_then(|h| crate::types::parse_type(&h.key_type.value).ok());
    let partitions = partitions_of_index(&index, &metadata.partitioner(), key_type.as_ref(), true)
        .ok_or("a key has no byte-comparable form")?;
    let trie = partitions_db(&partitions).ok_or("keys not in byte-comparable order")?;
    let name = |c: &ComponentType| format!("ms-{generation}-big-{}", c.file_suffix());
    let mut out: Vec<(String, Vec<u8>)> = files
        .iter()
        .filter(|(c, _)| KEPT_FOR_MS.contains(c) || matches!(c, ComponentType::Digest(_)))
        .map(|(c, bytes)| (name(c), bytes.clone()))
        .collect();
    out.push((name(&ComponentType::Partitions), trie));
    out.push((name(&ComponentType::Rows), Vec::new()));
    let mut toc: String = out
        .iter()
        .filter_map(|(n, _)| n.split('-').nth(3))
        .map(|suffix| format!("{suffix}\n"))
        .collect();
    toc.push_str("TOC.txt\n");
    out.push((name(&ComponentType::Toc), toc.into_bytes()));
    Ok(out)
}

/// Each partition with the length of its key's shortest unique prefix.
fn unique_prefixes(partitions: &[PartitionToIndex]) -> Vec<(&PartitionToIndex, usize)> {
    let mismatch = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let mut out = Vec::with_capacity(partitions.len());
    let mut before = 0;
    let mut iter = partitions.iter().peekable();
    while let Some(p) = iter.next() {
        let after = iter
            .peek()
            .map_or(0, |n| mismatch(&p.comparable, &n.comparable));
        out.push((
            p,
            before.max(after).saturating_add(1).min(p.comparable.len()),
        ));
        before = after;
    }
    out
}

/// Writes the sub-trie of `members` (partitions sharing their first `depth` bytes, each with its
/// unique prefix length) children first; returns its root's position.
fn write_node(
    out: &mut Vec<u8>,
    members: &[(&PartitionToIndex, usize)],
    depth: usize,
) -> Option<u64> {
    if let [(only, prefix)] = members {
        if *prefix <= depth {
            return write_leaf(out, only);
        }
    }
    let mut children: Vec<(u8, u64)> = Vec::new();
    let mut rest = members;
    while let Some((first, _)) = rest.first() {
        let byte = *first.comparable.get(depth)?;
        let n = rest
            .iter()
            .position(|(m, _)| m.comparable.get(depth) != Some(&byte))
            .unwrap_or(rest.len());
        let (group, tail) = rest.split_at_checked(n)?;
        children.push((byte, write_node(out, group, depth.saturating_add(1))?));
        rest = tail;
    }
    let count = children.len();
    let size = if count <= 255 {
        2usize.saturating_add(count.saturating_mul(6))
    } else {
        3usize.saturating_add(256usize.saturating_mul(8))
    };
    let position = page_aligned(out, size);
    let mut node = Vec::with_capacity(size);
    if count <= 255 {
        node.push(NodeType::Sparse40.ordinal() << 4);
        node.push(u8::try_from(count).ok()?);
        node.extend(children.iter().map(|&(b, _)| b));
        for &(_, child) in &children {
            let distance = position.checked_sub(child).filter(|&d| d < 1 << 40)?;
            node.extend_from_slice(distance.to_be_bytes().get(3..)?);
        }
    } else {
        node.extend_from_slice(&[NodeType::LongDense.ordinal() << 4, 0, 255]);
        for byte in 0..=255u8 {
            let distance = children
                .iter()
                .find(|&&(b, _)| b == byte)
                .map_or(Some(0), |&(_, child)| position.checked_sub(child))?;
            node.extend_from_slice(&distance.to_be_bytes());
        }
    }
    out.extend_from_slice(&node);
    Some(position)
}

fn write_leaf(out: &mut Vec<u8>, p: &PartitionToIndex) -> Option<u64> {
    let stored: i64 = match p.target {
        PartitionTarget::Data { data_position } => !i64::try_from(data_position).ok()?,
        PartitionTarget::RowIndex { rows_position } => i64::try_from(rows_position).ok()?,
    };
    let magnitude = if stored >= 0 { stored } else { !stored };
    let bits = 64u32
        .saturating_sub(magnitude.leading_zeros())
        .saturating_add(1);
    let width = usize::try_from(bits.div_ceil(8)).ok()?;
    let position = page_aligned(out, width.saturating_add(2));
    out.push(u8::try_from(width.checked_sub(1)?).ok()? | 8);
    out.push(p.hash_byte);
    out.extend_from_slice(stored.to_be_bytes().get(8usize.checked_sub(width)?..)?);
    Some(position)
}

/// Pads `out` to the next page when `size` bytes would cross a page boundary; the node's position.
fn page_aligned(out: &mut Vec<u8>, size: usize) -> u64 {
    let at = out.len() as u64;
    let in_page = at % PAGE_SIZE;
    if in_page.saturating_add(size as u64) > PAGE_SIZE && in_page != 0 {
        let pad = PAGE_SIZE.saturating_sub(in_page);
        out.resize(out.len().saturating_add(pad as usize), 0);
    }
    out.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::bti::partitions::decode;

    fn entry(key: &[u8], data_position: u64) -> PartitionToIndex {
        PartitionToIndex {
            comparable: partition_key(&Partitioner::ByteOrdered, key).unwrap(),
            key: key.to_vec(),
            target: PartitionTarget::Data { data_position },
            hash_byte: hash_byte(key),
        }
    }

    /// The decoder reads back what was written: count, first/last key, each prefix and target.
    #[test]
    fn a_written_trie_decodes_to_its_partitions() {
        let keys: Vec<Vec<u8>> = (0..600u32)
            .map(|i| format!("k{i:05}").into_bytes())
            .collect();
        let entries: Vec<PartitionToIndex> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| entry(k, i as u64 * 70_000))
            .collect();
        let bytes = partitions_db(&entries).unwrap();
        let index = decode(&bytes).unwrap();
        assert!(index.warnings.is_empty(), "{:?}", index.warnings);
        assert_eq!(index.footer.partition_count.value, 600);
        assert_eq!(index.entries.len(), 600);
        for (e, want) in index.entries.iter().zip(&entries) {
            assert!(want.comparable.starts_with(&e.key_prefix));
            assert_eq!(e.payload.target, want.target);
            assert_eq!(e.payload.hash_byte, Some(want.hash_byte));
        }
        // "k00000" and "k00001" share 40 6b 30 30 30 30: seven bytes tell them apart.
        assert_eq!(index.entries[0].key_prefix.len(), 7);
        assert!(bytes.len() > PAGE_SIZE as usize, "the test crosses pages");
    }

    #[test]
    fn unsorted_keys_are_refused() {
        assert!(partitions_db(&[entry(b"b", 0), entry(b"a", 10)]).is_none());
        let empty = partitions_db(&[]).unwrap();
        assert_eq!(empty.len(), 2 + 2 + 24);
    }
}
