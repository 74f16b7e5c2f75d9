//! `dump --jsonl`'s and `dump --json`'s rows and cells, written without the layout machinery of
//! [`Json`]: a row's or cell's members sit at a fixed depth, so in either layout (compact, or
//! pretty with two-space indents) each member's separator, line break, indent and key is one
//! constant copy, and a cell opens with one copy of `,{"name":"…"` (pretty: with its line breaks
//! and indents) rendered once per column. One writer for both layouts: `P` (pretty) picks the
//! constants at compile time, and each column's [`CellPlan`] is built for the writer's layout.
//! Byte for byte what the [`Json`] path (and so `serde_json::to_string` and `to_string_pretty` of
//! [`PartitionJson`](crate::dump::PartitionJson)) writes.
//!
//! Src: `tools/JsonTransformer.java`.

use crate::component::data::{
    CellKind, CellView, ClusteringValueState, ColumnKind, ColumnSchema, RowView, USE_ROW_TIMESTAMP,
};
use crate::dump::json::{push_i64, push_u64, string, Json};
use crate::types::AbstractType;

use super::value::{
    json_path, json_value, kind_path, kind_value, path_close, push_iso_secs, PathKind, ValueKind,
};
use super::{shown_value, write_deletion_time, DumpWriter, ShownValue};

/// `pick!(P, compact, pretty)`: the text of the layout, chosen at compile time.
macro_rules! pick {
    ($p:expr, $compact:expr, $pretty:expr) => {
        if $p {
            &$pretty[..]
        } else {
            &$compact[..]
        }
    };
}

/// `member!(P, indent, "key")`: a member's separator and key, `,"key":` compact, `,` a line
/// break, the indent and `"key": ` pretty.
macro_rules! member {
    ($p:expr, $indent:literal, $key:literal) => {
        pick!(
            $p,
            concat!(",\"", $key, "\":").as_bytes(),
            concat!(",\n", $indent, "\"", $key, "\": ").as_bytes()
        )
    };
}

/// A member of a row (depth 3).
macro_rules! row_member {
    ($p:expr, $key:literal) => {
        member!($p, "      ", $key)
    };
}

/// A member of a row's `liveness_info` (depth 4).
macro_rules! liveness_member {
    ($p:expr, $key:literal) => {
        member!($p, "        ", $key)
    };
}

/// A member of a cell (depth 5).
macro_rules! cell_member {
    ($p:expr, $key:literal) => {
        member!($p, "          ", $key)
    };
}

/// Bytes of a [`CellPlan`]'s lead block, compact.
const LEAD_BLOCK: usize = 64;
/// Bytes of a [`CellPlan`]'s lead block, pretty.
const PRETTY_LEAD_BLOCK: usize = 128;

/// A cell path's opening, `,"path":[` and, pretty, the line break and indent of its element.
pub(super) fn path_open(pretty: bool) -> &'static [u8] {
    pick!(
        pretty,
        b",\"path\":[",
        b",\n          \"path\": [\n            "
    )
}

/// The closing `]` of a row's cells.
pub(super) fn cells_close(pretty: bool) -> &'static [u8] {
    pick!(pretty, b"]", b"\n      ]")
}

/// How a column's cells are written, worked out once per SSTable for the writer's layout.
#[derive(Debug, Clone)]
pub(super) struct CellPlan<'s> {
    /// `,{"name":"<name>"`: a cell's opening with its column's name as a JSON string (pretty:
    /// `,` a line break and indent, `{`, a line break and indent, `"name": "<name>"`; the first
    /// cell of a row replaces the comma by the `[` of `"cells":[`).
    opening: Vec<u8>,
    /// The opening and what always follows it in the usual cell, `,"path":[` (a complex
    /// column's cell, pretty with its element's line break and indent) or `,"value":` (a simple
    /// column's cell that shows its value), zero-padded to [`PRETTY_LEAD_BLOCK`] bytes when it
    /// fits the layout's block ([`LEAD_BLOCK`] compact): the layout's block copied whole (a
    /// constant-length copy, no `memcpy` call) and cut back to `lead_len`.
    lead: Option<[u8; PRETTY_LEAD_BLOCK]>,
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
    pub(super) fn new(column: &'s ColumnSchema, pretty: bool) -> CellPlan<'s> {
        let mut opening = pick!(
            pretty,
            b",{\"name\":",
            b",\n        {\n          \"name\": "
        )
        .to_vec();
        string(&mut opening, &column.name);
        let complex = column.kind == ColumnKind::Complex;
        let mut lead_text = opening.clone();
        lead_text.extend_from_slice(if complex {
            path_open(pretty)
        } else {
            cell_member!(pretty, "value")
        });
        let block = if pretty {
            PRETTY_LEAD_BLOCK
        } else {
            LEAD_BLOCK
        };
        let lead = (lead_text.len() <= block).then(|| {
            let mut block = [0u8; PRETTY_LEAD_BLOCK];
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
    /// A row's opening members (type, position, clustering, liveness, deletion), compact or
    /// pretty (`P`).
    pub(super) fn row_start_json<const P: bool>(&mut self, row: &RowView<'_>) {
        let schema = self.schema;
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        let first = self.rows_json.first;
        let opening: &[u8] = match (row.is_static, P) {
            (true, false) => b",{\"type\":\"static_block\",\"position\":",
            (false, false) => b",{\"type\":\"row\",\"position\":",
            (true, true) => b",\n    {\n      \"type\": \"static_block\",\n      \"position\": ",
            (false, true) => b",\n    {\n      \"type\": \"row\",\n      \"position\": ",
        };
        rows.extend_from_slice(opening.get(usize::from(first)..).unwrap_or_default());
        push_u64(rows, row.position);
        if let Some(c) = &row.clustering {
            if !schema.clustering_types.is_empty() {
                rows.extend_from_slice(pick!(
                    P,
                    b",\"clustering\":[",
                    b",\n      \"clustering\": ["
                ));
                let mut first = true;
                for v in c.values() {
                    let separator = pick!(P, b",", b",\n        ");
                    rows.extend_from_slice(separator.get(usize::from(first)..).unwrap_or_default());
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
                rows.extend_from_slice(if P && !first { b"\n      ]" } else { b"]" });
            }
        }
        if let Some(l) = &row.liveness {
            rows.extend_from_slice(pick!(
                P,
                b",\"liveness_info\":{\"tstamp\":\"",
                b",\n      \"liveness_info\": {\n        \"tstamp\": \""
            ));
            self.iso_micros.push_quoted(rows, l.timestamp_micros.value);
            if let Some(ttl) = &l.ttl_secs {
                rows.extend_from_slice(liveness_member!(P, "ttl"));
                push_i64(rows, i64::from(ttl.value));
            }
            if let Some(e) = &l.local_expiration_time {
                let expires = e.value.expiry_secs();
                rows.extend_from_slice(liveness_member!(P, "expires_at"));
                rows.push(b'"');
                push_iso_secs(rows, expires);
                rows.push(b'"');
                if let Some(now) = self.now_seconds {
                    rows.extend_from_slice(liveness_member!(P, "expired"));
                    rows.extend_from_slice(if expires <= now { b"true" } else { b"false" });
                }
            }
            rows.extend_from_slice(pick!(P, b"}", b"\n      }"));
        }
        let mut j = Json::new(P, 3);
        j.first = false;
        if let Some(d) = &row.deletion {
            rows.extend_from_slice(row_member!(P, "deletion_info"));
            write_deletion_time(&mut j, rows, &d.time);
        }
        self.row_json = j;
    }

    /// A cell as sstabledump's JSON object, compact or pretty (`P`).
    pub(super) fn cell_json<const P: bool>(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        let Some(plan) = self
            .cell_plans
            .get(usize::from(self.row_is_static))
            .and_then(|o| o.get(cell.column_index))
        else {
            return self.cell_json_unplanned::<P>(column, cell);
        };
        let opening_at = rows.len();
        if !self.cells_open {
            rows.extend_from_slice(row_member!(P, "cells"));
            self.cells_open = true;
        }
        let comma_at = rows.len();
        let value = plan.shown_value(cell);
        // The lead block holds `,"path":[` for a complex column's cell, `,"value":` for a simple
        // column's cell that shows its value.
        let (lead, path_open_done, value_open) = match (cell.path, value) {
            (Some(_), _) if plan.complex => (plan.lead.as_ref(), true, false),
            (None, Some(_)) if !plan.complex => (plan.lead.as_ref(), false, true),
            _ => (None, false, false),
        };
        let (path_open_done, value_open) = match lead {
            Some(block) => {
                let end = rows.len().saturating_add(plan.lead_len);
                if P {
                    rows.extend_from_slice(block);
                } else if let Some(block) = block.first_chunk::<LEAD_BLOCK>() {
                    rows.extend_from_slice(block);
                }
                rows.truncate(end);
                (path_open_done, value_open)
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
            if !path_open_done {
                rows.extend_from_slice(path_open(P));
            }
            kind_path::<P>(rows, scratch, plan.path, &column.column_type, p);
        }
        let note = match value {
            Some((kind, t)) => {
                if !value_open {
                    rows.extend_from_slice(cell_member!(P, "value"));
                }
                kind_value(rows, scratch, &mut self.iso_millis, kind, t, cell.value)
            }
            // `shown_value` of a set's cell with an empty value: none.
            None if plan.set && cell.value.is_empty() => None,
            None => shown_value_json::<P>(rows, scratch, column, cell),
        };
        self.cell_json_rest::<P>(cell, note);
    }

    /// [`DumpWriter::cell_json`] of a column without a plan (not in the schema's columns).
    #[cold]
    fn cell_json_unplanned<const P: bool>(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        let rows = &mut self.rows;
        let scratch = &mut self.scratch;
        let opening = pick!(P, b",{\"name\":", b",\n        {\n          \"name\": ");
        if self.cells_open {
            rows.extend_from_slice(opening);
        } else {
            rows.extend_from_slice(row_member!(P, "cells"));
            rows.push(b'[');
            rows.extend_from_slice(opening.get(1..).unwrap_or_default());
            self.cells_open = true;
        }
        string(rows, &column.name);
        if let Some(p) = cell.path {
            rows.extend_from_slice(path_open(P));
            json_path(rows, scratch, &column.column_type, p);
            rows.extend_from_slice(path_close(P));
        }
        let note = shown_value_json::<P>(rows, scratch, column, cell);
        self.cell_json_rest::<P>(cell, note);
    }

    /// A cell's members after its value, and its closing brace.
    #[inline(always)]
    fn cell_json_rest<const P: bool>(&mut self, cell: &CellView<'_>, note: Option<String>) {
        let rows = &mut self.rows;
        if let Some(n) = &note {
            rows.extend_from_slice(cell_member!(P, "value_note"));
            string(rows, n);
        }
        if cell.kind == CellKind::Tombstone {
            rows.extend_from_slice(pick!(
                P,
                b",\"deletion_info\":{\"local_delete_time\":\"",
                b",\n          \"deletion_info\": {\n            \"local_delete_time\": \""
            ));
            if let Some(l) = cell.local_deletion_time {
                push_iso_secs(rows, l.secs);
            }
            rows.extend_from_slice(pick!(P, b"\"}", b"\"\n          }"));
        }
        if cell.flags & USE_ROW_TIMESTAMP == 0 {
            rows.extend_from_slice(cell_member!(P, "tstamp"));
            rows.push(b'"');
            self.iso_micros.push_quoted(rows, cell.timestamp_micros);
        }
        if cell.is_expiring() {
            if let Some(ttl) = cell.ttl_secs {
                rows.extend_from_slice(cell_member!(P, "ttl"));
                push_i64(rows, i64::from(ttl));
            }
            if let Some(l) = cell.local_deletion_time {
                rows.extend_from_slice(cell_member!(P, "expires_at"));
                rows.push(b'"');
                push_iso_secs(rows, l.expiry_secs());
                rows.push(b'"');
            }
            rows.extend_from_slice(cell_member!(P, "expired"));
            rows.extend_from_slice(if cell.kind == CellKind::Expired {
                b"true"
            } else {
                b"false"
            });
        }
        if let Some(c) = &cell.counter {
            if !c.shards.is_empty() {
                rows.extend_from_slice(cell_member!(P, "shards"));
                rows.push(b'[');
                for (i, s) in c.shards.iter().enumerate() {
                    let separator = pick!(P, b",", b",\n            ");
                    rows.extend_from_slice(
                        separator.get(usize::from(i == 0)..).unwrap_or_default(),
                    );
                    let text = format!(
                        "{:?} {} clock {} count {}",
                        s.kind, s.counter_id, s.clock, s.count
                    );
                    string(rows, &text);
                }
                rows.extend_from_slice(pick!(P, b"]", b"\n          ]"));
            }
        }
        rows.extend_from_slice(pick!(P, b"}", b"\n        }"));
    }
}

/// `,"value":…` of what [`shown_value`] says a cell shows (nothing for a tombstone or a set's
/// cell); returns the note, if any.
fn shown_value_json<const P: bool>(
    rows: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    column: &ColumnSchema,
    cell: &CellView<'_>,
) -> Option<String> {
    match shown_value(column, cell) {
        ShownValue::None => None,
        ShownValue::Counter(total) => {
            rows.extend_from_slice(cell_member!(P, "value"));
            rows.push(b'"');
            push_i64(rows, total);
            rows.push(b'"');
            None
        }
        ShownValue::Typed(t, bytes) => {
            rows.extend_from_slice(cell_member!(P, "value"));
            json_value(rows, scratch, t, bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::data::{DataSchema, DeltaBase};
    use crate::dump::json::key;
    use crate::version::{Format, Version};

    /// What the [`Json`] emitter writes for a cell's opening (after another cell) up to the
    /// member that follows its name, in either layout.
    fn json_opening(pretty: bool, name: &str, complex: bool) -> (Vec<u8>, Vec<u8>) {
        let mut out = Vec::new();
        // The row's `cells` array: depth 4 inside it, after a cell.
        let mut j = Json::new(pretty, 4);
        j.first = false;
        j.elem(&mut out);
        j.begin_object(&mut out);
        key!(j, &mut out, "name");
        string(&mut out, name);
        let opening = out.clone();
        if complex {
            key!(j, &mut out, "path");
            j.begin_array(&mut out);
            j.elem(&mut out);
        } else {
            key!(j, &mut out, "value");
        }
        (opening, out)
    }

    #[test]
    fn each_layouts_plan_holds_what_the_json_emitter_writes() {
        let long = "a".repeat(100);
        let names = ["v", "v_list", "quote\"d", long.as_str()];
        let columns: Vec<(String, AbstractType)> = names
            .iter()
            .flat_map(|n| {
                [
                    (n.to_string(), AbstractType::Int32),
                    (
                        format!("{n}_l"),
                        AbstractType::List {
                            element: Box::new(AbstractType::Utf8),
                            multi_cell: true,
                        },
                    ),
                ]
            })
            .collect();
        let schema = DataSchema::from_parts(
            Version::parse(Format::Big, "nb").unwrap(),
            AbstractType::Int32,
            vec![],
            vec![],
            columns,
            DeltaBase {
                min_timestamp_micros: 0,
                min_local_deletion_time_raw: 0,
                min_ttl_secs: 0,
                unsigned_deletion_time: false,
            },
        );
        let mut leads = 0;
        for pretty in [false, true] {
            for column in schema.columns(false) {
                let plan = CellPlan::new(column, pretty);
                let complex = column.kind == ColumnKind::Complex;
                let (opening, lead) = json_opening(pretty, &column.name, complex);
                assert_eq!(plan.opening, opening, "{} {pretty}", column.name);
                assert_eq!(plan.lead_len, lead.len(), "{} {pretty}", column.name);
                let block = if pretty {
                    PRETTY_LEAD_BLOCK
                } else {
                    LEAD_BLOCK
                };
                match plan.lead {
                    Some(b) => {
                        assert_eq!(&b[..lead.len()], &lead[..], "{} {pretty}", column.name);
                        assert!(b[lead.len()..].iter().all(|&z| z == 0));
                        leads += 1;
                    }
                    None => assert!(lead.len() > block, "{} {pretty}", column.name),
                }
            }
        }
        // The 100-byte name's leads fit neither block; every other lead fits.
        assert_eq!(leads, 2 * 6);
    }

    #[test]
    fn the_constant_members_are_what_the_json_emitter_writes() {
        for pretty in [false, true] {
            let member = |depth: usize, name: &'static str| {
                let mut out = Vec::new();
                let mut j = Json::new(pretty, depth);
                j.first = false;
                j.key(&mut out, name);
                out
            };
            assert_eq!(row_member!(pretty, "cells"), member(3, "cells"));
            assert_eq!(liveness_member!(pretty, "ttl"), member(4, "ttl"));
            assert_eq!(cell_member!(pretty, "tstamp"), member(5, "tstamp"));
            // A path's closing `]` and a row's cells' `]`, from inside their arrays.
            for (depth, text) in [(6, path_close(pretty)), (4, cells_close(pretty))] {
                let mut out = Vec::new();
                let mut j = Json::new(pretty, depth);
                j.first = false;
                j.end_array(&mut out);
                assert_eq!(text, out);
            }
        }
    }
}
