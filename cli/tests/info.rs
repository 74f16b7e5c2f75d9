//! `sstable-inspect info --json` over the real fixtures, asserted against MANIFEST.md.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn info_json(paths: &[&Path]) -> (Value, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .arg("info")
        .args(paths)
        .arg("--json")
        .output()
        .expect("run sstable-inspect");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "invalid JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (json, out.status.code().unwrap_or(-1))
}

/// MANIFEST §3: uncompressed Data.db lengths (simple, simple_counter, clust, clust_counter).
fn data_lengths(version: &str) -> Option<[u64; 4]> {
    Some(match version {
        "ma" => [173, 298, 336_020, 312_519],
        "mb" => [174, 299, 336_082, 312_584],
        "mc" => [173, 298, 336_057, 312_557],
        "md" => [173, 298, 336_015, 312_515],
        "me" => [173, 298, 336_014, 312_514],
        "na" => [173, 298, 336_015, 312_515],
        "nb" => [173, 298, 336_016, 312_516],
        "nc" => [173, 298, 336_014, 312_514],
        "oa" => [118, 243, 335_958, 312_458],
        "da" => [118, 243, 335_958, 312_457],
        _ => return None,
    })
}

const TABLES: [&str; 4] = ["simple", "simple_counter", "clust", "clust_counter"];

#[test]
fn every_legacy_table_reports_what_manifest_states() {
    let Some(fx) = common::cassandra_fixtures("cli::info::legacy_tables") else {
        return;
    };
    let versions = [
        "ka", "la", "ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da",
    ];
    let mut checked = 0;
    for v in versions {
        for (t, table) in TABLES.iter().enumerate() {
            let dir = common::legacy_dir(&fx, v, &format!("legacy_{v}_{table}"));
            let (json, code) = info_json(&[&dir]);
            let what = format!("{v} {table}");
            assert_eq!(code, 0, "{what}: {json}");
            let r = &json[0];
            assert_eq!(json.as_array().map(Vec::len), Some(1), "{what}");
            assert_eq!(r["version"], v, "{what}");
            assert_eq!(r["format"], if v == "da" { "bti" } else { "big" }, "{what}");
            assert_eq!(r["generation"], "1", "{what}");
            assert_eq!(r["errors"], serde_json::json!([]), "{what}");
            assert_eq!(r["components"]["missing"], serde_json::json!([]), "{what}");
            assert_eq!(r["components"]["unlisted"], serde_json::json!([]), "{what}");
            // §2: ByteOrderedPartitioner, FP chance 0.01, LZ4Compressor with no options.
            assert_eq!(
                r["validation"]["partitioner"], "org.apache.cassandra.dht.ByteOrderedPartitioner",
                "{what}"
            );
            assert_eq!(r["validation"]["bloom_filter_fp_chance"], 0.01, "{what}");
            let c = &r["compression"];
            assert_eq!(c["compressor"], "LZ4Compressor", "{what}");
            assert_eq!(c["options"], serde_json::json!({}), "{what}");
            let chunk: u64 = if matches!(v, "nb" | "nc" | "oa" | "da") {
                16384
            } else {
                65536
            };
            assert_eq!(c["chunk_length"], chunk, "{what}");
            let has_max = matches!(v, "na" | "nb" | "nc" | "oa" | "da");
            assert_eq!(
                c["max_compressed_length"],
                if has_max {
                    serde_json::json!(0x7fff_ffff)
                } else {
                    Value::Null
                },
                "{what}"
            );
            let data_length = match data_lengths(v) {
                Some(lengths) => lengths[t],
                // §3: the pre-3.0 clust tables are 644,235 bytes uncompressed.
                None if table.starts_with("clust") && !table.contains("counter") => 644_235,
                None => c["data_length"].as_u64().unwrap(),
            };
            assert_eq!(c["data_length"], data_length, "{what}");
            assert_eq!(c["chunk_count"], data_length.div_ceil(chunk), "{what}");
            // §3: 5 partitions; the filter sized for them.
            assert_eq!(r["stats"]["estimated_partition_count"], 5, "{what}");
            assert_eq!(r["stats"]["estimated_cardinality"], 5, "{what}");
            assert_eq!(r["stats"]["metadata_checksums_ok"], true, "{what}");
            assert_eq!(r["filter"]["hash_count"], 5, "{what}");
            assert_eq!(
                r["filter"]["format"],
                if has_max { "new" } else { "old" },
                "{what}"
            );
            // Digest: the value stored equals the checksum of the whole Data.db, computed here.
            let data_file = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .find(|p| p.to_string_lossy().ends_with("Data.db"))
                .unwrap();
            let data = std::fs::read(&data_file).unwrap();
            let expected = if matches!(v, "ka" | "la") {
                adler32(&data)
            } else {
                crc32fast::hash(&data)
            };
            assert_eq!(r["digest"]["value"], expected.to_string(), "{what}");
            assert_eq!(
                r["digest"]["algorithm"],
                if matches!(v, "ka" | "la") {
                    "adler32"
                } else {
                    "crc32"
                },
                "{what}"
            );
            // Header (3.0+): pk text; ck text for clust tables; val text or counter.
            if v >= "ma" || v == "da" {
                let h = &r["header"];
                assert_eq!(h["key_cql_type"], "text", "{what}");
                let clustering: Vec<&str> = h["clustering_types"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["cql_type"].as_str().unwrap())
                    .collect();
                assert_eq!(
                    clustering,
                    if table.starts_with("clust") {
                        vec!["text"]
                    } else {
                        vec![]
                    },
                    "{what}"
                );
                let val = &h["regular_columns"][0];
                assert_eq!(val["name"], "val", "{what}");
                assert_eq!(
                    val["cql_type"],
                    if table.ends_with("counter") {
                        "counter"
                    } else {
                        "text"
                    },
                    "{what}"
                );
                assert_eq!(h["static_columns"], serde_json::json!([]), "{what}");
            } else {
                assert_eq!(r["header"], Value::Null, "{what}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 48);
}

#[test]
fn manifest_digest_values_and_compact_static_columns() {
    let Some(fx) = common::cassandra_fixtures("cli::info::digests") else {
        return;
    };
    for (v, table, digest) in [
        ("nb", "legacy_nb_clust", "2568411107"),
        ("da", "legacy_da_clust", "1983729251"),
        ("oa", "legacy_oa_simple", "309360903"),
    ] {
        let (json, _) = info_json(&[&common::legacy_dir(&fx, v, table)]);
        assert_eq!(json[0]["digest"]["value"], digest, "{table}");
    }
    // §3: the compact simple tables of 3.0+ hold `val` as a static column behind a hidden clustering.
    for v in ["ma", "mb", "mc", "md", "me", "na"] {
        let (json, code) = info_json(&[&common::legacy_dir(
            &fx,
            v,
            &format!("legacy_{v}_simple_compact"),
        )]);
        assert_eq!(code, 0);
        let h = &json[0]["header"];
        assert_eq!(h["regular_columns"], serde_json::json!([]), "{v}");
        assert_eq!(h["static_columns"][0]["name"], "val", "{v}");
        assert_eq!(h["static_columns"][0]["cql_type"], "text", "{v}");
        assert_eq!(h["clustering_types"][0]["cql_type"], "text", "{v}");
    }
}

#[test]
fn ka_digest_mismatch_and_missing_summary_are_reported() {
    let Some(fx) = common::cassandra_fixtures("cli::info::ka_extras") else {
        return;
    };
    // MANIFEST §5: the stored Digest.sha1 of legacy_ka_14912 holds a decimal Adler32 2565739962.
    let (json, _) = info_json(&[&common::legacy_dir(&fx, "ka", "legacy_ka_14912")]);
    assert_eq!(json[0]["digest"]["value"], "2565739962");
    assert_eq!(json[0]["digest"]["file"], "sha1");
    assert_eq!(json[0]["digest"]["algorithm"], "adler32");
    let (json, _) = info_json(&[&common::legacy_dir(
        &fx,
        "ka",
        "legacy_ka_with_illegal_cell_names",
    )]);
    let missing: Vec<Value> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["components"]["missing"].clone())
        .collect();
    assert_eq!(
        missing,
        [serde_json::json!([]), serde_json::json!(["Summary.db"])]
    );
    // MANIFEST §6: negative-local-expiration tables: min TTL 630,720,000, and a min local deletion
    // time past 2038, which a signed 32-bit field shows negative.
    let (json, _) = info_json(&[&fx.join("other/negative-local-expiration-test/table1")]);
    assert_eq!(json[0]["stats"]["min_ttl"], 630_720_000);
    assert_eq!(
        json[0]["stats"]["min_local_deletion_time"],
        2_148_266_895i64 - (1i64 << 32)
    );
    assert_eq!(
        json[0]["validation"]["partitioner"],
        "org.apache.cassandra.dht.Murmur3Partitioner"
    );
}

#[test]
fn broken_files_give_errors_with_component_and_offset_and_exit_1() {
    let Some(fx) = common::cassandra_fixtures("cli::info::broken") else {
        return;
    };
    let src = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let tmp = std::env::temp_dir().join(format!(
        "sstable-inspect-info-broken-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(e.path(), tmp.join(e.file_name())).unwrap();
    }
    // A Data.db renamed to Statistics.db.
    std::fs::copy(
        src.join("nb-1-big-Data.db"),
        tmp.join("nb-1-big-Statistics.db"),
    )
    .unwrap();
    // A truncated CompressionInfo.db.
    let ci = std::fs::read(src.join("nb-1-big-CompressionInfo.db")).unwrap();
    std::fs::write(tmp.join("nb-1-big-CompressionInfo.db"), &ci[..40]).unwrap();
    let (json, code) = info_json(&[&tmp]);
    assert_eq!(code, 1);
    let errors = json[0]["errors"].as_array().unwrap();
    let components: Vec<&str> = errors
        .iter()
        .map(|e| e["component"].as_str().unwrap())
        .collect();
    assert!(components.contains(&"Statistics.db"), "{errors:?}");
    assert!(components.contains(&"CompressionInfo.db"), "{errors:?}");
    let ci_error = errors
        .iter()
        .find(|e| e["component"] == "CompressionInfo.db")
        .unwrap();
    assert!(ci_error["offset"].as_u64().unwrap() <= 40, "{ci_error}");
    // The rest still decodes: filter, digest, TOC.
    assert_eq!(json[0]["digest"]["value"], "2568411107");
    assert_eq!(json[0]["filter"]["hash_count"], 5);
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(["info"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(["info", ".", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

#[test]
fn whole_fixture_tree_decodes_without_errors_and_with_the_known_findings() {
    let Some(fx) = common::cassandra_fixtures("cli::info::whole_tree") else {
        return;
    };
    let (json, code) = info_json(&[&fx]);
    assert_eq!(code, 0);
    let reports = json.as_array().unwrap();
    assert_eq!(reports.len(), 120);
    for r in reports {
        assert_eq!(r["errors"], serde_json::json!([]), "{}", r["sstable"]);
        assert!(
            r["validation"]["partitioner"].is_string(),
            "{}",
            r["sstable"]
        );
        assert!(
            r["stats"]["estimated_partition_count"].as_i64().unwrap() >= 1,
            "{}",
            r["sstable"]
        );
    }
    let mut with_findings: Vec<String> = reports
        .iter()
        .filter(|r| r["findings"].as_array().is_some_and(|f| !f.is_empty()))
        .map(|r| {
            let components: Vec<&str> = r["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["component"].as_str().unwrap())
                .collect();
            let name = r["sstable"].as_str().unwrap();
            let short = name.strip_prefix(fx.to_str().unwrap()).unwrap_or(name);
            format!("{short} {}", components.join(","))
        })
        .collect();
    with_findings.sort();
    // The filters that do not follow their version (early na *_compact, bloom-filter/la: see
    // component::filter) and the mb file whose CompressionInfo holds an extra empty chunk.
    assert_eq!(
        with_findings,
        [
            "/legacy-sstables/na/legacy_tables/legacy_na_clust_compact/na-1-big Filter.db",
            "/legacy-sstables/na/legacy_tables/legacy_na_clust_counter_compact/na-1-big Filter.db",
            "/legacy-sstables/na/legacy_tables/legacy_na_simple_compact/na-1-big Filter.db",
            "/legacy-sstables/na/legacy_tables/legacy_na_simple_counter_compact/na-1-big Filter.db",
            "/other/bloom-filter/la/foo/la-1-big Filter.db",
            "/other/invalid-legacy-sstables/Keyspace1/cf_with_duplicates_3_0/mb-3-big CompressionInfo.db",
        ]
    );
    // jb (2.0) Statistics.db is the flat SSTableMetadata record (MANIFEST §3, §5).
    let jb: Vec<&Value> = reports.iter().filter(|r| r["version"] == "jb").collect();
    assert_eq!(jb.len(), 10);
    for r in jb
        .iter()
        .filter(|r| r["sstable"].as_str().unwrap().contains("legacy_tables"))
    {
        assert_eq!(
            r["validation"]["partitioner"],
            "org.apache.cassandra.dht.ByteOrderedPartitioner"
        );
        assert_eq!(r["stats"]["estimated_partition_count"], 5);
    }
    let keyspace1 = jb
        .iter()
        .find(|r| {
            r["sstable"]
                .as_str()
                .unwrap()
                .ends_with("Keyspace1-Standard1-jb-0")
        })
        .unwrap();
    assert_eq!(keyspace1["stats"]["estimated_partition_count"], 900);
}
