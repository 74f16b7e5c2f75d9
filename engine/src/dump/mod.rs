//! Data.db partitions as sstabledump prints them (`tools/JsonTransformer.java`): the JSON shape of
//! `sstable-inspect dump --json` and of the page's export, with values rendered like cqlsh.
//!
//! A [`PartitionJson`] is built from the items of one partition ([`PartitionBuilder`]), so a
//! caller streams partitions one at a time and memory stays bounded by one partition (the
//! page's export). [`DumpWriter`] writes the same output (text, JSON, JSON lines) straight
//! from the borrowed decoder into a byte buffer (the CLI's `dump`).

mod cqlsh;
mod json;
mod printer;

pub use cqlsh::multi_cell_literal;
pub use printer::{DumpFormat, DumpWriter};

use serde::{Deserialize, Deserializer, Serialize};

use crate::component::data::{
    Cell, CellKind, ClusteringValueBuf, ClusteringValueState, ColumnData, DataItem, DataSchema,
    DeletionTime, MarkerDeletion, PartitionStart, RangeTombstoneMarker, Row,
};
use crate::datetime::{iso8601_micros, iso8601_secs};
use crate::types::value::{format_cell_path, format_value};
use crate::types::AbstractType;

/// `{"partition": {...}, "rows": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionJson {
    pub partition: PartitionHeaderJson,
    pub rows: Vec<UnfilteredJson>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionHeaderJson {
    /// The key's components, rendered per the key type.
    pub key: Vec<String>,
    /// The raw key bytes in hex.
    pub key_hex: String,
    /// Uncompressed Data.db position of the partition.
    pub position: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_info: Option<DeletionInfoJson>,
    /// Decoder findings inside this partition (size mismatches, invalid deletion times, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeletionInfoJson {
    pub marked_deleted: String,
    pub local_delete_time: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invalid_local_delete_time: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LivenessJson {
    pub tstamp: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundJson {
    /// `inclusive` or `exclusive`.
    #[serde(deserialize_with = "json_name")]
    pub r#type: JsonName,
    pub clustering: Vec<Option<String>>,
    pub deletion_info: DeletionInfoJson,
}

/// One row, static row or range-tombstone marker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnfilteredJson {
    /// `row`, `static_block`, `range_tombstone_bound` or `range_tombstone_boundary`.
    #[serde(deserialize_with = "json_name")]
    pub r#type: JsonName,
    pub position: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clustering: Vec<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub liveness_info: Option<LivenessJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_info: Option<DeletionInfoJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<BoundJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<BoundJson>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellJson>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CellJson {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Why the value is shown as hex (malformed or unknown), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_info: Option<CellDeletionJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tstamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired: Option<bool>,
    /// Counter cells: the shards whose counts add up to `value`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellDeletionJson {
    pub local_delete_time: String,
}

/// Every `type` name the JSON shapes of this module and of the 2.x atoms use.
const JSON_NAMES: [&str; 12] = [
    "row",
    "static_block",
    "range_tombstone_bound",
    "range_tombstone_boundary",
    "inclusive",
    "exclusive",
    "cell",
    "deleted",
    "expiring",
    "counter",
    "counter_update",
    "range_tombstone",
];

/// A `type` name of [`JSON_NAMES`]. An alias, not `&'static str` written out: serde's derive
/// borrows a field written as `&str` from the input, which a value crossing from a worker
/// cannot lend.
pub type JsonName = &'static str;

/// Reads a `type` name back (a page worker sends pages to the UI thread as serde values): one of
/// [`JSON_NAMES`], else an error.
pub fn json_name<'de, D: Deserializer<'de>>(d: D) -> Result<JsonName, D::Error> {
    let name = String::deserialize(d)?;
    JSON_NAMES
        .iter()
        .find(|n| **n == name)
        .copied()
        .ok_or_else(|| serde::de::Error::unknown_variant(&name, &JSON_NAMES))
}

/// A `DeletionTime` as sstabledump prints it (`deletion_info`); the 2.x row grouper uses it too.
pub(crate) fn deletion_json(d: &DeletionTime) -> DeletionInfoJson {
    DeletionInfoJson {
        marked_deleted: iso8601_micros(d.marked_for_delete_at_micros),
        local_delete_time: iso8601_secs(d.local_deletion_time.secs),
        invalid_local_delete_time: d.local_deletion_time.is_invalid(),
    }
}

fn clustering_json(schema: &DataSchema, values: &[ClusteringValueBuf]) -> Vec<Option<String>> {
    values
        .iter()
        .map(|v| match v.state {
            ClusteringValueState::Null => None,
            ClusteringValueState::Empty => Some(String::new()),
            ClusteringValueState::Present => {
                Some(render(schema.clustering_types.get(v.index), &v.bytes).0)
            }
        })
        .collect()
}

fn render(t: Option<&AbstractType>, bytes: &[u8]) -> (String, Option<String>) {
    match t {
        Some(t) => {
            let f = format_value(t, bytes);
            (f.text, f.note)
        }
        None => (
            format!("0x{}", hex(bytes)),
            Some("no type for this value".to_owned()),
        ),
    }
}

pub(crate) use crate::span::hex;

fn cell_json(schema: &DataSchema, is_static: bool, cell: &Cell) -> CellJson {
    let column = schema.columns(is_static).get(cell.column_index);
    let name = column.map_or_else(
        || format!("column #{}", cell.column_index),
        |c| c.name.clone(),
    );
    let path = cell.path.as_ref().map(|p| {
        let rendered = column.map_or_else(
            || format!("0x{}", hex(&p.bytes)),
            |c| format_cell_path(&c.column_type, &p.bytes),
        );
        vec![rendered]
    });
    let value_type =
        column.and_then(|c| c.cell_value_type(cell.path.as_ref().map(|p| p.bytes.as_slice())));
    let (value, value_note) = if cell.kind == CellKind::Tombstone {
        (None, None)
    } else if let Some(counter) = &cell.counter {
        (Some(counter.total.to_string()), None)
    } else if value_type.is_none() && cell.value.bytes.is_empty() {
        // A set element: the path is the value.
        (None, None)
    } else {
        let (text, note) = render(value_type, &cell.value.bytes);
        (Some(text), note)
    };
    let expiring = matches!(cell.kind, CellKind::Expiring | CellKind::Expired);
    CellJson {
        name,
        path,
        value,
        value_note,
        deletion_info: (cell.kind == CellKind::Tombstone).then(|| CellDeletionJson {
            local_delete_time: cell
                .local_deletion_time
                .map_or_else(String::new, |l| iso8601_secs(l.secs)),
        }),
        tstamp: cell
            .timestamp_span
            .map(|_| iso8601_micros(cell.timestamp_micros)),
        ttl: cell.ttl_secs.filter(|_| expiring),
        expires_at: expiring
            .then(|| {
                cell.local_deletion_time
                    .map(|l| iso8601_secs(l.expiry_secs()))
            })
            .flatten(),
        expired: expiring.then_some(cell.kind == CellKind::Expired),
        shards: cell
            .counter
            .iter()
            .flat_map(|c| c.shards.iter())
            .map(|s| {
                format!(
                    "{:?} {} clock {} count {}",
                    s.kind, s.counter_id, s.clock, s.count
                )
            })
            .collect(),
    }
}

fn row_json(schema: &DataSchema, row: &Row, now_seconds: Option<i64>) -> UnfilteredJson {
    let liveness_info = row.liveness.as_ref().map(|l| {
        let expires = l
            .local_expiration_time
            .as_ref()
            .map(|e| e.value.expiry_secs());
        LivenessJson {
            tstamp: iso8601_micros(l.timestamp_micros.value),
            ttl: l.ttl_secs.as_ref().map(|t| t.value),
            expires_at: expires.map(iso8601_secs),
            expired: expires.zip(now_seconds).map(|(e, now)| e <= now),
        }
    });
    let mut cells = Vec::new();
    for data in &row.column_data {
        match data {
            ColumnData::Simple(c) => cells.push(cell_json(schema, row.is_static, c)),
            ColumnData::Complex(c) => cells.extend(
                c.cells
                    .iter()
                    .map(|cell| cell_json(schema, row.is_static, cell)),
            ),
        }
    }
    UnfilteredJson {
        r#type: if row.is_static { "static_block" } else { "row" },
        position: row.position,
        clustering: row
            .clustering
            .as_ref()
            .map(|c| clustering_json(schema, &c.values))
            .unwrap_or_default(),
        liveness_info,
        deletion_info: row.deletion.as_ref().map(|d| deletion_json(&d.time)),
        start: None,
        end: None,
        cells,
        findings: row.findings.iter().map(|f| f.message.clone()).collect(),
    }
}

fn marker_json(schema: &DataSchema, m: &RangeTombstoneMarker) -> UnfilteredJson {
    let kind = m.bound.kind;
    let clustering = clustering_json(schema, &m.bound.values);
    let name = kind.name();
    let inclusive = |start: bool| {
        // INCL_START_BOUND / INCL_END_BOUND, and for boundaries which side is inclusive.
        let lower = name.to_ascii_lowercase();
        let side = if start { "start" } else { "end" };
        if lower.contains(&format!("incl_{side}")) || lower.contains(&format!("inclusive_{side}")) {
            "inclusive"
        } else {
            "exclusive"
        }
    };
    let (r#type, start, end) = match &m.deletion {
        MarkerDeletion::Bound(d) => {
            let b = BoundJson {
                r#type: inclusive(kind.is_start()),
                clustering: clustering.clone(),
                deletion_info: deletion_json(d),
            };
            if kind.is_start() {
                ("range_tombstone_bound", Some(b), None)
            } else {
                ("range_tombstone_bound", None, Some(b))
            }
        }
        MarkerDeletion::Boundary { end, start } => (
            "range_tombstone_boundary",
            Some(BoundJson {
                r#type: inclusive(true),
                clustering: clustering.clone(),
                deletion_info: deletion_json(start),
            }),
            Some(BoundJson {
                r#type: inclusive(false),
                clustering: clustering.clone(),
                deletion_info: deletion_json(end),
            }),
        ),
    };
    UnfilteredJson::range_tombstone_marker(
        r#type,
        m.position,
        start,
        end,
        m.findings.iter().map(|f| f.message.clone()).collect(),
    )
}

impl UnfilteredJson {
    /// A range-tombstone marker (`range_tombstone_bound` or `_boundary`): its bounds, no cells
    /// (3.0+ markers and the 2.x grouper's bounds alike).
    pub(crate) fn range_tombstone_marker(
        r#type: &'static str,
        position: u64,
        start: Option<BoundJson>,
        end: Option<BoundJson>,
        findings: Vec<String>,
    ) -> UnfilteredJson {
        UnfilteredJson {
            r#type,
            position,
            clustering: Vec::new(),
            liveness_info: None,
            deletion_info: None,
            start,
            end,
            cells: Vec::new(),
            findings,
        }
    }
}

fn header_json(schema: &DataSchema, p: &PartitionStart) -> PartitionHeaderJson {
    let key = if p.key.components.is_empty() {
        vec![render(Some(&schema.key_type), &p.key.bytes.bytes).0]
    } else {
        p.key
            .components
            .iter()
            .map(|c| {
                render(
                    schema
                        .key_component_types
                        .get(c.index)
                        .or(Some(&schema.key_type)),
                    &c.value.bytes,
                )
                .0
            })
            .collect()
    };
    PartitionHeaderJson {
        key,
        key_hex: hex(&p.key.bytes.bytes),
        position: p.position,
        deletion_info: (!p.deletion.is_live()).then(|| deletion_json(&p.deletion)),
        findings: p.findings.iter().map(|f| f.message.clone()).collect(),
    }
}

/// Collects the items of one partition; [`PartitionBuilder::push`] returns the partition when its
/// end arrives.
#[derive(Debug, Default)]
pub struct PartitionBuilder {
    current: Option<PartitionJson>,
    /// "now" for the `expired` flag of expiring rows.
    pub now_seconds: Option<i64>,
}

impl PartitionBuilder {
    pub fn new(now_seconds: Option<i64>) -> Self {
        PartitionBuilder {
            current: None,
            now_seconds,
        }
    }

    /// Feeds one item; returns a finished partition at its end.
    pub fn push(&mut self, schema: &DataSchema, item: &DataItem) -> Option<PartitionJson> {
        match item {
            DataItem::PartitionStart(p) => {
                self.current = Some(PartitionJson {
                    partition: header_json(schema, p),
                    rows: Vec::new(),
                });
                None
            }
            DataItem::StaticRow(r) | DataItem::Row(r) => {
                let json = row_json(schema, r, self.now_seconds);
                if let Some(c) = self.current.as_mut() {
                    c.rows.push(json);
                }
                None
            }
            DataItem::RangeTombstoneMarker(m) => {
                let json = marker_json(schema, m);
                if let Some(c) = self.current.as_mut() {
                    c.rows.push(json);
                }
                None
            }
            DataItem::PartitionEnd(e) => {
                let mut done = self.current.take()?;
                done.partition
                    .findings
                    .extend(e.findings.iter().map(|f| f.message.clone()));
                Some(done)
            }
        }
    }
}
