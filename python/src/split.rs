//! `partitions(…, jobs=N)` and `scan(…, jobs=N)` with N > 1: the Data.db scan split into
//! partition-aligned ranges decoded on N Rust threads by `sstable_native::jobs::scan_split` (the
//! CLI's `--jobs` runner, the same code), each range batched by its own batcher; the ranges'
//! batches are handed over in file order and cut again by `sstable_arrow::Rechunker` into the
//! batches the sequential stream (`PartitionBatchReader`, `RowBatchReader`) gives, batch for
//! batch.
//!
//! The runner lives on a thread of its own, started with the stream: the Python thread only
//! takes finished ranges from a channel of one, so no decoding needs the GIL, and pyarrow pulls
//! the batches through the C stream with the GIL released. Memory: the runner's `2 × N` ranges
//! decoded or waiting (each ≤ 8 MiB of uncompressed data, as Arrow batches), one more in the
//! channel and the one being cut. Dropping the stream closes the channel: the runner stops
//! starting ranges and its threads end after the ranges they are on.
//!
//! Errors: the rows before the failing range's error are cut as the sequential stream cuts them,
//! then the error (the engine's, with component and offset), then the end, as sequentially.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use sstable_arrow::{engine_error, PartitionsBatcher, Rechunker, RowBatcher, RowOptions};
use sstable_engine::analytics::{self, PartitionScan};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataFileReader, DecodeOptions, VisitStep};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::sstable_set::SSTableFiles;
use sstable_native::files::FoundFiles;
use sstable_native::jobs::{self, Driver};

/// One range's batches in order, and the error that stopped it.
#[derive(Default)]
struct RangeBatches {
    batches: Vec<RecordBatch>,
    error: Option<ArrowError>,
}

/// Takes `out` every batch ready in a batcher; the first error building one stops the range.
fn take_all(
    out: &mut RangeBatches,
    mut take: impl FnMut() -> Option<Result<RecordBatch, ArrowError>>,
) -> bool {
    while let Some(b) = take() {
        match b {
            Ok(b) => out.batches.push(b),
            Err(e) => {
                out.error.get_or_insert(e);
                return false;
            }
        }
    }
    true
}

/// A range's outcome as the runner wants it (the error as text says the range failed).
fn ended(out: RangeBatches) -> (RangeBatches, Option<String>) {
    let text = out.error.as_ref().map(ToString::to_string);
    (out, text)
}

/// The partitions report of one range (as `PartitionBatchReader` decodes it).
fn partitions_range(
    reader: &mut DataFileReader,
    driver: &mut Driver,
    scan: &mut PartitionScan,
    batch_rows: usize,
) -> (RangeBatches, Option<String>) {
    let mut batcher = PartitionsBatcher::new(batch_rows);
    let mut out = RangeBatches::default();
    loop {
        match driver.visit_next(reader, scan, &NoClock) {
            Ok(VisitStep::Visited) => {
                if let Some((_, stats)) = scan.take_finished() {
                    let mut pushed = batcher.push(&stats);
                    if !take_all(&mut out, || pushed.take()) {
                        return ended(out);
                    }
                }
            }
            Ok(VisitStep::Finished | VisitStep::NeedMoreData) => break,
            Err(e) => {
                out.error = Some(engine_error(e));
                break;
            }
        }
    }
    let mut last = batcher.finish();
    take_all(&mut out, || last.take());
    ended(out)
}

/// The rows of one range (as `RowBatchReader` decodes them).
fn rows_range(
    reader: &mut DataFileReader,
    driver: &mut Driver,
    mut batcher: RowBatcher,
) -> (RangeBatches, Option<String>) {
    let mut out = RangeBatches::default();
    loop {
        match driver.visit_next(reader, &mut batcher, &NoClock) {
            Ok(VisitStep::Visited) => {
                if !take_all(&mut out, || batcher.take_batch()) {
                    return ended(out);
                }
            }
            Ok(VisitStep::Finished | VisitStep::NeedMoreData) => break,
            Err(e) => {
                out.error = Some(engine_error(e));
                break;
            }
        }
    }
    batcher.finish();
    take_all(&mut out, || batcher.take_batch());
    ended(out)
}

/// What a split stream decodes.
pub enum Content {
    /// The partitions report; `now`: "now" for TTL cells.
    Partitions { batch_rows: usize, now: i64 },
    /// The rows; `now`: "now" for expiring cells.
    Rows {
        options: RowOptions,
        now: Option<i64>,
    },
}

/// The batches of a split scan, in file order, cut as the sequential stream cuts them.
pub struct SplitStream {
    schema: SchemaRef,
    ranges: Option<Receiver<RangeBatches>>,
    rechunker: Rechunker,
    ready: VecDeque<RecordBatch>,
    error: Option<ArrowError>,
}

impl SplitStream {
    /// Starts the runner on `jobs` threads over the Data.db of `sstable` (its files `found`).
    pub fn start(
        found: FoundFiles,
        sstable: SSTableFiles,
        metadata: SSTableMetadata,
        content: Content,
        jobs: usize,
    ) -> Result<SplitStream, ArrowError> {
        let (tx, rx) = mpsc::sync_channel::<RangeBatches>(1);
        let (schema, batch_rows) = match content {
            Content::Partitions { batch_rows, now } => {
                let (template, key_type) =
                    analytics::data_reader(&metadata).map_err(engine_error)?;
                let partitioner = metadata.partitioner();
                std::thread::spawn(move || {
                    let work = |reader: &mut DataFileReader, driver: &mut Driver| {
                        let mut scan =
                            PartitionScan::new(key_type.clone(), partitioner.clone(), now);
                        partitions_range(reader, driver, &mut scan, batch_rows)
                    };
                    run(&found, &sstable, &metadata, &template, jobs, work, &tx);
                });
                (sstable_arrow::partitions_schema(), batch_rows)
            }
            Content::Rows { options, now } => {
                let decode = DecodeOptions {
                    now_seconds: now,
                    ..DecodeOptions::default()
                };
                let template =
                    DataFileReader::for_sstable(&metadata, decode).map_err(engine_error)?;
                let schema = RowBatcher::new(template.decoder().schema(), options).schema();
                std::thread::spawn(move || {
                    let work = |reader: &mut DataFileReader, driver: &mut Driver| {
                        let batcher = RowBatcher::new(reader.decoder().schema(), options);
                        rows_range(reader, driver, batcher)
                    };
                    run(&found, &sstable, &metadata, &template, jobs, work, &tx);
                });
                (schema, options.batch_rows)
            }
        };
        Ok(SplitStream {
            rechunker: Rechunker::new(Arc::clone(&schema), batch_rows),
            schema,
            ranges: Some(rx),
            ready: VecDeque::new(),
            error: None,
        })
    }
}

/// The runner: every range's batches into `tx`, in file order, until a range fails or the
/// stream is dropped.
fn run<W>(
    found: &FoundFiles,
    sstable: &SSTableFiles,
    metadata: &SSTableMetadata,
    template: &DataFileReader,
    jobs: usize,
    work: W,
    tx: &SyncSender<RangeBatches>,
) where
    W: Fn(&mut DataFileReader, &mut Driver) -> (RangeBatches, Option<String>) + Sync,
{
    jobs::scan_split(found, sstable, metadata, template, jobs, work, |run| {
        let mut out = run.value.unwrap_or_default();
        if out.error.is_none() {
            // The range could not be started (its reader refused the range).
            out.error = run.error.map(|e| ArrowError::ExternalError(e.into()));
        }
        let failed = out.error.is_some();
        tx.send(out).is_ok() && !failed
    });
}

impl Iterator for SplitStream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(b) = self.ready.pop_front() {
                return Some(Ok(b));
            }
            if let Some(e) = self.error.take() {
                return Some(Err(e));
            }
            let rx = self.ranges.as_ref()?;
            match rx.recv() {
                Ok(range) => {
                    for b in range.batches {
                        if let Err(e) = self.rechunker.push(b, |b| {
                            self.ready.push_back(b);
                            Ok(())
                        }) {
                            self.error = Some(e);
                            self.ranges = None;
                            break;
                        }
                    }
                    if range.error.is_some() {
                        // As sequentially: the rows of the unfinished batch are not handed over.
                        self.error = range.error;
                        self.ranges = None;
                    }
                }
                Err(_) => {
                    // The runner is done: the last (short) batch.
                    self.ranges = None;
                    if let Err(e) = self.rechunker.finish(|b| {
                        self.ready.push_back(b);
                        Ok(())
                    }) {
                        self.error = Some(e);
                    }
                }
            }
        }
    }
}

impl RecordBatchReader for SplitStream {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}
