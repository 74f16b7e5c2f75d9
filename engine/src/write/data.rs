//! Data.db serialization of one partition's parts (3.0+ row format, sstable-format.md §4).
//!
//! | part | layout | Src |
//! |---|---|---|
//! | partition header | short-length key, `DeletionTime` (nb: i32 ldt + i64 mfda; oa: `0x80` when live, else i64 mfda + u32 ldt) | `io/sstable/format/SortedTablePartitionWriter.java`, `db/DeletionTime.java` |
//! | row | flags, (ext flags), (clustering), vint row size, vint previous size, (liveness), (deletion), (column subset), cells — parts in parentheses only when flagged | `db/rows/UnfilteredSerializer.java` |
//! | clustering | batches of 32 values behind a vint header of empty/null bits; fixed-length types raw, others vint-length | `db/ClusteringPrefix.java` (`serializeValuesWithoutSize`) |
//! | cell | flags, (ts), (ldt), (ttl), (path), (value) — as the flags say | `db/rows/Cell.java` (`Serializer`) |
//! | marker | `0x02`, kind, u16 size, values, vint size, vint previous size, deletion(s) | `db/rows/UnfilteredSerializer.java`, `db/ClusteringBoundOrBoundary.java` |
//! | column subset | vint bitmap of missing columns (< 64 columns), else count + indexes | `db/Columns.java` (`serializeSubset`) |
//!
//! Timestamps, TTLs and local deletion times are unsigned vints of the value minus the HEADER's
//! `EncodingStats` minimum (`db/SerializationHeader.java`). Deltas are computed in wrapping
//! arithmetic: 64-bit for timestamps; for TTLs and (nb) deletion times the 32-bit difference is
//! sign-extended as Java's int-to-long widening does; for oa deletion times the unsigned 32-bit
//! difference is written zero-extended (both decode to the same value: readers truncate to 32 bits).

use super::bytes::{unsigned_vint_size, Out};
use super::model::{
    BoundKind, Cell, ColumnData, Liveness, ModelDeletion, RangeTombstoneMarker, Row,
    NO_DELETION_TIME,
};
use super::schema::{cell_path_type, compare_values, PrefixKind, TableSchema};
use crate::error::{Error, Result};
use crate::version::Version;

/// `EncodingStats`: the minima every Data.db delta is taken from (the HEADER stores them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodingStats {
    pub min_timestamp_micros: i64,
    pub min_local_deletion_time_secs: u32,
    pub min_ttl_secs: i32,
}

/// `EncodingStats.TIMESTAMP_EPOCH`: 2015-09-22T00:00Z in µs.
pub const TIMESTAMP_EPOCH_MICROS: i64 = 1_442_880_000_000_000;
/// `EncodingStats.DELETION_TIME_EPOCH`: 2015-09-22T00:00Z in s.
pub const DELETION_TIME_EPOCH_SECS: u32 = 1_442_880_000;

impl EncodingStats {
    /// `EncodingStats.NO_STATS`: the epochs (every value still encodes, with larger deltas).
    pub const NO_STATS: EncodingStats = EncodingStats {
        min_timestamp_micros: TIMESTAMP_EPOCH_MICROS,
        min_local_deletion_time_secs: DELETION_TIME_EPOCH_SECS,
        min_ttl_secs: 0,
    };
}

impl Default for EncodingStats {
    fn default() -> Self {
        EncodingStats::NO_STATS
    }
}

/// The nb (`int`) form of an unsigned deletion time: none stays `i32::MAX`, larger values are
/// capped at `i32::MAX − 1` (`DeletionTime.LegacySerializer`).
pub fn legacy_deletion_time(ldt: u32) -> i32 {
    if ldt == NO_DELETION_TIME {
        i32::MAX
    } else {
        ldt.min(i32::MAX.unsigned_abs().saturating_sub(1)) as i32
    }
}

/// Encodes rows, markers and headers for one table and version.
#[derive(Debug, Clone)]
pub struct DataEncoder {
    pub schema: TableSchema,
    pub version: Version,
    pub stats: EncodingStats,
    fixed_clustering: Vec<Option<usize>>,
    fixed_static: Vec<Option<usize>>,
    fixed_regular: Vec<Option<usize>>,
    path_types: Vec<Option<crate::types::AbstractType>>,
    path_types_static: Vec<Option<crate::types::AbstractType>>,
}

fn fixed_len(t: &crate::types::AbstractType) -> Option<usize> {
    t.value_length_if_fixed().map(|n| n as usize)
}

const END_OF_PARTITION: u8 = 0x01;
const IS_MARKER: u8 = 0x02;
const HAS_TIMESTAMP: u8 = 0x04;
const HAS_TTL: u8 = 0x08;
const HAS_DELETION: u8 = 0x10;
const HAS_ALL_COLUMNS: u8 = 0x20;
const HAS_COMPLEX_DELETION: u8 = 0x40;
const EXTENSION_FLAG: u8 = 0x80;
const IS_STATIC: u8 = 0x01;

const CELL_IS_DELETED: u8 = 0x01;
const CELL_IS_EXPIRING: u8 = 0x02;
const CELL_HAS_EMPTY_VALUE: u8 = 0x04;
const CELL_USE_ROW_TIMESTAMP: u8 = 0x08;
const CELL_USE_ROW_TTL: u8 = 0x10;

impl BoundKind {
    pub fn prefix_kind(self) -> PrefixKind {
        match self {
            BoundKind::ExclEnd => PrefixKind::ExclEndBound,
            BoundKind::InclStart => PrefixKind::InclStartBound,
            BoundKind::ExclEndInclStart => PrefixKind::ExclEndInclStartBoundary,
            BoundKind::InclEndExclStart => PrefixKind::InclEndExclStartBoundary,
            BoundKind::InclEnd => PrefixKind::InclEndBound,
            BoundKind::ExclStart => PrefixKind::ExclStartBound,
        }
    }
}

impl DataEncoder {
    pub fn new(schema: TableSchema, version: Version, stats: EncodingStats) -> Self {
        let fixed_clustering = schema.clustering_types().iter().map(fixed_len).collect();
        let fixed_of = |cols: &[super::schema::ColumnDef]| {
            cols.iter()
                .map(|c| {
                    if c.is_complex() {
                        None
                    } else {
                        fixed_len(&c.column_type)
                    }
                })
                .collect()
        };
        let fixed_static = fixed_of(schema.static_columns());
        let fixed_regular = fixed_of(schema.regular_columns());
        let path_types = schema
            .regular_columns()
            .iter()
            .map(|c| cell_path_type(&c.column_type))
            .collect();
        let path_types_static = schema
            .static_columns()
            .iter()
            .map(|c| cell_path_type(&c.column_type))
            .collect();
        DataEncoder {
            schema,
            version,
            stats,
            fixed_clustering,
            fixed_static,
            fixed_regular,
            path_types,
            path_types_static,
        }
    }

    fn uint_deletion_time(&self) -> bool {
        self.version.has_uint_deletion_time()
    }

    /// `DeletionTime.getSerializer(version).serialize`: partition deletion, Index.db, IndexInfo.
    pub fn write_deletion_time(&self, out: &mut Vec<u8>, dt: &ModelDeletion) {
        if self.uint_deletion_time() {
            if dt.is_live() {
                out.u8(0x80);
            } else {
                // The top bit of a real markedForDeleteAt is 0: it doubles as the "not live" flag.
                out.i64(dt.marked_for_delete_at_micros);
                out.u32(dt.local_deletion_time_secs);
            }
        } else {
            out.i32(legacy_deletion_time(dt.local_deletion_time_secs));
            out.i64(dt.marked_for_delete_at_micros);
        }
    }

    pub fn deletion_time_size(&self, dt: &ModelDeletion) -> usize {
        if self.uint_deletion_time() && dt.is_live() {
            1
        } else {
            12
        }
    }

    fn timestamp_delta(&self, ts: i64) -> u64 {
        ts.wrapping_sub(self.stats.min_timestamp_micros) as u64
    }

    fn ldt_delta(&self, ldt: u32) -> u64 {
        if self.uint_deletion_time() {
            u64::from(ldt.wrapping_sub(self.stats.min_local_deletion_time_secs))
        } else {
            let min = legacy_deletion_time(self.stats.min_local_deletion_time_secs);
            i64::from(legacy_deletion_time(ldt).wrapping_sub(min)) as u64
        }
    }

    fn ttl_delta(&self, ttl: i32) -> u64 {
        i64::from(ttl.wrapping_sub(self.stats.min_ttl_secs)) as u64
    }

    /// `SerializationHeader.writeDeletionTime`: timestamp delta then ldt delta.
    fn write_delta_deletion(&self, out: &mut Vec<u8>, dt: &ModelDeletion) {
        out.unsigned_vint(self.timestamp_delta(dt.marked_for_delete_at_micros));
        out.unsigned_vint(self.ldt_delta(dt.local_deletion_time_secs));
    }

    /// The partition header: key and partition deletion.
    pub fn write_partition_header(
        &self,
        out: &mut Vec<u8>,
        key: &[u8],
        deletion: &ModelDeletion,
    ) -> Result<()> {
        out.short_length_bytes(key, "partition key")?;
        self.write_deletion_time(out, deletion);
        Ok(())
    }

    pub fn write_end_of_partition(out: &mut Vec<u8>) {
        out.u8(END_OF_PARTITION);
    }

    /// Clustering values without kind or size (`serializeValuesWithoutSize`).
    pub fn write_clustering_values(&self, out: &mut Vec<u8>, values: &[Vec<u8>]) -> Result<()> {
        for (batch_index, batch) in values.chunks(32).enumerate() {
            let mut header = 0u64;
            for (i, v) in batch.iter().enumerate() {
                if v.is_empty() {
                    // i < 32 in a batch of 32, so the shift is below 64.
                    header |= 1 << i.saturating_mul(2);
                }
            }
            out.unsigned_vint(header);
            for (i, v) in batch.iter().enumerate() {
                if v.is_empty() {
                    continue;
                }
                let index = batch_index.saturating_mul(32).saturating_add(i);
                let fixed = self.fixed_clustering.get(index).copied().flatten();
                write_value(out, v, fixed, "clustering value")?;
            }
        }
        Ok(())
    }

    /// A bound or boundary: u8 kind, u16 size, values (`ClusteringBoundOrBoundary.Serializer`).
    pub fn write_bound(
        &self,
        out: &mut Vec<u8>,
        kind: PrefixKind,
        values: &[Vec<u8>],
    ) -> Result<()> {
        let size = u16::try_from(values.len())
            .map_err(|_| Error::invalid("too many clustering values in a bound", 0))?;
        out.u8(kind.ordinal());
        out.u16(size);
        self.write_clustering_values(out, values)
    }

    /// A prefix as IndexInfo stores it (`ClusteringPrefix.Serializer`): kind 4 + values for a
    /// row clustering, else the bound form.
    pub fn write_index_prefix(
        &self,
        out: &mut Vec<u8>,
        kind: PrefixKind,
        values: &[Vec<u8>],
    ) -> Result<()> {
        if kind == PrefixKind::Clustering {
            out.u8(kind.ordinal());
            self.write_clustering_values(out, values)
        } else {
            self.write_bound(out, kind, values)
        }
    }

    /// Serializes a row; `previous_size` is the distance from the previous unfiltered's start
    /// (the header length for the first one, 0 for the static row). `scratch` is reused.
    pub fn write_row(
        &self,
        out: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
        row: &Row,
        is_static: bool,
        previous_size: u64,
    ) -> Result<()> {
        let columns = self.schema.columns(is_static);
        let liveness = row.liveness;
        let has_complex_deletion = row
            .columns
            .iter()
            .any(|c| matches!(c, ColumnData::Complex { deletion, .. } if !deletion.is_live()));
        let has_all_columns = row.columns.len() == columns.len();
        let mut flags = 0u8;
        if liveness.is_some() {
            flags |= HAS_TIMESTAMP;
        }
        if liveness.is_some_and(|l| l.expiry.is_some()) {
            flags |= HAS_TTL;
        }
        if !row.deletion.is_live() {
            flags |= HAS_DELETION;
        }
        if has_complex_deletion {
            flags |= HAS_COMPLEX_DELETION;
        }
        if has_all_columns {
            flags |= HAS_ALL_COLUMNS;
        }
        if is_static {
            flags |= EXTENSION_FLAG;
        }
        out.u8(flags);
        if is_static {
            out.u8(IS_STATIC);
        } else {
            if row.clustering.len() != self.schema.clustering_types().len() {
                return Err(Error::invalid(
                    format!(
                        "a row has {} clustering values, the table {}",
                        row.clustering.len(),
                        self.schema.clustering_types().len()
                    ),
                    0,
                ));
            }
            self.write_clustering_values(out, &row.clustering)?;
        }

        scratch.clear();
        if let Some(l) = liveness {
            scratch.unsigned_vint(self.timestamp_delta(l.timestamp_micros));
            if let Some(e) = l.expiry {
                scratch.unsigned_vint(self.ttl_delta(e.ttl_secs));
                scratch.unsigned_vint(self.ldt_delta(e.local_expiration_time_secs));
            }
        }
        if !row.deletion.is_live() {
            self.write_delta_deletion(scratch, &row.deletion);
        }
        if !has_all_columns {
            write_subset(scratch, &row.columns, columns.len())?;
        }
        let mut previous_column: Option<usize> = None;
        for data in &row.columns {
            let column = data.column();
            if previous_column.is_some_and(|p| p >= column) || column >= columns.len() {
                return Err(Error::invalid(
                    format!(
                        "row columns must be distinct, sorted and < {}",
                        columns.len()
                    ),
                    0,
                ));
            }
            previous_column = Some(column);
            let is_complex = columns.get(column).is_some_and(|c| c.is_complex());
            match data {
                ColumnData::Simple { cell, .. } => {
                    if is_complex || cell.path.is_some() {
                        return Err(Error::invalid(
                            "a simple cell for a complex column (or with a path)",
                            0,
                        ));
                    }
                    let fixed = if is_static {
                        self.fixed_static.get(column).copied().flatten()
                    } else {
                        self.fixed_regular.get(column).copied().flatten()
                    };
                    self.write_cell(scratch, cell, liveness.as_ref(), fixed, false)?;
                }
                ColumnData::Complex {
                    deletion, cells, ..
                } => {
                    if !is_complex {
                        return Err(Error::invalid("complex data for a simple column", 0));
                    }
                    if has_complex_deletion {
                        self.write_delta_deletion(scratch, deletion);
                    }
                    scratch.unsigned_vint(cells.len() as u64);
                    let path_type = if is_static {
                        self.path_types_static.get(column)
                    } else {
                        self.path_types.get(column)
                    }
                    .cloned()
                    .flatten();
                    let mut previous_path: Option<&[u8]> = None;
                    for cell in cells {
                        let Some(path) = cell.path.as_deref() else {
                            return Err(Error::invalid("a complex cell without a path", 0));
                        };
                        if let (Some(prev), Some(t)) = (previous_path, path_type.as_ref()) {
                            if compare_values(t, prev, path) != core::cmp::Ordering::Less {
                                return Err(Error::invalid(
                                    "complex cells must be sorted by path, without duplicates",
                                    0,
                                ));
                            }
                        }
                        previous_path = Some(path);
                        self.write_cell(scratch, cell, liveness.as_ref(), None, true)?;
                    }
                }
            }
        }
        let previous_vint = unsigned_vint_size(previous_size);
        out.unsigned_vint(scratch.len().saturating_add(previous_vint) as u64);
        out.unsigned_vint(previous_size);
        out.extend_from_slice(scratch);
        Ok(())
    }

    /// `Cell.Serializer.serialize`.
    fn write_cell(
        &self,
        out: &mut Vec<u8>,
        cell: &Cell,
        row_liveness: Option<&Liveness>,
        fixed: Option<usize>,
        complex: bool,
    ) -> Result<()> {
        let value = cell.value_bytes();
        let is_deleted = cell.is_tombstone();
        let expiry = cell.expiry();
        let is_expiring = expiry.is_some();
        let use_row_timestamp =
            row_liveness.is_some_and(|l| l.timestamp_micros == cell.timestamp_micros);
        let use_row_ttl = match (expiry, row_liveness.and_then(|l| l.expiry)) {
            (Some(c), Some(r)) => c == r,
            _ => false,
        };
        if is_deleted && !value.is_empty() {
            return Err(Error::invalid("a cell tombstone cannot have a value", 0));
        }
        let mut flags = 0u8;
        if value.is_empty() {
            flags |= CELL_HAS_EMPTY_VALUE;
        }
        if is_deleted {
            flags |= CELL_IS_DELETED;
        } else if is_expiring {
            flags |= CELL_IS_EXPIRING;
        }
        if use_row_timestamp {
            flags |= CELL_USE_ROW_TIMESTAMP;
        }
        if use_row_ttl {
            flags |= CELL_USE_ROW_TTL;
        }
        out.u8(flags);
        if !use_row_timestamp {
            out.unsigned_vint(self.timestamp_delta(cell.timestamp_micros));
        }
        if (is_deleted || is_expiring) && !use_row_ttl {
            out.unsigned_vint(self.ldt_delta(cell.local_deletion_time_secs()));
        }
        if let (Some(e), false) = (expiry, use_row_ttl) {
            out.unsigned_vint(self.ttl_delta(e.ttl_secs));
        }
        if complex {
            if let Some(path) = &cell.path {
                out.vint_length_bytes(path);
            }
        }
        if !value.is_empty() {
            write_value(out, value, fixed, "cell value")?;
        }
        Ok(())
    }

    /// Serializes a range tombstone marker (`UnfilteredSerializer.serialize(RangeTombstoneMarker)`).
    pub fn write_marker(
        &self,
        out: &mut Vec<u8>,
        marker: &RangeTombstoneMarker,
        previous_size: u64,
    ) -> Result<()> {
        let kind = marker.kind.prefix_kind();
        if marker.values.len() > self.schema.clustering_types().len() {
            return Err(Error::invalid(
                "a range tombstone bound has more values than clustering columns",
                0,
            ));
        }
        if kind.is_boundary() != marker.start_deletion.is_some() {
            return Err(Error::invalid(
                "a boundary marker needs a start deletion, a bound must not have one",
                0,
            ));
        }
        out.u8(IS_MARKER);
        self.write_bound(out, kind, &marker.values)?;
        let mut body = unsigned_vint_size(previous_size);
        let deletions: [Option<&ModelDeletion>; 2] =
            [Some(&marker.deletion), marker.start_deletion.as_ref()];
        for dt in deletions.into_iter().flatten() {
            // At most 1 + 2 × 2 × 9 bytes.
            body = body
                .saturating_add(unsigned_vint_size(
                    self.timestamp_delta(dt.marked_for_delete_at_micros),
                ))
                .saturating_add(unsigned_vint_size(
                    self.ldt_delta(dt.local_deletion_time_secs),
                ));
        }
        out.unsigned_vint(body as u64);
        out.unsigned_vint(previous_size);
        for dt in deletions.into_iter().flatten() {
            self.write_delta_deletion(out, dt);
        }
        Ok(())
    }
}

/// A value of a type whose length is `fixed` (raw) or not (vint length + bytes).
fn write_value(out: &mut Vec<u8>, value: &[u8], fixed: Option<usize>, what: &str) -> Result<()> {
    match fixed {
        Some(n) if n != value.len() => Err(Error::invalid(
            format!(
                "{what}: {} bytes for a fixed-length type of {n} bytes",
                value.len()
            ),
            0,
        )),
        Some(_) => {
            out.extend_from_slice(value);
            Ok(())
        }
        None => {
            out.vint_length_bytes(value);
            Ok(())
        }
    }
}

/// `Columns.Serializer.serializeSubset` of the present columns among `superset` sorted ones.
fn write_subset(out: &mut Vec<u8>, present: &[ColumnData], superset: usize) -> Result<()> {
    let count = present.len();
    if count == superset {
        out.unsigned_vint(0);
        return Ok(());
    }
    if superset < 64 {
        let mut missing = if superset == 0 {
            0
        } else {
            // 0 < superset < 64 here.
            u64::MAX >> 64usize.saturating_sub(superset)
        };
        for c in present {
            let i = c.column();
            if i >= superset {
                return Err(Error::invalid("column index outside the header columns", 0));
            }
            missing &= !(1u64 << i);
        }
        out.unsigned_vint(missing);
        return Ok(());
    }
    out.unsigned_vint(superset.saturating_sub(count) as u64);
    if count < superset / 2 {
        for c in present {
            out.unsigned_vint(c.column() as u64);
        }
    } else {
        let mut next = 0usize;
        for c in present {
            while next < c.column() {
                out.unsigned_vint(next as u64);
                next = next.saturating_add(1);
            }
            next = c.column().saturating_add(1);
        }
        while next < superset {
            out.unsigned_vint(next as u64);
            next = next.saturating_add(1);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::AbstractType;
    use crate::version::Format;
    use crate::write::model::Cell;
    use crate::write::schema::ColumnDef;

    fn encoder(version: &str) -> DataEncoder {
        let schema = TableSchema::new(
            vec![AbstractType::Utf8],
            vec![],
            vec![],
            vec![ColumnDef::new("val", AbstractType::Utf8)],
        )
        .unwrap();
        let stats = EncodingStats {
            min_timestamp_micros: 1_620_986_780_234_000,
            ..EncodingStats::NO_STATS
        };
        DataEncoder::new(schema, Version::parse(Format::Big, version).unwrap(), stats)
    }

    #[test]
    fn simple_row_matches_the_nb_fixture_bytes() {
        // legacy_nb_simple, partition "0": key, live deletion, row with one cell "foo bar baz".
        let e = encoder("nb");
        let mut out = Vec::new();
        e.write_partition_header(&mut out, b"0", &ModelDeletion::LIVE)
            .unwrap();
        let ts = 1_620_986_780_234_000;
        let row = Row {
            liveness: Some(Liveness {
                timestamp_micros: ts,
                expiry: None,
            }),
            columns: vec![ColumnData::Simple {
                column: 0,
                cell: Cell::live(ts, b"foo bar baz".to_vec()),
            }],
            ..Row::default()
        };
        let header = out.len() as u64;
        e.write_row(&mut out, &mut Vec::new(), &row, false, header)
            .unwrap();
        DataEncoder::write_end_of_partition(&mut out);
        let want = [
            0x00, 0x01, 0x30, 0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x24, 0x0f, 0x0f,
            0x00, 0x08, 0x0b, b'f', b'o', b'o', b' ', b'b', b'a', b'r', b' ', b'b', b'a', b'z',
            0x01,
        ];
        assert_eq!(out, want);
        let oa = encoder("oa");
        let mut out = Vec::new();
        oa.write_partition_header(&mut out, b"0", &ModelDeletion::LIVE)
            .unwrap();
        assert_eq!(out, [0, 1, 0x30, 0x80]);
    }

    #[test]
    fn subsets_encode_missing_columns() {
        let cols = |idx: &[usize]| -> Vec<ColumnData> {
            idx.iter()
                .map(|&column| ColumnData::Simple {
                    column,
                    cell: Cell::live(0, vec![]),
                })
                .collect()
        };
        let mut out = Vec::new();
        write_subset(&mut out, &cols(&[0, 2]), 4).unwrap();
        assert_eq!(out, [0b1010]);
        let mut out = Vec::new();
        write_subset(&mut out, &cols(&[1]), 70).unwrap();
        assert_eq!(out, [69, 1]);
        let mut out = Vec::new();
        let most: Vec<usize> = (0..70).filter(|&i| i != 5 && i != 66).collect();
        write_subset(&mut out, &cols(&most), 70).unwrap();
        assert_eq!(out, [2, 5, 66]);
    }
}
