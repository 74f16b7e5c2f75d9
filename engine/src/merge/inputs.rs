//! A table's merge inputs built from each SSTable's decoded metadata and byte source: the one
//! place that decides which reader an SSTable gets and checks that the SSTables can be merged.
//! The CLI (`read`, `lookup`, `zombies`, `diff`), the native replica (`native::repair`) and the
//! page's worker only find files and load metadata; they call [`open_table`].
//!
//! | SSTable | reader |
//! |---|---|
//! | 3.0+ (`ma` … `oa`, `da`, ScyllaDB `me`/`ms`) | [`CheckedDataReader`]: rows per its SerializationHeader, every chunk's checksum checked |
//! | 2.x (`jb`, `ka`, `la`) | [`LegacyRowsReader`]: atoms grouped into rows per the table's `CREATE TABLE` (2.x records no schema) as `db/LegacyLayout.java` reads them |
//!
//! Checks, each an error naming the SSTable: a Data.db reader can be made from its metadata
//! (a metadata error that leaves one is the caller's to report); one partitioner for all (tokens order the merge, `dht/IPartitioner.java`); a schema given for a
//! 2.x SSTable (COMPACT STORAGE too: [`schema_from_cql`]). Column sets are matched by name when the
//! merger is made ([`TableMerger::new`]).

use super::legacy::LegacyRowsReader;
use super::{MergeError, MergeInput, MergeOptions, TableMerger};
use crate::checked_data::CheckedDataReader;
use crate::clock::Clock;
use crate::component::data::{DataItem, DataSchema, DecodeOptions, DecodeStep};
use crate::component::ComponentType;
use crate::cql_schema::CqlSchemaFile;
use crate::error::{Error, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, ItemReader, RangeReader, RangeSource, SyncDriver};
use crate::token::Partitioner;
use crate::write::legacy::schema_from_cql;
use crate::write::TableSchema;

/// The Data.db reader of one merge input.
// One per SSTable of a merge, made once and never moved in a loop: the 3.0+ reader stays
// inline (no indirection on the merge's hot path), the rarer 2.x one is boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum MergeReader {
    /// A 3.0+ SSTable.
    Rows(CheckedDataReader),
    /// A 2.x SSTable, its partitions converted to the 3.0 model.
    Legacy(Box<LegacyRowsReader>),
}

impl MergeReader {
    /// The schema its rows are decoded with.
    pub fn schema(&self) -> &DataSchema {
        match self {
            MergeReader::Rows(r) => r.reader().decoder().schema(),
            MergeReader::Legacy(r) => r.schema(),
        }
    }

    /// Restarts at the partition starting at uncompressed Data.db `position` (from the index).
    pub fn seek_to_partition(&mut self, position: u64) -> Result<()> {
        match self {
            MergeReader::Rows(r) => r.seek_to_partition(position),
            MergeReader::Legacy(r) => r.seek_to_partition(position),
        }
    }

    /// The items of the partition at uncompressed Data.db `position` (from the index: a point
    /// read, as `lookup DIR KEY` makes it), its start to its end.
    pub fn read_partition_at<S: RangeSource>(
        &mut self,
        position: u64,
        driver: &mut SyncDriver<S>,
        clock: &dyn Clock,
    ) -> Result<Vec<DataItem>> {
        self.seek_to_partition(position)?;
        let mut items = Vec::new();
        loop {
            match driver.next_item(self, clock)? {
                DecodeStep::Item(item) => {
                    let first = items.is_empty();
                    let (start, end) = (
                        matches!(item, DataItem::PartitionStart(_)),
                        matches!(item, DataItem::PartitionEnd(_)),
                    );
                    if first != start {
                        return Err(Error::invalid(
                            format!("expected a partition start at Data.db {position}"),
                            item.position(),
                        )
                        .in_component(ComponentType::Data));
                    }
                    items.push(item);
                    if end {
                        return Ok(items);
                    }
                }
                DecodeStep::Finished | DecodeStep::NeedMoreData => {
                    return Err(
                        Error::invalid("the data ends inside the partition", position)
                            .in_component(ComponentType::Data),
                    )
                }
            }
        }
    }
}

impl From<CheckedDataReader> for MergeReader {
    fn from(r: CheckedDataReader) -> Self {
        MergeReader::Rows(r)
    }
}

impl From<LegacyRowsReader> for MergeReader {
    fn from(r: LegacyRowsReader) -> Self {
        MergeReader::Legacy(Box::new(r))
    }
}

impl RangeReader for MergeReader {
    fn next_read(&self) -> Option<ByteRange> {
        match self {
            MergeReader::Rows(r) => r.next_read(),
            MergeReader::Legacy(r) => r.next_read(),
        }
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        match self {
            MergeReader::Rows(r) => r.supply(range, bytes, clock),
            MergeReader::Legacy(r) => r.supply(range, bytes, clock),
        }
    }

    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        match self {
            MergeReader::Rows(r) => r.abort(range, error, clock),
            MergeReader::Legacy(r) => r.abort(range, error, clock),
        }
    }
}

impl ItemReader for MergeReader {
    fn next_item(&mut self) -> Result<DecodeStep> {
        match self {
            MergeReader::Rows(r) => r.next_item(),
            MergeReader::Legacy(r) => r.next_item(),
        }
    }
}

/// One SSTable of the table: its name (as errors and provenance say it), its decoded metadata
/// and the source its Data.db ranges are read from.
#[derive(Debug)]
pub struct TableSSTable<'m, S> {
    pub name: String,
    pub metadata: &'m SSTableMetadata,
    pub source: S,
}

/// The table's schema for its 2.x SSTables: from a `CREATE TABLE` ([`CqlSchemaFile`]).
pub fn legacy_schema(schema: Option<&CqlSchemaFile>) -> Result<Option<TableSchema>> {
    schema
        .map(|s| schema_from_cql(&s.table, s.compact_storage))
        .transpose()
}

fn input_error(sstable: &str, error: Error) -> MergeError {
    MergeError {
        sstable: sstable.to_owned(),
        partition_key_hex: None,
        last_merged_key_hex: None,
        error,
    }
}

/// The reader of one SSTable: 3.0+ by its header, 2.x by `legacy` (the table's schema).
pub fn merge_reader(
    metadata: &SSTableMetadata,
    legacy: Option<&TableSchema>,
    options: DecodeOptions,
) -> Result<MergeReader> {
    let version = metadata.descriptor.version;
    if version.has_row_format() {
        return CheckedDataReader::for_sstable(metadata, options).map(MergeReader::from);
    }
    let Some(schema) = legacy else {
        return Err(Error::invalid(
            format!(
                "version {version} predates the 3.0 row format and records no schema: give the \
                 table's CREATE TABLE (--schema FILE.cql, or a schema.cql beside the SSTables)"
            ),
            0,
        )
        .in_component(ComponentType::Data));
    };
    LegacyRowsReader::for_sstable(metadata, schema.clone(), options).map(MergeReader::from)
}

/// The merge inputs of one table's SSTables and their partitioner (see the [module
/// docs](self)); `schema` is needed when any SSTable is 2.x.
pub fn table_inputs<S: RangeSource>(
    sstables: Vec<TableSSTable<'_, S>>,
    schema: Option<&CqlSchemaFile>,
    options: DecodeOptions,
) -> Result<(Vec<MergeInput<S>>, Partitioner), MergeError> {
    let any_legacy = sstables
        .iter()
        .any(|s| !s.metadata.descriptor.version.has_row_format());
    let legacy = if any_legacy {
        let first = sstables.first().map_or("(none)", |s| s.name.as_str());
        legacy_schema(schema).map_err(|e| {
            input_error(
                first,
                e.context("the table's CREATE TABLE")
                    .in_component(ComponentType::Data),
            )
        })?
    } else {
        None
    };
    let mut partitioner: Option<(Partitioner, String)> = None;
    let mut inputs = Vec::with_capacity(sstables.len());
    for s in sstables {
        let p = s.metadata.partitioner();
        if let Some((first, first_name)) = &partitioner {
            if *first != p {
                return Err(input_error(
                    &s.name,
                    Error::invalid(
                        format!("its partitioner {p} differs from {first_name}'s {first}"),
                        0,
                    )
                    .in_component(ComponentType::Statistics),
                ));
            }
        } else {
            partitioner = Some((p, s.name.clone()));
        }
        let reader = merge_reader(s.metadata, legacy.as_ref(), options)
            .map_err(|e| input_error(&s.name, e))?;
        inputs.push(MergeInput::new(s.name, reader, s.source));
    }
    let (partitioner, _) = partitioner.ok_or_else(|| {
        input_error(
            "(none)",
            Error::invalid("no SSTable to merge", 0).in_component(ComponentType::Data),
        )
    })?;
    Ok((inputs, partitioner))
}

/// The merge of one table's SSTables ([`table_inputs`], then [`TableMerger::new`]); also
/// returns the partitioner.
pub fn open_table<S: RangeSource>(
    sstables: Vec<TableSSTable<'_, S>>,
    schema: Option<&CqlSchemaFile>,
    options: DecodeOptions,
    merge_options: MergeOptions,
) -> Result<(TableMerger<S>, Partitioner), MergeError> {
    let (inputs, partitioner) = table_inputs(sstables, schema, options)?;
    let merger = TableMerger::new(inputs, partitioner.clone(), merge_options)?;
    Ok((merger, partitioner))
}
