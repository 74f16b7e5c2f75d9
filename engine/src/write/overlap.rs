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
use super::ComponentSink;
use crate::error::{Error, Result};
use crate::token::{Partitioner, Token};
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

/// The columns `s`, `n`, `v`, `tags` by index.
type Columns = (usize, usize, usize, usize);

/// One partition of the table: its version in each SSTable that holds it.
#[derive(Debug, Clone)]
pub struct OverlapPartition {
    /// Its position in token order (the seed of its content).
    pub number: usize,
    pub key: Vec<u8>,
    /// `versions[i]`: what SSTable `i` holds of it (none or one partition).
    pub versions: Vec<Vec<Partition>>,
    /// The resurrection findings of a resurrection case, empty otherwise.
    pub zombies: Vec<ExpectedZombie>,
    rows_per_partition: u32,
    now_secs: i64,
    columns: Columns,
}

impl OverlapPartition {
    /// What a merged read at `now_secs` returns of it.
    pub fn expected(&self) -> ExpectedPartition {
        expect_partition(
            &self.key,
            &self.versions,
            self.rows_per_partition,
            self.now_secs,
            self.columns,
        )
    }
}

/// The table's partitions in token order, each derived from (seed, its position) alone: the
/// table is never held, only the keys (16 bytes each) and the partition being produced.
#[derive(Debug)]
pub struct OverlapPartitions {
    options: OverlapOptions,
    /// (token, key) of every partition, the resurrection cases' included, in token order.
    keys: Vec<(Token, u64)>,
    zombie_keys: Vec<u64>,
    columns: Columns,
    next: usize,
}

fn overlap_key(options: &OverlapOptions, i: u64) -> u64 {
    i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ options.seed
}

impl OverlapPartitions {
    pub fn new(options: &OverlapOptions) -> Result<Self> {
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
        let columns = (
            col(true, "s")?,
            col(false, "n")?,
            col(false, "v")?,
            col(false, "tags")?,
        );
        let zombie_keys: Vec<u64> = (0..ZOMBIE_CASES as u64)
            .filter(|_| options.zombies)
            .map(|i| overlap_key(options, options.partitions.wrapping_add(i)))
            .collect();
        let with_token = |k: u64| (Partitioner::Murmur3.token(&k.to_be_bytes()), k);
        let mut keys: Vec<(Token, u64)> = (0..options.partitions)
            .map(|i| with_token(overlap_key(options, i)))
            .chain(zombie_keys.iter().map(|&k| with_token(k)))
            .collect();
        // The big-endian bytes of a u64 order as the u64: the order of `sort_keys_by_token`.
        keys.sort_unstable();
        keys.dedup();
        Ok(OverlapPartitions {
            options: options.clone(),
            keys,
            zombie_keys,
            columns,
            next: 0,
        })
    }

    /// How many partitions the table has.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl Iterator for OverlapPartitions {
    type Item = OverlapPartition;

    fn next(&mut self) -> Option<OverlapPartition> {
        let number = self.next;
        let &(_, key) = self.keys.get(number)?;
        self.next = number.saturating_add(1);
        let key = key.to_be_bytes().to_vec();
        let case = self
            .zombie_keys
            .iter()
            .position(|k| k.to_be_bytes()[..] == key[..]);
        let (versions, zombies) =
            partition_versions(&self.options, number, &key, case, self.columns);
        Some(OverlapPartition {
            number,
            key,
            versions,
            zombies,
            rows_per_partition: self.options.rows_per_partition,
            now_secs: self.options.now_secs,
            columns: self.columns,
        })
    }
}

/// Partition `number` (key `key`) of every SSTable: a resurrection case, or random content
/// drawn from (seed, number).
fn partition_versions(
    options: &OverlapOptions,
    number: usize,
    key: &[u8],
    zombie: Option<usize>,
    (s_col, n_col, v_col, tags_col): Columns,
) -> (Vec<Vec<Partition>>, Vec<ExpectedZombie>) {
    let mut tables: Vec<Vec<Partition>> = vec![Vec::new(); options.sstables];
    if let Some(case) = zombie {
        let columns = (s_col, n_col, v_col, tags_col);
        let (versions, found) = zombie_case(
            case,
            key,
            options.sstables,
            options.base_timestamp_micros,
            columns,
        );
        for (i, p) in versions {
            if let Some(t) = tables.get_mut(i) {
                t.push(p);
            }
        }
        return (tables, found);
    }
    let n = options.sstables as i64;
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
        let mut p = Partition::new(key.to_vec());
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
    (tables, Vec::new())
}

/// What [`write_overlapping_copies`] returns: each copy's SSTables, sink and summary.
#[derive(Debug)]
pub struct OverlapWrite<S> {
    pub copies: Vec<Vec<(S, WriteSummary)>>,
    /// How many partitions the table has (the resurrection cases' included).
    pub partitions: u64,
    /// As [`OverlappingTable::expected_zombies`].
    pub expected_zombies: Vec<ExpectedZombie>,
}

/// Writes `copies` identical copies of the table's `options.sstables` SSTables through
/// `make_sink(copy, i)`, partition by partition in token order, handing each partition to
/// `each` after it is written: memory holds a partition, not the table. Two passes over the
/// generated partitions: the first counts each SSTable's keys (its bloom filter's size).
pub fn write_overlapping_copies<S: ComponentSink>(
    options: &OverlapOptions,
    copies: usize,
    mut make_sink: impl FnMut(usize, usize) -> S,
    mut each: impl FnMut(&OverlapPartition),
) -> Result<OverlapWrite<S>> {
    let mut counts = vec![0u64; options.sstables];
    let partitions = OverlapPartitions::new(options)?;
    let total = partitions.len() as u64;
    for p in partitions {
        for (count, v) in counts.iter_mut().zip(&p.versions) {
            *count = count.saturating_add(v.len() as u64);
        }
    }
    let schema = overlap_schema()?;
    let base_secs = options.base_timestamp_micros / 1_000_000;
    // The resurrection cases are written up to 31 days before the base time.
    let oldest_secs = if options.zombies {
        base_secs.saturating_sub(ZOMBIE_AGE_SECS + 2 * 86_400)
    } else {
        base_secs
    };
    let mut writers = Vec::with_capacity(copies);
    for copy in 0..copies {
        let mut row = Vec::with_capacity(options.sstables);
        for (i, count) in counts.iter().enumerate() {
            let mut w = WriteOptions::new(options.version);
            w.expected_keys = (*count).max(1);
            w.chunk_length_bytes = options.chunk_length_bytes;
            w.encoding_stats = EncodingStats {
                min_timestamp_micros: options
                    .base_timestamp_micros
                    .min(oldest_secs.saturating_mul(1_000_000))
                    .saturating_sub(1),
                min_local_deletion_time_secs: oldest_secs as u32,
                min_ttl_secs: 60,
            };
            row.push(SSTableWriter::new(schema.clone(), w, make_sink(copy, i))?);
        }
        writers.push(row);
    }
    let mut expected_zombies = Vec::new();
    for p in OverlapPartitions::new(options)? {
        for row in writers.iter_mut() {
            for (writer, versions) in row.iter_mut().zip(&p.versions) {
                for version in versions {
                    writer.append(version)?;
                }
            }
        }
        each(&p);
        expected_zombies.extend(p.zombies);
    }
    let mut out = Vec::with_capacity(copies);
    for row in writers {
        out.push(
            row.into_iter()
                .map(SSTableWriter::finish)
                .collect::<Result<Vec<_>>>()?,
        );
    }
    expected_zombies.sort();
    Ok(OverlapWrite {
        copies: out,
        partitions: total,
        expected_zombies,
    })
}

/// Writes `options.sstables` SSTables through the sinks `make_sink(i)` returns, keeping the
/// model of every partition ([`OverlappingTable::expected`]): for tests; a large table is
/// written by [`write_overlapping_copies`] and its model read from [`OverlapPartitions`].
pub fn generate_overlapping<S: ComponentSink>(
    options: &OverlapOptions,
    mut make_sink: impl FnMut(usize) -> S,
) -> Result<OverlappingTable<S>> {
    let mut expected = Vec::new();
    let written = write_overlapping_copies(
        options,
        1,
        |_, i| make_sink(i),
        |p| expected.push(p.expected()),
    )?;
    Ok(OverlappingTable {
        sstables: written.copies.into_iter().next().unwrap_or_default(),
        expected,
        expected_zombies: written.expected_zombies,
    })
}
