//! The analytics pass over 2.x SSTables (`jb`, `ka`, `la`: the pre-3.0 cell layout), fed the
//! atoms of [`LegacyDataFileReader`] (the decoder the page's Data tab reads them with) and
//! grouped into CQL rows by [`RowGrouper`] (the dump's grouping), so the partitions report and
//! the tombstone scan cover 2.x files with the 3.0 counting rules where a 2.x file has the same
//! thing:
//!
//! | figure | 2.x source |
//! |---|---|
//! | rows | grouped rows (`row`; a static block is not a row) |
//! | cells | the grouped rows' cells (CQL row markers are liveness, not cells) |
//! | partition / row / range tombstones | the partition deletion; a deleted row marker; range tombstone markers (two per range tombstone atom, a repeat at an index block start once) |
//! | complex | a range tombstone deleting a whole collection |
//! | cell, TTL | deleted cells; expiring cells, expired when `now ≥ localExpirationTime` |
//!
//! The tombstone scan counts atoms: each deleted cell (row markers included) with its local
//! deletion time, each expiring cell's expiry, each range tombstone atom with its deletion.
//!
//! Rows are grouped without a schema ([`LegacyLayout::inferred`]): a composite cell name's
//! last component is the column, the others the clustering. A `COMPACT STORAGE` table with
//! plain (non-composite) names is not told from a one-row table this way: its cells count as
//! one row's (what the Data tab shows without a schema).
//!
//! Memory: one partition's grouped rows (as the Data tab's page of a 2.x partition).
//!
//! Src: cassandra-2.1 `db/OnDiskAtom.java`, `db/RangeTombstone.java`; cassandra-3.0
//! `db/LegacyLayout.java` (rows from cells).

use super::partitions::{PartitionStats, TombstoneCounts};
use super::TombstoneScan;
use crate::clock::Clock;
use crate::component::common::deletion::LocalDeletionTime;
use crate::component::data::{CellKind, DecodeOptions, PartitionStart};
use crate::component::legacy_data::{
    AtomKind, LegacyDataFileReader, LegacyItem, LegacyLayout, LegacyStep, RowGrouper,
};
use crate::dump::PartitionJson;
use crate::error::Result;
use crate::info::SSTableMetadata;
use crate::range::{RangeSource, SyncDriver};
use crate::token::Partitioner;
use crate::types::value::format_value;
use crate::types::AbstractType;

/// The note [`RowGrouper`] gives a range tombstone that deletes a whole collection.
const COLLECTION_DELETED: &str = "the whole collection is deleted";

/// The 2.x Data.db reader of an analytics pass.
pub fn legacy_data_reader(metadata: &SSTableMetadata) -> Result<LegacyDataFileReader> {
    LegacyDataFileReader::for_sstable(metadata, DecodeOptions::default())
}

/// Accumulates one 2.x partition at a time (see the module docs).
#[derive(Debug)]
pub struct LegacyScan {
    partitioner: Partitioner,
    now_secs: i64,
    grouper: RowGrouper,
    current: Option<(Vec<u8>, PartitionStats)>,
    /// The tombstone scan of the same pass.
    pub tombstones: TombstoneScan,
}

impl LegacyScan {
    pub fn new(partitioner: Partitioner, now_secs: i64) -> LegacyScan {
        LegacyScan {
            partitioner,
            now_secs,
            grouper: RowGrouper::new(LegacyLayout::inferred(), Some(now_secs)),
            current: None,
            tombstones: TombstoneScan::new(),
        }
    }

    /// The "now" TTL cells are classified at.
    pub fn now_secs(&self) -> i64 {
        self.now_secs
    }

    /// Feeds one item; returns the partition's figures (and raw key) at its end.
    pub fn push(&mut self, item: &LegacyItem<'_>) -> Option<(Vec<u8>, PartitionStats)> {
        let grouped = self.grouper.push(item);
        match item {
            LegacyItem::PartitionStart(p) => {
                self.tombstones.legacy_partition(p);
                self.current = Some(start(p, &self.partitioner));
                None
            }
            LegacyItem::Atom(a) => {
                let ldt = |secs: i32| LocalDeletionTime::new(secs as u32, false);
                match a.kind {
                    AtomKind::Deleted => self
                        .tombstones
                        .legacy_cell(CellKind::Tombstone, a.local_deletion_time_secs().map(ldt)),
                    AtomKind::Expiring => self.tombstones.legacy_cell(
                        CellKind::Expiring,
                        a.cell().and_then(|c| c.local_expiration_time_secs).map(ldt),
                    ),
                    AtomKind::RangeTombstone => {
                        if let Some(t) = a.range_tombstone() {
                            self.tombstones.legacy_range_tombstone(&t.deletion);
                        }
                    }
                    AtomKind::Cell | AtomKind::Counter | AtomKind::CounterUpdate => {
                        self.tombstones.legacy_cell(CellKind::Live, None)
                    }
                }
                None
            }
            LegacyItem::PartitionEnd(e) => {
                let (key, mut s) = self.current.take()?;
                s.bytes = e.partition_span.end.saturating_sub(e.partition_span.start);
                if let Some(p) = grouped {
                    add_grouped(&mut s, &p);
                }
                Some((key, s))
            }
        }
    }
}

/// Runs the whole pass over `reader` through `driver`, handing each partition's raw key and
/// figures to `on_partition` in file order; the tombstone scan is `scan.tombstones`.
pub fn scan_legacy<S: RangeSource>(
    reader: &mut LegacyDataFileReader,
    driver: &mut SyncDriver<S>,
    scan: &mut LegacyScan,
    clock: &dyn Clock,
    mut on_partition: impl FnMut(&[u8], PartitionStats),
) -> Result<()> {
    loop {
        let done = driver.with_next_step(reader, clock, |step| match step {
            LegacyStep::Item(item) => {
                if let Some((key, p)) = scan.push(&item) {
                    on_partition(&key, p);
                }
                false
            }
            LegacyStep::NeedMoreData | LegacyStep::Finished => true,
        })?;
        if done {
            return Ok(());
        }
    }
}

fn start(p: &PartitionStart, partitioner: &Partitioner) -> (Vec<u8>, PartitionStats) {
    let key = p.key.bytes.bytes.clone();
    let stats = PartitionStats {
        key: format_value(&AbstractType::Bytes, &key).text,
        key_hex: crate::span::hex(&key),
        token: partitioner.token(&key),
        position: p.position,
        bytes: 0,
        rows: 0,
        cells: 0,
        tombstones: TombstoneCounts {
            partition: u64::from(!p.deletion.is_live()),
            ..TombstoneCounts::default()
        },
        ttl_cells: 0,
        expired_ttl_cells: 0,
    };
    (key, stats)
}

/// Rows, cells, tombstones and TTL cells of one grouped partition.
fn add_grouped(s: &mut PartitionStats, p: &PartitionJson) {
    let inc = |n: &mut u64| *n = n.saturating_add(1);
    for u in &p.rows {
        match u.r#type {
            "row" => {
                inc(&mut s.rows);
                if u.deletion_info.is_some() {
                    inc(&mut s.tombstones.row);
                }
            }
            "static_block" => {}
            _ => inc(&mut s.tombstones.range),
        }
        for c in &u.cells {
            if c.value_note.as_deref() == Some(COLLECTION_DELETED) {
                inc(&mut s.tombstones.complex);
                continue;
            }
            inc(&mut s.cells);
            if c.deletion_info.is_some() {
                inc(&mut s.tombstones.cell);
            } else if c.ttl.is_some() {
                match c.expired {
                    Some(true) => inc(&mut s.expired_ttl_cells),
                    _ => inc(&mut s.ttl_cells),
                }
            }
        }
    }
}
