//! The merged read of 2.x SSTables (`merge::inputs`, `merge::legacy`): each 2.x fixture table
//! merged with a copy of itself under another generation equals its own `dump --schema` (the
//! atoms grouped into rows); the range tombstone tables give the bounds and boundaries their
//! atoms make; a 2.x table merged with a 3.0 SSTable of the same table written here gives the
//! content known by construction, each part from the SSTable it came from.

use crate::common;
use crate::common::legacy::{self, LEGACY_SCHEMAS};
use crate::common::sstables;

use std::collections::BTreeMap;
use std::path::Path;

use sstable_engine::clock::NoClock;
use sstable_engine::component::data::{DataSchema, DecodeOptions};
use sstable_engine::component::legacy_data::LegacyLayout;
use sstable_engine::component::ComponentType;
use sstable_engine::cql_schema::{parse_schema_cql, CqlSchemaFile};
use sstable_engine::dump::PartitionBuilder;
use sstable_engine::info::SSTableMetadata;
use sstable_engine::merge::{
    open_table, Beaten, MergeOptions, MergedPartition, MergedUnfiltered, TableSSTable,
};
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::sstable_set::group_files;
use sstable_engine::write::legacy::schema_from_cql;
use sstable_engine::write::model::{Cell, ColumnData, ModelDeletion, Partition, Row, Unfiltered};
use sstable_engine::write::{MemorySink, SSTableWriter, WriteOptions};
use sstable_engine::{Format, Version};

const NOW: i64 = 1_800_000_000;

/// One SSTable's files in memory, named as on disk.
struct Loaded {
    name: String,
    metadata: SSTableMetadata,
    files: BTreeMap<ComponentType, Vec<u8>>,
}

impl Loaded {
    fn from_named(named: Vec<(String, Vec<u8>)>) -> Loaded {
        let names: Vec<String> = named.iter().map(|(n, _)| n.clone()).collect();
        let grouping = group_files(&names);
        assert_eq!(grouping.sstables.len(), 1, "{names:?}");
        let info = grouping.sstables.into_iter().next().unwrap();
        let files: BTreeMap<ComponentType, Vec<u8>> = info
            .files
            .iter()
            .map(|(c, i)| (c.clone(), named[*i].1.clone()))
            .collect();
        let metadata = sstables::decode_components(
            &info.descriptor,
            files.iter().map(|(c, b)| (c, b.as_slice())),
        );
        Loaded {
            name: info.prefix.rsplit('/').next().unwrap().to_owned(),
            metadata,
            files,
        }
    }

    /// A written SSTable's files named as `nb-2-big-*` (generation 2 beside a fixture's 1).
    fn nb_2(sink: &MemorySink) -> Loaded {
        let named = sink
            .files
            .iter()
            .map(|(c, b)| (format!("nb-2-big-{}", c.file_suffix()), b.clone()))
            .collect();
        Loaded::from_named(named)
    }

    fn load(dir: &Path) -> Loaded {
        let named = common::files_under(dir)
            .iter()
            .map(|n| (n.clone(), std::fs::read(dir.join(n)).unwrap()))
            .collect();
        Loaded::from_named(named)
    }

    fn slices(&self) -> Vec<(ComponentType, &[u8])> {
        self.files
            .iter()
            .map(|(c, b)| (c.clone(), b.as_slice()))
            .collect()
    }
}

/// The merged partitions of `tables` (in that order) as sstabledump's JSON, and the merge's
/// own partitions.
fn merge(
    tables: &[(&str, &Loaded)],
    schema: &CqlSchemaFile,
) -> Result<(Vec<serde_json::Value>, Vec<MergedPartition>, DataSchema), String> {
    let slices: Vec<Vec<(ComponentType, &[u8])>> = tables.iter().map(|(_, t)| t.slices()).collect();
    let sstables = tables
        .iter()
        .zip(&slices)
        .map(|((name, t), files)| TableSSTable {
            name: (*name).to_owned(),
            metadata: &t.metadata,
            source: SliceSource { files },
        })
        .collect();
    let (mut merger, _) = open_table(
        sstables,
        Some(schema),
        DecodeOptions::at(NOW),
        MergeOptions {
            now_seconds: Some(NOW),
            explain: true,
        },
    )
    .map_err(|e| e.to_string())?;
    let data_schema = merger.schema().clone();
    let mut builder = PartitionBuilder::new(Some(NOW));
    let (mut json, mut merged) = (Vec::new(), Vec::new());
    while let Some(p) = merger.next_partition(&NoClock).map_err(|e| e.to_string())? {
        for item in p.to_items() {
            if let Some(d) = builder.push(&data_schema, &item) {
                json.push(serde_json::to_value(&d).unwrap());
            }
        }
        merged.push(p);
    }
    Ok((json, merged, data_schema))
}

/// A 2.x table as `dump --schema` shows it at `NOW` (the atoms grouped into rows).
fn legacy_dump(t: &Loaded, layout: &LegacyLayout) -> Vec<serde_json::Value> {
    legacy::legacy_dump(&t.metadata, &t.slices(), layout, Some(NOW))
}

/// Each row's cells sorted by column name (stable: a collection's cells keep their order).
fn cells_by_name(p: &mut serde_json::Value) {
    for row in p["rows"].as_array_mut().into_iter().flatten() {
        if let Some(cells) = row.get_mut("cells").and_then(|c| c.as_array_mut()) {
            cells.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        }
    }
}

/// The 2.x dump's collection deletions (row position, column, markedForDeleteAt), taken out of
/// its rows.
fn collection_deletions(p: &mut serde_json::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for row in p["rows"].as_array_mut().into_iter().flatten() {
        let Some(cells) = row.get_mut("cells").and_then(|c| c.as_array_mut()) else {
            continue;
        };
        cells.retain(|c| {
            let deleted = c.get("value_note").and_then(|n| n.as_str())
                == Some("the whole collection is deleted");
            if deleted {
                let name = c["name"].as_str().unwrap().to_owned();
                out.push((name, c["tstamp"].as_str().unwrap().to_owned()));
            }
            !deleted
        });
    }
    out
}

/// The complex deletions the merged partition's rows keep: (column, markedForDeleteAt, SSTable).
fn complex_deletions(
    schema: &sstable_engine::component::data::DataSchema,
    p: &MergedPartition,
) -> Vec<(String, String, usize)> {
    use sstable_engine::component::data::ColumnData as Data;
    let mut out = Vec::new();
    for u in &p.unfiltereds {
        let MergedUnfiltered::Row(r) = u else {
            continue;
        };
        for (index, source) in &r.complex_deletion_sources {
            for c in &r.row.column_data {
                if let Data::Complex(c) = c {
                    if c.column_index == *index {
                        let d = c.complex_deletion.as_ref().unwrap();
                        out.push((
                            schema.columns(r.row.is_static)[*index].name.clone(),
                            sstable_engine::datetime::iso8601_micros(d.marked_for_delete_at_micros),
                            *source,
                        ));
                    }
                }
            }
        }
    }
    out
}

/// `p` with every local counter shard's clock and count doubled (and the cell's value): local
/// shards (pre-2.1 counter writes) add up in `CounterContext.merge`, so a copy of the SSTable
/// doubles them, as Cassandra's read would. Returns whether there was one.
fn doubled_local_shards(p: &mut serde_json::Value) -> bool {
    let mut any = false;
    for row in p["rows"].as_array_mut().into_iter().flatten() {
        for cell in row["cells"].as_array_mut().into_iter().flatten() {
            let Some(shards) = cell.get_mut("shards").and_then(|s| s.as_array_mut()) else {
                continue;
            };
            if !shards
                .iter()
                .any(|s| s.as_str().unwrap().starts_with("Local "))
            {
                continue;
            }
            any = true;
            let mut total = 0i64;
            for shard in shards.iter_mut() {
                let (doubled, count) = common::doubled_local_shard(shard.as_str().unwrap());
                total += count;
                *shard = serde_json::Value::String(doubled);
            }
            cell["value"] = serde_json::Value::String(total.to_string());
        }
    }
    any
}

/// The 2.x fixture tables whose atoms are rows, cells and collection or row deletions (no range
/// tombstone over several rows), with their `CREATE TABLE` (MANIFEST §3, §5). Not here:
/// legacy_ka_15081, whose cell `paylo!d` names no column of its table (an error naming the
/// atom: [`a_cell_of_no_column_is_an_error_naming_the_sstable_and_atom`]).
fn tables() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for v in ["jb", "ka", "la"] {
        for (suffix, body) in LEGACY_SCHEMAS {
            let name = format!("legacy_{v}_{suffix}");
            out.push((
                v.to_owned(),
                name.clone(),
                format!("CREATE TABLE {name} {body};"),
            ));
        }
    }
    for (name, body) in [
        ("14766", "(pk int, ck int, value text, PRIMARY KEY (pk, ck))"),
        ("14803", "(k int, c int, v1 blob, v2 blob, PRIMARY KEY (k, c))"),
        (
            "14873",
            "(pkc int, cc int, sc int static, rc text, PRIMARY KEY (pkc, cc)) WITH CLUSTERING ORDER BY (cc DESC)",
        ),
        ("14912", "(k int PRIMARY KEY, v1 set<text>, v2 text)"),
        ("indexed", "(p int, c int, v1 int, v2 int, PRIMARY KEY (p, c))"),
        (
            "indexed_static",
            "(p int, c int, v1 int, v2 int, s1 int static, s2 int static, PRIMARY KEY (p, c))",
        ),
    ] {
        let name = format!("legacy_ka_{name}");
        out.push(("ka".to_owned(), name.clone(), format!("CREATE TABLE {name} {body};")));
    }
    out
}

/// `t`'s files named as generation `generation` (a copy of the SSTable under another number).
fn renamed(t: &Loaded, dir: &Path, generation: u32) -> Loaded {
    let named = common::files_under(dir)
        .iter()
        .map(|n| {
            let file = n.rsplit('/').next().unwrap();
            let renamed = file
                .replace("-1-", &format!("-{generation}-"))
                .replace("-4-", &format!("-{generation}-"));
            (renamed, std::fs::read(dir.join(n)).unwrap())
        })
        .collect();
    let copy = Loaded::from_named(named);
    assert_ne!(copy.name, t.name);
    copy
}

#[test]
fn every_2x_fixture_table_merged_with_its_copy_equals_its_dump() {
    let Some(fx) = common::cassandra_fixtures("2.x merged with its copy equals its dump") else {
        return;
    };
    let mut merged_tables = 0;
    let mut counters = 0;
    let mut with_local_shards = 0;
    let mut complex_deleted = 0;
    for (v, name, cql) in tables() {
        let dir = common::legacy_dir(&fx, &v, &name);
        let schema = parse_schema_cql(&cql).unwrap();
        let layout = LegacyLayout::from_cql(&schema.table, false).unwrap();
        let t = Loaded::load(&dir);
        let copy = renamed(&t, &dir, 9999);
        let mut single = legacy_dump(&t, &layout);
        assert!(!single.is_empty(), "{name}");
        let mut local_shards = false;
        for p in &mut single {
            local_shards |= doubled_local_shards(p);
        }
        with_local_shards += usize::from(local_shards);
        let (json, merged, data_schema) = merge(
            &[(t.name.as_str(), &t), (copy.name.as_str(), &copy)],
            &schema,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(json.len(), single.len(), "{name}");
        for ((m, s), p) in json.iter().zip(&mut single).zip(&merged) {
            // The 2.x dump shows a collection's deletion as a pseudo-cell; the 3.0 model holds
            // it as the column's complex deletion, which the merged row keeps (with its SSTable).
            for (deleted, at) in collection_deletions(s) {
                let kept = complex_deletions(&data_schema, p);
                assert!(
                    kept.contains(&(deleted.clone(), at.clone(), 0)),
                    "{name}: {deleted} {at} not in {kept:?}"
                );
                complex_deleted += 1;
            }
            // 2.x stores a row's cells in name order; 3.0 has simple columns before complex
            // ones (`db/Columns.java`): compare each row's cells in name order.
            let (mut m, mut s) = (m.clone(), s.clone());
            cells_by_name(&mut m);
            cells_by_name(&mut s);
            assert_eq!(m, s, "{name}");
        }
        for p in &merged {
            assert_eq!(p.sources, vec![0, 1], "{name}");
            // Identical copies lose nothing to each other.
            assert!(
                p.losses
                    .iter()
                    .all(|l| matches!(l.beaten_by, Beaten::Expired { .. })),
                "{name}: {:?}",
                p.losses
            );
        }
        counters += usize::from(name.contains("counter"));
        merged_tables += 1;
    }
    assert_eq!(merged_tables, 18);
    assert_eq!(counters, 6);
    // legacy_ka_14912's k = 0 and k = 1: `v1` written as a whole set (MANIFEST §5).
    assert_eq!(complex_deleted, 2);
    // jb's counters were written before 2.1: local shards.
    assert!(with_local_shards >= 2, "{with_local_shards}");
}

fn big(v: &str) -> Version {
    Version::parse(Format::Big, v).unwrap()
}

/// `legacy_<v>_clust` (MANIFEST §3: `pk text, ck text, val text, PRIMARY KEY (pk, ck)`) and
/// its schema.
fn clust_table(fx: &Path, v: &str) -> (CqlSchemaFile, Loaded) {
    let name = format!("legacy_{v}_clust");
    let cql = format!("CREATE TABLE {name} (pk text, ck text, val text, PRIMARY KEY (pk, ck));");
    let schema = parse_schema_cql(&cql).unwrap();
    (schema, Loaded::load(&common::legacy_dir(fx, v, &name)))
}

/// `old` rewritten as `nb` by the scrub's `LegacyRewriter` with `schema` (`compact`: WITH
/// COMPACT STORAGE), as generation 2; and the count of partitions written.
fn nb_rewrite(old: &Loaded, schema: &CqlSchemaFile, compact: bool) -> (Loaded, u64) {
    use sstable_engine::scrub::LegacyRewriter;
    let table = schema_from_cql(&schema.table, compact).unwrap();
    let mut rw =
        LegacyRewriter::new(&old.metadata, table, big("nb"), MemorySink::default()).unwrap();
    let files = old.slices();
    SyncDriver::new(SliceSource { files: &files })
        .run(&mut rw, &NoClock)
        .unwrap();
    let (sink, summary) = rw.finish().map_err(|(e, _)| e).unwrap();
    (Loaded::nb_2(&sink), summary.partitions)
}

#[test]
fn a_2x_table_merged_with_a_newer_3x_sstable_gives_the_constructed_content() {
    let Some(fx) = common::cassandra_fixtures("2.x merged with a 3.0 SSTable") else {
        return;
    };
    let (schema, old) = clust_table(&fx, "la");
    // A 3.0 SSTable (nb) of the same table, every timestamp newer than the 2.x data's:
    // partition "0": its first row's val replaced; "2": deleted whole; "5": a new partition.
    let ts = 4_000_000_000_000_000i64;
    let long: String = "0123456789".repeat(120);
    let table = schema_from_cql(&schema.table, false).unwrap();
    let mut options = WriteOptions::new(big("nb"));
    options.partitioner = old.metadata.partitioner();
    let mut w = SSTableWriter::new(table, options, MemorySink::default()).unwrap();
    let row = |ck: &str, val: &str| {
        let mut r = Row::new(vec![ck.as_bytes().to_vec()]);
        r.columns.push(ColumnData::Simple {
            column: 0,
            cell: Cell::live(ts, val.as_bytes().to_vec()),
        });
        Unfiltered::Row(r)
    };
    let mut p0 = Partition::new(b"0".to_vec());
    p0.unfiltereds.push(row(&format!("0{long}"), "newer"));
    let mut p2 = Partition::new(b"2".to_vec());
    p2.deletion = ModelDeletion::new(ts, 1_700_000_000);
    let mut p5 = Partition::new(b"5".to_vec());
    p5.unfiltereds.push(row("a", "new partition"));
    for p in [&p0, &p2, &p5] {
        w.append(p).unwrap();
    }
    let (sink, _) = w.finish().unwrap();
    let new = Loaded::nb_2(&sink);
    let (json, merged, _) = merge(&[("la-1-big", &old), ("nb-2-big", &new)], &schema).unwrap();
    let keys: Vec<&str> = json
        .iter()
        .map(|p| p["partition"]["key"][0].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["0", "1", "2", "3", "4", "5"]);
    let sources: Vec<Vec<usize>> = merged.iter().map(|p| p.sources.clone()).collect();
    assert_eq!(
        sources,
        [vec![0, 1], vec![0], vec![0, 1], vec![0], vec![0], vec![1]]
    );
    let rows = |i: usize| json[i]["rows"].as_array().unwrap().len();
    assert_eq!(
        (rows(0), rows(1), rows(2), rows(3), rows(4), rows(5)),
        (50, 50, 0, 50, 50, 1)
    );
    // Partition "0": the first row's val from nb-2-big, the 49 others all from la-1-big.
    let MergedUnfiltered::Row(first) = &merged[0].unfiltereds[0] else {
        panic!("a marker first");
    };
    assert_eq!(json[0]["rows"][0]["cells"][0]["value"], "newer");
    assert_eq!(first.cell_sources, vec![1]);
    assert_eq!(first.liveness_source, Some(0));
    for u in &merged[0].unfiltereds[1..] {
        let MergedUnfiltered::Row(r) = u else {
            panic!("a marker");
        };
        assert_eq!(
            (r.sources.clone(), r.cell_sources.clone()),
            (vec![0], vec![0])
        );
    }
    let val = json[1]["rows"][7]["cells"][0]["value"].as_str().unwrap();
    assert_eq!(val.len(), 128);
    assert_eq!(json[0]["rows"][1]["cells"][0]["value"], val);
    // The losses: the replaced cell, and partition "2"'s 50 rows (liveness and cell each).
    let lost_in = |i: usize| merged[i].losses.len();
    assert_eq!((lost_in(0), lost_in(2)), (1, 100));
    // Partition "2": deleted by nb-2-big.
    assert_eq!(merged[2].deletion_source, Some(1));
    assert_eq!(
        merged[2].start.deletion.marked_for_delete_at_micros, ts,
        "{:?}",
        merged[2].start.deletion
    );
}

#[test]
fn a_cell_of_no_column_is_an_error_naming_the_sstable_and_atom() {
    let Some(fx) = common::cassandra_fixtures("2.x cell of no column") else {
        return;
    };
    let name = "legacy_ka_15081";
    let schema = parse_schema_cql(&format!(
        "CREATE TABLE {name} (id int PRIMARY KEY, payload text);"
    ))
    .unwrap();
    let t = Loaded::load(&common::legacy_dir(&fx, "ka", name));
    let err = merge(&[(t.name.as_str(), &t)], &schema).unwrap_err();
    assert_eq!(
        err,
        "legacy_tables-legacy_ka_15081-ka-1: column paylo!d is not in the schema's regular \
         columns at 0x24 in Data.db; no partition could be reconciled"
    );
}

/// One merged unfiltered in words: `row c1,c2`, or each side of a bound or boundary as
/// `end|start incl|excl [clustering] markedForDeleteAt`.
fn describe(u: &serde_json::Value) -> String {
    if u["type"] == "row" {
        let c: Vec<&str> = u["clustering"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        return format!("row {}", c.join(","));
    }
    let mut out = Vec::new();
    for side in ["end", "start"] {
        let b = &u[side];
        if b.is_object() {
            let c: Vec<&str> = b["clustering"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let kind = if b["type"] == "inclusive" {
                "incl"
            } else {
                "excl"
            };
            let at = b["deletion_info"]["marked_deleted"].as_str().unwrap();
            // The markedForDeleteAt of the fixtures' tombstones, in µs.
            let micros = [100i64, 200, 250, 1_513_015_245]
                .into_iter()
                .find(|m| sstable_engine::datetime::iso8601_micros(*m) == at)
                .unwrap_or(-1);
            out.push(format!("{side} {kind} [{}] {micros}", c.join(",")));
        }
    }
    out.join(" / ")
}

/// The range tombstone tables of MANIFEST §5 (legacy_data's tests list their atoms): one
/// repeated at every index block (taken once), two spanning blocks, and a compaction's nested
/// tombstones ([2] at 200 µs holding [2:1, 2:5] at 250 µs), which become boundaries.
#[test]
fn range_tombstones_of_2x_become_3x_bounds_and_boundaries() {
    let Some(fx) = common::cassandra_fixtures("2.x range tombstones merged") else {
        return;
    };
    let rt = "(k int, c1 int, c2 int, v1 blob, v2 blob, PRIMARY KEY (k, c1, c2))";
    let flushed = [
        "row 0,0",
        "row 1,1",
        "start incl [2] 200",
        "row 2,0",
        "row 2,1",
        "row 2,2",
        "end incl [2] 200",
        "row 3,0",
        "start incl [4] 100",
        "end incl [4] 100",
    ];
    let compacted = [
        "row 0,0",
        "row 1,1",
        "start incl [2] 200",
        "row 2,0",
        "end excl [2,1] 200 / start incl [2,1] 250",
        "row 2,1",
        "row 2,2",
        "row 2,3",
        "end incl [2,5] 250 / start excl [2,5] 200",
        "end incl [2] 200",
        "row 3,0",
        "start incl [4] 100",
        "end incl [4] 100",
    ];
    let repeated = [
        "start incl [1] 1513015245",
        "row 1,1",
        "row 1,2",
        "row 1,3",
        "end incl [1] 1513015245",
    ];
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "legacy_ka_repeated_rt",
            "(k1 int, c1 int, c2 int, val1 text, val2 text, val3 text, PRIMARY KEY (k1, c1, c2))",
            &repeated,
        ),
        ("legacy_ka_flushed_multi_block_rt", rt, &flushed),
        ("legacy_ka_compacted_multi_block_rt", rt, &compacted),
    ];
    for (name, body, expected) in cases {
        let schema = parse_schema_cql(&format!("CREATE TABLE {name} {body};")).unwrap();
        let dir = common::legacy_dir(&fx, "ka", name);
        let t = Loaded::load(&dir);
        let copy = renamed(&t, &dir, 9999);
        let (json, merged, _) = merge(
            &[(t.name.as_str(), &t), (copy.name.as_str(), &copy)],
            &schema,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(json.len(), 1, "{name}");
        let got: Vec<String> = json[0]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(describe)
            .collect();
        assert_eq!(got, expected, "{name}");
        assert_eq!(merged[0].sources, vec![0, 1]);
        for u in &merged[0].unfiltereds {
            if let MergedUnfiltered::Marker(m) = u {
                // Equal copies: the first SSTable's tombstone.
                assert!(m.start_source.is_none_or(|s| s == 0), "{name}");
                assert!(m.end_source.is_none_or(|s| s == 0), "{name}");
            }
        }
    }
}

/// A 2.x table merged with the scrub's rewrite of it as `nb` (`scrub::LegacyRewriter`): the
/// same rows, each held by both SSTables, every cell and liveness from the first (equal
/// versions: the first SSTable's is kept), nothing lost.
#[test]
fn a_2x_table_merged_with_its_nb_rewrite_is_the_same_table_in_both() {
    let Some(fx) = common::cassandra_fixtures("2.x merged with its rewrite") else {
        return;
    };
    let (schema, old) = clust_table(&fx, "ka");
    let (new, partitions) = nb_rewrite(&old, &schema, false);
    assert_eq!(partitions, 5);
    let (json, merged, _) = merge(&[("ka-1", &old), ("nb-2-big", &new)], &schema).unwrap();
    let layout = LegacyLayout::from_cql(&schema.table, false).unwrap();
    let single = legacy_dump(&old, &layout);
    assert_eq!(json, single);
    assert_eq!(merged.len(), 5);
    for p in &merged {
        assert_eq!(p.sources, vec![0, 1]);
        assert!(p.losses.is_empty(), "{:?}", p.losses);
        assert_eq!(p.unfiltereds.len(), 50);
        for u in &p.unfiltereds {
            let MergedUnfiltered::Row(r) = u else {
                panic!("a marker");
            };
            assert_eq!(r.sources, vec![0, 1]);
            assert_eq!(
                (r.liveness_source, r.cell_sources.clone()),
                (Some(0), vec![0])
            );
        }
    }
}

/// The COMPACT STORAGE 2.x fixture tables (MANIFEST §3: `legacy_<v>_{simple,clust}[_counter]`
/// `WITH COMPACT STORAGE`, jb, ka, la) with their `CREATE TABLE`.
fn compact_tables() -> Vec<(String, String, &'static str, String)> {
    let mut out = Vec::new();
    for v in ["jb", "ka", "la"] {
        for (kind, body) in LEGACY_SCHEMAS {
            let name = format!("legacy_{v}_{kind}_compact");
            out.push((
                v.to_owned(),
                name.clone(),
                kind,
                format!("CREATE TABLE {name} {body} WITH COMPACT STORAGE;"),
            ));
        }
    }
    out
}

/// A merged compact table's content against MANIFEST §3: keys "0".."4"; a simple table's `val`
/// in the static row (3.0 reads a static compact table's columns as static: no regular row,
/// `db/LegacyLayout.java` `decodeCellName`), "foo bar baz" or the counter 1 (`counter` per
/// copy: a jb counter's local shards add up); a clust table's 50 rows (clustering i + LONG in
/// UTF-8 order) without a row marker, each the one 128-character `val` or the counter. Every
/// part comes from the SSTables `sources` (the first SSTable's cell kept when they are equal).
fn assert_compact_content(
    name: &str,
    kind: &str,
    json: &[serde_json::Value],
    merged: &[MergedPartition],
    counter: &str,
    sources: &[usize],
) {
    let keys: Vec<&str> = json
        .iter()
        .map(|p| p["partition"]["key"][0].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["0", "1", "2", "3", "4"], "{name}");
    let long = "0123456789".repeat(120);
    let mut order: Vec<String> = (0..50).map(|i| format!("{i}{long}")).collect();
    order.sort();
    let mut clust_val: Option<String> = None;
    for (p, m) in json.iter().zip(merged) {
        assert_eq!(m.sources, sources, "{name}");
        assert!(m.losses.is_empty(), "{name}: {:?}", m.losses);
        let rows = p["rows"].as_array().unwrap();
        let value_of = |r: &serde_json::Value| {
            let cells = r["cells"].as_array().unwrap();
            assert_eq!(cells.len(), 1, "{name}");
            assert_eq!(cells[0]["name"], "val", "{name}");
            cells[0]["value"].as_str().unwrap().to_owned()
        };
        if kind.starts_with("simple") {
            assert_eq!(rows.len(), 1, "{name}");
            assert_eq!(rows[0]["type"], "static_block", "{name}");
            assert!(m.unfiltereds.is_empty(), "{name}");
            let s = m.static_row.as_ref().unwrap();
            assert_eq!(s.sources, sources, "{name}");
            assert_eq!((s.liveness_source, s.cell_sources.clone()), (None, vec![0]));
            let want = if kind == "simple" {
                "foo bar baz"
            } else {
                counter
            };
            assert_eq!(value_of(&rows[0]), want, "{name}");
            continue;
        }
        assert!(m.static_row.is_none(), "{name}");
        assert_eq!(rows.len(), 50, "{name}");
        assert_eq!(m.unfiltereds.len(), 50, "{name}");
        for ((r, u), ck) in rows.iter().zip(&m.unfiltereds).zip(&order) {
            assert_eq!(r["type"], "row", "{name}");
            assert_eq!(r["clustering"], serde_json::json!([ck]), "{name}");
            assert!(r["liveness_info"].is_null(), "{name}");
            let MergedUnfiltered::Row(u) = u else {
                panic!("{name}: a marker");
            };
            assert_eq!(u.sources, sources, "{name}");
            assert_eq!(
                (u.liveness_source, u.cell_sources.clone()),
                (None, vec![0]),
                "{name}"
            );
            let v = value_of(r);
            if kind == "clust" {
                assert_eq!(v.len(), 128, "{name}");
                assert!(v.bytes().all(|b| b.is_ascii_lowercase()), "{name}");
                assert_eq!(clust_val.get_or_insert_with(|| v.clone()), &v, "{name}");
            } else {
                assert_eq!(v, counter, "{name}");
            }
        }
    }
}

#[test]
fn every_compact_2x_fixture_table_merged_with_its_copy_is_its_content() {
    let Some(fx) = common::cassandra_fixtures("compact 2.x merged with its copy") else {
        return;
    };
    let mut merged_tables = 0;
    for (v, name, kind, cql) in compact_tables() {
        let dir = common::legacy_dir(&fx, &v, &name);
        let schema = parse_schema_cql(&cql).unwrap();
        assert!(schema.compact_storage);
        let layout = LegacyLayout::from_cql(&schema.table, true).unwrap();
        let t = Loaded::load(&dir);
        let copy = renamed(&t, &dir, 9999);
        let mut single = legacy_dump(&t, &layout);
        // jb's counters are local shards (pre-2.1), which add up in `CounterContext.merge`.
        let mut local_shards = false;
        for p in &mut single {
            local_shards |= doubled_local_shards(p);
        }
        assert_eq!(
            local_shards,
            v == "jb" && kind.contains("counter"),
            "{name}"
        );
        let (json, merged, data_schema) = merge(
            &[(t.name.as_str(), &t), (copy.name.as_str(), &copy)],
            &schema,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        // 3.0's schema of the table (`db/CompactTables.java`): a static compact table's
        // columns static behind a hidden text clustering column, a dense one's clustering and
        // its one regular column.
        let statics: Vec<&str> = data_schema
            .static_columns
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let regulars: Vec<&str> = data_schema
            .regular_columns
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(data_schema.clustering_types.len(), 1, "{name}");
        if kind.starts_with("simple") {
            assert_eq!((statics, regulars), (vec!["val"], vec![]), "{name}");
        } else {
            assert_eq!((statics, regulars), (vec![], vec!["val"]), "{name}");
        }
        assert_eq!(json, single, "{name}");
        let counter = if local_shards { "2" } else { "1" };
        assert_compact_content(&name, kind, &json, &merged, counter, &[0, 1]);
        merged_tables += 1;
    }
    assert_eq!(merged_tables, 12);
}

/// A compact 2.x table beside its own rewrite as `nb` (`scrub::LegacyRewriter`, the same
/// conversion): one table, its MANIFEST content, each part in both SSTables.
#[test]
fn a_compact_2x_table_merged_with_its_nb_rewrite_is_the_same_table_in_both() {
    let Some(fx) = common::cassandra_fixtures("compact 2.x merged with its rewrite") else {
        return;
    };
    let mut merged_tables = 0;
    for (v, name, kind, cql) in compact_tables() {
        let schema = parse_schema_cql(&cql).unwrap();
        let old = Loaded::load(&common::legacy_dir(&fx, &v, &name));
        let (new, partitions) = nb_rewrite(&old, &schema, true);
        assert_eq!(partitions, 5, "{name}");
        let layout = LegacyLayout::from_cql(&schema.table, true).unwrap();
        let mut single = legacy_dump(&old, &layout);
        let mut local_shards = false;
        for p in &mut single {
            local_shards |= doubled_local_shards(p);
        }
        let (json, merged, _) = merge(&[(&v, &old), ("nb-2-big", &new)], &schema)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(json, single, "{name}");
        let counter = if local_shards { "2" } else { "1" };
        assert_compact_content(&name, kind, &json, &merged, counter, &[0, 1]);
        merged_tables += 1;
    }
    assert_eq!(merged_tables, 12);
}
