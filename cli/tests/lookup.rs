//! `sstable-inspect index` and `sstable-inspect lookup` over the real fixtures (MANIFEST.md §2,
//! §3, §6), asserted against Data.db decoded independently here.

use crate::common;
use crate::support::run;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sstable_engine::clock::NoClock;
use sstable_engine::component::bti::bytecomparable::escaped;
use sstable_engine::component::compression_info::{self, CompressionInfo};
use sstable_engine::component::data::{DataFileReader, DataItem, DataSchema, DecodeOptions};
use sstable_engine::component::statistics;
use sstable_engine::compress::{decompress_chunk, Compressor};
use sstable_engine::descriptor::parse_file_name;
use sstable_engine::range::{SliceSource, SyncDriver};
use sstable_engine::{ComponentType, Version};

const TABLES: [&str; 4] = ["simple", "simple_counter", "clust", "clust_counter"];
const VERSIONS: [&str; 12] = [
    "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
];

fn run_json(args: &[&str]) -> (Value, i32) {
    let (stdout, stderr, code) = run(args);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{args:?}: invalid JSON ({e}): {stdout}\n{stderr}"));
    (json, code)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn component(dir: &Path, suffix: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    found.sort();
    found.into_iter().next()
}

/// One partition of Data.db, decoded here: position, length, rows (position, first clustering
/// value).
#[derive(Debug)]
struct Partition {
    position: u64,
    end: u64,
    rows: Vec<(u64, Vec<u8>)>,
}

/// Data.db decoded without any index.
struct Data {
    version: Version,
    compression: Option<CompressionInfo>,
    bytes: Vec<u8>,
    /// 3.0+: the decoded partitions by key.
    partitions: BTreeMap<Vec<u8>, Partition>,
}

impl Data {
    fn load(dir: &Path) -> Data {
        let data_path = component(dir, "-Data.db").unwrap();
        let name = data_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (descriptor, _) = parse_file_name(&name).unwrap();
        let version = descriptor.version;
        let compression = component(dir, "-CompressionInfo.db")
            .map(|p| compression_info::decode(&std::fs::read(p).unwrap(), &version).unwrap());
        let bytes = std::fs::read(&data_path).unwrap();
        let mut data = Data {
            version,
            compression,
            bytes,
            partitions: BTreeMap::new(),
        };
        if version.has_row_format() {
            let stats = statistics::decode(
                &std::fs::read(component(dir, "-Statistics.db").unwrap()).unwrap(),
                &version,
            )
            .unwrap();
            let schema = DataSchema::from_header(stats.header.as_ref().unwrap(), &version).unwrap();
            let mut reader = match &data.compression {
                Some(c) => DataFileReader::compressed(
                    schema,
                    DecodeOptions::default(),
                    c.clone(),
                    data.bytes.len() as u64,
                ),
                None => DataFileReader::uncompressed(
                    schema,
                    DecodeOptions::default(),
                    data.bytes.len() as u64,
                ),
            };
            let all = data.bytes.clone();
            let mut current: Option<(Vec<u8>, Partition)> = None;
            let files = [(ComponentType::Data, all.as_slice())];
            let mut driver = SyncDriver::new(SliceSource { files: &files });
            for item in driver.items(&mut reader, &NoClock) {
                match item.unwrap() {
                    DataItem::PartitionStart(p) => {
                        current = Some((
                            p.key.bytes.bytes.clone(),
                            Partition {
                                position: p.position,
                                end: 0,
                                rows: Vec::new(),
                            },
                        ))
                    }
                    DataItem::Row(r) => {
                        let c = r.clustering.as_ref().map_or_else(Vec::new, |c| {
                            c.value_bytes()
                                .next()
                                .map(|(_, b)| b.to_vec())
                                .unwrap_or_default()
                        });
                        current.as_mut().unwrap().1.rows.push((r.position, c));
                    }
                    DataItem::PartitionEnd(e) => {
                        let (k, mut p) = current.take().unwrap();
                        p.end = e.partition_span.end;
                        data.partitions.insert(k, p);
                    }
                    _ => {}
                }
            }
        }
        data
    }

    /// The uncompressed bytes.
    fn uncompressed(&self) -> Vec<u8> {
        let Some(c) = &self.compression else {
            return self.bytes.clone();
        };
        let compressor = Compressor::from_class_name(&c.compressor);
        let mut out = Vec::new();
        let mut chunk = Vec::new();
        for i in 0..c.chunk_offsets.len() {
            let (start, end) = c.chunk_span(i, self.bytes.len() as u64).unwrap();
            let stored = &self.bytes[start as usize..end as usize - 4];
            let expected = c.chunk_uncompressed_len(i).unwrap() as usize;
            decompress_chunk(&compressor, stored, expected, &mut chunk).unwrap();
            out.extend_from_slice(&chunk);
        }
        out
    }

    /// Where `key`'s partition starts: decoded (3.0+), or before 3.0 the one place where its
    /// header (u16 length, key, LIVE DeletionTime) appears in the uncompressed bytes.
    fn position_of(&self, key: &[u8], uncompressed: &[u8]) -> u64 {
        if self.version.has_row_format() {
            return self.partitions[key].position;
        }
        let mut pattern = (key.len() as u16).to_be_bytes().to_vec();
        pattern.extend_from_slice(key);
        pattern.extend_from_slice(&[0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]);
        let hits: Vec<usize> = uncompressed
            .windows(pattern.len())
            .enumerate()
            .filter(|(_, w)| *w == pattern.as_slice())
            .map(|(i, _)| i)
            .collect();
        assert_eq!(hits.len(), 1, "{key:?}");
        hits[0] as u64
    }
}

fn keys_of(partitions: &Value) -> Vec<Value> {
    partitions
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].clone())
        .collect()
}

/// The lookup JSON contract: these keys, with these types.
fn assert_lookup_contract(j: &Value, what: &str) {
    assert!(j["found"].is_boolean(), "{what}: {j}");
    assert!(j["token"].is_string(), "{what}");
    assert!(j["bloom"]["maybe_present"].is_boolean(), "{what}");
    assert!(j["bloom"]["bits"].is_array(), "{what}");
    let steps = j["steps"].as_array().unwrap();
    assert!(!steps.is_empty(), "{what}");
    for step in steps {
        assert!(step["component"].is_string(), "{what}: {step}");
        assert!(step["offset"].is_u64(), "{what}: {step}");
        assert!(step["length"].is_u64(), "{what}: {step}");
        assert!(step["nanos"].is_u64(), "{what}: {step}");
    }
    if j["found"] == true {
        let p = &j["partition"];
        assert!(p["key"].is_array(), "{what}");
        assert!(p["position"].is_u64(), "{what}");
        assert!(p.get("rows").is_some(), "{what}");
        assert!(j["stopped_at"].is_null(), "{what}");
    } else {
        assert!(j["partition"].is_null(), "{what}");
        assert!(j["stopped_at"]["stage"].is_string(), "{what}");
    }
}

fn step_components(j: &Value) -> Vec<String> {
    j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["component"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn index_and_lookup_every_legacy_table() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::legacy_tables") else {
        return;
    };
    for v in VERSIONS {
        for table in TABLES {
            let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_{table}"));
            let what = format!("{v} {table}");
            let data = Data::load(&dir);
            let uncompressed = data.uncompressed();
            let (index, code) = run_json(&["index", s(&dir), "--json"]);
            assert_eq!(code, 0, "{what}: {index}");
            let r = &index[0];
            assert_eq!(r["version"], v, "{what}");
            assert_eq!(r["partitioner"], "ByteOrderedPartitioner", "{what}");
            assert_eq!(r["errors"], serde_json::json!([]), "{what}");
            let partitions = &r["partitions"];
            assert_eq!(
                keys_of(partitions),
                ["0", "1", "2", "3", "4"].map(|k| serde_json::json!([k])),
                "{what}"
            );
            for (i, p) in partitions.as_array().unwrap().iter().enumerate() {
                let key = format!("{i}").into_bytes();
                assert_eq!(p["entry"], i, "{what}");
                assert_eq!(p["hex"], format!("0x{:02x}", key[0]), "{what}");
                assert_eq!(p["token"], format!("{:02x}", key[0]), "{what}");
                assert_eq!(
                    p["position"],
                    data.position_of(&key, &uncompressed),
                    "{what} {i}: the position where Data.db holds the key"
                );
                // Clustering tables (~67 KB partitions) have row-index blocks, simple ones none.
                let blocks = p["blocks"].as_u64().unwrap();
                assert_eq!(
                    blocks >= 2,
                    table.starts_with("clust"),
                    "{what} {i}: {blocks}"
                );
            }
            let cc = &r["crosscheck"];
            assert_eq!(cc["finding_count"], 0, "{what}: {cc}");
            assert_eq!(cc["checked"], 5, "{what}");
            assert_eq!(cc["data_keys_checked"], 5, "{what}");
            assert_eq!(
                cc["summary_samples_checked"],
                if v == "da" { 0 } else { 1 },
                "{what}"
            );

            for i in 0..5 {
                let key = format!("{i}");
                let (j, code) = run_json(&["lookup", s(&dir), &key, "--json"]);
                let what = format!("{what} lookup {key}");
                assert_eq!(code, 0, "{what}: {j}");
                assert_lookup_contract(&j, &what);
                assert_eq!(j["found"], true, "{what}: {j}");
                assert_eq!(j["token"], format!("{:02x}", key.as_bytes()[0]), "{what}");
                let p = &j["partition"];
                assert_eq!(p["key"], serde_json::json!([key]), "{what}");
                assert_eq!(p["position"], partitions[i]["position"], "{what}");
                // MANIFEST §3: 1 row per simple partition, 50 per clustering partition; the
                // pre-3.0 cell layout is not decoded.
                let rows = match (data.version.has_row_format(), table.starts_with("clust")) {
                    (false, _) => Value::Null,
                    (true, true) => serde_json::json!(50),
                    (true, false) => serde_json::json!(1),
                };
                assert_eq!(p["rows"], rows, "{what}");
                if data.version.has_row_format() {
                    let truth = &data.partitions[key.as_bytes()];
                    assert_eq!(p["end"], truth.end, "{what}");
                }
                let steps = step_components(&j);
                assert_eq!(steps[0], "Filter.db", "{what}");
                let path: Vec<&str> = steps[1..]
                    .iter()
                    .map(String::as_str)
                    .filter(|c| *c != "Data.db")
                    .collect();
                if v == "da" {
                    let expected: &[&str] = if table.starts_with("clust") {
                        &["Partitions.db", "Partitions.db", "Rows.db"]
                    } else {
                        &["Partitions.db", "Partitions.db"]
                    };
                    assert_eq!(path, expected, "{what}");
                } else {
                    assert_eq!(path[0], "Summary.db", "{what}");
                    assert!(
                        path[1..].iter().all(|c| *c == "Index.db"),
                        "{what}: {path:?}"
                    );
                    assert!(path.len() >= 2, "{what}");
                }
                assert_eq!(steps.last().map(String::as_str), Some("Data.db"), "{what}");
            }
            // "5" is not there: found false, exit 0, with where it stopped.
            let (j, code) = run_json(&["lookup", s(&dir), "5", "--json"]);
            assert_eq!(code, 0, "{what}: {j}");
            assert_lookup_contract(&j, &what);
            assert_eq!(j["found"], false, "{what}");
            let stage = j["stopped_at"]["stage"].as_str().unwrap();
            let expected = if j["bloom"]["maybe_present"] == false {
                "BloomNegative"
            } else if v == "da" {
                "PartitionIndexMiss"
            } else {
                "OutsideKeyRange"
            };
            assert_eq!(stage, expected, "{what}: {j}");
            // bti: "no transition" is confirmed by the first partition under the nearest
            // transition (read from Rows.db or Data.db); big: no Data.db read.
            let read_data = step_components(&j)
                .iter()
                .any(|c| c == "Data.db" || c == "Rows.db");
            assert_eq!(read_data, v == "da", "{what}: {j}");
            let (text, _, code) = run(&["lookup", s(&dir), "5"]);
            assert_eq!(code, 0);
            assert!(text.contains("not found"), "{what}: {text}");
        }
    }
}

/// MANIFEST §6: Murmur3, keys 1..10 (int, no key type before 3.0), index order 5, 10, 1, 8, 2,
/// 4, 7, 6, 9, 3.
#[test]
fn murmur3_tables_list_in_token_order_and_look_up_int_keys() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::bloom_filter") else {
        return;
    };
    for v in ["ka", "la"] {
        let dir = fx.join("other/bloom-filter").join(v).join("foo");
        let data = Data::load(&dir);
        let uncompressed = data.uncompressed();
        let (index, code) = run_json(&["index", s(&dir), "--json"]);
        assert_eq!(code, 0, "{v}: {index}");
        let r = &index[0];
        assert_eq!(r["partitioner"], "Murmur3Partitioner", "{v}");
        let partitions = r["partitions"].as_array().unwrap();
        let order: Vec<String> = partitions
            .iter()
            .map(|p| p["hex"].as_str().unwrap().to_owned())
            .collect();
        let expected: Vec<String> = [5, 10, 1, 8, 2, 4, 7, 6, 9, 3]
            .iter()
            .map(|k| format!("0x{k:08x}"))
            .collect();
        assert_eq!(order, expected, "{v}");
        // Binary keys without a key type are shown in hex.
        assert_eq!(
            partitions[0]["key"],
            serde_json::json!(["0x00000005"]),
            "{v}"
        );
        let tokens: Vec<i64> = partitions
            .iter()
            .map(|p| p["token"].as_str().unwrap().parse().unwrap())
            .collect();
        assert!(tokens.windows(2).all(|w| w[0] < w[1]), "{v}: {tokens:?}");
        assert_eq!(r["crosscheck"]["finding_count"], 0, "{v}");
        for p in partitions {
            let hex = p["hex"].as_str().unwrap();
            let key = u32::from_str_radix(&hex[2..], 16).unwrap().to_be_bytes();
            assert_eq!(
                p["position"],
                data.position_of(&key, &uncompressed),
                "{v} {hex}"
            );
            // `0x…` and `--hex` both give raw bytes.
            for args in [vec![hex], vec![&hex[2..], "--hex"]] {
                let mut a = vec!["lookup", s(&dir)];
                a.extend(&args);
                a.push("--json");
                let (j, code) = run_json(&a);
                assert_eq!(code, 0, "{v} {args:?}");
                assert_lookup_contract(&j, v);
                assert_eq!(j["found"], true, "{v} {args:?}: {j}");
                assert_eq!(j["token"], p["token"], "{v}");
                assert_eq!(j["partition"]["position"], p["position"], "{v}");
                assert_eq!(
                    step_components(&j),
                    ["Filter.db", "Summary.db", "Index.db", "Data.db"],
                    "{v}"
                );
            }
        }
        // Key 11 is absent.
        let (j, _) = run_json(&["lookup", s(&dir), "0x0000000b", "--json"]);
        assert_eq!(j["found"], false, "{v}");
    }
}

/// MANIFEST §6: negative-local-expiration table1, `k int PRIMARY KEY`: `lookup 1` finds (1,1,1).
#[test]
fn lookup_of_a_typed_int_key() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::negative_local_expiration") else {
        return;
    };
    let dir = fx.join("other/negative-local-expiration-test/table1");
    let data = Data::load(&dir);
    let (j, code) = run_json(&["lookup", s(&dir), "1", "--json"]);
    assert_eq!(code, 0, "{j}");
    assert_lookup_contract(&j, "table1");
    assert_eq!(j["found"], true);
    assert_eq!(j["key"]["hex"], "0x00000001");
    assert_eq!(j["partition"]["key"], serde_json::json!(["1"]));
    assert_eq!(
        j["partition"]["position"],
        data.partitions[&vec![0, 0, 0, 1]].position
    );
    assert_eq!(j["partition"]["rows"], 1);
    assert_eq!(
        j["partition"]["end"],
        data.partitions[&vec![0, 0, 0, 1]].end
    );
    let (text, _, code) = run(&["lookup", s(&dir), "1"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("found: partition [\"1\"] at Data.db 0, 1 rows"),
        "{text}"
    );
    // A key that does not parse as an int is bad usage.
    let (_, err, code) = run(&["lookup", s(&dir), "one"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("KEY `one`"), "{err}");
}

/// The row-index blocks of the clustering tables start at rows that Data.db holds there.
#[test]
fn index_blocks_match_the_rows_in_data() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::blocks") else {
        return;
    };
    for v in VERSIONS {
        for table in ["clust", "clust_counter"] {
            let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_{table}"));
            let what = format!("{v} {table}");
            let data = Data::load(&dir);
            let uncompressed = data.uncompressed();
            let data_len = uncompressed.len() as u64;
            let (index, code) = run_json(&["index", s(&dir), "--blocks", "--json"]);
            assert_eq!(code, 0, "{what}");
            let partitions = index[0]["partitions"].as_array().unwrap();
            for (i, p) in partitions.iter().enumerate() {
                let position = p["position"].as_u64().unwrap();
                let end = partitions
                    .get(i + 1)
                    .map_or(data_len, |n| n["position"].as_u64().unwrap());
                let blocks = p["block_list"].as_array().unwrap();
                assert_eq!(blocks.len() as u64, p["blocks"].as_u64().unwrap(), "{what}");
                assert!(blocks.len() >= 2, "{what}");
                // The blocks tile the partition after its header, end byte included.
                for (a, b) in blocks.iter().zip(blocks.iter().skip(1)) {
                    assert_eq!(
                        a["offset"].as_u64().unwrap() + a["width"].as_u64().unwrap(),
                        b["offset"].as_u64().unwrap(),
                        "{what} {i}"
                    );
                }
                let last = blocks.last().unwrap();
                let blocks_end =
                    position + last["offset"].as_u64().unwrap() + last["width"].as_u64().unwrap();
                if data.version.has_row_format() {
                    assert_eq!(
                        blocks_end, end,
                        "{what} {i}: the last block ends where the partition does (end byte included)"
                    );
                } else {
                    // Before 3.0 the 2-byte end-of-row marker (a zero-length cell name) follows
                    // the last block.
                    assert_eq!(blocks_end + 2, end, "{what} {i}");
                    assert_eq!(
                        &uncompressed[end as usize - 2..end as usize],
                        [0, 0],
                        "{what}"
                    );
                }
                if !data.version.has_row_format() {
                    // Pre-3.0 names are composites (clustering, column name): the first block
                    // starts at "0"+LONG after the 15-byte header (2 + 1 key + 12 deletion),
                    // the last ends at "9"+LONG.
                    assert_eq!(blocks[0]["offset"], 15, "{what}");
                    let first = blocks[0]["first"]["values"][0].as_str().unwrap();
                    assert!(
                        first.starts_with("0012345678") && first.len() == 1201,
                        "{what}"
                    );
                    let last_name = last["last"]["values"][0].as_str().unwrap();
                    assert!(last_name.starts_with("9012345678"), "{what}");
                    continue;
                }
                let key = format!("{i}").into_bytes();
                let truth = &data.partitions[&key];
                assert_eq!(truth.position, position, "{what}");
                let row_at = |offset: u64| {
                    truth
                        .rows
                        .iter()
                        .position(|(pos, _)| *pos == position + offset)
                        .unwrap_or_else(|| panic!("{what} {i}: no row at offset {offset}"))
                };
                let mut previous_last: Option<usize> = None;
                for (j, b) in blocks.iter().enumerate() {
                    let first = row_at(b["offset"].as_u64().unwrap());
                    let next_start = blocks
                        .get(j + 1)
                        .map_or(truth.rows.len(), |n| row_at(n["offset"].as_u64().unwrap()));
                    assert!(next_start > first, "{what} {i} block {j}");
                    let clustering = String::from_utf8(truth.rows[first].1.clone()).unwrap();
                    if v == "da" {
                        // Rows.db keeps a separator: above the previous block's last row,
                        // at most this block's first (byte-comparable: 40 ‖ escaped text).
                        let sep = hex_bytes(b["separator"].as_str().unwrap());
                        let bc = |row: usize| {
                            let mut out = vec![0x40];
                            out.extend(escaped(&truth.rows[row].1));
                            out
                        };
                        assert!(sep <= bc(first), "{what} {i} block {j}");
                        if let Some(prev) = previous_last {
                            assert!(bc(prev) < sep, "{what} {i} block {j}");
                        } else {
                            assert!(sep.is_empty(), "{what}: the first separator is empty");
                        }
                    } else {
                        assert_eq!(b["first"]["kind"], "CLUSTERING", "{what}");
                        assert_eq!(
                            b["first"]["values"],
                            serde_json::json!([clustering]),
                            "{what} {i} block {j}: first clustering = first row's"
                        );
                        let last_row =
                            String::from_utf8(truth.rows[next_start - 1].1.clone()).unwrap();
                        assert_eq!(
                            b["last"]["values"],
                            serde_json::json!([last_row]),
                            "{what} {i} block {j}: last clustering = last row before the next block"
                        );
                        assert!(b["open_marker"].is_null(), "{what}");
                    }
                    previous_last = Some(next_start - 1);
                }
                assert_eq!(truth.rows.len(), 50, "{what}");
            }
        }
    }
}

/// `"40 31 32"` (bytecomparable::describe) → bytes; `"(empty)"` → none.
fn hex_bytes(described: &str) -> Vec<u8> {
    described
        .split(' ')
        .filter(|t| *t != "(empty)")
        .map(|t| u8::from_str_radix(t, 16).unwrap())
        .collect()
}

/// MANIFEST §6: corrupt jb Keyspace1-Standard3 stores f, e, d, a, b, c.
#[test]
fn out_of_order_keys_are_reported() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::corrupt_order") else {
        return;
    };
    let file = fx.join("other/corrupt-sstables/Keyspace1-Standard3-jb-1-Data.db");
    let (index, code) = run_json(&["index", s(&file), "--json"]);
    assert_eq!(code, 0, "findings are not errors: {index}");
    assert_eq!(
        index.as_array().unwrap().len(),
        1,
        "only Standard3 is selected"
    );
    let r = &index[0];
    assert_eq!(
        keys_of(&r["partitions"]),
        ["f", "e", "d", "a", "b", "c"].map(|k| serde_json::json!([k]))
    );
    let order: Vec<(Value, Value, Value)> = r["crosscheck"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "KeyOrder")
        .map(|f| (f["entry"].clone(), f["key"].clone(), f["position"].clone()))
        .collect();
    let positions: Vec<&Value> = r["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["position"])
        .collect();
    assert_eq!(
        order,
        [
            (
                serde_json::json!(1),
                serde_json::json!("65"),
                positions[1].clone()
            ),
            (
                serde_json::json!(2),
                serde_json::json!("64"),
                positions[2].clone()
            ),
            (
                serde_json::json!(3),
                serde_json::json!("61"),
                positions[3].clone()
            ),
        ]
    );
    assert_eq!(r["crosscheck"]["finding_count"], 3, "{}", r["crosscheck"]);
    let (text, _, _) = run(&["index", s(&file)]);
    assert!(text.contains("3 findings"), "{text}");
    assert!(text.contains("entry 3: key \"a\""), "{text}");
}

/// A copy of a fixture directory in a fresh temporary directory.
struct TempCopy(PathBuf);

impl TempCopy {
    fn of(dir: &Path, name: &str) -> TempCopy {
        let to = std::env::temp_dir().join(format!(
            "sstable-inspect-lookup-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&to);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
        TempCopy(to)
    }
}

impl Drop for TempCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn an_altered_index_entry_is_reported_and_a_broken_data_file_is_an_error() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::altered") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_simple");
    let (index, _) = run_json(&["index", s(&dir), "--json"]);
    let partitions = index[0]["partitions"].as_array().unwrap().clone();
    let copy = TempCopy::of(&dir, "altered");
    let index_path = component(&copy.0, "-Index.db").unwrap();
    let mut bytes = std::fs::read(&index_path).unwrap();
    // Entry 2 ("2") gets entry 3's position: its vint follows the 3-byte key field.
    let field = partitions[2]["index_offset"].as_u64().unwrap() as usize + 3;
    let old = partitions[2]["position"].as_u64().unwrap();
    let new = partitions[3]["position"].as_u64().unwrap();
    assert_eq!(u64::from(bytes[field]), old);
    bytes[field] = new as u8;
    std::fs::write(&index_path, &bytes).unwrap();

    let (j, code) = run_json(&["index", s(&copy.0), "--json"]);
    assert_eq!(code, 0, "{j}");
    let findings = j[0]["crosscheck"]["findings"].as_array().unwrap();
    let f = findings
        .iter()
        .find(|f| f["kind"] == "DataKeyMismatch")
        .unwrap_or_else(|| panic!("{findings:?}"));
    assert_eq!(f["entry"], 2);
    assert_eq!(f["key"], "32");
    assert_eq!(f["position"], new);
    assert!(
        f["message"].as_str().unwrap().contains("holds key \"3\""),
        "{f}"
    );
    // Entry 3 now repeats entry 2's position.
    assert!(findings
        .iter()
        .any(|f| f["kind"] == "PositionOrder" && f["entry"] == 3));

    // The lookup of "2" reaches Data.db and stops there: the index entry held the key, so
    // another key at its position is a broken read path, not a miss: an error, exit 1.
    let (j, code) = run_json(&["lookup", s(&copy.0), "2", "--json"]);
    assert_eq!(code, 1, "{j}");
    assert_lookup_contract(&j, "altered");
    assert_eq!(j["found"], false);
    assert_eq!(j["stopped_at"]["stage"], "Error");
    assert_eq!(j["stopped_at"]["detail"]["Error"]["component"], "Data.db");
    assert_eq!(j["stopped_at"]["detail"]["Error"]["offset"], new);
    assert!(
        j["stopped_at"]["description"]
            .as_str()
            .unwrap()
            .contains("holds \"3\""),
        "{j}"
    );

    // A Data.db cut short: the read fails, the lookup says where, exit 1.
    let data_path = component(&copy.0, "-Data.db").unwrap();
    std::fs::write(&data_path, &std::fs::read(&data_path).unwrap()[..10]).unwrap();
    let (j, code) = run_json(&["lookup", s(&copy.0), "4", "--json"]);
    assert_eq!(code, 1, "{j}");
    assert_eq!(j["found"], false);
    assert_eq!(j["stopped_at"]["stage"], "Error");
    assert_eq!(
        j["steps"].as_array().unwrap().last().unwrap()["component"],
        "Data.db"
    );
    assert!(!j["errors"].as_array().unwrap().is_empty());
}

/// Cassandra's 3-byte unsigned vint (values below 2^21).
fn vint3(v: u64) -> [u8; 3] {
    assert!((1 << 14..1 << 21).contains(&v));
    [0xc0 | (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

#[test]
fn an_altered_rows_entry_is_reported_on_bti() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::altered_bti") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "da", "legacy_da_clust");
    let (index, _) = run_json(&["index", s(&dir), "--json"]);
    let partitions = index[0]["partitions"].as_array().unwrap().clone();
    assert_eq!(index[0]["crosscheck"]["finding_count"], 0);
    let copy = TempCopy::of(&dir, "altered-bti");
    let rows_path = component(&copy.0, "-Rows.db").unwrap();
    let mut bytes = std::fs::read(&rows_path).unwrap();
    // Entry 2's TrieIndexEntry: key "2" (3 bytes), then its Data.db position as a vint; give it
    // entry 3's position.
    let field = partitions[2]["rows_position"].as_u64().unwrap() as usize + 3;
    let old = partitions[2]["position"].as_u64().unwrap();
    let new = partitions[3]["position"].as_u64().unwrap();
    assert_eq!(bytes[field..field + 3], vint3(old));
    bytes[field..field + 3].copy_from_slice(&vint3(new));
    std::fs::write(&rows_path, &bytes).unwrap();

    let (j, code) = run_json(&["index", s(&copy.0), "--json"]);
    assert_eq!(code, 0, "{j}");
    let findings = j[0]["crosscheck"]["findings"].as_array().unwrap();
    let f = findings
        .iter()
        .find(|f| f["kind"] == "DataKeyMismatch")
        .unwrap_or_else(|| panic!("{findings:?}"));
    assert_eq!(
        (&f["entry"], &f["key"], &f["position"]),
        (
            &serde_json::json!(2),
            &serde_json::json!("32"),
            &serde_json::json!(new)
        )
    );
    // The Rows.db entry holds the key "2" but gives the partition of "3": an error naming
    // both (exit 1), never "absent".
    let (j, code) = run_json(&["lookup", s(&copy.0), "2", "--json"]);
    assert_eq!(code, 1, "{j}");
    assert_eq!(j["found"], false);
    assert_eq!(j["stopped_at"]["stage"], "Error");
    let rows_offset = partitions[2]["rows_position"].as_u64().unwrap();
    assert_eq!(
        j["stopped_at"]["detail"]["Error"]["message"],
        format!(
            "the Rows.db entry at {rows_offset} gives Data.db {new} for the key, but the partition there holds \"3\" (reading partition header)"
        ),
        "{j}"
    );
    assert_eq!(
        step_components(&j),
        [
            "Filter.db",
            "Partitions.db",
            "Partitions.db",
            "Rows.db",
            "Data.db"
        ]
    );
}

#[test]
fn bad_usage_exits_2() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::usage") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_simple");
    let d = s(&dir);
    let two_sstables =
        fx.join("legacy-sstables/ka/legacy_tables/legacy_ka_with_illegal_cell_names");
    for args in [
        vec!["lookup"],
        vec!["lookup", d],
        vec!["lookup", d, "1", "2"],
        vec!["lookup", d, "1", "--bogus"],
        vec!["lookup", d, "zz", "--hex"],
        vec!["lookup", d, "123", "--hex"],
        vec!["lookup", "/nonexistent/dir", "1"],
        vec!["lookup", s(&two_sstables), "1"],
        vec!["index"],
        vec!["index", d, "--nope"],
        vec!["index", "/nonexistent/dir"],
    ] {
        let (out, err, code) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert!(err.contains("error:"), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn a_flipped_data_byte_fails_the_lookup_naming_the_chunk() {
    let Some(fx) = common::cassandra_fixtures("cli::lookup::flipped_chunk") else {
        return;
    };
    // MANIFEST: nb/legacy_nb_clust chunk 0 is Data.db [0, 424) and holds partition "0"'s header.
    let copy = TempCopy::of(&common::legacy_dir(&fx, "nb", "legacy_nb_clust"), "flipped");
    let data = component(&copy.0, "-Data.db").unwrap();
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[100] ^= 0x01;
    std::fs::write(&data, &bytes).unwrap();
    let (j, code) = run_json(&["lookup", s(&copy.0), "0", "--json"]);
    assert_eq!(code, 1, "{j}");
    assert_eq!(j["found"], false);
    assert_eq!(j["stopped_at"]["stage"], "Error");
    assert_eq!(j["stopped_at"]["detail"]["Error"]["component"], "Data.db");
    assert_eq!(j["stopped_at"]["detail"]["Error"]["offset"], 0);
    let description = j["stopped_at"]["description"].as_str().unwrap();
    assert!(
        description.contains("chunk 0 (Data.db 0..424) fails its checksum"),
        "{description}"
    );
}

#[test]
fn damaged_bti_indexes_never_crash_index_or_lookup() {
    let Some(fx) = common::cassandra_fixtures("cli::index::damaged_bti") else {
        return;
    };
    let src = common::legacy_dir(&fx, "da", "legacy_da_clust");
    for (suffix, mutate) in [
        ("-Rows.db", 0usize),
        ("-Rows.db", 1),
        ("-Partitions.db", 0),
        ("-Partitions.db", 1),
    ] {
        let copy = TempCopy::of(&src, "damaged-bti");
        let path = component(&copy.0, suffix).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        if mutate == 0 {
            // Truncated to half.
            bytes.truncate(bytes.len() / 2);
        } else {
            // Huge values: every byte flipped.
            for b in &mut bytes {
                *b ^= 0xff;
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        for args in [
            vec!["index", s(&copy.0), "--json"],
            vec!["index", s(&copy.0), "--json", "--blocks"],
            vec!["lookup", s(&copy.0), "2", "--json"],
        ] {
            let (stdout, stderr, code) = run(&args);
            assert!(
                code == 0 || code == 1,
                "{suffix} {mutate} {args:?}: exit {code}\n{stderr}"
            );
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            let j: Value =
                serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
            if args[0] == "lookup" && j["found"] == false {
                // Never "absent" from a damaged trie unless a sound structure said so.
                let stage = j["stopped_at"]["stage"].as_str().unwrap();
                assert!(
                    [
                        "Error",
                        "PartitionIndexMiss",
                        "RowIndexKeyMismatch",
                        "BloomNegative"
                    ]
                    .contains(&stage),
                    "{stage}"
                );
            }
        }
    }
}
