//! `sql` over 2.x SSTables merged like 3.0+ ones (the engine's `merge::inputs`): a directory of
//! `legacy_la_clust` (MANIFEST.md §3: `pk text, ck text, val text, PK (pk, ck)`, 5 partitions
//! "0".."4" × 50 rows, every `val` one 128-character string) and a copy of it under another
//! generation is the one table, not twice; and beside `legacy_ma_clust` (the same schema and
//! keys, 3.0 format) the versions of each row are reconciled; COMPACT STORAGE tables too.

use crate::common;

use std::path::PathBuf;

use super::{rows_of as rows, run, scalar, sql};

const CQL: &str = "CREATE TABLE legacy_tables.legacy_la_clust (pk text, ck text, val text, \
                   PRIMARY KEY (pk, ck));\n";

/// MANIFEST.md §3: `legacy_ma_clust`'s 128-character `val`.
const MA_VAL: &str = "ftzoazjbohvmcdapafmgerkdrcqqhixhfqoasklsfjbbubbhcahxnljfgxvmiprapmexbduesgleepqpgjdpxtoxeldnokapzqimsgpyshbrosspfgtlpwlasbibibsz";

/// A fresh directory named by `tag` holding `legacy_la_clust` as generation 1 and, per
/// `second`, as generation 2 (`"la"`) or `legacy_ma_clust` beside it (`"ma"`) or alone (any
/// other), and schema.cql.
fn table(tag: &str, second: &str) -> Option<PathBuf> {
    let fx = common::cassandra_fixtures(tag)?;
    let la = common::legacy_dir(&fx, "la", "legacy_la_clust");
    let dir =
        std::env::temp_dir().join(format!("sstable-inspect-sql-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in common::files_under(&la) {
        let bytes = std::fs::read(la.join(&f)).unwrap();
        std::fs::write(dir.join(&f), &bytes).unwrap();
        if second == "la" {
            std::fs::write(dir.join(f.replace("la-1-", "la-2-")), &bytes).unwrap();
        }
    }
    if second == "ma" {
        let ma = common::legacy_dir(&fx, "ma", "legacy_ma_clust");
        for f in common::files_under(&ma) {
            std::fs::copy(ma.join(&f), dir.join(&f)).unwrap();
        }
    }
    std::fs::write(dir.join("schema.cql"), CQL).unwrap();
    Some(dir)
}

/// The `(count, bytes)` of `--stats`' "Data.db reads" line.
fn data_reads(stderr: &str) -> (u64, u64) {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("read: Data.db reads "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let (count, rest) = line.split_once(" (").unwrap();
    let bytes = rest.split_once(' ').unwrap().0;
    (count.parse().unwrap(), bytes.parse().unwrap())
}

#[test]
fn a_2x_table_and_its_copy_are_one_merged_table() {
    let Some(dir) = table("2x-copy", "la") else {
        return;
    };
    // 250 rows, not 500: the two generations are merged.
    assert_eq!(scalar("SELECT count(*) FROM t", &dir), "250");
    assert_eq!(
        rows("SELECT pk, count(*) FROM t GROUP BY pk ORDER BY pk", &dir),
        ["0,50", "1,50", "2,50", "3,50", "4,50"]
    );
    assert_eq!(
        scalar(
            "SELECT count(DISTINCT val) || ' ' || min(length(val)) || ' ' || count(DISTINCT ck) FROM t",
            &dir
        ),
        "1 128 50"
    );
    // Clusterings as UTF-8 text (MANIFEST.md §3): "0"+LONG first, "9"+LONG last.
    let long = "0123456789".repeat(120);
    assert_eq!(
        rows("SELECT ck FROM t WHERE pk = '3' ORDER BY ck LIMIT 3", &dir),
        [format!("0{long}"), format!("10{long}"), format!("1{long}")]
    );
    // The column schema is the merge reader's: names from schema.cql, 3.0+ metadata columns
    // (no `__token`: the fixture's partitioner is ByteOrdered).
    assert_eq!(
        scalar(
            "SELECT arrow_typeof(pk) || '/' || arrow_typeof(ck) || '/' || arrow_typeof(val) || '/' \
             || arrow_typeof(val__ttl) FROM t LIMIT 1",
            &dir
        ),
        "Utf8/Utf8/Utf8/Int32"
    );
    let d = dir.to_str().unwrap();
    // A key equality is found through each 2.x SSTable's Index.db: fewer Data.db bytes than
    // the whole read.
    let (_, all_stats) = sql(&["SELECT count(*) FROM t", d, "--csv", "--stats"]);
    let (stdout, key_stats) = sql(&[
        "SELECT count(*) FROM t WHERE pk = '3'",
        d,
        "--csv",
        "--stats",
    ]);
    assert_eq!(stdout.lines().nth(1), Some("50"));
    assert!(key_stats.contains("read: Index.db"), "{key_stats}");
    let (all, key) = (data_reads(&all_stats).1, data_reads(&key_stats).1);
    assert!(key > 0 && key < all, "{key} of {all}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_2x_sstable_beside_a_3x_one_is_merged_with_it() {
    let Some(dir) = table("2x-mixed", "ma") else {
        return;
    };
    // The same 5 × 50 keys in both: 250 rows, each reconciled.
    assert_eq!(scalar("SELECT count(*) FROM t", &dir), "250");
    assert_eq!(scalar("SELECT count(DISTINCT pk) FROM t", &dir), "5");
    // Every cell is the SSTable's of the later write: the 3.0 one (`ma`), whose writetimes are
    // all later than the 2.x one's.
    assert_eq!(
        rows("SELECT DISTINCT val FROM t", &dir),
        [MA_VAL.to_owned()]
    );
    let writetime = "SELECT CAST(min(val__writetime) AS BIGINT) FROM t";
    let ma: i64 = scalar(writetime, &dir).parse().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    // `la` alone: its latest write is before every merged (`ma`) one.
    let dir = table("2x-mixed-la", "").unwrap();
    let la: i64 = scalar(&writetime.replace("min", "max"), &dir)
        .parse()
        .unwrap();
    assert!(ma > la, "{ma} {la}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_2x_table_without_its_schema_is_refused() {
    let Some(dir) = table("2x-noschema", "la") else {
        return;
    };
    std::fs::remove_file(dir.join("schema.cql")).unwrap();
    let (_, stderr, code) = run(&["sql", "SELECT count(*) FROM t", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("2.x SSTables: SQL needs the table's schema"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `legacy_ka_repeated_rt` (MANIFEST.md §5, the one Murmur3 2.x table: `k1 int, c1 int, c2 int,
/// val1 text, val2 text, val3 text`, one partition k1 = 1 with 3 rows, a range tombstone over
/// c1 = 1 older than them) and a copy under generation 2: 3 rows, and a `__token` range starts
/// each SSTable's read from its Index.db: at the partition's token all 3 rows, past it no
/// Data.db byte is read.
#[test]
fn a_2x_token_range_starts_from_its_index() {
    let Some(fx) = common::cassandra_fixtures("a_2x_token_range_starts_from_its_index") else {
        return;
    };
    let src = common::legacy_dir(&fx, "ka", "legacy_ka_repeated_rt");
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-sql-2x-token-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in common::files_under(&src) {
        let bytes = std::fs::read(src.join(&f)).unwrap();
        std::fs::write(dir.join(&f), &bytes).unwrap();
        std::fs::write(dir.join(f.replace("-ka-1-", "-ka-2-")), &bytes).unwrap();
    }
    std::fs::write(
        dir.join("schema.cql"),
        "CREATE TABLE legacy_tables.legacy_ka_repeated_rt (k1 int, c1 int, c2 int, val1 text, \
         val2 text, val3 text, PRIMARY KEY (k1, c1, c2));\n",
    )
    .unwrap();
    assert_eq!(
        rows(
            "SELECT k1, c1, c2 FROM t WHERE _kind = 'row' ORDER BY c2",
            &dir
        ),
        ["1,1,1", "1,1,2", "1,1,3"]
    );
    let token: i64 = scalar("SELECT min(__token) FROM t", &dir).parse().unwrap();
    let d = dir.to_str().unwrap();
    let at = format!("SELECT count(*) FROM t WHERE _kind = 'row' AND __token >= {token}");
    let (stdout, stats) = sql(&[&at, d, "--csv", "--stats"]);
    assert_eq!(stdout.lines().nth(1), Some("3"));
    assert!(stats.contains("read: Index.db"), "{stats}");
    let past = format!("SELECT count(*) FROM t WHERE __token > {token}");
    let (stdout, stats) = sql(&[&past, d, "--csv", "--stats"]);
    assert_eq!(stdout.lines().nth(1), Some("0"));
    assert_eq!(data_reads(&stats), (0, 0), "{stats}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// MANIFEST.md §3: `legacy_ma_clust_compact`'s 128-character `val` (ma*).
const MA_COMPACT_VAL: &str = "jwqwvlwohwpcijvmsuuvpaknrzwoatxrfuifsjwcdisxsdbxwocmfjgtszmcabvncgjabxsflisichlvcvuyqpndtobcdgdqgbajknlxleedtdzjkrjrianfnccqseny";

/// A fresh directory named by `tag` holding `legacy_<v>_<kind>_compact` of each of `versions`
/// and schema.cql (`WITH COMPACT STORAGE`).
fn compact_table(tag: &str, kind: &str, versions: &[&str]) -> Option<PathBuf> {
    let fx = common::cassandra_fixtures(tag)?;
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-sql-2x-compact-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for v in versions {
        let src = common::legacy_dir(&fx, v, &format!("legacy_{v}_{kind}_compact"));
        for f in common::files_under(&src) {
            std::fs::copy(src.join(&f), dir.join(&f)).unwrap();
        }
    }
    let (ck, key) = if kind == "clust" {
        ("ck text, ", "(pk, ck)")
    } else {
        ("", "(pk)")
    };
    std::fs::write(
        dir.join("schema.cql"),
        format!(
            "CREATE TABLE legacy_tables.t (pk text, {ck}val text, PRIMARY KEY {key}) \
             WITH COMPACT STORAGE;\n"
        ),
    )
    .unwrap();
    Some(dir)
}

/// A COMPACT STORAGE table (MANIFEST.md §3) with its 2.x SSTable beside its 3.0 one
/// (`legacy_la_<kind>_compact` and `legacy_ma_<kind>_compact`): merged as Cassandra 3.0 reads
/// both — the dense clust table's 5 × 50 rows, each `val` the later write's (`la`'s, whose
/// writetimes are all later than `ma`'s); the static compact simple table's 5 rows of its
/// static `val` "foo bar baz" behind 3.0's hidden clustering column.
#[test]
fn a_compact_2x_sstable_beside_a_3x_one_is_merged_with_it() {
    let Some(dir) = compact_table("clust-mixed", "clust", &["la", "ma"]) else {
        return;
    };
    assert_eq!(scalar("SELECT count(*) FROM t", &dir), "250");
    assert_eq!(
        rows("SELECT pk, count(*) FROM t GROUP BY pk ORDER BY pk", &dir),
        ["0,50", "1,50", "2,50", "3,50", "4,50"]
    );
    let long = "0123456789".repeat(120);
    assert_eq!(
        rows("SELECT ck FROM t WHERE pk = '3' ORDER BY ck LIMIT 3", &dir),
        [format!("0{long}"), format!("10{long}"), format!("1{long}")]
    );
    let merged = rows("SELECT DISTINCT val FROM t", &dir);
    let writetime = "SELECT CAST(min(val__writetime) AS BIGINT) FROM t";
    let merged_min: i64 = scalar(writetime, &dir).parse().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let la = compact_table("clust-la", "clust", &["la"]).unwrap();
    let la_val = rows("SELECT DISTINCT val FROM t", &la);
    assert_eq!(la_val.len(), 1);
    assert_eq!(la_val[0].len(), 128);
    assert_eq!(merged, la_val);
    let la_min: i64 = scalar(writetime, &la).parse().unwrap();
    assert_eq!(merged_min, la_min);
    let _ = std::fs::remove_dir_all(&la);
    let ma = compact_table("clust-ma", "clust", &["ma"]).unwrap();
    assert_eq!(
        rows("SELECT DISTINCT val FROM t", &ma),
        [MA_COMPACT_VAL.to_owned()]
    );
    let ma_max: i64 = scalar(&writetime.replace("min", "max"), &ma)
        .parse()
        .unwrap();
    assert!(la_min > ma_max, "{la_min} {ma_max}");
    let _ = std::fs::remove_dir_all(&ma);

    let Some(dir) = compact_table("simple-mixed", "simple", &["la", "ma"]) else {
        return;
    };
    assert_eq!(
        rows(
            "SELECT pk, val, CAST(val__writetime AS BIGINT) FROM t ORDER BY pk",
            &dir
        )
        .len(),
        5
    );
    assert_eq!(
        rows("SELECT DISTINCT val FROM t", &dir),
        ["foo bar baz".to_owned()]
    );
    let merged: Vec<String> = rows(
        "SELECT pk || ' ' || CAST(val__writetime AS BIGINT) FROM t ORDER BY pk",
        &dir,
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Each partition's `val` is the later of its two writes.
    let alone = |v: &str| {
        let d = compact_table(&format!("simple-{v}"), "simple", &[v]).unwrap();
        let r = rows(
            "SELECT CAST(val__writetime AS BIGINT) FROM t ORDER BY pk",
            &d,
        );
        let _ = std::fs::remove_dir_all(&d);
        r.iter()
            .map(|w| w.parse::<i64>().unwrap())
            .collect::<Vec<_>>()
    };
    let (la, ma) = (alone("la"), alone("ma"));
    let expected: Vec<String> = la
        .iter()
        .zip(&ma)
        .enumerate()
        .map(|(pk, (a, b))| format!("{pk} {}", a.max(b)))
        .collect();
    assert_eq!(merged, expected);
}
