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

use super::context::{beaten_by_shadow, best_deletion, Context, Shadow};
use super::output::{
    Beaten, Loss, LostKind, MergedMarker, MergedPartition, MergedUnfiltered, SourceId,
    TombstoneKind,
};
use super::reconcile::{
    compare_clusterings, deletion_supersedes, same_deletion, sorts_before_clusterings,
};
use super::rows::merge_rows;
use crate::component::data::{
    ClusteringPrefixKind, ClusteringValueBuf, DataItem, DeletionTime, MarkerDeletion, PartitionEnd,
    PartitionStart, RangeTombstoneMarker, Row,
};
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

    let versions: Vec<(SourceId, Vec<DataItem>)> = parts
        .iter_mut()
        .map(|p| (p.source, core::mem::take(&mut p.unfiltereds)))
        .collect();
    let unfiltereds = merge_unfiltereds(versions, partition_shadow.as_ref(), ctx);

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

/// The versions' rows and markers, each version in clustering order, merged k-way: each
/// step takes the versions whose next item is at the smallest position, in source order
/// (`MergeIterator`, as `UnfilteredRowIterators.merge` reduces them).
struct Groups<'t> {
    types: &'t [crate::types::AbstractType],
    queues: Vec<(SourceId, std::vec::IntoIter<DataItem>)>,
    /// Per queue: whether its head is at this step's position.
    here: Vec<bool>,
}

impl Groups<'_> {
    fn next_group(&mut self) -> Option<Vec<(SourceId, DataItem)>> {
        let mut smallest: Option<&DataItem> = None;
        for (_, q) in &self.queues {
            if let Some(head) = q.as_slice().first() {
                if smallest.is_none_or(|m| compare_items(self.types, head, m) == Ordering::Less) {
                    smallest = Some(head);
                }
            }
        }
        let smallest = smallest?;
        for ((_, q), here) in self.queues.iter().zip(self.here.iter_mut()) {
            *here = q
                .as_slice()
                .first()
                .is_some_and(|h| compare_items(self.types, h, smallest) == Ordering::Equal);
        }
        let mut group = Vec::with_capacity(self.here.iter().filter(|h| **h).count());
        for ((s, q), here) in self.queues.iter_mut().zip(&self.here) {
            if !*here {
                continue;
            }
            // An invalid SSTable's rows of one clustering (scrub's duplicates) all join the
            // group, as the sorted versions would have them.
            while let Some(item) = q.next() {
                let next_equal = q
                    .as_slice()
                    .first()
                    .is_some_and(|n| compare_items(self.types, n, &item) == Ordering::Equal);
                group.push((*s, item));
                if !next_equal {
                    break;
                }
            }
        }
        Some(group)
    }
}

fn merge_unfiltereds(
    versions: Vec<(SourceId, Vec<DataItem>)>,
    partition: Option<&Shadow>,
    ctx: &mut Context<'_>,
) -> Vec<MergedUnfiltered> {
    let schema = ctx.schema;
    let types = &schema.clustering_types;
    let longest = versions.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
    let mut groups = Groups {
        types,
        here: vec![false; versions.len()],
        queues: versions
            .into_iter()
            .map(|(s, mut items)| {
                // A version out of clustering order (an invalid SSTable) is sorted first
                // (stably), so the groups are those of all versions' items sorted together.
                if !items.is_sorted_by(|a, b| compare_items(types, a, b) != Ordering::Greater) {
                    crate::sort::sort_by(&mut items, |a, b| compare_items(types, a, b));
                }
                (s, items.into_iter())
            })
            .collect(),
    };
    let mut out = Vec::with_capacity(longest);
    // Per SSTable, the range deletion open at the current position.
    let mut open: Vec<(SourceId, DeletionTime)> = Vec::new();
    let mut current: Option<(SourceId, DeletionTime)> = None;
    while let Some(group) = groups.next_group() {
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
