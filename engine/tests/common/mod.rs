//! Finding the real Cassandra fixtures from native tests; the setup the test modules share
//! (`sstables`: fixture SSTables read into memory, `legacy`: the generated legacy tables).
//!
//! `$SSTABLE_FIXTURES` (the `fixtures` dir or its `cassandra/` child) or `../shared/fixtures`
//! beside the repository. When absent: with `CI` set the test fails; otherwise it records a skip
//! in `$SSTABLE_SKIP_LOG` (counted by `cargo xtask test`) and returns `None`.
#![allow(dead_code)]

pub mod legacy;
pub mod sstables;

use std::io::Write;
use std::path::{Path, PathBuf};

pub fn cassandra_fixtures(test_name: &str) -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let candidates = std::env::var_os("SSTABLE_FIXTURES")
        .map(PathBuf::from)
        .into_iter()
        .chain(repo.parent().map(|p| p.join("shared").join("fixtures")));
    for base in candidates {
        for dir in [base.join("cassandra"), base.clone()] {
            if dir.join("MANIFEST.md").is_file() {
                return Some(dir);
            }
        }
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(
        !ci,
        "{test_name}: the Cassandra fixtures are required when CI is set (set SSTABLE_FIXTURES)"
    );
    eprintln!("SKIP {test_name}: Cassandra fixtures not found");
    if let Some(log) = std::env::var_os("SSTABLE_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{test_name} (fixtures not found)");
        }
    }
    None
}

/// Every file under `dir`, as paths relative to `dir`, sorted.
pub fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(rel) = p.strip_prefix(base) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The directory of one legacy table, e.g. `legacy_dir(&fx, "nb", "legacy_nb_clust")`.
pub fn legacy_dir(fixtures: &Path, version: &str, table: &str) -> PathBuf {
    fixtures
        .join("legacy-sstables")
        .join(version)
        .join("legacy_tables")
        .join(table)
}

/// A counter shard as dump prints it (`"{kind} {id} clock {c} count {n}"`) with a `Local`
/// shard's clock and count doubled (an SSTable merged with a copy of itself: local shards add
/// up), and the count it then holds.
pub fn doubled_local_shard(shard: &str) -> (String, i64) {
    let parts: Vec<&str> = shard.split(' ').collect();
    let (clock, count): (i64, i64) = (parts[3].parse().unwrap(), parts[5].parse().unwrap());
    let factor = if parts[0] == "Local" { 2 } else { 1 };
    let doubled = format!(
        "{} {} clock {} count {}",
        parts[0],
        parts[1],
        clock * factor,
        count * factor
    );
    (doubled, count * factor)
}
