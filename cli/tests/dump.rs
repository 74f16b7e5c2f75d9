//! `sstable-inspect dump` over the real fixtures, asserted against MANIFEST.md §3, §4, §6.

use crate::common;
use crate::support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn dump(args: &[&str], path: &Path) -> (String, String, i32) {
    support::run_on("dump", path, args)
}

fn dump_json(path: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let (stdout, stderr, code) = dump(&args, path);
    assert_eq!(code, 0, "{stderr}");
    let v: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("invalid JSON ({e}): {stdout}"));
    v.as_array().unwrap().clone()
}

const LONG: &str = "0123456789";

fn clustering(i: usize) -> String {
    format!("{i}{}", LONG.repeat(120))
}

/// MANIFEST §3: the 128-char `val` of each version's `_clust` table.
fn clust_val(v: &str) -> &'static str {
    match v {
        "ma" => "ftzoazjbohvmcdapafmgerkdrcqqhixhfqoasklsfjbbubbhcahxnljfgxvmiprapmexbduesgleepqpgjdpxtoxeldnokapzqimsgpyshbrosspfgtlpwlasbibibsz",
        "mb" => "xhjslncmrlawwklkjfielihyxhvjveflytyozhloteietrhlvfhjufpksjnoisyensxbsnncsqsapktkvcmjuybwauwzgifurwmnoqlhlnkoasjupuhqoqjtjubfnvpw",
        "mc" => "lcwqmhfwfoddagjtftqbfuvvrbwmdsgrygoscskugthnycyavmokaekgqvnkplaiduxfhpbjrqfejvvxsalbdklrgaqxixmpfjgenclvpdlfdjwklluhkgkbphrrwpxk",
        "md" => "rmutqivrrhbtaatvlazzffickifqhpcgawugxdjwntjunopwdabeabwoigqakgjsinmkblrskzrogjbizvqhwhzchvqlhlzxhoabjgjcxamofytnzhnxlpyhylzlrzdt",
        "me" => "oixgnbacuexwrsuuwzjuszpgsdswwtwepgqasmaymumevsvgdpogvetmrhbxgwelokmvkqmqdrhxlhzqbtgddexfvfeymprrbgsnmsnuprimiclezljvhsmmvqxcwzvj",
        "na" => "tilwrdsqcbziyboacbzwaqbclreiftzigpsrucqodvzsekvwlatkgndaqzbhcxizkybkkcnqdypjmlmaijqmzgqgprpxuawfbbrtvghiouregebrudkhucnbwlagwdaa",
        "nb" => "lxvwpnwfbdpmayjujittwghygywemwpvlemfkutzstfbiednkferyifrvvauhpdowraebccylljbibrbolnnoifwjkspqzgjdihyknypyzricuymwknfitpvjmvpcxob",
        "nc" => "gcnersapjsyifswdtadrieasyvangpmuvwsniejmykstmyibyitotyxaliayvcvrmmrjtjipdwotlkaawoidkdyifnjwxofycrgxxxaqchqdmuihrxcwodwdtxrtubkc",
        "oa" => "rvuxpepvjxefzigbwqiygtxglwthqvrmbvqhewhyaznsquqbfualplyzbeqjeuylznsjivvrwwiajaxykiodasryolrtzpvduxfukbvcrrrjdokvklidxbzdvenrpddn",
        "da" => "wxappmnfhjwtvqhxcmeeupmryhmmvjmcxrcbvtxfdyeaxbeemxusoynrkhgatseiqrrcseynuwevqdipsgplgvqcelsjdtlkeetrcufulrzonyuscrlbowotizznpmcd",
        _ => unreachable!(),
    }
}

#[test]
fn every_table_of_every_3_0_plus_version_dumps_the_manifest_content() {
    let Some(fx) = common::cassandra_fixtures("cli::dump::legacy_tables") else {
        return;
    };
    // Rows sorted as UTF-8 text of the whole clustering value str(i) + LONG.
    let mut order: Vec<usize> = (0..50).collect();
    order.sort_by_key(|&i| clustering(i));
    for v in ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"] {
        for table in ["simple", "simple_counter", "clust", "clust_counter"] {
            let partitions = dump_json(
                &common::legacy_dir(&fx, v, &format!("legacy_{v}_{table}")),
                &[],
            );
            let what = format!("{v} {table}");
            let keys: Vec<&str> = partitions
                .iter()
                .map(|p| p["partition"]["key"][0].as_str().unwrap())
                .collect();
            assert_eq!(keys, ["0", "1", "2", "3", "4"], "{what}");
            assert_eq!(partitions[0]["partition"]["position"], 0, "{what}");
            for p in &partitions {
                assert!(
                    p["partition"].get("deletion_info").is_none(),
                    "{what}: no tombstones"
                );
                let rows = p["rows"].as_array().unwrap();
                let expected_rows = if table.starts_with("clust") { 50 } else { 1 };
                assert_eq!(rows.len(), expected_rows, "{what}");
                for (j, row) in rows.iter().enumerate() {
                    assert_eq!(row["type"], "row", "{what}");
                    assert!(row.get("deletion_info").is_none(), "{what}");
                    if table.starts_with("clust") {
                        assert_eq!(row["clustering"][0], clustering(order[j]), "{what} row {j}");
                    }
                    let cell = &row["cells"][0];
                    assert_eq!(cell["name"], "val", "{what}");
                    assert!(cell.get("ttl").is_none(), "{what}");
                    let expected = match table {
                        "simple" => "foo bar baz",
                        "clust" => clust_val(v),
                        _ => "1",
                    };
                    assert_eq!(cell["value"], expected, "{what}");
                }
            }
        }
    }
}

#[test]
fn compact_simple_tables_hold_val_in_a_static_row() {
    let Some(fx) = common::cassandra_fixtures("cli::dump::compact") else {
        return;
    };
    for v in ["ma", "mb", "mc", "md", "me", "na"] {
        let partitions = dump_json(
            &common::legacy_dir(&fx, v, &format!("legacy_{v}_simple_compact")),
            &[],
        );
        assert_eq!(partitions.len(), 5, "{v}");
        for p in &partitions {
            let rows = p["rows"].as_array().unwrap();
            assert_eq!(rows.len(), 1, "{v}");
            assert_eq!(rows[0]["type"], "static_block", "{v}");
            assert_eq!(rows[0]["cells"][0]["value"], "foo bar baz", "{v}");
        }
    }
}

#[test]
fn range_tombstones_duplicates_and_invalid_deletions() {
    let Some(fx) = common::cassandra_fixtures("cli::dump::other") else {
        return;
    };
    // MANIFEST §4: one partition k = 100: RT markers [start inclusive, empty) .. (end exclusive, [3]), row (4,4,4) v = 4.
    let p = dump_json(
        &common::legacy_dir(&fx, "mc", "legacy_mc_inaccurate_min_max"),
        &[],
    );
    assert_eq!(p.len(), 1);
    assert_eq!(p[0]["partition"]["key"], serde_json::json!(["100"]));
    let rows = p[0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["type"], "range_tombstone_bound");
    assert_eq!(rows[0]["start"]["type"], "inclusive");
    assert_eq!(rows[0]["start"]["clustering"], serde_json::json!([]));
    assert_eq!(rows[1]["end"]["type"], "exclusive");
    assert_eq!(rows[1]["end"]["clustering"], serde_json::json!(["3"]));
    assert_eq!(rows[2]["clustering"], serde_json::json!(["4", "4", "4"]));
    assert_eq!(rows[2]["cells"][0]["name"], "v");
    assert_eq!(rows[2]["cells"][0]["value"], "4");
    // MANIFEST §6: the duplicate-row file: partition a = 1 with two rows b = 2, the second flagged.
    let p = dump_json(
        &fx.join("other/invalid-legacy-sstables/Keyspace1/cf_with_duplicates_3_0"),
        &[],
    );
    assert_eq!(p.len(), 1);
    let rows = p[0]["rows"].as_array().unwrap();
    let clusterings: Vec<&Value> = rows.iter().map(|r| &r["clustering"]).collect();
    assert_eq!(
        clusterings,
        [&serde_json::json!(["2"]), &serde_json::json!(["2"])]
    );
    assert!(
        rows[1]["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|m| m.as_str().unwrap().contains("duplicate"))),
        "{rows:?}"
    );
    // MANIFEST §6: partition 22 carries a partition deletion (markedForDeleteAt 1677485274992000 µs)
    // with ldt −1, reported invalid.
    let p = dump_json(
        &fx.join("other/negative-ldts-invalid-deletions-test/invalid_partition_deletion"),
        &[],
    );
    let keys: Vec<&str> = p
        .iter()
        .map(|p| p["partition"]["key"][0].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), 3);
    let deleted = p.iter().find(|p| p["partition"]["key"][0] == "22").unwrap();
    assert_eq!(
        deleted["partition"]["deletion_info"]["invalid_local_delete_time"],
        true
    );
    assert_eq!(
        deleted["partition"]["deletion_info"]["marked_deleted"],
        "2023-02-27T08:07:54.992000Z"
    );
    assert_eq!(deleted["rows"], serde_json::json!([]));
    // MANIFEST §6: negative-local-expiration table3: (1, 1, {v11..v14}), (2, 2, {v21..v24}), TTL 630,720,000.
    let p = dump_json(&fx.join("other/negative-local-expiration-test/table3"), &[]);
    let sets: Vec<Vec<String>> = p
        .iter()
        .map(|p| {
            p["rows"][0]["cells"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["name"] == "b")
                .map(|c| c["path"][0].as_str().unwrap().to_owned())
                .collect()
        })
        .collect();
    assert_eq!(
        sets,
        [
            ["'v11'", "'v12'", "'v13'", "'v14'"],
            ["'v21'", "'v22'", "'v23'", "'v24'"]
        ]
    );
    assert_eq!(p[0]["rows"][0]["cells"][0]["ttl"], 630_720_000);
}

#[test]
fn key_limit_jsonl_and_schema_options() {
    let Some(fx) = common::cassandra_fixtures("cli::dump::options") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let p = dump_json(&dir, &["--key", "3", "--key", "0x31"]);
    let keys: Vec<&str> = p
        .iter()
        .map(|p| p["partition"]["key"][0].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["1", "3"]);
    assert_eq!(dump_json(&dir, &["--limit", "2"]).len(), 2);
    let (stdout, _, code) = dump(&["--jsonl"], &dir);
    assert_eq!(code, 0);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[4]["rows"].as_array().unwrap().len(), 50);
    // A CREATE TABLE names the columns; a wrong type is reported as a mismatch.
    let tmp = std::env::temp_dir().join(format!("dump-schema-{}.cql", std::process::id()));
    std::fs::write(&tmp, "CREATE TABLE legacy_tables.legacy_nb_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck))").unwrap();
    let (stdout, stderr, _) = dump(&["--limit", "1", "--schema", tmp.to_str().unwrap()], &dir);
    assert!(stdout.contains("partition pk=0 (0x30) at 0"), "{stdout}");
    assert!(stdout.contains("[ck=0012345"), "{stdout}");
    assert!(!stderr.contains("mismatch"), "{stderr}");
    std::fs::write(
        &tmp,
        "CREATE TABLE t (pk int, ck text, val blob, PRIMARY KEY (pk, ck))",
    )
    .unwrap();
    let (_, stderr, _) = dump(&["--limit", "1", "--schema", tmp.to_str().unwrap()], &dir);
    assert!(
        stderr.contains("partition key pk: the statement says int, the SSTable text"),
        "{stderr}"
    );
    assert!(
        stderr.contains("column val: the statement says blob, the SSTable text"),
        "{stderr}"
    );
    std::fs::remove_file(&tmp).unwrap();
    let (_, _, code) = dump(&["--json", "--jsonl"], &dir);
    assert_eq!(code, 2);
}

/// Golden outputs of `dump` (text, `--json`, `--jsonl`) for every 3.0+ fixture SSTable, compared
/// byte for byte; `UPDATE_GOLDEN=1` rewrites `cli/tests/golden/dump/`. Small outputs are kept
/// whole; a large one keeps its length and CRC32 (so every byte is still compared), its first
/// lines, and long lines shortened to a prefix plus their own length and CRC32.
#[test]
fn dump_output_matches_the_golden_files() {
    let Some(fx) = common::cassandra_fixtures("cli::dump::golden") else {
        return;
    };
    let golden_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/dump");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0");
    if update {
        std::fs::create_dir_all(&golden_dir).unwrap();
    }
    let mut dirs: Vec<std::path::PathBuf> = common::files_under(&fx)
        .into_iter()
        .filter(|f| f.ends_with("-Data.db"))
        .filter(|f| {
            let name = f.rsplit('/').next().unwrap_or_default();
            ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"]
                .iter()
                .any(|v| name.starts_with(&format!("{v}-")))
        })
        .map(|f| fx.join(f).parent().unwrap().to_path_buf())
        .collect();
    dirs.sort();
    dirs.dedup();
    assert!(dirs.len() >= 70, "{} fixture SSTables", dirs.len());
    // Generated tables (deterministic by seed) cover the types, TTLs and tombstones the fixtures
    // lack: every common type, collections, static rows, range tombstones, expiring cells.
    let tmp = std::env::temp_dir().join(format!("dump-golden-{}", std::process::id()));
    let mut cases: Vec<(String, std::path::PathBuf, usize)> = dirs
        .iter()
        .map(|dir| {
            let rel = dir
                .strip_prefix(&fx)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, dir.clone(), 4096)
        })
        .collect();
    for version in ["nb", "oa"] {
        let out = tmp.join(format!("generated-{version}"));
        let status = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
            .args(["generate", "--out"])
            .arg(&out)
            .args([
                "--version",
                version,
                "--compression",
                "lz4",
                "--partitions",
                "4",
            ])
            .args(["--rows-per-partition", "6", "--seed", "7"])
            .args(["--ttl-fraction", "0.3", "--tombstone-fraction", "0.4"])
            .status()
            .expect("run sstable-inspect generate");
        assert!(status.success());
        cases.push((format!("generated-{version}"), out, 256 * 1024));
    }
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for (rel, dir, whole_bytes) in &cases {
        let whole_bytes = *whole_bytes;
        let name = rel
            .replace("legacy-sstables/", "")
            .replace("legacy_tables/", "")
            .replace('/', "-");
        let mut text = String::new();
        for args in [&[][..], &["--json"][..], &["--jsonl"][..]] {
            let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
                .arg("dump")
                .arg(dir)
                .args(args)
                // Expiry is judged against a fixed "now", so the goldens do not age.
                .env("SSTABLE_INSPECT_NOW_SECONDS", "1800000000")
                .output()
                .expect("run sstable-inspect");
            let (root, tmp_root) = (fx.to_string_lossy(), tmp.to_string_lossy());
            let clean = |b: &[u8]| {
                String::from_utf8_lossy(b)
                    .replace(&*root, "$FIXTURES")
                    .replace(&*tmp_root, "$TMP")
            };
            let (stdout, stderr) = (clean(&out.stdout), clean(&out.stderr));
            text.push_str(&format!(
                "$ sstable-inspect dump {} {}\nexit {}\n--- stderr ---\n{stderr}--- stdout ---\n{}--- end ---\n\n",
                clean(dir.to_string_lossy().as_bytes()),
                args.join(" "),
                out.status.code().unwrap_or(-1),
                golden_form(&stdout, whole_bytes)
            ));
        }
        let path = golden_dir.join(format!("{name}.txt"));
        seen.push(format!("{name}.txt"));
        if update {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == text => {}
            Ok(expected) => {
                let line = expected
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                failures.push(format!(
                    "{name}: differs from {} at line {}:\n  golden: {:?}\n  now:    {:?}",
                    path.display(),
                    line + 1,
                    expected.lines().nth(line).unwrap_or(""),
                    text.lines().nth(line).unwrap_or("")
                ));
            }
            Err(e) => failures.push(format!("{name}: {}: {e}", path.display())),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    if !update {
        let mut stale: Vec<String> = std::fs::read_dir(&golden_dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !seen.contains(n))
            .collect();
        stale.sort();
        assert!(
            stale.is_empty(),
            "golden files without a fixture: {stale:?}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden files differ (UPDATE_GOLDEN=1 rewrites them; review the diff):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The stored form of one output: whole when small; else length + CRC32 of the whole output,
/// the first lines, long lines shortened (each with its own length and CRC32).
fn golden_form(stdout: &str, whole_bytes: usize) -> String {
    const KEPT_LINES: usize = 40;
    const LINE_BYTES: usize = 160;
    if stdout.len() <= whole_bytes {
        return stdout.to_owned();
    }
    let mut out = format!(
        "[{} bytes, {} lines, crc32 {:08x}; first {KEPT_LINES} lines, long lines shortened]\n",
        stdout.len(),
        stdout.lines().count(),
        crc32fast::hash(stdout.as_bytes())
    );
    for line in stdout.lines().take(KEPT_LINES) {
        if line.len() <= LINE_BYTES {
            out.push_str(line);
        } else {
            let mut cut = 100;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push_str(&format!(
                "{}… [{} bytes, crc32 {:08x}]",
                &line[..cut],
                line.len(),
                crc32fast::hash(line.as_bytes())
            ));
        }
        out.push('\n');
    }
    out
}
