//! Statistics.db: `MetadataCollector` (what the writer observes) and `MetadataSerializer` (the
//! container with its CRC32s) for nb and oa.
//!
//! | component | content | Src |
//! |---|---|---|
//! | VALIDATION | writeUTF partitioner class, f64 bloom filter fp chance | `io/sstable/metadata/ValidationMetadata.java` |
//! | COMPACTION | i32 length + HyperLogLog++ bytes ([`super::hll`]) | `CompactionMetadata.java` |
//! | STATS | histograms, commit log bounds, min/max timestamp, local deletion time and TTL, compression ratio, tombstone histogram, level, repairedAt, clustering bounds (nb legacy min/max values, oa types + covered `Slice`), counter shards, totals, commit log intervals, pending repair, transient, originating host id, [oa: partition-deletion flag, first/last key, token space coverage] | `StatsMetadata.java` |
//! | HEADER | `EncodingStats` deltas, key type, clustering types, static and regular columns | `db/SerializationHeader.java` (`Component`) |
//!
//! Container (`MetadataSerializer`): i32 count, CRC32 of it, (i32 type, i32 offset) × 4, CRC32 of
//! count + table, then each component followed by its CRC32. Offsets are computed from each
//! component's `serializedSize`: for oa's tombstone histogram that counts 16 bytes per bin while
//! 12 are written, and Cassandra emits the whole pre-sized buffer, so the STATS body ends with
//! 4 zero bytes per bin (source reading, sstable-format.md §3.4 — UNVERIFIED on a real file).
//!
//! What the collector records (5.0 `MetadataCollector`, `db/rows/Rows.java` `collectStats`):
//! every liveness, cell, row / complex / range / partition deletion updates the timestamp range;
//! every liveness and cell updates the TTL range (0 when not expiring) and the local deletion
//! time range (none when live), so one live cell makes the maximum "none"; deletion times other
//! than none go to the tombstone histogram. `totalRows` counts rows with data (the static row when
//! not empty), `totalColumnsSet` their columns with cells; cells per partition include the static
//! row's. Clustering bounds follow `updateClusteringValues` / `updateClusteringValuesByBoundOrBoundary`
//! and become `Slice.make(min, max)`: a row clustering turns into an inclusive bound.

use super::bytes::Out;
use super::data::DELETION_TIME_EPOCH_SECS;
use super::data::{legacy_deletion_time, DataEncoder, EncodingStats, TIMESTAMP_EPOCH_MICROS};
use super::histogram::{
    serialize_tombstone_histogram, EstimatedHistogram, TombstoneHistogramBuilder,
};
use super::hll::HyperLogLogPlus;
use super::model::{
    Cell, ColumnData, Liveness, ModelDeletion, RangeTombstoneMarker, Row, NO_DELETION_TIME,
};
use super::schema::{compare_prefixes, PrefixKind, TableSchema};
use crate::error::Result;
use crate::token::Partitioner;
use crate::version::Version;

/// `CommitLogPosition`: segment id and position; `NONE` = (−1, 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitLogPosition {
    pub segment_id: i64,
    pub position: i32,
}

impl CommitLogPosition {
    pub const NONE: CommitLogPosition = CommitLogPosition {
        segment_id: -1,
        position: 0,
    };

    fn serialize(&self, out: &mut Vec<u8>) {
        out.i64(self.segment_id);
        out.i32(self.position);
    }
}

/// The sstable-level facts a Cassandra node would supply (commit log, repair, host).
#[derive(Debug, Clone, PartialEq)]
pub struct SSTableFacts {
    /// The commit log intervals the data came from (`IntervalSet`), empty = none.
    pub commit_log_intervals: Vec<(CommitLogPosition, CommitLogPosition)>,
    pub originating_host_id: Option<[u8; 16]>,
    pub repaired_at_millis: i64,
    pub pending_repair: Option<[u8; 16]>,
    pub is_transient: bool,
    pub sstable_level: i32,
    pub token_space_coverage: TokenSpaceCoverage,
}

impl Default for SSTableFacts {
    fn default() -> Self {
        SSTableFacts {
            commit_log_intervals: Vec::new(),
            originating_host_id: None,
            repaired_at_millis: 0,
            pending_repair: None,
            is_transient: false,
            sstable_level: 0,
            token_space_coverage: TokenSpaceCoverage::Span,
        }
    }
}

/// What oa's `tokenSpaceCoverage` records.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TokenSpaceCoverage {
    /// NaN: what a writer without token-range sharding records (flushes outside UCS, ordered
    /// partitioners).
    NotRecorded,
    /// The share of the Murmur3 ring from the first to the last token, both included
    /// (`Token.size` as UCS's `rangeSpanned` computes it); NaN for other partitioners.
    Span,
    /// A given value.
    Value(f64),
}

/// A clustering prefix the collector keeps.
type Prefix = (PrefixKind, Vec<Vec<u8>>);

/// `MetadataCollector`.
#[derive(Debug)]
pub struct MetadataCollector {
    partition_sizes: EstimatedHistogram,
    cells_per_partition: EstimatedHistogram,
    current_partition_cells: i64,
    timestamps: Option<(i64, i64)>,
    deletion_times: Option<(u32, u32)>,
    ttls: Option<(i32, i32)>,
    tombstones: TombstoneHistogramBuilder,
    min_clustering: Option<Prefix>,
    max_clustering: Option<Prefix>,
    has_partition_level_deletions: bool,
    total_columns_set: i64,
    total_rows: i64,
    cardinality: HyperLogLogPlus,
    clustering_types: Vec<crate::types::AbstractType>,
    /// Per column (regular, then static): whether it is a counter column.
    counter_columns: [Vec<bool>; 2],
    has_legacy_counter_shards: bool,
}

/// `CounterContext.hasLegacyShards`: a context with a remote shard, or a local one (header
/// entries ≥ 0; global shards are stored as `index + Short.MIN_VALUE`). Header: i16 count, then
/// one i16 per local or global shard; shards are 32 bytes (16-byte id, i64 clock, i64 count).
pub fn has_legacy_counter_shards(context: &[u8]) -> bool {
    let Some(count) = context.first_chunk::<2>() else {
        return false;
    };
    let header_count = usize::from(i16::from_be_bytes(*count).unsigned_abs());
    let header_bytes = header_count.saturating_mul(2).saturating_add(2);
    let shards = context.len().saturating_sub(header_bytes) / 32;
    if header_count < shards {
        return true;
    }
    (0..header_count).any(|i| {
        let at = i.saturating_mul(2).saturating_add(2);
        context
            .get(at..)
            .and_then(<[u8]>::first_chunk::<2>)
            .is_some_and(|e| i16::from_be_bytes(*e) >= 0)
    })
}

/// `Cell.MAX_DELETION_TIME` of the version: the largest real local deletion time.
fn max_deletion_time(version: &Version) -> i64 {
    if version.has_uint_deletion_time() {
        i64::from(u32::MAX - 2)
    } else {
        i64::from(i32::MAX - 1)
    }
}

impl MetadataCollector {
    pub fn new(schema: &TableSchema, version: &Version) -> Self {
        let partition_buckets = if version.has_uint_deletion_time() {
            155
        } else {
            150
        };
        MetadataCollector {
            partition_sizes: EstimatedHistogram::new(partition_buckets),
            cells_per_partition: EstimatedHistogram::new(118),
            current_partition_cells: 0,
            timestamps: None,
            deletion_times: None,
            ttls: None,
            tombstones: TombstoneHistogramBuilder::new(max_deletion_time(version)),
            min_clustering: None,
            max_clustering: None,
            has_partition_level_deletions: false,
            total_columns_set: 0,
            total_rows: 0,
            cardinality: HyperLogLogPlus::new(),
            clustering_types: schema.clustering_types().to_vec(),
            counter_columns: [false, true].map(|is_static| {
                schema
                    .columns(is_static)
                    .iter()
                    .map(|c| c.column_type.is_counter())
                    .collect()
            }),
            has_legacy_counter_shards: false,
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.cardinality
            .memory_bytes()
            .saturating_add(self.tombstones.memory_bytes())
    }

    pub fn timestamp_range(&self) -> Option<(i64, i64)> {
        self.timestamps
    }

    fn update_timestamp(&mut self, ts: i64) {
        self.timestamps = Some(match self.timestamps {
            None => (ts, ts),
            Some((lo, hi)) => (lo.min(ts), hi.max(ts)),
        });
    }

    fn update_local_deletion_time(&mut self, ldt: u32) {
        self.deletion_times = Some(match self.deletion_times {
            None => (ldt, ldt),
            Some((lo, hi)) => (lo.min(ldt), hi.max(ldt)),
        });
        if ldt != NO_DELETION_TIME {
            self.tombstones.update(i64::from(ldt));
        }
    }

    fn update_ttl(&mut self, ttl: i32) {
        self.ttls = Some(match self.ttls {
            None => (ttl, ttl),
            Some((lo, hi)) => (lo.min(ttl), hi.max(ttl)),
        });
    }

    fn update_liveness(&mut self, l: &Liveness) {
        self.update_timestamp(l.timestamp_micros);
        match l.expiry {
            Some(e) => {
                self.update_ttl(e.ttl_secs);
                self.update_local_deletion_time(e.local_expiration_time_secs);
            }
            None => {
                self.update_ttl(0);
                self.update_local_deletion_time(NO_DELETION_TIME);
            }
        }
    }

    fn update_cell(&mut self, c: &Cell) {
        self.current_partition_cells = self.current_partition_cells.saturating_add(1);
        self.update_timestamp(c.timestamp_micros);
        self.update_ttl(c.expiry().map_or(0, |e| e.ttl_secs));
        self.update_local_deletion_time(c.local_deletion_time_secs());
    }

    pub fn update_deletion(&mut self, dt: &ModelDeletion) {
        if !dt.is_live() {
            self.update_timestamp(dt.marked_for_delete_at_micros);
            self.update_local_deletion_time(dt.local_deletion_time_secs);
        }
    }

    pub fn update_partition_deletion(&mut self, dt: &ModelDeletion) {
        if !dt.is_live() {
            self.has_partition_level_deletions = true;
        }
        self.update_deletion(dt);
    }

    /// `Rows.collectStats` (the caller skips empty static rows).
    pub fn update_row(&mut self, row: &Row, is_static: bool) {
        if !is_static {
            self.update_clustering(PrefixKind::Clustering, &row.clustering);
        }
        if let Some(l) = &row.liveness {
            self.update_liveness(l);
        }
        self.update_deletion(&row.deletion);
        let mut columns = 0i64;
        for data in &row.columns {
            match data {
                ColumnData::Simple { cell, column } => {
                    self.update_cell(cell);
                    let counters = self.counter_columns.get(usize::from(is_static));
                    if counters
                        .and_then(|c| c.get(*column))
                        .copied()
                        .unwrap_or(false)
                        && !cell.is_tombstone()
                        && has_legacy_counter_shards(cell.value_bytes())
                    {
                        self.has_legacy_counter_shards = true;
                    }
                    columns = columns.saturating_add(1);
                }
                ColumnData::Complex {
                    deletion, cells, ..
                } => {
                    self.update_deletion(deletion);
                    for c in cells {
                        self.update_cell(c);
                    }
                    if !cells.is_empty() {
                        columns = columns.saturating_add(1);
                    }
                }
            }
        }
        self.total_columns_set = self.total_columns_set.saturating_add(columns);
        self.total_rows = self.total_rows.saturating_add(1);
    }

    pub fn update_marker(&mut self, marker: &RangeTombstoneMarker) {
        let kind = marker.kind.prefix_kind();
        if !kind.is_boundary() {
            self.update_clustering(kind, &marker.values);
        }
        self.update_deletion(&marker.deletion);
        if let Some(start) = &marker.start_deletion {
            self.update_deletion(start);
        }
    }

    /// `updateClusteringValues` / `updateClusteringValuesByBoundOrBoundary`.
    fn update_clustering(&mut self, kind: PrefixKind, values: &[Vec<u8>]) {
        let types = &self.clustering_types;
        let (Some(min), Some(max)) = (&self.min_clustering, &self.max_clustering) else {
            self.min_clustering = Some((kind, values.to_vec()));
            self.max_clustering = Some((kind, values.to_vec()));
            return;
        };
        let cmp = |other: &Prefix| compare_prefixes(types, (values, kind), (&other.1, other.0));
        match kind {
            PrefixKind::Clustering => {
                if cmp(max).is_gt() {
                    self.max_clustering = Some((kind, values.to_vec()));
                } else if cmp(min).is_lt() {
                    self.min_clustering = Some((kind, values.to_vec()));
                }
            }
            k if k.is_start() => {
                if cmp(min).is_lt() {
                    self.min_clustering = Some((kind, values.to_vec()));
                }
            }
            _ => {
                if cmp(max).is_gt() {
                    self.max_clustering = Some((kind, values.to_vec()));
                }
            }
        }
    }

    /// After each partition: its size (key to end-of-partition byte), key and cell count.
    pub fn finish_partition(&mut self, key: &[u8], size_bytes: u64) {
        self.partition_sizes.add(size_bytes as i64);
        self.cardinality.add_key(key);
        self.cells_per_partition.add(self.current_partition_cells);
        self.current_partition_cells = 0;
    }

    /// The covered slice: (start kind, values), (end kind, values).
    fn covered_slice(&self) -> (Prefix, Prefix) {
        let start = match &self.min_clustering {
            None => (PrefixKind::ExclStartBound, Vec::new()),
            Some((PrefixKind::Clustering, v)) => (PrefixKind::InclStartBound, v.clone()),
            Some(p) => p.clone(),
        };
        let end = match &self.max_clustering {
            None => (PrefixKind::ExclEndBound, Vec::new()),
            Some((PrefixKind::Clustering, v)) => (PrefixKind::InclEndBound, v.clone()),
            Some(p) => p.clone(),
        };
        (start, end)
    }
}

/// Everything Statistics.db needs besides the collector.
pub struct StatisticsInputs<'a> {
    pub version: &'a Version,
    pub partitioner: &'a Partitioner,
    pub bloom_filter_fp_chance: f64,
    pub encoder: &'a DataEncoder,
    pub compression_ratio: f64,
    pub facts: &'a SSTableFacts,
    pub first_key: &'a [u8],
    pub last_key: &'a [u8],
}

/// `Partitioner` class name as VALIDATION stores it.
pub fn partitioner_class(p: &Partitioner) -> String {
    match p {
        Partitioner::Unknown(s) => s.clone(),
        other => format!("org.apache.cassandra.dht.{}", other.name()),
    }
}

/// `LongToken.size`: share of the ring from `first` to `last` (inclusive).
fn murmur3_span(first: i64, last: i64) -> f64 {
    let next = last.wrapping_add(1);
    let v = next.wrapping_sub(first);
    let d = v as f64 * 2f64.powi(-64);
    if d > 0.0 {
        d
    } else {
        d + 1.0
    }
}

impl MetadataCollector {
    /// The whole Statistics.db.
    pub fn serialize(&mut self, inputs: &StatisticsInputs<'_>) -> Result<Vec<u8>> {
        let v = inputs.version;
        let mut validation = Vec::new();
        validation.utf(&partitioner_class(inputs.partitioner))?;
        validation.f64(inputs.bloom_filter_fp_chance);

        let mut compaction = Vec::new();
        compaction.int_length_bytes(&self.cardinality.to_bytes(), "cardinality estimator")?;

        let stats = self.serialize_stats(inputs)?;
        let header = serialize_header(inputs.encoder)?;

        let components: [(i32, &[u8]); 4] = [
            (0, &validation),
            (1, &compaction),
            (2, &stats),
            (3, &header),
        ];
        let checksummed = v.has_metadata_checksum();
        let mut out = Vec::new();
        let mut running = crc32fast::Hasher::new();
        out.i32(components.len() as i32);
        running.update(&(components.len() as i32).to_be_bytes());
        if checksummed {
            out.u32(running.clone().finalize());
        }
        let too_large = || crate::error::Error::invalid("Statistics.db over 2 GiB", 0);
        let mut position = components
            .len()
            .checked_mul(8)
            .and_then(|table| table.checked_add(if checksummed { 12 } else { 4 }))
            .ok_or_else(too_large)?;
        for (kind, body) in &components {
            let offset = i32::try_from(position).map_err(|_| too_large())?;
            out.i32(*kind);
            out.i32(offset);
            running.update(&kind.to_be_bytes());
            running.update(&offset.to_be_bytes());
            position = position
                .checked_add(body.len())
                .and_then(|p| p.checked_add(if checksummed { 4 } else { 0 }))
                .ok_or_else(too_large)?;
        }
        if checksummed {
            out.u32(running.finalize());
        }
        for (_, body) in &components {
            out.extend_from_slice(body);
            if checksummed {
                out.u32(crc32fast::hash(body));
            }
        }
        Ok(out)
    }

    fn serialize_stats(&mut self, inputs: &StatisticsInputs<'_>) -> Result<Vec<u8>> {
        let v = inputs.version;
        let uint = v.has_uint_deletion_time();
        let facts = inputs.facts;
        let mut out = Vec::new();
        self.partition_sizes.serialize(&mut out);
        self.cells_per_partition.serialize(&mut out);
        let upper = facts
            .commit_log_intervals
            .last()
            .map_or(CommitLogPosition::NONE, |i| i.1);
        let lower = facts
            .commit_log_intervals
            .first()
            .map_or(CommitLogPosition::NONE, |i| i.0);
        upper.serialize(&mut out);
        let (min_ts, max_ts) = self.timestamps.unwrap_or((i64::MIN, i64::MAX));
        out.i64(min_ts);
        out.i64(max_ts);
        let (min_ldt, max_ldt) = self
            .deletion_times
            .unwrap_or((NO_DELETION_TIME, NO_DELETION_TIME));
        if uint {
            out.u32(min_ldt);
            out.u32(max_ldt);
        } else {
            out.i32(legacy_deletion_time(min_ldt));
            out.i32(legacy_deletion_time(max_ldt));
        }
        let (min_ttl, max_ttl) = self.ttls.unwrap_or((0, 0));
        out.i32(min_ttl);
        out.i32(max_ttl);
        out.f64(inputs.compression_ratio);
        let bins = self.tombstones.build();
        serialize_tombstone_histogram(&mut out, &bins, uint);
        out.i32(facts.sstable_level);
        out.i64(facts.repaired_at_millis);
        let (start, end) = self.covered_slice();
        if v.has_legacy_min_max() {
            for (_, values) in [&start, &end] {
                out.i32(values.len() as i32);
                for value in values {
                    out.short_length_bytes(value, "clustering value")?;
                }
            }
        } else if v.has_improved_min_max() {
            out.unsigned_vint(self.clustering_types.len() as u64);
            for t in &self.clustering_types {
                out.vint_length_bytes(t.to_type_string().as_bytes());
            }
            inputs.encoder.write_bound(&mut out, start.0, &start.1)?;
            inputs.encoder.write_bound(&mut out, end.0, &end.1)?;
        }
        out.u8(u8::from(self.has_legacy_counter_shards));
        out.i64(self.total_columns_set);
        out.i64(self.total_rows);
        if v.has_commit_log_lower_bound() {
            lower.serialize(&mut out);
        }
        if v.has_commit_log_intervals() {
            out.i32(facts.commit_log_intervals.len() as i32);
            for (s, e) in &facts.commit_log_intervals {
                s.serialize(&mut out);
                e.serialize(&mut out);
            }
        }
        if v.has_pending_repair() {
            optional_uuid(&mut out, facts.pending_repair);
        }
        if v.has_is_transient() {
            out.u8(u8::from(facts.is_transient));
        }
        if v.has_originating_host_id() {
            optional_uuid(&mut out, facts.originating_host_id);
        }
        if v.has_partition_level_deletions_presence_marker() {
            out.u8(u8::from(self.has_partition_level_deletions));
        }
        if v.has_key_range() {
            out.vint_length_bytes(inputs.first_key);
            out.vint_length_bytes(inputs.last_key);
        }
        if v.has_token_space_coverage() {
            let coverage = match (facts.token_space_coverage, inputs.partitioner) {
                (TokenSpaceCoverage::Value(x), _) => x,
                (TokenSpaceCoverage::Span, Partitioner::Murmur3) => murmur3_span(
                    crate::hash::murmur3_token(inputs.first_key),
                    crate::hash::murmur3_token(inputs.last_key),
                ),
                _ => f64::NAN,
            };
            out.f64(coverage);
        }
        if uint {
            // serializedSize counts 16 bytes per tombstone bin, 12 are written (module docs).
            out.resize(out.len().saturating_add(bins.len().saturating_mul(4)), 0);
        }
        Ok(out)
    }
}

fn optional_uuid(out: &mut Vec<u8>, uuid: Option<[u8; 16]>) {
    match uuid {
        Some(u) => {
            out.u8(1);
            out.extend_from_slice(&u);
        }
        None => out.u8(0),
    }
}

/// HEADER (`SerializationHeader.Component`).
fn serialize_header(encoder: &DataEncoder) -> Result<Vec<u8>> {
    let stats: &EncodingStats = &encoder.stats;
    let schema = &encoder.schema;
    let mut out = Vec::new();
    out.unsigned_vint(
        stats
            .min_timestamp_micros
            .wrapping_sub(TIMESTAMP_EPOCH_MICROS) as u64,
    );
    if encoder.version.has_uint_deletion_time() {
        out.unsigned_vint(u64::from(
            stats
                .min_local_deletion_time_secs
                .wrapping_sub(DELETION_TIME_EPOCH_SECS),
        ));
    } else {
        let delta = legacy_deletion_time(stats.min_local_deletion_time_secs)
            .wrapping_sub(DELETION_TIME_EPOCH_SECS as i32);
        out.unsigned_vint(i64::from(delta) as u64);
    }
    out.unsigned_vint(i64::from(stats.min_ttl_secs) as u64);
    out.vint_length_bytes(schema.key_type().to_type_string().as_bytes());
    out.unsigned_vint(schema.clustering_types().len() as u64);
    for t in schema.clustering_types() {
        out.vint_length_bytes(t.to_type_string().as_bytes());
    }
    for columns in [schema.static_columns(), schema.regular_columns()] {
        out.unsigned_vint(columns.len() as u64);
        for c in columns {
            out.vint_length_bytes(c.name.as_bytes());
            out.vint_length_bytes(c.column_type.to_type_string().as_bytes());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::has_legacy_counter_shards;

    fn context(header: &[i16], shards: usize) -> Vec<u8> {
        let mut out = (header.len() as i16).to_be_bytes().to_vec();
        for h in header {
            out.extend_from_slice(&h.to_be_bytes());
        }
        out.extend(std::iter::repeat_n(7u8, 32 * shards));
        out
    }

    #[test]
    fn legacy_counter_shards_are_local_or_remote_ones() {
        // One global shard (header entry 0 + Short.MIN_VALUE).
        assert!(!has_legacy_counter_shards(&context(&[i16::MIN], 1)));
        // One local shard, and one remote shard (not in the header).
        assert!(has_legacy_counter_shards(&context(&[0], 1)));
        assert!(has_legacy_counter_shards(&context(&[], 1)));
        assert!(has_legacy_counter_shards(&context(&[i16::MIN], 2)));
        assert!(!has_legacy_counter_shards(&[]));
    }
}
