//! Statistics.db decoding against Cassandra's real fixture files (MANIFEST.md) and byte-level
//! robustness: every truncation and every single-byte flip must give `Ok` or `Err`, never panic.

use crate::common;
use crate::common::legacy::{legacy_tables, long_value};

use std::path::{Path, PathBuf};

use sstable_engine::component::common::ClusteringValueState;
use sstable_engine::component::compression_info;
use sstable_engine::component::statistics::{
    self, ChecksumPart, EstimatedHistogram, MetadataType, Statistics, StatisticsLayout,
};
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::reader::Reader;
use sstable_engine::{Format, Version};

const BOP: &str = "org.apache.cassandra.dht.ByteOrderedPartitioner";
const MURMUR3: &str = "org.apache.cassandra.dht.Murmur3Partitioner";
const UTF8: &str = "org.apache.cassandra.db.marshal.UTF8Type";
const INT32: &str = "org.apache.cassandra.db.marshal.Int32Type";
const COUNTER: &str = "org.apache.cassandra.db.marshal.CounterColumnType";
/// 2015-01-01T00:00Z and 2024-10-12T00:00Z (the fixture snapshot date), in µs.
const EARLIEST_MICROS: i64 = 1_420_070_400_000_000;
const LATEST_MICROS: i64 = 1_728_691_200_000_000;

const VERSIONS: [&str; 12] = [
    "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
];

/// The `*Statistics.db` file in `dir` and the version its name gives.
fn statistics_file(dir: &Path) -> (PathBuf, Version) {
    let mut found = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with("-Statistics.db"))
        .collect::<Vec<_>>();
    found.sort();
    let path = found.into_iter().next().expect("a Statistics.db");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (descriptor, _) = parse_file_name(&name).unwrap();
    (path, descriptor.version)
}

fn decode_dir(dir: &Path) -> (Vec<u8>, Version, Statistics) {
    let (path, version) = statistics_file(dir);
    let bytes = std::fs::read(&path).unwrap();
    let stats =
        statistics::decode(&bytes, &version).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        stats.errors.is_empty(),
        "{}: {:?}",
        path.display(),
        stats.errors
    );
    (bytes, version, stats)
}

fn names_and_types(cols: &statistics::ColumnList) -> Vec<(String, String)> {
    cols.columns
        .iter()
        .map(|c| (c.name.value.clone(), c.type_name.value.clone()))
        .collect()
}

#[test]
fn legacy_tables_in_every_version() {
    let Some(fx) = common::cassandra_fixtures("statistics::legacy_tables_in_every_version") else {
        return;
    };
    for v in VERSIONS {
        for table in legacy_tables(v) {
            let dir = common::legacy_dir(&fx, v, &table);
            let (bytes, version, s) = decode_dir(&dir);
            let ctx = format!("{v}/{table}");
            let counter = table.contains("counter");
            let clust = table.contains("clust");
            let compact = table.ends_with("compact");
            let value_type = if counter { COUNTER } else { UTF8 };

            // VALIDATION (MANIFEST §2: ByteOrderedPartitioner, fp chance 0.01).
            let validation = s.validation.as_ref().unwrap();
            assert_eq!(validation.partitioner.value, BOP, "{ctx}");
            assert_eq!(validation.bloom_filter_fp_chance.value, 0.01, "{ctx}");

            // 5 partitions: histogram sum and HyperLogLog estimate.
            assert_eq!(s.estimated_partition_count(), Some(5), "{ctx}");
            let compaction = s.compaction.as_ref().unwrap();
            assert_eq!(compaction.estimated_cardinality(), Some(5), "{ctx}");
            let hll = compaction.cardinality_estimator.as_ref().unwrap();
            assert_eq!((hll.p.value, hll.sp.value), (13, 25), "{ctx}");
            assert_eq!(hll.span, compaction.cardinality_estimator_bytes, "{ctx}");
            assert_eq!(
                compaction.ancestors.is_some(),
                ["ka", "la"].contains(&v),
                "{ctx}"
            );

            let st = s.stats.as_ref().unwrap();
            assert_eq!(st.estimated_partition_size.total_count(), 5, "{ctx}");
            // Observed: 3.0.0–3.0.8 writers (ma–mc) set the flag for the compact simple counter
            // tables (their counters are static cells); the fields after it decode consistently.
            let legacy_shards =
                ["ma", "mb", "mc"].contains(&v) && table.ends_with("simple_counter_compact");
            assert_eq!(st.has_legacy_counter_shards.value, legacy_shards, "{ctx}");
            assert_eq!(st.sstable_level.value, 0, "{ctx}");
            assert_eq!(st.repaired_at_millis.value, 0, "{ctx}");
            // One flush: plausible write dates, less than a minute apart.
            let (min_ts, max_ts) = (st.min_timestamp_micros.value, st.max_timestamp_micros.value);
            assert!(EARLIEST_MICROS < min_ts && min_ts <= max_ts, "{ctx}");
            assert!(
                max_ts < LATEST_MICROS && max_ts - min_ts < 60_000_000,
                "{ctx}"
            );
            // No deletions or TTLs anywhere (MANIFEST §3). Early 3.0 writers put the live cells
            // in the drop-time histogram at "no deletion" (i32::MAX).
            assert_eq!(
                st.max_local_deletion_time.value.secs_if_set(),
                None,
                "{ctx}"
            );
            let bins = &st.estimated_tombstone_drop_time.bins;
            assert!(
                bins.iter().all(|b| b.point_secs == i64::from(i32::MAX)),
                "{ctx}: {bins:?}"
            );

            let row_format = version.has_row_format();
            if row_format {
                assert_eq!(
                    st.min_local_deletion_time
                        .as_ref()
                        .unwrap()
                        .value
                        .secs_if_set(),
                    None,
                    "{ctx}"
                );
                assert_eq!(st.min_ttl_secs.as_ref().unwrap().value, 0, "{ctx}");
                let rows = if clust { 250 } else { 5 };
                assert_eq!(st.total_rows.as_ref().unwrap().value, rows, "{ctx}");
                assert_eq!(st.total_columns_set.as_ref().unwrap().value, rows, "{ctx}");
            } else {
                assert!(st.min_local_deletion_time.is_none() && st.total_rows.is_none());
            }

            // Commit log: the single interval spans lower..upper bound.
            if version.has_commit_log_intervals() {
                let intervals = st.commit_log_intervals.as_ref().unwrap();
                assert_eq!(intervals.intervals.len(), 1, "{ctx}");
                let iv = &intervals.intervals[0];
                let lower = st.commit_log_lower_bound.as_ref().unwrap();
                assert_eq!(
                    (iv.start.segment_id, iv.start.position),
                    (lower.segment_id, lower.position),
                    "{ctx}"
                );
                assert_eq!(
                    (iv.end.segment_id, iv.end.position),
                    (
                        st.commit_log_upper_bound.segment_id,
                        st.commit_log_upper_bound.position
                    ),
                    "{ctx}"
                );
            }
            assert_eq!(
                st.commit_log_lower_bound.is_some(),
                !["ka", "la", "ma"].contains(&v),
                "{ctx}"
            );
            assert_eq!(
                st.originating_host_id
                    .as_ref()
                    .is_some_and(|h| h.uuid.is_some()),
                ["me", "nb", "nc", "oa", "da"].contains(&v),
                "{ctx}"
            );
            if version.has_pending_repair() {
                assert_eq!(st.pending_repair.as_ref().unwrap().flag.value, 0, "{ctx}");
            }
            // Early pre-release na COMPACT tables end before isTransient (format doc §3.4).
            let expected_missing: &[&str] = if v == "na" && compact {
                &["is transient"]
            } else {
                &[]
            };
            assert_eq!(st.missing_fields, expected_missing, "{ctx}");

            // Clustering bounds: first row "0"+LONG, last "9"+LONG (MANIFEST §3).
            let min_row = long_value("0");
            let max_row = long_value("9");
            if let Some(min) = &st.min_clustering_values {
                let got: Vec<&[u8]> = min.values.iter().map(|b| b.bytes.as_slice()).collect();
                let max: Vec<&[u8]> = st
                    .max_clustering_values
                    .as_ref()
                    .unwrap()
                    .values
                    .iter()
                    .map(|b| b.bytes.as_slice())
                    .collect();
                if clust {
                    assert_eq!(got, [min_row.as_slice()], "{ctx}");
                    assert_eq!(max, [max_row.as_slice()], "{ctx}");
                } else {
                    assert!(got.is_empty() && max.is_empty(), "{ctx}");
                }
            } else {
                assert!(["oa", "da"].contains(&v), "{ctx}");
            }
            if ["nc", "oa", "da"].contains(&v) {
                let cc = st.covered_clustering.as_ref().unwrap();
                assert_eq!(
                    (cc.start.kind.ordinal(), cc.end.kind.ordinal()),
                    (1, 6),
                    "{ctx}"
                );
                if clust {
                    assert_eq!(cc.clustering_types.len(), 1, "{ctx}");
                    assert_eq!(cc.clustering_types[0].value, UTF8, "{ctx}");
                    let start = &cc.start.values[0];
                    assert_eq!(start.state, ClusteringValueState::Present);
                    assert_eq!(start.bytes, min_row, "{ctx}");
                    assert_eq!(cc.end.values[0].bytes, max_row, "{ctx}");
                } else {
                    assert!(cc.clustering_types.is_empty(), "{ctx}");
                    assert_eq!(
                        (
                            cc.start.size.as_ref().unwrap().value,
                            cc.end.size.as_ref().unwrap().value
                        ),
                        (0, 0),
                        "{ctx}"
                    );
                }
                assert_eq!(st.first_key.as_ref().unwrap().bytes, b"0", "{ctx}");
                assert_eq!(st.last_key.as_ref().unwrap().bytes, b"4", "{ctx}");
                assert!(
                    !st.has_partition_level_deletions.as_ref().unwrap().value,
                    "{ctx}"
                );
            } else {
                assert!(st.covered_clustering.is_none() && st.first_key.is_none());
            }
            // Token space coverage: the oa writer leaves it unknown (NaN) for the ordered
            // partitioner, the da (BTI) writer records 1.0 (read from the bytes).
            let coverage = st.token_space_coverage.as_ref().map(|c| c.value);
            match v {
                "oa" => assert!(coverage.is_some_and(f64::is_nan), "{ctx}"),
                "da" => assert_eq!(coverage, Some(1.0), "{ctx}"),
                _ => assert_eq!(coverage, None, "{ctx}"),
            }

            // HEADER (MANIFEST §3).
            match &s.header {
                None => assert!(!row_format, "{ctx}"),
                Some(h) => {
                    assert_eq!(h.key_type.value, UTF8, "{ctx}");
                    let clustering: Vec<&str> = h
                        .clustering_types
                        .iter()
                        .map(|t| t.value.as_str())
                        .collect();
                    let statics = names_and_types(&h.static_columns);
                    let regulars = names_and_types(&h.regular_columns);
                    let val = vec![("val".to_owned(), value_type.to_owned())];
                    if !clust && compact {
                        // Hidden clustering column, `val` static.
                        assert_eq!(clustering, [UTF8], "{ctx}");
                        assert_eq!(statics, val, "{ctx}");
                        assert!(regulars.is_empty(), "{ctx}");
                    } else {
                        let want: &[&str] = if clust { &[UTF8] } else { &[] };
                        assert_eq!(clustering, want, "{ctx}");
                        assert!(statics.is_empty(), "{ctx}");
                        assert_eq!(regulars, val, "{ctx}");
                    }
                    // The encoding minimum timestamp is the sstable's minimum timestamp.
                    assert_eq!(h.encoding_stats.min_timestamp_micros, min_ts, "{ctx}");
                    assert_eq!(h.encoding_stats.min_ttl_secs, 0, "{ctx}");
                    assert_eq!(
                        h.encoding_stats.min_local_deletion_time_secs,
                        i64::from(statistics::DELETION_TIME_EPOCH_SECS),
                        "{ctx}"
                    );
                }
            }

            // Metadata checksums: recomputed here from the table of contents.
            if version.has_metadata_checksum() {
                assert_eq!(s.checksums.len(), 2 + s.toc.len(), "{ctx}");
                assert!(s.checksums_ok(), "{ctx}");
                assert_eq!(independent_crcs(&bytes), stored_crcs(&s), "{ctx}");
            } else {
                assert!(s.checksums.is_empty(), "{ctx}");
            }
            // No unread bytes in any component.
            assert!(s.toc.iter().all(|e| e.unread.is_none()), "{ctx}");
        }
    }
}

/// (part, stored, computed) of every check, as the decoder reports them.
fn stored_crcs(s: &Statistics) -> Vec<(ChecksumPart, u32, u32)> {
    s.checksums
        .iter()
        .map(|c| (c.part, c.stored.value, c.computed))
        .collect()
}

/// The same, computed without the engine: count CRC, running CRC over count + TOC, and a CRC
/// per component (sliced by sorted offsets, last 4 bytes stored).
fn independent_crcs(bytes: &[u8]) -> Vec<(ChecksumPart, u32, u32)> {
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    let count = be(0) as usize;
    let mut out = vec![(
        ChecksumPart::ComponentCount,
        be(4),
        crc32fast::hash(&bytes[0..4]),
    )];
    let toc_end = 8 + 8 * count;
    let mut running = crc32fast::Hasher::new();
    running.update(&bytes[0..4]);
    running.update(&bytes[8..toc_end]);
    out.push((
        ChecksumPart::TableOfContents,
        be(toc_end),
        running.finalize(),
    ));
    let entries: Vec<(u32, usize)> = (0..count)
        .map(|i| (be(8 + 8 * i), be(12 + 8 * i) as usize))
        .collect();
    let mut offsets: Vec<usize> = entries.iter().map(|e| e.1).collect();
    offsets.sort_unstable();
    for (ordinal, offset) in entries {
        let end = offsets
            .iter()
            .copied()
            .find(|&o| o > offset)
            .unwrap_or(bytes.len());
        let kind = MetadataType::from_ordinal(ordinal as i32);
        out.push((
            ChecksumPart::Component(kind),
            be(end - 4),
            crc32fast::hash(&bytes[offset..end - 4]),
        ));
    }
    out
}

#[test]
fn a_flipped_byte_fails_exactly_the_right_checksum() {
    let Some(fx) = common::cassandra_fixtures("statistics::a_flipped_byte_fails_exactly") else {
        return;
    };
    for (v, table) in [
        ("nb", "legacy_nb_simple"),
        ("oa", "legacy_oa_clust"),
        ("da", "legacy_da_simple"),
    ] {
        let (bytes, version, s) = decode_dir(&common::legacy_dir(&fx, v, table));
        for check in &s.checksums {
            // A byte inside the covered range (last covered span, middle), and the stored CRC.
            let covered = check.covered.last().unwrap();
            let inside = ((covered.start + covered.end) / 2) as usize;
            let stored = check.stored.span.start as usize + 1;
            for at in [inside, stored] {
                if !matches!(check.part, ChecksumPart::Component(_)) && at == inside {
                    // Changing the count or a TOC entry changes the layout; see below.
                    continue;
                }
                let mut flipped = bytes.clone();
                flipped[at] ^= 0xff;
                let out = statistics::decode(&flipped, &version).unwrap();
                let failed: Vec<ChecksumPart> = out.failed_checksums().map(|c| c.part).collect();
                assert_eq!(failed, [check.part], "{v}/{table}: flip at {at}");
            }
        }
        // A flipped TOC offset byte fails the TOC checksum (and breaks slicing).
        let mut flipped = bytes.clone();
        flipped[15] ^= 0x01;
        let out = statistics::decode(&flipped, &version).unwrap();
        assert!(out
            .failed_checksums()
            .any(|c| c.part == ChecksumPart::TableOfContents));
    }
}

#[test]
fn compression_ratio_matches_the_data_file() {
    let Some(fx) = common::cassandra_fixtures("statistics::compression_ratio") else {
        return;
    };
    // ratio = stored compressed bytes (Data.db minus 4-byte chunk CRCs) / uncompressed length;
    // chunk counts and lengths from MANIFEST §2/§3/§7.
    for (v, table, data_file, chunks, uncompressed) in [
        (
            "nb",
            "legacy_nb_clust",
            "nb-1-big-Data.db",
            21u64,
            336_016u64,
        ),
        ("oa", "legacy_oa_simple", "oa-1-big-Data.db", 1, 118),
    ] {
        let dir = common::legacy_dir(&fx, v, table);
        let (_, _, s) = decode_dir(&dir);
        let data_len = std::fs::metadata(dir.join(data_file)).unwrap().len();
        let expected = (data_len - 4 * chunks) as f64 / uncompressed as f64;
        let ratio = s.stats.as_ref().unwrap().compression_ratio.value;
        assert!(
            (ratio - expected).abs() < 1e-12,
            "{v}: {ratio} vs {expected}"
        );
    }
}

#[test]
fn negative_local_expiration_reads_as_negative_i32() {
    let Some(fx) = common::cassandra_fixtures("statistics::negative_local_expiration") else {
        return;
    };
    for table in ["table1", "table2", "table3", "table4"] {
        let dir = fx.join("other/negative-local-expiration-test").join(table);
        let (_, version, s) = decode_dir(&dir);
        assert_eq!(version.as_str(), "mc");
        assert_eq!(s.partitioner(), Some(MURMUR3));
        assert_eq!(s.estimated_partition_count(), Some(2));
        let st = s.stats.as_ref().unwrap();
        let h = s.header.as_ref().unwrap();
        // MANIFEST §6: TTL 630,720,000 s (20 years).
        assert_eq!(st.min_ttl_secs.as_ref().unwrap().value, 630_720_000);
        assert_eq!(st.max_ttl_secs.as_ref().unwrap().value, 630_720_000);
        assert_eq!(h.encoding_stats.min_ttl_secs, 630_720_000);
        // Expiry = write second + TTL, past 2038: stored as a negative i32.
        let write_secs = st.min_timestamp_micros.value / 1_000_000;
        let expiry = write_secs + 630_720_000;
        assert!(expiry > i64::from(i32::MAX));
        let ldt = st.min_local_deletion_time.as_ref().unwrap();
        assert_eq!(u64::from(ldt.value.raw), expiry as u64, "{table}");
        assert_eq!(
            ldt.value.secs_if_set(),
            Some(i64::from(expiry as u32 as i32))
        );
        assert!(ldt.value.secs_if_set().unwrap() < 0);
        assert_eq!(
            u64::from(h.encoding_stats.min_local_deletion_time_raw),
            expiry as u64
        );
        assert_eq!(
            h.encoding_stats.min_local_deletion_time_secs,
            ldt.value.secs_if_set().unwrap()
        );
        if table == "table1" || table == "table2" {
            // The value MANIFEST §6 states.
            assert_eq!(ldt.value.raw, 2_148_266_895);
        }
    }
}

#[test]
fn other_fixtures() {
    let Some(fx) = common::cassandra_fixtures("statistics::other_fixtures") else {
        return;
    };
    let other = fx.join("other");
    // bloom-filter: Murmur3, 10 partitions (MANIFEST §6).
    for dir in ["bloom-filter/ka/foo", "bloom-filter/la/foo"] {
        let (_, _, s) = decode_dir(&other.join(dir));
        assert_eq!(s.partitioner(), Some(MURMUR3), "{dir}");
        assert_eq!(s.estimated_partition_count(), Some(10), "{dir}");
        assert_eq!(
            s.compaction.as_ref().unwrap().estimated_cardinality(),
            Some(10)
        );
    }
    // cf_with_duplicates_3_0: mb, Murmur3, 1 partition, PK (a int, b int), c int.
    let (_, _, s) =
        decode_dir(&other.join("invalid-legacy-sstables/Keyspace1/cf_with_duplicates_3_0"));
    assert_eq!(s.partitioner(), Some(MURMUR3));
    assert_eq!(s.estimated_partition_count(), Some(1));
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.key_type.value, INT32);
    assert_eq!(h.clustering_types.len(), 1);
    assert_eq!(
        names_and_types(&h.regular_columns),
        [("c".to_owned(), INT32.to_owned())]
    );
    // negative-ldts: nb/nc, Murmur3, local deletion time −1.
    for (dir, partitions) in [
        ("invalid_partition_deletion", 3),
        ("invalid_range_tombstone_compaction", 3),
        ("invalid_tombstones", 3),
        ("invalid_range_tombstone_reader", 1),
    ] {
        let (_, _, s) = decode_dir(&other.join("negative-ldts-invalid-deletions-test").join(dir));
        assert_eq!(s.partitioner(), Some(MURMUR3), "{dir}");
        assert_eq!(s.estimated_partition_count(), Some(partitions), "{dir}");
        assert!(s.checksums_ok(), "{dir}");
        let st = s.stats.as_ref().unwrap();
        assert_eq!(
            st.min_local_deletion_time
                .as_ref()
                .unwrap()
                .value
                .secs_if_set(),
            Some(-1),
            "{dir}"
        );
        let h = s.header.as_ref().unwrap();
        assert_eq!(h.encoding_stats.min_local_deletion_time_secs, -1, "{dir}");
        assert_eq!(
            names_and_types(&h.regular_columns),
            [("b".to_owned(), UTF8.to_owned())]
        );
    }
    // ka legacy_ka_repeated_rt is the Murmur3 one among the ka tables.
    let (_, _, s) = decode_dir(&common::legacy_dir(&fx, "ka", "legacy_ka_repeated_rt"));
    assert_eq!(s.partitioner(), Some(MURMUR3));
    assert_eq!(s.estimated_partition_count(), Some(1));
}

#[test]
fn inaccurate_min_max_clustering() {
    let Some(fx) = common::cassandra_fixtures("statistics::inaccurate_min_max") else {
        return;
    };
    let (_, _, s) = decode_dir(&common::legacy_dir(
        &fx,
        "mc",
        "legacy_mc_inaccurate_min_max",
    ));
    // MANIFEST §4: k int, c1 int, c2 int, c3 int, v int; PK (k, c1, c2, c3); 1 partition.
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.key_type.value, INT32);
    let clustering: Vec<&str> = h
        .clustering_types
        .iter()
        .map(|t| t.value.as_str())
        .collect();
    assert_eq!(clustering, [INT32, INT32, INT32]);
    assert_eq!(
        names_and_types(&h.regular_columns),
        [("v".to_owned(), INT32.to_owned())]
    );
    assert_eq!(s.estimated_partition_count(), Some(1));
    let st = s.stats.as_ref().unwrap();
    // The row (4,4,4) and the RT end bound [3]: component-wise min (3,4,4), max (4,4,4) — the
    // open RT start is not covered, which is the point of this fixture.
    let ints = |v: &statistics::ClusteringValues| -> Vec<i32> {
        v.values
            .iter()
            .map(|b| i32::from_be_bytes(b.bytes.as_slice().try_into().unwrap()))
            .collect()
    };
    assert_eq!(ints(st.min_clustering_values.as_ref().unwrap()), [3, 4, 4]);
    assert_eq!(ints(st.max_clustering_values.as_ref().unwrap()), [4, 4, 4]);
    // The range tombstone's two markers are the only tombstones.
    assert_eq!(st.estimated_tombstone_drop_time.total_count(), 2);
    assert_eq!(st.total_rows.as_ref().unwrap().value, 1);
}

/// `EstimatedHistogram.newOffsets` with Java semantics (`Math.round` half-up and saturating,
/// wrapping `long` increment).
fn java_offsets(size: usize) -> Vec<i64> {
    let java_round = |x: f64| -> i64 {
        let r = x.round();
        let r = if x < 0.0 && r - x == -0.5 { r + 1.0 } else { r };
        r as i64
    };
    let mut out = vec![1i64];
    let mut last = 1i64;
    for _ in 1..size {
        let mut next = java_round(last as f64 * 1.2);
        if next == last {
            next = next.wrapping_add(1);
        }
        out.push(next);
        last = next;
    }
    out
}

#[test]
fn serialized_estimated_histograms() {
    let Some(fx) = common::cassandra_fixtures("statistics::serialized_estimated_histograms") else {
        return;
    };
    for release in ["4.0", "5.0"] {
        let path = fx
            .join("other/serialization")
            .join(release)
            .join("utils.EstimatedHistogram.bin");
        let bytes = std::fs::read(&path).unwrap();
        let mut r = Reader::new(&bytes, 0);
        // 1. The default histogram: 90 offsets, 91 empty buckets.
        let h0 = EstimatedHistogram::decode(&mut r).unwrap();
        assert_eq!(h0.buckets.len(), 91);
        assert_eq!(h0.bucket_offsets(), java_offsets(90));
        assert_eq!(h0.total_count(), 0);
        assert_eq!(h0.span.end, 4 + 91 * 16);
        // 2. 5000 buckets (offsets overflow i64 past ~240 buckets, as in Java), empty.
        let h1 = EstimatedHistogram::decode(&mut r).unwrap();
        assert_eq!(h1.buckets.len(), 5001);
        assert_eq!(h1.bucket_offsets(), java_offsets(5000));
        assert_eq!(h1.total_count(), 0);
        // 3. Offsets 0..999, bucket i = 10·i, overflow bucket 100000.
        let h2 = EstimatedHistogram::decode(&mut r).unwrap();
        assert_eq!(h2.bucket_offsets(), (0..1000).collect::<Vec<i64>>());
        let mut want: Vec<i64> = (0..1000).map(|i| 10 * i).collect();
        want.push(100_000);
        assert_eq!(h2.counts(), want);
        assert!(h2.is_overflowed());
        assert_eq!(h2.mean(), None);
        assert_eq!(h2.total_count(), 10 * 999 * 1000 / 2 + 100_000);
        assert!(
            r.is_empty(),
            "{release}: {} bytes left",
            r.remaining_bytes()
        );
        assert_eq!(bytes.len(), 97_500);
    }
}

#[test]
fn unsorted_toc_is_looked_up_by_type() {
    let Some(fx) = common::cassandra_fixtures("statistics::unsorted_toc") else {
        return;
    };
    // Rewrite an `me` TOC in Scylla's observed order 3, 2, 0, 1 (no checksums before na).
    let (bytes, version, original) = decode_dir(&common::legacy_dir(&fx, "me", "legacy_me_clust"));
    let entry = |i: usize| bytes[4 + 8 * i..12 + 8 * i].to_vec();
    let mut shuffled = bytes.clone();
    for (slot, from) in [3usize, 2, 0, 1].iter().enumerate() {
        shuffled[4 + 8 * slot..12 + 8 * slot].copy_from_slice(&entry(*from));
    }
    let s = statistics::decode(&shuffled, &version).unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let order: Vec<MetadataType> = s.toc.iter().map(|e| e.metadata_type.value).collect();
    assert_eq!(
        order,
        [
            MetadataType::Header,
            MetadataType::Stats,
            MetadataType::Validation,
            MetadataType::Compaction
        ]
    );
    assert_eq!(s.validation, original.validation);
    assert_eq!(s.compaction, original.compaction);
    assert_eq!(s.stats, original.stats);
    assert_eq!(s.header, original.header);
}

#[test]
fn tree_and_json_carry_spans() {
    let Some(fx) = common::cassandra_fixtures("statistics::tree_and_json") else {
        return;
    };
    let (bytes, _, s) = decode_dir(&common::legacy_dir(&fx, "nb", "legacy_nb_clust"));
    let node = s.to_node();
    assert_eq!(node.span.map(|sp| sp.end), Some(bytes.len() as u64));
    let partitioner_at = s.validation.as_ref().unwrap().partitioner.span.start + 3;
    assert_eq!(
        node.find_at(partitioner_at).map(|n| n.label.as_str()),
        Some("partitioner")
    );
    let key_at = s.header.as_ref().unwrap().key_type.span.start;
    assert_eq!(
        node.find_at(key_at).map(|n| n.label.as_str()),
        Some("partition key type")
    );
    assert_spans_nest(&node);
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("ByteOrderedPartitioner"));
}

/// Every span in the tree lies inside its parent's.
fn assert_spans_nest(n: &sstable_engine::Node) {
    for c in &n.children {
        if let (Some(p), Some(cs)) = (n.span, c.span) {
            assert!(
                p.start <= cs.start && cs.end <= p.end,
                "{} in {}",
                c.label,
                n.label
            );
        }
        assert_spans_nest(c);
    }
}

/// Every prefix and every single-byte flip decodes to `Ok` or `Err` without panicking.
fn assert_robust(bytes: &[u8], version: &Version) {
    for len in 0..bytes.len() {
        let _ = statistics::decode(&bytes[..len], version);
    }
    let mut copy = bytes.to_vec();
    for i in 0..copy.len() {
        copy[i] ^= 0xff;
        let result = statistics::decode(&copy, version);
        // Building the tree is part of not panicking; sampled to keep debug builds fast.
        if i % 8 == 0 {
            if let Ok(s) = result {
                let _ = s.to_node();
            }
        }
        copy[i] ^= 0xff;
    }
}

#[test]
fn every_truncation_and_flip_is_handled() {
    let Some(fx) = common::cassandra_fixtures("statistics::every_truncation_and_flip") else {
        return;
    };
    for (v, table) in [
        ("nb", "legacy_nb_clust"),
        ("oa", "legacy_oa_clust"),
        ("da", "legacy_da_simple"),
        ("nc", "legacy_nc_simple"),
        ("ka", "legacy_ka_simple"),
        ("mc", "legacy_mc_inaccurate_min_max"),
    ] {
        let (path, version) = statistics_file(&common::legacy_dir(&fx, v, table));
        let bytes = std::fs::read(path).unwrap();
        assert_robust(&bytes, &version);
    }
    // The flat pre-ka record: a jb table with long column names, and the ic file.
    let (path, version) = statistics_file(&common::legacy_dir(&fx, "jb", "legacy_jb_clust"));
    assert_robust(&std::fs::read(path).unwrap(), &version);
    let (bytes, version, _) = decode_file(&fx.join(IC_STATISTICS));
    assert_robust(&bytes, &version);
    // The bytes of one version read as every other version's layout (container bytes as the
    // flat record, and the flat record as a container).
    for (v, table) in [("oa", "legacy_oa_simple"), ("jb", "legacy_jb_simple")] {
        let (path, _) = statistics_file(&common::legacy_dir(&fx, v, table));
        let bytes = std::fs::read(path).unwrap();
        for v in VERSIONS.iter().chain(&["jb", "ja", "ic", "ib"]) {
            let format = if *v == "da" { Format::Bti } else { Format::Big };
            let version = Version::parse(format, v).unwrap();
            if let Ok(s) = statistics::decode(&bytes, &version) {
                let _ = s.to_node();
            }
        }
    }
}

const IC_STATISTICS: &str =
    "other/invalid-legacy-sstables/Keyspace1/Standard1/Keyspace1-Standard1-ic-0-Statistics.db";
const JB_CORRUPT_STATISTICS: &str = "other/corrupt-sstables/Keyspace1-Standard3-jb-1-Statistics.db";
const JB_KEYSPACE1_STATISTICS: &str =
    "legacy-sstables/jb/Keyspace1/Keyspace1-Standard1-jb-0-Statistics.db";

/// Decodes one Statistics.db (version from its name) and checks it decoded without errors.
fn decode_file(path: &Path) -> (Vec<u8>, Version, Statistics) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (descriptor, _) = parse_file_name(&name).unwrap();
    let bytes = std::fs::read(path).unwrap();
    let s = statistics::decode(&bytes, &descriptor.version)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(s.errors.is_empty(), "{}: {:?}", path.display(), s.errors);
    (bytes, descriptor.version, s)
}

/// The `field` names of what the flat record does not store.
fn not_stored(s: &Statistics) -> Vec<&'static str> {
    s.legacy_record()
        .unwrap()
        .not_stored
        .iter()
        .map(|f| f.field)
        .collect()
}

/// What every jb record holds the same way: no container, BOP, FP 0.01, a stored level of 0,
/// no ancestors, an empty tombstone histogram, nothing after the last field.
fn assert_jb_common(bytes: &[u8], s: &Statistics, ctx: &str) {
    assert_eq!(s.version.as_str(), "jb", "{ctx}");
    assert!(
        matches!(s.layout, StatisticsLayout::LegacyRecord(_)),
        "{ctx}"
    );
    assert!(s.toc.is_empty() && s.checksums.is_empty() && s.header.is_none());
    assert_eq!(s.component_count.span.len_bytes(), 0, "{ctx}");
    let record = s.legacy_record().unwrap();
    assert_eq!(record.span.end, bytes.len() as u64, "{ctx}");
    assert!(record.unread.is_none(), "{ctx}");
    assert_eq!(
        not_stored(s),
        [
            "COMPACTION: cardinality estimator",
            "STATS: repaired at",
            "STATS: has legacy counter shards"
        ],
        "{ctx}"
    );
    // The record names the partitioner (MANIFEST §2 for legacy_tables; MANIFEST §6 says the
    // corrupt-sstables jb file does not, but its bytes hold the same class name).
    assert_eq!(s.partitioner(), Some(BOP), "{ctx}");
    let v = s.validation.as_ref().unwrap();
    assert_eq!(v.bloom_filter_fp_chance.value, 0.01, "{ctx}");
    assert_eq!(v.bloom_filter_fp_chance.span.len_bytes(), 8, "{ctx}");
    // FP chance, then compression ratio, then the partitioner (SSTableMetadata.java, 2.0).
    let st = s.stats.as_ref().unwrap();
    assert_eq!(
        v.bloom_filter_fp_chance.span.end, st.compression_ratio.span.start,
        "{ctx}"
    );
    assert_eq!(
        st.compression_ratio.span.end, v.partitioner.span.start,
        "{ctx}"
    );
    assert_eq!(
        st.estimated_partition_size.span.start, 0,
        "{ctx}: row sizes come first"
    );
    assert_eq!(
        (
            st.estimated_partition_size.buckets.len(),
            st.estimated_cell_per_partition_count.buckets.len()
        ),
        (151, 115),
        "{ctx}"
    );
    assert_eq!(
        st.max_local_deletion_time.value.secs_if_set(),
        None,
        "{ctx}"
    );
    assert_eq!(st.max_local_deletion_time.span.len_bytes(), 4, "{ctx}");
    assert_eq!(
        (st.sstable_level.value, st.sstable_level.span.len_bytes()),
        (0, 4),
        "{ctx}"
    );
    assert_eq!(st.repaired_at_millis.value, 0, "{ctx}");
    assert_eq!(st.repaired_at_millis.span.len_bytes(), 0, "{ctx}");
    assert!(st.has_legacy_counter_shards.value, "{ctx}");
    assert!(st.min_local_deletion_time.is_none() && st.total_rows.is_none());
    let tombstones = &st.estimated_tombstone_drop_time;
    assert_eq!(
        (tombstones.max_bin_size.value, tombstones.bins.len()),
        (100, 0),
        "{ctx}"
    );
    let compaction = s.compaction.as_ref().unwrap();
    assert_eq!(
        compaction.ancestors.as_ref().unwrap().count.value,
        0,
        "{ctx}"
    );
    assert_eq!(compaction.estimated_cardinality(), None, "{ctx}");
    assert!(compaction.cardinality_estimator.is_none(), "{ctx}");

    // The tree: the partitioner's bytes select the partitioner, spans nest, JSON names the layout.
    let node = s.to_node();
    assert_eq!(node.span.map(|sp| sp.end), Some(bytes.len() as u64));
    assert_eq!(
        node.find_at(v.partitioner.span.start + 3)
            .map(|n| n.label.as_str()),
        Some("partitioner"),
        "{ctx}"
    );
    assert_eq!(
        node.find_at(st.sstable_level.span.start)
            .map(|n| n.label.as_str()),
        Some("sstable level"),
        "{ctx}"
    );
    assert_spans_nest(&node);
    // Every byte of the record belongs to a field.
    for at in 0..bytes.len() as u64 {
        let found = node.find_at(at).map(|n| n.label.as_str());
        assert!(
            found.is_some_and(|l| l != "Statistics.db"),
            "{ctx}: byte {at}"
        );
    }
    let json = serde_json::to_string(s).unwrap();
    assert!(json.contains("LegacyRecord"), "{ctx}");
}

fn column_names(c: &Option<statistics::ClusteringValues>) -> Vec<Vec<u8>> {
    c.as_ref()
        .unwrap()
        .values
        .iter()
        .map(|v| v.bytes.clone())
        .collect()
}

#[test]
fn jb_legacy_tables() {
    let Some(fx) = common::cassandra_fixtures("statistics::jb_legacy_tables") else {
        return;
    };
    for table in legacy_tables("jb") {
        let dir = common::legacy_dir(&fx, "jb", &table);
        let (bytes, _, s) = decode_dir(&dir);
        let ctx = format!("jb/{table}");
        assert_jb_common(&bytes, &s, &ctx);
        let st = s.stats.as_ref().unwrap();

        // MANIFEST §3: 5 partitions of one (simple) or 50 (clust) rows.
        assert_eq!(s.estimated_partition_count(), Some(5), "{ctx}");
        assert_eq!(
            st.estimated_cell_per_partition_count.total_count(),
            5,
            "{ctx}"
        );
        // One flush: a real replay position.
        assert!(!st.commit_log_upper_bound.is_none(), "{ctx}");
        assert!(st.commit_log_upper_bound.segment_id > 0, "{ctx}");
        // Timestamps, less than a minute apart. Observed: the counter tables' cells carry
        // millisecond timestamps (the others microseconds).
        let scale = if table.contains("counter") { 1000 } else { 1 };
        let (min_ts, max_ts) = (st.min_timestamp_micros.value, st.max_timestamp_micros.value);
        assert!(
            EARLIEST_MICROS / scale < min_ts && min_ts <= max_ts,
            "{ctx}"
        );
        assert!(
            max_ts < LATEST_MICROS / scale && max_ts - min_ts < 60_000_000 / scale,
            "{ctx}"
        );

        // Compression ratio: Data.db without its 4-byte Adler32 per chunk, over the
        // uncompressed length (both from the files).
        let info_path = statistics_file(&dir)
            .0
            .to_string_lossy()
            .replace("-Statistics.db", "-CompressionInfo.db");
        let info =
            compression_info::decode(&std::fs::read(&info_path).unwrap(), &s.version).unwrap();
        let data_len = std::fs::metadata(info_path.replace("-CompressionInfo.db", "-Data.db"))
            .unwrap()
            .len();
        let expected = (data_len - 4 * u64::from(info.chunk_count.value)) as f64
            / info.data_length_bytes.value as f64;
        assert!(
            (st.compression_ratio.value - expected).abs() < 1e-12,
            "{ctx}: {} vs {expected}",
            st.compression_ratio.value
        );

        // Min/max column names (cell names, per comparator component). Clust tables: the first
        // and last clustering values "0"+LONG and "9"+LONG; non-compact CQL3 tables add the
        // column-name component ("" = the row marker, then "val"); counter tables have no row
        // marker. Simple tables: only the column-name component.
        let clust = table.contains("clust");
        let compact = table.ends_with("compact");
        let counter = table.contains("counter");
        let (min_last, max_last): (&[u8], &[u8]) = if counter {
            (b"val", b"val")
        } else {
            (b"", b"val")
        };
        let (want_min, want_max): (Vec<Vec<u8>>, Vec<Vec<u8>>) = match (clust, compact) {
            (true, true) => (vec![long_value("0")], vec![long_value("9")]),
            (true, false) => (
                vec![long_value("0"), min_last.to_vec()],
                vec![long_value("9"), max_last.to_vec()],
            ),
            (false, true) => (vec![b"val".to_vec()], vec![b"val".to_vec()]),
            (false, false) => (vec![min_last.to_vec()], vec![max_last.to_vec()]),
        };
        assert_eq!(column_names(&st.min_clustering_values), want_min, "{ctx}");
        assert_eq!(column_names(&st.max_clustering_values), want_max, "{ctx}");
    }
}

#[test]
fn jb_and_ic_other_files() {
    let Some(fx) = common::cassandra_fixtures("statistics::jb_and_ic_other_files") else {
        return;
    };
    // jb Keyspace1 (MANIFEST §5): 900 partitions, keys "100".."999", one cell each. The
    // row-size histogram holds 900 rows and the column-count histogram 900 single-cell rows;
    // the cell names run "100".."999" too. Uncompressed (ratio −1), written with timestamp 0
    // and no commit log (replay position NONE).
    let (bytes, _, s) = decode_file(&fx.join(JB_KEYSPACE1_STATISTICS));
    assert_jb_common(&bytes, &s, "jb Keyspace1");
    let st = s.stats.as_ref().unwrap();
    assert_eq!(s.estimated_partition_count(), Some(900));
    let columns = &st.estimated_cell_per_partition_count;
    assert_eq!(columns.total_count(), 900);
    // All 900 in the first bucket (≤ 1 cell).
    assert_eq!(columns.counts().first(), Some(&900));
    assert_eq!(columns.max(), Some(1));
    assert_eq!(column_names(&st.min_clustering_values), [b"100".to_vec()]);
    assert_eq!(column_names(&st.max_clustering_values), [b"999".to_vec()]);
    assert_eq!(st.compression_ratio.value, -1.0);
    assert!(st.commit_log_upper_bound.is_none());
    assert_eq!(
        (st.min_timestamp_micros.value, st.max_timestamp_micros.value),
        (0, 0)
    );

    // corrupt-sstables jb (MANIFEST §6): 6 partitions, LZ4 compressed. "Single-cell" is one CQL
    // cell: each partition (read from the decompressed Data.db) holds a CQL3 row marker (cell
    // name "" ) and the cell "b", so the column-count histogram has all 6 in the (1, 2] bucket
    // and the min/max column names are "" and "b".
    let (bytes, _, s) = decode_file(&fx.join(JB_CORRUPT_STATISTICS));
    assert_jb_common(&bytes, &s, "jb corrupt-sstables");
    let st = s.stats.as_ref().unwrap();
    assert_eq!(s.estimated_partition_count(), Some(6));
    let columns = &st.estimated_cell_per_partition_count;
    assert_eq!(columns.total_count(), 6);
    assert_eq!(columns.counts().get(1), Some(&6));
    assert_eq!(columns.max(), Some(2));
    assert_eq!(column_names(&st.min_clustering_values), [b"".to_vec()]);
    assert_eq!(column_names(&st.max_clustering_values), [b"b".to_vec()]);
    // Max timestamp = the newest cell's (2013-09-26T17:20:52.253Z), also in Data.db.
    assert_eq!(st.max_timestamp_micros.value, 1_380_216_052_253_000);
    assert!(st.compression_ratio.value > 0.0 && st.compression_ratio.value < 1.0);

    // ic (MANIFEST §6): 10 keys. 1.2 stores neither the FP chance nor the max local deletion
    // time nor min/max column names, and this file ends right after the tombstone histogram
    // (no sstable level).
    let (bytes, version, s) = decode_file(&fx.join(IC_STATISTICS));
    assert_eq!(version.as_str(), "ic");
    assert_eq!(s.partitioner(), Some(BOP));
    assert_eq!(s.estimated_partition_count(), Some(10));
    assert_eq!(
        not_stored(&s),
        [
            "STATS: max local deletion time",
            "VALIDATION: bloom filter fp chance",
            "COMPACTION: cardinality estimator",
            "STATS: sstable level",
            "STATS: repaired at",
            "STATS: has legacy counter shards"
        ]
    );
    let v = s.validation.as_ref().unwrap();
    assert_eq!(
        v.bloom_filter_fp_chance.value,
        statistics::NO_BLOOM_FILTER_FP_CHANCE
    );
    assert_eq!(v.bloom_filter_fp_chance.span.len_bytes(), 0);
    let st = s.stats.as_ref().unwrap();
    assert_eq!(st.estimated_cell_per_partition_count.total_count(), 10);
    assert_eq!(st.max_local_deletion_time.span.len_bytes(), 0);
    assert_eq!(st.sstable_level.span.len_bytes(), 0);
    assert!(st.min_clustering_values.is_none() && st.max_clustering_values.is_none());
    assert_eq!(st.compression_ratio.value, -1.0);
    // Max timestamp, then compression ratio, then partitioner: no gap where jb has two fields.
    assert_eq!(
        st.max_timestamp_micros.span.end,
        st.compression_ratio.span.start
    );
    assert_eq!(st.compression_ratio.span.end, v.partitioner.span.start);
    assert_eq!(
        st.estimated_tombstone_drop_time.span.end,
        bytes.len() as u64
    );
    let record = s.legacy_record().unwrap();
    assert_eq!(record.span.end, bytes.len() as u64);
    let node = s.to_node();
    assert_spans_nest(&node);
    assert_eq!(
        node.find_at(v.partitioner.span.start + 2)
            .map(|n| n.label.as_str()),
        Some("partitioner")
    );
    // Versions older than ic are refused, as Cassandra 2.0 refuses them.
    let ib = Version::parse(Format::Big, "ib").unwrap();
    assert!(statistics::decode(&bytes, &ib).is_err());
}

/// A `ka`+ metadata container split into (type ordinal, component body without its CRC), in
/// file order — read independently of the engine's decoder.
fn split_container(bytes: &[u8], checksummed: bool) -> Vec<(i32, Vec<u8>)> {
    let be32 = |at: usize| i32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    let count = be32(0) as usize;
    let toc_at = if checksummed { 8 } else { 4 };
    let mut entries: Vec<(i32, usize)> = (0..count)
        .map(|i| (be32(toc_at + 8 * i), be32(toc_at + 8 * i + 4) as usize))
        .collect();
    entries.sort_by_key(|e| e.1);
    let crc_len = if checksummed { 4 } else { 0 };
    (0..entries.len())
        .map(|i| {
            let (kind, start) = entries[i];
            let end = entries.get(i + 1).map_or(bytes.len(), |e| e.1);
            (kind, bytes[start..end - crc_len].to_vec())
        })
        .collect()
}

/// The container of `components` (in that order), with offsets and, if `checksummed`, every
/// CRC32 as `MetadataSerializer` writes them.
fn build_container(components: &[(i32, Vec<u8>)], checksummed: bool) -> Vec<u8> {
    let count = components.len() as i32;
    let mut out = count.to_be_bytes().to_vec();
    if checksummed {
        out.extend_from_slice(&crc32fast::hash(&count.to_be_bytes()).to_be_bytes());
    }
    let crc_len = if checksummed { 4 } else { 0 };
    let mut offset = out.len() + 8 * components.len() + crc_len;
    let mut toc = Vec::new();
    for (kind, body) in components {
        toc.extend_from_slice(&kind.to_be_bytes());
        toc.extend_from_slice(&(offset as i32).to_be_bytes());
        offset += body.len() + crc_len;
    }
    out.extend_from_slice(&toc);
    if checksummed {
        let mut h = crc32fast::Hasher::new();
        h.update(&count.to_be_bytes());
        h.update(&toc);
        out.extend_from_slice(&h.finalize().to_be_bytes());
    }
    for (_, body) in components {
        out.extend_from_slice(body);
        if checksummed {
            out.extend_from_slice(&crc32fast::hash(body).to_be_bytes());
        }
    }
    out
}

fn fixture_statistics(fx: &Path, v: &str, table: &str) -> (Vec<u8>, Version) {
    let dir = fx
        .join("legacy-sstables")
        .join(v)
        .join("legacy_tables")
        .join(table);
    let (path, version) = statistics_file(&dir);
    (std::fs::read(path).unwrap(), version)
}

/// ScyllaDB keeps the pre-3.0 ancestors (u32 count, u32 generations) in the COMPACTION of the
/// `mc`/`md`/`me` files it writes; the component's length tells that layout from Cassandra's.
#[test]
fn scylla_compaction_ancestors_are_decoded() {
    let Some(fx) = common::cassandra_fixtures("statistics::scylla_compaction_ancestors") else {
        return;
    };
    for (v, table) in [
        ("mc", "legacy_mc_clust"),
        ("me", "legacy_me_simple"),
        ("nb", "legacy_nb_clust"),
    ] {
        let (bytes, version) = fixture_statistics(&fx, v, table);
        let checksummed = version.has_metadata_checksum();
        let original = statistics::decode(&bytes, &version).unwrap();
        let compaction = original.compaction.as_ref().unwrap();
        assert_eq!(compaction.layout, statistics::CompactionLayout::Cassandra);
        assert!(compaction.ancestors.is_none());
        let cardinality = compaction.estimated_cardinality().unwrap();
        assert!(cardinality > 0, "{v}");

        // Rebuilt unchanged, the container is byte-identical: the helpers are right.
        let mut components = split_container(&bytes, checksummed);
        assert_eq!(build_container(&components, checksummed), bytes, "{v}");
        let body = &mut components
            .iter_mut()
            .find(|(kind, _)| *kind == 1)
            .unwrap()
            .1;
        let mut with_ancestors = 3u32.to_be_bytes().to_vec();
        for generation in [5u32, 7, 0x7fff_fff0] {
            with_ancestors.extend_from_slice(&generation.to_be_bytes());
        }
        with_ancestors.extend_from_slice(body);
        *body = with_ancestors;
        let scylla = build_container(&components, checksummed);

        let s = statistics::decode(&scylla, &version).unwrap();
        assert!(s.errors.is_empty(), "{v}: {:?}", s.errors);
        assert!(s.checksums_ok(), "{v}");
        let c = s.compaction.as_ref().unwrap();
        assert_eq!(c.layout, statistics::CompactionLayout::ScyllaAncestors);
        let generations: Vec<i32> = c
            .ancestors
            .as_ref()
            .unwrap()
            .generations
            .iter()
            .map(|g| g.value)
            .collect();
        assert_eq!(generations, [5, 7, 0x7fff_fff0], "{v}");
        assert_eq!(c.estimated_cardinality(), Some(cardinality), "{v}");
        assert_eq!(
            s.stats.as_ref().unwrap().min_timestamp_micros.value,
            original.stats.as_ref().unwrap().min_timestamp_micros.value
        );
        let node = s.to_node();
        let text = format!("{node:?}");
        assert!(text.contains("3 generations (ScyllaDB layout)"), "{v}");
    }
}

/// `STATS` of a DSE 6.8 `bb` file, built from an `nb` one: the covered clustering slice where
/// `nb` has legacy min/max values, no `isTransient`, and DSE's own fields before the host id.
fn dse_bb_stats(nb_stats: &[u8], s: &Statistics, base: u64) -> Vec<u8> {
    let st = s.stats.as_ref().unwrap();
    let at = |o: u64| (o - base) as usize;
    let mut out = nb_stats[..at(st.repaired_at_millis.span.end)].to_vec();
    // Covered clustering: no clustering types, an inclusive start and end bound of no values.
    out.extend_from_slice(&[0, 1, 0, 0, 6, 0, 0]);
    out.extend_from_slice(
        &nb_stats[at(st.has_legacy_counter_shards.span.start)
            ..at(st.pending_repair.as_ref().unwrap().span.end)],
    );
    out.push(0); // zero-copy metadata
    out.extend_from_slice(&1_234_567i64.to_be_bytes()); // incremental NodeSync
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&[1, b'v']);
    out.extend_from_slice(&42i32.to_be_bytes());
    let host = st.originating_host_id.as_ref().unwrap().span;
    out.extend_from_slice(&nb_stats[at(host.start)..at(host.end)]);
    out
}

/// DSE 6.x versions: the shared layout decodes; what does not decode says it is DSE's layout.
#[test]
fn dse_versions_decode_what_they_share() {
    let Some(fx) = common::cassandra_fixtures("statistics::dse_versions") else {
        return;
    };
    let (bytes, nb) = fixture_statistics(&fx, "nb", "legacy_nb_clust");
    let original = statistics::decode(&bytes, &nb).unwrap();
    let nb_stats = original.stats.as_ref().unwrap();
    let host_id = nb_stats
        .originating_host_id
        .as_ref()
        .and_then(|h| h.uuid.as_ref())
        .map(|u| u.value.clone());
    let mut components = split_container(&bytes, true);
    let stats_entry = original
        .toc
        .iter()
        .find(|e| e.metadata_type.value == MetadataType::Stats)
        .unwrap();
    let stats_base = stats_entry.body.unwrap().start;

    for format in [Format::Big, Format::Bti] {
        // A plain rename: nb's STATS is not DSE 6.8's; the error says which layout was tried.
        let bb = Version::parse(format, "bb").unwrap();
        let s = statistics::decode(&bytes, &bb).unwrap();
        assert!(s.stats.is_none());
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        let msg = s.errors[0].to_string();
        assert!(
            msg.starts_with("DSE 6.x STATS layout (version bb) not supported beyond offset"),
            "{msg}"
        );
        assert_eq!(s.validation.as_ref().unwrap().partitioner.value, BOP);
        assert!(s.header.is_some() && s.compaction.is_some() && s.checksums_ok());

        // A real DSE 6.8 layout, built from the fixture.
        let stats_at = components.iter().position(|(k, _)| *k == 2).unwrap();
        let original_body = components[stats_at].1.clone();
        components[stats_at].1 = dse_bb_stats(&original_body, &original, stats_base);
        let dse = build_container(&components, true);
        components[stats_at].1 = original_body.clone();
        let s = statistics::decode(&dse, &bb).unwrap();
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert!(s.checksums_ok());
        let st = s.stats.as_ref().unwrap();
        assert_eq!(
            st.min_timestamp_micros.value,
            nb_stats.min_timestamp_micros.value
        );
        assert_eq!(
            st.max_timestamp_micros.value,
            nb_stats.max_timestamp_micros.value
        );
        assert_eq!(
            st.total_rows.as_ref().unwrap().value,
            nb_stats.total_rows.as_ref().unwrap().value
        );
        assert!(st.is_transient.is_none() && st.originating_host_id.is_none());
        assert_eq!(
            st.covered_clustering
                .as_ref()
                .unwrap()
                .clustering_types
                .len(),
            0
        );
        let d = s.dse_stats.as_ref().unwrap();
        assert_eq!(d.zero_copy_metadata.value, 0);
        assert_eq!(d.incremental_node_sync.value, 1_234_567);
        assert_eq!(d.max_column_value_lengths.len(), 1);
        assert_eq!(d.max_column_value_lengths[0].name.value, "v");
        assert_eq!(d.max_column_value_lengths[0].max_length_bytes.value, 42);
        assert_eq!(
            d.originating_host_id.as_ref().unwrap().value,
            host_id,
            "{format}"
        );

        // DSE 6.0/6.7 `ad`: nb's layout without `isTransient`.
        let ad = Version::parse(format, "ad").unwrap();
        let transient_at =
            (nb_stats.is_transient.as_ref().unwrap().span.start - stats_base) as usize;
        components[stats_at].1.remove(transient_at);
        let ad_bytes = build_container(&components, true);
        components[stats_at].1 = original_body;
        let s = statistics::decode(&ad_bytes, &ad).unwrap();
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let st = s.stats.as_ref().unwrap();
        assert!(s.dse_stats.is_none() && st.is_transient.is_none());
        assert_eq!(
            st.originating_host_id
                .as_ref()
                .and_then(|h| h.uuid.as_ref())
                .map(|u| u.value.clone()),
            host_id
        );
        assert_eq!(
            st.total_rows.as_ref().unwrap().value,
            nb_stats.total_rows.as_ref().unwrap().value
        );
    }
}
