//! STATS (`StatsMetadata`): histograms, time bounds, repair state, clustering bounds, key range.
//!
//! | # | field | type | versions |
//! |---|---|---|---|
//! | 1 | estimatedPartitionSize | EstimatedHistogram | all |
//! | 2 | estimatedCellPerPartitionCount | EstimatedHistogram | all |
//! | 3 | commitLogUpperBound | CommitLogPosition (i64 segment, i32 position) | all |
//! | 4 | minTimestamp, maxTimestamp | i64, i64 (µs) | all |
//! | 5 | minLocalDeletionTime | i32 (none = i32::MAX) / u32 from oa (none = 0xFFFFFFFF) | ma+ |
//! | 5 | maxLocalDeletionTime | same | all |
//! | 6 | minTTL, maxTTL | i32, i32 (s) | ma+ |
//! | 7 | compressionRatio | f64 (−1 = uncompressed) | all |
//! | 8 | estimatedTombstoneDropTime | TombstoneHistogram: (f64, i64) bins; (i64, i32) from oa | all |
//! | 9 | sstableLevel | i32 | all |
//! | 10 | repairedAt | i64 (ms, 0 = unrepaired) | ka+ |
//! | 11a/b | min/max clustering values (ka/la: min/max column names) | i32 n + n × short-length bytes, twice | ka–nc (`hasLegacyMinMax`, and 2.x) |
//! | 11c | clustering types + covered Slice | uvint n + n × vint-length type string; two bounds (u8 kind, u16 size, values with 32-value header vints) | oa, da (here); nc after #19 |
//! | 12 | hasLegacyCounterShards | bool | ka+ |
//! | 13 | totalColumnsSet, totalRows | i64, i64 | ma+ |
//! | 14 | commitLogLowerBound | CommitLogPosition | lb (2.2.7), mb+ |
//! | 15 | commitLogIntervals | i32 n + n × (start, end) CommitLogPosition | mc+ |
//! | 16 | pendingRepair | u8 flag [+ 16-byte TimeUUID] | na+ |
//! | 17 | isTransient | bool | na+ |
//! | 18 | originatingHostId | u8 flag [+ 16-byte UUID] | me, nb+ |
//! | 19 | hasPartitionLevelDeletions | bool | nc, oa, da |
//! | (11c) | clustering types + covered Slice | as above | nc only (it has both min/max forms) |
//! | 20 | firstKey, lastKey | vint-length bytes each | nc, oa, da |
//! | 21 | tokenSpaceCoverage | f64 | oa, da |
//!
//! Before ka there is no STATS component: the flat `SSTableMetadata` record (`legacy.rs`) fills
//! #1–5 (max only), #7–9 and #11a/b (as min/max column names, ja+); `repairedAt` and
//! `hasLegacyCounterShards` then hold Cassandra's defaults (0, true) with empty spans.
//!
//! Early pre-release `na` files stop before #17: fields from #14 on that are missing at the end
//! of the component are reported in [`StatsMetadata::missing_fields`], not as errors.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/metadata/StatsMetadata.java` (trunk,
//! cassandra-3.0, cassandra-2.2), `db/commitlog/CommitLogPosition.java`,
//! `db/commitlog/IntervalSet.java`, `db/Slice.java`, `db/ClusteringBound.java`,
//! `db/ClusteringPrefix.java`, `serializers/AbstractTypeSerializer.java`.

use serde::Serialize;

use super::{
    bytes_display, format_timestamp_micros, leaf, spanned_leaf, uuid_string, EstimatedHistogram,
    RawBytes, TombstoneHistogram, TombstoneHistogramLayout,
};
use crate::component::common::{
    ClusteringLayout, ClusteringPrefix, ClusteringPrefixBuf, ClusteringValueState,
    LocalDeletionTime,
};
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::types::parse_type;
use crate::version::{Format, Version};

/// `nc`: a pre-release 5.0 version that only exists in Cassandra's test data. It has the `nb`
/// layout plus the partition-deletion flag, the improved min/max (after that flag) and the key
/// range, but not the unsigned deletion times or the token space coverage. `Version` has no
/// predicate for it, so it is recognised here.
fn is_nc_like(version: &Version) -> bool {
    version.format() == Format::Big && ("nc".."oa").contains(&version.as_str())
}

fn has_improved_min_max(version: &Version) -> bool {
    version.has_improved_min_max() || is_nc_like(version)
}

fn has_partition_level_deletions_marker(version: &Version) -> bool {
    version.has_partition_level_deletions_presence_marker() || is_nc_like(version)
}

fn has_key_range(version: &Version) -> bool {
    version.has_key_range() || is_nc_like(version)
}

/// The 2.x layout (ka, la/lb) writes min/max column names where 3.0+ writes min/max clustering
/// values, and lacks the min deletion time, TTLs and totals.
fn has_legacy_min_max_or_column_names(version: &Version) -> bool {
    version.has_legacy_min_max() || !version.has_row_format()
}

/// `CommitLogPosition` (2.x: `ReplayPosition`): segment id and position in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogPosition {
    pub span: Span,
    pub segment_id: i64,
    pub position: i32,
}

impl CommitLogPosition {
    pub fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<CommitLogPosition> {
        let start = r.offset();
        let segment_id = r.i64(what)?;
        let position = r.i32(what)?;
        Ok(CommitLogPosition {
            span: r.span_from(start),
            segment_id,
            position,
        })
    }

    /// `CommitLogPosition.NONE` = (−1, 0).
    pub fn is_none(&self) -> bool {
        self.segment_id == -1 && self.position == 0
    }

    fn display(&self) -> String {
        if self.is_none() {
            "NONE (-1, 0)".to_owned()
        } else {
            format!("segment {}, position {}", self.segment_id, self.position)
        }
    }

    pub(super) fn to_node(&self, label: &str) -> Node {
        leaf(label, self.display(), self.span)
    }
}

/// One commit-log interval covered by the sstable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogInterval {
    pub start: CommitLogPosition,
    pub end: CommitLogPosition,
}

/// The `IntervalSet<CommitLogPosition>` (mc+).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitLogIntervals {
    pub span: Span,
    pub count: Spanned<i32>,
    pub intervals: Vec<CommitLogInterval>,
}

/// Legacy min or max clustering values (2.x: column names): one per clustering column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusteringValues {
    pub span: Span,
    pub count: Spanned<i32>,
    pub values: Vec<RawBytes>,
}

impl ClusteringValues {
    pub(super) fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let start = r.offset();
        let count = r.spanned(|r| r.i32(what))?;
        let n = u64::try_from(count.value).map_err(|_| {
            r.invalid_at(
                format!("negative value count {}", count.value),
                count.span.start,
                what,
            )
        })?;
        let n = r.check_count(n, 2, what)?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            let v_start = r.offset();
            let bytes = r.short_length_bytes(what)?;
            values.push(RawBytes {
                bytes: bytes.to_vec(),
                span: r.span_from(v_start),
            });
        }
        Ok(ClusteringValues {
            span: r.span_from(start),
            count,
            values,
        })
    }

    pub(super) fn to_node(&self, label: &str) -> Node {
        let mut children = vec![spanned_leaf("count", &self.count)];
        for (i, v) in self.values.iter().enumerate() {
            children.push(leaf(&format!("value {i}"), bytes_display(&v.bytes), v.span));
        }
        Node::new(
            label,
            format!("{} values", self.values.len()),
            Some(self.span),
        )
        .with_children(children)
    }
}

/// A covered-slice bound as a node: kind, size, headers, values.
fn bound_node(label: &str, b: &ClusteringPrefixBuf) -> Node {
    let mut children = Vec::new();
    if let Some(span) = b.kind_span {
        children.push(leaf(
            "kind",
            format!("{} ({})", b.kind.ordinal(), b.kind.name()),
            span,
        ));
    }
    if let Some(size) = &b.size {
        children.push(spanned_leaf("size", size));
    }
    for (i, h) in b.headers.iter().enumerate() {
        children.push(leaf(
            &format!("header {i}"),
            format!(
                "0x{:x} (empty/null bits for values {}..)",
                h.value,
                i.saturating_mul(32)
            ),
            h.span,
        ));
    }
    for v in &b.values {
        let value = match v.state {
            ClusteringValueState::Present => bytes_display(&v.bytes),
            ClusteringValueState::Empty => "empty".to_owned(),
            ClusteringValueState::Null => "null".to_owned(),
        };
        children.push(leaf(&format!("value {}", v.index), value, v.span));
    }
    Node::new(
        label,
        format!("{} with {} values", b.kind.name(), b.values.len()),
        Some(b.span),
    )
    .with_children(children)
}

/// The fixed value length of each clustering type string (`None` = vint-length, also for a
/// type string that does not parse).
fn clustering_fixed_lengths(types: &[Spanned<String>]) -> Vec<Option<u32>> {
    types
        .iter()
        .map(|t| {
            parse_type(&t.value)
                .ok()
                .and_then(|t| t.value_length_if_fixed())
        })
        .collect()
}

/// The improved min/max (5.0): clustering types and the covered `Slice`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoveredClustering {
    pub span: Span,
    pub type_count: Spanned<u64>,
    /// `AbstractType` strings, e.g. `org.apache.cassandra.db.marshal.UTF8Type`.
    pub clustering_types: Vec<Spanned<String>>,
    pub start: ClusteringPrefixBuf,
    pub end: ClusteringPrefixBuf,
}

impl CoveredClustering {
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let start = r.offset();
        let type_count = r.spanned(|r| r.unsigned_vint("STATS: clustering type count"))?;
        let n = r.check_count(type_count.value, 1, "STATS: clustering types")?;
        let mut clustering_types = Vec::with_capacity(n);
        for _ in 0..n {
            clustering_types.push(r.spanned(|r| {
                r.vint_length_bytes("STATS: clustering type")
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            })?);
        }
        let fixed = clustering_fixed_lengths(&clustering_types);
        let layout = ClusteringLayout::new(&fixed);
        let start_bound =
            ClusteringPrefix::read_bound(r, layout, "STATS: covered slice start bound")?.to_owned();
        let end_bound =
            ClusteringPrefix::read_bound(r, layout, "STATS: covered slice end bound")?.to_owned();
        Ok(CoveredClustering {
            span: r.span_from(start),
            type_count,
            clustering_types,
            start: start_bound,
            end: end_bound,
        })
    }

    fn to_node(&self) -> Node {
        let mut types = vec![spanned_leaf("count", &self.type_count)];
        for (i, t) in self.clustering_types.iter().enumerate() {
            types.push(spanned_leaf(&format!("type {i}"), t));
        }
        let types_span = Span::new(
            self.type_count.span.start,
            self.clustering_types
                .last()
                .map_or(self.type_count.span.end, |t| t.span.end),
        );
        Node::new(
            "covered clustering (improved min/max)",
            format!("{} clustering types", self.clustering_types.len()),
            Some(self.span),
        )
        .with_children(vec![
            Node::new(
                "clustering types",
                self.clustering_types
                    .iter()
                    .map(|t| short_type(&t.value))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(types_span),
            )
            .with_children(types),
            bound_node("slice start", &self.start),
            bound_node("slice end", &self.end),
        ])
    }
}

/// A type string without the `org.apache.cassandra.db.marshal.` package, for display.
pub(super) fn short_type(t: &str) -> String {
    t.replace("org.apache.cassandra.db.marshal.", "")
}

/// A flag byte followed, when non-zero, by a 16-byte UUID (msb, lsb).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptionalUuid {
    pub span: Span,
    pub flag: Spanned<u8>,
    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`
    pub uuid: Option<Spanned<String>>,
}

impl OptionalUuid {
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let start = r.offset();
        let flag = r.spanned(|r| r.u8(what))?;
        let uuid = if flag.value != 0 {
            Some(r.spanned(|r| {
                let msb = r.u64(what)?;
                let lsb = r.u64(what)?;
                Ok(uuid_string(msb, lsb))
            })?)
        } else {
            None
        };
        Ok(OptionalUuid {
            span: r.span_from(start),
            flag,
            uuid,
        })
    }

    fn to_node(&self, label: &str) -> Node {
        let value = self
            .uuid
            .as_ref()
            .map_or_else(|| "none".to_owned(), |u| u.value.clone());
        let mut children = vec![spanned_leaf("present flag", &self.flag)];
        if let Some(u) = &self.uuid {
            children.push(spanned_leaf("uuid", u));
        }
        Node::new(label, value, Some(self.span)).with_children(children)
    }
}

/// Cassandra's `StatsMetadata`, every field with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsMetadata {
    pub span: Span,
    pub estimated_partition_size: EstimatedHistogram,
    pub estimated_cell_per_partition_count: EstimatedHistogram,
    /// Sum of the partition-size histogram counts (what `sstablemetadata` reports).
    pub estimated_partition_count: i64,
    pub commit_log_upper_bound: CommitLogPosition,
    pub min_timestamp_micros: Spanned<i64>,
    pub max_timestamp_micros: Spanned<i64>,
    /// ma+ (2.x stores only the maximum).
    pub min_local_deletion_time: Option<Spanned<LocalDeletionTime>>,
    pub max_local_deletion_time: Spanned<LocalDeletionTime>,
    /// ma+.
    pub min_ttl_secs: Option<Spanned<i32>>,
    pub max_ttl_secs: Option<Spanned<i32>>,
    /// −1.0 when Data.db is not compressed.
    pub compression_ratio: Spanned<f64>,
    pub estimated_tombstone_drop_time: TombstoneHistogram,
    pub sstable_level: Spanned<i32>,
    /// ms since the epoch, 0 = unrepaired.
    pub repaired_at_millis: Spanned<i64>,
    /// Legacy min clustering values (ka/la: min column names); unreliable for ma–mc.
    pub min_clustering_values: Option<ClusteringValues>,
    pub max_clustering_values: Option<ClusteringValues>,
    /// Improved min/max: oa/da (in place of the legacy values), nc (after the deletion flag).
    pub covered_clustering: Option<CoveredClustering>,
    pub has_legacy_counter_shards: Spanned<bool>,
    /// ma+.
    pub total_columns_set: Option<Spanned<i64>>,
    pub total_rows: Option<Spanned<i64>>,
    /// lb, mb+.
    pub commit_log_lower_bound: Option<CommitLogPosition>,
    /// mc+.
    pub commit_log_intervals: Option<CommitLogIntervals>,
    /// na+.
    pub pending_repair: Option<OptionalUuid>,
    pub is_transient: Option<Spanned<bool>>,
    /// me, nb+.
    pub originating_host_id: Option<OptionalUuid>,
    /// nc, oa, da.
    pub has_partition_level_deletions: Option<Spanned<bool>>,
    /// nc, oa, da: raw partition keys.
    pub first_key: Option<RawBytes>,
    pub last_key: Option<RawBytes>,
    /// oa, da (NaN when unknown, e.g. ordered partitioners).
    pub token_space_coverage: Option<Spanned<f64>>,
    /// Fields the version defines that the component ended before (early pre-release `na`).
    pub missing_fields: Vec<&'static str>,
}

/// Reads a field that a short (early `na`) component may lack: absent when the reader is empty.
fn trailing<'a, T>(
    r: &mut Reader<'a>,
    present_in_version: bool,
    name: &'static str,
    missing: &mut Vec<&'static str>,
    read: impl FnOnce(&mut Reader<'a>) -> Result<T>,
) -> Result<Option<T>> {
    if !present_in_version {
        return Ok(None);
    }
    if r.is_empty() {
        missing.push(name);
        return Ok(None);
    }
    read(r).map(Some)
}

impl StatsMetadata {
    pub fn decode(r: &mut Reader<'_>, version: &Version) -> Result<StatsMetadata> {
        let start = r.offset();
        let row_format = version.has_row_format();
        let unsigned_ldt = version.has_uint_deletion_time();

        let estimated_partition_size = EstimatedHistogram::decode(r)
            .map_err(|e| e.context("STATS: estimated partition size histogram"))?;
        let estimated_cell_per_partition_count = EstimatedHistogram::decode(r)
            .map_err(|e| e.context("STATS: estimated cells per partition histogram"))?;
        let commit_log_upper_bound = CommitLogPosition::decode(r, "STATS: commit log upper bound")?;
        let min_timestamp_micros = r.spanned(|r| r.i64("STATS: min timestamp"))?;
        let max_timestamp_micros = r.spanned(|r| r.i64("STATS: max timestamp"))?;
        let min_local_deletion_time = if row_format {
            Some(r.spanned(|r| {
                LocalDeletionTime::decode(r, unsigned_ldt, "STATS: min local deletion time")
            })?)
        } else {
            None
        };
        let max_local_deletion_time = r.spanned(|r| {
            LocalDeletionTime::decode(r, unsigned_ldt, "STATS: max local deletion time")
        })?;
        let (min_ttl_secs, max_ttl_secs) = if row_format {
            (
                Some(r.spanned(|r| r.i32("STATS: min TTL"))?),
                Some(r.spanned(|r| r.i32("STATS: max TTL"))?),
            )
        } else {
            (None, None)
        };
        let compression_ratio = r.spanned(|r| r.f64("STATS: compression ratio"))?;
        let layout = if unsigned_ldt {
            TombstoneHistogramLayout::UnsignedDeletionTime
        } else {
            TombstoneHistogramLayout::Legacy
        };
        let estimated_tombstone_drop_time = TombstoneHistogram::decode(r, layout)
            .map_err(|e| e.context("STATS: estimated tombstone drop time histogram"))?;
        let sstable_level = r.spanned(|r| r.i32("STATS: sstable level"))?;
        let repaired_at_millis = r.spanned(|r| r.i64("STATS: repaired at"))?;

        let legacy_min_max = has_legacy_min_max_or_column_names(version);
        let improved = has_improved_min_max(version);
        let (min_clustering_values, max_clustering_values) = if legacy_min_max {
            (
                Some(ClusteringValues::decode(r, "STATS: min clustering values")?),
                Some(ClusteringValues::decode(r, "STATS: max clustering values")?),
            )
        } else {
            (None, None)
        };
        let mut covered_clustering = if improved && !legacy_min_max {
            Some(CoveredClustering::decode(r)?)
        } else {
            None
        };
        let has_legacy_counter_shards =
            r.spanned(|r| r.bool("STATS: has legacy counter shards"))?;
        let (total_columns_set, total_rows) = if row_format {
            (
                Some(r.spanned(|r| r.i64("STATS: total columns set"))?),
                Some(r.spanned(|r| r.i64("STATS: total rows"))?),
            )
        } else {
            (None, None)
        };

        let mut missing = Vec::new();
        let commit_log_lower_bound = trailing(
            r,
            version.has_commit_log_lower_bound(),
            "commit log lower bound",
            &mut missing,
            |r| CommitLogPosition::decode(r, "STATS: commit log lower bound"),
        )?;
        let commit_log_intervals = trailing(
            r,
            version.has_commit_log_intervals(),
            "commit log intervals",
            &mut missing,
            decode_intervals,
        )?;
        let pending_repair = trailing(
            r,
            version.has_pending_repair(),
            "pending repair",
            &mut missing,
            |r| OptionalUuid::decode(r, "STATS: pending repair"),
        )?;
        let is_transient = trailing(
            r,
            version.has_is_transient(),
            "is transient",
            &mut missing,
            |r| r.spanned(|r| r.bool("STATS: is transient")),
        )?;
        let originating_host_id = trailing(
            r,
            version.has_originating_host_id(),
            "originating host id",
            &mut missing,
            |r| OptionalUuid::decode(r, "STATS: originating host id"),
        )?;
        let has_partition_level_deletions = trailing(
            r,
            has_partition_level_deletions_marker(version),
            "has partition level deletions",
            &mut missing,
            |r| r.spanned(|r| r.bool("STATS: has partition level deletions")),
        )?;
        if improved && legacy_min_max {
            covered_clustering = trailing(
                r,
                true,
                "covered clustering",
                &mut missing,
                CoveredClustering::decode,
            )?;
        }
        let key_range = has_key_range(version);
        let first_key = trailing(r, key_range, "first key", &mut missing, |r| {
            raw_vint_bytes(r, "STATS: first key")
        })?;
        let last_key = trailing(r, key_range, "last key", &mut missing, |r| {
            raw_vint_bytes(r, "STATS: last key")
        })?;
        let token_space_coverage = trailing(
            r,
            version.has_token_space_coverage(),
            "token space coverage",
            &mut missing,
            |r| r.spanned(|r| r.f64("STATS: token space coverage")),
        )?;

        Ok(StatsMetadata {
            span: r.span_from(start),
            estimated_partition_count: estimated_partition_size.total_count(),
            estimated_partition_size,
            estimated_cell_per_partition_count,
            commit_log_upper_bound,
            min_timestamp_micros,
            max_timestamp_micros,
            min_local_deletion_time,
            max_local_deletion_time,
            min_ttl_secs,
            max_ttl_secs,
            compression_ratio,
            estimated_tombstone_drop_time,
            sstable_level,
            repaired_at_millis,
            min_clustering_values,
            max_clustering_values,
            covered_clustering,
            has_legacy_counter_shards,
            total_columns_set,
            total_rows,
            commit_log_lower_bound,
            commit_log_intervals,
            pending_repair,
            is_transient,
            originating_host_id,
            has_partition_level_deletions,
            first_key,
            last_key,
            token_space_coverage,
            missing_fields: missing,
        })
    }

    pub fn to_node(&self) -> Node {
        let mut c = vec![
            self.estimated_partition_size
                .to_node("estimated partition size (bytes)"),
            self.estimated_cell_per_partition_count
                .to_node("estimated cells per partition"),
            self.commit_log_upper_bound
                .to_node("commit log upper bound"),
            leaf(
                "min timestamp",
                format!(
                    "{} µs ({})",
                    self.min_timestamp_micros.value,
                    format_timestamp_micros(self.min_timestamp_micros.value)
                ),
                self.min_timestamp_micros.span,
            ),
            leaf(
                "max timestamp",
                format!(
                    "{} µs ({})",
                    self.max_timestamp_micros.value,
                    format_timestamp_micros(self.max_timestamp_micros.value)
                ),
                self.max_timestamp_micros.span,
            ),
        ];
        if let Some(t) = &self.min_local_deletion_time {
            c.push(leaf("min local deletion time", t.value.display(), t.span));
        }
        c.push(leaf(
            "max local deletion time",
            self.max_local_deletion_time.value.display(),
            self.max_local_deletion_time.span,
        ));
        if let Some(t) = &self.min_ttl_secs {
            c.push(leaf("min TTL", format!("{} s", t.value), t.span));
        }
        if let Some(t) = &self.max_ttl_secs {
            c.push(leaf("max TTL", format!("{} s", t.value), t.span));
        }
        let ratio = if self.compression_ratio.value == -1.0 {
            "-1 (not compressed)".to_owned()
        } else {
            self.compression_ratio.value.to_string()
        };
        c.push(leaf(
            "compression ratio",
            ratio,
            self.compression_ratio.span,
        ));
        c.push(
            self.estimated_tombstone_drop_time
                .to_node("estimated tombstone drop times"),
        );
        c.push(spanned_leaf("sstable level", &self.sstable_level));
        let repaired = if self.repaired_at_millis.value == 0 {
            "0 (unrepaired)".to_owned()
        } else {
            format!(
                "{} ms ({})",
                self.repaired_at_millis.value,
                format_timestamp_micros(self.repaired_at_millis.value.saturating_mul(1000))
            )
        };
        c.push(leaf("repaired at", repaired, self.repaired_at_millis.span));
        if let Some(v) = &self.min_clustering_values {
            c.push(v.to_node("min clustering values (legacy)"));
        }
        if let Some(v) = &self.max_clustering_values {
            c.push(v.to_node("max clustering values (legacy)"));
        }
        let covered_node = self.covered_clustering.as_ref().map(|cc| cc.to_node());
        let covered_in_place = self.min_clustering_values.is_none();
        if covered_in_place {
            c.extend(covered_node.clone());
        }
        c.push(spanned_leaf(
            "has legacy counter shards",
            &self.has_legacy_counter_shards,
        ));
        if let Some(v) = &self.total_columns_set {
            c.push(spanned_leaf("total columns set", v));
        }
        if let Some(v) = &self.total_rows {
            c.push(spanned_leaf("total rows", v));
        }
        if let Some(v) = &self.commit_log_lower_bound {
            c.push(v.to_node("commit log lower bound"));
        }
        if let Some(v) = &self.commit_log_intervals {
            let mut children = vec![spanned_leaf("count", &v.count)];
            for (i, iv) in v.intervals.iter().enumerate() {
                children.push(
                    Node::new(
                        format!("interval {i}"),
                        format!("[{}] .. [{}]", iv.start.display(), iv.end.display()),
                        Some(Span::new(iv.start.span.start, iv.end.span.end)),
                    )
                    .with_children(vec![iv.start.to_node("start"), iv.end.to_node("end")]),
                );
            }
            c.push(
                Node::new(
                    "commit log intervals",
                    format!("{} intervals", v.intervals.len()),
                    Some(v.span),
                )
                .with_children(children),
            );
        }
        if let Some(v) = &self.pending_repair {
            c.push(v.to_node("pending repair"));
        }
        if let Some(v) = &self.is_transient {
            c.push(spanned_leaf("is transient", v));
        }
        if let Some(v) = &self.originating_host_id {
            c.push(v.to_node("originating host id"));
        }
        if let Some(v) = &self.has_partition_level_deletions {
            c.push(spanned_leaf("has partition level deletions", v));
        }
        if !covered_in_place {
            c.extend(covered_node);
        }
        if let Some(k) = &self.first_key {
            c.push(leaf("first key", bytes_display(&k.bytes), k.span));
        }
        if let Some(k) = &self.last_key {
            c.push(leaf("last key", bytes_display(&k.bytes), k.span));
        }
        if let Some(v) = &self.token_space_coverage {
            c.push(spanned_leaf("token space coverage", v));
        }
        if !self.missing_fields.is_empty() {
            c.push(Node::new(
                "missing trailing fields",
                self.missing_fields.join(", "),
                None,
            ));
        }
        Node::new(
            "STATS",
            format!(
                "{} partitions (estimated), timestamps {}..{}",
                self.estimated_partition_count,
                format_timestamp_micros(self.min_timestamp_micros.value),
                format_timestamp_micros(self.max_timestamp_micros.value)
            ),
            Some(self.span),
        )
        .with_children(c)
    }
}

fn decode_intervals(r: &mut Reader<'_>) -> Result<CommitLogIntervals> {
    let start = r.offset();
    let count = r.spanned(|r| r.i32("STATS: commit log interval count"))?;
    let n = u64::try_from(count.value).map_err(|_| {
        r.invalid_at(
            format!("negative interval count {}", count.value),
            count.span.start,
            "STATS: commit log interval count",
        )
    })?;
    let n = r.check_count(n, 24, "STATS: commit log intervals")?;
    let mut intervals = Vec::with_capacity(n);
    for _ in 0..n {
        let s = CommitLogPosition::decode(r, "STATS: commit log interval start")?;
        let e = CommitLogPosition::decode(r, "STATS: commit log interval end")?;
        intervals.push(CommitLogInterval { start: s, end: e });
    }
    Ok(CommitLogIntervals {
        span: r.span_from(start),
        count,
        intervals,
    })
}

fn raw_vint_bytes(r: &mut Reader<'_>, what: &'static str) -> Result<RawBytes> {
    let start = r.offset();
    let bytes = r.vint_length_bytes(what)?;
    Ok(RawBytes {
        bytes: bytes.to_vec(),
        span: r.span_from(start),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An oa STATS body: one tombstone bin (new layout), a pending repair, an Int32 clustering.
    fn oa_stats_bytes(cut_after_level: bool) -> Vec<u8> {
        let mut b = Vec::new();
        for _ in 0..2 {
            // Histogram with offsets [1], buckets [3, 0].
            b.extend_from_slice(&2i32.to_be_bytes());
            for (o, c) in [(1i64, 3i64), (1, 0)] {
                b.extend_from_slice(&o.to_be_bytes());
                b.extend_from_slice(&c.to_be_bytes());
            }
        }
        b.extend_from_slice(&(-1i64).to_be_bytes()); // upper bound NONE
        b.extend_from_slice(&0i32.to_be_bytes());
        b.extend_from_slice(&10i64.to_be_bytes()); // min timestamp
        b.extend_from_slice(&20i64.to_be_bytes()); // max timestamp
        b.extend_from_slice(&3_000_000_000u32.to_be_bytes()); // min ldt (past 2038)
        b.extend_from_slice(&u32::MAX.to_be_bytes()); // max ldt: none
        b.extend_from_slice(&5i32.to_be_bytes());
        b.extend_from_slice(&6i32.to_be_bytes());
        b.extend_from_slice(&(-1f64).to_be_bytes());
        b.extend_from_slice(&1i32.to_be_bytes()); // max bin size
        b.extend_from_slice(&1i32.to_be_bytes()); // bins
        b.extend_from_slice(&3_000_000_000i64.to_be_bytes());
        b.extend_from_slice(&2i32.to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes()); // level
        if cut_after_level {
            return b;
        }
        b.extend_from_slice(&0i64.to_be_bytes()); // repaired at
        let ty = b"org.apache.cassandra.db.marshal.Int32Type";
        b.push(1);
        b.push(ty.len() as u8);
        b.extend_from_slice(ty);
        b.extend_from_slice(&[1, 0, 1, 0, 0, 0, 0, 7]); // start: INCL_START [7]
        b.extend_from_slice(&[6, 0, 1, 0, 0, 0, 0, 9]); // end: INCL_END [9]
        b.push(0); // legacy counter shards
        b.extend_from_slice(&1i64.to_be_bytes());
        b.extend_from_slice(&1i64.to_be_bytes());
        b.extend_from_slice(&(-1i64).to_be_bytes()); // lower bound NONE
        b.extend_from_slice(&0i32.to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes()); // no intervals
        b.push(1); // pending repair present
        b.extend_from_slice(&0x0011_2233_4455_6677u64.to_be_bytes());
        b.extend_from_slice(&0x8899_aabb_ccdd_eeffu64.to_be_bytes());
        b.push(1); // transient
        b.push(0); // no host id
        b.push(1); // partition deletions
        b.extend_from_slice(&[1, b'a', 2, b'z', b'z']);
        b.extend_from_slice(&0.5f64.to_be_bytes());
        b
    }

    #[test]
    fn oa_stats_every_field() {
        let oa = Version::parse(Format::Big, "oa").unwrap();
        let bytes = oa_stats_bytes(false);
        let mut r = Reader::new(&bytes, 1000);
        let s = StatsMetadata::decode(&mut r, &oa).unwrap();
        assert!(r.is_empty());
        assert_eq!(s.span, Span::new(1000, 1000 + bytes.len() as u64));
        assert_eq!(s.estimated_partition_count, 3);
        assert!(s.commit_log_upper_bound.is_none());
        let min_ldt = s.min_local_deletion_time.as_ref().unwrap();
        assert_eq!(min_ldt.value.secs_if_set(), Some(3_000_000_000));
        assert_eq!(s.max_local_deletion_time.value.secs_if_set(), None);
        assert_eq!(s.min_ttl_secs.as_ref().map(|t| t.value), Some(5));
        let bins = &s.estimated_tombstone_drop_time.bins;
        assert_eq!(bins.len(), 1);
        assert_eq!(
            bins.first().map(|b| (b.point_secs, b.count)),
            Some((3_000_000_000, 2))
        );
        let cc = s.covered_clustering.as_ref().unwrap();
        assert_eq!(
            cc.start.values.first().map(|v| v.bytes.clone()),
            Some(vec![0, 0, 0, 7])
        );
        assert_eq!(
            cc.end.values.first().map(|v| v.bytes.clone()),
            Some(vec![0, 0, 0, 9])
        );
        assert!(s.min_clustering_values.is_none());
        let pending = s.pending_repair.as_ref().unwrap();
        assert_eq!(
            pending.uuid.as_ref().map(|u| u.value.as_str()),
            Some("00112233-4455-6677-8899-aabbccddeeff")
        );
        assert_eq!(s.is_transient.as_ref().map(|t| t.value), Some(true));
        assert!(s.originating_host_id.as_ref().unwrap().uuid.is_none());
        assert_eq!(
            s.has_partition_level_deletions.as_ref().map(|t| t.value),
            Some(true)
        );
        assert_eq!(
            s.first_key.as_ref().map(|k| k.bytes.clone()),
            Some(b"a".to_vec())
        );
        assert_eq!(
            s.last_key.as_ref().map(|k| k.bytes.clone()),
            Some(b"zz".to_vec())
        );
        assert_eq!(s.token_space_coverage.as_ref().map(|t| t.value), Some(0.5));
        assert!(s.missing_fields.is_empty());
        let node = s.to_node();
        assert!(node.find_at(1000 + bytes.len() as u64 - 1).is_some());
    }

    #[test]
    fn a_stats_cut_before_required_fields_is_an_error() {
        let oa = Version::parse(Format::Big, "oa").unwrap();
        let bytes = oa_stats_bytes(true);
        let e = StatsMetadata::decode(&mut Reader::new(&bytes, 0), &oa).unwrap_err();
        assert_eq!(e.offset(), bytes.len() as u64);
        assert_eq!(e.what(), "STATS: repaired at");
    }

    #[test]
    fn fixed_lengths_follow_the_type_strings() {
        let t = |s: &str| Spanned {
            value: s.to_owned(),
            span: Span::new(0, 0),
        };
        let deep = "ReversedType(".repeat(10_000) + "LongType" + &")".repeat(10_000);
        assert_eq!(
            clustering_fixed_lengths(&[
                t("org.apache.cassandra.db.marshal.Int32Type"),
                t("org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.TimeUUIDType)"),
                t("org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)"),
                t("org.apache.cassandra.db.marshal.UTF8Type"),
                t("ShortType"),
                // Nesting past the parser's limit: treated as vint-length.
                t(&deep),
            ]),
            [Some(4), Some(16), Some(12), None, None, None]
        );
    }

    #[test]
    fn covered_slice_bounds_use_header_bits() {
        let types: Vec<Spanned<String>> = ["Int32Type", "UTF8Type", "UTF8Type"]
            .iter()
            .map(|t| Spanned {
                value: (*t).to_owned(),
                span: Span::new(0, 0),
            })
            .collect();
        let fixed = clustering_fixed_lengths(&types);
        let layout = ClusteringLayout::new(&fixed);
        // kind 1, size 3, header: value 1 empty (bit 2), value 2 null (bit 5).
        let bytes = [1u8, 0, 3, 0x24, 0, 0, 0, 7];
        let mut r = Reader::new(&bytes, 50);
        let b = ClusteringPrefix::read_bound(&mut r, layout, "t")
            .unwrap()
            .to_owned();
        assert!(r.is_empty());
        assert_eq!(b.kind.ordinal(), 1);
        let states: Vec<_> = b.values.iter().map(|v| v.state).collect();
        assert_eq!(
            states,
            [
                ClusteringValueState::Present,
                ClusteringValueState::Empty,
                ClusteringValueState::Null
            ]
        );
        assert_eq!(b.first_value(), Some(&[0u8, 0, 0, 7][..]));
        assert_eq!(b.values.first().map(|v| v.span), Some(Span::new(54, 58)));
        let node = bound_node("start", &b);
        assert_eq!(node.value, "INCL_START_BOUND with 3 values");
        // More values than types is an error.
        let bytes = [6u8, 0, 4, 0];
        assert!(ClusteringPrefix::read_bound(&mut Reader::new(&bytes, 0), layout, "t").is_err());
    }

    #[test]
    fn deletion_times_signed_and_unsigned() {
        let bytes = 0x8000_0001u32.to_be_bytes();
        let t = LocalDeletionTime::decode(&mut Reader::new(&bytes, 0), false, "t").unwrap();
        assert_eq!(t.secs_if_set(), Some(i64::from(i32::MIN) + 1));
        let t = LocalDeletionTime::decode(&mut Reader::new(&bytes, 0), true, "t").unwrap();
        assert_eq!(t.secs_if_set(), Some(0x8000_0001));
        let none = i32::MAX.to_be_bytes();
        let t = LocalDeletionTime::decode(&mut Reader::new(&none, 0), false, "t").unwrap();
        assert_eq!(t.secs_if_set(), None);
        let none = u32::MAX.to_be_bytes();
        let t = LocalDeletionTime::decode(&mut Reader::new(&none, 0), true, "t").unwrap();
        assert_eq!(t.secs_if_set(), None);
    }
}
