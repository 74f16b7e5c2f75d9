//! `sstable-inspect export` over the real fixtures: one file per SSTable in each format, read
//! back (Parquet with the parquet crate, Arrow IPC with arrow-ipc, CSV as text) and compared
//! with `dump --json` of the same SSTables.

use crate::common;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::RecordBatch;
use serde_json::Value;

fn run(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .args(args)
        .env("SSTABLE_INSPECT_NOW_SECONDS", "1800000000")
        .output()
        .expect("run sstable-inspect");
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sstable-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `sstable-inspect export PATH --format FORMAT --out DIR ARGS…` into a fresh directory named
/// after `name`: (that directory, stderr, exit code).
fn export(path: &Path, format: &str, name: &str, args: &[&str]) -> (PathBuf, String, i32) {
    let dir = out_dir(name);
    let mut all = vec![
        "export",
        path.to_str().unwrap(),
        "--format",
        format,
        "--out",
        dir.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let (stderr, code) = run(&all);
    (dir, stderr, code)
}

/// Every record batch of a Parquet file, read with the parquet crate.
fn read_parquet(file: &Path) -> Vec<RecordBatch> {
    let f = std::fs::File::open(file).unwrap();
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `dump --json` of `path`: (partition key, clustering, val) of every row.
fn dumped_rows(path: &Path) -> Vec<(String, String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .arg("dump")
        .arg(path)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rows = Vec::new();
    for p in v.as_array().unwrap() {
        let key = p["partition"]["key"][0].as_str().unwrap().to_owned();
        for r in p["rows"].as_array().unwrap() {
            let ck = r["clustering"][0].as_str().unwrap().to_owned();
            let val = r["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == "val")
                .and_then(|c| c["value"].as_str())
                .unwrap()
                .to_owned();
            rows.push((key.clone(), ck, val));
        }
    }
    rows
}

fn rows_of(batches: &[RecordBatch]) -> Vec<(String, String, String)> {
    let mut rows = Vec::new();
    for b in batches {
        let key = b
            .column_by_name("partition_key")
            .unwrap()
            .as_string::<i32>();
        let ck = b.column_by_name("clustering_0").unwrap().as_string::<i32>();
        let val = b.column_by_name("val").unwrap().as_string::<i32>();
        for i in 0..b.num_rows() {
            rows.push((
                key.value(i).to_owned(),
                ck.value(i).to_owned(),
                val.value(i).to_owned(),
            ));
        }
    }
    rows
}

#[test]
fn exports_each_sstable_as_parquet_arrow_and_csv_with_dumps_values() {
    let Some(fx) = common::cassandra_fixtures("cli::export::formats") else {
        return;
    };
    let table = fx.join("legacy-sstables/nb/legacy_tables/legacy_nb_clust");
    let expected = dumped_rows(&table);
    assert_eq!(expected.len(), 250, "MANIFEST §3: 5 partitions × 50 rows");
    for format in ["parquet", "arrow", "csv"] {
        let (dir, stderr, code) = export(
            &fx.join("legacy-sstables/nb"),
            format,
            format,
            &["--batch-rows", "64"],
        );
        assert_eq!(code, 0, "{stderr}");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "legacy_nb_clust",
                "legacy_nb_clust_counter",
                "legacy_nb_simple",
                "legacy_nb_simple_counter"
            ]
            .map(|t| format!("{t}.nb-1-big.{format}")),
        );
        let file = dir.join(format!("legacy_nb_clust.nb-1-big.{format}"));
        let got = match format {
            "parquet" => rows_of(&read_parquet(&file)),
            "arrow" => {
                let f = std::fs::File::open(&file).unwrap();
                let reader = arrow_ipc::reader::FileReader::try_new(f, None).unwrap();
                let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
                assert_eq!(batches.len(), 4, "250 rows in batches of 64");
                rows_of(&batches)
            }
            _ => {
                let text = std::fs::read_to_string(&file).unwrap();
                let mut lines = text.lines();
                assert_eq!(
                    lines.next(),
                    Some("_kind,_position,partition_key,clustering_0,val")
                );
                lines
                    .map(|l| {
                        let f: Vec<&str> = l.split(',').collect();
                        assert_eq!(f[0], "row");
                        (f[2].to_owned(), f[3].to_owned(), f[4].to_owned())
                    })
                    .collect()
            }
        };
        assert_eq!(got, expected, "{format}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn exports_the_partitions_report_and_refuses_pre_3_0_sstables() {
    let Some(fx) = common::cassandra_fixtures("cli::export::partitions") else {
        return;
    };
    let table = fx.join("legacy-sstables/oa/legacy_tables/legacy_oa_clust");
    let (dir, stderr, code) = export(&table, "parquet", "partitions", &["--table", "partitions"]);
    assert_eq!(code, 0, "{stderr}");
    let batches = read_parquet(&dir.join("legacy_oa_clust.oa-1-big.parquet"));
    let rows: Vec<u64> = batches
        .iter()
        .flat_map(|b| {
            let r = b
                .column_by_name("rows")
                .unwrap()
                .as_primitive::<UInt64Type>();
            (0..b.num_rows()).map(|i| r.value(i)).collect::<Vec<_>>()
        })
        .collect();
    // MANIFEST §3: 5 partitions of 50 rows.
    assert_eq!(rows, vec![50; 5]);
    let _ = std::fs::remove_dir_all(&dir);

    let ka = fx.join("legacy-sstables/ka/legacy_tables/legacy_ka_clust");
    let (dir, stderr, code) = export(&ka, "csv", "legacy", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("predates the 3.0 row format"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every file `export` wrote into `dir`, by name, with its bytes.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// `export --jobs 2` and `--jobs 3` write the files `--jobs 1` writes, byte for byte, with the
/// same stderr and exit status, in every format and at batch sizes that make the ranges'
/// batches straddle the batch cuts.
fn assert_export_jobs_agree(path: &Path, name: &str, batch_sizes: &[&str], expect_rows: bool) {
    for format in ["parquet", "arrow", "csv"] {
        for &batch_rows in batch_sizes {
            let with = |jobs: &str, extra: &[&str]| {
                let mut args = vec!["--batch-rows", batch_rows, "--jobs", jobs];
                args.extend_from_slice(extra);
                let tag = format!("{name}-{format}-{batch_rows}-{jobs}-{}", extra.len());
                let (dir, stderr, code) = export(path, format, &tag, &args);
                let files = files_of(&dir);
                let _ = std::fs::remove_dir_all(&dir);
                // The output directory differs by name; the rest of stderr must not.
                (files, stderr.replace(dir.to_str().unwrap(), "DIR"), code)
            };
            for extra in [&[][..], &["--cell-metadata"][..]] {
                let one = with("1", extra);
                if expect_rows {
                    assert_eq!(one.2, 0, "{format} {batch_rows} {path:?}: {}", one.1);
                    assert!(!one.0.is_empty() && one.0.iter().all(|(_, b)| b.len() > 100));
                }
                for jobs in ["2", "3"] {
                    let many = with(jobs, extra);
                    assert_eq!(
                        one.2, many.2,
                        "{format} {batch_rows} --jobs {jobs} {path:?}"
                    );
                    assert_eq!(
                        one.1, many.1,
                        "{format} {batch_rows} --jobs {jobs} {path:?}"
                    );
                    assert_eq!(
                        one.0.iter().map(|(n, _)| n).collect::<Vec<_>>(),
                        many.0.iter().map(|(n, _)| n).collect::<Vec<_>>()
                    );
                    for ((file, a), (_, b)) in one.0.iter().zip(&many.0) {
                        assert!(
                            a == b,
                            "{format} {batch_rows} {extra:?} --jobs {jobs}: {file} differs from --jobs 1 ({} vs {} bytes)",
                            b.len(),
                            a.len()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn split_exports_write_the_sequential_runs_bytes_on_generated_sstables() {
    // Small chunks and partitions of a few KiB: the file is cut into 8 and 12 ranges (2 and 3
    // jobs) whose edges fall inside partitions' chunks and across the batches.
    for (name, version, compression, partitions, rows) in [
        ("lz4", "oa", "lz4", "41", "37"),
        ("plain", "nb", "none", "29", "11"),
    ] {
        let dir = out_dir(&format!("gen-{name}"));
        support::generate_split_table(&dir, version, compression, partitions, rows, "4");
        assert_export_jobs_agree(&dir, name, &["1", "7", "100", "8192"], true);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn split_exports_write_the_sequential_runs_bytes_on_every_fixture() {
    let Some(fixtures) = common::cassandra_fixtures("split_exports_on_every_fixture") else {
        return;
    };
    assert_export_jobs_agree(&fixtures, "fixtures", &["3", "8192"], false);
}
