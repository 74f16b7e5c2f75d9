//! `read` and `lookup` over a directory of 2.x SSTables (`legacy_la_clust`, MANIFEST §3: 5
//! partitions "0".."4" of 50 rows, every `val` one 128-character string) and a copy of it
//! under another generation, with the table's `CREATE TABLE` given by `--schema` or found as
//! schema.cql beside them.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .output()
        .expect("run sstable-inspect")
}

const CQL: &str = "CREATE TABLE legacy_tables.legacy_la_clust (pk text, ck text, val text, \
                   PRIMARY KEY (pk, ck));\n";

/// `legacy_la_clust` as generations 1 and 2 in a fresh directory (schema.cql beside them when
/// `with_schema`).
fn two_copies(name: &str, with_schema: bool) -> Option<PathBuf> {
    let fx = common::cassandra_fixtures(name)?;
    let src = common::legacy_dir(&fx, "la", "legacy_la_clust");
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-read-legacy-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in common::files_under(&src) {
        let bytes = std::fs::read(src.join(&f)).unwrap();
        std::fs::write(dir.join(&f), &bytes).unwrap();
        std::fs::write(dir.join(f.replace("la-1-", "la-2-")), &bytes).unwrap();
    }
    if with_schema {
        std::fs::write(dir.join("schema.cql"), CQL).unwrap();
    }
    Some(dir)
}

fn schema_file(dir: &Path) -> PathBuf {
    let path = dir.with_extension("cql");
    std::fs::write(&path, CQL).unwrap();
    path
}

#[test]
fn read_of_a_2x_directory_merges_its_sstables_with_the_schema() {
    let Some(dir) = two_copies("read_2x", false) else {
        return;
    };
    let d = dir.to_string_lossy().into_owned();
    // Without a schema: an error naming the SSTable, exit 1.
    let out = run(&["read", &d, "--json", "--now", "1800000000"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("la-1-big"), "{err}");
    assert!(err.contains("records no schema"), "{err}");
    let schema = schema_file(&dir);
    let s = schema.to_string_lossy().into_owned();
    let out = run(&["read", &d, "--json", "--now", "1800000000", "--schema", &s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parts: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = parts
        .iter()
        .map(|p| p["partition"]["key"][0].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["0", "1", "2", "3", "4"]);
    let long: String = "0123456789".repeat(120);
    for p in &parts {
        assert_eq!(
            p["partition"]["sstables"],
            serde_json::json!(["la-1-big", "la-2-big"])
        );
        let rows = p["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 50);
        // Clusterings in UTF-8 byte order: "0"+LONG ("00123…"), "10"+LONG ("100123…") before
        // "1"+LONG ("10123…"), …, "9"+LONG.
        assert_eq!(rows[0]["clustering"][0], format!("0{long}"));
        assert_eq!(rows[1]["clustering"][0], format!("10{long}"));
        assert_eq!(rows[2]["clustering"][0], format!("1{long}"));
        assert_eq!(rows[49]["clustering"][0], format!("9{long}"));
        for r in rows {
            let cells = r["cells"].as_array().unwrap();
            assert_eq!(cells.len(), 1);
            assert_eq!(cells[0]["name"], "val");
            assert_eq!(cells[0]["value"].as_str().unwrap().len(), 128);
            // Equal copies: the first SSTable's cell is kept.
            assert_eq!(cells[0]["sstable"], "la-1-big");
            assert_eq!(r["liveness_info"]["sstable"], "la-1-big");
        }
    }
    // `--key` with schema.cql found beside the SSTables.
    std::fs::write(dir.join("schema.cql"), CQL).unwrap();
    let out = run(&["read", &d, "--json", "--now", "1800000000", "--key", "3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parts: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0]["partition"]["key"][0], "3");
    assert_eq!(parts[0]["rows"].as_array().unwrap().len(), 50);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&schema);
}

#[test]
fn lookup_of_a_2x_directory_names_both_sstables_and_merges_them() {
    let Some(dir) = two_copies("lookup_2x", true) else {
        return;
    };
    let d = dir.to_string_lossy().into_owned();
    let out = run(&["lookup", &d, "2", "--json", "--now", "1800000000"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["holding"],
        serde_json::json!(["la-1-big", "la-2-big"])
    );
    assert_eq!(report["errors"], serde_json::json!([]));
    for s in report["sstables"].as_array().unwrap() {
        assert_eq!(s["found"], true);
        assert_eq!(s["partition"]["rows"].as_array().unwrap().len(), 50);
    }
    let merged = &report["merged"]["partition"];
    assert_eq!(merged["partition"]["key"][0], "2");
    assert_eq!(merged["rows"].as_array().unwrap().len(), 50);
    let cells = report["merged"]["row_cell_sstables"].as_array().unwrap();
    assert_eq!(cells.len(), 50);
    assert!(cells.iter().all(|c| *c == serde_json::json!(["la-1-big"])));
    // A key the table does not hold.
    let out = run(&["lookup", &d, "7", "--json", "--now", "1800000000"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["holding"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every COMPACT STORAGE 2.x fixture table (MANIFEST §3: `legacy_<v>_{simple,clust}[_counter]`
/// `WITH COMPACT STORAGE`, jb, ka, la) as generations 1 and 2 with its schema.cql: `read` is
/// the one table's MANIFEST content (keys "0".."4"; a simple table's `val` in each
/// partition's static row, as Cassandra 3.0 reads a static compact table; a clust table's 50
/// rows without a row marker), every cell from generation 1 and every part in both; `lookup`
/// names both SSTables and the static or row cells' SSTable; `zombies` finds nothing.
#[test]
fn read_lookup_and_zombies_of_every_compact_2x_table_and_its_copy() {
    let Some(fx) = common::cassandra_fixtures("read_compact_2x") else {
        return;
    };
    let long = "0123456789".repeat(120);
    let mut order: Vec<String> = (0..50).map(|i| format!("{i}{long}")).collect();
    order.sort();
    let mut tables = 0;
    for v in ["jb", "ka", "la"] {
        for kind in ["simple", "simple_counter", "clust", "clust_counter"] {
            let name = format!("legacy_{v}_{kind}_compact");
            let src = common::legacy_dir(&fx, v, &name);
            let dir = std::env::temp_dir().join(format!(
                "sstable-inspect-read-compact-{}-{name}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let mut sstables = Vec::new();
            for f in common::files_under(&src) {
                let bytes = std::fs::read(src.join(&f)).unwrap();
                let copy = f.replace(&format!("{v}-1-"), &format!("{v}-2-"));
                assert_ne!(copy, f);
                std::fs::write(dir.join(&f), &bytes).unwrap();
                std::fs::write(dir.join(&copy), &bytes).unwrap();
                if let Some(prefix) = f.strip_suffix("-Data.db") {
                    sstables.push(prefix.to_owned());
                    sstables.push(copy.strip_suffix("-Data.db").unwrap().to_owned());
                }
            }
            sstables.sort();
            let first = sstables[0].clone();
            let val = if kind.ends_with("counter") {
                "counter"
            } else {
                "text"
            };
            let (ck, key) = if kind.starts_with("clust") {
                ("ck text, ", "(pk, ck)")
            } else {
                ("", "(pk)")
            };
            std::fs::write(
                dir.join("schema.cql"),
                format!(
                    "CREATE TABLE legacy_tables.{name} (pk text, {ck}val {val}, PRIMARY KEY \
                     {key}) WITH COMPACT STORAGE;\n"
                ),
            )
            .unwrap();
            let d = dir.to_string_lossy().into_owned();
            // jb's counters are local shards (pre-2.1): the two copies add up.
            let counter = if v == "jb" { "2" } else { "1" };
            let out = run(&["read", &d, "--json", "--now", "1800000000"]);
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let parts: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
            let keys: Vec<&str> = parts
                .iter()
                .map(|p| p["partition"]["key"][0].as_str().unwrap())
                .collect();
            assert_eq!(keys, ["0", "1", "2", "3", "4"], "{name}");
            let mut clust_val: Option<String> = None;
            for p in &parts {
                assert_eq!(p["partition"]["sstables"], serde_json::json!(sstables));
                let rows = p["rows"].as_array().unwrap();
                let expected_rows = if kind.starts_with("simple") { 1 } else { 50 };
                assert_eq!(rows.len(), expected_rows, "{name}");
                for (i, r) in rows.iter().enumerate() {
                    assert_eq!(r["sstables"], serde_json::json!(sstables), "{name}");
                    assert!(r["liveness_info"].is_null(), "{name}");
                    let cells = r["cells"].as_array().unwrap();
                    assert_eq!(cells.len(), 1, "{name}");
                    assert_eq!(cells[0]["name"], "val", "{name}");
                    assert_eq!(cells[0]["sstable"], first.as_str(), "{name}");
                    let value = cells[0]["value"].as_str().unwrap();
                    if kind.starts_with("simple") {
                        assert_eq!(r["type"], "static_block", "{name}");
                    } else {
                        assert_eq!(r["type"], "row", "{name}");
                        assert_eq!(r["clustering"], serde_json::json!([order[i]]), "{name}");
                    }
                    match kind {
                        "simple" => assert_eq!(value, "foo bar baz", "{name}"),
                        "clust" => {
                            assert_eq!(value.len(), 128, "{name}");
                            assert!(value.bytes().all(|b| b.is_ascii_lowercase()), "{name}");
                            assert_eq!(
                                clust_val.get_or_insert_with(|| value.to_owned()),
                                value,
                                "{name}"
                            );
                        }
                        _ => assert_eq!(value, counter, "{name}"),
                    }
                }
            }
            let out = run(&["lookup", &d, "2", "--json", "--now", "1800000000"]);
            assert!(out.status.success(), "{name}");
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["holding"], serde_json::json!(sstables), "{name}");
            assert_eq!(report["errors"], serde_json::json!([]), "{name}");
            let merged = &report["merged"];
            assert_eq!(merged["partition"]["partition"]["key"][0], "2", "{name}");
            let one = serde_json::json!([first.as_str()]);
            if kind.starts_with("simple") {
                assert_eq!(merged["static_cell_sstables"], one, "{name}");
                assert_eq!(merged["row_cell_sstables"], serde_json::json!([]), "{name}");
            } else {
                let cells = merged["row_cell_sstables"].as_array().unwrap();
                assert_eq!(cells.len(), 50, "{name}");
                assert!(cells.iter().all(|c| *c == one), "{name}");
            }
            let out = run(&[
                "zombies",
                &d,
                "--gc-grace",
                "0",
                "--now",
                "1800000000",
                "--json",
            ]);
            assert!(out.status.success(), "{name}");
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["partitions"], 5, "{name}");
            assert_eq!(report["resurrections"], serde_json::json!([]), "{name}");
            assert_eq!(report["garbage"], serde_json::json!([]), "{name}");
            assert_eq!(report["complete"], true, "{name}");
            let _ = std::fs::remove_dir_all(&dir);
            tables += 1;
        }
    }
    assert_eq!(tables, 12);
}
