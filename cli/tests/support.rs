//! The setup the CLI's test modules share beside the fixtures (`common`): fresh temp
//! directories and SSTables written by `sstable-inspect generate`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the binary: (stdout, stderr, exit code).
pub fn run(args: &[&str]) -> (String, String, i32) {
    captured(Command::new(env!("CARGO_BIN_EXE_sstable-inspect")).args(args))
}

/// Runs `sstable-inspect SUBCOMMAND PATH ARGS…`: (stdout, stderr, exit code).
pub fn run_on(subcommand: &str, path: &Path, args: &[&str]) -> (String, String, i32) {
    captured(
        Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
            .arg(subcommand)
            .arg(path)
            .args(args),
    )
}

/// `command`'s (stdout, stderr, exit code; -1 if killed by a signal).
fn captured(command: &mut Command) -> (String, String, i32) {
    let out = command.output().expect("run sstable-inspect");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `generate`'s options for an `nb` SSTable of 200 partitions × 20 rows in LZ4 chunks of 4 KiB.
pub const NB_200_BY_20_LZ4_4K: [&str; 10] = [
    "--version",
    "nb",
    "--compression",
    "lz4",
    "--partitions",
    "200",
    "--rows-per-partition",
    "20",
    "--chunk-kib",
    "4",
];

/// `$TMPDIR/sstable-inspect-{area}-{pid}-{name}`, removed if it was left by an earlier run.
pub fn fresh_temp_dir(area: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sstable-inspect-{area}-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `sstable-inspect generate --out DIR ARGS…`, which must exit 0.
pub fn generate_sstable(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_sstable-inspect"))
        .arg("generate")
        .arg("--out")
        .arg(dir)
        .args(args)
        .output()
        .expect("run sstable-inspect generate");
    assert!(
        out.status.success(),
        "generate {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An SSTable for the split scans (`--jobs`): `partitions` × `rows` of `version` in
/// `compression` chunks of `chunk_kib` KiB (small, so that a range edge falls inside a
/// partition's chunks), seed 26, 30 % of the cells with a TTL and 20 % tombstones.
pub fn generate_split_table(
    dir: &Path,
    version: &str,
    compression: &str,
    partitions: &str,
    rows: &str,
    chunk_kib: &str,
) {
    generate_sstable(
        dir,
        &[
            "-q",
            "--version",
            version,
            "--compression",
            compression,
            "--partitions",
            partitions,
            "--rows-per-partition",
            rows,
            "--chunk-kib",
            chunk_kib,
            "--seed",
            "26",
            "--ttl-fraction",
            "0.3",
            "--tombstone-fraction",
            "0.2",
        ],
    );
}
