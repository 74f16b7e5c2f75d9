//! `sstable-inspect scrub`: a fixture rewritten as another version dumps the same and verifies;
//! a flipped chunk byte drops that chunk's partitions, leaves the input as it was and the output
//! valid; `abort` leaves nothing behind; bad usage exits 2.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sstable_engine::component::compression_info;
use sstable_engine::{Format, Version};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-scrub-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run sstable-inspect")
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn strip_positions(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("position");
            o.values_mut().for_each(strip_positions);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_positions),
        _ => {}
    }
}

fn dump(p: &Path) -> Value {
    let out = run(&["dump", path(p), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    strip_positions(&mut v);
    v
}

fn verifies(p: &Path) -> bool {
    run(&["verify", path(p)]).status.success()
}

fn scrub_json(input: &Path, out: &Path, extra: &[&str]) -> (Output, Value) {
    let mut args = vec!["scrub", path(input), "--out", path(out), "--json"];
    args.extend_from_slice(extra);
    let o = run(&args);
    let v = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (o, v)
}

#[test]
fn a_fixture_rewritten_as_oa_and_nb_dumps_the_same_and_verifies() {
    let Some(fx) = common::cassandra_fixtures("cli scrub rewrite") else {
        return;
    };
    for (v, table) in [
        ("mc", "legacy_mc_clust"),
        ("na", "legacy_na_simple_counter"),
        ("da", "legacy_da_clust"),
    ] {
        let input = common::legacy_dir(&fx, v, table);
        for target in ["oa", "nb"] {
            let out = temp_dir(&format!("{table}-{target}"));
            let (o, report) = scrub_json(&input, &out, &["--version", target]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(report["problems"], Value::Array(vec![]));
            assert_eq!(report["files"].as_array().unwrap().len(), 1);
            let names: Vec<String> = std::fs::read_dir(&out)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert!(
                names
                    .iter()
                    .all(|n| n.starts_with(&format!("{target}-2-big-"))),
                "{names:?}"
            );
            assert_eq!(names.len(), 8, "{names:?}");
            assert!(verifies(&out));
            assert_eq!(dump(&out), dump(&input), "{table} as {target}");
            // A second scrub into the same directory takes the next free generation.
            let (o, _) = scrub_json(&input, &out, &["--version", target]);
            assert!(o.status.success());
            assert!(out.join(format!("{target}-3-big-Data.db")).exists());
            let _ = std::fs::remove_dir_all(&out);
        }
    }
}

/// A generated nb table in 4 KiB chunks with one byte of chunk 1 flipped.
fn corrupt_generated(dir: &Path) -> PathBuf {
    let o = run(&[
        "generate",
        "--out",
        path(dir),
        "--version",
        "nb",
        "--compression",
        "lz4",
        "--partitions",
        "40",
        "--rows-per-partition",
        "8",
        "--chunk-kib",
        "4",
    ]);
    assert!(o.status.success());
    let version = Version::parse(Format::Big, "nb").unwrap();
    let ci = compression_info::decode(
        &std::fs::read(dir.join("nb-1-big-CompressionInfo.db")).unwrap(),
        &version,
    )
    .unwrap();
    let data = dir.join("nb-1-big-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[ci.chunk_offsets[1] as usize + 5] ^= 0x40;
    std::fs::write(&data, bytes).unwrap();
    data
}

#[test]
fn a_flipped_chunk_byte_drops_that_chunks_partitions_and_the_output_verifies() {
    let dir = temp_dir("flip-in");
    let data = corrupt_generated(&dir);
    let before = std::fs::read(&data).unwrap();
    assert!(!verifies(&dir));
    let out = temp_dir("flip-out");
    let (o, report) = scrub_json(&data, &out, &["--version", "oa"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read(&data).unwrap(),
        before,
        "the input is not modified"
    );
    let problems = report["problems"].as_array().unwrap();
    assert!(!problems.is_empty());
    assert!(problems
        .iter()
        .all(|p| p["kind"] == "chunk_checksum" && p["key"].is_string()));
    let kept = report["partitions_kept"].as_u64().unwrap();
    assert_eq!(kept + problems.len() as u64, 40);
    assert!(verifies(&out));
    let dumped = dump(&out);
    let dropped: Vec<&Value> = problems
        .iter()
        .filter(|p| p["rows_kept"] == 0)
        .map(|p| &p["key_hex"])
        .collect();
    let keys: Vec<&Value> = dumped
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["partition"]["key_hex"])
        .collect();
    assert_eq!(keys.len() + dropped.len(), 40);
    assert!(dropped.iter().all(|k| !keys.contains(k)));
    // The human report names every problem partition.
    let o = run(&[
        "scrub",
        path(&data),
        "--out",
        path(&temp_dir("flip-human")),
        "--mode",
        "validate",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        text.matches("\n  found: ").count(),
        problems.len(),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn abort_leaves_nothing_and_bad_usage_exits_2() {
    let dir = temp_dir("abort-in");
    let data = corrupt_generated(&dir);
    let out = temp_dir("abort-out");
    let (o, report) = scrub_json(&data, &out, &["--mode", "abort"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(report["aborted"].is_string());
    assert_eq!(report["problems"].as_array().unwrap().len(), 1);
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        0,
        "abort removes its files"
    );
    let o = run(&["scrub", path(&data), "--out", path(&out), "--mode", "bogus"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["scrub", path(&data), "--out", path(&out), "--version", "ma"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_2x_sstable_needs_its_schema_and_is_rewritten_with_it() {
    let Some(fx) = common::cassandra_fixtures("cli scrub 2.x") else {
        return;
    };
    let input = common::legacy_dir(&fx, "ka", "legacy_ka_clust");
    let out = temp_dir("ka");
    let o = run(&["scrub", path(&input), "--out", path(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("records no schema: give its CREATE TABLE"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&out).map_or(0, |d| d.count()), 0);

    let cql = out.with_extension("cql");
    std::fs::write(
        &cql,
        "CREATE TABLE legacy_ka_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck));",
    )
    .unwrap();
    let (o, report) = scrub_json(&input, &out, &["--schema", path(&cql), "--version", "oa"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(report["partitions_kept"], 5); // MANIFEST §3: keys 0…4
    assert_eq!(report["rows_kept"], 250);
    assert!(verifies(&out));
    let keys = |v: &Value| -> Vec<Value> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p["partition"]["key_hex"].clone())
            .collect()
    };
    let old = run(&["dump", path(&input), "--json", "--schema", path(&cql)]);
    assert!(old.status.success());
    let old: Value = serde_json::from_slice(&old.stdout).unwrap();
    assert_eq!(keys(&dump(&out)), keys(&old));
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&cql);
}

/// COMPACT STORAGE 2.x tables (MANIFEST §3: `legacy_ka_simple_compact`, 5 partitions of `val`
/// "foo bar baz"; `legacy_la_clust_counter_compact`, 5 × 50 counters of 1) rewritten with
/// their `CREATE TABLE … WITH COMPACT STORAGE`: the output verifies, and its dump is the 2.x
/// dump with that schema (the simple table's `val` static, as 3.0 has it).
#[test]
fn a_compact_2x_sstable_is_rewritten_with_its_schema() {
    let Some(fx) = common::cassandra_fixtures("cli scrub compact 2.x") else {
        return;
    };
    for (v, table, body, rows) in [
        (
            "ka",
            "legacy_ka_simple_compact",
            "(pk text PRIMARY KEY, val text)",
            // Static rows only: the report counts regular rows.
            0,
        ),
        (
            "la",
            "legacy_la_clust_counter_compact",
            "(pk text, ck text, val counter, PRIMARY KEY (pk, ck))",
            250,
        ),
    ] {
        let input = common::legacy_dir(&fx, v, table);
        let out = temp_dir(table);
        let cql = out.with_extension("cql");
        std::fs::write(
            &cql,
            format!("CREATE TABLE {table} {body} WITH COMPACT STORAGE;"),
        )
        .unwrap();
        let (o, report) = scrub_json(&input, &out, &["--schema", path(&cql)]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(report["partitions_kept"], 5, "{table}");
        assert_eq!(report["rows_kept"], rows, "{table}");
        assert!(verifies(&out), "{table}");
        let old = run(&["dump", path(&input), "--json", "--schema", path(&cql)]);
        assert!(old.status.success());
        let mut old: Value = serde_json::from_slice(&old.stdout).unwrap();
        strip_positions(&mut old);
        let new = dump(&out);
        assert_eq!(new, old, "{table}");
        let first = &new[0]["rows"][0];
        if rows == 0 {
            assert_eq!(first["type"], "static_block");
            assert_eq!(first["cells"][0]["value"], "foo bar baz");
        } else {
            assert_eq!(first["type"], "row");
            assert_eq!(first["cells"][0]["value"], "1");
        }
        let _ = std::fs::remove_dir_all(&out);
        let _ = std::fs::remove_file(&cql);
    }
}
