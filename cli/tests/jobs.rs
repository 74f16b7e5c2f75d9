//! `--jobs N`: `partitions`, `tombstones` and `dump` split into partition-aligned ranges over N
//! threads print byte for byte what the sequential run (`--jobs 1`) prints, with the same exit
//! status: on every visible Cassandra fixture (one run over the whole fixture tree), and on
//! generated SSTables cut into ranges (eight and twelve, for 2 and 3 jobs) whose partitions
//! straddle the range edges (small chunks, partitions of a few KiB, compressed and not).

use crate::common;
use crate::support;

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .output()
        .expect("run sstable-inspect")
}

/// Every command of the split scan, with output options that print everything counted.
const COMMANDS: [&[&str]; 7] = [
    &["partitions", "--json"],
    &["partitions", "--csv", "--top", "7", "--by", "cells"],
    &["partitions"],
    &["tombstones", "--gc-grace", "3600", "--json"],
    &["dump", "--json"],
    &["dump", "--jsonl"],
    &["dump"],
];

/// Runs every command over `path` with `--jobs 1`, 2 and 3 and compares.
fn assert_jobs_agree(path: &Path, expect_output: bool) {
    let path = path.to_str().unwrap();
    for command in COMMANDS {
        let with = |jobs: &str| {
            let mut args = command.to_vec();
            args.extend(["--jobs", jobs, path]);
            run(&args)
        };
        let one = with("1");
        if expect_output {
            assert!(
                one.status.success() && one.stdout.len() > 100,
                "{command:?} {path}: {}",
                String::from_utf8_lossy(&one.stderr)
            );
        }
        for jobs in ["2", "3"] {
            let many = with(jobs);
            assert_eq!(
                one.status.code(),
                many.status.code(),
                "{command:?} --jobs {jobs} {path}"
            );
            assert!(
                one.stdout == many.stdout,
                "{command:?} --jobs {jobs} {path}: stdout differs from --jobs 1 ({} vs {} bytes)",
                many.stdout.len(),
                one.stdout.len()
            );
        }
    }
}

#[test]
fn split_scans_print_what_the_sequential_scan_prints_on_generated_sstables() {
    for (name, version, compression, partitions, rows, chunk_kib) in [
        ("lz4", "oa", "lz4", "41", "37", "4"),
        ("plain", "nb", "none", "29", "11", "4"),
        ("one", "oa", "zstd", "1", "300", "4"),
    ] {
        let dir = support::fresh_temp_dir("jobs", name);
        support::generate_split_table(&dir, version, compression, partitions, rows, chunk_kib);
        assert_jobs_agree(&dir, true);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn split_scans_print_what_the_sequential_scan_prints_on_every_fixture() {
    let Some(fixtures) = common::cassandra_fixtures("split_scans_on_every_fixture") else {
        return;
    };
    assert_jobs_agree(&fixtures, false);
}
