//! Replica comparison (`sstable_engine::repair`) on generated tables: a replica and its copy
//! agree in every range; a replica missing one SSTable differs exactly in partitions that
//! SSTable holds, and nowhere else.

use crate::common;

use std::collections::BTreeSet;

use sstable_engine::clock::NoClock;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::ComponentType;
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::hash::{murmur3_token, murmur3_x64_128, murmur3_x64_128_reference};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::{MergeInput, MergeOptions, TableMerger};
use sstable_engine::range::SliceSource;
use sstable_engine::repair::{depth_for, diff_replicas, DiffReport, ValidationOptions, Validator};
use sstable_engine::repair::{PieceDiff, PieceKind, PieceState};
use sstable_engine::write::overlap::{generate_overlapping, OverlapOptions};
use sstable_engine::write::replicas::{
    generate_replicas, Divergence, DivergenceKind, ALL_DIVERGENCE_KINDS,
};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

type Files = Vec<(ComponentType, Vec<u8>)>;
/// One replica's SSTables as borrowed component lists.
type Slices<'a> = Vec<Vec<(ComponentType, &'a [u8])>>;
/// The generated tables' "now" (`OverlapOptions::now_secs`: an hour after the writes).
const NOW: i64 = 1_700_003_600;

fn metadata_of(version: &str, generation: u64, files: &Files) -> SSTableMetadata {
    let (descriptor, _) = parse_file_name(&format!("{version}-{generation}-big-Data.db")).unwrap();
    common::sstables::decode_components(&descriptor, files.iter().map(|(c, b)| (c, b.as_slice())))
}

fn generated(version: &str) -> Vec<(SSTableMetadata, Files)> {
    let v = Version::parse(Format::Big, version).unwrap();
    let options = OverlapOptions::new(v, 4, 60, 12, 7);
    let t = generate_overlapping(&options, |_| MemorySink::default()).unwrap();
    t.sstables
        .into_iter()
        .enumerate()
        .map(|(i, (sink, _))| {
            let files: Files = sink.files.into_iter().collect();
            (metadata_of(version, i as u64 + 1, &files), files)
        })
        .collect()
}

fn diff(replicas: &[Vec<&(SSTableMetadata, Files)>], depth: u8) -> DiffReport {
    diff_in(replicas, depth, None)
}

/// [`diff`] of the tokens in (start, end] only.
fn diff_in(
    replicas: &[Vec<&(SSTableMetadata, Files)>],
    depth: u8,
    range: Option<(i64, i64)>,
) -> DiffReport {
    let decode = DecodeOptions {
        now_seconds: Some(NOW),
        ..DecodeOptions::default()
    };
    let slices: Vec<Slices<'_>> = replicas
        .iter()
        .map(|r| {
            r.iter()
                .map(|(_, f)| f.iter().map(|(c, b)| (c.clone(), b.as_slice())).collect())
                .collect()
        })
        .collect();
    let validators = replicas
        .iter()
        .zip(&slices)
        .map(|(r, s)| {
            let inputs = r
                .iter()
                .zip(s)
                .enumerate()
                .map(|(i, ((m, _), f))| {
                    MergeInput::for_sstable(format!("sst{i}"), m, decode, SliceSource { files: f })
                        .unwrap()
                })
                .collect();
            let merger = TableMerger::new(
                inputs,
                r[0].0.partitioner(),
                MergeOptions {
                    now_seconds: Some(NOW),
                    explain: false,
                },
            )
            .unwrap();
            Validator::new(
                merger,
                r[0].0.partitioner(),
                ValidationOptions {
                    now_seconds: NOW,
                    gc_before_seconds: NOW - 864_000,
                    depth,
                    range,
                },
            )
        })
        .collect();
    diff_replicas(validators, &NoClock).unwrap()
}

#[test]
fn validator_hash_is_reference_murmur3_not_the_partitioner_variant() {
    let fox = b"The quick brown fox jumps over the lazy dog";
    let (h1, h2) = murmur3_x64_128_reference(fox, 0);
    assert_eq!((h1, h2), (0xe34b_bc7b_bc07_1b6c, 0x7a43_3ca9_c49a_9347));
    // ASCII tails agree with Cassandra's sign-extending variant; high bytes do not.
    let (c1, _) = murmur3_x64_128(fox, 0);
    assert_eq!(c1 as u64, h1);
    let high = [0x80u8, 0xff, 0x90];
    assert_ne!(
        murmur3_x64_128(&high, 1000).0 as u64,
        murmur3_x64_128_reference(&high, 1000).0
    );
}

#[test]
fn depth_is_ceil_log2_of_the_estimate_capped() {
    assert_eq!(depth_for(0, 20), 0);
    assert_eq!(depth_for(1, 20), 0);
    assert_eq!(depth_for(2, 20), 1);
    assert_eq!(depth_for(60, 20), 6);
    assert_eq!(depth_for(64, 20), 6);
    assert_eq!(depth_for(65, 20), 7);
    assert_eq!(depth_for(u64::MAX, 20), 20);
}

#[test]
fn a_replica_and_its_copy_have_no_mismatching_range() {
    for version in ["nb", "oa"] {
        let t = generated(version);
        let a: Vec<_> = t.iter().collect();
        let r = diff(&[a.clone(), a.clone(), a], 8);
        assert!(r.mismatching_ranges.is_empty(), "{version}: {r:?}");
        assert!(r.partition_diffs.is_empty());
        assert_eq!(r.roots[0], r.roots[1]);
        // Every generated partition is hashed (none is purged to nothing at this gcBefore).
        assert_eq!(r.partitions, vec![60, 60, 60], "{version}");
        assert_ne!(r.roots[0], "0".repeat(64));
    }
}

#[test]
fn a_replica_missing_an_sstable_differs_only_in_that_sstables_partitions() {
    let t = generated("oa");
    let full: Vec<_> = t.iter().collect();
    let missing: Vec<_> = t.iter().take(3).collect();
    let depth = 8;
    let r = diff(&[full, missing], depth);
    // Keys the dropped SSTable holds (its partitions, from its own merge).
    let dropped = diff(&[vec![&t[3]]], depth);
    assert!(dropped.partition_diffs.is_empty());
    let mut dropped_keys = BTreeSet::new();
    {
        let decode = DecodeOptions::default();
        let files: Vec<(ComponentType, &[u8])> = t[3]
            .1
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let input =
            MergeInput::for_sstable("d", &t[3].0, decode, SliceSource { files: &files }).unwrap();
        let mut m =
            TableMerger::new(vec![input], t[3].0.partitioner(), MergeOptions::default()).unwrap();
        while let Some(p) = m.next_partition(&NoClock).unwrap() {
            dropped_keys.insert(p.start.key.bytes.bytes.clone());
        }
    }
    assert!(!r.partition_diffs.is_empty());
    let mut leaves = BTreeSet::new();
    for d in &r.partition_diffs {
        let key: Vec<u8> = (0..d.key_hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&d.key_hex[i..i + 2], 16).unwrap())
            .collect();
        assert!(dropped_keys.contains(&key), "{d:?}");
        assert_eq!(murmur3_token(&key), d.token);
        leaves.insert(((d.token as u64 ^ (1 << 63)).wrapping_sub(1)) >> (64 - depth));
    }
    // Each mismatching range holds a differing partition, and every differing partition's
    // leaf is in a mismatching range: the ranges are exactly the differing partitions' leaves.
    let width = 1u128 << (64 - depth);
    let mut range_leaves = BTreeSet::new();
    for range in &r.mismatching_ranges {
        let start = (range.start_token as u64 ^ (1 << 63)) as u128 / width;
        let end = match (range.end_token as u64 ^ (1 << 63)) as u128 {
            0 => 1u128 << depth,
            e => e / width,
        };
        for l in start..end {
            range_leaves.insert(l as u64);
        }
        assert!(range.bytes[0] > 0);
    }
    assert_eq!(range_leaves, leaves);
}

fn replica_set(nodes: usize) -> (Vec<Vec<(SSTableMetadata, Files)>>, Vec<Divergence>) {
    let v = Version::parse(Format::Big, "oa").unwrap();
    let options = OverlapOptions::new(v, 3, 40, 8, 11);
    let set = generate_replicas(&options, nodes, &ALL_DIVERGENCE_KINDS, |_, _| {
        MemorySink::default()
    })
    .unwrap();
    let tables = set
        .nodes
        .into_iter()
        .map(|sstables| {
            sstables
                .into_iter()
                .enumerate()
                .map(|(i, (sink, _))| {
                    let files: Files = sink.files.into_iter().collect();
                    (metadata_of("oa", i as u64 + 1, &files), files)
                })
                .collect()
        })
        .collect();
    (tables, set.divergences)
}

#[test]
fn generated_replicas_differ_in_exactly_the_injected_partitions() {
    for nodes in [2, 3] {
        let (tables, divergences) = replica_set(nodes);
        let replicas: Vec<Vec<_>> = tables.iter().map(|t| t.iter().collect()).collect();
        let r = diff(&replicas, 10);
        let got: BTreeSet<String> = r
            .partition_diffs
            .iter()
            .map(|d| d.key_hex.clone())
            .collect();
        let want: BTreeSet<String> = divergences
            .iter()
            .map(|d| d.key.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        assert_eq!(got, want, "{nodes} nodes");
        for d in &divergences {
            let hex: String = d.key.iter().map(|b| format!("{b:02x}")).collect();
            let p = r.partition_diffs.iter().find(|p| p.key_hex == hex).unwrap();
            // The divergent node differs from every other; the others agree.
            let others: Vec<_> = (0..nodes).filter(|n| *n != d.node).collect();
            for n in &others {
                assert_ne!(p.digests[*n], p.digests[d.node], "{:?}", d.kind);
                assert_eq!(p.digests[*n], p.digests[others[0]]);
            }
            match d.kind {
                DivergenceKind::MissingPartition | DivergenceKind::TombstonePastGcGrace => {
                    assert!(p.digests[d.node].is_none())
                }
                DivergenceKind::OlderCell => assert_ne!(p.newest, d.node),
                DivergenceKind::ExtraRangeTombstone => assert_eq!(p.newest, d.node),
                _ => assert!(p.digests.iter().all(Option::is_some)),
            }
        }
        // One partition fewer hashed on a node per partition it misses (or purged to nothing).
        for node in 0..nodes {
            let missing = divergences
                .iter()
                .filter(|d| d.node == node)
                .filter(|d| {
                    matches!(
                        d.kind,
                        DivergenceKind::MissingPartition | DivergenceKind::TombstonePastGcGrace
                    )
                })
                .count() as u64;
            assert_eq!(r.partitions[0], r.partitions[node] + missing, "node {node}");
        }
        assert!(!r.mismatching_ranges.is_empty() && r.mismatching_ranges.len() <= 6);
    }
}

/// (kind, clustering, column) of each differing piece.
fn differing(p: &PieceDiff) -> (PieceKind, Vec<String>, Option<String>) {
    (p.kind, p.clustering.clone(), p.column.clone())
}

#[test]
fn generated_replicas_differ_in_exactly_the_injected_rows_and_cells() {
    use PieceKind::*;
    let at = |ck: &str| vec![ck.to_owned()];
    let v = Some("v".to_owned());
    for nodes in [2, 3] {
        let (tables, divergences) = replica_set(nodes);
        let replicas: Vec<Vec<_>> = tables.iter().map(|t| t.iter().collect()).collect();
        let r = diff(&replicas, 10);
        assert_eq!(r.partition_diffs.len(), 6);
        let t = OverlapOptions::new(Version::parse(Format::Big, "oa").unwrap(), 3, 40, 8, 11)
            .base_timestamp_micros;
        for d in &divergences {
            let hex: String = d.key.iter().map(|b| format!("{b:02x}")).collect();
            let p = r.partition_diffs.iter().find(|p| p.key_hex == hex).unwrap();
            let mut got: Vec<_> = p
                .pieces
                .iter()
                .filter(|x| x.differs)
                .map(differing)
                .collect();
            got.sort();
            let mut want = match d.kind {
                DivergenceKind::MissingPartition | DivergenceKind::TombstonePastGcGrace => {
                    vec![(Liveness, at("0"), None), (Cell, at("0"), v.clone())]
                }
                DivergenceKind::OlderCell | DivergenceKind::ExpiredTtl => {
                    vec![(Cell, at("0"), v.clone())]
                }
                DivergenceKind::ExtraRow => {
                    vec![(Liveness, at("1"), None), (Cell, at("1"), v.clone())]
                }
                DivergenceKind::ExtraRangeTombstone => vec![
                    (RangeTombstoneBound, at("2"), None),
                    (RangeTombstoneBound, at("3"), None),
                ],
            };
            want.sort();
            assert_eq!(got, want, "{:?} on {nodes} nodes", d.kind);
            let others: Vec<usize> = (0..nodes).filter(|n| *n != d.node).collect();
            for piece in p.pieces.iter().filter(|x| x.differs) {
                // The other nodes agree with each other, and differ from the divergent one.
                for n in &others {
                    assert_eq!(piece.versions[*n], piece.versions[others[0]], "{piece:?}");
                }
                let mine = &piece.versions[d.node];
                let theirs = &piece.versions[others[0]];
                match d.kind {
                    DivergenceKind::MissingPartition => {
                        assert!(mine.is_none() && theirs.is_some());
                        assert_eq!(piece.newest, Some(others[0]));
                    }
                    DivergenceKind::TombstonePastGcGrace => {
                        // The row's data is gone from the node's merged read: its deletion won.
                        assert!(mine.is_none() && theirs.is_some());
                        assert!(!theirs.as_ref().unwrap().purged);
                    }
                    DivergenceKind::OlderCell => {
                        let (m, o) = (mine.as_ref().unwrap(), theirs.as_ref().unwrap());
                        assert_eq!(m.value.as_deref(), Some("older"));
                        assert_eq!(o.value.as_deref(), Some("v"));
                        assert_eq!((m.timestamp_micros, o.timestamp_micros), (t - 1, t));
                        assert_eq!(piece.newest, Some(others[0]));
                    }
                    DivergenceKind::ExpiredTtl => {
                        let (m, o) = (mine.as_ref().unwrap(), theirs.as_ref().unwrap());
                        assert_eq!((m.state, m.ttl_secs), (PieceState::Expired, Some(60)));
                        assert_eq!(
                            (o.state, o.ttl_secs),
                            (PieceState::Expiring, Some(1_000_000))
                        );
                        // Validation hashes the expired cell as a tombstone.
                        assert!(m.purged && !o.purged);
                        // Same timestamp: the later expiry wins (`Cells.reconcile`, 4.0).
                        assert_eq!(piece.newest, Some(others[0]));
                    }
                    DivergenceKind::ExtraRow | DivergenceKind::ExtraRangeTombstone => {
                        assert!(mine.is_some() && theirs.is_none());
                        assert_eq!(piece.newest, Some(d.node));
                    }
                }
            }
            // The deletion past gc_grace is listed beside the row it hides, purged.
            let context: Vec<_> = p.pieces.iter().filter(|x| !x.differs).collect();
            if d.kind == DivergenceKind::TombstonePastGcGrace {
                assert_eq!(context.len(), 1, "{context:?}");
                assert_eq!(differing(context[0]), (RowDeletion, at("0"), None));
                let del = context[0].versions[d.node].as_ref().unwrap();
                assert!(del.purged);
                assert_eq!(del.state, PieceState::Deletion);
                assert_eq!(context[0].newest, Some(d.node));
            } else {
                assert!(context.is_empty(), "{:?}: {context:?}", d.kind);
            }
            // Bytes: each replica's partition bytes, 0 where it has no hashed partition.
            for (n, b) in p.bytes.iter().enumerate() {
                assert_eq!(*b == 0, p.digests[n].is_none());
            }
        }
        // Stream matrices: nothing to oneself; by partition ≤ by range; the divergent bytes.
        for from in 0..nodes {
            assert_eq!(r.stream_bytes_by_range[from][from], 0);
            assert_eq!(r.stream_bytes_by_partition[from][from], 0);
            for to in 0..nodes {
                assert!(r.stream_bytes_by_partition[from][to] <= r.stream_bytes_by_range[from][to]);
                let want: u64 = r
                    .partition_diffs
                    .iter()
                    .filter(|p| p.digests[from] != p.digests[to])
                    .map(|p| p.bytes[from])
                    .sum();
                assert_eq!(r.stream_bytes_by_partition[from][to], want);
            }
        }
        assert!(r.stream_bytes_by_partition[0][1] > 0 && r.stream_bytes_by_partition[1][0] > 0);
    }
}

#[test]
fn a_replica_and_its_copy_have_no_differing_piece() {
    let (tables, _) = replica_set(2);
    let a: Vec<_> = tables[0].iter().collect();
    let r = diff(&[a.clone(), a], 10);
    assert!(r.partition_diffs.is_empty());
    assert!(r.stream_bytes_by_range.iter().flatten().all(|b| *b == 0));
    assert!(r
        .stream_bytes_by_partition
        .iter()
        .flatten()
        .all(|b| *b == 0));
}

/// A 16-byte key whose Murmur3 token is `token`: murmur3_x64_128 (seed 0) run backwards. A
/// 16-byte key is one block and no tail, so Cassandra's sign-extending variant agrees; the
/// first of the two final words is picked (`a`), the second solved for.
fn key_with_token(token: i64, a: u64) -> Vec<u8> {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    fn inv(c: u64) -> u64 {
        let mut x = c;
        for _ in 0..6 {
            x = x.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(x)));
        }
        x
    }
    fn fmix(mut k: u64) -> u64 {
        k ^= k >> 33;
        k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
        k ^= k >> 33;
        k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        k ^ (k >> 33)
    }
    fn unfmix(mut k: u64) -> u64 {
        k ^= k >> 33;
        k = k.wrapping_mul(inv(0xc4ce_b9fe_1a85_ec53));
        k ^= k >> 33;
        k = k.wrapping_mul(inv(0xff51_afd7_ed55_8ccd));
        k ^ (k >> 33)
    }
    // Finalisation: h1 = fmix(A) + fmix(B) with A = h1x + h2x, B = h2x + A.
    let b = unfmix((token as u64).wrapping_sub(fmix(a)));
    let h2x = b.wrapping_sub(a);
    let h1x = a.wrapping_sub(h2x);
    let (h1b, h2b) = (h1x ^ 16, h2x ^ 16);
    // The block: h1 = rotl(mixK1(k1), 27)·5 + n1; h2 = (rotl(mixK2(k2), 31) + h1)·5 + n2.
    let m1 = (h1b.wrapping_sub(0x52dc_e729).wrapping_mul(inv(5))).rotate_right(27);
    let k1 = m1
        .wrapping_mul(inv(C2))
        .rotate_right(31)
        .wrapping_mul(inv(C1));
    let m2 = (h2b
        .wrapping_sub(0x3849_5ab5)
        .wrapping_mul(inv(5))
        .wrapping_sub(h1b))
    .rotate_right(31);
    let k2 = m2
        .wrapping_mul(inv(C1))
        .rotate_right(33)
        .wrapping_mul(inv(C2));
    let mut key = k1.to_le_bytes().to_vec();
    key.extend_from_slice(&k2.to_le_bytes());
    key
}

/// One SSTable (blob key, `v int`) holding `(key, v)` in token order.
fn blob_table(generation: u64, rows: &[(&[u8], i32)]) -> (SSTableMetadata, Files) {
    use sstable_engine::types::AbstractType;
    use sstable_engine::write::model::{Cell, ColumnData, Partition, Row};
    use sstable_engine::write::schema::{ColumnDef, TableSchema};
    use sstable_engine::write::writer::{SSTableWriter, WriteOptions};
    let schema = TableSchema::new(
        vec![AbstractType::Bytes],
        Vec::new(),
        Vec::new(),
        vec![ColumnDef::new("v", AbstractType::Int32)],
    )
    .unwrap();
    let v = Version::parse(Format::Big, "oa").unwrap();
    let mut w = SSTableWriter::new(schema, WriteOptions::new(v), MemorySink::default()).unwrap();
    for (key, value) in rows {
        let mut p = Partition::new(key.to_vec());
        let mut r = Row::new(Vec::new());
        r.columns.push(ColumnData::Simple {
            column: 0,
            cell: Cell::live(NOW * 1_000_000 - 5, value.to_be_bytes().to_vec()),
        });
        p.unfiltereds
            .push(sstable_engine::write::model::Unfiltered::Row(r));
        w.append(&p).unwrap();
    }
    let (sink, _) = w.finish().unwrap();
    let files: Files = sink.files.into_iter().collect();
    (metadata_of("oa", generation, &files), files)
}

#[test]
fn partitions_on_both_sides_of_a_leaf_edge_fall_in_their_own_leaves() {
    let depth = 4;
    let tree = sstable_engine::repair::MerkleTree::new(depth);
    // The edge between leaves 5 and 6: leaf 5 is (start, edge], leaf 6 (edge, …].
    let (start5, edge) = tree.range_of(5);
    let (start6, end6) = tree.range_of(6);
    assert_eq!(start6, edge);
    let on = key_with_token(edge, 0x1234_5678);
    let after = key_with_token(edge + 1, 0x9abc_def0);
    assert_eq!(murmur3_token(&on), edge);
    assert_eq!(murmur3_token(&after), edge + 1);
    assert_eq!((tree.leaf_of(edge), tree.leaf_of(edge + 1)), (5, 6));
    let a = blob_table(1, &[(&on, 1), (&after, 1)]);
    let on_differs = blob_table(2, &[(&on, 2), (&after, 1)]);
    let after_differs = blob_table(3, &[(&on, 1), (&after, 2)]);
    // The partition on the edge differs: exactly leaf 5, (start5, edge].
    let r = diff(&[vec![&a], vec![&on_differs]], depth);
    assert_eq!(r.mismatching_ranges.len(), 1, "{r:?}");
    let m = &r.mismatching_ranges[0];
    assert_eq!((m.start_token, m.end_token), (start5, edge));
    assert_eq!(m.partitions, vec![1, 1]);
    assert_eq!(r.partition_diffs.len(), 1);
    assert_eq!(r.partition_diffs[0].token, edge);
    // The partition one token past it: exactly leaf 6, (edge, end6].
    let r = diff(&[vec![&a], vec![&after_differs]], depth);
    assert_eq!(r.mismatching_ranges.len(), 1, "{r:?}");
    let m = &r.mismatching_ranges[0];
    assert_eq!((m.start_token, m.end_token), (edge, end6));
    assert_eq!(r.partition_diffs[0].token, edge + 1);
    // One partition per leaf: streaming the leaf is streaming the partition.
    assert_eq!(r.stream_bytes_by_range, r.stream_bytes_by_partition);
    // `--range (start, end]` at the edge: a range ending on it holds the partition, one
    // starting on it does not.
    let r = diff_in(
        &[vec![&a], vec![&on_differs]],
        depth,
        Some((edge - 1, edge)),
    );
    assert_eq!(r.partition_diffs.len(), 1);
    assert_eq!(r.partitions, vec![1, 1]);
    let r = diff_in(&[vec![&a], vec![&on_differs]], depth, Some((edge, end6)));
    assert!(r.partition_diffs.is_empty() && r.mismatching_ranges.is_empty());
    assert_eq!(r.partitions, vec![1, 1]);
}

/// A diff hashes each kept partition as purge would leave it without building the purged copy
/// (`digest_purged_partition`): the digest equals `digest_partition` of `purge_partition`,
/// partition by partition, on every node of a replica set with every divergence (expired TTLs,
/// tombstones past gc_grace, range tombstones), at two gcBefore.
#[test]
fn the_purge_aware_digest_equals_the_digest_of_the_purged_copy() {
    use sstable_engine::repair::{digest_partition, digest_purged_partition, purge_partition};
    let (tables, _) = replica_set(3);
    let decode = DecodeOptions {
        now_seconds: Some(NOW),
        ..DecodeOptions::default()
    };
    let (mut hashed, mut purged_away, mut changed) = (0, 0, 0);
    for node in &tables {
        let files: Slices<'_> = node
            .iter()
            .map(|(_, f)| f.iter().map(|(c, b)| (c.clone(), b.as_slice())).collect())
            .collect();
        for gc_before in [NOW - 864_000, NOW + 864_000] {
            let inputs = node
                .iter()
                .zip(&files)
                .enumerate()
                .map(|(i, ((m, _), f))| {
                    MergeInput::for_sstable(format!("sst{i}"), m, decode, SliceSource { files: f })
                        .unwrap()
                })
                .collect();
            let options = MergeOptions {
                now_seconds: Some(NOW),
                explain: false,
            };
            let mut merger = TableMerger::new(inputs, node[0].0.partitioner(), options).unwrap();
            while let Some(p) = merger.next_partition(&NoClock).unwrap() {
                let fast = digest_purged_partition(&p, merger.schema(), NOW, gc_before);
                let purged = purge_partition(p.clone(), NOW, gc_before);
                let slow = purged
                    .as_ref()
                    .map(|q| digest_partition(q, merger.schema()));
                assert_eq!(
                    fast.as_ref().map(|d| (d.finish(), d.input_bytes())),
                    slow.as_ref().map(|d| (d.finish(), d.input_bytes()))
                );
                match purged {
                    None => purged_away += 1,
                    Some(q) if q != p => changed += 1,
                    Some(_) => {}
                }
                hashed += 1;
            }
        }
    }
    // The generated set (seed 11) at both gcBefore: 274 merged partitions, 2 purged to nothing,
    // 192 changed by purge (their expired cells), so every branch of the purge-aware digest ran.
    assert_eq!((hashed, purged_away, changed), (274, 2, 192));
}
