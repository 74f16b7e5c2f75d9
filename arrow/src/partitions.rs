//! The partitions report (`sstable_engine::analytics::partitions`, Cassandra's
//! `sstablepartitions`) as record batches: one Arrow row per partition, in file order.
//!
//! | column | type | what |
//! |---|---|---|
//! | `key` | Utf8 | the key as cqlsh prints it |
//! | `key_hex` | Utf8 | the raw key bytes in hex |
//! | `token` | Utf8 | the partitioner's token (decimal for Murmur3 and Random) |
//! | `position` | UInt64 | uncompressed Data.db offset |
//! | `bytes` | UInt64 | uncompressed length in Data.db |
//! | `rows`, `cells` | UInt64 | regular rows; every cell |
//! | `partition_tombstones`, `row_tombstones`, `range_tombstones`, `complex_tombstones`, `cell_tombstones` | UInt64 | tombstones by kind |
//! | `ttl_cells`, `expired_ttl_cells` | UInt64 | expiring cells live / expired at "now" |
//!
//! Src: `tools/SSTablePartitions.java`.

use std::sync::Arc;

use arrow_array::builder::{StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use sstable_engine::analytics::PartitionStats;

/// The schema of the partitions report (the module table).
pub fn partitions_schema() -> SchemaRef {
    let mut fields = vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("key_hex", DataType::Utf8, false),
        Field::new("token", DataType::Utf8, false),
    ];
    fields.extend(
        PartitionStats::COUNT_COLUMNS
            .iter()
            .map(|n| Field::new(*n, DataType::UInt64, false)),
    );
    Arc::new(Schema::new(fields))
}

/// Collects [`PartitionStats`] into batches of `batch_rows`.
pub struct PartitionsBatcher {
    schema: SchemaRef,
    batch_rows: usize,
    key: StringBuilder,
    key_hex: StringBuilder,
    token: StringBuilder,
    numbers: [UInt64Builder; 11],
    rows: usize,
}

impl PartitionsBatcher {
    pub fn new(batch_rows: usize) -> PartitionsBatcher {
        PartitionsBatcher {
            schema: partitions_schema(),
            batch_rows: batch_rows.max(1),
            key: StringBuilder::new(),
            key_hex: StringBuilder::new(),
            token: StringBuilder::new(),
            numbers: std::array::from_fn(|_| UInt64Builder::new()),
            rows: 0,
        }
    }

    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// Adds a partition; a full batch when this one fills it.
    pub fn push(&mut self, p: &PartitionStats) -> Option<Result<RecordBatch, ArrowError>> {
        self.key.append_value(&p.key);
        self.key_hex.append_value(&p.key_hex);
        self.token.append_value(p.token.to_string());
        for (b, v) in self.numbers.iter_mut().zip(p.counts()) {
            b.append_value(v);
        }
        self.rows = self.rows.saturating_add(1);
        (self.rows >= self.batch_rows).then(|| self.finish_batch())
    }

    /// The partitions pushed since the last batch (`None` when there are none).
    pub fn finish(&mut self) -> Option<Result<RecordBatch, ArrowError>> {
        (self.rows > 0).then(|| self.finish_batch())
    }

    fn finish_batch(&mut self) -> Result<RecordBatch, ArrowError> {
        self.rows = 0;
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.key.finish()),
            Arc::new(self.key_hex.finish()),
            Arc::new(self.token.finish()),
        ];
        columns.extend(
            self.numbers
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        RecordBatch::try_new(Arc::clone(&self.schema), columns)
    }
}
