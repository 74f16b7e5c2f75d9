//! A merged partition as validation compaction hands it to the validator: tombstones and
//! expired cells whose local deletion time is before gcBefore removed, expired cells that are
//! not yet purgeable turned into tombstones, emptied rows and partitions dropped
//! (`db/rows/AbstractCell.java` `purge`, `db/rows/BTreeRow.java` `purge`,
//! `db/partitions/PurgeFunction.java`; validation purges every droppable tombstone).

use crate::component::data::{
    Cell, CellKind, ClusteringPrefixKind, ColumnData, DeletionTime, LivenessInfo,
    LocalDeletionTime, MarkerDeletion, Row,
};
use crate::merge::{MergedPartition, MergedUnfiltered};

/// `DeletionTime.isLive()` as validation reads it: markedForDeleteAt is `Long.MIN_VALUE`
/// (`LivenessInfo.NO_TIMESTAMP`).
pub(crate) fn is_live(d: &DeletionTime) -> bool {
    d.marked_for_delete_at_micros == i64::MIN
}

pub(super) fn purgeable(d: &DeletionTime, gc_before_secs: i64) -> bool {
    !is_live(d) && d.local_deletion_time.secs < gc_before_secs
}

/// `DeletionPurger.shouldPurge(LivenessInfo, now)`: expired at now, and before gcBefore.
pub(super) fn liveness_purged(l: &LivenessInfo, now_secs: i64, gc_before_secs: i64) -> bool {
    l.local_expiration_time
        .as_ref()
        .is_some_and(|e| e.value.secs <= now_secs && e.value.secs < gc_before_secs)
}

/// Whether [`purge_row`] drops or rewrites the cell: a tombstone before gcBefore, or an
/// expired cell (dropped, or turned into a tombstone).
pub(super) fn cell_changes(c: &Cell, gc_before_secs: i64) -> bool {
    match c.kind {
        CellKind::Tombstone => c
            .local_deletion_time
            .is_some_and(|l| l.secs < gc_before_secs),
        CellKind::Expired => true,
        CellKind::Live | CellKind::Expiring => false,
    }
}

fn row_changes(row: &Row, now_secs: i64, gc_before_secs: i64) -> bool {
    row.deletion
        .as_ref()
        .is_some_and(|d| purgeable(&d.time, gc_before_secs))
        || row
            .liveness
            .as_ref()
            .is_some_and(|l| liveness_purged(l, now_secs, gc_before_secs))
        || row.column_data.iter().any(|d| match d {
            ColumnData::Simple(c) => cell_changes(c, gc_before_secs),
            ColumnData::Complex(c) => {
                let deletion = c.complex_deletion.as_ref();
                deletion.is_some_and(|d| purgeable(d, gc_before_secs))
                    || (c.cells.is_empty() && deletion.is_none_or(is_live))
                    || c.cells.iter().any(|c| cell_changes(c, gc_before_secs))
            }
        })
        || (row.liveness.is_none() && row.deletion.is_none() && row.column_data.is_empty())
}

/// Whether [`purge_partition`] would change `p` at all (when it would not, the merged
/// partition is what validation hashes, and no purged copy is needed).
pub fn purge_changes(p: &MergedPartition, now_secs: i64, gc_before_secs: i64) -> bool {
    let empty = is_live(&p.start.deletion) && p.static_row.is_none() && p.unfiltereds.is_empty();
    empty
        || purgeable(&p.start.deletion, gc_before_secs)
        || p.static_row
            .as_ref()
            .is_some_and(|s| row_changes(&s.row, now_secs, gc_before_secs))
        || p.unfiltereds.iter().any(|u| match u {
            MergedUnfiltered::Row(r) => row_changes(&r.row, now_secs, gc_before_secs),
            MergedUnfiltered::Marker(m) => match &m.marker.deletion {
                MarkerDeletion::Bound(t) => purgeable(t, gc_before_secs),
                MarkerDeletion::Boundary { end, start } => {
                    purgeable(end, gc_before_secs) || purgeable(start, gc_before_secs)
                }
            },
        })
}

fn purge_row(mut row: Row, now_secs: i64, gc_before_secs: i64) -> Option<Row> {
    if row
        .deletion
        .as_ref()
        .is_some_and(|d| purgeable(&d.time, gc_before_secs))
    {
        row.deletion = None;
    }
    if row
        .liveness
        .as_ref()
        .is_some_and(|l| liveness_purged(l, now_secs, gc_before_secs))
    {
        row.liveness = None;
    }
    let purge_cell = |mut c: Cell| {
        if !cell_changes(&c, gc_before_secs) {
            return Some(c);
        }
        let ldt = c.local_deletion_time.map(|l| l.secs);
        match c.kind {
            CellKind::Tombstone if ldt.is_some_and(|t| t < gc_before_secs) => None,
            CellKind::Expired => {
                let t = ldt.unwrap_or(i64::MIN);
                if t < gc_before_secs {
                    return None;
                }
                // `AbstractCell.purge`: an expired cell not yet purgeable reads as a tombstone
                // deleted when it was written (localDeletionTime − ttl).
                let ttl = i64::from(c.ttl_secs.unwrap_or(0));
                if let Some(l) = &mut c.local_deletion_time {
                    l.secs = t.saturating_sub(ttl);
                    l.raw = u32::try_from(l.secs).unwrap_or(l.raw);
                }
                c.kind = CellKind::Tombstone;
                c.ttl_secs = None;
                c.value.bytes.clear();
                Some(c)
            }
            _ => Some(c),
        }
    };
    let mut data = Vec::with_capacity(row.column_data.len());
    for d in row.column_data {
        match d {
            ColumnData::Simple(c) => {
                if let Some(c) = purge_cell(c) {
                    data.push(ColumnData::Simple(c));
                }
            }
            ColumnData::Complex(mut c) => {
                if c.complex_deletion
                    .as_ref()
                    .is_some_and(|d| purgeable(d, gc_before_secs))
                {
                    c.complex_deletion = None;
                }
                c.cells = c.cells.into_iter().filter_map(purge_cell).collect();
                let live_deletion = c.complex_deletion.as_ref().is_some_and(|d| !is_live(d));
                if !c.cells.is_empty() || live_deletion {
                    data.push(ColumnData::Complex(c));
                }
            }
        }
    }
    row.column_data = data;
    let empty = row.liveness.is_none() && row.deletion.is_none() && row.column_data.is_empty();
    (!empty).then_some(row)
}

/// `p` purged at `gc_before_secs` (cells expired at `now_secs`); `None` when nothing is left.
pub fn purge_partition(
    mut p: MergedPartition,
    now_secs: i64,
    gc_before_secs: i64,
) -> Option<MergedPartition> {
    if purgeable(&p.start.deletion, gc_before_secs) {
        let unsigned = p.start.deletion.local_deletion_time.unsigned;
        p.start.deletion.marked_for_delete_at_micros = i64::MIN;
        p.start.deletion.local_deletion_time = LocalDeletionTime::none(unsigned);
    }
    if let Some(mut s) = p.static_row.take() {
        if let Some(r) = purge_row(s.row, now_secs, gc_before_secs) {
            s.row = r;
            p.static_row = Some(s);
        }
    }
    let mut kept = Vec::with_capacity(p.unfiltereds.len());
    for u in p.unfiltereds {
        match u {
            MergedUnfiltered::Row(mut r) => {
                if let Some(row) = purge_row(r.row, now_secs, gc_before_secs) {
                    r.row = row;
                    kept.push(MergedUnfiltered::Row(r));
                }
            }
            MergedUnfiltered::Marker(mut m) => {
                let keep = match m.marker.deletion.clone() {
                    MarkerDeletion::Bound(t) => !purgeable(&t, gc_before_secs),
                    MarkerDeletion::Boundary { end, start } => {
                        let (pe, ps) = (
                            purgeable(&end, gc_before_secs),
                            purgeable(&start, gc_before_secs),
                        );
                        // A boundary with one side purged is the other side's bound.
                        let inclusive_start =
                            m.marker.bound.kind == ClusteringPrefixKind::ExclEndInclStartBoundary;
                        match (pe, ps) {
                            (true, true) => false,
                            (true, false) => {
                                m.marker.bound.kind = if inclusive_start {
                                    ClusteringPrefixKind::InclStartBound
                                } else {
                                    ClusteringPrefixKind::ExclStartBound
                                };
                                m.marker.deletion = MarkerDeletion::Bound(start);
                                true
                            }
                            (false, true) => {
                                m.marker.bound.kind = if inclusive_start {
                                    ClusteringPrefixKind::ExclEndBound
                                } else {
                                    ClusteringPrefixKind::InclEndBound
                                };
                                m.marker.deletion = MarkerDeletion::Bound(end);
                                true
                            }
                            (false, false) => true,
                        }
                    }
                };
                if keep {
                    kept.push(MergedUnfiltered::Marker(m));
                }
            }
        }
    }
    p.unfiltereds = kept;
    let empty = is_live(&p.start.deletion) && p.static_row.is_none() && p.unfiltereds.is_empty();
    (!empty).then_some(p)
}
