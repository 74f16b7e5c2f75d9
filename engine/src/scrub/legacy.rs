//! Rewrite (upgrade) of a pre-3.0 SSTable (`jb`, `ka`, `la`) as `nb`/`oa` with a schema from a
//! `CREATE TABLE` statement (2.x records none): `sstableupgrade` without a node
//! (`db/compaction/Upgrader.java`, `db/LegacyLayout.java` for how atoms become rows).
//!
//! | atom (CQL3, non-compact table) | model |
//! |---|---|
//! | cell named `ck…, ""` (the row marker) | the row's liveness (timestamp, TTL) |
//! | cell named `ck…, column` | the column's cell (live, expiring, tombstone, counter context) |
//! | cell named `ck…, column, key` | a cell of the collection `column`, path `key` |
//! | a static cell (`0xFFFF` prefix) | the static row |
//! | a range tombstone over one whole row | the row deletion |
//! | a range tombstone over one collection | the collection's complex deletion |
//!
//! Not converted (an error naming the atom): COMPACT STORAGE tables, other range tombstones,
//! a deleted row marker. Any decode error stops the rewrite: corruption of 2.x files is not
//! scrubbed, only reported.

use crate::clock::Clock;
use crate::component::data::{DecodeOptions, PushDecoder};
use crate::component::legacy_data::{
    Atom, AtomBody, AtomKind, CellName, LegacyDataDecoder, LegacyDataFileReader, LegacyItem,
    LegacyLayout, LegacyStep,
};
use crate::component::ComponentType;
use crate::cql_schema::CqlTable;
use crate::error::{Error, Result};
use crate::metadata::SSTableMetadata;
use crate::range::{ByteRange, RangeReader};
use crate::version::Version;
use crate::write::decoded::model_deletion;
use crate::write::model::{
    Cell, CellValue, ColumnData, Expiry, Liveness, ModelDeletion, Partition, Row, Unfiltered,
};
use crate::write::{
    ColumnDef, ComponentSink, SSTableWriter, TableSchema, WriteOptions, WriteSummary,
};

/// The rewrite of one 2.x SSTable into one writer.
pub struct LegacyRewriter<S: ComponentSink> {
    data: LegacyDataFileReader,
    writer: Option<SSTableWriter<S>>,
    schema: TableSchema,
    clustering: usize,
    partition: Option<Partition>,
    /// The row being collected: (is static, row).
    row: Option<(bool, Row)>,
    /// Range tombstones already taken in this partition (2.x repeats them at index blocks).
    seen: Vec<(Vec<u8>, Vec<u8>)>,
    error: Option<Error>,
    done: bool,
    partitions: u64,
}

impl<S: ComponentSink> core::fmt::Debug for LegacyRewriter<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LegacyRewriter")
            .field("partitions", &self.partitions)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

fn atom_error(a: &Atom<'_>, msg: impl Into<String>) -> Error {
    Error::invalid(msg, a.position).in_component(ComponentType::Data)
}

/// The writer's schema for a non-compact CQL table (`table`, as `cql_schema` parses it).
pub fn schema_from_cql(table: &CqlTable, compact_storage: bool) -> Result<TableSchema> {
    if compact_storage {
        return Err(Error::invalid(
            "COMPACT STORAGE tables are not rewritten from 2.x",
            0,
        ));
    }
    let layout = LegacyLayout::from_cql(table, false).map_err(|e| Error::invalid(e, 0))?;
    let key_types = match layout.key_type.clone() {
        Some(crate::types::AbstractType::Composite(parts)) => parts,
        Some(t) => vec![t],
        None => return Err(Error::invalid("the table has no partition key", 0)),
    };
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
        .map(|(n, t)| ColumnDef::new(n, t.clone()))
        .collect();
    TableSchema::new(key_types, layout.clustering_types, statics, regular)
}

impl<S: ComponentSink> LegacyRewriter<S> {
    /// A rewrite of `metadata`'s 2.x SSTable with `schema` ([`schema_from_cql`]).
    pub fn new(
        metadata: &SSTableMetadata,
        schema: TableSchema,
        version: Version,
        sink: S,
    ) -> Result<Self> {
        let data = LegacyDataFileReader::for_sstable(metadata, DecodeOptions::default())?;
        let mut options = WriteOptions::new(version);
        options.partitioner = metadata.partitioner();
        options.expected_keys = metadata
            .statistics
            .as_ref()
            .and_then(|s| s.estimated_partition_count())
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(1)
            .clamp(1, 1 << 32);
        let clustering = schema.clustering_types().len();
        let writer = SSTableWriter::new(schema.clone(), options, sink)?;
        Ok(LegacyRewriter {
            data,
            writer: Some(writer),
            schema,
            clustering,
            partition: None,
            row: None,
            seen: Vec::new(),
            error: None,
            done: false,
            partitions: 0,
        })
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The error that stopped the rewrite, if any.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The sink and the summary; an error if the rewrite stopped or wrote nothing.
    pub fn finish(mut self) -> core::result::Result<(S, WriteSummary), (Error, Option<S>)> {
        let writer = self.writer.take();
        if let Some(e) = self.error.take() {
            return Err((e, writer.map(SSTableWriter::into_sink)));
        }
        match writer {
            Some(w) => w.finish().map_err(|e| (e, None)),
            None => Err((Error::invalid("the rewrite wrote nothing", 0), None)),
        }
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.done = true;
    }

    fn advance(&mut self) {
        while !self.done {
            let step = match self.data.next_item() {
                Ok(s) => s,
                Err(e) => return self.fail(e),
            };
            if LegacyDataDecoder::needs_more_data(&step) {
                return;
            }
            let result = match step {
                LegacyStep::Finished => {
                    self.done = true;
                    return;
                }
                LegacyStep::NeedMoreData => return,
                LegacyStep::Item(item) => take(
                    &item,
                    &self.schema,
                    self.clustering,
                    &mut self.partition,
                    &mut self.row,
                    &mut self.seen,
                ),
            };
            match result {
                Ok(Some(p)) => {
                    let written = match self.writer.as_mut() {
                        Some(w) => w.append(&p),
                        None => Ok(()),
                    };
                    if let Err(e) = written {
                        return self.fail(e);
                    }
                    self.partitions = self.partitions.saturating_add(1);
                }
                Ok(None) => {}
                Err(e) => return self.fail(e),
            }
        }
    }
}

/// Takes one item; returns the partition it ends.
fn take(
    item: &LegacyItem<'_>,
    schema: &TableSchema,
    clustering: usize,
    partition: &mut Option<Partition>,
    row: &mut Option<(bool, Row)>,
    seen: &mut Vec<(Vec<u8>, Vec<u8>)>,
) -> Result<Option<Partition>> {
    match item {
        LegacyItem::PartitionStart(s) => {
            let mut p = Partition::new(s.key.bytes.bytes.clone());
            p.deletion = model_deletion(&s.deletion);
            *partition = Some(p);
            *row = None;
            seen.clear();
            Ok(None)
        }
        LegacyItem::PartitionEnd(_) => {
            flush(partition, row);
            Ok(partition.take())
        }
        LegacyItem::Atom(a) => {
            let name = CellName::parse(a.name, a.name_span.start, Some(true));
            let CellName::Composite {
                is_static,
                components,
            } = &name
            else {
                return Err(atom_error(
                    a,
                    "a cell name that is not a CompositeType name",
                ));
            };
            let values: Vec<&[u8]> = components.iter().map(|c| c.value).collect();
            let none: &[&[u8]] = &[];
            let (row_values, rest) = if *is_static {
                (none, values.as_slice())
            } else {
                values
                    .split_at_checked(clustering)
                    .unwrap_or((values.as_slice(), none))
            };
            if !*is_static && row_values.len() < clustering {
                return Err(atom_error(a, "a cell name shorter than the clustering"));
            }
            let key: Vec<Vec<u8>> = row_values.iter().map(|v| v.to_vec()).collect();
            let same = row
                .as_ref()
                .is_some_and(|(s, r)| *s == *is_static && r.clustering == key);
            if !same {
                flush(partition, row);
                *row = Some((*is_static, Row::new(key)));
            }
            let Some((_, r)) = row.as_mut() else {
                return Ok(None);
            };
            match &a.body {
                AtomBody::RangeTombstone(t) => {
                    if seen.iter().any(|(s, e)| s == a.name && e == t.end) {
                        return Ok(None);
                    }
                    seen.push((a.name.to_vec(), t.end.to_vec()));
                    let deletion = model_deletion(&t.deletion);
                    let end = CellName::parse(t.end, t.end_span.start, Some(true));
                    let end_values: Vec<&[u8]> = match &end {
                        CellName::Composite { components, .. } => {
                            components.iter().map(|c| c.value).collect()
                        }
                        CellName::Simple(_) => Vec::new(),
                    };
                    if end_values != values {
                        return Err(atom_error(a, "a range tombstone over several rows"));
                    }
                    match rest {
                        [] => r.deletion = deletion,
                        [column] => {
                            let index = column_index(schema, *is_static, column, a)?;
                            *complex(r, index, a)?.0 = deletion;
                        }
                        _ => return Err(atom_error(a, "a range tombstone inside a collection")),
                    }
                    Ok(None)
                }
                AtomBody::Cell(c) => {
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
                            return Err(atom_error(a, "a counter update is not written"))
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
                    match rest {
                        [&[]] => {
                            // The row marker.
                            let CellValue::Live { expiry, .. } = cell.value else {
                                return Err(atom_error(a, "a deleted row marker"));
                            };
                            r.liveness = Some(Liveness {
                                timestamp_micros: cell.timestamp_micros,
                                expiry,
                            });
                        }
                        [column] => {
                            let index = column_index(schema, *is_static, column, a)?;
                            r.columns.push(ColumnData::Simple {
                                column: index,
                                cell,
                            });
                        }
                        [column, path] => {
                            let index = column_index(schema, *is_static, column, a)?;
                            complex(r, index, a)?.1.push(cell.with_path(path.to_vec()));
                        }
                        _ => return Err(atom_error(a, "a cell name with too many components")),
                    }
                    Ok(None)
                }
            }
        }
    }
}

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

fn flush(partition: &mut Option<Partition>, row: &mut Option<(bool, Row)>) {
    let Some((is_static, mut r)) = row.take() else {
        return;
    };
    let Some(p) = partition.as_mut() else {
        return;
    };
    crate::sort::sort_by_key(&mut r.columns, ColumnData::column);
    if is_static {
        p.static_row = Some(r);
    } else if !r.is_empty() {
        p.unfiltereds.push(Unfiltered::Row(r));
    }
}

impl<S: ComponentSink> RangeReader for LegacyRewriter<S> {
    fn next_read(&self) -> Option<ByteRange> {
        if self.done {
            None
        } else {
            RangeReader::next_read(&self.data)
        }
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        if let Err(e) = self.data.supply(range, bytes, clock) {
            self.fail(e.clone());
            return Err(e);
        }
        self.advance();
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn abort(&mut self, _range: &ByteRange, error: &Error, _clock: &dyn Clock) {
        self.fail(error.clone());
    }
}
