//! The merged content of an [`overlap`](super::overlap) table, computed from the SSTables'
//! partitions by the plain rules (see that module), sharing no code with the merge.

use super::model::{BoundKind, Cell, ColumnData, ModelDeletion, Partition, Row, Unfiltered};

/// A version and the SSTable (index into the written list) it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FromSSTable<T> {
    pub value: T,
    pub sstable: usize,
}

/// A cell the merged read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedCell {
    pub column: &'static str,
    /// Set elements: the element.
    pub path: Option<Vec<u8>>,
    /// `None`: a tombstone.
    pub value: Option<Vec<u8>>,
    pub timestamp_micros: i64,
    pub ttl_secs: Option<i32>,
    /// Expiring cells whose expiry is ≤ `now_secs`.
    pub expired: bool,
    pub sstable: usize,
}

/// A row the merged read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedRow {
    pub ck: i32,
    pub liveness: Option<FromSSTable<i64>>,
    pub deletion: Option<FromSSTable<ModelDeletion>>,
    /// In column order (`n`, `v`, then `tags` by element).
    pub cells: Vec<ExpectedCell>,
    /// The kept complex deletion of `tags`.
    pub tags_deletion: Option<FromSSTable<ModelDeletion>>,
}

/// A partition the merged read returns, in token order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedPartition {
    pub key: Vec<u8>,
    pub deletion: Option<FromSSTable<ModelDeletion>>,
    pub static_cell: Option<ExpectedCell>,
    /// Per clustering `0..rows_per_partition`, the range tombstone over it that counts (the
    /// superseding one, if it supersedes the partition deletion).
    pub range_tombstones: Vec<(i32, FromSSTable<ModelDeletion>)>,
    pub rows: Vec<ExpectedRow>,
    /// The SSTables that hold the partition.
    pub sstables: Vec<usize>,
}

fn supersedes(a: &ModelDeletion, b: &ModelDeletion) -> bool {
    a.marked_for_delete_at_micros > b.marked_for_delete_at_micros
        || (a.marked_for_delete_at_micros == b.marked_for_delete_at_micros
            && a.local_deletion_time_secs > b.local_deletion_time_secs)
}

fn max_deletion(
    a: Option<FromSSTable<ModelDeletion>>,
    b: FromSSTable<ModelDeletion>,
) -> Option<FromSSTable<ModelDeletion>> {
    match a {
        Some(a) if !supersedes(&b.value, &a.value) => Some(a),
        _ => Some(b),
    }
}

fn shadows(d: Option<&FromSSTable<ModelDeletion>>, timestamp_micros: i64) -> bool {
    d.is_some_and(|d| timestamp_micros <= d.value.marked_for_delete_at_micros)
}

fn simple_cell(column: &'static str, c: &Cell, sstable: usize, now_secs: i64) -> ExpectedCell {
    let expiry = c.expiry();
    ExpectedCell {
        column,
        path: c.path.clone(),
        value: (!c.is_tombstone()).then(|| c.value_bytes().to_vec()),
        timestamp_micros: c.timestamp_micros,
        ttl_secs: expiry.map(|e| e.ttl_secs),
        expired: expiry.is_some_and(|e| i64::from(e.local_expiration_time_secs) <= now_secs),
        sstable,
    }
}

/// The newest version of one cell among `versions` (timestamps never tie across SSTables).
fn newest<'a>(versions: impl Iterator<Item = (usize, &'a Cell)>) -> Option<(usize, &'a Cell)> {
    versions.fold(None, |best: Option<(usize, &Cell)>, (s, c)| match best {
        Some((_, b)) if b.timestamp_micros >= c.timestamp_micros => best,
        _ => Some((s, c)),
    })
}

pub(crate) fn expect_partition(
    key: &[u8],
    tables: &[Vec<Partition>],
    rows_per_partition: u32,
    now_secs: i64,
    (_s_col, n_col, v_col, tags_col): (usize, usize, usize, usize),
) -> ExpectedPartition {
    let versions: Vec<(usize, &Partition)> = tables
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.iter().find(|p| p.key == key).map(|p| (i, p)))
        .collect();
    let mut deletion = None;
    for (s, p) in &versions {
        if !p.deletion.is_live() {
            deletion = max_deletion(
                deletion,
                FromSSTable {
                    value: p.deletion,
                    sstable: *s,
                },
            );
        }
    }
    let static_cell = newest(versions.iter().filter_map(|(s, p)| {
        p.static_row
            .as_ref()
            .and_then(|r| r.cells().next())
            .map(|c| (*s, c))
    }))
    .filter(|(_, c)| !shadows(deletion.as_ref(), c.timestamp_micros))
    .map(|(s, c)| simple_cell("s", c, s, now_secs));

    let ck_of = |values: &[Vec<u8>]| {
        values
            .first()
            .and_then(|v| <[u8; 4]>::try_from(v.as_slice()).ok())
            .map(i32::from_be_bytes)
    };
    // Each SSTable's range tombstones: (first ck, last ck, deletion), both ends inclusive.
    let mut ranges: Vec<(i32, i32, FromSSTable<ModelDeletion>)> = Vec::new();
    for (s, p) in &versions {
        let mut open = None;
        for u in &p.unfiltereds {
            if let Unfiltered::Marker(m) = u {
                match (m.kind, open.take(), ck_of(&m.values)) {
                    (BoundKind::InclStart, _, Some(a)) => open = Some(a),
                    (BoundKind::InclEnd, Some(a), Some(b)) => ranges.push((
                        a,
                        b,
                        FromSSTable {
                            value: m.deletion,
                            sstable: *s,
                        },
                    )),
                    _ => {}
                }
            }
        }
    }
    let mut range_tombstones = Vec::new();
    let mut rows = Vec::new();
    for ck in 0..rows_per_partition as i32 {
        let mut rt = None;
        for (a, b, d) in &ranges {
            if (*a..=*b).contains(&ck) {
                rt = max_deletion(rt, *d);
            }
        }
        let mut row_versions: Vec<(usize, &Row)> = Vec::new();
        for (s, p) in &versions {
            for u in &p.unfiltereds {
                if let Unfiltered::Row(r) = u {
                    if ck_of(&r.clustering) == Some(ck) {
                        row_versions.push((*s, r));
                    }
                }
            }
        }
        // The range tombstone counts only where it supersedes the partition deletion.
        let rt = rt.filter(|r| {
            deletion.is_none_or(|d: FromSSTable<ModelDeletion>| supersedes(&r.value, &d.value))
        });
        if let Some(r) = rt {
            range_tombstones.push((ck, r));
        }
        let outer = rt.or(deletion);
        let mut row_deletion = None;
        for (s, r) in &row_versions {
            if !r.deletion.is_live() {
                row_deletion = max_deletion(
                    row_deletion,
                    FromSSTable {
                        value: r.deletion,
                        sstable: *s,
                    },
                );
            }
        }
        let row_deletion =
            row_deletion.filter(|r| outer.is_none_or(|o| supersedes(&r.value, &o.value)));
        let active = row_deletion.or(outer);
        let liveness = row_versions
            .iter()
            .filter_map(|(s, r)| {
                r.liveness.map(|l| FromSSTable {
                    value: l.timestamp_micros,
                    sstable: *s,
                })
            })
            .max_by_key(|l| l.value)
            .filter(|l| !shadows(active.as_ref(), l.value));
        let mut cells = Vec::new();
        for (column, name) in [(n_col, "n"), (v_col, "v")] {
            let found = newest(row_versions.iter().flat_map(|(s, r)| {
                r.columns.iter().filter_map(move |c| match c {
                    ColumnData::Simple { column: i, cell } if *i == column => Some((*s, cell)),
                    _ => None,
                })
            }));
            if let Some((s, c)) =
                found.filter(|(_, c)| !shadows(active.as_ref(), c.timestamp_micros))
            {
                cells.push(simple_cell(name, c, s, now_secs));
            }
        }
        let mut tags_deletion = None;
        let mut elements: Vec<(usize, &Cell)> = Vec::new();
        for (s, r) in &row_versions {
            for c in &r.columns {
                if let ColumnData::Complex {
                    column,
                    deletion,
                    cells,
                } = c
                {
                    if *column == tags_col {
                        if !deletion.is_live() {
                            tags_deletion = max_deletion(
                                tags_deletion,
                                FromSSTable {
                                    value: *deletion,
                                    sstable: *s,
                                },
                            );
                        }
                        elements.extend(cells.iter().map(|c| (*s, c)));
                    }
                }
            }
        }
        let tags_deletion =
            tags_deletion.filter(|d| active.is_none_or(|a| supersedes(&d.value, &a.value)));
        let column_active = tags_deletion.or(active);
        let mut paths: Vec<Vec<u8>> = elements
            .iter()
            .filter_map(|(_, c)| c.path.clone())
            .collect();
        paths.sort();
        paths.dedup();
        for path in paths {
            let found = newest(
                elements
                    .iter()
                    .filter(|(_, c)| c.path.as_ref() == Some(&path))
                    .copied(),
            );
            if let Some((s, c)) =
                found.filter(|(_, c)| !shadows(column_active.as_ref(), c.timestamp_micros))
            {
                cells.push(simple_cell("tags", c, s, now_secs));
            }
        }
        if liveness.is_some()
            || row_deletion.is_some()
            || !cells.is_empty()
            || tags_deletion.is_some()
        {
            rows.push(ExpectedRow {
                ck,
                liveness,
                deletion: row_deletion,
                cells,
                tags_deletion,
            });
        }
    }
    ExpectedPartition {
        key: key.to_vec(),
        deletion,
        static_cell,
        range_tombstones,
        rows,
        sstables: versions.iter().map(|(s, _)| *s).collect(),
    }
}
