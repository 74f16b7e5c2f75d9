//! The merged read of one table: its SSTables' partitions merged in token order, each
//! partition's versions reconciled as Cassandra's read path does, with the SSTable every cell,
//! row marker and tombstone came from.
//!
//! | part | what | Src |
//! |---|---|---|
//! | [`inputs`] | a table's SSTables as merge inputs ([`MergeReader`] per SSTable); one partitioner, a schema for 2.x | `db/ColumnFamilyStore.java` (one table, one partitioner) |
//! | [`legacy`] | a 2.x SSTable's partitions as 3.0 items: atoms → rows ([`crate::write::legacy`]) → `oa` row format → decoded | `db/LegacyLayout.java`, `db/context/CounterContext.java` |
//! | [`output`] | the merged partitions, rows and markers with their SSTables, and the losses | |
//! | [`TableMerger`] | a k-way merge of the SSTables' Data.db in partitioner order (token, then key bytes); each input read by its own [`SyncDriver`], one partition at a time | `db/partitions/UnfilteredPartitionIterators.java` `merge` |
//! | `partition`, `rows` | one partition's versions merged: partition deletion, then the versions' rows and markers k-way in clustering order (range tombstones, rows, complex columns); each row's versions are moved into the merged row (no cell copied), losses are built only when explaining | `db/rows/UnfilteredRowIterators.java` `merge`, `db/rows/Rows.java`, `db/rows/RangeTombstoneMarker.java` |
//! | [`seek`] | the merge started at a key or token ([`TableMerger::seek`]): each SSTable's read positioned through its index (Summary.db sample and Index.db, or the BTI trie) | `BigTableReader.getPosition` / `BtiTableReader.getPosition` with `Operator.GE` |
//! | [`reconcile`] | two versions of a cell, liveness or deletion: which wins | `db/rows/Cells.java`, `db/Conflicts.java`, `db/LivenessInfo.java`, `db/DeletionTime.java` |
//! | `counter` | two versions of a counter cell: a tombstone wins, else the contexts merged | `db/rows/Cells.java` `resolveCounter`, `db/context/CounterContext.java` |
//! | [`zombies`] | resurrection risks: droppable tombstones that shadow data in another SSTable, and droppable tombstones that shadow nothing | `db/compaction/CompactionController.java` `getPurgeEvaluator`, `db/DeletionPurger.java` |
//!
//! Memory is bounded by the partitions being merged (one version per SSTable of the current
//! key) and each reader's window, never by the table. Inputs are the SSTables of one table, any
//! mix of the versions the decoder reads that share a partitioner: 3.0+ (ma … oa, da, ScyllaDB)
//! by their headers, 2.x (jb, ka, la) given the table's `CREATE TABLE` (2.x records no schema),
//! each partition turned into the 3.0 model as `db/LegacyLayout.java` reads it ([`legacy`]).
//! [`inputs`] builds them from each SSTable's decoded metadata and byte source — the one
//! constructor every front end calls. Each input's columns are matched to the first input's by
//! name (a column the first does not have is an error). An input whose Data.db fails to decode
//! stops the merge with a [`MergeError`] naming the SSTable, the component, the offset and the
//! partition it was reading: the merge never answers without it.
//!
//! Counter cells are reconciled by `counter` (`Cells.resolveCounter`,
//! `db/context/CounterContext.java`'s merge); [`MergedPartition::counter_merges`] counts the
//! cells whose contexts were merged.

mod context;
mod counter;
pub mod inputs;
pub mod legacy;
pub mod output;
mod partition;
pub mod reconcile;
mod rows;
pub mod seek;
pub mod zombies;

pub use inputs::{open_table, table_inputs, MergeReader, TableSSTable};
pub use output::{
    Beaten, Loss, LostKind, MergedMarker, MergedPartition, MergedRow, MergedUnfiltered, SourceId,
    TombstoneKind,
};
pub use seek::{SeekStart, SeekTo};

use core::cmp::Ordering;
use core::fmt;

use context::Context;
use partition::{merge_partition, SourcePartition};

use crate::clock::Clock;
use crate::component::data::{
    ColumnData, DataItem, DataSchema, DecodeOptions, DecodeStep, PartitionStart, Row,
};
use crate::component::ComponentType;
use crate::error::Error;
use crate::info::SSTableMetadata;
use crate::range::{RangeSource, SyncDriver};
use crate::token::Partitioner;

/// A merge failure: which SSTable, and the decoder's error (component, offset, what).
#[derive(Debug, Clone, PartialEq)]
pub struct MergeError {
    /// The SSTable's name as the caller gave it.
    pub sstable: String,
    /// The partition being read or merged (key bytes in hex), when there was one.
    pub partition_key_hex: Option<String>,
    /// The last partition this SSTable gave to the merge, when there was one: no partition
    /// after it could be reconciled.
    pub last_merged_key_hex: Option<String>,
    pub error: Error,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.sstable, self.error)?;
        match (&self.partition_key_hex, &self.last_merged_key_hex) {
            (Some(k), _) => write!(
                f,
                "; partition 0x{k} and those after it could not be reconciled"
            )?,
            (None, Some(last)) => {
                write!(f, "; the partitions after 0x{last} could not be reconciled")?
            }
            (None, None) => f.write_str("; no partition could be reconciled")?,
        }
        Ok(())
    }
}

impl std::error::Error for MergeError {}

/// One SSTable of the merge: its name, its Data.db reader ([`MergeReader`]: a 3.0+ SSTable's
/// with every chunk's checksum checked before use, or a 2.x SSTable's rows) and the source its
/// ranges are read from. A table's inputs are built by [`inputs::table_inputs`].
#[derive(Debug)]
pub struct MergeInput<S> {
    pub name: String,
    pub reader: MergeReader,
    pub driver: SyncDriver<S>,
}

impl<S: RangeSource> MergeInput<S> {
    pub fn new(name: impl Into<String>, reader: impl Into<MergeReader>, source: S) -> Self {
        MergeInput {
            name: name.into(),
            reader: reader.into(),
            driver: SyncDriver::new(source),
        }
    }

    /// The input of a decoded 3.0+ SSTable
    /// ([`CheckedDataReader::for_sstable`](crate::checked_data::CheckedDataReader::for_sstable));
    /// `options.now_seconds` decides which cells are expired. 2.x SSTables need the table's
    /// schema: [`inputs::table_inputs`].
    pub fn for_sstable(
        name: impl Into<String>,
        metadata: &SSTableMetadata,
        options: DecodeOptions,
        source: S,
    ) -> Result<Self, MergeError> {
        let name = name.into();
        match inputs::merge_reader(metadata, None, options) {
            Ok(reader) => Ok(MergeInput::new(name, reader, source)),
            Err(error) => Err(MergeError {
                sstable: name,
                partition_key_hex: None,
                last_merged_key_hex: None,
                error,
            }),
        }
    }
}

/// What the merge does besides merging.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeOptions {
    /// "Now" for row liveness expiry (cells are classified by the readers' own
    /// `DecodeOptions::now_seconds`; give both the same value).
    pub now_seconds: Option<i64>,
    /// Record every piece that lost and what beat it ([`MergedPartition::losses`]).
    pub explain: bool,
}

#[derive(Debug)]
struct Input<S> {
    name: String,
    reader: MergeReader,
    driver: SyncDriver<S>,
    /// This input's static / regular column index → the merge schema's.
    static_map: Vec<Option<usize>>,
    regular_map: Vec<Option<usize>>,
    /// The next partition's start, read ahead.
    peeked: Option<PartitionStart>,
    /// The key of the last partition read whole.
    last_key: Option<Vec<u8>>,
    finished: bool,
    /// After [`TableMerger::seek`], until a partition at or past the bound shows up: read
    /// past partitions before it.
    skipping: bool,
}

/// The k-way merge of one table's SSTables (see the [module docs](self)).
#[derive(Debug)]
pub struct TableMerger<S> {
    inputs: Vec<Input<S>>,
    schema: DataSchema,
    partitioner: Partitioner,
    options: MergeOptions,
    /// The first error; every later call returns it again.
    failed: Option<MergeError>,
    /// Where [`TableMerger::seek`] started the merge.
    start: Option<SeekTo>,
}

fn column_map(ours: &DataSchema, theirs: &DataSchema, is_static: bool) -> Vec<Option<usize>> {
    theirs
        .columns(is_static)
        .iter()
        .map(|c| {
            ours.columns(is_static)
                .iter()
                .position(|o| o.name == c.name)
        })
        .collect()
}

fn schema_error(sstable: &str, msg: String) -> MergeError {
    MergeError {
        sstable: sstable.to_owned(),
        partition_key_hex: None,
        last_merged_key_hex: None,
        error: Error::invalid(msg, 0).in_component(ComponentType::Statistics),
    }
}

impl<S: RangeSource> TableMerger<S> {
    /// Merges `inputs` (at least one) of a table whose keys are ordered by `partitioner`. The
    /// first input's schema is the merge's.
    pub fn new(
        inputs: Vec<MergeInput<S>>,
        partitioner: Partitioner,
        options: MergeOptions,
    ) -> Result<Self, MergeError> {
        let first = inputs
            .first()
            .ok_or_else(|| schema_error("(none)", "no SSTable to merge".to_owned()))?;
        let schema = first.reader.schema().clone();
        let mut out = Vec::with_capacity(inputs.len());
        for i in inputs {
            let theirs = i.reader.schema();
            if theirs.clustering_types != schema.clustering_types {
                return Err(schema_error(
                    &i.name,
                    "its clustering types differ from the first SSTable's".to_owned(),
                ));
            }
            let static_map = column_map(&schema, theirs, true);
            let regular_map = column_map(&schema, theirs, false);
            let missing = theirs
                .static_columns
                .iter()
                .zip(&static_map)
                .chain(theirs.regular_columns.iter().zip(&regular_map))
                .find(|(_, m)| m.is_none());
            if let Some((c, _)) = missing {
                return Err(schema_error(
                    &i.name,
                    format!("column {} is not in the first SSTable's schema", c.name),
                ));
            }
            out.push(Input {
                name: i.name,
                reader: i.reader,
                driver: i.driver,
                static_map,
                regular_map,
                peeked: None,
                last_key: None,
                finished: false,
                skipping: false,
            });
        }
        Ok(TableMerger {
            inputs: out,
            schema,
            partitioner,
            options,
            failed: None,
            start: None,
        })
    }

    /// Starts the merge (again) at the first partition at or after `to`: every input is
    /// positioned through its SSTable's index ([`seek`]; `metadata` holds the inputs' SSTables
    /// in input order), an SSTable whose partitions all sort before `to` is not read, and a
    /// partition before `to` that an input still meets (one read from its start) is read past,
    /// not merged. Errors name the SSTable; a merger that failed stays failed.
    pub fn seek(
        &mut self,
        metadata: &[&SSTableMetadata],
        to: SeekTo,
        clock: &dyn Clock,
    ) -> Result<(), MergeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if metadata.len() != self.inputs.len() {
            return Err(schema_error(
                "(none)",
                format!(
                    "{} SSTables' metadata for a merge of {}",
                    metadata.len(),
                    self.inputs.len()
                ),
            ));
        }
        for (input, m) in self.inputs.iter_mut().zip(metadata) {
            let positioned = seek::seek_start(m, &to, &mut input.driver, clock).and_then(|s| {
                let position = match s {
                    SeekStart::At(p) => Some(p),
                    SeekStart::FromStart => Some(0),
                    SeekStart::Past => None,
                };
                if let Some(p) = position {
                    input.reader.seek_to_partition(p)?;
                }
                Ok(position.is_some())
            });
            input.peeked = None;
            match positioned {
                Ok(reads) => {
                    input.finished = !reads;
                    input.skipping = reads;
                }
                Err(e) => {
                    let e = input.error(e);
                    self.failed = Some(e.clone());
                    return Err(e);
                }
            }
        }
        self.start = Some(to);
        Ok(())
    }

    /// The schema values are rendered with (the first input's).
    pub fn schema(&self) -> &DataSchema {
        &self.schema
    }

    /// The inputs' names, by [`SourceId`].
    pub fn source_names(&self) -> Vec<&str> {
        self.inputs.iter().map(|i| i.name.as_str()).collect()
    }

    /// The next merged partition in token order; `Ok(None)` after the last. A partition whose
    /// every version is shadowed is still returned (its tombstones are part of the answer).
    pub fn next_partition(
        &mut self,
        clock: &dyn Clock,
    ) -> Result<Option<MergedPartition>, MergeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.merge_next(clock);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    fn merge_next(&mut self, clock: &dyn Clock) -> Result<Option<MergedPartition>, MergeError> {
        let Some(parts) = self.next_versions(clock)? else {
            return Ok(None);
        };
        let mut ctx = Context::new(&self.schema, self.options.now_seconds, self.options.explain);
        Ok(merge_partition(parts, &mut ctx))
    }

    /// The next partition's version in each SSTable that holds it (in source order), unmerged:
    /// what [`zombies`] compares SSTable against SSTable. Errors are remembered as
    /// [`TableMerger::next_partition`] remembers them.
    pub(crate) fn next_partition_versions(
        &mut self,
        clock: &dyn Clock,
    ) -> Result<Option<Vec<SourcePartition>>, MergeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.next_versions(clock);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    /// The key of the partition [`TableMerger::next_partition`] returns next: each input's
    /// next partition header is read, nothing after it (a reader that stops at a key or token
    /// decides before the partition is read); `Ok(None)` after the last. Errors are remembered
    /// as [`TableMerger::next_partition`] remembers them.
    pub fn peek_key(&mut self, clock: &dyn Clock) -> Result<Option<&[u8]>, MergeError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let (start, partitioner) = (self.start.as_ref(), &self.partitioner);
        for input in &mut self.inputs {
            if let Err(e) = input.peek_from(start, partitioner, clock) {
                self.failed = Some(e.clone());
                return Err(e);
            }
        }
        Ok(self.smallest_peeked())
    }

    /// The smallest key of the inputs' peeked partition headers, in partitioner order.
    fn smallest_peeked(&self) -> Option<&[u8]> {
        let partitioner = &self.partitioner;
        let mut smallest: Option<&[u8]> = None;
        for i in &self.inputs {
            if let Some(p) = &i.peeked {
                let key = p.key.bytes.bytes.as_slice();
                if smallest.is_none_or(|s| partitioner.compare_keys(key, s) == Ordering::Less) {
                    smallest = Some(key);
                }
            }
        }
        smallest
    }

    fn next_versions(
        &mut self,
        clock: &dyn Clock,
    ) -> Result<Option<Vec<SourcePartition>>, MergeError> {
        let (start, partitioner) = (self.start.as_ref(), &self.partitioner);
        for input in &mut self.inputs {
            input.peek_from(start, partitioner, clock)?;
        }
        let Some(key) = self.smallest_peeked().map(<[u8]>::to_vec) else {
            return Ok(None);
        };
        let mut parts = Vec::new();
        for (source, input) in self.inputs.iter_mut().enumerate() {
            if input
                .peeked
                .as_ref()
                .is_some_and(|p| p.key.bytes.bytes == key)
            {
                parts.push(input.read_partition(source, clock)?);
            }
        }
        Ok(Some(parts))
    }
}

impl<S: RangeSource> Input<S> {
    fn error(&self, error: Error) -> MergeError {
        MergeError {
            sstable: self.name.clone(),
            partition_key_hex: self
                .peeked
                .as_ref()
                .map(|p| crate::span::hex(&p.key.bytes.bytes)),
            last_merged_key_hex: self.last_key.as_deref().map(crate::span::hex),
            error,
        }
    }

    fn next(&mut self, clock: &dyn Clock) -> Result<DecodeStep, MergeError> {
        match self.driver.next_item(&mut self.reader, clock) {
            Ok(step) => Ok(step),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Reads the next partition start unless one is waiting or the input is done.
    fn peek(&mut self, clock: &dyn Clock) -> Result<(), MergeError> {
        if self.peeked.is_some() || self.finished {
            return Ok(());
        }
        match self.next(clock)? {
            DecodeStep::Item(DataItem::PartitionStart(p)) => self.peeked = Some(p),
            DecodeStep::Finished => self.finished = true,
            DecodeStep::Item(other) => {
                return Err(self.error(
                    Error::invalid("expected a partition start", other.position())
                        .in_component(ComponentType::Data),
                ))
            }
            DecodeStep::NeedMoreData => {
                return Err(self.error(
                    Error::invalid("the driver returned no item", 0)
                        .in_component(ComponentType::Data),
                ))
            }
        }
        Ok(())
    }

    /// [`Input::peek`], reading past partitions before `start` while the input is skipping.
    fn peek_from(
        &mut self,
        start: Option<&SeekTo>,
        partitioner: &Partitioner,
        clock: &dyn Clock,
    ) -> Result<(), MergeError> {
        loop {
            self.peek(clock)?;
            let (Some(start), Some(p), true) = (start, &self.peeked, self.skipping) else {
                return Ok(());
            };
            if start.admits(partitioner, &p.key.bytes.bytes) {
                self.skipping = false;
                return Ok(());
            }
            self.skip_partition(clock)?;
        }
    }

    /// Reads past the peeked partition.
    fn skip_partition(&mut self, clock: &dyn Clock) -> Result<(), MergeError> {
        let Some(start) = self.peeked.take() else {
            return Ok(());
        };
        loop {
            match self.next(clock)? {
                DecodeStep::Item(DataItem::PartitionEnd(_)) => return Ok(()),
                DecodeStep::Item(DataItem::PartitionStart(p)) => {
                    return Err(self.error(
                        Error::invalid("a partition start inside a partition", p.position)
                            .in_component(ComponentType::Data),
                    ))
                }
                DecodeStep::Item(_) => {}
                DecodeStep::Finished | DecodeStep::NeedMoreData => {
                    return Err(self.error(
                        Error::invalid("Data.db ends inside a partition", start.position)
                            .in_component(ComponentType::Data),
                    ))
                }
            }
        }
    }

    /// The peeked partition's items up to its end, column indexes mapped to the merge's.
    fn read_partition(
        &mut self,
        source: SourceId,
        clock: &dyn Clock,
    ) -> Result<SourcePartition, MergeError> {
        let Some(start) = self.peeked.clone() else {
            return Err(self.error(Error::invalid("no partition to read", 0)));
        };
        let mut static_row = None;
        let mut unfiltereds = Vec::new();
        loop {
            match self.next(clock)? {
                DecodeStep::Item(DataItem::StaticRow(r)) => {
                    static_row = Some(self.remap(r)?);
                }
                DecodeStep::Item(DataItem::Row(r)) => {
                    unfiltereds.push(DataItem::Row(self.remap(r)?));
                }
                DecodeStep::Item(m @ DataItem::RangeTombstoneMarker(_)) => unfiltereds.push(m),
                DecodeStep::Item(DataItem::PartitionEnd(end)) => {
                    self.peeked = None;
                    self.last_key = Some(start.key.bytes.bytes.clone());
                    return Ok(SourcePartition {
                        source,
                        start,
                        static_row,
                        unfiltereds,
                        end,
                    });
                }
                DecodeStep::Item(DataItem::PartitionStart(p)) => {
                    return Err(self.error(
                        Error::invalid("a partition start inside a partition", p.position)
                            .in_component(ComponentType::Data),
                    ))
                }
                DecodeStep::Finished | DecodeStep::NeedMoreData => {
                    return Err(self.error(
                        Error::invalid("Data.db ends inside a partition", start.position)
                            .in_component(ComponentType::Data),
                    ))
                }
            }
        }
    }

    fn remap(&self, row: Row) -> Result<Row, MergeError> {
        remap_row(&self.static_map, &self.regular_map, row).map_err(|e| self.error(e))
    }
}

/// `row` with its column indexes mapped to the merge schema's.
fn remap_row(
    static_map: &[Option<usize>],
    regular_map: &[Option<usize>],
    mut row: Row,
) -> Result<Row, Error> {
    {
        let map = if row.is_static {
            static_map
        } else {
            regular_map
        };
        let position = row.position;
        for data in &mut row.column_data {
            let index = data.column_index();
            let Some(new) = map.get(index).copied().flatten() else {
                return Err(Error::invalid(
                    format!("column #{index} is not in the schema"),
                    position,
                )
                .in_component(ComponentType::Data));
            };
            match data {
                ColumnData::Simple(c) => c.column_index = new,
                ColumnData::Complex(c) => {
                    c.column_index = new;
                    for cell in &mut c.cells {
                        cell.column_index = new;
                    }
                }
            }
        }
        Ok(row)
    }
}

/// One SSTable's version of a partition as Data.db items (start, static row, rows and markers,
/// end), for [`merge_versions`].
#[derive(Debug, Clone)]
pub struct PartitionVersion<'s> {
    pub name: String,
    pub schema: &'s DataSchema,
    pub items: Vec<DataItem>,
}

/// Merges the versions of one partition read from several SSTables (a point read, as
/// `lookup DIR KEY` does it) exactly as [`TableMerger`] merges each partition; `SourceId`s are
/// the versions' order, the first version's schema is the merge's.
pub fn merge_versions(
    versions: Vec<PartitionVersion<'_>>,
    options: MergeOptions,
) -> Result<Option<MergedPartition>, MergeError> {
    let Some(first) = versions.first() else {
        return Ok(None);
    };
    let schema = first.schema.clone();
    let mut parts = Vec::with_capacity(versions.len());
    for (source, v) in versions.into_iter().enumerate() {
        if v.schema.clustering_types != schema.clustering_types {
            return Err(schema_error(
                &v.name,
                "its clustering types differ from the first SSTable's".to_owned(),
            ));
        }
        let static_map = column_map(&schema, v.schema, true);
        let regular_map = column_map(&schema, v.schema, false);
        let fail = |error: Error| MergeError {
            sstable: v.name.clone(),
            partition_key_hex: None,
            last_merged_key_hex: None,
            error,
        };
        let (mut start, mut end, mut static_row, mut unfiltereds) = (None, None, None, Vec::new());
        for item in v.items.iter().cloned() {
            match item {
                DataItem::PartitionStart(p) => start = Some(p),
                DataItem::StaticRow(r) => {
                    static_row = Some(remap_row(&static_map, &regular_map, r).map_err(fail)?)
                }
                DataItem::Row(r) => unfiltereds.push(DataItem::Row(
                    remap_row(&static_map, &regular_map, r).map_err(fail)?,
                )),
                m @ DataItem::RangeTombstoneMarker(_) => unfiltereds.push(m),
                DataItem::PartitionEnd(e) => end = Some(e),
            }
        }
        let (Some(start), Some(end)) = (start, end) else {
            return Err(fail(
                Error::invalid("a partition version without its start or end", 0)
                    .in_component(ComponentType::Data),
            ));
        };
        parts.push(SourcePartition {
            source,
            start,
            static_row,
            unfiltereds,
            end,
        });
    }
    let mut ctx = Context::new(&schema, options.now_seconds, options.explain);
    Ok(merge_partition(parts, &mut ctx))
}
