//! Inside a partition whose digests differ: the pieces — partition deletion, row deletion,
//! row liveness, cell, complex deletion, range tombstone bound — on which the replicas'
//! validated (purged) partitions differ, side by side, with each replica's version as its
//! merged read shows it and which replica's version wins reconciliation.
//!
//! | step | rule | Src |
//! |---|---|---|
//! | what is compared | each replica's partition as validation hashes it ([`purge`](super::purge)): a piece differs when the purged versions differ (one replica lacks it, or value, timestamp, TTL or deletion time differ) | `repair/Validator.java`, `db/rows/UnfilteredRowIterators.java` `digest` |
//! | what is shown | the merged (unpurged) version of each replica, with `purged` when validation drops or rewrites it (a tombstone past gc_grace, an expired TTL turned tombstone) | `db/rows/AbstractCell.java` `purge`, `db/rows/BTreeRow.java` `purge` |
//! | which wins | cells by `Cells.reconcile`, livenesses by `LivenessInfo.supersedes`, deletions by `DeletionTime.supersedes`; a version wins over an absent one | `db/rows/Cells.java`, `db/LivenessInfo.java`, `db/DeletionTime.java` |
//!
//! The row deletions of the rows where something differs are listed too when a replica has
//! one (`differs: false` when their purged versions agree): a tombstone past gc_grace that
//! validation purged is why its replica lacks the data the others stream back.
//! Columns are matched by name (each replica's merge has its own column order). A partition
//! whose digests differ only in what no piece shows (the column names digested, which are each
//! replica's merge schema's) lists no piece.

use core::cmp::Ordering;

use serde::Serialize;

use crate::component::data::{
    Cell, CellKind, ClusteringPrefixKind, ClusteringValueBuf, ColumnData, DataSchema, DeletionTime,
    LivenessInfo, MarkerDeletion, Row,
};
use crate::merge::reconcile::{
    cell_wins, compare_clusterings, deletion_supersedes, liveness_supersedes,
};
use crate::merge::{MergedPartition, MergedUnfiltered};
use crate::types::value::{format_cell_path, format_value};

/// What a piece is.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PieceKind {
    PartitionDeletion,
    RowDeletion,
    Liveness,
    ComplexDeletion,
    Cell,
    RangeTombstoneBound,
}

/// The state of one replica's version of a piece.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceState {
    Live,
    /// Has a TTL that has not run out at now.
    Expiring,
    /// Has a TTL that has run out at now (reads as deleted).
    Expired,
    /// A cell tombstone.
    Tombstone,
    /// A partition, row, complex or range deletion.
    Deletion,
}

/// One replica's version of a piece.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct PieceVersion {
    pub state: PieceState,
    /// Cells: the value as cqlsh shows it (`None` for tombstones and deletions).
    pub value: Option<String>,
    /// The cell's or liveness' timestamp; markedForDeleteAt of deletions (a range boundary:
    /// of the deletion it opens).
    pub timestamp_micros: i64,
    pub ttl_secs: Option<i32>,
    /// Tombstones and deletions: the local deletion time; expiring pieces: when they expire.
    pub local_deletion_time_secs: Option<i64>,
    /// A range tombstone boundary: markedForDeleteAt of the deletion it closes.
    pub closes_micros: Option<i64>,
    /// Validation drops or rewrites this version at gcBefore (not hashed as shown).
    pub purged: bool,
}

/// As `sstable-inspect diff` and the page's "Compare replicas" word a version: its state, the
/// value, `@timestamp`, `ttl`, `ldt`, `closes @` a boundary's closed deletion, and whether
/// validation purges it.
impl core::fmt::Display for PieceVersion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.state)?;
        if let Some(value) = &self.value {
            write!(f, " {value}")?;
        }
        write!(f, " @{}", self.timestamp_micros)?;
        if let Some(ttl) = self.ttl_secs {
            write!(f, " ttl {ttl}")?;
        }
        if let Some(t) = self.local_deletion_time_secs {
            write!(f, " ldt {t}")?;
        }
        if let Some(c) = self.closes_micros {
            write!(f, " closes @{c}")?;
        }
        if self.purged {
            f.write_str(" (purged at gcBefore)")?;
        }
        Ok(())
    }
}

/// A piece on which the replicas differ (or, `differs: false`, a row deletion shown beside
/// the differing pieces of its row).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct PieceDiff {
    pub kind: PieceKind,
    pub is_static: bool,
    /// The row's clustering or the bound's values, as cqlsh shows them; empty for the
    /// partition deletion and the static row.
    pub clustering: Vec<String>,
    /// Range tombstone bounds: the bound's kind (`InclStartBound`, …).
    pub bound: Option<String>,
    pub column: Option<String>,
    /// Cells of complex columns: the element as cqlsh shows it.
    pub path: Option<String>,
    /// Per replica; `None` where the replica's merged partition has no such piece.
    pub versions: Vec<Option<PieceVersion>>,
    /// The replica whose version wins reconciliation (the first of equal ones).
    pub newest: Option<usize>,
    pub differs: bool,
}

/// Where a piece is: the partition, the static row, or a clustering (rows: `Clustering`;
/// markers: their bound kind).
#[derive(Debug, Clone)]
enum Position {
    Partition,
    Static,
    Clustering(Vec<ClusteringValueBuf>, ClusteringPrefixKind),
}

/// The raw piece, for deciding which version wins.
#[derive(Debug, Clone, Copy)]
enum Raw<'a> {
    Cell(&'a Cell),
    Liveness(&'a LivenessInfo),
    Deletion(&'a DeletionTime),
}

#[derive(Debug, Clone)]
struct Entry<'a> {
    position: Position,
    kind: PieceKind,
    bound: Option<ClusteringPrefixKind>,
    column: Option<String>,
    path: Option<Vec<u8>>,
    replica: usize,
    /// From the purged partition (what is hashed) or the merged one (what is shown).
    hashed: bool,
    version: PieceVersion,
    raw: Raw<'a>,
}

struct Collector<'a, 's> {
    schema: &'s DataSchema,
    now_secs: i64,
    out: Vec<Entry<'a>>,
}

fn cell_state(c: &Cell) -> PieceState {
    match c.kind {
        CellKind::Live => PieceState::Live,
        CellKind::Expiring => PieceState::Expiring,
        CellKind::Expired => PieceState::Expired,
        CellKind::Tombstone => PieceState::Tombstone,
    }
}

fn deletion_version(d: &DeletionTime) -> PieceVersion {
    PieceVersion {
        state: PieceState::Deletion,
        value: None,
        timestamp_micros: d.marked_for_delete_at_micros,
        ttl_secs: None,
        local_deletion_time_secs: Some(d.local_deletion_time.secs),
        closes_micros: None,
        purged: false,
    }
}

impl<'a> Collector<'a, '_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        position: &Position,
        kind: PieceKind,
        column: Option<String>,
        path: Option<Vec<u8>>,
        (replica, hashed): (usize, bool),
        version: PieceVersion,
        raw: Raw<'a>,
    ) {
        let bound = match position {
            Position::Clustering(_, k) if kind == PieceKind::RangeTombstoneBound => Some(*k),
            _ => None,
        };
        self.out.push(Entry {
            position: position.clone(),
            kind,
            bound,
            column,
            path,
            replica,
            hashed,
            version,
            raw,
        });
    }

    fn column_name(&self, is_static: bool, index: usize) -> String {
        self.schema
            .columns(is_static)
            .get(index)
            .map_or_else(|| format!("column #{index}"), |c| c.name.clone())
    }

    fn cell_version(&self, is_static: bool, c: &Cell) -> PieceVersion {
        let column = self.schema.columns(is_static).get(c.column_index);
        let value = match (c.kind, column) {
            (CellKind::Tombstone, _) => None,
            // A set element's value is empty: the element is its path.
            (_, Some(col)) if c.path.is_some() => match &col.column_type.base() {
                crate::types::AbstractType::Set { .. } => None,
                _ => Some(format_value(&value_type(&col.column_type), &c.value.bytes).text),
            },
            (_, Some(col)) => Some(format_value(&col.column_type, &c.value.bytes).text),
            (_, None) => Some(crate::span::hex(&c.value.bytes)),
        };
        PieceVersion {
            state: cell_state(c),
            value,
            timestamp_micros: c.timestamp_micros,
            ttl_secs: c.ttl_secs,
            local_deletion_time_secs: c.local_deletion_time.map(|l| l.secs),
            closes_micros: None,
            purged: false,
        }
    }

    fn row(&mut self, row: &'a Row, replica: (usize, bool)) {
        let position = match &row.clustering {
            Some(c) if !row.is_static => {
                Position::Clustering(c.values.clone(), ClusteringPrefixKind::Clustering)
            }
            _ => Position::Static,
        };
        if let Some(d) = &row.deletion {
            let v = deletion_version(&d.time);
            self.push(
                &position,
                PieceKind::RowDeletion,
                None,
                None,
                replica,
                v,
                Raw::Deletion(&d.time),
            );
        }
        if let Some(l) = &row.liveness {
            let expiry = l
                .local_expiration_time
                .as_ref()
                .map(|e| e.value.expiry_secs());
            let state = match expiry {
                _ if l.is_expired_liveness() => PieceState::Expired,
                Some(e) if e <= self.now_secs => PieceState::Expired,
                Some(_) => PieceState::Expiring,
                None => PieceState::Live,
            };
            let v = PieceVersion {
                state,
                value: None,
                timestamp_micros: l.timestamp_micros.value,
                ttl_secs: l.ttl_secs.as_ref().map(|t| t.value),
                local_deletion_time_secs: expiry,
                closes_micros: None,
                purged: false,
            };
            self.push(
                &position,
                PieceKind::Liveness,
                None,
                None,
                replica,
                v,
                Raw::Liveness(l),
            );
        }
        for data in &row.column_data {
            if let ColumnData::Complex(c) = data {
                if let Some(d) = c
                    .complex_deletion
                    .as_ref()
                    .filter(|d| !super::purge::is_live(d))
                {
                    let name = self.column_name(row.is_static, c.column_index);
                    let v = deletion_version(d);
                    self.push(
                        &position,
                        PieceKind::ComplexDeletion,
                        Some(name),
                        None,
                        replica,
                        v,
                        Raw::Deletion(d),
                    );
                }
            }
            for cell in data.cells() {
                let name = self.column_name(row.is_static, cell.column_index);
                let path = cell.path.as_ref().map(|p| p.bytes.clone());
                let v = self.cell_version(row.is_static, cell);
                self.push(
                    &position,
                    PieceKind::Cell,
                    Some(name),
                    path,
                    replica,
                    v,
                    Raw::Cell(cell),
                );
            }
        }
    }

    fn partition(&mut self, p: &'a MergedPartition, replica: (usize, bool)) {
        let d = &p.start.deletion;
        if !super::purge::is_live(d) {
            let v = deletion_version(d);
            let at = Position::Partition;
            self.push(
                &at,
                PieceKind::PartitionDeletion,
                None,
                None,
                replica,
                v,
                Raw::Deletion(d),
            );
        }
        if let Some(s) = &p.static_row {
            self.row(&s.row, replica);
        }
        for u in &p.unfiltereds {
            match u {
                MergedUnfiltered::Row(r) => self.row(&r.row, replica),
                MergedUnfiltered::Marker(m) => {
                    let b = &m.marker.bound;
                    let at = Position::Clustering(b.values.clone(), b.kind);
                    let (opens, closes) = match &m.marker.deletion {
                        MarkerDeletion::Bound(d) if b.kind.is_start() => (d, None),
                        MarkerDeletion::Bound(d) => (d, None),
                        MarkerDeletion::Boundary { end, start } => (start, Some(end)),
                    };
                    let mut v = deletion_version(opens);
                    v.closes_micros = closes.map(|d| d.marked_for_delete_at_micros);
                    self.push(
                        &at,
                        PieceKind::RangeTombstoneBound,
                        None,
                        None,
                        replica,
                        v,
                        Raw::Deletion(opens),
                    );
                }
            }
        }
    }
}

/// The type a complex column's cell values have (a map's value, a list's element, a UDT's
/// field: rendered per its column type otherwise).
fn value_type(t: &crate::types::AbstractType) -> crate::types::AbstractType {
    use crate::types::AbstractType;
    match t.base() {
        AbstractType::Map { value, .. } => (**value).clone(),
        AbstractType::List { element, .. } => (**element).clone(),
        other => other.clone(),
    }
}

fn compare_positions(types: &[crate::types::AbstractType], a: &Position, b: &Position) -> Ordering {
    match (a, b) {
        (Position::Partition, Position::Partition) | (Position::Static, Position::Static) => {
            Ordering::Equal
        }
        (Position::Partition, _) => Ordering::Less,
        (_, Position::Partition) => Ordering::Greater,
        (Position::Static, _) => Ordering::Less,
        (_, Position::Static) => Ordering::Greater,
        (Position::Clustering(av, ak), Position::Clustering(bv, bk)) => {
            compare_clusterings(types, (av, *ak), (bv, *bk))
        }
    }
}

fn compare_entries(types: &[crate::types::AbstractType], a: &Entry<'_>, b: &Entry<'_>) -> Ordering {
    compare_positions(types, &a.position, &b.position)
        .then_with(|| a.kind.cmp(&b.kind))
        .then_with(|| a.column.cmp(&b.column))
        .then_with(|| a.path.cmp(&b.path))
}

/// Whether `a` wins reconciliation over `b` (both of one piece).
fn wins(a: Raw<'_>, b: Raw<'_>) -> bool {
    match (a, b) {
        (Raw::Cell(x), Raw::Cell(y)) => cell_wins(y, x),
        (Raw::Liveness(x), Raw::Liveness(y)) => liveness_supersedes(x, y),
        (Raw::Deletion(x), Raw::Deletion(y)) => deletion_supersedes(x, y),
        _ => false,
    }
}

/// One replica's side of a differing partition: its merged partition (what its read shows)
/// and that partition purged at gcBefore (what validation hashes; `None` when purged to
/// nothing). `None` for a replica that does not hold the partition.
pub type ReplicaSide<'a> = Option<(&'a MergedPartition, Option<&'a MergedPartition>)>;

/// The pieces on which the replicas' validated partitions differ (see the [module
/// docs](self)), in clustering order. `schemas[i]` is replica `i`'s merge schema (column
/// names and value types); clusterings are compared and rendered with the first one's types.
pub fn partition_pieces(
    sides: &[ReplicaSide<'_>],
    schemas: &[&DataSchema],
    now_secs: i64,
) -> Vec<PieceDiff> {
    let Some(first_schema) = schemas.first() else {
        return Vec::new();
    };
    let types = &first_schema.clustering_types;
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for (replica, side) in sides.iter().enumerate() {
        let (Some((merged, purged)), Some(schema)) = (side, schemas.get(replica)) else {
            continue;
        };
        let mut c = Collector {
            schema,
            now_secs,
            out: Vec::new(),
        };
        c.partition(merged, (replica, false));
        if let Some(p) = purged {
            c.partition(p, (replica, true));
        }
        entries.append(&mut c.out);
    }
    crate::sort::sort_by(&mut entries, |a, b| compare_entries(types, a, b));
    let n = sides.len();
    let mut pieces = Vec::new();
    let mut rest = entries.as_slice();
    while let Some(head) = rest.first() {
        let len = rest
            .iter()
            .position(|e| compare_entries(types, head, e) != Ordering::Equal)
            .unwrap_or(rest.len());
        let (group, tail) = rest.split_at(len);
        rest = tail;
        let mut shown: Vec<Option<&Entry<'_>>> = vec![None; n];
        let mut hashed: Vec<Option<&PieceVersion>> = vec![None; n];
        for e in group {
            if e.hashed {
                if let Some(h) = hashed.get_mut(e.replica) {
                    *h = Some(&e.version);
                }
            } else if let Some(s) = shown.get_mut(e.replica) {
                *s = Some(e);
            }
        }
        let differs = hashed
            .iter()
            .any(|h| *h != hashed.first().copied().flatten());
        pieces.push((head, differs, shown, hashed));
    }
    // Row deletions beside differing pieces of their row.
    let differing_rows: Vec<Position> = pieces
        .iter()
        .filter(|(h, d, _, _)| *d && !matches!(h.position, Position::Partition))
        .map(|(h, _, _, _)| h.position.clone())
        .collect();
    let mut out = Vec::new();
    for (head, differs, shown, hashed) in pieces {
        let context = !differs
            && head.kind == PieceKind::RowDeletion
            && differing_rows
                .iter()
                .any(|p| compare_positions(types, p, &head.position) == Ordering::Equal);
        if !differs && !context {
            continue;
        }
        let mut newest: Option<(usize, Raw<'_>)> = None;
        for (i, s) in shown.iter().enumerate() {
            if let Some(e) = s {
                if newest.is_none_or(|(_, r)| wins(e.raw, r)) {
                    newest = Some((i, e.raw));
                }
            }
        }
        let versions = shown
            .iter()
            .zip(&hashed)
            .map(|(s, h)| {
                s.map(|e| {
                    let mut v = e.version.clone();
                    v.purged = *h != Some(&e.version);
                    v
                })
            })
            .collect();
        let (clustering, is_static) = match &head.position {
            Position::Partition => (Vec::new(), false),
            Position::Static => (Vec::new(), true),
            Position::Clustering(values, _) => (render(types, values), false),
        };
        let path = head.path.as_ref().map(|p| {
            let column = head.column.as_deref().and_then(|name| {
                first_schema
                    .columns(is_static)
                    .iter()
                    .find(|c| c.name == name)
            });
            match column {
                Some(c) => format_cell_path(&c.column_type, p),
                None => crate::span::hex(p),
            }
        });
        out.push(PieceDiff {
            kind: head.kind,
            is_static,
            clustering,
            bound: head.bound.map(|k| format!("{k:?}")),
            column: head.column.clone(),
            path,
            versions,
            newest: newest.map(|(i, _)| i),
            differs,
        });
    }
    out
}

fn render(types: &[crate::types::AbstractType], values: &[ClusteringValueBuf]) -> Vec<String> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| match types.get(i) {
            Some(t) => format_value(t, &v.bytes).text,
            None => crate::span::hex(&v.bytes),
        })
        .collect()
}
