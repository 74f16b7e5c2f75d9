//! One partition's versions from several SSTables merged into one, with where each surviving
//! piece came from and, for each piece that lost, what beat it.
//!
//! | step | rule | Src |
//! |---|---|---|
//! | partition deletion | the superseding one of all versions | `db/DeletionTime.java` |
//! | range tombstones | per SSTable the deletion open at each bound; the merged range deletion is the superseding open one that also supersedes the partition deletion; a bound, or a boundary, is written where it changes | `db/rows/RangeTombstoneMarker.java` `Merger` |
//! | rows of one clustering | row deletion: the superseding one, kept only if it supersedes the deletion over the row (partition or range); liveness: the superseding one, unless that deletion deletes it; each simple column's cells reconciled, then dropped if deleted | `db/rows/Rows.java` `merge`, `db/rows/Row.java` `Merger` |
//! | complex columns | complex deletion: the superseding one, kept only if it supersedes the row's deletion; the cells of each path reconciled, then dropped if deleted by the column's deletion | `db/rows/ComplexColumnData.java`, `Row.Merger.ColumnDataReducer` |
//! | empty rows | a merged row with no liveness, deletion or cell is not written | `Row.Merger.merge` |
//!
//! Expired cells and liveness (at the caller's `now`) stay in the merged rows, marked expired as
//! sstabledump marks them; the losses list them with [`Beaten::Expired`].

use core::cmp::Ordering;

use serde::Serialize;

use super::counter::{resolve_counter, CounterResolution};
use super::reconcile::{
    cell_wins, compare_clusterings, compare_paths, deletes, deletion_supersedes, is_counter_pair,
    liveness_supersedes, same_deletion, sorts_before_clusterings,
};
use crate::component::data::{
    Cell, CellKind, ClusteringPrefixKind, ClusteringValueBuf, ColumnData, ComplexColumn, DataItem,
    DataSchema, DeletionTime, MarkerDeletion, PartitionEnd, PartitionStart, RangeTombstoneMarker,
    Row,
};
use crate::span::Spanned;

/// The index of an SSTable in the merge (the order the inputs were given in).
pub type SourceId = usize;

/// Which tombstone shadowed something.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TombstoneKind {
    Partition,
    RangeTombstone,
    Row,
    ComplexDeletion,
    /// A cell tombstone of a counter column (it beats live counter cells whatever their
    /// timestamps).
    CellTombstone,
}

/// A deletion over data, and the SSTable it came from.
#[derive(Debug, Clone, PartialEq)]
struct Shadow {
    time: DeletionTime,
    source: SourceId,
    kind: TombstoneKind,
}

/// What a losing piece was.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LostKind {
    Cell,
    Liveness,
    RowDeletion,
    ComplexDeletion,
    RangeTombstone,
    PartitionDeletion,
}

/// What beat a losing piece.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub enum Beaten {
    /// A version that wins its reconciliation (a newer cell, liveness or deletion).
    Newer {
        source: SourceId,
        timestamp_micros: i64,
    },
    /// A tombstone whose markedForDeleteAt is at or after the piece's timestamp.
    Tombstone {
        kind: TombstoneKind,
        source: SourceId,
        marked_for_delete_at_micros: i64,
    },
    /// The piece won, but its TTL has run out at `now` (it reads as deleted).
    Expired { expires_at_secs: i64 },
}

/// One piece that does not show in a read, with what beat it.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Loss {
    pub what: LostKind,
    pub source: SourceId,
    pub is_static: bool,
    /// The row's clustering (or the marker's bound), empty for partition-level pieces.
    pub clustering: Vec<ClusteringValueBuf>,
    /// The column's name, for cells and complex deletions.
    pub column: Option<String>,
    /// The cell path in hex, for cells of complex columns.
    pub path: Option<String>,
    /// The piece's timestamp (markedForDeleteAt for deletions).
    pub timestamp_micros: i64,
    pub beaten_by: Beaten,
}

/// A merged row with the SSTable of each of its parts.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MergedRow {
    pub row: Row,
    /// Every SSTable that holds a version of the row.
    pub sources: Vec<SourceId>,
    pub liveness_source: Option<SourceId>,
    pub deletion_source: Option<SourceId>,
    /// One entry per cell, in [`Row::cells`] order.
    pub cell_sources: Vec<SourceId>,
    /// (column index, SSTable) of each complex deletion kept.
    pub complex_deletion_sources: Vec<(usize, SourceId)>,
}

/// A merged range tombstone bound or boundary: the SSTables of the deletion it closes and of
/// the one it opens.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MergedMarker {
    pub marker: RangeTombstoneMarker,
    pub end_source: Option<SourceId>,
    pub start_source: Option<SourceId>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub enum MergedUnfiltered {
    Row(Box<MergedRow>),
    Marker(Box<MergedMarker>),
}

/// One partition as a read of the whole table sees it.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct MergedPartition {
    /// The first holding SSTable's partition header, with the merged deletion.
    pub start: PartitionStart,
    pub end: PartitionEnd,
    /// Every SSTable that holds the partition.
    pub sources: Vec<SourceId>,
    pub deletion_source: Option<SourceId>,
    pub static_row: Option<MergedRow>,
    pub unfiltereds: Vec<MergedUnfiltered>,
    /// What lost, and to what (filled when the merge explains).
    pub losses: Vec<Loss>,
    /// Counter cells whose versions were merged shard by shard (`CounterContext.merge`).
    pub counter_merges: u64,
}

impl MergedPartition {
    /// The merged partition as Data.db items (partition start, static row, rows and markers,
    /// end), e.g. for [`crate::dump::PartitionBuilder`].
    pub fn to_items(&self) -> Vec<DataItem> {
        let mut items = vec![DataItem::PartitionStart(self.start.clone())];
        if let Some(s) = &self.static_row {
            items.push(DataItem::StaticRow(s.row.clone()));
        }
        for u in &self.unfiltereds {
            items.push(match u {
                MergedUnfiltered::Row(r) => DataItem::Row(r.row.clone()),
                MergedUnfiltered::Marker(m) => DataItem::RangeTombstoneMarker(m.marker.clone()),
            });
        }
        items.push(DataItem::PartitionEnd(self.end.clone()));
        items
    }
}

/// One SSTable's version of a partition, its column indexes already the merge schema's.
#[derive(Debug, Clone)]
pub(crate) struct SourcePartition {
    pub source: SourceId,
    pub start: PartitionStart,
    pub static_row: Option<Row>,
    /// Rows and markers in clustering order.
    pub unfiltereds: Vec<DataItem>,
    pub end: PartitionEnd,
}

/// What a partition merge needs besides its inputs.
pub(crate) struct Context<'s> {
    pub schema: &'s DataSchema,
    pub now_seconds: Option<i64>,
    pub explain: bool,
    losses: Vec<Loss>,
    counter_merges: u64,
}

impl<'s> Context<'s> {
    pub fn new(schema: &'s DataSchema, now_seconds: Option<i64>, explain: bool) -> Self {
        Context {
            schema,
            now_seconds,
            explain,
            losses: Vec::new(),
            counter_merges: 0,
        }
    }

    fn lose(&mut self, loss: Loss) {
        if self.explain {
            self.losses.push(loss);
        }
    }
}

fn beaten_by_shadow(s: &Shadow) -> Beaten {
    Beaten::Tombstone {
        kind: s.kind,
        source: s.source,
        marked_for_delete_at_micros: s.time.marked_for_delete_at_micros,
    }
}

/// A deletion and the SSTable it came from.
type Sourced = (SourceId, DeletionTime);

/// The superseding deletion of `candidates` (first one kept on ties), ignoring those that
/// delete nothing; the others are returned as losers.
fn best_deletion(candidates: Vec<(SourceId, DeletionTime)>) -> (Option<Sourced>, Vec<Sourced>) {
    let mut best: Option<(SourceId, DeletionTime)> = None;
    let mut losers = Vec::new();
    for (s, d) in candidates.into_iter().filter(|(_, d)| !d.deletes_nothing()) {
        match best.take() {
            Some(b) if !deletion_supersedes(&d, &b.1) => {
                losers.push((s, d));
                best = Some(b);
            }
            Some(b) => {
                losers.push(b);
                best = Some((s, d));
            }
            None => best = Some((s, d)),
        }
    }
    (best, losers)
}

/// Merges one partition's versions (at least one; `parts` in source order).
pub(crate) fn merge_partition(
    mut parts: Vec<SourcePartition>,
    ctx: &mut Context<'_>,
) -> Option<MergedPartition> {
    let first = parts.first()?;
    let mut start = first.start.clone();
    let end = first.end.clone();
    let sources: Vec<SourceId> = parts.iter().map(|p| p.source).collect();

    let (best, losers) = best_deletion(
        parts
            .iter()
            .map(|p| (p.source, p.start.deletion.clone()))
            .collect(),
    );
    let partition_shadow = best.as_ref().map(|(s, d)| Shadow {
        time: d.clone(),
        source: *s,
        kind: TombstoneKind::Partition,
    });
    for (s, d) in losers {
        if let Some((bs, bd)) = &best {
            if !same_deletion(&d, bd) {
                ctx.lose(partition_loss(LostKind::PartitionDeletion, s, &d, *bs, bd));
            }
        }
    }
    if let Some((_, d)) = &best {
        start.deletion = d.clone();
    } else if let Some(live) = parts
        .iter()
        .map(|p| &p.start.deletion)
        .find(|d| d.deletes_nothing())
    {
        start.deletion = live.clone();
    }

    let statics: Vec<(SourceId, Row)> = parts
        .iter_mut()
        .filter_map(|p| p.static_row.take().map(|r| (p.source, r)))
        .collect();
    let static_row = if statics.is_empty() {
        None
    } else {
        merge_rows(statics, partition_shadow.as_ref(), ctx)
    };

    let mut events: Vec<(SourceId, DataItem)> = Vec::new();
    for p in &mut parts {
        events.extend(p.unfiltereds.drain(..).map(|u| (p.source, u)));
    }
    let types = &ctx.schema.clustering_types;
    events.sort_by(|a, b| compare_items(types, &a.1, &b.1));
    let unfiltereds = merge_unfiltereds(events, partition_shadow.as_ref(), ctx);

    Some(MergedPartition {
        start,
        end,
        sources,
        deletion_source: best.map(|(s, _)| s),
        static_row,
        unfiltereds,
        losses: core::mem::take(&mut ctx.losses),
        counter_merges: core::mem::take(&mut ctx.counter_merges),
    })
}

fn partition_loss(
    what: LostKind,
    s: SourceId,
    d: &DeletionTime,
    bs: SourceId,
    bd: &DeletionTime,
) -> Loss {
    Loss {
        what,
        source: s,
        is_static: false,
        clustering: Vec::new(),
        column: None,
        path: None,
        timestamp_micros: d.marked_for_delete_at_micros,
        beaten_by: Beaten::Newer {
            source: bs,
            timestamp_micros: bd.marked_for_delete_at_micros,
        },
    }
}

fn item_prefix(item: &DataItem) -> (&[ClusteringValueBuf], ClusteringPrefixKind) {
    match item {
        DataItem::Row(r) | DataItem::StaticRow(r) => r
            .clustering
            .as_ref()
            .map_or((&[][..], ClusteringPrefixKind::StaticClustering), |c| {
                (c.values.as_slice(), ClusteringPrefixKind::Clustering)
            }),
        DataItem::RangeTombstoneMarker(m) => (m.bound.values.as_slice(), m.bound.kind),
        DataItem::PartitionStart(_) | DataItem::PartitionEnd(_) => {
            (&[][..], ClusteringPrefixKind::StaticClustering)
        }
    }
}

fn compare_items(types: &[crate::types::AbstractType], a: &DataItem, b: &DataItem) -> Ordering {
    compare_clusterings(types, item_prefix(a), item_prefix(b))
}

/// The deletion a marker leaves open after it (`openDeletionTime`), if any.
fn open_after(m: &RangeTombstoneMarker) -> Option<DeletionTime> {
    match &m.deletion {
        MarkerDeletion::Bound(d) => m.bound.kind.is_start().then(|| d.clone()),
        MarkerDeletion::Boundary { start, .. } => Some(start.clone()),
    }
}

/// The shadow over a row: the range deletion when it supersedes the partition's, else that.
fn outer_shadow(
    range: Option<&(SourceId, DeletionTime)>,
    partition: Option<&Shadow>,
) -> Option<Shadow> {
    match (range, partition) {
        (Some((s, d)), p) if p.is_none_or(|p| deletion_supersedes(d, &p.time)) => Some(Shadow {
            time: d.clone(),
            source: *s,
            kind: TombstoneKind::RangeTombstone,
        }),
        (_, p) => p.cloned(),
    }
}

fn merge_unfiltereds(
    events: Vec<(SourceId, DataItem)>,
    partition: Option<&Shadow>,
    ctx: &mut Context<'_>,
) -> Vec<MergedUnfiltered> {
    let types = ctx.schema.clustering_types.clone();
    let mut out = Vec::new();
    // Per SSTable, the range deletion open at the current position.
    let mut open: Vec<(SourceId, DeletionTime)> = Vec::new();
    let mut current: Option<(SourceId, DeletionTime)> = None;
    let mut iter = events.into_iter().peekable();
    while let Some(first) = iter.next() {
        let mut group = vec![first];
        while let Some(next) = iter.peek() {
            let same = group
                .first()
                .is_some_and(|g| compare_items(&types, &g.1, &next.1) == Ordering::Equal);
            if !same {
                break;
            }
            if let Some(n) = iter.next() {
                group.push(n);
            }
        }
        let is_rows = matches!(group.first(), Some((_, DataItem::Row(_))));
        if is_rows {
            let rows: Vec<(SourceId, Row)> = group
                .into_iter()
                .filter_map(|(s, i)| match i {
                    DataItem::Row(r) => Some((s, r)),
                    _ => None,
                })
                .collect();
            let outer = outer_shadow(current.as_ref(), partition);
            if let Some(r) = merge_rows(rows, outer.as_ref(), ctx) {
                out.push(MergedUnfiltered::Row(Box::new(r)));
            }
            continue;
        }
        let mut template: Option<RangeTombstoneMarker> = None;
        for (s, item) in group {
            let DataItem::RangeTombstoneMarker(m) = item else {
                continue;
            };
            open.retain(|(o, _)| *o != s);
            if let Some(d) = open_after(&m) {
                if let Some(p) = partition.filter(|p| !deletion_supersedes(&d, &p.time)) {
                    ctx.lose(marker_loss(s, &m, &d, beaten_by_shadow(p)));
                }
                open.push((s, d));
            }
            template.get_or_insert(m);
        }
        let Some(template) = template else {
            continue;
        };
        let (best, _) = best_deletion(
            open.iter()
                .filter(|(_, d)| partition.is_none_or(|p| deletion_supersedes(d, &p.time)))
                .cloned()
                .collect(),
        );
        for (s, d) in &open {
            if let Some((bs, bd)) = &best {
                if *s != *bs
                    && !same_deletion(d, bd)
                    && partition.is_none_or(|p| deletion_supersedes(d, &p.time))
                {
                    ctx.lose(marker_loss(
                        *s,
                        &template,
                        d,
                        Beaten::Tombstone {
                            kind: TombstoneKind::RangeTombstone,
                            source: *bs,
                            marked_for_delete_at_micros: bd.marked_for_delete_at_micros,
                        },
                    ));
                }
            }
        }
        let changed = match (&current, &best) {
            (None, None) => false,
            (Some((_, a)), Some((_, b))) => !same_deletion(a, b),
            _ => true,
        };
        if changed {
            out.push(MergedUnfiltered::Marker(Box::new(emit_marker(
                template,
                current.as_ref(),
                best.as_ref(),
            ))));
            current = best;
        }
    }
    out
}

fn marker_loss(s: SourceId, m: &RangeTombstoneMarker, d: &DeletionTime, beaten_by: Beaten) -> Loss {
    Loss {
        what: LostKind::RangeTombstone,
        source: s,
        is_static: false,
        clustering: m.bound.values.clone(),
        column: None,
        path: None,
        timestamp_micros: d.marked_for_delete_at_micros,
        beaten_by,
    }
}

/// The merged marker where the range deletion changes from `before` to `after`, at the
/// position of `template` (a bound or boundary of one of the SSTables).
fn emit_marker(
    mut template: RangeTombstoneMarker,
    before: Option<&(SourceId, DeletionTime)>,
    after: Option<&(SourceId, DeletionTime)>,
) -> MergedMarker {
    use ClusteringPrefixKind::*;
    let first_side = sorts_before_clusterings(template.bound.kind);
    let (kind, deletion) = match (before, after) {
        (None, Some((_, d))) => (
            if first_side {
                InclStartBound
            } else {
                ExclStartBound
            },
            MarkerDeletion::Bound(d.clone()),
        ),
        (Some((_, d)), None) => (
            if first_side {
                ExclEndBound
            } else {
                InclEndBound
            },
            MarkerDeletion::Bound(d.clone()),
        ),
        (Some((_, e)), Some((_, s))) => (
            if first_side {
                ExclEndInclStartBoundary
            } else {
                InclEndExclStartBoundary
            },
            MarkerDeletion::Boundary {
                end: e.clone(),
                start: s.clone(),
            },
        ),
        (None, None) => (template.bound.kind, template.deletion.clone()),
    };
    template.bound.kind = kind;
    template.deletion = deletion;
    MergedMarker {
        marker: template,
        end_source: before.map(|(s, _)| *s),
        start_source: after.map(|(s, _)| *s),
    }
}

fn column_name(ctx: &Context<'_>, is_static: bool, index: usize) -> String {
    ctx.schema
        .columns(is_static)
        .get(index)
        .map_or_else(|| format!("column #{index}"), |c| c.name.clone())
}

fn cell_loss(
    ctx: &Context<'_>,
    is_static: bool,
    clustering: &[ClusteringValueBuf],
    s: SourceId,
    c: &Cell,
    beaten_by: Beaten,
) -> Loss {
    Loss {
        what: LostKind::Cell,
        source: s,
        is_static,
        clustering: clustering.to_vec(),
        column: Some(column_name(ctx, is_static, c.column_index)),
        path: c.path.as_ref().map(|p| crate::span::hex(&p.bytes)),
        timestamp_micros: c.timestamp_micros,
        beaten_by,
    }
}

/// What beat a counter cell: a tombstone (whatever its timestamp), or a context that already
/// held its shards.
fn counter_beaten(source: SourceId, winner: &Cell) -> Beaten {
    if winner.is_tombstone() {
        Beaten::Tombstone {
            kind: TombstoneKind::CellTombstone,
            source,
            marked_for_delete_at_micros: winner.timestamp_micros,
        }
    } else {
        Beaten::Newer {
            source,
            timestamp_micros: winner.timestamp_micros,
        }
    }
}

/// The same cell content (timestamp, kind, times, path, value), wherever it was stored.
fn same_cell(a: &Cell, b: &Cell) -> bool {
    a.timestamp_micros == b.timestamp_micros
        && a.kind == b.kind
        && a.local_deletion_time.map(|l| l.secs) == b.local_deletion_time.map(|l| l.secs)
        && a.ttl_secs == b.ttl_secs
        && a.path.as_ref().map(|p| &p.bytes) == b.path.as_ref().map(|p| &p.bytes)
        && a.value.bytes == b.value.bytes
}

/// Reconciles the versions of one cell (`Cells.reconcile` folded over them), then applies
/// `shadow`; returns the surviving cell and its SSTable.
fn reconcile_cells(
    versions: Vec<(SourceId, Cell)>,
    shadow: Option<&Shadow>,
    is_static: bool,
    clustering: &[ClusteringValueBuf],
    ctx: &mut Context<'_>,
) -> Option<(SourceId, Cell)> {
    let mut winner: Option<(SourceId, Cell)> = None;
    for (s, c) in versions {
        let Some((ws, wc)) = winner.take() else {
            winner = Some((s, c));
            continue;
        };
        let counter_column = ctx
            .schema
            .columns(is_static)
            .get(c.column_index)
            .is_some_and(|col| col.is_counter);
        if counter_column || is_counter_pair(&wc, &c) {
            if let Some(resolution) = resolve_counter(&wc, &c) {
                winner = Some(match resolution {
                    CounterResolution::Left => {
                        if !same_cell(&wc, &c) {
                            let loss = cell_loss(
                                ctx,
                                is_static,
                                clustering,
                                s,
                                &c,
                                counter_beaten(ws, &wc),
                            );
                            ctx.lose(loss);
                        }
                        (ws, wc)
                    }
                    CounterResolution::Right => {
                        if !same_cell(&wc, &c) {
                            let loss = cell_loss(
                                ctx,
                                is_static,
                                clustering,
                                ws,
                                &wc,
                                counter_beaten(s, &c),
                            );
                            ctx.lose(loss);
                        }
                        (s, c)
                    }
                    CounterResolution::Merged(merged) => {
                        ctx.counter_merges = ctx.counter_merges.saturating_add(1);
                        let newer = if c.timestamp_micros > wc.timestamp_micros {
                            s
                        } else {
                            ws
                        };
                        (newer, *merged)
                    }
                });
                continue;
            }
        }
        if cell_wins(&wc, &c) {
            let b = Beaten::Newer {
                source: s,
                timestamp_micros: c.timestamp_micros,
            };
            let loss = cell_loss(ctx, is_static, clustering, ws, &wc, b);
            ctx.lose(loss);
            winner = Some((s, c));
        } else {
            if !same_cell(&wc, &c) {
                let b = Beaten::Newer {
                    source: ws,
                    timestamp_micros: wc.timestamp_micros,
                };
                let loss = cell_loss(ctx, is_static, clustering, s, &c, b);
                ctx.lose(loss);
            }
            winner = Some((ws, wc));
        }
    }
    let (s, c) = winner?;
    if let Some(sh) = shadow.filter(|sh| deletes(&sh.time, c.timestamp_micros)) {
        let loss = cell_loss(ctx, is_static, clustering, s, &c, beaten_by_shadow(sh));
        ctx.lose(loss);
        return None;
    }
    if c.kind == CellKind::Expired {
        let expires_at_secs = c.local_deletion_time.map_or(0, |l| l.expiry_secs());
        let loss = cell_loss(
            ctx,
            is_static,
            clustering,
            s,
            &c,
            Beaten::Expired { expires_at_secs },
        );
        ctx.lose(loss);
    }
    Some((s, c))
}

/// `Rows.merge` of one clustering's versions under `outer` (the partition or range deletion).
fn merge_rows(
    rows: Vec<(SourceId, Row)>,
    outer: Option<&Shadow>,
    ctx: &mut Context<'_>,
) -> Option<MergedRow> {
    let (_, head) = rows.first()?;
    let mut merged = head.clone();
    merged.column_data = Vec::new();
    let is_static = head.is_static;
    let clustering: Vec<ClusteringValueBuf> = head
        .clustering
        .as_ref()
        .map(|c| c.values.clone())
        .unwrap_or_default();
    let sources: Vec<SourceId> = rows.iter().map(|(s, _)| *s).collect();
    let base_loss = |what: LostKind, s: SourceId, ts: i64, beaten_by: Beaten| Loss {
        what,
        source: s,
        is_static,
        clustering: clustering.clone(),
        column: None,
        path: None,
        timestamp_micros: ts,
        beaten_by,
    };

    // Row deletion.
    let (best, losers) = best_deletion(
        rows.iter()
            .filter_map(|(s, r)| r.deletion.as_ref().map(|d| (*s, d.time.clone())))
            .collect(),
    );
    for (s, d) in &losers {
        if let Some((bs, bd)) = &best {
            if !same_deletion(d, bd) {
                let b = Beaten::Newer {
                    source: *bs,
                    timestamp_micros: bd.marked_for_delete_at_micros,
                };
                ctx.lose(base_loss(
                    LostKind::RowDeletion,
                    *s,
                    d.marked_for_delete_at_micros,
                    b,
                ));
            }
        }
    }
    let mut deletion_source = None;
    let mut shadow = outer.cloned();
    merged.deletion = None;
    if let Some((bs, bd)) = best {
        match outer.filter(|o| !deletion_supersedes(&bd, &o.time)) {
            Some(o) => {
                let b = beaten_by_shadow(o);
                ctx.lose(base_loss(
                    LostKind::RowDeletion,
                    bs,
                    bd.marked_for_delete_at_micros,
                    b,
                ));
            }
            None => {
                merged.deletion = rows
                    .iter()
                    .find(|(s, _)| *s == bs)
                    .and_then(|(_, r)| r.deletion.clone());
                deletion_source = Some(bs);
                shadow = Some(Shadow {
                    time: bd,
                    source: bs,
                    kind: TombstoneKind::Row,
                });
            }
        }
    }

    // Primary key liveness.
    let mut liveness: Option<(SourceId, crate::component::data::LivenessInfo)> = None;
    for (s, r) in &rows {
        let Some(l) = &r.liveness else { continue };
        match liveness.take() {
            None => liveness = Some((*s, l.clone())),
            Some((ws, wl)) => {
                if liveness_supersedes(l, &wl) {
                    let b = Beaten::Newer {
                        source: *s,
                        timestamp_micros: l.timestamp_micros.value,
                    };
                    ctx.lose(base_loss(
                        LostKind::Liveness,
                        ws,
                        wl.timestamp_micros.value,
                        b,
                    ));
                    liveness = Some((*s, l.clone()));
                } else {
                    if wl != *l {
                        let b = Beaten::Newer {
                            source: ws,
                            timestamp_micros: wl.timestamp_micros.value,
                        };
                        ctx.lose(base_loss(
                            LostKind::Liveness,
                            *s,
                            l.timestamp_micros.value,
                            b,
                        ));
                    }
                    liveness = Some((ws, wl));
                }
            }
        }
    }
    let mut liveness_source = None;
    merged.liveness = None;
    if let Some((s, l)) = liveness {
        if let Some(sh) = shadow
            .as_ref()
            .filter(|sh| deletes(&sh.time, l.timestamp_micros.value))
        {
            ctx.lose(base_loss(
                LostKind::Liveness,
                s,
                l.timestamp_micros.value,
                beaten_by_shadow(sh),
            ));
        } else {
            let expiry = l
                .local_expiration_time
                .as_ref()
                .map(|e| e.value.expiry_secs());
            if let Some(e) = expiry.filter(|e| ctx.now_seconds.is_some_and(|now| *e <= now)) {
                let b = Beaten::Expired { expires_at_secs: e };
                ctx.lose(base_loss(
                    LostKind::Liveness,
                    s,
                    l.timestamp_micros.value,
                    b,
                ));
            }
            merged.liveness = Some(l);
            liveness_source = Some(s);
        }
    }

    // Columns, in column order.
    let mut by_column: Vec<(usize, SourceId, ColumnData)> = Vec::new();
    for (s, r) in rows {
        by_column.extend(r.column_data.into_iter().map(|c| (c.column_index(), s, c)));
    }
    by_column.sort_by_key(|(i, _, _)| *i);
    let mut cell_sources = Vec::new();
    let mut complex_deletion_sources = Vec::new();
    let mut iter = by_column.into_iter().peekable();
    while let Some((index, s, data)) = iter.next() {
        let mut versions = vec![(s, data)];
        while let Some((_, s, d)) = iter.next_if(|(i, _, _)| *i == index) {
            versions.push((s, d));
        }
        let complex = versions
            .iter()
            .any(|(_, d)| matches!(d, ColumnData::Complex(_)));
        if !complex {
            let cells = versions
                .into_iter()
                .filter_map(|(s, d)| match d {
                    ColumnData::Simple(c) => Some((s, c)),
                    ColumnData::Complex(_) => None,
                })
                .collect();
            if let Some((s, c)) =
                reconcile_cells(cells, shadow.as_ref(), is_static, &clustering, ctx)
            {
                cell_sources.push(s);
                merged.column_data.push(ColumnData::Simple(c));
            }
            continue;
        }
        let merged_column = merge_complex(versions, shadow.as_ref(), is_static, &clustering, ctx);
        if let Some((column, deletion_src, sources)) = merged_column {
            if let Some(d) = deletion_src {
                complex_deletion_sources.push((index, d));
            }
            cell_sources.extend(sources);
            merged.column_data.push(ColumnData::Complex(column));
        }
    }

    if merged.liveness.is_none() && merged.deletion.is_none() && merged.column_data.is_empty() {
        return None;
    }
    Some(MergedRow {
        row: merged,
        sources,
        liveness_source,
        deletion_source,
        cell_sources,
        complex_deletion_sources,
    })
}

type MergedComplex = (ComplexColumn, Option<SourceId>, Vec<SourceId>);

/// One complex column's versions: its complex deletion, then each path's cells.
fn merge_complex(
    versions: Vec<(SourceId, ColumnData)>,
    shadow: Option<&Shadow>,
    is_static: bool,
    clustering: &[ClusteringValueBuf],
    ctx: &mut Context<'_>,
) -> Option<MergedComplex> {
    let mut columns: Vec<(SourceId, ComplexColumn)> = Vec::new();
    let mut cells: Vec<(SourceId, Cell)> = Vec::new();
    for (s, d) in versions {
        match d {
            ColumnData::Complex(mut c) => {
                cells.extend(c.cells.drain(..).map(|cell| (s, cell)));
                columns.push((s, c));
            }
            ColumnData::Simple(c) => cells.push((s, c)),
        }
    }
    let (_, template) = columns.first()?;
    let mut column = template.clone();
    let index = column.column_index;
    let (best, losers) = best_deletion(
        columns
            .iter()
            .filter_map(|(s, c)| c.complex_deletion.clone().map(|d| (*s, d)))
            .collect(),
    );
    let loss = |ctx: &Context<'_>, s: SourceId, d: &DeletionTime, b: Beaten| Loss {
        what: LostKind::ComplexDeletion,
        source: s,
        is_static,
        clustering: clustering.to_vec(),
        column: Some(column_name(ctx, is_static, index)),
        path: None,
        timestamp_micros: d.marked_for_delete_at_micros,
        beaten_by: b,
    };
    for (s, d) in &losers {
        if let Some((bs, bd)) = &best {
            if !same_deletion(d, bd) {
                let b = Beaten::Newer {
                    source: *bs,
                    timestamp_micros: bd.marked_for_delete_at_micros,
                };
                let l = loss(ctx, *s, d, b);
                ctx.lose(l);
            }
        }
    }
    let mut column_shadow = shadow.cloned();
    let mut deletion_source = None;
    column.complex_deletion = columns
        .iter()
        .map(|(_, c)| c.complex_deletion.clone())
        .find(|d| d.as_ref().is_some_and(DeletionTime::deletes_nothing))
        .flatten();
    if let Some((bs, bd)) = best {
        match shadow.filter(|o| !deletion_supersedes(&bd, &o.time)) {
            Some(o) => {
                let l = loss(ctx, bs, &bd, beaten_by_shadow(o));
                ctx.lose(l);
            }
            None => {
                column.complex_deletion = Some(bd.clone());
                deletion_source = Some(bs);
                column_shadow = Some(Shadow {
                    time: bd,
                    source: bs,
                    kind: TombstoneKind::ComplexDeletion,
                });
            }
        }
    }
    let path_type = ctx
        .schema
        .columns(is_static)
        .get(index)
        .and_then(|c| c.cell_path_type.clone());
    let path_of = |c: &Cell| c.path.as_ref().map(|p| p.bytes.clone()).unwrap_or_default();
    cells.sort_by(|a, b| compare_paths(path_type.as_ref(), &path_of(&a.1), &path_of(&b.1)));
    let mut out_cells = Vec::new();
    let mut out_sources = Vec::new();
    let mut iter = cells.into_iter().peekable();
    while let Some(first) = iter.next() {
        let path = path_of(&first.1);
        let mut group = vec![first];
        while let Some(n) = iter.next_if(|(_, c)| {
            compare_paths(path_type.as_ref(), &path_of(c), &path) == Ordering::Equal
        }) {
            group.push(n);
        }
        if let Some((s, c)) =
            reconcile_cells(group, column_shadow.as_ref(), is_static, clustering, ctx)
        {
            out_sources.push(s);
            out_cells.push(c);
        }
    }
    if column
        .complex_deletion
        .as_ref()
        .is_none_or(DeletionTime::deletes_nothing)
        && out_cells.is_empty()
    {
        return None;
    }
    column.cell_count = Spanned {
        value: out_cells.len() as u64,
        span: column.cell_count.span,
    };
    column.cells = out_cells;
    Some((column, deletion_source, out_sources))
}
