//! A 2.x SSTable (`jb`, `ka`, `la`) as a merge input: its atoms read chunk by chunk
//! ([`LegacyDataFileReader`]), each partition turned into the 3.0 model by
//! [`crate::write::legacy`] (Cassandra 3.0's `db/LegacyLayout.java`, the same conversion the
//! rewrite uses), then into the Data.db items the merge reconciles: the partition is encoded in
//! the 3.0 row format (`oa`, [`DataEncoder`]) and decoded back ([`DataDecoder`]), so a 2.x
//! partition reaches the merge exactly as a 3.0+ SSTable's would.
//!
//! | piece | position in the items |
//! |---|---|
//! | partition start | the 2.x partition's offset |
//! | row, static row | the offset of its first atom |
//! | range tombstone bound | the offset of its tombstone atom |
//!
//! Memory: the current partition (its atoms as rows, their encoding and its items).

use std::collections::VecDeque;

use crate::clock::Clock;
use crate::component::data::{
    DataDecoder, DataItem, DataSchema, DecodeOptions, DecodeStep, DeltaBase, PushDecoder,
};
use crate::component::legacy_data::{LegacyDataFileReader, LegacyStep};
use crate::component::ComponentType;
use crate::error::{Error, Result};
use crate::info::SSTableMetadata;
use crate::range::{ByteRange, ItemReader, RangeReader};
use crate::version::{Format, Version};
use crate::write::data::{DataEncoder, EncodingStats};
use crate::write::legacy::{LegacyConverter, LegacyPartition};
use crate::write::model::{Row, Unfiltered};
use crate::write::TableSchema;

/// The 3.0 version 2.x partitions are re-encoded in (unsigned local deletion times).
fn row_version() -> Result<Version> {
    Version::parse(Format::Big, "oa").ok_or_else(|| Error::invalid("no version oa", 0))
}

/// The decoder's schema for the writer's `schema` (same columns, same order).
pub(crate) fn data_schema_of(schema: &TableSchema) -> Result<DataSchema> {
    let stats = EncodingStats::NO_STATS;
    let key_type = schema.key_type();
    let cols = |c: &[crate::write::ColumnDef]| {
        c.iter()
            .map(|c| (c.name.clone(), c.column_type.clone()))
            .collect::<Vec<_>>()
    };
    let data = DataSchema::from_parts(
        row_version()?,
        key_type,
        schema.clustering_types().to_vec(),
        cols(schema.static_columns()),
        cols(schema.regular_columns()),
        DeltaBase {
            min_timestamp_micros: stats.min_timestamp_micros,
            min_local_deletion_time_raw: stats.min_local_deletion_time_secs,
            min_ttl_secs: stats.min_ttl_secs,
            unsigned_deletion_time: true,
        },
    );
    for is_static in [true, false] {
        let ours: Vec<&str> = schema
            .columns(is_static)
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let theirs: Vec<&str> = data
            .columns(is_static)
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        if ours != theirs {
            return Err(Error::invalid(
                "the schema's columns sort differently for the writer and the decoder",
                0,
            ));
        }
    }
    Ok(data)
}

/// The Data.db items of a 2.x SSTable, one partition at a time (see the [module docs](self)).
#[derive(Debug)]
pub struct LegacyRowsReader {
    data: LegacyDataFileReader,
    converter: LegacyConverter,
    encoder: DataEncoder,
    decoder: DataDecoder,
    queue: VecDeque<DataItem>,
    buffer: Vec<u8>,
    scratch: Vec<u8>,
    finished: bool,
}

impl LegacyRowsReader {
    /// The reader of `metadata`'s 2.x Data.db, its rows per `schema` (from the table's
    /// `CREATE TABLE`: [`crate::write::legacy::schema_from_cql`]); `options.now_seconds`
    /// decides which cells are expired.
    pub fn for_sstable(
        metadata: &SSTableMetadata,
        schema: TableSchema,
        options: DecodeOptions,
    ) -> Result<LegacyRowsReader> {
        let data = LegacyDataFileReader::for_sstable(metadata, options)?;
        let decoded = data_schema_of(&schema)?;
        Ok(LegacyRowsReader {
            data,
            encoder: DataEncoder::new(schema.clone(), row_version()?, EncodingStats::NO_STATS),
            converter: LegacyConverter::new(schema),
            decoder: DataDecoder::new(decoded, options),
            queue: VecDeque::new(),
            buffer: Vec::new(),
            scratch: Vec::new(),
            finished: false,
        })
    }

    /// The schema the items are decoded with.
    pub fn schema(&self) -> &DataSchema {
        self.decoder.schema()
    }

    /// Restarts at the 2.x partition starting at `position` (from Index.db).
    pub fn seek_to_partition(&mut self, position: u64) -> Result<()> {
        self.queue.clear();
        self.finished = false;
        self.data.seek_to_partition(position)
    }

    /// `p` encoded in the 3.0 row format and decoded into [`Self::queue`].
    fn decode(&mut self, p: LegacyPartition) -> Result<()> {
        let at = |e: Error| {
            e.context("the 2.x partition in the 3.0 row format")
                .in_component(ComponentType::Data)
        };
        let buf = &mut self.buffer;
        buf.clear();
        let part = &p.partition;
        self.encoder
            .write_partition_header(buf, &part.key, &part.deletion)
            .map_err(at)?;
        if self.encoder.schema.has_static() {
            let empty = Row::default();
            let row = part.static_row.as_ref().unwrap_or(&empty);
            self.encoder
                .write_row(buf, &mut self.scratch, row, true, 0)
                .map_err(at)?;
        }
        let mut previous = 0u64;
        for u in &part.unfiltereds {
            let relative = buf.len() as u64;
            let size = relative.saturating_sub(previous);
            match u {
                Unfiltered::Row(r) => self
                    .encoder
                    .write_row(buf, &mut self.scratch, r, false, size)
                    .map_err(at)?,
                Unfiltered::Marker(m) => self.encoder.write_marker(buf, m, size).map_err(at)?,
            }
            previous = relative;
        }
        DataEncoder::write_end_of_partition(buf);
        self.decoder.seek_to_partition(p.position);
        self.decoder.push(buf);
        self.decoder.finish();
        let mut positions = p.positions.iter();
        loop {
            match self.decoder.next_item().map_err(at)? {
                DecodeStep::Item(mut item) => {
                    match &mut item {
                        DataItem::StaticRow(r) => {
                            if let Some(s) = p.static_position {
                                r.position = s;
                            }
                        }
                        DataItem::Row(r) => {
                            if let Some(s) = positions.next() {
                                r.position = *s;
                            }
                        }
                        DataItem::RangeTombstoneMarker(m) => {
                            if let Some(s) = positions.next() {
                                m.position = *s;
                            }
                        }
                        DataItem::PartitionStart(_) | DataItem::PartitionEnd(_) => {}
                    }
                    let end = matches!(item, DataItem::PartitionEnd(_));
                    self.queue.push_back(item);
                    if end {
                        return Ok(());
                    }
                }
                DecodeStep::Finished | DecodeStep::NeedMoreData => {
                    return Err(at(Error::invalid(
                        "the re-encoded partition ends early",
                        p.position,
                    )))
                }
            }
        }
    }
}

impl RangeReader for LegacyRowsReader {
    fn next_read(&self) -> Option<ByteRange> {
        RangeReader::next_read(&self.data)
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        self.data.supply(range, bytes, clock)
    }

    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        self.data.abort(range, error, clock);
    }
}

impl ItemReader for LegacyRowsReader {
    fn next_item(&mut self) -> Result<DecodeStep> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Ok(DecodeStep::Item(item));
            }
            if self.finished {
                return Ok(DecodeStep::Finished);
            }
            let converted = match self.data.next_item()? {
                LegacyStep::NeedMoreData => return Ok(DecodeStep::NeedMoreData),
                LegacyStep::Finished => {
                    self.finished = true;
                    return Ok(DecodeStep::Finished);
                }
                LegacyStep::Item(item) => self.converter.push(&item)?,
            };
            if let Some(p) = converted {
                self.decode(p)?;
            }
        }
    }
}
