//! Which of two versions of the same thing wins, as Cassandra's read path decides it.
//!
//! | what | rule | Src |
//! |---|---|---|
//! | two cells | higher timestamp; on a tie an expiring cell or tombstone beats a live cell, a tombstone beats an expiring cell, then the larger local deletion time, then the greater value | `db/rows/Cells.java` `reconcile` / `resolveRegular` (4.0+; `db/Conflicts.java` before) |
//! | two liveness infos | higher timestamp; on a tie an expired liveness, then (both expiring or both not) the larger local expiration time, else the expiring one | `db/LivenessInfo.java` `supersedes` |
//! | two deletions | larger markedForDeleteAt, then larger local deletion time | `db/DeletionTime.java` `supersedes` |
//! | deletion over data | deletes a timestamp `≤` markedForDeleteAt, unless it is live | `db/DeletionTime.java` `deletes` |
//! | two clusterings | the clustering types' order value by value, then the prefix kinds | `db/ClusteringComparator.java`, `ClusteringPrefix.Kind` |
//!
//! Counter cells go to `super::counter` instead ([`is_counter_pair`] says when).

use core::cmp::Ordering;

use crate::component::data::{
    Cell, ClusteringPrefixKind, ClusteringValueBuf, ClusteringValueState, DeletionTime,
    LivenessInfo,
};
use crate::types::AbstractType;
use crate::write::schema::compare_values;

/// `Cells.resolveRegular`: whether `right` wins over `left` (on a full tie `left` stays, as
/// `compareValues(left, right) >= 0 ? left : right` keeps it).
pub fn cell_wins(left: &Cell, right: &Cell) -> bool {
    if left.timestamp_micros != right.timestamp_micros {
        return right.timestamp_micros > left.timestamp_micros;
    }
    let l_ldt = left.local_deletion_time.filter(|l| !l.is_none());
    let r_ldt = right.local_deletion_time.filter(|l| !l.is_none());
    if l_ldt.is_some() || r_ldt.is_some() {
        // CASSANDRA-14592: an expiring cell or a tombstone beats a live cell of the same
        // timestamp, whatever the clock says.
        if l_ldt.is_some() != r_ldt.is_some() {
            return r_ldt.is_some();
        }
        if left.is_tombstone() != right.is_tombstone() {
            return right.is_tombstone();
        }
        let (l, r) = (
            l_ldt.map_or(i64::MIN, |l| l.secs),
            r_ldt.map_or(i64::MIN, |l| l.secs),
        );
        if l != r {
            return r > l;
        }
    }
    right.value.bytes.as_slice() > left.value.bytes.as_slice()
}

/// Whether either cell is a live counter (its reconciliation is `resolveCounter`'s).
pub fn is_counter_pair(left: &Cell, right: &Cell) -> bool {
    left.counter.is_some() || right.counter.is_some()
}

fn liveness_expiry_secs(l: &LivenessInfo) -> i64 {
    l.local_expiration_time
        .as_ref()
        .map_or(i64::MAX, |e| e.value.secs)
}

/// `LivenessInfo.supersedes`: whether `a` beats `b`.
pub fn liveness_supersedes(a: &LivenessInfo, b: &LivenessInfo) -> bool {
    let (ta, tb) = (a.timestamp_micros.value, b.timestamp_micros.value);
    if ta != tb {
        return ta > tb;
    }
    if a.is_expired_liveness() != b.is_expired_liveness() {
        return a.is_expired_liveness();
    }
    if a.is_expiring() == b.is_expiring() {
        return liveness_expiry_secs(a) > liveness_expiry_secs(b);
    }
    a.is_expiring()
}

/// `DeletionTime.supersedes`: whether `a` beats `b`.
pub fn deletion_supersedes(a: &DeletionTime, b: &DeletionTime) -> bool {
    a.marked_for_delete_at_micros > b.marked_for_delete_at_micros
        || (a.marked_for_delete_at_micros == b.marked_for_delete_at_micros
            && a.local_deletion_time.secs > b.local_deletion_time.secs)
}

/// The same deletion (markedForDeleteAt and local deletion time), however it was stored.
pub fn same_deletion(a: &DeletionTime, b: &DeletionTime) -> bool {
    a.marked_for_delete_at_micros == b.marked_for_delete_at_micros
        && a.local_deletion_time.secs == b.local_deletion_time.secs
}

/// `DeletionTime.deletes(timestamp)`: a deletion that deletes something shadows every
/// timestamp up to and including its markedForDeleteAt.
pub fn deletes(d: &DeletionTime, timestamp_micros: i64) -> bool {
    !d.deletes_nothing() && timestamp_micros <= d.marked_for_delete_at_micros
}

/// `ClusteringPrefix.Kind.comparison`: the order of prefixes of equal values.
fn kind_comparison(kind: ClusteringPrefixKind) -> i8 {
    use ClusteringPrefixKind::*;
    match kind {
        SstableLowerBound => -2,
        StaticClustering => -1,
        ExclEndBound | InclStartBound | ExclEndInclStartBoundary => 0,
        Clustering => 2,
        InclEndExclStartBoundary | InclEndBound | ExclStartBound => 3,
        SstableUpperBound => 4,
    }
}

/// Whether a kind sorts before the clusterings its values prefix (`comparison` 0) or after (3):
/// the group a marker belongs to at one position.
pub fn sorts_before_clusterings(kind: ClusteringPrefixKind) -> bool {
    kind_comparison(kind) < 2
}

fn compare_value(
    t: Option<&AbstractType>,
    a: &ClusteringValueBuf,
    b: &ClusteringValueBuf,
) -> Ordering {
    let rank = |v: &ClusteringValueBuf| match v.state {
        ClusteringValueState::Null => 0u8,
        ClusteringValueState::Empty | ClusteringValueState::Present => 1,
    };
    match (rank(a), rank(b)) {
        (1, 1) => match t {
            Some(t) => compare_values(t, &a.bytes, &b.bytes),
            None => a.bytes.cmp(&b.bytes),
        },
        (x, y) => x.cmp(&y),
    }
}

/// `ClusteringComparator.compare` over two decoded prefixes (values, then kinds).
pub fn compare_clusterings(
    types: &[AbstractType],
    a: (&[ClusteringValueBuf], ClusteringPrefixKind),
    b: (&[ClusteringValueBuf], ClusteringPrefixKind),
) -> Ordering {
    for (i, (x, y)) in a.0.iter().zip(b.0).enumerate() {
        let c = compare_value(types.get(i), x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    let side = |kind: ClusteringPrefixKind| match kind_comparison(kind) {
        c if c < 2 => Ordering::Less,
        c if c > 2 => Ordering::Greater,
        _ => Ordering::Equal,
    };
    match a.0.len().cmp(&b.0.len()) {
        Ordering::Equal => kind_comparison(a.1).cmp(&kind_comparison(b.1)),
        Ordering::Less => side(a.1),
        Ordering::Greater => side(b.1).reverse(),
    }
}

/// Orders two cell paths of one complex column by the column's path type.
pub fn compare_paths(t: Option<&AbstractType>, a: &[u8], b: &[u8]) -> Ordering {
    match t {
        Some(t) => compare_values(t, a, b),
        None => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::data::{CellKind, LocalDeletionTime, SpannedBytes};
    use crate::span::{Span, Spanned};

    fn cell(ts: i64, kind: CellKind, ldt: Option<u32>, value: &[u8]) -> Cell {
        let span = Span::new(0, 0);
        Cell {
            span,
            column_index: 0,
            flags: Spanned { value: 0, span },
            kind,
            timestamp_micros: ts,
            timestamp_span: Some(span),
            local_deletion_time: ldt.map(|l| LocalDeletionTime::new(l, true)),
            local_deletion_time_span: None,
            ttl_secs: (kind == CellKind::Expiring).then_some(60),
            ttl_span: None,
            path: None,
            value: SpannedBytes {
                bytes: value.to_vec(),
                span,
            },
            counter: None,
        }
    }

    #[test]
    fn cells_reconcile_as_cells_resolve_regular() {
        let live = |ts, v: &[u8]| cell(ts, CellKind::Live, None, v);
        let tomb = |ts, ldt| cell(ts, CellKind::Tombstone, Some(ldt), b"");
        let expiring = |ts, ldt, v: &[u8]| cell(ts, CellKind::Expiring, Some(ldt), v);
        // The higher timestamp, whatever the kinds.
        assert!(cell_wins(&tomb(5, 100), &live(6, b"a")));
        assert!(!cell_wins(&live(6, b"a"), &tomb(5, 100)));
        // A tie: a tombstone or an expiring cell beats a live one.
        assert!(cell_wins(&live(5, b"z"), &tomb(5, 100)));
        assert!(cell_wins(&live(5, b"z"), &expiring(5, 100, b"a")));
        assert!(!cell_wins(&expiring(5, 100, b"a"), &live(5, b"z")));
        // Both deleting: a tombstone beats an expiring cell, then the later local deletion time.
        assert!(cell_wins(&expiring(5, 900, b"a"), &tomb(5, 100)));
        assert!(cell_wins(&tomb(5, 100), &tomb(5, 101)));
        assert!(cell_wins(&expiring(5, 100, b"z"), &expiring(5, 101, b"a")));
        // Then the greater value; a full tie keeps the left one.
        assert!(cell_wins(&live(5, b"a"), &live(5, b"b")));
        assert!(!cell_wins(&live(5, b"b"), &live(5, b"a")));
        assert!(!cell_wins(&live(5, b"a"), &live(5, b"a")));
    }

    fn deletion(mfda: i64, ldt: u32) -> DeletionTime {
        let span = Span::new(0, 0);
        DeletionTime {
            span,
            encoding: crate::component::data::DeletionTimeEncoding::Unsigned,
            marked_for_delete_at_micros: mfda,
            marked_for_delete_at_span: None,
            local_deletion_time: LocalDeletionTime::new(ldt, true),
            local_deletion_time_span: None,
        }
    }

    #[test]
    fn deletions_supersede_and_delete_as_deletion_time() {
        assert!(deletion_supersedes(&deletion(6, 1), &deletion(5, 9)));
        assert!(deletion_supersedes(&deletion(5, 10), &deletion(5, 9)));
        assert!(!deletion_supersedes(&deletion(5, 9), &deletion(5, 9)));
        assert!(deletes(&deletion(5, 9), 5));
        assert!(!deletes(&deletion(5, 9), 6));
        assert!(!deletes(&deletion(i64::MIN, u32::MAX), i64::MIN));
    }

    #[test]
    fn bounds_sort_around_the_clusterings_they_prefix() {
        use ClusteringPrefixKind::*;
        let v = |x: i32| ClusteringValueBuf {
            index: 0,
            state: ClusteringValueState::Present,
            bytes: x.to_be_bytes().to_vec(),
            span: crate::span::Span::new(0, 0),
        };
        let types = [AbstractType::Int32];
        let (one, two) = ([v(1)], [v(2)]);
        let c =
            |a: (&[ClusteringValueBuf], ClusteringPrefixKind), b| compare_clusterings(&types, a, b);
        assert_eq!(
            c((&one, InclStartBound), (&one, Clustering)),
            Ordering::Less
        );
        assert_eq!(
            c((&one, InclEndBound), (&one, Clustering)),
            Ordering::Greater
        );
        assert_eq!(
            c((&one, ExclEndInclStartBoundary), (&one, InclStartBound)),
            Ordering::Equal
        );
        assert_eq!(
            c((&one, InclEndBound), (&two, InclStartBound)),
            Ordering::Less
        );
        // A shorter prefix: a start bound before every clustering it prefixes, an end after.
        assert_eq!(c((&[], InclStartBound), (&one, Clustering)), Ordering::Less);
        assert_eq!(
            c((&[], InclEndBound), (&two, Clustering)),
            Ordering::Greater
        );
        // Int32 order, not byte order.
        assert_eq!(
            c((&[v(-1)], Clustering), (&one, Clustering)),
            Ordering::Less
        );
    }
}
