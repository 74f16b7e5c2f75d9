//! What a merge returns: each merged partition, row and marker with the SSTable of every part,
//! and the pieces that lost with what beat them.

use serde::Serialize;

use crate::component::data::{
    ClusteringValueBuf, DataItem, PartitionEnd, PartitionStart, RangeTombstoneMarker, Row,
};

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
