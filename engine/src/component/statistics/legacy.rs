//! Statistics.db before `ka` (Cassandra 1.2 `ic`, 2.0 `ja`/`jb`): one flat `SSTableMetadata`
//! record, with no component count, no table of contents and no checksums.
//!
//! | # | field | type | versions (gate) |
//! |---|---|---|---|
//! | 1 | estimatedRowSize | EstimatedHistogram | ic+ |
//! | 2 | estimatedColumnCount | EstimatedHistogram | ic+ |
//! | 3 | replayPosition | ReplayPosition (i64 segment id, i32 position) | ic+ |
//! | 4 | minTimestamp, maxTimestamp | i64, i64 | ic+ |
//! | 5 | maxLocalDeletionTime | i32 s (none = i32::MAX) | ja+ (`tracksMaxLocalDeletionTime`) |
//! | 6 | bloomFilterFPChance | f64 | ja+ (`hasBloomFilterFPChance`) |
//! | 7 | compressionRatio | f64 (−1 = uncompressed) | ic+ |
//! | 8 | partitioner | writeUTF class name | ic+ |
//! | 9 | ancestors | i32 n + n × i32 generation | ic+ |
//! | 10 | estimatedTombstoneDropTime | StreamingHistogram: i32 maxBinSize, i32 n, n × (f64 point, i64 count) | ic+ |
//! | 11 | sstableLevel | i32 | read only when bytes remain (as 2.0 does): 2.0 writes it, also when it rewrites an `ic` record's level; the `ic` fixture, written by 1.2, ends before it |
//! | 12 | minColumnNames, maxColumnNames | i32 n + n × short-length bytes, twice | ja+ (`tracksMaxMinColumnNames`) |
//!
//! The fields land in the same structures as the `ka`+ components, as Cassandra 2.1's
//! `LegacyMetadataSerializer` maps them: partitioner and FP chance in [`ValidationMetadata`];
//! row sizes, column counts, replay position (as the commit log upper bound), timestamps, max
//! local deletion time, compression ratio, tombstone histogram, level and min/max column names in
//! [`StatsMetadata`]; ancestors in [`CompactionMetadata`]. Fields a version does not store
//! (repaired-at, the legacy-counter-shards flag, the cardinality estimator; FP chance and max
//! deletion time in `ic`; a level the record ends before) hold the value Cassandra assumes, with an
//! empty span at the offset where the reader stood, and are listed in
//! [`LegacyRecord::not_stored`]. [`Statistics::component_count`] is 0 with an empty span, and
//! `toc` and `checksums` are empty. Any field that cannot be read fails the whole decode: without a
//! table of contents nothing after it can be located.
//!
//! Versions before `ic` (Cassandra 1.2.5) had other optional fields; Cassandra 2.0 refuses them
//! and so does this decoder.
//!
//! Src: `src/java/org/apache/cassandra/io/sstable/SSTableMetadata.java` (`SSTableMetadataSerializer`)
//! and `src/java/org/apache/cassandra/io/sstable/Descriptor.java` (`Version`) on cassandra-2.0;
//! `src/java/org/apache/cassandra/io/sstable/metadata/LegacyMetadataSerializer.java` (cassandra-2.1
//! to 3.11); `utils/EstimatedHistogram.java`, `utils/StreamingHistogram.java`,
//! `db/commitlog/ReplayPosition.java`.

use serde::Serialize;

use super::{
    format_timestamp_micros, leaf, spanned_leaf, Ancestors, ClusteringValues, CommitLogPosition,
    CompactionMetadata, EstimatedHistogram, LocalDeletionTime, Statistics, StatisticsLayout,
    StatsMetadata, TombstoneHistogram, TombstoneHistogramLayout, ValidationMetadata,
};
use crate::component::ComponentType;
use crate::error::Result;
use crate::reader::Reader;
use crate::span::{Node, Span, Spanned};
use crate::version::{Format, Version};

/// `ka` and later write the metadata container (2.1 "new Statistics.db file format").
pub(super) fn has_new_stats_file(version: &Version) -> bool {
    version.format() == Format::Bti || version.is_dse() || version.as_str() >= "ka"
}

/// Cassandra 2.0's `Version.isCompatible`: `ic` is the oldest version it opens.
fn is_compatible(version: &Version) -> bool {
    version.format() == Format::Big && version.as_str() >= "ic"
}

/// ja+ (2.0.0): the record stores the max local deletion time.
fn tracks_max_local_deletion_time(version: &Version) -> bool {
    version.as_str() >= "ja"
}

/// ja+ (2.0.0): the record stores the bloom filter FP chance.
fn has_bloom_filter_fp_chance(version: &Version) -> bool {
    version.as_str() >= "ja"
}

/// ja+ (2.0.0): the record ends with min/max column names.
fn tracks_max_min_column_names(version: &Version) -> bool {
    version.as_str() >= "ja"
}

/// `SSTableMetadata.NO_BLOOM_FLITER_FP_CHANCE`, what 2.0 assumes for `ic`.
pub const NO_BLOOM_FILTER_FP_CHANCE: f64 = -1.0;

/// A field the record does not hold, and the value Cassandra (and this decoder) assumes for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotStoredField {
    /// Which field, e.g. `"STATS: repaired at"`.
    pub field: &'static str,
    /// The value put in its place, as text.
    pub assumed: String,
    /// Why it is absent.
    pub reason: &'static str,
}

/// Facts about the flat pre-`ka` record that the `ka`+ structures have no place for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegacyRecord {
    /// The bytes the record's fields take (from 0).
    pub span: Span,
    /// Fields the record does not store; they hold Cassandra's defaults and have empty spans.
    pub not_stored: Vec<NotStoredField>,
    /// Bytes after the last field.
    pub unread: Option<Span>,
    /// Whether all of `unread` is zero bytes.
    pub unread_is_zero: bool,
}

/// A value the record does not store, with an empty span at `at`.
fn assumed<T>(value: T, at: u64) -> Spanned<T> {
    Spanned {
        value,
        span: Span::new(at, at),
    }
}

/// Decodes a pre-`ka` Statistics.db (called by [`super::decode`] for versions before `ka`).
pub(super) fn decode(bytes: &[u8], version: &Version) -> Result<Statistics> {
    let mut r = Reader::new(bytes, 0).for_component(ComponentType::Statistics);
    if !is_compatible(version) {
        return Err(r.invalid_at(
            format!(
                "Statistics.db of version {version} (before ic, Cassandra 1.2.5) is not decoded"
            ),
            0,
            "SSTableMetadata",
        ));
    }
    let mut not_stored = Vec::new();
    let mut absent = |field: &'static str, assumed: &str, reason: &'static str| {
        not_stored.push(NotStoredField {
            field,
            assumed: assumed.to_owned(),
            reason,
        });
    };

    let row_sizes = EstimatedHistogram::decode(&mut r)
        .map_err(|e| e.context("SSTableMetadata: estimated row size histogram"))?;
    let column_counts = EstimatedHistogram::decode(&mut r)
        .map_err(|e| e.context("SSTableMetadata: estimated column count histogram"))?;
    let replay_position = CommitLogPosition::decode(&mut r, "SSTableMetadata: replay position")?;
    let min_timestamp = r.spanned(|r| r.i64("SSTableMetadata: min timestamp"))?;
    let max_timestamp = r.spanned(|r| r.i64("SSTableMetadata: max timestamp"))?;
    let max_local_deletion_time = if tracks_max_local_deletion_time(version) {
        r.spanned(|r| {
            LocalDeletionTime::decode(r, false, "SSTableMetadata: max local deletion time")
        })?
    } else {
        absent(
            "STATS: max local deletion time",
            "none (i32::MAX)",
            "not stored before ja",
        );
        let at = r.offset();
        Spanned {
            value: LocalDeletionTime::none(false),
            span: Span::new(at, at),
        }
    };
    let fp_chance = if has_bloom_filter_fp_chance(version) {
        r.spanned(|r| r.f64("SSTableMetadata: bloom filter false-positive chance"))?
    } else {
        absent(
            "VALIDATION: bloom filter fp chance",
            "-1 (NO_BLOOM_FLITER_FP_CHANCE)",
            "not stored before ja",
        );
        assumed(NO_BLOOM_FILTER_FP_CHANCE, r.offset())
    };
    let compression_ratio = r.spanned(|r| r.f64("SSTableMetadata: compression ratio"))?;
    let partitioner = r.spanned(|r| r.utf("SSTableMetadata: partitioner class name"))?;
    let ancestors = Ancestors::decode(
        &mut r,
        "SSTableMetadata: ancestor count",
        "SSTableMetadata: ancestors",
    )?;
    let estimator_at = r.offset();
    absent(
        "COMPACTION: cardinality estimator",
        "none",
        "not stored before ka",
    );
    let tombstones = TombstoneHistogram::decode(&mut r, TombstoneHistogramLayout::Legacy)
        .map_err(|e| e.context("SSTableMetadata: estimated tombstone drop time histogram"))?;
    let sstable_level = if r.is_empty() {
        absent(
            "STATS: sstable level",
            "0",
            "the record ends before it (1.2 wrote none; 2.0 reads it only when bytes remain)",
        );
        assumed(0, r.offset())
    } else {
        r.spanned(|r| r.i32("SSTableMetadata: sstable level"))?
    };
    absent(
        "STATS: repaired at",
        "0 (unrepaired)",
        "not stored before ka",
    );
    let repaired_at = assumed(0, r.offset());
    let (min_names, max_names) = if tracks_max_min_column_names(version) {
        (
            Some(ClusteringValues::decode(
                &mut r,
                "SSTableMetadata: min column names",
            )?),
            Some(ClusteringValues::decode(
                &mut r,
                "SSTableMetadata: max column names",
            )?),
        )
    } else {
        (None, None)
    };
    absent(
        "STATS: has legacy counter shards",
        "true",
        "not stored before ka (Cassandra 2.1+ assumes older sstables may hold them)",
    );
    let legacy_counter_shards = assumed(true, r.offset());
    let record_end = r.offset();
    let file_len = bytes.len() as u64;

    // jb: FP chance .. partitioner (the compression ratio lies between); ic: the partitioner.
    let validation_start = if fp_chance.span.len_bytes() > 0 {
        fp_chance.span.start
    } else {
        partitioner.span.start
    };
    let validation = ValidationMetadata {
        span: Span::new(validation_start, partitioner.span.end),
        partitioner,
        bloom_filter_fp_chance: fp_chance,
    };
    let compaction = CompactionMetadata {
        span: ancestors.span,
        ancestors: Some(ancestors),
        layout: super::CompactionLayout::Cassandra,
        cardinality_estimator_length: assumed(0, estimator_at),
        cardinality_estimator_bytes: Span::new(estimator_at, estimator_at),
        cardinality_estimator: None,
    };
    let stats = StatsMetadata {
        span: Span::new(0, record_end),
        estimated_partition_count: row_sizes.total_count(),
        estimated_partition_size: row_sizes,
        estimated_cell_per_partition_count: column_counts,
        commit_log_upper_bound: replay_position,
        min_timestamp_micros: min_timestamp,
        max_timestamp_micros: max_timestamp,
        min_local_deletion_time: None,
        max_local_deletion_time,
        min_ttl_secs: None,
        max_ttl_secs: None,
        compression_ratio,
        estimated_tombstone_drop_time: tombstones,
        sstable_level,
        repaired_at_millis: repaired_at,
        min_clustering_values: min_names,
        max_clustering_values: max_names,
        covered_clustering: None,
        has_legacy_counter_shards: legacy_counter_shards,
        total_columns_set: None,
        total_rows: None,
        commit_log_lower_bound: None,
        commit_log_intervals: None,
        pending_repair: None,
        is_transient: None,
        originating_host_id: None,
        has_partition_level_deletions: None,
        first_key: None,
        last_key: None,
        token_space_coverage: None,
        missing_fields: Vec::new(),
    };
    let unread = (!r.is_empty()).then(|| Span::new(record_end, file_len));
    let unread_is_zero = unread.is_some() && r.rest().iter().all(|&b| b == 0);
    Ok(Statistics {
        version: *version,
        span: Span::new(0, file_len),
        component_count: assumed(0, 0),
        toc: Vec::new(),
        checksums: Vec::new(),
        validation: Some(validation),
        compaction: Some(compaction),
        stats: Some(stats),
        header: None,
        dse_stats: None,
        errors: Vec::new(),
        layout: StatisticsLayout::LegacyRecord(LegacyRecord {
            span: Span::new(0, record_end),
            not_stored,
            unread,
            unread_is_zero,
        }),
    })
}

/// A leaf for a stored field; `None` for one the record does not hold (empty span).
fn stored_leaf(label: &str, value: String, span: Span) -> Option<Node> {
    (span.len_bytes() > 0).then(|| leaf(label, value, span))
}

fn timestamp_leaf(label: &str, t: &Spanned<i64>) -> Node {
    leaf(
        label,
        format!("{} ({} if µs)", t.value, format_timestamp_micros(t.value)),
        t.span,
    )
}

/// The tree of a pre-`ka` Statistics.db: the record's fields in file order, then the fields it
/// does not store (without spans).
pub(super) fn to_node(s: &Statistics, record: &LegacyRecord) -> Node {
    let mut c = Vec::new();
    if let Some(st) = &s.stats {
        c.push(
            st.estimated_partition_size
                .to_node("estimated row size (bytes)"),
        );
        c.push(
            st.estimated_cell_per_partition_count
                .to_node("estimated column count"),
        );
        c.push(st.commit_log_upper_bound.to_node("replay position"));
        c.push(timestamp_leaf("min timestamp", &st.min_timestamp_micros));
        c.push(timestamp_leaf("max timestamp", &st.max_timestamp_micros));
        c.extend(stored_leaf(
            "max local deletion time",
            st.max_local_deletion_time.value.display(),
            st.max_local_deletion_time.span,
        ));
    }
    if let Some(v) = &s.validation {
        c.extend(stored_leaf(
            "bloom filter fp chance",
            v.bloom_filter_fp_chance.value.to_string(),
            v.bloom_filter_fp_chance.span,
        ));
    }
    if let Some(st) = &s.stats {
        let ratio = if st.compression_ratio.value == -1.0 {
            "-1 (not compressed)".to_owned()
        } else {
            st.compression_ratio.value.to_string()
        };
        c.push(leaf("compression ratio", ratio, st.compression_ratio.span));
    }
    if let Some(v) = &s.validation {
        c.push(spanned_leaf("partitioner", &v.partitioner));
    }
    if let Some(a) = s.compaction.as_ref().and_then(|c| c.ancestors.as_ref()) {
        c.push(a.to_node());
    }
    if let Some(st) = &s.stats {
        c.push(
            st.estimated_tombstone_drop_time
                .to_node("estimated tombstone drop times"),
        );
        c.extend(stored_leaf(
            "sstable level",
            st.sstable_level.value.to_string(),
            st.sstable_level.span,
        ));
        if let Some(v) = &st.min_clustering_values {
            c.push(v.to_node("min column names"));
        }
        if let Some(v) = &st.max_clustering_values {
            c.push(v.to_node("max column names"));
        }
    }
    if let Some(unread) = record.unread {
        c.push(leaf(
            "unread bytes",
            if record.unread_is_zero {
                format!("{} zero bytes", unread.len_bytes())
            } else {
                format!("{} bytes after the last field", unread.len_bytes())
            },
            unread,
        ));
    }
    if !record.not_stored.is_empty() {
        let children = record
            .not_stored
            .iter()
            .map(|f| {
                Node::new(
                    f.field,
                    format!("assumed {} ({})", f.assumed, f.reason),
                    None,
                )
            })
            .collect();
        c.push(
            Node::new(
                "not stored in this version",
                format!("{} fields", record.not_stored.len()),
                None,
            )
            .with_children(children),
        );
    }
    for e in &s.errors {
        c.push(Node::new("error", e.to_string(), None));
    }
    let partitions = s
        .estimated_partition_count()
        .map_or_else(String::new, |n| format!(", {n} partitions (estimated)"));
    Node::new(
        "Statistics.db",
        format!(
            "version {}, legacy SSTableMetadata record (no table of contents, no checksums){partitions}",
            s.version
        ),
        Some(s.span),
    )
    .with_children(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(s: &str) -> Version {
        Version::parse(Format::Big, s).unwrap_or_else(|| panic!("{s}"))
    }

    /// A minimal record: one-bucket histograms, no ancestors, no tombstone bins.
    fn record(v: &str, with_level: bool) -> Vec<u8> {
        let mut b = Vec::new();
        for count in [3i64, 7] {
            b.extend_from_slice(&2i32.to_be_bytes());
            for (o, c) in [(1i64, count), (1, 0)] {
                b.extend_from_slice(&o.to_be_bytes());
                b.extend_from_slice(&c.to_be_bytes());
            }
        }
        b.extend_from_slice(&(-1i64).to_be_bytes()); // replay position NONE
        b.extend_from_slice(&0i32.to_be_bytes());
        b.extend_from_slice(&10i64.to_be_bytes());
        b.extend_from_slice(&20i64.to_be_bytes());
        if v >= "ja" {
            b.extend_from_slice(&i32::MAX.to_be_bytes());
            b.extend_from_slice(&0.1f64.to_be_bytes());
        }
        b.extend_from_slice(&0.5f64.to_be_bytes());
        b.extend_from_slice(&[0, 1, b'P']);
        b.extend_from_slice(&1i32.to_be_bytes()); // one ancestor
        b.extend_from_slice(&42i32.to_be_bytes());
        b.extend_from_slice(&100i32.to_be_bytes());
        b.extend_from_slice(&0i32.to_be_bytes());
        if with_level {
            b.extend_from_slice(&2i32.to_be_bytes());
        }
        if v >= "ja" {
            b.extend_from_slice(&[0, 0, 0, 1, 0, 1, b'a']);
            b.extend_from_slice(&[0, 0, 0, 1, 0, 1, b'z']);
        }
        b
    }

    #[test]
    fn jb_record_fills_the_ka_structures() {
        let bytes = record("jb", true);
        let s = decode(&bytes, &version("jb")).unwrap();
        assert_eq!(s.partitioner(), Some("P"));
        assert_eq!(s.estimated_partition_count(), Some(3));
        let v = s.validation.as_ref().unwrap();
        assert_eq!(v.bloom_filter_fp_chance.value, 0.1);
        assert_eq!(v.bloom_filter_fp_chance.span.len_bytes(), 8);
        let st = s.stats.as_ref().unwrap();
        assert_eq!(st.sstable_level.value, 2);
        assert_eq!(st.sstable_level.span.len_bytes(), 4);
        assert_eq!(st.compression_ratio.value, 0.5);
        assert_eq!(st.estimated_cell_per_partition_count.total_count(), 7);
        let names = |c: &Option<ClusteringValues>| c.as_ref().map(|c| c.values[0].bytes.clone());
        assert_eq!(names(&st.min_clustering_values), Some(b"a".to_vec()));
        assert_eq!(names(&st.max_clustering_values), Some(b"z".to_vec()));
        assert_eq!(st.span, Span::new(0, bytes.len() as u64));
        let a = s.compaction.as_ref().unwrap().ancestors.as_ref().unwrap();
        assert_eq!(a.generations[0].value, 42);
        let StatisticsLayout::LegacyRecord(rec) = &s.layout else {
            panic!("layout");
        };
        let fields: Vec<&str> = rec.not_stored.iter().map(|f| f.field).collect();
        assert_eq!(
            fields,
            [
                "COMPACTION: cardinality estimator",
                "STATS: repaired at",
                "STATS: has legacy counter shards"
            ]
        );
        assert!(rec.unread.is_none());
        let node = s.to_node();
        let at = v.partitioner.span.start + 2;
        assert_eq!(
            node.find_at(at).map(|n| n.label.as_str()),
            Some("partitioner")
        );
    }

    #[test]
    fn ic_record_without_level() {
        let bytes = record("ic", false);
        let s = decode(&bytes, &version("ic")).unwrap();
        let v = s.validation.as_ref().unwrap();
        assert_eq!(v.bloom_filter_fp_chance.value, NO_BLOOM_FILTER_FP_CHANCE);
        assert_eq!(v.bloom_filter_fp_chance.span.len_bytes(), 0);
        assert_eq!(v.span, v.partitioner.span);
        let st = s.stats.as_ref().unwrap();
        assert_eq!(st.sstable_level.value, 0);
        assert_eq!(st.max_local_deletion_time.value.secs_if_set(), None);
        assert!(st.min_clustering_values.is_none());
        // With the level 2.0 appends when it rewrites an ic file's level.
        let bytes = record("ic", true);
        let s = decode(&bytes, &version("ic")).unwrap();
        assert_eq!(s.stats.as_ref().unwrap().sstable_level.value, 2);
    }

    #[test]
    fn older_versions_and_short_records_are_errors() {
        assert!(decode(&record("ic", false), &version("ib")).is_err());
        let bytes = record("jb", true);
        // jb without its column names.
        let e = decode(&bytes[..bytes.len() - 14], &version("jb")).unwrap_err();
        assert_eq!(e.what(), "SSTableMetadata: min column names");
        assert_eq!(e.component(), Some(&ComponentType::Statistics));
        // Trailing bytes are reported, not an error.
        let mut long = bytes.clone();
        long.extend_from_slice(&[0, 0]);
        let s = decode(&long, &version("jb")).unwrap();
        let StatisticsLayout::LegacyRecord(rec) = &s.layout else {
            panic!("layout");
        };
        let end = bytes.len() as u64;
        assert_eq!(rec.unread, Some(Span::new(end, end + 2)));
        assert!(rec.unread_is_zero);
    }
}
