//! `sstable-inspect dump` over the 2.0–2.2 fixtures (`jb`, `ka`, `la`): `--atoms` in text and
//! JSON, rows in sstabledump's shape with `--schema`, asserted against MANIFEST.md §3, §5.

use crate::common;
use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn dump(args: &[&str], path: &Path) -> (String, String, i32) {
    support::run_on("dump", path, args)
}

fn json(path: &Path, args: &[&str]) -> Vec<Value> {
    let (stdout, stderr, code) = dump(args, path);
    assert_eq!(code, 0, "{stderr}");
    let v: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("invalid JSON ({e}): {stdout}"));
    v.as_array().unwrap().clone()
}

fn schema_file(name: &str, statement: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!(
        "sstable-inspect-atoms-{}-{name}.cql",
        std::process::id()
    ));
    std::fs::write(&p, statement).unwrap();
    p
}

/// `--atoms --json` on every generated jb/ka/la table: keys "0"…"4" and the atoms by kind.
#[test]
fn atoms_json_of_the_generated_tables() {
    let Some(fx) = common::cassandra_fixtures("atoms_json_of_the_generated_tables") else {
        return;
    };
    for v in ["jb", "ka", "la"] {
        for (suffix, kind, per_partition) in [
            ("simple", "cell", 2),
            ("simple_compact", "cell", 1),
            ("simple_counter", "counter", 1),
            ("clust", "cell", 100),
            ("clust_compact", "cell", 50),
            ("clust_counter_compact", "counter", 50),
        ] {
            let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_{suffix}"));
            let parts = json(&dir, &["--atoms", "--json"]);
            let keys: Vec<&str> = parts
                .iter()
                .map(|p| p["partition"]["key"].as_str().unwrap())
                .collect();
            assert_eq!(keys, ["0", "1", "2", "3", "4"], "{v} {suffix}");
            for p in &parts {
                assert_eq!(p["atom_counts"][kind], per_partition, "{v} {suffix}");
                let atoms = p["atoms"].as_array().unwrap();
                assert_eq!(atoms.len(), per_partition as usize);
                assert!(atoms.iter().all(|a| a["type"] == kind));
                if kind == "counter" {
                    assert!(atoms.iter().all(|a| a["value"] == "1"));
                }
                if suffix == "simple" {
                    assert_eq!(atoms[1]["name"], serde_json::json!(["val"]));
                    assert_eq!(atoms[1]["value"], "foo bar baz");
                }
            }
        }
    }
}

/// `--atoms` text on legacy_ka_14912 and the rows (`--jsonl`, `--schema`) with the collection.
#[test]
fn ka_14912_atoms_text_and_rows() {
    let Some(fx) = common::cassandra_fixtures("ka_14912_atoms_text_and_rows") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "ka", "legacy_ka_14912");
    let (text, _, code) = dump(&["--atoms"], &dir);
    assert_eq!(code, 0);
    assert!(
        text.contains("range_tombstone at 36 [v1] .. [v1] ts=1543244999672279"),
        "{text}"
    );
    assert!(
        text.contains("cell at 151 [v1, abc] =  ts=1543244999672280"),
        "{text}"
    );
    assert!(text.contains(
        "atoms: 3 cell, 0 deleted, 0 expiring, 0 counter, 0 counter_update, 1 range_tombstone"
    ));
    let schema = schema_file(
        "14912",
        "CREATE TABLE legacy_ka_14912 (k int PRIMARY KEY, v1 set<text>, v2 text)",
    );
    let (out, stderr, code) = dump(
        &[
            "--jsonl",
            "--key",
            "1",
            "--schema",
            schema.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    let p = &lines[0];
    assert_eq!(p["partition"]["key"], serde_json::json!(["1"]));
    let cells = p["rows"][0]["cells"].as_array().unwrap();
    let names: Vec<&str> = cells.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["v1", "v1", "v2"]);
    assert!(cells[0]["deletion_info"].is_object());
    assert_eq!(cells[1]["path"], serde_json::json!(["'abc'"]));
    assert_eq!(cells[2]["value"], "abc");
}

/// Rows of a compressed jb clust table in sstabledump's shape, with types from `--schema`.
#[test]
fn jb_clust_rows_with_schema() {
    let Some(fx) = common::cassandra_fixtures("jb_clust_rows_with_schema") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "jb", "legacy_jb_clust");
    let schema = schema_file(
        "jb_clust",
        "CREATE TABLE legacy_jb_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck))",
    );
    let parts = json(&dir, &["--json", "--schema", schema.to_str().unwrap()]);
    assert_eq!(parts.len(), 5);
    let mut sorted: Vec<String> = (0..50)
        .map(|i| format!("{i}{}", "0123456789".repeat(120)))
        .collect();
    sorted.sort();
    for (k, p) in parts.iter().enumerate() {
        assert_eq!(p["partition"]["key"], serde_json::json!([k.to_string()]));
        let rows = p["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 50);
        for (row, ck) in rows.iter().zip(&sorted) {
            assert_eq!(row["type"], "row");
            assert_eq!(row["clustering"], serde_json::json!([ck]));
            assert_eq!(row["cells"][0]["name"], "val");
            assert_eq!(row["cells"][0]["value"].as_str().unwrap().len(), 128);
        }
    }
    // The text view names the columns from the schema.
    let (text, _, code) = dump(
        &["--limit", "1", "--schema", schema.to_str().unwrap()],
        &dir,
    );
    assert_eq!(code, 0);
    assert!(text.contains("partition pk=0 (0x30) at 0"), "{text}");
    assert!(
        text.contains(&format!("  row at 15 [ck={}]", sorted[0])),
        "{text}"
    );
}

/// `--atoms` on a 3.0+ SSTable is an error that says why.
#[test]
fn atoms_of_a_row_format_sstable_is_an_error() {
    let Some(fx) = common::cassandra_fixtures("atoms_of_a_row_format_sstable_is_an_error") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_simple");
    let (_, stderr, code) = dump(&["--atoms"], &dir);
    assert_eq!(code, 1);
    assert!(stderr.contains("3.0 row format"), "{stderr}");
}
