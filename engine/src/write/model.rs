//! The rows the writer takes: Cassandra's in-memory partition model, reduced to what the sstable
//! stores (Src: `db/rows/Row.java`, `db/rows/Cell.java`, `db/LivenessInfo.java`,
//! `db/DeletionTime.java`, `db/rows/RangeTombstoneMarker.java`, `db/ClusteringBound.java`).
//!
//! Values are serialized bytes of the column's type (an `int` is 4 big-endian bytes, a `text`
//! its UTF-8). Columns are referenced by their index in the sorted column list of the
//! [`TableSchema`](super::TableSchema). Local deletion times are unsigned seconds since the epoch;
//! [`NO_DELETION_TIME`] means "none". `nb` stores them as i32: values from 2^31 − 1 on are
//! capped like Cassandra's legacy serializer does.

/// `Cell.NO_DELETION_TIME` in the unsigned (oa) encoding.
pub const NO_DELETION_TIME: u32 = u32::MAX;

/// A deletion in the writer model (Cassandra's `DeletionTime`): a deletion at
/// `marked_for_delete_at_micros`, made locally at `local_deletion_time_secs`. Decoders read
/// deletions into [`crate::component::common::DeletionTime`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModelDeletion {
    pub marked_for_delete_at_micros: i64,
    pub local_deletion_time_secs: u32,
}

impl ModelDeletion {
    /// `DeletionTime.LIVE`: no deletion.
    pub const LIVE: ModelDeletion = ModelDeletion {
        marked_for_delete_at_micros: i64::MIN,
        local_deletion_time_secs: NO_DELETION_TIME,
    };

    pub fn new(marked_for_delete_at_micros: i64, local_deletion_time_secs: u32) -> Self {
        ModelDeletion {
            marked_for_delete_at_micros,
            local_deletion_time_secs,
        }
    }

    pub fn is_live(&self) -> bool {
        *self == ModelDeletion::LIVE
    }
}

/// The TTL of an expiring liveness or cell, and the local time it expires at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Expiry {
    pub ttl_secs: i32,
    pub local_expiration_time_secs: u32,
}

/// `LivenessInfo`: the row's primary-key liveness (an INSERT writes one, an UPDATE does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Liveness {
    pub timestamp_micros: i64,
    pub expiry: Option<Expiry>,
}

/// What a cell holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CellValue {
    /// A value (possibly empty, e.g. a set element's cell), optionally expiring.
    Live {
        value: Vec<u8>,
        expiry: Option<Expiry>,
    },
    /// A cell tombstone.
    Tombstone { local_deletion_time_secs: u32 },
}

/// One cell; `path` is set exactly for cells of complex columns (list: 16-byte TimeUUID, set:
/// the element, map: the key).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    pub timestamp_micros: i64,
    pub path: Option<Vec<u8>>,
    pub value: CellValue,
}

impl Cell {
    /// A live, non-expiring cell.
    pub fn live(timestamp_micros: i64, value: Vec<u8>) -> Self {
        Cell {
            timestamp_micros,
            path: None,
            value: CellValue::Live {
                value,
                expiry: None,
            },
        }
    }

    pub fn with_path(mut self, path: Vec<u8>) -> Self {
        self.path = Some(path);
        self
    }

    pub fn is_tombstone(&self) -> bool {
        matches!(self.value, CellValue::Tombstone { .. })
    }

    /// The TTL, if expiring.
    pub fn expiry(&self) -> Option<Expiry> {
        match &self.value {
            CellValue::Live { expiry, .. } => *expiry,
            CellValue::Tombstone { .. } => None,
        }
    }

    /// The local deletion time Cassandra records for the cell (`Cell.localDeletionTime`).
    pub fn local_deletion_time_secs(&self) -> u32 {
        match &self.value {
            CellValue::Live {
                expiry: Some(e), ..
            } => e.local_expiration_time_secs,
            CellValue::Live { expiry: None, .. } => NO_DELETION_TIME,
            CellValue::Tombstone {
                local_deletion_time_secs,
            } => *local_deletion_time_secs,
        }
    }

    /// The value bytes (empty for tombstones).
    pub fn value_bytes(&self) -> &[u8] {
        match &self.value {
            CellValue::Live { value, .. } => value,
            CellValue::Tombstone { .. } => &[],
        }
    }
}

/// The data of one column in a row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnData {
    Simple {
        column: usize,
        cell: Cell,
    },
    /// A non-frozen collection: an optional complex deletion and its cells, sorted by path.
    Complex {
        column: usize,
        deletion: ModelDeletion,
        cells: Vec<Cell>,
    },
}

impl ColumnData {
    pub fn column(&self) -> usize {
        match self {
            ColumnData::Simple { column, .. } | ColumnData::Complex { column, .. } => *column,
        }
    }
}

/// A row: the static row (empty clustering) or a regular row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Row {
    /// One value per clustering column (empty for the static row).
    pub clustering: Vec<Vec<u8>>,
    pub liveness: Option<Liveness>,
    /// Row deletion ([`ModelDeletion::LIVE`] = none).
    pub deletion: ModelDeletion,
    /// Column data in increasing column index.
    pub columns: Vec<ColumnData>,
}

impl Default for ModelDeletion {
    fn default() -> Self {
        ModelDeletion::LIVE
    }
}

impl Row {
    pub fn new(clustering: Vec<Vec<u8>>) -> Self {
        Row {
            clustering,
            ..Row::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.liveness.is_none() && self.deletion.is_live() && self.columns.is_empty()
    }

    /// Every cell of the row, in column order.
    pub fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.columns.iter().flat_map(|c| match c {
            ColumnData::Simple { cell, .. } => core::slice::from_ref(cell),
            ColumnData::Complex { cells, .. } => cells.as_slice(),
        })
    }
}

/// The kind of a range tombstone bound or boundary (`ClusteringPrefix.Kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoundKind {
    ExclEnd,
    InclStart,
    /// Boundary: closes an exclusive end, opens an inclusive start.
    ExclEndInclStart,
    /// Boundary: closes an inclusive end, opens an exclusive start.
    InclEndExclStart,
    InclEnd,
    ExclStart,
}

/// A range tombstone marker (`RangeTombstoneBoundMarker` or `RangeTombstoneBoundaryMarker`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RangeTombstoneMarker {
    pub kind: BoundKind,
    /// The clustering prefix of the bound (at most one value per clustering column).
    pub values: Vec<Vec<u8>>,
    /// The bound's deletion; for a boundary, the deletion it *closes* (end).
    pub deletion: ModelDeletion,
    /// For a boundary only: the deletion it opens (start).
    pub start_deletion: Option<ModelDeletion>,
}

impl RangeTombstoneMarker {
    /// A start or end bound.
    pub fn bound(kind: BoundKind, values: Vec<Vec<u8>>, deletion: ModelDeletion) -> Self {
        RangeTombstoneMarker {
            kind,
            values,
            deletion,
            start_deletion: None,
        }
    }

    /// A boundary that ends `end_deletion` and starts `start_deletion`.
    pub fn boundary(
        kind: BoundKind,
        values: Vec<Vec<u8>>,
        end_deletion: ModelDeletion,
        start_deletion: ModelDeletion,
    ) -> Self {
        RangeTombstoneMarker {
            kind,
            values,
            deletion: end_deletion,
            start_deletion: Some(start_deletion),
        }
    }

    /// The deletion still open after this marker (`openDeletionTime(false)`), if any.
    pub fn open_deletion(&self) -> Option<ModelDeletion> {
        match self.kind {
            BoundKind::InclStart | BoundKind::ExclStart => Some(self.deletion),
            BoundKind::ExclEndInclStart | BoundKind::InclEndExclStart => self.start_deletion,
            BoundKind::ExclEnd | BoundKind::InclEnd => None,
        }
    }
}

/// A row or a marker, in clustering order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Unfiltered {
    Row(Row),
    Marker(RangeTombstoneMarker),
}

/// A whole partition (for [`SSTableWriter::append`](super::SSTableWriter::append) and models).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Partition {
    /// Raw partition key bytes (see [`TableSchema::compose_key`](super::TableSchema::compose_key)).
    pub key: Vec<u8>,
    pub deletion: ModelDeletion,
    /// `None` or an empty row = no static data.
    pub static_row: Option<Row>,
    pub unfiltereds: Vec<Unfiltered>,
}

impl Partition {
    pub fn new(key: Vec<u8>) -> Self {
        Partition {
            key,
            deletion: ModelDeletion::LIVE,
            static_row: None,
            unfiltereds: Vec::new(),
        }
    }

    /// The regular rows.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.unfiltereds.iter().filter_map(|u| match u {
            Unfiltered::Row(r) => Some(r),
            Unfiltered::Marker(_) => None,
        })
    }
}
