//! The read path of one key (`lookup`) and the index cross-checks (`crosscheck`) on the real
//! fixtures (MANIFEST.md §2, §3, §5, §6), with Data.db decoded independently to know where each
//! partition really is.

use crate::common;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sstable_engine::clock::{Clock, NoClock};
use sstable_engine::component::bti::partitions::NotFound;
use sstable_engine::component::data::DataItem;
use sstable_engine::component::data::{DataFileReader, DecodeOptions};
use sstable_engine::component::index::{IndexFile, IndexStep};
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::crosscheck::{
    CrossCheckKind, CrossCheckReport, CrossChecker, IndexedPartition,
};
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::lookup::{
    lookup_with, read_partition_start_with, read_partition_with, CheckedDataReader, Lookup,
    LookupResult, StopReason,
};
use sstable_engine::range::{
    ByteRange, FnSource, RangeReader, RangeSource, SliceSource, SyncDriver,
};
use sstable_engine::sstable_set::group_files;
use sstable_engine::{ComponentType, Error};

/// A `read_at(component, offset, len)` closure as the engine's range source.
fn src<F>(mut f: F) -> impl RangeSource
where
    F: FnMut(&ComponentType, u64, usize) -> Result<Vec<u8>, Error>,
{
    FnSource(move |r: &ByteRange| f(&r.component, r.offset, r.len as usize))
}

fn data_file_reader(m: &SSTableMetadata) -> Result<DataFileReader, Error> {
    DataFileReader::for_sstable(m, DecodeOptions::default())
}

fn checked_reader(m: &SSTableMetadata) -> Result<CheckedDataReader, Error> {
    CheckedDataReader::for_sstable(m, DecodeOptions::default())
}

const TABLES: [&str; 4] = ["simple", "simple_counter", "clust", "clust_counter"];
/// Every version with the generated legacy tables that the lookup covers.
const VERSIONS: [&str; 12] = [
    "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
];

/// One SSTable: its files and decoded metadata.
struct Table {
    name: String,
    files: Vec<(ComponentType, PathBuf)>,
    metadata: SSTableMetadata,
}

impl Table {
    fn path(&self, c: &ComponentType) -> &Path {
        self.files
            .iter()
            .find(|(x, _)| x == c)
            .map(|(_, p)| p.as_path())
            .unwrap_or_else(|| panic!("{}: no {c}", self.name))
    }

    fn bytes(&self, c: &ComponentType) -> Vec<u8> {
        std::fs::read(self.path(c)).unwrap()
    }

    fn version(&self) -> &str {
        self.metadata.descriptor.version.as_str()
    }

    fn is_bti(&self) -> bool {
        self.version() == "da"
    }

    /// A `read_at` over the files, counting the bytes read.
    fn reader<'a>(
        &'a self,
        read_bytes: &'a Cell<u64>,
    ) -> impl FnMut(&ComponentType, u64, usize) -> Result<Vec<u8>, Error> + 'a {
        move |c, offset, len| {
            let all = self.bytes(c);
            let start = offset as usize;
            let end = (start + len).min(all.len());
            read_bytes.set(read_bytes.get() + (end - start) as u64);
            Ok(all[start..end].to_vec())
        }
    }

    fn lookup(&self, key: &[u8]) -> LookupResult {
        let read = Cell::new(0);
        lookup_with(&self.metadata, key, src(self.reader(&read)), &NoClock)
    }

    /// Positioned reads of Data.db through the engine's sync driver.
    fn data_driver(&self) -> SyncDriver<impl RangeSource + '_> {
        let data = self.bytes(&ComponentType::Data);
        SyncDriver::new(src(move |_, offset, len| {
            let start = offset as usize;
            Ok(data[start..(start + len).min(data.len())].to_vec())
        }))
    }

    /// The uncompressed Data.db.
    fn uncompressed(&self) -> Vec<u8> {
        let data = self.bytes(&ComponentType::Data);
        let Some(c) = &self.metadata.compression else {
            return data;
        };
        let compressor = Compressor::from_class_name(&c.compressor);
        let mut out = Vec::new();
        let mut chunk = Vec::new();
        for i in 0..c.chunk_offsets.len() {
            let (start, end) = c.chunk_span(i, data.len() as u64).unwrap();
            let stored = &data[start as usize..end as usize - 4];
            let expected = c.chunk_uncompressed_len(i).unwrap() as usize;
            decompress_chunk(&compressor, stored, expected, &mut chunk).unwrap();
            out.extend_from_slice(&chunk);
        }
        assert_eq!(out.len() as u64, c.data_length_bytes.value);
        out
    }

    /// Where each partition starts, found without any index: 3.0+ by decoding the whole Data.db
    /// from position 0; before 3.0 by finding each key's partition header (u16 length, key,
    /// LIVE DeletionTime `7fffffff 8000000000000000`) in the uncompressed bytes.
    fn partitions_in_data(&self, keys: &[Vec<u8>]) -> BTreeMap<Vec<u8>, u64> {
        let mut out = BTreeMap::new();
        if self.metadata.descriptor.version.has_row_format() {
            let mut reader = data_file_reader(&self.metadata).unwrap();
            let data = self.bytes(&ComponentType::Data);
            let files = [(ComponentType::Data, data.as_slice())];
            let mut driver = SyncDriver::new(SliceSource { files: &files });
            for item in driver.items(&mut reader, &NoClock) {
                if let DataItem::PartitionStart(s) = item.unwrap() {
                    out.insert(s.key.bytes.bytes.clone(), s.position);
                }
            }
            return out;
        }
        let data = self.uncompressed();
        for key in keys {
            let mut pattern = (key.len() as u16).to_be_bytes().to_vec();
            pattern.extend_from_slice(key);
            pattern.extend_from_slice(&[0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]);
            let hits: Vec<usize> = data
                .windows(pattern.len())
                .enumerate()
                .filter(|(_, w)| *w == pattern.as_slice())
                .map(|(i, _)| i)
                .collect();
            assert_eq!(hits.len(), 1, "{}: header of {key:?} in Data.db", self.name);
            out.insert(key.clone(), hits[0] as u64);
        }
        out
    }

    /// Index.db entries (key, Data.db position, entry offset), read whole (test only).
    fn index_entries(&self) -> Vec<(Vec<u8>, u64, u64)> {
        let bytes = self.bytes(&ComponentType::PrimaryIndex);
        let file = IndexFile::whole(&bytes, self.metadata.descriptor.version);
        let mut cursor = file.cursor(true);
        let mut out = Vec::new();
        loop {
            match cursor.next_step().unwrap() {
                IndexStep::Entry(e) => out.push((e.key.value, e.position.value, e.span.start)),
                IndexStep::End => return out,
                IndexStep::NeedMoreBytes { .. } => panic!("whole file"),
            }
        }
    }

    /// Cross-checks of a big table's Index.db (with `index` replacing the file's bytes).
    fn crosscheck_big(&self, index: &[u8]) -> CrossCheckReport {
        let file = IndexFile::whole(index, self.metadata.descriptor.version);
        let mut checker = CrossChecker::new(&self.metadata);
        let mut reader = checked_reader(&self.metadata).unwrap();
        let mut driver = self.data_driver();
        for (number, e) in file.cursor(true).enumerate() {
            let e = e.unwrap();
            let p = IndexedPartition {
                number,
                key: &e.key.value,
                position: e.position.value,
                index_offset: Some(e.span.start),
            };
            checker.add_entry(&p);
            let start = read_partition_start_with(&mut reader, p.position, &mut driver, &NoClock);
            checker.check_data_key(&p, start.as_ref());
        }
        checker.finish(None)
    }
}

fn load(dir: &Path, prefix_contains: &str) -> Table {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let grouping = group_files(&names);
    let sstable = grouping
        .sstables
        .iter()
        .find(|s| s.prefix.contains(prefix_contains))
        .unwrap_or_else(|| panic!("{}: no SSTable {prefix_contains}", dir.display()));
    let files: Vec<(ComponentType, PathBuf)> = sstable
        .files
        .iter()
        .map(|(c, i)| (c.clone(), PathBuf::from(&names[*i])))
        .collect();
    let contents: Vec<(u64, Option<Vec<u8>>)> = files
        .iter()
        .map(|(c, p)| {
            let size = std::fs::metadata(p).unwrap().len();
            (size, reads_whole(c).then(|| std::fs::read(p).unwrap()))
        })
        .collect();
    let inputs: Vec<ComponentInput<'_>> = files
        .iter()
        .zip(&contents)
        .map(|((c, _), (size, bytes))| ComponentInput {
            component: c,
            size_bytes: *size,
            bytes: bytes.as_deref(),
        })
        .collect();
    let metadata = decode_metadata(&sstable.descriptor, &inputs);
    assert!(
        metadata.errors.is_empty(),
        "{}: {:?}",
        sstable.prefix,
        metadata.errors
    );
    Table {
        name: sstable.prefix.clone(),
        files,
        metadata,
    }
}

fn legacy(fx: &Path, v: &str, table: &str) -> Table {
    load(
        &common::legacy_dir(fx, v, &format!("legacy_{v}_{table}")),
        "",
    )
}

fn components(r: &LookupResult) -> Vec<&str> {
    r.steps.iter().map(|s| s.component.file_suffix()).collect()
}

/// A key that sorts between "1" and "2" (ByteOrdered) and that the bloom filter lets through.
fn bloom_false_positive(t: &Table) -> Option<Vec<u8>> {
    let filter = t.metadata.filter.as_ref()?;
    (0..100_000u32)
        .map(|i| format!("1{i}").into_bytes())
        .find(|k| filter.contains(k))
}

#[test]
fn legacy_tables_find_every_key_through_their_index() {
    let Some(fx) = common::cassandra_fixtures("lookup::legacy_tables") else {
        return;
    };
    let keys: Vec<Vec<u8>> = ["0", "1", "2", "3", "4"]
        .iter()
        .map(|k| k.as_bytes().to_vec())
        .collect();
    let mut misses_in_range = 0;
    for v in VERSIONS {
        for table in TABLES {
            let t = legacy(&fx, v, table);
            let what = format!("{v} {table}");
            let truth = t.partitions_in_data(&keys);
            assert_eq!(truth.len(), 5, "{what}: {truth:?}");
            assert_eq!(truth.get(b"0".as_slice()), Some(&0), "{what}");
            for key in &keys {
                let r = t.lookup(key);
                assert!(r.found, "{what} {key:?}: {:?}", r.stopped_at);
                assert_eq!(r.stopped_at, None, "{what}");
                assert_eq!(
                    r.partition_position,
                    truth.get(key).copied(),
                    "{what} {key:?}"
                );
                // ByteOrderedPartitioner: the token is the key bytes.
                assert_eq!(r.token.to_string(), format!("{:02x}", key[0]), "{what}");
                let bloom = r.bloom.as_ref().expect("a bloom filter");
                assert!(bloom.maybe_present, "{what}");
                // §2: FP chance 0.01 → 5 hash functions, all bits set for a present key.
                assert_eq!(bloom.bits.len(), 5, "{what}");
                assert!(bloom.bits.iter().all(|b| b.set), "{what}");
                let start = r.partition_start.as_ref().unwrap();
                assert_eq!(start.key.bytes.bytes, *key, "{what}");
                assert_eq!(start.position, truth[key], "{what}");
                assert!(start.deletion.is_live(), "{what}");
                let steps = components(&r);
                assert_eq!(steps[0], "Filter.db", "{what}");
                assert_eq!(steps.last(), Some(&"Data.db"), "{what}: {steps:?}");
                let hit = r.index_entry.as_ref().unwrap();
                if t.is_bti() {
                    // Footer, then the one page of the 58–62 byte trie; Rows.db only for the
                    // clustering tables (their partitions have ≥ 2 row-index blocks).
                    assert_eq!(steps[1..3], ["Partitions.db", "Partitions.db"], "{what}");
                    assert_eq!(r.steps[1].length, 24, "{what}: footer");
                    assert_eq!(r.steps[2].offset, 0, "{what}: page 0");
                    if table.starts_with("clust") {
                        assert_eq!(steps[3], "Rows.db", "{what}");
                        assert_eq!(hit.component, ComponentType::Rows, "{what}");
                        assert!(hit.block_count >= 2, "{what}: {hit:?}");
                    } else {
                        assert_eq!(steps.len(), 4, "{what}: {steps:?}");
                        assert_eq!(hit.component, ComponentType::Partitions, "{what}");
                        assert_eq!(hit.block_count, 0, "{what}");
                    }
                } else {
                    assert_eq!(steps[1], "Summary.db", "{what}");
                    assert_eq!(steps[2], "Index.db", "{what}: {steps:?}");
                    assert_eq!(hit.component, ComponentType::PrimaryIndex, "{what}");
                    // One summary sample (5 < 128 keys) at Index.db 0: the scan reaches the
                    // key's entry after `key` others.
                    let n = (key[0] - b'0') as usize;
                    assert_eq!(hit.scanned_entries, Some(n), "{what}");
                    let index = t.index_entries();
                    assert_eq!(hit.offset, index[n].2, "{what}");
                    assert_eq!(index[n].1, truth[key], "{what}: Index.db position");
                    // Clustering tables: ~67 KB partitions carry a promoted index.
                    assert_eq!(hit.block_count >= 2, table.starts_with("clust"), "{what}");
                }
                // Each read step names the range it read.
                for s in &r.steps {
                    assert!(s.touched_bytes <= s.length, "{what}: {s:?}");
                }
            }
            // "5" sorts after every key: the bloom filter or the index rules it out.
            let r = t.lookup(b"5");
            assert!(!r.found, "{what}");
            assert_eq!(r.partition_position, None);
            let bloom = r.bloom.as_ref().unwrap();
            let expected = if !bloom.maybe_present {
                StopReason::BloomNegative
            } else if t.is_bti() {
                StopReason::PartitionIndexMiss {
                    reason: NotFound::NoTransition,
                    matched_bytes: 1,
                }
            } else {
                StopReason::OutsideKeyRange {
                    side: "after the last key",
                }
            };
            assert_eq!(r.stopped_at, Some(expected), "{what}");
            if t.is_bti() {
                // "No transition" is confirmed by the first partition under the nearest
                // transition: its key shares the prefix the trie gives it.
                assert!(
                    components(&r).contains(&"Data.db") || components(&r).contains(&"Rows.db"),
                    "{what}"
                );
            } else {
                assert!(!components(&r).contains(&"Data.db"), "{what}");
            }
            // A key inside the range that passes the bloom filter: the index must rule it out.
            if let Some(fp) = bloom_false_positive(&t) {
                misses_in_range += 1;
                let r = t.lookup(&fp);
                assert!(!r.found, "{what} {fp:?}");
                assert!(r.bloom.as_ref().unwrap().maybe_present);
                match r.stopped_at.as_ref().unwrap() {
                    StopReason::IndexMiss {
                        passed_key,
                        range_start,
                        ..
                    } => {
                        assert!(!t.is_bti(), "{what}");
                        assert!(*passed_key, "{what}: key \"2\" follows");
                        assert_eq!(*range_start, 0);
                    }
                    StopReason::PartitionIndexMiss { .. } | StopReason::DataKeyMismatch { .. } => {
                        assert!(t.is_bti(), "{what}")
                    }
                    other => panic!("{what}: {other:?}"),
                }
            }
        }
    }
    assert!(misses_in_range > 0);
}

/// MANIFEST §6: keys 1..10 (int), Murmur3; Index.db order 5, 10, 1, 8, 2, 4, 7, 6, 9, 3.
#[test]
fn murmur3_bloom_filter_tables_in_token_order() {
    let Some(fx) = common::cassandra_fixtures("lookup::bloom_filter_tables") else {
        return;
    };
    for (v, dir) in [("ka", "ka/foo"), ("la", "la/foo")] {
        let t = load(&fx.join("other/bloom-filter").join(dir), "");
        let index = t.index_entries();
        let order: Vec<i32> = index
            .iter()
            .map(|(k, _, _)| i32::from_be_bytes(k.as_slice().try_into().unwrap()))
            .collect();
        assert_eq!(order, [5, 10, 1, 8, 2, 4, 7, 6, 9, 3], "{v}");
        let keys: Vec<Vec<u8>> = index.iter().map(|(k, _, _)| k.clone()).collect();
        let truth = t.partitions_in_data(&keys);
        for k in 1..=10i32 {
            // Pre-3.0 tables record no key type: keys are given in hex.
            let key = t.metadata.parse_key(&format!("0x{k:08x}")).unwrap();
            assert_eq!(key, k.to_be_bytes());
            let r = t.lookup(&key);
            assert!(r.found, "{v} {k}: {:?}", r.stopped_at);
            assert_eq!(r.partition_position, Some(truth[&key]), "{v} {k}");
            assert_eq!(
                components(&r),
                ["Filter.db", "Summary.db", "Index.db", "Data.db"],
                "{v} {k}"
            );
            let token: i64 = r.token.to_string().parse().unwrap();
            assert_eq!(
                token,
                sstable_engine::hash::murmur3_token(&key),
                "{v} {k}: Murmur3 token"
            );
        }
        // Tokens grow in index order.
        let tokens: Vec<i64> = keys
            .iter()
            .map(|k| sstable_engine::hash::murmur3_token(k))
            .collect();
        assert!(tokens.windows(2).all(|w| w[0] < w[1]), "{v}: {tokens:?}");
        // Keys that are not there: stopped by the filter or the index, never found.
        for k in 11..200i32 {
            let r = t.lookup(&k.to_be_bytes());
            assert!(!r.found, "{v} {k}");
            let reason = r.stopped_at.unwrap();
            if r.bloom.as_ref().unwrap().maybe_present {
                assert!(
                    matches!(
                        reason,
                        StopReason::IndexMiss { .. } | StopReason::OutsideKeyRange { .. }
                    ),
                    "{v} {k}: {reason:?}"
                );
            } else {
                assert_eq!(reason, StopReason::BloomNegative, "{v} {k}");
            }
        }
        let report = t.crosscheck_big(&t.bytes(&ComponentType::PrimaryIndex));
        assert!(report.is_clean(), "{v}: {:?}", report.findings);
        assert_eq!((report.checked, report.data_keys_checked), (10, 10), "{v}");
    }
}

/// MANIFEST §6: negative-local-expiration table1 (`k int PK, a int, b int`), rows (1,1,1) and
/// (2,2,null), index order 1, 2.
#[test]
fn negative_local_expiration_lookup_of_int_key() {
    let Some(fx) = common::cassandra_fixtures("lookup::negative_local_expiration") else {
        return;
    };
    let t = load(&fx.join("other/negative-local-expiration-test/table1"), "");
    let key = t.metadata.parse_key("1").unwrap();
    assert_eq!(key, [0, 0, 0, 1]);
    let r = t.lookup(&key);
    assert!(r.found, "{:?}", r.stopped_at);
    let truth = t.partitions_in_data(&[]);
    assert_eq!(truth.len(), 2);
    assert_eq!(r.partition_position, Some(truth[&key]));
    assert_eq!(r.partition_position, Some(0), "index order 1, 2");
    assert_eq!(
        r.token.to_string(),
        sstable_engine::hash::murmur3_token(&key).to_string()
    );
    // The rows, from the returned position.
    let mut reader = checked_reader(&t.metadata).unwrap();
    let mut items = Vec::new();
    let p = read_partition_with(
        &mut reader,
        r.partition_position.unwrap(),
        &mut t.data_driver(),
        &NoClock,
        |i| items.push(i.clone()),
    )
    .unwrap();
    assert_eq!(p.rows, 1);
    assert!(!p.has_static_row);
    assert_eq!(p.start.key.bytes.bytes, key);
    assert!(matches!(items.first(), Some(DataItem::PartitionStart(_))));
    assert!(matches!(items.last(), Some(DataItem::PartitionEnd(_))));
    assert_eq!(p.end.partition_span.start, 0);
    assert_eq!(
        Some(p.end.partition_span.end),
        truth.get([0, 0, 0, 2].as_slice()).copied()
    );
    // Key 2 follows; key 3 is absent.
    assert_eq!(
        t.lookup(&[0, 0, 0, 2]).partition_position,
        truth.get([0, 0, 0, 2].as_slice()).copied()
    );
    assert!(!t.lookup(&[0, 0, 0, 3]).found);
}

/// A clock that advances 1000 ns each time it is read.
struct Ticking(Cell<u64>);

impl Clock for Ticking {
    fn now_nanos(&self) -> u64 {
        self.0.set(self.0.get() + 1000);
        self.0.get()
    }
}

#[test]
fn driving_the_state_machine_by_hand() {
    let Some(fx) = common::cassandra_fixtures("lookup::state_machine") else {
        return;
    };
    for v in ["nb", "da"] {
        let t = legacy(&fx, v, "clust");
        let clock = Ticking(Cell::new(0));
        let mut lookup = Lookup::new(&t.metadata, b"3".to_vec(), &clock);
        let mut requests = Vec::new();
        while let Some(req) = lookup.next_read() {
            let all = t.bytes(&req.component);
            assert!(req.offset + req.len <= all.len() as u64, "{v}: {req:?}");
            let bytes = &all[req.offset as usize..(req.offset + req.len) as usize];
            lookup.supply(&req, bytes, &clock).unwrap();
            requests.push(req);
            assert!(requests.len() < 100, "{v}: no end");
        }
        assert!(lookup.is_done());
        // Supplying when nothing is asked for is an error, not a panic.
        assert!(lookup
            .supply(
                &ByteRange::new(ComponentType::Data, 0, 3),
                &[1, 2, 3],
                &clock
            )
            .is_err());
        let r = lookup.into_result();
        assert!(r.found, "{v}");
        // The read steps are the requests, in order, after the in-memory ones.
        let memory = if v == "da" { 1 } else { 2 };
        assert_eq!(r.steps.len(), memory + requests.len(), "{v}");
        for (s, q) in r.steps[memory..].iter().zip(&requests) {
            assert_eq!(
                (&s.component, s.offset, s.length),
                (&q.component, q.offset, q.len)
            );
            assert!(s.nanos >= 1000, "{v}: time from the injected clock");
        }
        assert!(r.total_nanos() >= 1000 * r.steps.len() as u64);
        // Data.db is read chunk by chunk: the first chunk holding the partition.
        let data_step = r
            .steps
            .iter()
            .find(|s| s.component == ComponentType::Data)
            .unwrap();
        let c = t.metadata.compression.as_ref().unwrap();
        let chunk = c.chunk_for_position(r.partition_position.unwrap()).unwrap();
        assert_eq!(data_step.offset, c.chunk_offsets[chunk], "{v}");
        // Never the whole Data.db or index.
        let data_len = std::fs::metadata(t.path(&ComponentType::Data))
            .unwrap()
            .len();
        let read: u64 = requests
            .iter()
            .filter(|q| q.component == ComponentType::Data)
            .map(|q| q.len)
            .sum();
        assert!(read < data_len / 4, "{v}: {read} of {data_len}");
    }
}

#[test]
fn a_failed_read_ends_the_lookup_where_it_happened() {
    let Some(fx) = common::cassandra_fixtures("lookup::failed_read") else {
        return;
    };
    let t = legacy(&fx, "nb", "simple");
    let r = lookup_with(
        &t.metadata,
        b"2",
        src(|c, offset, _| {
            if *c == ComponentType::Data {
                Err(Error::invalid("disk on fire", offset))
            } else {
                let all = t.bytes(c);
                Ok(all[offset as usize..].to_vec())
            }
        }),
        &NoClock,
    );
    assert!(!r.found);
    match r.stopped_at {
        Some(StopReason::Error {
            component: Some(ComponentType::Data),
            ref message,
            ..
        }) => assert!(message.contains("disk on fire"), "{message}"),
        ref other => panic!("{other:?}"),
    }
    assert_eq!(r.steps.last().unwrap().component, ComponentType::Data);
}

#[test]
fn corrupt_indexes_give_a_result_never_a_panic() {
    let Some(fx) = common::cassandra_fixtures("lookup::corrupt_indexes") else {
        return;
    };
    for (v, table, component) in [
        ("nb", "simple", ComponentType::PrimaryIndex),
        ("la", "simple", ComponentType::PrimaryIndex),
        ("da", "simple", ComponentType::Partitions),
        ("da", "clust", ComponentType::Partitions),
        ("da", "clust", ComponentType::Rows),
    ] {
        let t = legacy(&fx, v, table);
        let original = t.bytes(&component);
        for i in 0..original.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bytes = original.clone();
                bytes[i] ^= flip;
                for key in [b"2".as_slice(), b"4"] {
                    let r = lookup_with(
                        &t.metadata,
                        key,
                        src(|c, offset, len| {
                            let all = if *c == component {
                                bytes.clone()
                            } else {
                                t.bytes(c)
                            };
                            let start = (offset as usize).min(all.len());
                            Ok(all[start..(start + len).min(all.len())].to_vec())
                        }),
                        &NoClock,
                    );
                    // Found (the flip did not matter) or a stop that says why.
                    assert!(r.found != r.stopped_at.is_some(), "{v} {table} {i}");
                    if r.found {
                        assert_eq!(
                            r.partition_start.as_ref().unwrap().key.bytes.bytes,
                            key,
                            "{v} {table} {component} byte {i} ^ {flip:#x}: a found key is confirmed in Data.db"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn crosschecks_are_clean_on_every_legacy_table() {
    let Some(fx) = common::cassandra_fixtures("lookup::crosscheck_clean") else {
        return;
    };
    for v in VERSIONS.iter().filter(|v| **v != "da") {
        for table in TABLES {
            let t = legacy(&fx, v, table);
            let report = t.crosscheck_big(&t.bytes(&ComponentType::PrimaryIndex));
            assert!(report.is_clean(), "{v} {table}: {:?}", report.findings);
            assert_eq!(report.checked, 5, "{v} {table}");
            assert_eq!(report.data_keys_checked, 5, "{v} {table}");
            assert_eq!(report.summary_samples_checked, 1, "{v} {table}");
        }
    }
}

/// MANIFEST §6: corrupt jb Keyspace1-Standard3 lists f, e, d, a, b, c.
#[test]
fn out_of_order_keys_are_reported_by_entry() {
    let Some(fx) = common::cassandra_fixtures("lookup::crosscheck_order") else {
        return;
    };
    let t = load(&fx.join("other/corrupt-sstables"), "Standard3");
    let keys: Vec<Vec<u8>> = t.index_entries().into_iter().map(|e| e.0).collect();
    assert_eq!(
        keys,
        [b"f", b"e", b"d", b"a", b"b", b"c"].map(|k| k.to_vec())
    );
    let report = t.crosscheck_big(&t.bytes(&ComponentType::PrimaryIndex));
    let order: Vec<(Option<usize>, Option<Vec<u8>>)> = report
        .of_kind(CrossCheckKind::KeyOrder)
        .map(|f| (f.entry, f.key.clone()))
        .collect();
    assert_eq!(
        order,
        [
            (Some(1), Some(b"e".to_vec())),
            (Some(2), Some(b"d".to_vec())),
            (Some(3), Some(b"a".to_vec()))
        ]
    );
    let f = report.of_kind(CrossCheckKind::KeyOrder).next().unwrap();
    assert!(
        f.message.contains("entry 1") && f.message.contains("entry 0"),
        "{}",
        f.message
    );
    // Everything else holds: each entry points at its key in Data.db.
    assert_eq!(report.data_keys_checked, 6);
    assert_eq!(report.of_kind(CrossCheckKind::DataKeyMismatch).count(), 0);
    assert_eq!(
        report.of_kind(CrossCheckKind::BloomFalseNegative).count(),
        0
    );
}

#[test]
fn an_altered_index_position_is_reported_naming_its_entry() {
    let Some(fx) = common::cassandra_fixtures("lookup::crosscheck_altered") else {
        return;
    };
    for v in ["la", "nb", "oa"] {
        let t = legacy(&fx, v, "simple");
        let entries = t.index_entries();
        let original = t.bytes(&ComponentType::PrimaryIndex);
        // Entry 2 ("2"): its position field follows the 3-byte key field.
        let (key, position, offset) = entries[2].clone();
        let field = offset as usize + 3;
        let mut altered = original.clone();
        let new_position = entries[1].1 + 1;
        if v == "la" {
            // i64 position.
            assert_eq!(&altered[field..field + 8], position.to_be_bytes());
            altered[field..field + 8].copy_from_slice(&new_position.to_be_bytes());
        } else {
            // One-byte vint (positions < 128 in these small tables).
            assert_eq!(u64::from(altered[field]), position);
            altered[field] = new_position as u8;
        }
        let report = t.crosscheck_big(&altered);
        assert!(!report.is_clean(), "{v}");
        let mismatch: Vec<_> = report.of_kind(CrossCheckKind::DataKeyMismatch).collect();
        assert_eq!(
            mismatch.len() + report.of_kind(CrossCheckKind::DataUnreadable).count(),
            1,
            "{v}: {:?}",
            report.findings
        );
        let f = report
            .findings
            .iter()
            .find(|f| {
                matches!(
                    f.kind,
                    CrossCheckKind::DataKeyMismatch | CrossCheckKind::DataUnreadable
                )
            })
            .unwrap();
        assert_eq!(f.entry, Some(2), "{v}");
        assert_eq!(f.key.as_deref(), Some(key.as_slice()), "{v}");
        assert_eq!(f.position, Some(new_position), "{v}");
        assert!(f.message.contains("entry 2"), "{v}: {}", f.message);
        // The lookup of "2" through the altered index stops at the Data.db check.
        let r = lookup_with(
            &t.metadata,
            &key,
            src(|c, offset, len| {
                let all = if *c == ComponentType::PrimaryIndex {
                    altered.clone()
                } else {
                    t.bytes(c)
                };
                Ok(all[offset as usize..(offset as usize + len).min(all.len())].to_vec())
            }),
            &NoClock,
        );
        assert!(!r.found, "{v}");
        assert!(
            match &r.stopped_at {
                Some(StopReason::DataKeyMismatch { data_position, .. }) =>
                    *data_position == new_position,
                // The shifted position falls inside a partition: no header decodes there.
                Some(StopReason::Error {
                    component: Some(ComponentType::Data),
                    offset,
                    ..
                }) => *offset >= new_position,
                _ => false,
            },
            "{v}: {:?}",
            r.stopped_at
        );
    }
}

#[test]
fn an_index_or_summary_entry_whose_key_differs_from_what_it_points_to_names_both_offsets() {
    let Some(fx) = common::cassandra_fixtures("lookup::entry_key_mismatch") else {
        return;
    };
    // Index.db entry 2 ("2") given partition 1's Data.db position: the partition there holds "1".
    for v in ["la", "nb", "oa"] {
        let t = legacy(&fx, v, "simple");
        let entries = t.index_entries();
        let (key, position, offset) = entries[2].clone();
        let field = offset as usize + 3;
        let mut altered = t.bytes(&ComponentType::PrimaryIndex);
        let other = entries[1].1;
        if v == "la" {
            assert_eq!(&altered[field..field + 8], position.to_be_bytes());
            altered[field..field + 8].copy_from_slice(&other.to_be_bytes());
        } else {
            assert_eq!(u64::from(altered[field]), position);
            altered[field] = other as u8;
        }
        let r = lookup_altered(&t, &key, &ComponentType::PrimaryIndex, &altered);
        assert!(!r.found, "{v}");
        let (c, at, message) = stopped_with_error(&r);
        assert_eq!((c, at), (&ComponentType::Data, other), "{v}");
        assert_eq!(
            message,
            format!(
                "the Index.db entry at {offset} gives Data.db {other} for the key, but the partition there holds \"1\" (reading partition header)"
            ),
            "{v}"
        );
    }
    // MANIFEST §5: jb Keyspace1-Standard1 holds 900 keys, sampled every 128: sample 1 is
    // Index.db entry 128. Its key altered in Index.db, a lookup of the sampled key through
    // Summary.db meets another key where the sample points.
    let t = load(&fx.join("legacy-sstables/jb/Keyspace1"), "Standard1");
    let summary = t.metadata.summary.as_ref().unwrap();
    let sample = &summary.entries[1];
    let entries = t.index_entries();
    let (key, _, offset) = entries[128].clone();
    assert_eq!(sample.key.value, key);
    assert_eq!(sample.index_position.value, offset);
    let mut altered = t.bytes(&ComponentType::PrimaryIndex);
    // The key (ASCII digits) follows its 2-byte length.
    let last = offset as usize + 2 + key.len() - 1;
    altered[last] ^= 0x01;
    let r = lookup_altered(&t, &key, &ComponentType::PrimaryIndex, &altered);
    assert!(!r.found);
    let (c, at, message) = stopped_with_error(&r);
    assert_eq!((c, at), (&ComponentType::Summary, sample.span().start));
    assert!(
        message.starts_with(&format!(
            "the Summary.db sample at {} holds \"{}\" for Index.db {offset}, but the Index.db entry there holds ",
            sample.span().start,
            String::from_utf8_lossy(&key)
        )),
        "{message}"
    );
    assert!(
        message.contains("\"229\": Summary.db or Index.db is corrupt"),
        "{message}"
    );
}

#[test]
fn a_plain_data_file_is_read_by_block() {
    let Some(fx) = common::cassandra_fixtures("lookup::uncompressed") else {
        return;
    };
    // MANIFEST §5: jb Keyspace1-Standard1 is uncompressed, 900 partitions "100".."999".
    let t = load(&fx.join("legacy-sstables/jb/Keyspace1"), "Standard1");
    assert!(t.metadata.compression.is_none());
    let index = t.index_entries();
    assert_eq!(index.len(), 900);
    for (key, position, _) in index.iter().step_by(97) {
        let r = t.lookup(key);
        assert!(r.found, "{key:?}: {:?}", r.stopped_at);
        assert_eq!(r.partition_position, Some(*position));
        let data = r
            .steps
            .iter()
            .find(|s| s.component == ComponentType::Data)
            .unwrap();
        // The read is widened to the CRC.db chunks it touches, so that each is checked.
        let chunk = u64::from(t.metadata.crc.as_ref().unwrap().chunk_size_bytes.value);
        assert_eq!(data.offset, position / chunk * chunk, "{key:?}");
        assert!(data.offset + data.length > *position);
        assert!(data.length <= 2 * chunk);
    }
    let report = t.crosscheck_big(&t.bytes(&ComponentType::PrimaryIndex));
    assert!(report.is_clean(), "{:?}", report.findings);
    assert_eq!(report.data_keys_checked, 900);
    // 900 keys at interval 128: samples 0, 128, …, 896.
    assert_eq!(report.summary_samples_checked, 8);
}

#[test]
fn without_a_summary_or_a_filter_the_index_is_scanned_from_the_start() {
    let Some(fx) = common::cassandra_fixtures("lookup::no_summary") else {
        return;
    };
    // MANIFEST §5: generation 2 of legacy_ka_with_illegal_cell_names has no Summary.db; it
    // holds key 3.
    let dir = fx.join("legacy-sstables/ka/legacy_tables/legacy_ka_with_illegal_cell_names");
    let t = load(&dir, "-ka-2");
    assert!(t.metadata.summary.is_none());
    let r = t.lookup(&[0, 0, 0, 3]);
    assert!(r.found, "{:?}", r.stopped_at);
    assert_eq!(components(&r), ["Filter.db", "Index.db", "Data.db"]);
    assert_eq!(r.steps[1].offset, 0);
    assert_eq!(r.partition_position, Some(0));
    // Generation 1 (uncompressed, keys 1 and 2) has a summary.
    let t1 = load(&dir, "-ka-1");
    let r = t1.lookup(&[0, 0, 0, 2]);
    assert!(r.found, "{:?}", r.stopped_at);
    assert_eq!(
        components(&r),
        ["Filter.db", "Summary.db", "Index.db", "Data.db"]
    );
    assert!(!t1.lookup(&[0, 0, 0, 3]).found);

    // The same nb table with its filter taken away: no bloom step, the same answer.
    let mut t = legacy(&fx, "nb", "clust_counter");
    let with_filter = t.lookup(b"4");
    t.metadata.filter = None;
    t.metadata
        .sizes_bytes
        .retain(|(c, _)| *c != ComponentType::Filter);
    let r = t.lookup(b"4");
    assert!(r.found);
    assert_eq!(r.bloom, None);
    assert_eq!(r.partition_position, with_filter.partition_position);
    assert_eq!(components(&r)[0], "Summary.db");
    assert_eq!(r.steps.len(), with_filter.steps.len() - 1);
    // "5" is now ruled out by the key range alone.
    assert_eq!(
        t.lookup(b"5").stopped_at,
        Some(StopReason::OutsideKeyRange {
            side: "after the last key"
        })
    );
    assert_eq!(
        t.lookup(b"").stopped_at,
        Some(StopReason::OutsideKeyRange {
            side: "before the first key"
        })
    );
}

/// A lookup over `t` with `component` replaced by `bytes` (its size in the metadata too).
fn lookup_altered(t: &Table, key: &[u8], component: &ComponentType, bytes: &[u8]) -> LookupResult {
    let mut metadata = t.metadata.clone();
    for (c, size) in &mut metadata.sizes_bytes {
        if c == component {
            *size = bytes.len() as u64;
        }
    }
    let reads = Cell::new(0u32);
    let r = lookup_with(
        &metadata,
        key,
        src(|c, offset, len| {
            reads.set(reads.get() + 1);
            assert!(reads.get() < 1000, "the lookup does not end");
            let all = if c == component {
                bytes.to_vec()
            } else {
                t.bytes(c)
            };
            let start = (offset as usize).min(all.len());
            Ok(all[start..(start + len).min(all.len())].to_vec())
        }),
        &NoClock,
    );
    r
}

fn stopped_with_error(r: &LookupResult) -> (&ComponentType, u64, &str) {
    match &r.stopped_at {
        Some(StopReason::Error {
            component: Some(c),
            offset,
            message,
        }) => (c, *offset, message.as_str()),
        other => panic!("not an error: {other:?}"),
    }
}

#[test]
fn a_flipped_data_byte_under_a_lookup_is_an_error_naming_the_chunk() {
    let Some(fx) = common::cassandra_fixtures("lookup::flipped_chunk") else {
        return;
    };
    // MANIFEST: nb/legacy_nb_clust chunks start at 0, 424, 836, …; partition "0" starts at 0.
    let t = legacy(&fx, "nb", "clust");
    let mut data = t.bytes(&ComponentType::Data);
    data[100] ^= 0x01;
    let r = lookup_altered(&t, b"0", &ComponentType::Data, &data);
    assert!(!r.found);
    let (c, offset, message) = stopped_with_error(&r);
    assert_eq!((c, offset), (&ComponentType::Data, 0));
    assert!(
        message.starts_with("chunk 0 (Data.db 0..424) fails its checksum: stored CRC32"),
        "{message}"
    );
    // The header is sound but a chunk of the rows is not: reading the partition fails there.
    let mut data = t.bytes(&ComponentType::Data);
    data[500] ^= 0x01;
    let r = lookup_altered(&t, b"0", &ComponentType::Data, &data);
    assert!(r.found, "{:?}", r.stopped_at);
    let mut reader = checked_reader(&t.metadata).unwrap();
    let mut driver = SyncDriver::new(src(|_, offset, len| {
        let start = offset as usize;
        Ok(data[start..(start + len).min(data.len())].to_vec())
    }));
    let e = read_partition_with(&mut reader, 0, &mut driver, &NoClock, |_| {}).unwrap_err();
    assert_eq!(e.component(), Some(&ComponentType::Data));
    assert_eq!(e.offset(), 424);
    assert!(e.to_string().contains("chunk 1 (Data.db 424..836)"), "{e}");
    // Unaltered, the same partition reads whole.
    let mut reader = checked_reader(&t.metadata).unwrap();
    let p = read_partition_with(&mut reader, 0, &mut t.data_driver(), &NoClock, |_| {}).unwrap();
    assert_eq!(p.start.key.bytes.bytes, b"0");
}

#[test]
fn a_flipped_byte_of_an_uncompressed_data_db_under_a_lookup_fails_its_crc_db_chunk() {
    let Some(fx) = common::cassandra_fixtures("lookup::flipped_crc_chunk") else {
        return;
    };
    // MANIFEST §5: jb Keyspace1-Standard1 and ka legacy_ka_with_illegal_cell_names_indexed are
    // uncompressed, with CRC.db. Cassandra does not check CRC.db on read; a lookup does.
    for t in [
        load(&fx.join("legacy-sstables/jb/Keyspace1"), "Standard1"),
        load(
            &fx.join("legacy-sstables/ka/legacy_tables/legacy_ka_with_illegal_cell_names_indexed"),
            "",
        ),
    ] {
        assert!(t.metadata.compression.is_none());
        let chunk = u64::from(t.metadata.crc.as_ref().unwrap().chunk_size_bytes.value);
        let index = t.index_entries();
        let (key, position, _) = index.last().unwrap();
        assert!(t.lookup(key).found);
        // The partition header's local deletion time (after the 2-byte key length and the
        // key): live is 0x7fffffff; flipped, the partition would read as deleted.
        let at = *position as usize + 2 + key.len();
        let mut data = t.bytes(&ComponentType::Data);
        assert_eq!(data[at..at + 4], [0x7f, 0xff, 0xff, 0xff]);
        data[at] ^= 0x80;
        let r = lookup_altered(&t, key, &ComponentType::Data, &data);
        assert!(!r.found);
        let (c, offset, message) = stopped_with_error(&r);
        let i = at as u64 / chunk;
        assert_eq!((c, offset), (&ComponentType::Data, i * chunk));
        assert!(
            message.contains(&format!("fails its CRC.db checksum (chunk {i})")),
            "{message}"
        );
    }
}

#[test]
fn a_broken_read_path_is_an_error_not_a_miss() {
    let Some(fx) = common::cassandra_fixtures("lookup::broken_path") else {
        return;
    };
    let t = legacy(&fx, "nb", "simple");
    let index = t.bytes(&ComponentType::PrimaryIndex);
    let entries = t.index_entries();
    let (last_key, _, last_offset) = entries.last().unwrap().clone();
    // Sound: the last key is found, a key after it is outside the key range.
    assert!(t.lookup(&last_key).found);
    // Index.db cut before its last entry: the scan of the last range ends before any key at
    // or after the sought one, though Summary.db's last key sorts after it.
    let cut = &index[..last_offset as usize];
    let r = lookup_altered(&t, &last_key, &ComponentType::PrimaryIndex, cut);
    assert!(!r.found);
    let (c, offset, message) = stopped_with_error(&r);
    assert_eq!((c, offset), (&ComponentType::PrimaryIndex, last_offset));
    assert!(message.contains("Index.db is truncated"), "{message}");
    // Index.db deleted (listed in TOC.txt).
    let mut gone = t.metadata.clone();
    gone.sizes_bytes
        .retain(|(c, _)| *c != ComponentType::PrimaryIndex);
    gone.components
        .present
        .retain(|c| *c != ComponentType::PrimaryIndex);
    gone.components.missing.push(ComponentType::PrimaryIndex);
    let r = lookup_with(
        &gone,
        &last_key,
        src(|c, o, l| t.reader(&Cell::new(0))(c, o, l)),
        &NoClock,
    );
    let (c, _, message) = stopped_with_error(&r);
    assert_eq!(c, &ComponentType::PrimaryIndex);
    assert!(
        message.contains("missing: the read path is broken"),
        "{message}"
    );
    // A Summary.db that does not decode.
    let mut bad_summary = t.metadata.clone();
    bad_summary.summary = None;
    bad_summary
        .errors
        .push(Error::invalid("corrupt", 7).in_component(ComponentType::Summary));
    let r = lookup_with(
        &bad_summary,
        &last_key,
        src(|c, o, l| t.reader(&Cell::new(0))(c, o, l)),
        &NoClock,
    );
    assert_eq!(stopped_with_error(&r).0, &ComponentType::Summary);
    assert_eq!(stopped_with_error(&r).1, 7);
}

#[test]
fn a_looping_partitions_db_is_an_error_with_bounded_reads() {
    let Some(fx) = common::cassandra_fixtures("lookup::looping_trie") else {
        return;
    };
    for table in ["simple", "clust"] {
        let t = legacy(&fx, "da", table);
        let original = t.bytes(&ComponentType::Partitions);
        assert!(t.lookup(b"2").found);
        // The footer (first-key position, partition count, root) claims the trie ends at byte 1,
        // before its root: every node lies past the trie's end. This once made the lookup ask
        // for the same empty range forever, growing its step list until memory ran out.
        let mut looping = original.clone();
        let footer = looping.len() - 24;
        looping[footer..footer + 8].copy_from_slice(&1i64.to_be_bytes());
        for key in [b"2".as_slice(), b"4"] {
            let r = lookup_altered(&t, key, &ComponentType::Partitions, &looping);
            assert!(!r.found);
            let (c, _, message) = stopped_with_error(&r);
            assert_eq!(c, &ComponentType::Partitions, "{table}");
            assert!(message.contains("outside the trie"), "{message}");
            assert!(r.steps.len() <= 4, "{table}: {} steps", r.steps.len());
        }
    }
}

/// Issue #31: a bloom filter bit flipped so that it hides a key. A bloom filter never says
/// "absent" of a key it was built with, so the index is asked before "absent" is said: the
/// partition is still found, and Filter.db is named corrupt.
#[test]
fn a_flipped_bloom_bit_that_hides_a_key_names_filter_db_and_still_finds_it() {
    let Some(fx) = common::cassandra_fixtures("lookup::bloom_false_negative") else {
        return;
    };
    for v in VERSIONS {
        let t = legacy(&fx, v, "simple");
        let key = b"2";
        let r = t.lookup(key);
        assert!(r.found && !r.bloom.as_ref().unwrap().false_negative, "{v}");
        // The byte of the first probed bit, with each of its bits flipped in turn, until the
        // probe of the key says absent.
        let at = r.bloom.as_ref().unwrap().bits[0].byte_offset as usize;
        let filter = t.bytes(&ComponentType::Filter);
        let hiding = (0..8)
            .map(|bit| {
                let mut bytes = filter.clone();
                bytes[at] ^= 1 << bit;
                // The SSTable's metadata with only the bloom filter decoded from the flipped bytes.
                let mut m = t.metadata.clone();
                m.filter = decode_metadata(
                    &t.metadata.descriptor,
                    &[ComponentInput {
                        component: &ComponentType::Filter,
                        size_bytes: bytes.len() as u64,
                        bytes: Some(&bytes),
                    }],
                )
                .filter;
                m
            })
            .find(|m| !m.filter.as_ref().unwrap().might_contain(key).maybe_present)
            .unwrap_or_else(|| panic!("{v}: no bit of byte {at} hides the key"));
        let read = Cell::new(0);
        let r = lookup_with(&hiding, key, src(t.reader(&read)), &NoClock);
        let what = format!("{v}: {r:?}");
        assert!(r.found, "{what}");
        assert_eq!(
            r.partition_position,
            t.lookup(key).partition_position,
            "{what}"
        );
        let bloom = r.bloom.as_ref().unwrap();
        assert!(!bloom.maybe_present && bloom.false_negative, "{what}");
        assert!(
            r.steps
                .iter()
                .any(|s| s.note.contains("Filter.db is corrupt")),
            "{what}"
        );
        // A key the table does not hold, under the unaltered filter: still the bloom filter's
        // negative, once the index confirms it.
        let absent = t.lookup(b"9");
        assert!(!absent.found, "{v}");
    }
}

/// Issue #31: without a Statistics.db that decodes, the partitioner that orders the index is
/// unknown: the lookup is an error naming Statistics.db, never "absent" or "outside the key
/// range", for a key the SSTable holds and for one it does not.
#[test]
fn without_statistics_db_a_lookup_is_an_error_never_absent() {
    let Some(fx) = common::cassandra_fixtures("lookup::no_statistics") else {
        return;
    };
    for v in VERSIONS {
        let t = legacy(&fx, v, "simple");
        let mut m = t.metadata.clone();
        m.statistics = None;
        m.sizes_bytes
            .retain(|(c, _)| c != &ComponentType::Statistics);
        for key in [b"2".as_slice(), b"9".as_slice()] {
            let read = Cell::new(0);
            let r = lookup_with(&m, key, src(t.reader(&read)), &NoClock);
            assert!(!r.found, "{v}");
            let (component, _, message) = stopped_with_error(&r);
            assert_eq!(component, &ComponentType::Statistics, "{v}: {r:?}");
            assert!(
                message.contains("Statistics.db is missing"),
                "{v}: {message}"
            );
        }
    }
}
