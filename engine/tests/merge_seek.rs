//! The merge started at a key or token (`TableMerger::seek`, `merge::seek`): on a generated
//! table of 4 overlapping SSTables (big format, several Summary.db samples each), on 2.x
//! fixture tables read with their `CREATE TABLE`, and on BTI SSTables (`da`, and ScyllaDB `ms`
//! made from `me`), a merge started at K gives exactly the partitions of the whole merge from
//! K on — equal partition by partition, every cell, source and loss — and reads fewer Data.db
//! bytes; a key the table does not hold starts at the partition after it.

use crate::common;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::write::ms_from_me;
use sstable_engine::component::data::DecodeOptions;
use sstable_engine::component::ComponentType;
use sstable_engine::cql_schema::{parse_schema_cql, CqlSchemaFile};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::lookup::lookup_with;
use sstable_engine::merge::seek::seek_start;
use sstable_engine::merge::{
    open_table, MergeOptions, MergedPartition, SeekStart, SeekTo, TableSSTable,
};
use sstable_engine::range::{ByteRange, RangeSource, SliceSource, SyncDriver};
use sstable_engine::sstable_set::group_files;
use sstable_engine::token::{Partitioner, Token};
use sstable_engine::write::overlap::{generate_overlapping, OverlapOptions};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

/// A [`SliceSource`] that counts the Data.db bytes it hands out.
struct Counted<'a> {
    inner: SliceSource<'a>,
    data: Rc<Cell<u64>>,
}

impl RangeSource for Counted<'_> {
    fn read_into(
        &mut self,
        range: &ByteRange,
        buf: &mut Vec<u8>,
    ) -> sstable_engine::error::Result<()> {
        self.inner.read_into(range, buf)?;
        if range.component == ComponentType::Data {
            self.data.set(self.data.get() + buf.len() as u64);
        }
        Ok(())
    }
}

/// One SSTable: its name, metadata and files.
struct Table {
    name: String,
    metadata: SSTableMetadata,
    files: BTreeMap<ComponentType, Vec<u8>>,
}

fn decode(
    descriptor: &sstable_engine::descriptor::Descriptor,
    files: &BTreeMap<ComponentType, Vec<u8>>,
) -> SSTableMetadata {
    let m = common::sstables::decode_components(
        descriptor,
        files.iter().map(|(c, b)| (c, b.as_slice())),
    );
    assert!(m.errors.is_empty(), "{:?}", m.errors);
    m
}

/// Named files grouped as a dropped directory would be: one SSTable.
fn from_named(named: Vec<(String, Vec<u8>)>) -> Table {
    let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
    let grouping = group_files(&names);
    assert_eq!(grouping.sstables.len(), 1, "{names:?}");
    let info = &grouping.sstables[0];
    let files: BTreeMap<ComponentType, Vec<u8>> = info
        .files
        .iter()
        .map(|(c, i)| (c.clone(), named[*i].1.clone()))
        .collect();
    Table {
        name: info.prefix.rsplit('/').next().unwrap().to_owned(),
        metadata: decode(&info.descriptor, &files),
        files,
    }
}

/// The SSTable in `dir`, its files named as generation `generation`.
fn load(dir: &Path, generation: u32) -> Table {
    let named = common::files_under(dir)
        .iter()
        .map(|n| {
            let file = n.rsplit('/').next().unwrap();
            let renamed = file
                .replacen("-1-", &format!("-{generation}-"), 1)
                .replacen("-4-", &format!("-{generation}-"), 1);
            (renamed, std::fs::read(dir.join(n)).unwrap())
        })
        .collect();
    from_named(named)
}

/// The merge of `tables` (from `to` when given) at `now`, explained, and the Data.db bytes it
/// read (the seek's included).
fn merged(
    tables: &[Table],
    schema: Option<&CqlSchemaFile>,
    now: i64,
    to: Option<SeekTo>,
) -> (Vec<MergedPartition>, u64) {
    let slices: Vec<Vec<(ComponentType, &[u8])>> = tables
        .iter()
        .map(|t| {
            t.files
                .iter()
                .map(|(c, b)| (c.clone(), b.as_slice()))
                .collect()
        })
        .collect();
    let data = Rc::new(Cell::new(0u64));
    let sstables = tables
        .iter()
        .zip(&slices)
        .map(|(t, files)| TableSSTable {
            name: t.name.clone(),
            metadata: &t.metadata,
            source: Counted {
                inner: SliceSource { files },
                data: data.clone(),
            },
        })
        .collect();
    let (mut merger, _) = open_table(
        sstables,
        schema,
        DecodeOptions::at(now),
        MergeOptions {
            now_seconds: Some(now),
            explain: true,
        },
    )
    .unwrap();
    if let Some(to) = to {
        let metadata: Vec<&SSTableMetadata> = tables.iter().map(|t| &t.metadata).collect();
        merger.seek(&metadata, to, &NoClock).unwrap();
    }
    let mut out = Vec::new();
    while let Some(p) = merger.next_partition(&NoClock).unwrap() {
        out.push(p);
    }
    (out, data.get())
}

fn key(p: &MergedPartition) -> &[u8] {
    &p.start.key.bytes.bytes
}

/// The index of the first partition of `full` that `to` admits.
fn first_admitted(full: &[MergedPartition], partitioner: &Partitioner, to: &SeekTo) -> usize {
    full.iter()
        .position(|p| to.admits(partitioner, key(p)))
        .unwrap_or(full.len())
}

/// Checks a merge from each of `bounds` against the whole merge's tail; returns how many
/// bounds fell between two partitions (keys the table does not hold).
fn check_bounds(
    what: &str,
    tables: &[Table],
    schema: Option<&CqlSchemaFile>,
    now: i64,
    bounds: &[SeekTo],
    multi_chunk: bool,
) -> usize {
    let partitioner = tables[0].metadata.partitioner();
    let (full, full_bytes) = merged(tables, schema, now, None);
    assert!(full.len() >= 5, "{what}: {} partitions", full.len());
    let mut absent = 0;
    for to in bounds {
        let from = first_admitted(&full, &partitioner, to);
        if let SeekTo::Key(k) = to {
            absent += usize::from(full.iter().all(|p| key(p) != k.as_slice()));
        }
        if let SeekTo::Key(k) = to {
            // Each SSTable that holds the key starts exactly at it: where the engine's lookup
            // (the point read) finds it.
            for t in tables {
                let files: Vec<(ComponentType, &[u8])> = t
                    .files
                    .iter()
                    .map(|(c, b)| (c.clone(), b.as_slice()))
                    .collect();
                let found = lookup_with(&t.metadata, k, SliceSource { files: &files }, &NoClock);
                if let (true, Some(position)) = (found.found, found.partition_position) {
                    let mut driver = SyncDriver::new(SliceSource { files: &files });
                    let start = seek_start(&t.metadata, to, &mut driver, &NoClock).unwrap();
                    assert_eq!(start, SeekStart::At(position), "{what}: {} {k:?}", t.name);
                }
            }
        }
        let (got, bytes) = merged(tables, schema, now, Some(to.clone()));
        assert_eq!(got.len(), full.len() - from, "{what}: {to:?}");
        for (g, f) in got.iter().zip(&full[from..]) {
            // Every cell, liveness, deletion, marker, source and loss.
            assert_eq!(g, f, "{what}: {to:?}");
        }
        // At most what the whole merge reads; less once the bound is past the first chunks.
        assert!(
            bytes <= full_bytes,
            "{what}: {to:?}: {bytes} > {full_bytes}"
        );
        if multi_chunk && from >= full.len() / 2 {
            assert!(
                bytes < full_bytes,
                "{what}: {to:?}: the seek read {bytes} Data.db bytes, the whole merge {full_bytes}"
            );
        }
    }
    absent
}

/// Each partition's key (at, and after it) and token, and keys between and around them.
fn bounds_of(full: &[MergedPartition], absent: &[&[u8]], partitioner: &Partitioner) -> Vec<SeekTo> {
    let mut out = Vec::new();
    for p in full {
        out.push(SeekTo::Key(key(p).to_vec()));
        out.push(SeekTo::AfterKey(key(p).to_vec()));
        // BTI seeks a token by its byte-comparable prefix (here ByteOrdered's).
        out.push(SeekTo::Token(partitioner.token(key(p))));
    }
    out.extend(absent.iter().map(|k| SeekTo::Key(k.to_vec())));
    out
}

#[test]
fn a_merge_from_a_key_of_a_generated_table_is_the_tail_of_the_whole_merge() {
    for version in ["nb", "oa"] {
        let v = Version::parse(Format::Big, version).unwrap();
        // 300 partitions over 4 SSTables: each holds more than 128 (several Summary.db
        // samples), in chunks of 4 KiB.
        let mut options = OverlapOptions::new(v, 4, 300, 12, 11);
        options.chunk_length_bytes = 4096;
        let generated = generate_overlapping(&options, |_| MemorySink::default()).unwrap();
        let tables: Vec<Table> = generated
            .sstables
            .into_iter()
            .enumerate()
            .map(|(i, (sink, _))| {
                let files: BTreeMap<ComponentType, Vec<u8>> = sink.files.into_iter().collect();
                let name = format!("{version}-{}-big", i + 1);
                let (descriptor, _) =
                    sstable_engine::descriptor::parse_file_name(&format!("{name}-Data.db"))
                        .unwrap();
                Table {
                    metadata: decode(&descriptor, &files),
                    name,
                    files,
                }
            })
            .collect();
        for t in &tables {
            let samples = t.metadata.summary.as_ref().unwrap().entries.len();
            assert!(samples >= 2, "{}: {samples} Summary.db samples", t.name);
        }
        let now = options.now_secs;
        let (full, full_bytes) = merged(&tables, None, now, None);
        assert_eq!(full.len(), generated.expected.len());
        let partitioner = tables[0].metadata.partitioner();
        // Every 7th partition's key, at and after it; keys the table does not hold; tokens.
        let mut bounds: Vec<SeekTo> = full
            .iter()
            .step_by(7)
            .chain(full.last())
            .flat_map(|p| {
                [
                    SeekTo::Key(key(p).to_vec()),
                    SeekTo::AfterKey(key(p).to_vec()),
                ]
            })
            .collect();
        let absent: Vec<Vec<u8>> = (0u32..12)
            .map(|i| format!("absent-{i}").into_bytes())
            .collect();
        bounds.extend(absent.iter().map(|k| SeekTo::Key(k.clone())));
        bounds.extend(
            [i64::MIN, -1, 0, 1 << 60, i64::MAX]
                .into_iter()
                .map(|t| SeekTo::Token(Token::Murmur3(t))),
        );
        let holds_absent = check_bounds(version, &tables, None, now, &bounds, true);
        assert_eq!(holds_absent, 12, "{version}");
        // From the last partition: one chunk or so per SSTable, far less than the whole table.
        let last = SeekTo::Key(key(full.last().unwrap()).to_vec());
        let (got, bytes) = merged(&tables, None, now, Some(last));
        assert_eq!(got.len(), 1);
        assert!(
            bytes * 10 < full_bytes,
            "{version}: {bytes} Data.db bytes from the last partition, {full_bytes} in all"
        );
        // Past the last key: nothing read from Data.db at all.
        let past = SeekTo::AfterKey(key(full.last().unwrap()).to_vec());
        assert_eq!(merged(&tables, None, now, Some(past)), (Vec::new(), 0));
        // A token range's start: the first partition with that token or a later one.
        let mid = partitioner.token(key(&full[full.len() / 2]));
        let to = SeekTo::Token(mid);
        assert_eq!(first_admitted(&full, &partitioner, &to), full.len() / 2);
    }
}

#[test]
fn a_merge_from_a_key_of_a_2x_table_is_the_tail_of_the_whole_merge() {
    let Some(fx) = common::cassandra_fixtures("merge seek over 2.x") else {
        return;
    };
    for (v, name, cql) in [
        (
            "ka",
            "legacy_ka_clust",
            "CREATE TABLE legacy_ka_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck));",
        ),
        (
            "la",
            "legacy_la_simple",
            "CREATE TABLE legacy_la_simple (pk text PRIMARY KEY, val text);",
        ),
        (
            "jb",
            "legacy_jb_clust_counter",
            concat!(
                "CREATE TABLE legacy_jb_clust_counter ",
                "(pk text, ck text, val counter, PRIMARY KEY (pk, ck));"
            ),
        ),
    ] {
        let schema = parse_schema_cql(cql).unwrap();
        let dir = common::legacy_dir(&fx, v, name);
        // The table and a copy of it under another generation (MANIFEST §3: keys "0" … "4").
        let tables = [load(&dir, 1), load(&dir, 7)];
        let (full, _) = merged(&tables, Some(&schema), 1_800_000_000, None);
        assert_eq!(full.len(), 5, "{name}");
        let bounds = bounds_of(
            &full,
            &[b"5", b"x", b"", b"00"],
            &tables[0].metadata.partitioner(),
        );
        let absent = check_bounds(
            name,
            &tables,
            Some(&schema),
            1_800_000_000,
            &bounds,
            name.contains("clust"),
        );
        assert_eq!(absent, 4, "{name}");
    }
}

#[test]
fn a_merge_from_a_key_of_bti_sstables_is_the_tail_of_the_whole_merge() {
    let Some(fx) = common::cassandra_fixtures("merge seek over BTI") else {
        return;
    };
    // `da` (Cassandra 5.0 BTI) with its copy.
    for name in ["legacy_da_clust", "legacy_da_simple"] {
        let dir = common::legacy_dir(&fx, "da", name);
        let tables = [load(&dir, 1), load(&dir, 5)];
        assert_eq!(tables[0].metadata.descriptor.format, Format::Bti);
        let (full, _) = merged(&tables, None, 1_800_000_000, None);
        let partitioner = tables[0].metadata.partitioner();
        let bounds = bounds_of(&full, &[b"5", b"x", b"", b"00"], &partitioner);
        let absent = check_bounds(
            name,
            &tables,
            None,
            1_800_000_000,
            &bounds,
            name.contains("clust"),
        );
        assert_eq!(absent, 4, "{name}");
    }
    // ScyllaDB `ms` (BTI under the big name, its own byte-comparable keys) made from `me`,
    // beside the `me` SSTable itself (big format).
    for name in ["legacy_me_clust", "legacy_me_simple"] {
        let dir = common::legacy_dir(&fx, "me", name);
        let me = load(&dir, 1);
        let me_files: Vec<(ComponentType, Vec<u8>)> = me.files.clone().into_iter().collect();
        let ms = from_named(ms_from_me(&me.metadata.descriptor, &me_files, 3).unwrap());
        assert_eq!(ms.metadata.descriptor.format, Format::Bti);
        let tables = [me, ms];
        let (full, _) = merged(&tables, None, 1_800_000_000, None);
        let partitioner = tables[0].metadata.partitioner();
        let bounds = bounds_of(&full, &[b"5", b"x", b"", b"00"], &partitioner);
        let absent = check_bounds(
            name,
            &tables,
            None,
            1_800_000_000,
            &bounds,
            name.contains("clust"),
        );
        assert_eq!(absent, 4, "{name}");
    }
}
