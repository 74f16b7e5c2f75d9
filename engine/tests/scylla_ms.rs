//! ScyllaDB `ms` (BTI under the `big` name): an `ms`-like SSTable made of each `me` legacy table
//! (`bti::write::ms_from_me`: `me`'s Data.db and Statistics.db, a Partitions.db over its
//! partitions, an empty Rows.db) is read as BTI — by its version and by its components — and
//! lists, finds and misses exactly what the `me` SSTable's Index.db says (MANIFEST.md §2: keys
//! "0" to "4").

use crate::common;

use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::write::ms_from_me;
use sstable_engine::component::ComponentType;
use sstable_engine::index_listing::{IndexListing, ListingItem, ListingOptions};
use sstable_engine::info::{decode_metadata, reads_whole, ComponentInput, SSTableMetadata};
use sstable_engine::lookup::lookup_with;
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::sstable_set::group_files;
use sstable_engine::version::Format;

struct Loaded {
    metadata: SSTableMetadata,
    files: Vec<(ComponentType, Vec<u8>)>,
}

/// Groups named files as a dropped directory would be and decodes their metadata.
fn load(named: Vec<(String, Vec<u8>)>) -> Loaded {
    let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
    let grouping = group_files(&names);
    assert!(grouping.ignored.is_empty(), "{:?}", grouping.ignored);
    let sstable = &grouping.sstables[0];
    let files: Vec<(ComponentType, Vec<u8>)> = sstable
        .files
        .iter()
        .map(|(c, i)| (c.clone(), named[*i].1.clone()))
        .collect();
    let inputs: Vec<ComponentInput<'_>> = files
        .iter()
        .map(|(c, b)| ComponentInput {
            component: c,
            size_bytes: b.len() as u64,
            bytes: reads_whole(c).then_some(b.as_slice()),
        })
        .collect();
    let metadata = decode_metadata(&sstable.descriptor, &inputs);
    assert!(metadata.errors.is_empty(), "{:?}", metadata.errors);
    Loaded { metadata, files }
}

fn read_dir(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// (key, Data.db position) of every partition the listing gives.
fn listed(t: &Loaded) -> Vec<(Vec<u8>, u64)> {
    let files: Vec<(ComponentType, &[u8])> = t
        .files
        .iter()
        .map(|(c, b)| (c.clone(), b.as_slice()))
        .collect();
    let mut listing = IndexListing::for_sstable(&t.metadata, ListingOptions::full(false)).unwrap();
    let mut driver = SyncDriver::new(SliceSource { files: &files });
    let mut out = Vec::new();
    while let Some(item) = driver.pull(&mut listing, &NoClock).unwrap() {
        match item {
            ListingItem::Partition(p) => out.push((p.key.unwrap(), p.position.unwrap())),
            ListingItem::Skipped { message, .. } => panic!("skipped: {message}"),
        }
    }
    assert!(listing.warnings().is_empty(), "{:?}", listing.warnings());
    out
}

#[test]
fn an_ms_sstable_is_read_as_bti_and_agrees_with_its_me_index() {
    let Some(fx) = common::cassandra_fixtures("scylla_ms::agrees_with_me") else {
        return;
    };
    for table in ["legacy_me_simple", "legacy_me_clust"] {
        let me = load(read_dir(&common::legacy_dir(&fx, "me", table)));
        let ms_files = ms_from_me(&me.metadata.descriptor, &me.files, 3).unwrap();
        let names: Vec<&str> = ms_files.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.contains(&"ms-3-big-Partitions.db"), "{names:?}");
        assert!(!names
            .iter()
            .any(|n| n.ends_with("Index.db") || n.ends_with("Summary.db")));
        let ms = load(ms_files.clone());
        let d = &ms.metadata.descriptor;
        assert_eq!(
            (d.version.as_str(), d.format),
            ("ms", Format::Bti),
            "{table}"
        );
        assert_eq!(d.file_name_prefix(), "ms-3-big");
        // By the components alone: the same files under a version the engine does not know.
        let unknown: Vec<(String, Vec<u8>)> = ms_files
            .iter()
            .map(|(n, b)| (n.replacen("ms-", "mz-", 1), b.clone()))
            .collect();
        let names: Vec<&str> = unknown.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            group_files(&names).sstables[0].descriptor.format,
            Format::Bti
        );

        let big = listed(&me);
        let bti = listed(&ms);
        let keys: Vec<&[u8]> = bti.iter().map(|(k, _)| k.as_slice()).collect();
        assert_eq!(keys, [b"0", b"1", b"2", b"3", b"4"], "{table}");
        assert_eq!(bti, big, "{table}: the trie points where Index.db does");

        let files: Vec<(ComponentType, &[u8])> = ms
            .files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        for (key, position) in &big {
            let r = lookup_with(&ms.metadata, key, SliceSource { files: &files }, &NoClock);
            assert!(r.found, "{table}: {key:?}: {:?}", r.stopped_at);
            assert_eq!(r.partition_position, Some(*position), "{table}");
            let suffixes: Vec<&str> = r.steps.iter().map(|s| s.component.file_suffix()).collect();
            assert!(suffixes.contains(&"Partitions.db"), "{suffixes:?}");
        }
        let miss = lookup_with(&ms.metadata, b"5", SliceSource { files: &files }, &NoClock);
        assert!(!miss.found && miss.stopped_at.is_some(), "{table}");
    }
}
