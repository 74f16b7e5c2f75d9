//! The analytics passes (`sstable_engine::analytics`) against counts known by construction (the
//! generator's model, `write::expected_counts`) and against the fixtures' MANIFEST.md.

use crate::common;
use crate::common::sstables;

use std::path::Path;

use sstable_engine::analytics::{
    self, table_report, PartitionColumn, PartitionFilter, PartitionScan, PartitionStats,
    PartitionsCollector, TombstoneScan,
};
use sstable_engine::analytics::{split_ranges, ScanRange};
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataItem, VisitStep};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::Compressor;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::write::{
    expected_counts, generate, ExpectedPartition, GenerateOptions, MemorySink,
};
use sstable_engine::{Format, Version};

const BASE_MICROS: i64 = 1_700_000_000_000_000;
const BASE_SECS: i64 = 1_700_000_000;

/// A generated SSTable in memory: its components and decoded metadata.
struct Table {
    files: Vec<(ComponentType, Vec<u8>)>,
    metadata: SSTableMetadata,
}

impl Table {
    fn data(&self) -> &[u8] {
        self.files
            .iter()
            .find(|(c, _)| *c == ComponentType::Data)
            .map(|(_, b)| b.as_slice())
            .unwrap()
    }
}

fn build(options: &GenerateOptions, generation: u64) -> Table {
    let g = generate(options, MemorySink::default()).unwrap();
    let files: Vec<(ComponentType, Vec<u8>)> = g.sink.files.into_iter().collect();
    let metadata = sstables::generated_metadata(&options.version.to_string(), generation, &files);
    Table { files, metadata }
}

/// Every item of Data.db through the analytics reader.
fn items(metadata: &SSTableMetadata, data: &[u8]) -> Vec<DataItem> {
    let (mut reader, _) = analytics::data_reader(metadata).unwrap();
    let files = [(ComponentType::Data, data)];
    SyncDriver::new(SliceSource { files: &files })
        .items(&mut reader, &NoClock)
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The partitions pass as the CLI runs it (the borrowing decoder): every partition's raw key
/// and figures, in file order.
fn partitions(
    metadata: &SSTableMetadata,
    data: &[u8],
    now_secs: i64,
) -> Vec<(Vec<u8>, PartitionStats)> {
    let (mut reader, key_type) = analytics::data_reader(metadata).unwrap();
    let mut scan = PartitionScan::new(key_type, metadata.partitioner(), now_secs);
    let mut out = Vec::new();
    let files = [(ComponentType::Data, data)];
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    loop {
        match driver.visit_next(&mut reader, &mut scan, &NoClock).unwrap() {
            VisitStep::Visited => out.extend(scan.take_finished()),
            VisitStep::Finished | VisitStep::NeedMoreData => return out,
        }
    }
}

/// The same pass fed owned items (the page's path).
fn partitions_from_items(
    metadata: &SSTableMetadata,
    data: &[u8],
    now_secs: i64,
) -> Vec<(Vec<u8>, PartitionStats)> {
    let (_, key_type) = analytics::data_reader(metadata).unwrap();
    let mut scan = PartitionScan::new(key_type, metadata.partitioner(), now_secs);
    items(metadata, data)
        .iter()
        .filter_map(|i| scan.push(i))
        .collect()
}

/// The tombstone pass as the CLI runs it (the borrowing decoder).
fn tombstone_scan(metadata: &SSTableMetadata, data: &[u8]) -> TombstoneScan {
    let (mut reader, _) = analytics::data_reader(metadata).unwrap();
    let mut scan = TombstoneScan::new();
    let files = [(ComponentType::Data, data)];
    SyncDriver::new(SliceSource { files: &files })
        .visit_all(&mut reader, &mut scan, &NoClock)
        .unwrap();
    scan
}

/// The tombstone pass fed owned items (the page's path).
fn tombstone_scan_from_items(metadata: &SSTableMetadata, data: &[u8]) -> TombstoneScan {
    let mut scan = TombstoneScan::new();
    for i in items(metadata, data) {
        scan.push(&i);
    }
    scan
}

fn options(version: &str) -> GenerateOptions {
    let mut o = GenerateOptions::new(Version::parse(Format::Big, version).unwrap(), 30, 12);
    o.seed = 7;
    o.ttl_fraction = 0.4;
    o.tombstone_fraction = 0.4;
    o.static_ttl_fraction = 0.5;
    o.ttl_range_secs = (60, 86_400);
    o.skew = 10;
    o.base_timestamp_micros = BASE_MICROS;
    o
}

fn assert_matches(got: &[(Vec<u8>, PartitionStats)], want: &[ExpectedPartition]) {
    assert_eq!(got.len(), want.len());
    for ((key, p), e) in got.iter().zip(want) {
        assert_eq!(key, &e.key);
        assert_eq!(p.key_hex, sstable_engine::span::hex(&e.key));
        let k = &p.key;
        assert_eq!(p.rows, e.rows, "rows of {k}");
        assert_eq!(p.cells, e.cells, "cells of {k}");
        assert_eq!(
            p.tombstones.partition, e.tombstones.partition,
            "partition deletion of {k}"
        );
        assert_eq!(p.tombstones.row, e.tombstones.row, "row deletions of {k}");
        assert_eq!(
            p.tombstones.range, e.tombstones.range,
            "range markers of {k}"
        );
        assert_eq!(
            p.tombstones.complex, e.tombstones.complex,
            "complex deletions of {k}"
        );
        assert_eq!(
            p.tombstones.cell, e.tombstones.cell,
            "cell tombstones of {k}"
        );
        assert_eq!(p.ttl_cells, e.ttl_cells, "live TTL cells of {k}");
        assert_eq!(
            p.expired_ttl_cells, e.expired_ttl_cells,
            "expired TTL cells of {k}"
        );
    }
}

#[test]
fn generated_counts_match_the_model_at_several_nows() {
    for (version, compression) in [("oa", Some(Compressor::Lz4)), ("nb", None)] {
        let mut o = options(version);
        o.compression = compression;
        let t = build(&o, 1);
        // Also exactly at one cell's expiry: `Cell.isLive` is `now < expiry`, so it has expired.
        let mut expiries: Vec<i64> = expected_counts(&o, 0)
            .unwrap()
            .iter()
            .flat_map(|e| e.cell_expiries_secs.clone())
            .collect();
        expiries.sort_unstable();
        let at_expiry = expiries[expiries.len() / 2];
        for now in [
            BASE_SECS,
            BASE_SECS + 3_600,
            BASE_SECS + 43_200,
            BASE_SECS + 86_400,
            at_expiry,
        ] {
            let want = expected_counts(&o, now).unwrap();
            // The options make every kind appear, and TTL cells on both sides of `now`.
            let sum = |f: fn(&ExpectedPartition) -> u64| want.iter().map(f).sum::<u64>();
            assert!(sum(|e| e.tombstones.partition) > 0);
            assert!(sum(|e| e.tombstones.row) > 0 && sum(|e| e.tombstones.range) > 0);
            assert!(sum(|e| e.tombstones.complex) > 0 && sum(|e| e.tombstones.cell) > 0);
            if now == BASE_SECS + 43_200 {
                assert!(sum(|e| e.ttl_cells) > 0 && sum(|e| e.expired_ttl_cells) > 0);
            }
            let got = partitions(&t.metadata, t.data(), now);
            assert_matches(&got, &want);
            // The owned-items path (the page's) counts the same.
            assert_matches(&partitions_from_items(&t.metadata, t.data(), now), &want);
        }
    }
}

#[test]
fn summary_filters_and_top_by_size() {
    let o = options("oa");
    let t = build(&o, 1);
    let now = BASE_SECS + 43_200;
    let want = expected_counts(&o, now).unwrap();
    let got = partitions(&t.metadata, t.data(), now);

    // Summary over every partition, whatever the filter.
    let filter = PartitionFilter {
        min_rows: 13,
        ..PartitionFilter::default()
    };
    let mut c = PartitionsCollector::new(filter, None);
    for (k, p) in got.clone() {
        c.add(&k, p);
    }
    let (kept, summary) = c.finish();
    assert_eq!(summary.partitions, 30);
    assert_eq!(summary.rows.total, want.iter().map(|e| e.rows).sum::<u64>());
    assert_eq!(
        summary.cells.total,
        want.iter().map(|e| e.cells).sum::<u64>()
    );
    assert_eq!(
        summary.tombstones.total,
        want.iter().map(|e| e.tombstones.total()).sum::<u64>()
    );
    assert_eq!(
        summary.ttl_cells,
        want.iter().map(|e| e.ttl_cells).sum::<u64>()
    );
    assert_eq!(summary.rows.min, 12);
    assert_eq!(summary.rows.max, 120);
    assert_eq!(
        summary.bytes.total,
        got.iter().map(|(_, p)| p.bytes).sum::<u64>()
    );
    assert_eq!(
        summary.size_histogram.iter().map(|b| b.1).sum::<u64>(),
        30,
        "every partition in the size histogram"
    );
    // The filter keeps exactly the skewed partitions (120 rows), in file order.
    let skewed: Vec<u64> = (0..30).filter(|n| o.rows_in_partition(*n) > 12).collect();
    assert!(!skewed.is_empty() && skewed.len() < 30);
    let kept_keys: Vec<&str> = kept.iter().map(|p| p.key_hex.as_str()).collect();
    let want_keys: Vec<String> = want
        .iter()
        .filter(|e| e.rows > 12)
        .map(|e| sstable_engine::span::hex(&e.key))
        .collect();
    assert_eq!(kept_keys, want_keys);
    assert_eq!(want_keys.len(), skewed.len());

    // Top N by bytes: the skewed partitions, largest first.
    let n = skewed.len();
    let mut c = PartitionsCollector::new(
        PartitionFilter::default(),
        Some((n, PartitionColumn::Bytes)),
    );
    for (k, p) in got.clone() {
        c.add(&k, p);
    }
    let (top, _) = c.finish();
    assert_eq!(top.len(), n);
    assert!(top.windows(2).all(|w| w[0].bytes >= w[1].bytes));
    let mut top_keys: Vec<&str> = top.iter().map(|p| p.key_hex.as_str()).collect();
    top_keys.sort();
    let mut sorted_want = want_keys.clone();
    sorted_want.sort();
    assert_eq!(top_keys, sorted_want);

    // Top 3 by tombstones: the three largest tombstone totals of the model.
    let mut c = PartitionsCollector::new(
        PartitionFilter::default(),
        Some((3, PartitionColumn::Tombstones)),
    );
    for (k, p) in got {
        c.add(&k, p);
    }
    let (top, _) = c.finish();
    let mut totals: Vec<u64> = want.iter().map(|e| e.tombstones.total()).collect();
    totals.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(
        top.iter().map(|p| p.tombstones.total()).collect::<Vec<_>>(),
        totals[..3].to_vec()
    );
}

#[test]
fn droppable_and_expired_at_a_gc_grace() {
    let mut o = options("oa");
    o.partitions = 20;
    let t = build(&o, 1);
    let scan = tombstone_scan(&t.metadata, t.data());
    assert_eq!(scan.newest_local_deletion_time_secs(), Some(BASE_SECS));
    let from_items = tombstone_scan_from_items(&t.metadata, t.data());
    let stats = t
        .metadata
        .statistics
        .as_ref()
        .and_then(|s| s.stats.as_ref());
    for (now, gc) in [
        (BASE_SECS, 0),
        (BASE_SECS + 43_200, 3_600),
        (BASE_SECS + 43_200, 864_000),
        (BASE_SECS + 100_000, 50_000),
    ] {
        let want = expected_counts(&o, now).unwrap();
        let gc_before = now - gc;
        let ldts: Vec<i64> = want
            .iter()
            .flat_map(|e| e.tombstone_ldts_secs.clone())
            .collect();
        let expiries: Vec<i64> = want
            .iter()
            .flat_map(|e| e.cell_expiries_secs.clone())
            .collect();
        let r = scan.report("t", gc, Some(now), stats);
        assert_eq!(from_items.report("t", gc, Some(now), stats), r);
        assert_eq!(r.gc_before_secs, gc_before);
        assert_eq!(r.tombstones.total, ldts.len() as u64);
        let droppable = ldts.iter().filter(|t| **t < gc_before).count() as u64;
        assert_eq!(r.tombstones.droppable, droppable, "now {now} gc {gc}");
        assert_eq!(
            r.tombstones.not_yet_droppable,
            ldts.len() as u64 - droppable
        );
        assert_eq!(r.tombstones.invalid_local_deletion_time, 0);
        assert_eq!(r.ttl_cells.total, expiries.len() as u64);
        assert_eq!(
            r.ttl_cells.expired,
            expiries.iter().filter(|t| **t <= now).count() as u64
        );
        assert_eq!(
            r.ttl_cells.expired_droppable,
            expiries.iter().filter(|t| **t < gc_before).count() as u64
        );
        // The timeline holds every event after now, once.
        let tl_drops: u64 = r.timeline.iter().map(|b| b.tombstones_droppable).sum();
        let tl_expiries: u64 = r.timeline.iter().map(|b| b.ttl_cells_expiring).sum();
        assert_eq!(tl_drops, r.tombstones.not_yet_droppable);
        assert_eq!(tl_expiries, r.ttl_cells.live);
        assert!(r
            .timeline
            .windows(2)
            .all(|w| w[0].to_secs == w[1].from_secs));
        if r.tombstones.not_yet_droppable > 0 {
            assert_eq!(r.tombstones.all_droppable_at_secs, Some(BASE_SECS + gc + 1));
        }
        let s = r.statistics.as_ref().unwrap();
        assert_eq!(
            s.counted_droppable,
            droppable + r.ttl_cells.expired_droppable
        );
        assert_eq!(s.counted_cells, want.iter().map(|e| e.cells).sum::<u64>());
    }
    // Without a now: the newest tombstone local deletion time, said so.
    let r = scan.report("t", 0, None, stats);
    assert_eq!(r.now_secs, BASE_SECS);
    assert_eq!(r.now_source, analytics::NowSource::NewestLocalDeletionTime);
}

/// Three SSTables of one table: C (oldest) and A (newest) hold only TTL data that has expired;
/// B, between them, holds live data. B blocks A (B.minTimestamp ≤ A.maxTimestamp) but not C.
#[test]
fn expired_sstables_and_their_blockers() {
    let hour = 3_600_000_000i64;
    let make = |generation: u64, base: i64, expiring: bool, seed: u64| {
        let mut o = GenerateOptions::new(Version::parse(Format::Big, "oa").unwrap(), 20, 4);
        o.seed = seed;
        o.base_timestamp_micros = base;
        o.ttl_range_secs = (60, 600);
        if expiring {
            o.ttl_fraction = 1.0;
            o.static_ttl_fraction = 1.0;
        }
        build(&o, generation)
    };
    let c = make(1, BASE_MICROS, true, 1);
    let b = make(2, BASE_MICROS + hour, false, 2);
    let a = make(3, BASE_MICROS + 2 * hour, true, 3);
    let now = BASE_SECS + 3 * 3_600;
    let list = vec![
        ("c".to_owned(), &c.metadata),
        ("b".to_owned(), &b.metadata),
        ("a".to_owned(), &a.metadata),
    ];
    let r = table_report(&list, 0, Some(now));
    let by = |n: &str| r.sstables.iter().find(|s| s.sstable == n).unwrap();
    assert_eq!(
        by("b").max_local_deletion_time_secs,
        None,
        "live data never expires"
    );
    assert!(by("a").max_local_deletion_time_secs.unwrap() <= BASE_SECS + 2 * 3_600 + 600);
    assert!(by("a").expiry_candidate && by("c").expiry_candidate && !by("b").expiry_candidate);
    assert_eq!(r.fully_expired, vec!["c".to_owned()]);
    assert_eq!(r.blocked, vec!["a".to_owned()]);
    let blockers = &by("a").blocked_by;
    assert_eq!(blockers.len(), 1);
    assert_eq!(blockers[0].sstable, "b");
    assert!(blockers[0].overlaps);
    assert!(by("c").blocked_by.is_empty());
    assert_eq!(
        r.overlaps.len(),
        3,
        "random Murmur3 keys: every pair overlaps"
    );
    // A gc grace that reaches back before A's expiries: nothing is a candidate.
    let r = table_report(&list, 3 * 3_600, Some(now));
    assert!(r.fully_expired.is_empty() && r.blocked.is_empty());
    // Default now: the newest finite maxLocalDeletionTime (A's), named.
    let r = table_report(&list, 0, None);
    assert_eq!(r.now_source, analytics::NowSource::NewestLocalDeletionTime);
    assert_eq!(Some(r.now_secs), by("a").max_local_deletion_time_secs);
}

/// A fixture directory's SSTables: (prefix, metadata, Data.db bytes).
fn load_dir(dir: &Path) -> Vec<(String, SSTableMetadata, Vec<u8>)> {
    let (names, grouping) = sstables::grouped_dir(dir);
    grouping
        .sstables
        .iter()
        .map(|s| {
            let (contents, m) = sstables::read_sstable(&names, s);
            let data = contents
                .iter()
                .find(|(c, _)| *c == ComponentType::Data)
                .map(|(_, b)| b.clone())
                .unwrap_or_default();
            (s.prefix.clone(), m, data)
        })
        .collect()
}

#[test]
fn fixture_range_tombstones_and_invalid_deletion_times() {
    let Some(fx) =
        common::cassandra_fixtures("fixture_range_tombstones_and_invalid_deletion_times")
    else {
        return;
    };
    // mc inaccurate_min_max: 1 partition (k = 100), 2 RT markers, 1 row with v = 4.
    let dir = common::legacy_dir(&fx, "mc", "legacy_mc_inaccurate_min_max");
    let [(_, m, data)] = <[_; 1]>::try_from(load_dir(&dir)).ok().unwrap();
    let p = partitions(&m, &data, 0);
    assert_eq!(p.len(), 1);
    let (key, s) = &p[0];
    assert_eq!(key, &vec![0, 0, 0, 100]);
    assert_eq!(s.key, "100");
    assert_eq!((s.rows, s.cells, s.tombstones.range), (1, 1, 2));
    assert_eq!(s.tombstones.total(), 2);

    // negative-ldts: tombstones with local deletion time −1 are counted by kind, reported as
    // invalid, and neither droppable nor pending.
    let base = fx
        .join("other")
        .join("negative-ldts-invalid-deletions-test");
    let cases = [
        // (table, partition 22's rows, its tombstones [partition, row, range, complex, cell])
        ("invalid_partition_deletion", 0u64, [1u64, 0, 0, 0, 0]),
        ("invalid_range_tombstone_compaction", 1, [0, 0, 2, 0, 0]),
        ("invalid_tombstones", 1, [0, 0, 0, 0, 1]),
        ("invalid_range_tombstone_reader", 100, [0, 0, 2, 0, 0]),
    ];
    for (table, rows, kinds) in cases {
        let [(_, m, data)] = <[_; 1]>::try_from(load_dir(&base.join(table)))
            .ok()
            .unwrap();
        let p = partitions(&m, &data, 2_000_000_000);
        let (_, s) = p
            .iter()
            .find(|(k, _)| k == &vec![0, 0, 0, 22])
            .unwrap_or_else(|| panic!("{table}: no partition 22"));
        let t = s.tombstones;
        assert_eq!(s.rows, rows, "{table}");
        assert_eq!(
            [t.partition, t.row, t.range, t.complex, t.cell],
            kinds,
            "{table}"
        );
        let others: u64 = p
            .iter()
            .filter(|(k, _)| k != &vec![0, 0, 0, 22])
            .map(|(_, s)| s.tombstones.total())
            .sum();
        assert_eq!(others, 0, "{table}: only partition 22 has tombstones");
        let stats = m.statistics.as_ref().and_then(|s| s.stats.as_ref());
        let r = tombstone_scan(&m, &data).report(table, 0, Some(2_000_000_000), stats);
        let total: u64 = kinds.iter().sum();
        assert_eq!(r.tombstones.total, total, "{table}");
        assert_eq!(r.tombstones.invalid_local_deletion_time, total, "{table}");
        assert_eq!(
            (r.tombstones.droppable, r.tombstones.not_yet_droppable),
            (0, 0),
            "{table}"
        );
    }
}

#[test]
fn fixture_ttl_overflow_is_reported_not_expired() {
    let Some(fx) = common::cassandra_fixtures("fixture_ttl_overflow_is_reported_not_expired")
    else {
        return;
    };
    // Written 2018-02-02 with TTL 630,720,000 s: expiries in 2038, past i32.
    let written = 1_517_529_600i64; // 2018-02-02T00:00:00Z
    let ttl = 630_720_000i64;
    for table in ["table1", "table2", "table3", "table4"] {
        let dir = fx
            .join("other")
            .join("negative-local-expiration-test")
            .join(table);
        let [(_, m, data)] = <[_; 1]>::try_from(load_dir(&dir)).ok().unwrap();
        let stats = m.statistics.as_ref().and_then(|s| s.stats.as_ref());
        let r = tombstone_scan(&m, &data).report(table, 864_000, Some(2_000_000_000), stats);
        assert!(r.ttl_cells.total > 0, "{table}");
        assert_eq!(
            r.ttl_cells.overflowed_expiration, r.ttl_cells.total,
            "{table}"
        );
        assert_eq!(r.ttl_cells.expired, 0, "{table}: 2038 is after now");
        let last = r.ttl_cells.last_expiry_secs.unwrap();
        assert!(last > i64::from(i32::MAX), "{table}: expiry read as meant");
        assert!(
            (written + ttl..written + ttl + 86_400).contains(&last),
            "{table}: {last}"
        );
        let p = partitions(&m, &data, 2_000_000_000);
        assert_eq!(p.len(), 2, "{table}: keys 1 and 2");
        let ttl_cells: u64 = p.iter().map(|(_, s)| s.ttl_cells).sum();
        assert_eq!(ttl_cells, r.ttl_cells.total, "{table}");
        assert_eq!(p.iter().map(|(_, s)| s.expired_ttl_cells).sum::<u64>(), 0);
    }
}

#[test]
fn fixture_clust_tables_and_pre_3_0_refusal() {
    let Some(fx) = common::cassandra_fixtures("fixture_clust_tables_and_pre_3_0_refusal") else {
        return;
    };
    for v in ["ma", "nb", "oa", "da"] {
        let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_clust"));
        let [(_, m, data)] = <[_; 1]>::try_from(load_dir(&dir)).ok().unwrap();
        let p = partitions(&m, &data, 0);
        let keys: Vec<&str> = p.iter().map(|(_, s)| s.key.as_str()).collect();
        assert_eq!(keys, ["0", "1", "2", "3", "4"], "{v}");
        for (_, s) in &p {
            assert_eq!(
                (s.rows, s.cells, s.tombstones.total(), s.ttl_cells),
                (50, 50, 0, 0),
                "{v}"
            );
        }
        // Partitions tile Data.db.
        let total: u64 = p.iter().map(|(_, s)| s.bytes).sum();
        let len = match &m.compression {
            Some(ci) => ci.data_length_bytes.value,
            None => data.len() as u64,
        };
        assert_eq!(total, len, "{v}");
    }
    // ka (pre-3.0 cell layout): refused with a reason, never miscounted.
    for table in [
        "legacy_ka_14912",
        "legacy_ka_indexed",
        "legacy_ka_repeated_rt",
    ] {
        let dir = common::legacy_dir(&fx, "ka", table);
        for (_, m, _) in load_dir(&dir) {
            let e = analytics::data_reader(&m).err().unwrap().to_string();
            assert!(e.contains("pre-3.0"), "{table}: {e}");
        }
    }
}

/// The benches' limit and their in-memory source (`compress::decompress_all_chunks`,
/// `SliceSource`): every chunk of a generated LZ4 Data.db decompresses to its whole
/// uncompressed length; the decode-only scan over the bytes in memory counts the model's rows
/// and cells; a truncated copy decompresses less and fails the scan instead of reading past it.
#[test]
fn whole_file_decompression_and_the_in_memory_scan_match_the_model() {
    use sstable_engine::component::data::{DataFileReader, DecodeOptions, ScanCounts};
    use sstable_engine::compress::decompress_all_chunks;
    let o = options("oa");
    assert_eq!(o.compression, Some(Compressor::Lz4));
    let t = build(&o, 1);
    let ci = t.metadata.compression.as_ref().unwrap();
    let mut out = Vec::new();
    assert_eq!(
        decompress_all_chunks(ci, t.data(), &mut out),
        ci.data_length_bytes.value
    );
    assert!(ci.chunk_offsets.len() > 1, "the file spans several chunks");
    let half = &t.data()[..t.data().len() / 2];
    assert!(decompress_all_chunks(ci, half, &mut out) < ci.data_length_bytes.value);

    let want = expected_counts(&o, BASE_SECS).unwrap();
    let mut reader = DataFileReader::for_sstable(&t.metadata, DecodeOptions::default()).unwrap();
    let scan = |reader: &mut DataFileReader, data: &[u8]| {
        let files = [(ComponentType::Data, data)];
        let mut c = ScanCounts::default();
        SyncDriver::new(SliceSource { files: &files })
            .visit_all(reader, &mut c, &NoClock)
            .map(|()| c)
    };
    let c = scan(&mut reader, t.data()).unwrap();
    assert_eq!(c.partitions, want.len() as u64);
    assert_eq!(c.rows, want.iter().map(|e| e.rows).sum::<u64>());
    assert_eq!(c.cells, want.iter().map(|e| e.cells).sum::<u64>());
    let mut reader = DataFileReader::for_sstable(&t.metadata, DecodeOptions::default()).unwrap();
    assert!(scan(&mut reader, half).is_err());
}

/// One range of a split partitions pass: its collector, where it stopped, its reading.
fn partitions_of_range(
    t: &Table,
    range: ScanRange,
    now_secs: i64,
) -> (PartitionsCollector, u64, bool) {
    let (mut reader, key_type) = analytics::data_reader(&t.metadata).unwrap();
    reader.scan_range(range, false).unwrap();
    let mut scan = PartitionScan::new(key_type, t.metadata.partitioner(), now_secs);
    let mut collector = PartitionsCollector::new(
        PartitionFilter::default(),
        Some((5, PartitionColumn::Cells)),
    );
    let files = [(ComponentType::Data, t.data())];
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    while let VisitStep::Visited = driver.visit_next(&mut reader, &mut scan, &NoClock).unwrap() {
        if let Some((key, p)) = scan.take_finished() {
            collector.add(&key, p);
        }
    }
    let frozen = reader.decoder().reads_bare_udts_as_frozen();
    (collector, reader.position(), frozen)
}

#[test]
fn split_ranges_cut_at_partition_starts_and_merge_to_the_sequential_report() {
    for compression in [Some(Compressor::Lz4), None] {
        let mut o = options("oa");
        o.partitions = 40;
        o.rows_per_partition = 25;
        o.chunk_kib = Some(4);
        o.compression = compression;
        let t = build(&o, 1);
        let now = BASE_SECS + 3600;
        let sequential = partitions(&t.metadata, t.data(), now);
        let starts: Vec<u64> = sequential.iter().map(|(_, p)| p.position).collect();
        let data_len = sstable_engine::analytics::data_len_bytes(&t.metadata).unwrap();
        let sources: Vec<(ComponentType, &[u8])> = t
            .files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let mut driver = SyncDriver::new(SliceSource { files: &sources });
        let ranges = split_ranges(&t.metadata, &mut driver, 6, &NoClock);
        // Six ranges over 40 partitions of equal shape: every target finds its own partition,
        // each cut is a partition start, the ranges tile the data.
        assert_eq!(ranges.len(), 6, "{ranges:?}");
        assert_eq!(ranges[0].start, 0);
        assert_eq!(ranges[5].end, data_len);
        for w in ranges.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(
                starts.contains(&w[1].start),
                "{} is no partition start",
                w[1].start
            );
        }
        // A target falls inside a partition (it straddles the even cut): the cut is its end.
        let straddles = (1..6u64).any(|k| !starts.contains(&(data_len * k / 6)));
        assert!(straddles);
        let mut merged: Option<PartitionsCollector> = None;
        for (i, &r) in ranges.iter().enumerate() {
            let (c, stopped_at, frozen) = partitions_of_range(&t, r, now);
            match ranges.get(i + 1) {
                Some(next) => assert!(
                    r.followed_by(stopped_at, frozen, next),
                    "{r:?} {stopped_at}"
                ),
                None => assert_eq!(stopped_at, data_len),
            }
            match &mut merged {
                Some(m) => m.merge(c),
                None => merged = Some(c),
            }
        }
        let mut whole = PartitionsCollector::new(
            PartitionFilter::default(),
            Some((5, PartitionColumn::Cells)),
        );
        for (key, p) in sequential {
            whole.add(&key, p);
        }
        let (top, summary) = merged.unwrap().finish();
        let (want_top, want_summary) = whole.finish();
        assert_eq!(top, want_top);
        assert_eq!(summary, want_summary);
        assert_eq!(summary.partitions, 40);
        // A cut that is not a partition start does not hold: the range before it runs past it.
        let bad = ScanRange {
            start: 0,
            end: starts[3] + 1,
        };
        let (_, stopped_at, frozen) = partitions_of_range(&t, bad, now);
        assert_eq!(stopped_at, starts[4]);
        let after = ScanRange {
            start: starts[3] + 1,
            end: data_len,
        };
        assert!(!bad.followed_by(stopped_at, frozen, &after));
    }
}

/// The 2.x pass over a ka SSTable in memory: every partition's figures, and the tombstone scan.
fn legacy_partitions(m: &SSTableMetadata, data: &[u8]) -> (Vec<PartitionStats>, TombstoneScan) {
    let mut reader = analytics::legacy_data_reader(m).unwrap();
    let mut scan = analytics::LegacyScan::new(m.partitioner(), 0);
    let files = [(ComponentType::Data, data)];
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    let mut out = Vec::new();
    analytics::scan_legacy(&mut reader, &mut driver, &mut scan, &NoClock, |_, p| {
        out.push(p)
    })
    .unwrap();
    (out, scan.tombstones)
}

#[test]
fn fixture_ka_tables_are_counted_as_the_manifest_describes_them() {
    let Some(fx) = common::cassandra_fixtures("fixture_ka_tables_are_counted") else {
        return;
    };
    // MANIFEST §3: 5 partitions ("0".."4") × 50 rows (clust) or × 1 row (simple), one value
    // column; all live, no tombstones, no TTLs. §5: legacy_ka_indexed 1 partition of 5000 rows;
    // legacy_ka_14873 1 partition with a static sc and 5 rows (rc): 6 cells.
    for (table, partitions, rows, cells) in [
        ("legacy_ka_clust", 5, 50, Some(50)),
        ("legacy_ka_simple", 5, 1, Some(1)),
        ("legacy_ka_indexed", 1, 5000, None),
        ("legacy_ka_14873", 1, 5, Some(6)),
    ] {
        let dir = common::legacy_dir(&fx, "ka", table);
        let [(_, m, data)] = <[_; 1]>::try_from(load_dir(&dir)).ok().unwrap();
        let (p, tombstones) = legacy_partitions(&m, &data);
        assert_eq!(p.len(), partitions, "{table}");
        for s in &p {
            assert_eq!(s.rows, rows, "{table}");
            if let Some(cells) = cells {
                assert_eq!(s.cells, cells, "{table}");
            }
            assert_eq!((s.tombstones.total(), s.ttl_cells), (0, 0), "{table}");
        }
        if partitions == 5 {
            let keys: Vec<&[u8]> = p.iter().map(|s| s.key_hex.as_bytes()).collect();
            // "0".."4" as bytes, in Index.db order.
            assert_eq!(keys, [b"30", b"31", b"32", b"33", b"34"], "{table}");
        }
        // Partitions tile Data.db.
        let len = match &m.compression {
            Some(ci) => ci.data_length_bytes.value,
            None => data.len() as u64,
        };
        assert_eq!(p.iter().map(|s| s.bytes).sum::<u64>(), len, "{table}");
        let r = tombstones.report(table, 0, Some(0), None);
        assert_eq!((r.tombstones.total, r.ttl_cells.total), (0, 0), "{table}");
    }
}

/// The page's Analytics pass split anywhere — at the index's partition starts, or at even cuts
/// that fall inside partitions (the range before runs past its end, the seam fails and the rest
/// is scanned as one range) — and merged in file order gives the sequential pass's figures, in
/// any order the ranges arrive, after crossing a worker boundary (serde); those figures are the
/// generator's model.
#[test]
fn the_analytics_pass_split_anywhere_merges_to_the_sequential_pass() {
    use sstable_engine::analytics::pass::scan_range;
    use sstable_engine::analytics::{merge_in_order, RangeFigures};
    for (version, compression) in [("oa", Some(Compressor::Lz4)), ("nb", None)] {
        let mut o = options(version);
        o.partitions = 40;
        o.rows_per_partition = 25;
        o.chunk_kib = Some(4);
        o.compression = compression;
        let t = build(&o, 1);
        let (now, _) = analytics::default_now(&t.metadata);
        let want = expected_counts(&o, now).unwrap();
        let sources: Vec<(ComponentType, &[u8])> = t
            .files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let data_len = analytics::data_len_bytes(&t.metadata).unwrap();
        let scan = |range: ScanRange, frozen: bool| {
            let mut driver = SyncDriver::new(SliceSource { files: &sources });
            let r = scan_range(&t.metadata, &mut driver, range, frozen, 10, &NoClock);
            // Across a worker boundary and back.
            let json = serde_json::to_string(&r).unwrap();
            let back: RangeFigures = serde_json::from_str(&json).unwrap();
            assert_eq!(back, r);
            back
        };
        let whole = scan(
            ScanRange {
                start: 0,
                end: data_len,
            },
            false,
        );
        assert_eq!(whole.error, None);
        assert_eq!(whole.stopped_at, data_len);
        let sequential = whole.figures.unwrap();
        let (want_top, want_summary) = sequential.collector.clone().finish();
        // The sequential figures are the model's.
        let sum = |f: fn(&ExpectedPartition) -> u64| want.iter().map(f).sum::<u64>();
        assert_eq!(want_summary.partitions, 40);
        assert_eq!(want_summary.rows.total, sum(|e| e.rows));
        assert_eq!(want_summary.cells.total, sum(|e| e.cells));
        assert_eq!(
            want_summary.tombstones.total,
            sum(|e| e.tombstones.partition
                + e.tombstones.row
                + e.tombstones.range
                + e.tombstones.complex
                + e.tombstones.cell)
        );
        assert_eq!(want_summary.ttl_cells, sum(|e| e.ttl_cells));
        assert_eq!(want_summary.expired_ttl_cells, sum(|e| e.expired_ttl_cells));
        assert_eq!(want_top.len(), 10);
        let stats = t
            .metadata
            .statistics
            .as_ref()
            .and_then(|s| s.stats.as_ref());
        let want_report = sequential.tombstones.report("t", 3600, None, stats);
        assert_eq!(want_report.tombstones.total, want_summary.tombstones.total);

        let starts: Vec<u64> = {
            let mut s: Vec<u64> = Vec::new();
            let (mut reader, key_type) = analytics::data_reader(&t.metadata).unwrap();
            let mut p = PartitionScan::new(key_type, t.metadata.partitioner(), now);
            let mut driver = SyncDriver::new(SliceSource { files: &sources });
            while let VisitStep::Visited = driver.visit_next(&mut reader, &mut p, &NoClock).unwrap()
            {
                s.extend(p.take_finished().map(|(_, p)| p.position));
            }
            s
        };
        let even = |n: u64| -> Vec<ScanRange> {
            (0..n)
                .map(|k| ScanRange {
                    start: data_len * k / n,
                    end: data_len * (k + 1) / n,
                })
                .collect()
        };
        let by_index = |n: usize| {
            let mut driver = SyncDriver::new(SliceSource { files: &sources });
            split_ranges(&t.metadata, &mut driver, n, &NoClock)
        };
        let cuts = [by_index(2), by_index(5), even(3), even(7)];
        assert_eq!(cuts[0].len(), 2);
        assert_eq!(cuts[1].len(), 5);
        let mut rests = 0;
        for ranges in cuts {
            let straddles = ranges.iter().skip(1).any(|r| !starts.contains(&r.start));
            // Results arrive last range first.
            let results: Vec<(usize, RangeFigures)> = ranges
                .iter()
                .enumerate()
                .rev()
                .map(|(i, &r)| (i, scan(r, false)))
                .collect();
            let mut merged = merge_in_order(&ranges, results);
            assert_eq!(merged.error, None, "{ranges:?}");
            assert_eq!(merged.rest.is_some(), straddles, "{ranges:?}");
            if let Some((start, frozen)) = merged.rest {
                rests += 1;
                let rest = scan(
                    ScanRange {
                        start,
                        end: data_len,
                    },
                    frozen,
                );
                assert_eq!(rest.error, None);
                merged
                    .figures
                    .as_mut()
                    .unwrap()
                    .merge(rest.figures.unwrap());
            }
            let figures = merged.figures.unwrap();
            assert_eq!(figures.tombstones, sequential.tombstones, "{ranges:?}");
            let (top, summary) = figures.collector.clone().finish();
            assert_eq!(top, want_top, "{ranges:?}");
            assert_eq!(summary, want_summary, "{ranges:?}");
            assert_eq!(
                figures.tombstones.report("t", 3600, None, stats),
                want_report
            );
        }
        // The even cuts fell inside partitions at least once.
        assert!(rests >= 1);
        // A range that fails ends the merge with its error, as the sequential pass does.
        let ranges = even(2);
        let failed = RangeFigures {
            figures: None,
            error: Some("boom at 0x10".to_owned()),
            stopped_at: 16,
            frozen_udts: false,
            bytes_read: 0,
        };
        let merged = merge_in_order(&ranges, [(0, failed), (1, scan(ranges[1], false))]);
        assert_eq!(merged.error.as_deref(), Some("boom at 0x10"));
        assert_eq!(merged.figures, None);
        // A missing result: the rest starts at its range's start.
        let ranges = by_index(2);
        let merged = merge_in_order(&ranges, [(0, scan(ranges[0], false))]);
        assert_eq!(merged.rest, Some((ranges[1].start, false)));
    }
}

/// Every 3.0+ fixture SSTable: the Analytics pass split at the index's partition starts into 2,
/// 3 and 5 ranges and merged in file order ([`analytics::merge_in_order`], the rest scanned past
/// a failed seam) gives the sequential pass's figures — or, where the sequential pass stops at
/// an error, the same error.
#[test]
fn the_analytics_pass_split_over_every_fixture_merges_to_the_sequential_pass() {
    use sstable_engine::analytics::pass::scan_range;
    use sstable_engine::analytics::{merge_in_order, RangeFigures};
    let Some(fx) = common::cassandra_fixtures(
        "the_analytics_pass_split_over_every_fixture_merges_to_the_sequential_pass",
    ) else {
        return;
    };
    let (names, grouping) = sstables::grouped_dir(&fx);
    let (mut compared, mut split, mut failing) = (0, 0, 0);
    for s in &grouping.sstables {
        if !s.descriptor.version.has_row_format() {
            continue;
        }
        let (contents, m) = sstables::read_sstable(&names, s);
        if analytics::data_reader(&m).is_err() {
            continue;
        }
        let Some(data_len) = analytics::data_len_bytes(&m) else {
            continue;
        };
        let sources: Vec<(ComponentType, &[u8])> = contents
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let scan = |range: ScanRange, frozen: bool| -> RangeFigures {
            let mut driver = SyncDriver::new(SliceSource { files: &sources });
            scan_range(&m, &mut driver, range, frozen, 10, &NoClock)
        };
        let whole = scan(
            ScanRange {
                start: 0,
                end: data_len,
            },
            false,
        );
        compared += 1;
        failing += usize::from(whole.error.is_some());
        for count in [2, 3, 5] {
            let ranges = {
                let mut driver = SyncDriver::new(SliceSource { files: &sources });
                split_ranges(&m, &mut driver, count, &NoClock)
            };
            split += usize::from(ranges.len() > 1);
            let results: Vec<(usize, RangeFigures)> = ranges
                .iter()
                .enumerate()
                .map(|(i, &r)| (i, scan(r, false)))
                .collect();
            let mut merged = merge_in_order(&ranges, results);
            if let Some((start, frozen)) = merged.rest.take() {
                let rest = scan(
                    ScanRange {
                        start,
                        end: data_len,
                    },
                    frozen,
                );
                merged.error = rest.error;
                match (&mut merged.figures, rest.figures) {
                    (Some(f), Some(r)) if merged.error.is_none() => f.merge(r),
                    _ => merged.figures = None,
                }
            }
            let what = format!("{} in {count} ranges {ranges:?}", s.prefix);
            assert_eq!(merged.error, whole.error, "{what}");
            if whole.error.is_some() {
                continue;
            }
            let (got, want) = (merged.figures.unwrap(), whole.figures.clone().unwrap());
            assert_eq!(got.tombstones, want.tombstones, "{what}");
            assert_eq!(got.collector.finish(), want.collector.finish(), "{what}");
        }
    }
    // The fixtures hold dozens of 3.0+ SSTables, many of several partitions.
    assert!(compared >= 20, "{compared} SSTables compared");
    assert!(split >= 10, "{split} splits of more than one range");
    eprintln!("{compared} fixture SSTables compared ({failing} failing sequentially), {split} splits of more than one range");
}
