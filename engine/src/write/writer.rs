//! [`SSTableWriter`]: partitions in, component bytes out through a [`ComponentSink`].
//!
//! The flow is `BigTableWriter.append` per partition: the partition goes to Data.db
//! (`SortedTablePartitionWriter` / `BigFormatPartitionWriter`, which also cut IndexInfo blocks),
//! its key to the bloom filter, its `RowIndexEntry` to Index.db, every 128th key to the summary,
//! and every row, cell and deletion to the `MetadataCollector`. [`SSTableWriter::finish`] emits
//! Summary.db, Filter.db, Statistics.db, CompressionInfo.db or CRC.db, Digest.crc32 and TOC.txt.
//!
//! Rules the caller keeps (checked, as Cassandra asserts them): partitions in token order
//! (then key bytes) without duplicates, non-empty keys of at most 65535 bytes; within a partition
//! the static row first, then rows and markers in strictly increasing clustering order; no empty
//! rows; cells of complex columns sorted by path.

use super::chunks::{DataStream, DataTotals};
use super::data::{DataEncoder, EncodingStats};
use super::filter::BloomFilterBuilder;
use super::index::{write_index_entry, PromotedIndex, SummaryBuilder};
use super::metadata::{MetadataCollector, SSTableFacts, StatisticsInputs};
use super::model::{ModelDeletion, Partition, RangeTombstoneMarker, Row, Unfiltered};
use super::schema::{compare_prefixes, PrefixKind, TableSchema};
use super::ComponentSink;
use crate::component::{ComponentType, DigestAlgorithm};
use crate::compress::Compressor;
use crate::error::{Error, Result};
use crate::token::Partitioner;
use crate::version::{Format, Version};

/// How to write an SSTable.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    /// `nb` or `oa` (format `big`).
    pub version: Version,
    pub partitioner: Partitioner,
    /// `None`: uncompressed Data.db with CRC.db.
    pub compression: Option<Compressor>,
    /// Uncompressed bytes per compressed chunk (`chunk_length_in_kb`; 16 KiB default).
    pub chunk_length_bytes: u32,
    /// CRC.db chunk size of an uncompressed Data.db (the writer's buffer, 64 KiB).
    pub crc_chunk_bytes: u32,
    /// `column_index_size`: Data.db bytes per IndexInfo block (64 KiB default).
    pub column_index_size_bytes: u32,
    /// `bloom_filter_fp_chance` (0.01); ≥ 1 writes no Filter.db.
    pub bloom_filter_fp_chance: f64,
    /// The key count the bloom filter is sized for (Cassandra's estimate from the memtable).
    pub expected_keys: u64,
    /// `min_index_interval` (128).
    pub min_index_interval: u32,
    /// The HEADER minima all Data.db deltas are taken from; every value written should be ≥ them
    /// for compact deltas (smaller values still encode, as 9-byte vints).
    pub encoding_stats: EncodingStats,
    /// Commit log, repair, host and token-coverage facts for STATS.
    pub facts: SSTableFacts,
}

impl WriteOptions {
    /// Cassandra's defaults for `version`: Murmur3, LZ4 in 16 KiB chunks, 64 KiB index blocks,
    /// fp chance 0.01, min index interval 128.
    pub fn new(version: Version) -> Self {
        WriteOptions {
            version,
            partitioner: Partitioner::Murmur3,
            compression: Some(Compressor::Lz4),
            chunk_length_bytes: 16 * 1024,
            crc_chunk_bytes: 64 * 1024,
            column_index_size_bytes: 64 * 1024,
            bloom_filter_fp_chance: 0.01,
            expected_keys: 1,
            min_index_interval: 128,
            encoding_stats: EncodingStats::NO_STATS,
            facts: SSTableFacts::default(),
        }
    }
}

/// What [`SSTableWriter::finish`] reports.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteSummary {
    pub partitions: u64,
    /// Regular rows (not the static rows).
    pub rows: u64,
    pub markers: u64,
    /// Uncompressed Data.db length.
    pub data_length: u64,
    /// Data.db length as stored.
    pub stored_length: u64,
    /// Compressed chunks, or CRC.db chunks when uncompressed.
    pub chunk_count: usize,
    pub compression_ratio: f64,
    /// CRC32 of the stored Data.db (Digest.crc32).
    pub digest: u32,
    pub index_length: u64,
    pub min_timestamp_micros: Option<i64>,
    pub max_timestamp_micros: Option<i64>,
    /// The components written, as TOC.txt lists them.
    pub components: Vec<ComponentType>,
    /// The most bytes the writer's working buffers held at once.
    pub max_buffered_bytes: usize,
}

/// The partition being written.
#[derive(Debug)]
struct OpenPartition {
    key: Vec<u8>,
    deletion: ModelDeletion,
    /// Uncompressed Data.db position of the key.
    start: u64,
    /// Key + deletion + static row, once known.
    header_length: Option<u64>,
    previous_start: u64,
    block_open: bool,
    block_start: u64,
    first_prefix: Vec<u8>,
    last_prefix: Vec<u8>,
    open_marker: ModelDeletion,
    written: u64,
    last_clustering: Option<(PrefixKind, Vec<Vec<u8>>)>,
}

/// A streaming big-format (`nb`/`oa`) SSTable writer.
pub struct SSTableWriter<S: ComponentSink> {
    sink: S,
    options: WriteOptions,
    encoder: DataEncoder,
    data: DataStream,
    index_length: u64,
    index_entry: Vec<u8>,
    promoted: PromotedIndex,
    summary: SummaryBuilder,
    filter: Option<BloomFilterBuilder>,
    collector: MetadataCollector,
    partition: Option<OpenPartition>,
    first_key: Option<Vec<u8>>,
    last_key: Option<Vec<u8>>,
    buffer: Vec<u8>,
    scratch: Vec<u8>,
    partitions: u64,
    rows: u64,
    markers: u64,
    max_buffered: usize,
}

impl<S: ComponentSink> core::fmt::Debug for SSTableWriter<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SSTableWriter")
            .field("version", &self.options.version)
            .field("partitions", &self.partitions)
            .field("data_position", &self.data.position())
            .finish_non_exhaustive()
    }
}

impl<S: ComponentSink> SSTableWriter<S> {
    pub fn new(schema: TableSchema, options: WriteOptions, sink: S) -> Result<Self> {
        let v = options.version;
        if v.format() != Format::Big || !matches!(v.as_str(), "nb" | "oa") {
            return Err(Error::invalid(
                format!("the writer writes big-format nb and oa, not {}", v),
                0,
            ));
        }
        if !matches!(
            options.partitioner,
            Partitioner::Murmur3
                | Partitioner::Random
                | Partitioner::ByteOrdered
                | Partitioner::OrderPreserving
        ) {
            return Err(Error::invalid(
                format!("cannot order keys for {}", options.partitioner),
                0,
            ));
        }
        if options.column_index_size_bytes == 0 {
            return Err(Error::invalid("column index size must be > 0", 0));
        }
        let chunk = match &options.compression {
            Some(_) => options.chunk_length_bytes,
            None => options.crc_chunk_bytes,
        };
        if options.compression.is_some() && !chunk.is_power_of_two() {
            return Err(Error::invalid(
                format!("chunk length {chunk} is not a power of two"),
                0,
            ));
        }
        let data = DataStream::new(options.compression.clone(), chunk as usize)?;
        let filter =
            BloomFilterBuilder::new(options.expected_keys, options.bloom_filter_fp_chance)?;
        let summary = SummaryBuilder::new(options.min_index_interval)?;
        let collector = MetadataCollector::new(&schema, &v);
        let encoder = DataEncoder::new(schema, v, options.encoding_stats);
        Ok(SSTableWriter {
            sink,
            options,
            encoder,
            data,
            index_length: 0,
            index_entry: Vec::new(),
            promoted: PromotedIndex::default(),
            summary,
            filter,
            collector,
            partition: None,
            first_key: None,
            last_key: None,
            buffer: Vec::new(),
            scratch: Vec::new(),
            partitions: 0,
            rows: 0,
            markers: 0,
            max_buffered: 0,
        })
    }

    pub fn schema(&self) -> &TableSchema {
        &self.encoder.schema
    }

    pub fn options(&self) -> &WriteOptions {
        &self.options
    }

    /// Uncompressed Data.db bytes written so far.
    pub fn data_position(&self) -> u64 {
        self.data.position()
    }

    /// Bytes held right now in working buffers: the Data.db chunk (uncompressed and compressed),
    /// the row being serialized, the current partition's IndexInfo blocks and index entry.
    /// Structures that grow with the table as in Cassandra (bloom bitset, summary samples,
    /// per-chunk offsets, HLL) are in [`SSTableWriter::metadata_bytes`].
    pub fn buffered_bytes(&self) -> usize {
        let prefixes = self.partition.as_ref().map_or(0, |p| {
            p.first_prefix
                .capacity()
                .saturating_add(p.last_prefix.capacity())
        });
        self.data
            .buffered_bytes()
            .saturating_add(self.buffer.capacity())
            .saturating_add(self.scratch.capacity())
            .saturating_add(self.index_entry.capacity())
            .saturating_add(self.promoted.buffered_bytes())
            .saturating_add(prefixes)
    }

    /// The most [`SSTableWriter::buffered_bytes`] seen so far.
    pub fn max_buffered_bytes(&self) -> usize {
        self.max_buffered
    }

    /// Bytes of table-sized bookkeeping: bloom bitset, summary samples, chunk offsets / CRCs,
    /// cardinality estimator and tombstone spool.
    pub fn metadata_bytes(&self) -> usize {
        self.filter
            .as_ref()
            .map_or(0, |f| f.memory_bytes())
            .saturating_add(self.summary.memory_bytes())
            .saturating_add(self.data.metadata_bytes())
            .saturating_add(self.collector.memory_bytes())
    }

    fn track_buffers(&mut self) {
        self.max_buffered = self.max_buffered.max(self.buffered_bytes());
    }

    /// An input error at the current Data.db position.
    fn error(&self, msg: impl Into<String>) -> Error {
        Error::invalid(msg, self.data.position()).in_component(ComponentType::Data)
    }

    /// Re-anchors an encoder error (offset 0) at the current Data.db position.
    fn anchor(&self, e: Error) -> Error {
        if e.offset() == 0 && e.component().is_none() {
            Error::new(e.kind().clone(), self.data.position())
                .context(e.what())
                .in_component(ComponentType::Data)
        } else {
            e
        }
    }

    fn write_buffer(&mut self) -> Result<()> {
        let buffer = core::mem::take(&mut self.buffer);
        let r = self.data.write(&buffer, &mut self.sink);
        self.buffer = buffer;
        r
    }

    /// Opens a partition: writes its key and partition deletion.
    pub fn start_partition(&mut self, key: &[u8], deletion: ModelDeletion) -> Result<()> {
        if self.partition.is_some() {
            return Err(self.error("start_partition while a partition is open"));
        }
        if key.is_empty() {
            return Err(self.error("partition keys may not be empty"));
        }
        if let Some(last) = &self.last_key {
            if self.options.partitioner.compare_keys(last, key).is_ge() {
                return Err(self.error(format!(
                    "partition keys out of token order (or repeated) for {}: sort them with \
                     write::sort_keys_by_token",
                    self.options.partitioner
                )));
            }
        }
        let start = self.data.position();
        self.buffer.clear();
        self.encoder
            .write_partition_header(&mut self.buffer, key, &deletion)
            .map_err(|e| self.anchor(e))?;
        self.write_buffer()?;
        self.collector.update_partition_deletion(&deletion);
        let header_length = if self.encoder.schema.has_static() {
            None
        } else {
            Some(self.data.position().saturating_sub(start))
        };
        self.partition = Some(OpenPartition {
            key: key.to_vec(),
            deletion,
            start,
            header_length,
            previous_start: 0,
            block_open: false,
            block_start: 0,
            first_prefix: Vec::new(),
            last_prefix: Vec::new(),
            open_marker: ModelDeletion::LIVE,
            written: 0,
            last_clustering: None,
        });
        self.track_buffers();
        Ok(())
    }

    /// Writes the static row (only before any row or marker; tables with static columns get an
    /// empty one otherwise).
    pub fn add_static_row(&mut self, row: &Row) -> Result<()> {
        let Some(p) = &self.partition else {
            return Err(self.error("add_static_row without an open partition"));
        };
        if !self.encoder.schema.has_static() {
            return Err(self.error("the table has no static columns"));
        }
        if p.header_length.is_some() {
            return Err(self.error("the static row must come first, once"));
        }
        if !row.clustering.is_empty() {
            return Err(self.error("a static row has no clustering"));
        }
        self.write_static(row)
    }

    fn write_static(&mut self, row: &Row) -> Result<()> {
        self.buffer.clear();
        self.encoder
            .write_row(&mut self.buffer, &mut self.scratch, row, true, 0)
            .map_err(|e| self.anchor(e))?;
        self.write_buffer()?;
        if !row.is_empty() {
            self.collector.update_row(row, true);
        }
        let position = self.data.position();
        if let Some(p) = &mut self.partition {
            p.header_length = Some(position.saturating_sub(p.start));
        }
        self.track_buffers();
        Ok(())
    }

    fn ensure_static(&mut self) -> Result<()> {
        if self
            .partition
            .as_ref()
            .is_some_and(|p| p.header_length.is_none())
        {
            self.write_static(&Row::default())?;
        }
        Ok(())
    }

    /// Checks clustering order and opens an index block if needed; returns the unfiltered's
    /// position relative to the partition start.
    fn before_unfiltered(&mut self, kind: PrefixKind, values: &[Vec<u8>]) -> Result<u64> {
        self.ensure_static()?;
        let types = self.encoder.schema.clustering_types();
        let position = self.data.position();
        let Some(p) = &mut self.partition else {
            return Err(self.error("rows need an open partition"));
        };
        if let Some((last_kind, last_values)) = &p.last_clustering {
            if compare_prefixes(types, (last_values, *last_kind), (values, kind)).is_ge() {
                return Err(
                    Error::invalid("rows and markers out of clustering order", position)
                        .in_component(ComponentType::Data),
                );
            }
        }
        p.last_clustering = Some((kind, values.to_vec()));
        let relative = position.saturating_sub(p.start);
        if !p.block_open {
            p.block_open = true;
            p.block_start = relative;
            p.first_prefix.clear();
            self.encoder
                .write_index_prefix(&mut p.first_prefix, kind, values)?;
        }
        Ok(relative)
    }

    fn after_unfiltered(
        &mut self,
        kind: PrefixKind,
        values: &[Vec<u8>],
        relative: u64,
        open: Option<Option<ModelDeletion>>,
    ) -> Result<()> {
        let position = self.data.position();
        let index_size = u64::from(self.options.column_index_size_bytes);
        let close = {
            let Some(p) = &mut self.partition else {
                return Ok(());
            };
            p.last_prefix.clear();
            self.encoder
                .write_index_prefix(&mut p.last_prefix, kind, values)?;
            p.previous_start = relative;
            p.written = p.written.saturating_add(1);
            if let Some(open) = open {
                p.open_marker = open.unwrap_or(ModelDeletion::LIVE);
            }
            position
                .saturating_sub(p.start)
                .saturating_sub(p.block_start)
                >= index_size
        };
        if close {
            self.add_index_block()?;
        }
        self.track_buffers();
        Ok(())
    }

    fn add_index_block(&mut self) -> Result<()> {
        let position = self.data.position();
        let Some(p) = &mut self.partition else {
            return Ok(());
        };
        let mut marker = Vec::new();
        let open = if p.open_marker.is_live() {
            None
        } else {
            self.encoder
                .write_deletion_time(&mut marker, &p.open_marker);
            Some(marker.as_slice())
        };
        self.promoted.add_block(
            &p.first_prefix,
            &p.last_prefix,
            p.block_start,
            position
                .saturating_sub(p.start)
                .saturating_sub(p.block_start),
            open,
        )?;
        p.block_open = false;
        Ok(())
    }

    /// Writes a regular row.
    pub fn add_row(&mut self, row: &Row) -> Result<()> {
        if row.is_empty() {
            return Err(self.error("empty rows are not written"));
        }
        let relative = self.before_unfiltered(PrefixKind::Clustering, &row.clustering)?;
        let previous = self.partition.as_ref().map_or(0, |p| p.previous_start);
        self.buffer.clear();
        self.encoder
            .write_row(
                &mut self.buffer,
                &mut self.scratch,
                row,
                false,
                relative.saturating_sub(previous),
            )
            .map_err(|e| self.anchor(e))?;
        self.write_buffer()?;
        self.collector.update_row(row, false);
        self.rows = self.rows.saturating_add(1);
        self.after_unfiltered(PrefixKind::Clustering, &row.clustering, relative, None)
    }

    /// Writes a range tombstone bound or boundary.
    pub fn add_marker(&mut self, marker: &RangeTombstoneMarker) -> Result<()> {
        let kind = marker.kind.prefix_kind();
        let relative = self.before_unfiltered(kind, &marker.values)?;
        let previous = self.partition.as_ref().map_or(0, |p| p.previous_start);
        self.buffer.clear();
        self.encoder
            .write_marker(&mut self.buffer, marker, relative.saturating_sub(previous))
            .map_err(|e| self.anchor(e))?;
        self.write_buffer()?;
        self.collector.update_marker(marker);
        self.markers = self.markers.saturating_add(1);
        self.after_unfiltered(kind, &marker.values, relative, Some(marker.open_deletion()))
    }

    /// Writes a row or a marker.
    pub fn add_unfiltered(&mut self, unfiltered: &Unfiltered) -> Result<()> {
        match unfiltered {
            Unfiltered::Row(r) => self.add_row(r),
            Unfiltered::Marker(m) => self.add_marker(m),
        }
    }

    /// Closes the partition: end-of-partition byte, last IndexInfo block, Index.db entry, bloom
    /// filter, summary and statistics.
    pub fn end_partition(&mut self) -> Result<()> {
        if self.partition.is_none() {
            return Err(self.error("end_partition without an open partition"));
        }
        self.ensure_static()?;
        self.buffer.clear();
        DataEncoder::write_end_of_partition(&mut self.buffer);
        self.write_buffer()?;
        if self
            .partition
            .as_ref()
            .is_some_and(|p| p.written > 0 && p.block_open)
        {
            self.add_index_block()?;
        }
        let Some(p) = self.partition.take() else {
            return Err(self.error("end_partition without an open partition"));
        };
        let size = self.data.position().saturating_sub(p.start);
        let mut deletion = Vec::new();
        self.encoder.write_deletion_time(&mut deletion, &p.deletion);
        self.index_entry.clear();
        write_index_entry(
            &mut self.index_entry,
            &p.key,
            p.start,
            p.header_length.unwrap_or(0),
            &deletion,
            &self.promoted,
        )?;
        if let Some(f) = &mut self.filter {
            f.add(&p.key);
        }
        self.summary.add(&p.key, self.index_length)?;
        self.sink
            .write(&ComponentType::PrimaryIndex, &self.index_entry)?;
        self.index_length = self
            .index_length
            .saturating_add(self.index_entry.len() as u64);
        self.collector.finish_partition(&p.key, size);
        self.track_buffers();
        self.promoted.clear();
        if self.first_key.is_none() {
            self.first_key = Some(p.key.clone());
        }
        self.last_key = Some(p.key);
        self.partitions = self.partitions.saturating_add(1);
        Ok(())
    }

    /// Writes a whole partition.
    pub fn append(&mut self, partition: &Partition) -> Result<()> {
        self.start_partition(&partition.key, partition.deletion)?;
        if let Some(s) = &partition.static_row {
            if self.encoder.schema.has_static() {
                self.add_static_row(s)?;
            } else if !s.is_empty() {
                return Err(self.error("a static row for a table without static columns"));
            }
        }
        for u in &partition.unfiltereds {
            self.add_unfiltered(u)?;
        }
        self.end_partition()
    }

    /// Gives up: the sink back, its components incomplete (a scrub that aborts).
    pub fn into_sink(self) -> S {
        self.sink
    }

    /// Flushes Data.db and writes the remaining components; returns the sink and a summary.
    pub fn finish(mut self) -> Result<(S, WriteSummary)> {
        if self.partition.is_some() {
            return Err(self.error("finish with a partition still open"));
        }
        let (Some(first), Some(last)) = (self.first_key.clone(), self.last_key.clone()) else {
            return Err(self.error("an SSTable needs at least one partition"));
        };
        let data = core::mem::replace(&mut self.data, DataStream::new(None, 1)?);
        let totals: DataTotals = data.finish(&mut self.sink)?;
        let version = self.options.version;
        let mut components = vec![ComponentType::Data, ComponentType::PrimaryIndex];

        let summary = self.summary.finish()?;
        self.sink.write(&ComponentType::Summary, &summary)?;
        components.push(ComponentType::Summary);

        if let Some(f) = &self.filter {
            self.sink.write(&ComponentType::Filter, &f.finish())?;
            components.push(ComponentType::Filter);
        }

        let statistics = self.collector.serialize(&StatisticsInputs {
            version: &version,
            partitioner: &self.options.partitioner,
            bloom_filter_fp_chance: self.options.bloom_filter_fp_chance,
            encoder: &self.encoder,
            compression_ratio: totals.compression_ratio,
            facts: &self.options.facts,
            first_key: &first,
            last_key: &last,
        })?;
        self.sink.write(&ComponentType::Statistics, &statistics)?;
        components.push(ComponentType::Statistics);

        let (integrity, bytes) = totals.integrity_component(&version)?;
        self.sink.write(&integrity, &bytes)?;
        components.push(integrity);

        let digest = ComponentType::Digest(DigestAlgorithm::Crc32);
        self.sink.write(&digest, &totals.digest_component())?;
        components.push(digest);
        components.push(ComponentType::Toc);

        let mut toc = String::new();
        for c in &components {
            toc.push_str(c.file_suffix());
            toc.push('\n');
        }
        self.sink.write(&ComponentType::Toc, toc.as_bytes())?;

        let range = self.collector.timestamp_range();
        let summary = WriteSummary {
            partitions: self.partitions,
            rows: self.rows,
            markers: self.markers,
            data_length: totals.data_length,
            stored_length: totals.stored_length,
            chunk_count: totals.chunk_offsets.len().max(totals.chunk_crcs.len()),
            compression_ratio: totals.compression_ratio,
            digest: totals.digest,
            index_length: self.index_length,
            min_timestamp_micros: range.map(|r| r.0),
            max_timestamp_micros: range.map(|r| r.1),
            components,
            max_buffered_bytes: self.max_buffered,
        };
        Ok((self.sink, summary))
    }
}
