//! A snapshot directory read by itself: a copy of a 2.x fixture SSTable with the `schema.cql`
//! and `manifest.json` Cassandra writes beside a snapshot's files. `dump` takes the column
//! names and types from schema.cql without `--schema`, and reports the manifest's disagreements
//! with the directory. Values asserted against MANIFEST.md §3 and §5.

use crate::common;
use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A fresh directory holding a copy of `fixture`'s files, `schema` as schema.cql and, when
/// given, `manifest` as manifest.json.
fn snapshot_dir(name: &str, fixture: &Path, schema: &str, manifest: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-snapshot-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(fixture).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    std::fs::write(dir.join("schema.cql"), schema).unwrap();
    if let Some(m) = manifest {
        std::fs::write(dir.join("manifest.json"), m).unwrap();
    }
    dir
}

fn dump(dir: &Path, args: &[&str]) -> (String, String, i32) {
    support::run_on("dump", dir, args)
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `legacy_ka_14873` (§5: `pkc int, cc int, sc int static, rc text`, clustering DESC; one
/// partition pkc = 0, static sc = 0, rows cc = 5…1 in DESC order, rc = the digit × 256): with
/// schema.cql beside it, the int key and clustering decode as ints and the columns are named.
#[test]
fn a_2x_snapshot_decodes_with_the_schema_cql_beside_it() {
    let Some(fx) =
        common::cassandra_fixtures("a_2x_snapshot_decodes_with_the_schema_cql_beside_it")
    else {
        return;
    };
    let schema = "-- snapshot of legacy_tables.legacy_ka_14873\n\
        CREATE TABLE IF NOT EXISTS legacy_tables.legacy_ka_14873 (\n\tpkc int,\n\tcc int,\n\t\
        sc int static,\n\trc text,\n\told blob,\n\tPRIMARY KEY (pkc, cc)\n) WITH CLUSTERING ORDER BY (cc DESC)\n\t\
        AND comment = 'a; comment';\n\
        ALTER TABLE legacy_tables.legacy_ka_14873 DROP old USING TIMESTAMP 1430000000000000;\n";
    let manifest = r#"{"files":["legacy_tables-legacy_ka_14873-ka-1-Data.db"],"created_at":"2026-12-03T10:00:00Z","expires_at":null}"#;
    let dir = snapshot_dir(
        "ka14873",
        &common::legacy_dir(&fx, "ka", "legacy_ka_14873"),
        schema,
        Some(manifest),
    );
    let (stdout, stderr, code) = dump(&dir, &["--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("schema from"), "{stderr}");
    assert!(
        stderr.contains("column old was dropped at 1430000000000000"),
        "{stderr}"
    );
    assert!(!stderr.contains("finding"), "{stderr}");
    let parts: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    assert_eq!(parts.len(), 1);
    let p = &parts[0];
    assert_eq!(p["partition"]["key"], serde_json::json!(["0"]));
    let rows = p["rows"].as_array().unwrap();
    assert_eq!(rows[0]["type"], "static_block");
    assert_eq!(rows[0]["cells"][0]["name"], "sc");
    assert_eq!(text_of(&rows[0]["cells"][0]["value"]), "0");
    let regular: Vec<(String, String, String)> = rows[1..]
        .iter()
        .map(|r| {
            (
                text_of(&r["clustering"][0]),
                r["cells"][0]["name"].as_str().unwrap().to_owned(),
                text_of(&r["cells"][0]["value"]),
            )
        })
        .collect();
    let expected: Vec<(String, String, String)> = (1..=5)
        .rev()
        .map(|d: u32| (d.to_string(), "rc".to_owned(), d.to_string().repeat(256)))
        .collect();
    assert_eq!(regular, expected);
    // The text form names the key and clustering columns as schema.cql does.
    let (text, _, _) = dump(&dir, &[]);
    assert!(text.contains("pkc=0"), "{text}");
    assert!(text.contains("[cc=5]"), "{text}");
    // Without schema.cql the same files have no names or types: the key is shown as bytes.
    std::fs::remove_file(dir.join("schema.cql")).unwrap();
    let (text, _, _) = dump(&dir, &[]);
    assert!(!text.contains("pkc=0"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `legacy_la_clust` (§3: pk text, ck text, val text; keys "0"…"4", 50 rows each, the first
/// clustering "0" + LONG): schema.cql names them; a manifest listing a Data.db that is not there
/// and missing one that is gives two findings and exit 1; `--schema` overrides schema.cql.
#[test]
fn the_manifest_is_checked_and_schema_overrides() {
    let Some(fx) = common::cassandra_fixtures("the_manifest_is_checked_and_schema_overrides")
    else {
        return;
    };
    let schema = "CREATE TABLE legacy_tables.legacy_la_clust (pk text, ck text, val text, \
                  PRIMARY KEY (pk, ck));";
    let manifest = r#"{"files":["la-7-big-Data.db"],"created_at":null,"expires_at":null}"#;
    let dir = snapshot_dir(
        "laclust",
        &common::legacy_dir(&fx, "la", "legacy_la_clust"),
        schema,
        Some(manifest),
    );
    let (stdout, stderr, code) = dump(&dir, &["--json"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("manifest.json lists la-7-big-Data.db, which is not in the directory"),
        "{stderr}"
    );
    assert!(
        stderr.contains("la-1-big-Data.db is in the directory but not in manifest.json"),
        "{stderr}"
    );
    let parts: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let keys: Vec<String> = parts
        .iter()
        .map(|p| text_of(&p["partition"]["key"][0]))
        .collect();
    assert_eq!(keys, ["0", "1", "2", "3", "4"]);
    let long = "0123456789".repeat(120);
    for p in &parts {
        let rows = p["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 50);
        assert_eq!(text_of(&rows[0]["clustering"][0]), format!("0{long}"));
        assert_eq!(rows[0]["cells"][0]["name"], "val");
    }
    let (text, _, _) = dump(&dir, &["--limit", "1"]);
    assert!(text.contains("partition pk=0"), "{text}");
    // --schema wins over schema.cql.
    let other = dir.join("other.cql");
    std::fs::write(
        &other,
        "CREATE TABLE t (key text, col text, val text, PRIMARY KEY (key, col));",
    )
    .unwrap();
    let (text, stderr, _) = dump(&dir, &["--limit", "1", "--schema", other.to_str().unwrap()]);
    assert!(text.contains("partition key=0"), "{text}\n{stderr}");
    assert!(!stderr.contains("schema from"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
