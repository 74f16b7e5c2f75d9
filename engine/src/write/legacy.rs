//! A pre-3.0 partition (`jb`, `ka`, `la` atoms) in the writer's model ([`Partition`]), with a
//! schema from a `CREATE TABLE` statement (2.x records none): how Cassandra 3.0 reads a 2.x
//! partition (`db/LegacyLayout.java`: `decodeCellName`, `decodeBound`, `CellGrouper`,
//! `LegacyRangeTombstone.isRowDeletion` / `isCollectionTombstone`). The one conversion both
//! the rewrite (`scrub::legacy`, `sstableupgrade`) and the merged read (`merge`) use.
//!
//! | atom (CQL3, non-compact table) | model |
//! |---|---|
//! | cell named `ck…, ""` (the row marker) | the row's liveness (timestamp, TTL) |
//! | cell named `ck…, column` | the column's cell (live, expiring, tombstone, counter context as stored: local, remote and global shards, `db/context/CounterContext.java`) |
//! | cell named `ck…, column, key` | a cell of the collection `column`, path `key` |
//! | a static cell (`0xFFFF` prefix) | the static row |
//! | a range tombstone over one whole row | the row deletion |
//! | a range tombstone over one collection | the collection's complex deletion |
//! | any other range tombstone | a start bound and an end bound (inclusive unless the end-of-component byte says otherwise: `decodeBound`), or boundaries where tombstones overlap; an empty bound is the partition's start or end |
//!
//! COMPACT STORAGE tables ([`schema_from_cql`] gives their 3.0 schema, `db/CompactTables.java`;
//! names split by [`LegacyLayout::place`], `decodeCellName`):
//!
//! | atom (COMPACT STORAGE table) | model |
//! |---|---|
//! | dense (clustering columns): cell named by the clustering value (one column: the value itself; several: `CompositeType`) | a row of that clustering, no liveness (no row marker), its one cell in the regular column (counter context as stored) |
//! | static compact (no clustering column): cell named by a declared column (the name itself) | that column's cell in the static row (3.0's static columns), no regular row |
//! | a range tombstone from a clustering to the same one | the row deletion (a non-compound bound has no end-of-component byte: inclusive) |
//! | any other range tombstone | bounds and boundaries, as above |
//!
//! A range tombstone written again at a row-index block start is taken once; overlapping ones
//! (a compaction's) become non-overlapping bounds and boundaries, each stretch with the
//! superseding deletion (`db/RangeTombstoneList.java`). Not converted (an error naming the
//! atom): a cell of a column the schema does not have (a static compact table's dynamic, Thrift
//! cell too), a deleted row marker, a counter update.

use core::cmp::Ordering;

use crate::component::legacy_data::{
    Atom, AtomBody, AtomKind, CellName, CellPlace, LegacyItem, LegacyLayout, PlacedColumn,
};
use crate::component::ComponentType;
use crate::cql_schema::CqlTable;
use crate::error::{Error, Result};
use crate::types::AbstractType;
use crate::write::decoded::model_deletion;
use crate::write::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered,
};
use crate::write::schema::{compare_prefixes, PrefixKind};
use crate::write::{ColumnDef, TableSchema};

fn atom_error(a: &Atom<'_>, msg: impl Into<String>) -> Error {
    Error::invalid(msg, a.position).in_component(ComponentType::Data)
}

/// The writer's schema for a CQL table (`table`, as `cql_schema` parses it;
/// `compact_storage`: it said `WITH COMPACT STORAGE`), as Cassandra 3.0 has it
/// (`db/CompactTables.java`), with its [`LegacyLayout`]:
///
/// | table | clustering | static columns | regular columns |
/// |---|---|---|---|
/// | not compact | the clustering columns | the static ones | the others |
/// | dense (COMPACT STORAGE, clustering columns) | the clustering columns | none | the one regular column; `value` (`EmptyType`) when there is none |
/// | static compact (COMPACT STORAGE, no clustering column) | one hidden `UTF8Type` column (`column1`, the comparator) | the declared columns | none |
///
/// A static compact table's hidden `value` column holds only "dynamic" (Thrift) cells; it is
/// left out, as a 3.0 flush leaves a column without data out of the SerializationHeader (the
/// fixtures' `ma` compact tables), so a dynamic cell is an error naming its atom.
pub fn schema_from_cql(table: &CqlTable, compact_storage: bool) -> Result<TableSchema> {
    let layout =
        LegacyLayout::from_cql(table, compact_storage).map_err(|e| Error::invalid(e, 0))?;
    let key_types = match layout.key_type.clone() {
        Some(crate::types::AbstractType::Composite(parts)) => parts,
        Some(t) => vec![t],
        None => return Err(Error::invalid("the table has no partition key", 0)),
    };
    let def = |(n, t): &(String, AbstractType)| ColumnDef::new(n, t.clone());
    let (clustering, statics, regular) = if layout.static_compact {
        (
            vec![AbstractType::Utf8],
            layout.columns.iter().map(def).collect(),
            Vec::new(),
        )
    } else if layout.dense {
        let regular =
            match (layout.columns.as_slice(), &layout.compact_value_column) {
                ([one], _) => vec![def(one)],
                ([], Some(value)) => vec![ColumnDef::new(value, AbstractType::Empty)],
                _ => return Err(Error::invalid(
                    "a COMPACT STORAGE table with clustering columns has at most one other column",
                    0,
                )),
            };
        (layout.clustering_types.clone(), Vec::new(), regular)
    } else {
        let statics: Vec<ColumnDef> = table
            .columns
            .iter()
            .filter(|(_, _, is_static)| *is_static)
            .filter_map(|(n, _, _)| layout.column_type(n).map(|t| ColumnDef::new(n, t.clone())))
            .collect();
        let regular: Vec<ColumnDef> = layout
            .columns
            .iter()
            .filter(|(n, _)| !statics.iter().any(|s| &s.name == n))
            .map(def)
            .collect();
        (layout.clustering_types.clone(), statics, regular)
    };
    Ok(TableSchema::new(key_types, clustering, statics, regular)?.with_legacy_layout(layout))
}

/// One converted partition with the Data.db offsets its pieces came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyPartition {
    pub partition: Partition,
    /// The partition's first byte.
    pub position: u64,
    /// The static row's first atom.
    pub static_position: Option<u64>,
    /// Per unfiltered of [`Partition::unfiltereds`]: its first atom (a marker: its tombstone).
    pub positions: Vec<u64>,
}

/// A range tombstone of the partition: start and end bounds, deletion, its atom's offset.
#[derive(Debug, Clone)]
struct Range {
    start: (Vec<Vec<u8>>, PrefixKind),
    end: (Vec<Vec<u8>>, PrefixKind),
    deletion: ModelDeletion,
    position: u64,
}

/// The row being collected.
#[derive(Debug)]
struct OpenRow {
    is_static: bool,
    row: Row,
    position: u64,
}

/// Converts the items of a 2.x Data.db, one partition at a time ([`LegacyConverter::push`]).
#[derive(Debug)]
pub struct LegacyConverter {
    schema: TableSchema,
    /// How cell names map to the schema's columns (the schema's, else a CQL3 table's).
    layout: LegacyLayout,
    clustering: usize,
    partition: Option<LegacyPartition>,
    row: Option<OpenRow>,
    /// Range tombstones already taken in this partition (2.x repeats them at index blocks).
    seen: Vec<(Vec<u8>, Vec<u8>)>,
    ranges: Vec<Range>,
}

impl LegacyConverter {
    /// The converter to `schema` ([`schema_from_cql`]; a schema without a
    /// [`TableSchema::legacy_layout`] is taken as a CQL3, non-compact table's).
    pub fn new(schema: TableSchema) -> LegacyConverter {
        let clustering = schema.clustering_types().len();
        let layout = schema
            .legacy_layout()
            .cloned()
            .unwrap_or_else(|| LegacyLayout {
                compound: Some(true),
                clustering_size: Some(clustering),
                clustering_types: schema.clustering_types().to_vec(),
                columns: schema
                    .static_columns()
                    .iter()
                    .chain(schema.regular_columns())
                    .map(|c| (c.name.clone(), c.column_type.clone()))
                    .collect(),
                ..LegacyLayout::inferred()
            });
        LegacyConverter {
            layout,
            clustering,
            schema,
            partition: None,
            row: None,
            seen: Vec::new(),
            ranges: Vec::new(),
        }
    }

    pub fn schema(&self) -> &TableSchema {
        &self.schema
    }

    /// Takes one item; returns the partition it ends.
    pub fn push(&mut self, item: &LegacyItem<'_>) -> Result<Option<LegacyPartition>> {
        match item {
            LegacyItem::PartitionStart(s) => {
                let mut p = Partition::new(s.key.bytes.bytes.clone());
                p.deletion = model_deletion(&s.deletion);
                self.partition = Some(LegacyPartition {
                    partition: p,
                    position: s.position,
                    static_position: None,
                    positions: Vec::new(),
                });
                self.row = None;
                self.seen.clear();
                self.ranges.clear();
                Ok(None)
            }
            LegacyItem::PartitionEnd(_) => {
                self.flush();
                let ranges = core::mem::take(&mut self.ranges);
                match self.partition.take() {
                    Some(mut p) => {
                        self.place_ranges(&mut p, ranges)?;
                        Ok(Some(p))
                    }
                    None => Ok(None),
                }
            }
            LegacyItem::Atom(a) => self.atom(a).map(|()| None),
        }
    }

    fn atom(&mut self, a: &Atom<'_>) -> Result<()> {
        let compound = self.layout.compound;
        let name = CellName::parse(a.name, a.name_span.start, compound);
        if compound == Some(true) && !matches!(name, CellName::Composite { .. }) {
            return Err(atom_error(
                a,
                "a cell name that is not a CompositeType name",
            ));
        }
        if let AtomBody::RangeTombstone(t) = &a.body {
            return self.range_tombstone(a, &name, t.end, t.end_span.start, &t.deletion);
        }
        let AtomBody::Cell(c) = &a.body else {
            return Ok(());
        };
        let components = match &name {
            CellName::Composite { components, .. } => components.len(),
            CellName::Simple(_) => 1,
        };
        let CellPlace {
            is_static,
            clustering,
            column,
            element,
        } = self.layout.place(&name, self.clustering);
        if !is_static && clustering.len() < self.clustering {
            return Err(atom_error(a, "a cell name shorter than the clustering"));
        }
        if !self.layout.dense && components > self.clustering.saturating_add(2) {
            return Err(atom_error(a, "a cell name with too many components"));
        }
        let key: Vec<Vec<u8>> = clustering.iter().map(|v| v.to_vec()).collect();
        self.open_row(is_static, key, a.position);
        let value = match a.kind {
            AtomKind::Deleted => CellValue::Tombstone {
                local_deletion_time_secs: a
                    .local_deletion_time_secs()
                    .map_or(u32::MAX, |s| s as u32),
            },
            AtomKind::Expiring => CellValue::Live {
                value: c.value.to_vec(),
                expiry: match (c.ttl_secs, c.local_expiration_time_secs) {
                    (Some(ttl_secs), Some(ldt)) => Some(Expiry {
                        ttl_secs,
                        local_expiration_time_secs: ldt as u32,
                    }),
                    _ => None,
                },
            },
            AtomKind::CounterUpdate => {
                return Err(atom_error(a, "a counter update is not converted"))
            }
            _ => CellValue::Live {
                value: c.value.to_vec(),
                expiry: None,
            },
        };
        let cell = Cell {
            timestamp_micros: c.timestamp_micros,
            path: None,
            value,
        };
        let column = match column {
            PlacedColumn::RowMarker if element.is_none() => {
                let CellValue::Live { expiry, .. } = cell.value else {
                    return Err(atom_error(a, "a deleted row marker"));
                };
                if let Some(r) = self.row.as_mut().map(|o| &mut o.row) {
                    r.liveness = Some(Liveness {
                        timestamp_micros: cell.timestamp_micros,
                        expiry,
                    });
                }
                return Ok(());
            }
            PlacedColumn::CompactValue if self.layout.static_compact => {
                return Err(atom_error(
                    a,
                    "a dynamic cell (named by no declared column) of a static compact table is \
                     not converted",
                ))
            }
            PlacedColumn::Missing => return Err(atom_error(a, "a cell name without a column")),
            other => self.layout.column_name(&other).unwrap_or_default().to_vec(),
        };
        let index = column_index(&self.schema, is_static, &column, a)?;
        let Some(r) = self.row.as_mut().map(|o| &mut o.row) else {
            return Ok(());
        };
        match element {
            None => r.columns.push(ColumnData::Simple {
                column: index,
                cell,
            }),
            Some(path) => complex(r, index, a)?.1.push(cell.with_path(path.to_vec())),
        }
        Ok(())
    }

    /// A range tombstone from `a`'s name (`start`) to `end` (whose bytes start at `end_base`):
    /// a row deletion, a collection deletion, or bounds (`LegacyLayout.decodeBound`).
    fn range_tombstone(
        &mut self,
        a: &Atom<'_>,
        start: &CellName<'_>,
        end_bytes: &[u8],
        end_base: u64,
        deletion: &crate::component::data::DeletionTime,
    ) -> Result<()> {
        if self.seen.iter().any(|(s, e)| s == a.name && e == end_bytes) {
            return Ok(());
        }
        self.seen.push((a.name.to_vec(), end_bytes.to_vec()));
        let deletion = model_deletion(deletion);
        let end = CellName::parse(end_bytes, end_base, self.layout.compound);
        // An empty bound is the partition's start or end (`Slice.Bound.BOTTOM` / `TOP`).
        let values_of = |name: &CellName<'_>, bytes: &[u8]| -> Vec<Vec<u8>> {
            if bytes.is_empty() {
                return Vec::new();
            }
            name.values().iter().map(|v| v.to_vec()).collect()
        };
        let values = values_of(start, a.name);
        let end_values = values_of(&end, end_bytes);
        let is_static = start.is_static();
        // A static name has the clustering's place too, empty (`CompositeType.build` after
        // `STATIC_MARKER`): the static row's clustering is empty.
        let (row_values, rest) = if values.len() > self.clustering {
            values.split_at(self.clustering)
        } else {
            (values.as_slice(), &[][..])
        };
        let full = !is_static && row_values.len() == self.clustering;
        if end_values == values && (full || is_static) {
            // `isRowDeletion` / `isCollectionTombstone`.
            let key = if is_static {
                Vec::new()
            } else {
                row_values.to_vec()
            };
            self.open_row(is_static, key, a.position);
            let Some(r) = self.row.as_mut().map(|o| &mut o.row) else {
                return Ok(());
            };
            return match rest {
                [] if !is_static => {
                    r.deletion = deletion;
                    Ok(())
                }
                [column] if !self.layout.dense && !self.layout.static_compact => {
                    let index = column_index(&self.schema, is_static, column, a)?;
                    *complex(r, index, a)?.0 = deletion;
                    Ok(())
                }
                _ => Err(atom_error(a, "a range tombstone inside a collection")),
            };
        }
        if is_static || end.is_static() {
            return Err(atom_error(a, "a range tombstone over static cells"));
        }
        // `decodeBound`: a prefix of the clustering; EOC −1/0 opens inclusively, 1
        // exclusively; EOC 1/0 closes inclusively, −1 exclusively (a non-compound name has no
        // EOC: inclusive).
        let bound = |name: &CellName<'_>,
                     vals: Vec<Vec<u8>>,
                     start: bool|
         -> Result<(Vec<Vec<u8>>, PrefixKind)> {
            if vals.len() > self.clustering {
                return Err(atom_error(a, "a range tombstone bound inside a row"));
            }
            let eoc = name.last_end_of_component();
            let kind = match (start, eoc) {
                (true, e) if e <= 0 => PrefixKind::InclStartBound,
                (true, _) => PrefixKind::ExclStartBound,
                (false, e) if e >= 0 => PrefixKind::InclEndBound,
                (false, _) => PrefixKind::ExclEndBound,
            };
            Ok((vals, kind))
        };
        let range = Range {
            start: bound(start, values, true)?,
            end: bound(&end, end_values, false)?,
            deletion,
            position: a.position,
        };
        self.ranges.push(range);
        Ok(())
    }

    /// Starts the row of (`is_static`, `key`) unless it is the open one.
    fn open_row(&mut self, is_static: bool, key: Vec<Vec<u8>>, position: u64) {
        let same = self
            .row
            .as_ref()
            .is_some_and(|o| o.is_static == is_static && o.row.clustering == key);
        if !same {
            self.flush();
            self.row = Some(OpenRow {
                is_static,
                row: Row::new(key),
                position,
            });
        }
    }

    fn flush(&mut self) {
        let Some(OpenRow {
            is_static,
            mut row,
            position,
        }) = self.row.take()
        else {
            return;
        };
        let Some(p) = self.partition.as_mut() else {
            return;
        };
        crate::sort::sort_by_key(&mut row.columns, ColumnData::column);
        if is_static {
            p.partition.static_row = Some(row);
            p.static_position = Some(position);
        } else if !row.is_empty() {
            p.partition.unfiltereds.push(Unfiltered::Row(row));
            p.positions.push(position);
        }
    }

    /// The partition's range tombstones as bounds and boundaries among its rows, in clustering
    /// order. 2.x range tombstones may overlap (a compaction nests a newer one inside an older
    /// one); 3.0 markers do not: as `db/RangeTombstoneList.java` does, each stretch of the
    /// clustering gets the superseding deletion of the tombstones over it, and a marker is
    /// written where that changes (`LegacyLayout.toUnfilteredRowIterator`).
    fn place_ranges(&self, p: &mut LegacyPartition, ranges: Vec<Range>) -> Result<()> {
        if ranges.is_empty() {
            return Ok(());
        }
        let types = self.schema.clustering_types();
        let cmp = |a: (&[Vec<u8>], PrefixKind), b: (&[Vec<u8>], PrefixKind)| {
            compare_prefixes(types, a, b)
        };
        // (bound, kind, the range's index, whether it opens the range).
        let mut events: Vec<(&[Vec<u8>], PrefixKind, usize, bool)> = Vec::new();
        for (i, r) in ranges.iter().enumerate() {
            events.push((&r.start.0, r.start.1, i, true));
            events.push((&r.end.0, r.end.1, i, false));
        }
        crate::sort::sort_by(&mut events, |a, b| cmp((a.0, a.1), (b.0, b.1)));
        let mut open: Vec<usize> = Vec::new();
        let top = |open: &[usize]| {
            open.iter()
                .map(|i| ranges.get(*i).map(|r| r.deletion))
                .max_by_key(|d| {
                    d.map(|d| (d.marked_for_delete_at_micros, d.local_deletion_time_secs))
                })
                .flatten()
        };
        let mut markers: Vec<Marker> = Vec::new();
        let mut i = 0;
        while let Some(&(values, kind, range, _)) = events.get(i) {
            let before = top(&open);
            let mut j = i;
            while let Some(&(v, k, r, opens)) = events.get(j) {
                if cmp((v, k), (values, kind)) != Ordering::Equal {
                    break;
                }
                if opens {
                    open.push(r);
                } else if let Some(at) = open.iter().position(|o| *o == r) {
                    open.swap_remove(at);
                }
                j = j.saturating_add(1);
            }
            i = j;
            let after = top(&open);
            if before == after {
                continue;
            }
            let position = ranges.get(range).map_or(0, |r| r.position);
            let zero = matches!(kind, PrefixKind::InclStartBound | PrefixKind::ExclEndBound);
            let marker = match (before, after) {
                (None, Some(d)) => RangeTombstoneMarker::bound(
                    if zero {
                        BoundKind::InclStart
                    } else {
                        BoundKind::ExclStart
                    },
                    values.to_vec(),
                    d,
                ),
                (Some(d), None) => RangeTombstoneMarker::bound(
                    if zero {
                        BoundKind::ExclEnd
                    } else {
                        BoundKind::InclEnd
                    },
                    values.to_vec(),
                    d,
                ),
                (Some(end), Some(start)) => RangeTombstoneMarker::boundary(
                    if zero {
                        BoundKind::ExclEndInclStart
                    } else {
                        BoundKind::InclEndExclStart
                    },
                    values.to_vec(),
                    end,
                    start,
                ),
                (None, None) => continue,
            };
            markers.push((marker, position));
        }
        let rows = core::mem::take(&mut p.partition.unfiltereds);
        let row_positions = core::mem::take(&mut p.positions);
        let mut markers = markers.into_iter().peekable();
        for (u, position) in rows.into_iter().zip(row_positions) {
            if let Unfiltered::Row(row) = &u {
                while let Some((m, _)) = markers.peek() {
                    let before = cmp(
                        (&m.values, m.kind.prefix_kind()),
                        (&row.clustering, PrefixKind::Clustering),
                    ) == Ordering::Less;
                    if !before {
                        break;
                    }
                    if let Some((m, at)) = markers.next() {
                        p.partition.unfiltereds.push(Unfiltered::Marker(m));
                        p.positions.push(at);
                    }
                }
            }
            p.partition.unfiltereds.push(u);
            p.positions.push(position);
        }
        for (m, at) in markers {
            p.partition.unfiltereds.push(Unfiltered::Marker(m));
            p.positions.push(at);
        }
        Ok(())
    }
}

/// A marker and the offset of the tombstone atom it came from.
type Marker = (RangeTombstoneMarker, u64);

fn column_index(schema: &TableSchema, is_static: bool, name: &[u8], a: &Atom<'_>) -> Result<usize> {
    let name = String::from_utf8_lossy(name);
    schema.column_index(is_static, &name).ok_or_else(|| {
        atom_error(
            a,
            format!(
                "column {name} is not in the schema's {} columns",
                if is_static { "static" } else { "regular" }
            ),
        )
    })
}

/// The complex column `index` of `r` (created when missing): its deletion and cells.
fn complex<'r>(
    r: &'r mut Row,
    index: usize,
    a: &Atom<'_>,
) -> Result<(&'r mut ModelDeletion, &'r mut Vec<Cell>)> {
    if !r.columns.iter().any(|c| c.column() == index) {
        r.columns.push(ColumnData::Complex {
            column: index,
            deletion: ModelDeletion::LIVE,
            cells: Vec::new(),
        });
    }
    match r.columns.iter_mut().find(|c| c.column() == index) {
        Some(ColumnData::Complex {
            deletion, cells, ..
        }) => Ok((deletion, cells)),
        _ => Err(atom_error(a, "a collection cell for a simple column")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::data::{DecodeOptions, PushDecoder};
    use crate::component::legacy_data::{LegacyDataDecoder, LegacyStep};
    use crate::cql_schema::parse_create_table;
    use crate::version::{Format, Version};

    fn short(out: &mut Vec<u8>, b: &[u8]) {
        out.extend_from_slice(&(b.len() as u16).to_be_bytes());
        out.extend_from_slice(b);
    }

    /// A live cell atom (`OnDiskAtom`: name, mask 0, timestamp, value).
    fn cell(name: &[u8], ts: i64, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        short(&mut out, name);
        out.push(0);
        out.extend_from_slice(&ts.to_be_bytes());
        out.extend_from_slice(&(value.len() as i32).to_be_bytes());
        out.extend_from_slice(value);
        out
    }

    /// A range tombstone atom (start, mask `0x10`, end, DeletionTime).
    fn range(start: &[u8], end: &[u8], at: i64) -> Vec<u8> {
        let mut out = Vec::new();
        short(&mut out, start);
        out.push(0x10);
        short(&mut out, end);
        out.extend_from_slice(&1_000i32.to_be_bytes());
        out.extend_from_slice(&at.to_be_bytes());
        out
    }

    /// One 2.x partition of `atoms` converted with `cql`'s COMPACT STORAGE schema.
    fn convert(cql: &str, atoms: &[Vec<u8>]) -> Result<LegacyPartition> {
        let mut data = Vec::new();
        short(&mut data, b"k");
        data.extend_from_slice(&i32::MAX.to_be_bytes());
        data.extend_from_slice(&i64::MIN.to_be_bytes());
        atoms.iter().for_each(|a| data.extend_from_slice(a));
        data.extend_from_slice(&[0, 0]);
        let schema = schema_from_cql(&parse_create_table(cql).unwrap(), true)?;
        let mut converter = LegacyConverter::new(schema);
        let version = Version::parse(Format::Big, "ka").unwrap();
        let mut decoder = LegacyDataDecoder::new(version, DecodeOptions::default());
        decoder.push(&data);
        decoder.finish();
        loop {
            match decoder.next_item()? {
                LegacyStep::Item(item) => {
                    if let Some(p) = converter.push(&item)? {
                        return Ok(p);
                    }
                }
                _ => panic!("no partition end"),
            }
        }
    }

    fn deletion(at: i64) -> ModelDeletion {
        ModelDeletion {
            marked_for_delete_at_micros: at,
            local_deletion_time_secs: 1_000,
        }
    }

    fn int(v: i32) -> Vec<u8> {
        v.to_be_bytes().to_vec()
    }

    #[test]
    fn dense_rows_row_deletions_and_ranges() {
        let cql = "CREATE TABLE t (k text, c int, v text, PRIMARY KEY (k, c)) WITH COMPACT STORAGE";
        let p = convert(
            cql,
            &[
                cell(&int(1), 10, b"a"),
                range(&int(2), &int(2), 20),
                range(&int(3), &int(5), 30),
            ],
        )
        .unwrap()
        .partition;
        assert!(p.static_row.is_none());
        let mut row = Row::new(vec![int(1)]);
        row.columns.push(ColumnData::Simple {
            column: 0,
            cell: Cell {
                timestamp_micros: 10,
                path: None,
                value: CellValue::Live {
                    value: b"a".to_vec(),
                    expiry: None,
                },
            },
        });
        let mut deleted = Row::new(vec![int(2)]);
        deleted.deletion = deletion(20);
        assert_eq!(
            p.unfiltereds,
            vec![
                Unfiltered::Row(row),
                Unfiltered::Row(deleted),
                Unfiltered::Marker(RangeTombstoneMarker::bound(
                    BoundKind::InclStart,
                    vec![int(3)],
                    deletion(30)
                )),
                Unfiltered::Marker(RangeTombstoneMarker::bound(
                    BoundKind::InclEnd,
                    vec![int(5)],
                    deletion(30)
                )),
            ]
        );
    }

    #[test]
    fn static_compact_columns_are_static_and_dense_compound_names_split() {
        let cql = "CREATE TABLE t (k text PRIMARY KEY, a int, b text) WITH COMPACT STORAGE";
        let p = convert(cql, &[cell(b"a", 1, &int(7)), cell(b"b", 2, b"x")])
            .unwrap()
            .partition;
        assert!(p.unfiltereds.is_empty());
        let s = p.static_row.unwrap();
        assert!(s.clustering.is_empty() && s.liveness.is_none());
        let values: Vec<(usize, i64)> = s
            .columns
            .iter()
            .map(|c| match c {
                ColumnData::Simple { column, cell } => (*column, cell.timestamp_micros),
                ColumnData::Complex { .. } => panic!("complex"),
            })
            .collect();
        assert_eq!(values, vec![(0, 1), (1, 2)]);
        // A name of no declared column is a dynamic (Thrift) cell: not converted.
        let e = convert(cql, &[cell(b"zzz", 1, b"")]).unwrap_err();
        assert!(e.to_string().contains("dynamic cell"), "{e}");
        // Two clustering columns: CompositeType names, one row per clustering.
        let cql =
            "CREATE TABLE t (k text, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2)) WITH COMPACT STORAGE";
        let name = [&[0, 4][..], &int(1), &[0, 0, 4], &int(2), &[0]].concat();
        let p = convert(cql, &[cell(&name, 5, &int(9))]).unwrap().partition;
        let [Unfiltered::Row(r)] = p.unfiltereds.as_slice() else {
            panic!("{:?}", p.unfiltereds);
        };
        assert_eq!(r.clustering, vec![int(1), int(2)]);
        assert!(r.liveness.is_none());
    }
}
