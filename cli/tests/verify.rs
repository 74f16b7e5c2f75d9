//! `sstable-inspect verify` over the real fixtures and altered copies of them: exit codes, the
//! JSON contract, and what each failure names.

use crate::common;
use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn run(args: &[&str]) -> (String, String, i32) {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    support::run(&all)
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
        stdout.ends_with("4 SSTable(s) verified: 4 valid, 0 invalid, 0 not verifiable\n"),
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
    assert_eq!(json[0]["verdict"], "invalid");
    // Without Data.db (listed in TOC.txt) nothing can be checked: not verifiable, exit 1.
    std::fs::remove_file(&data).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(json[0]["valid"], false);
    assert_eq!(json[0]["complete"], false);
    assert_eq!(json[0]["verdict"], "not_verifiable");
    assert_eq!(
        json[0]["unverified"][0],
        "Data.db is listed in TOC.txt but missing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one failure of the chunk check.
fn only_chunk_failure(report: &Value) -> Value {
    let chunk = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "chunk")
        .unwrap();
    assert_eq!(chunk["failed"], 1, "{report}");
    chunk["failures"][0].clone()
}

#[test]
fn a_failing_chunk_names_the_partitions_it_overlaps() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::partitions") else {
        return;
    };
    // MANIFEST: legacy_nb_clust is LZ4 with 16 KiB chunks at 0, 424, 836, …; partition "0" holds
    // uncompressed bytes 0..~64 KiB, so chunk 1 (uncompressed 16384..32768) lies inside it.
    let dir = copy_dir(&common::legacy_dir(&fx, "nb", "legacy_nb_clust"), "chunk1");
    let data = dir.join("nb-1-big-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[500] ^= 0x01;
    std::fs::write(&data, &bytes).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(json[0]["verdict"], "invalid");
    let f = only_chunk_failure(&json[0]);
    assert_eq!(f["chunk"], 1);
    assert_eq!(f["offset"], 424);
    assert_eq!(f["partitions"], serde_json::json!(["0"]), "{f}");
    // The text report says it too.
    let (stdout, _, _) = run(&[dir.to_str().unwrap()]);
    assert!(stdout.contains("; partitions: 0\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_bti_chunk_names_the_partitions_from_partitions_db() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::bti_partitions") else {
        return;
    };
    // MANIFEST §7: legacy_da_clust is LZ4 with 16 KiB chunks at 0, 417, 829, 1240, 1638, …;
    // chunk 4 (uncompressed 65536..81920) holds the end of partition "0" and the start of "1".
    let dir = copy_dir(
        &common::legacy_dir(&fx, "da", "legacy_da_clust"),
        "bti_chunk4",
    );
    let data = dir.join("da-1-bti-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[2000] ^= 0x01;
    std::fs::write(&data, &bytes).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(json[0]["verdict"], "invalid");
    let f = only_chunk_failure(&json[0]);
    assert_eq!(f["chunk"], 4);
    assert_eq!(f["offset"], 1638);
    assert_eq!(f["partitions"], serde_json::json!(["0", "1"]), "{f}");
    assert_eq!(json[0]["findings"], serde_json::json!([]), "{}", json[0]);
    let (stdout, _, _) = run(&[dir.to_str().unwrap()]);
    assert!(stdout.contains("; partitions: 0, 1\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
    // legacy_da_simple: no row index, the keys come from the partition headers in Data.db. A
    // flip in the chunk's stored CRC leaves the data readable.
    let dir = copy_dir(
        &common::legacy_dir(&fx, "da", "legacy_da_simple"),
        "bti_simple",
    );
    let data = dir.join("da-1-bti-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[77] ^= 0x01;
    std::fs::write(&data, &bytes).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let f = only_chunk_failure(&json[0]);
    assert_eq!(
        f["partitions"],
        serde_json::json!(["0", "1", "2", "3", "4"]),
        "{f}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_extra_crc_entry_of_zero_bytes_is_valid_with_a_finding() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::crc_extra") else {
        return;
    };
    // MANIFEST: Keyspace1-Standard1-jb-0 is uncompressed with CRC.db (64 KiB chunks, CRC32).
    let src = fx.join("legacy-sstables/jb/Keyspace1");
    let dir = copy_dir(&src, "crc-extra");
    let crc = dir.join("Keyspace1-Standard1-jb-0-CRC.db");
    let original = std::fs::read(&crc).unwrap();
    let entries = (original.len() - 4) / 4;
    // The CRC32 of zero bytes, as Cassandra 3.x's writer appends it when it flushes an empty
    // buffer at close.
    let mut extra = original.clone();
    extra.extend_from_slice(&[0, 0, 0, 0]);
    std::fs::write(&crc, &extra).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json[0]["verdict"], "valid");
    let check = json[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "crc_db")
        .unwrap()
        .clone();
    assert_eq!(check["checked"], entries as u64, "{check}");
    let finding = &json[0]["findings"][0];
    assert_eq!(finding["component"], "CRC.db");
    assert_eq!(finding["offset"], 4 + 4 * entries as u64);
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("CRC.db entry {entries} (0x00000000")),
        "{finding}"
    );
    // Any other extra entry stays a failure.
    let mut other = original.clone();
    other.extend_from_slice(&[0, 0, 0, 1]);
    std::fs::write(&crc, &other).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(json[0]["verdict"], "invalid");
    assert_eq!(json[0]["findings"], serde_json::json!([]));
    // So do two zero entries.
    let mut two = original.clone();
    two.extend_from_slice(&[0; 8]);
    std::fs::write(&crc, &two).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!((code, json[0]["verdict"].as_str()), (1, Some("invalid")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_check_that_cannot_run_makes_the_sstable_not_verifiable() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::not_verifiable") else {
        return;
    };
    let src = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let not_verifiable = |dir: &Path, reason: &str| {
        let (json, code) = run_json(&[dir.to_str().unwrap()]);
        assert_eq!(code, 1, "{json}");
        assert_eq!(json[0]["verdict"], "not_verifiable", "{json}");
        assert_eq!(json[0]["valid"], false);
        assert_eq!(json[0]["complete"], false);
        let reasons: Vec<&str> = json[0]["unverified"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert!(
            reasons.iter().any(|r| r.contains(reason)),
            "{reason} not in {reasons:?}"
        );
        let (stdout, _, _) = run(&[dir.to_str().unwrap()]);
        assert!(stdout.contains("NOT VERIFIABLE"), "{stdout}");
        assert!(stdout.ends_with("1 SSTable(s) verified: 0 valid, 0 invalid, 1 not verifiable\n"));
    };
    // Each component a check reads, deleted while TOC.txt lists it.
    for (name, component) in [
        ("nb-1-big-CompressionInfo.db", "CompressionInfo.db"),
        ("nb-1-big-Digest.crc32", "Digest.crc32"),
        ("nb-1-big-Statistics.db", "Statistics.db"),
    ] {
        let dir = copy_dir(&src, "deleted");
        std::fs::remove_file(dir.join(name)).unwrap();
        not_verifiable(
            &dir,
            &format!("{component} is listed in TOC.txt but missing"),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    // A zeroed chunk table: 0 chunks (the u32 count before the 21 offsets, then zeros).
    let dir = copy_dir(&src, "zeroed");
    let ci = dir.join("nb-1-big-CompressionInfo.db");
    let mut bytes = std::fs::read(&ci).unwrap();
    let count_at = bytes.len() - 21 * 8 - 4;
    assert_eq!(bytes[count_at..count_at + 4], 21u32.to_be_bytes());
    bytes.truncate(count_at);
    bytes.extend_from_slice(&[0; 4]);
    std::fs::write(&ci, &bytes).unwrap();
    not_verifiable(&dir, "0 chunks");
    // With --decompress too.
    let (json, code) = run_json(&[dir.to_str().unwrap(), "--decompress"]);
    assert_eq!(
        (code, json[0]["verdict"].as_str()),
        (1, Some("not_verifiable"))
    );
    let _ = std::fs::remove_dir_all(&dir);
    // A chunk table inconsistent with the data length: 20 of the 21 chunks listed.
    let dir = copy_dir(&src, "short-table");
    let ci = dir.join("nb-1-big-CompressionInfo.db");
    let mut bytes = std::fs::read(&ci).unwrap();
    bytes.truncate(bytes.len() - 8);
    bytes[count_at..count_at + 4].copy_from_slice(&20u32.to_be_bytes());
    std::fs::write(&ci, &bytes).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{json}");
    assert_ne!(json[0]["verdict"], "valid");
    let _ = std::fs::remove_dir_all(&dir);
    // A Statistics.db cut where its last component (HEADER) starts — the last table-of-contents
    // entry, type 3 then its offset at bytes 36..40: 5 of its 6 metadata CRCs check out, the
    // sixth cannot be checked.
    let dir = copy_dir(&src, "stats-truncated");
    let stats = dir.join("nb-1-big-Statistics.db");
    let bytes = std::fs::read(&stats).unwrap();
    assert_eq!(bytes[32..36], 3u32.to_be_bytes());
    let header_at = u32::from_be_bytes(bytes[36..40].try_into().unwrap()) as usize;
    std::fs::write(&stats, &bytes[..header_at]).unwrap();
    not_verifiable(&dir, "Statistics.db does not decode");
    // Cut inside HEADER, its CRC fails: invalid.
    std::fs::write(&stats, &bytes[..bytes.len() - 20]).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!((code, json[0]["verdict"].as_str()), (1, Some("invalid")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_deleted_crc_db_is_not_verifiable() {
    let Some(fx) = common::cassandra_fixtures("cli::verify::no_crc") else {
        return;
    };
    let dir = copy_dir(&fx.join("legacy-sstables/jb/Keyspace1"), "no-crc");
    std::fs::remove_file(dir.join("Keyspace1-Standard1-jb-0-CRC.db")).unwrap();
    let (json, code) = run_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(json[0]["verdict"], "not_verifiable");
    assert_eq!(
        json[0]["unverified"][0],
        "CRC.db is listed in TOC.txt but missing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
