//! `sstable-inspect partitions | tombstones | table` on generated SSTables whose answers are
//! known by construction (`write::expected_counts`), and the expired-blockers rule on a directory
//! of three generated SSTables.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sstable_engine::write::{expected_counts, GenerateOptions};
use sstable_engine::{Format, Version};

const BASE_MICROS: i64 = 1_700_000_000_000_000;
const BASE_SECS: i64 = 1_700_000_000;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-analytics-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run sstable-inspect")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The generator flags matching `options` (as far as the test uses them).
fn generate(dir: &Path, o: &GenerateOptions, generation: u64) {
    let args: Vec<String> = vec![
        "generate".into(),
        "--out".into(),
        dir.to_string_lossy().into_owned(),
        "--version".into(),
        o.version.to_string(),
        "--compression".into(),
        "lz4".into(),
        "--partitions".into(),
        o.partitions.to_string(),
        "--rows-per-partition".into(),
        o.rows_per_partition.to_string(),
        "--seed".into(),
        o.seed.to_string(),
        "--ttl-fraction".into(),
        o.ttl_fraction.to_string(),
        "--tombstone-fraction".into(),
        o.tombstone_fraction.to_string(),
        "--static-ttl-fraction".into(),
        o.static_ttl_fraction.to_string(),
        "--ttl-min".into(),
        o.ttl_range_secs.0.to_string(),
        "--ttl-max".into(),
        o.ttl_range_secs.1.to_string(),
        "--skew".into(),
        o.skew.to_string(),
        "--generation".into(),
        generation.to_string(),
        "--base-timestamp".into(),
        o.base_timestamp_micros.to_string(),
    ];
    let out = bin().args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn options() -> GenerateOptions {
    let mut o = GenerateOptions::new(Version::parse(Format::Big, "oa").unwrap(), 25, 10);
    o.seed = 11;
    o.ttl_fraction = 0.5;
    o.tombstone_fraction = 0.3;
    o.static_ttl_fraction = 0.5;
    o.ttl_range_secs = (60, 86_400);
    o.skew = 12;
    o.base_timestamp_micros = BASE_MICROS;
    o
}

#[test]
fn partitions_json_and_csv_give_the_known_counts() {
    let dir = temp_dir("partitions");
    let o = options();
    generate(&dir, &o, 1);
    let now = BASE_SECS + 43_200;
    let want = expected_counts(&o, now).unwrap();
    let d = dir.to_string_lossy().into_owned();
    let v = json(&run(&[
        "partitions",
        &d,
        "--json",
        "--now",
        &now.to_string(),
    ]));
    let r = &v[0];
    assert_eq!(r["now_secs"], now);
    assert_eq!(r["now_source"], "given");
    let parts = r["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), want.len());
    for (p, e) in parts.iter().zip(&want) {
        assert_eq!(p["key_hex"], sstable_engine::span::hex(&e.key));
        assert_eq!(p["rows"], e.rows);
        assert_eq!(p["cells"], e.cells);
        let t = &p["tombstones"];
        assert_eq!(t["partition"], e.tombstones.partition);
        assert_eq!(t["row"], e.tombstones.row);
        assert_eq!(t["range"], e.tombstones.range);
        assert_eq!(t["complex"], e.tombstones.complex);
        assert_eq!(t["cell"], e.tombstones.cell);
        assert_eq!(p["ttl_cells"], e.ttl_cells);
        assert_eq!(p["expired_ttl_cells"], e.expired_ttl_cells);
    }
    let s = &r["summary"];
    assert_eq!(s["partitions"], 25);
    assert_eq!(s["rows"]["total"], want.iter().map(|e| e.rows).sum::<u64>());

    // --top 2 --by rows: two skewed partitions (120 rows); --min-rows keeps exactly those.
    let v = json(&run(&[
        "partitions",
        &d,
        "--json",
        "--top",
        "2",
        "--by",
        "rows",
    ]));
    let top = v[0]["partitions"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    assert!(top.iter().all(|p| p["rows"] == 120));
    let skewed = want.iter().filter(|e| e.rows == 120).count();
    let v = json(&run(&["partitions", &d, "--json", "--min-rows", "100"]));
    assert_eq!(v[0]["partitions"].as_array().unwrap().len(), skewed);
    // --key selects one partition (the key as cqlsh prints a bigint).
    let first_key = i64::from_be_bytes(want[3].key.clone().try_into().unwrap()).to_string();
    let v = json(&run(&["partitions", &d, "--json", "--key", &first_key]));
    let only = v[0]["partitions"].as_array().unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["key"], first_key.as_str());
    assert_eq!(only[0]["cells"], want[3].cells);

    // CSV: a header and one line per partition with the same figures.
    let out = run(&["partitions", &d, "--csv", "--now", &now.to_string()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("sstable,key,token,position,bytes,rows,cells,"));
    assert_eq!(lines.len(), 26);
    let f: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(f[5], want[0].rows.to_string());
    assert_eq!(f[6], want[0].cells.to_string());
    assert_eq!(f[12], want[0].ttl_cells.to_string());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tombstones_json_counts_droppable_and_expired() {
    let dir = temp_dir("tombstones");
    let o = options();
    generate(&dir, &o, 1);
    let d = dir.to_string_lossy().into_owned();
    let now = BASE_SECS + 43_200;
    let gc = 3_600;
    let want = expected_counts(&o, now).unwrap();
    let v = json(&run(&[
        "tombstones",
        &d,
        "--gc-grace",
        &gc.to_string(),
        "--now",
        &now.to_string(),
        "--json",
    ]));
    let r = &v[0];
    let ldts: Vec<i64> = want
        .iter()
        .flat_map(|e| e.tombstone_ldts_secs.clone())
        .collect();
    let expiries: Vec<i64> = want
        .iter()
        .flat_map(|e| e.cell_expiries_secs.clone())
        .collect();
    assert_eq!(r["gc_before_secs"], now - gc);
    assert_eq!(r["tombstones"]["total"], ldts.len());
    assert_eq!(
        r["tombstones"]["droppable"],
        ldts.iter().filter(|t| **t < now - gc).count()
    );
    assert_eq!(
        r["ttl_cells"]["expired"],
        expiries.iter().filter(|t| **t <= now).count()
    );
    assert_eq!(
        r["ttl_cells"]["live"],
        expiries.iter().filter(|t| **t > now).count()
    );
    assert!(r["statistics"]["estimated_droppable_ratio"].is_number());
    // Without --now: the newest tombstone local deletion time, named.
    let v = json(&run(&["tombstones", &d, "--gc-grace", "0", "--json"]));
    assert_eq!(v[0]["now_secs"], BASE_SECS);
    assert_eq!(v[0]["now_source"], "newest_local_deletion_time");
    // --gc-grace is required.
    let out = run(&["tombstones", &d]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// generation 1: old, fully expired; 2: live data, an hour later; 3: fully expired, newest.
/// 2 blocks 3 (its minTimestamp ≤ 3's maxTimestamp), not 1.
#[test]
fn table_finds_the_fully_expired_sstable_and_the_blocked_one() {
    let dir = temp_dir("table");
    let hour = 3_600_000_000i64;
    for (generation, offset, expiring) in
        [(1u64, 0i64, true), (2, hour, false), (3, 2 * hour, true)]
    {
        let mut o = GenerateOptions::new(Version::parse(Format::Big, "oa").unwrap(), 15, 3);
        o.seed = generation;
        o.base_timestamp_micros = BASE_MICROS + offset;
        o.ttl_range_secs = (60, 600);
        if expiring {
            o.ttl_fraction = 1.0;
            o.static_ttl_fraction = 1.0;
        }
        generate(&dir, &o, generation);
    }
    let d = dir.to_string_lossy().into_owned();
    let now = (BASE_SECS + 3 * 3_600).to_string();
    let v = json(&run(&[
        "table",
        &d,
        "--gc-grace",
        "0",
        "--now",
        &now,
        "--json",
    ]));
    let name = |g: u64| format!("{}/oa-{g}-big", d);
    assert_eq!(v["fully_expired"], serde_json::json!([name(1)]));
    assert_eq!(v["blocked"], serde_json::json!([name(3)]));
    let s3 = v["sstables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sstable"] == name(3))
        .unwrap();
    assert_eq!(s3["blocked_by"][0]["sstable"], name(2));
    assert_eq!(s3["blocked_by"][0]["overlaps"], true);
    assert_eq!(v["overlaps"].as_array().unwrap().len(), 3);
    let text =
        String::from_utf8(run(&["table", &d, "--gc-grace", "0", "--now", &now]).stdout).unwrap();
    assert!(text.contains("FULLY EXPIRED"), "{text}");
    assert!(
        text.contains(&format!("expired but blocked by: {}", name(2))),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pre_3_0_sstables_are_counted_from_their_atoms() {
    let Some(fx) = common::cassandra_fixtures("pre_3_0_sstables_are_counted_from_their_atoms")
    else {
        return;
    };
    // MANIFEST §3: legacy_ka_clust holds 5 partitions × 50 rows of one value column, all live.
    let dir = common::legacy_dir(&fx, "ka", "legacy_ka_clust");
    let v = json(&run(&["partitions", &dir.to_string_lossy(), "--json"]));
    let s = &v[0]["summary"];
    assert_eq!(s["partitions"], 5);
    assert_eq!(s["rows"]["total"], 250);
    assert_eq!(s["cells"]["total"], 250);
    assert_eq!(s["tombstones"]["total"], 0);
    let t = json(&run(&[
        "tombstones",
        &dir.to_string_lossy(),
        "--gc-grace",
        "0",
        "--json",
    ]));
    assert_eq!(t[0]["tombstones"]["total"], 0);
    assert_eq!(t[0]["ttl_cells"]["total"], 0);
}
