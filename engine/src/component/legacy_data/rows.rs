//! Atoms grouped into CQL rows, in sstabledump's JSON shape ([`PartitionJson`]), as Cassandra
//! 3.0's `LegacyLayout` reads a 2.x partition.
//!
//! * Consecutive cells with the same clustering prefix (and the same static-ness) are one row;
//!   the row marker (empty column name) gives the row's liveness (timestamp, TTL). Where a
//!   cell goes is [`LegacyLayout::place`]'s answer: a dense COMPACT STORAGE table's cell is a
//!   row of its clustering (no row marker), a static compact table's cells are static.
//! * Collection cells (an element key after the column name) are cells of their column with a
//!   `path`; a range tombstone covering exactly one collection column is that column's deletion.
//! * Any other range tombstone becomes a start bound and an end bound (inclusive unless its
//!   end-of-component byte says otherwise), at the tombstone's place in the file. A copy of a
//!   tombstone already seen in the partition (written again at a row-index block start) is
//!   skipped and said in the partition's findings.
//! * Values are rendered with the layout's types; without a schema as text when valid UTF-8,
//!   else `0x…` hex with a note.
//!
//! Src: Cassandra 3.0 `db/LegacyLayout.java` (`decodeCellName`, `decodeBound`,
//! `CellGrouper`), `tools/JsonTransformer.java`.

use std::collections::BTreeSet;

use super::atom::{Atom, AtomBody, AtomKind};
use super::layout::{CellPlace, LegacyLayout, PlacedColumn};
use super::name::{untyped, CellName};
use super::stream::LegacyItem;
use crate::component::data::{DeletionTime, PartitionStart};
use crate::datetime::{iso8601_micros, iso8601_secs};
use crate::dump::{
    BoundJson, CellDeletionJson, CellJson, DeletionInfoJson, LivenessJson, PartitionHeaderJson,
    PartitionJson, UnfilteredJson,
};
use crate::span::hex;
use crate::types::value::{format_cell_path, format_value};
use crate::types::AbstractType;

/// The row being built: its clustering bytes and static-ness, and its JSON.
#[derive(Debug)]
struct OpenRow {
    is_static: bool,
    clustering: Vec<Vec<u8>>,
    json: UnfilteredJson,
    /// Past the row limit: its cells are not built, the row is only counted.
    counted_only: bool,
}

/// A range tombstone already emitted in this partition: start, end, markedForDeleteAt, ldt.
type SeenTombstone = (Vec<u8>, Vec<u8>, i64, u32);

/// Groups the atoms of each partition into rows; returns the partition at its end.
#[derive(Debug)]
pub struct RowGrouper {
    layout: LegacyLayout,
    now_seconds: Option<i64>,
    partition: Option<PartitionJson>,
    row: Option<OpenRow>,
    seen_tombstones: BTreeSet<SeenTombstone>,
    /// Clustering size inferred from the first composite name (no schema).
    inferred_clustering: Option<usize>,
    /// Rows (and range tombstone markers) built per partition; the rest are only counted.
    row_limit: Option<usize>,
    /// Rows of the current (or last returned) partition past `row_limit`.
    rows_past_limit: usize,
}

impl RowGrouper {
    pub fn new(layout: LegacyLayout, now_seconds: Option<i64>) -> RowGrouper {
        RowGrouper {
            layout,
            now_seconds,
            partition: None,
            row: None,
            seen_tombstones: BTreeSet::new(),
            inferred_clustering: None,
            row_limit: None,
            rows_past_limit: 0,
        }
    }

    /// Builds at most `max_rows` rows (range tombstone markers included; a tombstone's two
    /// markers stay together, so one more at most) of each partition; the rest are only counted
    /// ([`RowGrouper::rows_past_limit`]), their cells never built — so a page of a wide
    /// partition holds about `max_rows` rows, not all of them.
    pub fn with_row_limit(mut self, max_rows: usize) -> RowGrouper {
        self.row_limit = Some(max_rows);
        self
    }

    /// Rows of the partition [`RowGrouper::push`] returned last that were past the row limit
    /// (counted, not built).
    pub fn rows_past_limit(&self) -> usize {
        self.rows_past_limit
    }

    /// The current partition holds as many rows as the limit allows.
    fn at_row_limit(&self) -> bool {
        match (self.row_limit, self.partition.as_ref()) {
            (Some(max), Some(p)) => p.rows.len() >= max,
            _ => false,
        }
    }

    pub fn layout(&self) -> &LegacyLayout {
        &self.layout
    }

    /// The clustering size used (from the schema, or inferred from the names so far).
    pub fn clustering_size(&self) -> Option<usize> {
        self.layout.clustering_size.or(self.inferred_clustering)
    }

    /// Feeds one item; returns the finished partition at its end.
    pub fn push(&mut self, item: &LegacyItem<'_>) -> Option<PartitionJson> {
        match item {
            LegacyItem::PartitionStart(p) => {
                self.row = None;
                self.rows_past_limit = 0;
                self.seen_tombstones.clear();
                self.partition = Some(PartitionJson {
                    partition: self.header_json(p),
                    rows: Vec::new(),
                });
                None
            }
            LegacyItem::Atom(a) => {
                self.atom(a);
                None
            }
            LegacyItem::PartitionEnd(_) => {
                self.flush_row();
                self.partition.take()
            }
        }
    }

    fn header_json(&self, p: &PartitionStart) -> PartitionHeaderJson {
        let key = &p.key.bytes.bytes;
        let rendered = match &self.layout.key_type {
            Some(t @ AbstractType::Composite(_)) => {
                crate::types::value::split_composite_key(t, key)
                    .map(|cs| cs.into_iter().map(|c| c.value.text).collect())
                    .unwrap_or_else(|_| vec![format!("0x{}", hex(key))])
            }
            Some(t) => vec![format_value(t, key).text],
            None => vec![untyped(key).0],
        };
        PartitionHeaderJson {
            key: rendered,
            key_hex: hex(key),
            position: p.position,
            deletion_info: (!p.deletion.is_live()).then(|| crate::dump::deletion_json(&p.deletion)),
            findings: p.findings.iter().map(|f| f.message.clone()).collect(),
        }
    }

    fn flush_row(&mut self) {
        if let (Some(row), Some(p)) = (self.row.take(), self.partition.as_mut()) {
            if row.counted_only {
                self.rows_past_limit = self.rows_past_limit.saturating_add(1);
            } else {
                p.rows.push(row.json);
            }
        }
    }

    fn finding(&mut self, message: String) {
        if let Some(p) = self.partition.as_mut() {
            p.partition.findings.push(message);
        }
    }

    /// Splits a cell name per the layout ([`LegacyLayout::place`]); without a schema the
    /// clustering size is inferred from the first composite name (components − 1).
    fn place<'w>(&mut self, name: &CellName<'w>) -> CellPlace<'w> {
        let n = match (self.clustering_size(), name) {
            (Some(n), _) => n,
            (None, CellName::Composite { components, .. }) => {
                let n = components.len().saturating_sub(1);
                self.inferred_clustering = Some(n);
                n
            }
            (None, CellName::Simple(_)) => 0,
        };
        self.layout.place(name, n)
    }

    fn atom(&mut self, a: &Atom<'_>) {
        let compound = self.layout.compound;
        let name = CellName::parse(a.name, a.name_span.start, compound);
        if compound == Some(true) && matches!(name, CellName::Simple(_)) {
            self.finding(format!(
                "atom at {}: the name is not a CompositeType name as the schema says",
                a.position
            ));
        }
        match &a.body {
            AtomBody::RangeTombstone(t) => {
                let end = CellName::parse(t.end, t.end_span.start, compound);
                self.range_tombstone(a, &name, &end, &t.deletion);
            }
            AtomBody::Cell(_) => self.cell(a, &name),
        }
    }

    fn open_row(&mut self, position: u64, is_static: bool, clustering: &[&[u8]]) {
        let same = self.row.as_ref().is_some_and(|r| {
            r.is_static == is_static
                && r.clustering.len() == clustering.len()
                && r.clustering.iter().zip(clustering).all(|(a, b)| a == b)
        });
        if same {
            return;
        }
        self.flush_row();
        let counted_only = self.at_row_limit();
        let rendered = if counted_only {
            Vec::new()
        } else {
            clustering
                .iter()
                .enumerate()
                .map(|(i, v)| Some(self.render_clustering(i, v)))
                .collect()
        };
        self.row = Some(OpenRow {
            is_static,
            counted_only,
            clustering: clustering.iter().map(|v| v.to_vec()).collect(),
            json: UnfilteredJson {
                r#type: if is_static { "static_block" } else { "row" },
                position,
                clustering: rendered,
                liveness_info: None,
                deletion_info: None,
                start: None,
                end: None,
                cells: Vec::new(),
                findings: Vec::new(),
            },
        });
    }

    fn render_clustering(&self, i: usize, v: &[u8]) -> String {
        match self.layout.clustering_types.get(i) {
            Some(t) => format_value(t, v).text,
            None => untyped(v).0,
        }
    }

    fn cell(&mut self, a: &Atom<'_>, name: &CellName<'_>) {
        let Some(cell) = a.cell() else { return };
        let CellPlace {
            is_static,
            clustering,
            column,
            element,
        } = self.place(name);
        self.open_row(a.position, is_static, &clustering);
        if self.row.as_ref().is_some_and(|r| r.counted_only) {
            return;
        }
        let now = self.now_seconds;
        let expiring = a.kind == AtomKind::Expiring;
        let expires_at = cell
            .local_expiration_time_secs
            .filter(|_| expiring)
            .map(i64::from);
        let column_name = self
            .layout
            .column_name(&column)
            .map(|c| String::from_utf8_lossy(c).into_owned());
        // The CQL row marker: an empty column name in a sparse table.
        if column == PlacedColumn::RowMarker {
            if let Some(row) = self.row.as_mut() {
                if a.kind == AtomKind::Deleted {
                    row.json.deletion_info = Some(DeletionInfoJson {
                        marked_deleted: iso8601_micros(cell.timestamp_micros),
                        local_delete_time: a
                            .local_deletion_time_secs()
                            .map_or_else(String::new, |s| iso8601_secs(i64::from(s))),
                        invalid_local_delete_time: false,
                    });
                } else {
                    row.json.liveness_info = Some(LivenessJson {
                        tstamp: iso8601_micros(cell.timestamp_micros),
                        ttl: cell.ttl_secs.filter(|_| expiring),
                        expires_at: expires_at.map(iso8601_secs),
                        expired: expires_at.zip(now).map(|(e, n)| e <= n),
                    });
                }
            }
            return;
        }
        if let Some(n) = column_name.as_deref().filter(|n| {
            self.layout.partition_key_names.iter().any(|k| k == n)
                || self.layout.clustering_names.iter().any(|k| k == n)
        }) {
            // LegacyLayout.decodeCellName: a cell named after a primary-key column is illegal;
            // Cassandra 3.0 skips it.
            let message = format!(
                "cell at {} is named after the primary-key column {n}: illegal, skipped as \
                 Cassandra 3.0 does",
                a.position
            );
            if let Some(row) = self.row.as_mut() {
                row.json.findings.push(message);
            }
            return;
        }
        let column_type = column_name
            .as_deref()
            .and_then(|n| self.layout.column_type(n))
            .cloned();
        let path = element.map(|e| {
            vec![match &column_type {
                Some(t) => format_cell_path(t, e),
                None => untyped(e).0,
            }]
        });
        let value_type = match (&column_type, element.is_some()) {
            (Some(t), true) => match t.base() {
                AbstractType::List { element, .. } => Some((**element).clone()),
                AbstractType::Map { value, .. } => Some((**value).clone()),
                AbstractType::Set { .. } => None,
                other => Some(other.clone()),
            },
            (Some(t), false) => Some(t.clone()),
            (None, _) => None,
        };
        let is_set_element = matches!(
            column_type.as_ref().map(AbstractType::base),
            Some(AbstractType::Set { .. })
        ) && element.is_some();
        let (value, value_note) = match a.kind {
            AtomKind::Deleted => (None, None),
            AtomKind::Counter => match a.counter_context() {
                Some(c) => (Some(c.total.to_string()), None),
                None => (
                    Some(format!("0x{}", hex(cell.value))),
                    Some("not a valid CounterContext".to_owned()),
                ),
            },
            _ if is_set_element || (element.is_some() && cell.value.is_empty()) => (None, None),
            _ => match &value_type {
                Some(t) => {
                    let f = format_value(t, cell.value);
                    (Some(f.text), f.note)
                }
                None => {
                    let (text, note) = untyped(cell.value);
                    (Some(text), note)
                }
            },
        };
        let shards = a
            .counter_context()
            .map(|c| {
                c.shards
                    .iter()
                    .map(|s| {
                        format!(
                            "{:?} {} clock {} count {}",
                            s.kind, s.counter_id, s.clock, s.count
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let json = CellJson {
            name: column_name.unwrap_or_default(),
            path,
            value,
            value_note,
            deletion_info: (a.kind == AtomKind::Deleted).then(|| CellDeletionJson {
                local_delete_time: a
                    .local_deletion_time_secs()
                    .map_or_else(String::new, |s| iso8601_secs(i64::from(s))),
            }),
            tstamp: Some(iso8601_micros(cell.timestamp_micros)),
            ttl: cell.ttl_secs.filter(|_| expiring),
            expires_at: expires_at.map(iso8601_secs),
            expired: expires_at.zip(now).map(|(e, n)| e <= n),
            shards,
        };
        if let Some(row) = self.row.as_mut() {
            row.json.cells.push(json);
            row.json
                .findings
                .extend(a.findings.iter().map(|f| f.message.clone()));
        }
    }

    fn range_tombstone(
        &mut self,
        a: &Atom<'_>,
        start: &CellName<'_>,
        end: &CellName<'_>,
        deletion: &DeletionTime,
    ) {
        let key: SeenTombstone = (
            a.name.to_vec(),
            a.range_tombstone()
                .map(|t| t.end.to_vec())
                .unwrap_or_default(),
            deletion.marked_for_delete_at_micros,
            deletion.local_deletion_time.raw,
        );
        if !self.seen_tombstones.insert(key) {
            self.finding(format!(
                "range tombstone at {} repeats one already seen in the partition (written again \
                 at a row-index block start)",
                a.position
            ));
            return;
        }
        let start_values = start.values();
        let end_values = end.values();
        // A collection deletion: [clustering…, column] on both sides, the column a collection.
        let n = self.clustering_size();
        if !self.layout.dense && matches!(start, CellName::Composite { .. }) {
            if let Some(n) = n {
                let column = start_values.get(n).copied();
                let is_collection = column.is_some_and(|c| {
                    let name = String::from_utf8_lossy(c);
                    match self.layout.column_type(&name) {
                        Some(t) => t.is_collection(),
                        None => !self.layout.has_schema(),
                    }
                });
                if Some(start_values.len()) == n.checked_add(1)
                    && start_values == end_values
                    && is_collection
                {
                    let clustering = start_values.get(..n).map(<[_]>::to_vec).unwrap_or_default();
                    self.open_row(a.position, start.is_static(), &clustering);
                    if let Some(row) = self.row.as_mut() {
                        row.json.cells.push(CellJson {
                            name: column
                                .map(|c| String::from_utf8_lossy(c).into_owned())
                                .unwrap_or_default(),
                            path: None,
                            value: None,
                            value_note: Some("the whole collection is deleted".to_owned()),
                            deletion_info: Some(CellDeletionJson {
                                local_delete_time: iso8601_secs(deletion.local_deletion_time.secs),
                            }),
                            tstamp: Some(iso8601_micros(deletion.marked_for_delete_at_micros)),
                            ttl: None,
                            expires_at: None,
                            expired: None,
                            shards: Vec::new(),
                        });
                    }
                    return;
                }
            }
        }
        self.flush_row();
        if self.at_row_limit() {
            // Its two markers, counted.
            self.rows_past_limit = self.rows_past_limit.saturating_add(2);
            return;
        }
        let bound = |name: &CellName<'_>, values: &[&[u8]], is_start: bool| {
            let eoc = name.last_end_of_component();
            let inclusive = if is_start { eoc <= 0 } else { eoc >= 0 };
            BoundJson {
                r#type: if inclusive { "inclusive" } else { "exclusive" },
                clustering: values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Some(self.render_clustering(i, v)))
                    .collect(),
                deletion_info: crate::dump::deletion_json(deletion),
            }
        };
        let start_json = bound(start, &start_values, true);
        let end_json = bound(end, &end_values, false);
        let findings: Vec<String> = a.findings.iter().map(|f| f.message.clone()).collect();
        if let Some(p) = self.partition.as_mut() {
            p.rows.push(tombstone_bound(
                a.position,
                Some(start_json),
                None,
                findings,
            ));
            p.rows.push(tombstone_bound(
                a.position,
                None,
                Some(end_json),
                Vec::new(),
            ));
        }
    }
}

/// A `range_tombstone_bound` unfiltered of sstabledump: a start or an end bound.
fn tombstone_bound(
    position: u64,
    start: Option<BoundJson>,
    end: Option<BoundJson>,
    findings: Vec<String>,
) -> UnfilteredJson {
    UnfilteredJson::range_tombstone_marker("range_tombstone_bound", position, start, end, findings)
}
