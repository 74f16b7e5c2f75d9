//! The merged read (`sstable_engine::merge`) against tables whose merged content is known by
//! construction (`write::overlap`), against the fixtures' own dumps (each SSTable merged with a
//! copy of itself under another generation), and on a corrupt SSTable.

use crate::common;
use crate::common::sstables::{self, generated_metadata, Files};

use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{
    CellKind, ClusteringPrefixKind, DataSchema, DecodeOptions, DecodeStep, MarkerDeletion,
};
use sstable_engine::component::ComponentType;
use sstable_engine::dump::{PartitionBuilder, PartitionJson};
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::{
    Beaten, LostKind, MergeInput, MergeOptions, MergedPartition, MergedUnfiltered, TableMerger,
};
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::write::overlap::{
    generate_overlapping, ExpectedPartition, ExpectedZombie, OverlapOptions,
};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

/// Clusterings per generated partition.
pub(crate) const ROWS: u32 = 12;

/// Borrowed component lists, one per SSTable (what [`SliceSource`] reads).
pub(crate) fn slices(
    tables: &[(String, SSTableMetadata, Files)],
) -> Vec<Vec<(ComponentType, &[u8])>> {
    tables
        .iter()
        .map(|(_, _, f)| f.iter().map(|(c, b)| (c.clone(), b.as_slice())).collect())
        .collect()
}

fn merge_all<'a>(
    tables: &[(String, SSTableMetadata, Files)],
    files: &'a [Vec<(ComponentType, &'a [u8])>],
    now: Option<i64>,
) -> Result<(DataSchema, Vec<MergedPartition>), String> {
    let options = DecodeOptions {
        now_seconds: now,
        ..DecodeOptions::default()
    };
    let inputs = tables
        .iter()
        .zip(files)
        .map(|((name, m, _), f)| {
            MergeInput::for_sstable(name.clone(), m, options, SliceSource { files: f })
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let partitioner = tables[0].1.partitioner();
    let mut merger = TableMerger::new(
        inputs,
        partitioner,
        MergeOptions {
            now_seconds: now,
            explain: true,
        },
    )
    .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(p) = merger.next_partition(&NoClock).map_err(|e| e.to_string())? {
        out.push(p);
    }
    Ok((merger.schema().clone(), out))
}

fn overlapping(
    version: &str,
    seed: u64,
) -> (
    OverlapOptions,
    Vec<(String, SSTableMetadata, Files)>,
    Vec<ExpectedPartition>,
) {
    let (options, tables, expected, _) = overlapping_with(version, seed, false);
    (options, tables, expected)
}

/// The options, the SSTables as (name, metadata, files), the merge's model and the expected
/// resurrection findings.
pub(crate) type Generated = (
    OverlapOptions,
    Vec<(String, SSTableMetadata, Files)>,
    Vec<ExpectedPartition>,
    Vec<ExpectedZombie>,
);

/// A generated table of 4 overlapping SSTables (with the resurrection cases when `zombies`),
/// each as (name, metadata, files), and the models.
pub(crate) fn overlapping_with(version: &str, seed: u64, zombies: bool) -> Generated {
    let v = Version::parse(Format::Big, version).unwrap();
    let mut options = OverlapOptions::new(v, 4, 60, ROWS, seed);
    options.zombies = zombies;
    let t = generate_overlapping(&options, |_| MemorySink::default()).unwrap();
    let tables = t
        .sstables
        .into_iter()
        .enumerate()
        .map(|(i, (sink, _))| {
            let files: Files = sink.files.into_iter().collect();
            let generation = i as u64 + 1;
            let m = generated_metadata(version, generation, &files);
            (format!("{version}-{generation}-big"), m, files)
        })
        .collect();
    (options, tables, t.expected, t.expected_zombies)
}

/// (column, path, value, timestamp, ttl, expired, sstable) of a cell.
type CellTuple = (
    String,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    i64,
    Option<i32>,
    bool,
    usize,
);
/// (ck, liveness (ts, sstable), row deletion (mfda, sstable), tags deletion, cells).
type RowTuple = (
    i32,
    Option<(i64, usize)>,
    Option<(i64, usize)>,
    Option<(i64, usize)>,
    Vec<CellTuple>,
);

fn ck_of(values: &[sstable_engine::component::data::ClusteringValueBuf]) -> i32 {
    i32::from_be_bytes(values[0].bytes.as_slice().try_into().unwrap())
}

/// (position key, deletion left open (mfda, sstable), whether a boundary) of a merged marker.
type MarkerAt = (i64, Option<(i64, usize)>, bool);

fn merged_rows(
    schema: &DataSchema,
    p: &MergedPartition,
    boundaries: &mut usize,
) -> (Vec<RowTuple>, Vec<(i32, i64, usize)>) {
    let mut rows = Vec::new();
    let mut rts = Vec::new();
    let mut markers: Vec<MarkerAt> = Vec::new();
    for u in &p.unfiltereds {
        match u {
            MergedUnfiltered::Row(r) => {
                let row = &r.row;
                let cells = row
                    .cells()
                    .zip(&r.cell_sources)
                    .map(|(c, s)| {
                        (
                            schema.regular_columns[c.column_index].name.clone(),
                            c.path.as_ref().map(|p| p.bytes.clone()),
                            (c.kind != CellKind::Tombstone).then(|| c.value.bytes.clone()),
                            c.timestamp_micros,
                            c.ttl_secs,
                            c.kind == CellKind::Expired,
                            *s,
                        )
                    })
                    .collect();
                let tags = row.column_data.iter().find_map(|d| match d {
                    sstable_engine::component::data::ColumnData::Complex(c) => c
                        .complex_deletion
                        .as_ref()
                        .filter(|d| !d.deletes_nothing())
                        .map(|d| {
                            let src = r
                                .complex_deletion_sources
                                .iter()
                                .find(|(i, _)| *i == c.column_index)
                                .unwrap()
                                .1;
                            (d.marked_for_delete_at_micros, src)
                        }),
                    _ => None,
                });
                rows.push((
                    ck_of(&row.clustering.as_ref().unwrap().values),
                    row.liveness
                        .as_ref()
                        .map(|l| (l.timestamp_micros.value, r.liveness_source.unwrap())),
                    row.deletion.as_ref().map(|d| {
                        (
                            d.time.marked_for_delete_at_micros,
                            r.deletion_source.unwrap(),
                        )
                    }),
                    tags,
                    cells,
                ));
            }
            MergedUnfiltered::Marker(m) => {
                let kind = m.marker.bound.kind;
                let c = ck_of(&m.marker.bound.values) as i64;
                // Before the clustering's rows (comparison 0) or after them (3).
                let before = matches!(
                    kind,
                    ClusteringPrefixKind::InclStartBound
                        | ClusteringPrefixKind::ExclEndBound
                        | ClusteringPrefixKind::ExclEndInclStartBoundary
                );
                let open = match &m.marker.deletion {
                    MarkerDeletion::Bound(d) if kind.is_start() => {
                        Some((d.marked_for_delete_at_micros, m.start_source.unwrap()))
                    }
                    MarkerDeletion::Bound(_) => None,
                    MarkerDeletion::Boundary { start, .. } => {
                        Some((start.marked_for_delete_at_micros, m.start_source.unwrap()))
                    }
                };
                // A marker that closes must name the SSTable of what it closes.
                if !matches!(
                    kind,
                    ClusteringPrefixKind::InclStartBound | ClusteringPrefixKind::ExclStartBound
                ) {
                    assert!(m.end_source.is_some());
                }
                markers.push((c * 3 + if before { 0 } else { 2 }, open, kind.is_boundary()));
            }
        }
    }
    // Per clustering, the deletion the merged markers leave open over its rows.
    for w in markers.windows(2) {
        assert!(w[0].0 < w[1].0, "merged markers in order, one per position");
    }
    for ck in 0..ROWS as i64 {
        let open = markers
            .iter()
            .take_while(|(key, _, _)| *key < ck * 3 + 1)
            .last()
            .and_then(|(_, open, _)| *open);
        if let Some((mfda, src)) = open {
            rts.push((ck as i32, mfda, src));
        }
    }
    *boundaries += markers.iter().filter(|m| m.2).count();
    (rows, rts)
}

fn expected_rows(e: &ExpectedPartition) -> (Vec<RowTuple>, Vec<(i32, i64, usize)>) {
    let rows = e
        .rows
        .iter()
        .map(|r| {
            (
                r.ck,
                r.liveness.map(|l| (l.value, l.sstable)),
                r.deletion
                    .map(|d| (d.value.marked_for_delete_at_micros, d.sstable)),
                r.tags_deletion
                    .map(|d| (d.value.marked_for_delete_at_micros, d.sstable)),
                r.cells
                    .iter()
                    .map(|c| {
                        (
                            c.column.to_owned(),
                            c.path.clone(),
                            c.value.clone(),
                            c.timestamp_micros,
                            c.ttl_secs,
                            c.expired,
                            c.sstable,
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let rts = e
        .range_tombstones
        .iter()
        .map(|(ck, d)| (*ck, d.value.marked_for_delete_at_micros, d.sstable))
        .collect();
    (rows, rts)
}

fn check_against_model(version: &str, seed: u64) {
    check_model(overlapping(version, seed));
}

fn check_model(
    (options, tables, expected): (
        OverlapOptions,
        Vec<(String, SSTableMetadata, Files)>,
        Vec<ExpectedPartition>,
    ),
) {
    let files = slices(&tables);
    let (schema, merged) = merge_all(&tables, &files, Some(options.now_secs)).unwrap();
    assert_eq!(merged.len(), expected.len());
    let (mut rows, mut expired, mut rts, mut deleted_rows, mut losses) = (0, 0, 0, 0, 0);
    let mut boundaries = 0;
    let mut by_source = [0usize; 4];
    for (m, e) in merged.iter().zip(&expected) {
        assert_eq!(m.start.key.bytes.bytes, e.key);
        assert_eq!(m.sources, e.sstables, "partition 0x{:02x?}", e.key);
        assert_eq!(
            m.deletion_source
                .map(|s| (s, m.start.deletion.marked_for_delete_at_micros)),
            e.deletion
                .map(|d| (d.sstable, d.value.marked_for_delete_at_micros))
        );
        let static_cell = m.static_row.as_ref().map(|r| {
            let c = r.row.cells().next().unwrap();
            (c.value.bytes.clone(), c.timestamp_micros, r.cell_sources[0])
        });
        assert_eq!(
            static_cell,
            e.static_cell.as_ref().map(|c| (
                c.value.clone().unwrap(),
                c.timestamp_micros,
                c.sstable
            ))
        );
        let (got_rows, got_rts) = merged_rows(&schema, m, &mut boundaries);
        let (want_rows, want_rts) = expected_rows(e);
        assert_eq!(got_rts, want_rts, "range tombstones of 0x{:02x?}", e.key);
        assert_eq!(got_rows, want_rows, "rows of 0x{:02x?}", e.key);
        rows += got_rows.len();
        rts += got_rts.len();
        deleted_rows += got_rows.iter().filter(|r| r.2.is_some()).count();
        for r in &got_rows {
            for c in &r.4 {
                expired += usize::from(c.5);
                by_source[c.6] += 1;
            }
        }
        losses += m.losses.len();
    }
    // The construction exercises every rule (these counts only guard the test's reach).
    assert!(
        rows > 200 && rts > 5 && deleted_rows > 5 && expired > 5 && losses > 100,
        "{rows} {rts} {deleted_rows} {expired} {losses}"
    );
    assert!(by_source.iter().all(|n| *n > 50), "{by_source:?}");
    assert!(boundaries > 3, "{boundaries} boundaries");
}

#[test]
fn merge_with_the_resurrection_cases_still_equals_the_model() {
    let (options, tables, expected, zombies) = overlapping_with("oa", 11, true);
    assert_eq!(expected.len(), 70);
    assert_eq!(zombies.len(), 10);
    check_model((options, tables, expected));
}

#[test]
fn merge_of_four_overlapping_sstables_equals_the_model_nb() {
    check_against_model("nb", 7);
}

#[test]
fn merge_of_four_overlapping_sstables_equals_the_model_oa() {
    check_against_model("oa", 11);
}

#[test]
fn explain_names_what_beat_each_loser() {
    let (options, tables, _) = overlapping("nb", 3);
    let files = slices(&tables);
    let (_, merged) = merge_all(&tables, &files, Some(options.now_secs)).unwrap();
    let losses: Vec<_> = merged.iter().flat_map(|p| &p.losses).collect();
    // A loser never beats itself, and a newer version is newer.
    for l in &losses {
        match &l.beaten_by {
            Beaten::Newer {
                source,
                timestamp_micros,
            } => {
                assert_ne!(*source, l.source);
                assert!(*timestamp_micros > l.timestamp_micros, "{l:?}");
            }
            Beaten::Tombstone {
                marked_for_delete_at_micros,
                ..
            } => {
                assert!(*marked_for_delete_at_micros >= l.timestamp_micros, "{l:?}")
            }
            Beaten::Expired { expires_at_secs } => assert!(*expires_at_secs <= options.now_secs),
        }
    }
    for kind in [
        LostKind::Cell,
        LostKind::Liveness,
        LostKind::RowDeletion,
        LostKind::RangeTombstone,
    ] {
        assert!(losses.iter().any(|l| l.what == kind), "no {kind:?} loss");
    }
    assert!(losses
        .iter()
        .any(|l| matches!(l.beaten_by, Beaten::Expired { .. })));
    assert!(losses
        .iter()
        .any(|l| matches!(l.beaten_by, Beaten::Tombstone { .. })));
}

#[test]
fn a_corrupt_sstable_stops_the_merge_naming_sstable_component_and_offset() {
    let (options, mut tables, _) = overlapping("nb", 5);
    // Flip bytes in the middle of the third SSTable's Data.db (LZ4 chunks, CRC32 each).
    let data = &mut tables[2]
        .2
        .iter_mut()
        .find(|(c, _)| *c == ComponentType::Data)
        .unwrap()
        .1;
    let at = data.len() / 2;
    for b in &mut data[at..at + 8] {
        *b ^= 0x5a;
    }
    let files = slices(&tables);
    let err = merge_all(&tables, &files, Some(options.now_secs)).unwrap_err();
    assert!(err.starts_with("nb-3-big: "), "{err}");
    assert!(err.contains("Data.db"), "{err}");
    assert!(err.contains(" at 0x"), "{err}");
    // The corrupt chunk is the first: nothing was merged, and the merge says so.
    assert!(err.ends_with("no partition could be reconciled"), "{err}");
}

#[test]
fn a_corrupt_chunk_after_some_partitions_names_where_the_merge_stopped() {
    let v = Version::parse(Format::Big, "nb").unwrap();
    let mut options = OverlapOptions::new(v, 4, 60, 12, 5);
    options.chunk_length_bytes = 1024;
    let t = generate_overlapping(&options, |_| MemorySink::default()).unwrap();
    let mut tables: Vec<(String, SSTableMetadata, Files)> = Vec::new();
    for (i, (sink, _)) in t.sstables.into_iter().enumerate() {
        let files: Files = sink.files.into_iter().collect();
        let m = generated_metadata("nb", i as u64 + 1, &files);
        tables.push((format!("nb-{}-big", i + 1), m, files));
    }
    // A byte of the second SSTable's last stored chunk (before its 4-byte checksum).
    let offsets = tables[1]
        .1
        .compression
        .as_ref()
        .unwrap()
        .chunk_offsets
        .clone();
    assert!(offsets.len() > 4);
    let data = &mut tables[1]
        .2
        .iter_mut()
        .find(|(c, _)| *c == ComponentType::Data)
        .unwrap()
        .1;
    let at = *offsets.last().unwrap() as usize + 1;
    data[at] ^= 0xff;
    let files = slices(&tables);
    let err = merge_all(&tables, &files, Some(options.now_secs)).unwrap_err();
    assert!(err.starts_with("nb-2-big: "), "{err}");
    assert!(err.contains("Data.db"), "{err}");
    assert!(
        err.contains(&format!("Data.db {}..", offsets.last().unwrap())),
        "{err}"
    );
    assert!(
        err.contains("and those after it could not be reconciled"),
        "{err}"
    );
}

/// `p` with every local counter shard's clock and count doubled (and the cell's value).
fn doubled_local_shards(mut p: PartitionJson) -> PartitionJson {
    for row in &mut p.rows {
        for cell in &mut row.cells {
            if cell.shards.is_empty() || !cell.shards.iter().any(|s| s.starts_with("Local ")) {
                continue;
            }
            let mut total = 0i64;
            for shard in &mut cell.shards {
                let (doubled, count) = common::doubled_local_shard(shard);
                total += count;
                *shard = doubled;
            }
            cell.value = Some(total.to_string());
        }
    }
    p
}

/// Every partition of one SSTable as sstabledump's JSON, from its own reader.
fn single_dump(
    schema: &DataSchema,
    m: &SSTableMetadata,
    files: &[(ComponentType, &[u8])],
    now: i64,
) -> Vec<PartitionJson> {
    let options = DecodeOptions::at(now);
    let mut reader =
        sstable_engine::checked_data::CheckedDataReader::for_sstable(m, options).unwrap();
    let mut driver = SyncDriver::new(SliceSource { files });
    let mut builder = PartitionBuilder::new(Some(now));
    let mut out = Vec::new();
    loop {
        match driver.next_item(&mut reader, &NoClock).unwrap() {
            DecodeStep::Item(item) => out.extend(builder.push(schema, &item)),
            DecodeStep::Finished => return out,
            DecodeStep::NeedMoreData => unreachable!(),
        }
    }
}

#[test]
fn every_fixture_sstable_merged_with_its_copy_equals_its_dump() {
    let Some(fixtures) =
        common::cassandra_fixtures("every_fixture_sstable_merged_with_its_copy_equals_its_dump")
    else {
        return;
    };
    let (names, grouping) = sstables::grouped_dir(&fixtures);
    let now = 1_800_000_000;
    let mut merged_count = 0;
    let mut failures = Vec::new();
    let mut with_duplicates = 0;
    let mut with_local_shards = 0;
    // Every 3.0+ SSTable with a Data.db: none may be skipped.
    let mut candidates = 0;
    for s in &grouping.sstables {
        if !s.descriptor.version.has_row_format() || s.file(&ComponentType::Data).is_none() {
            continue;
        }
        let (contents, m) = sstables::read_sstable(&names, s);
        candidates += 1;
        let Some(header) = m.statistics.as_ref().and_then(|st| st.header.as_ref()) else {
            failures.push(format!("{}: no serialization header", s.prefix));
            continue;
        };
        let borrowed: Vec<(ComponentType, &[u8])> = contents
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect();
        let schema = match DataSchema::from_header(header, &s.descriptor.version) {
            Ok(schema) => schema,
            Err(e) => {
                failures.push(format!("{}: no schema: {e}", s.prefix));
                continue;
            }
        };
        let single = single_dump(&schema, &m, &borrowed, now);
        // The same SSTable twice, the copy under another generation number.
        let tables = vec![
            (s.prefix.clone(), m.clone(), contents.clone()),
            (
                format!("{}-copy-9999", s.prefix),
                m.clone(),
                contents.clone(),
            ),
        ];
        let files = slices(&tables);
        let (schema, merged) = match merge_all(&tables, &files, Some(now)) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: {e}", s.prefix));
                continue;
            }
        };
        let mut builder = PartitionBuilder::new(Some(now));
        let from_merge: Vec<PartitionJson> = merged
            .iter()
            .flat_map(|p| p.to_items())
            .filter_map(|i| builder.push(&schema, &i))
            .collect();
        let duplicates = single.iter().flat_map(|p| &p.rows).any(|r| {
            r.findings
                .iter()
                .any(|f| f.contains("same clustering as the previous row"))
        });
        if duplicates {
            // An invalid SSTable with duplicate rows (scrub's case): the read merges the rows of
            // one clustering, so the merge has each clustering once and the dump does not.
            for p in &from_merge {
                let mut seen: Vec<&Vec<Option<String>>> =
                    p.rows.iter().map(|r| &r.clustering).collect();
                let n = seen.len();
                seen.dedup();
                assert_eq!(seen.len(), n, "{}", s.prefix);
            }
            assert_ne!(from_merge, single, "{}", s.prefix);
            with_duplicates += 1;
            continue;
        }
        // Local counter shards (pre-2.1 writes) add up in `CounterContext.merge`: a copy of the
        // SSTable doubles them, as Cassandra's read would.
        let has_local = single
            .iter()
            .flat_map(|p| &p.rows)
            .flat_map(|r| &r.cells)
            .any(|c| c.shards.iter().any(|s| s.starts_with("Local ")));
        with_local_shards += usize::from(has_local);
        let single: Vec<PartitionJson> = single.into_iter().map(doubled_local_shards).collect();
        if from_merge != single {
            let at = from_merge.iter().zip(&single).position(|(a, b)| a != b);
            failures.push(format!(
                "{}: {} vs {} partitions, first difference at {at:?}",
                s.prefix,
                from_merge.len(),
                single.len()
            ));
            continue;
        }
        for p in &merged {
            assert_eq!(p.sources, vec![0, 1], "{}", s.prefix);
            // Identical copies lose nothing to each other; only TTLs run out.
            assert!(
                p.losses
                    .iter()
                    .all(|l| matches!(l.beaten_by, Beaten::Expired { .. })),
                "{}: {:?}",
                s.prefix,
                p.losses
            );
        }
        merged_count += 1;
    }
    eprintln!("merged {merged_count} fixture SSTables ({with_duplicates} with duplicate rows)");
    assert!(
        with_duplicates >= 1 && with_local_shards >= 1,
        "{with_local_shards}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The visible set's 3.0+ SSTables (MANIFEST.md): 64 legacy tables of ma … da and the ten
    // under other/ (its ic one is 1.2).
    assert_eq!(merged_count + with_duplicates, candidates);
    assert!(candidates >= 74, "only {candidates} 3.0+ fixture SSTables");
}

/// Every DataItem of one SSTable, grouped by partition (start … end).
pub(crate) fn partitions_of(
    m: &SSTableMetadata,
    files: &[(ComponentType, &[u8])],
    now: i64,
) -> Vec<Vec<sstable_engine::component::data::DataItem>> {
    use sstable_engine::component::data::DataItem;
    let mut reader =
        sstable_engine::checked_data::CheckedDataReader::for_sstable(m, DecodeOptions::at(now))
            .unwrap();
    let mut driver = SyncDriver::new(SliceSource { files });
    let mut out: Vec<Vec<DataItem>> = Vec::new();
    loop {
        match driver.next_item(&mut reader, &NoClock).unwrap() {
            DecodeStep::Item(item) => {
                if matches!(item, DataItem::PartitionStart(_)) {
                    out.push(Vec::new());
                }
                out.last_mut().unwrap().push(item);
            }
            DecodeStep::Finished => return out,
            DecodeStep::NeedMoreData => unreachable!(),
        }
    }
}

#[test]
fn merge_versions_of_one_partition_equals_the_table_merge() {
    use sstable_engine::component::data::DataItem;
    use sstable_engine::merge::{merge_versions, PartitionVersion};
    let (options, tables, expected) = overlapping("oa", 17);
    let now = options.now_secs;
    let files = slices(&tables);
    let (schema, merged) = merge_all(&tables, &files, Some(now)).unwrap();
    let by_sstable: Vec<_> = tables
        .iter()
        .zip(&files)
        .map(|((_, m, _), f)| partitions_of(m, f, now))
        .collect();
    let key_of = |items: &[DataItem]| match items.first() {
        Some(DataItem::PartitionStart(p)) => p.key.bytes.bytes.clone(),
        _ => panic!("no partition start"),
    };
    assert_eq!(merged.len(), expected.len());
    for (m, e) in merged.iter().zip(&expected) {
        let versions: Vec<PartitionVersion<'_>> = e
            .sstables
            .iter()
            .map(|s| PartitionVersion {
                name: tables[*s].0.clone(),
                schema: &schema,
                items: by_sstable[*s]
                    .iter()
                    .find(|p| key_of(p) == e.key)
                    .unwrap()
                    .clone(),
            })
            .collect();
        let point = merge_versions(
            versions,
            MergeOptions {
                now_seconds: Some(now),
                explain: true,
            },
        )
        .unwrap()
        .unwrap();
        // The same merged items and losses; SSTables numbered among the holding ones.
        assert_eq!(point.to_items(), m.to_items());
        assert_eq!(point.losses.len(), m.losses.len());
        let global = |s: usize| e.sstables[s];
        assert_eq!(
            point.sources.iter().map(|s| global(*s)).collect::<Vec<_>>(),
            m.sources
        );
        for (a, b) in point.unfiltereds.iter().zip(&m.unfiltereds) {
            if let (MergedUnfiltered::Row(a), MergedUnfiltered::Row(b)) = (a, b) {
                let mapped: Vec<usize> = a.cell_sources.iter().map(|s| global(*s)).collect();
                assert_eq!(mapped, b.cell_sources);
            }
        }
    }
}
