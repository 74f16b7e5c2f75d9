//! One table written as several overlapping SSTables, with what a merged read returns known by
//! construction ([`generate_overlapping`]).
//!
//! Schema: `id bigint, ck int, s text static, n int, v text, tags set<text>`, PRIMARY KEY (id,
//! ck). Each SSTable holds a random part of the keys (each partition in at least one) and, per
//! partition, rows of random clusterings: a row deletion, or a liveness and cells (`v` sometimes
//! a tombstone, `n` sometimes with a TTL that has run out at `now_secs`, `tags` sometimes
//! overwritten: a complex deletion and new elements); now and then a partition deletion, a
//! static cell, or a range tombstone over one to four clusterings, inclusive (that SSTable writes
//! no row there; other SSTables' ranges overlap it).
//!
//! Timestamps are `base + k·N + i` for SSTable `i` of `N` (k random): two SSTables never write
//! the same timestamp, so every reconciliation is decided by timestamp, and the model
//! ([`ExpectedPartition`]) follows the plain rules — the newest version wins; a deletion hides
//! everything of its scope with a timestamp ≤ its markedForDeleteAt; a row or complex deletion
//! is kept only if it supersedes the deletion over it — without sharing code with the merge.

use super::data::EncodingStats;
use super::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered,
};
use super::overlap_model::expect_partition;
pub use super::overlap_model::{ExpectedCell, ExpectedPartition, ExpectedRow, FromSSTable};
use super::overlap_zombies::{zombie_case, ZOMBIE_CASES};
pub use super::overlap_zombies::{ExpectedShadowed, ExpectedZombie, ZOMBIE_AGE_SECS};
use super::schema::{ColumnDef, TableSchema};
use super::writer::{SSTableWriter, WriteOptions, WriteSummary};
use super::{sort_keys_by_token, ComponentSink};
use crate::error::{Error, Result};
use crate::token::Partitioner;
use crate::types::AbstractType;
use crate::version::Version;
use crate::write::generate::SplitMix64;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlapOptions {
    pub version: Version,
    pub sstables: usize,
    pub partitions: u64,
    /// Clusterings `0..rows_per_partition` may be written.
    pub rows_per_partition: u32,
    pub seed: u64,
    pub base_timestamp_micros: i64,
    /// The read's "now": TTLs are drawn so that some cells have expired by then, others not.
    pub now_secs: i64,
    /// Uncompressed bytes per LZ4 chunk (16 KiB by default; small ones give many chunks).
    pub chunk_length_bytes: u32,
    /// Adds the resurrection cases of [`overlap_zombies`](super::overlap_zombies) (at least 3
    /// SSTables and 10 rows per partition), their findings in
    /// [`OverlappingTable::expected_zombies`].
    pub zombies: bool,
}

impl OverlapOptions {
    /// `sstables` SSTables of `version` (`nb` or `oa`), "now" an hour after the writes.
    pub fn new(
        version: Version,
        sstables: usize,
        partitions: u64,
        rows_per_partition: u32,
        seed: u64,
    ) -> Self {
        let base_timestamp_micros = 1_700_000_000_000_000;
        OverlapOptions {
            version,
            sstables,
            partitions,
            rows_per_partition,
            seed,
            base_timestamp_micros,
            now_secs: (base_timestamp_micros / 1_000_000).saturating_add(3_600),
            chunk_length_bytes: 16 * 1024,
            zombies: false,
        }
    }
}

/// What [`generate_overlapping`] returns: one sink and summary per SSTable, and the model.
#[derive(Debug)]
pub struct OverlappingTable<S> {
    pub sstables: Vec<(S, WriteSummary)>,
    pub expected: Vec<ExpectedPartition>,
    /// With [`OverlapOptions::zombies`]: every finding of a resurrection scan at `now_secs`
    /// and a gc_grace in (3,600 s, 30 days + 3,600 s), sorted; empty otherwise.
    pub expected_zombies: Vec<ExpectedZombie>,
}

/// The table's schema.
pub fn overlap_schema() -> Result<TableSchema> {
    TableSchema::new(
        vec![AbstractType::Long],
        vec![AbstractType::Int32],
        vec![ColumnDef::new("s", AbstractType::Utf8)],
        vec![
            ColumnDef::new("n", AbstractType::Int32),
            ColumnDef::new("v", AbstractType::Utf8),
            ColumnDef::new(
                "tags",
                AbstractType::Set {
                    element: Box::new(AbstractType::Utf8),
                    multi_cell: true,
                },
            ),
        ],
    )
}

/// Writes `options.sstables` SSTables through the sinks `make_sink(i)` returns.
pub fn generate_overlapping<S: ComponentSink>(
    options: &OverlapOptions,
    mut make_sink: impl FnMut(usize) -> S,
) -> Result<OverlappingTable<S>> {
    if options.sstables == 0 || options.partitions == 0 || options.rows_per_partition == 0 {
        return Err(Error::invalid("at least one SSTable, partition and row", 0));
    }
    if options.zombies && (options.sstables < 3 || options.rows_per_partition < 10) {
        return Err(Error::invalid(
            "resurrection cases need 3 SSTables and 10 rows per partition",
            0,
        ));
    }
    let schema = overlap_schema()?;
    let col = |is_static: bool, name: &str| {
        schema
            .column_index(is_static, name)
            .ok_or_else(|| Error::invalid(format!("no column {name}"), 0))
    };
    let (s_col, n_col, v_col, tags_col) = (
        col(true, "s")?,
        col(false, "n")?,
        col(false, "v")?,
        col(false, "tags")?,
    );
    let n = options.sstables as i64;
    let base_secs = options.base_timestamp_micros / 1_000_000;
    let mut keys: Vec<Vec<u8>> = (0..options.partitions)
        .map(|i| {
            (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ options.seed)
                .to_be_bytes()
                .to_vec()
        })
        .collect();
    let zombie_keys: Vec<Vec<u8>> = (0..ZOMBIE_CASES as u64)
        .filter(|_| options.zombies)
        .map(|i| {
            (options
                .partitions
                .wrapping_add(i)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                ^ options.seed)
                .to_be_bytes()
                .to_vec()
        })
        .collect();
    keys.extend(zombie_keys.iter().cloned());
    sort_keys_by_token(&mut keys, &Partitioner::Murmur3);
    let mut expected_zombies = Vec::new();

    // Every SSTable's partitions, built first (small by design), then written in key order.
    let mut tables: Vec<Vec<Partition>> = vec![Vec::new(); options.sstables];
    for (number, key) in keys.iter().enumerate() {
        if let Some(case) = zombie_keys.iter().position(|k| k == key) {
            let columns = (s_col, n_col, v_col, tags_col);
            let n = options.sstables;
            let (versions, found) =
                zombie_case(case, key, n, options.base_timestamp_micros, columns);
            for (i, p) in versions {
                if let Some(t) = tables.get_mut(i) {
                    t.push(p);
                }
            }
            expected_zombies.extend(found);
            continue;
        }
        let mut rng =
            SplitMix64::new(options.seed ^ (number as u64).wrapping_mul(0xa076_1d64_78bd_642f));
        let last = options.sstables.saturating_sub(1);
        let mut held = false;
        for (i, table) in tables.iter_mut().enumerate() {
            if !(rng.chance(0.7) || (i == last && !held)) {
                continue;
            }
            held = true;
            let ts = |rng: &mut SplitMix64| {
                options
                    .base_timestamp_micros
                    .saturating_add(
                        (rng.below(1_000_000) as i64)
                            .saturating_add(1)
                            .saturating_mul(n),
                    )
                    .saturating_add(i as i64)
            };
            let deletion_at = |t: i64| ModelDeletion::new(t, (t / 1_000_000) as u32);
            let mut p = Partition::new(key.clone());
            if rng.chance(0.08) {
                p.deletion = deletion_at(ts(&mut rng));
            }
            if rng.chance(0.5) {
                let mut row = Row::new(Vec::new());
                let t = ts(&mut rng);
                row.columns.push(ColumnData::Simple {
                    column: s_col,
                    cell: Cell::live(t, format!("s{number}.{i}").into_bytes()),
                });
                p.static_row = Some(row);
            }
            let last_ck = (options.rows_per_partition as i32).saturating_sub(1);
            let mut next_ck = 0i32;
            while next_ck <= last_ck {
                let ck = next_ck;
                next_ck = ck.saturating_add(1);
                let ck_bytes = ck.to_be_bytes().to_vec();
                let roll = rng.unit();
                if roll < 0.4 {
                    continue;
                }
                if roll < 0.46 {
                    // A range tombstone over 1–4 clusterings (this SSTable writes no row there);
                    // other SSTables' ranges overlap it, so merged bounds meet in boundaries.
                    let end = ck.saturating_add(rng.below(4) as i32).min(last_ck);
                    next_ck = end.saturating_add(1);
                    let d = deletion_at(ts(&mut rng));
                    p.unfiltereds
                        .push(Unfiltered::Marker(RangeTombstoneMarker::bound(
                            BoundKind::InclStart,
                            vec![ck_bytes],
                            d,
                        )));
                    p.unfiltereds
                        .push(Unfiltered::Marker(RangeTombstoneMarker::bound(
                            BoundKind::InclEnd,
                            vec![end.to_be_bytes().to_vec()],
                            d,
                        )));
                    continue;
                }
                let mut row = Row::new(vec![ck_bytes]);
                if roll < 0.52 {
                    row.deletion = deletion_at(ts(&mut rng));
                    p.unfiltereds.push(Unfiltered::Row(row));
                    continue;
                }
                let t = ts(&mut rng);
                if rng.chance(0.7) {
                    row.liveness = Some(Liveness {
                        timestamp_micros: t,
                        expiry: None,
                    });
                }
                if rng.chance(0.8) {
                    let t = ts(&mut rng);
                    let mut cell = Cell::live(t, (rng.next_u64() as i32).to_be_bytes().to_vec());
                    if rng.chance(0.3) {
                        // Expired by `now_secs` (TTL ≤ 30 min) or not (≥ 2 h).
                        let ttl = if rng.chance(0.5) {
                            (rng.below(1_740) as i32).saturating_add(60)
                        } else {
                            (rng.below(80_000) as i32).saturating_add(7_200)
                        };
                        let expiry = Expiry {
                            ttl_secs: ttl,
                            local_expiration_time_secs: ((t / 1_000_000) as u32)
                                .saturating_add(ttl as u32),
                        };
                        if let CellValue::Live { expiry: e, .. } = &mut cell.value {
                            *e = Some(expiry);
                        }
                    }
                    row.columns.push(ColumnData::Simple {
                        column: n_col,
                        cell,
                    });
                }
                if rng.chance(0.8) {
                    let t = ts(&mut rng);
                    let cell = if rng.chance(0.15) {
                        Cell {
                            timestamp_micros: t,
                            path: None,
                            value: CellValue::Tombstone {
                                local_deletion_time_secs: (t / 1_000_000) as u32,
                            },
                        }
                    } else {
                        Cell::live(t, format!("v{number}.{ck}.{i}").into_bytes())
                    };
                    row.columns.push(ColumnData::Simple {
                        column: v_col,
                        cell,
                    });
                }
                if rng.chance(0.4) {
                    let t = ts(&mut rng);
                    let deletion = if rng.chance(0.5) {
                        deletion_at(t.saturating_sub(1))
                    } else {
                        ModelDeletion::LIVE
                    };
                    let mut elements: Vec<Vec<u8>> = (0..rng.below(3).saturating_add(1))
                        .map(|_| format!("t{}", rng.below(5)).into_bytes())
                        .collect();
                    elements.sort();
                    elements.dedup();
                    let cells = elements
                        .into_iter()
                        .map(|e| Cell::live(t, Vec::new()).with_path(e))
                        .collect();
                    row.columns.push(ColumnData::Complex {
                        column: tags_col,
                        deletion,
                        cells,
                    });
                }
                if row.is_empty() {
                    continue;
                }
                p.unfiltereds.push(Unfiltered::Row(row));
            }
            table.push(p);
        }
    }

    let expected = keys
        .iter()
        .map(|key| {
            expect_partition(
                key,
                &tables,
                options.rows_per_partition,
                options.now_secs,
                (s_col, n_col, v_col, tags_col),
            )
        })
        .collect();
    let mut sstables = Vec::with_capacity(options.sstables);
    for (i, partitions) in tables.iter().enumerate() {
        let mut w = WriteOptions::new(options.version);
        w.expected_keys = partitions.len().max(1) as u64;
        w.chunk_length_bytes = options.chunk_length_bytes;
        // The resurrection cases are written up to 31 days before the base time.
        let oldest_secs = if options.zombies {
            base_secs.saturating_sub(ZOMBIE_AGE_SECS + 2 * 86_400)
        } else {
            base_secs
        };
        w.encoding_stats = EncodingStats {
            min_timestamp_micros: options
                .base_timestamp_micros
                .min(oldest_secs.saturating_mul(1_000_000))
                .saturating_sub(1),
            min_local_deletion_time_secs: oldest_secs as u32,
            min_ttl_secs: 60,
        };
        let mut writer = SSTableWriter::new(schema.clone(), w, make_sink(i))?;
        for p in partitions {
            writer.append(p)?;
        }
        sstables.push(writer.finish()?);
    }
    expected_zombies.sort();
    Ok(OverlappingTable {
        sstables,
        expected,
        expected_zombies,
    })
}
