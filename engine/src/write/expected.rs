//! The counts a generated table must report, computed from the generator's model (not from
//! Data.db): what the analytics tests compare a decoded pass against.
//!
//! Counting rules (the `partitions` report's, issue #15): `rows` regular rows (not the static
//! row); `cells` every cell, static and complex elements, tombstones and expiring cells included;
//! tombstones by kind — `partition` 1 for a deleted partition, `row` rows with a row deletion,
//! `range` range tombstone markers (bounds and boundaries, one each), `complex` complex-column
//! deletions, `cell` cell tombstones; `ttl_cells` expiring cells still live at `now`
//! (`now < localExpirationTime`, `Cell.isLive`), `expired_ttl_cells` the others.

use super::generate::{generate, GenerateOptions};
use super::model::{CellValue, ColumnData, ModelDeletion, Partition, Row, Unfiltered};
use super::CountingSink;
use crate::error::Result;

/// Tombstones of one partition, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExpectedTombstones {
    pub partition: u64,
    pub row: u64,
    pub range: u64,
    pub complex: u64,
    pub cell: u64,
}

impl ExpectedTombstones {
    pub fn total(&self) -> u64 {
        self.partition
            .saturating_add(self.row)
            .saturating_add(self.range)
            .saturating_add(self.complex)
            .saturating_add(self.cell)
    }
}

/// The expected figures of one generated partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpectedPartition {
    pub key: Vec<u8>,
    pub rows: u64,
    pub cells: u64,
    pub tombstones: ExpectedTombstones,
    pub ttl_cells: u64,
    pub expired_ttl_cells: u64,
    /// Every tombstone's local deletion time (s), one entry per tombstone counted above (a
    /// boundary marker: the later of the deletion it closes and the one it opens).
    pub tombstone_ldts_secs: Vec<i64>,
    /// Expiration time (s) of every expiring cell.
    pub cell_expiries_secs: Vec<i64>,
}

impl ExpectedPartition {
    /// Counts one partition of the model at `now_secs`.
    pub fn of(p: &Partition, now_secs: i64) -> ExpectedPartition {
        let mut e = ExpectedPartition {
            key: p.key.clone(),
            ..ExpectedPartition::default()
        };
        if !p.deletion.is_live() {
            e.tombstones.partition = e.tombstones.partition.saturating_add(1);
            e.tombstone_ldts_secs
                .push(i64::from(p.deletion.local_deletion_time_secs));
        }
        if let Some(s) = &p.static_row {
            e.add_row(s, now_secs);
        }
        for u in &p.unfiltereds {
            match u {
                Unfiltered::Row(r) => {
                    e.rows = e.rows.saturating_add(1);
                    e.add_row(r, now_secs);
                }
                Unfiltered::Marker(m) => {
                    e.tombstones.range = e.tombstones.range.saturating_add(1);
                    // A boundary closes one deletion and opens the next: the later of the two
                    // local deletion times is when the marker can go.
                    let ldt = |d: &ModelDeletion| i64::from(d.local_deletion_time_secs);
                    let t = match &m.start_deletion {
                        Some(s) => ldt(&m.deletion).max(ldt(s)),
                        None => ldt(&m.deletion),
                    };
                    e.tombstone_ldts_secs.push(t);
                }
            }
        }
        e
    }

    fn add_row(&mut self, r: &Row, now_secs: i64) {
        if !r.deletion.is_live() {
            self.tombstones.row = self.tombstones.row.saturating_add(1);
            self.tombstone_ldts_secs
                .push(i64::from(r.deletion.local_deletion_time_secs));
        }
        for c in &r.columns {
            if let ColumnData::Complex { deletion, .. } = c {
                if !deletion.is_live() {
                    self.tombstones.complex = self.tombstones.complex.saturating_add(1);
                    self.tombstone_ldts_secs
                        .push(i64::from(deletion.local_deletion_time_secs));
                }
            }
        }
        for cell in r.cells() {
            self.cells = self.cells.saturating_add(1);
            match &cell.value {
                CellValue::Tombstone {
                    local_deletion_time_secs,
                } => {
                    self.tombstones.cell = self.tombstones.cell.saturating_add(1);
                    self.tombstone_ldts_secs
                        .push(i64::from(*local_deletion_time_secs));
                }
                CellValue::Live {
                    expiry: Some(x), ..
                } => {
                    let at = i64::from(x.local_expiration_time_secs);
                    self.cell_expiries_secs.push(at);
                    if now_secs < at {
                        self.ttl_cells = self.ttl_cells.saturating_add(1);
                    } else {
                        self.expired_ttl_cells = self.expired_ttl_cells.saturating_add(1);
                    }
                }
                CellValue::Live { expiry: None, .. } => {}
            }
        }
    }
}

/// The expected figures of every partition [`generate`] writes for `options`, in the order
/// written (token order), with TTL cells classified at `now_secs`. Runs the generator with its
/// model kept and the bytes dropped.
pub fn expected_counts(options: &GenerateOptions, now_secs: i64) -> Result<Vec<ExpectedPartition>> {
    let mut o = options.clone();
    o.keep_model = true;
    let g = generate(&o, CountingSink::default())?;
    Ok(g.model
        .map(|m| {
            m.partitions
                .iter()
                .map(|p| ExpectedPartition::of(p, now_secs))
                .collect()
        })
        .unwrap_or_default())
}
