//! The raw atoms of each partition, shaped like 2.x's `sstable2json`:
//! `{"partition": {"key", "key_hex", "position", "deletion_info"?}, "atoms": [{"type", "name":
//! [components…], "value"?, "tstamp", "ttl"?, "expires_at"?, "local_deletion_time"?, "end"?:
//! [components…]}], "atom_counts": {…}}`.
//!
//! Name components and values are rendered with the layout's types when it has them (the
//! clustering types for the leading components, the column's type for the value), else as text
//! when valid UTF-8 and `0x…` hex otherwise.
//!
//! Src: cassandra-2.1 `tools/SSTableExport.java` (`serializeAtom`, `serializeColumn`).

use serde::{Deserialize, Serialize};

use super::atom::{Atom, AtomBody, AtomKind};
use super::layout::LegacyLayout;
use super::name::untyped;
use super::name::CellName;
use super::stream::{AtomCounts, LegacyItem};
use crate::datetime::{iso8601_micros, iso8601_secs};
use crate::dump::DeletionInfoJson;
use crate::span::hex;
use crate::types::value::format_value;

/// One partition of the raw view.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct AtomPartitionJson {
    pub partition: AtomPartitionHeaderJson,
    pub atoms: Vec<AtomJson>,
    pub atom_counts: AtomCounts,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct AtomPartitionHeaderJson {
    /// The key: typed with a schema, else text or hex.
    pub key: String,
    pub key_hex: String,
    /// Uncompressed Data.db position of the partition.
    pub position: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_info: Option<DeletionInfoJson>,
}

/// One atom.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct AtomJson {
    /// `cell`, `deleted`, `expiring`, `counter`, `counter_update` or `range_tombstone`.
    #[serde(deserialize_with = "crate::dump::json_name")]
    pub r#type: crate::dump::JsonName,
    /// Uncompressed Data.db position of the atom.
    pub position: u64,
    /// The name's components (one for a non-composite name); a static name starts with
    /// `"static"`.
    pub name: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The timestamp in µs (for a range tombstone, its markedForDeleteAt).
    pub tstamp: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Deleted cells and range tombstones: the local deletion time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_deletion_time: Option<String>,
    /// Range tombstones: the end name's components.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<Vec<String>>,
    /// Counter cells: timestampOfLastDelete (µs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp_of_last_delete: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

/// Collects the raw atoms of each partition.
#[derive(Debug)]
pub struct AtomsBuilder {
    layout: LegacyLayout,
    current: Option<AtomPartitionJson>,
}

impl AtomsBuilder {
    pub fn new(layout: LegacyLayout) -> AtomsBuilder {
        AtomsBuilder {
            layout,
            current: None,
        }
    }

    /// Feeds one item; returns the partition at its end.
    pub fn push(&mut self, item: &LegacyItem<'_>) -> Option<AtomPartitionJson> {
        match item {
            LegacyItem::PartitionStart(p) => {
                let key = &p.key.bytes.bytes;
                self.current = Some(AtomPartitionJson {
                    partition: AtomPartitionHeaderJson {
                        key: match &self.layout.key_type {
                            Some(t) => format_value(t, key).text,
                            None => untyped(key).0,
                        },
                        key_hex: hex(key),
                        position: p.position,
                        deletion_info: (!p.deletion.is_live()).then(|| DeletionInfoJson {
                            marked_deleted: iso8601_micros(p.deletion.marked_for_delete_at_micros),
                            local_delete_time: iso8601_secs(p.deletion.local_deletion_time.secs),
                            invalid_local_delete_time: p.deletion.local_deletion_time.is_invalid(),
                        }),
                    },
                    atoms: Vec::new(),
                    atom_counts: AtomCounts::default(),
                });
                None
            }
            LegacyItem::Atom(a) => {
                let json = self.atom_json(a);
                if let Some(c) = self.current.as_mut() {
                    c.atoms.push(json);
                }
                None
            }
            LegacyItem::PartitionEnd(e) => {
                let mut done = self.current.take()?;
                done.atom_counts = e.atom_counts;
                Some(done)
            }
        }
    }

    fn name_json(&self, name: &CellName<'_>) -> Vec<String> {
        let mut out = Vec::new();
        if name.is_static() {
            out.push("static".to_owned());
        }
        let clustering = if name.is_static() {
            0
        } else {
            self.layout.clustering_size.unwrap_or(0)
        };
        for (i, v) in name.values().iter().enumerate() {
            out.push(
                match self
                    .layout
                    .clustering_types
                    .get(i)
                    .filter(|_| i < clustering)
                {
                    Some(t) => format_value(t, v).text,
                    None => untyped(v).0,
                },
            );
        }
        out
    }

    /// The atom in the raw view's shape.
    pub fn atom_json(&self, a: &Atom<'_>) -> AtomJson {
        let name = CellName::parse(a.name, a.name_span.start, self.layout.compound);
        let mut json = AtomJson {
            r#type: a.kind.name(),
            position: a.position,
            name: self.name_json(&name),
            value: None,
            tstamp: 0,
            ttl: None,
            expires_at: None,
            local_deletion_time: None,
            end: None,
            timestamp_of_last_delete: None,
            findings: a.findings.iter().map(|f| f.message.clone()).collect(),
        };
        match &a.body {
            AtomBody::RangeTombstone(t) => {
                let end = CellName::parse(t.end, t.end_span.start, self.layout.compound);
                json.end = Some(self.name_json(&end));
                json.tstamp = t.deletion.marked_for_delete_at_micros;
                json.local_deletion_time = Some(iso8601_secs(t.deletion.local_deletion_time.secs));
            }
            AtomBody::Cell(c) => {
                json.tstamp = c.timestamp_micros;
                json.timestamp_of_last_delete = c.timestamp_of_last_delete_micros;
                match a.kind {
                    AtomKind::Deleted => {
                        json.local_deletion_time = a
                            .local_deletion_time_secs()
                            .map(|s| iso8601_secs(i64::from(s)));
                    }
                    AtomKind::Counter => {
                        json.value = Some(match a.counter_context() {
                            Some(ctx) => ctx.total.to_string(),
                            None => format!("0x{}", hex(c.value)),
                        });
                    }
                    _ => {
                        let column = self.column_type_of(&name);
                        json.value = Some(match column {
                            Some(t) if !t.is_collection() => format_value(t, c.value).text,
                            _ => untyped(c.value).0,
                        });
                        if a.kind == AtomKind::Expiring {
                            json.ttl = c.ttl_secs;
                            json.expires_at = c
                                .local_expiration_time_secs
                                .map(|s| iso8601_secs(i64::from(s)));
                        }
                    }
                }
            }
        }
        json
    }

    fn column_type_of(&self, name: &CellName<'_>) -> Option<&crate::types::AbstractType> {
        let n = match name {
            CellName::Composite { .. } => self.layout.clustering_size?,
            CellName::Simple(_) => 0,
        };
        let place = self.layout.place(name, n);
        let column = self.layout.column_name(&place.column)?;
        self.layout.column_type(&String::from_utf8_lossy(column))
    }
}
