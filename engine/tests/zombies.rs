//! The resurrection scan (`sstable_engine::merge::zombies`) against generated tables whose
//! resurrection cases are known by construction (`write::overlap_zombies`), and on every
//! visible 3.0+ fixture SSTable alone and with a copy of itself (no resurrection possible).

use crate::common;
use crate::common::sstables::{self, generated_metadata, Files};
use crate::merge::{overlapping_with, partitions_of, slices};

use sstable_engine::analytics::table_report;
use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataItem, DecodeOptions};
use sstable_engine::component::ComponentType;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::zombies::{DroppableTombstone, PartitionZombies, ZombieFinder};
use sstable_engine::merge::{MergeInput, MergeOptions, TableMerger};
use sstable_engine::range::SliceSource;
use sstable_engine::write::overlap::{ExpectedShadowed, ExpectedZombie, ZOMBIE_AGE_SECS};

/// Cassandra's default gc_grace_seconds (10 days).
const GC_GRACE: i64 = 864_000;

fn scan(
    tables: &[(String, SSTableMetadata, Files)],
    files: &[Vec<(ComponentType, &[u8])>],
    now: i64,
    gc_grace: i64,
) -> Vec<PartitionZombies> {
    let options = DecodeOptions::at(now);
    let inputs = tables
        .iter()
        .zip(files)
        .map(|((name, m, _), f)| {
            MergeInput::for_sstable(name.clone(), m, options, SliceSource { files: f }).unwrap()
        })
        .collect();
    let merge_options = MergeOptions {
        now_seconds: Some(now),
        explain: false,
    };
    let merger = TableMerger::new(inputs, tables[0].1.partitioner(), merge_options).unwrap();
    let described: Vec<(String, &SSTableMetadata)> =
        tables.iter().map(|(n, m, _)| (n.clone(), m)).collect();
    let placements = table_report(&described, gc_grace, Some(now)).sstables;
    let mut finder = ZombieFinder::new(merger, placements, now, gc_grace);
    assert_eq!(finder.gc_before_secs(), now - gc_grace);
    let mut out = Vec::new();
    while let Some(p) = finder.next_partition(&NoClock).unwrap() {
        out.push(p);
    }
    out
}

fn ck(values: &[String]) -> Option<i32> {
    values.first().map(|v| v.parse().unwrap())
}

/// The findings in the generator's terms, sorted.
fn as_expected(found: &[PartitionZombies]) -> Vec<ExpectedZombie> {
    let mut out = Vec::new();
    for p in found {
        let zombie = |t: &DroppableTombstone, shadowed| ExpectedZombie {
            key: p.key.clone(),
            tombstone_sstable: t.sstable,
            kind: kind_name(t.kind),
            ck: ck(&t.clustering),
            range_end: t.range_end.as_deref().and_then(ck),
            column: column_name(t.column.as_deref()),
            marked_for_delete_at_micros: t.marked_for_delete_at_micros,
            local_deletion_time_secs: t.local_deletion_time_secs,
            shadowed,
        };
        for r in &p.resurrections {
            out.push(zombie(
                &r.tombstone,
                Some(ExpectedShadowed {
                    sstable: r.shadowed_sstable,
                    ck: if r.shadowed_is_static {
                        None
                    } else {
                        ck(&r.shadowed_clustering)
                    },
                    timestamp_micros: r.shadowed_timestamp_micros,
                    pieces: r.shadowed_pieces,
                }),
            ));
        }
        for t in &p.garbage {
            out.push(zombie(t, None));
        }
    }
    out.sort();
    out
}

fn kind_name(k: sstable_engine::merge::zombies::ZombieTombstoneKind) -> &'static str {
    use sstable_engine::merge::zombies::ZombieTombstoneKind::*;
    match k {
        Partition => "Partition",
        RangeTombstone => "RangeTombstone",
        Row => "Row",
        ComplexDeletion => "ComplexDeletion",
        Cell => "Cell",
        ExpiredCell => "ExpiredCell",
        ExpiredLiveness => "ExpiredLiveness",
    }
}

fn column_name(c: Option<&str>) -> Option<&'static str> {
    c.map(|c| match c {
        "n" => "n",
        "v" => "v",
        "s" => "s",
        "tags" => "tags",
        other => panic!("unexpected column {other}"),
    })
}

fn finds_exactly_the_injected_cases(version: &str, seed: u64) {
    let (options, tables, _, expected) = overlapping_with(version, seed, true);
    let files = slices(&tables);
    let found = scan(&tables, &files, options.now_secs, GC_GRACE);
    assert_eq!(found.len(), 70, "every partition of the table is scanned");
    let got = as_expected(&found);
    assert_eq!(got.len(), 10);
    assert_eq!(got, expected);
    // The figures of the construction: tombstones 30 days old, data a day older.
    let base_secs = options.base_timestamp_micros / 1_000_000;
    for e in &expected {
        let ldt = if e.kind.starts_with("Expired") { 60 } else { 0 };
        assert_eq!(
            e.local_deletion_time_secs,
            base_secs - ZOMBIE_AGE_SECS + ldt
        );
    }
    let kinds: std::collections::BTreeSet<&str> = got.iter().map(|e| e.kind).collect();
    assert_eq!(kinds.len(), 7, "{kinds:?}");
    // The expired row liveness (TTL'ed primary key) shadows row 4's older liveness, one
    // piece, and not its `v` cell.
    let liveness: Vec<_> = got.iter().filter(|e| e.kind == "ExpiredLiveness").collect();
    assert_eq!(liveness.len(), 1, "{got:?}");
    let shadowed = liveness[0].shadowed.as_ref().unwrap();
    assert_eq!(
        (liveness[0].ck, shadowed.ck, shadowed.pieces),
        (Some(4), Some(4), 1)
    );
    assert_eq!(got.iter().filter(|e| e.shadowed.is_none()).count(), 2);
    // Both SSTables hold the key, so their ranges intersect and the shadowed one's
    // minTimestamp (≤ the data's) is ≤ markedForDeleteAt: this node's purge evaluator keeps
    // the tombstone while both are live. Unlevelled (generated SSTables are level 0).
    for r in found.iter().flat_map(|p| &p.resurrections) {
        let c = &r.compaction;
        assert_eq!(c.token_ranges_intersect, Some(true));
        assert!(c.purge_evaluator_keeps_tombstone);
        assert!(c.shadowed_min_timestamp_micros.unwrap() <= r.shadowed_timestamp_micros);
        assert_eq!((c.tombstone_level, c.shadowed_level), (Some(0), Some(0)));
        assert!(!c.same_level_above_zero);
        assert_ne!(r.shadowed_sstable, r.tombstone.sstable);
    }
}

#[test]
fn zombies_finds_exactly_the_injected_cases_nb() {
    finds_exactly_the_injected_cases("nb", 3);
}

#[test]
fn zombies_finds_exactly_the_injected_cases_oa() {
    finds_exactly_the_injected_cases("oa", 5);
}

#[test]
fn nothing_is_droppable_before_the_tombstones_pass_gc_grace() {
    let (options, tables, _, _) = overlapping_with("oa", 5, true);
    let files = slices(&tables);
    // gc_grace longer than the injected tombstones' age (+ the hour to now): none droppable.
    let found = scan(&tables, &files, options.now_secs, ZOMBIE_AGE_SECS + 3_601);
    assert!(as_expected(&found).is_empty());
    // gc_grace 0: the random partitions' tombstones drop too; the injected cases stay found.
    let (_, _, _, expected) = overlapping_with("oa", 5, true);
    let all = as_expected(&scan(&tables, &files, options.now_secs, 0));
    assert!(all.len() > expected.len() + 20, "{}", all.len());
    for e in &expected {
        assert!(all.contains(e), "{e:?}");
    }
}

#[test]
fn no_fixture_sstable_resurrects_anything_alone_or_with_its_copy() {
    let Some(fixtures) = common::cassandra_fixtures("no_fixture_sstable_resurrects_anything")
    else {
        return;
    };
    let (names, grouping) = sstables::grouped_dir(&fixtures);
    let now = 1_800_000_000;
    let (mut scanned, mut garbage, mut compared, mut counted) = (0, 0, 0, 0);
    for s in &grouping.sstables {
        if !s.descriptor.version.has_row_format() || s.file(&ComponentType::Data).is_none() {
            continue;
        }
        let (contents, m) = sstables::read_sstable(&names, s);
        let one = vec![(s.prefix.clone(), m.clone(), contents.clone())];
        let alone = scan(&one, &slices(&one), now, GC_GRACE);
        assert!(
            alone.iter().all(|p| p.resurrections.is_empty()),
            "{}",
            s.prefix
        );
        let two = vec![
            (s.prefix.clone(), m.clone(), contents.clone()),
            (format!("{}-copy", s.prefix), m, contents),
        ];
        let both = scan(&two, &slices(&two), now, GC_GRACE);
        assert!(
            both.iter().all(|p| p.resurrections.is_empty()),
            "{}",
            s.prefix
        );
        let g: usize = alone.iter().map(|p| p.garbage.len()).sum();
        // Alone, every droppable tombstone is garbage (an SSTable holds no data its own
        // tombstones shadow): the `tombstones` scan's droppable count, where it counts the same
        // things (range tombstones it counts per bound, so SSTables with markers are left out).
        let mut ts = sstable_engine::analytics::TombstoneScan::new();
        // The `tombstones` scan does not count row livenesses: expired ones past gc_grace
        // (`DeletionPurger.shouldPurge(LivenessInfo)`) counted here from the items.
        let mut livenesses = 0u64;
        for item in partitions_of(&one[0].1, &slices(&one)[0], now)
            .iter()
            .flatten()
        {
            ts.push(item);
            if let DataItem::Row(r) | DataItem::StaticRow(r) = item {
                let exp = r
                    .liveness
                    .as_ref()
                    .and_then(|l| l.local_expiration_time.as_ref());
                if exp.is_some_and(|e| {
                    e.value.expiry_secs() <= now && e.value.expiry_secs() < now - GC_GRACE
                }) {
                    livenesses += 1;
                }
            }
        }
        let stats = one[0].1.statistics.as_ref().and_then(|s| s.stats.as_ref());
        let r = ts.report(&s.prefix, GC_GRACE, Some(now), stats);
        if r.tombstones.by_kind.range == 0 {
            let droppable = r.tombstones.droppable + r.ttl_cells.expired_droppable + livenesses;
            assert_eq!(g as u64, droppable, "{}", s.prefix);
            compared += 1;
            counted += droppable;
        }
        // The copy's tombstones are the same garbage, once per SSTable.
        assert_eq!(both.iter().map(|p| p.garbage.len()).sum::<usize>(), 2 * g);
        garbage += g;
        scanned += 1;
    }
    eprintln!(
        "{scanned} fixture SSTables: no resurrection; {garbage} droppable tombstones that shadow \
         nothing; {compared} compared with the tombstones scan ({counted} droppable)"
    );
    assert!(compared >= 70 && counted >= 6, "{compared} {counted}");
    assert!(scanned >= 74, "{scanned}");
}

/// SSTable 0 of a generated table alone (under another generation): the tombstones of its
/// cases (0: a partition deletion, 4: an expired cell, 8: a row deletion) shadow nothing it
/// holds.
#[test]
fn a_table_of_one_generated_sstable_has_no_resurrection() {
    let (options, tables, _, _) = overlapping_with("nb", 9, true);
    let (_, m, files) = &tables[0];
    let renamed = vec![(
        "nb-77-big".to_owned(),
        generated_metadata("nb", 77, files),
        files.clone(),
    )];
    assert_eq!(m.descriptor.version, renamed[0].1.descriptor.version);
    let found = scan(&renamed, &slices(&renamed), options.now_secs, GC_GRACE);
    assert!(found.iter().all(|p| p.resurrections.is_empty()));
    let garbage: Vec<_> = found
        .iter()
        .flat_map(|p| &p.garbage)
        .map(|t| t.kind)
        .collect();
    use sstable_engine::merge::zombies::ZombieTombstoneKind::*;
    assert_eq!(garbage.len(), 3, "{garbage:?}");
    assert!(garbage.contains(&Partition) && garbage.contains(&ExpiredCell));
    assert!(garbage.contains(&Row));
}
