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
use sstable_engine::info::SSTableMetadata;
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
    let metadata = common::sstables::decode_components(
        &sstable.descriptor,
        files.iter().map(|(c, b)| (c, b.as_slice())),
    );
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

/// The metadata loader reads Partitions.db's end back to its first key: the footer's keys give
/// an `ms` SSTable its token range (the table view, the page's token chart), also when the keys
/// reach past the first 4 KiB read.
#[test]
fn the_loader_reads_the_partitions_footer() {
    use sstable_engine::analytics::table_report;
    use sstable_engine::component::bti::partitions::PartitionTarget;
    use sstable_engine::component::bti::write::{partitions_db, PartitionToIndex};
    use sstable_engine::load::MetadataLoader;
    use sstable_engine::range::SyncDriver;

    let Some(fx) = common::cassandra_fixtures("scylla_ms::footer") else {
        return;
    };
    let me = load(read_dir(&common::legacy_dir(&fx, "me", "legacy_me_clust")));
    let mut ms_files = ms_from_me(&me.metadata.descriptor, &me.files, 1).unwrap();
    let loaded = |named: &[(String, Vec<u8>)]| {
        let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
        let sstable = group_files(&names).sstables.remove(0);
        let files: Vec<(ComponentType, &[u8])> = sstable
            .files
            .iter()
            .map(|(c, i)| (c.clone(), named[*i].1.as_slice()))
            .collect();
        let sizes = files
            .iter()
            .map(|(c, b)| (c.clone(), b.len() as u64))
            .collect();
        let mut loader = MetadataLoader::new(&sstable.descriptor, sizes);
        SyncDriver::new(SliceSource { files: &files })
            .run(&mut loader, &NoClock)
            .unwrap();
        loader.finish()
    };
    let m = loaded(&ms_files);
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    let footer = m.partition_index_footer.as_ref().expect("the footer");
    assert_eq!(footer.partition_count.value, 5);
    assert_eq!(
        (&footer.first_key.value[..], &footer.last_key.value[..]),
        (&b"0"[..], &b"4"[..])
    );
    let trees: Vec<(&str, &str)> = m
        .trie_nodes
        .iter()
        .map(|(c, n)| (c.file_suffix(), n.value.as_str()))
        .collect();
    assert_eq!(trees[0].0, "Partitions.db");
    assert_eq!(trees[0].1, "5 partitions, keys \"0\" … \"4\"");
    assert_eq!(
        m.trie_nodes[0].1.children[2].children.len(),
        5,
        "the five partitions"
    );
    assert_eq!(
        trees[1],
        (
            "Rows.db",
            "empty: no partition has a row index (every Partitions.db payload points into Data.db)"
        )
    );
    let report = table_report(&[("ms".to_owned(), &m)], 864_000, None);
    let s = &report.sstables[0];
    assert_eq!(
        (s.first_key_hex.as_deref(), s.last_key_hex.as_deref()),
        (Some("30"), Some("34"))
    );

    // Keys of 3,000 bytes: the first 4 KiB hold the footer but not both keys.
    let long = |c: u8| vec![c; 3000];
    let parts: Vec<PartitionToIndex> = [b'a', b'b']
        .iter()
        .enumerate()
        .map(|(i, &c)| PartitionToIndex {
            comparable: sstable_engine::component::bti::bytecomparable::partition_key(
                &sstable_engine::token::Partitioner::ByteOrdered,
                &long(c),
            )
            .unwrap(),
            key: long(c),
            target: PartitionTarget::Data {
                data_position: i as u64 * 100,
            },
            hash_byte: 0,
        })
        .collect();
    let trie = partitions_db(&parts).unwrap();
    for (name, bytes) in &mut ms_files {
        if name.ends_with("Partitions.db") {
            *bytes = trie.clone();
        }
    }
    let m = loaded(&ms_files);
    let footer = m.partition_index_footer.as_ref().expect("the footer");
    assert_eq!(
        (
            footer.first_key.value.clone(),
            footer.last_key.value.clone()
        ),
        (long(b'a'), long(b'b'))
    );
}
