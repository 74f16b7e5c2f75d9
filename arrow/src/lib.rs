//! SSTables as Apache Arrow: the rows of any 3.0+ SSTable (`ma` … `oa`, `da`) and its
//! partitions report as [`RecordBatch`]es, streamed in bounded batches, and written as Parquet,
//! Arrow IPC or CSV ([`write`]).
//!
//! | module | what |
//! |---|---|
//! | [`types`] | the CQL → Arrow type mapping |
//! | `value` | serialized values → Arrow builders (frozen and non-frozen collections, UDTs, tuples) |
//! | [`rows`] | [`RowBatcher`]: a `DataVisitor` of the engine's borrowing scan, one batch at a time |
//! | [`merged`] | [`MergedRowReader`]: the merged read of a table's SSTables (`sstable_engine::merge`) as batches |
//! | [`partitions`] | the partitions report (`sstablepartitions`) as batches |
//! | [`rechunk`] | [`Rechunker`]: batches of a split scan's ranges cut again as one batcher would cut them |
//! | [`write`] | Parquet / Arrow IPC / CSV writers over any `Write` |
//!
//! Reading is the engine's: [`RowBatchReader`] drives a `DataFileReader` through the engine's
//! `SyncDriver` over any [`RangeSource`] (positioned reads of the files), so Data.db is read
//! chunk by chunk; memory is one batch's builders, one partition key and the decoder's window.
//! Values are appended from the decoder's borrowed views (`RowView`, `CellView`); nothing here
//! decodes rows a second time.
//!
//! Errors from the engine keep their component and offset: they are wrapped in
//! [`ArrowError::ExternalError`] holding the engine's [`sstable_engine::Error`].
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod merged;
pub mod partitions;
pub mod rechunk;
pub mod rows;
pub mod types;
mod value;
pub mod write;

pub use merged::{MergedRowReader, PartitionFilter};
pub use partitions::{partitions_schema, PartitionsBatcher};
pub use rechunk::Rechunker;
pub use rows::{row_schema, RowBatcher, RowCounts, RowOptions, DEFAULT_BATCH_ROWS, TOKEN_COLUMN};
pub use types::{arrow_field, arrow_type, TypeMapping};
pub use value::ValueCounts;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use sstable_engine::analytics::{self, PartitionScan};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataFileReader, DecodeOptions, VisitStep};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{RangeSource, SyncDriver};

/// An engine error as an Arrow error (the engine's error, with component and offset, inside).
pub fn engine_error(e: sstable_engine::Error) -> ArrowError {
    ArrowError::ExternalError(Box::new(e))
}

/// The rows of one 3.0+ SSTable as record batches, read through `source` (see the crate docs).
/// An iterator and a [`RecordBatchReader`]. Earlier versions are refused (their cells are not
/// decoded as rows).
pub struct RowBatchReader<S: RangeSource> {
    reader: DataFileReader,
    driver: SyncDriver<S>,
    batcher: RowBatcher,
    done: bool,
    /// Stop after this many partitions (a one-partition read).
    partition_limit: Option<u64>,
}

impl<S: RangeSource> RowBatchReader<S> {
    /// Rows of the SSTable `metadata` describes (its Data.db read through `source`).
    /// `now_seconds` classifies expiring cells as expired (`None`: none is).
    pub fn new(
        metadata: &SSTableMetadata,
        source: S,
        options: RowOptions,
        now_seconds: Option<i64>,
    ) -> Result<Self, ArrowError> {
        RowBatchReader::with_columns(metadata, source, options, now_seconds, None)
    }

    /// Only the columns of [`row_schema`] at `columns` (`None`: all; see
    /// [`RowBatcher::with_columns`]): the values of the others are not converted.
    pub fn with_columns(
        metadata: &SSTableMetadata,
        source: S,
        options: RowOptions,
        now_seconds: Option<i64>,
        columns: Option<&[usize]>,
    ) -> Result<Self, ArrowError> {
        let version = metadata.descriptor.version;
        if !version.has_row_format() {
            return Err(engine_error(
                sstable_engine::Error::invalid(
                    format!(
                        "version {version} predates the 3.0 row format: its rows are not exported"
                    ),
                    0,
                )
                .in_component(sstable_engine::ComponentType::Data),
            ));
        }
        let decode = DecodeOptions {
            now_seconds,
            ..DecodeOptions::default()
        };
        let reader = DataFileReader::for_sstable(metadata, decode).map_err(engine_error)?;
        let batcher = RowBatcher::with_columns(reader.decoder().schema(), options, columns);
        Ok(RowBatchReader {
            reader,
            driver: SyncDriver::new(source),
            batcher,
            done: false,
            partition_limit: None,
        })
    }

    /// Reads only the partition starting at uncompressed Data.db `position` (an index
    /// lookup's): decoding starts there and stops at that partition's end, so only the chunks
    /// holding it are read.
    pub fn only_partition_at(mut self, position: u64) -> Result<Self, ArrowError> {
        self.reader
            .seek_to_partition(position)
            .map_err(engine_error)?;
        self.partition_limit = Some(self.batcher.partitions_ended().saturating_add(1));
        Ok(self)
    }

    /// Totals so far.
    pub fn counts(&self) -> RowCounts {
        self.batcher.counts()
    }

    /// Uncompressed-or-physical bytes read from Data.db so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        self.driver.stats().bytes
    }

    /// Findings of the chunk layer (chunk checksum mismatches) so far.
    pub fn take_findings(&mut self) -> Vec<sstable_engine::component::data::Finding> {
        self.reader.take_findings()
    }
}

impl<S: RangeSource> Iterator for RowBatchReader<S> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(b) = self.batcher.take_batch() {
                return Some(b);
            }
            if self.done {
                return None;
            }
            match self
                .driver
                .visit_next(&mut self.reader, &mut self.batcher, &NoClock)
            {
                Ok(VisitStep::Visited) => {
                    if self
                        .partition_limit
                        .is_some_and(|n| self.batcher.partitions_ended() >= n)
                    {
                        self.done = true;
                        self.batcher.finish();
                    }
                }
                Ok(VisitStep::Finished | VisitStep::NeedMoreData) => {
                    self.done = true;
                    self.batcher.finish();
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(engine_error(e)));
                }
            }
        }
    }
}

impl<S: RangeSource> RecordBatchReader for RowBatchReader<S> {
    fn schema(&self) -> SchemaRef {
        self.batcher.schema()
    }
}

/// The partitions report of one SSTable as record batches (one row per partition).
pub struct PartitionBatchReader<S: RangeSource> {
    reader: DataFileReader,
    driver: SyncDriver<S>,
    scan: PartitionScan,
    batcher: PartitionsBatcher,
    done: bool,
}

impl<S: RangeSource> PartitionBatchReader<S> {
    /// `now_secs`: "now" for TTL cells (see `analytics::default_now`).
    pub fn new(
        metadata: &SSTableMetadata,
        source: S,
        batch_rows: usize,
        now_secs: i64,
    ) -> Result<Self, ArrowError> {
        let (reader, key_type) = analytics::data_reader(metadata).map_err(engine_error)?;
        Ok(PartitionBatchReader {
            reader,
            driver: SyncDriver::new(source),
            scan: PartitionScan::new(key_type, metadata.partitioner(), now_secs),
            batcher: PartitionsBatcher::new(batch_rows),
            done: false,
        })
    }

    pub fn bytes_read(&self) -> u64 {
        self.driver.stats().bytes
    }
}

impl<S: RangeSource> Iterator for PartitionBatchReader<S> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self
                .driver
                .visit_next(&mut self.reader, &mut self.scan, &NoClock)
            {
                Ok(VisitStep::Visited) => {
                    if let Some((_, stats)) = self.scan.take_finished() {
                        if let Some(b) = self.batcher.push(&stats) {
                            return Some(b);
                        }
                    }
                }
                Ok(VisitStep::Finished | VisitStep::NeedMoreData) => {
                    self.done = true;
                    return self.batcher.finish();
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(engine_error(e)));
                }
            }
        }
        None
    }
}

impl<S: RangeSource> RecordBatchReader for PartitionBatchReader<S> {
    fn schema(&self) -> SchemaRef {
        self.batcher.schema()
    }
}
