//! [`Scrubber`]: the scrub as one byte-range reader (see the module docs of [`super`]).
//!
//! States: reading Data.db sequentially ([`Active::Data`]); after an error, reading the index
//! forward to the first partition past the broken one ([`Active::Index`]), then Data.db again
//! from there; done. Src: `db/compaction/Scrubber.java` (`scrub`, `tryAppend`, the index
//! resync), ScyllaDB `sstables/` scrub (`segregate`: out-of-order partitions to further
//! SSTables, each in order).

use super::report::{DroppedPartition, OutputReport, ProblemKind, ScrubReport};
use super::ScrubMode;
use crate::checked_data::CheckedDataReader;
use crate::clock::Clock;
use crate::component::data::{DataItem, DecodeOptions, DecodeStep};
use crate::component::ComponentType;
use crate::compress::Compressor;
use crate::error::{Error, Result};
use crate::index_listing::{IndexListing, ListingItem, ListingOptions};
use crate::metadata::SSTableMetadata;
use crate::range::{ByteRange, ItemReader, PullReader, Pulled, RangeReader};
use crate::span::hex;
use crate::token::Partitioner;
use crate::types::value::format_value;
use crate::types::AbstractType;
use crate::version::{Format, Version};
use crate::write::decoded::{encoding_stats_from, schema_from_data_schema};
use crate::write::model::{BoundKind, ColumnData, Partition, RangeTombstoneMarker, Unfiltered};
use crate::write::schema::{cell_path_type, compare_prefixes, compare_values, PrefixKind};
use crate::write::{
    ComponentSink, DecodedConverter, PartitionCollector, SSTableWriter, TableSchema, WriteOptions,
    WriteSummary,
};

/// How to scrub.
#[derive(Debug, Clone, PartialEq)]
pub struct ScrubOptions {
    pub mode: ScrubMode,
    /// `nb` or `oa`.
    pub version: Version,
    /// The output's Data.db compressor; `None`: uncompressed with CRC.db.
    pub compression: Option<Compressor>,
    /// Decoder limits (values, rows).
    pub decode: DecodeOptions,
}

impl ScrubOptions {
    /// LZ4 in 16 KiB chunks, the decoder's default limits.
    pub fn new(mode: ScrubMode, version: Version) -> ScrubOptions {
        ScrubOptions {
            mode,
            version,
            compression: Some(Compressor::Lz4),
            decode: DecodeOptions::default(),
        }
    }
}

/// Which reader the next range is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Active {
    Data,
    Index,
    Done,
}

/// The scrub of one SSTable; output `n`'s components go to the sink `open_sink(n)` returns.
pub struct Scrubber<S: ComponentSink, F: FnMut(usize) -> Result<S>> {
    options: ScrubOptions,
    data: CheckedDataReader,
    data_len: u64,
    key_type: Option<AbstractType>,
    partitioner: Partitioner,
    schema: TableSchema,
    write_options: WriteOptions,
    collector: PartitionCollector,
    open_sink: F,
    writers: Vec<Option<SSTableWriter<S>>>,
    /// The last key written to each output (validate: the last key in order).
    last_keys: Vec<Option<Vec<u8>>>,
    listing: Option<IndexListing>,
    active: Active,
    /// Where the partition being read starts (or the next one is expected).
    current_start: u64,
    /// The key the index gave the partition at `current_start` (after a resync).
    index_key: Option<Vec<u8>>,
    /// The partition's items are ignored up to its end (it cannot be written).
    skipping: bool,
    /// A problem partition whose end is not known yet.
    pending: Option<DroppedPartition>,
    /// Index entries at or before this position are passed over.
    resync_from: u64,
    report: ScrubReport,
    fatal: Option<Error>,
}

impl<S: ComponentSink, F: FnMut(usize) -> Result<S>> core::fmt::Debug for Scrubber<S, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scrubber")
            .field("mode", &self.options.mode)
            .field("active", &self.active)
            .field("current_start", &self.current_start)
            .finish_non_exhaustive()
    }
}

/// What [`Scrubber::finish`] gives back: the report and each output's sink.
pub struct ScrubOutcome<S> {
    pub report: ScrubReport,
    /// Outputs written whole: (output, sink, summary).
    pub outputs: Vec<(usize, S, WriteSummary)>,
    /// Outputs begun but not finished (abort, a writer error): their files are incomplete.
    pub abandoned: Vec<(usize, S)>,
}

impl<S: ComponentSink, F: FnMut(usize) -> Result<S>> Scrubber<S, F> {
    /// A scrub of `metadata`'s SSTable (3.0+ row format; Data.db and Statistics.db decoded).
    pub fn new(metadata: &SSTableMetadata, options: ScrubOptions, open_sink: F) -> Result<Self> {
        let source = metadata.descriptor.version;
        if !source.has_row_format() {
            return Err(Error::invalid(
                format!(
                    "{source} SSTables (before 3.0) are not scrubbed: their cells have no \
                     serialization header to rewrite them with"
                ),
                0,
            )
            .in_component(ComponentType::Data));
        }
        let v = options.version;
        if v.format() != Format::Big || !matches!(v.as_str(), "nb" | "oa") {
            return Err(Error::invalid(format!("scrub writes nb or oa, not {v}"), 0));
        }
        let mut data = CheckedDataReader::for_sstable(metadata, options.decode)?;
        // Uncompressed with CRC.db: read one CRC.db chunk at a time, so that a chunk failing
        // its checksum loses only its own partitions, not those of a larger read around it.
        if let (None, Some(crc)) = (&metadata.compression, &metadata.crc) {
            if data.checks_every_read() {
                data = data.with_read_block_bytes(u64::from(crc.chunk_size_bytes.value));
            }
        }
        let data_len = data.reader().data_len_bytes();
        let source_schema = data.reader().decoder().schema().clone();
        let schema = schema_from_data_schema(&source_schema)?;
        let partitioner = metadata.partitioner();
        let mut write_options = WriteOptions::new(v);
        write_options.partitioner = partitioner.clone();
        write_options.compression = options.compression.clone();
        write_options.encoding_stats = encoding_stats_from(&source_schema);
        write_options.expected_keys = metadata
            .statistics
            .as_ref()
            .and_then(|s| s.estimated_partition_count())
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(1)
            .clamp(1, 1 << 32);
        let listing = IndexListing::for_sstable(
            metadata,
            ListingOptions {
                blocks: false,
                max_blocks: 0,
                max_promoted_bytes: 0,
                data_headers: false,
                keys: true,
                data_keys: true,
            },
        )
        .ok();
        let collector = PartitionCollector::new(DecodedConverter::new(&source_schema, &schema));
        let mut report = ScrubReport::new(options.mode, v.as_str());
        report.data_checksums_checked = data.checks_every_read();
        Ok(Scrubber {
            options,
            data,
            data_len,
            key_type: metadata.key_type(),
            partitioner,
            schema,
            write_options,
            collector,
            open_sink,
            writers: Vec::new(),
            last_keys: vec![None],
            listing,
            active: Active::Data,
            current_start: 0,
            index_key: None,
            skipping: false,
            pending: None,
            resync_from: 0,
            report,
            fatal: None,
        })
    }

    /// The report so far.
    pub fn report(&self) -> &ScrubReport {
        &self.report
    }

    /// Uncompressed Data.db bytes behind the reader (progress).
    pub fn position(&self) -> u64 {
        self.current_start
    }

    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    pub fn is_done(&self) -> bool {
        self.active == Active::Done
    }

    /// Decodes and writes as far as the bytes supplied allow.
    fn advance(&mut self) {
        loop {
            if self.fatal.is_some() {
                self.active = Active::Done;
            }
            match self.active {
                Active::Done => return,
                Active::Data => match self.data.next_item() {
                    Ok(DecodeStep::NeedMoreData) => return,
                    Ok(DecodeStep::Finished) => self.at_data_end(),
                    Ok(DecodeStep::Item(item)) => self.take(&item),
                    Err(e) => self.data_error(&e),
                },
                Active::Index => {
                    let Some(listing) = self.listing.as_mut() else {
                        self.index_failed(None);
                        continue;
                    };
                    match listing.pull() {
                        Ok(Pulled::NeedMoreData) => return,
                        Ok(Pulled::End) => self.index_failed(None),
                        Ok(Pulled::Item(ListingItem::Partition(p))) => {
                            if let Some(position) = p.position {
                                self.index_entry(position, p.key);
                            }
                        }
                        Ok(Pulled::Item(ListingItem::Skipped { .. })) => {
                            if let Some(p) = self.pending.as_mut() {
                                p.unnamed_partitions = p.unnamed_partitions.saturating_add(1);
                            }
                        }
                        Err(e) => self.index_failed(Some(&e)),
                    }
                }
            }
        }
    }

    fn describe(&self, key: Option<&[u8]>) -> (Option<String>, Option<String>, Option<String>) {
        match key {
            Some(k) => (
                Some(render_key(self.key_type.as_ref(), k)),
                Some(hex(k)),
                Some(self.partitioner.token(k).to_string()),
            ),
            None => (None, None, None),
        }
    }

    fn problem(&self, key: Option<&[u8]>, kind: ProblemKind, reason: String) -> DroppedPartition {
        let (key, key_hex, token) = self.describe(key);
        DroppedPartition {
            key,
            key_hex,
            token,
            kind,
            reason,
            start: self.current_start,
            end: None,
            rows_kept: 0,
            segregated_to: None,
            unnamed_partitions: 0,
        }
    }

    fn close_pending(&mut self, end: Option<u64>) {
        if let Some(mut p) = self.pending.take() {
            p.end = end;
            self.report.problems.push(p);
        }
    }

    fn take(&mut self, item: &DataItem) {
        if let DataItem::PartitionStart(s) = item {
            self.close_pending(Some(s.position));
            self.current_start = s.position;
            self.index_key = None;
            self.skipping = false;
            self.report.partitions_read = self.report.partitions_read.saturating_add(1);
        }
        let end = item.position().saturating_add(1);
        if self.skipping {
            if let DataItem::PartitionEnd(_) = item {
                self.skipping = false;
                self.close_pending(Some(end));
                self.current_start = end;
            }
            return;
        }
        match self.collector.push(item) {
            Ok(Some(partition)) => {
                self.complete(partition, end, None);
                self.current_start = end;
            }
            Ok(None) => {}
            Err(e) => {
                let key = self.collector.take_open().map(|p| p.key);
                let problem = self.problem(key.as_deref(), ProblemKind::NotWritable, e.to_string());
                if self.stop_here(&problem) {
                    return;
                }
                self.pending = Some(problem);
                self.skipping = !matches!(item, DataItem::PartitionEnd(_));
                if !self.skipping {
                    self.close_pending(Some(end));
                    self.current_start = end;
                }
            }
        }
    }

    /// Abort mode: records the problem and stops. Returns whether it stopped.
    fn stop_here(&mut self, problem: &DroppedPartition) -> bool {
        if self.options.mode != ScrubMode::Abort {
            return false;
        }
        let what = problem.key.as_deref().unwrap_or("(key unknown)");
        self.report.aborted = Some(format!(
            "{} at Data.db {}: partition {what}: {}",
            problem.kind.name(),
            problem.start,
            problem.reason
        ));
        self.report.problems.push(problem.clone());
        self.active = Active::Done;
        true
    }

    /// Where a whole partition goes: `Ok(output)`, or the order problem.
    fn order(&self, key: &[u8]) -> core::result::Result<(), ProblemKind> {
        match self.last_keys.first().cloned().flatten() {
            Some(last) => match self.partitioner.compare_keys(&last, key) {
                core::cmp::Ordering::Less => Ok(()),
                core::cmp::Ordering::Equal => Err(ProblemKind::DuplicateKey),
                core::cmp::Ordering::Greater => Err(ProblemKind::OutOfOrder),
            },
            None => Ok(()),
        }
    }

    /// A partition read to its end (`cut_short`: the error that ended it early).
    fn complete(&mut self, partition: Partition, end: u64, cut_short: Option<DroppedPartition>) {
        let rows = partition.unfiltereds.len() as u64;
        if let Err(reason) = writable(&self.schema, &partition) {
            let mut problem = self.problem(Some(&partition.key), ProblemKind::NotWritable, reason);
            problem.end = Some(end);
            if let Some(c) = cut_short {
                problem.reason = format!("{}; {}", c.reason, problem.reason);
                problem.kind = c.kind;
                problem.end = None;
                self.pending = Some(problem);
            } else if !self.stop_here(&problem) {
                self.report.problems.push(problem);
            }
            return;
        }
        let order = self.order(&partition.key);
        if let Err(kind) = order {
            let mut problem = self.problem(
                Some(&partition.key),
                kind,
                format!(
                    "the key is not above the previous partition's ({})",
                    self.partitioner
                ),
            );
            problem.end = Some(end);
            if self.stop_here(&problem) {
                return;
            }
            if self.options.mode == ScrubMode::Segregate {
                let output = self.segregated_output(&partition.key);
                if self.write(output, &partition) {
                    problem.segregated_to = Some(output);
                    problem.rows_kept = rows;
                }
            }
            if let Some(c) = cut_short {
                problem.reason = format!("{}; {}", c.reason, problem.reason);
                problem.kind = c.kind;
                problem.end = None;
                self.pending = Some(problem);
            } else {
                self.report.problems.push(problem);
            }
            return;
        }
        if let Some(mut c) = cut_short {
            let closed = close_open_marker(partition.clone());
            if self.write(0, &closed) {
                c.rows_kept = rows;
            }
            self.pending = Some(c);
        } else if self.write(0, &partition) || !self.options.mode.writes() {
            self.report.partitions_kept = self.report.partitions_kept.saturating_add(1);
        }
        if let Some(k) = self.last_keys.first_mut() {
            *k = Some(partition.key);
        }
    }

    /// The first segregated output whose last key is below `key`, or a new one.
    fn segregated_output(&mut self, key: &[u8]) -> usize {
        for (i, last) in self.last_keys.iter().enumerate().skip(1) {
            let fits = last
                .as_ref()
                .is_none_or(|l| self.partitioner.compare_keys(l, key).is_lt());
            if fits {
                return i;
            }
        }
        self.last_keys.push(None);
        self.last_keys.len().saturating_sub(1)
    }

    /// Writes `partition` to `output` (opening it first); false when nothing is written.
    fn write(&mut self, output: usize, partition: &Partition) -> bool {
        if !self.options.mode.writes() || self.fatal.is_some() {
            if let Some(k) = self.last_keys.get_mut(output) {
                *k = Some(partition.key.clone());
            }
            return false;
        }
        while self.writers.len() <= output {
            self.writers.push(None);
        }
        if self.writers.get(output).is_some_and(Option::is_none) {
            let opened = (self.open_sink)(output).and_then(|sink| {
                SSTableWriter::new(self.schema.clone(), self.write_options.clone(), sink)
            });
            match opened {
                Ok(w) => {
                    if let Some(slot) = self.writers.get_mut(output) {
                        *slot = Some(w);
                    }
                }
                Err(e) => {
                    self.fatal = Some(e);
                    return false;
                }
            }
        }
        let Some(Some(writer)) = self.writers.get_mut(output) else {
            return false;
        };
        if let Err(e) = writer.append(partition) {
            self.fatal = Some(e);
            return false;
        }
        self.report.rows_kept = self
            .report
            .rows_kept
            .saturating_add(partition.unfiltereds.len() as u64);
        if let Some(k) = self.last_keys.get_mut(output) {
            *k = Some(partition.key.clone());
        }
        true
    }

    /// Data.db could not be read or decoded at the partition at `current_start`.
    fn data_error(&mut self, e: &Error) {
        let message = e.to_string();
        let kind = if message.contains("checksum") {
            ProblemKind::ChunkChecksum
        } else {
            ProblemKind::Undecodable
        };
        let open = self.collector.take_open();
        let key = open
            .as_ref()
            .map(|p| p.key.clone())
            .or_else(|| self.index_key.clone());
        let problem = self.problem(key.as_deref(), kind, message);
        if self.stop_here(&problem) {
            return;
        }
        if self.skipping {
            // Not writable, then broken: one problem.
            self.skipping = false;
        }
        let had_pending = self.pending.is_some();
        if !had_pending {
            match open {
                Some(p) if !p.unfiltereds.is_empty() && self.options.mode.writes() => {
                    self.complete(p, self.current_start, Some(problem));
                }
                _ => self.pending = Some(problem),
            }
        }
        self.resync_from = self.current_start;
        if self.listing.is_some() {
            self.report.used_index = true;
            self.active = Active::Index;
        } else {
            self.close_pending(None);
            self.report.unread = Some((self.current_start, self.data_len));
            self.active = Active::Done;
        }
    }

    /// The index lists a partition at `position`.
    fn index_entry(&mut self, position: u64, key: Option<Vec<u8>>) {
        if position < self.resync_from {
            return;
        }
        if position == self.resync_from {
            if let (Some(p), Some(k)) = (self.pending.as_mut(), key.as_deref()) {
                if p.key.is_none() {
                    let (key, key_hex, token) = (
                        Some(render_key(self.key_type.as_ref(), k)),
                        Some(hex(k)),
                        Some(self.partitioner.token(k).to_string()),
                    );
                    p.key = key;
                    p.key_hex = key_hex;
                    p.token = token;
                }
            }
            return;
        }
        if position >= self.data_len {
            // Listed, but Data.db ends first (a truncated file): the partition is lost.
            self.close_pending(Some(self.data_len));
            self.current_start = position;
            let mut lost = self.problem(
                key.as_deref(),
                ProblemKind::Undecodable,
                format!(
                    "the index lists it at Data.db {position}, past the end of the data ({} bytes)",
                    self.data_len
                ),
            );
            lost.end = None;
            self.resync_from = position;
            if !self.stop_here(&lost) {
                self.report.problems.push(lost);
            }
            return;
        }
        self.close_pending(Some(position));
        self.current_start = position;
        self.index_key = key;
        match self.data.seek_to_partition(position) {
            Ok(()) => self.active = Active::Data,
            Err(e) => {
                let problem = self.problem(
                    self.index_key.clone().as_deref(),
                    ProblemKind::Undecodable,
                    e.to_string(),
                );
                self.pending = Some(problem);
                self.index_failed(Some(&e));
            }
        }
    }

    /// The index ended (`None`) or failed: nothing more can be located.
    fn index_failed(&mut self, error: Option<&Error>) {
        match error {
            None => self.close_pending(Some(self.data_len)),
            Some(e) => {
                self.close_pending(None);
                self.report.unread = Some((self.resync_from, self.data_len));
                self.report.error = Some(format!("the index could not be read further: {e}"));
            }
        }
        self.active = Active::Done;
    }

    fn at_data_end(&mut self) {
        self.close_pending(Some(self.data_len));
        if let Some(p) = self.collector.take_open() {
            let problem = self.problem(
                Some(&p.key),
                ProblemKind::Undecodable,
                "the data ends inside the partition".to_string(),
            );
            self.report.problems.push(problem);
        }
        self.active = Active::Done;
    }

    /// Finishes every output: the report and the sinks.
    pub fn finish(mut self) -> ScrubOutcome<S> {
        if let Some(e) = &self.fatal {
            self.report.error = Some(e.to_string());
        }
        let keep = self.report.aborted.is_none() && self.fatal.is_none();
        let mut outputs = Vec::new();
        let mut abandoned = Vec::new();
        for (i, w) in core::mem::take(&mut self.writers).into_iter().enumerate() {
            let Some(w) = w else { continue };
            if !keep {
                abandoned.push((i, w.into_sink()));
                continue;
            }
            match w.finish() {
                Ok((sink, summary)) => {
                    self.report.outputs.push(OutputReport::new(i, &summary));
                    outputs.push((i, sink, summary));
                }
                Err(e) => {
                    self.report.error = Some(format!("output {i}: {e}"));
                }
            }
        }
        ScrubOutcome {
            report: self.report,
            outputs,
            abandoned,
        }
    }
}

/// A partition cut short inside a range tombstone: the tombstone is closed at the partition's
/// end (`ClusteringBound.TOP`), as the rows it covered after the cut are lost anyway.
fn close_open_marker(mut p: Partition) -> Partition {
    if p.unfiltereds.is_empty() {
        return p;
    }
    let open = p.unfiltereds.iter().rev().find_map(|u| match u {
        Unfiltered::Marker(m) => Some(m.open_deletion()),
        Unfiltered::Row(_) => None,
    });
    if let Some(Some(deletion)) = open {
        p.unfiltereds
            .push(Unfiltered::Marker(RangeTombstoneMarker::bound(
                BoundKind::InclEnd,
                Vec::new(),
                deletion,
            )));
    }
    p
}

/// What the writer would refuse in a decoded partition: rows and markers out of clustering
/// order, complex cells out of path order (corrupt but decodable bytes).
fn writable(schema: &TableSchema, p: &Partition) -> core::result::Result<(), String> {
    let types = schema.clustering_types();
    let mut last: Option<(PrefixKind, &[Vec<u8>])> = None;
    for u in &p.unfiltereds {
        let (kind, values, columns) = match u {
            Unfiltered::Row(r) => (PrefixKind::Clustering, r.clustering.as_slice(), Some(r)),
            Unfiltered::Marker(m) => (m.kind.prefix_kind(), m.values.as_slice(), None),
        };
        if let Some((lk, lv)) = last {
            if compare_prefixes(types, (lv, lk), (values, kind)).is_ge() {
                return Err("rows and markers out of clustering order".to_string());
            }
        }
        last = Some((kind, values));
        if let Some(r) = columns {
            check_paths(schema, r.columns.as_slice(), false)?;
        }
    }
    if let Some(s) = &p.static_row {
        check_paths(schema, &s.columns, true)?;
    }
    Ok(())
}

fn check_paths(
    schema: &TableSchema,
    columns: &[ColumnData],
    is_static: bool,
) -> core::result::Result<(), String> {
    for c in columns {
        let ColumnData::Complex { column, cells, .. } = c else {
            continue;
        };
        let Some(t) = schema
            .columns(is_static)
            .get(*column)
            .and_then(|d| cell_path_type(&d.column_type))
        else {
            continue;
        };
        for pair in cells.windows(2) {
            if let [a, b] = pair {
                let (Some(pa), Some(pb)) = (a.path.as_deref(), b.path.as_deref()) else {
                    return Err("a complex cell without a path".to_string());
                };
                if compare_values(&t, pa, pb).is_ge() {
                    return Err("complex cells out of path order".to_string());
                }
            }
        }
    }
    Ok(())
}

impl<S: ComponentSink, F: FnMut(usize) -> Result<S>> RangeReader for Scrubber<S, F> {
    fn next_read(&self) -> Option<ByteRange> {
        match self.active {
            Active::Data => RangeReader::next_read(&self.data),
            Active::Index => self.listing.as_ref().and_then(RangeReader::next_read),
            Active::Done => None,
        }
    }

    fn supply(&mut self, range: &ByteRange, bytes: &[u8], clock: &dyn Clock) -> Result<()> {
        match self.active {
            Active::Data => {
                if let Err(e) = self.data.supply(range, bytes, clock) {
                    self.data_error(&e);
                }
            }
            Active::Index => {
                let supplied = match self.listing.as_mut() {
                    Some(l) => l.supply(range, bytes, clock),
                    None => Ok(()),
                };
                if let Err(e) = supplied {
                    self.index_failed(Some(&e));
                }
            }
            Active::Done => {}
        }
        self.advance();
        match &self.fatal {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn abort(&mut self, range: &ByteRange, error: &Error, clock: &dyn Clock) {
        match self.active {
            Active::Data => self.data_error(error),
            Active::Index => {
                if let Some(l) = self.listing.as_mut() {
                    l.abort(range, error, clock);
                }
                self.index_failed(Some(error));
            }
            Active::Done => {}
        }
        self.advance();
    }
}

/// A key as cqlsh prints it (per the header's key type), hex without one.
fn render_key(key_type: Option<&AbstractType>, key: &[u8]) -> String {
    match key_type {
        Some(t) => format_value(t, key).text,
        None => format!("0x{}", hex(key)),
    }
}
