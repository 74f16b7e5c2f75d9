//! Replica sets of one table ([`generate_replicas`]): every node holds the same overlapping
//! SSTables (`write::overlap`) plus one SSTable of its own over fresh keys, where the chosen
//! divergences are written — a partition missing on one node, an older cell, an extra row, an
//! extra range tombstone, a TTL expired on one side. Each divergence is in a partition of its
//! own, so the partitions a replica comparison must find are exactly the divergences' keys.

use super::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered,
};
use super::overlap::{generate_overlapping, overlap_schema, OverlapOptions};
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
}

pub const DIVERGENCE_KINDS: [DivergenceKind; 5] = [
    DivergenceKind::MissingPartition,
    DivergenceKind::OlderCell,
    DivergenceKind::ExtraRow,
    DivergenceKind::ExtraRangeTombstone,
    DivergenceKind::ExpiredTtl,
];

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
/// number `options.sstables`.
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
    let row = |ck: i32, data: ColumnData| {
        let mut r = Row::new(vec![ck.to_be_bytes().to_vec()]);
        r.liveness = Some(Liveness {
            timestamp_micros: t,
            expiry: None,
        });
        r.columns.push(data);
        Unfiltered::Row(r)
    };
    let mut out = Vec::with_capacity(nodes);
    for node in 0..nodes {
        let shared = generate_overlapping(options, |i| make_sink(node, i))?;
        let mut sstables = shared.sstables;
        let mut own = Vec::new();
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
        out.push(sstables);
    }
    Ok(ReplicaSet {
        nodes: out,
        divergences,
    })
}
