//! Resurrection risks ("zombies") of one table at (now, gc_grace): every tombstone that is
//! droppable — its local deletion time is before `gcBefore = now − gc_grace`, as
//! `DeletionPurger.shouldPurge` decides — and shadows live data in a *different* SSTable, and
//! every droppable tombstone that shadows nothing in any SSTable (droppable garbage).
//!
//! | step | rule | Src |
//! |---|---|---|
//! | droppable | partition, range, row and complex deletions: localDeletionTime < gcBefore; cell tombstones the same; an expired TTL cell (a tombstone once purged) when its expiration time < gcBefore; an expired row liveness (an `ExpiringLivenessInfo` not live at now) when its localExpirationTime < gcBefore, as `BTreeRow.purge` drops it | `db/DeletionPurger.java` `shouldPurge` (its `DeletionTime` and `LivenessInfo` forms), `db/rows/AbstractCell.java` `purge`, `db/rows/BTreeRow.java` `purge`, `db/DeletionTime.java` |
//! | shadows | a live cell or row liveness (not expired at now) of the tombstone's scope with timestamp ≤ markedForDeleteAt (a cell tombstone or expired cell: ≤ its timestamp, as a tie goes to it; an expired liveness: a live liveness with timestamp ≤ its own, as `LivenessInfo.supersedes` gives it the tie) | `db/DeletionTime.java` `deletes`, `db/rows/Cells.java` `reconcile`, `db/LivenessInfo.java` `supersedes` |
//! | scope | partition deletion: the partition; range tombstone: the clusterings between its bounds; row deletion: the row; complex deletion: the column's cells in the row; cell tombstone or expired cell: that cell (column and path); expired row liveness: the row's liveness (primary key), not its cells | `db/rows/RangeTombstoneMarker.java`, `db/rows/Row.java` |
//! | overlap in compaction | a compaction keeps a tombstone while an SSTable outside it whose key range holds the key has minTimestamp ≤ its markedForDeleteAt ([`CompactionOverlap::purge_evaluator_keeps_tombstone`]); with LCS's levels and the SSTables' token ranges and timestamps, the report says whether the two would be compacted apart | `db/compaction/CompactionController.java` `getPurgeEvaluator`, `db/compaction/LeveledManifest.java` |
//!
//! The shadowed data comes back if the tombstone's SSTable is compacted (the tombstone purged)
//! while the shadowed one is not seen by that compaction's purge evaluator: the other SSTable
//! arrived later (streaming, repair, `sstableloader`, a restored backup), or the tombstone was
//! purged elsewhere. The partitions come from [`TableMerger`]'s k-way merge, one at a time (its
//! versions, unmerged); memory is bounded by the partitions being merged. A shadowed piece that another
//! tombstone keeps hidden (one not droppable, or one in the piece's own SSTable) is not a
//! resurrection; the tombstone is not garbage either.
//! Invalid local deletion times are never droppable (as the `tombstones` report counts them).

use core::cmp::Ordering;

use serde::Serialize;

use super::partition::SourcePartition;
use super::reconcile::compare_clusterings;
use super::{MergeError, SourceId, TableMerger};
use crate::analytics::TableSSTable;
use crate::clock::Clock;
use crate::component::data::{
    Cell, CellKind, ClusteringPrefixKind, ClusteringValueBuf, ColumnData, DataItem, DataSchema,
    DeletionTime, MarkerDeletion, Row,
};
use crate::range::RangeSource;
use crate::types::value::format_value;

/// What kind of tombstone is droppable.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ZombieTombstoneKind {
    Partition,
    RangeTombstone,
    Row,
    ComplexDeletion,
    Cell,
    /// An expiring cell whose TTL ran out: compaction turns it into a tombstone, then purges it.
    ExpiredCell,
    /// An expiring row liveness (a primary key written with a TTL) whose TTL ran out:
    /// compaction drops it once its expiration time is before gcBefore, and an older liveness
    /// of the row in another SSTable (an `INSERT` without TTL) reads as live again.
    ExpiredLiveness,
}

/// A droppable tombstone: where it is and its times.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct DroppableTombstone {
    pub sstable: SourceId,
    pub kind: ZombieTombstoneKind,
    pub is_static: bool,
    /// The row's clustering (range tombstones: the start bound's values), rendered per type;
    /// empty for a partition deletion.
    pub clustering: Vec<String>,
    /// Range tombstones: the end bound's values.
    pub range_end: Option<Vec<String>>,
    /// Whether each bound of a range tombstone is inclusive (start, end).
    pub range_inclusive: Option<(bool, bool)>,
    /// Cells and complex deletions: the column's name.
    pub column: Option<String>,
    /// Cells of complex columns: the cell path in hex.
    pub path_hex: Option<String>,
    /// markedForDeleteAt (cells: the cell's timestamp).
    pub marked_for_delete_at_micros: i64,
    /// The local deletion time (expired cells and livenesses: the expiration time).
    pub local_deletion_time_secs: i64,
}

/// Whether two SSTables meet in the table's compaction.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct CompactionOverlap {
    /// Statistics.db's sstable_level of each (LCS; 0 otherwise).
    pub tombstone_level: Option<i32>,
    pub shadowed_level: Option<i32>,
    /// Whether their [first, last] token ranges intersect (`None`: a range is unknown).
    pub token_ranges_intersect: Option<bool>,
    /// The shadowed SSTable's minTimestamp.
    pub shadowed_min_timestamp_micros: Option<i64>,
    /// The tombstone's SSTable's maxTimestamp.
    pub tombstone_max_timestamp_micros: Option<i64>,
    /// `getPurgeEvaluator` run on this node's files: while the shadowed SSTable is live, its
    /// key range holds the key and its minTimestamp ≤ markedForDeleteAt, so a compaction of
    /// the tombstone's SSTable without it keeps the tombstone. `false`: nothing on this node
    /// stops the purge.
    pub purge_evaluator_keeps_tombstone: bool,
    /// Both in one LCS level above 0: their ranges should never overlap, so the level's
    /// compactions treat them apart.
    pub same_level_above_zero: bool,
}

/// A droppable tombstone and the data it shadows in one other SSTable's row.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Resurrection {
    pub tombstone: DroppableTombstone,
    pub shadowed_sstable: SourceId,
    pub shadowed_is_static: bool,
    /// The shadowed row's clustering, rendered per type.
    pub shadowed_clustering: Vec<String>,
    /// The newest timestamp among the shadowed pieces of the row.
    pub shadowed_timestamp_micros: i64,
    /// Live cells and row liveness of the row the tombstone shadows.
    pub shadowed_pieces: u32,
    pub compaction: CompactionOverlap,
}

/// One partition's findings.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PartitionZombies {
    pub key: Vec<u8>,
    /// The key as cqlsh prints it.
    pub key_text: String,
    /// The SSTables that hold the partition.
    pub sstables: Vec<SourceId>,
    pub resurrections: Vec<Resurrection>,
    /// Droppable tombstones that shadow nothing in any SSTable.
    pub garbage: Vec<DroppableTombstone>,
}

/// The scope of a tombstone inside its partition.
enum Scope {
    Partition,
    Range {
        start: (Vec<ClusteringValueBuf>, ClusteringPrefixKind),
        end: (Vec<ClusteringValueBuf>, ClusteringPrefixKind),
    },
    Row(bool, Vec<ClusteringValueBuf>),
    /// The row's liveness only.
    Liveness(bool, Vec<ClusteringValueBuf>),
    Column(bool, Vec<ClusteringValueBuf>, usize),
    Cell(bool, Vec<ClusteringValueBuf>, usize, Option<Vec<u8>>),
}

/// The resurrection scan over a table's merge (see the [module docs](self)).
#[derive(Debug)]
pub struct ZombieFinder<S> {
    merger: TableMerger<S>,
    sstables: Vec<TableSSTable>,
    now_secs: i64,
    gc_before_secs: i64,
}

impl<S: RangeSource> ZombieFinder<S> {
    /// `sstables[i]` describes the merge's SSTable `i` (`analytics::table_report`); the merge's
    /// readers must classify expired cells at the same `now_secs`.
    pub fn new(
        merger: TableMerger<S>,
        sstables: Vec<TableSSTable>,
        now_secs: i64,
        gc_grace_secs: i64,
    ) -> Self {
        ZombieFinder {
            merger,
            sstables,
            now_secs,
            gc_before_secs: now_secs.saturating_sub(gc_grace_secs),
        }
    }

    /// `now − gc_grace`.
    pub fn gc_before_secs(&self) -> i64 {
        self.gc_before_secs
    }

    pub fn source_names(&self) -> Vec<&str> {
        self.merger.source_names()
    }

    /// The next partition's findings (often none); `Ok(None)` after the last partition.
    pub fn next_partition(
        &mut self,
        clock: &dyn Clock,
    ) -> Result<Option<PartitionZombies>, MergeError> {
        let Some(parts) = self.merger.next_partition_versions(clock)? else {
            return Ok(None);
        };
        let schema = self.merger.schema();
        let key = parts
            .first()
            .map(|p| p.start.key.bytes.bytes.clone())
            .unwrap_or_default();
        let mut out = PartitionZombies {
            key_text: parts
                .first()
                .map_or_else(String::new, |p| key_text(schema, p)),
            key,
            sstables: parts.iter().map(|p| p.source).collect(),
            resurrections: Vec::new(),
            garbage: Vec::new(),
        };
        let scan = Scan {
            schema,
            parts: &parts,
            sstables: &self.sstables,
            now_secs: self.now_secs,
            gc_before_secs: self.gc_before_secs,
        };
        // Every tombstone of every version (droppable or not): those that stay keep data
        // hidden after a droppable one is purged.
        let all: Vec<(DroppableTombstone, Scope)> = parts
            .iter()
            .flat_map(|p| scan.tombstones(p, true))
            .collect();
        for (i, (tombstone, _)) in all.iter().enumerate() {
            if scan.is_droppable_tombstone(tombstone) {
                scan.shadowed(i, &all, &mut out);
            }
        }
        Ok(Some(out))
    }
}

struct Scan<'a> {
    schema: &'a DataSchema,
    parts: &'a [SourcePartition],
    sstables: &'a [TableSSTable],
    now_secs: i64,
    gc_before_secs: i64,
}

/// The key as cqlsh prints it: each component per its type, `:`-joined (hex when it did not
/// split into components).
fn key_text(schema: &DataSchema, part: &SourcePartition) -> String {
    let key = &part.start.key;
    if key.components.is_empty() {
        return crate::span::hex(&key.bytes.bytes);
    }
    key.components
        .iter()
        .map(|c| match schema.key_component_types.get(c.index) {
            Some(t) => format_value(t, &c.value.bytes).text,
            None => crate::span::hex(&c.value.bytes),
        })
        .collect::<Vec<_>>()
        .join(":")
}

fn clustering_of(row: &Row) -> Vec<ClusteringValueBuf> {
    row.clustering
        .as_ref()
        .map(|c| c.values.clone())
        .unwrap_or_default()
}

/// A piece of a row: its liveness (`None`) or a cell (column index, path).
type Piece = Option<(usize, Option<Vec<u8>>)>;

fn path_of(c: &Cell) -> Option<Vec<u8>> {
    c.path.as_ref().map(|p| p.bytes.clone())
}

impl Scan<'_> {
    fn render(&self, values: &[ClusteringValueBuf]) -> Vec<String> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| match self.schema.clustering_types.get(i) {
                Some(t) => format_value(t, &v.bytes).text,
                None => crate::span::hex(&v.bytes),
            })
            .collect()
    }

    fn column_name(&self, is_static: bool, index: usize) -> String {
        self.schema
            .columns(is_static)
            .get(index)
            .map_or_else(|| format!("column #{index}"), |c| c.name.clone())
    }

    /// An invalid local deletion time (negative before oa, `0xFFFFFFFE` from oa) means no
    /// time: never counted droppable, as the `tombstones` report counts it.
    fn is_droppable(&self, d: &DeletionTime) -> bool {
        !d.deletes_nothing()
            && !d.local_deletion_time.is_invalid()
            && d.local_deletion_time.secs < self.gc_before_secs
    }

    /// Whether [`Scan::tombstones`] lists `d`: every deletion when `all`, else the droppable.
    fn listed(&self, d: &DeletionTime, all: bool) -> bool {
        if all {
            !d.deletes_nothing()
        } else {
            self.is_droppable(d)
        }
    }

    fn tombstone(
        &self,
        part: &SourcePartition,
        kind: ZombieTombstoneKind,
        row: Option<&Row>,
        d: (i64, i64),
    ) -> DroppableTombstone {
        DroppableTombstone {
            sstable: part.source,
            kind,
            is_static: row.is_some_and(|r| r.is_static),
            clustering: row
                .map(|r| self.render(&clustering_of(r)))
                .unwrap_or_default(),
            range_end: None,
            range_inclusive: None,
            column: None,
            path_hex: None,
            marked_for_delete_at_micros: d.0,
            local_deletion_time_secs: d.1,
        }
    }

    /// Whether a tombstone [`Scan::tombstones`] listed is droppable.
    fn is_droppable_tombstone(&self, t: &DroppableTombstone) -> bool {
        t.local_deletion_time_secs < self.gc_before_secs
    }

    /// Every tombstone (`all`) or every droppable one of one SSTable's version, with its scope;
    /// an invalid local deletion time is listed as `i64::MAX` (never droppable).
    fn tombstones(&self, part: &SourcePartition, all: bool) -> Vec<(DroppableTombstone, Scope)> {
        let mut out = Vec::new();
        let times = |d: &DeletionTime| {
            let ldt = d.local_deletion_time;
            let secs = if ldt.is_invalid() { i64::MAX } else { ldt.secs };
            (d.marked_for_delete_at_micros, secs)
        };
        if self.listed(&part.start.deletion, all) {
            let d = times(&part.start.deletion);
            let t = self.tombstone(part, ZombieTombstoneKind::Partition, None, d);
            out.push((t, Scope::Partition));
        }
        let mut open: Option<(Vec<ClusteringValueBuf>, ClusteringPrefixKind, DeletionTime)> = None;
        let rows = part
            .static_row
            .iter()
            .chain(part.unfiltereds.iter().filter_map(|u| match u {
                DataItem::Row(r) => Some(r),
                _ => None,
            }));
        for u in &part.unfiltereds {
            let DataItem::RangeTombstoneMarker(m) = u else {
                continue;
            };
            let values = m.bound.values.clone();
            let (closes, opens) = match &m.deletion {
                MarkerDeletion::Bound(d) if m.bound.kind.is_start() => (None, Some(d.clone())),
                MarkerDeletion::Bound(d) => (Some(d.clone()), None),
                MarkerDeletion::Boundary { end, start } => (Some(end.clone()), Some(start.clone())),
            };
            if let (Some(d), Some((sv, sk, _))) = (closes, open.take()) {
                if self.listed(&d, all) {
                    let mut t =
                        self.tombstone(part, ZombieTombstoneKind::RangeTombstone, None, times(&d));
                    t.clustering = self.render(&sv);
                    t.range_end = Some(self.render(&values));
                    t.range_inclusive = Some((
                        matches!(
                            sk,
                            ClusteringPrefixKind::InclStartBound
                                | ClusteringPrefixKind::ExclEndInclStartBoundary
                        ),
                        matches!(
                            m.bound.kind,
                            ClusteringPrefixKind::InclEndBound
                                | ClusteringPrefixKind::InclEndExclStartBoundary
                        ),
                    ));
                    let scope = Scope::Range {
                        start: (sv, sk),
                        end: (values.clone(), m.bound.kind),
                    };
                    out.push((t, scope));
                }
            }
            if let Some(d) = opens {
                open = Some((values, m.bound.kind, d));
            }
        }
        for row in rows {
            let ck = clustering_of(row);
            if let Some(d) = row.deletion.as_ref().filter(|d| self.listed(&d.time, all)) {
                let t = self.tombstone(part, ZombieTombstoneKind::Row, Some(row), times(&d.time));
                out.push((t, Scope::Row(row.is_static, ck.clone())));
            }
            if let Some(l) = &row.liveness {
                // `DeletionPurger.shouldPurge(LivenessInfo, now)`: not live at now, and its
                // localExpirationTime before gcBefore.
                let expiry = l.local_expiration_time.as_ref().map(|e| e.value);
                let expired = l.is_expired_liveness()
                    || expiry.is_some_and(|e| e.expiry_secs() <= self.now_secs);
                if let (true, Some(e)) = (expired, expiry) {
                    let ldt = if e.is_invalid() && e.unsigned {
                        i64::MAX
                    } else {
                        e.expiry_secs()
                    };
                    if all || ldt < self.gc_before_secs {
                        let kind = ZombieTombstoneKind::ExpiredLiveness;
                        let times = (l.timestamp_micros.value, ldt);
                        let t = self.tombstone(part, kind, Some(row), times);
                        out.push((t, Scope::Liveness(row.is_static, ck.clone())));
                    }
                }
            }
            for data in &row.column_data {
                if let ColumnData::Complex(c) = data {
                    if let Some(d) = c.complex_deletion.as_ref().filter(|d| self.listed(d, all)) {
                        let kind = ZombieTombstoneKind::ComplexDeletion;
                        let mut t = self.tombstone(part, kind, Some(row), times(d));
                        t.column = Some(self.column_name(row.is_static, c.column_index));
                        let scope = Scope::Column(row.is_static, ck.clone(), c.column_index);
                        out.push((t, scope));
                    }
                }
                for cell in data.cells() {
                    let (kind, ldt) = match (cell.kind, cell.local_deletion_time) {
                        (CellKind::Tombstone, Some(l)) if !l.is_invalid() => {
                            (ZombieTombstoneKind::Cell, l.secs)
                        }
                        // A pre-oa expiry that overflowed i32 counts at the time it meant.
                        (CellKind::Expired, Some(l)) if !(l.is_invalid() && l.unsigned) => {
                            (ZombieTombstoneKind::ExpiredCell, l.expiry_secs())
                        }
                        (CellKind::Tombstone | CellKind::Expired, Some(_)) if all => {
                            (ZombieTombstoneKind::Cell, i64::MAX)
                        }
                        _ => continue,
                    };
                    if !all && ldt >= self.gc_before_secs {
                        continue;
                    }
                    let mut t = self.tombstone(part, kind, Some(row), (cell.timestamp_micros, ldt));
                    t.column = Some(self.column_name(row.is_static, cell.column_index));
                    t.path_hex = cell.path.as_ref().map(|p| crate::span::hex(&p.bytes));
                    let scope =
                        Scope::Cell(row.is_static, ck.clone(), cell.column_index, path_of(cell));
                    out.push((t, scope));
                }
            }
        }
        out
    }

    fn compare(&self, a: &[ClusteringValueBuf], b: &[ClusteringValueBuf]) -> Ordering {
        compare_clusterings(
            &self.schema.clustering_types,
            (a, ClusteringPrefixKind::Clustering),
            (b, ClusteringPrefixKind::Clustering),
        )
    }

    /// Whether the scope covers `row`.
    fn covers_row(&self, scope: &Scope, row: &Row) -> bool {
        let ck = clustering_of(row);
        match scope {
            Scope::Partition => true,
            Scope::Range { start, end } => {
                let kind = ClusteringPrefixKind::Clustering;
                let types = &self.schema.clustering_types;
                !row.is_static
                    && compare_clusterings(types, (&start.0, start.1), (&ck, kind))
                        == Ordering::Less
                    && compare_clusterings(types, (&ck, kind), (&end.0, end.1)) == Ordering::Less
            }
            Scope::Row(is_static, c)
            | Scope::Liveness(is_static, c)
            | Scope::Column(is_static, c, _)
            | Scope::Cell(is_static, c, _, _) => {
                row.is_static == *is_static
                    && (*is_static || self.compare(&ck, c) == Ordering::Equal)
            }
        }
    }

    /// Whether the scope (known to cover the row) covers a piece: the liveness (`None`) or a
    /// cell (column, path).
    fn covers_piece(scope: &Scope, piece: &Piece) -> bool {
        match (scope, piece) {
            (Scope::Column(_, _, index), Some((c, _))) => c == index,
            (Scope::Cell(_, _, index, path), Some((c, p))) => c == index && p == path,
            (Scope::Column(..) | Scope::Cell(..), None) => false,
            (Scope::Liveness(..), piece) => piece.is_none(),
            _ => true,
        }
    }

    fn rows_of(part: &SourcePartition) -> impl Iterator<Item = &Row> {
        part.static_row
            .iter()
            .chain(part.unfiltereds.iter().filter_map(|u| match u {
                DataItem::Row(r) => Some(r),
                _ => None,
            }))
    }

    fn live_cell(&self, c: &Cell) -> bool {
        matches!(c.kind, CellKind::Live | CellKind::Expiring)
    }

    /// The live pieces of `row` in the scope that `mfda` shadows, with their timestamps.
    fn shadowed_in_row(&self, row: &Row, scope: &Scope, mfda: i64) -> Vec<(i64, Piece)> {
        let mut pieces: Vec<(i64, Piece)> = Vec::new();
        if let Some(l) = &row.liveness {
            let expired = l
                .local_expiration_time
                .as_ref()
                .is_some_and(|e| e.value.expiry_secs() <= self.now_secs);
            if !expired && !l.is_expired_liveness() {
                pieces.push((l.timestamp_micros.value, None));
            }
        }
        for cell in row.cells().filter(|c| self.live_cell(c)) {
            pieces.push((
                cell.timestamp_micros,
                Some((cell.column_index, path_of(cell))),
            ));
        }
        pieces.retain(|(ts, piece)| *ts <= mfda && Self::covers_piece(scope, piece));
        pieces
    }

    fn overlap(&self, tombstone: SourceId, shadowed: SourceId, mfda: i64) -> CompactionOverlap {
        let (t, s) = (self.sstables.get(tombstone), self.sstables.get(shadowed));
        let intersect = match (t, s) {
            (Some(t), Some(s)) => {
                match (&t.first_token, &t.last_token, &s.first_token, &s.last_token) {
                    (Some(af), Some(al), Some(bf), Some(bl)) => Some(af <= bl && bf <= al),
                    _ => None,
                }
            }
            _ => None,
        };
        let shadowed_min = s.and_then(|s| s.min_timestamp_micros);
        let (tl, sl) = (t.and_then(|t| t.level), s.and_then(|s| s.level));
        CompactionOverlap {
            tombstone_level: tl,
            shadowed_level: sl,
            token_ranges_intersect: intersect,
            shadowed_min_timestamp_micros: shadowed_min,
            tombstone_max_timestamp_micros: t.and_then(|t| t.max_timestamp_micros),
            purge_evaluator_keeps_tombstone: intersect == Some(true)
                && shadowed_min.is_some_and(|m| m <= mfda),
            same_level_above_zero: tl.is_some_and(|l| l > 0) && tl == sl,
        }
    }

    /// Adds the resurrections of tombstone `all[index]` (or it as garbage) to `out`: the
    /// pieces it shadows in another SSTable that no other tombstone keeps hidden — one that is
    /// not droppable, or one in the shadowed piece's own SSTable (compacted with it).
    fn shadowed(
        &self,
        index: usize,
        all: &[(DroppableTombstone, Scope)],
        out: &mut PartitionZombies,
    ) {
        let Some((tombstone, scope)) = all.get(index) else {
            return;
        };
        let mfda = tombstone.marked_for_delete_at_micros;
        let mut shadows_something = false;
        for part in self.parts {
            for row in Self::rows_of(part).filter(|r| self.covers_row(scope, r)) {
                let pieces = self.shadowed_in_row(row, scope, mfda);
                if pieces.is_empty() {
                    continue;
                }
                shadows_something = true;
                if part.source == tombstone.sstable {
                    continue;
                }
                let stays: Vec<&(DroppableTombstone, Scope)> = all
                    .iter()
                    .enumerate()
                    .filter(|(j, (u, u_scope))| {
                        *j != index
                            && (!self.is_droppable_tombstone(u) || u.sstable == part.source)
                            && self.covers_row(u_scope, row)
                    })
                    .map(|(_, u)| u)
                    .collect();
                let exposed: Vec<i64> = pieces
                    .iter()
                    .filter(|(ts, piece)| {
                        !stays.iter().any(|(u, u_scope)| {
                            *ts <= u.marked_for_delete_at_micros
                                && Self::covers_piece(u_scope, piece)
                        })
                    })
                    .map(|(ts, _)| *ts)
                    .collect();
                let Some(newest) = exposed.iter().max().copied() else {
                    continue;
                };
                let pieces = u32::try_from(exposed.len()).unwrap_or(u32::MAX);
                out.resurrections.push(Resurrection {
                    tombstone: tombstone.clone(),
                    shadowed_sstable: part.source,
                    shadowed_is_static: row.is_static,
                    shadowed_clustering: self.render(&clustering_of(row)),
                    shadowed_timestamp_micros: newest,
                    shadowed_pieces: pieces,
                    compaction: self.overlap(tombstone.sstable, part.source, mfda),
                });
            }
        }
        if !shadows_something {
            out.garbage.push(tombstone.clone());
        }
    }
}
