//! Index.db, Summary.db cross-checks, Partitions.db / Rows.db and tokens on the real fixtures
//! (MANIFEST.md §2, §3, §6).

use crate::common;

use std::path::{Path, PathBuf};

use sstable_engine::component::bti::partitions::{self, PartitionLookup, PartitionTarget};
use sstable_engine::component::bti::rows;
use sstable_engine::component::bti::TrieBytes;
use sstable_engine::component::common::ClusteringPrefixKind;
use sstable_engine::component::index::{
    self, clustering_value_lengths, IndexEntry, IndexFile, IndexInfo, IndexLayout, IndexStep,
    PromotedIndex,
};
use sstable_engine::component::summary;
use sstable_engine::crosscheck::{
    CrossCheckKind, CrossCheckReport, CrossChecker, IndexedPartition,
};
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::sstable_set::group_files;
use sstable_engine::token::{md5_digest, Partitioner, Token};
use sstable_engine::types::parse_type;
use sstable_engine::{Format, Version};

/// Big versions with the generated legacy tables.
const BIG_VERSIONS: [&str; 12] = [
    "jb", "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa",
];
const KEYS: [&[u8]; 5] = [b"0", b"1", b"2", b"3", b"4"];

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn big(v: &str) -> Version {
    Version::parse(Format::Big, v).unwrap()
}

fn da() -> Version {
    Version::parse(Format::Bti, "da").unwrap()
}

/// The file in `dir` whose name ends with `-<suffix>`.
fn component(dir: &Path, suffix: &str) -> Option<PathBuf> {
    let want = format!("-{suffix}");
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&want))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The legacy tables of a version, by directory name.
fn tables(fx: &Path, version: &str) -> Vec<(String, PathBuf)> {
    let dir = fx
        .join("legacy-sstables")
        .join(version)
        .join("legacy_tables");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            let generated = ["_simple", "_clust"].iter().any(|t| name.contains(t))
                && name.starts_with(&format!("legacy_{version}_"));
            generated.then(|| (name, e.path()))
        })
        .collect();
    out.sort();
    out
}

/// `"<digit>" + LONG` (MANIFEST §3).
fn clustering_value(first: char) -> Vec<u8> {
    let mut s = String::from(first);
    for _ in 0..120 {
        s.push_str("0123456789");
    }
    s.into_bytes()
}

fn utf8_clustering() -> Vec<Option<u32>> {
    clustering_value_lengths(&[parse_type("UTF8Type").unwrap()])
}

/// Uncompressed Data.db lengths of the clust tables (MANIFEST §3), for the last partition.
fn clust_data_length(version: &str, table: &str) -> Option<u64> {
    let clust = [
        ("ma", 336_020, 312_519),
        ("mb", 336_082, 312_584),
        ("mc", 336_057, 312_557),
        ("md", 336_015, 312_515),
        ("me", 336_014, 312_514),
        ("na", 336_015, 312_515),
        ("nb", 336_016, 312_516),
        ("nc", 336_014, 312_514),
        ("oa", 335_958, 312_458),
    ];
    let (_, c, cc) = clust.iter().find(|(v, _, _)| *v == version)?;
    if table == format!("legacy_{version}_clust") {
        Some(*c)
    } else if table == format!("legacy_{version}_clust_counter") {
        Some(*cc)
    } else {
        None
    }
}

#[test]
fn index_db_of_every_big_version_lists_the_five_keys() {
    let Some(fx) = common::cassandra_fixtures("indexes::index_db_of_every_big_version") else {
        return;
    };
    let lengths = utf8_clustering();
    let mut checked_tables = 0;
    let mut checked_blocks = 0;
    for v in BIG_VERSIONS {
        let version = big(v);
        let ts = tables(&fx, v);
        assert!(ts.len() >= 4, "{v}: {ts:?}");
        for (table, dir) in ts {
            let bytes = read(&component(&dir, "Index.db").unwrap());
            let idx = index::decode(&bytes, &version).unwrap_or_else(|e| panic!("{table}: {e}"));
            let keys: Vec<&[u8]> = idx.keys().collect();
            assert_eq!(keys, KEYS, "{table}");
            assert!(idx.warnings.is_empty(), "{table}: {:?}", idx.warnings);
            assert_eq!(idx.entries[0].position.value, 0, "{table}");
            for pair in idx.entries.windows(2) {
                assert!(pair[1].position.value > pair[0].position.value, "{table}");
            }
            assert_eq!(idx.entries.last().unwrap().span.end, bytes.len() as u64);
            let expected_layout = if version.has_row_format() {
                IndexLayout::Current
            } else {
                IndexLayout::Legacy
            };
            assert_eq!(idx.layout, expected_layout);
            let file = IndexFile::whole(&bytes, version);
            // Compact simple tables are only a static row per partition: no index either.
            let clustered = table.contains("_clust");
            if !clustered {
                assert_eq!(idx.promoted_count, 0, "{table}");
                for e in &idx.entries {
                    assert_eq!(e.promoted_size.value, 0);
                    assert!(file.promoted_index(e).unwrap().is_none());
                }
            } else {
                assert_eq!(idx.promoted_count, 5, "{table}");
                let data_len = clust_data_length(v, &table);
                for (i, e) in idx.entries.iter().enumerate() {
                    let next = idx
                        .entries
                        .get(i + 1)
                        .map(|n| n.position.value)
                        .or(data_len);
                    checked_blocks += check_clust_entry(&file, e, next, &lengths, &table);
                }
            }
            let node = idx.to_node();
            assert_eq!(node.label, "Index.db");
            assert!(node.find_at(3).is_some());
            checked_tables += 1;
        }
    }
    assert!(checked_tables >= 60, "{checked_tables}");
    assert!(checked_blocks > 0);
}

/// A clust entry: ≥ 2 blocks, first clustering "0"+LONG, last "9"+LONG, blocks contiguous and
/// (3.0+) the last block ending where the next partition starts.
fn check_clust_entry(
    file: &IndexFile<'_>,
    e: &IndexEntry,
    next_position: Option<u64>,
    lengths: &[Option<u32>],
    table: &str,
) -> usize {
    let p: PromotedIndex = file.promoted_index(e).unwrap().unwrap();
    assert!(p.warnings.is_empty(), "{table}: {:?}", p.warnings);
    let n = p.block_count.value;
    assert!(n >= 2, "{table}: {n} blocks");
    assert_eq!(e.block_count, Some(n));
    assert!(p.deletion.is_live(), "{table}");
    let current = p.layout == IndexLayout::Current;
    if current {
        assert_eq!(p.offsets.len(), n as usize);
        assert_eq!(p.offsets[0], 0);
        // Header length: key (2 + 1 bytes) + partition deletion (12 bytes, 1 from oa).
        let deletion_bytes = if file.version().has_uint_deletion_time() {
            1
        } else {
            12
        };
        assert_eq!(p.header_length.as_ref().unwrap().value, 3 + deletion_bytes);
    }
    let first: IndexInfo = file.block(&p, 0, lengths).unwrap();
    let last: IndexInfo = file.block(&p, n - 1, lengths).unwrap();
    assert_eq!(
        first.first_name.first_value(),
        Some(&clustering_value('0')[..]),
        "{table}"
    );
    assert_eq!(
        last.last_name.first_value(),
        Some(&clustering_value('9')[..]),
        "{table}"
    );
    if current {
        assert_eq!(
            first.first_name.kind(),
            Some(ClusteringPrefixKind::Clustering)
        );
        assert!(first.end_open_marker.is_none());
        assert_eq!(first.offset.value, p.header_length.as_ref().unwrap().value);
        // Blocks follow each other.
        let mut end = first.offset.value;
        for j in 0..n {
            let b = file.block(&p, j, lengths).unwrap();
            assert_eq!(b.offset.value, end, "{table} block {j}");
            end = b.offset.value + b.width.value;
        }
        if let Some(next) = next_position {
            assert_eq!(
                last.offset.value + last.width.value,
                next - e.position.value,
                "{table}: last block must end where the next partition starts"
            );
        }
    } else {
        assert_eq!(last.index, n - 1);
        assert!(last.offset.value > first.offset.value);
    }
    let _ = p.to_node();
    let _ = last.to_node();
    n as usize
}

/// The metadata of the SSTable whose Index.db is `index_path` (its small components, decoded).
fn metadata_of(index_path: &Path) -> SSTableMetadata {
    let dir = index_path.parent().unwrap();
    let prefix = index_path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix("Index.db"))
        .unwrap();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|n| n.contains(prefix))
        .collect();
    names.sort();
    let grouping = group_files(&names);
    let sstable = &grouping.sstables[0];
    let contents: Vec<(sstable_engine::ComponentType, u64, Option<Vec<u8>>)> = sstable
        .files
        .iter()
        .map(|(c, i)| {
            let path = &names[*i];
            let size = std::fs::metadata(path).unwrap().len();
            (
                c.clone(),
                size,
                reads_whole(c).then(|| read(Path::new(path))),
            )
        })
        .collect();
    let inputs: Vec<ComponentInput<'_>> = contents
        .iter()
        .map(|(c, size, bytes)| ComponentInput {
            component: c,
            size_bytes: *size,
            bytes: bytes.as_deref(),
        })
        .collect();
    decode_metadata(&sstable.descriptor, &inputs)
}

/// Index.db's entries fed through a [`CrossChecker`] over `metadata`.
fn cross_check(metadata: &SSTableMetadata, entries: &[IndexEntry]) -> CrossCheckReport {
    let mut checker = CrossChecker::new(metadata);
    for (number, e) in entries.iter().enumerate() {
        checker.add_entry(&IndexedPartition {
            number,
            key: &e.key.value,
            position: e.position.value,
            index_offset: Some(e.span.start),
        });
    }
    checker.finish(None)
}

#[test]
fn summary_db_agrees_with_index_db() {
    let Some(fx) = common::cassandra_fixtures("indexes::summary_db_agrees_with_index_db") else {
        return;
    };
    let mut checked = 0;
    for v in BIG_VERSIONS {
        let version = big(v);
        for (table, dir) in tables(&fx, v) {
            let Some(summary_path) = component(&dir, "Summary.db") else {
                continue;
            };
            let index_path = component(&dir, "Index.db").unwrap();
            let bytes = read(&index_path);
            let s = summary::decode(&read(&summary_path), &version)
                .unwrap_or_else(|e| panic!("{table}: {e}"));
            let idx = index::decode(&bytes, &version).unwrap();
            let mut metadata = metadata_of(&index_path);
            assert_eq!(metadata.summary.as_ref(), Some(&s), "{table}");
            let report = cross_check(&metadata, &idx.entries);
            assert!(report.is_clean(), "{table}: {report:?}");
            assert_eq!(report.checked, idx.entries.len(), "{table}");
            assert_eq!(report.summary_samples_checked, s.entries.len(), "{table}");
            assert!(report.summary_samples_checked >= 1);
            // A summary that points at the wrong entry is reported; so are wrong first/last keys.
            let wrong = metadata.summary.as_mut().unwrap();
            wrong.entries[0].index_position.value = idx.entries[1].span.start;
            wrong.first_key.value = b"nope".to_vec();
            wrong.last_key.value = b"nope".to_vec();
            let report = cross_check(&metadata, &idx.entries);
            let mismatches: Vec<_> = report.of_kind(CrossCheckKind::SummaryMismatch).collect();
            assert!(mismatches.len() >= 3, "{table}: {report:?}");
            assert!(mismatches.iter().any(|f| f.message.contains("first key")));
            assert!(mismatches.iter().any(|f| f.message.contains("last key")));
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked}");
}

#[test]
fn windowed_listing_matches_the_whole_file() {
    let Some(fx) = common::cassandra_fixtures("indexes::windowed_listing") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let bytes = read(&component(&dir, "Index.db").unwrap());
    let whole = index::decode(&bytes, &big("nb")).unwrap();
    // Walk the file through 4 KiB windows, re-windowing where the cursor asks.
    let mut offset = 0u64;
    let mut listed: Vec<IndexEntry> = Vec::new();
    let mut windows = 0;
    loop {
        windows += 1;
        assert!(windows < 1000, "no progress");
        let start = offset as usize;
        let end = (start + 4096).min(bytes.len());
        let file = IndexFile::new(&bytes[start..end], offset, big("nb"));
        let mut cursor = file.cursor(end == bytes.len());
        match cursor.next_step().unwrap() {
            IndexStep::Entry(e) => {
                offset = e.span.end;
                listed.push(e);
            }
            IndexStep::NeedMoreBytes { offset: o } => offset = o,
            IndexStep::End => break,
        }
    }
    assert_eq!(listed, whole.entries);
    // Entries' promoted indexes are ~31 KB: a 4 KiB window holds only the header.
    assert!(listed.iter().all(|e| e.span.len_bytes() > 4096));
}

#[test]
fn murmur3_index_order() {
    let Some(fx) = common::cassandra_fixtures("indexes::murmur3_index_order") else {
        return;
    };
    let other = fx.join("other");
    let expected: Vec<Vec<u8>> = [5, 10, 1, 8, 2, 4, 7, 6, 9, 3]
        .iter()
        .map(|i: &i32| i.to_be_bytes().to_vec())
        .collect();
    for (path, v) in [
        ("bloom-filter/ka/foo/foo-atable-ka-1-Index.db", "ka"),
        ("bloom-filter/la/foo/la-1-big-Index.db", "la"),
    ] {
        let idx = index::decode(&read(&other.join(path)), &big(v)).unwrap();
        let keys: Vec<Vec<u8>> = idx.keys().map(<[u8]>::to_vec).collect();
        assert_eq!(keys, expected, "{path}");
        let metadata = metadata_of(&other.join(path));
        assert_eq!(metadata.partitioner(), Partitioner::Murmur3, "{path}");
        let report = cross_check(&metadata, &idx.entries);
        assert!(report.is_clean(), "{path}: {report:?}");
        assert_eq!(report.checked, 10);
        let tokens: Vec<Token> = idx.keys().map(|k| Partitioner::Murmur3.token(k)).collect();
        assert!(tokens.windows(2).all(|w| w[0] < w[1]));
        // The same keys are not in ByteOrdered order.
        let mut bytes: Vec<&[u8]> = idx.keys().collect();
        assert!(bytes.windows(2).any(|w| w[0] > w[1]));
        bytes.sort();
        assert_ne!(bytes, idx.keys().collect::<Vec<_>>());
    }
    for t in ["table1", "table2", "table3", "table4"] {
        let path = other
            .join("negative-local-expiration-test")
            .join(t)
            .join("mc-1-big-Index.db");
        let idx = index::decode(&read(&path), &big("mc")).unwrap();
        let keys: Vec<&[u8]> = idx.keys().collect();
        assert_eq!(
            keys,
            [&1i32.to_be_bytes()[..], &2i32.to_be_bytes()[..]],
            "{t}"
        );
        let report = cross_check(&metadata_of(&path), &idx.entries);
        assert!(report.is_clean(), "{t}: {report:?}");
    }
    assert_eq!(
        Partitioner::Murmur3.token(&0i32.to_be_bytes()),
        Token::Murmur3(-3485513579396041028)
    );
}

#[test]
fn corrupt_jb_index_is_reported_out_of_order() {
    let Some(fx) = common::cassandra_fixtures("indexes::corrupt_jb_index") else {
        return;
    };
    let path = fx.join("other/corrupt-sstables/Keyspace1-Standard3-jb-1-Index.db");
    let idx = index::decode(&read(&path), &big("jb")).unwrap();
    let keys: Vec<&[u8]> = idx.keys().collect();
    assert_eq!(keys, [b"f", b"e", b"d", b"a", b"b", b"c"]);
    let metadata = metadata_of(&path);
    assert_eq!(metadata.partitioner(), Partitioner::ByteOrdered);
    let report = cross_check(&metadata, &idx.entries);
    let order: Vec<_> = report.of_kind(CrossCheckKind::KeyOrder).collect();
    assert_eq!(order.len(), 3, "{report:?}");
    let at: Vec<Option<usize>> = order.iter().map(|f| f.entry).collect();
    assert_eq!(at, [Some(1), Some(2), Some(3)]);
    assert_eq!(order[0].key.as_deref(), Some(&b"e"[..]));
    assert!(
        order[0].message.contains("token 65"),
        "{}",
        order[0].message
    );
    assert!(order[0].message.contains("'f'") || order[0].message.contains("f"));
    assert_eq!(report.of_kind(CrossCheckKind::DuplicateKey).count(), 0);
}

/// Positions of the partitions of `table` in a big version's Index.db.
fn index_positions(fx: &Path, v: &str, table: &str) -> Vec<u64> {
    let dir = common::legacy_dir(fx, v, table);
    let idx = index::decode(&read(&component(&dir, "Index.db").unwrap()), &big(v)).unwrap();
    idx.entries.iter().map(|e| e.position.value).collect()
}

#[test]
fn bti_partitions_and_rows() {
    let Some(fx) = common::cassandra_fixtures("indexes::bti_partitions_and_rows") else {
        return;
    };
    for table in [
        "legacy_da_simple",
        "legacy_da_simple_counter",
        "legacy_da_clust",
        "legacy_da_clust_counter",
    ] {
        let dir = common::legacy_dir(&fx, "da", table);
        let pbytes = read(&component(&dir, "Partitions.db").unwrap());
        let rbytes = read(&component(&dir, "Rows.db").unwrap());
        let p = partitions::decode(&pbytes).unwrap_or_else(|e| panic!("{table}: {e}"));
        assert!(p.warnings.is_empty(), "{table}: {:?}", p.warnings);
        assert_eq!(p.footer.partition_count.value, 5, "{table}");
        assert_eq!(p.entries.len(), 5, "{table}");
        assert_eq!(p.footer.first_key.value, b"0");
        assert_eq!(p.footer.last_key.value, b"4");
        // Shortest prefixes: the 0x40 separator, then the first token byte.
        for (e, k) in p.entries.iter().zip(KEYS) {
            assert_eq!(e.key_prefix, [0x40, k[0]], "{table}");
            assert_eq!(
                e.payload.hash_byte,
                Some(partitions::hash_byte(k)),
                "{table}"
            );
        }
        let clustered = table.contains("clust");
        let data_positions: Vec<u64> = if clustered {
            assert_eq!(rbytes.len(), 508, "{table}");
            let rows_trie = TrieBytes::rows(&rbytes, 0);
            let mut positions = Vec::new();
            let mut ends = Vec::new();
            for (e, k) in p.entries.iter().zip(KEYS) {
                let PartitionTarget::RowIndex { rows_position } = e.payload.target else {
                    panic!("{table}: {k:?} should have a row index")
                };
                assert!(e.payload.position >= 0);
                let ri = rows::decode_row_index(&rows_trie, rows_position, &da())
                    .unwrap_or_else(|err| panic!("{table} {k:?}: {err}"));
                assert_eq!(ri.entry.key.value, k, "{table}");
                assert!(ri.entry.block_count.value >= 2, "{table}");
                assert!(ri.entry.deletion.is_live());
                assert_eq!(ri.entry.deletion.span.len_bytes(), 1);
                assert!(ri.warnings.is_empty(), "{table}: {:?}", ri.warnings);
                // The blocks, then the entry for the end-of-partition byte.
                assert_eq!(ri.blocks.len(), ri.entry.block_count.value as usize + 1);
                ends.push(ri.end_of_partition_offset().unwrap());
                // First block: empty separator, rows start after key (3) + deletion (1).
                assert!(ri.blocks[0].separator.is_empty());
                assert_eq!(ri.blocks[0].offset, 4);
                assert!(ri.blocks.iter().all(|b| b.open_marker.is_none()));
                let _ = ri.to_node();
                positions.push(ri.entry.data_position.value);
            }
            // The end-of-partition byte is the last byte before the next partition.
            for (i, pair) in positions.windows(2).enumerate() {
                assert_eq!(
                    ends[i] as u64 + 1,
                    pair[1] - pair[0],
                    "{table} partition {i}"
                );
            }
            positions
        } else {
            assert!(rbytes.is_empty(), "{table}");
            p.entries
                .iter()
                .map(|e| match e.payload.target {
                    PartitionTarget::Data { data_position } => {
                        assert!(e.payload.position < 0);
                        data_position
                    }
                    PartitionTarget::RowIndex { .. } => panic!("{table}: unexpected row index"),
                })
                .collect()
        };
        assert_eq!(data_positions[0], 0, "{table}");
        assert!(data_positions.windows(2).all(|w| w[0] < w[1]), "{table}");
        // Same Data.db layout as oa (MANIFEST §3: equal lengths) → the positions Index.db gives.
        if table != "legacy_da_clust_counter" {
            let oa_table = table.replace("_da_", "_oa_");
            assert_eq!(
                data_positions,
                index_positions(&fx, "oa", &oa_table),
                "{table}"
            );
        }
        // Exact lookups.
        let trie = TrieBytes::partitions(&pbytes, 0);
        let root = p.footer.root_position.value;
        for (e, k) in p.entries.iter().zip(KEYS) {
            let found = partitions::lookup(&trie, root, &Partitioner::ByteOrdered, k)
                .unwrap()
                .unwrap();
            match found {
                PartitionLookup::Candidate { payload, .. } => {
                    assert_eq!(payload, e.payload, "{table} {k:?}")
                }
                PartitionLookup::Absent(why) => panic!("{table} {k:?}: {why:?}"),
            }
        }
        for absent in [&b"5"[..], b"", b"/"] {
            let found = partitions::lookup(&trie, root, &Partitioner::ByteOrdered, absent)
                .unwrap()
                .unwrap();
            assert!(
                matches!(found, PartitionLookup::Absent(_)),
                "{table} {absent:?}: {found:?}"
            );
        }
        let node = p.to_node();
        assert_eq!(node.label, "Partitions.db");
    }
}

#[test]
fn md5_and_tokens() {
    assert_eq!(
        md5_digest(b"message digest"),
        [
            0xf9, 0x6b, 0x69, 0x7d, 0x7c, 0xb7, 0x93, 0x8d, 0x52, 0x5a, 0x2f, 0x31, 0xaa, 0xf1,
            0x61, 0xd0
        ]
    );
    assert_eq!(
        md5_digest(b""),
        [
            0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8,
            0x42, 0x7e
        ]
    );
    // MD5("a") = 0cc175b9…: positive, so the token is the digest read as an integer.
    let expected = u128::from_str_radix("0cc175b9c0f1b6a831c399e269772661", 16).unwrap();
    assert_eq!(
        Partitioner::Random.token(b"a").to_string(),
        expected.to_string()
    );
    assert_eq!(
        Partitioner::from_class_name("org.apache.cassandra.dht.RandomPartitioner"),
        Partitioner::Random
    );
}

/// Runs every decoder that takes Index.db bytes; must not panic.
fn exercise_index(bytes: &[u8], version: Version) {
    let (idx, _) = index::decode_partial(bytes, &version);
    let file = IndexFile::whole(bytes, version);
    let lengths = [None];
    for e in idx.entries.iter().take(2) {
        if let Ok(Some(p)) = file.promoted_index(e) {
            for j in 0..p.block_count.value.min(3) {
                let _ = file.block(&p, j, &lengths);
            }
            let _ = file.block(&p, p.block_count.value.saturating_sub(1), &lengths);
            let _ = p.to_node();
        }
    }
    let _ = idx.to_node();
}

fn exercise_partitions(bytes: &[u8]) {
    if let Ok(p) = partitions::decode(bytes) {
        let _ = p.to_node();
    }
    if let Ok(f) = partitions::decode_footer(bytes, 0) {
        let trie = TrieBytes::partitions(bytes, 0);
        for k in [&b"0"[..], b"3", b"5"] {
            let _ = partitions::lookup(&trie, f.root_position.value, &Partitioner::ByteOrdered, k);
        }
    }
}

fn exercise_rows(bytes: &[u8], positions: &[u64]) {
    let trie = TrieBytes::rows(bytes, 0);
    for &pos in positions {
        if let Ok(ri) = rows::decode_row_index(&trie, pos, &da()) {
            let _ = ri.to_node();
        }
    }
}

/// Every truncation and every single-byte flip of `bytes` within `range`.
fn mutations(bytes: &[u8], range: std::ops::Range<usize>, xors: &[u8], mut f: impl FnMut(&[u8])) {
    let mut runs = 0usize;
    for cut in range.clone() {
        f(&bytes[..cut]);
        runs += 1;
    }
    let mut copy = bytes.to_vec();
    for i in range {
        for &x in xors {
            copy[i] ^= x;
            f(&copy);
            copy[i] ^= x;
            runs += 1;
        }
    }
    assert!(runs < 200_000, "test loop bound");
}

#[test]
fn truncations_and_flips_never_panic() {
    let Some(fx) = common::cassandra_fixtures("indexes::truncations_and_flips_never_panic") else {
        return;
    };
    let started = std::time::Instant::now();
    let nb = big("nb");
    let simple = read(
        &component(
            &common::legacy_dir(&fx, "nb", "legacy_nb_simple"),
            "Index.db",
        )
        .unwrap(),
    );
    assert_eq!(simple.len(), 26);
    mutations(&simple, 0..simple.len(), &[0x01, 0x80, 0xff], |b| {
        exercise_index(b, nb)
    });

    // nb clust: its first entry's header, first blocks and offsets table, and the second key.
    let clust = read(
        &component(
            &common::legacy_dir(&fx, "nb", "legacy_nb_clust"),
            "Index.db",
        )
        .unwrap(),
    );
    let idx = index::decode(&clust, &nb).unwrap();
    let first = &idx.entries[0];
    let table_start = first.span.end as usize - 4 * first.block_count.unwrap() as usize;
    mutations(&clust, 0..1300, &[0xff], |b| exercise_index(b, nb));
    mutations(
        &clust,
        table_start - 40..first.span.end as usize + 8,
        &[0x01, 0xff],
        |b| exercise_index(b, nb),
    );
    // The legacy layout too (ka simple).
    let ka = read(
        &component(
            &common::legacy_dir(&fx, "ka", "legacy_ka_simple"),
            "Index.db",
        )
        .unwrap(),
    );
    mutations(&ka, 0..ka.len(), &[0x01, 0x80, 0xff], |b| {
        exercise_index(b, big("ka"))
    });

    let dir = common::legacy_dir(&fx, "da", "legacy_da_clust");
    let pbytes = read(&component(&dir, "Partitions.db").unwrap());
    let rbytes = read(&component(&dir, "Rows.db").unwrap());
    mutations(
        &pbytes,
        0..pbytes.len(),
        &[0x01, 0x10, 0x80, 0xff],
        exercise_partitions,
    );
    let positions: Vec<u64> = partitions::decode(&pbytes)
        .unwrap()
        .entries
        .iter()
        .filter_map(|e| match e.payload.target {
            PartitionTarget::RowIndex { rows_position } => Some(rows_position),
            PartitionTarget::Data { .. } => None,
        })
        .collect();
    assert_eq!(positions.len(), 5);
    mutations(&rbytes, 0..rbytes.len(), &[0x01, 0x10, 0x80, 0xff], |b| {
        exercise_rows(b, &positions)
    });
    assert!(
        started.elapsed() < std::time::Duration::from_secs(300),
        "took {:?}",
        started.elapsed()
    );
}
