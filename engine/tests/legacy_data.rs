//! Pre-3.0 Data.db (`jb`, `ka`, `la`) against Cassandra's real fixtures (MANIFEST.md §3, §5):
//! atoms by kind per partition, cell names, values, counters, range tombstones, rows grouped as
//! 3.0 reads them, bounded windows, and a truncation / byte-flip sweep.

use crate::common;

use std::path::{Path, PathBuf};

use sstable_engine::clock::NoClock;
use sstable_engine::component::compression_info::{self, CompressionInfo};
use sstable_engine::component::data::{
    DataFileReader, DataItem, DataSchema, DecodeOptions, DecodeStep, DeltaBase, PushDecoder,
};
use sstable_engine::component::legacy_data::{
    says_compact_storage, AtomCounts, AtomPartitionJson, AtomsBuilder, LegacyDataDecoder,
    LegacyDataFileReader, LegacyItem, LegacyLayout, LegacyStep, RowGrouper,
};
use sstable_engine::component::ComponentType;
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::cql_schema::parse_create_table;
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::dump::PartitionJson;
use sstable_engine::range::{RangeReader, SliceSource, SyncDriver};
use sstable_engine::span::hex;
use sstable_engine::types::AbstractType;
use sstable_engine::{Error, Version};

fn component(dir: &Path, suffix: &str, generation: Option<&str>) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(suffix) && generation.is_none_or(|g| n.contains(&format!("-{g}-")))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// One SSTable's uncompressed Data.db.
struct Table {
    version: Version,
    /// Uncompressed bytes.
    data: Vec<u8>,
    compression: Option<CompressionInfo>,
    /// Bytes of the file as stored.
    stored_len: usize,
}

/// Decompresses every chunk with the engine's codec, checking each chunk's Adler32 (jb/ka/la).
fn load(dir: &Path, generation: Option<&str>) -> Table {
    let data_path = component(dir, "-Data.db", generation).expect("a Data.db");
    let name = data_path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (descriptor, _) = parse_file_name(&name).unwrap();
    let version = descriptor.version;
    assert!(
        !version.has_row_format() && version.uses_adler32(),
        "{name}"
    );
    let stored = std::fs::read(&data_path).unwrap();
    let compression = component(dir, "-CompressionInfo.db", generation)
        .map(|p| compression_info::decode(&std::fs::read(p).unwrap(), &version).unwrap());
    let data = match &compression {
        None => stored.clone(),
        Some(ci) => {
            let compressor = Compressor::from_class_name(&ci.compressor);
            let mut out = Vec::new();
            let mut chunk = Vec::new();
            for i in 0..ci.chunk_offsets.len() {
                let (start, end) = ci.chunk_span(i, stored.len() as u64).unwrap();
                let bytes = &stored[start as usize..end as usize];
                let (body, sum) = bytes.split_at(bytes.len() - 4);
                assert_eq!(
                    {
                        let mut a = adler32::RollingAdler32::new();
                        a.update_buffer(body);
                        a.hash()
                    },
                    u32::from_be_bytes(sum.try_into().unwrap()),
                    "{name} chunk {i}: Adler32"
                );
                let expected = ci.chunk_uncompressed_len(i).unwrap() as usize;
                decompress_chunk(&compressor, body, expected, &mut chunk).unwrap();
                out.extend_from_slice(&chunk);
            }
            out
        }
    };
    Table {
        version,
        data,
        stored_len: stored.len(),
        compression,
    }
}

/// What a test keeps of one partition.
#[derive(Debug)]
struct Partition {
    key: Vec<u8>,
    counts: AtomCounts,
    atoms: AtomPartitionJson,
    rows: Option<PartitionJson>,
}

/// Decodes `data`, pushing `push_bytes` at a time; the largest window seen is returned too.
fn decode(
    data: &[u8],
    version: Version,
    layout: &LegacyLayout,
    push_bytes: usize,
) -> Result<(Vec<Partition>, usize), Error> {
    let mut dec = LegacyDataDecoder::new(version, DecodeOptions::default());
    let mut atoms = AtomsBuilder::new(layout.clone());
    let mut rows = RowGrouper::new(layout.clone(), None);
    let mut out = Vec::new();
    let mut pushed = 0;
    let mut max_window = 0;
    let mut key = Vec::new();
    loop {
        match dec.next_item()? {
            LegacyStep::Finished => break,
            LegacyStep::NeedMoreData => {
                assert!(!dec.is_input_finished(), "NeedMoreData after finish");
                let end = (pushed + push_bytes).min(data.len());
                dec.push(&data[pushed..end]);
                pushed = end;
                if pushed == data.len() {
                    dec.finish();
                }
                max_window = max_window.max(dec.window_bytes());
            }
            LegacyStep::Item(item) => {
                if let LegacyItem::PartitionStart(p) = &item {
                    key = p.key.bytes.bytes.clone();
                }
                let counts = match &item {
                    LegacyItem::PartitionEnd(e) => Some(e.atom_counts),
                    _ => None,
                };
                let grouped = rows.push(&item);
                if let Some(a) = atoms.push(&item) {
                    out.push(Partition {
                        key: std::mem::take(&mut key),
                        counts: counts.unwrap(),
                        atoms: a,
                        rows: grouped,
                    });
                }
            }
        }
    }
    Ok((out, max_window))
}

fn fixtures(test: &str) -> Option<PathBuf> {
    common::cassandra_fixtures(test)
}

fn table_dir(fx: &Path, version: &str, table: &str) -> PathBuf {
    common::legacy_dir(fx, version, table)
}

const VERSIONS: [&str; 3] = ["jb", "ka", "la"];

fn layout_for(statement: &str) -> LegacyLayout {
    LegacyLayout::from_cql(
        &parse_create_table(statement).unwrap(),
        says_compact_storage(statement),
    )
    .unwrap()
}

fn long_clustering(i: usize) -> String {
    format!("{i}{}", "0123456789".repeat(120))
}

/// The 50 clustering values in UTF-8 order, as Data.db holds them.
fn sorted_clusterings() -> Vec<String> {
    let mut v: Vec<String> = (0..50).map(long_clustering).collect();
    v.sort();
    v
}

/// (table suffix, CREATE TABLE body, compact, counter, clustering).
const GENERATED: [(&str, &str); 8] = [
    ("simple", "(pk text PRIMARY KEY, val text)"),
    ("simple_counter", "(pk text PRIMARY KEY, val counter)"),
    (
        "clust",
        "(pk text, ck text, val text, PRIMARY KEY (pk, ck))",
    ),
    (
        "clust_counter",
        "(pk text, ck text, val counter, PRIMARY KEY (pk, ck))",
    ),
    (
        "simple_compact",
        "(pk text PRIMARY KEY, val text) WITH COMPACT STORAGE",
    ),
    (
        "simple_counter_compact",
        "(pk text PRIMARY KEY, val counter) WITH COMPACT STORAGE",
    ),
    (
        "clust_compact",
        "(pk text, ck text, val text, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE",
    ),
    (
        "clust_counter_compact",
        "(pk text, ck text, val counter, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE",
    ),
];

/// MANIFEST §3 for jb, ka, la: keys "0"…"4", 1 or 50 rows per partition, clustering values in
/// UTF-8 order, `val` = "foo bar baz" or one 128-char lowercase string, counters = 1 (one
/// shard), atoms by kind per partition, the compact variants.
#[test]
fn generated_tables_match_the_manifest() {
    let Some(fx) = fixtures("generated_tables_match_the_manifest") else {
        return;
    };
    let sorted = sorted_clusterings();
    for v in VERSIONS {
        for (suffix, body) in GENERATED {
            let name = format!("legacy_{v}_{suffix}");
            let statement = format!("CREATE TABLE {name} {body}");
            let layout = layout_for(&statement);
            let t = load(&table_dir(&fx, v, &name), None);
            let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let keys: Vec<&[u8]> = parts.iter().map(|p| p.key.as_slice()).collect();
            assert_eq!(
                keys,
                [b"0", b"1", b"2", b"3", b"4"].map(|k| &k[..]),
                "{name}"
            );
            let counter = suffix.contains("counter");
            let clust = suffix.starts_with("clust");
            let compact = suffix.ends_with("compact");
            let rows_per_partition = if clust { 50 } else { 1 };
            // Non-compact, non-counter tables write a row marker before each row's cell.
            let cells_per_row = if !counter && !compact { 2 } else { 1 };
            let mut vals = std::collections::BTreeSet::new();
            for p in &parts {
                let expected = AtomCounts {
                    cell: if counter {
                        0
                    } else {
                        rows_per_partition * cells_per_row
                    },
                    counter: if counter { rows_per_partition } else { 0 },
                    ..AtomCounts::default()
                };
                assert_eq!(p.counts, expected, "{name}");
                assert_eq!(p.atoms.atom_counts, expected, "{name}");
                // Names: composite unless COMPACT STORAGE with ≤ 1 clustering column.
                for a in &p.atoms.atoms {
                    let last = a.name.last().unwrap();
                    if compact && clust {
                        assert_eq!(a.name.len(), 1, "{name}: {:?}", a.name);
                    } else if compact {
                        assert_eq!(a.name, ["val"], "{name}");
                    } else {
                        assert!(last == "val" || last.is_empty(), "{name}: {:?}", a.name);
                    }
                }
                let rows = p.rows.as_ref().unwrap();
                assert_eq!(
                    rows.partition.key,
                    [String::from_utf8(p.key.clone()).unwrap()]
                );
                assert!(rows.partition.deletion_info.is_none());
                assert_eq!(rows.rows.len(), rows_per_partition as usize, "{name}");
                for (i, row) in rows.rows.iter().enumerate() {
                    let want_type = if compact && !clust {
                        "static_block"
                    } else {
                        "row"
                    };
                    assert_eq!(row.r#type, want_type, "{name}");
                    if clust {
                        assert_eq!(row.clustering, [Some(sorted[i].clone())], "{name} row {i}");
                    } else {
                        assert!(row.clustering.is_empty());
                    }
                    // The row marker gives the liveness of non-compact, non-counter rows.
                    assert_eq!(row.liveness_info.is_some(), !counter && !compact, "{name}");
                    assert_eq!(row.cells.len(), 1, "{name}");
                    let cell = &row.cells[0];
                    assert_eq!(cell.name, "val");
                    let value = cell.value.clone().unwrap();
                    if counter {
                        assert_eq!(value, "1", "{name}");
                        assert_eq!(cell.shards.len(), 1, "{name}: {:?}", cell.shards);
                    } else if clust {
                        assert_eq!(value.len(), 128, "{name}");
                        assert!(value.bytes().all(|b| b.is_ascii_lowercase()), "{name}");
                        vals.insert(value);
                    } else {
                        assert_eq!(value, "foo bar baz", "{name}");
                    }
                }
            }
            // Every clust row of a table holds the same random string.
            assert!(vals.len() <= 1, "{name}: {vals:?}");
        }
    }
}

/// The counter shards as each version writes them: 2.0 has only local shards, 2.1+ writes a
/// global one (header `0001 8000`, MANIFEST §3).
#[test]
fn counter_shards_by_version() {
    let Some(fx) = fixtures("counter_shards_by_version") else {
        return;
    };
    for (v, kind) in [("jb", "Local"), ("ka", "Global"), ("la", "Global")] {
        let name = format!("legacy_{v}_simple_counter");
        let layout = layout_for(&format!(
            "CREATE TABLE {name} (pk text PRIMARY KEY, val counter)"
        ));
        let t = load(&table_dir(&fx, v, &name), None);
        let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16).unwrap();
        for p in &parts {
            let cell = &p.rows.as_ref().unwrap().rows[0].cells[0];
            assert!(
                cell.shards[0].starts_with(kind),
                "{name}: {:?}",
                cell.shards
            );
            assert!(
                cell.shards[0].ends_with("count 1"),
                "{name}: {:?}",
                cell.shards
            );
            assert_eq!(p.atoms.atoms[0].timestamp_of_last_delete, Some(i64::MIN));
        }
    }
}

/// Without a schema, names split by their shape and values print as text (or hex).
#[test]
fn without_a_schema_values_are_text_or_hex() {
    let Some(fx) = fixtures("without_a_schema_values_are_text_or_hex") else {
        return;
    };
    let t = load(&table_dir(&fx, "la", "legacy_la_clust"), None);
    let (parts, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
    let rows = parts[0].rows.as_ref().unwrap();
    assert_eq!(rows.rows.len(), 50);
    assert_eq!(rows.rows[0].clustering, [Some(long_clustering(0))]);
    assert_eq!(rows.rows[0].cells[0].name, "val");
    assert!(rows.rows[0].cells[0].value_note.is_none());
    let t = load(&table_dir(&fx, "ka", "legacy_ka_indexed"), None);
    let (parts, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
    let rows = parts[0].rows.as_ref().unwrap();
    assert_eq!(rows.partition.key, ["0x00000001"]);
    assert_eq!(rows.rows[1].clustering, [Some("0x00000001".to_owned())]);
    assert_eq!(rows.rows[1].cells[0].value.as_deref(), Some("0x00000001"));
    assert!(rows.rows[1].cells[0]
        .value_note
        .as_deref()
        .unwrap()
        .contains("hex"));
}

/// legacy_ka_14912 (MANIFEST §5): k = 0 has an empty set (a collection tombstone) and v2 'abc';
/// k = 1 has {'abc'} and 'abc'; every cell at 1543244999672280.
#[test]
fn ka_14912_collection_tombstones() {
    let Some(fx) = fixtures("ka_14912_collection_tombstones") else {
        return;
    };
    let layout =
        layout_for("CREATE TABLE legacy_ka_14912 (k int PRIMARY KEY, v1 set<text>, v2 text)");
    let t = load(&table_dir(&fx, "ka", "legacy_ka_14912"), None);
    let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16).unwrap();
    assert_eq!(parts.len(), 2);
    for (k, p) in parts.iter().enumerate() {
        assert_eq!(p.key, (k as i32).to_be_bytes());
        assert_eq!(
            p.counts,
            AtomCounts {
                cell: 2 + k as u64,
                range_tombstone: 1,
                ..AtomCounts::default()
            }
        );
        let rt = &p.atoms.atoms[1];
        assert_eq!(
            (rt.r#type, rt.name.as_slice()),
            ("range_tombstone", &["v1".to_owned()][..])
        );
        assert_eq!(rt.end.as_deref(), Some(&["v1".to_owned()][..]));
        assert_eq!(rt.tstamp, 1543244999672279);
        let rows = p.rows.as_ref().unwrap();
        assert_eq!(rows.partition.key, [k.to_string()]);
        assert_eq!(rows.rows.len(), 1, "{rows:?}");
        let row = &rows.rows[0];
        assert_eq!(
            row.liveness_info.as_ref().unwrap().tstamp,
            "2018-11-26T15:09:59.672280Z" // 1543244999672280 µs
        );
        type Cell<'a> = (&'a str, Option<&'a [String]>, Option<&'a str>);
        let names: Vec<Cell<'_>> = row
            .cells
            .iter()
            .map(|c| (c.name.as_str(), c.path.as_deref(), c.value.as_deref()))
            .collect();
        let abc = ["'abc'".to_owned()];
        let mut want = vec![("v1", None, None)];
        if k == 1 {
            want.push(("v1", Some(&abc[..]), None));
        }
        want.push(("v2", None, Some("abc")));
        assert_eq!(names, want);
        assert!(row.cells[0].deletion_info.is_some());
    }
}

/// legacy_ka_repeated_rt (MANIFEST §5): one partition k1 = 1, 3 rows (1, 1..3)… and the same range
/// tombstone over c1 = 1 repeated at every row-index block start: 9 copies, one bound pair.
#[test]
fn ka_repeated_range_tombstone() {
    let Some(fx) = fixtures("ka_repeated_range_tombstone") else {
        return;
    };
    let layout = layout_for(
        "CREATE TABLE legacy_ka_repeated_rt (k1 int, c1 int, c2 int, val1 text, val2 text, \
         val3 text, PRIMARY KEY (k1, c1, c2))",
    );
    let t = load(&table_dir(&fx, "ka", "legacy_ka_repeated_rt"), None);
    let (parts, _) = decode(&t.data, t.version, &layout, 4096).unwrap();
    assert_eq!(parts.len(), 1);
    let p = &parts[0];
    assert_eq!(p.key, 1i32.to_be_bytes());
    assert_eq!(
        p.counts,
        AtomCounts {
            cell: 12,
            range_tombstone: 9,
            ..AtomCounts::default()
        }
    );
    let rts: Vec<_> = p
        .atoms
        .atoms
        .iter()
        .filter(|a| a.r#type == "range_tombstone")
        .collect();
    assert!(rts
        .iter()
        .all(|a| a.name == ["1"] && a.end.as_deref() == Some(&["1".to_owned()][..])));
    let rows = p.rows.as_ref().unwrap();
    let kinds: Vec<&str> = rows.rows.iter().map(|r| r.r#type).collect();
    assert_eq!(
        kinds[..2],
        ["range_tombstone_bound", "range_tombstone_bound"]
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == "range_tombstone_bound")
            .count(),
        2
    );
    assert_eq!(
        rows.partition.findings.len(),
        8,
        "{:?}",
        rows.partition.findings
    );
    let start = rows.rows[0].start.as_ref().unwrap();
    assert_eq!(
        (start.r#type, start.clustering.as_slice()),
        ("inclusive", &[Some("1".to_owned())][..])
    );
    let data_rows: Vec<_> = rows.rows.iter().filter(|r| r.r#type == "row").collect();
    assert_eq!(data_rows.len(), 3);
    for (i, r) in data_rows.iter().enumerate() {
        assert_eq!(
            r.clustering,
            [Some("1".to_owned()), Some((i + 1).to_string())]
        );
        let names: Vec<&str> = r.cells.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["val1", "val2", "val3"]);
    }
}

/// The `_multi_block_rt` tables (MANIFEST §5): one partition k = 100 whose range tombstones span
/// row-index blocks (repeated at block starts).
#[test]
fn ka_multi_block_range_tombstones() {
    let Some(fx) = fixtures("ka_multi_block_range_tombstones") else {
        return;
    };
    let layout = layout_for(
        "CREATE TABLE t (k int, c1 int, c2 int, v1 blob, v2 blob, PRIMARY KEY (k, c1, c2))",
    );
    for (table, cells, rts) in [
        ("legacy_ka_flushed_multi_block_rt", 18, 5),
        ("legacy_ka_compacted_multi_block_rt", 21, 9),
    ] {
        let t = load(&table_dir(&fx, "ka", table), None);
        let (parts, _) = decode(&t.data, t.version, &layout, 4096).unwrap();
        assert_eq!(parts.len(), 1, "{table}");
        let p = &parts[0];
        assert_eq!(p.key, 100i32.to_be_bytes());
        assert_eq!(
            p.counts,
            AtomCounts {
                cell: cells,
                range_tombstone: rts,
                ..AtomCounts::default()
            },
            "{table}"
        );
        let rows = p.rows.as_ref().unwrap();
        let bounds = rows
            .rows
            .iter()
            .filter(|r| r.r#type == "range_tombstone_bound")
            .count();
        let repeats = rows.partition.findings.len();
        assert_eq!(bounds / 2 + repeats, rts as usize, "{table}");
        // Every row holds v1 and v2 blobs and a row marker.
        for r in rows.rows.iter().filter(|r| r.r#type == "row") {
            assert_eq!(r.clustering.len(), 2);
            assert!(r.liveness_info.is_some());
            for c in &r.cells {
                assert!(c.value.as_deref().unwrap().starts_with("0x"), "{c:?}");
            }
        }
        let first_rt = rows.rows.iter().find(|r| r.start.is_some()).unwrap();
        let start = first_rt.start.as_ref().unwrap();
        assert_eq!(start.clustering, [Some("2".to_owned())]);
        assert_eq!(
            start.deletion_info.marked_deleted,
            "1970-01-01T00:00:00.000200Z"
        );
    }
}

/// Each partition's rows grouped with an optional row limit, and the rows counted past it.
fn grouped(
    data: &[u8],
    version: Version,
    layout: &LegacyLayout,
    limit: Option<usize>,
) -> Vec<(PartitionJson, usize)> {
    let mut dec = LegacyDataDecoder::new(version, DecodeOptions::default());
    dec.push(data);
    dec.finish();
    let mut rows = RowGrouper::new(layout.clone(), None);
    if let Some(max) = limit {
        rows = rows.with_row_limit(max);
    }
    let mut out = Vec::new();
    loop {
        match dec.next_item().unwrap() {
            LegacyStep::Finished => break,
            LegacyStep::NeedMoreData => panic!("all of Data.db was pushed"),
            LegacyStep::Item(item) => {
                if let Some(p) = rows.push(&item) {
                    out.push((p, rows.rows_past_limit()));
                }
            }
        }
    }
    out
}

/// A row limit (the page's cap, #12) keeps the first rows exactly as grouping them all does and
/// counts the rest, range tombstone markers included: legacy_ka_indexed's 5,000 rows (MANIFEST
/// §5), and the multi-block range tombstone tables' rows and markers.
#[test]
fn a_row_limit_keeps_the_first_rows_and_counts_the_rest() {
    let Some(fx) = fixtures("a_row_limit_keeps_the_first_rows_and_counts_the_rest") else {
        return;
    };
    let cases = [
        (
            "legacy_ka_indexed",
            "CREATE TABLE t (p int, c int, v1 int, v2 int, PRIMARY KEY (p, c))",
            200,
        ),
        (
            "legacy_ka_compacted_multi_block_rt",
            "CREATE TABLE t (k int, c1 int, c2 int, v1 blob, v2 blob, PRIMARY KEY (k, c1, c2))",
            3,
        ),
    ];
    for (table, statement, limit) in cases {
        let layout = layout_for(statement);
        let t = load(&table_dir(&fx, "ka", table), None);
        let whole = grouped(&t.data, t.version, &layout, None);
        let capped = grouped(&t.data, t.version, &layout, Some(limit));
        assert_eq!(whole.len(), capped.len(), "{table}");
        for ((w, w_past), (c, c_past)) in whole.iter().zip(&capped) {
            assert_eq!(*w_past, 0, "{table}");
            assert!(w.rows.len() > limit, "{table}: {} rows", w.rows.len());
            assert_eq!(c.partition, w.partition, "{table}");
            // A range tombstone's two markers stay together: one row over the limit at most.
            assert!((limit..=limit + 1).contains(&c.rows.len()), "{table}");
            assert_eq!(c.rows[..], w.rows[..c.rows.len()], "{table}");
            assert_eq!(c.rows.len() + c_past, w.rows.len(), "{table}");
        }
    }
    let t = load(&table_dir(&fx, "ka", "legacy_ka_indexed"), None);
    let layout = layout_for(cases[0].1);
    let capped = grouped(&t.data, t.version, &layout, Some(200));
    assert_eq!(capped[0].1, 5000 - 200);
}

/// legacy_ka_indexed / _indexed_static (MANIFEST §5): one partition p = 1 with 5000 rows
/// (15,000 cells: marker, v1 = c, v2 = c + 1), decoded through a window bounded by the push size.
#[test]
fn ka_indexed_partition_streams_through_bounded_windows() {
    let Some(fx) = fixtures("ka_indexed_partition_streams_through_bounded_windows") else {
        return;
    };
    for (table, statics) in [
        ("legacy_ka_indexed", false),
        ("legacy_ka_indexed_static", true),
    ] {
        let layout = layout_for(&format!(
            "CREATE TABLE {table} (p int, c int, v1 int, v2 int, {} PRIMARY KEY (p, c))",
            if statics {
                "s1 int static, s2 int static,"
            } else {
                ""
            }
        ));
        let t = load(&table_dir(&fx, "ka", table), None);
        assert!(t.compression.is_some() && t.stored_len < t.data.len());
        let push = 4096;
        let (parts, max_window) = decode(&t.data, t.version, &layout, push).unwrap();
        assert!(
            max_window <= 2 * push,
            "{table}: window {max_window} bytes for {} bytes of data",
            t.data.len()
        );
        assert_eq!(parts.len(), 1);
        let p = &parts[0];
        assert_eq!(p.key, 1i32.to_be_bytes());
        assert_eq!(
            p.counts,
            AtomCounts {
                cell: 15_000 + if statics { 2 } else { 0 },
                ..AtomCounts::default()
            }
        );
        let rows = &p.rows.as_ref().unwrap().rows;
        let regular: Vec<_> = rows.iter().filter(|r| r.r#type == "row").collect();
        assert_eq!(regular.len(), 5000);
        for (c, r) in regular.iter().enumerate() {
            assert_eq!(r.clustering, [Some(c.to_string())]);
            let cells: Vec<(&str, &str)> = r
                .cells
                .iter()
                .map(|x| (x.name.as_str(), x.value.as_deref().unwrap()))
                .collect();
            assert_eq!(
                cells,
                [("v1", &*c.to_string()), ("v2", &*(c + 1).to_string())]
            );
        }
        if statics {
            let s = &rows[0];
            assert_eq!(s.r#type, "static_block");
            let cells: Vec<(&str, &str)> = s
                .cells
                .iter()
                .map(|x| (x.name.as_str(), x.value.as_deref().unwrap()))
                .collect();
            assert_eq!(cells, [("s1", "4999"), ("s2", "5000")]);
        }
    }
}

/// The illegal-cell-names tables (MANIFEST §5): cells named after primary-key columns are
/// skipped as Cassandra 3.0 does: rows (1,'a','aa','aaa'), (2,'b','bb','bbb'), (3,'a','aa',null).
#[test]
fn ka_illegal_cell_names() {
    let Some(fx) = fixtures("ka_illegal_cell_names") else {
        return;
    };
    let layout =
        layout_for("CREATE TABLE t (pk int, c1 text, c2 text, v1 text, PRIMARY KEY (pk, c1, c2))");
    let dir = table_dir(&fx, "ka", "legacy_ka_with_illegal_cell_names");
    let mut got = Vec::new();
    for generation in ["1", "2"] {
        let t = load(&dir, Some(generation));
        assert_eq!(t.compression.is_none(), generation == "1");
        let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16).unwrap();
        for p in parts {
            let illegal =
                p.atoms.atoms.iter().filter(|a| {
                    matches!(a.name.last().map(String::as_str), Some("pk" | "c1" | "c2"))
                });
            let rows = p.rows.unwrap();
            assert_eq!(rows.rows.len(), 1);
            let r = &rows.rows[0];
            assert_eq!(r.findings.len(), illegal.count());
            got.push((
                rows.partition.key[0].clone(),
                r.clustering.clone(),
                r.cells
                    .iter()
                    .map(|c| (c.name.clone(), c.value.clone()))
                    .collect::<Vec<_>>(),
            ));
        }
    }
    let s = |x: &str| Some(x.to_owned());
    assert_eq!(
        got,
        [
            (
                "1".to_owned(),
                vec![s("a"), s("aa")],
                vec![("v1".to_owned(), s("aaa"))]
            ),
            (
                "2".to_owned(),
                vec![s("b"), s("bb")],
                vec![("v1".to_owned(), s("bbb"))]
            ),
            ("3".to_owned(), vec![s("a"), s("aa")], vec![]),
        ]
    );
    // _2: key 3 with 2 cells at timestamps 100 and 200; _indexed: key 'key', 11 rows × 4 cells.
    let t = load(
        &table_dir(&fx, "ka", "legacy_ka_with_illegal_cell_names_2"),
        None,
    );
    let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16).unwrap();
    assert_eq!(parts.len(), 1);
    let stamps: Vec<i64> = parts[0].atoms.atoms.iter().map(|a| a.tstamp).collect();
    assert_eq!(stamps, [100, 200]);
    let t = load(
        &table_dir(&fx, "ka", "legacy_ka_with_illegal_cell_names_indexed"),
        None,
    );
    assert!(t.compression.is_none());
    let (parts, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].key, b"key");
    assert_eq!(parts[0].counts.cell, 44);
    let rows = parts[0].rows.as_ref().unwrap();
    assert_eq!(rows.rows.len(), 11);
    assert!(rows.rows.iter().all(|r| {
        r.cells.iter().map(|c| c.name.as_str()).collect::<Vec<_>>() == ["a", "b", "c", "z"]
    }));
}

/// The other ka tables of MANIFEST §5 whose content it states.
#[test]
fn ka_small_tables() {
    let Some(fx) = fixtures("ka_small_tables") else {
        return;
    };
    // legacy_ka_15081: (1, 'hello world').
    let layout = layout_for("CREATE TABLE t (id int PRIMARY KEY, payload text)");
    let t = load(&table_dir(&fx, "ka", "legacy_ka_15081"), None);
    let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16).unwrap();
    let row = &parts[0].rows.as_ref().unwrap().rows[0];
    assert_eq!(parts[0].rows.as_ref().unwrap().partition.key, ["1"]);
    let payload: Vec<_> = row.cells.iter().filter(|c| c.name == "payload").collect();
    assert_eq!(payload[0].value.as_deref(), Some("hello world"));
    // legacy_ka_14873: static sc = 0 and rows cc = 5..1 (DESC), rc = the digit × 256.
    let layout = layout_for(
        "CREATE TABLE t (pkc int, cc int, sc int static, rc text, PRIMARY KEY (pkc, cc))",
    );
    let t = load(&table_dir(&fx, "ka", "legacy_ka_14873"), None);
    let (parts, _) = decode(&t.data, t.version, &layout, 1 << 16).unwrap();
    let rows = &parts[0].rows.as_ref().unwrap().rows;
    assert_eq!(rows[0].r#type, "static_block");
    assert_eq!(rows[0].cells[0].value.as_deref(), Some("0"));
    let ccs: Vec<_> = rows[1..]
        .iter()
        .map(|r| r.clustering[0].clone().unwrap())
        .collect();
    assert_eq!(ccs, ["5", "4", "3", "2", "1"]);
    for r in &rows[1..] {
        let cc = r.clustering[0].clone().unwrap();
        assert_eq!(r.cells[0].value.clone().unwrap(), cc.repeat(256));
    }
    // The dense COMPACT tables: key 'key11', one cell named by the clustering value.
    for (table, value) in [
        (
            "legacy_ka_cql_created_dense_table_with_bytes",
            "byte string",
        ),
        ("legacy_ka_cql_created_dense_table_with_int", "0x00aabbcc"),
    ] {
        let t = load(&table_dir(&fx, "ka", table), None);
        let (parts, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].key, b"key11");
        assert_eq!(parts[0].counts.cell, 1);
        assert_eq!(
            parts[0].atoms.atoms[0].value.as_deref(),
            Some(value),
            "{table}"
        );
    }
}

/// Every 2.x table decodes as file-order atoms into the same partitions whatever the push size.
#[test]
fn push_sizes_do_not_change_the_result() {
    let Some(fx) = fixtures("push_sizes_do_not_change_the_result") else {
        return;
    };
    let t = load(&table_dir(&fx, "jb", "legacy_jb_clust_counter"), None);
    let layout = LegacyLayout::inferred();
    let (whole, _) = decode(&t.data, t.version, &layout, t.data.len()).unwrap();
    for push in [1, 7, 1000] {
        let (parts, _) = decode(&t.data, t.version, &layout, push).unwrap();
        assert_eq!(parts.len(), whole.len());
        for (a, b) in parts.iter().zip(&whole) {
            assert_eq!(a.atoms, b.atoms, "push {push}");
        }
    }
}

/// Every truncation and single-byte flip of small 2.x tables: items or an error with an offset
/// inside the data, never a panic or an endless loop.
#[test]
fn truncation_and_byte_flip_sweep() {
    let Some(fx) = fixtures("truncation_and_byte_flip_sweep") else {
        return;
    };
    let layout = LegacyLayout::inferred();
    let tables = [
        ("jb", "legacy_jb_simple", None),
        ("jb", "legacy_jb_simple_counter", None),
        ("ka", "legacy_ka_simple_compact", None),
        ("ka", "legacy_ka_14912", None),
        ("ka", "legacy_ka_with_illegal_cell_names", Some("1")),
        ("la", "legacy_la_simple_counter_compact", None),
    ];
    let mut errors = 0;
    for (v, table, generation) in tables {
        let t = load(&table_dir(&fx, v, table), generation);
        let len = t.data.len();
        let check = |data: &[u8], errors: &mut u32| match decode(data, t.version, &layout, 64) {
            Ok(_) => {}
            Err(e) => {
                assert!(e.offset() <= len as u64 + 8, "{table}: {e}");
                assert!(e.to_string().contains("Data.db"), "{e}");
                *errors += 1;
            }
        };
        for cut in 0..len {
            check(&t.data[..cut], &mut errors);
        }
        for i in 0..len {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut d = t.data.clone();
                d[i] ^= flip;
                check(&d, &mut errors);
            }
        }
    }
    assert!(errors > 1000, "{errors}");
}

/// Drives a [`LegacyDataFileReader`] over the stored file, from the partition at uncompressed
/// `seek` if given; returns the atoms JSON per partition and the checksum findings.
fn read_file(
    dir: &Path,
    generation: Option<&str>,
    stored: &[u8],
    seek: Option<u64>,
) -> (Vec<AtomPartitionJson>, Vec<String>, Option<Error>) {
    let data_path = component(dir, "-Data.db", generation).unwrap();
    let name = data_path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let version = parse_file_name(&name).unwrap().0.version;
    let ci = component(dir, "-CompressionInfo.db", generation)
        .map(|p| compression_info::decode(&std::fs::read(p).unwrap(), &version).unwrap());
    let mut reader = match ci {
        Some(ci) => LegacyDataFileReader::compressed(
            version,
            DecodeOptions::default(),
            ci,
            stored.len() as u64,
        ),
        None => LegacyDataFileReader::uncompressed(
            version,
            DecodeOptions::default(),
            stored.len() as u64,
        ),
    };
    if let Some(position) = seek {
        reader.seek_to_partition(position).unwrap();
    }
    let mut atoms = AtomsBuilder::new(LegacyLayout::inferred());
    let mut out = Vec::new();
    let mut error = None;
    // The engine's driver reads the chunks the reader names: no read loop here.
    let files = [(ComponentType::Data, stored)];
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    loop {
        let step = driver.with_next_step(&mut reader, &NoClock, |step| match step {
            LegacyStep::Item(item) => {
                out.extend(atoms.push(&item));
                true
            }
            LegacyStep::Finished | LegacyStep::NeedMoreData => false,
        });
        match step {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
        // Bounded: one 64 KiB chunk (or plain block) plus the unfinished atom.
        assert!(
            reader.decoder().window_bytes() <= 2 * 65536,
            "window {}",
            reader.decoder().window_bytes()
        );
    }
    let findings = reader
        .take_findings()
        .into_iter()
        .map(|f| f.message)
        .collect();
    (out, findings, error)
}

/// The file reader (chunks named, read, checked with Adler32, decompressed) gives the same atoms
/// as decompressing the whole file; a flipped stored byte is a checksum finding or an error.
#[test]
fn file_reader_matches_and_checks_adler32() {
    let Some(fx) = fixtures("file_reader_matches_and_checks_adler32") else {
        return;
    };
    for (v, table, generation) in [
        ("jb", "legacy_jb_clust", None),
        ("ka", "legacy_ka_indexed", None),
        ("la", "legacy_la_clust_counter", None),
        ("ka", "legacy_ka_with_illegal_cell_names", Some("1")),
    ] {
        let dir = table_dir(&fx, v, table);
        let t = load(&dir, generation);
        let (whole, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
        let stored = std::fs::read(component(&dir, "-Data.db", generation).unwrap()).unwrap();
        let (parts, findings, error) = read_file(&dir, generation, &stored, None);
        assert!(error.is_none(), "{table}: {error:?}");
        assert!(findings.is_empty(), "{table}: {findings:?}");
        assert_eq!(
            parts,
            whole.into_iter().map(|p| p.atoms).collect::<Vec<_>>(),
            "{table}"
        );
        if t.compression.is_some() {
            let mut flipped = stored.clone();
            flipped[100] ^= 0x40;
            let (_, findings, error) = read_file(&dir, generation, &flipped, None);
            assert!(
                findings.iter().any(|f| f.contains("Adler32")),
                "{table}: {findings:?} {error:?}"
            );
        }
    }
}

/// A seek to a partition inside a compressed chunk decompresses that chunk straight into the
/// window and skips to the partition: the atoms from there on are those of the whole decode.
#[test]
fn file_reader_seeks_into_a_chunk() {
    let Some(fx) = fixtures("file_reader_seeks_into_a_chunk") else {
        return;
    };
    for (v, table) in [("jb", "legacy_jb_clust"), ("la", "legacy_la_clust_counter")] {
        let dir = table_dir(&fx, v, table);
        let t = load(&dir, None);
        assert!(t.compression.is_some(), "{table}");
        let (whole, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
        let whole: Vec<AtomPartitionJson> = whole.into_iter().map(|p| p.atoms).collect();
        assert!(whole.len() >= 2, "{table}: {} partitions", whole.len());
        let stored = std::fs::read(component(&dir, "-Data.db", None).unwrap()).unwrap();
        for from in [1, whole.len() - 1] {
            let position = whole[from].partition.position;
            assert!(position > 0, "{table}");
            let (parts, findings, error) = read_file(&dir, None, &stored, Some(position));
            assert!(error.is_none(), "{table} from {position}: {error:?}");
            assert!(findings.is_empty(), "{table}: {findings:?}");
            assert_eq!(parts, whole[from..], "{table} from {position}");
        }
    }
}

/// The 3.0+ reader over a pre-3.0 file (partition headers only, what `for_sstable` builds
/// before `ma`) checks chunks as 2.x wrote them: Adler32 (`BigVersion.compressedChecksumType`).
#[test]
fn the_row_reader_checks_adler32_before_3_0() {
    let Some(fx) = fixtures("the_row_reader_checks_adler32_before_3_0") else {
        return;
    };
    let dir = table_dir(&fx, "jb", "legacy_jb_clust");
    let t = load(&dir, None);
    let ci = t.compression.clone().unwrap();
    let (whole, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
    let stored = std::fs::read(component(&dir, "-Data.db", None).unwrap()).unwrap();
    let headers_only = DataSchema::from_parts(
        t.version,
        AbstractType::Bytes,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        DeltaBase {
            min_timestamp_micros: 0,
            min_local_deletion_time_raw: 0,
            min_ttl_secs: 0,
            unsigned_deletion_time: false,
        },
    );
    for flip in [false, true] {
        let mut reader = DataFileReader::compressed(
            headers_only.clone(),
            DecodeOptions::default(),
            ci.clone(),
            stored.len() as u64,
        );
        let range = reader.next_read().unwrap();
        let mut chunk = stored[range.offset as usize..range.end() as usize].to_vec();
        if flip {
            chunk[(range.len / 2) as usize] ^= 0x40;
        }
        let supplied = reader.supply(&range, &chunk, &NoClock);
        let findings: Vec<String> = reader
            .take_findings()
            .into_iter()
            .map(|f| f.message)
            .collect();
        if !flip {
            assert!(findings.is_empty(), "{findings:?}");
            supplied.unwrap();
            let Ok(DecodeStep::Item(DataItem::PartitionStart(p))) = reader.next_item() else {
                panic!("no partition start");
            };
            assert_eq!(p.position, 0);
            assert_eq!(hex(&p.key.bytes.bytes), whole[0].atoms.partition.key_hex);
        } else {
            assert_eq!(findings.len(), 1, "{findings:?}");
            assert!(findings[0].contains("stored Adler32"), "{findings:?}");
        }
    }
}

/// Only `ja`…`la` are read: `ic` rows carry a row size and a column count, 3.0+ has rows.
#[test]
fn supported_versions() {
    let v = |s: &str| Version::parse(sstable_engine::Format::Big, s).unwrap();
    assert!(LegacyDataDecoder::supports(&v("jb")));
    assert!(LegacyDataDecoder::supports(&v("ka")));
    assert!(LegacyDataDecoder::supports(&v("la")));
    assert!(!LegacyDataDecoder::supports(&v("ic")));
    assert!(!LegacyDataDecoder::supports(&v("ma")));
}

/// Atoms per second over the 15,000-cell `legacy_ka_indexed` partition, beside raw LZ4
/// decompression of the same chunks (printed; run with `--release --nocapture` for figures).
#[test]
fn atoms_per_second_beside_raw_decompression() {
    let Some(fx) = fixtures("atoms_per_second_beside_raw_decompression") else {
        return;
    };
    let dir = table_dir(&fx, "ka", "legacy_ka_indexed");
    let stored = std::fs::read(component(&dir, "-Data.db", None).unwrap()).unwrap();
    let ci = load(&dir, None).compression.unwrap();
    let compressor = Compressor::from_class_name(&ci.compressor);
    let rounds = 20;
    let start = std::time::Instant::now();
    let mut chunk = Vec::new();
    let mut raw_bytes = 0;
    for _ in 0..rounds {
        for i in 0..ci.chunk_offsets.len() {
            let (s, e) = ci.chunk_span(i, stored.len() as u64).unwrap();
            let body = &stored[s as usize..e as usize - 4];
            let n = ci.chunk_uncompressed_len(i).unwrap() as usize;
            decompress_chunk(&compressor, body, n, &mut chunk).unwrap();
            raw_bytes += chunk.len();
        }
    }
    let raw = start.elapsed();
    let start = std::time::Instant::now();
    let mut atoms = 0u64;
    for _ in 0..rounds {
        let mut reader = LegacyDataFileReader::compressed(
            Version::parse(sstable_engine::Format::Big, "ka").unwrap(),
            DecodeOptions::default(),
            ci.clone(),
            stored.len() as u64,
        );
        loop {
            match reader.next_item().unwrap() {
                LegacyStep::Finished => break,
                LegacyStep::NeedMoreData => {
                    let r = reader.next_read().unwrap();
                    reader
                        .supply(&r, &stored[r.offset as usize..r.end() as usize], &NoClock)
                        .unwrap();
                }
                LegacyStep::Item(LegacyItem::Atom(_)) => atoms += 1,
                LegacyStep::Item(_) => {}
            }
        }
    }
    let decode = start.elapsed();
    assert_eq!(atoms, 15_000 * rounds);
    let mb = raw_bytes as f64 / 1e6;
    println!(
        "legacy_ka_indexed: raw LZ4 {:.0} MB/s; atoms (decompress + decode) {:.0} MB/s, {:.0} atoms/s, {:.2}x raw time",
        mb / raw.as_secs_f64(),
        mb / decode.as_secs_f64(),
        atoms as f64 / decode.as_secs_f64(),
        decode.as_secs_f64() / raw.as_secs_f64()
    );
}

/// Without a schema, a 2.x table's `CREATE TABLE` is what its cell names say: legacy_ka_indexed_static
/// (MANIFEST §5: `p int, c int, v1 int, v2 int, s1 int static, s2 int static`) has one clustering
/// component, statics s1 and s2, regular v1 and v2; every type unknown.
#[test]
fn inferred_create_table_of_a_2x_table() {
    use sstable_engine::component::legacy_data::InferredTable;
    let Some(fx) = fixtures("inferred_create_table_of_a_2x_table") else {
        return;
    };
    let t = load(&table_dir(&fx, "ka", "legacy_ka_indexed_static"), None);
    let (parts, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
    let rows: Vec<PartitionJson> = parts.into_iter().filter_map(|p| p.rows).collect();
    let inferred = InferredTable::from_partitions(&rows);
    assert_eq!(inferred.clustering_count, 1);
    let names = |cs: &[sstable_engine::component::legacy_data::InferredColumn]| {
        cs.iter().map(|c| c.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&inferred.static_columns), ["s1", "s2"]);
    assert_eq!(names(&inferred.regular_columns), ["v1", "v2"]);
    let cql = inferred.create_table(Some("legacy_tables"), Some("legacy_ka_indexed_static"));
    assert!(cql.contains("CREATE TABLE legacy_tables.legacy_ka_indexed_static ("));
    assert!(cql.contains("    s1 blob static, -- type not in the SSTable"));
    assert!(cql.contains("    PRIMARY KEY (key, column1)"));
    let parsed = parse_create_table(&cql).unwrap();
    assert_eq!(parsed.clustering, ["column1"]);
}

/// Rows and atoms cross from a page worker to the UI thread as serde values: every field of a
/// real 2.x page reads back equal (legacy_ka_14912: collections, a collection tombstone).
#[test]
fn rows_and_atoms_read_back_from_json() {
    let Some(fx) = fixtures("rows_and_atoms_read_back_from_json") else {
        return;
    };
    for table in [
        "legacy_ka_14912",
        "legacy_ka_indexed_static",
        "legacy_ka_repeated_rt",
    ] {
        let t = load(&table_dir(&fx, "ka", table), None);
        let (parts, _) = decode(&t.data, t.version, &LegacyLayout::inferred(), 1 << 16).unwrap();
        assert!(!parts.is_empty());
        for p in parts {
            let rows = p.rows.unwrap();
            let json = serde_json::to_string(&rows).unwrap();
            assert_eq!(serde_json::from_str::<PartitionJson>(&json).unwrap(), rows);
            let json = serde_json::to_string(&p.atoms).unwrap();
            assert_eq!(
                serde_json::from_str::<AtomPartitionJson>(&json).unwrap(),
                p.atoms
            );
        }
    }
}
