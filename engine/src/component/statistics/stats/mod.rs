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
use crate::component::common::LocalDeletionTime;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::{Format, Version};

mod clustering;
mod commit_log;

pub use clustering::{ClusteringValues, CoveredClustering};
use commit_log::decode_intervals;
pub use commit_log::{CommitLogInterval, CommitLogIntervals, CommitLogPosition};

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

fn raw_vint_bytes(r: &mut Reader<'_>, what: &'static str) -> Result<RawBytes> {
    let start = r.offset();
    let bytes = r.vint_length_bytes(what)?;
    Ok(RawBytes {
        bytes: bytes.to_vec(),
        span: r.span_from(start),
    })
}

#[cfg(test)]
mod tests;
