//! Partitions as the 3.0+ decoder gives them ([`DataItem`]s), turned into the writer's model
//! ([`Partition`]) so that [`SSTableWriter`](super::SSTableWriter) writes them again: what
//! `sstablescrub` and `sstableupgrade` do with Cassandra's `UnfilteredRowIterator`s
//! (`db/compaction/Scrubber.java`, `db/compaction/Upgrader.java`).
//!
//! | decoded | model | note |
//! |---|---|---|
//! | `PartitionStart` key, deletion | [`Partition::key`], [`Partition::deletion`] | |
//! | `LivenessInfo` (TTL, local expiration time) | [`Liveness`] | |
//! | row / complex / marker `DeletionTime` | [`ModelDeletion`] | one that deletes nothing is LIVE |
//! | `Cell` live / expiring / expired / tombstone | [`CellValue`] | counter cells keep their CounterContext bytes |
//! | clustering value empty | empty value | a null value is not written (an error) |
//! | shadowable row deletions | — | not written (an error) |
//!
//! Local deletion times become the writer's unsigned seconds: `none` stays none; a pre-`oa`
//! time that overflowed i32 (CASSANDRA-14092) is read as the unsigned time it was meant to be.
//! Columns are mapped by name from the source header to the target schema.

use super::data::EncodingStats;
use super::model::{
    BoundKind, Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition,
    RangeTombstoneMarker, Row, Unfiltered, NO_DELETION_TIME,
};
use super::schema::{ColumnDef, TableSchema};
use crate::component::data::{
    self as decoded, CellKind, ClusteringPrefixKind, ClusteringValueBuf, ClusteringValueState,
    DataItem, DataSchema, DeletionTime, LocalDeletionTime, MarkerDeletion, PartitionStart,
};
use crate::error::{Error, Result};

/// The writer's schema for the table a decoded SSTable's header describes.
pub fn schema_from_data_schema(source: &DataSchema) -> Result<TableSchema> {
    let key_types = if source.composite_key {
        source.key_component_types.clone()
    } else {
        vec![source.key_type.clone()]
    };
    let columns = |cols: &[decoded::ColumnSchema]| {
        cols.iter()
            .map(|c| ColumnDef::new(c.name.clone(), c.column_type.clone()))
            .collect::<Vec<_>>()
    };
    TableSchema::new(
        key_types,
        source.clustering_types.clone(),
        columns(&source.static_columns),
        columns(&source.regular_columns),
    )
}

/// The source header's EncodingStats as the writer's (deltas stay as compact as they were).
pub fn encoding_stats_from(source: &DataSchema) -> EncodingStats {
    let base = &source.delta_base;
    EncodingStats {
        min_timestamp_micros: base.min_timestamp_micros,
        min_local_deletion_time_secs: model_ldt(&LocalDeletionTime::new(
            base.min_local_deletion_time_raw,
            base.unsigned_deletion_time,
        )),
        min_ttl_secs: base.min_ttl_secs,
    }
}

/// A decoded local deletion time in the writer's unsigned seconds.
pub fn model_ldt(ldt: &LocalDeletionTime) -> u32 {
    if ldt.is_none() {
        NO_DELETION_TIME
    } else if ldt.unsigned || ldt.secs < 0 {
        ldt.raw
    } else {
        u32::try_from(ldt.secs).unwrap_or(ldt.raw)
    }
}

/// A decoded `DeletionTime`; one that deletes nothing is LIVE.
pub fn model_deletion(d: &DeletionTime) -> ModelDeletion {
    if d.deletes_nothing() {
        ModelDeletion::LIVE
    } else {
        ModelDeletion::new(
            d.marked_for_delete_at_micros,
            model_ldt(&d.local_deletion_time),
        )
    }
}

/// Maps the source's column indexes (static and regular) to the target schema's.
#[derive(Debug, Clone)]
pub struct DecodedConverter {
    static_map: Vec<Option<usize>>,
    regular_map: Vec<Option<usize>>,
    clustering_columns: usize,
}

fn position_error(msg: impl Into<String>, position: u64) -> Error {
    Error::invalid(msg, position).in_component(crate::ComponentType::Data)
}

impl DecodedConverter {
    pub fn new(source: &DataSchema, target: &TableSchema) -> DecodedConverter {
        let map = |cols: &[decoded::ColumnSchema], is_static: bool| {
            cols.iter()
                .map(|c| target.column_index(is_static, &c.name))
                .collect()
        };
        DecodedConverter {
            static_map: map(&source.static_columns, true),
            regular_map: map(&source.regular_columns, false),
            clustering_columns: target.clustering_types().len(),
        }
    }

    fn column(&self, is_static: bool, index: usize, position: u64) -> Result<usize> {
        let map = if is_static {
            &self.static_map
        } else {
            &self.regular_map
        };
        map.get(index).copied().flatten().ok_or_else(|| {
            position_error(
                format!("column {index} of the source header is not in the target schema"),
                position,
            )
        })
    }

    fn cell(&self, c: &decoded::Cell, position: u64) -> Result<Cell> {
        let ldt = c.local_deletion_time.as_ref().map(model_ldt);
        let value = match c.kind {
            CellKind::Tombstone => CellValue::Tombstone {
                local_deletion_time_secs: ldt.unwrap_or(NO_DELETION_TIME),
            },
            CellKind::Live => CellValue::Live {
                value: c.value.bytes.clone(),
                expiry: None,
            },
            CellKind::Expiring | CellKind::Expired => {
                let (Some(ttl_secs), Some(local_expiration_time_secs)) = (c.ttl_secs, ldt) else {
                    return Err(position_error(
                        "an expiring cell without its TTL and expiration time",
                        position,
                    ));
                };
                CellValue::Live {
                    value: c.value.bytes.clone(),
                    expiry: Some(Expiry {
                        ttl_secs,
                        local_expiration_time_secs,
                    }),
                }
            }
        };
        Ok(Cell {
            timestamp_micros: c.timestamp_micros,
            path: c.path.as_ref().map(|p| p.bytes.clone()),
            value,
        })
    }

    fn clustering(&self, values: &[ClusteringValueBuf], position: u64) -> Result<Vec<Vec<u8>>> {
        values
            .iter()
            .map(|v| match v.state {
                ClusteringValueState::Null => Err(position_error(
                    "a null clustering value cannot be written",
                    position,
                )),
                ClusteringValueState::Empty => Ok(Vec::new()),
                ClusteringValueState::Present => Ok(v.bytes.clone()),
            })
            .collect()
    }

    /// A decoded row (static or regular) in the model.
    pub fn row(&self, r: &decoded::Row) -> Result<Row> {
        let position = r.position;
        if r.scylla_shadowable_deletion.is_some()
            || r.deletion.as_ref().is_some_and(|d| d.is_shadowable)
        {
            return Err(position_error(
                "a shadowable row deletion cannot be written",
                position,
            ));
        }
        let clustering = match &r.clustering {
            Some(c) if !r.is_static => {
                let values = self.clustering(&c.values, position)?;
                if values.len() != self.clustering_columns {
                    return Err(position_error(
                        format!(
                            "a row with {} clustering values for {} clustering columns",
                            values.len(),
                            self.clustering_columns
                        ),
                        position,
                    ));
                }
                values
            }
            _ => Vec::new(),
        };
        let liveness = r.liveness.as_ref().map(|l| Liveness {
            timestamp_micros: l.timestamp_micros.value,
            expiry: match (&l.ttl_secs, &l.local_expiration_time) {
                (Some(ttl), Some(ldt)) => Some(Expiry {
                    ttl_secs: ttl.value,
                    local_expiration_time_secs: model_ldt(&ldt.value),
                }),
                _ => None,
            },
        });
        let deletion = r
            .deletion
            .as_ref()
            .map_or(ModelDeletion::LIVE, |d| model_deletion(&d.time));
        let mut columns = Vec::with_capacity(r.column_data.len());
        for data in &r.column_data {
            let column = self.column(r.is_static, data.column_index(), position)?;
            columns.push(match data {
                decoded::ColumnData::Simple(c) => ColumnData::Simple {
                    column,
                    cell: self.cell(c, position)?,
                },
                decoded::ColumnData::Complex(c) => {
                    let mut cells = Vec::with_capacity(c.cells.len());
                    for cell in &c.cells {
                        cells.push(self.cell(cell, position)?);
                    }
                    ColumnData::Complex {
                        column,
                        deletion: c
                            .complex_deletion
                            .as_ref()
                            .map_or(ModelDeletion::LIVE, model_deletion),
                        cells,
                    }
                }
            });
        }
        crate::sort::sort_by_key(&mut columns, ColumnData::column);
        Ok(Row {
            clustering,
            liveness,
            deletion,
            columns,
        })
    }

    /// A decoded range tombstone bound or boundary in the model.
    pub fn marker(&self, m: &decoded::RangeTombstoneMarker) -> Result<RangeTombstoneMarker> {
        let kind = match m.bound.kind {
            ClusteringPrefixKind::ExclEndBound => BoundKind::ExclEnd,
            ClusteringPrefixKind::InclStartBound => BoundKind::InclStart,
            ClusteringPrefixKind::ExclEndInclStartBoundary => BoundKind::ExclEndInclStart,
            ClusteringPrefixKind::InclEndExclStartBoundary => BoundKind::InclEndExclStart,
            ClusteringPrefixKind::InclEndBound => BoundKind::InclEnd,
            ClusteringPrefixKind::ExclStartBound => BoundKind::ExclStart,
            other => {
                return Err(position_error(
                    format!("a marker of kind {} cannot be written", other.name()),
                    m.position,
                ))
            }
        };
        let values = self.clustering(&m.bound.values, m.position)?;
        Ok(match &m.deletion {
            MarkerDeletion::Bound(d) => {
                RangeTombstoneMarker::bound(kind, values, model_deletion(d))
            }
            MarkerDeletion::Boundary { end, start } => RangeTombstoneMarker::boundary(
                kind,
                values,
                model_deletion(end),
                model_deletion(start),
            ),
        })
    }
}

/// Collects one partition's decoded items into a model [`Partition`] (memory: one partition).
#[derive(Debug)]
pub struct PartitionCollector {
    converter: DecodedConverter,
    partition: Option<Partition>,
    /// Rows and markers taken into the open partition.
    unfiltereds: u64,
}

impl PartitionCollector {
    pub fn new(converter: DecodedConverter) -> PartitionCollector {
        PartitionCollector {
            converter,
            partition: None,
            unfiltereds: 0,
        }
    }

    pub fn converter(&self) -> &DecodedConverter {
        &self.converter
    }

    /// The partition being collected (rows so far), if one is open.
    pub fn open(&self) -> Option<&Partition> {
        self.partition.as_ref()
    }

    /// Takes the open partition as it stands (a partition cut short by an error).
    pub fn take_open(&mut self) -> Option<Partition> {
        self.unfiltereds = 0;
        self.partition.take()
    }

    /// Starts a partition.
    pub fn start(&mut self, start: &PartitionStart) {
        let mut p = Partition::new(start.key.bytes.bytes.clone());
        p.deletion = model_deletion(&start.deletion);
        self.partition = Some(p);
        self.unfiltereds = 0;
    }

    /// Takes one item; returns the partition when `item` ends it.
    pub fn push(&mut self, item: &DataItem) -> Result<Option<Partition>> {
        match item {
            DataItem::PartitionStart(s) => {
                self.start(s);
                Ok(None)
            }
            DataItem::StaticRow(r) => {
                let row = self.converter.row(r)?;
                let p = self.expect_open(r.position)?;
                if !row.is_empty() {
                    p.static_row = Some(row);
                }
                Ok(None)
            }
            DataItem::Row(r) => {
                let row = self.converter.row(r)?;
                let p = self.expect_open(r.position)?;
                // An empty row (nothing live, nothing deleted) holds no data: Cassandra's
                // writers never serialize one.
                if !row.is_empty() {
                    p.unfiltereds.push(Unfiltered::Row(row));
                }
                self.unfiltereds = self.unfiltereds.saturating_add(1);
                Ok(None)
            }
            DataItem::RangeTombstoneMarker(m) => {
                let marker = self.converter.marker(m)?;
                self.expect_open(m.position)?
                    .unfiltereds
                    .push(Unfiltered::Marker(marker));
                self.unfiltereds = self.unfiltereds.saturating_add(1);
                Ok(None)
            }
            DataItem::PartitionEnd(e) => {
                self.expect_open(e.position)?;
                self.unfiltereds = 0;
                Ok(self.partition.take())
            }
        }
    }

    fn expect_open(&mut self, position: u64) -> Result<&mut Partition> {
        self.partition
            .as_mut()
            .ok_or_else(|| position_error("an item outside a partition", position))
    }
}
