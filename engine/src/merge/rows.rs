//! One clustering's rows merged (`Rows.merge`, `Row.Merger`): row deletion, primary key
//! liveness, each simple column's cells and each complex column's deletion and cells.

use core::cmp::Ordering;

use super::context::{beaten_by_shadow, best_deletion, Context, Shadow};
use super::counter::{resolve_counter, CounterResolution};
use super::output::{Beaten, Loss, LostKind, MergedRow, SourceId, TombstoneKind};
use super::reconcile::{
    cell_wins, compare_paths, deletes, deletion_supersedes, is_counter_pair, liveness_supersedes,
    same_deletion,
};
use crate::component::data::{
    Cell, CellKind, ClusteringValueBuf, ColumnData, ComplexColumn, DeletionTime, LivenessInfo, Row,
};
use crate::span::Spanned;

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

/// The same liveness (timestamp, TTL, expiry), wherever it was stored.
fn same_liveness(a: &LivenessInfo, b: &LivenessInfo) -> bool {
    a.timestamp_micros.value == b.timestamp_micros.value
        && a.ttl_secs.as_ref().map(|t| t.value) == b.ttl_secs.as_ref().map(|t| t.value)
        && a.local_expiration_time.as_ref().map(|e| e.value.secs)
            == b.local_expiration_time.as_ref().map(|e| e.value.secs)
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
/// `shadow`; returns the surviving cell and its SSTable. Nothing is allocated unless the merge
/// explains (the losses).
fn reconcile_cells(
    versions: impl IntoIterator<Item = (SourceId, Cell)>,
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
                        if ctx.explain && !same_cell(&wc, &c) {
                            ctx.lose_with(|ctx| {
                                let b = counter_beaten(ws, &wc);
                                cell_loss(ctx, is_static, clustering, s, &c, b)
                            });
                        }
                        (ws, wc)
                    }
                    CounterResolution::Right => {
                        if ctx.explain && !same_cell(&wc, &c) {
                            ctx.lose_with(|ctx| {
                                let b = counter_beaten(s, &c);
                                cell_loss(ctx, is_static, clustering, ws, &wc, b)
                            });
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
            ctx.lose_with(|ctx| {
                let b = Beaten::Newer {
                    source: s,
                    timestamp_micros: c.timestamp_micros,
                };
                cell_loss(ctx, is_static, clustering, ws, &wc, b)
            });
            winner = Some((s, c));
        } else {
            if ctx.explain && !same_cell(&wc, &c) {
                ctx.lose_with(|ctx| {
                    let b = Beaten::Newer {
                        source: ws,
                        timestamp_micros: wc.timestamp_micros,
                    };
                    cell_loss(ctx, is_static, clustering, s, &c, b)
                });
            }
            winner = Some((ws, wc));
        }
    }
    let (s, c) = winner?;
    if let Some(sh) = shadow.filter(|sh| deletes(&sh.time, c.timestamp_micros)) {
        ctx.lose_with(|ctx| cell_loss(ctx, is_static, clustering, s, &c, beaten_by_shadow(sh)));
        return None;
    }
    if c.kind == CellKind::Expired {
        let expires_at_secs = c.local_deletion_time.map_or(0, |l| l.expiry_secs());
        ctx.lose_with(|ctx| {
            let b = Beaten::Expired { expires_at_secs };
            cell_loss(ctx, is_static, clustering, s, &c, b)
        });
    }
    Some((s, c))
}

/// `Rows.merge` of one clustering's versions under `outer` (the partition or range deletion).
/// The merged row is the first version's, its column data replaced by the reconciled cells
/// (moved, never copied); a loss is built only when the merge explains.
pub(crate) fn merge_rows(
    rows: Vec<(SourceId, Row)>,
    outer: Option<&Shadow>,
    ctx: &mut Context<'_>,
) -> Option<MergedRow> {
    let (_, head) = rows.first()?;
    let is_static = head.is_static;
    let clustering: &[ClusteringValueBuf] = head
        .clustering
        .as_ref()
        .map_or(&[][..], |c| c.values.as_slice());
    let sources: Vec<SourceId> = rows.iter().map(|(s, _)| *s).collect();
    let base_loss = |what: LostKind, s: SourceId, ts: i64, beaten_by: Beaten| Loss {
        what,
        source: s,
        is_static,
        clustering: clustering.to_vec(),
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
    if ctx.explain {
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
    }
    let mut deletion_source = None;
    let mut shadow = outer.cloned();
    let mut merged_deletion = None;
    if let Some((bs, bd)) = best {
        match outer.filter(|o| !deletion_supersedes(&bd, &o.time)) {
            Some(o) => {
                ctx.lose_with(|_| {
                    let b = beaten_by_shadow(o);
                    base_loss(LostKind::RowDeletion, bs, bd.marked_for_delete_at_micros, b)
                });
            }
            None => {
                merged_deletion = rows
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
    let mut liveness: Option<(SourceId, &LivenessInfo)> = None;
    for (s, r) in &rows {
        let Some(l) = &r.liveness else { continue };
        match liveness.take() {
            None => liveness = Some((*s, l)),
            Some((ws, wl)) => {
                if liveness_supersedes(l, wl) {
                    ctx.lose_with(|_| {
                        let b = Beaten::Newer {
                            source: *s,
                            timestamp_micros: l.timestamp_micros.value,
                        };
                        base_loss(LostKind::Liveness, ws, wl.timestamp_micros.value, b)
                    });
                    liveness = Some((*s, l));
                } else {
                    if ctx.explain && !same_liveness(wl, l) {
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
    let mut merged_liveness = None;
    if let Some((s, l)) = liveness {
        if let Some(sh) = shadow
            .as_ref()
            .filter(|sh| deletes(&sh.time, l.timestamp_micros.value))
        {
            ctx.lose_with(|_| {
                let b = beaten_by_shadow(sh);
                base_loss(LostKind::Liveness, s, l.timestamp_micros.value, b)
            });
        } else {
            let expiry = l
                .local_expiration_time
                .as_ref()
                .map(|e| e.value.expiry_secs());
            if let Some(e) = expiry.filter(|e| ctx.now_seconds.is_some_and(|now| *e <= now)) {
                ctx.lose_with(|_| {
                    let b = Beaten::Expired { expires_at_secs: e };
                    base_loss(LostKind::Liveness, s, l.timestamp_micros.value, b)
                });
            }
            merged_liveness = Some(l.clone());
            liveness_source = Some(s);
        }
    }

    // The first version becomes the merged row; every version's column data is moved out.
    let single = rows.len() == 1;
    let mut versions = rows.into_iter();
    let (head_source, mut merged) = versions.next()?;
    merged.deletion = merged_deletion;
    merged.liveness = merged_liveness;
    let head_data = core::mem::take(&mut merged.column_data);
    let clustering: &[ClusteringValueBuf] = merged
        .clustering
        .as_ref()
        .map_or(&[][..], |c| c.values.as_slice());
    let mut out = Columns {
        data: Vec::with_capacity(head_data.len()),
        cell_sources: Vec::with_capacity(head_data.len()),
        complex_deletion_sources: Vec::new(),
    };
    let shadow = shadow.as_ref();
    let merge_one =
        |s: SourceId, data: ColumnData, out: &mut Columns, ctx: &mut Context<'_>| match data {
            ColumnData::Simple(c) => {
                let cell = core::iter::once((s, c));
                out.simple(reconcile_cells(cell, shadow, is_static, clustering, ctx));
            }
            complex @ ColumnData::Complex(_) => {
                let index = complex.column_index();
                let versions = vec![(s, complex)];
                out.complex(
                    index,
                    merge_complex(versions, shadow, is_static, clustering, ctx),
                );
            }
        };
    if single {
        // One version (the partition is in one SSTable, or the row is): each cell only meets
        // the deletions over it and "now".
        for data in head_data {
            merge_one(head_source, data, &mut out, ctx);
        }
    } else {
        // Columns, in column order (a stable sort: each column's versions in source order).
        let mut by_column: Vec<(usize, SourceId, ColumnData)> = head_data
            .into_iter()
            .map(|c| (c.column_index(), head_source, c))
            .collect();
        for (s, r) in versions {
            by_column.extend(r.column_data.into_iter().map(|c| (c.column_index(), s, c)));
        }
        crate::sort::sort_by_key(&mut by_column, |(i, _, _)| *i);
        // Each column's run of versions: (column index, length, whether any is complex).
        let mut runs: Vec<(usize, usize, bool)> = Vec::new();
        for (i, _, d) in &by_column {
            let complex = matches!(d, ColumnData::Complex(_));
            match runs.last_mut() {
                Some((index, len, any_complex)) if index == i => {
                    *len = len.saturating_add(1);
                    *any_complex |= complex;
                }
                _ => runs.push((*i, 1, complex)),
            }
        }
        let mut iter = by_column.into_iter();
        for (index, len, complex) in runs {
            let mut group = iter.by_ref().take(len).map(|(_, s, d)| (s, d));
            if len == 1 {
                if let Some((s, d)) = group.next() {
                    merge_one(s, d, &mut out, ctx);
                }
            } else if !complex {
                let cells = group.filter_map(|(s, d)| match d {
                    ColumnData::Simple(c) => Some((s, c)),
                    ColumnData::Complex(_) => None,
                });
                out.simple(reconcile_cells(cells, shadow, is_static, clustering, ctx));
            } else {
                let versions = group.collect();
                out.complex(
                    index,
                    merge_complex(versions, shadow, is_static, clustering, ctx),
                );
            }
        }
    }
    let Columns {
        data: column_data,
        cell_sources,
        complex_deletion_sources,
    } = out;
    merged.column_data = column_data;

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

/// A merged row's columns as they are reconciled, with the SSTable of each part.
struct Columns {
    data: Vec<ColumnData>,
    cell_sources: Vec<SourceId>,
    complex_deletion_sources: Vec<(usize, SourceId)>,
}

impl Columns {
    fn simple(&mut self, cell: Option<(SourceId, Cell)>) {
        if let Some((s, c)) = cell {
            self.cell_sources.push(s);
            self.data.push(ColumnData::Simple(c));
        }
    }

    fn complex(&mut self, index: usize, merged: Option<MergedComplex>) {
        if let Some((column, deletion_src, sources)) = merged {
            if let Some(d) = deletion_src {
                self.complex_deletion_sources.push((index, d));
            }
            self.cell_sources.extend(sources);
            self.data.push(ColumnData::Complex(column));
        }
    }
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
    let explain = ctx.explain;
    for (s, d) in losers.iter().filter(|_| explain) {
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
            Some(o) => ctx.lose_with(|ctx| loss(ctx, bs, &bd, beaten_by_shadow(o))),
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
    let schema = ctx.schema;
    let path_type = schema
        .columns(is_static)
        .get(index)
        .and_then(|c| c.cell_path_type.as_ref());
    fn path_of(c: &Cell) -> &[u8] {
        c.path.as_ref().map_or(&[][..], |p| p.bytes.as_slice())
    }
    let same_path =
        |a: &Cell, b: &Cell| compare_paths(path_type, path_of(a), path_of(b)) == Ordering::Equal;
    // One version's cells are in path order already; several are sorted (stably: each
    // path's versions in source order).
    if columns.len() > 1 || cells.len() > columns.len() {
        crate::sort::sort_by(&mut cells, |a, b| {
            compare_paths(path_type, path_of(&a.1), path_of(&b.1))
        });
    }
    // Each path's run of versions.
    let mut runs: Vec<usize> = Vec::with_capacity(cells.len());
    for (i, (_, c)) in cells.iter().enumerate() {
        match (runs.last_mut(), i.checked_sub(1).and_then(|p| cells.get(p))) {
            (Some(len), Some((_, prev))) if same_path(prev, c) => *len = len.saturating_add(1),
            _ => runs.push(1),
        }
    }
    let mut out_cells = Vec::with_capacity(runs.len());
    let mut out_sources = Vec::with_capacity(runs.len());
    let mut iter = cells.into_iter();
    for len in runs {
        let group = iter.by_ref().take(len);
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
