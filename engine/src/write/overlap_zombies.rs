//! Resurrection cases injected into an [`overlap`](super::overlap) table
//! (`OverlapOptions::zombies`): partitions of their own, each holding one tombstone written
//! [`ZOMBIE_AGE_SECS`] before the table's base time in SSTable `a`, and (but for the garbage
//! cases) older data it shadows in SSTable `b ≠ a`; the findings a resurrection scan must
//! report are known by construction ([`ExpectedZombie`]).
//!
//! | case | in `a` | in `b` (older) | findings |
//! |---|---|---|---|
//! | 0 | partition deletion | static cell `s`; row 1: liveness, `v` | static row (1 piece), row 1 (2 pieces) |
//! | 1 | range tombstone [2, 4] | row 3: liveness, `n` | row 3 (2) |
//! | 2 | row deletion at 5 | row 5: liveness, `v` | row 5 (2) |
//! | 3 | `v` tombstone at 6 | row 6: liveness, `v` | row 6 (1: `v`) |
//! | 4 | `n` expired (TTL 60 s) at 7 | row 7: liveness, `n` | row 7 (1: `n`) |
//! | 5 | `tags` complex deletion at 8 | row 8: liveness, `tags` {t0, t1} | row 8 (2: the elements) |
//! | 6 | row deletion at 9 | nothing | garbage |
//! | 7 | partition deletion | nothing | garbage |
//! | 8 | row deletion at 2 | row 2: liveness, `v`; SSTable `c` (≠ a, b) deletes row 2 after it, not droppable | none: `c` keeps row 2 hidden |
//! | 9 | row 4: a liveness expired (TTL 60 s), no cell | row 4: liveness, `v` | row 4 (1: the liveness; `v` is not in its scope) |
//!
//! With `now = OverlapOptions::now_secs` these are the only droppable tombstones for any
//! gc_grace in (3,600 s, [`ZOMBIE_AGE_SECS`] + 3,600 s): the random partitions' tombstones and
//! TTLs all fall after the base time.

use super::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered,
};

/// How long before the base time the injected tombstones were written: 30 days.
pub const ZOMBIE_AGE_SECS: i64 = 30 * 86_400;

/// The number of injected cases (one partition each).
pub const ZOMBIE_CASES: usize = 10;

/// What a resurrection scan finds for one injected tombstone: the data it shadows in one
/// other SSTable's row, or (`shadowed: None`) nothing (droppable garbage).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExpectedZombie {
    pub key: Vec<u8>,
    pub tombstone_sstable: usize,
    /// As `merge::zombies::ZombieTombstoneKind` names it.
    pub kind: &'static str,
    /// The row's clustering, or the range tombstone's start; `None` for a partition deletion.
    pub ck: Option<i32>,
    /// A range tombstone's (inclusive) end.
    pub range_end: Option<i32>,
    pub column: Option<&'static str>,
    pub marked_for_delete_at_micros: i64,
    pub local_deletion_time_secs: i64,
    pub shadowed: Option<ExpectedShadowed>,
}

/// The shadowed side of an [`ExpectedZombie`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExpectedShadowed {
    pub sstable: usize,
    /// `None`: the static row.
    pub ck: Option<i32>,
    pub timestamp_micros: i64,
    pub pieces: u32,
}

/// Column indexes of `s`, `n`, `v`, `tags`.
pub(crate) type Columns = (usize, usize, usize, usize);

/// Case `case`'s partition versions ((SSTable, partition) pairs) and its findings.
pub(crate) fn zombie_case(
    case: usize,
    key: &[u8],
    sstables: usize,
    base_timestamp_micros: i64,
    (s_col, n_col, v_col, tags_col): Columns,
) -> (Vec<(usize, Partition)>, Vec<ExpectedZombie>) {
    let sstables = sstables.max(1);
    let a = case.checked_rem(sstables).unwrap_or(0);
    let b = case.saturating_add(1).checked_rem(sstables).unwrap_or(0);
    let c = case.saturating_add(2).checked_rem(sstables).unwrap_or(0);
    let base_secs = base_timestamp_micros / 1_000_000;
    let tomb_secs = base_secs.saturating_sub(ZOMBIE_AGE_SECS);
    // Distinct timestamps per case; the data a day older than its tombstone.
    let t = tomb_secs
        .saturating_mul(1_000_000)
        .saturating_add(500_000_i64.saturating_add(case as i64));
    let d = tomb_secs
        .saturating_sub(86_400)
        .saturating_mul(1_000_000)
        .saturating_add(case as i64);
    let deletion = ModelDeletion::new(t, tomb_secs as u32);
    let ck = |c: i32| vec![c.to_be_bytes().to_vec()];
    let mut pa = Partition::new(key.to_vec());
    let mut pb = Partition::new(key.to_vec());
    let live_row = |c: i32, columns: Vec<ColumnData>| {
        let mut r = Row::new(ck(c));
        r.liveness = Some(Liveness {
            timestamp_micros: d,
            expiry: None,
        });
        r.columns = columns;
        r
    };
    let simple = |column: usize, value: &str| ColumnData::Simple {
        column,
        cell: Cell::live(d, value.as_bytes().to_vec()),
    };
    let expected = |kind, ck: Option<i32>, column, ldt: i64, shadowed| ExpectedZombie {
        key: key.to_vec(),
        tombstone_sstable: a,
        kind,
        ck,
        range_end: None,
        column,
        marked_for_delete_at_micros: t,
        local_deletion_time_secs: ldt,
        shadowed,
    };
    let shadow = |ck: Option<i32>, pieces| {
        Some(ExpectedShadowed {
            sstable: b,
            ck,
            timestamp_micros: d,
            pieces,
        })
    };
    // Cases 4 and 9: a TTL of 60 s, run out a minute after the tombstones' time.
    let expires = tomb_secs.saturating_add(60);
    let ttl_60 = Some(Expiry {
        ttl_secs: 60,
        local_expiration_time_secs: expires as u32,
    });
    let mut out = Vec::new();
    let mut b_rows = Vec::new();
    let mut versions_c = None;
    match case {
        0 => {
            pa.deletion = deletion;
            let mut st = Row::new(Vec::new());
            st.columns.push(simple(s_col, "zombie static"));
            pb.static_row = Some(st);
            b_rows.push(live_row(1, vec![simple(v_col, "zombie v1")]));
            out.push(expected(
                "Partition",
                None,
                None,
                tomb_secs,
                shadow(None, 1),
            ));
            out.push(expected(
                "Partition",
                None,
                None,
                tomb_secs,
                shadow(Some(1), 2),
            ));
        }
        1 => {
            for (kind, c) in [(BoundKind::InclStart, 2), (BoundKind::InclEnd, 4)] {
                let m = RangeTombstoneMarker::bound(kind, ck(c), deletion);
                pa.unfiltereds.push(Unfiltered::Marker(m));
            }
            b_rows.push(live_row(3, vec![simple(n_col, "\0\0\0\x03")]));
            let mut e = expected(
                "RangeTombstone",
                Some(2),
                None,
                tomb_secs,
                shadow(Some(3), 2),
            );
            e.range_end = Some(4);
            out.push(e);
        }
        2 | 6 => {
            let c = if case == 2 { 5 } else { 9 };
            let mut r = Row::new(ck(c));
            r.deletion = deletion;
            pa.unfiltereds.push(Unfiltered::Row(r));
            if case == 2 {
                b_rows.push(live_row(5, vec![simple(v_col, "zombie v5")]));
                out.push(expected(
                    "Row",
                    Some(5),
                    None,
                    tomb_secs,
                    shadow(Some(5), 2),
                ));
            } else {
                out.push(expected("Row", Some(9), None, tomb_secs, None));
            }
        }
        3 => {
            let mut r = Row::new(ck(6));
            r.columns.push(ColumnData::Simple {
                column: v_col,
                cell: Cell {
                    timestamp_micros: t,
                    path: None,
                    value: CellValue::Tombstone {
                        local_deletion_time_secs: tomb_secs as u32,
                    },
                },
            });
            pa.unfiltereds.push(Unfiltered::Row(r));
            b_rows.push(live_row(6, vec![simple(v_col, "zombie v6")]));
            out.push(expected(
                "Cell",
                Some(6),
                Some("v"),
                tomb_secs,
                shadow(Some(6), 1),
            ));
        }
        4 => {
            let mut r = Row::new(ck(7));
            r.columns.push(ColumnData::Simple {
                column: n_col,
                cell: Cell {
                    timestamp_micros: t,
                    path: None,
                    value: CellValue::Live {
                        value: 7i32.to_be_bytes().to_vec(),
                        expiry: ttl_60,
                    },
                },
            });
            pa.unfiltereds.push(Unfiltered::Row(r));
            b_rows.push(live_row(7, vec![simple(n_col, "\0\0\0\x07")]));
            out.push(expected(
                "ExpiredCell",
                Some(7),
                Some("n"),
                expires,
                shadow(Some(7), 1),
            ));
        }
        5 => {
            let mut r = Row::new(ck(8));
            r.columns.push(ColumnData::Complex {
                column: tags_col,
                deletion,
                cells: Vec::new(),
            });
            pa.unfiltereds.push(Unfiltered::Row(r));
            let elements = ["t0", "t1"]
                .iter()
                .map(|e| Cell::live(d, Vec::new()).with_path(e.as_bytes().to_vec()))
                .collect();
            b_rows.push(live_row(
                8,
                vec![ColumnData::Complex {
                    column: tags_col,
                    deletion: ModelDeletion::LIVE,
                    cells: elements,
                }],
            ));
            out.push(expected(
                "ComplexDeletion",
                Some(8),
                Some("tags"),
                tomb_secs,
                shadow(Some(8), 2),
            ));
        }
        7 => {
            pa.deletion = deletion;
            out.push(expected("Partition", None, None, tomb_secs, None));
        }
        9 => {
            // An `INSERT … USING TTL 60` of row 4 (no cell) over an older `INSERT` without TTL.
            let mut r = Row::new(ck(4));
            r.liveness = Some(Liveness {
                timestamp_micros: t,
                expiry: ttl_60,
            });
            pa.unfiltereds.push(Unfiltered::Row(r));
            b_rows.push(live_row(4, vec![simple(v_col, "zombie v4")]));
            out.push(expected(
                "ExpiredLiveness",
                Some(4),
                None,
                expires,
                shadow(Some(4), 1),
            ));
        }
        _ => {
            let mut r = Row::new(ck(2));
            r.deletion = deletion;
            pa.unfiltereds.push(Unfiltered::Row(r));
            b_rows.push(live_row(2, vec![simple(v_col, "zombie v2")]));
            // A recent deletion (at the base time, not droppable) of the same row in `c`.
            let mut r = Row::new(ck(2));
            let recent = base_timestamp_micros.saturating_add(case as i64);
            r.deletion = ModelDeletion::new(recent, base_secs as u32);
            let mut pc = Partition::new(key.to_vec());
            pc.unfiltereds.push(Unfiltered::Row(r));
            versions_c = Some((c, pc));
        }
    }
    pb.unfiltereds = b_rows.into_iter().map(Unfiltered::Row).collect();
    let mut versions = vec![(a, pa)];
    if pb.static_row.is_some() || !pb.unfiltereds.is_empty() {
        versions.push((b, pb));
    }
    versions.extend(versions_c);
    versions.sort_by_key(|(s, _)| *s);
    (versions, out)
}
