//! The index listing (`index_listing::IndexListing`) on the real fixtures: every legacy table
//! lists the five partitions Cassandra wrote (MANIFEST.md §2: keys "0" to "4"), each key
//! confirmed by the Data.db header at its position, for every big version and BTI `da`; the
//! trie-only BTI listing gives the same payloads; a Rows.db that cannot be read skips the
//! partitions that need it and the listing goes on.

use crate::common;

use std::path::Path;

use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::partitions::PartitionTarget;
use sstable_engine::component::ComponentType;
use sstable_engine::index_listing::{
    IndexListing, ListedBlocks, ListedPartition, ListingItem, ListingOptions,
};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::range::{ByteRange, FnSource, RangeSource, SliceSource, SyncDriver};
use sstable_engine::sstable_set::group_files;
use sstable_engine::Error;

const VERSIONS: [&str; 13] = [
    "jb", "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
];
const KEYS: [&[u8]; 5] = [b"0", b"1", b"2", b"3", b"4"];

/// One SSTable of a fixture directory: its metadata and its files in memory.
struct Table {
    metadata: SSTableMetadata,
    files: Vec<(ComponentType, Vec<u8>)>,
}

fn load(dir: &Path) -> Table {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let grouping = group_files(&names);
    let sstable = grouping.sstables.first().expect("an SSTable");
    let (files, metadata) = common::sstables::read_sstable(&names, sstable);
    assert!(metadata.errors.is_empty(), "{:?}", metadata.errors);
    Table { metadata, files }
}

/// Every item the listing yields, driven over `source`.
fn list(t: &Table, options: ListingOptions, source: impl RangeSource) -> Vec<ListingItem> {
    let mut listing = IndexListing::for_sstable(&t.metadata, options).unwrap();
    assert!(listing.data_error().is_none());
    let mut driver = SyncDriver::new(source);
    let mut out = Vec::new();
    while let Some(item) = driver.pull(&mut listing, &NoClock).unwrap() {
        out.push(item);
    }
    if t.metadata.descriptor.version.as_str() == "da" {
        assert_eq!(listing.expected_count(), Some(5));
        assert!(listing.warnings().is_empty(), "{:?}", listing.warnings());
    }
    out
}

fn partitions(items: Vec<ListingItem>) -> Vec<ListedPartition> {
    items
        .into_iter()
        .map(|i| match i {
            ListingItem::Partition(p) => *p,
            ListingItem::Skipped { message, .. } => panic!("skipped: {message}"),
        })
        .collect()
}

fn tables(fx: &Path, v: &str) -> Vec<(String, Table)> {
    ["simple", "clust"]
        .iter()
        .map(|t| {
            let name = format!("legacy_{v}_{t}");
            let table = load(&common::legacy_dir(fx, v, &name));
            (name, table)
        })
        .collect()
}

#[test]
fn every_version_lists_the_five_partitions_with_their_data_headers() {
    let Some(fx) = common::cassandra_fixtures("index_listing::five_partitions") else {
        return;
    };
    for v in VERSIONS {
        for (name, t) in tables(&fx, v) {
            for blocks in [false, true] {
                let files: Vec<(ComponentType, &[u8])> = t
                    .files
                    .iter()
                    .map(|(c, b)| (c.clone(), b.as_slice()))
                    .collect();
                let source = SliceSource { files: &files };
                let listed = partitions(list(&t, ListingOptions::full(blocks), source));
                let mut keys: Vec<&[u8]> =
                    listed.iter().map(|p| p.key.as_deref().unwrap()).collect();
                keys.sort();
                assert_eq!(keys, KEYS, "{name}");
                let mut previous = None;
                for (i, p) in listed.iter().enumerate() {
                    assert_eq!(p.number, i, "{name}");
                    let position = p.position.unwrap();
                    assert!(previous.is_none_or(|q| position > q), "{name}: order");
                    assert_eq!(previous.is_none(), position == 0, "{name}: starts at 0");
                    previous = Some(position);
                    let header = p.data_header.as_ref().unwrap().as_ref().unwrap();
                    assert_eq!(Some(&header.key.bytes.bytes), p.key.as_ref(), "{name}");
                    assert_eq!(header.position, position, "{name}");
                    match (&p.blocks, blocks) {
                        (None, false) => {}
                        (Some(Ok(ListedBlocks::Index(list))), true) => {
                            assert_eq!(list.len() as u32, p.block_count.unwrap_or(0), "{name}")
                        }
                        (Some(Ok(ListedBlocks::Rows(list))), true) => {
                            assert_eq!(Some(list.len() as u32), p.block_count, "{name}");
                            // Blocks follow each other: each starts where the previous ends.
                            for pair in list.windows(2) {
                                assert_eq!(pair[0].offset + pair[0].width.unwrap(), pair[1].offset);
                            }
                        }
                        // BTI, a partition without a row index: no Rows.db entry.
                        (None, true) if v == "da" => assert!(p.rows_position.is_none()),
                        other => panic!("{name}: blocks {:?} with blocks={blocks}", other.0),
                    }
                }
                if name.ends_with("clust") && blocks {
                    // 50 rows of about 1.3 KiB per partition: more than one 64 KiB block.
                    assert!(
                        listed.iter().all(|p| p.block_count.unwrap_or(0) >= 2),
                        "{name}: {:?}",
                        listed.iter().map(|p| p.block_count).collect::<Vec<_>>()
                    );
                }
            }
        }
    }
}

#[test]
fn the_trie_only_listing_gives_the_payloads_of_the_full_one() {
    let Some(fx) = common::cassandra_fixtures("index_listing::trie_only") else {
        return;
    };
    for (name, t) in tables(&fx, "da") {
        let files: Vec<(ComponentType, &[u8])> = t
            .files
            .iter()
            .filter(|(c, _)| *c == ComponentType::Partitions)
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        // Partitions.db alone is enough: nothing else is read.
        let trie = partitions(list(
            &t,
            ListingOptions::index_only(),
            SliceSource { files: &files },
        ));
        let all: Vec<(ComponentType, &[u8])> = t
            .files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let full = partitions(list(
            &t,
            ListingOptions::full(false),
            SliceSource { files: &all },
        ));
        assert_eq!(trie.len(), 5, "{name}");
        for (a, b) in trie.iter().zip(&full) {
            assert_eq!(a.key, None, "{name}");
            assert_eq!(a.trie, b.trie, "{name}");
            match a.trie.as_ref().unwrap().target {
                PartitionTarget::Data { data_position } => {
                    assert_eq!(Some(data_position), b.position)
                }
                PartitionTarget::RowIndex { rows_position } => {
                    assert_eq!(Some(rows_position), b.rows_position)
                }
            }
        }
    }
}

#[test]
fn a_rows_db_that_cannot_be_read_skips_its_partitions_and_the_listing_goes_on() {
    let Some(fx) = common::cassandra_fixtures("index_listing::rows_unreadable") else {
        return;
    };
    let t = load(&common::legacy_dir(&fx, "da", "legacy_da_clust"));
    let source = FnSource(|range: &ByteRange| -> Result<Vec<u8>, Error> {
        if range.component == ComponentType::Rows {
            return Err(Error::invalid("disk gone", range.offset));
        }
        let (_, bytes) = t.files.iter().find(|(c, _)| *c == range.component).unwrap();
        let end = (range.end() as usize).min(bytes.len());
        Ok(bytes[range.offset as usize..end].to_vec())
    });
    let items = list(&t, ListingOptions::full(false), source);
    assert_eq!(items.len(), 5);
    let mut skipped = 0;
    for (i, item) in items.iter().enumerate() {
        match item {
            ListingItem::Skipped { number, message } => {
                skipped += 1;
                assert_eq!(*number, i);
                assert!(
                    message.starts_with(&format!("entry {i}: Rows.db "))
                        && message.contains("disk gone"),
                    "{message}"
                );
            }
            ListingItem::Partition(p) => assert!(p.rows_position.is_none()),
        }
    }
    // Every clust partition has a row index (more than one block each).
    assert_eq!(skipped, 5);
}

#[test]
fn a_listing_started_at_a_page_start_gives_that_page() {
    let Some(fx) = common::cassandra_fixtures("index_listing::pages") else {
        return;
    };
    // MANIFEST §5: 900 partitions with keys "100".."999".
    let t = load(&fx.join("legacy-sstables/jb/Keyspace1"));
    let files: Vec<(ComponentType, &[u8])> = t
        .files
        .iter()
        .map(|(c, b)| (c.clone(), b.as_slice()))
        .collect();
    let all = partitions(list(
        &t,
        ListingOptions::index_only(),
        SliceSource { files: &files },
    ));
    assert_eq!(all.len(), 900);
    let mut keys: Vec<String> = all
        .iter()
        .map(|p| String::from_utf8(p.key.clone().unwrap()).unwrap())
        .collect();
    keys.sort();
    assert_eq!(keys.first().map(String::as_str), Some("100"));
    assert_eq!(keys.last().map(String::as_str), Some("999"));
    let index_len = t.metadata.size_of(&ComponentType::PrimaryIndex).unwrap();
    let start = all[500].index_offset.unwrap();
    let mut listing = IndexListing::new(&t.metadata, index_len, ListingOptions::index_only())
        .starting_at(start, 500);
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    let mut page = Vec::new();
    while let Some(item) = driver.pull(&mut listing, &NoClock).unwrap() {
        page.push(item);
    }
    let page = partitions(page);
    assert_eq!(page.len(), 400);
    assert_eq!(page[0].number, 500);
    assert!(page.iter().zip(&all[500..]).all(|(a, b)| a == b));
    // Only the page's part of Index.db was read.
    assert!(driver.stats().bytes <= index_len - start);
}

#[test]
fn blocks_are_capped_and_a_promoted_index_over_the_limit_is_an_error() {
    let Some(fx) = common::cassandra_fixtures("index_listing::caps") else {
        return;
    };
    // MANIFEST §3: legacy_ka_clust's promoted index has 100 IndexInfo blocks per partition.
    let t = load(&common::legacy_dir(&fx, "ka", "legacy_ka_clust"));
    let files: Vec<(ComponentType, &[u8])> = t
        .files
        .iter()
        .map(|(c, b)| (c.clone(), b.as_slice()))
        .collect();
    let capped = ListingOptions {
        blocks: true,
        max_blocks: 7,
        ..ListingOptions::index_only()
    };
    for p in partitions(list(&t, capped, SliceSource { files: &files })) {
        assert_eq!(p.block_count, Some(100));
        match p.blocks {
            Some(Ok(ListedBlocks::Index(list))) => {
                assert_eq!(list.len(), 7);
                assert!(list
                    .windows(2)
                    .all(|w| w[0].offset.value < w[1].offset.value));
            }
            other => panic!("{other:?}"),
        }
    }
    let limited = ListingOptions {
        blocks: true,
        max_promoted_bytes: 1,
        ..ListingOptions::index_only()
    };
    for p in partitions(list(&t, limited, SliceSource { files: &files })) {
        let e = p.blocks.unwrap().unwrap_err();
        assert!(e.to_string().contains("over the 1-byte limit"), "{e}");
    }
}
