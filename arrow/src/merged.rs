//! The merged read of one table as record batches: [`MergedRowReader`] pulls merged partitions
//! from the engine's [`TableMerger`] (the SSTables merged in token order, each partition's
//! versions reconciled at the merge's `now`, as `sstable-inspect read` shows them) and appends
//! each one's rows to a [`RowBatcher`], so the batches have the columns and values an export of
//! a file holding the merged partitions would have. A table of one SSTable is the trivial merge.
//!
//! Memory: one batch's builders and the merge window (the current partition's versions, one
//! per SSTable, and each reader's decode window); a batch is cut as soon as it is full.
//!
//! [`PartitionFilter`] stops the merge early: after the one partition of a key lookup, or past
//! the last token of a token range (the caller starts each SSTable's read at the range's first
//! partition, `CheckedDataReader::seek_to_partition`).

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataSchema, DataVisitor};
use sstable_engine::merge::{MergedPartition, MergedUnfiltered, TableMerger};
use sstable_engine::range::RangeSource;
use sstable_engine::token::{Partitioner, Token};

use crate::rows::{row_schema, RowBatcher, RowCounts, RowOptions};

/// Which merged partitions become rows; the merge stops at the first partition past them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PartitionFilter {
    #[default]
    All,
    /// One partition key (its bytes): partitions before it are skipped, the read ends after it.
    Key(Vec<u8>),
    /// Murmur3 tokens `first ..= last`: partitions before are skipped, the read ends at the
    /// first one after. Under another partitioner every partition is kept.
    Tokens { first: i64, last: i64 },
}

enum Decision {
    Skip,
    Keep { last: bool },
    Stop,
}

impl PartitionFilter {
    fn decide(&self, partitioner: &Partitioner, key: &[u8]) -> Decision {
        match self {
            PartitionFilter::All => Decision::Keep { last: false },
            PartitionFilter::Key(k) => match partitioner.compare_keys(key, k) {
                core::cmp::Ordering::Less => Decision::Skip,
                core::cmp::Ordering::Equal => Decision::Keep { last: true },
                core::cmp::Ordering::Greater => Decision::Stop,
            },
            PartitionFilter::Tokens { first, last } => match partitioner.token(key) {
                Token::Murmur3(t) if t < *first => Decision::Skip,
                Token::Murmur3(t) if t > *last => Decision::Stop,
                _ => Decision::Keep { last: false },
            },
        }
    }
}

/// The rows of a table's merged read as record batches (see the module docs). An iterator and
/// a [`RecordBatchReader`]; an error (a [`sstable_engine::merge::MergeError`] naming the
/// SSTable, component and offset, inside [`ArrowError::ExternalError`]) ends it.
pub struct MergedRowReader<S: RangeSource> {
    merger: TableMerger<S>,
    schema: DataSchema,
    partitioner: Partitioner,
    batcher: RowBatcher,
    filter: PartitionFilter,
    done: bool,
}

impl<S: RangeSource> MergedRowReader<S> {
    /// The rows of `merger`'s partitions; `columns`: indexes into [`row_schema`] of the merge's
    /// schema (`None`: all; see [`RowBatcher::with_columns`]), where, with `token`, index
    /// `row_schema(…).fields().len()` is the `__token` column added last
    /// ([`RowBatcher::with_token`]).
    pub fn new(
        merger: TableMerger<S>,
        partitioner: Partitioner,
        options: RowOptions,
        columns: Option<&[usize]>,
        token: bool,
    ) -> Self {
        let schema = merger.schema().clone();
        let mut batcher = RowBatcher::with_columns(&schema, options, columns);
        let token_index = row_schema(&schema, &options).fields().len();
        if token && columns.is_none_or(|c| c.contains(&token_index)) {
            batcher = batcher.with_token(partitioner.clone());
        }
        MergedRowReader {
            merger,
            schema,
            partitioner,
            batcher,
            filter: PartitionFilter::All,
            done: false,
        }
    }

    /// Only the partitions `filter` keeps.
    pub fn with_filter(mut self, filter: PartitionFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Totals so far.
    pub fn counts(&self) -> RowCounts {
        self.batcher.counts()
    }

    fn push(&mut self, p: &MergedPartition) {
        self.batcher.partition_start(&p.start);
        if let Some(s) = &p.static_row {
            self.batcher.push_row(&self.schema, &s.row);
        }
        for u in &p.unfiltereds {
            if let MergedUnfiltered::Row(r) = u {
                self.batcher.push_row(&self.schema, &r.row);
            }
        }
        self.batcher.partition_end(&p.end);
    }

    fn finish(&mut self) {
        self.done = true;
        self.batcher.finish();
    }
}

impl<S: RangeSource> Iterator for MergedRowReader<S> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(b) = self.batcher.take_batch() {
                return Some(b);
            }
            if self.done {
                return None;
            }
            // Decided on the next key before its partition is read: a read that stops there
            // reads only that partition's header.
            let decision = match self.merger.peek_key(&NoClock) {
                Ok(None) => {
                    self.finish();
                    continue;
                }
                Ok(Some(key)) => self.filter.decide(&self.partitioner, key),
                Err(e) => {
                    self.done = true;
                    return Some(Err(ArrowError::ExternalError(Box::new(e))));
                }
            };
            if let Decision::Stop = decision {
                self.finish();
                continue;
            }
            match self.merger.next_partition(&NoClock) {
                Ok(None) => self.finish(),
                Ok(Some(p)) => {
                    if let Decision::Keep { last } = decision {
                        self.push(&p);
                        if last {
                            self.finish();
                        }
                    }
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(ArrowError::ExternalError(Box::new(e))));
                }
            }
        }
    }
}

impl<S: RangeSource> RecordBatchReader for MergedRowReader<S> {
    fn schema(&self) -> SchemaRef {
        self.batcher.schema()
    }
}
