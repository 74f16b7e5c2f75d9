//! `sstable-inspect zombies` on a table generated with resurrection cases (`generate
//! --overlapping 4 --zombies`), against the generator's expected findings
//! (`write::overlap_zombies`); on fixture tables (a single SSTable each: no resurrection); and
//! its exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;
use sstable_engine::write::overlap::{generate_overlapping, OverlapOptions};
use sstable_engine::write::MemorySink;
use sstable_engine::{Format, Version};

use crate::common;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .output()
        .expect("run sstable-inspect")
}

const PARTITIONS: u64 = 25;
const ROWS: u32 = 10;
const SEED: u64 = 33;

fn generated(name: &str) -> (PathBuf, OverlapOptions) {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-zombies-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = crate::read::generate_overlapping_table(
        &dir,
        "nb",
        (PARTITIONS, ROWS, SEED),
        &["--zombies"],
    );
    assert!(
        stdout.contains("finds 8 resurrections and 2 droppable tombstones"),
        "{stdout}"
    );
    let v = Version::parse(Format::Big, "nb").unwrap();
    let mut o = OverlapOptions::new(v, 4, PARTITIONS, ROWS, SEED);
    o.zombies = true;
    (dir, o)
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (key hex, tombstone sstable, kind, clustering, column, mfda, shadowed (sstable, static,
/// clustering, timestamp, pieces)) of a finding.
type Finding = (
    String,
    String,
    String,
    Vec<String>,
    Option<String>,
    i64,
    Option<(String, bool, Vec<String>, i64, u64)>,
);

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn findings(report: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    for (list, shadowed) in [("resurrections", true), ("garbage", false)] {
        for f in report[list].as_array().unwrap() {
            let t = &f["tombstone"];
            out.push((
                f["partition"]["key_hex"].as_str().unwrap().to_owned(),
                t["sstable"].as_str().unwrap().to_owned(),
                t["kind"].as_str().unwrap().to_owned(),
                strings(&t["clustering"]),
                t["column"].as_str().map(str::to_owned),
                t["marked_for_delete_at"].as_i64().unwrap(),
                shadowed.then(|| {
                    let s = &f["shadowed"];
                    (
                        s["sstable"].as_str().unwrap().to_owned(),
                        s["static"].as_bool().unwrap(),
                        strings(&s["clustering"]),
                        s["timestamp"].as_i64().unwrap(),
                        s["pieces"].as_u64().unwrap(),
                    )
                }),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn zombies_reports_exactly_the_generated_cases() {
    let (dir, o) = generated("cases");
    let expected = generate_overlapping(&o, |_| MemorySink::default())
        .unwrap()
        .expected_zombies;
    let name = |i: usize| format!("nb-{}-big", i + 1);
    let mut want: Vec<Finding> = expected
        .iter()
        .map(|e| {
            (
                sstable_engine::span::hex(&e.key),
                name(e.tombstone_sstable),
                e.kind.to_owned(),
                e.ck.map(|c| vec![c.to_string()]).unwrap_or_default(),
                e.column.map(str::to_owned),
                e.marked_for_delete_at_micros,
                e.shadowed.as_ref().map(|s| {
                    (
                        name(s.sstable),
                        s.ck.is_none(),
                        s.ck.map(|c| vec![c.to_string()]).unwrap_or_default(),
                        s.timestamp_micros,
                        u64::from(s.pieces),
                    )
                }),
            )
        })
        .collect();
    want.sort();
    let now = o.now_secs.to_string();
    let d = dir.to_string_lossy().into_owned();
    let report = json_of(&run(&[
        "zombies",
        &d,
        "--gc-grace",
        "864000",
        "--now",
        &now,
        "--json",
    ]));
    assert_eq!(report["gc_before"], o.now_secs - 864_000);
    assert_eq!(report["partitions"], PARTITIONS + 10);
    assert_eq!(report["complete"], true);
    let got = findings(&report);
    assert_eq!(got.len(), 10);
    assert_eq!(got, want);
    for r in report["resurrections"].as_array().unwrap() {
        assert_eq!(r["compaction"]["token_ranges_intersect"], true);
        assert_eq!(r["compaction"]["purge_evaluator_keeps_tombstone"], true);
    }
    // The text form: one line per finding and the totals.
    let text = run(&["zombies", &d, "--gc-grace", "864000", "--now", &now]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("resurrection: "))
            .count(),
        8
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("garbage: ")).count(),
        2
    );
    assert!(text.contains(&format!(
        "4 SSTables, {} partitions at now {now} (gc_before {}): 8 resurrection risk(s), 2 droppable tombstone(s) that shadow nothing",
        PARTITIONS + 10,
        o.now_secs - 864_000
    )), "{text}");
    // Before the tombstones pass gc_grace (31 days > their 30 days + 1 hour): nothing.
    let report = json_of(&run(&[
        "zombies",
        &d,
        "--gc-grace",
        "2678400",
        "--now",
        &now,
        "--json",
    ]));
    assert!(findings(&report).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zombies_finds_no_resurrection_in_a_fixture_table_and_fails_on_bad_input() {
    let Some(fx) = common::cassandra_fixtures("cli::zombies::fixtures") else {
        return;
    };
    for table in [
        "legacy-sstables/oa/legacy_tables/legacy_oa_clust",
        "legacy-sstables/me/legacy_tables/legacy_me_simple_counter",
        "other/negative-ldts-invalid-deletions-test/invalid_partition_deletion",
    ] {
        let d = fx.join(table).to_string_lossy().into_owned();
        let report = json_of(&run(&[
            "zombies",
            &d,
            "--gc-grace",
            "864000",
            "--now",
            "1800000000",
            "--json",
        ]));
        assert_eq!(report["sstables"].as_array().unwrap().len(), 1, "{table}");
        assert!(
            report["resurrections"].as_array().unwrap().is_empty(),
            "{table}"
        );
    }
    // A 2.x table without its CREATE TABLE: exit 1 with an error naming the SSTable.
    let ka = fx.join("legacy-sstables/ka/legacy_tables/legacy_ka_clust");
    let out = run(&["zombies", &ka.to_string_lossy(), "--gc-grace", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("predates the 3.0 row format"), "{err}");
    assert!(err.contains("legacy_tables-legacy_ka_clust-ka-1"), "{err}");
    // With it: its 5 partitions scanned, nothing droppable (MANIFEST §3: no tombstones, no TTL).
    let schema = std::env::temp_dir().join(format!(
        "sstable-inspect-zombies-{}-ka.cql",
        std::process::id()
    ));
    std::fs::write(
        &schema,
        "CREATE TABLE legacy_ka_clust (pk text, ck text, val text, PRIMARY KEY (pk, ck));",
    )
    .unwrap();
    let report = json_of(&run(&[
        "zombies",
        &ka.to_string_lossy(),
        "--gc-grace",
        "0",
        "--now",
        "1800000000",
        "--schema",
        &schema.to_string_lossy(),
        "--json",
    ]));
    assert_eq!(
        report["sstables"],
        serde_json::json!(["legacy_tables-legacy_ka_clust-ka-1"])
    );
    assert_eq!(
        (report["partitions"].as_u64(), report["complete"].as_bool()),
        (Some(5), Some(true))
    );
    assert_eq!(report["resurrections"], serde_json::json!([]));
    assert_eq!(report["garbage"], serde_json::json!([]));
    let _ = std::fs::remove_file(&schema);
    // No --gc-grace: a usage error.
    let out = run(&["zombies", &ka.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
}
