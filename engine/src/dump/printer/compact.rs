//! `dump --jsonl`'s rows and cells written without the layout machinery of [`Json`]: compact
//! JSON has no indents, so each member is a constant `,"key":` copy, and a cell opens with one
//! copy of `,{"name":"…"` rendered once per column. Byte for byte what the [`Json`] path (and
//! so `serde_json::to_string` of [`PartitionJson`](crate::dump::PartitionJson)) writes; the
//! pretty `--json` layout keeps the [`Json`] path.
//!
//! Src: `tools/JsonTransformer.java`.

use crate::component::data::{
    CellKind, CellView, ClusteringValueState, ColumnKind, ColumnSchema, RowView, USE_ROW_TIMESTAMP,
};
use crate::dump::json::{push_i64, push_u64, string, Json};
use crate::types::AbstractType;

use super::value::{
    json_path, json_value, kind_path, kind_value, push_iso_secs, PathKind, ValueKind,
};
use super::{shown_value, write_deletion_time, DumpWriter, ShownValue};

/// Bytes of a [`CellPlan`]'s lead block.
const LEAD_BLOCK: usize = 64;

/// How a column's cells are written, worked out once per SSTable.
#[derive(Debug, Clone)]
pub(super) struct CellPlan<'s> {
    /// `,{"name":"<name>"`: a cell's opening with its column's name as a JSON string (the first
    /// cell of a row replaces the comma by the `[` of `"cells":[`).
    opening: Vec<u8>,
    /// The opening and what always follows it in the usual cell, `,"path":[` (a complex
    /// column's cell) or `,"value":` (a simple column's cell that shows its value),
    /// zero-padded to [`LEAD_BLOCK`] bytes when it fits: copied whole (a constant-length copy,
    /// no `memcpy` call) and cut back to `lead_len`.
    lead: Option<[u8; LEAD_BLOCK]>,
    lead_len: usize,
    complex: bool,
    /// A set's column: a live cell shows no value when its value is empty (the usual case).
    set: bool,
    /// The type and kind of the value a live cell shows (`None`: worked out per cell by
    /// `shown_value`: a set's cells, a UDT's fields, counters).
    value: Option<(ValueKind, &'s AbstractType)>,
    /// The kind of a cell path.
    path: PathKind,
}

impl<'s> CellPlan<'s> {
    pub(super) fn new(column: &'s ColumnSchema) -> CellPlan<'s> {
        let mut opening = b",{\"name\":".to_vec();
        string(&mut opening, &column.name);
        let complex = column.kind == ColumnKind::Complex;
        let mut lead_text = opening.clone();
        lead_text.extend_from_slice(if complex {
            b",\"path\":["
        } else {
            b",\"value\":"
        });
        let lead = (lead_text.len() <= LEAD_BLOCK).then(|| {
            let mut block = [0u8; LEAD_BLOCK];
            for (b, &o) in block.iter_mut().zip(&lead_text) {
                *b = o;
            }
            block
        });
        let value_type = match (column.kind, column.column_type.base()) {
            _ if column.column_type.is_counter() => None,
            (ColumnKind::Simple, t) => Some(t),
            (ColumnKind::Complex, AbstractType::List { element: t, .. }) => Some(&**t),
            (ColumnKind::Complex, AbstractType::Map { value: t, .. }) => Some(&**t),
            (ColumnKind::Complex, _) => None,
        };
        CellPlan {
            opening,
            lead,
            lead_len: lead_text.len(),
            complex,
            set: complex && matches!(column.column_type.base(), AbstractType::Set { .. }),
            value: value_type.map(|t| (ValueKind::of(t), t)),
            path: PathKind::of(&column.column_type),
        }
    }
}

impl<'s> CellPlan<'s> {
    /// The type and kind of the value `cell` shows, when its plan knows them (a live cell of a
    /// column whose cells' value type does not depend on the cell).
    #[inline]
    pub(super) fn shown_value(&self, cell: &CellView<'_>) -> Option<(ValueKind, &'s AbstractType)> {
        self.value
            .filter(|_| cell.kind != CellKind::Tombstone && cell.counter.is_none())
    }
}

impl DumpWriter<'_> {
    /// A row's opening members (type, position, clustering, liveness, deletion), compact.
    pub(super) fn row_start_compact(&mut self, row: &RowView<'_>) {
        let schema = self.schema;
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        if !self.rows_json.first {
            rows.push(b',');
        }
        rows.extend_from_slice(if row.is_static {
            b"{\"type\":\"static_block\",\"position\":"
        } else {
            b"{\"type\":\"row\",\"position\":"
        });
        push_u64(rows, row.position);
        if let Some(c) = &row.clustering {
            if !schema.clustering_types.is_empty() {
                rows.extend_from_slice(b",\"clustering\":[");
                let mut first = true;
                for v in c.values() {
                    if !first {
                        rows.push(b',');
                    }
                    first = false;
                    match v.state {
                        ClusteringValueState::Null => rows.extend_from_slice(b"null"),
                        ClusteringValueState::Empty => rows.extend_from_slice(b"\"\""),
                        ClusteringValueState::Present => {
                            match self.clustering_plans.get(v.index) {
                                Some(&(kind, t)) => kind_value(
                                    rows,
                                    scratch,
                                    &mut self.iso_millis,
                                    kind,
                                    t,
                                    v.bytes,
                                ),
                                None => json_value(rows, scratch, None, v.bytes),
                            };
                        }
                    }
                }
                rows.push(b']');
            }
        }
        if let Some(l) = &row.liveness {
            rows.extend_from_slice(b",\"liveness_info\":{\"tstamp\":\"");
            self.iso_micros.push_quoted(rows, l.timestamp_micros.value);
            if let Some(ttl) = &l.ttl_secs {
                rows.extend_from_slice(b",\"ttl\":");
                push_i64(rows, i64::from(ttl.value));
            }
            if let Some(e) = &l.local_expiration_time {
                let expires = e.value.expiry_secs();
                rows.extend_from_slice(b",\"expires_at\":\"");
                push_iso_secs(rows, expires);
                rows.push(b'"');
                if let Some(now) = self.now_seconds {
                    rows.extend_from_slice(if expires <= now {
                        b",\"expired\":true"
                    } else {
                        b",\"expired\":false"
                    });
                }
            }
            rows.push(b'}');
        }
        let mut j = Json::new(false, 3);
        j.first = false;
        if let Some(d) = &row.deletion {
            rows.extend_from_slice(b",\"deletion_info\":");
            write_deletion_time(&mut j, rows, &d.time);
        }
        self.row_json = j;
    }

    /// A cell as sstabledump's JSON object, compact.
    pub(super) fn cell_compact(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        let Some(plan) = self
            .cell_plans
            .get(usize::from(self.row_is_static))
            .and_then(|o| o.get(cell.column_index))
        else {
            return self.cell_compact_unplanned(column, cell);
        };
        let opening_at = rows.len();
        if !self.cells_open {
            rows.extend_from_slice(b",\"cells\":");
            self.cells_open = true;
        }
        let comma_at = rows.len();
        let value = plan.shown_value(cell);
        // The lead block holds `,"path":[` for a complex column's cell, `,"value":` for a simple
        // column's cell that shows its value.
        let (lead, path_open, value_open) = match (cell.path, value) {
            (Some(_), _) if plan.complex => (plan.lead.as_ref(), true, false),
            (None, Some(_)) if !plan.complex => (plan.lead.as_ref(), false, true),
            _ => (None, false, false),
        };
        let (path_open, value_open) = match lead {
            Some(block) => {
                let end = rows.len().saturating_add(plan.lead_len);
                rows.extend_from_slice(block);
                rows.truncate(end);
                (path_open, value_open)
            }
            None => {
                rows.extend_from_slice(&plan.opening);
                (false, false)
            }
        };
        if comma_at != opening_at {
            if let Some(c) = rows.get_mut(comma_at) {
                *c = b'[';
            }
        }
        if let Some(p) = cell.path {
            if !path_open {
                rows.extend_from_slice(b",\"path\":[");
            }
            kind_path(rows, scratch, plan.path, &column.column_type, p);
        }
        let note = match value {
            Some((kind, t)) => {
                if !value_open {
                    rows.extend_from_slice(b",\"value\":");
                }
                kind_value(rows, scratch, &mut self.iso_millis, kind, t, cell.value)
            }
            // `shown_value` of a set's cell with an empty value: none.
            None if plan.set && cell.value.is_empty() => None,
            None => shown_value_json(rows, scratch, column, cell),
        };
        self.cell_compact_rest(cell, note);
    }

    /// [`DumpWriter::cell_compact`] of a column without a plan (not in the schema's columns).
    #[cold]
    fn cell_compact_unplanned(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        let skip = if self.cells_open {
            0
        } else {
            rows.extend_from_slice(b",\"cells\":[");
            self.cells_open = true;
            1
        };
        rows.extend_from_slice(b",{\"name\":".get(skip..).unwrap_or_default());
        string(rows, &column.name);
        if let Some(p) = cell.path {
            rows.extend_from_slice(b",\"path\":[");
            json_path(rows, scratch, &column.column_type, p);
            rows.push(b']');
        }
        let note = shown_value_json(rows, scratch, column, cell);
        self.cell_compact_rest(cell, note);
    }

    /// A cell's members after its value, and its closing brace.
    #[inline(always)]
    fn cell_compact_rest(&mut self, cell: &CellView<'_>, note: Option<String>) {
        let rows = &mut self.rows;
        if let Some(n) = &note {
            rows.extend_from_slice(b",\"value_note\":");
            string(rows, n);
        }
        if cell.kind == CellKind::Tombstone {
            rows.extend_from_slice(b",\"deletion_info\":{\"local_delete_time\":\"");
            if let Some(l) = cell.local_deletion_time {
                push_iso_secs(rows, l.secs);
            }
            rows.extend_from_slice(b"\"}");
        }
        if cell.flags & USE_ROW_TIMESTAMP == 0 {
            rows.extend_from_slice(b",\"tstamp\":\"");
            self.iso_micros.push_quoted(rows, cell.timestamp_micros);
        }
        if cell.is_expiring() {
            if let Some(ttl) = cell.ttl_secs {
                rows.extend_from_slice(b",\"ttl\":");
                push_i64(rows, i64::from(ttl));
            }
            if let Some(l) = cell.local_deletion_time {
                rows.extend_from_slice(b",\"expires_at\":\"");
                push_iso_secs(rows, l.expiry_secs());
                rows.push(b'"');
            }
            rows.extend_from_slice(if cell.kind == CellKind::Expired {
                b",\"expired\":true"
            } else {
                b",\"expired\":false"
            });
        }
        if let Some(c) = &cell.counter {
            if !c.shards.is_empty() {
                rows.extend_from_slice(b",\"shards\":[");
                for (i, s) in c.shards.iter().enumerate() {
                    if i > 0 {
                        rows.push(b',');
                    }
                    let text = format!(
                        "{:?} {} clock {} count {}",
                        s.kind, s.counter_id, s.clock, s.count
                    );
                    string(rows, &text);
                }
                rows.push(b']');
            }
        }
        rows.push(b'}');
    }
}

/// `,"value":…` of what [`shown_value`] says a cell shows (nothing for a tombstone or a set's
/// cell); returns the note, if any.
fn shown_value_json(
    rows: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    column: &ColumnSchema,
    cell: &CellView<'_>,
) -> Option<String> {
    match shown_value(column, cell) {
        ShownValue::None => None,
        ShownValue::Counter(total) => {
            rows.extend_from_slice(b",\"value\":\"");
            push_i64(rows, total);
            rows.push(b'"');
            None
        }
        ShownValue::Typed(t, bytes) => {
            rows.extend_from_slice(b",\"value\":");
            json_value(rows, scratch, t, bytes)
        }
    }
}
