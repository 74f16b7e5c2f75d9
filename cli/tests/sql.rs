//! `sstable-inspect sql` against `dump` on every generated 3.0+ fixture table (MANIFEST.md §3):
//! `count(*)`, a key lookup, a clustering range and `max(val__writetime)` agree with what the
//! dump of the same files shows (computed from dump's JSON, not written here); bad SQL and an
//! unknown column exit 2 with DataFusion's message.

use crate::common;
use crate::support::{self, run};

#[path = "sql_legacy.rs"]
mod legacy;

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::Array;
use serde_json::Value;

fn dump(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["dump", dir.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let (stdout, stderr, code) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str::<Value>(&stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// "Now" of the merged reads the generated tables are compared at (`read --now`, `sql --now`).
const NOW: &str = "1700003600";

/// `read DIR --json --now NOW` and `extra`: the merged partitions.
fn read_json(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["read", dir.to_str().unwrap(), "--json", "--now", NOW];
    args.extend_from_slice(extra);
    let (stdout, stderr, code) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str::<Value>(&stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A fresh `dir` holding a copy of `src`'s files.
fn copy_dir(src: &Path, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
}

/// `sql ARGS…`, which must exit 0: its (stdout, stderr).
fn sql(args: &[&str]) -> (String, String) {
    let mut all = vec!["sql"];
    all.extend_from_slice(args);
    let (stdout, stderr, code) = run(&all);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    (stdout, stderr)
}

/// One number from a one-row, one-column query (`--csv`: header, then the value).
fn scalar(query: &str, dir: &Path) -> String {
    rows_of(query, dir).into_iter().next().unwrap_or_default()
}

/// The result of `query` over `dir` as CSV lines without the header.
fn rows_of(query: &str, dir: &Path) -> Vec<String> {
    let (stdout, _) = sql(&[query, dir.to_str().unwrap(), "--csv"]);
    stdout.lines().skip(1).map(str::to_owned).collect()
}

/// Rows dump shows: regular rows and static rows, and a partition with neither counts once.
fn dumped_rows(parts: &[Value], keep: impl Fn(&Value) -> bool) -> usize {
    parts
        .iter()
        .map(|p| {
            let rows: Vec<&Value> = p["rows"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .filter(|r| r["type"] == "row" || r["type"] == "static_block")
                        .collect()
                })
                .unwrap_or_default();
            if rows.is_empty() {
                usize::from(keep(&Value::Null))
            } else {
                rows.into_iter().filter(|r| keep(r)).count()
            }
        })
        .sum()
}

/// µs since the epoch of dump's `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
fn micros(ts: &str) -> i64 {
    let n = |a: usize, b: usize| ts[a..b].parse::<i64>().unwrap();
    let (y, m, d) = (n(0, 4), n(5, 7), n(8, 10));
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + n(11, 13) * 3600 + n(14, 16) * 60 + n(17, 19);
    let frac = ts[20..ts.len() - 1].to_owned() + "000000";
    secs * 1_000_000 + frac[..6].parse::<i64>().unwrap()
}

fn max_writetime(parts: &[Value]) -> Option<i64> {
    let mut out: Option<i64> = None;
    for r in parts
        .iter()
        .flat_map(|p| p["rows"].as_array().cloned().unwrap_or_default())
    {
        let mut stamps = vec![r["liveness_info"]["tstamp"].clone()];
        for c in r["cells"].as_array().cloned().unwrap_or_default() {
            stamps.push(c["tstamp"].clone());
        }
        for t in stamps.iter().filter_map(Value::as_str) {
            out = Some(out.map_or(micros(t), |m| m.max(micros(t))));
        }
    }
    out
}

#[test]
fn sql_agrees_with_dump_on_every_generated_table() {
    let Some(fx) = common::cassandra_fixtures("sql_agrees_with_dump_on_every_generated_table")
    else {
        return;
    };
    let mut tables = 0;
    for v in ["ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa", "da"] {
        let base = fx.join("legacy-sstables").join(v).join("legacy_tables");
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        for e in entries {
            let dir = e.unwrap().path();
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with(&format!("legacy_{v}_")) || name.contains("inaccurate") {
                continue;
            }
            tables += 1;
            let parts = dump(&dir, &[]);
            let all = dumped_rows(&parts, |_| true);
            assert_eq!(
                scalar("SELECT count(*) FROM t", &dir),
                all.to_string(),
                "{name}"
            );
            // A key lookup.
            let key = dump(&dir, &["--key", "2"]);
            assert_eq!(key.len(), 1, "{name}");
            assert_eq!(
                scalar("SELECT count(*) FROM t WHERE partition_key = '2'", &dir),
                dumped_rows(&key, |_| true).to_string(),
                "{name}"
            );
            // A clustering range (the clustering tables: text clustering values).
            if name.contains("clust") {
                let below = dumped_rows(&parts, |r| {
                    r["clustering"][0].as_str().is_some_and(|c| c < "2")
                });
                assert!(below > 0 && below < all, "{name}: {below} of {all}");
                assert_eq!(
                    scalar("SELECT count(*) FROM t WHERE clustering_0 < '2'", &dir),
                    below.to_string(),
                    "{name}"
                );
            }
            let expected = max_writetime(&parts).unwrap();
            assert_eq!(
                scalar("SELECT CAST(max(val__writetime) AS BIGINT) FROM t", &dir),
                expected.to_string(),
                "{name}"
            );
        }
    }
    assert!(tables >= 60, "{tables} tables");
}

#[test]
fn bad_sql_and_unknown_columns_exit_2() {
    let Some(fx) = common::cassandra_fixtures("bad_sql_and_unknown_columns_exit_2") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_simple");
    let d = dir.to_str().unwrap();
    let (_, stderr, code) = run(&["sql", "SELEC x", d]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("SQL error"), "{stderr}");
    let (_, stderr, code) = run(&["sql", "SELECT nope FROM t", d]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("No field named nope"), "{stderr}");
    let (stdout, _) = sql(&[
        "SELECT partition_key, val FROM t ORDER BY partition_key LIMIT 2",
        d,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!([
            {"partition_key": "0", "val": "foo bar baz"},
            {"partition_key": "1", "val": "foo bar baz"}
        ])
    );
}

/// A Data.db chunk overwritten (MANIFEST.md §6: nb_clust's chunk 1 covers bytes [424, 836)):
/// the query fails with exit 1 and the error names the SSTable, Data.db and the chunk's bytes.
#[test]
fn a_corrupt_sstable_names_sstable_component_and_offset() {
    let Some(fx) =
        common::cassandra_fixtures("a_corrupt_sstable_names_sstable_component_and_offset")
    else {
        return;
    };
    let src = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-sql-corrupt-{}",
        std::process::id()
    ));
    copy_dir(&src, &dir);
    let data = dir.join("nb-1-big-Data.db");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[500..564].fill(0xff);
    std::fs::write(&data, bytes).unwrap();
    let (_, stderr, code) = run(&["sql", "SELECT count(*) FROM t", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("nb-1-big"), "{stderr}");
    assert!(stderr.contains("Data.db 424..836"), "{stderr}");
    assert!(stderr.contains("at 0x1a8 in Data.db"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A generated `nb` SSTable of 200 partitions × 20 rows in LZ4 chunks of 4 KiB, in a new temp
/// directory named by `tag`; the directory and its Data.db's length.
fn generate_small_chunks(tag: &str) -> (PathBuf, u64) {
    let dir =
        std::env::temp_dir().join(format!("sstable-inspect-sql-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    support::generate_sstable(&dir, &support::NB_200_BY_20_LZ4_4K);
    let data_len = std::fs::metadata(dir.join("nb-1-big-Data.db"))
        .unwrap()
        .len();
    (dir, data_len)
}

/// A key lookup through `sql` on a generated SSTable of 4 KiB chunks reads only the chunks
/// holding that partition (its uncompressed span from `partitions`), each once, far less than
/// Data.db, and returns the rows `read --key` shows; a full count agrees with `read` too (the
/// merged read of one SSTable: its partition deletions and range tombstones applied).
#[test]
fn a_key_lookup_reads_only_the_partitions_chunks() {
    let (dir, data_len) = generate_small_chunks("lookup");
    let d = dir.to_str().unwrap();
    // The 100th partition in Data.db order: key, uncompressed position and bytes.
    let (csv, _, code) = run(&["partitions", d, "--csv", "-q"]);
    assert_eq!(code, 0);
    let line: Vec<&str> = csv.lines().nth(100).unwrap().split(',').collect();
    let (key, position, bytes) = (
        line[1].to_owned(),
        line[3].parse::<u64>().unwrap(),
        line[4].parse::<u64>().unwrap(),
    );
    let chunk = 4096;
    let chunks_spanned = (position + bytes - 1) / chunk - position / chunk + 1;
    let dumped = dumped_rows(&read_json(&dir, &["--key", &key]), |_| true);
    assert!(dumped >= 20, "{dumped}");

    let query = format!("SELECT count(*) FROM t WHERE partition_key = {key}");
    let (stdout, stderr) = sql(&[&query, d, "--csv", "--stats", "--now", NOW]);
    assert_eq!(stdout.lines().nth(1), Some(dumped.to_string().as_str()));
    let reads_line = stderr
        .lines()
        .find(|l| l.starts_with("read: Data.db reads"))
        .unwrap_or_else(|| panic!("{stderr}"));
    let read_bytes: u64 = reads_line
        .split('(')
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    let mut offsets: Vec<u64> = reads_line
        .rsplit(": ")
        .next()
        .unwrap()
        .split(' ')
        .map(|r| r.split('+').next().unwrap().parse().unwrap())
        .collect();
    let reads = offsets.len();
    offsets.sort_unstable();
    offsets.dedup();
    // Only the partition's chunks (the lookup's header read is one of them), each at most
    // a 4 KiB chunk and its checksum (lz4 of generated values does not grow them), each once:
    // the chunk the lookup read is not read again by the row reader.
    assert_eq!(offsets.len() as u64, chunks_spanned, "{reads_line}");
    assert_eq!(reads, offsets.len(), "a chunk read twice: {reads_line}");
    assert!(read_bytes < data_len / 20, "{read_bytes} of {data_len}");
    eprintln!("key {key}: {read_bytes} of {data_len} Data.db bytes, {reads_line}");

    // Without the key filter every chunk is read.
    let (stdout, stderr) = sql(&[
        "SELECT count(*) FROM t",
        d,
        "--csv",
        "--stats",
        "--now",
        NOW,
    ]);
    // The merged read's rows (the same file's partition deletions and range tombstones applied).
    let all = dumped_rows(&read_json(&dir, &[]), |_| true).to_string();
    assert_eq!(stdout.lines().nth(1), Some(all.as_str()));
    assert!(stderr.contains(&format!("({data_len} bytes)")), "{stderr}");
    // Planning reads no Data.db byte: the rows are decoded when the plan runs, as a stream.
    let (stdout, stderr) = sql(&["EXPLAIN SELECT count(*) FROM t", d, "--csv", "--stats"]);
    assert!(stdout.contains("StreamingTableExec"), "{stdout}");
    assert!(
        stderr.contains("read: Data.db reads 0 (0 bytes)"),
        "{stderr}"
    );
    // A LIMIT stops the reading: the first chunk, not the file.
    let (stdout, stderr) = sql(&["SELECT _position FROM t LIMIT 1", d, "--csv", "--stats"]);
    // The first row in Data.db order.
    let (first, _, _) = run(&["sql", "SELECT min(_position) FROM t", d, "--csv"]);
    assert_eq!(stdout.lines().nth(1), first.lines().nth(1));
    let limited = stderr
        .lines()
        .find(|l| l.starts_with("read: Data.db reads"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(limited.starts_with("read: Data.db reads 1 "), "{limited}");
    // A projection of two columns: their values for the key, as dump has them.
    let (stdout, _) = sql(&[&format!("SELECT clustering_0, partition_key FROM t WHERE partition_key = {key} AND _kind = 'row' LIMIT 1"),
        d,
        "--json"]);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v[0].as_object().unwrap().len(), 2, "{stdout}");
    assert_eq!(v[0]["partition_key"].to_string(), key, "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--parquet FILE` writes the result; read back with the parquet crate it holds the rows and
/// values `--csv` prints for the same query.
#[test]
fn parquet_output_reads_back_as_the_csv_result() {
    let Some(fx) = common::cassandra_fixtures("parquet_output_reads_back_as_the_csv_result") else {
        return;
    };
    let dir = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let d = dir.to_str().unwrap();
    let query = "SELECT partition_key, clustering_0, val, CAST(val__writetime AS BIGINT) AS wt \
                 FROM t ORDER BY partition_key, clustering_0";
    let file = std::env::temp_dir().join(format!(
        "sstable-inspect-sql-{}.parquet",
        std::process::id()
    ));
    sql(&[query, d, "--parquet", file.to_str().unwrap()]);
    let (csv, _) = sql(&[query, d, "--csv"]);
    let expected: Vec<&str> = csv.lines().skip(1).collect();
    assert!(expected.len() > 1);
    let f = std::fs::File::open(&file).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let mut lines = Vec::new();
    for b in reader {
        let b = b.unwrap();
        let schema = b.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["partition_key", "clustering_0", "val", "wt"]);
        let text = |c: usize, r: usize| {
            let a = b.column(c).as_string::<i32>();
            if a.is_null(r) {
                String::new()
            } else {
                a.value(r).to_owned()
            }
        };
        let wt = b.column(3).as_primitive::<arrow_array::types::Int64Type>();
        for r in 0..b.num_rows() {
            lines.push(format!(
                "{},{},{},{}",
                text(0, r),
                text(1, r),
                text(2, r),
                wt.value(r)
            ));
        }
    }
    assert_eq!(lines, expected);
    let _ = std::fs::remove_file(&file);
}

/// With a schema.cql beside the SSTables (a snapshot's), the key and clustering columns carry
/// its names (`legacy_nb_clust`: MANIFEST.md §3, `pk text, ck text, val text, PK (pk, ck)`), and
/// a key equality on `pk` still goes through the lookup (one partition's 50 rows, and fewer
/// Data.db bytes than the whole file).
#[test]
fn schema_cql_names_the_key_and_clustering_columns() {
    let Some(fx) = common::cassandra_fixtures("schema_cql_names_the_key_and_clustering_columns")
    else {
        return;
    };
    let src = common::legacy_dir(&fx, "nb", "legacy_nb_clust");
    let dir =
        std::env::temp_dir().join(format!("sstable-inspect-sql-names-{}", std::process::id()));
    copy_dir(&src, &dir);
    std::fs::write(
        dir.join("schema.cql"),
        "CREATE TABLE IF NOT EXISTS legacy_tables.legacy_nb_clust (\n    pk text,\n    ck text,\n    val text,\n    PRIMARY KEY (pk, ck)\n) WITH CLUSTERING ORDER BY (ck ASC);\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let data_len = std::fs::metadata(dir.join("nb-1-big-Data.db"))
        .unwrap()
        .len();
    let (stdout, stderr) = sql(&[
        "SELECT count(*) AS n, min(ck) AS first FROM t WHERE pk = '2'",
        d,
        "--csv",
        "--stats",
    ]);
    let key = dump(&dir, &["--key", "2"]);
    let first = key[0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["clustering"][0].as_str())
        .min()
        .unwrap()
        .to_owned();
    assert_eq!(
        stdout.lines().nth(1).unwrap(),
        format!("{},{first}", dumped_rows(&key, |_| true))
    );
    let read: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("read: Data.db reads "))
        .and_then(|l| l.split('(').nth(1))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(read < data_len, "{read} of {data_len}");
    // The default names are gone.
    let (_, stderr, code) = run(&["sql", "SELECT clustering_0 FROM t", d]);
    assert_eq!(code, 2, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Text of a JSON value as dump prints it (`None` for null or absent).
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// `(partition key, clustering) → (v, n)` of the regular rows of `read --json`'s partitions: a
/// cell with deletion info (a tombstone) or no cell is null.
fn read_values(
    parts: &[Value],
) -> std::collections::BTreeMap<(String, String), (Option<String>, Option<String>)> {
    let mut out = std::collections::BTreeMap::new();
    for p in parts {
        let key = p["partition"]["key"][0].as_str().unwrap().to_owned();
        for r in p["rows"].as_array().cloned().unwrap_or_default() {
            if r["type"] != "row" {
                continue;
            }
            let ck = r["clustering"][0].as_str().unwrap().to_owned();
            let cell = |name: &str| {
                r["cells"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["name"] == name))
                    .filter(|c| c.get("deletion_info").is_none())
                    .and_then(|c| text(c.get("value")))
            };
            out.insert((key.clone(), ck), (cell("v"), cell("n")));
        }
    }
    out
}

/// A table of 4 overlapping SSTables (`generate --overlapping 4`): `sql` answers from the merged
/// read, as `read DIR --json` shows it at the same `--now` — the row count and every row's `v`
/// and `n` — and not from the SSTables' rows concatenated (their count is larger: the same
/// rows, shadowed versions and all, in several SSTables).
#[test]
fn sql_answers_from_the_merged_read_of_the_tables_sstables() {
    let dir =
        std::env::temp_dir().join(format!("sstable-inspect-sql-merged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let said = crate::read::generate_overlapping_table(&dir, "nb", (40, 8, 21), &[]);
    let now = said
        .split("--now ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("{said}"))
        .to_owned();
    let d = dir.to_str().unwrap();
    let (stdout, stderr, code) = run(&["read", d, "--json", "--now", &now]);
    assert_eq!(code, 0, "{stderr}");
    let parts: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let merged = dumped_rows(&parts, |_| true);
    let count = |path: &str| {
        let (stdout, _) = sql(&["SELECT count(*) FROM t", path, "--csv", "--now", &now]);
        stdout.lines().nth(1).unwrap().parse::<usize>().unwrap()
    };
    assert_eq!(count(d), merged);
    // Each SSTable alone, summed: what concatenating them would answer.
    let mut datas: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("-Data.db"))
        .collect();
    datas.sort();
    assert_eq!(datas.len(), 4);
    let concatenated: usize = datas.iter().map(|p| count(p.to_str().unwrap())).sum();
    assert!(concatenated > merged, "{concatenated} vs {merged}");

    let (stdout, _) = sql(&[
        "SELECT partition_key, clustering_0, v, n FROM t WHERE _kind = 'row'",
        d,
        "--json",
        "--now",
        &now,
    ]);
    let rows: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let got: std::collections::BTreeMap<_, _> = rows
        .iter()
        .map(|r| {
            (
                (
                    text(r.get("partition_key")).unwrap(),
                    text(r.get("clustering_0")).unwrap(),
                ),
                (text(r.get("v")), text(r.get("n"))),
            )
        })
        .collect();
    assert_eq!(got.len(), rows.len(), "a row twice");
    let expected = read_values(&parts);
    assert!(expected.len() > 40, "{}", expected.len());
    assert_eq!(got, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `WHERE __token >= A AND __token < B` (the Murmur3 token) on a generated SSTable of 4 KiB
/// chunks: the rows of the partitions whose tokens are in the range (dump's, in token order),
/// and Data.db reads only from the chunk of the range's first partition to the chunk holding
/// the header of the first partition past it; Index.db is read from the Summary.db sample
/// before the range, not from its start.
#[test]
fn a_token_range_reads_only_the_ranges_chunks() {
    let (dir, data_len) = generate_small_chunks("tokens");
    let d = dir.to_str().unwrap();
    let (csv, _, code) = run(&["partitions", d, "--csv", "-q"]);
    assert_eq!(code, 0);
    // Partitions in Data.db (token) order: token, position, bytes.
    let listed: Vec<(i64, u64, u64)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed.len(), 200);
    // Past Summary.db's second sample (every 128th partition): Index.db is read from there.
    let (first, last) = (150, 160);
    let (a, b) = (listed[first].0, listed[last].0);
    let parts = read_json(&dir, &[]);
    assert_eq!(parts.len(), 200);
    let expected = dumped_rows(&parts[first..last], |_| true);
    let query = format!("SELECT count(*), count(DISTINCT partition_key) FROM t WHERE __token >= {a} AND __token < {b}");
    let (stdout, stderr) = sql(&[&query, d, "--csv", "--stats", "--now", NOW]);
    assert_eq!(
        stdout.lines().nth(1),
        Some(format!("{expected},{}", last - first).as_str()),
        "{stderr}"
    );
    let reads_line = stderr
        .lines()
        .find(|l| l.starts_with("read: Data.db reads"))
        .unwrap_or_else(|| panic!("{stderr}"));
    let chunk = 4096;
    let lowest = listed[first].1 / chunk;
    let highest = listed[last].1 / chunk;
    let mut chunks: Vec<u64> = reads_line
        .rsplit(": ")
        .next()
        .unwrap()
        .split(' ')
        .map(|r| r.split('+').next().unwrap().parse::<u64>().unwrap())
        .collect();
    chunks.sort_unstable();
    chunks.dedup();
    // Physical offsets of compressed chunks: as many as the range's uncompressed chunks.
    assert!(
        chunks.len() as u64 <= highest - lowest + 1,
        "{} chunks read, the range spans {}: {reads_line}",
        chunks.len(),
        highest - lowest + 1
    );
    let read_bytes: u64 = reads_line
        .split('(')
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(read_bytes < data_len / 5, "{read_bytes} of {data_len}");
    let index_len = std::fs::metadata(dir.join("nb-1-big-Index.db"))
        .unwrap()
        .len();
    let index_read: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("read: Index.db "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        index_read < index_len / 2,
        "{index_read} of {index_len}: {stderr}"
    );
    // The token column is each row's partition token: the first partition's.
    let (stdout, _) = sql(&[
        &format!("SELECT min(__token) FROM t WHERE __token >= {a}"),
        d,
        "--csv",
    ]);
    assert_eq!(stdout.lines().nth(1), Some(a.to_string().as_str()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 2.x snapshot: a copy of `legacy_ka_14873` (MANIFEST.md §5: `pkc int, cc int, sc int
/// static, rc text`, clustering DESC; one partition pkc = 0, static sc = 0, rows cc = 1..5, each
/// rc that digit 256 times) with the MANIFEST's table as schema.cql beside it: the values come
/// out with their names and types (int columns as Int32), and `max(rc__writetime)` is dump's.
/// Without the schema the query is refused (exit 1).
#[test]
fn a_2x_snapshot_is_queried_with_its_schema_types_and_names() {
    let Some(fx) =
        common::cassandra_fixtures("a_2x_snapshot_is_queried_with_its_schema_types_and_names")
    else {
        return;
    };
    let src = common::legacy_dir(&fx, "ka", "legacy_ka_14873");
    let dir = std::env::temp_dir().join(format!("sstable-inspect-sql-2x-{}", std::process::id()));
    copy_dir(&src, &dir);
    let d = dir.to_str().unwrap();
    let (_, stderr, code) = run(&["sql", "SELECT count(*) FROM t", d]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("schema"), "{stderr}");
    std::fs::write(
        dir.join("schema.cql"),
        "CREATE TABLE IF NOT EXISTS legacy_tables.legacy_ka_14873 (\n    pkc int,\n    cc int,\n    sc int static,\n    rc text,\n    PRIMARY KEY (pkc, cc)\n) WITH CLUSTERING ORDER BY (cc DESC);\n",
    )
    .unwrap();
    let (stdout, _) = sql(&[
        "SELECT arrow_typeof(pkc) AS k, arrow_typeof(cc) AS c, arrow_typeof(sc) AS s, \
         arrow_typeof(rc) AS r FROM t LIMIT 1",
        d,
        "--csv",
    ]);
    assert_eq!(
        stdout.lines().nth(1),
        Some("Int32,Int32,Int32,Utf8"),
        "{stdout}"
    );
    let (stdout, _) = sql(&[
        "SELECT pkc, cc, rc FROM t WHERE _kind = 'row' ORDER BY cc",
        d,
        "--csv",
    ]);
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    let expected: Vec<String> = (1..=5)
        .map(|i| format!("0,{i},{}", i.to_string().repeat(256)))
        .collect();
    assert_eq!(rows, expected, "{stdout}");
    assert_eq!(scalar("SELECT sc FROM t WHERE _kind = 'static'", &dir), "0");
    // The writetime of rc, as dump (with the same schema.cql) shows the cells.
    let parts = dump(&dir, &[]);
    let expected = parts
        .iter()
        .flat_map(|p| p["rows"].as_array().cloned().unwrap_or_default())
        .flat_map(|r| r["cells"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["name"] == "rc")
        .filter_map(|c| c["tstamp"].as_str().map(micros))
        .max()
        .unwrap();
    assert_eq!(
        scalar("SELECT CAST(max(rc__writetime) AS BIGINT) FROM t", &dir),
        expected.to_string()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every 2.x generated table (jb, ka, la; MANIFEST.md §3: `pk text, [ck text,] val text` or
/// `val counter`, the compact variants `WITH COMPACT STORAGE`) copied with its schema.cql:
/// `count(*)`, a key lookup, a clustering range and `max(val__writetime)` agree with `dump` of the
/// same snapshot (which reads the same schema.cql).
#[test]
fn sql_agrees_with_dump_on_every_2x_table_with_its_schema() {
    let Some(fx) =
        common::cassandra_fixtures("sql_agrees_with_dump_on_every_2x_table_with_its_schema")
    else {
        return;
    };
    let mut tables = 0;
    for v in ["jb", "ka", "la"] {
        for kind in ["simple", "clust"] {
            for counter in [false, true] {
                for compact in [false, true] {
                    let name = format!(
                        "legacy_{v}_{kind}{}{}",
                        if counter { "_counter" } else { "" },
                        if compact { "_compact" } else { "" }
                    );
                    let src = common::legacy_dir(&fx, v, &name);
                    if !src.is_dir() {
                        continue;
                    }
                    tables += 1;
                    let dir = std::env::temp_dir()
                        .join(format!("sstable-inspect-sql-{name}-{}", std::process::id()));
                    copy_dir(&src, &dir);
                    let val = if counter { "counter" } else { "text" };
                    let (ck, key) = if kind == "clust" {
                        ("    ck text,\n", "(pk, ck)")
                    } else {
                        ("", "(pk)")
                    };
                    let with = if compact { " WITH COMPACT STORAGE" } else { "" };
                    std::fs::write(
                        dir.join("schema.cql"),
                        format!("CREATE TABLE legacy_tables.{name} (\n    pk text,\n{ck}    val {val},\n    PRIMARY KEY {key}\n){with};\n"),
                    )
                    .unwrap();
                    let parts = dump(&dir, &[]);
                    let all = dumped_rows(&parts, |_| true);
                    assert!(all >= 5, "{name}: {all}");
                    assert_eq!(
                        scalar("SELECT count(*) FROM t", &dir),
                        all.to_string(),
                        "{name}"
                    );
                    let key = dump(&dir, &["--key", "2"]);
                    assert_eq!(key.len(), 1, "{name}");
                    assert_eq!(
                        scalar("SELECT count(*) FROM t WHERE pk = '2'", &dir),
                        dumped_rows(&key, |_| true).to_string(),
                        "{name}"
                    );
                    if kind == "clust" {
                        let below = dumped_rows(&parts, |r| {
                            r["clustering"][0].as_str().is_some_and(|c| c < "2")
                        });
                        assert!(below > 0 && below < all, "{name}: {below} of {all}");
                        assert_eq!(
                            scalar("SELECT count(*) FROM t WHERE ck < '2'", &dir),
                            below.to_string(),
                            "{name}"
                        );
                    }
                    let cells = parts
                        .iter()
                        .flat_map(|p| p["rows"].as_array().cloned().unwrap_or_default())
                        .flat_map(|r| r["cells"].as_array().cloned().unwrap_or_default());
                    // The values too: the distinct `val`s dump shows.
                    let mut values: Vec<String> = cells
                        .clone()
                        .filter(|c| c["name"] == "val")
                        .filter_map(|c| c["value"].as_str().map(str::to_owned))
                        .collect();
                    values.sort();
                    values.dedup();
                    assert_eq!(
                        rows_of(
                            "SELECT DISTINCT CAST(val AS VARCHAR) AS v FROM t ORDER BY v",
                            &dir
                        ),
                        values,
                        "{name}"
                    );
                    let expected = cells
                        .filter(|c| c["name"] == "val")
                        .filter_map(|c| c["tstamp"].as_str().map(micros))
                        .max()
                        .unwrap();
                    assert_eq!(
                        scalar("SELECT CAST(max(val__writetime) AS BIGINT) FROM t", &dir),
                        expected.to_string(),
                        "{name}"
                    );
                    let _ = std::fs::remove_dir_all(&dir);
                }
            }
        }
    }
    assert_eq!(tables, 24);
}

/// The other visible 3.0+ fixture tables (MANIFEST.md §4, §6: `legacy_mc_inaccurate_min_max`,
/// negative local expiration times, invalid deletions, duplicate rows): `count(*)` and every
/// simple column's `max(<col>__writetime)` agree with `read --json` at the same now (the merged
/// read: for `cf_with_duplicates_3_0` its two rows of one clustering are one, as Cassandra
/// reads them; `dump` of the other single SSTables shows the same rows).
#[test]
fn sql_agrees_with_read_on_the_other_3_0_fixture_tables() {
    let Some(fx) =
        common::cassandra_fixtures("sql_agrees_with_read_on_the_other_3_0_fixture_tables")
    else {
        return;
    };
    let mut dirs = vec![fx.join("legacy-sstables/mc/legacy_tables/legacy_mc_inaccurate_min_max")];
    for t in ["table1", "table2", "table3", "table4"] {
        dirs.push(fx.join("other/negative-local-expiration-test").join(t));
    }
    dirs.push(fx.join("other/invalid-legacy-sstables/Keyspace1/cf_with_duplicates_3_0"));
    for t in [
        "invalid_tombstones",
        "invalid_range_tombstone_reader",
        "invalid_range_tombstone_compaction",
        "invalid_partition_deletion",
    ] {
        dirs.push(
            fx.join("other/negative-ldts-invalid-deletions-test")
                .join(t),
        );
    }
    let mut compared = 0;
    for dir in &dirs {
        assert!(dir.is_dir(), "{}", dir.display());
        let parts = read_json(dir, &[]);
        let d = dir.to_str().unwrap();
        let (stdout, _) = sql(&["SELECT count(*) FROM t", d, "--csv", "--now", NOW]);
        assert_eq!(
            stdout.lines().nth(1).unwrap(),
            dumped_rows(&parts, |_| true).to_string(),
            "{d}"
        );
        let mut stamps: std::collections::BTreeMap<String, i64> = Default::default();
        for r in parts
            .iter()
            .flat_map(|p| p["rows"].as_array().cloned().unwrap_or_default())
        {
            // A cell without its own timestamp has the row's (dump leaves it out).
            let row_ts = r["liveness_info"]["tstamp"].as_str().map(str::to_owned);
            for c in r["cells"].as_array().cloned().unwrap_or_default() {
                if c.get("path").is_some() {
                    continue;
                }
                let t = c["tstamp"].as_str().map(str::to_owned).or(row_ts.clone());
                let (Some(name), Some(t)) = (c["name"].as_str(), t) else {
                    continue;
                };
                let e = stamps.entry(name.to_owned()).or_insert(i64::MIN);
                *e = (*e).max(micros(&t));
            }
        }
        // (table4 has only a collection column: no simple column to compare.)
        for (name, max) in stamps {
            let query = format!("SELECT CAST(max({name}__writetime) AS BIGINT) FROM t");
            let (stdout, _) = sql(&[&query, d, "--csv", "--now", NOW]);
            assert_eq!(
                stdout.lines().nth(1).unwrap(),
                max.to_string(),
                "{d} {name}"
            );
            compared += 1;
        }
    }
    assert!(compared >= dirs.len() - 1, "{compared}");
}
