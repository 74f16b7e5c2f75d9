//! `dump --jsonl`'s rows and cells written without the layout machinery of [`Json`]: compact
//! JSON has no indents, so each member is a constant `,"key":` copy, and a cell opens with one
//! copy of `,{"name":"…"` rendered once per column. Byte for byte what the [`Json`] path (and
//! so `serde_json::to_string` of [`PartitionJson`](crate::dump::PartitionJson)) writes; the
//! pretty `--json` layout keeps the [`Json`] path.
//!
//! Src: `tools/JsonTransformer.java`.

use crate::component::data::{
    CellKind, CellView, ClusteringValueState, ColumnSchema, RowView, USE_ROW_TIMESTAMP,
};
use crate::dump::json::{push_i64, push_u64, string, Json};

use super::value::{json_path, json_value, push_iso_secs};
use super::{shown_value, write_deletion_time, DumpWriter, ShownValue};

/// `,{"name":"<name>"`: a cell's opening with its column's name as a JSON string (the first
/// cell of a row skips the comma).
pub(super) fn cell_opening(name: &str) -> Vec<u8> {
    let mut opening = b",{\"name\":".to_vec();
    string(&mut opening, name);
    opening
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
                            let t = schema.clustering_types.get(v.index);
                            json_value(rows, scratch, t, v.bytes);
                        }
                    }
                }
                rows.push(b']');
            }
        }
        if let Some(l) = &row.liveness {
            rows.extend_from_slice(b",\"liveness_info\":{\"tstamp\":\"");
            self.iso_micros.push(rows, l.timestamp_micros.value);
            rows.push(b'"');
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
        let opening = self
            .cell_openings
            .get(usize::from(self.row_is_static))
            .and_then(|o| o.get(cell.column_index));
        let skip = if self.cells_open {
            0
        } else {
            rows.extend_from_slice(b",\"cells\":[");
            self.cells_open = true;
            1
        };
        match opening {
            Some(o) => rows.extend_from_slice(o.get(skip..).unwrap_or_default()),
            None => {
                rows.extend_from_slice(b",{\"name\":".get(skip..).unwrap_or_default());
                string(rows, &column.name);
            }
        }
        if let Some(p) = cell.path {
            rows.extend_from_slice(b",\"path\":[");
            json_path(rows, scratch, &column.column_type, p);
            rows.push(b']');
        }
        let note = match shown_value(column, cell) {
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
        };
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
            self.iso_micros.push(rows, cell.timestamp_micros);
            rows.push(b'"');
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
