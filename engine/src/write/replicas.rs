//! Replica sets of one table ([`generate_replicas`]): every node holds the same overlapping
//! SSTables (`write::overlap`) plus one SSTable of its own over fresh keys, where the chosen
//! divergences are written — a partition missing on one node, an older cell, an extra row, an
//! extra range tombstone, a TTL expired on one side, a row deletion past gc_grace (in a second
//! SSTable of that node's own) over data every node holds. Each divergence is in a partition of
//! its own, so the partitions a replica comparison must find are exactly the divergences' keys.
//!
//! What a comparison at the set's "now" (`OverlapOptions::now_secs`, gc_grace 10 days) finds
//! inside each partition, by construction:
//!
//! | kind | on the divergent node | on the others | pieces that differ |
//! |---|---|---|---|
//! | `MissingPartition` | nothing | row 0: liveness, `v` | row 0's liveness and `v` |
//! | `OlderCell` | row 0: `v` = 'older' one µs older | `v` = 'v' | `v` at row 0 |
//! | `ExtraRow` | row 1: liveness, `v` = 'extra' | no row 1 | row 1's liveness and `v` |
//! | `ExtraRangeTombstone` | range deletion [2, 3] | none | its two bounds |
//! | `ExpiredTtl` | `v` with TTL 60 s, expired | `v` with TTL 1,000,000 s | `v` at row 0 |
//! | `TombstonePastGcGrace` | row 0 deleted 20 days ago (purged by validation) | row 0 | row 0's liveness and `v` (the deletion is listed beside them) |

use super::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered,
};
use super::overlap::{overlap_schema, write_overlapping_copies, OverlapOptions};
use super::writer::{SSTableWriter, WriteOptions, WriteSummary};
use super::{sort_keys_by_token, ComponentSink};
use crate::error::{Error, Result};
use crate::token::Partitioner;

/// What differs on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DivergenceKind {
    /// The partition is on every node but this one.
    MissingPartition,
    /// This node's `v` at clustering 0 is older (and another value).
    OlderCell,
    /// This node has a row at clustering 1 the others do not.
    ExtraRow,
    /// This node has a range tombstone over clusterings 2–3 (shadowing nothing).
    ExtraRangeTombstone,
    /// This node's `v` at clustering 0 has a TTL that has run out at "now"; the others' lives.
    ExpiredTtl,
    /// Every node holds row 0 written 21 days before the base time; this node also deletes it
    /// 20 days before, in a second SSTable of its own: past gc_grace, validation purges the
    /// deletion (and the partition with it), and repair would stream the row back to it.
    TombstonePastGcGrace,
}

pub const DIVERGENCE_KINDS: [DivergenceKind; 5] = [
    DivergenceKind::MissingPartition,
    DivergenceKind::OlderCell,
    DivergenceKind::ExtraRow,
    DivergenceKind::ExtraRangeTombstone,
    DivergenceKind::ExpiredTtl,
];

/// Every kind, [`DivergenceKind::TombstonePastGcGrace`] included (it adds an SSTable to its
/// node).
pub const ALL_DIVERGENCE_KINDS: [DivergenceKind; 6] = [
    DivergenceKind::MissingPartition,
    DivergenceKind::OlderCell,
    DivergenceKind::ExtraRow,
    DivergenceKind::ExtraRangeTombstone,
    DivergenceKind::ExpiredTtl,
    DivergenceKind::TombstonePastGcGrace,
];

/// How long before the base time a [`DivergenceKind::TombstonePastGcGrace`] row was written
/// (its deletion a day later).
pub const PAST_GC_GRACE_AGE_SECS: i64 = 21 * 86_400;

/// One injected difference: which node differs from the others, in which partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    pub kind: DivergenceKind,
    pub node: usize,
    pub key: Vec<u8>,
}

/// Each node's SSTables (the shared ones, then its own) and the divergences.
#[derive(Debug)]
pub struct ReplicaSet<S> {
    pub nodes: Vec<Vec<(S, WriteSummary)>>,
    pub divergences: Vec<Divergence>,
}

/// `nodes` replicas (≥ 2) of the table `options` describes, with `kinds` injected: divergence
/// `i` on node `1 + i mod (nodes − 1)`. `make_sink(node, sstable)`; each node's own SSTable is
/// number `options.sstables`, and a node with a `TombstonePastGcGrace` has a second one,
/// number `options.sstables + 1`, holding its deletions.
pub fn generate_replicas<S: ComponentSink>(
    options: &OverlapOptions,
    nodes: usize,
    kinds: &[DivergenceKind],
    mut make_sink: impl FnMut(usize, usize) -> S,
) -> Result<ReplicaSet<S>> {
    if nodes < 2 {
        return Err(Error::invalid("at least two replicas", 0));
    }
    let schema = overlap_schema()?;
    let v_col = schema
        .column_index(false, "v")
        .ok_or_else(|| Error::invalid("no column v", 0))?;
    let t = options.base_timestamp_micros;
    let secs = (t / 1_000_000) as u32;
    let mut divergences = Vec::with_capacity(kinds.len());
    for (i, kind) in kinds.iter().enumerate() {
        // Fresh keys, past the shared table's.
        let number = options.partitions.saturating_add(i as u64);
        let key = (number.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ options.seed)
            .to_be_bytes()
            .to_vec();
        divergences.push(Divergence {
            kind: *kind,
            node: i
                .checked_rem(nodes.saturating_sub(1))
                .unwrap_or(0)
                .saturating_add(1),
            key,
        });
    }
    let mut keys: Vec<Vec<u8>> = divergences.iter().map(|d| d.key.clone()).collect();
    sort_keys_by_token(&mut keys, &Partitioner::Murmur3);
    let v_cell = |ts: i64, value: &str, expiry: Option<Expiry>| ColumnData::Simple {
        column: v_col,
        cell: Cell {
            timestamp_micros: ts,
            path: None,
            value: CellValue::Live {
                value: value.as_bytes().to_vec(),
                expiry,
            },
        },
    };
    let row_at = |ck: i32, ts: i64, data: ColumnData| {
        let mut r = Row::new(vec![ck.to_be_bytes().to_vec()]);
        r.liveness = Some(Liveness {
            timestamp_micros: ts,
            expiry: None,
        });
        r.columns.push(data);
        Unfiltered::Row(r)
    };
    let row = |ck: i32, data: ColumnData| row_at(ck, t, data);
    let old_secs = (t / 1_000_000).saturating_sub(PAST_GC_GRACE_AGE_SECS);
    let old = old_secs.saturating_mul(1_000_000);
    // The shared SSTables: generated once, written to every node, partition by partition.
    let shared = write_overlapping_copies(options, nodes, &mut make_sink, |_| {})?;
    let mut out = Vec::with_capacity(nodes);
    for (node, mut sstables) in shared.copies.into_iter().enumerate() {
        let mut own = Vec::new();
        let mut deletions = Vec::new();
        for key in &keys {
            let Some(d) = divergences.iter().find(|d| &d.key == key) else {
                continue;
            };
            let here = d.node == node;
            if d.kind == DivergenceKind::MissingPartition && here {
                continue;
            }
            let mut p = Partition::new(key.clone());
            let v = match (d.kind, here) {
                (DivergenceKind::OlderCell, true) => v_cell(t.saturating_sub(1), "older", None),
                (DivergenceKind::ExpiredTtl, true) => v_cell(
                    t,
                    "v",
                    Some(Expiry {
                        ttl_secs: 60,
                        local_expiration_time_secs: secs.saturating_add(60),
                    }),
                ),
                (DivergenceKind::ExpiredTtl, false) => v_cell(
                    t,
                    "v",
                    Some(Expiry {
                        ttl_secs: 1_000_000,
                        local_expiration_time_secs: secs.saturating_add(1_000_000),
                    }),
                ),
                _ => v_cell(t, "v", None),
            };
            if d.kind == DivergenceKind::TombstonePastGcGrace {
                p.unfiltereds.push(row_at(0, old, v_cell(old, "v", None)));
                if here {
                    // Deleted a day after it was written, 20 days before the base time.
                    let at = old.saturating_add(86_400_000_000);
                    let mut r = Row::new(vec![0i32.to_be_bytes().to_vec()]);
                    r.deletion = ModelDeletion::new(at, old_secs.saturating_add(86_400) as u32);
                    let mut deleted = Partition::new(key.clone());
                    deleted.unfiltereds.push(Unfiltered::Row(r));
                    deletions.push(deleted);
                }
                own.push(p);
                continue;
            }
            p.unfiltereds.push(row(0, v));
            if here && d.kind == DivergenceKind::ExtraRow {
                p.unfiltereds.push(row(1, v_cell(t, "extra", None)));
            }
            if here && d.kind == DivergenceKind::ExtraRangeTombstone {
                let del = ModelDeletion::new(t.saturating_add(1), secs);
                for (kind, ck) in [(BoundKind::InclStart, 2i32), (BoundKind::InclEnd, 3)] {
                    p.unfiltereds
                        .push(Unfiltered::Marker(RangeTombstoneMarker::bound(
                            kind,
                            vec![ck.to_be_bytes().to_vec()],
                            del,
                        )));
                }
            }
            own.push(p);
        }
        let mut w = WriteOptions::new(options.version);
        w.expected_keys = own.len().max(1) as u64;
        let mut writer = SSTableWriter::new(schema.clone(), w, make_sink(node, options.sstables))?;
        for p in &own {
            writer.append(p)?;
        }
        sstables.push(writer.finish()?);
        if !deletions.is_empty() {
            let mut w = WriteOptions::new(options.version);
            w.expected_keys = deletions.len() as u64;
            let sink = make_sink(node, options.sstables.saturating_add(1));
            let mut writer = SSTableWriter::new(schema.clone(), w, sink)?;
            for p in &deletions {
                writer.append(p)?;
            }
            sstables.push(writer.finish()?);
        }
        out.push(sstables);
    }
    Ok(ReplicaSet {
        nodes: out,
        divergences,
    })
}
