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
pub(crate) fn merge_rows(
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
    let mut liveness: Option<(SourceId, LivenessInfo)> = None;
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
                    if !same_liveness(&wl, l) {
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
    crate::sort::sort_by_key(&mut by_column, |(i, _, _)| *i);
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
    crate::sort::sort_by(&mut cells, |a, b| {
        compare_paths(path_type.as_ref(), &path_of(&a.1), &path_of(&b.1))
    });
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
