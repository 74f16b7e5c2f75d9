//! `sstable-inspect verify` over the real fixtures and altered copies of them: exit codes, the
//! JSON contract, and what each failure names.

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn run(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .arg("verify")
        .args(args)
        .output()
        .expect("run sstable-inspect");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn run_json(args: &[&str]) -> (Value, i32) {
    let mut all = args.to_vec();
    all.push("--json");
    let (stdout, stderr, code) = run(&all);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("invalid JSON ({e}): {stdout}\n{stderr}"));
    (json, code)
}

/// A writable copy of one table directory, in a fresh temporary directory.
fn copy_dir(src: &Path, name: &str) -> PathBuf {
    let dst = std::env::temp_dir().join(format!("sstable-verify-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        // Read and write rather than copy: the fixtures are read-only and copy keeps that.
        std::fs::write(dst.join(e.file_name()), std::fs::read(e.path()).unwrap()).unwrap();
    }
    dst
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn has_keys(v: &Value, wanted: &[&str]) {
    let k = keys(v);
    for w in wanted {
        assert!(k.contains(w), "{w} missing in {v}");
    }
}

#[test]
fn every_fixture_with_decompression_and_the_json_contract() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::all") else {
        return;
    };
    let (json, code) = run_json(&[fx.to_str().unwrap(), "--decompress"]);
    // ka/legacy_ka_14912's digest does not match (MANIFEST §5): exit 1.
    assert_eq!(code, 1);
    let reports = json.as_array().unwrap();
    assert_eq!(reports.len(), 120);
    let mut decompressed_chunks = 0;
    for r in reports {
        has_keys(r, &["sstable", "valid", "checks", "timings"]);
        let name = r["sstable"].as_str().unwrap();
        for c in r["checks"].as_array().unwrap() {
            has_keys(
                c,
                &[
                    "component",
                    "kind",
                    "algorithm",
                    "checked",
                    "ok",
                    "failures",
                ],
            );
            if c["kind"] == "decompress" {
                assert_eq!(c["ok"], true, "{name}: {c}");
                assert_eq!(c["algorithm"], "lz4");
                decompressed_chunks += c["checked"].as_u64().unwrap();
            }
        }
        let phases: Vec<&str> = r["timings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                has_keys(t, &["phase", "nanos", "bytes"]);
                t["phase"].as_str().unwrap()
            })
            .collect();
        let compressed = r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == "chunk");
        let expected: &[&str] = if compressed {
            &["read", "checksum", "decompress", "digest"]
        } else {
            &["read", "checksum", "digest"]
        };
        assert_eq!(phases, expected, "{name}");
        // The read phase covers every byte of Data.db, read once.
        assert_eq!(r["timings"][0]["bytes"], r["data_bytes"], "{name}");
        if name.ends_with("legacy_ka_14912-ka-1") {
            assert_eq!(r["valid"], false);
            let bad: Vec<&Value> = r["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["ok"] == false)
                .collect();
            assert_eq!(bad.len(), 1);
            assert_eq!(bad[0]["kind"], "digest");
            assert_eq!(bad[0]["component"], "Digest.sha1");
            assert_eq!(bad[0]["algorithm"], "adler32");
            let f = &bad[0]["failures"][0];
            has_keys(
                f,
                &[
                    "chunk",
                    "offset",
                    "length",
                    "expected",
                    "actual",
                    "partitions",
                ],
            );
            assert_eq!(f["expected"], "2565739962");
            assert_eq!(f["actual"], "4125366287");
            assert_eq!(f["chunk"], Value::Null);
        } else {
            assert_eq!(r["valid"], true, "{name}: {r}");
        }
    }
    // Every chunk of every compressed fixture (see the engine's verify test).
    assert_eq!(decompressed_chunks, 458);
}

#[test]
fn valid_tree_exits_0_with_one_line_per_check() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::valid") else {
        return;
    };
    let dir = fx.join("legacy-sstables/nb");
    let (stdout, _, code) = run(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(stdout.matches("  VALID\n").count(), 4, "{stdout}");
    // Chunk, digest and metadata lines for each of the 4 tables.
    assert_eq!(stdout.matches(" checked  ok\n").count(), 12, "{stdout}");
    assert!(
        stdout.contains("Data.db            chunk      crc32         21 checked  ok"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("4 SSTable(s) verified: 4 valid, 0 invalid\n"),
        "{stdout}"
    );
    // A component file selects its SSTable.
    let file = common::legacy_dir(&fx, "oa", "legacy_oa_simple").join("oa-1-big-TOC.txt");
    let (json, code) = run_json(&[file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(json.as_array().unwrap().len(), 1);
    assert_eq!(json[0]["data_bytes"], 78);
}

#[test]
fn bad_usage_exits_2() {
    assert_eq!(run(&[]).2, 2);
    assert_eq!(run(&["--json"]).2, 2);
    assert_eq!(run(&["--bogus", "x"]).2, 2);
    assert_eq!(run(&["/definitely/not/here"]).2, 2);
}

#[test]
fn flipped_byte_names_chunk_1() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::flip") else {
        return;
    };
    let dir = copy_dir(&common::legacy_dir(&fx, "nb", "legacy_nb_clust"), "flip");
    let data = dir.join("nb-1-big-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[600] ^= 0x01;
    std::fs::write(&data, &bytes).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let checks = json[0]["checks"].as_array().unwrap();
    let chunk = checks.iter().find(|c| c["kind"] == "chunk").unwrap();
    assert_eq!(chunk["checked"], 21);
    assert_eq!(chunk["failures"].as_array().unwrap().len(), 1);
    let f = &chunk["failures"][0];
    assert_eq!(
        (f["kind"].as_str(), f["chunk"].as_u64()),
        (Some("chunk"), Some(1))
    );
    assert_eq!(
        (f["offset"].as_u64(), f["length"].as_u64()),
        (Some(424), Some(408))
    );
    assert_eq!(
        f["actual"].as_str().unwrap(),
        crc32fast::hash(&bytes[424..832]).to_string()
    );
    let digest = checks.iter().find(|c| c["kind"] == "digest").unwrap();
    assert_eq!(digest["failures"][0]["expected"], "2568411107");
    let metadata = checks.iter().find(|c| c["kind"] == "metadata").unwrap();
    assert_eq!(metadata["ok"], true);
    let (stdout, _, code) = run(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stdout.contains("INVALID"), "{stdout}");
    assert!(
        stdout.contains("    chunk 1 (Data.db 424..832): stored crc32"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn truncated_data_and_missing_data() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::truncated") else {
        return;
    };
    let dir = copy_dir(
        &common::legacy_dir(&fx, "nb", "legacy_nb_clust"),
        "truncated",
    );
    let data = dir.join("nb-1-big-Data.db");
    let bytes = std::fs::read(&data).unwrap();
    std::fs::write(&data, &bytes[..1000]).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let chunk = json[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "chunk")
        .unwrap()
        .clone();
    // Chunk 2 is cut short, chunks 3..=20 start past the end.
    assert_eq!(chunk["failed"], 19);
    let kinds: Vec<&str> = chunk["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["truncated"; 19]);
    assert_eq!(chunk["failures"][0]["chunk"], 2);
    // Without Data.db there is nothing to verify: an error, exit 1.
    std::fs::remove_file(&data).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(json[0]["valid"], false);
    assert_eq!(json[0]["errors"][0]["component"], "Data.db");
    let _ = std::fs::remove_dir_all(&dir);
}
