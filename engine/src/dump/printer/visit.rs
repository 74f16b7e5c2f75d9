//! [`DumpWriter`] as the borrowed decoder's [`DataVisitor`]: each event (partition start,
//! row, cell, marker, partition end) appended to the partition being rendered.
//!
//! Src: `tools/JsonTransformer.java`.

use crate::component::data::{
    CellKind, CellView, ClusteringValueState, ColumnSchema, ComplexColumnHead, DataVisitor,
    PartitionEnd, PartitionStart, RangeTombstoneMarker, RowEnd, RowView,
};
use crate::dump::json::push_i64;
use crate::dump::{header_json, marker_json};

use super::compact::cells_close;
use super::value::{push_iso_micros, push_iso_secs, render, render_path};
use super::{write_marker_json, DumpFormat, DumpWriter};

impl DataVisitor for DumpWriter<'_> {
    fn partition_start(&mut self, start: &PartitionStart) {
        self.settle_pending();
        self.skipping =
            !self.wanted_keys.is_empty() && !self.wanted_keys.contains(&start.key.bytes.bytes);
        self.rows.clear();
        self.rows_json.first = true;
        self.header = (!self.skipping).then(|| header_json(self.schema, start));
    }

    fn row_start(&mut self, row: &RowView<'_>) {
        if self.skipping {
            return;
        }
        self.cells_open = false;
        self.row_is_static = row.is_static;
        match self.format {
            DumpFormat::JsonLines => return self.row_start_json::<false>(row),
            DumpFormat::Json => return self.row_start_json::<true>(row),
            DumpFormat::Text => {}
        }
        let schema = self.schema;
        let kind = if row.is_static { "static_block" } else { "row" };
        let rows = &mut self.rows;
        {
            rows.extend_from_slice(b"  ");
            rows.extend_from_slice(kind.as_bytes());
            rows.extend_from_slice(b" at ");
            push_i64(rows, row.position as i64);
            if let Some(c) = &row.clustering {
                // `name=value` for each value that has a name (names and values zipped).
                let names = &self.clustering_names;
                let before = rows.len();
                let mut count = 0usize;
                rows.extend_from_slice(b" [");
                for v in c.values() {
                    let (i, state, bytes) = (v.index, v.state, v.bytes);
                    let Some(name) = names.get(i) else {
                        continue;
                    };
                    if count > 0 {
                        rows.extend_from_slice(b", ");
                    }
                    rows.extend_from_slice(name.as_bytes());
                    rows.push(b'=');
                    match state {
                        ClusteringValueState::Null => rows.extend_from_slice(b"null"),
                        ClusteringValueState::Empty => {}
                        ClusteringValueState::Present => {
                            let _ = render(rows, schema.clustering_types.get(i), bytes);
                        }
                    }
                    count = count.saturating_add(1);
                }
                if count == 0 {
                    rows.truncate(before);
                } else {
                    rows.push(b']');
                }
            }
            if let Some(l) = &row.liveness {
                rows.extend_from_slice(b" ts=");
                push_iso_micros(rows, l.timestamp_micros.value);
                if let Some(ttl) = &l.ttl_secs {
                    rows.extend_from_slice(b" ttl=");
                    push_i64(rows, i64::from(ttl.value));
                }
            }
            if let Some(d) = &row.deletion {
                rows.extend_from_slice(b" DELETED at ");
                push_iso_micros(rows, d.time.marked_for_delete_at_micros);
            }
            rows.push(b'\n');
        }
    }

    fn complex_column_start(&mut self, _column: &ColumnSchema, _head: &ComplexColumnHead) {}

    fn cell(&mut self, column: &ColumnSchema, cell: &CellView<'_>) {
        if self.skipping {
            return;
        }
        match self.format {
            DumpFormat::JsonLines => return self.cell_json::<false>(column, cell),
            DumpFormat::Json => return self.cell_pretty(column, cell),
            DumpFormat::Text => {}
        }
        let (has_value, note) = self.cell_value(column, cell);
        let expiring = cell.is_expiring();
        let tombstone = cell.kind == CellKind::Tombstone;
        let rows = &mut self.rows;
        // The value is in `scratch`; the path goes after it.
        let value_end = self.scratch.len();
        if let Some(p) = cell.path {
            render_path(&mut self.scratch, &column.column_type, p);
        }
        let (value, path) = self.scratch.split_at(value_end);
        rows.extend_from_slice(b"    ");
        rows.extend_from_slice(column.name.as_bytes());
        if cell.path.is_some() {
            rows.push(b'[');
            rows.extend_from_slice(path);
            rows.push(b']');
        }
        if tombstone {
            rows.extend_from_slice(b" = <tombstone, deleted ");
            if let Some(l) = cell.local_deletion_time {
                push_iso_secs(rows, l.secs);
            }
            rows.push(b'>');
        } else if has_value {
            rows.extend_from_slice(b" = ");
            rows.extend_from_slice(value);
        }
        if let Some(ttl) = cell.ttl_secs.filter(|_| expiring) {
            rows.extend_from_slice(b" (ttl ");
            push_i64(rows, i64::from(ttl));
            rows.extend_from_slice(b", expires ");
            match cell.local_deletion_time {
                Some(l) => push_iso_secs(rows, l.expiry_secs()),
                None => rows.push(b'?'),
            }
            rows.push(b')');
        }
        if expiring && cell.kind == CellKind::Expired {
            rows.extend_from_slice(b" EXPIRED");
        }
        if let Some(n) = &note {
            rows.extend_from_slice(b" [");
            rows.extend_from_slice(n.as_bytes());
            rows.push(b']');
        }
        rows.push(b'\n');
    }

    fn complex_column_end(&mut self, _end: u64) {}

    fn row_end(&mut self, end: &RowEnd<'_>) {
        if self.skipping {
            return;
        }
        let json = self.json();
        let rows = &mut self.rows;
        if !json {
            for f in end.findings {
                rows.extend_from_slice(b"    finding: ");
                rows.extend_from_slice(f.message.as_bytes());
                rows.push(b'\n');
            }
            return;
        }
        let j = &mut self.row_json;
        if self.cells_open {
            rows.extend_from_slice(cells_close(j.pretty));
        }
        if !end.findings.is_empty() {
            j.strings_member(
                rows,
                "findings",
                end.findings.iter().map(|f| Some(f.message.as_str())),
            );
        }
        j.end_object(rows);
        self.rows_json.first = false;
    }

    fn range_tombstone_marker(&mut self, marker: &RangeTombstoneMarker) {
        if self.skipping {
            return;
        }
        let u = marker_json(self.schema, marker);
        let json = self.json();
        let rows = &mut self.rows;
        if json {
            let mut j = self.rows_json;
            j.elem(rows);
            write_marker_json(&mut j, rows, &u);
            self.rows_json.first = false;
            return;
        }
        rows.extend_from_slice(b"  ");
        rows.extend_from_slice(u.r#type.as_bytes());
        rows.extend_from_slice(b" at ");
        push_i64(rows, u.position as i64);
        for (side, b) in [("start", &u.start), ("end", &u.end)] {
            if let Some(b) = b {
                rows.push(b' ');
                rows.extend_from_slice(side.as_bytes());
                rows.push(b' ');
                rows.extend_from_slice(b.r#type.as_bytes());
                rows.extend_from_slice(b" [");
                for (i, v) in b.clustering.iter().enumerate() {
                    if i > 0 {
                        rows.extend_from_slice(b", ");
                    }
                    rows.extend_from_slice(v.as_deref().unwrap_or("null").as_bytes());
                }
                rows.extend_from_slice(b"] deleted ");
                rows.extend_from_slice(b.deletion_info.marked_deleted.as_bytes());
            }
        }
        rows.push(b'\n');
        for f in &u.findings {
            rows.extend_from_slice(b"    finding: ");
            rows.extend_from_slice(f.as_bytes());
            rows.push(b'\n');
        }
    }

    fn partition_end(&mut self, end: &PartitionEnd) {
        if self.skipping {
            self.skipping = false;
            return;
        }
        let Some(mut header) = self.header.take() else {
            return;
        };
        header
            .findings
            .extend(end.findings.iter().map(|f| f.message.clone()));
        self.write_partition(&header);
    }
}
